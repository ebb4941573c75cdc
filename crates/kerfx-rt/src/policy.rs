//! The runtime's sizes, each named once with its measurement (the JIT's policy
//! re-exports them where its emitters need them).

/// Bytes of a cache line: streaming stores write whole lines only (a line written in part
/// by streaming stores is flushed in part, which costs more than reading it), and the
/// transposes move squares of one line per side.
pub const LINE: usize = 64;

/// Rows of a tile of [`crate::tile::tile_copy`] written through the cache, and of one whose
/// output rows follow each other (positions of the outer dim; see [`STREAMED_TILE_ROWS`]
/// for a streamed tile): each tile reads a run of this many elements of each of its input
/// rows (256 bytes of f32).
/// Measured with [`TILE_ROW_BYTES`] below.
pub const TILE_ROWS: usize = 64;

/// Bytes of each output row a tile writes (the tile's columns times the element width):
/// the tile is transposed into a buffer of [`TILE_ROWS`] rows of this many bytes
/// ([`TILE_BUF_BYTES`]), whose rows then go out as runs. Measured on the project's shared AVX2
/// host (W2's crop from a transposed f32 view, 32 MiB out, one thread, streamed, medians
/// of 21 interleaved with W2's own row copies, a stand-alone copy of the tile loop on
/// line-aligned buffers): square tiles of a line per side written straight out (the
/// previous shape) took 2.2–2.4 × W2's time; their writes alone took 1.7–1.9 × W2 (runs of
/// one line, each to another page), against 0.5 × for runs of 512 bytes and more; tiles
/// of 64 rows × 512 bytes took 1.55–1.6 ×, 64 × 256 or 16 × 512 1.7–1.8 ×, 32 × 512
/// 2.0–2.1 ×; 128 × 512 (a 64 KiB buffer) no better. In the caches (a 2 MiB output,
/// cached stores) the same tiles took 1.2 × W2's time, the previous ones 2.0–2.3 ×.
/// Reading the block alone (the loads and transposes without the stores) took about W2's
/// whole time and writing it (the stores alone) half of that, and the two added up: what
/// keeps a transposed read above W2 on this host. Prefetching the next tile's input while
/// a tile goes out (see [`crate::tile`]) overlaps them in part.
pub const TILE_ROW_BYTES: usize = 512;

/// Rows of a tile whose output is streamed (see [`TILE_ROWS`] for the others): each tile
/// reads twice the run of each input row, from half as many rows.
///
/// Measured on an Intel Xeon host (2 MiB of L2 a core; `kerf bench` on the transposes of
/// whole 2-D arrays of 64 MiB, one thread, medians of 21 against memcpy, 5–8 runs of each
/// shape interleaved), 128 rows × 256 bytes against 64 × 512: u8 [8192, 8192] 1.40–1.48 ×
/// memcpy against 1.75–1.78 ×, f32 [4096, 4096] 0.90 against 1.00, f32 [1024, 16384] 0.94
/// against 1.06, [16384, 1024] 1.11 against 1.19, [2048, 3000] 0.97 against 1.16; f16 and
/// f64 within the runs' spread; 256 × 128 about as good for f32, worse for u8 (1.56–1.59);
/// 512 × 64 and 128 × 512 no better than 64 × 512. Through the cache (TR4's shape in u8 and
/// f16, 2 and 4 MiB out) it took 8–15 % more time than 64 × 512, so those keep that shape.
pub const STREAMED_TILE_ROWS: usize = 128;

/// Bytes of each output row a streamed tile writes (see [`STREAMED_TILE_ROWS`]).
pub const STREAMED_TILE_ROW_BYTES: usize = 256;

/// Rows of a streamed tile whose output rows are not a whole number of lines apart: each
/// row's runs are cut at its own line boundaries (`Block::run_cuts` in [`crate::tile`]), so
/// a tile transposes a line of columns past its [`STREAMED_TILE_ROW_BYTES`], in rows a line
/// longer: fewer rows, to fit the buffer. Measured on an Intel Xeon host (`kerf bench`,
/// medians of 21 against memcpy, four or five runs interleaved): f32 transposes of 64 MiB
/// whose output rows are 16 bytes past a whole number of lines ([4100, 4096]) took
/// 1.46–1.91 × memcpy with the runs cut at the tile's columns in the 64 × 512 tiles before
/// (two lines of each run written through the cache) and 1.76–2.49 × in 128 × 256 ones;
/// cut at the row's lines, 1.33–1.42 × with tiles of 128 rows owning 192 bytes a row and
/// 1.09–1.36 × with these (96 rows owning 256 bytes); [4104, 4096] (rows 32 bytes past)
/// 1.48–1.55 × before, 1.03–1.37 and 0.99–1.08 × cut at the rows' lines; [4097, 4097]
/// 1.71–1.79, 1.18–1.25 and 1.12–1.48 ×; against 0.96 × for rows a whole number of lines
/// apart ([4112, 4096]).
pub const REALIGNED_TILE_ROWS: usize = 96;

/// Bytes of the buffer a tile is transposed into: every shape above fits it (the L1
/// cache).
pub const TILE_BUF_BYTES: usize = 32 << 10;
const _: () = assert!(TILE_ROWS * TILE_ROW_BYTES <= TILE_BUF_BYTES);
const _: () = assert!(STREAMED_TILE_ROWS * STREAMED_TILE_ROW_BYTES <= TILE_BUF_BYTES);
// A realigned tile's rows are a line longer than a streamed tile's.
const _: () = assert!(REALIGNED_TILE_ROWS * (STREAMED_TILE_ROW_BYTES + LINE) <= TILE_BUF_BYTES);

/// Tiles go in bands of this many bytes of rows (1024 rows of f32: a page of each input
/// row), a column of tiles at a time down each band, so that each input row is read a
/// page at a time. Measured as above with 64 × 512-byte tiles: bands of 256 bytes (the
/// previous groups' side) 1.7–2.0 × W2, 4 KiB 1.56–1.69 ×, the whole height 1.55–1.64 ×
/// (within the noise of 4 KiB, which bounds the output rows a band keeps open for
/// taller blocks).
pub const TILE_BAND_BYTES: usize = 4096;

/// Bytes of a chunk computed into a stack buffer before it is streamed out (reversed and
/// strided runs, integer linspaces): it stays in the L1 cache (chosen when F1's exact
/// linspace was staged this way; not re-measured for the runs that use it now).
pub const STREAM_CHUNK: u64 = 4096;

/// A repeating dim's written prefix stops doubling at this many bytes (see
/// [`crate::repeat`]), so that the source of every further copy stays in the L2 cache.
pub const REPEAT_CHUNK: usize = 64 << 10;

/// The tile copy moves a narrow block (fewer columns than this, output rows following
/// each other) element by element in output order: the JIT's `policy::TILE_MIN_COLS`,
/// whose measurement is there (it also decides which nests tile).
pub const TILE_MIN_COLS: u64 = 8;

/// Output bytes per block of a band of [`crate::stream::stream_row_blocks`] (a run of
/// whole lines for the streaming stores) ... Measured on the project's AVX2 host (TR3's
/// head split, f32 [8, 512, 16, 64] → [8, 16, 512, 64]: 256-byte rows 4 KiB apart, 16
/// heads, an output 16 bytes past a line; a stand-alone loop of
/// [`crate::stream::stream_rows`] calls, medians of 41, a memcpy of the same bytes in the
/// same loop, three runs): block by block 1.15–1.33 × memcpy's time; in bands of 8 rows
/// 1.15–1.43 ×, 16 rows 1.04–1.24 ×, 32 rows (8 KiB) 1.01–1.02 ×, 64 rows 1.01–1.02 ×.
pub const ROW_BAND_OUT_BYTES: usize = 8 << 10;

/// ... and the input a band spans at most (its rows times their stride: 128 KiB for TR3's
/// band of 32 rows), a quarter of the L2 cache, so that a band read by one block is still
/// there for the next (reasoned from the cache geometry, not measured).
pub const ROW_BAND_IN_BYTES: usize = 128 << 10;
