//! The copies of a repeating dim (wrap, reflect): once a kernel has written one period of
//! the dim's positions, the rest of its block of output repeats those bytes. Kernels call
//! [`repeat`] for it (one call per block, so every dim's code stays small); it copies the
//! written prefix forward, doubling it until it reaches [`CHUNK`] bytes (so that the
//! source stays in the cache), then in pieces of that prefix: O(block) bytes of memcpy,
//! no per-element work.

/// The prefix stops doubling at this many bytes.
pub(crate) const CHUNK: usize = 64 << 10;

/// The index of [`repeat`] among a kernel module's functions: it is declared second,
/// after [`crate::stream::stream_copy`].
pub(crate) const FUNC_INDEX: u32 = 1;

/// The symbol kernels call.
pub(crate) const SYMBOL: &str = "kerf_repeat";

/// Bytes `[filled, total)` of `dst` copied from the bytes before them, which repeat with
/// period `filled` (the first `filled` bytes are written). Nothing happens unless
/// `0 < filled < total`.
///
/// # Safety
/// `dst` is valid for `total` bytes.
pub(crate) unsafe extern "C" fn repeat(dst: *mut u8, filled: usize, total: usize) {
    if filled == 0 {
        return;
    }
    let (mut done, mut chunk) = (filled, filled);
    while done < total {
        let n = chunk.min(total - done);
        // SAFETY: [0, n) and [done, done + n) lie in [0, total), which the caller vouches
        // for, and do not overlap: n ≤ chunk ≤ done (chunk starts at filled = done and
        // only ever takes the value of done).
        unsafe { std::ptr::copy_nonoverlapping(dst, dst.add(done), n) };
        done += n;
        if chunk < CHUNK {
            chunk = done;
        }
    }
}
