//! Random fills: Philox4x32-10 and kerf's f32 transforms ([`kerf_ir::random`], whose
//! module doc is the definition), with the same f32 operations in the same order.
//!
//! Element i takes word i mod 4 (uniform) or pair (i mod 4) div 2 (normal) of counter
//! i div 4. A *group* is four consecutive counters in the lanes of an i32x4: Philox gives
//! word vectors x0..x3 whose lane l belongs to counter c+l; every transform is lane-wise,
//! so it runs on the word vectors, and a 4×4 transpose puts the results in element order
//! (lane l's four values are elements 4(c+l) .. 4(c+l)+3). A *block* is [`GROUPS`]
//! independent groups (16·GROUPS elements from a multiple of 4), so that the CPU overlaps
//! their dependency chains.
//!
//! Words known to be the same in every lane (the keys, the zero counter words and what
//! the first two rounds make of them) stay scalars — constants in a static kernel — so
//! the first two rounds need one vector multiply each instead of two.

use crate::abi::dyn_fill;
use crate::builder::{Gen, mf};
use crate::policy::RANDOM_GROUPS as GROUPS;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, StackSlotData, StackSlotKind, Value, types};
use kerf_ir::random::{
    LN_LG1, LN_LG2, LN_LG3, LN_LG4, LN2_HI, LN2_LO, PHILOX_M0, PHILOX_M1, PHILOX_W0, PHILOX_W1, SIN_C3, SIN_C5, SIN_C7,
    SIN_C9, SIN_C11, TWO_PI, TWO_POW_M24,
};

/// Elements per block.
pub(crate) const BLOCK: i64 = 16 * GROUPS as i64;

/// An f32 parameter: known when the kernel is static.
#[derive(Copy, Clone)]
pub(crate) enum Num {
    Const(f32),
    Val(Value),
}

impl Num {
    fn known(self) -> Option<f32> {
        match self {
            Num::Const(c) => Some(c),
            Num::Val(_) => None,
        }
    }
    fn vec(self, g: &mut Gen) -> Value {
        match self {
            Num::Const(c) => splat_f32(g, c),
            Num::Val(v) => g.b.ins().splat(types::F32X4, v),
        }
    }
}

/// A Philox word: the same in every lane (a constant, an i32 scalar, or a key in the
/// argument block, splat to 16 bytes at word `.0`) or an i32x4.
#[derive(Copy, Clone)]
enum Word {
    Const(u32),
    Scalar(Value),
    Arg(i64),
    Vec(Value),
}

/// The numbers of a random fill.
pub(crate) struct RandomParams {
    pub normal: bool,
    pub f16: bool,
    pub alpha: Num,
    pub beta: Num,
    pub range: Num,
    pub below_beta: Num,
    /// The key of each of the 10 rounds.
    keys: Vec<(Word, Word)>,
}

impl RandomParams {
    /// A static kernel's numbers.
    pub fn constants(normal: bool, f16: bool, alpha: f32, beta: f32, seed: u64) -> RandomParams {
        let keys = round_keys(seed).into_iter().map(|(k0, k1)| (Word::Const(k0), Word::Const(k1))).collect();
        RandomParams {
            normal,
            f16,
            alpha: Num::Const(alpha),
            beta: Num::Const(beta),
            range: Num::Const(beta - alpha),
            below_beta: Num::Const(beta.next_down()),
            keys,
        }
    }

    /// A dynamic kernel's numbers, from its argument block (layout in [`dyn_fill`]).
    pub fn from_args(g: &mut Gen, normal: bool, f16: bool) -> RandomParams {
        let f = |g: &mut Gen, word: i64| Num::Val(g.b.ins().load(types::F32, mf(), g.args, (word * 8) as i32));
        let (alpha, beta, range, below_beta) =
            (f(g, dyn_fill::ALPHA), f(g, dyn_fill::BETA), f(g, dyn_fill::RANGE), f(g, dyn_fill::BELOW_BETA));
        let keys =
            (0..10).map(|r| (Word::Arg(dyn_fill::KEYS + 4 * r), Word::Arg(dyn_fill::KEYS + 4 * r + 2))).collect();
        RandomParams { normal, f16, alpha, beta, range, below_beta, keys }
    }
}

/// The key of each of the 10 rounds.
pub(crate) fn round_keys(seed: u64) -> Vec<(u32, u32)> {
    (0..10u32)
        .map(|r| {
            let k0 = (seed as u32).wrapping_add(PHILOX_W0.wrapping_mul(r));
            let k1 = ((seed >> 32) as u32).wrapping_add(PHILOX_W1.wrapping_mul(r));
            (k0, k1)
        })
        .collect()
}

pub(crate) fn splat_u32(g: &mut Gen, v: u32) -> Value {
    let mut b = [0u8; 16];
    for i in 0..4 {
        b[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    g.vconst(types::I32X4, b)
}

pub(crate) fn splat_f32(g: &mut Gen, v: f32) -> Value {
    let mut b = [0u8; 16];
    for i in 0..4 {
        b[4 * i..4 * i + 4].copy_from_slice(&v.to_bits().to_le_bytes());
    }
    g.vconst(types::F32X4, b)
}

fn u32x4(g: &mut Gen, v: [u32; 4]) -> Value {
    let mut b = [0u8; 16];
    for (i, x) in v.iter().enumerate() {
        b[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
    g.vconst(types::I32X4, b)
}

/// A byte mask selecting 32-bit lanes (0..4 from the first operand, 4..8 the second).
fn lanes32(l: [u8; 4]) -> [u8; 16] {
    let mut m = [0u8; 16];
    for (i, x) in m.iter_mut().enumerate() {
        *x = l[i / 4] * 4 + (i % 4) as u8;
    }
    m
}

/// A shuffle of 32-bit lanes of two i32x4 (see [`lanes32`]), as an i32x4.
fn shuf32(g: &mut Gen, a: Value, b: Value, l: [u8; 4]) -> Value {
    let a = g.bitcast(types::I8X16, a);
    let b = g.bitcast(types::I8X16, b);
    let y = g.shuffle(a, b, lanes32(l));
    g.bitcast(types::I32X4, y)
}

fn word_vec(g: &mut Gen, w: Word) -> Value {
    match w {
        Word::Const(c) => splat_u32(g, c),
        Word::Scalar(s) => g.b.ins().splat(types::I32X4, s),
        Word::Arg(word) => g.b.ins().load(types::I32X4, mf(), g.args, (word * 8) as i32),
        Word::Vec(v) => v,
    }
}

/// A word that is the same in every lane, as an i32 scalar (`None` for constants).
fn word_scalar(g: &mut Gen, w: Word) -> Option<Value> {
    match w {
        Word::Scalar(s) => Some(s),
        Word::Arg(word) => Some(g.b.ins().load(types::I32, mf(), g.args, (word * 8) as i32)),
        Word::Const(_) | Word::Vec(_) => None,
    }
}

fn xor(g: &mut Gen, a: Word, b: Word) -> Word {
    match (a, b) {
        (Word::Const(x), Word::Const(y)) => Word::Const(x ^ y),
        (Word::Const(0), w) | (w, Word::Const(0)) => w,
        (Word::Vec(v), w) | (w, Word::Vec(v)) => {
            let w = word_vec(g, w);
            Word::Vec(g.b.ins().bxor(v, w))
        }
        (Word::Const(c), w) | (w, Word::Const(c)) => {
            let s = word_scalar(g, w).expect("a scalar word");
            Word::Scalar(g.b.ins().bxor_imm_s(s, c as i32 as i64))
        }
        (x, y) => {
            let x = word_scalar(g, x).expect("a scalar word");
            let y = word_scalar(g, y).expect("a scalar word");
            Word::Scalar(g.b.ins().bxor(x, y))
        }
    }
}

/// a ^ b ^ c, the words that are the same in every lane first (xor is associative, so
/// the bits are the same in any order): one vector xor per vector operand beyond the first.
fn xor3(g: &mut Gen, w: [Word; 3]) -> Word {
    // Keys in the argument block join the vectors (a load merged into the xor) unless
    // they meet another uniform word.
    let (vecs, uniform): (Vec<Word>, Vec<Word>) = w.iter().partition(|w| matches!(w, Word::Vec(_) | Word::Arg(_)));
    let (vecs, uniform) = if vecs.iter().filter(|w| matches!(w, Word::Vec(_))).count() == 0 {
        (Vec::new(), w.to_vec())
    } else {
        (vecs, uniform)
    };
    let u = uniform.into_iter().fold(Word::Const(0), |a, b| xor(g, a, b));
    vecs.into_iter().fold(u, |a, b| xor(g, a, b))
}

/// (hi, lo) 32-bit halves of the 64-bit products c·m, lane by lane (`pmuludq`).
fn mulhilo(g: &mut Gen, c: Value, m: u32) -> (Value, Value) {
    let mv = splat_u32(g, m);
    let a = g.b.ins().uwiden_low(c);
    let b = g.b.ins().uwiden_low(mv);
    let pl = g.b.ins().imul(a, b);
    let a = g.b.ins().uwiden_high(c);
    let b = g.b.ins().uwiden_high(mv);
    let ph = g.b.ins().imul(a, b);
    let lo = shuf32(g, pl, ph, [0, 2, 4, 6]);
    let hi = shuf32(g, pl, ph, [1, 3, 5, 7]);
    (hi, lo)
}

fn mul(g: &mut Gen, w: Word, m: u32) -> (Word, Word) {
    match w {
        Word::Const(c) => {
            let p = c as u64 * m as u64;
            (Word::Const((p >> 32) as u32), Word::Const(p as u32))
        }
        Word::Scalar(_) | Word::Arg(_) => {
            let s = word_scalar(g, w).expect("a scalar word");
            let x = g.b.ins().uextend(types::I64, s);
            let p = g.b.ins().imul_imm_s(x, m as i64);
            let hi = g.b.ins().ushr_imm_s(p, 32);
            (Word::Scalar(g.b.ins().ireduce(types::I32, hi)), Word::Scalar(g.b.ins().ireduce(types::I32, p)))
        }
        Word::Vec(v) => {
            let (h, l) = mulhilo(g, v, m);
            (Word::Vec(h), Word::Vec(l))
        }
    }
}

/// Philox4x32-10 on the counters [idx, 0, 0, 0] of every group (each idx an i32x4): the
/// four word vectors of each. The groups are independent; their rounds are emitted
/// interleaved (these kernels are compiled without the mid-end, which would otherwise
/// sink each group's whole chain to its first use), so that the CPU overlaps them.
fn philox(g: &mut Gen, idx: &[Value], keys: &[(Word, Word)]) -> Vec<[Value; 4]> {
    let mut c: Vec<[Word; 4]> =
        idx.iter().map(|&i| [Word::Vec(i), Word::Const(0), Word::Const(0), Word::Const(0)]).collect();
    for &(k0, k1) in keys {
        let m0: Vec<(Word, Word)> = c.iter().map(|c| mul(g, c[0], PHILOX_M0)).collect();
        let m1: Vec<(Word, Word)> = c.iter().map(|c| mul(g, c[2], PHILOX_M1)).collect();
        for (c, ((hi0, lo0), (hi1, lo1))) in c.iter_mut().zip(m0.into_iter().zip(m1)) {
            let n0 = xor3(g, [hi1, c[1], k0]);
            let n2 = xor3(g, [hi0, c[3], k1]);
            *c = [n0, lo1, n2, lo0];
        }
    }
    c.into_iter().map(|c| c.map(|w| word_vec(g, w))).collect()
}

/// (x >> 8) as f32, plus one when `plus_one` (exact: below 2^24 + 1).
fn unit_int(g: &mut Gen, x: Value, plus_one: bool) -> Value {
    let eight = g.b.ins().iconst(types::I32, 8);
    let mut v = g.b.ins().ushr(x, eight);
    if plus_one {
        let one = splat_u32(g, 1);
        v = g.b.ins().iadd(v, one);
    }
    g.b.ins().fcvt_from_sint(types::F32X4, v)
}

/// (x >> 8) as f32 · 2⁻²⁴, plus one before the scaling when `plus_one`.
fn unit(g: &mut Gen, x: Value, plus_one: bool) -> Value {
    let f = unit_int(g, x, plus_one);
    let s = splat_f32(g, TWO_POW_M24);
    g.b.ins().fmul(f, s)
}

/// `f` applied to each of several independent vectors. The functions below take several
/// vectors and apply each step to all of them before the next step, so that their
/// dependency chains sit side by side in the instruction stream and the CPU overlaps them.
fn each(g: &mut Gen, a: &[Value], mut f: impl FnMut(&mut Gen, Value) -> Value) -> Vec<Value> {
    a.iter().map(|&x| f(g, x)).collect()
}

/// `f` applied to pairs of vectors.
fn each2(g: &mut Gen, a: &[Value], b: &[Value], mut f: impl FnMut(&mut Gen, Value, Value) -> Value) -> Vec<Value> {
    a.iter().zip(b).map(|(&x, &y)| f(g, x, y)).collect()
}

/// kerf's `ln_f32` of each vector, lane by lane, the same operations in the same order.
fn ln(g: &mut Gen, x: &[Value]) -> Vec<Value> {
    let ix = each(g, x, |g, x| {
        let ix = g.bitcast(types::I32X4, x);
        let c = splat_u32(g, 0x3f80_0000 - 0x3f35_04f3);
        g.b.ins().iadd(ix, c)
    });
    let k = each(g, &ix, |g, ix| {
        let s23 = g.b.ins().iconst(types::I32, 23);
        let k = g.b.ins().sshr(ix, s23);
        let c = splat_u32(g, 0x7f);
        g.b.ins().isub(k, c)
    });
    let f = each(g, &ix, |g, ix| {
        let m = splat_u32(g, 0x007f_ffff);
        let fm = g.b.ins().band(ix, m);
        let c = splat_u32(g, 0x3f35_04f3);
        let fm = g.b.ins().iadd(fm, c);
        let fm = g.bitcast(types::F32X4, fm);
        let one = splat_f32(g, 1.0);
        g.b.ins().fsub(fm, one)
    });
    let s = each(g, &f, |g, f| {
        let two = splat_f32(g, 2.0);
        let d = g.b.ins().fadd(two, f);
        g.b.ins().fdiv(f, d)
    });
    let z = each(g, &s, |g, s| g.b.ins().fmul(s, s));
    let w = each(g, &z, |g, z| g.b.ins().fmul(z, z));
    let t1 = each(g, &w, |g, w| {
        let lg4 = splat_f32(g, LN_LG4);
        let t = g.b.ins().fmul(w, lg4);
        let lg2 = splat_f32(g, LN_LG2);
        let t = g.b.ins().fadd(lg2, t);
        g.b.ins().fmul(w, t)
    });
    let t = each(g, &w, |g, w| {
        let lg3 = splat_f32(g, LN_LG3);
        let t = g.b.ins().fmul(w, lg3);
        let lg1 = splat_f32(g, LN_LG1);
        g.b.ins().fadd(lg1, t)
    });
    let t2 = each2(g, &z, &t, |g, z, t| g.b.ins().fmul(z, t));
    let r = each2(g, &t2, &t1, |g, t2, t1| g.b.ins().fadd(t2, t1));
    let hfsq = each(g, &f, |g, f| {
        let half = splat_f32(g, 0.5);
        let hf = g.b.ins().fmul(half, f);
        g.b.ins().fmul(hf, f)
    });
    let dk = each(g, &k, |g, k| g.b.ins().fcvt_from_sint(types::F32X4, k));
    let a = each2(g, &hfsq, &r, |g, hfsq, r| g.b.ins().fadd(hfsq, r));
    let a = each2(g, &s, &a, |g, s, a| g.b.ins().fmul(s, a));
    let a = each2(g, &a, &dk, |g, a, dk| {
        let lo = splat_f32(g, LN2_LO);
        let b = g.b.ins().fmul(dk, lo);
        g.b.ins().fadd(a, b)
    });
    let a = each2(g, &a, &hfsq, |g, a, hfsq| g.b.ins().fsub(a, hfsq));
    let a = each2(g, &a, &f, |g, a, f| g.b.ins().fadd(a, f));
    each2(g, &a, &dk, |g, a, dk| {
        let hi = splat_f32(g, LN2_HI);
        let b = g.b.ins().fmul(dk, hi);
        g.b.ins().fadd(a, b)
    })
}

/// kerf's `cos_2pi_f32` of each vector of reduced arguments `c` (= |u − 0.5| − 0.25 for
/// cos(2πu)), lane by lane: x = c·2π, the odd polynomial in x.
fn sin_poly(g: &mut Gen, c: &[Value]) -> Vec<Value> {
    let x = each(g, c, |g, c| {
        let tp = splat_f32(g, TWO_PI);
        g.b.ins().fmul(c, tp)
    });
    let x2 = each(g, &x, |g, x| g.b.ins().fmul(x, x));
    let mut p = each(g, &x2, |g, x2| {
        let c11 = splat_f32(g, SIN_C11);
        g.b.ins().fmul(c11, x2)
    });
    for (i, coef) in [SIN_C9, SIN_C7, SIN_C5, SIN_C3].into_iter().enumerate() {
        p = each2(g, &p, &x2, |g, p, x2| {
            let cv = splat_f32(g, coef);
            let p = g.b.ins().fadd(p, cv);
            // The last coefficient's sum is multiplied by x2 below, with the others.
            if i < 3 { g.b.ins().fmul(p, x2) } else { p }
        });
    }
    let p = each2(g, &p, &x2, |g, p, x2| g.b.ins().fmul(p, x2));
    let xp = each2(g, &x, &p, |g, x, p| g.b.ins().fmul(x, p));
    each2(g, &x, &xp, |g, x, xp| g.b.ins().fadd(x, xp))
}

/// cos(2πu) and sin(2πu) of each vector u: kerf's `cos_2pi_f32(u)` and
/// `sin_2pi_f32(u)` = `cos_2pi_f32(s)` with s = u − 1/4 taken into [0, 1).
///
/// Every step of both reductions is exact (u is a multiple of 2⁻²⁴ in [0, 1)), so the
/// sine's reduced argument |s − 0.5| − 0.25 is computed from the cosine's c = |u − 0.5|
/// − 0.25 as the same number: it is 0.25 − |c| with the sign of 0.5 − u (+0 when 0.5 − u
/// is +0, as the reference's +0), which a unit test checks for every u.
fn cos_sin_2pi(g: &mut Gen, u: &[Value]) -> (Vec<Value>, Vec<Value>) {
    let e = each(g, u, |g, u| {
        let h = splat_f32(g, 0.5);
        g.b.ins().fsub(h, u)
    });
    let c = each(g, u, |g, u| {
        let h = splat_f32(g, 0.5);
        let c = g.b.ins().fsub(u, h);
        let c = g.b.ins().fabs(c);
        let q = splat_f32(g, 0.25);
        g.b.ins().fsub(c, q)
    });
    let cs = each2(g, &c, &e, |g, c, e| {
        let a = g.b.ins().fabs(c);
        let q = splat_f32(g, 0.25);
        let m = g.b.ins().fsub(q, a);
        let m = g.bitcast(types::I32X4, m);
        let e = g.bitcast(types::I32X4, e);
        let sm = splat_u32(g, 0x8000_0000);
        let sign = g.b.ins().band(e, sm);
        let cs = g.b.ins().bor(m, sign);
        g.bitcast(types::F32X4, cs)
    });
    let mut all = c;
    all.extend(cs);
    let mut r = sin_poly(g, &all);
    let sin = r.split_off(u.len());
    (r, sin)
}

/// f32 lanes → f16 bits (in the low half of i32 lanes), rounding to nearest even, as
/// `half::f16::from_f32` does for non-NaN values.
fn f32_to_f16(g: &mut Gen, v: Value) -> Value {
    let x = g.bitcast(types::I32X4, v);
    let sm = splat_u32(g, 0x8000_0000);
    let sign = g.b.ins().band(x, sm);
    let a = g.b.ins().bxor(x, sign);
    // Inf (NaN never occurs here).
    let inf = splat_u32(g, 0x7c00);
    // Subnormal results: add the magic 0.5 and subtract its bits.
    let magic = splat_u32(g, 126 << 23);
    let af = g.bitcast(types::F32X4, a);
    let mf_ = g.bitcast(types::F32X4, magic);
    let sub = g.b.ins().fadd(af, mf_);
    let sub = g.bitcast(types::I32X4, sub);
    let sub = g.b.ins().isub(sub, magic);
    // Normal results: rebias, round half to even, shift.
    let s13 = g.b.ins().iconst(types::I32, 13);
    let odd = g.b.ins().ushr(a, s13);
    let one = splat_u32(g, 1);
    let odd = g.b.ins().band(odd, one);
    let bias = splat_u32(g, ((15u32.wrapping_sub(127)) << 23).wrapping_add(0xfff));
    let n = g.b.ins().iadd(a, bias);
    let n = g.b.ins().iadd(n, odd);
    let n = g.b.ins().ushr(n, s13);
    let lim_sub = splat_u32(g, 113 << 23);
    let is_sub = g.b.ins().icmp(IntCC::SignedLessThan, a, lim_sub);
    let r = g.b.ins().bitselect(is_sub, sub, n);
    let lim_inf = splat_u32(g, (127 + 16) << 23);
    let is_inf = g.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, a, lim_inf);
    let r = g.b.ins().bitselect(is_inf, inf, r);
    let s16 = g.b.ins().iconst(types::I32, 16);
    let sign = g.b.ins().ushr(sign, s16);
    g.b.ins().bor(r, sign)
}

/// f16 bits (low half of i32 lanes) → the exact f32 values.
fn f16_to_f32(g: &mut Gen, h: Value) -> Value {
    let m7 = splat_u32(g, 0x7fff);
    let mag = g.b.ins().band(h, m7);
    let s13 = g.b.ins().iconst(types::I32, 13);
    let bits = g.b.ins().ishl(mag, s13);
    let f = g.bitcast(types::F32X4, bits);
    let scale = splat_f32(g, 2f32.powi(112));
    let f = g.b.ins().fmul(f, scale);
    let f = g.bitcast(types::I32X4, f);
    let e = splat_u32(g, 0x7c00);
    let ex = g.b.ins().band(h, e);
    let is_special = g.b.ins().icmp(IntCC::Equal, ex, e);
    let inf = splat_u32(g, 0x7f80_0000);
    let special = g.b.ins().bor(bits, inf);
    let f = g.b.ins().bitselect(is_special, special, f);
    let sm = splat_u32(g, 0x8000);
    let sign = g.b.ins().band(h, sm);
    let s16 = g.b.ins().iconst(types::I32, 16);
    let sign = g.b.ins().ishl(sign, s16);
    let f = g.b.ins().bor(f, sign);
    g.bitcast(types::F32X4, f)
}

/// What a static kernel may leave out because its numbers make it an identity (each
/// proven exact in [`Folds::of`]); a dynamic kernel leaves out nothing.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Folds {
    /// Uniform: `range·(f·2⁻²⁴)` is `f·scale` exactly (range a power of two).
    scale: Option<u32>,
    /// `alpha + t` is `t`.
    skip_alpha: bool,
    /// Uniform: no value can reach beta. Normal: `beta·z` is `z`.
    skip_clamp_or_beta: bool,
}

impl Folds {
    fn of(p: &RandomParams) -> Folds {
        let none = Folds { scale: None, skip_alpha: false, skip_clamp_or_beta: false };
        let (Some(alpha), Some(beta), Some(range)) = (p.alpha.known(), p.beta.known(), p.range.known()) else {
            return none;
        };
        if p.normal {
            // alpha = −0 adds nothing to any z (z = −0 included); beta = 1 multiplies exactly.
            return Folds { scale: None, skip_alpha: alpha.to_bits() == 0x8000_0000, skip_clamp_or_beta: beta == 1.0 };
        }
        // range = ±2^k: u = f·2⁻²⁴ is exact and range·u = f·(range·2⁻²⁴) exactly, zero's
        // sign included, when both stay normal: k in [−100, 127].
        let exp = ((range.to_bits() >> 23) & 0xff) as i32 - 127;
        let pow2 =
            range.is_finite() && range != 0.0 && range.to_bits() & 0x007f_ffff == 0 && (-100..=127).contains(&exp);
        let scale = pow2.then(|| (range * TWO_POW_M24).to_bits());
        // t = range·u is never −0 when range > 0, and x + (−0) = x for every x.
        let skip_alpha = alpha.to_bits() == 0x8000_0000 || (alpha.to_bits() == 0 && range > 0.0);
        // alpha + range·u is monotonic in u, so its extremes are at u = 0 and the largest u.
        let v = |u: f32| alpha + range * u;
        let u_max = ((1u32 << 24) - 1) as f32 * TWO_POW_M24;
        let skip_clamp = v(0.0) < beta && v(u_max) < beta;
        Folds { scale, skip_alpha, skip_clamp_or_beta: skip_clamp }
    }
}

/// The uniform values of one word vector: f32 lanes, or f16 bits in i32 lanes.
fn uniform(g: &mut Gen, p: &RandomParams, folds: Folds, x: Value) -> Value {
    let t = match folds.scale {
        Some(bits) => {
            let f = unit_int(g, x, false);
            let s = splat_f32(g, f32::from_bits(bits));
            g.b.ins().fmul(f, s)
        }
        None => {
            let u = unit(g, x, false);
            let range = p.range.vec(g);
            g.b.ins().fmul(range, u)
        }
    };
    let v = if folds.skip_alpha {
        t
    } else {
        let alpha = p.alpha.vec(g);
        g.b.ins().fadd(alpha, t)
    };
    let v = if folds.skip_clamp_or_beta {
        v
    } else {
        let beta = p.beta.vec(g);
        let ge = g.b.ins().fcmp(FloatCC::GreaterThanOrEqual, v, beta);
        let below = p.below_beta.vec(g);
        let vi = g.bitcast(types::I32X4, v);
        let bi = g.bitcast(types::I32X4, below);
        let vi = g.b.ins().bitselect(ge, bi, vi);
        g.bitcast(types::F32X4, vi)
    };
    if !p.f16 {
        return v;
    }
    // f16: round, then nudge one f16 step back into [alpha, beta).
    let h = f32_to_f16(g, v);
    let hf = f16_to_f32(g, h);
    let m7 = splat_u32(g, 0x7fff);
    let mag = g.b.ins().band(h, m7);
    let zero = splat_u32(g, 0);
    let is_zero = g.b.ins().icmp(IntCC::Equal, mag, zero);
    let sm = splat_u32(g, 0x8000);
    let sbit = g.b.ins().band(h, sm);
    let neg = g.b.ins().icmp(IntCC::NotEqual, sbit, zero);
    let one = splat_u32(g, 1);
    let plus = g.b.ins().iadd(h, one);
    let minus = g.b.ins().isub(h, one);
    // next_down: zero → 0x8001; positive → h−1; negative → h+1.
    let down = g.b.ins().bitselect(neg, plus, minus);
    let nz = splat_u32(g, 0x8001);
    let down = g.b.ins().bitselect(is_zero, nz, down);
    // next_up: zero → 0x0001; positive → h+1; negative → h−1.
    let up = g.b.ins().bitselect(neg, minus, plus);
    let up = g.b.ins().bitselect(is_zero, one, up);
    let beta = p.beta.vec(g);
    let alpha = p.alpha.vec(g);
    let too_high = g.b.ins().fcmp(FloatCC::GreaterThanOrEqual, hf, beta);
    let too_low = g.b.ins().fcmp(FloatCC::LessThan, hf, alpha);
    let h = g.b.ins().bitselect(too_low, up, h);
    g.b.ins().bitselect(too_high, down, h)
}

/// alpha + beta·z, then f16 bits if the output is f16.
fn normal_out(g: &mut Gen, p: &RandomParams, folds: Folds, z: Value) -> Value {
    let bz = if folds.skip_clamp_or_beta {
        z
    } else {
        let beta = p.beta.vec(g);
        g.b.ins().fmul(beta, z)
    };
    let v = if folds.skip_alpha {
        bz
    } else {
        let alpha = p.alpha.vec(g);
        g.b.ins().fadd(alpha, bz)
    };
    if p.f16 { f32_to_f16(g, v) } else { v }
}

/// The normal values of every group from its four word vectors: `[k]` lane l is the
/// value of element 4(c+l)+k. Each step runs on all the groups' pairs at once.
fn normal_words(g: &mut Gen, p: &RandomParams, folds: Folds, xs: &[[Value; 4]]) -> Vec<[Value; 4]> {
    // Pairs: (group, pair) in order, words x[2·pair] (u1) and x[2·pair + 1] (u2).
    let a: Vec<Value> = xs.iter().flat_map(|x| [x[0], x[2]]).collect();
    let b: Vec<Value> = xs.iter().flat_map(|x| [x[1], x[3]]).collect();
    let (mut vc, mut vs) = (Vec::new(), Vec::new());
    // In batches of four pairs: more independent chains side by side than the
    // registers hold would only spill (measured: 1, 2, 8 pairs are slower).
    for (a, b) in a.chunks(4).zip(b.chunks(4)) {
        let u1 = each(g, a, |g, a| unit(g, a, true));
        let u2 = each(g, b, |g, b| unit(g, b, false));
        let l = ln(g, &u1);
        let r = each(g, &l, |g, l| {
            let m2 = splat_f32(g, -2.0);
            let l = g.b.ins().fmul(m2, l);
            g.b.ins().sqrt(l)
        });
        let (cos, sin) = cos_sin_2pi(g, &u2);
        let zc = each2(g, &r, &cos, |g, r, c| g.b.ins().fmul(r, c));
        let zs = each2(g, &r, &sin, |g, r, s| g.b.ins().fmul(r, s));
        vc.extend(each(g, &zc, |g, z| normal_out(g, p, folds, z)));
        vs.extend(each(g, &zs, |g, z| normal_out(g, p, folds, z)));
    }
    (0..xs.len()).map(|j| [vc[2 * j], vs[2 * j], vc[2 * j + 1], vs[2 * j + 1]]).collect()
}

/// The 16 values of one group, as four vectors in element order, from its word
/// vectors (uniform) or its values by word (normal): f32 lanes, or f16 bits in i32 lanes.
fn group(g: &mut Gen, p: &RandomParams, folds: Folds, x: [Value; 4]) -> [Value; 4] {
    // by_word[k] lane l: the value of element 4(c+l)+k.
    let by_word = if p.normal { x } else { x.map(|w| uniform(g, p, folds, w)) };
    // Transpose: out[l] = [by_word[0][l], by_word[1][l], by_word[2][l], by_word[3][l]].
    let w: Vec<Value> = by_word.iter().map(|&v| g.bitcast(types::I32X4, v)).collect();
    let t0 = shuf32(g, w[0], w[1], [0, 4, 1, 5]);
    let t1 = shuf32(g, w[2], w[3], [0, 4, 1, 5]);
    let t2 = shuf32(g, w[0], w[1], [2, 6, 3, 7]);
    let t3 = shuf32(g, w[2], w[3], [2, 6, 3, 7]);
    [
        shuf32(g, t0, t1, [0, 1, 4, 5]),
        shuf32(g, t0, t1, [2, 3, 6, 7]),
        shuf32(g, t2, t3, [0, 1, 4, 5]),
        shuf32(g, t2, t3, [2, 3, 6, 7]),
    ]
}

/// A random fill over linear indices [lo, hi) (< 2^32, checked by the host), any lo:
/// blocks start at lo rounded down to a multiple of 4; a block that is not wholly inside
/// [lo, hi) goes through a stack buffer and only its elements in range are stored.
pub(crate) fn emit_random(g: &mut Gen, p: &RandomParams) {
    let folds = Folds::of(p);
    let ew: i64 = if p.f16 { 2 } else { 4 };
    let bytes = BLOCK * ew;
    let slot = g.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, bytes as u32, 4));
    let iotas: Vec<[u32; 4]> = (0..GROUPS as u32).map(|k| [4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3]).collect();
    let (lo, hi) = (g.lo, g.hi);
    let start = g.b.ins().band_imm_s(lo, !3);
    g.while_loop(
        &[start],
        |g, v| g.b.ins().icmp(IntCC::SignedLessThan, v[0], hi),
        |g, v| {
            let e = v[0];
            let c = g.b.ins().ushr_imm_s(e, 2);
            let c = g.b.ins().ireduce(types::I32, c);
            let cs = g.b.ins().splat(types::I32X4, c);
            let idx: Vec<Value> = iotas
                .iter()
                .map(|iota| {
                    let off = u32x4(g, *iota);
                    g.b.ins().iadd(cs, off)
                })
                .collect();
            let mut vals = Vec::with_capacity(4 * GROUPS);
            let mut words = philox(g, &idx, &p.keys);
            if p.normal {
                words = normal_words(g, p, folds, &words);
            }
            for x in words {
                vals.extend(group(g, p, folds, x));
            }
            if p.f16 {
                // Two vectors of f16 bits in i32 lanes → one vector of eight f16.
                let mut m = [0u8; 16];
                for (i, x) in m.iter_mut().enumerate() {
                    *x = ((i / 2) * 4 + i % 2) as u8;
                }
                vals = vals
                    .chunks(2)
                    .map(|pair| {
                        let a = g.bitcast(types::I8X16, pair[0]);
                        let b = g.bitcast(types::I8X16, pair[1]);
                        g.shuffle(a, b, m)
                    })
                    .collect();
            }
            // Whole blocks go straight to the output; a block that is not wholly inside
            // [lo, hi) goes to the stack buffer first (one set of stores either way, so
            // that the block's values are computed once, before the branch).
            let end = g.addi(e, BLOCK);
            let after_lo = g.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, e, lo);
            let before_hi = g.b.ins().icmp(IntCC::SignedLessThanOrEqual, end, hi);
            let full = g.b.ins().band(after_lo, before_hi);
            let o = g.muli(e, ew);
            let direct = g.add(g.out, o);
            let buf = g.b.ins().stack_addr(types::I64, slot, 0);
            let dst = g.b.ins().select(full, direct, buf);
            for (j, &v) in vals.iter().enumerate() {
                g.b.ins().store(mf(), v, dst, 16 * j as i32);
            }
            let partial = g.b.ins().bxor_imm_s(full, 1);
            g.if_then(partial, |g| {
                let a = g.smax(e, lo);
                let b = g.smin(end, hi);
                let ty = if p.f16 { types::I16 } else { types::I32 };
                g.for_range(a, b, |g, j| {
                    let k = g.sub(j, e);
                    let k = g.muli(k, ew);
                    let s = g.add(buf, k);
                    let x = g.b.ins().load(ty, mf(), s, 0);
                    let o = g.muli(j, ew);
                    let d = g.add(g.out, o);
                    g.b.ins().store(mf(), x, d, 0);
                });
            });
            vec![end]
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sine's reduced argument as [`cos_sin_2pi`] computes it equals the reference's
    /// (`sin_2pi_f32`: |s − 0.5| − 0.25 with s = u − 1/4 taken into [0, 1)) bit for bit,
    /// for every u the random fills produce.
    #[test]
    fn sine_argument_from_the_cosine_one() {
        for k in 0..1u32 << 24 {
            let u = k as f32 * TWO_POW_M24;
            let s = if u >= 0.25 { u - 0.25 } else { u + 0.75 };
            let want = (s - 0.5).abs() - 0.25;
            let c = (u - 0.5).abs() - 0.25;
            let m = 0.25 - c.abs();
            let got = f32::from_bits(m.to_bits() | ((0.5 - u).to_bits() & 0x8000_0000));
            assert_eq!(got.to_bits(), want.to_bits(), "u = {u}");
        }
    }
}
