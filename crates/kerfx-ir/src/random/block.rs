//! Block fills: the random values of a run of consecutive elements, for every backend
//! (the JIT calls these for its random fills, the derive's generated code too).
//!
//! Compiled three times — for AVX-512, AVX2 and the baseline instruction set — with the
//! widest the CPU has chosen at run time ([`Isa`]). Each value is the parent module's
//! ([`uniform_f32`](super::uniform_f32), [`normal_f32`](super::normal_f32), …) to the
//! bit: the code below performs the same f32 operations in the same order, and Rust
//! neither contracts nor reorders floating-point arithmetic, so vectors of any width
//! compute the same bits.
//!
//! A block is [`LANES`] consecutive Philox counters, 4·[`LANES`] elements from a multiple
//! of 4. An [`Engine`] computes Philox and moves words and values between counter order
//! and element order (element 4c + k takes word k of counter c); the transforms are
//! written once, as loops over contiguous lanes that the compiler vectorizes at the
//! path's width. The engines: [`Portable`] (plain Rust, the baseline's), and on x86-64
//! [`Avx2`] (intrinsics: the compiler does not find this Philox and these shuffles by
//! itself), which the AVX-512 path uses too — there only the transforms are 512 bits
//! wide (this project's machines have no AVX-512 to test a 512-bit engine on).

use super::{
    PHILOX_M0, PHILOX_M1, PHILOX_W0, PHILOX_W1, TWO_POW_M24, cos_2pi_f32, f16_next_down, f16_next_up, ln_f32,
    sin_2pi_f32,
};

/// Philox counters per block: 16, so that the normal transform has four AVX2 vectors of
/// pairs to overlap the latencies of its division and square root (measured: 8 are
/// slower).
const LANES: usize = 16;

/// Elements per block.
const BLOCK: usize = 4 * LANES;

/// An element type a random fill can write: the value's bits (f32 bits as u32, f16 bits
/// as u16) as the element holds them.
pub trait FromBits<B>: Copy {
    /// The element whose bits are `bits`.
    fn from_bits(bits: B) -> Self;
}

impl FromBits<u32> for f32 {
    #[inline(always)]
    fn from_bits(bits: u32) -> f32 {
        f32::from_bits(bits)
    }
}

impl FromBits<u32> for [u8; 4] {
    #[inline(always)]
    fn from_bits(bits: u32) -> [u8; 4] {
        bits.to_le_bytes()
    }
}

impl FromBits<u16> for u16 {
    #[inline(always)]
    fn from_bits(bits: u16) -> u16 {
        bits
    }
}

impl FromBits<u16> for half::f16 {
    #[inline(always)]
    fn from_bits(bits: u16) -> half::f16 {
        half::f16::from_bits(bits)
    }
}

impl FromBits<u16> for [u8; 2] {
    #[inline(always)]
    fn from_bits(bits: u16) -> [u8; 2] {
        bits.to_le_bytes()
    }
}

/// `out[k]` = [`uniform_f32`](super::uniform_f32)`(seed, first + k, alpha, beta)`
/// (indices wrap at 2⁶⁴).
pub fn fill_uniform_f32<E: FromBits<u32>>(seed: u64, first: u64, alpha: f32, beta: f32, out: &mut [E]) {
    fill(Isa::best(), Uniform::new(alpha, beta), seed, first, out);
}

/// `out[k]` = [`uniform_f16`](super::uniform_f16)`(seed, first + k, alpha, beta)`.
pub fn fill_uniform_f16<E: FromBits<u16>>(seed: u64, first: u64, alpha: f32, beta: f32, out: &mut [E]) {
    fill(Isa::best(), UniformF16(Uniform::new(alpha, beta)), seed, first, out);
}

/// `out[k]` = [`normal_f32`](super::normal_f32)`(seed, first + k, alpha, beta)`.
pub fn fill_normal_f32<E: FromBits<u32>>(seed: u64, first: u64, alpha: f32, beta: f32, out: &mut [E]) {
    fill(Isa::best(), Normal { alpha, beta }, seed, first, out);
}

/// `out[k]` = the f16 of [`normal_f32`](super::normal_f32)`(seed, first + k, alpha,
/// beta)`, rounded to nearest even (as `half::f16::from_f32`).
pub fn fill_normal_f16<E: FromBits<u16>>(seed: u64, first: u64, alpha: f32, beta: f32, out: &mut [E]) {
    fill(Isa::best(), NormalF16(Normal { alpha, beta }), seed, first, out);
}

/// One of the four fills above (of `[alpha, beta]`) on path `isa` (the baseline where the CPU lacks it), into
/// bytes: f32 elements (4 bytes each, `f16` false) or f16 ones (2 bytes), from element
/// `first` on, as many as `out` holds whole. For a caller that chooses the path itself
/// (the runtime library's baseline switch, `KERF_RT_BASELINE`); the bits are the same on
/// every path.
#[doc(hidden)]
pub fn fill_bytes_on(
    isa: Isa,
    normal: bool,
    f16: bool,
    seed: u64,
    first: u64,
    [alpha, beta]: [f32; 2],
    out: &mut [u8],
) {
    if f16 {
        let (o, _) = out.as_chunks_mut::<2>();
        match normal {
            false => fill(isa, UniformF16(Uniform::new(alpha, beta)), seed, first, o),
            true => fill(isa, NormalF16(Normal { alpha, beta }), seed, first, o),
        }
    } else {
        let (o, _) = out.as_chunks_mut::<4>();
        match normal {
            false => fill(isa, Uniform::new(alpha, beta), seed, first, o),
            true => fill(isa, Normal { alpha, beta }, seed, first, o),
        }
    }
}

/// Philox and the moves between counter order and element order, for one block.
trait Engine: Copy {
    /// A seed's keys as the engine uses them, made once per fill.
    type Keys;
    fn keys(self, seed: u64) -> Self::Keys;
    /// The block's words in element order.
    fn words(self, keys: &Self::Keys, counter: u64) -> [u32; BLOCK];
    /// The block's Box–Muller pairs (words 2p and 2p + 1 of a counter, p = 0, 1): the
    /// first and the second words of every pair, in the engine's pair order.
    fn pairs(self, keys: &Self::Keys, counter: u64) -> [[u32; 2 * LANES]; 2];
    /// The values of the pairs, in the engine's pair order (`[0]` from the cosine, `[1]`
    /// the sine), in element order.
    fn unpair(self, z: &[[u32; 2 * LANES]; 2]) -> [u32; BLOCK];
}

/// The engine in plain Rust; its pair order is p·LANES + l (pair p of counter l).
#[derive(Clone, Copy)]
struct Portable;

impl Engine for Portable {
    type Keys = u64;
    #[inline(always)]
    fn keys(self, seed: u64) -> u64 {
        seed
    }
    #[inline(always)]
    fn words(self, &seed: &u64, counter: u64) -> [u32; BLOCK] {
        let mut out = [0; BLOCK];
        for l in 0..LANES {
            let x = super::philox_for(seed, counter.wrapping_add(l as u64));
            out[4 * l..4 * l + 4].copy_from_slice(&x);
        }
        out
    }

    #[inline(always)]
    fn pairs(self, &seed: &u64, counter: u64) -> [[u32; 2 * LANES]; 2] {
        let mut ab = [[0; 2 * LANES]; 2];
        for l in 0..LANES {
            let x = super::philox_for(seed, counter.wrapping_add(l as u64));
            for p in 0..2 {
                ab[0][p * LANES + l] = x[2 * p];
                ab[1][p * LANES + l] = x[2 * p + 1];
            }
        }
        ab
    }

    #[inline(always)]
    fn unpair(self, z: &[[u32; 2 * LANES]; 2]) -> [u32; BLOCK] {
        let mut out = [0; BLOCK];
        for l in 0..LANES {
            for p in 0..2 {
                out[4 * l + 2 * p] = z[0][p * LANES + l];
                out[4 * l + 2 * p + 1] = z[1][p * LANES + l];
            }
        }
        out
    }
}

/// The engine in AVX2 intrinsics. A value exists only on a CPU with AVX2
/// ([`Avx2::detect`]).
///
/// Philox runs on eight counters per vector, one in each 32-bit lane (structure of
/// arrays: vector k of a group holds word k of its eight counters), so a group's state
/// is four registers and two groups leave room for the products. A product's low words
/// are one `vpmulld`, its high words two `vpmuludq` (even and odd lanes) and a blend.
/// Measured on the project's AVX2 host (AMD EPYC) against four counters per vector in
/// 64-bit lanes (one `vpmuludq` a product, but twice the registers per counter): Philox
/// alone 0.48 ns a word instead of 0.59; a uniform f32 fill of 16 Ki values in cache 0.69
/// ns a value instead of 0.79, a normal one 1.60 instead of 1.58 (its transform
/// dominates). `vpmulld` is one µop on AMD, two on Intel, where the lower words by two
/// shifts and a blend may be faster; not measured there. The pair order is [`Portable`]'s.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Avx2(());

#[cfg(target_arch = "x86_64")]
impl Avx2 {
    fn detect() -> Option<Avx2> {
        std::arch::is_x86_feature_detected!("avx2").then_some(Avx2(()))
    }
}

#[cfg(target_arch = "x86_64")]
impl Engine for Avx2 {
    type Keys = avx2::Keys;
    #[inline(always)]
    fn keys(self, seed: u64) -> avx2::Keys {
        // SAFETY: `self` exists, so the CPU has AVX2.
        unsafe { avx2::keys(seed) }
    }
    #[inline(always)]
    fn words(self, keys: &avx2::Keys, counter: u64) -> [u32; BLOCK] {
        // SAFETY: as above.
        unsafe { avx2::words(keys, counter) }
    }
    #[inline(always)]
    fn pairs(self, keys: &avx2::Keys, counter: u64) -> [[u32; 2 * LANES]; 2] {
        // SAFETY: as above.
        unsafe { avx2::pairs(keys, counter) }
    }
    #[inline(always)]
    fn unpair(self, z: &[[u32; 2 * LANES]; 2]) -> [u32; BLOCK] {
        // SAFETY: as above.
        unsafe { avx2::unpair(z) }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The entry points carry the AVX2 target feature; their helpers are inlined into
    //! them (a function with a target feature cannot be forced inline), so the helpers
    //! are `unsafe` to call: only on a CPU with AVX2.

    use super::{BLOCK, LANES, PHILOX_M0, PHILOX_M1, PHILOX_W0, PHILOX_W1};
    use std::arch::x86_64::*;

    /// Counters per vector: one in each 32-bit lane.
    const PER_VECTOR: usize = 8;

    /// Groups of [`PER_VECTOR`] counters in a block, their Philox rounds run together
    /// (measured alone: three groups 3% faster, four slower — their state no longer fits
    /// the 16 vector registers; two fit [`LANES`]).
    const GROUPS: usize = LANES / PER_VECTOR;

    /// Vectors as plain u32s.
    #[inline(always)]
    fn to_u32s<const N: usize, const M: usize>(v: [__m256i; N]) -> [u32; M] {
        const { assert!(32 * N == 4 * M) };
        // SAFETY: both are plain bits of the same size (asserted above); every bit
        // pattern is valid in both.
        unsafe { std::mem::transmute_copy::<[__m256i; N], [u32; M]>(&v) }
    }

    /// u32s as vectors of eight.
    #[inline(always)]
    fn from_u32s<const N: usize, const M: usize>(v: &[u32; M]) -> [__m256i; N] {
        const { assert!(32 * N == 4 * M) };
        // SAFETY: as in `to_u32s`.
        unsafe { std::mem::transmute_copy::<[u32; M], [__m256i; N]>(v) }
    }

    /// The ten rounds' keys of a seed, each word in every 32-bit lane: made once per fill
    /// and read from memory by the rounds (the registers hold the counters' state).
    pub(super) type Keys = [[__m256i; 2]; 10];

    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn keys(seed: u64) -> Keys {
        let (mut k0, mut k1) = (seed as u32, (seed >> 32) as u32);
        let mut keys = [[_mm256_setzero_si256(); 2]; 10];
        for (round, kv) in keys.iter_mut().enumerate() {
            if round > 0 {
                k0 = k0.wrapping_add(PHILOX_W0);
                k1 = k1.wrapping_add(PHILOX_W1);
            }
            *kv = [_mm256_set1_epi32(k0 as i32), _mm256_set1_epi32(k1 as i32)];
        }
        keys
    }

    /// The high and the low words of the 64-bit products of `a`'s lanes and `m`'s.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[inline(always)]
    unsafe fn mul_hi_lo(a: __m256i, m: __m256i) -> (__m256i, __m256i) {
        // SAFETY: the CPU has AVX2 (this function's contract).
        unsafe {
            let even = _mm256_mul_epu32(a, m);
            let odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(a), m);
            let hi = _mm256_blend_epi32::<0b1010_1010>(_mm256_shuffle_epi32::<0b11_11_01_01>(even), odd);
            (hi, _mm256_mullo_epi32(a, m))
        }
    }

    /// The words of the block's counters: `[g][k]` holds word k of counter
    /// `counter + 8g + i` in lane i.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[inline(always)]
    unsafe fn philox(keys: &Keys, counter: u64) -> [[__m256i; 4]; GROUPS] {
        // SAFETY: the CPU has AVX2 (this function's contract).
        unsafe {
            let m0 = _mm256_set1_epi32(PHILOX_M0 as i32);
            let m1 = _mm256_set1_epi32(PHILOX_M1 as i32);
            let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            let sign = _mm256_set1_epi32(i32::MIN);
            let (low, high) = (_mm256_set1_epi32(counter as u32 as i32), _mm256_set1_epi32((counter >> 32) as i32));
            let mut c = [[_mm256_setzero_si256(); 4]; GROUPS];
            for (g, c) in c.iter_mut().enumerate() {
                // Counter words: the low word plus the lane's offset; where that wraps
                // (it fell below the first low word, compared unsigned through the
                // flipped sign bit), the high word plus one (the mask is −1 there).
                c[0] = _mm256_add_epi32(low, _mm256_add_epi32(lanes, _mm256_set1_epi32((PER_VECTOR * g) as i32)));
                let wrapped = _mm256_cmpgt_epi32(_mm256_xor_si256(low, sign), _mm256_xor_si256(c[0], sign));
                c[1] = _mm256_sub_epi32(high, wrapped);
            }
            for &[kv0, kv1] in keys {
                for c in c.iter_mut() {
                    let (hi0, lo0) = mul_hi_lo(c[0], m0);
                    let (hi1, lo1) = mul_hi_lo(c[2], m1);
                    // The key joins the word from the last round first, off the multiply's
                    // path (xor is associative: the same bits).
                    c[0] = _mm256_xor_si256(hi1, _mm256_xor_si256(c[1], kv0));
                    c[1] = lo1;
                    c[2] = _mm256_xor_si256(hi0, _mm256_xor_si256(c[3], kv1));
                    c[3] = lo0;
                }
            }
            c
        }
    }

    /// Eight counters' four words from structure of arrays (`w[k]` lane i: word k of
    /// counter i) to element order: counters 0, 1, then 2, 3, then 4, 5, then 6, 7.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[inline(always)]
    unsafe fn by_counter(w: [__m256i; 4]) -> [__m256i; 4] {
        // SAFETY: the CPU has AVX2 (this function's contract).
        unsafe {
            // Words 0, 1 and words 2, 3 of counters (0, 1 | 4, 5) and (2, 3 | 6, 7)…
            let (a, b) = (_mm256_unpacklo_epi32(w[0], w[1]), _mm256_unpackhi_epi32(w[0], w[1]));
            let (c, d) = (_mm256_unpacklo_epi32(w[2], w[3]), _mm256_unpackhi_epi32(w[2], w[3]));
            // … then each counter's four: counters (0 | 4), (1 | 5), (2 | 6), (3 | 7) …
            let (c04, c15) = (_mm256_unpacklo_epi64(a, c), _mm256_unpackhi_epi64(a, c));
            let (c26, c37) = (_mm256_unpacklo_epi64(b, d), _mm256_unpackhi_epi64(b, d));
            // … and the 128-bit halves in counter order.
            [
                _mm256_permute2x128_si256::<0x20>(c04, c15),
                _mm256_permute2x128_si256::<0x20>(c26, c37),
                _mm256_permute2x128_si256::<0x31>(c04, c15),
                _mm256_permute2x128_si256::<0x31>(c26, c37),
            ]
        }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn words(keys: &Keys, counter: u64) -> [u32; BLOCK] {
        let mut out = [_mm256_setzero_si256(); 4 * GROUPS];
        // SAFETY: the CPU has AVX2 (this function's target feature).
        unsafe {
            let x = philox(keys, counter);
            for (out, x) in out.chunks_exact_mut(4).zip(x) {
                out.copy_from_slice(&by_counter(x));
            }
        }
        to_u32s(out)
    }

    /// Pair order p·LANES + l: pair p of counter l.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn pairs(keys: &Keys, counter: u64) -> [[u32; 2 * LANES]; 2] {
        // SAFETY: the CPU has AVX2 (this function's target feature).
        let x = unsafe { philox(keys, counter) };
        let mut ab = [[_mm256_setzero_si256(); 2 * GROUPS]; 2];
        for (g, x) in x.iter().enumerate() {
            for p in 0..2 {
                ab[0][p * GROUPS + g] = x[2 * p];
                ab[1][p * GROUPS + g] = x[2 * p + 1];
            }
        }
        ab.map(to_u32s)
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn unpair(z: &[[u32; 2 * LANES]; 2]) -> [u32; BLOCK] {
        let [c, s]: [[__m256i; 2 * GROUPS]; 2] = [from_u32s(&z[0]), from_u32s(&z[1])];
        let mut out = [_mm256_setzero_si256(); 4 * GROUPS];
        for (g, out) in out.chunks_exact_mut(4).enumerate() {
            // Each counter's (cosine, sine) of pair 0, then of pair 1.
            // SAFETY: the CPU has AVX2 (this function's target feature).
            out.copy_from_slice(&unsafe { by_counter([c[g], s[g], c[GROUPS + g], s[GROUPS + g]]) });
        }
        to_u32s(out)
    }
}

/// A random fill's values of a block, in element order, as the bits of its output type
/// (f16 bits in the low half).
trait Transform: Copy {
    /// The bits of one value (u32 for f32, u16 for f16).
    type Bits: Bits;
    fn block<G: Engine>(self, engine: G, keys: &G::Keys, counter: u64) -> [u32; BLOCK];
}

/// u32 or u16, from the low bits of a u32.
trait Bits: Copy {
    fn from_low(v: u32) -> Self;
}

impl Bits for u32 {
    #[inline(always)]
    fn from_low(v: u32) -> u32 {
        v
    }
}

impl Bits for u16 {
    #[inline(always)]
    fn from_low(v: u32) -> u16 {
        v as u16
    }
}

/// `(w >> 8)` as f32, plus one first when `plus_one` (exact: at most 2²⁴). Through i32,
/// whose conversion every vector instruction set has.
#[inline(always)]
fn top24(w: u32, plus_one: bool) -> f32 {
    ((w >> 8) + plus_one as u32) as i32 as f32
}

/// [`super::uniform_f32`]'s numbers.
#[derive(Clone, Copy)]
struct Uniform {
    alpha: f32,
    beta: f32,
    /// beta − alpha.
    range: f32,
    /// The largest f32 below beta.
    below: f32,
}

impl Uniform {
    fn new(alpha: f32, beta: f32) -> Uniform {
        Uniform { alpha, beta, range: beta - alpha, below: beta.next_down() }
    }

    #[inline(always)]
    fn value(self, w: u32) -> f32 {
        let u = top24(w, false) * TWO_POW_M24;
        let v = self.alpha + self.range * u;
        if v >= self.beta { self.below } else { v }
    }
}

// A uniform value is the same function of every word: the words come in element order
// and the values are computed on contiguous lanes.

impl Transform for Uniform {
    type Bits = u32;
    #[inline(always)]
    fn block<G: Engine>(self, engine: G, keys: &G::Keys, counter: u64) -> [u32; BLOCK] {
        let mut v = engine.words(keys, counter);
        for v in &mut v {
            *v = self.value(*v).to_bits();
        }
        v
    }
}

/// [`super::uniform_f16`].
#[derive(Clone, Copy)]
struct UniformF16(Uniform);

impl UniformF16 {
    /// The f16 bits of the value of word `w`, nudged into [alpha, beta).
    #[inline(always)]
    fn value(self, w: u32) -> u16 {
        let Uniform { alpha, beta, .. } = self.0;
        let h = f16_bits(self.0.value(w));
        let hf = f16_value(h);
        if hf >= beta {
            f16_next_down(h)
        } else if hf < alpha {
            f16_next_up(h)
        } else {
            h
        }
    }
}

impl Transform for UniformF16 {
    type Bits = u16;
    #[inline(always)]
    fn block<G: Engine>(self, engine: G, keys: &G::Keys, counter: u64) -> [u32; BLOCK] {
        let mut v = engine.words(keys, counter);
        for v in &mut v {
            *v = self.value(*v) as u32;
        }
        v
    }
}

/// [`super::normal_f32`]'s numbers.
#[derive(Clone, Copy)]
struct Normal {
    alpha: f32,
    beta: f32,
}

impl Normal {
    /// The values' bits of a block (f16 bits when `F16`), pair by pair.
    #[inline(always)]
    fn block_as<const F16: bool, G: Engine>(self, engine: G, keys: &G::Keys, counter: u64) -> [u32; BLOCK] {
        let [a, b] = engine.pairs(keys, counter);
        let mut r = [0f32; 2 * LANES];
        for (r, &a) in r.iter_mut().zip(&a) {
            let u1 = top24(a, true) * TWO_POW_M24;
            *r = (-2.0 * ln_f32(u1)).sqrt();
        }
        let mut z = [[0u32; 2 * LANES]; 2];
        for j in 0..2 * LANES {
            let u2 = top24(b[j], false) * TWO_POW_M24;
            z[0][j] = out_bits::<F16>(self.alpha + self.beta * (r[j] * cos_2pi_f32(u2)));
            z[1][j] = out_bits::<F16>(self.alpha + self.beta * (r[j] * sin_2pi_f32(u2)));
        }
        engine.unpair(&z)
    }
}

/// f32 bits, or f16 bits when `F16`.
#[inline(always)]
fn out_bits<const F16: bool>(v: f32) -> u32 {
    if F16 { f16_bits(v) as u32 } else { v.to_bits() }
}

impl Transform for Normal {
    type Bits = u32;
    #[inline(always)]
    fn block<G: Engine>(self, engine: G, keys: &G::Keys, counter: u64) -> [u32; BLOCK] {
        self.block_as::<false, G>(engine, keys, counter)
    }
}

/// The f16 of [`super::normal_f32`].
#[derive(Clone, Copy)]
struct NormalF16(Normal);

impl Transform for NormalF16 {
    type Bits = u16;
    #[inline(always)]
    fn block<G: Engine>(self, engine: G, keys: &G::Keys, counter: u64) -> [u32; BLOCK] {
        self.0.block_as::<true, G>(engine, keys, counter)
    }
}

/// f32 → f16 bits rounded to nearest even, as `half::f16::from_f32` (NaN: quiet, the top
/// of its payload kept). Every case is computed and one chosen (wrapping where a case
/// that is not chosen would overflow), so that the loops vectorize it.
#[inline(always)]
fn f16_bits(v: f32) -> u16 {
    let x = v.to_bits();
    let sign = x & 0x8000_0000;
    let a = x ^ sign;
    let nan = 0x7e00 | ((a >> 13) & 0x3ff);
    // Below f16's smallest normal (2⁻¹⁴): adding 0.5, whose ulp is f16's subnormal step
    // 2⁻²⁴, rounds to nearest even; its bits less 0.5's are the f16 bits.
    let subnormal = (f32::from_bits(a) + 0.5).to_bits().wrapping_sub(0.5f32.to_bits());
    // Rebias the exponent and round the mantissa's low 13 bits to nearest even; a carry
    // moves into the exponent (up to infinity) as it should.
    let normal = a.wrapping_sub(112 << 23).wrapping_add(0xfff + ((a >> 13) & 1)) >> 13;
    let h = if a < 113 << 23 { subnormal } else { normal };
    // 2¹⁶ and above (infinity included) is infinite in f16.
    let h = if a >= (127 + 16) << 23 { 0x7c00 } else { h };
    let h = if a > 0x7f80_0000 { nan } else { h };
    (h | (sign >> 16)) as u16
}

/// The f32 value of f16 bits (exact), in operations that vectorize.
#[inline(always)]
fn f16_value(h: u16) -> f32 {
    let mag = (h & 0x7fff) as u32;
    let sign = ((h & 0x8000) as u32) << 16;
    // mag << 13 is a finite value times 2⁻¹¹², subnormals included.
    let finite = (f32::from_bits(mag << 13) * f32::from_bits((127 + 112) << 23)).to_bits();
    let bits = if mag >= 0x7c00 { (mag << 13) | 0x7f80_0000 } else { finite };
    f32::from_bits(bits | sign)
}

/// The instruction sets the block fills are compiled for.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    Baseline,
    /// x86-64 with AVX2.
    Avx2,
    /// x86-64 with AVX-512 F, BW, DQ and VL.
    Avx512,
}

impl Isa {
    /// Whether this CPU runs the path.
    pub fn available(self) -> bool {
        match self {
            Isa::Baseline => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx512vl")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The widest path this CPU runs.
    pub fn best() -> Isa {
        [Isa::Avx512, Isa::Avx2].into_iter().find(|i| i.available()).unwrap_or(Isa::Baseline)
    }
}

/// The fill of `out` from element `first` on path `isa` (the baseline where the CPU
/// lacks it).
fn fill<T: Transform, E: FromBits<T::Bits>>(isa: Isa, t: T, seed: u64, first: u64, out: &mut [E]) {
    // Element indices wrap at 2⁶⁴ (to 0, a multiple of 4, so each part is its own fill).
    let to_wrap = (u64::MAX - first).saturating_add(1);
    if (out.len() as u64) > to_wrap {
        let (a, b) = out.split_at_mut(to_wrap as usize);
        fill(isa, t, seed, first, a);
        fill(isa, t, seed, 0, b);
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = Avx2::detect() {
        if isa == Isa::Avx512 && isa.available() {
            // SAFETY: the CPU has the features `fill_avx512` is compiled for (checked
            // just above).
            return unsafe { fill_avx512(avx2, t, seed, first, out) };
        }
        if isa == Isa::Avx2 {
            // SAFETY: the CPU has AVX2 (`avx2` exists).
            return unsafe { fill_avx2(avx2, t, seed, first, out) };
        }
    }
    fill_blocks(Portable, t, seed, first, out)
}

/// The AVX2 engine with transforms in 512-bit vectors.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512dq,avx512vl")]
fn fill_avx512<T: Transform, E: FromBits<T::Bits>>(engine: Avx2, t: T, seed: u64, first: u64, out: &mut [E]) {
    fill_blocks(engine, t, seed, first, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn fill_avx2<T: Transform, E: FromBits<T::Bits>>(engine: Avx2, t: T, seed: u64, first: u64, out: &mut [E]) {
    fill_blocks(engine, t, seed, first, out)
}

// `fill_blocks` and its helpers take no closures: a closure is compiled without its
// caller's target features unless inlined, which the compiler may decline.

/// The fill, block by block: blocks start at multiples of 4; the first and the last
/// may be partial (computed whole, stored in part). `first + out.len()` ≤ 2⁶⁴.
#[inline(always)]
fn fill_blocks<G: Engine, T: Transform, E: FromBits<T::Bits>>(engine: G, t: T, seed: u64, first: u64, out: &mut [E]) {
    // The head, up to the next multiple of 4.
    let keys = engine.keys(seed);
    let head = (first.wrapping_neg() % 4).min(out.len() as u64) as usize;
    let (h, rest) = out.split_at_mut(head);
    if head > 0 {
        store::<T, E>(h, &t.block(engine, &keys, first / 4)[(first % 4) as usize..]);
    }
    let mut counter = first.wrapping_add(head as u64) / 4;
    let mut blocks = rest.chunks_exact_mut(BLOCK);
    for dst in &mut blocks {
        store::<T, E>(dst, &t.block(engine, &keys, counter));
        counter = counter.wrapping_add(LANES as u64);
    }
    let tail = blocks.into_remainder();
    if !tail.is_empty() {
        store::<T, E>(tail, &t.block(engine, &keys, counter));
    }
}

#[inline(always)]
fn store<T: Transform, E: FromBits<T::Bits>>(out: &mut [E], vals: &[u32]) {
    for (d, &v) in out.iter_mut().zip(vals) {
        *d = E::from_bits(T::Bits::from_low(v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{normal_f32, uniform_f16, uniform_f32};

    fn paths() -> Vec<Isa> {
        let all = [Isa::Baseline, Isa::Avx2, Isa::Avx512];
        all.into_iter().filter(|i| i.available()).collect()
    }

    /// (seed, first, len): seeds with both key halves set, starts at every residue mod 4
    /// and around a block, lengths with odd tails, and indices at the counter's 2³² and
    /// 2⁶⁴ boundaries.
    fn cases() -> Vec<(u64, u64, usize)> {
        let mut c = Vec::new();
        for seed in [0, 1, 0x1234_5678_9abc_def0, u64::MAX] {
            for first in [0, 1, 2, 3, 4, 61, 64, 65, 1_000_003] {
                for len in [0, 1, 3, 4, 5, 63, 64, 65, 130, 259] {
                    c.push((seed, first, len));
                }
            }
        }
        c.push((7, (1 << 34) - 37, 100));
        c.push((7, u64::MAX - 5, 20));
        c
    }

    fn index(first: u64, k: usize) -> u64 {
        first.wrapping_add(k as u64)
    }

    #[test]
    fn every_path_gives_the_reference_bits() {
        let params = [(0.0, 1.0), (-2.0, 3.0), (1.0, 1.0f32.next_up()), (-1e30, 1e30)];
        for isa in paths() {
            for (seed, first, len) in cases() {
                for (a, b) in params {
                    let mut o32 = vec![0f32; len];
                    fill(isa, Uniform::new(a, b), seed, first, &mut o32);
                    for (k, v) in o32.iter().enumerate() {
                        let want = uniform_f32(seed, index(first, k), a, b);
                        assert_eq!(v.to_bits(), want.to_bits(), "{isa:?} uniform f32 {seed} {first}+{k} [{a}, {b})");
                    }
                    let mut o16 = vec![0u16; len];
                    fill(isa, UniformF16(Uniform::new(a, b)), seed, first, &mut o16);
                    for (k, &v) in o16.iter().enumerate() {
                        let want = uniform_f16(seed, index(first, k), a, b);
                        assert_eq!(v, want, "{isa:?} uniform f16 {seed} {first}+{k} [{a}, {b})");
                    }
                    let mut o32 = vec![0f32; len];
                    fill(isa, Normal { alpha: a, beta: b }, seed, first, &mut o32);
                    for (k, v) in o32.iter().enumerate() {
                        let want = normal_f32(seed, index(first, k), a, b);
                        assert_eq!(v.to_bits(), want.to_bits(), "{isa:?} normal f32 {seed} {first}+{k} ({a}, {b})");
                    }
                    let mut o16 = vec![0u16; len];
                    fill(isa, NormalF16(Normal { alpha: a, beta: b }), seed, first, &mut o16);
                    for (k, &v) in o16.iter().enumerate() {
                        let want = half::f16::from_f32(normal_f32(seed, index(first, k), a, b)).to_bits();
                        assert_eq!(v, want, "{isa:?} normal f16 {seed} {first}+{k} ({a}, {b})");
                    }
                }
            }
        }
    }

    proptest::proptest! {
        /// Any seed, start and length, on every path.
        #[test]
        fn every_path_on_random_runs(seed: u64, first: u64, len in 0usize..300, a in -1e3f32..1e3, w in 1e-3f32..1e3) {
            let b = a + w;
            for isa in paths() {
                let mut u = vec![0f32; len];
                fill(isa, Uniform::new(a, b), seed, first, &mut u);
                let mut z = vec![[0u8; 2]; len];
                fill(isa, NormalF16(Normal { alpha: a, beta: w }), seed, first, &mut z);
                for k in 0..len {
                    let i = index(first, k);
                    proptest::prop_assert_eq!(u[k].to_bits(), uniform_f32(seed, i, a, b).to_bits());
                    let h = half::f16::from_f32(normal_f32(seed, i, a, w)).to_bits();
                    proptest::prop_assert_eq!(z[k], h.to_le_bytes());
                }
            }
        }
    }

    /// The public functions (the best path) and every element type agree.
    #[test]
    fn public_functions_and_element_types() {
        let (seed, first, n) = (99, 6, 201);
        let mut f = vec![0f32; n];
        let mut b = vec![[0u8; 4]; n];
        fill_uniform_f32(seed, first, -1.0, 2.0, &mut f);
        fill_uniform_f32(seed, first, -1.0, 2.0, &mut b);
        for k in 0..n {
            assert_eq!(f[k], uniform_f32(seed, first + k as u64, -1.0, 2.0));
            assert_eq!(b[k], f[k].to_le_bytes());
        }
        fill_normal_f32(seed, first, 0.5, 2.0, &mut f);
        assert!((0..n).all(|k| f[k] == normal_f32(seed, first + k as u64, 0.5, 2.0)));
        let mut h = vec![half::f16::ZERO; n];
        let mut b = vec![[0u8; 2]; n];
        fill_uniform_f16(seed, first, -1.0, 2.0, &mut h);
        fill_uniform_f16(seed, first, -1.0, 2.0, &mut b);
        for k in 0..n {
            assert_eq!(h[k].to_bits(), uniform_f16(seed, first + k as u64, -1.0, 2.0));
            assert_eq!(b[k], h[k].to_bits().to_le_bytes());
        }
        fill_normal_f16(seed, first, 0.5, 2.0, &mut h);
        assert!((0..n).all(|k| h[k] == half::f16::from_f32(normal_f32(seed, first + k as u64, 0.5, 2.0))));
    }

    /// The f16 conversions agree with `half` on every f32 whose bits decide the rounding
    /// (each pattern of the top 19 bits with the low 13 at the rounding edges), and on
    /// specials.
    #[test]
    fn f16_conversions_match_half() {
        for hi in 0..1u32 << 19 {
            for lo in [0, 1, 0xfff, 0x1000, 0x1001, 0x1fff] {
                let x = f32::from_bits(hi << 13 | lo);
                let want = half::f16::from_f32(x).to_bits();
                assert_eq!(f16_bits(x), want, "{x:e} ({:#x})", x.to_bits());
            }
        }
        for h in 0..=u16::MAX {
            let want = half::f16::from_bits(h).to_f32();
            let got = f16_value(h);
            assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "{h:#x}");
        }
    }
}
