//! Cache-bypassing output for large outputs: kernels call [`stream_copy`] for long
//! contiguous runs (and for computed runs, staged a chunk at a time through a stack
//! buffer that stays in the L1 cache, or [`stream_stride2`] for long stride-2 runs),
//! [`stream_rows`], [`stream_row_blocks`] and [`stream_table_rows`] for rows gathered from
//! anywhere into one contiguous output, [`stream_interleave`] (the JIT's concat on an
//! inner axis) for rows of equal pieces of several inputs, and [`stream_fill`] for long
//! fills, which write with non-temporal stores: no read of each output cache line before
//! it is written (as ordinary stores do). Cranelift 0.135 has no non-temporal store,
//! hence host functions. Worth it only for outputs much larger than the caches' share of
//! one core (the JIT's `policy::STREAM_MIN_BYTES`); the caller fences ([`fence`]) after a
//! kernel that streams, before the output is read.

use crate::policy::{LINE, ROW_BAND_IN_BYTES, ROW_BAND_OUT_BYTES};

/// Copy `n` bytes from `src` to `dst` (not overlapping), with non-temporal stores from
/// the first aligned byte of `dst` on.
///
/// # Safety
/// `src` and `dst` are valid for `n` bytes and do not overlap.
#[unsafe(export_name = "kerf_rt1_stream_copy")]
pub unsafe extern "C" fn stream_copy(dst: *mut u8, src: *const u8, n: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let avx = crate::avx2();
        let head = dst.align_offset(LINE).min(n);
        let body = (n - head) / 64 * 64;
        // SAFETY: the caller's contract: both ranges hold n bytes and do not overlap;
        // [0, head) and [head + body, n) lie inside them (head + body ≤ n).
        unsafe {
            std::ptr::copy_nonoverlapping(src, dst, head);
            std::ptr::copy_nonoverlapping(src.add(head + body), dst.add(head + body), n - head - body);
        }
        // SAFETY: [head, head + body) lies inside both ranges and dst + head is 64-byte aligned (align_offset;
        // body > 0 only when head < n); the AVX2 copy runs only where AVX2 was detected.
        unsafe {
            if avx {
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

/// Copy `rows` rows of `row` bytes each, row r read at `src + r·stride` (any sign), into
/// the `rows · row` contiguous bytes at `dst`, with non-temporal stores from the first
/// aligned byte of `dst` on: the rows' output is one stream, whatever the rows' length
/// and alignment. Row by row ([`stream_copy`] per row), a row that does not start and end
/// on a line boundary would leave its last and the next row's first line to ordinary
/// stores, which then mix with the streamed ones line by line; here every line but the
/// region's first and last is streamed whole: rows of a line or more line by line
/// straight from the rows (with AVX2), shorter rows staged a `STAGE` at a time through a
/// buffer in the L1 cache. The next row is prefetched while one is copied.
///
/// # Safety
/// Every row r's `row` bytes at `src + r·stride` are readable, the `rows · row` bytes at
/// `dst` writable, and the two do not overlap.
#[unsafe(export_name = "kerf_rt1_stream_rows")]
pub unsafe extern "C" fn stream_rows(dst: *mut u8, src: *const u8, rows: usize, row: usize, stride: isize) {
    // SAFETY: the caller's contract: row r at src + r·stride.
    unsafe { rows_out(dst, rows, row, |r| src.wrapping_offset(r as isize * stride), wide()) }
}

/// [`stream_rows`] for `outer` such blocks, one after another in the output (block j's
/// `rows · row` bytes at `dst + j·rows·row`, its row r read at `src + j·outer_stride +
/// r·stride`), visited in bands of rows: rows `[r0, r0 + band)` of every block, then the
/// next band. When the blocks' rows lie side by side in the input (an attention head
/// split: the heads of one position next to each other, `outer · |outer_stride| ≤
/// |stride|`: the JIT's `policy::row_blocks`), a band reads one dense stretch of the
/// input front to back, where block by block reads the whole input once per block, a row
/// a page apart; the output goes out as runs of a band's rows per block. See
/// [`ROW_BAND_OUT_BYTES`] for the band and its measurement.
///
/// # Safety
/// Every block j's row r (`j < outer`, `r < rows`): its `row` bytes at `src +
/// j·outer_stride + r·stride` are readable; the `outer · rows · row` bytes at `dst`
/// writable; the two do not overlap.
#[unsafe(export_name = "kerf_rt1_stream_row_blocks")]
pub unsafe extern "C" fn stream_row_blocks(
    dst: *mut u8,
    src: *const u8,
    outer: usize,
    outer_stride: isize,
    rows: usize,
    row: usize,
    stride: isize,
) {
    if row == 0 || rows == 0 {
        return;
    }
    let band = row_band(rows, row, stride);
    let wide = wide();
    let mut r0 = 0;
    while r0 < rows {
        let n = band.min(rows - r0);
        for j in 0..outer {
            let first = src.wrapping_offset(j as isize * outer_stride).wrapping_offset(r0 as isize * stride);
            // SAFETY: the caller's contract: block j's rows r0..r0 + n ≤ rows are readable at first +
            // r·stride; their n·row bytes at dst + (j·rows + r0)·row lie in the outer·rows·row writable.
            unsafe {
                rows_out(dst.add((j * rows + r0) * row), n, row, |r| first.wrapping_offset(r as isize * stride), wide)
            }
        }
        r0 += n;
    }
}

/// The rows of a band of [`stream_row_blocks`]: [`ROW_BAND_OUT_BYTES`] of each block's
/// output, and no more than [`ROW_BAND_IN_BYTES`] of input spanned; one at least.
fn row_band(rows: usize, row: usize, stride: isize) -> usize {
    (ROW_BAND_OUT_BYTES / row).min(ROW_BAND_IN_BYTES / stride.unsigned_abs().max(1)).clamp(1, rows)
}

/// [`stream_rows`] for rows read through a table (a gather's: an embedding lookup): row r
/// at `src + table[r]·scale`.
///
/// # Safety
/// `table` holds `rows` entries; every row r's `row` bytes at `src + table[r]·scale` are
/// readable, the `rows · row` bytes at `dst` writable, and the two do not overlap.
#[unsafe(export_name = "kerf_rt1_stream_table_rows")]
pub unsafe extern "C" fn stream_table_rows(
    dst: *mut u8,
    src: *const u8,
    rows: usize,
    row: usize,
    table: *const i64,
    scale: isize,
) {
    // SAFETY: the caller's contract: `table` holds `rows` entries, and row r is at
    // src + table[r]·scale.
    unsafe { rows_out(dst, rows, row, |r| src.wrapping_offset(*table.add(r) as isize * scale), wide()) }
}

/// An interleave of equal pieces (a concat on an inner axis of inputs of one shape): the
/// output is `rows` rows, each the next `piece` bytes of every input in turn — piece k of
/// the output is piece k / n of input k mod n (n = `inputs.len()`) — streamed as
/// [`stream_rows`] streams its rows: every whole output line straight from its pieces
/// (with AVX2, pieces of a line or more), no staging pass.
///
/// # Safety
/// Every input holds `rows · piece` readable bytes, the `rows · piece · inputs.len()`
/// bytes at `dst` are writable, and the two do not overlap.
pub unsafe fn stream_interleave(dst: *mut u8, inputs: &[*const u8], rows: usize, piece: usize) {
    let n = inputs.len();
    if n == 0 {
        return;
    }
    // SAFETY: the caller's contract: piece k lies in input k mod n at (k / n)·piece, and
    // k / n < rows for every k < rows · n.
    unsafe { rows_out(dst, rows * n, piece, |k| inputs[k % n].wrapping_add(k / n * piece), wide()) }
}

/// The body of [`stream_rows`], [`stream_row_blocks`], [`stream_table_rows`] and
/// [`stream_interleave`]: `rows` rows of `row` bytes, row r's first byte at `at(r)`, to
/// the contiguous bytes at `dst`; with `wide` the AVX2 paths (a parameter, so that tests
/// run both on one machine).
///
/// # Safety
/// Every row r's `row` bytes at `at(r)` are readable, the `rows · row` bytes at `dst`
/// writable, and the two do not overlap; `wide` only where AVX2 is available.
#[inline(always)]
unsafe fn rows_out(dst: *mut u8, rows: usize, row: usize, at: impl Fn(usize) -> *const u8, wide: bool) {
    if row == 0 || rows == 0 {
        return;
    }
    let total = rows * row;
    #[cfg(not(target_arch = "x86_64"))]
    let _ = wide;
    // Output bytes [from, to) (inside [0, total)) from their rows, to `out`.
    let gather = |from: usize, to: usize, out: *mut u8| {
        // The rows' bytes read below are [from, to) of the output's: inside every row.
        assert!(from <= to && to <= total, "stream rows: output bytes {from}..{to} of {total}");
        let mut p = from;
        while p < to {
            let end = ((p / row + 1) * row).min(to);
            if p.is_multiple_of(row) && p / row + 1 < rows {
                prefetch(at(p / row + 1), row);
            }
            // SAFETY: bytes [p, end) lie in row p / row < rows (to ≤ total, asserted), which
            // the caller's contract makes readable; every call below passes an `out` that
            // holds `to - from` bytes (dst's range past `from`, or the stage of STAGE ≥ n
            // bytes), apart from the rows.
            unsafe { std::ptr::copy_nonoverlapping(at(p / row).add(p % row), out.add(p - from), end - p) };
            p = end;
        }
    };
    let head = dst.align_offset(LINE).min(total);
    #[cfg(target_arch = "x86_64")]
    if row >= LINE && wide {
        gather(0, head, dst);
        // SAFETY: the caller's contract; dst + head is line-aligned (align_offset, or
        // head = total and no line is left) and head < LINE ≤ row; `wide` only with AVX2.
        let done = unsafe { lines_avx2(dst, head, total, row, &at) };
        // SAFETY: done ≤ total: [done, total) lies inside dst's range.
        gather(done, total, unsafe { dst.add(done) });
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if head == 0 && row.is_multiple_of(LINE) {
        // SAFETY: the caller's contract; dst is line-aligned and row a multiple of LINE.
        unsafe { whole_lines_sse2(dst, rows, row, &at) };
        return;
    }
    if row > STAGE_ROWS_MAX_BYTES {
        // Long rows: a line at each end through the cache costs less than staging all.
        for r in 0..rows {
            if r + 1 < rows {
                prefetch(at(r + 1), row);
            }
            // SAFETY: row r lies inside both ranges (the caller's contract).
            unsafe { stream_copy(dst.add(r * row), at(r), row) };
        }
        return;
    }
    gather(0, head, dst);
    #[repr(align(64))]
    struct Stage {
        _bytes: [u8; STAGE],
    }
    let mut stage = std::mem::MaybeUninit::<Stage>::uninit();
    let buf = stage.as_mut_ptr() as *mut u8;
    let mut done = head;
    while total - done >= LINE {
        let n = ((total - done) / LINE * LINE).min(STAGE);
        gather(done, done + n, buf);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: buf holds n ≤ STAGE bytes just written; [done, done + n) lies inside
        // dst's range (done + n ≤ total) and dst + done is line-aligned (done − head is a
        // multiple of LINE, n too); `wide` only with AVX2.
        unsafe {
            if wide { copy_body_avx2(dst.add(done), buf, n) } else { copy_body_sse2(dst.add(done), buf, n) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        // SAFETY: buf holds n bytes just written; [done, done + n) lies inside dst's range.
        unsafe {
            std::ptr::copy_nonoverlapping(buf, dst.add(done), n)
        }
        done += n;
    }
    // SAFETY: [done, total) lies inside dst's range.
    gather(done, total, unsafe { dst.add(done) });
}

/// Whether the AVX2 paths run ([`crate::avx2`]; never off x86-64).
fn wide() -> bool {
    #[cfg(target_arch = "x86_64")]
    return crate::avx2();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Ask for the `n` bytes at `p` to be brought into the cache, a line at a time (on
/// x86-64; elsewhere nothing). A prefetch reads nothing the program sees and never
/// faults, so any address is sound.
#[inline(always)]
fn prefetch(p: *const u8, n: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let mut k = 0;
        while k < n {
            // SAFETY: a prefetch is a hint: it neither faults nor changes what the program reads.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(k) as *const i8) };
            k += LINE;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (p, n);
}

/// Bytes [`stream_rows`] stages at a time: a page, in the L1 cache with room to spare.
const STAGE: usize = 4096;

/// Rows longer than this go out one [`stream_copy`] each on the baseline path rather
/// than staged: measured on the project's AVX2 host before the AVX2 line path (an output
/// 16 bytes past a line), staging won from 128 to 1,024 bytes (1.16 × memcpy's time
/// against 1.96 × at 128, 1.07 × against 1.46 × at 1,024) and lost above (GA1's rows of
/// 3,072 bytes: 1.40–1.60 × staged against 1.16–1.35 × row by row).
const STAGE_ROWS_MAX_BYTES: usize = 1024;

/// [`rows_out`]'s output lines from `dst + head` on, for rows of at least a line, with
/// AVX2: each whole output line is streamed straight from its rows — two unaligned loads
/// when it lies in one row; when it straddles rows r and r + 1, the 64 bytes that end row r
/// and the 64 that start row r + 1 go to a stack buffer and the line is loaded from there
/// (a row ≥ 64 bytes holds both) — while the next row is prefetched, line by line: the
/// rows lie anywhere (a transpose's rows a page apart, a gather's at random), where the
/// hardware prefetchers do not follow. Measured on the project's AVX2 host, quiet, `kerf
/// bench` of TR3 (256-byte rows 4 KiB apart), three binaries interleaved, four rounds of
/// 51: 1.06–1.22 × memcpy (medians) with the prefetch, 1.09–1.41 × without it, 1.15–1.25 ×
/// staged (the previous path); a stand-alone loop of this function alone disagreed
/// (faster without the prefetch), so the kernel's own figure decided. No staging pass,
/// whatever `dst`'s alignment (a buffer from malloc is 16 bytes off a line). Returns the
/// output offset where the whole lines end (the rest, under a line, is the caller's).
///
/// # Safety
/// `dst + head` is 64-byte aligned or `head` = `total`; `head < 64 ≤ row`; `total` =
/// rows · `row` with rows ≥ 1; every row r's `row` bytes at `at(r)` are readable, the `total` bytes at
/// `dst` writable, apart from the rows; AVX2 is available.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn lines_avx2(dst: *mut u8, head: usize, total: usize, row: usize, at: &impl Fn(usize) -> *const u8) -> usize {
    use std::arch::x86_64::{
        __m256i, _MM_HINT_T0, _mm_prefetch, _mm256_loadu_si256, _mm256_storeu_si256, _mm256_stream_si256,
    };
    let rows = total / row;
    let (mut p, mut r, mut off) = (head, 0, head);
    let row_at = |r: usize| if r < rows { at(r) } else { at(rows - 1) };
    let (mut src, mut next) = (row_at(0), row_at(1));
    let mut pair_bytes = [0u8; 2 * LINE];
    let pair = pair_bytes.as_mut_ptr();
    while total - p >= LINE {
        // SAFETY: (the whole block) p + 64 ≤ total and dst + p is line-aligned (head is,
        // p − head a multiple of 64). Row r < rows holds [off, row); a line inside it reads
        // [off, off + 64) ⊆ [0, row); a straddling line reads row r's last 64 bytes and row
        // r + 1's first 64 (r + 1 < rows, as p + 64 ≤ total; both rows ≥ 64 bytes) into
        // `pair` (128 bytes), and its 64 bytes from pair + 64 − (row − off) ∈ [0, 64].
        // A prefetch reads nothing the program sees.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(next.wrapping_add(off) as *const i8);
            let line = if off + LINE <= row {
                src.add(off)
            } else {
                let end = _mm256_loadu_si256(src.add(row - LINE) as *const __m256i);
                let end2 = _mm256_loadu_si256(src.add(row - LINE + 32) as *const __m256i);
                _mm256_storeu_si256(pair as *mut __m256i, end);
                _mm256_storeu_si256(pair.add(32) as *mut __m256i, end2);
                let start = _mm256_loadu_si256(next as *const __m256i);
                let start2 = _mm256_loadu_si256(next.add(32) as *const __m256i);
                _mm256_storeu_si256(pair.add(LINE) as *mut __m256i, start);
                _mm256_storeu_si256(pair.add(LINE + 32) as *mut __m256i, start2);
                pair.add(LINE - (row - off))
            };
            let x = _mm256_loadu_si256(line as *const __m256i);
            let y = _mm256_loadu_si256(line.add(32) as *const __m256i);
            _mm256_stream_si256(dst.add(p) as *mut __m256i, x);
            _mm256_stream_si256(dst.add(p + 32) as *mut __m256i, y);
        }
        p += LINE;
        off += LINE;
        if off >= row {
            off -= row;
            r += 1;
            (src, next) = (next, row_at(r + 1));
        }
    }
    p
}

/// [`rows_out`]'s rows on the baseline path (SSE2, every x86-64) when each is whole
/// output lines: row by row, streamed, while the next row is prefetched.
///
/// # Safety
/// `dst` is 64-byte aligned, `row` a multiple of 64; every row r's `row` bytes at
/// `at(r)` are readable, the `rows · row` bytes at `dst` writable, apart from the rows.
#[cfg(target_arch = "x86_64")]
unsafe fn whole_lines_sse2(dst: *mut u8, rows: usize, row: usize, at: &impl Fn(usize) -> *const u8) {
    for r in 0..rows {
        let (src, out) = (at(r), dst.wrapping_add(r * row));
        let next = if r + 1 < rows { at(r + 1) } else { src };
        prefetch(next, row);
        // SAFETY: row r of both ranges (the caller's contract); out is 64-byte aligned
        // and row a multiple of 64.
        unsafe { copy_body_sse2(out, src, row) };
    }
}

/// # Safety
/// `dst` is 32-byte aligned; both ranges hold `n` bytes, a multiple of 64; AVX2 is
/// available.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn copy_body_avx2(dst: *mut u8, src: *const u8, n: usize) {
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
#[unsafe(export_name = "kerf_rt1_stream_fill")]
pub unsafe extern "C" fn stream_fill(dst: *mut u8, n: usize, lo: u64, hi: u64) {
    let mut pattern = [0u8; 16];
    pattern[..8].copy_from_slice(&lo.to_le_bytes());
    pattern[8..].copy_from_slice(&hi.to_le_bytes());
    let head = dst.align_offset(LINE).min(n);
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
    // SAFETY: [head, head + body) lies inside [0, n) and dst + head is 64-byte aligned (align_offset;
    // body > 0 only when head < n); the AVX2 fill runs only where AVX2 was detected.
    unsafe {
        if crate::avx2() {
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

/// `n` f32 values `start + coef·j` (j from 0, f32 bits) at `dst`, with non-temporal
/// stores for whole cache lines. The caller vouches that every value is exact (as the
/// schedule's `LinspaceF32Exact` guarantees): then adding `coef·16` (exact) to an exact
/// value gives the next value exactly, so vectors step by sums.
///
/// # Safety
/// `dst` is valid for `4n` bytes.
#[unsafe(export_name = "kerf_rt1_stream_linspace")]
pub unsafe extern "C" fn stream_linspace(dst: *mut u8, n: usize, start: u64, coef: u64) {
    let (start, coef) = (f32::from_bits(start as u32), f32::from_bits(coef as u32));
    let put = |range: std::ops::Range<usize>| {
        for j in range {
            let v = start + coef * j as f32;
            // SAFETY: j < n, and dst is valid for 4n bytes (unaligned writes).
            unsafe { (dst as *mut f32).add(j).write_unaligned(v) };
        }
    };
    let head_bytes = dst.align_offset(LINE);
    #[cfg(target_arch = "x86_64")]
    if head_bytes.is_multiple_of(4) && crate::avx2() {
        let head = (head_bytes / 4).min(n);
        let body = (n - head) / 16 * 16;
        put(0..head);
        // SAFETY: [head, head + body) lies inside [0, n) and dst + 4·head is 64-byte aligned (align_offset in
        // whole elements, checked above; body > 0 only when head < n); AVX2 was detected.
        unsafe { linspace_body_avx2(dst.add(4 * head) as *mut f32, body, start + coef * head as f32, coef) };
        put(head + body..n);
        return;
    }
    put(0..n);
}

/// # Safety
/// `dst` is 64-byte aligned and valid for `n` f32 values, `n` a multiple of 16; AVX2 is
/// available; the values are exact (see [`stream_linspace`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn linspace_body_avx2(dst: *mut f32, n: usize, start: f32, coef: f32) {
    use std::arch::x86_64::{_mm256_add_ps, _mm256_set1_ps, _mm256_setr_ps, _mm256_stream_ps};
    let at = |j: usize| start + coef * j as f32;
    let mut v = _mm256_setr_ps(at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7));
    let mut w = _mm256_setr_ps(at(8), at(9), at(10), at(11), at(12), at(13), at(14), at(15));
    let step = _mm256_set1_ps(coef * 16.0);
    let mut j = 0;
    while j < n {
        // SAFETY: j + 16 ≤ n; dst + j is 64-byte aligned.
        unsafe {
            _mm256_stream_ps(dst.add(j), v);
            _mm256_stream_ps(dst.add(j + 8), w);
        }
        v = _mm256_add_ps(v, step);
        w = _mm256_add_ps(w, step);
        j += 16;
    }
}

/// The element widths [`stream_stride2`] has an AVX2 path for (others take the portable
/// one; see the JIT's `policy::stride2_streams`).
pub const STRIDE2_WIDTHS: [usize; 3] = [2, 4, 8];

/// Write `n` elements of `w` bytes (1 to 16) read every other element from `src`
/// (element j at `src + 2·j·w`) to `dst`, whole output lines with non-temporal stores.
/// Reads stay inside `[src, src + (2n − 1)·w)`: the vector loads read the skipped
/// elements between the ones kept, never one past the last kept.
///
/// # Safety
/// `src` is valid for reads of `(2n − 1)·w` bytes when n > 0, `dst` for writes of `n·w`
/// bytes; the two do not overlap.
#[unsafe(export_name = "kerf_rt1_stream_stride2")]
pub unsafe extern "C" fn stream_stride2(dst: *mut u8, src: *const u8, n: usize, w: usize) {
    if n == 0 || !(1..=16).contains(&w) {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    {
        let one = |j: usize| {
            debug_assert!(j < n);
            // SAFETY: called for j < n only (the head and tail below), so the w bytes at
            // src + 2jw and at dst + jw lie inside the caller's ranges.
            unsafe { std::ptr::copy_nonoverlapping(src.add(2 * j * w), dst.add(j * w), w) }
        };
        let head_bytes = dst.align_offset(LINE);
        if STRIDE2_WIDTHS.contains(&w) && head_bytes.is_multiple_of(w) && crate::avx2() {
            let per = LINE / w;
            let head = (head_bytes / w).min(n);
            let lines = (n - head) / per;
            (0..head).for_each(one);
            // SAFETY: elements [head, head + lines·per) lie inside [0, n), dst + head·w is
            // 64-byte aligned (align_offset in whole elements, checked above; lines > 0 only
            // when head < n), src holds their reads up to element 2(n − 1) (the body reads
            // no further, see stride2_body_avx2); w is 2, 4 or 8 and AVX2 was detected.
            unsafe {
                let (d, s) = (dst.add(head * w), src.add(2 * head * w));
                match w {
                    2 => stride2_body_avx2::<2>(d, s, lines, n - head),
                    4 => stride2_body_avx2::<4>(d, s, lines, n - head),
                    _ => stride2_body_avx2::<8>(d, s, lines, n - head),
                }
            };
            (head + lines * per..n).for_each(one);
            return;
        }
    }
    // Elsewhere: staged a chunk at a time through a buffer in the L1 cache.
    let mut buf = [0u8; crate::policy::STREAM_CHUNK as usize];
    let chunk = buf.len() / w;
    let mut at = 0;
    while at < n {
        let k = chunk.min(n - at);
        for j in 0..k {
            // SAFETY: at + j < n (source inside the caller's range) and (j + 1)·w ≤ k·w ≤ the buffer's length.
            unsafe { std::ptr::copy_nonoverlapping(src.add(2 * (at + j) * w), buf.as_mut_ptr().add(j * w), w) };
        }
        // SAFETY: [at·w, (at + k)·w) lies inside dst's n·w bytes; the buffer holds k·w bytes
        // and is not part of dst.
        unsafe { stream_copy(dst.add(at * w), buf.as_ptr(), k * w) };
        at += k;
    }
}

/// `lines` output lines of `W`-byte elements (64/W each) at `dst` from every other
/// element at `src`, where `avail` elements (≥ lines·64/W) may be kept: a line reads
/// 128 bytes, the last of its elements skipped, so a line ending at element `avail` would
/// read past the last kept one; that line is read from a copy of its 128 − W bytes.
///
/// # Safety
/// `dst` is 64-byte aligned and valid for `lines·64` bytes; `src` is valid for reads of
/// `(2·avail − 1)·W` bytes; W is 2, 4 or 8; AVX2 is available.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn stride2_body_avx2<const W: usize>(dst: *mut u8, src: *const u8, lines: usize, avail: usize) {
    let per = LINE / W;
    for k in 0..lines {
        let (d, s) = (k * LINE, 2 * k * LINE);
        if (k + 1) * per < avail {
            // SAFETY: the line reads 2·per elements from element 2k·per, the last one
            // 2(k + 1)·per − 1 ≤ 2·avail − 2 (checked above); dst + d is 64-byte aligned.
            unsafe { stride2_line_avx2::<W>(dst.add(d), src.add(s)) };
        } else {
            let mut last = [0u8; 2 * LINE];
            // SAFETY: the 128 − W bytes from s end at (2·avail − 1)·W (this is the last line,
            // (k + 1)·per = avail); the copy reads the buffer's bytes, which all exist.
            unsafe {
                std::ptr::copy_nonoverlapping(src.add(s), last.as_mut_ptr(), 2 * LINE - W);
                stride2_line_avx2::<W>(dst.add(d), last.as_ptr());
            }
        }
    }
}

/// One output line (64 bytes at 64-byte aligned `dst`) of every other `W`-byte element of
/// the 128 bytes at `src`: two 32-byte loads per output vector, the even elements of each
/// 128-bit lane packed (shuffle, unpack or pack), then the lanes' halves put in order.
///
/// # Safety
/// `dst` is 64-byte aligned and valid for 64 bytes, `src` for reads of 128; W is 2, 4 or
/// 8; AVX2 is available.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn stride2_line_avx2<const W: usize>(dst: *mut u8, src: *const u8) {
    use std::arch::x86_64::*;
    for half in 0..2 {
        // SAFETY: src holds 128 bytes: these are the 64 at 64·half.
        let (a, b) = unsafe {
            let s = src.add(64 * half);
            (_mm256_loadu_si256(s as *const __m256i), _mm256_loadu_si256(s.add(32) as *const __m256i))
        };
        let packed = match W {
            2 => {
                let low = _mm256_set1_epi32(0xffff);
                _mm256_packus_epi32(_mm256_and_si256(a, low), _mm256_and_si256(b, low))
            }
            4 => _mm256_castps_si256(_mm256_shuffle_ps::<0x88>(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b))),
            _ => _mm256_unpacklo_epi64(a, b),
        };
        // SAFETY: dst + 32·half is 32-byte aligned and inside dst's 64 bytes.
        unsafe { _mm256_stream_si256(dst.add(32 * half) as *mut __m256i, _mm256_permute4x64_epi64::<0xD8>(packed)) };
    }
}

/// Order the non-temporal stores of this thread before what follows (their data is then
/// visible to every thread like ordinary stores).
#[unsafe(export_name = "kerf_rt1_fence")]
pub extern "C" fn fence() {
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
            if avx && !std::arch::is_x86_feature_detected!("avx2") {
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

    /// Exact linspaces: every start alignment (whole elements or not) and a range of
    /// lengths, each value `start + coef·j`, nothing written outside.
    #[test]
    fn stream_linspace_writes_every_value() {
        for (start, coef) in [(0.0f32, 1.0f32), (-3.0, 4096.0), (0.5, 0.25)] {
            for at in 0..70 {
                for n in [0, 1, 15, 16, 17, 100, 1000, 1037] {
                    let mut buf = vec![0xeeu8; at + 4 * n + 8];
                    // SAFETY: [at, at + 4n) lies inside buf.
                    unsafe {
                        stream_linspace(buf.as_mut_ptr().add(at), n, start.to_bits() as u64, coef.to_bits() as u64)
                    };
                    fence();
                    for j in 0..n {
                        let got = f32::from_le_bytes(buf[at + 4 * j..at + 4 * j + 4].try_into().unwrap());
                        assert_eq!(got, start + coef * j as f32, "at {at} n {n} j {j}");
                    }
                    assert!(buf[..at].iter().chain(&buf[at + 4 * n..]).all(|&b| b == 0xee));
                }
            }
        }
    }

    /// Every width, lengths 0 to 70 and a few long ones, source and destination at every
    /// offset mod 32 (aligned to the element and not): every other element, nothing written
    /// outside. Reads past the last kept element are caught by the guard-page suite.
    #[test]
    fn stream_stride2_keeps_every_other_element() {
        let src: Vec<u8> = (0..2 * 5000 * 16 + 64).map(|k: u32| (k * 7 + 3) as u8).collect();
        let lengths: Vec<usize> = (0..=70).chain([127, 128, 129, 1000, 1024, 1031, 4099]).collect();
        for w in [1, 2, 4, 8, 16] {
            for s_at in 0..32 {
                for d_at in 0..32 {
                    for &n in &lengths {
                        if (s_at + d_at) % 7 != 0 && n > 70 {
                            continue; // long runs at a seventh of the offset pairs
                        }
                        let mut buf = vec![0xeeu8; d_at + n * w + 32];
                        // SAFETY: src holds (2n − 1)·w bytes from s_at, buf n·w from d_at.
                        unsafe { stream_stride2(buf.as_mut_ptr().add(d_at), src.as_ptr().add(s_at), n, w) };
                        fence();
                        for j in 0..n {
                            let (got, want) = (&buf[d_at + j * w..][..w], &src[s_at + 2 * j * w..][..w]);
                            assert_eq!(got, want, "w {w} src +{s_at} dst +{d_at} n {n} element {j}");
                        }
                        assert!(buf[..d_at].iter().chain(&buf[d_at + n * w..]).all(|&b| b == 0xee));
                    }
                }
            }
        }
    }

    /// Rows of any length, alignment and stride (negative and zero too) go out exactly,
    /// and nothing around them is touched.
    #[test]
    fn stream_rows_copies_exactly() {
        let src: Vec<u8> = (0..40000u32).map(|k| (k * 7 + 3) as u8).collect();
        for wide in [false, wide()] {
            for start in [0, 1, 16, 48, 63] {
                for (rows, row, stride) in [
                    (0usize, 64usize, 64isize),
                    (3, 0, 5),
                    (1, 7, 0),
                    (1, 64, 0),
                    (1, 100, 0),
                    (5, 64, 256),
                    (7, 100, 300),
                    (9, 256, -300),
                    (4, 33, 0),
                    (70, 256, 260),
                    (40, 65, 1000),
                    (33, 127, -129),
                    (12, 3072, 3080),
                ] {
                    let total = rows * row;
                    let mut buf = vec![0xeeu8; 64 + start + total + 80];
                    // `start` bytes past a line boundary.
                    let at0 = buf.as_ptr().align_offset(64) + start;
                    let base = if stride < 0 { (rows.max(1) - 1) * stride.unsigned_abs() } else { 0 };
                    let at = |r: usize, c: usize| src[(base as isize + r as isize * stride) as usize + c];
                    // SAFETY: every row lies inside src (base makes negative strides start
                    // high), [at0, at0 + total) inside buf, and the two are apart; `wide` only
                    // with AVX2.
                    unsafe {
                        rows_out(
                            buf.as_mut_ptr().add(at0),
                            rows,
                            row,
                            |r| src.as_ptr().add(base).wrapping_offset(r as isize * stride),
                            wide,
                        )
                    };
                    fence();
                    let want: Vec<u8> =
                        (0..rows).flat_map(|r| (0..row).map(move |c| (r, c))).map(|(r, c)| at(r, c)).collect();
                    let what = format!("wide {wide} start {start} rows {rows} row {row} stride {stride}");
                    assert_eq!(&buf[at0..at0 + total], &want[..], "{what}");
                    assert!(buf[..at0].iter().chain(&buf[at0 + total..]).all(|&b| b == 0xee), "{what}");
                }
            }
        }
    }

    /// Blocks of rows go out exactly in bands: one band, several with a short last one
    /// (3 KiB rows: two a band; rows far apart: three a band), negative strides, rows
    /// shorter than a line, no block.
    #[test]
    fn stream_row_blocks_copies_exactly() {
        let src: Vec<u8> = (0..400_000u32).map(|k| (k * 7 + 3) as u8).collect();
        assert_eq!(
            [row_band(7, 256, 768), row_band(5, 3072, 12288), row_band(9, 100, 40000), row_band(130, 64, 320)],
            [7, 2, 3, 128]
        );
        for start in [0, 16, 63] {
            for (outer, outer_stride, rows, row, stride) in [
                (3usize, 256isize, 7usize, 256usize, 768isize),
                (4, 3072, 5, 3072, 12288),
                (2, -100, 9, 100, 40000),
                (5, 64, 130, 64, 320),
                (3, 7, 4, 7, -50),
                (0, 64, 4, 64, 64),
                (2, 64, 0, 64, 64),
            ] {
                let total = outer * rows * row;
                let mut buf = vec![0xeeu8; 64 + start + total + 80];
                let at0 = buf.as_ptr().align_offset(64) + start;
                // The lowest and highest offsets rows start at: every row lies inside src.
                let reach = |n: usize, s: isize| (n.max(1) - 1) as isize * s;
                let base = -(reach(outer, outer_stride).min(0) + reach(rows, stride).min(0));
                let top = base + reach(outer, outer_stride).max(0) + reach(rows, stride).max(0) + row as isize;
                assert!(top as usize <= src.len(), "the case's rows reach past src");
                let at = |j: usize, r: usize, c: usize| {
                    src[(base + j as isize * outer_stride + r as isize * stride) as usize + c]
                };
                // SAFETY: every row lies in src[base.. top] (asserted), [at0, at0 + total) inside buf
                // (64 + start + total + 80 bytes, at0 < 64 + start), and the two are apart.
                unsafe {
                    stream_row_blocks(
                        buf.as_mut_ptr().add(at0),
                        src.as_ptr().offset(base),
                        outer,
                        outer_stride,
                        rows,
                        row,
                        stride,
                    )
                };
                fence();
                let want: Vec<u8> = (0..outer)
                    .flat_map(|j| (0..rows).flat_map(move |r| (0..row).map(move |c| (j, r, c))))
                    .map(|(j, r, c)| at(j, r, c))
                    .collect();
                let what = format!("start {start} outer {outer} rows {rows} row {row} stride {stride}");
                assert_eq!(&buf[at0..at0 + total], &want[..], "{what}");
                assert!(buf[..at0].iter().chain(&buf[at0 + total..]).all(|&b| b == 0xee), "{what}");
            }
        }
    }

    /// Rows through a table (repeated, out of order) go out exactly.
    #[test]
    fn stream_table_rows_copies_exactly() {
        let src: Vec<u8> = (0..20000u32).map(|k| (k * 7 + 3) as u8).collect();
        let table: Vec<i64> = vec![5, 0, 5, 17, 2, 9, 9, 30, 1];
        for start in [0, 1, 16, 63] {
            for (row, scale) in [(64usize, 64isize), (100, 101), (256, 300), (3, 4)] {
                let total = table.len() * row;
                let mut buf = vec![0xeeu8; 64 + start + total + 80];
                let at0 = buf.as_ptr().align_offset(64) + start;
                // SAFETY: every row (entry · scale + row ≤ 30 · 301 + 256 < 20000) lies inside
                // src, [at0, at0 + total) inside buf, apart.
                unsafe {
                    stream_table_rows(buf.as_mut_ptr().add(at0), src.as_ptr(), table.len(), row, table.as_ptr(), scale)
                };
                fence();
                let want: Vec<u8> = table
                    .iter()
                    .flat_map(|&t| (0..row).map(move |c| (t as isize * scale) as usize + c))
                    .map(|i| src[i])
                    .collect();
                assert_eq!(&buf[at0..at0 + total], &want[..], "start {start} row {row} scale {scale}");
                assert!(buf[..at0].iter().chain(&buf[at0 + total..]).all(|&b| b == 0xee));
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
