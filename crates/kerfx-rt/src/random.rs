//! Random fills: a kernel is one call of [`random_fill`] (`kerf_rt1_random_fill`), the
//! block fill of `kerfx_ir::random` (Philox4x32-10 and kerf's transforms in Rust,
//! vectorized for the CPU at run time: AVX-512, AVX2 or the baseline), which every
//! backend shares. It replaced the 128-bit vector code the JIT emitted for them, which it
//! beats at every size, kind and dtype measured (small fills included: the call costs
//! nanoseconds).

/// Argument-block layout of random fill kernels, static and dynamic (i64 words: the C
/// header's `kerf_rt1_random_args`): f32 bits of alpha and beta, and the seed.
pub mod args {
    /// Word of alpha's f32 bits.
    pub const ALPHA: usize = 0;
    /// Word of beta's f32 bits.
    pub const BETA: usize = 1;
    /// Word of the seed.
    pub const SEED: usize = 2;
    /// Words of the block.
    pub const WORDS: usize = 3;
}

/// The argument block as C sees it (`kerf_rt1_random_args` in `kerf_rt.h`, whose size is
/// asserted there too): the words of [`args`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RandomArgs {
    /// alpha's f32 bits (word [`args::ALPHA`]).
    pub alpha_bits: u64,
    /// beta's f32 bits (word [`args::BETA`]).
    pub beta_bits: u64,
    /// The seed (word [`args::SEED`]).
    pub seed: u64,
}

const _: () = assert!(std::mem::size_of::<RandomArgs>() == 8 * args::WORDS);

/// Split points of a threaded (or ranged) call are multiples of this many elements: the
/// block fill's blocks then start on them, and no block is computed twice.
pub const ALIGN: u64 = 64;

/// The argument block of a random fill.
pub fn encode(alpha: f32, beta: f32, seed: u64) -> Vec<i64> {
    let mut w = vec![0; args::WORDS];
    w[args::ALPHA] = alpha.to_bits() as i64;
    w[args::BETA] = beta.to_bits() as i64;
    w[args::SEED] = seed as i64;
    w
}

/// What a random kernel makes, as [`random_fill`]'s last argument: 2·normal + f16.
pub fn kind(normal: bool, f16: bool) -> i64 {
    2 * normal as i64 + f16 as i64
}

/// The path the block fills take: the widest this CPU runs, or the baseline when
/// [`crate::BASELINE_ENV`] is `1` (tools that do not model AVX-512 or AVX2: valgrind).
pub(crate) fn isa() -> kerfx_ir::random::Isa {
    use kerfx_ir::random::Isa;
    static ISA: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
    *ISA.get_or_init(|| if crate::baseline() { Isa::Baseline } else { Isa::best() })
}

/// Elements `[lo, hi)` of the random fill whose argument block ([`encode`]) is at `args`,
/// into the output at `out` (element i at byte i·2 for f16, i·4 for f32); `kind` as
/// [`kind`] makes it. Nothing happens unless `0 ≤ lo < hi` and `0 ≤ kind ≤ 3`. Any alpha,
/// beta and seed are values only (no number of the block chooses an address).
///
/// Callers: kerf's kernels, which pass their argument block — a constant of the object for
/// a kernel written ahead of time (its entry points take only buffers and a range checked
/// against the kernel's extent), or built by the JIT from a validated plan — and the range
/// their entry point checked.
///
/// # Safety
/// `args` holds [`args::WORDS`] words; `out` is valid for elements `[lo, hi)`.
#[unsafe(export_name = "kerf_rt1_random_fill")]
pub unsafe extern "C" fn random_fill(out: *mut u8, args: *const i64, lo: i64, hi: i64, kind: i64) {
    if lo < 0 || hi <= lo || !(0..=3).contains(&kind) {
        return;
    }
    // SAFETY: the caller's contract: `args` holds the block's words.
    let w = unsafe { std::slice::from_raw_parts(args, args::WORDS) };
    let (alpha, beta) = (f32::from_bits(w[args::ALPHA] as u32), f32::from_bits(w[args::BETA] as u32));
    let seed = w[args::SEED] as u64;
    let (normal, f16) = (kind & 2 != 0, kind & 1 != 0);
    let width = if f16 { 2 } else { 4 };
    // SAFETY: the caller's contract: elements [lo, hi) of `width` bytes are valid (lo ≥ 0
    // and hi > lo, checked above).
    let o = unsafe { std::slice::from_raw_parts_mut(out.add(width * lo as usize), width * (hi - lo) as usize) };
    kerfx_ir::random::fill_bytes_on(isa(), normal, f16, seed, lo as u64, [alpha, beta], o);
}

#[cfg(test)]
mod tests {
    use super::*;
    use kerfx_ir::reference::random_bits;

    /// Every kind, on ranges of any start and length, equals the reference's elements;
    /// empty or negative ranges and unknown kinds write nothing.
    #[test]
    fn ranges_equal_the_reference() {
        let block = encode(-1.5, 3.25, 77);
        for kind in 0..4i64 {
            let (normal, f16) = (kind & 2 != 0, kind & 1 != 0);
            let w = if f16 { 2 } else { 4 };
            for (lo, hi) in [(0i64, 1i64), (0, 64), (3, 200), (64, 129), (127, 128)] {
                let mut out = vec![0xEEu8; w * hi as usize + 8];
                // SAFETY: the block has WORDS words; `out` holds elements [0, hi).
                unsafe { random_fill(out.as_mut_ptr(), block.as_ptr(), lo, hi, kind) };
                for (i, e) in out.chunks(w).enumerate() {
                    let i = i as i64;
                    if (lo..hi).contains(&i) {
                        let want = random_bits(normal, f16, -1.5, 3.25, 77, i as u64);
                        assert_eq!(e, &want.to_le_bytes()[..w], "kind {kind} element {i}");
                    } else {
                        assert!(e.iter().all(|&b| b == 0xEE), "kind {kind}: element {i} outside [{lo}, {hi})");
                    }
                }
            }
        }
        // Every path this CPU runs (the baseline is KERF_RT_BASELINE's) gives the same bits.
        use kerfx_ir::random::{Isa, fill_bytes_on};
        for isa in [Isa::Baseline, Isa::Avx2, Isa::Avx512].into_iter().filter(|i| i.available()) {
            for kind in 0..4i64 {
                let (normal, f16) = (kind & 2 != 0, kind & 1 != 0);
                let w = if f16 { 2 } else { 4 };
                let mut out = vec![0u8; w * 131];
                fill_bytes_on(isa, normal, f16, 5, 9, [0.5, 4.0], &mut out);
                for (i, e) in out.chunks(w).enumerate() {
                    let want = random_bits(normal, f16, 0.5, 4.0, 5, 9 + i as u64);
                    assert_eq!(e, &want.to_le_bytes()[..w], "{isa:?} kind {kind} element {i}");
                }
            }
        }
        let mut out = [0xEEu8; 16];
        for (lo, hi, kind) in [(2, 2, 0), (3, 1, 0), (-1, 2, 0), (0, 2, 4), (0, 2, -1)] {
            // SAFETY: nothing is written (empty or refused ranges and kinds).
            unsafe { random_fill(out.as_mut_ptr(), block.as_ptr(), lo, hi, kind) };
        }
        assert!(out.iter().all(|&b| b == 0xEE));
    }
}
