//! Cache-bypassing output for large outputs: kernels call [`stream_copy`] for long
//! contiguous runs (and for computed runs, staged a chunk at a time through a stack
//! buffer that stays in the L1 cache) and [`stream_fill`] for long fills, which write
//! with non-temporal stores: no read of each output cache line before it is written (as
//! ordinary stores do). Cranelift 0.135 has no non-temporal store, hence host functions.
//! Worth it only for outputs much larger than the caches' share of one core
//! ([`crate::policy::STREAM_MIN_BYTES`]); the host
//! fences ([`fence`]) after a kernel that streams, before the output is read.

/// The index of [`stream_copy`] among a kernel module's functions: it is declared first.
pub(crate) const FUNC_INDEX: u32 = 0;

/// The symbol kernels call.
pub(crate) const SYMBOL: &str = "kerf_stream_copy";

/// The index of [`stream_fill`] among a kernel module's functions, and its symbol.
pub(crate) const FILL_FUNC_INDEX: u32 = 3;
pub(crate) const FILL_SYMBOL: &str = "kerf_stream_fill";

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

/// Fill `n` bytes at `dst` with the 16-byte pattern `lo`, `hi` (little-endian words,
/// byte k of the run is byte k mod 16 of the pattern), with non-temporal stores where
/// `dst` is 16-byte aligned.
///
/// # Safety
/// `dst` is valid for `n` bytes.
pub(crate) unsafe extern "C" fn stream_fill(dst: *mut u8, n: usize, lo: u64, hi: u64) {
    let mut pattern = [0u8; 16];
    pattern[..8].copy_from_slice(&lo.to_le_bytes());
    pattern[8..].copy_from_slice(&hi.to_le_bytes());
    let head = dst.align_offset(16).min(n);
    // The pattern as seen from the first aligned byte, `head` bytes into the run.
    let mut aligned = [0u8; 16];
    for (k, b) in aligned.iter_mut().enumerate() {
        *b = pattern[(head + k) % 16];
    }
    let put = |at: usize, len: usize| {
        for k in at..at + len {
            // SAFETY: k < n (at + len ≤ n below), and dst is valid for n bytes.
            unsafe { *dst.add(k) = pattern[k % 16] };
        }
    };
    put(0, head);
    let mut at = head;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: every store is at an offset in [head, n) (the loop stops 64 bytes before
    // n) of dst, valid for n bytes; dst + head is 16-byte aligned when head < n (checked by
    // the loop condition: at + 64 ≤ n implies head < n), as _mm_stream_si128 requires.
    // SSE2 is part of x86-64.
    unsafe {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
        let v = _mm_loadu_si128(aligned.as_ptr() as *const __m128i);
        while at + 64 <= n {
            debug_assert_eq!(dst.add(at) as usize % 16, 0);
            for k in 0..4 {
                _mm_stream_si128(dst.add(at + 16 * k) as *mut __m128i, v);
            }
            at += 64;
        }
    }
    put(at, n - at);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every start alignment and a range of lengths: exactly the pattern, in phase with the
    /// run's start, and nothing outside the run.
    #[test]
    fn stream_fill_writes_the_pattern_in_phase() {
        let (lo, hi) = (0x0706_0504_0302_0100u64, 0x0f0e_0d0c_0b0a_0908u64);
        for start in 0..16 {
            for n in [0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 200, 1000, 4099] {
                let mut buf = vec![0xeeu8; start + n + 32];
                // SAFETY: [start, start + n) lies inside buf.
                unsafe { stream_fill(buf.as_mut_ptr().add(start), n, lo, hi) };
                fence();
                for (k, &b) in buf.iter().enumerate() {
                    let want = if (start..start + n).contains(&k) { ((k - start) % 16) as u8 } else { 0xee };
                    assert_eq!(b, want, "start {start} n {n} byte {k}");
                }
            }
        }
    }

    /// The same for copies.
    #[test]
    fn stream_copy_copies_exactly() {
        let src: Vec<u8> = (0..5000u32).map(|k| (k * 7 + 3) as u8).collect();
        for start in 0..16 {
            for n in [0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 200, 1000, 4099] {
                let mut buf = vec![0xeeu8; start + n + 32];
                // SAFETY: [start, start + n) lies inside buf, src holds n bytes, no overlap.
                unsafe { stream_copy(buf.as_mut_ptr().add(start), src.as_ptr().add(1), n) };
                fence();
                assert_eq!(&buf[start..start + n], &src[1..1 + n], "start {start} n {n}");
                assert!(buf[..start].iter().chain(&buf[start + n..]).all(|&b| b == 0xee));
            }
        }
    }
}
