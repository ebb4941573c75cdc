//! Random fills: a kernel is one call of [`random_fill`], the block fill of
//! `kerfx_ir::random` (Philox4x32-10 and kerf's transforms in Rust, vectorized for the CPU
//! at run time: AVX-512, AVX2 or the baseline), which every backend shares. It replaced
//! the 128-bit vector code this crate emitted for them, which it beats at every size,
//! kind and dtype measured (small fills included: the call costs nanoseconds), and
//! random kernels now compile in microseconds instead of milliseconds.

use crate::builder::Gen;

/// Argument-block layout of random fill kernels, static and dynamic (i64 words): f32
/// bits of alpha and beta, and the seed.
pub(crate) mod args {
    pub const ALPHA: usize = 0;
    pub const BETA: usize = 1;
    pub const SEED: usize = 2;
    pub const WORDS: usize = 3;
}

/// Split points of a threaded call are multiples of this many elements: the block fill's
/// blocks then start on them, and no block is computed twice.
pub(crate) const ALIGN: u64 = 64;

/// The argument block of a random fill.
pub(crate) fn encode(alpha: f32, beta: f32, seed: u64) -> Vec<i64> {
    let mut w = vec![0; args::WORDS];
    w[args::ALPHA] = alpha.to_bits() as i64;
    w[args::BETA] = beta.to_bits() as i64;
    w[args::SEED] = seed as i64;
    w
}

/// What a random kernel makes, as the helper's last argument.
fn kind(normal: bool, f16: bool) -> i64 {
    2 * normal as i64 + f16 as i64
}

/// The kernel's body: elements `[lo, hi)` of the fill, by the helper.
pub(crate) fn emit(g: &mut Gen, normal: bool, f16: bool) {
    let (out, args, lo, hi) = (g.out, g.args, g.lo, g.hi);
    let kind = g.c(kind(normal, f16));
    g.call_helper(crate::host::Helper::RandomFill, &[out, args, lo, hi, kind]);
}

/// Elements `[lo, hi)` of the random fill whose argument block ([`encode`]) is at `args`
/// into the output at `out` (element i at byte i·2 for f16, i·4 for f32); `kind` as
/// [`emit`] passes it. Nothing happens unless `0 ≤ lo < hi`.
///
/// # Safety
/// `args` holds [`args::WORDS`] words; `out` is valid for elements `[lo, hi)`.
pub(crate) unsafe extern "C" fn random_fill(out: *mut u8, args: *const i64, lo: i64, hi: i64, kind: i64) {
    use kerfx_ir::random::{fill_normal_f16, fill_normal_f32, fill_uniform_f16, fill_uniform_f32};
    if lo < 0 || hi <= lo {
        return;
    }
    // SAFETY: the caller's contract: `args` holds the block's words.
    let w = unsafe { std::slice::from_raw_parts(args, args::WORDS) };
    let (alpha, beta) = (f32::from_bits(w[args::ALPHA] as u32), f32::from_bits(w[args::BETA] as u32));
    let seed = w[args::SEED] as u64;
    let (first, n) = (lo as u64, (hi - lo) as usize);
    let (normal, f16) = (kind & 2 != 0, kind & 1 != 0);
    if f16 {
        // SAFETY: the caller's contract: elements [lo, hi) of 2 bytes are valid (lo ≥ 0,
        // checked above); [u8; 2] has alignment 1.
        let o = unsafe { std::slice::from_raw_parts_mut(out.add(2 * lo as usize).cast::<[u8; 2]>(), n) };
        if normal {
            fill_normal_f16(seed, first, alpha, beta, o)
        } else {
            fill_uniform_f16(seed, first, alpha, beta, o)
        }
    } else {
        // SAFETY: as above, for elements of 4 bytes.
        let o = unsafe { std::slice::from_raw_parts_mut(out.add(4 * lo as usize).cast::<[u8; 4]>(), n) };
        if normal {
            fill_normal_f32(seed, first, alpha, beta, o)
        } else {
            fill_uniform_f32(seed, first, alpha, beta, o)
        }
    }
}
