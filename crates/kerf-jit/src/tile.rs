//! Tiled block copies for the two innermost dims of a nest whose innermost dim reads
//! with a large input stride and whose next dim with a small one (a transposed view):
//! a plain loop nest takes one element per cache line and a page per element, and by the
//! next row the lines are gone. Kernels call [`tile_copy`] once per outer segment (see
//! [`crate::policy::tiles`]); it walks the block in tiles of [`TILE_ROWS`] rows by
//! [`TILE_ROW_BYTES`] of each output row, transposes each tile into a buffer in the L1
//! cache and then writes the buffer's rows out as whole runs (streamed when the kernel
//! streams): every line read and written is used whole while it is in the L1 cache, and
//! the output is written in runs long enough for the memory to take at full speed. A
//! host function rather than emitted code: the tile's transpose is a fixed shuffle
//! pattern per element width (AVX2 where there is one), which Rust's intrinsics give
//! directly.

use crate::policy::{TILE_BAND_BYTES, TILE_ROW_BYTES, TILE_ROWS};

/// The index of [`tile_copy`] among a kernel module's functions (its declaration order,
/// after the others of `helpers` in compile.rs), its symbol and its argument count.
pub(crate) const FUNC_INDEX: u32 = 7;
pub(crate) const SYMBOL: &str = "kerf_tile_copy";
pub(crate) const ARGS: usize = 9;

/// Bytes of a cache line: the transposes move squares of one line per side.
const LINE: usize = 64;

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
    let stream = stream != 0;
    // SAFETY: the caller's contract, for elements of the width named.
    unsafe {
        match w {
            0 => {}
            1 => b.buffered::<1, u8>(stream),
            2 => b.buffered::<2, u16>(stream),
            4 => b.buffered::<4, u32>(stream),
            8 => b.buffered::<8, u64>(stream),
            16 => b.buffered::<16, u128>(stream),
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

/// A tile's elements, row after row, each row [`TILE_ROW_BYTES`] apart.
#[repr(align(64))]
struct TileBuf(std::mem::MaybeUninit<[u8; TILE_ROWS * TILE_ROW_BYTES]>);

impl Block {
    fn src_at(&self, r: usize, c: usize) -> *const u8 {
        self.src.wrapping_offset(r as isize * self.rs + c as isize * self.cs)
    }
    fn dst_at(&self, r: usize, c: usize, w: usize) -> *mut u8 {
        self.dst.wrapping_offset(r as isize * self.ds + (c * w) as isize)
    }

    /// Every tile `(r0, c0, rn, cn)` of the block for `w`-byte elements: [`TILE_ROWS`] rows
    /// by [`TILE_ROW_BYTES`] of columns (at least one), in bands of [`TILE_BAND_BYTES`] of
    /// rows; a band's tiles a column of tiles at a time, top to bottom (see
    /// [`TILE_BAND_BYTES`] for why). Tiles start at multiples of their sides.
    fn tiles(&self, w: usize) -> impl Iterator<Item = (usize, usize, usize, usize)> {
        let side = (TILE_ROW_BYTES / w).max(1);
        let band = (TILE_BAND_BYTES / w).max(TILE_ROWS) / TILE_ROWS * TILE_ROWS;
        let (rows, cols) = (self.rows, self.cols);
        (0..rows).step_by(band).flat_map(move |b0| {
            let b_end = (b0 + band).min(rows);
            (0..cols).step_by(side).flat_map(move |c0| {
                (b0..b_end).step_by(TILE_ROWS).map(move |r0| (r0, c0, TILE_ROWS.min(b_end - r0), side.min(cols - c0)))
            })
        })
    }

    /// Every tile transposed into a [`TileBuf`] (squares of a line per side, see
    /// [`Self::to_buf`]), whose rows then go out as one run each ([`Self::put_rows`]).
    ///
    /// # Safety
    /// [`tile_copy`]'s contract; `T` is `W` bytes wide and `W` is at most a line.
    unsafe fn buffered<const W: usize, T: Copy>(&self, stream: bool) {
        // Tiles start where the output rows' lines do (when the rows are a whole number of
        // lines apart) and where the input rows' lines do (when the rows of the block are
        // adjacent in an input row and those rows are a whole number of lines apart): the
        // first columns and rows before those go as blocks of their own, so that every tile
        // row writes whole lines and every tile reads whole lines of each input row.
        let lead = |at: *const u8, aligned: bool, n: usize| match aligned && (at as usize).is_multiple_of(W) {
            true => (at.align_offset(LINE) / W).min(n),
            false => 0,
        };
        let lc = lead(self.dst, self.ds % LINE as isize == 0, self.cols);
        let lr = lead(self.src, self.rs == W as isize && self.cs % LINE as isize == 0, self.rows);
        let mut buf = TileBuf(std::mem::MaybeUninit::uninit());
        let buf = buf.0.as_mut_ptr().cast::<u8>();
        for (r, rows) in [(0, lr), (lr, self.rows - lr)] {
            for (c, cols) in [(0, lc), (lc, self.cols - lc)] {
                let part = Block { dst: self.dst_at(r, c, W), src: self.src_at(r, c), rows, cols, ..*self };
                // SAFETY: the part's elements are elements of the block, its tiles fit in buf (tiles():
                // rn ≤ TILE_ROWS, cn·W ≤ TILE_ROW_BYTES); AVX2 was detected for the AVX2 path, whose rows
                // are adjacent (rs = 4) as it needs.
                unsafe {
                    #[cfg(target_arch = "x86_64")]
                    if W == 4 && self.rs == 4 && avx2() {
                        part.buffered_4_avx2(buf, stream);
                        continue;
                    }
                    for (r0, c0, rn, cn) in part.tiles(W) {
                        part.to_buf::<W, T>(buf, r0, c0, rn, cn);
                        part.put_rows(buf, r0, c0 * W, rn, cn * W, stream);
                    }
                }
            }
        }
    }

    /// Rows r0..r0 + rn of a tile in `buf` out to the block, `n` bytes from byte `at` of each:
    /// with `stream`, non-temporal stores for the whole lines of a run (the partial lines
    /// at its ends through the cache: no line is written both ways, nor streamed in part).
    ///
    /// # Safety
    /// Those rows of the tile are in `buf` (row k at k·TILE_ROW_BYTES) and the `n` bytes from
    /// byte `at` of each are block elements.
    #[inline(always)]
    unsafe fn put_rows(&self, buf: *const u8, r0: usize, at: usize, rn: usize, n: usize, stream: bool) {
        for r in 0..rn {
            let (d, s) = (self.dst_at(r0 + r, at, 1), buf.wrapping_add(r * TILE_ROW_BYTES));
            let (head, body) = match stream {
                true => {
                    let head = d.align_offset(LINE).min(n);
                    (head, (n - head) / LINE * LINE)
                }
                false => (n, 0),
            };
            // SAFETY: [0, n) of row r is in buf and is block elements at d (not overlapping the source,
            // nor buf, a local); [head, head + body) lies inside it, from a line-aligned d + head.
            unsafe {
                if head > 0 {
                    std::ptr::copy_nonoverlapping(s, d, head);
                }
                if head + body < n {
                    std::ptr::copy_nonoverlapping(s.add(head + body), d.add(head + body), n - head - body);
                }
                if body > 0 {
                    crate::stream::stream_copy(d.add(head), s.add(head), body);
                }
            }
        }
    }

    /// [`Self::buffered`]'s tiles for 4-byte elements whose rows are adjacent in the source
    /// (`rs` = 4), with AVX2: [`Self::to_buf_4_avx2`], and whole lines streamed inline.
    ///
    /// # Safety
    /// As [`Self::buffered`], `buf` a [`TileBuf`]; AVX2 is available and `rs` = 4.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn buffered_4_avx2(&self, buf: *mut u8, stream: bool) {
        for (r0, c0, rn, cn) in self.tiles(4) {
            // SAFETY: the tile's elements are block elements and fit in buf (tiles(): rn ≤ TILE_ROWS, cn·4 ≤
            // TILE_ROW_BYTES); AVX2 is on.
            unsafe { self.to_buf_4_avx2(buf, r0, c0, rn, cn) };
            let n = cn * 4;
            for r in 0..rn {
                let (d, s) = (self.dst_at(r0 + r, c0, 4), buf.wrapping_add(r * TILE_ROW_BYTES));
                let body = if stream && d.align_offset(LINE) == 0 { n / LINE * LINE } else { 0 };
                // SAFETY: row r's n bytes are in buf and are block elements at d (not overlapping the source, nor
                // buf); with body > 0, d is line-aligned and body ≤ n is a multiple of a line; AVX2 is on.
                unsafe {
                    if body > 0 {
                        crate::stream::copy_body_avx2(d, s, body);
                    }
                    if body < n {
                        self.put_rows(s.add(body), r0 + r, c0 * 4 + body, 1, n - body, stream);
                    }
                }
            }
        }
    }

    /// The tile (r0.., c0..) of rn × cn elements into `buf`, element (r, c) at
    /// `buf + r·TILE_ROW_BYTES + c·W`: squares of a line of elements per side, each read
    /// a whole input line (a column of the square) at a time, so that the square's lines
    /// are read once however the input rows alias in the cache.
    ///
    /// # Safety
    /// The tile's elements are block elements and fit in `buf` as above.
    unsafe fn to_buf<const W: usize, T: Copy>(&self, buf: *mut u8, r0: usize, c0: usize, rn: usize, cn: usize) {
        let k = LINE / W;
        for mc in (0..cn).step_by(k) {
            for mr in (0..rn).step_by(k) {
                for c in mc..(mc + k).min(cn) {
                    for r in mr..(mr + k).min(rn) {
                        // SAFETY: (r0 + r, c0 + c) is an element of the block, (r, c) one of the tile in buf.
                        unsafe {
                            let x = self.src_at(r0 + r, c0 + c).cast::<T>().read_unaligned();
                            buf.add(r * TILE_ROW_BYTES + c * W).cast::<T>().write_unaligned(x);
                        }
                    }
                }
            }
        }
    }

    /// [`Self::to_buf`] for 4-byte elements whose rows are adjacent in the source (`rs` =
    /// 4): 8 × 8 squares are 8 loads of 8 rows each, transposed in registers, and 8 stores
    /// into `buf`, each column of 8 squares down the tile in turn (a pair of squares reads
    /// an input line whole); the edges go element by element.
    ///
    /// # Safety
    /// As [`Self::to_buf`]; AVX2 is available and `rs` = 4.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn to_buf_4_avx2(&self, buf: *mut u8, r0: usize, c0: usize, rn: usize, cn: usize) {
        let (r8, c8) = (rn / 8 * 8, cn / 8 * 8);
        for cb in (0..c8).step_by(8) {
            for rb in (0..r8).step_by(8) {
                // SAFETY: rows rb..rb + 8 ≤ rn and columns cb..cb + 8 ≤ cn of the tile: block elements, and
                // in buf (row k of the square at (rb + k)·TILE_ROW_BYTES + cb·4, 32 bytes); AVX2 is on.
                unsafe {
                    let a = self.transpose_8x8(r0 + rb, c0 + cb);
                    for (k, row) in a.into_iter().enumerate() {
                        _mm256_storeu_ps(buf.add((rb + k) * TILE_ROW_BYTES + cb * 4).cast::<f32>(), row);
                    }
                }
            }
        }
        // The edges: the columns past the last whole 8 for every row, the rows past the last whole 8
        // for the other columns.
        for c in 0..cn {
            let from = if c < c8 { r8 } else { 0 };
            for r in from..rn {
                // SAFETY: (r0 + r, c0 + c) is an element of the block, (r, c) one of the tile in buf.
                unsafe {
                    let x = self.src_at(r0 + r, c0 + c).cast::<u32>().read_unaligned();
                    buf.add(r * TILE_ROW_BYTES + c * 4).cast::<u32>().write_unaligned(x);
                }
            }
        }
    }

    /// # Safety
    /// [`tile_copy`]'s contract.
    unsafe fn copy_bytes(&self, w: usize) {
        for (r0, c0, rn, cn) in self.tiles(w) {
            for c in c0..c0 + cn {
                for r in r0..r0 + rn {
                    // SAFETY: (r, c) is an element of the block, w bytes at both ends, not overlapping.
                    unsafe { std::ptr::copy_nonoverlapping(self.src_at(r, c), self.dst_at(r, c, w), w) };
                }
            }
        }
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
    __m256, _mm256_loadu_ps, _mm256_permute2f128_ps, _mm256_shuffle_ps, _mm256_storeu_ps, _mm256_unpackhi_ps,
    _mm256_unpacklo_ps,
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
