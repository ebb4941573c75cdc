//! The copies of a repeating dim (wrap, reflect): once a kernel has written one period of
//! the dim's positions, the rest of its block of output repeats them. Kernels call
//! [`repeat`] (bytes) or [`repeat_nibbles`] (packed 4-bit elements) for it, one call per
//! block, so that every dim's code stays small; the written prefix is copied forward,
//! doubling until it reaches [`CHUNK`] bytes (so that the source stays in the cache), then
//! in pieces of that prefix: O(block) bytes of memcpy, no per-element work (nibbles: at
//! most two periods nibble by nibble, to reach whole bytes).

use crate::policy::REPEAT_CHUNK as CHUNK;

/// Bytes `[filled, total)` of `dst` copied from the bytes before them, which repeat with
/// period `filled` (the first `filled` bytes are written). Nothing happens unless
/// `0 < filled < total`.
///
/// # Safety
/// `dst` is valid for `total` bytes.
#[unsafe(export_name = "kerf_rt1_repeat")]
pub unsafe extern "C" fn repeat(dst: *mut u8, filled: usize, total: usize) {
    if filled == 0 {
        return;
    }
    let (mut done, mut chunk) = (filled, filled);
    while done < total {
        let n = chunk.min(total - done);
        // SAFETY: [0, n) and [done, done + n) lie in [0, total), as the caller vouches, and do not overlap:
        // n ≤ chunk ≤ done (chunk starts at filled = done and only ever takes the value of done).
        unsafe { std::ptr::copy_nonoverlapping(dst, dst.add(done), n) };
        done += n;
        if chunk < CHUNK {
            chunk = done;
        }
    }
}

/// Nibbles `[start + filled, start + total)` of the packed 4-bit array at `out` copied from
/// the nibbles before them, which repeat with period `filled` (nibbles `[start, start +
/// filled)` are written). Nothing happens unless `0 < filled < total`. Nibble by nibble
/// until a distance d (the period, or twice it when odd, so that d is even) is written
/// and the next nibble starts a byte; then whole bytes repeat with period d / 2; then an
/// odd last nibble. The other nibble of the bytes at either end of the block is kept.
///
/// # Safety
/// The bytes holding nibbles `[start, start + total)` are valid.
#[unsafe(export_name = "kerf_rt1_repeat_nibbles")]
pub unsafe extern "C" fn repeat_nibbles(out: *mut u8, start: usize, filled: usize, total: usize) {
    if filled == 0 || filled >= total {
        return;
    }
    // Every nibble index passed to get and set below lies in [start, start + total).
    // SAFETY: the byte holding nibble n is valid (the caller's contract, n in range).
    let get = |n: usize| unsafe { (*out.add(n / 2) >> (4 * (n % 2))) & 15 };
    // SAFETY: as for get.
    let set = |n: usize, v: u8| unsafe {
        let b = out.add(n / 2);
        let shift = 4 * (n % 2);
        *b = (*b & !(15 << shift)) | (v << shift);
    };
    let end = start + total;
    let d = if filled.is_multiple_of(2) { filled } else { 2 * filled };
    let mut n = start + filled;
    while n < end && (n - start < d || n % 2 == 1) {
        set(n, get(n - filled));
        n += 1;
    }
    // Bytes [n / 2, end / 2) repeat the d / 2 bytes before them, which hold nibbles
    // [n − d, n) ⊆ [start, n): written.
    if n < end {
        let (first, last) = ((n - d) / 2, end / 2);
        // SAFETY: bytes [first, last) hold nibbles of [start, end) only (n − d ≥ start and
        // both are even; the byte of an odd `end`'s last nibble is left out).
        unsafe { repeat(out.add(first), d / 2, last - first) };
        if end % 2 == 1 {
            set(end - 1, get(end - 1 - filled));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nibble(buf: &[u8], n: usize) -> u8 {
        (buf[n / 2] >> (4 * (n % 2))) & 15
    }

    /// Every start parity, period and length: the block repeats its first period and no
    /// nibble (byte) outside it changes.
    #[test]
    fn repeats_exactly_the_block() {
        for start in 0..4usize {
            for filled in 1..9usize {
                for total in filled..70usize {
                    let mut buf: Vec<u8> = (0..48u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
                    let before = buf.clone();
                    // SAFETY: nibbles [start, start + total) lie in the 96 nibbles of `buf`.
                    unsafe { repeat_nibbles(buf.as_mut_ptr(), start, filled, total) };
                    for n in 0..96 {
                        let want = if (start..start + total).contains(&n) {
                            nibble(&before, start + (n - start) % filled)
                        } else {
                            nibble(&before, n)
                        };
                        assert_eq!(nibble(&buf, n), want, "start {start} filled {filled} total {total} nibble {n}");
                    }
                    let mut bytes = before.clone();
                    // SAFETY: bytes [start, start + total) lie in the 48 bytes of `bytes`.
                    unsafe { repeat(bytes.as_mut_ptr().add(start), filled, total.min(44)) };
                    for (i, &b) in bytes.iter().enumerate() {
                        let want = if (start..start + total.min(44)).contains(&i) {
                            before[start + (i - start) % filled]
                        } else {
                            before[i]
                        };
                        assert_eq!(b, want, "bytes: start {start} filled {filled} total {total} at {i}");
                    }
                }
            }
        }
    }
}
