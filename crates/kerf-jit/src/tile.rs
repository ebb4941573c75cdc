//! Tiled block copies for the two innermost dims of a nest whose innermost dim reads
//! with a large input stride and whose next dim with a small one (a transposed view):
//! a plain loop nest takes one element per cache line and a page per element, and by the
//! next row the lines are gone. Kernels call [`tile_copy`] once per outer segment (see
//! [`crate::policy::tiles`]); it walks the block in square tiles of
//! [`crate::policy::TILE_BYTES`] per side, so that the lines a tile reads and writes stay
//! in the L1 cache while it is moved. A host function rather than emitted code: the
//! tile's transpose is a fixed shuffle pattern per element width (AVX2 where there is
//! one), which Rust's intrinsics give directly.

use crate::policy::{TILE_BLOCK_BYTES, TILE_BYTES};

/// The index of [`tile_copy`] among a kernel module's functions (its declaration order,
/// after the others of `helpers` in compile.rs), its symbol and its argument count.
pub(crate) const FUNC_INDEX: u32 = 7;
pub(crate) const SYMBOL: &str = "kerf_tile_copy";
pub(crate) const ARGS: usize = 9;

/// A `rows × cols` block of `w`-byte elements: element (r, c) read at byte `src + r·rs +
/// c·cs`, written at `dst + r·ds + c·w`. Any strides (signs included) and widths; the
/// widths of kerf's dtypes (1, 2, 4, 8, 16) move as single loads and stores. `stream`
/// (non-zero): whole output lines may be written with non-temporal stores (the caller
/// fences before the output is read, see [`crate::stream`]).
///
/// # Safety
/// Every element (r, c) of the block is readable at its source address and writable at
/// its destination address, and the destinations do not overlap the sources.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn tile_copy(
    dst: *mut u8,
    src: *const u8,
    rows: usize,
    cols: usize,
    rs: isize,
    cs: isize,
    ds: isize,
    w: usize,
    stream: usize,
) {
    let b = Block { dst, src, rows, cols, rs, cs, ds };
    // SAFETY: the caller's contract, for elements of the width named.
    unsafe {
        match w {
            0 => {}
            1 => b.copy::<1, u8>(),
            2 => b.copy::<2, u16>(),
            4 => {
                #[cfg(target_arch = "x86_64")]
                if rs == 4 && avx2() {
                    return b.copy_4_avx2(stream != 0);
                }
                b.copy::<4, u32>()
            }
            8 => b.copy::<8, u64>(),
            16 => b.copy::<16, u128>(),
            _ => b.copy_bytes(w),
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// The arguments of [`tile_copy`].
#[derive(Copy, Clone)]
struct Block {
    dst: *mut u8,
    src: *const u8,
    rows: usize,
    cols: usize,
    rs: isize,
    cs: isize,
    ds: isize,
}

impl Block {
    fn src_at(&self, r: usize, c: usize) -> *const u8 {
        self.src.wrapping_offset(r as isize * self.rs + c as isize * self.cs)
    }
    fn dst_at(&self, r: usize, c: usize, w: usize) -> *mut u8 {
        self.dst.wrapping_offset(r as isize * self.ds + (c * w) as isize)
    }

    /// Every tile `(r0, c0, rn, cn)` of the block for `w`-byte elements: squares of
    /// [`TILE_BYTES`] per side (their lines stay in the L1 cache), grouped into squares of
    /// [`TILE_BLOCK_BYTES`] per side (their lines and pages stay in the L2 cache and its
    /// TLB); the tiles of a group a column of tiles at a time, top to bottom (see
    /// [`TILE_BLOCK_BYTES`] for why). Tiles start at multiples of the tile's side.
    fn tiles(&self, w: usize, mut tile: impl FnMut(usize, usize, usize, usize)) {
        let side = (TILE_BYTES / w).max(1);
        let group = (TILE_BLOCK_BYTES / w).max(side) / side * side;
        let (rows, cols) = (self.rows, self.cols);
        for gr in (0..rows).step_by(group) {
            for gc in (0..cols).step_by(group) {
                let (gr_end, gc_end) = ((gr + group).min(rows), (gc + group).min(cols));
                for c0 in (gc..gc_end).step_by(side) {
                    for r0 in (gr..gr_end).step_by(side) {
                        tile(r0, c0, side.min(gr_end - r0), side.min(gc_end - c0));
                    }
                }
            }
        }
    }

    /// # Safety
    /// [`tile_copy`]'s contract; `T` is `W` bytes wide.
    unsafe fn copy<const W: usize, T: Copy>(&self) {
        self.tiles(W, |r0, c0, rn, cn| {
            for c in c0..c0 + cn {
                for r in r0..r0 + rn {
                    // SAFETY: (r, c) is an element of the block: readable and writable (unaligned) as T.
                    unsafe {
                        let x = self.src_at(r, c).cast::<T>().read_unaligned();
                        self.dst_at(r, c, W).cast::<T>().write_unaligned(x);
                    }
                }
            }
        });
    }

    /// # Safety
    /// [`tile_copy`]'s contract.
    unsafe fn copy_bytes(&self, w: usize) {
        self.tiles(w, |r0, c0, rn, cn| {
            for c in c0..c0 + cn {
                for r in r0..r0 + rn {
                    // SAFETY: (r, c) is an element of the block, w bytes at both ends, not overlapping.
                    unsafe { std::ptr::copy_nonoverlapping(self.src_at(r, c), self.dst_at(r, c, w), w) };
                }
            }
        });
    }

    /// 4-byte elements whose rows are adjacent in the source (`rs` = 4): 8×8 squares are
    /// 8 loads of 8 rows each, transposed in registers, and 8 stores; the edges go element
    /// by element. With `stream`, the whole output lines (a row's 16 columns of a tile,
    /// tiles starting at line-aligned columns) are written with non-temporal stores, each
    /// line by two consecutive stores; the rest through the cache, so that no line is
    /// written both ways.
    ///
    /// # Safety
    /// [`tile_copy`]'s contract; AVX2 is available.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn copy_4_avx2(&self, stream: bool) {
        const LINE: usize = 64;
        // Streaming needs every row's tiles at line-aligned columns: rows a whole number of
        // lines apart, and the columns before the first aligned one moved as an edge.
        let stream = stream && self.ds % LINE as isize == 0 && (self.dst as usize).is_multiple_of(4);
        let lead = if stream { (self.dst.align_offset(LINE) / 4).min(self.cols) } else { 0 };
        // SAFETY: the first `lead` columns are elements of the block.
        unsafe { Block { cols: lead, ..*self }.copy::<4, u32>() };
        let rest = Block { dst: self.dst_at(0, lead, 4), src: self.src_at(0, lead), cols: self.cols - lead, ..*self };
        rest.tiles(4, |r0, c0, rn, cn| {
            let (r8, c8) = (rn / 8 * 8, cn / 8 * 8);
            for rb in (r0..r0 + r8).step_by(8) {
                let mut cb = c0;
                while cb < c0 + c8 {
                    // Why: rb + 8 ≤ r0 + rn and cb + 8 ≤ c0 + c8; with rs = 4 the 8 rows of a column are the
                    // 32 bytes from its src_at, the 8 columns of a row the 32 bytes from its dst_at; a pair
                    // starts a line of every row when streaming (rows line-aligned, tiles of a line from an
                    // aligned column).
                    // SAFETY: rows rb..rb + 8, columns cb..cb + 8 (cb + 16 with `pair`) are block elements; AVX2 is on.
                    unsafe {
                        let pair = cb + 16 <= c0 + c8;
                        let a = rest.transpose_8x8(rb, cb);
                        if !pair {
                            for (k, row) in a.into_iter().enumerate() {
                                _mm256_storeu_ps(rest.dst_at(rb + k, cb, 4).cast::<f32>(), row);
                            }
                            cb += 8;
                            continue;
                        }
                        let b = rest.transpose_8x8(rb, cb + 8);
                        for k in 0..8 {
                            let (d0, d1) =
                                (rest.dst_at(rb + k, cb, 4).cast::<f32>(), rest.dst_at(rb + k, cb + 8, 4).cast());
                            if stream {
                                _mm256_stream_ps(d0, a[k]);
                                _mm256_stream_ps(d1, b[k]);
                            } else {
                                _mm256_storeu_ps(d0, a[k]);
                                _mm256_storeu_ps(d1, b[k]);
                            }
                        }
                        cb += 16;
                    }
                }
            }
            // The edges: the columns past the last whole 8 for every row, the rows past the last whole 8
            // for the other columns.
            for c in c0..c0 + cn {
                let from = if c < c0 + c8 { r0 + r8 } else { r0 };
                for r in from..r0 + rn {
                    // SAFETY: (r, c) is an element of the block.
                    unsafe {
                        let x = rest.src_at(r, c).cast::<u32>().read_unaligned();
                        rest.dst_at(r, c, 4).cast::<u32>().write_unaligned(x);
                    }
                }
            }
        });
    }

    /// Elements (rb..rb + 8, cb..cb + 8) of a block of 4-byte elements with `rs` = 4, as
    /// the 8 rows of 8 columns each.
    ///
    /// # Safety
    /// Those elements are in the block; AVX2 is available.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn transpose_8x8(&self, rb: usize, cb: usize) -> [__m256; 8] {
        // SAFETY: column cb + k holds rows rb..rb + 8 as 32 contiguous bytes (rs = 4), inside the block.
        let v: [__m256; 8] = std::array::from_fn(|k| unsafe { _mm256_loadu_ps(self.src_at(rb, cb + k).cast::<f32>()) });
        let t0 = _mm256_unpacklo_ps(v[0], v[1]);
        let t1 = _mm256_unpackhi_ps(v[0], v[1]);
        let t2 = _mm256_unpacklo_ps(v[2], v[3]);
        let t3 = _mm256_unpackhi_ps(v[2], v[3]);
        let t4 = _mm256_unpacklo_ps(v[4], v[5]);
        let t5 = _mm256_unpackhi_ps(v[4], v[5]);
        let t6 = _mm256_unpacklo_ps(v[6], v[7]);
        let t7 = _mm256_unpackhi_ps(v[6], v[7]);
        let s0 = _mm256_shuffle_ps::<0x44>(t0, t2);
        let s1 = _mm256_shuffle_ps::<0xee>(t0, t2);
        let s2 = _mm256_shuffle_ps::<0x44>(t1, t3);
        let s3 = _mm256_shuffle_ps::<0xee>(t1, t3);
        let s4 = _mm256_shuffle_ps::<0x44>(t4, t6);
        let s5 = _mm256_shuffle_ps::<0xee>(t4, t6);
        let s6 = _mm256_shuffle_ps::<0x44>(t5, t7);
        let s7 = _mm256_shuffle_ps::<0xee>(t5, t7);
        [
            _mm256_permute2f128_ps::<0x20>(s0, s4),
            _mm256_permute2f128_ps::<0x20>(s1, s5),
            _mm256_permute2f128_ps::<0x20>(s2, s6),
            _mm256_permute2f128_ps::<0x20>(s3, s7),
            _mm256_permute2f128_ps::<0x31>(s0, s4),
            _mm256_permute2f128_ps::<0x31>(s1, s5),
            _mm256_permute2f128_ps::<0x31>(s2, s6),
            _mm256_permute2f128_ps::<0x31>(s3, s7),
        ]
    }
}

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::{
    __m256, _mm256_loadu_ps, _mm256_permute2f128_ps, _mm256_shuffle_ps, _mm256_storeu_ps, _mm256_stream_ps,
    _mm256_unpackhi_ps, _mm256_unpacklo_ps,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Every width, block shapes with edges smaller than a tile, strides of both signs and
    /// with gaps, output rows a whole number of lines apart or not, streamed or not: each
    /// element from its source address, nothing else written.
    #[test]
    fn tile_copy_moves_every_element() {
        let shapes = [(0, 5), (5, 0), (1, 1), (3, 70), (70, 3), (17, 9), (64, 64), (65, 129)];
        for w in [1usize, 2, 3, 4, 8, 16] {
            for (rows, cols) in shapes {
                let (ri, ci) = (rows as isize, cols as isize);
                // (rs, cs) in elements: transposed, transposed with gaps, reversed, plain.
                for (rs, cs) in [(1, ri), (2, 2 * ri + 1), (-1, -ri), (ci, 1)] {
                    for (stream, ds) in [(0, cols + 3), (1, cols + 3), (1, (cols * w).next_multiple_of(64) / w)] {
                        check(w, rows, cols, rs, cs, ds, stream);
                    }
                }
            }
        }
    }

    fn check(w: usize, rows: usize, cols: usize, rs: isize, cs: isize, ds: usize, stream: usize) {
        let span = |s: isize, n: usize| s.unsigned_abs() * n.saturating_sub(1);
        let len = (span(rs, rows) + span(cs, cols) + 1) * w;
        let src: Vec<u8> = (0..len).map(|k| (k * 7 + 1) as u8).collect();
        // The element of lowest address is at byte 0.
        let first = (if rs < 0 { span(rs, rows) } else { 0 } + if cs < 0 { span(cs, cols) } else { 0 }) * w;
        for pad in [64, 64 + w] {
            let mut dst = vec![0xeeu8; rows * ds * w + 2 * pad + 64];
            let at = pad + dst.as_ptr().align_offset(64);
            let (rsb, csb, dsb) = (rs * w as isize, cs * w as isize, (ds * w) as isize);
            // SAFETY: every (r, c) reads src[first + r·rsb + c·csb .. + w] inside src, and writes
            // dst[at + r·dsb + c·w .. + w] inside dst.
            unsafe {
                tile_copy(dst.as_mut_ptr().add(at), src.as_ptr().add(first), rows, cols, rsb, csb, dsb, w, stream)
            };
            crate::stream::fence();
            let mut want = vec![0xeeu8; dst.len()];
            for r in 0..rows {
                for c in 0..cols {
                    let s = (first as isize + r as isize * rsb + c as isize * csb) as usize;
                    let d = at + r * ds * w + c * w;
                    want[d..d + w].copy_from_slice(&src[s..s + w]);
                }
            }
            assert_eq!(dst, want, "w {w} rows {rows} cols {cols} rs {rs} cs {cs} ds {ds} stream {stream} pad {pad}");
        }
    }
}
