//! Tiled block copies for the two innermost dims of a nest whose innermost dim reads
//! with a large input stride and whose next dim with a small one (a transposed view):
//! a plain loop nest takes one element per cache line and a page per element, and by the
//! next row the lines are gone. Kernels call [`tile_copy`] once per outer segment (see
//! the JIT's `policy::tiles`); it walks the block in tiles of [`TILE_ROWS`] rows by
//! [`TILE_ROW_BYTES`] of each output row ([`STREAMED_TILE_ROWS`] by
//! [`STREAMED_TILE_ROW_BYTES`] when the output is streamed), transposes each tile into a
//! buffer in the L1 cache and then writes the buffer's rows out as whole runs (streamed
//! when the kernel streams): every line read and written is used whole while it is in the
//! L1 cache, and the output is written in runs long enough for the memory to take at full
//! speed. A host function rather than emitted code: the tile's transpose is a fixed
//! shuffle pattern per element width (AVX2 where there is one), which Rust's intrinsics
//! give directly.

use crate::policy::{
    LINE, REALIGNED_TILE_ROWS, STREAMED_TILE_ROW_BYTES, STREAMED_TILE_ROWS, TILE_BAND_BYTES, TILE_BUF_BYTES,
    TILE_MIN_COLS, TILE_ROW_BYTES, TILE_ROWS,
};

/// A tile's shape: rows, and bytes of each output row.
type TileShape = (usize, usize);

/// The shape of the tiles that transpose: streamed ones are taller and narrower (see
/// [`STREAMED_TILE_ROWS`]).
fn tile_shape(stream: bool) -> TileShape {
    match stream {
        true => (STREAMED_TILE_ROWS, STREAMED_TILE_ROW_BYTES),
        false => (TILE_ROWS, TILE_ROW_BYTES),
    }
}

/// The input lines of the tile below a tile (each of its columns' `lines` lines from
/// `at`, columns `cs` apart), prefetched into the L2 cache a share at a time — one share
/// per row of the tile as it goes out, so that the reads of the next tile overlap the
/// writes of this one — walked line by line with no division (a division per line took
/// about as long as the tile's own moves in the caches).
struct Below {
    at: *const u8,
    cs: isize,
    lines: usize,
    line: usize,
    left: usize,
    share: usize,
}

impl Below {
    /// The next share of the lines.
    #[inline(always)]
    fn prefetch_share(&mut self) {
        let n = self.share.min(self.left);
        self.prefetch(n);
    }

    /// Every line left.
    #[inline(always)]
    fn prefetch_all(&mut self) {
        self.prefetch(self.left);
    }

    #[inline(always)]
    fn prefetch(&mut self, n: usize) {
        for _ in 0..n {
            let _at = self.at.wrapping_add(self.line * LINE);
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a prefetch only hints (any address, no fault); SSE is part of x86-64.
            unsafe {
                _mm_prefetch::<_MM_HINT_T1>(_at.cast::<i8>())
            };
            self.line += 1;
            if self.line == self.lines {
                self.line = 0;
                self.at = self.at.wrapping_offset(self.cs);
            }
        }
        self.left -= n;
    }
}

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
#[unsafe(export_name = "kerf_rt1_tile_copy")]
pub unsafe extern "C" fn tile_copy(
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
    if cols < TILE_MIN_COLS as usize && ds == (cols * w) as isize {
        // SAFETY: the caller's contract, for elements of the width named.
        unsafe {
            match w {
                1 => b.narrow::<u8>(),
                2 => b.narrow::<u16>(),
                4 => b.narrow::<u32>(),
                8 => b.narrow::<u64>(),
                16 => b.narrow::<u128>(),
                _ => b.copy_bytes(w),
            }
        }
        return;
    }
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

/// A tile's elements, row after row, each row its shape's row bytes apart (or one output
/// row, for a dense tile).
#[repr(align(64))]
struct TileBuf {
    _bytes: [u8; TILE_BUF_BYTES],
}

thread_local! {
    /// One [`TileBuf`] per thread, on the heap: kernels run on their callers' threads,
    /// whose stacks may be small (32 KiB more there could overflow one). Taken while in
    /// use.
    static TILE_BUF: std::cell::Cell<Option<Box<std::mem::MaybeUninit<TileBuf>>>> = const { std::cell::Cell::new(None) };
}

impl Block {
    fn src_at(&self, r: usize, c: usize) -> *const u8 {
        self.src.wrapping_offset(r as isize * self.rs + c as isize * self.cs)
    }
    fn dst_at(&self, r: usize, c: usize, w: usize) -> *mut u8 {
        self.dst.wrapping_offset(r as isize * self.ds + (c * w) as isize)
    }

    /// Every tile `(r0, c0, rn, cn)` of the block for `w`-byte elements: `tile_rows` rows
    /// by `row_bytes` of columns (at least one), in bands of [`TILE_BAND_BYTES`] of rows; a
    /// band's tiles a column of tiles at a time, top to bottom (see [`TILE_BAND_BYTES`] for
    /// why). Tiles start at multiples of their sides.
    fn tiles(&self, w: usize, (tile_rows, row_bytes): TileShape) -> impl Iterator<Item = (usize, usize, usize, usize)> {
        let side = (row_bytes / w).max(1);
        let band = (TILE_BAND_BYTES / w).max(tile_rows) / tile_rows * tile_rows;
        let (rows, cols) = (self.rows, self.cols);
        (0..rows).step_by(band).flat_map(move |b0| {
            let b_end = (b0 + band).min(rows);
            (0..cols).step_by(side).flat_map(move |c0| {
                (b0..b_end).step_by(tile_rows).map(move |r0| (r0, c0, tile_rows.min(b_end - r0), side.min(cols - c0)))
            })
        })
    }

    /// Every tile transposed into a [`TileBuf`] (squares of a line per side, see
    /// [`Self::transpose_into`]), whose rows then go out as one run each ([`Self::put_row`])
    /// while the next tile's input is prefetched ([`Below`]; measured on V1's
    /// crop: 1.64–1.84 × W2's time for f32 against 1.96–2.26 × without, 15–25 % less time for
    /// 2- and 8-byte elements; into the L2 cache rather than the L1 no worse for f32, better
    /// for the others).
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
        // Output rows that follow each other and fit a tile row (NCHW → NHWC: a row of
        // channels per position) make each tile one run of the output: transposed at that
        // pitch, it goes out whole (see `put_run`), and no column needs to lead.
        let dense = self.ds == (self.cols * W) as isize && self.cols * W <= TILE_ROW_BYTES;
        let lc = if dense { 0 } else { lead(self.dst, self.ds % LINE as isize == 0, self.cols) };
        let lr = lead(self.src, self.rs == W as isize && self.cs % LINE as isize == 0, self.rows);
        let mut owned = TILE_BUF.take().unwrap_or_else(Box::new_uninit);
        let buf = owned.as_mut_ptr().cast::<u8>();
        for (r, rows) in [(0, lr), (lr, self.rows - lr)] {
            if dense {
                let part = Block { dst: self.dst_at(r, 0, W), src: self.src_at(r, 0), rows, ..*self };
                // SAFETY: the part's elements are elements of the block; its tiles span its
                // rows (cn = cols, cn·W ≤ TILE_ROW_BYTES) and fit in buf at that pitch.
                unsafe { part.dense_tiles::<W, T>(buf, stream) };
                continue;
            }
            for (c, cols) in [(0, lc), (lc, self.cols - lc)] {
                let part = Block { dst: self.dst_at(r, c, W), src: self.src_at(r, c), rows, cols, ..*self };
                // The part's elements are elements of the block; each tile, with the `wide - cn`
                // block columns after it, fits in buf: rn rows of wide·W ≤ pitch bytes within
                // TILE_BUF_BYTES (asserted per tile), and each row's run lo..hi lies within them
                // (asserted by run()).
                // SAFETY: as above; AVX2 was detected for the AVX2 path, whose rows are adjacent
                // (rs = W) as it needs.
                unsafe {
                    #[cfg(target_arch = "x86_64")]
                    if self.avx2_tiles::<W>() {
                        part.buffered_avx2::<W>(buf, stream);
                        continue;
                    }
                    let (shape, extra, pitch) = part.run_cuts::<W>(stream);
                    for (r0, c0, rn, cn) in part.tiles(W, shape) {
                        let wide = part.transposed_cols::<W>((rn, c0, cn), extra, pitch);
                        part.transpose_into::<W, T>(buf, pitch, (r0, c0, rn, wide));
                        let mut below = part.below(W, (r0, c0, rn, cn));
                        for r in 0..rn {
                            below.prefetch_share();
                            let (lo, hi) = part.run::<W>(r0 + r, c0, cn, wide, extra > 0);
                            part.put_row(buf.add(r * pitch + lo - c0 * W), r0 + r, lo, hi - lo, stream);
                        }
                    }
                }
            }
        }
        TILE_BUF.set(Some(owned));
    }

    /// Whether tiles of `W`-byte elements are transposed with AVX2 ([`Self::transpose_avx2`]):
    /// widths 1, 2, 4 and 8 whose rows are adjacent in the source (`rs` = `W`), on a CPU
    /// with AVX2 (and not forced to the baseline).
    #[cfg(target_arch = "x86_64")]
    fn avx2_tiles<const W: usize>(&self) -> bool {
        matches!(W, 1 | 2 | 4 | 8) && self.rs == W as isize && crate::avx2()
    }

    /// [`Self::buffered`] for a block whose output rows follow each other (`ds` = cols ·
    /// `W`) and fit a tile row: each tile (all the columns of [`TILE_ROWS`] rows) is
    /// transposed into `buf` at a pitch of one output row, then written as one run of
    /// `rn · cols · W` bytes — streamed as whole lines but for the first and last partial
    /// line of the run, where row by row every row that does not start on a line leaves
    /// two lines to ordinary stores beside the streamed ones.
    ///
    /// # Safety
    /// As [`Self::buffered`], `buf` a [`TileBuf`], `ds` = cols · `W` ≤ [`TILE_ROW_BYTES`].
    unsafe fn dense_tiles<const W: usize, T: Copy>(&self, buf: *mut u8, stream: bool) {
        let n = self.cols * W;
        debug_assert!(self.ds == n as isize && n <= TILE_ROW_BYTES, "dense_tiles: rows {n} bytes, ds {}", self.ds);
        for tile in self.tiles(W, tile_shape(false)) {
            let (r0, _, rn, _) = tile;
            // Through the cache, the tile goes straight to its rows of the output (contiguous
            // here): no second pass over it.
            #[cfg(target_arch = "x86_64")]
            if !stream && self.avx2_tiles::<W>() {
                // SAFETY: the tile's elements are block elements, (r, c) at dst_at(r0, 0) + r·n + c·W (ds = n);
                // AVX2 was detected and rs = W.
                unsafe { self.transpose_avx2::<W>(self.dst_at(r0, 0, W), n, tile) };
                continue;
            }
            // SAFETY: the tile's elements are block elements and fit in buf at pitch n (rn ≤ TILE_ROWS,
            // n ≤ TILE_ROW_BYTES); AVX2 was detected for the AVX2 path, whose rows are adjacent (rs = W).
            unsafe {
                #[cfg(target_arch = "x86_64")]
                if self.avx2_tiles::<W>() {
                    self.transpose_avx2::<W>(buf, n, tile);
                } else {
                    self.transpose_into::<W, T>(buf, n, tile);
                }
                #[cfg(not(target_arch = "x86_64"))]
                self.transpose_into::<W, T>(buf, n, tile);
            }
            self.below(W, tile).prefetch_all();
            let (d, len) = (self.dst_at(r0, 0, W), rn * n);
            // SAFETY: rows r0..r0 + rn of the block are the len bytes at d (ds = n), block elements not
            // overlapping the source nor buf, which holds them at pitch n.
            unsafe {
                if stream {
                    crate::stream::stream_copy(d, buf, len);
                } else {
                    std::ptr::copy_nonoverlapping(buf, d, len);
                }
            }
        }
    }

    /// The input lines of the tile below `tile` (r0, c0, rn, cn) of `w`-byte elements, to
    /// prefetch into the L2 cache while this tile goes out (see [`Below`]).
    #[inline(always)]
    fn below(&self, w: usize, (r0, c0, rn, cn): (usize, usize, usize, usize)) -> Below {
        let lines = (rn * w).div_ceil(LINE);
        let left = if r0 + rn < self.rows { cn * lines } else { 0 };
        Below { at: self.src_at(r0 + rn, c0), cs: self.cs, lines, line: 0, left, share: left.div_ceil(rn.max(1)) }
    }

    /// Row `r` of a tile at `buf` out to the block, `n` bytes from byte `at` of it: with
    /// `stream`, non-temporal stores for the whole lines of the run (the partial lines at
    /// its ends through the cache: no line is written both ways, nor streamed in part).
    ///
    /// # Safety
    /// The row's `n` bytes are at `buf` and are block elements from byte `at` of row `r`.
    #[inline(always)]
    unsafe fn put_row(&self, buf: *const u8, r: usize, at: usize, n: usize, stream: bool) {
        let (d, s) = (self.dst_at(r, at, 1), buf);
        let (head, body) = match stream {
            true => {
                let head = d.align_offset(LINE).min(n);
                (head, (n - head) / LINE * LINE)
            }
            false => (n, 0),
        };
        // SAFETY: the n bytes at buf are block elements at d (not overlapping the source, nor
        // buf, a local); [head, head + body) lies inside them, from a line-aligned d + head.
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

    /// [`Self::buffered`]'s tiles for 1-, 2-, 4- and 8-byte elements whose rows are adjacent
    /// in the source (`rs` = `W`), with AVX2: [`Self::transpose_avx2`], and whole lines
    /// streamed inline.
    ///
    /// # Safety
    /// As [`Self::buffered`], `buf` a [`TileBuf`]; AVX2 is available, `W` is 1, 2, 4 or 8
    /// and `rs` = `W`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn buffered_avx2<const W: usize>(&self, buf: *mut u8, stream: bool) {
        let (shape, extra, pitch) = self.run_cuts::<W>(stream);
        for (r0, c0, rn, cn) in self.tiles(W, shape) {
            let wide = self.transposed_cols::<W>((rn, c0, cn), extra, pitch);
            // By construction tiles() gives at most the shape's rows and cn·W ≤ its row bytes,
            // run_cuts() a pitch of those plus extra·W, and policy.rs bounds rows × pitch.
            // SAFETY: the tile's elements (and the `wide - cn` block columns after them) are block
            // elements and fit in buf (rn rows of wide·W bytes, pitch apart: asserted); AVX2 is on.
            unsafe { self.transpose_avx2::<W>(buf, pitch, (r0, c0, rn, wide)) };
            let mut below = self.below(W, (r0, c0, rn, cn));
            for r in 0..rn {
                below.prefetch_share();
                let (lo, hi) = self.run::<W>(r0 + r, c0, cn, wide, extra > 0);
                let n = hi - lo;
                let (d, s) = (self.dst_at(r0 + r, 0, W).wrapping_add(lo), buf.wrapping_add(r * pitch + lo - c0 * W));
                let body = if stream && d.align_offset(LINE) == 0 { n / LINE * LINE } else { 0 };
                // Bytes lo..hi of row r are block elements at d, and in buf at s (run() asserts
                // c0·W ≤ lo ≤ hi ≤ (c0 + wide)·W, the tile's columns in buf).
                // SAFETY: as above, not overlapping the source, nor buf; with body > 0, d is
                // line-aligned and body ≤ n is a multiple of a line; AVX2 is on.
                unsafe {
                    if body > 0 {
                        crate::stream::copy_body_avx2(d, s, body);
                    }
                    if body < n {
                        self.put_row(s.add(body), r0 + r, lo + body, n - body, stream);
                    }
                }
            }
        }
    }

    /// How a block's transposing tiles cut their rows' runs: `(shape, extra, pitch)`. A
    /// streamed block whose output rows are not a whole number of lines apart (no one
    /// column starts every row's run on a line) and start on element boundaries realigns:
    /// each row's runs are cut at the row's own line boundaries ([`Self::run`]), so that
    /// every run is whole lines but for a row's first and last line; a tile then transposes
    /// `extra` (a line of) columns past its own, which its rows' runs reach into, into rows a
    /// line longer (`pitch` bytes apart in the buffer; see [`REALIGNED_TILE_ROWS`]).
    /// Otherwise runs are the tile's own columns, `extra` is 0 and `pitch` the shape's row
    /// bytes.
    fn run_cuts<const W: usize>(&self, stream: bool) -> (TileShape, usize, usize) {
        let realign = stream
            && self.ds % LINE as isize != 0
            && (self.dst as usize).is_multiple_of(W)
            && self.ds % W as isize == 0;
        let (shape, extra) = match realign {
            true => ((REALIGNED_TILE_ROWS, STREAMED_TILE_ROW_BYTES), LINE / W),
            false => (tile_shape(stream), 0),
        };
        (shape, extra, shape.1 + extra * W)
    }

    /// Columns a tile of `rn` rows and columns `c0..c0 + cn` transposes: its own and up to
    /// `extra` block columns after them ([`Self::run_cuts`]). Checked to fit the tile buffer
    /// at `pitch` bytes a row.
    fn transposed_cols<const W: usize>(
        &self,
        (rn, c0, cn): (usize, usize, usize),
        extra: usize,
        pitch: usize,
    ) -> usize {
        let wide = cn + extra.min(self.cols - c0 - cn);
        assert!(rn * pitch <= TILE_BUF_BYTES && wide * W <= pitch, "a tile past its buffer");
        wide
    }

    /// Bytes `lo..hi` of output row `r` that the tile of columns `c0..c0 + cn` writes, its
    /// columns transposed up to `c0 + wide`: its own columns' bytes, or with `realign` from
    /// the row's first line boundary at or after column `c0`'s byte to the one at or after
    /// column `c0 + cn`'s (the row's start for column 0, its end past the last column), so
    /// that the runs of consecutive tiles meet and cover the row once. Checked to lie within
    /// the transposed columns: the bytes the caller copies out of the tile buffer.
    fn run<const W: usize>(&self, r: usize, c0: usize, cn: usize, wide: usize, realign: bool) -> (usize, usize) {
        let row = self.dst_at(r, 0, W) as usize;
        let cut = |c: usize| match realign && c > 0 {
            // A line boundary at or after the byte, a whole number of elements past it (the row
            // starts on an element boundary and a line is a whole number of elements).
            true => (row.wrapping_add(c * W).next_multiple_of(LINE).wrapping_sub(row)).min(self.cols * W),
            false => c * W,
        };
        let (lo, hi) = (cut(c0), cut(c0 + cn));
        assert!(
            c0 * W <= lo && lo <= hi && hi <= (c0 + wide) * W,
            "tile run {lo}..{hi} outside columns {c0}..{} of {W}-byte elements",
            c0 + wide
        );
        (lo, hi)
    }

    /// The tile (r0.., c0..) of rn × cn elements into `buf`, element (r, c) at
    /// `buf + r·pitch + c·W`: squares of a line of elements per side, each read
    /// a whole input line (a column of the square) at a time, so that the square's lines
    /// are read once however the input rows alias in the cache.
    ///
    /// # Safety
    /// The tile's elements are block elements and fit in `buf` as above.
    unsafe fn transpose_into<const W: usize, T: Copy>(
        &self,
        buf: *mut u8,
        pitch: usize,
        (r0, c0, rn, cn): (usize, usize, usize, usize),
    ) {
        let k = LINE / W;
        for mc in (0..cn).step_by(k) {
            for mr in (0..rn).step_by(k) {
                for c in mc..(mc + k).min(cn) {
                    for r in mr..(mr + k).min(rn) {
                        // SAFETY: (r0 + r, c0 + c) is an element of the block, (r, c) one of the tile in buf.
                        unsafe {
                            let x = self.src_at(r0 + r, c0 + c).cast::<T>().read_unaligned();
                            buf.add(r * pitch + c * W).cast::<T>().write_unaligned(x);
                        }
                    }
                }
            }
        }
    }

    /// [`Self::transpose_into`] for 1-, 2-, 4- and 8-byte elements whose rows are adjacent in the
    /// source (`rs` = `W`): squares of `k` = 16, 8, 8, 4 (a vector of 16, 16, 32, 32 bytes per
    /// side) are `k` loads of `k` rows each, transposed in registers ([`square_1`],
    /// [`square_2`], [`square_4`], [`square_8`]), and `k` stores into `buf`, each column of squares down the tile in
    /// turn (consecutive squares read an input line whole); the edges go element by element.
    ///
    /// # Safety
    /// As [`Self::transpose_into`]; AVX2 is available, `W` is 1, 2, 4 or 8 and `rs` = `W`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn transpose_avx2<const W: usize>(
        &self,
        buf: *mut u8,
        pitch: usize,
        (r0, c0, rn, cn): (usize, usize, usize, usize),
    ) {
        let k = match W {
            1 => 16,
            8 => 4,
            _ => 8,
        };
        let (rk, ck) = (rn / k * k, cn / k * k);
        for cb in (0..ck).step_by(k) {
            for rb in (0..rk).step_by(k) {
                let (s, d) = (self.src_at(r0 + rb, c0 + cb), buf.wrapping_add(rb * pitch + cb * W));
                // SAFETY: rows rb..rb + k ≤ rn and columns cb..cb + k ≤ cn of the tile: block elements (column
                // cb + j holds the square's k rows as k·W contiguous bytes at s + j·cs, rs = W), and in buf
                // (row j of the square at d + j·pitch, k·W bytes); AVX2 is on.
                unsafe {
                    match W {
                        1 => square_1(s, self.cs, d, pitch),
                        2 => square_2(s, self.cs, d, pitch),
                        4 => square_4(s, self.cs, d, pitch),
                        _ => square_8(s, self.cs, d, pitch),
                    }
                }
            }
        }
        // The edges: the columns past the last whole square for every row, the rows past the last
        // whole square for the other columns.
        // (Two loops, not one over every column testing which rows are left: that loop's
        // control took a fifth of a small tile's time.)
        let rows_left = if rk < rn { rk..rn } else { 0..0 };
        for c in 0..ck {
            for r in rows_left.clone() {
                // SAFETY: (r0 + r, c0 + c) is an element of the block (r < rn, c < cn), (r, c) one of the tile in buf.
                unsafe { std::ptr::copy_nonoverlapping(self.src_at(r0 + r, c0 + c), buf.add(r * pitch + c * W), W) };
            }
        }
        for c in ck..cn {
            for r in 0..rn {
                // SAFETY: as above.
                unsafe { std::ptr::copy_nonoverlapping(self.src_at(r0 + r, c0 + c), buf.add(r * pitch + c * W), W) };
            }
        }
    }

    /// A block narrower than a tile whose output rows follow each other (`ds` = cols ·
    /// width: a DepthToSpace's interleave of `cols` channels), element by element in output
    /// order (two columns of adjacent rows with AVX2 a vector at a time, see
    /// [`Self::interleave2_avx2`]): each input row is read along, the output written once,
    /// straight through ordinary stores. Measured on the project's shared AVX2 host (DS1's CRD interleave of
    /// two f32 channels, 16 MiB, a stand-alone copy of the loop, medians of 15):
    /// 1.31–1.36 × memcpy's time, as fast as an AVX2 unpack of the two rows (1.31–1.32 ×),
    /// where the emitted loop of two-element strided runs took 2.8 ×.
    ///
    /// # Safety
    /// [`tile_copy`]'s contract; `T` is the elements' width.
    unsafe fn narrow<T: Copy>(&self) {
        let dst = self.dst.cast::<T>();
        let mut from = 0;
        #[cfg(target_arch = "x86_64")]
        if self.cols == 2
            && self.rs == size_of::<T>() as isize
            && matches!(size_of::<T>(), 1 | 2 | 4 | 8)
            && crate::avx2()
        {
            // SAFETY: the caller's contract; two columns of adjacent rows (rs = the width,
            // 1, 2, 4 or 8 bytes) written at ds = 2 · width; AVX2 was detected.
            from = unsafe { self.interleave2_avx2::<T>() };
        }
        for r in from..self.rows {
            for c in 0..self.cols {
                // SAFETY: (r, c) is an element of the block, readable at its source and
                // writable at r·cols + c elements from dst (ds = cols · width), apart.
                unsafe { dst.add(r * self.cols + c).write_unaligned(self.src_at(r, c).cast::<T>().read_unaligned()) };
            }
        }
    }

    /// [`Self::narrow`]'s two columns (a DepthToSpace of block size 2 along the width)
    /// 32 bytes of each input row at a time: the two rows' vectors unpacked into each
    /// other, per 128-bit lane, and the lanes put in order. Measured on the project's
    /// shared AVX2 host (DS1's interleave, f32 rows of 128, an output 16 bytes past a line,
    /// one call per output row as the JIT makes them, a C driver, minima of 21 on a loaded
    /// host): 0.89–1.04 × memcpy's time, against 1.21–1.48 × element by element. Returns
    /// the rows done (the rest are the caller's: fewer than a vector's).
    ///
    /// # Safety
    /// [`tile_copy`]'s contract; `cols` = 2, `rs` = `ds` / 2 = the width of `T` (1, 2, 4 or
    /// 8 bytes); AVX2 is available.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn interleave2_avx2<T: Copy>(&self) -> usize {
        let w = size_of::<T>();
        let step = 32 / w;
        let (a, b) = (self.src, self.src.wrapping_offset(self.cs));
        let mut r = 0;
        while r + step <= self.rows {
            // SAFETY: rows r..r + step of both columns are block elements (32 bytes from
            // a + r·w and b + r·w, rs = w), written as the 64 bytes at dst + 2·r·w (ds = 2w).
            unsafe {
                let x = _mm256_loadu_si256(a.add(r * w).cast::<__m256i>());
                let y = _mm256_loadu_si256(b.add(r * w).cast::<__m256i>());
                let (lo, hi) = match w {
                    1 => (_mm256_unpacklo_epi8(x, y), _mm256_unpackhi_epi8(x, y)),
                    2 => (_mm256_unpacklo_epi16(x, y), _mm256_unpackhi_epi16(x, y)),
                    4 => (_mm256_unpacklo_epi32(x, y), _mm256_unpackhi_epi32(x, y)),
                    _ => (_mm256_unpacklo_epi64(x, y), _mm256_unpackhi_epi64(x, y)),
                };
                let d = self.dst.add(2 * r * w);
                _mm256_storeu_si256(d.cast::<__m256i>(), _mm256_permute2x128_si256::<0x20>(lo, hi));
                _mm256_storeu_si256(d.add(32).cast::<__m256i>(), _mm256_permute2x128_si256::<0x31>(lo, hi));
            }
            r += step;
        }
        r
    }

    /// # Safety
    /// [`tile_copy`]'s contract.
    unsafe fn copy_bytes(&self, w: usize) {
        for (r0, c0, rn, cn) in self.tiles(w, tile_shape(false)) {
            for c in c0..c0 + cn {
                for r in r0..r0 + rn {
                    // SAFETY: (r, c) is an element of the block, w bytes at both ends, not overlapping.
                    unsafe { std::ptr::copy_nonoverlapping(self.src_at(r, c), self.dst_at(r, c, w), w) };
                }
            }
        }
    }
}

/// The input rows of a square: vector `j` is the `V` (16 or 32 bytes) at
/// `src + row(j)·cs`.
///
/// # Safety
/// Those bytes are readable for every j < N.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn load_rows<V, const N: usize>(src: *const u8, cs: isize, row: impl Fn(usize) -> isize) -> [V; N] {
    std::array::from_fn(|j| {
        // SAFETY: row(j)'s bytes are readable (this function's contract); a vector is
        // plain bits, read at any alignment.
        unsafe { src.wrapping_offset(row(j) * cs).cast::<V>().read_unaligned() }
    })
}

/// The output rows of a square: vector `i` to `dst + i·pitch`.
///
/// # Safety
/// Those bytes are writable for every i < N.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn store_rows<V, const N: usize>(dst: *mut u8, pitch: usize, rows: [V; N]) {
    for (i, row) in rows.into_iter().enumerate() {
        // SAFETY: output row i's bytes are writable (this function's contract).
        unsafe { dst.add(i * pitch).cast::<V>().write_unaligned(row) };
    }
}

/// A 16 × 16 square of bytes: input row j (the square's column j) the 16 bytes at
/// `src + j·cs`, output row i (the square's row i) the 16 bytes at `dst + i·pitch`.
/// Four rounds of unpacking pairs 8 apart (bytes, then pairs, quads, octets) leave row i in
/// register i when the input rows are loaded in bit-reversed order.
///
/// # Safety
/// Those bytes are readable and writable; AVX2 is available.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn square_1(src: *const u8, cs: isize, dst: *mut u8, pitch: usize) {
    const REV: [isize; 16] = [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15];
    // SAFETY: the 16 input rows of 16 bytes are readable (the caller's contract).
    let mut x: [__m128i; 16] = unsafe { load_rows(src, cs, |j| REV[j]) };
    x = std::array::from_fn(|j| {
        let (a, b) = (x[j / 2], x[j / 2 + 8]);
        if j % 2 == 0 { _mm_unpacklo_epi8(a, b) } else { _mm_unpackhi_epi8(a, b) }
    });
    x = std::array::from_fn(|j| {
        let (a, b) = (x[j / 2], x[j / 2 + 8]);
        if j % 2 == 0 { _mm_unpacklo_epi16(a, b) } else { _mm_unpackhi_epi16(a, b) }
    });
    x = std::array::from_fn(|j| {
        let (a, b) = (x[j / 2], x[j / 2 + 8]);
        if j % 2 == 0 { _mm_unpacklo_epi32(a, b) } else { _mm_unpackhi_epi32(a, b) }
    });
    x = std::array::from_fn(|j| {
        let (a, b) = (x[j / 2], x[j / 2 + 8]);
        if j % 2 == 0 { _mm_unpacklo_epi64(a, b) } else { _mm_unpackhi_epi64(a, b) }
    });
    // SAFETY: the 16 output rows of 16 bytes are writable (the caller's contract).
    unsafe { store_rows(dst, pitch, x) };
}

/// An 8 × 8 square of 2-byte elements: input row j (the square's column j) the 16 bytes at
/// `src + j·cs`, output row i (the square's row i) the 16 bytes at `dst + i·pitch`.
///
/// # Safety
/// Those bytes are readable and writable; AVX2 is available.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn square_2(src: *const u8, cs: isize, dst: *mut u8, pitch: usize) {
    // SAFETY: the 8 input rows of 16 bytes are readable (the caller's contract).
    let a: [__m128i; 8] = unsafe { load_rows(src, cs, |j| j as isize) };
    let b: [__m128i; 8] = std::array::from_fn(|j| {
        let (x, y) = (a[j / 4 * 4 + j % 2 * 2], a[j / 4 * 4 + j % 2 * 2 + 1]);
        if j % 4 < 2 { _mm_unpacklo_epi16(x, y) } else { _mm_unpackhi_epi16(x, y) }
    });
    // b: (a0 a1) lo, (a2 a3) lo, (a0 a1) hi, (a2 a3) hi, then the same for a4..a7.
    let c: [__m128i; 8] = std::array::from_fn(|j| {
        let (x, y) = (b[j / 4 * 4 + j % 4 / 2 * 2], b[j / 4 * 4 + j % 4 / 2 * 2 + 1]);
        if j % 2 == 0 { _mm_unpacklo_epi32(x, y) } else { _mm_unpackhi_epi32(x, y) }
    });
    // c[j] (j < 4) holds rows 2j, 2j + 1 of columns 0..4; c[4 + j] the same of columns 4..8.
    let rows: [__m128i; 8] = std::array::from_fn(|i| {
        let (x, y) = (c[i / 2], c[4 + i / 2]);
        if i % 2 == 0 { _mm_unpacklo_epi64(x, y) } else { _mm_unpackhi_epi64(x, y) }
    });
    // SAFETY: the 8 output rows of 16 bytes are writable (the caller's contract).
    unsafe { store_rows(dst, pitch, rows) };
}

/// An 8 × 8 square of 4-byte elements, as [`square_2`] with rows of 32 bytes.
///
/// # Safety
/// As [`square_2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn square_4(src: *const u8, cs: isize, dst: *mut u8, pitch: usize) {
    // SAFETY: the 8 input rows of 32 bytes are readable (the caller's contract).
    let v: [__m256; 8] = unsafe { load_rows(src, cs, |j| j as isize) };
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
    let rows = [
        _mm256_permute2f128_ps::<0x20>(s0, s4),
        _mm256_permute2f128_ps::<0x20>(s1, s5),
        _mm256_permute2f128_ps::<0x20>(s2, s6),
        _mm256_permute2f128_ps::<0x20>(s3, s7),
        _mm256_permute2f128_ps::<0x31>(s0, s4),
        _mm256_permute2f128_ps::<0x31>(s1, s5),
        _mm256_permute2f128_ps::<0x31>(s2, s6),
        _mm256_permute2f128_ps::<0x31>(s3, s7),
    ];
    // SAFETY: the 8 output rows of 32 bytes are writable (the caller's contract).
    unsafe { store_rows(dst, pitch, rows) };
}

/// A 4 × 4 square of 8-byte elements, as [`square_2`] with rows of 32 bytes.
///
/// # Safety
/// As [`square_2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn square_8(src: *const u8, cs: isize, dst: *mut u8, pitch: usize) {
    // SAFETY: the 4 input rows of 32 bytes are readable (the caller's contract).
    let v: [__m256d; 4] = unsafe { load_rows(src, cs, |j| j as isize) };
    let t0 = _mm256_unpacklo_pd(v[0], v[1]);
    let t1 = _mm256_unpackhi_pd(v[0], v[1]);
    let t2 = _mm256_unpacklo_pd(v[2], v[3]);
    let t3 = _mm256_unpackhi_pd(v[2], v[3]);
    let rows = [
        _mm256_permute2f128_pd::<0x20>(t0, t2),
        _mm256_permute2f128_pd::<0x20>(t1, t3),
        _mm256_permute2f128_pd::<0x31>(t0, t2),
        _mm256_permute2f128_pd::<0x31>(t1, t3),
    ];
    // SAFETY: the 4 output rows of 32 bytes are writable (the caller's contract).
    unsafe { store_rows(dst, pitch, rows) };
}

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::{
    __m128i, __m256, __m256d, __m256i, _MM_HINT_T1, _mm_prefetch, _mm_unpackhi_epi8, _mm_unpackhi_epi16,
    _mm_unpackhi_epi32, _mm_unpackhi_epi64, _mm_unpacklo_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi32,
    _mm_unpacklo_epi64, _mm256_loadu_si256, _mm256_permute2f128_pd, _mm256_permute2f128_ps, _mm256_permute2x128_si256,
    _mm256_shuffle_ps, _mm256_storeu_si256, _mm256_unpackhi_epi8, _mm256_unpackhi_epi16, _mm256_unpackhi_epi32,
    _mm256_unpackhi_epi64, _mm256_unpackhi_pd, _mm256_unpackhi_ps, _mm256_unpacklo_epi8, _mm256_unpacklo_epi16,
    _mm256_unpacklo_epi32, _mm256_unpacklo_epi64, _mm256_unpacklo_pd, _mm256_unpacklo_ps,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Every width, block shapes with edges smaller than a tile and larger than a tile and
    /// a band, strides of both signs and with gaps, input rows a whole number of lines
    /// apart or not, input and output at line starts or not, output rows a whole number of
    /// lines apart or not, streamed or not: each element from its source address, nothing
    /// else written.
    #[test]
    fn tile_copy_moves_every_element() {
        let shapes = [
            (0, 5),
            (5, 0),
            (1, 1),
            (3, 70),
            (70, 3),
            (17, 9),
            (64, 64),
            (65, 129),
            (130, 300),
            (1100, 20),
            (33, 2),
            (100, 2),
            (9, 7),
        ];
        for w in [1usize, 2, 3, 4, 8, 16] {
            for (rows, cols) in shapes {
                let (ri, ci) = (rows as isize, cols as isize);
                // (rs, cs) in elements: transposed, transposed with input rows a whole number of lines
                // apart, transposed with gaps, reversed, plain.
                let lines = usize::max(rows, 1).next_multiple_of(64) as isize;
                for (rs, cs) in [(1, ri), (1, lines), (2, 2 * ri + 1), (-1, -ri), (ci, 1)] {
                    // (Output rows that follow each other, `ds` = cols: narrow blocks interleave.)
                    for (stream, ds) in
                        [(0, cols + 3), (1, cols + 3), (1, (cols * w).next_multiple_of(64) / w), (0, cols), (1, cols)]
                    {
                        check(w, rows, cols, rs, cs, ds, stream);
                    }
                }
            }
        }
    }

    /// The runs a streamed block's tiles write ([`Block::run`]): over rows that start at
    /// any element of a line and are any number of bytes apart, each row's runs, tile
    /// column by tile column, meet and cover the row once; when the rows realign, every cut
    /// but the row's ends falls on a line; and every run lies within its tile's transposed
    /// columns (else `run` panics).
    #[test]
    fn streamed_runs_cover_each_row_once() {
        fn runs<const W: usize>(cols: usize, ds: isize, lead: usize) -> usize {
            let b = Block {
                dst: std::ptr::null_mut::<u8>().wrapping_add((1 << 30) + lead * W),
                src: std::ptr::null(),
                rows: 5,
                cols,
                rs: W as isize,
                cs: 1 << 12,
                ds,
            };
            let (shape, extra, pitch) = b.run_cuts::<W>(true);
            let realign = extra > 0;
            assert_eq!(realign, ds % LINE as isize != 0);
            let mut realigned = 0;
            for r in 0..b.rows {
                let mut at = 0;
                for (_, c0, rn, cn) in b.tiles(W, shape).filter(|t| t.0 == 0) {
                    let wide = b.transposed_cols::<W>((rn, c0, cn), extra, pitch);
                    assert!(wide * W <= pitch, "W {W} cols {cols} ds {ds}: {wide} columns in a {pitch}-byte row");
                    let (lo, hi) = b.run::<W>(r, c0, cn, wide, realign);
                    assert_eq!(lo, at, "W {W} cols {cols} ds {ds} row {r}: runs do not meet");
                    let end = b.dst_at(r, 0, W) as usize + hi;
                    if realign && hi < cols * W {
                        assert_eq!(end % LINE, 0, "W {W} cols {cols} ds {ds} row {r}: a cut off a line");
                        realigned += 1;
                    }
                    at = hi;
                }
                assert_eq!(at, cols * W, "W {W} cols {cols} ds {ds} row {r}: runs short of the row");
            }
            realigned
        }
        let mut realigned = 0;
        for cols in [1, 7, 63, 64, 65, 200, 257, 1000] {
            for lead in [0, 1, 3, 15] {
                for extra in [0isize, 1, 2, 3, 8, 17, 64] {
                    realigned += runs::<1>(cols, cols as isize + extra, lead);
                    realigned += runs::<2>(cols, (cols as isize + extra) * 2, lead);
                    realigned += runs::<4>(cols, (cols as isize + extra) * 4, lead);
                    realigned += runs::<8>(cols, (cols as isize + extra) * 8, lead);
                    realigned += runs::<16>(cols, (cols as isize + extra) * 16, lead);
                    realigned += runs::<4>(cols, -(cols as isize + extra) * 4, lead);
                }
            }
        }
        assert!(realigned > 1000, "only {realigned} realigned cuts");
    }

    fn check(w: usize, rows: usize, cols: usize, rs: isize, cs: isize, ds: usize, stream: usize) {
        let span = |s: isize, n: usize| s.unsigned_abs() * n.saturating_sub(1);
        let len = (span(rs, rows) + span(cs, cols) + 1) * w;
        let mut src = vec![0u8; len + 128];
        // The element of lowest address is at byte `lo`, a line start or `w` past one.
        let first = (if rs < 0 { span(rs, rows) } else { 0 } + if cs < 0 { span(cs, cols) } else { 0 }) * w;
        for (pad, shift) in [(64, 0), (64 + w, 0), (64, w), (64 + w, w)] {
            let lo = src.as_ptr().align_offset(64) + shift;
            for (k, b) in src[lo..lo + len].iter_mut().enumerate() {
                *b = (k * 7 + 1) as u8;
            }
            let first = lo + first;
            let mut dst = vec![0xeeu8; rows * ds * w + 2 * pad + 64];
            let at = pad + dst.as_ptr().align_offset(64);
            let (rsb, csb, dsb) = (rs * w as isize, cs * w as isize, (ds * w) as isize);
            // SAFETY: every (r, c) reads src[first + r·rsb + c·csb .. + w] inside src (lo + len ≤ src.len()), and writes
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
            assert_eq!(
                dst, want,
                "w {w} rows {rows} cols {cols} rs {rs} cs {cs} ds {ds} stream {stream} pad {pad} shift {shift}"
            );
        }
    }
}
