//! Chains that start with a fill: their nest's offsets index the fill's elements
//! (`LoopNest::head` in kerfx-ir), which kernels compute instead of loading, by
//! [`head_run`] (`kerf_rt1_head_run`): a run of consecutive elements of a random fill is
//! one block fill (the counters are consecutive), any other run is computed element by
//! element with the reference's formulas (`kerfx_ir::reference`), so every element is
//! bit-identical to the fill run on its own.

use kerfx_ir::{DType, FillKind, FillPlan, Linspace};

/// Argument-block layout of a fill head (i64 words): its kind, rank and alpha (i64, f64
/// bits or f32 bits), then for random fills beta's f32 bits and the seed, for linspaces
/// per axis its row-major stride, extent and beta (i64 or f64 bits).
pub mod args {
    /// Word of the kind (`KIND_*`).
    pub const KIND: usize = 0;
    /// Word of the fill's rank.
    pub const RANK: usize = 1;
    /// Word of alpha (i64, f64 bits, or a random fill's f32 bits).
    pub const ALPHA: usize = 2;
    /// Random fills: word of beta's f32 bits.
    pub const BETA: usize = 3;
    /// Random fills: word of the seed.
    pub const SEED: usize = 4;
    /// Random fills: words of the block.
    pub const RANDOM_WORDS: usize = 5;
    /// Linspaces: the first axis's words (each axis: row-major stride, extent, beta).
    pub const AXES: usize = 3;
    /// Linspaces: words per axis.
    pub const AXIS_WORDS: usize = 3;
    /// An i32 linspace.
    pub const KIND_INT32: i64 = 0;
    /// An i64 linspace.
    pub const KIND_INT64: i64 = 1;
    /// An f32 linspace (computed in f64).
    pub const KIND_FLOAT: i64 = 2;
    /// Random fills: this plus 2·normal + f16.
    pub const KIND_RANDOM: i64 = 3;
    /// The last random kind (normal f16).
    pub const KIND_LAST: i64 = KIND_RANDOM + 3;
}

/// The argument block of a fill head (a validated plan: its values fit its dtype).
pub fn encode(p: &FillPlan) -> Vec<i64> {
    let rank = p.shape.len();
    let random = |normal: bool, alpha: f32, beta: f32, seed: u64| {
        let kind = args::KIND_RANDOM + 2 * normal as i64 + (p.dtype == DType::F16) as i64;
        vec![kind, rank as i64, alpha.to_bits() as i64, beta.to_bits() as i64, seed as i64]
    };
    let linspace = |kind: i64, alpha: i64, beta: Vec<i64>| {
        let mut w = vec![kind, rank as i64, alpha];
        let mut stride = 1u64;
        let mut axes = Vec::with_capacity(rank);
        for (&d, b) in p.shape.iter().zip(beta).rev() {
            axes.push([stride as i64, d as i64, b]);
            stride = stride.saturating_mul(d);
        }
        w.extend(axes.into_iter().rev().flatten());
        w
    };
    match &p.kind {
        FillKind::RandomUniform { alpha, beta, seed } => random(false, *alpha, *beta, *seed),
        FillKind::RandomNormal { alpha, beta, seed } => random(true, *alpha, *beta, *seed),
        FillKind::Linspace(Linspace::Int { alpha, beta }) => {
            let kind = if p.dtype == DType::I32 { args::KIND_INT32 } else { args::KIND_INT64 };
            linspace(kind, *alpha, beta.clone())
        }
        FillKind::Linspace(Linspace::Float { alpha, beta }) => {
            linspace(args::KIND_FLOAT, alpha.to_bits() as i64, beta.iter().map(|b| b.to_bits() as i64).collect())
        }
    }
}

/// Elements `start + stride·j` (j < count) of the fill head whose block ([`encode`]) is
/// at `head`, written to `out` (element j at byte j·width). Nothing happens unless
/// `count > 0` and the block's kind is one [`encode`] writes. The element indices only
/// choose values (a linspace reduces them modulo its extents, a random fill takes any
/// counter); the nests that call this keep them in the fill (`LoopNest::verify`).
///
/// Callers: kerf's kernels, which pass the block of their fill head — a constant of the
/// object for a kernel written ahead of time (its entry points take only buffers and a
/// range checked against the kernel's extent), or built by the JIT from a validated plan —
/// and runs of their verified nest.
///
/// # Safety
/// `head` holds a block made by [`encode`]; `out` is valid for `count` elements.
#[unsafe(export_name = "kerf_rt1_head_run")]
pub unsafe extern "C" fn head_run(out: *mut u8, head: *const i64, start: i64, stride: i64, count: i64) {
    use kerfx_ir::random::fill_bytes_on;
    use kerfx_ir::reference::{linspace_f64, linspace_int, random_bits};
    if count <= 0 {
        return;
    }
    let n = count as usize;
    // SAFETY: the caller's contract: `head` holds an encoded block, whose first words are
    // the kind and the rank.
    let (kind, rank) = unsafe { (*head.add(args::KIND), *head.add(args::RANK) as usize) };
    let index = |j: usize| (start as i128 + stride as i128 * j as i128) as u64;
    if !(args::KIND_INT32..=args::KIND_LAST).contains(&kind) {
        return;
    }
    if kind >= args::KIND_RANDOM {
        // SAFETY: the caller's contract: a random block has RANDOM_WORDS words.
        let w = unsafe { std::slice::from_raw_parts(head, args::RANDOM_WORDS) };
        let (alpha, beta) = (f32::from_bits(w[args::ALPHA] as u32), f32::from_bits(w[args::BETA] as u32));
        let seed = w[args::SEED] as u64;
        let (normal, f16) = ((kind - args::KIND_RANDOM) & 2 != 0, (kind - args::KIND_RANDOM) & 1 != 0);
        let width = if f16 { 2 } else { 4 };
        // SAFETY: the caller's contract: `count` elements of `width` bytes are valid.
        let o = unsafe { std::slice::from_raw_parts_mut(out, n * width) };
        if stride == 1 && start >= 0 {
            // Consecutive counters: the block fill.
            return fill_bytes_on(crate::random::isa(), normal, f16, seed, start as u64, [alpha, beta], o);
        }
        for (j, e) in o.chunks_exact_mut(width).enumerate() {
            let bits = random_bits(normal, f16, alpha, beta, seed, index(j));
            e.copy_from_slice(&bits.to_le_bytes()[..width]);
        }
        return;
    }
    // SAFETY: the caller's contract: a linspace block has AXES + AXIS_WORDS·rank words.
    let w = unsafe { std::slice::from_raw_parts(head, args::AXES + args::AXIS_WORDS * rank) };
    let axes = w[args::AXES..].chunks_exact(args::AXIS_WORDS);
    let float = kind == args::KIND_FLOAT;
    let alpha = w[args::ALPHA];
    let beta = |a: &[i64]| if float { Term::Float(f64::from_bits(a[2] as u64)) } else { Term::Int(a[2]) };
    // Coordinate k of element i: (i / stride_k) mod extent_k.
    let coord = |i: u64, a: &[i64]| (i / (a[0] as u64).max(1)) % (a[1] as u64).max(1);
    // The sum `alpha + Σ beta_k·a_k` over the given (axis, coordinate) pairs, in axis
    // order, exact for integers and in f64 for floats (the reference's formulas).
    let sum = |terms: &mut dyn Iterator<Item = (&[i64], u64)>| -> Sum {
        if float {
            let terms = terms.map(|(a, ak)| (f64::from_bits(a[2] as u64), ak));
            Sum::Float(linspace_f64(f64::from_bits(alpha as u64), terms))
        } else {
            Sum::Int(linspace_int(alpha, terms.map(|(a, ak)| (a[2], ak))))
        }
    };
    let width = if kind == args::KIND_INT64 { 8 } else { 4 };
    // SAFETY: the caller's contract: `count` elements of `width` bytes are valid.
    let o = unsafe { std::slice::from_raw_parts_mut(out, n * width) };
    let Some(last) = rank.checked_sub(1).filter(|&r| r < MAX_STEPPED_RANK) else {
        // Rank 0 (one element, alpha) or deeper than the stepped ranks: every sum whole.
        for (j, e) in o.chunks_exact_mut(width).enumerate() {
            let i = index(j);
            e.copy_from_slice(&sum(&mut axes.clone().map(|a| (a, coord(i, a)))).bits().to_le_bytes()[..width]);
        }
        return;
    };
    // The run goes line by line (a line: positions along the last axis, where only the
    // last coordinate moves): each line is one multiply-add per element on the sum over
    // the leading axes (the last term is added last, as in the reference); between lines
    // the coordinates step by the stride's digits in the mixed radix of the extents (an
    // add or subtract with carry: no division per element).
    let (mut at, mut digit, mut extent) =
        ([0i64; MAX_STEPPED_RANK], [0i64; MAX_STEPPED_RANK], [1i64; MAX_STEPPED_RANK]);
    let step = stride.unsigned_abs();
    for (k, a) in axes.clone().enumerate() {
        at[k] = coord(index(0), a) as i64;
        extent[k] = a[1].max(1);
        digit[k] = if k == 0 { (step / (a[0] as u64).max(1)) as i64 } else { coord(step, a) as i64 };
    }
    let last_beta = beta(&w[args::AXES + args::AXIS_WORDS * last..]);
    let d = if stride >= 0 { digit[last] } else { -digit[last] };
    let leaves_line = digit[..last].iter().any(|&g| g != 0);
    let mut done = 0usize;
    while done < n {
        let a0 = at[last];
        let room = match d {
            _ if leaves_line => 1,
            0 => i64::MAX,
            d if d > 0 => (extent[last] - 1 - a0) / d + 1,
            d => a0 / -d + 1,
        };
        let m = (room.max(1) as u64).min((n - done) as u64) as usize;
        let p = sum(&mut axes.clone().take(last).zip(at).map(|(a, ak)| (a, ak as u64)));
        let line = &mut o[done * width..(done + m) * width];
        match (p, last_beta, width) {
            (Sum::Float(p), Term::Float(b), 4) => {
                for (j, e) in line.chunks_exact_mut(4).enumerate() {
                    e.copy_from_slice(&((p + b * (a0 + d * j as i64) as f64) as f32).to_le_bytes());
                }
            }
            (Sum::Int(p), Term::Int(b), 4) => {
                for (j, e) in line.chunks_exact_mut(4).enumerate() {
                    e.copy_from_slice(&((p + b as i128 * (a0 + d * j as i64) as i128) as i32).to_le_bytes());
                }
            }
            (Sum::Int(p), Term::Int(b), _) => {
                for (j, e) in line.chunks_exact_mut(8).enumerate() {
                    e.copy_from_slice(&((p + b as i128 * (a0 + d * j as i64) as i128) as i64).to_le_bytes());
                }
            }
            // Not reached: the sum and the term are floats exactly when the kind is
            // KIND_FLOAT, whose width is 4 (no panic may cross this C entry point).
            _ => return,
        }
        done += m;
        // To the line's last element, then one step.
        at[last] = a0 + d * (m as i64 - 1);
        let mut carry = 0;
        for k in (0..rank).rev() {
            if stride >= 0 {
                at[k] += digit[k] + carry;
                carry = i64::from(k > 0 && at[k] >= extent[k]);
                at[k] -= carry * extent[k];
            } else {
                at[k] -= digit[k] + carry;
                carry = i64::from(k > 0 && at[k] < 0);
                at[k] += carry * extent[k];
            }
        }
    }
}

/// A linspace coefficient.
#[derive(Copy, Clone)]
enum Term {
    Int(i64),
    Float(f64),
}

/// A linspace sum: exact, or in f64 before its rounding to f32.
#[derive(Copy, Clone)]
enum Sum {
    Int(i128),
    Float(f64),
}

impl Sum {
    /// The element's bits: the integer's low bytes (the plan was validated: every value
    /// fits its dtype), or the f32 the sum rounds to.
    fn bits(self) -> u128 {
        match self {
            Sum::Int(v) => v as u128,
            Sum::Float(v) => (v as f32).to_bits() as u128,
        }
    }
}

/// Linspaces of at most this rank step their coordinates; deeper ones divide per element.
const MAX_STEPPED_RANK: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;
    use kerfx_ir::reference::fill;

    /// Runs of any start, stride (either sign, across rows) and length equal the
    /// reference's elements, for every kind and for ranks stepped and divided.
    #[test]
    fn runs_equal_the_reference() {
        let mut shape18 = vec![1u64; 18];
        shape18[3] = 3;
        shape18[17] = 5;
        let plans = [
            FillPlan {
                dtype: DType::F32,
                shape: vec![3, 4, 5],
                kind: FillKind::Linspace(Linspace::Float { alpha: 0.1, beta: vec![0.3, -1.7, 2.25] }),
            },
            FillPlan {
                dtype: DType::I32,
                shape: vec![6, 7],
                kind: FillKind::Linspace(Linspace::Int { alpha: -5, beta: vec![100, -3] }),
            },
            FillPlan {
                dtype: DType::I64,
                shape: shape18.clone(),
                kind: FillKind::Linspace(Linspace::Int { alpha: 1 << 40, beta: (0..18).collect() }),
            },
            FillPlan {
                dtype: DType::F32,
                shape: shape18,
                kind: FillKind::Linspace(Linspace::Float {
                    alpha: -3.5,
                    beta: (0..18).map(|k| k as f64 * 0.7).collect(),
                }),
            },
            FillPlan {
                dtype: DType::F16,
                shape: vec![9, 11],
                kind: FillKind::RandomNormal { alpha: 1.0, beta: 2.0, seed: 5 },
            },
            FillPlan {
                dtype: DType::F32,
                shape: vec![99],
                kind: FillKind::RandomUniform { alpha: -1.0, beta: 4.0, seed: 9 },
            },
        ];
        for p in plans {
            let want = fill(&p).unwrap();
            let want = want.bytes().unwrap();
            let (len, w) = (p.output_len() as i64, want.len() / p.output_len() as usize);
            let block = encode(&p);
            for stride in [-13i64, -7, -2, -1, 0, 1, 2, 3, 6, 11] {
                for start in 0..len {
                    // The longest run that stays in the fill (across rows), and short ones
                    // (mostly inside a row).
                    let longest = match stride {
                        0 => 4,
                        s if s > 0 => (len - 1 - start) / s + 1,
                        s => start / -s + 1,
                    };
                    for count in [1, 2, 3, longest].into_iter().filter(|&c| c <= longest) {
                        let mut out = vec![0u8; count as usize * w];
                        // SAFETY: `block` is an encoded block; `out` holds `count` elements.
                        unsafe { head_run(out.as_mut_ptr(), block.as_ptr(), start, stride, count) };
                        for (j, got) in out.chunks(w).enumerate() {
                            let i = (start + stride * j as i64) as usize;
                            assert_eq!(got, &want[i * w..(i + 1) * w], "{p:?} start {start} stride {stride} j {j}");
                        }
                    }
                }
            }
        }
    }
}
