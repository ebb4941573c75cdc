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

/// Bytes every streaming store writes, aligned: 32 with AVX2 (measured here: 32-byte
/// streaming copies take 0.6–0.7 × memcpy's time from 256 KiB to 64 MiB, 16-byte ones
/// 1.0–1.3 ×), else 16 (SSE2, part of x86-64).
#[cfg(target_arch = "x86_64")]
fn avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// Copy `n` bytes from `src` to `dst` (not overlapping), with non-temporal stores from
/// the first aligned byte of `dst` on.
///
/// # Safety
/// `src` and `dst` are valid for `n` bytes and do not overlap.
pub(crate) unsafe extern "C" fn stream_copy(dst: *mut u8, src: *const u8, n: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let align = if avx2() { 32 } else { 16 };
        let head = dst.align_offset(align).min(n);
        let body = (n - head) / 64 * 64;
        // SAFETY: the caller's contract: both ranges hold n bytes and do not overlap;
        // [0, head) and [head + body, n) lie inside them (head + body ≤ n).
        unsafe {
            std::ptr::copy_nonoverlapping(src, dst, head);
            std::ptr::copy_nonoverlapping(src.add(head + body), dst.add(head + body), n - head - body);
        }
        // SAFETY: [head, head + body) lies inside both ranges; dst + head is aligned to
        // `align` (align_offset, and body > 0 only when head < n); AVX2 was detected
        // where the AVX2 copy is called.
        unsafe {
            if align == 32 {
                copy_body_avx2(dst.add(head), src.add(head), body)
            } else {
                copy_body_sse2(dst.add(head), src.add(head), body)
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's contract: both ranges hold n bytes and do not overlap.
    unsafe {
        std::ptr::copy_nonoverlapping(src, dst, n)
    }
}

/// # Safety
/// `dst` is 32-byte aligned; both ranges hold `n` bytes, a multiple of 64; AVX2 is
/// available.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn copy_body_avx2(dst: *mut u8, src: *const u8, n: usize) {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_stream_si256};
    let mut at = 0;
    while at < n {
        // SAFETY: at + 64 ≤ n (n is a multiple of 64); dst + at is 32-byte aligned.
        unsafe {
            let x = _mm256_loadu_si256(src.add(at) as *const __m256i);
            let y = _mm256_loadu_si256(src.add(at + 32) as *const __m256i);
            _mm256_stream_si256(dst.add(at) as *mut __m256i, x);
            _mm256_stream_si256(dst.add(at + 32) as *mut __m256i, y);
        }
        at += 64;
    }
}

/// # Safety
/// `dst` is 16-byte aligned; both ranges hold `n` bytes, a multiple of 64.
#[cfg(target_arch = "x86_64")]
unsafe fn copy_body_sse2(dst: *mut u8, src: *const u8, n: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
    let mut at = 0;
    while at < n {
        for k in 0..4 {
            // SAFETY: at + 64 ≤ n; dst + at + 16k is 16-byte aligned.
            unsafe {
                let x = _mm_loadu_si128(src.add(at + 16 * k) as *const __m128i);
                _mm_stream_si128(dst.add(at + 16 * k) as *mut __m128i, x);
            }
        }
        at += 64;
    }
}

/// Fill `n` bytes at `dst` with the 16-byte pattern `lo`, `hi` (little-endian words;
/// byte k of the run is byte k mod 16 of the pattern), with non-temporal stores from the
/// first aligned byte of `dst` on.
///
/// # Safety
/// `dst` is valid for `n` bytes.
pub(crate) unsafe extern "C" fn stream_fill(dst: *mut u8, n: usize, lo: u64, hi: u64) {
    let mut pattern = [0u8; 16];
    pattern[..8].copy_from_slice(&lo.to_le_bytes());
    pattern[8..].copy_from_slice(&hi.to_le_bytes());
    #[cfg(target_arch = "x86_64")]
    let align = if avx2() { 32 } else { 16 };
    #[cfg(not(target_arch = "x86_64"))]
    let align = 1;
    let head = dst.align_offset(align).min(n);
    let body = if cfg!(target_arch = "x86_64") { (n - head) / 64 * 64 } else { 0 };
    let put = |range: std::ops::Range<usize>| {
        for k in range {
            // SAFETY: k < n (both ranges below end at most at n); dst is valid for n bytes.
            unsafe { *dst.add(k) = pattern[k % 16] };
        }
    };
    put(0..head);
    put(head + body..n);
    // The pattern as seen from the first aligned byte, `head` bytes into the run.
    let mut aligned = [0u8; 16];
    for (k, b) in aligned.iter_mut().enumerate() {
        *b = pattern[(head + k) % 16];
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: [head, head + body) lies inside [0, n); dst + head is aligned to `align`
    // (align_offset, and body > 0 only when head < n); AVX2 was detected where the AVX2
    // fill is called.
    unsafe {
        if align == 32 {
            fill_body_avx2(dst.add(head), body, &aligned)
        } else {
            fill_body_sse2(dst.add(head), body, &aligned)
        }
    }
}

/// # Safety
/// `dst` is 32-byte aligned and valid for `n` bytes, a multiple of 64; AVX2 is available.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fill_body_avx2(dst: *mut u8, n: usize, pattern: &[u8; 16]) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm256_broadcastsi128_si256, _mm256_stream_si256};
    // SAFETY: the pattern holds 16 bytes.
    let v = _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(pattern.as_ptr() as *const __m128i) });
    let mut at = 0;
    while at < n {
        // SAFETY: at + 64 ≤ n; dst + at is 32-byte aligned.
        unsafe {
            _mm256_stream_si256(dst.add(at) as *mut _, v);
            _mm256_stream_si256(dst.add(at + 32) as *mut _, v);
        }
        at += 64;
    }
}

/// # Safety
/// `dst` is 16-byte aligned and valid for `n` bytes, a multiple of 64.
#[cfg(target_arch = "x86_64")]
unsafe fn fill_body_sse2(dst: *mut u8, n: usize, pattern: &[u8; 16]) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
    // SAFETY: the pattern holds 16 bytes.
    let v = unsafe { _mm_loadu_si128(pattern.as_ptr() as *const __m128i) };
    let mut at = 0;
    while at < n {
        for k in 0..4 {
            // SAFETY: at + 64 ≤ n; dst + at + 16k is 16-byte aligned.
            unsafe { _mm_stream_si128(dst.add(at + 16 * k) as *mut __m128i, v) };
        }
        at += 64;
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

    /// The baseline (SSE2) bodies, which the dispatch skips on an AVX2 host, give the
    /// same bytes as the AVX2 ones.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sse2_and_avx2_bodies_agree() {
        let pattern: [u8; 16] = std::array::from_fn(|k| k as u8 * 3 + 1);
        let src: Vec<u8> = (0..1024u32).map(|k| (k * 13 + 5) as u8).collect();
        for avx in [false, true] {
            if avx && !avx2() {
                continue;
            }
            let mut fill = vec![0u8; 1024 + 32];
            let mut copy = vec![0u8; 1024 + 32];
            let (fa, ca) = (fill.as_ptr().align_offset(32), copy.as_ptr().align_offset(32));
            // SAFETY: the bodies start 32-byte aligned and write 960 bytes (a multiple of
            // 64) inside buffers of 1056; src holds 1024 bytes; AVX2 only where detected.
            unsafe {
                let (f, c) = (fill.as_mut_ptr().add(fa), copy.as_mut_ptr().add(ca));
                if avx {
                    fill_body_avx2(f, 960, &pattern);
                    copy_body_avx2(c, src.as_ptr(), 960);
                } else {
                    fill_body_sse2(f, 960, &pattern);
                    copy_body_sse2(c, src.as_ptr(), 960);
                }
            }
            fence();
            let want_fill: Vec<u8> = (0..960).map(|k| pattern[k % 16]).collect();
            assert_eq!(&fill[fa..fa + 960], &want_fill[..], "fill, avx2 {avx}");
            assert_eq!(&copy[ca..ca + 960], &src[..960], "copy, avx2 {avx}");
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
