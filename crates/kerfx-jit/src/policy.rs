//! Policy: every threshold and heuristic the JIT decides by, in one place, each with the
//! measurement or the reason behind it. The emitters ask here; no number below is
//! written anywhere else.

use kerfx_ir::dtype::Layout;
use kerfx_ir::schedule::{Dim, FillBody, FillNest, Indexing, LoopNest, Run, Segment};

// ----- emitted runs ---------------------------------------------------------------------

/// Copies of at least this many bytes call memcpy, and fills of one repeated byte of at
/// least this many call memset; shorter ones are inline vector loops, which save the
/// call and glibc's size dispatch. The value dates from the C1 compile-latency work; its
/// run-time crossover has not been measured separately.
pub(crate) const CALL_MIN_BYTES: u64 = 256;

/// Runs of known length up to this many bytes (copies, fills, broadcasts) are emitted as
/// straight-line loads and stores: four 16-byte vectors at most, so that the code stays
/// small (compile time grows with it) while no loop is needed.
pub(crate) const STRAIGHT_MAX_BYTES: u64 = 64;

/// Reversed runs of known length up to this many bytes are straight-line code (16 shuffled
/// vectors at most), and so are not staged for streaming (see [`stages`]).
pub(crate) const REVERSE_STRAIGHT_MAX_BYTES: u64 = 256;

/// How an innermost run is moved (see [`lowering`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lowering {
    /// Straight-line loads and stores (a known length; none for 0 bytes).
    Straight,
    /// One call: memcpy, memset, or a streaming host function.
    Call,
    /// An emitted loop.
    Loop,
    /// A length known at run time only: a call from [`CALL_MIN_BYTES`] up, else a loop
    /// (one branch).
    ByLength,
}

/// The one table from a run's kind and length to its lowering, which the emitters
/// ([`crate::runs`]: `copy_bytes`, `fill_bytes`, `reverse`) and [`row_kernel`] both read.
/// `known`: the run's bytes when known at compile time; `memset`: whether a fill is of one
/// repeated byte (or written with streaming stores), so that a long one is a call.
/// Broadcasts are fills of a loaded element, never one call; strided runs always loop
/// (staged or not, see [`stages`]).
pub(crate) fn lowering(run: Run, known: Option<u64>, memset: bool) -> Lowering {
    let sized = |call: bool| match known {
        Some(k) if k <= STRAIGHT_MAX_BYTES => Lowering::Straight,
        Some(k) if call && k >= CALL_MIN_BYTES => Lowering::Call,
        Some(_) => Lowering::Loop,
        None if call => Lowering::ByLength,
        None => Lowering::Loop,
    };
    match run {
        Run::Copy => sized(true),
        Run::Fill => sized(memset),
        Run::Broadcast => sized(false),
        Run::Reverse if known.is_some_and(|k| k <= REVERSE_STRAIGHT_MAX_BYTES) => Lowering::Straight,
        Run::Reverse | Run::Strided(_) => Lowering::Loop,
    }
}

// ----- tiled blocks ---------------------------------------------------------------------

// The tile copy's own sizes (TILE_ROWS, TILE_ROW_BYTES, TILE_BAND_BYTES), the streamed
// chunk (STREAM_CHUNK) and the repeat's chunk (REPEAT_CHUNK) are the runtime's, measured
// there: kerfx_rt::policy.
pub(crate) use kerfx_rt::policy::STREAM_CHUNK;

/// An innermost dim tiles only when its input stride is at least this many bytes (every
/// element on a cache line of its own: a plain row reads one element per line) ... (this
/// and the next two are reasoned from the cache geometry, not measured)
pub(crate) const TILE_MIN_STRIDE_BYTES: u64 = 64;

/// ... the dim outside it reads with a stride of at most this many bytes (at least four
/// rows share every line the block reads, which the tile then reads once) ...
pub(crate) const TILE_MAX_ROW_STRIDE_BYTES: u64 = 16;

/// ... and the innermost dim has at least this many positions: the 8 × 8 squares the
/// AVX2 path transposes (or at least two, when the block's output rows follow each other:
/// an interleave of a few input rows, which `tile_copy` moves element by element in output
/// order, see `Block::narrow`). Measured on the project's shared AVX2 host (a transposed f32 view
/// read whole, rows × cols of 64 KiB, 1 MiB and 16 MiB, one thread, medians of 101 or 11
/// interleaved calls): the tiled kernel took 1/1.5–1/3.4 of the plain loop's time at 8
/// columns and 1/2.1–1/8.5 from 16 to 512 columns, in the caches and out of them alike.
pub(crate) const TILE_MIN_COLS: u64 = kerfx_rt::policy::TILE_MIN_COLS;

/// The block of a static slice kernel's two innermost dims, when a host function may move
/// it whole ([`tiles`], [`stream_rows`]): its element width, outer and inner dim. The host
/// functions load whole-byte elements and write the block's rows packed: not for an
/// output view (which moves as usual), a fill head (whose elements are computed) or fill
/// levels (which walk every dim), nor for an outer dim walked from descriptors.
fn host_block(nest: &LoopNest) -> Option<(u64, &Dim, &Dim)> {
    let Layout::Bytes(w) = nest.dtype.layout() else { return None };
    if nest.out_view.is_some() || nest.head.is_some() || !nest.levels.is_empty() {
        return None;
    }
    let n = nest.dims.len();
    if n < 2 || nest.looped_dims()[n - 2] {
        return None;
    }
    Some((w as u64, &nest.dims[n - 2], &nest.dims[n - 1]))
}

/// Whether a static slice kernel moves the block of its two innermost dims with
/// [`crate::tile::tile_copy`] (one call per affine segment of the outer one) instead of
/// a loop of strided runs: whole-byte elements, an innermost dim that is one affine
/// segment with a large stride (see the constants above) and nothing repeating, an outer
/// dim unrolled (not walked from descriptors) whose affine segments all have small
/// strides.
pub(crate) fn tiles(nest: &LoopNest) -> bool {
    let Some((w, outer, inner)) = host_block(nest) else { return false };
    let n = nest.dims.len();
    let Some([Segment::Affine { stride, .. }]) = inner.segments() else { return false };
    let Some(outer_segs) = outer.segments() else { return false };
    !inner.repeats()
        && (inner.extent >= TILE_MIN_COLS || (inner.extent >= 2 && nest.dense_from(n - 2)))
        && stride.unsigned_abs().saturating_mul(w) >= TILE_MIN_STRIDE_BYTES
        && outer_segs.iter().all(|s| match *s {
            Segment::Affine { stride, .. } => stride.unsigned_abs().saturating_mul(w) <= TILE_MAX_ROW_STRIDE_BYTES,
            Segment::Fill { .. } | Segment::FillAt { .. } => true,
        })
        && outer_segs.iter().any(|s| matches!(*s, Segment::Affine { len, stride, .. } if len > 1 && stride != 0))
}

// ----- walked dims (compile time) -------------------------------------------------------

/// An outer dim of a static slice kernel with several segments that read (a pad's border
/// rows and its middle) is walked from segment descriptors, with the inner dims' code
/// emitted once instead of once per segment, when each of its positions writes at least
/// this many bytes: the walk's per-segment work (four loads, a clip) is then small against
/// a position's. Measured in the C1 work: W5's clamp, wrap and reflect kernels (half the
/// instructions) compiled in 15–25 % less time, their run times within the noise of
/// interleaved runs.
pub(crate) const WALK_MIN_BYTES: u64 = 1024;

/// Which dims a static slice kernel walks from descriptors (see [`crate::slice`]): the
/// ones [`LoopNest::looped_dims`] bounds the unrolled code by, and every outer dim whose
/// unrolled code would hold the inner dims' code more than once and whose positions write
/// [`WALK_MIN_BYTES`] or more, but the outer dim of a tiled block or of streamed rows
/// (unrolled per segment, see [`tiles`] and [`stream_rows`]), nor the dim outside row
/// blocks ([`row_blocks`]).
pub(crate) fn walked_dims(nest: &LoopNest, streams: bool) -> Vec<bool> {
    let mut walked = nest.looped_dims();
    let Layout::Bytes(w) = nest.dtype.layout() else { return walked };
    let n = nest.dims.len();
    let (tiled, rows, blocks) = (tiles(nest), stream_rows(nest, streams), row_blocks(nest, streams));
    for (k, dim) in nest.dims.iter().enumerate().take(n.saturating_sub(1)) {
        let position = nest.dims[k + 1..].iter().fold(w as u64, |b, d| b.saturating_mul(d.extent));
        let big = position >= WALK_MIN_BYTES;
        // Fill segments of a dense nest are one fill each: the inner dims' code is
        // emitted once per other segment.
        let copies = match dim.segments() {
            Some(segs) if nest.dense_from(k) => segs.iter().filter(|s| s.run() != Run::Fill).count(),
            _ => dim.pieces(),
        };
        if copies > 1 && big && !((tiled || rows) && k + 2 == n) && !(blocks && k + 3 == n) {
            walked[k] = true;
        }
    }
    walked
}

// ----- register allocation (compile time) -----------------------------------------------

/// Rows of at least this many bytes make a row kernel (see [`row_kernel`]): the
/// single-pass allocator's loop overhead (values kept on the stack) is then small against
/// a row's work (measured in the C1 work: half the compile time, no run-time cost on the
/// workload rows).
pub(crate) const ROW_MIN_BYTES: u64 = 1024;

/// Whether a kernel is compiled with the single-pass register allocator: when its loops
/// leave allocation without effect on its run time (`loops_light`: see [`row_kernel`],
/// [`LIGHT_DEPTH`]), or when it has no loop at all (a call of a host function, straight-line
/// code), where the single pass allocates as well (measured in the C1 work: F1's kernel,
/// one call, compiles in a quarter less time).
pub(crate) fn light(loops_light: bool, loops: usize) -> bool {
    loops_light || loops == 0
}

/// Dynamic slice kernels deeper than this use the single-pass register allocator: in the
/// backtracking one, every level's loop state is live across all the levels inside it,
/// which makes compile time grow with the square of the depth.
pub(crate) const LIGHT_DEPTH: usize = 8;

/// Whether every loop of a static slice kernel moves a row or more per iteration through
/// a call (memcpy, memset) or straight-line code, so that no loop is tight enough for
/// register allocation to matter: each segment's run looked up in [`lowering`], the table
/// the emitters read (as if not streaming: streaming kernels' long fills are calls too,
/// which this leaves out). Dim 0's counts are only known at run time.
pub(crate) fn row_kernel(nest: &LoopNest) -> bool {
    let Layout::Bytes(w) = nest.dtype.layout() else { return false };
    let w = w as u64;
    let fill = nest.fill_bits.to_le_bytes();
    let fill_memset = fill[..w as usize].iter().all(|&b| b == fill[0]);
    let inner = nest.dims.len().saturating_sub(1);
    // (Outputs written through a view with gaps take other code: not mirrored here.)
    if nest.dims.iter().any(|d| d.repeats()) || nest.looped_dims().contains(&true) || !nest.dense_from(0) {
        return false;
    }
    if nest.dims.len() == 1 {
        // One contiguous run split over threads: a memcpy (a short copy below the call
        // threshold).
        return matches!(nest.dims[0].segments(), Some([seg]) if seg.run() == Run::Copy);
    }
    if nest.dims.is_empty() || nest.dims[inner].extent.saturating_mul(w) < ROW_MIN_BYTES {
        return false;
    }
    nest.dims.iter().enumerate().all(|(k, dim)| {
        let Indexing::Segments(segs) = &dim.indexing else { return false };
        segs.iter().all(|seg| {
            let bytes = seg.len().saturating_mul(dim.out_stride).saturating_mul(w);
            match (k == inner, seg.run()) {
                // An outer fill is one fill of the block (dim 0's length known at run
                // time), taken only of one repeated byte.
                (false, Run::Fill) => {
                    fill_memset && lowering(Run::Fill, (k > 0).then_some(bytes), true) != Lowering::Loop
                }
                // An outer affine segment is a loop over the next dim.
                (false, _) => true,
                (true, run) => lowering(run, Some(bytes), fill_memset) != Lowering::Loop,
            }
        })
    })
}

// ----- threads --------------------------------------------------------------------------

/// Bytes of work below which a call stays on one thread: spawning and joining scoped
/// threads must be small against the work (a megabyte of output takes tens of
/// microseconds to write; the exact crossover has not been measured).
pub(crate) const THREAD_MIN_COST: u64 = 1 << 20;

/// The most threads a [`crate::Jit`] may be given ([`crate::JitSettings::threads`]; the
/// CLI's `--threads` takes the same range): each is an OS thread spawned per large call,
/// so a huge count costs far more than it splits (100,000 threads turned an 8 ms copy into
/// 6.3 s). A call spawns fewer when its work is small: one thread below a megabyte of
/// work, and at most about one per megabyte above it.
pub const MAX_THREADS: usize = 256;

/// The threads a call whose split is `split` runs on, given `wanted` (the JIT's setting):
/// 1 below [`THREAD_MIN_COST`] of work; else no more than its split positions, nor than
/// [`MAX_THREADS`], nor than its work in units of `THREAD_MIN_COST` (each thread gets
/// about that much at least; 2 from one unit up, as every call at the threshold splits).
pub(crate) fn threads_for(wanted: usize, split: crate::threading::Split) -> usize {
    let units = split.extent.saturating_mul(split.cost) / THREAD_MIN_COST;
    if units == 0 {
        return 1;
    }
    let cap = split.extent.min(units.max(2)).min(MAX_THREADS as u64) as usize;
    wanted.min(cap).max(1)
}

/// Chunks of a threaded call per thread (see [`crate::threading`]): enough that a thread
/// on a core shared with another process takes fewer chunks instead of holding up the
/// call, few enough that taking one costs nothing measurable.
pub(crate) const CHUNKS_PER_THREAD: u64 = 8;

/// Work per random element in bytes of memset (what a thread split weighs): measured, a
/// uniform element costs about three times a memset of its four bytes, a normal one
/// about six.
pub(crate) fn random_cost(normal: bool) -> u64 {
    if normal { 24 } else { 12 }
}

// ----- streaming stores -----------------------------------------------------------------

/// Outputs of at least this many bytes are written with non-temporal stores (see
/// [`crate::stream`]). Measured on the project's shared AVX2 host (a micro-benchmark, one
/// process, medians of 15, sizes 256 KiB to 64 MiB): 32-byte streaming copies took
/// 0.6–0.8 × memcpy's time at every size, a streamed AVX2 linspace 0.53–0.71 × memset's
/// up to 32 MiB (16-byte streaming stores: 0.6–1.8 ×, hence AVX2 where there is one). The
/// write alone never favoured the cache; what does is the next reader of an output that
/// fits in the cache, so outputs below 8 MiB (a quarter of the 32 MiB L3) keep cached
/// stores.
pub(crate) const STREAM_MIN_BYTES: u64 = 8 << 20;

/// Whether a static slice kernel writes its long copies and fills with non-temporal
/// stores: outputs of whole-byte elements of [`STREAM_MIN_BYTES`] or more — the
/// kernel's own, or the `call_bytes` of the call it is part of (a program's moves: see
/// [`crate::Options`]; what the next reader finds in the cache is the call's output).
/// Measured (SP2, a q/k/v split of f32 [1, 2048, 2304] into three 6 MiB outputs, `kerf
/// bench`, three interleaved pairs): 1.22–1.33 × memcpy's time through the cache, 0.71–
/// 0.97 × streamed.
pub(crate) fn slice_streams(nest: &LoopNest, call_bytes: u64) -> bool {
    match nest.dtype.layout() {
        Layout::Bytes(w) => nest.output_len.saturating_mul(w as u64).max(call_bytes) >= STREAM_MIN_BYTES,
        _ => false,
    }
}

/// Rows of at least this many bytes (see [`stream_rows`]) go out through
/// [`crate::stream::stream_rows`]: a line at least, so that every line of the output but
/// the first and last goes out whole.
pub(crate) const STREAM_ROWS_MIN_BYTES: u64 = 64;

/// Whether a streaming static slice kernel moves the block of its two innermost dims —
/// contiguous rows of at least [`STREAM_ROWS_MIN_BYTES`], read with any stride or
/// through a table (a gather), written one after another — with one
/// [`crate::stream::stream_rows`] per affine segment of the outer dim (or one
/// [`crate::stream::stream_table_rows`] for its table), instead of one streaming copy
/// per row. Row by row, a row that does not start on a line leaves a line at each end to
/// ordinary stores, which mix with the streamed ones, and nothing fetches the next row
/// ahead (the rows lie a page apart or at random); `stream_rows` streams every whole line
/// straight from the rows and prefetches the next row. Measured on the project's shared
/// AVX2 host: TR3's head split (256-byte rows 4 KiB apart, an output 16 bytes past a
/// line, as a large allocation is) in a stand-alone loop of `stream_rows`, 1.08–1.20 ×
/// memcpy's time with the lines straight from the rows against 1.09–1.51 × staged; GA1's
/// gathered rows of 3,072 bytes under `kerf bench` (old and new binaries interleaved, a
/// loaded host) 1.03–1.10 × against 1.06–1.08 × one streaming copy per row: the same
/// within the noise, where a C model of the loop gained a third from the prefetch.
pub(crate) fn stream_rows(nest: &LoopNest, streams: bool) -> bool {
    let Some((w, outer, inner)) = host_block(nest) else { return false };
    if !streams || tiles(nest) || !nest.dense_from(nest.dims.len() - 2) {
        return false;
    }
    let row = inner.extent.saturating_mul(w);
    matches!(inner.segments(), Some([Segment::Affine { stride: 1, .. }]))
        && !inner.repeats()
        && !outer.repeats()
        && row >= STREAM_ROWS_MIN_BYTES
}

/// Whether a streaming static slice kernel whose rows go out through
/// [`crate::stream::stream_rows`] ([`stream_rows`]) moves the dim outside them too with
/// one [`crate::stream::stream_row_blocks`] per affine segment (see
/// [`row_blocks_pay`]), visiting the rows of all its positions a band at a time: a dim
/// unrolled, not repeating, whose positions' blocks follow each other in the output,
/// around rows read from one affine segment. Measured with the bands' size
/// (`kerfx_rt::policy::ROW_BAND_OUT_BYTES`).
pub(crate) fn row_blocks(nest: &LoopNest, streams: bool) -> bool {
    let n = nest.dims.len();
    if n < 3 || !stream_rows(nest, streams) || nest.looped_dims()[n - 3] || !nest.dense_from(n - 3) {
        return false;
    }
    !nest.dims[n - 3].repeats()
        && matches!(nest.dims[n - 2].segments(), Some([Segment::Affine { stride, .. }]) if *stride != 0)
}

/// Whether an affine segment of the dim outside streamed rows (see [`row_blocks`]), of
/// `len` positions `stride` elements apart around rows `row_stride` elements apart, goes
/// out in bands: two positions at least, whose rows for one row index all lie within one
/// row stride of the input (the heads of an attention head split, side by side), so that
/// a band reads one dense stretch of the input.
pub(crate) fn row_blocks_pay(len: u64, stride: i64, row_stride: i64) -> bool {
    len >= 2 && stride != 0 && stride.unsigned_abs().saturating_mul(len) <= row_stride.unsigned_abs()
}

/// Whether a streaming static slice kernel also stages its reversed and strided runs
/// through a stack buffer: elements narrower than a vector, with no repeating dim (those
/// copy most of their output from the output itself, which then stays in the cache).
pub(crate) fn slice_stages(nest: &LoopNest, streams: bool) -> bool {
    streams && matches!(nest.dtype.layout(), Layout::Bytes(w) if w < 16) && !nest.dims.iter().any(|d| d.repeats())
}

/// Whether a static fill streams: large fills whose values are exact in any order (the
/// chunked loop sums them differently).
pub(crate) fn fill_streams(nest: &FillNest) -> bool {
    let bytes = nest.dtype.buffer_bytes(nest.len).unwrap_or(0) as u64;
    bytes >= STREAM_MIN_BYTES && matches!(nest.body, FillBody::LinspaceInt { .. } | FillBody::LinspaceF32Exact { .. })
}

/// Whether a streaming kernel stages a reversed or strided run of `known` bytes (`None`:
/// known only at run time) through a stack buffer: all but the short known ones.
pub(crate) fn stages(known: Option<u64>) -> bool {
    known.is_none_or(|k| k > REVERSE_STRAIGHT_MAX_BYTES)
}

/// Whether a streaming kernel's long stride-2 runs (those [`stages`] takes) of `w`-byte
/// elements call [`crate::stream::stream_stride2`] instead of being staged: the widths it
/// has an AVX2 path for (two 32-byte loads, a shuffle and a lane permute per 32 bytes
/// out, streamed straight to the output; the host function checks for AVX2 itself and
/// stages like the emitted code elsewhere). Measured on the project's shared AVX2 host
/// (W3, f32 [4096, 4096] → every other column, one thread): the staged runs (Cranelift's
/// 16-byte loads and byte shuffles into a stack buffer, then streamed out) took
/// 1.32–1.52 × memcpy's time; a stand-alone copy of the AVX2 loop 1.03–1.06 ×; `kerf
/// bench` of W3 with this host function 0.91–1.13 × against 1.20–1.48 × staged (medians
/// of 21, six interleaved rounds on a busy host), V1's stride-2 view 5.4–5.8 ms against
/// 7.3–7.5 ms.
pub(crate) fn stride2_streams(w: u8) -> bool {
    kerfx_rt::stream::STRIDE2_WIDTHS.contains(&(w as usize))
}

// ----- repeating dims -------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use kerfx_ir::{BoundaryMode, DType, Plan};

    /// [`row_kernel`] as it was written before it read [`lowering`], its thresholds
    /// inline: the oracle that the table changed no decision (and so no kernel's
    /// register allocator).
    fn row_kernel_inline(nest: &LoopNest) -> bool {
        let Layout::Bytes(w) = nest.dtype.layout() else { return false };
        let w = w as u64;
        let fill = nest.fill_bits.to_le_bytes();
        let fill_memset = fill[..w as usize].iter().all(|&b| b == fill[0]);
        let inner = nest.dims.len().saturating_sub(1);
        if nest.dims.iter().any(|d| d.repeats()) || nest.looped_dims().contains(&true) || !nest.dense_from(0) {
            return false;
        }
        if nest.dims.len() == 1 {
            return matches!(nest.dims[0].segments(), Some([seg]) if seg.run() == Run::Copy);
        }
        if nest.dims.is_empty() || nest.dims[inner].extent.saturating_mul(w) < ROW_MIN_BYTES {
            return false;
        }
        let (call, straight) = (CALL_MIN_BYTES, STRAIGHT_MAX_BYTES);
        nest.dims.iter().enumerate().all(|(k, dim)| {
            let Indexing::Segments(segs) = &dim.indexing else { return false };
            segs.iter().all(|seg| {
                let bytes = seg.len().saturating_mul(dim.out_stride).saturating_mul(w);
                match (k == inner, seg.run()) {
                    (false, Run::Fill) => fill_memset && (k == 0 || bytes >= call || bytes <= straight),
                    (false, _) => true,
                    (true, Run::Copy) => bytes >= call || bytes <= straight,
                    (true, Run::Fill) => bytes <= straight || (fill_memset && bytes >= call),
                    (true, Run::Broadcast) => bytes <= straight,
                    (true, Run::Reverse) => bytes <= REVERSE_STRAIGHT_MAX_BYTES,
                    (true, Run::Strided(_)) => false,
                }
            })
        })
    }

    /// Crops, pads, reversals, broadcasts and strided reads of rows around the thresholds
    /// (bytes from a few to several kilobytes, fill values of one repeated byte or not):
    /// the table decides as the inline thresholds did.
    #[test]
    fn row_kernel_decides_as_its_inline_thresholds_did() {
        let (mut nests, mut rows) = (0, 0);
        for dtype in [DType::U8, DType::I16, DType::F32, DType::F64, DType::C128] {
            for mode in [BoundaryMode::StrictBounds, BoundaryMode::Clamp, BoundaryMode::Fill] {
                for fill_bits in [0u128, 0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10] {
                    for cols in [3u64, 16, 40, 64, 100, 256, 300, 1100, 2048] {
                        for (start, step) in [(0i64, 1i64), (5, 1), (-7, 1), (-300, 1), (0, -1), (2, 2), (1, 0)] {
                            for (rows_out, row_start) in [(1u64, 0i64), (4, 0), (6, -1), (3, 2)] {
                                let extent = if step == 2 { cols / 2 } else { cols };
                                let mut p = kerfx_testkit::plans::slice_plan(
                                    dtype,
                                    &[4, cols],
                                    &[(rows_out, row_start, 1), (extent.max(1), start, step)],
                                    mode,
                                );
                                if mode == BoundaryMode::Fill {
                                    let bits = 8 * dtype.byte_width().unwrap_or(16) as u32;
                                    p.fill_bits = fill_bits & u128::MAX.checked_shr(128 - bits).unwrap_or(u128::MAX);
                                }
                                let plan = Plan::Step(p);
                                if plan.validate().is_err() {
                                    continue;
                                }
                                let Plan::Step(p) = &plan else { unreachable!() };
                                let Ok(nest) = kerfx_ir::Step::map(p).and_then(|m| kerfx_ir::schedule::map_nest(&m))
                                else {
                                    continue;
                                };
                                assert_eq!(row_kernel(&nest), row_kernel_inline(&nest), "{plan}");
                                nests += 1;
                                rows += usize::from(row_kernel(&nest));
                            }
                        }
                    }
                }
            }
        }
        assert!(nests > 1000 && rows > 50, "{nests} nests, {rows} row kernels");
    }
}
