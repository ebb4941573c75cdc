//! Cache-bypassing output for large fills: kernels compute a chunk into a stack buffer
//! (which stays in the L1 cache) and call [`stream_copy`] to write it out with
//! non-temporal stores, which do not read each output cache line before writing it (as
//! ordinary stores do) — the way memset and memcpy themselves write large buffers.
//! Worth it only for outputs much larger than the caches' share of one core
//! ([`crate::policy::STREAM_MIN_BYTES`]); the host
//! fences ([`fence`]) after a kernel that streams, before the output is read.

/// The index of [`stream_copy`] among a kernel module's functions: it is declared first.
pub(crate) const FUNC_INDEX: u32 = 0;

/// The symbol kernels call.
pub(crate) const SYMBOL: &str = "kerf_stream_copy";

/// Copy `n` bytes from `src` to `dst` (not overlapping), with non-temporal stores where
/// `dst` is 16-byte aligned.
///
/// # Safety
/// `src` and `dst` are valid for `n` bytes.
pub(crate) unsafe extern "C" fn stream_copy(dst: *mut u8, src: *const u8, n: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller's contract: both ranges hold n bytes and do not overlap; every
    // access below is at an offset < n (head ≤ n, the loop stops 64 bytes before n), and
    // the streaming stores are at 16-byte aligned addresses (dst + head is aligned when
    // head < n). SSE2 is part of x86-64.
    unsafe {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
        let head = dst.align_offset(16).min(n);
        std::ptr::copy_nonoverlapping(src, dst, head);
        let mut at = head;
        while at + 64 <= n {
            for k in 0..4 {
                let x = _mm_loadu_si128(src.add(at + 16 * k) as *const __m128i);
                _mm_stream_si128(dst.add(at + 16 * k) as *mut __m128i, x);
            }
            at += 64;
        }
        std::ptr::copy_nonoverlapping(src.add(at), dst.add(at), n - at);
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's contract: both ranges hold n bytes and do not overlap.
    unsafe {
        std::ptr::copy_nonoverlapping(src, dst, n)
    }
}

/// Order the non-temporal stores of this thread before what follows (their data is then
/// visible to every thread like ordinary stores).
pub(crate) fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: sfence has no preconditions (SSE is part of x86-64).
    unsafe {
        std::arch::x86_64::_mm_sfence()
    }
}
