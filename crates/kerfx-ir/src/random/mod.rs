//! kerf's random fill: Philox4x32-10 and its own documented f32 transforms.
//!
//! An element's value is a pure function of (seed, linear index, alpha, beta, dtype).
//! Every Philox call yields four 32-bit words, and all four are used:
//! - For element i: counter c = i div 4 as [c low 32 bits, c high 32 bits, 0, 0],
//!   key = [seed low, seed high]; (x0, x1, x2, x3) = Philox4x32-10(counter, key).
//! - uniform: element i takes word w = x[i mod 4]; u = (w >> 8)·2⁻²⁴ ∈ [0, 1);
//!   v = alpha + (beta − alpha)·u in f32 (a multiply then an add, two roundings, no fused
//!   multiply-add); a v that rounded up to beta is replaced by the largest f32 below beta.
//!   f16: v rounded to nearest even, then nudged one f16 step into [alpha, beta) if
//!   rounding left it.
//! - normal (Box–Muller, both values of each pair): element i belongs to pair
//!   p = (i mod 4) div 2, which uses words `a = x[2p]`, `b = x[2p+1]`:
//!   u1 = ((a >> 8) + 1)·2⁻²⁴ ∈ (0, 1], u2 = (b >> 8)·2⁻²⁴ ∈ [0, 1);
//!   r = sqrt(−2·ln(u1)); z = r·cos(2π·u2) for even i, r·sin(2π·u2) for odd i, where
//!   sin(2π·u2) = cos(2π·s) with s = u2 − 0.25 if u2 ≥ 0.25 else u2 + 0.75 (exact);
//!   v = alpha + beta·z. `ln` and `cos_2pi` below are kerf's own approximations built
//!   only from f32 add, subtract, multiply, divide, square root and integer bit
//!   operations, all exactly rounded in IEEE 754, so every backend that performs the
//!   same operations in the same order gets the same bits. f16: v rounded to nearest even.
//!
//! Every backend (the JIT, the derive output) must perform exactly these operations in
//! this order: they call the block fills ([`fill_uniform_f32`] and the others), vectorized
//! for the CPU; the scalar functions here are their definition.

mod block;

pub use block::{FromBits, Isa, fill_bytes_on, fill_normal_f16, fill_normal_f32, fill_uniform_f16, fill_uniform_f32};

/// Philox4x32 multipliers and Weyl constants (Salmon et al., Random123): the multiplier
/// of counter word 0 in each round.
pub const PHILOX_M0: u32 = 0xD251_1F53;
/// The multiplier of counter word 2 in each round.
pub const PHILOX_M1: u32 = 0xCD9E_8D57;
/// The Weyl constant added to key word 0 before every round but the first.
pub const PHILOX_W0: u32 = 0x9E37_79B9;
/// The Weyl constant added to key word 1 before every round but the first.
pub const PHILOX_W1: u32 = 0xBB67_AE85;

/// Philox4x32 with 10 rounds.
#[inline]
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let [mut c0, mut c1, mut c2, mut c3] = counter;
    let [mut k0, mut k1] = key;
    for round in 0..10 {
        if round > 0 {
            k0 = k0.wrapping_add(PHILOX_W0);
            k1 = k1.wrapping_add(PHILOX_W1);
        }
        let p0 = PHILOX_M0 as u64 * c0 as u64;
        let p1 = PHILOX_M1 as u64 * c2 as u64;
        let (hi0, lo0) = ((p0 >> 32) as u32, p0 as u32);
        let (hi1, lo1) = ((p1 >> 32) as u32, p1 as u32);
        (c0, c1, c2, c3) = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0);
    }
    [c0, c1, c2, c3]
}

/// The four words for element `index` under `seed`.
#[inline]
pub fn philox_for(seed: u64, index: u64) -> [u32; 4] {
    philox4x32_10([index as u32, (index >> 32) as u32, 0, 0], [seed as u32, (seed >> 32) as u32])
}

/// 2⁻²⁴, exact in f32.
pub const TWO_POW_M24: f32 = 1.0 / 16_777_216.0;

/// The uniform value in f32 for element `index`.
#[inline]
pub fn uniform_f32(seed: u64, index: u64, alpha: f32, beta: f32) -> f32 {
    let w = philox_for(seed, index / 4)[(index % 4) as usize];
    let u = (w >> 8) as f32 * TWO_POW_M24;
    let v = alpha + (beta - alpha) * u;
    if v >= beta { beta.next_down() } else { v }
}

/// The uniform value as f16 bits.
#[inline]
pub fn uniform_f16(seed: u64, index: u64, alpha: f32, beta: f32) -> u16 {
    let v = uniform_f32(seed, index, alpha, beta);
    let h = half::f16::from_f32(v);
    if h.to_f32() >= beta {
        f16_next_down(h.to_bits())
    } else if h.to_f32() < alpha {
        f16_next_up(h.to_bits())
    } else {
        h.to_bits()
    }
}

// The f16 steps on bits, each case computed and one chosen (wrapping where a case that is
// not chosen would overflow), so that the block fills' loops vectorize them.

/// The f16 below `b` (a zero's is the negative smallest subnormal).
#[inline(always)]
fn f16_next_down(b: u16) -> u16 {
    let away = if b & 0x8000 == 0 { b.wrapping_sub(1) } else { b.wrapping_add(1) };
    if b & 0x7fff == 0 { 0x8001 } else { away }
}

/// The f16 above `b` (a zero's is the smallest subnormal).
#[inline(always)]
fn f16_next_up(b: u16) -> u16 {
    let toward = if b & 0x8000 == 0 { b.wrapping_add(1) } else { b.wrapping_sub(1) };
    if b & 0x7fff == 0 { 0x0001 } else { toward }
}

/// Coefficients of `ln` (the minimax polynomial of musl's logf, a public-domain
/// algorithm; the formula is kerf's, fixed here so that all backends agree), given by
/// their exact bits: LG1, of z (≈ 2/3).
pub const LN_LG1: f32 = f32::from_bits(0x3f2a_aaaa);
/// LG2, of w (≈ 0.4).
pub const LN_LG2: f32 = f32::from_bits(0x3ecc_ce13);
/// LG3, of z·w (≈ 0.285).
pub const LN_LG3: f32 = f32::from_bits(0x3e91_e9ee);
/// LG4, of w·w (≈ 0.242).
pub const LN_LG4: f32 = f32::from_bits(0x3e78_9e26);
/// The high part of ln 2 (its low seven mantissa bits zero, so `k·LN2_HI` is exact for
/// every |k| < 128, which covers every input here).
pub const LN2_HI: f32 = f32::from_bits(0x3f31_7180);
/// The low part of ln 2: ln 2 − `LN2_HI`, rounded to f32.
pub const LN2_LO: f32 = f32::from_bits(0x3717_f7d1);

/// Natural log for normal positive f32 (u1 ∈ [2⁻²⁴, 1] here). Steps, in order:
/// ix = bits(x) + (0x3f800000 − 0x3f3504f3); k = (ix >> 23) − 127 (arithmetic);
/// f = from_bits((ix & 0x7fffff) + 0x3f3504f3) − 1; s = f / (2 + f); z = s·s; w = z·z;
/// t1 = w·(LG2 + w·LG4); t2 = z·(LG1 + w·LG3); r = t2 + t1; hfsq = 0.5·f·f; dk = k as f32;
/// result = s·(hfsq + r) + dk·LN2_LO − hfsq + f + dk·LN2_HI, evaluated left to right.
#[inline]
pub fn ln_f32(x: f32) -> f32 {
    let ix = x.to_bits().wrapping_add(0x3f80_0000 - 0x3f35_04f3);
    let k = ((ix as i32) >> 23) - 0x7f;
    let f = f32::from_bits((ix & 0x007f_ffff) + 0x3f35_04f3) - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (LN_LG2 + w * LN_LG4);
    let t2 = z * (LN_LG1 + w * LN_LG3);
    let r = t2 + t1;
    let hfsq = 0.5 * f * f;
    let dk = k as f32;
    s * (hfsq + r) + dk * LN2_LO - hfsq + f + dk * LN2_HI
}

/// Taylor coefficients of sin on [−π/2, π/2]: of x³, −1/3!.
pub const SIN_C3: f32 = -1.0 / 6.0;
/// Of x⁵, 1/5!.
pub const SIN_C5: f32 = 1.0 / 120.0;
/// Of x⁷, −1/7!.
pub const SIN_C7: f32 = -1.0 / 5040.0;
/// Of x⁹, 1/9!.
pub const SIN_C9: f32 = 1.0 / 362_880.0;
/// Of x¹¹, −1/11!.
pub const SIN_C11: f32 = -1.0 / 39_916_800.0;
/// 2π rounded to f32.
pub const TWO_PI: f32 = std::f32::consts::TAU;

/// cos(2π·u) for u ∈ [0, 1): c = |u − 0.5| − 0.25 ∈ [−0.25, 0.25] and cos(2πu) = sin(2πc);
/// x = c·2π; x2 = x·x; p = ((((C11·x2 + C9)·x2 + C7)·x2 + C5)·x2 + C3)·x2;
/// result = x + x·p.
#[inline]
pub fn cos_2pi_f32(u: f32) -> f32 {
    let c = (u - 0.5).abs() - 0.25;
    let x = c * TWO_PI;
    let x2 = x * x;
    let p = ((((SIN_C11 * x2 + SIN_C9) * x2 + SIN_C7) * x2 + SIN_C5) * x2 + SIN_C3) * x2;
    x + x * p
}

/// sin(2π·u) for u ∈ [0, 1), as cos(2π·s) with s = u − 1/4 taken into [0, 1) (exact).
#[inline]
pub fn sin_2pi_f32(u: f32) -> f32 {
    let s = if u >= 0.25 { u - 0.25 } else { u + 0.75 };
    cos_2pi_f32(s)
}

/// The standard normal z for element `index`.
#[inline]
pub fn standard_normal_f32(seed: u64, index: u64) -> f32 {
    let x = philox_for(seed, index / 4);
    let pair = ((index % 4) / 2) as usize;
    let u1 = ((x[2 * pair] >> 8) + 1) as f32 * TWO_POW_M24;
    let u2 = (x[2 * pair + 1] >> 8) as f32 * TWO_POW_M24;
    let r = (-2.0 * ln_f32(u1)).sqrt();
    if index.is_multiple_of(2) { r * cos_2pi_f32(u2) } else { r * sin_2pi_f32(u2) }
}

/// The normal fill's value of element `index`: `alpha + beta·z` (mean `alpha`, standard
/// deviation `beta`) for z of [`standard_normal_f32`], one multiply then one add in f32.
#[inline]
pub fn normal_f32(seed: u64, index: u64, alpha: f32, beta: f32) -> f32 {
    alpha + beta * standard_normal_f32(seed, index)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Known answers from Random123's kat_vectors for philox4x32_10.
    #[test]
    fn philox_known_answers() {
        assert_eq!(philox4x32_10([0, 0, 0, 0], [0, 0]), [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]);
        assert_eq!(philox4x32_10([u32::MAX; 4], [u32::MAX; 2]), [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]);
        assert_eq!(
            philox4x32_10([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0]),
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
        );
    }

    #[test]
    fn ln_is_close_to_libm() {
        let mut x = TWO_POW_M24;
        while x <= 1.0 {
            let got = ln_f32(x) as f64;
            let want = (x as f64).ln();
            assert!((got - want).abs() <= 2e-7 * want.abs().max(1.0), "ln({x}) = {got}, want {want}");
            x *= 1.0137;
        }
        assert_eq!(ln_f32(1.0), 0.0);
    }

    #[test]
    fn cos_2pi_is_close_to_libm() {
        for i in 0..4096 {
            let u = i as f32 / 4096.0;
            let got = cos_2pi_f32(u) as f64;
            let want = (std::f64::consts::TAU * u as f64).cos();
            assert!((got - want).abs() < 5e-7, "cos(2pi*{u}) = {got}, want {want}");
        }
    }

    #[test]
    fn sin_2pi_is_close_to_libm() {
        for i in 0..4096 {
            let u = i as f32 / 4096.0;
            let got = sin_2pi_f32(u) as f64;
            let want = (std::f64::consts::TAU * u as f64).sin();
            assert!((got - want).abs() < 5e-7, "sin(2pi*{u}) = {got}, want {want}");
        }
    }

    #[test]
    fn every_philox_word_is_used_once() {
        let x = philox_for(11, 3);
        for (k, w) in x.iter().enumerate() {
            let u = (w >> 8) as f32 * TWO_POW_M24;
            assert_eq!(uniform_f32(11, 12 + k as u64, 0.0, 1.0), u, "element {} takes word {k}", 12 + k);
        }
        // Normal: elements 12, 13 share words 0 and 1 (cos and sin); 14, 15 words 2 and 3.
        let u1 = ((x[2] >> 8) + 1) as f32 * TWO_POW_M24;
        let u2 = (x[3] >> 8) as f32 * TWO_POW_M24;
        let r = (-2.0 * ln_f32(u1)).sqrt();
        assert_eq!(standard_normal_f32(11, 14), r * cos_2pi_f32(u2));
        assert_eq!(standard_normal_f32(11, 15), r * sin_2pi_f32(u2));
    }

    #[test]
    fn uniform_stays_in_half_open_range() {
        for i in 0..10_000 {
            let v = uniform_f32(7, i, -2.0, 3.0);
            assert!((-2.0..3.0).contains(&v));
            let h = half::f16::from_bits(uniform_f16(7, i, -2.0, 3.0)).to_f32();
            assert!((-2.0..3.0).contains(&h));
        }
        // A range of one ulp: alpha + range*u rounds up to beta for u > 1/2, and must be
        // nudged back below beta, so alpha is the only possible value.
        let beta = 1.0f32.next_up();
        assert!((0..1000).all(|i| uniform_f32(3, i, 1.0, beta) == 1.0));
        let beta16 = half::f16::from_bits(0x3c01).to_f32();
        assert!((0..1000).all(|i| uniform_f16(3, i, 1.0, beta16) == 0x3c00));
    }
}
