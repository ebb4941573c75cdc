//! Reliability harness for kerf kernels: buffers flush against `PROT_NONE` guard pages,
//! random plans, and a check of any [`Kernel`] against the reference interpreter.
//!
//! A kernel that reads or writes one byte outside its input or output buffer touches a
//! guard page and the process dies with SIGSEGV. Every buffer is made twice: once ending
//! exactly where the trailing guard page begins ([`Flush::End`]: overruns fault), once
//! starting exactly where the leading guard page ends ([`Flush::Start`]: underruns fault).
//! The bytes of a buffer's pages that lie outside the buffer hold a canary that is checked
//! after each run, so a stray write that stays inside a page is caught too.

use kerf_ir::dtype::Layout;
use kerf_ir::{DType, Error, Kernel, Plan, Request, Tensor};
use std::ptr::NonNull;

/// Which end of a buffer lies against its guard page (the other end has a whole guard
/// page too, beyond the rest of the buffer's last or first page).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Flush {
    /// The buffer's last byte is the last byte before the trailing guard page.
    End,
    /// The buffer's first byte is the first byte after the leading guard page.
    Start,
}

impl Flush {
    pub const BOTH: [Flush; 2] = [Flush::End, Flush::Start];
}

/// The value stray bytes around a buffer hold.
const CANARY: u8 = 0xA5;

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(p).ok().filter(|&p| p > 0).unwrap_or(4096)
}

/// A byte buffer of `len` bytes between two `PROT_NONE` pages.
pub struct GuardedBuf {
    map: NonNull<u8>,
    map_len: usize,
    /// Offset of the buffer in the mapping.
    at: usize,
    len: usize,
    page: usize,
}

// SAFETY: the mapping is owned by this value alone; access goes through &self / &mut self.
unsafe impl Send for GuardedBuf {}
// SAFETY: shared access only reads.
unsafe impl Sync for GuardedBuf {}

impl GuardedBuf {
    /// A zero-filled buffer of `len` bytes (surrounded by the canary), flush with the guard
    /// page at `flush`.
    pub fn new(len: usize, flush: Flush) -> GuardedBuf {
        let page = page_size();
        let body = len.div_ceil(page).max(1) * page;
        let map_len = body + 2 * page;
        // SAFETY: an anonymous private mapping; the result is checked.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert!(p != libc::MAP_FAILED, "mmap of {map_len} bytes failed");
        let map = NonNull::new(p.cast::<u8>()).expect("mmap returned a non-null mapping");
        // SAFETY: both ranges are whole pages inside the mapping just made.
        unsafe {
            assert_eq!(libc::mprotect(p, page, libc::PROT_NONE), 0, "mprotect of the leading guard page");
            assert_eq!(
                libc::mprotect(map.as_ptr().add(page + body).cast(), page, libc::PROT_NONE),
                0,
                "mprotect of the trailing guard page"
            );
        }
        let at = match flush {
            Flush::End => page + body - len,
            Flush::Start => page,
        };
        let mut buf = GuardedBuf { map, map_len, at, len, page };
        buf.body_mut().fill(CANARY);
        buf.as_mut_slice().fill(0);
        buf
    }

    /// A guarded copy of `bytes`.
    pub fn from_bytes(bytes: &[u8], flush: Flush) -> GuardedBuf {
        let mut b = GuardedBuf::new(bytes.len(), flush);
        b.as_mut_slice().copy_from_slice(bytes);
        b
    }

    /// The accessible pages between the guards.
    fn body_mut(&mut self) -> &mut [u8] {
        // SAFETY: [page, map_len - page) is mapped read-write and owned by self.
        unsafe { std::slice::from_raw_parts_mut(self.map.as_ptr().add(self.page), self.map_len - 2 * self.page) }
    }

    fn body(&self) -> &[u8] {
        // SAFETY: as in body_mut, shared.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().add(self.page), self.map_len - 2 * self.page) }
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: [at, at + len) lies in the read-write body (for len 0, `at` may be the
        // first byte of the trailing guard page, a valid dangling pointer for an empty slice).
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().add(self.at), self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in as_slice, and &mut self makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.map.as_ptr().add(self.at), self.len) }
    }

    /// Whether every byte of the body outside the buffer still holds the canary.
    pub fn canary_intact(&self) -> bool {
        let start = self.at - self.page;
        let body = self.body();
        body[..start].iter().chain(&body[start + self.len..]).all(|&b| b == CANARY)
    }

    /// The address of the buffer's first byte.
    pub fn addr(&self) -> usize {
        self.map.as_ptr() as usize + self.at
    }

    /// The address of the first byte of the trailing guard page.
    pub fn trailing_guard(&self) -> usize {
        self.map.as_ptr() as usize + self.map_len - self.page
    }

    /// The address of the first byte of the leading guard page.
    pub fn leading_guard(&self) -> usize {
        self.map.as_ptr() as usize
    }
}

impl Drop for GuardedBuf {
    fn drop(&mut self) {
        // SAFETY: the mapping was made by mmap with this length and is unmapped once.
        unsafe { libc::munmap(self.map.as_ptr().cast(), self.map_len) };
    }
}

/// A small deterministic generator (SplitMix64): no dependency, reproducible by seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, n) (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    /// Uniform in [lo, hi].
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
    pub fn fill_bytes(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

/// Byte-moving dtypes of tensorrt.slice (its whole type set) plus the other widths the
/// ONNX and OpenVINO ops move.
pub const SLICE_DTYPES: [DType; 9] =
    [DType::Bool, DType::I4, DType::I8, DType::I32, DType::I64, DType::F8E4M3FN, DType::F16, DType::F32, DType::BF16];
pub const WIDE_DTYPES: [DType; 6] = [DType::U4, DType::U16, DType::U64, DType::F64, DType::C64, DType::C128];

/// A random shape: rank 0..=max_rank, extents 0..=max_extent (zero rarely).
pub fn random_shape(rng: &mut Rng, max_rank: u64, max_extent: u64) -> Vec<u64> {
    let rank = rng.below(max_rank + 1);
    (0..rank).map(|_| if rng.chance(4) { 0 } else { 1 + rng.below(max_extent) }).collect()
}

/// A coordinate, often far outside [0, d).
fn random_start(rng: &mut Rng, d: u64) -> i64 {
    let d = d as i64;
    match rng.below(6) {
        0 => rng.range(-1000, 1000),
        1 => rng.range(-(3 * d + 50), -1),
        2 => rng.range(d, 3 * d + 50),
        3 => rng.range(-(1 << 20), 1 << 20),
        _ => rng.range(0, d.max(1) - 1),
    }
}

fn random_step(rng: &mut Rng) -> i64 {
    match rng.below(8) {
        0 => -1,
        1 => 0,
        2 => rng.range(-9, 9),
        3 => rng.range(-200, 200),
        4 => *rng.pick(&[1 << 20, -(1 << 20), 1 << 31, -(1 << 31)]),
        _ => 1,
    }
}

/// A random tensorrt.slice request (all modes; the data input by dtype and shape only).
pub fn random_trt_slice(rng: &mut Rng) -> Request {
    let shape = random_shape(rng, 4, 9);
    let dtype = *rng.pick(&SLICE_DTYPES);
    let mode = *rng.pick(&["strict_bounds", "wrap", "clamp", "fill", "reflect", "wrap", "reflect", "fill"]);
    let mut start = Vec::new();
    let mut size = Vec::new();
    let mut stride = Vec::new();
    for &d in &shape {
        let n = if rng.chance(5) { 0 } else { rng.range(1, 13) };
        let mut s = random_step(rng);
        let mut a = random_start(rng, d);
        if mode == "strict_bounds" && d > 0 {
            // Mostly in range, so the plan lowers: an in-bounds first and last read.
            a = rng.range(0, d as i64 - 1);
            if n > 1 {
                let room_up = (d as i64 - 1 - a) / (n - 1);
                let room_down = a / (n - 1);
                s = rng.range(-room_down, room_up);
            }
        }
        start.push(a);
        size.push(n);
        stride.push(s);
    }
    let mut r = Request::new("tensorrt.slice")
        .input_meta("input", dtype, &shape)
        .attr("start", start)
        .attr("size", size)
        .attr("stride", stride)
        .attr("mode", mode);
    if mode == "fill" && rng.chance(60) {
        let v = if dtype.is_integer() {
            rng.range(if dtype == DType::I4 { -8 } else { -100 }, 7) as f64
        } else if dtype == DType::Bool {
            1.0
        } else {
            *rng.pick(&[1.5, -2.0, 448.0, 0.0, 3.25])
        };
        r = r.input("fill", Tensor::scalar_bits(DType::F64, v.to_bits() as u128));
    }
    r
}

/// A random onnx.slice request (version 13, parameters as inputs).
pub fn random_onnx_slice(rng: &mut Rng) -> Request {
    let mut shape = random_shape(rng, 4, 9);
    if shape.is_empty() {
        shape.push(1 + rng.below(9));
    }
    let dtype = *rng.pick(&[SLICE_DTYPES.as_slice(), WIDE_DTYPES.as_slice()].concat());
    let rank = shape.len() as i64;
    let mut axes: Vec<i64> = (0..rank).collect();
    // Shuffle, then keep a prefix.
    for i in (1..axes.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        axes.swap(i, j);
    }
    axes.truncate(1 + rng.below(rank as u64) as usize);
    let axes: Vec<i64> = axes.into_iter().map(|a| if rng.chance(30) { a - rank } else { a }).collect();
    let extreme = [i64::MIN, i64::MAX, i32::MIN as i64, i32::MAX as i64];
    let bound = |rng: &mut Rng| if rng.chance(10) { *rng.pick(&extreme) } else { rng.range(-12, 12) };
    let starts: Vec<i64> = axes.iter().map(|_| bound(rng)).collect();
    let ends: Vec<i64> = axes.iter().map(|_| bound(rng)).collect();
    let steps: Vec<i64> = axes
        .iter()
        .map(|_| {
            let s = rng.range(-4, 4);
            if s == 0 { if rng.chance(50) { 1 } else { i64::MIN } } else { s }
        })
        .collect();
    Request::new("onnx.slice")
        .version(13)
        .input_meta("data", dtype, &shape)
        .input("starts", Tensor::from_i64s(&starts))
        .input("ends", Tensor::from_i64s(&ends))
        .input("axes", Tensor::from_i64s(&axes))
        .input("steps", Tensor::from_i64s(&steps))
}

/// A random openvino.strided_slice request (all five masks).
pub fn random_ov_slice(rng: &mut Rng) -> Request {
    let shape = random_shape(rng, 4, 7);
    let dtype = *rng.pick(&SLICE_DTYPES);
    let m = rng.below(shape.len() as u64 + 2) as usize;
    let list = |rng: &mut Rng, lo: i64, hi: i64| -> Vec<i64> { (0..m).map(|_| rng.range(lo, hi)).collect() };
    let mask = |rng: &mut Rng, p: u64| -> Vec<i64> { (0..m).map(|_| i64::from(rng.chance(p))).collect() };
    let begin = list(rng, -10, 10);
    let end = list(rng, -10, 10);
    let stride: Vec<i64> = (0..m)
        .map(|_| {
            let s = rng.range(-3, 3);
            if s == 0 { 1 } else { s }
        })
        .collect();
    let mut ellipsis = vec![0; m];
    if m > 0 && rng.chance(30) {
        ellipsis[rng.below(m as u64) as usize] = 1;
    }
    Request::new("openvino.strided_slice")
        .input_meta("data", dtype, &shape)
        .input("begin", Tensor::from_i64s(&begin))
        .input("end", Tensor::from_i64s(&end))
        .input("stride", Tensor::from_i64s(&stride))
        .attr("begin_mask", mask(rng, 30))
        .attr("end_mask", mask(rng, 30))
        .attr("new_axis_mask", mask(rng, 10))
        .attr("shrink_axis_mask", mask(rng, 15))
        .attr("ellipsis_mask", ellipsis)
}

/// A random tensorrt.fill request (small outputs).
pub fn random_fill(rng: &mut Rng) -> Request {
    let shape = random_shape(rng, 3, 12);
    let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let rank = dims.len();
    match rng.below(3) {
        0 => {
            let to_type = *rng.pick(&["i32", "i64", "f32"]);
            let beta: Vec<f64> = (0..rank)
                .map(|_| if to_type == "f32" { rng.range(-300, 300) as f64 / 8.0 } else { rng.range(-50, 50) as f64 })
                .collect();
            let alpha =
                if to_type == "f32" { rng.range(-1000, 1000) as f64 / 3.0 } else { rng.range(-999, 999) as f64 };
            let mut r = Request::new("tensorrt.fill")
                .attr("dimensions", dims)
                .attr("operation", "linspace")
                .attr("to_type", to_type)
                .attr("alpha", alpha);
            // A scalar beta is valid for rank 1 only; an empty list is not a list of floats.
            if rank == 1 && rng.chance(50) {
                r = r.attr("beta", beta[0]);
            } else if rank > 0 {
                r = r.attr("beta", beta);
            }
            r
        }
        k => {
            let to_type = *rng.pick(&["f16", "f32"]);
            let alpha = rng.range(-10, 10) as f64 / 4.0;
            let beta = alpha + 1.0 + rng.below(40) as f64 / 8.0;
            Request::new("tensorrt.fill")
                .attr("dimensions", dims)
                .attr("operation", if k == 1 { "random_uniform" } else { "random_normal" })
                .attr("to_type", to_type)
                .attr("alpha", alpha)
                .attr("beta", beta)
                .attr("seed", rng.below(1 << 40) as i64)
        }
    }
}

/// A random request of any op, weighted towards the slice with boundary modes.
pub fn random_request(rng: &mut Rng) -> Request {
    match rng.below(10) {
        0..=4 => random_trt_slice(rng),
        5 | 6 => random_onnx_slice(rng),
        7 | 8 => random_ov_slice(rng),
        _ => random_fill(rng),
    }
}

/// Byte length of a dense buffer of `shape`.
pub fn byte_len(dtype: DType, shape: &[u64]) -> usize {
    kerf_ir::tensor::volume(shape).and_then(|n| dtype.buffer_bytes(n)).expect("test shapes are small")
}

/// Random valid input bytes for a plan's data input: random elements, and for packed
/// nibbles of odd length a zero high nibble in the last byte (the layout's rule).
pub fn random_input(rng: &mut Rng, dtype: DType, shape: &[u64]) -> Vec<u8> {
    let mut bytes = vec![0u8; byte_len(dtype, shape)];
    rng.fill_bytes(&mut bytes);
    let n = kerf_ir::tensor::volume(shape).unwrap_or(0);
    if dtype == DType::Bool {
        for b in &mut bytes {
            *b &= 1;
        }
    }
    if dtype.layout() == Layout::Nibbles
        && n % 2 == 1
        && let Some(last) = bytes.last_mut()
    {
        *last &= 0x0f;
    }
    bytes
}

/// The reference output of a plan on `input`, as bytes.
pub fn reference_bytes(plan: &Plan, input: Option<&[u8]>) -> Result<Vec<u8>, Error> {
    let view = match (plan.input_shape(), input) {
        (Some(shape), Some(bytes)) => Some(Tensor::from_bytes(plan.dtype(), shape, bytes)?),
        _ => None,
    };
    let out = kerf_ir::reference::evaluate(plan, view.as_ref().map(Tensor::view))?;
    Ok(out.bytes().ok_or_else(|| Error::Invalid { what: "string output".into() })?.to_vec())
}

/// What went wrong in one guarded run.
#[derive(Debug)]
pub enum GuardFailure {
    /// The kernel returned an error on buffers of exactly the right length.
    Refused(Error),
    /// A byte outside the buffers (inside their pages) changed.
    StrayWrite { flush: Flush, which: &'static str },
    /// The output differs from the expected bytes.
    Wrong { flush: Flush, first_diff: usize, got: Vec<u8>, expected: Vec<u8> },
}

/// How a guarded run calls the kernel: `run_bytes`, or `run_plan` of a dynamic kernel.
pub type RunFn<'a> = dyn Fn(&dyn Kernel, Option<&[u8]>, &mut [u8]) -> Result<(), Error> + 'a;

/// Run `kernel` on `input` with both buffers guarded, in both flush variants, and compare
/// its output with `expected`. An out-of-bounds access faults (SIGSEGV) before this
/// returns.
pub fn run_guarded(
    kernel: &dyn Kernel,
    input: Option<&[u8]>,
    expected: &[u8],
    run: &RunFn<'_>,
) -> Result<(), GuardFailure> {
    for flush in Flush::BOTH {
        let inp = input.map(|b| GuardedBuf::from_bytes(b, flush));
        let mut out = GuardedBuf::new(expected.len(), flush);
        // A pattern the kernel must overwrite everywhere (the output starts non-zero).
        out.as_mut_slice().fill(0x5A);
        run(kernel, inp.as_ref().map(GuardedBuf::as_slice), out.as_mut_slice()).map_err(GuardFailure::Refused)?;
        if let Some(i) = &inp
            && (!i.canary_intact() || i.as_slice() != input.unwrap_or_default())
        {
            return Err(GuardFailure::StrayWrite { flush, which: "input" });
        }
        if !out.canary_intact() {
            return Err(GuardFailure::StrayWrite { flush, which: "output" });
        }
        if out.as_slice() != expected {
            let first_diff = out.as_slice().iter().zip(expected).position(|(a, b)| a != b).unwrap_or(0);
            return Err(GuardFailure::Wrong {
                flush,
                first_diff,
                got: out.as_slice().to_vec(),
                expected: expected.to_vec(),
            });
        }
    }
    Ok(())
}

/// `Kernel::run_bytes`, as a `run` argument of [`run_guarded`].
pub fn run_bytes(k: &dyn Kernel, input: Option<&[u8]>, output: &mut [u8]) -> Result<(), Error> {
    k.run_bytes(input, output)
}

/// Resident set size of this process in bytes, from /proc/self/statm.
pub fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    pages * page_size() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_sit_flush_against_their_guard_pages() {
        for len in [0usize, 1, 7, 4095, 4096, 4097, 10000] {
            let end = GuardedBuf::new(len, Flush::End);
            assert_eq!(end.addr() + len, end.trailing_guard(), "len {len}");
            assert!(end.canary_intact());
            assert!(end.as_slice().iter().all(|&b| b == 0));
            let start = GuardedBuf::new(len, Flush::Start);
            assert_eq!(start.addr(), start.leading_guard() + page_size(), "len {len}");
            assert!(start.canary_intact());
        }
    }

    #[test]
    fn a_write_beside_the_buffer_breaks_the_canary() {
        let mut b = GuardedBuf::new(10, Flush::End);
        let i = b.at - b.page - 1;
        b.body_mut()[i] = 0;
        assert!(!b.canary_intact());
    }

    #[test]
    fn the_generator_is_deterministic() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        assert_eq!(
            (0..10).map(|_| a.next_u64()).collect::<Vec<_>>(),
            (0..10).map(|_| b.next_u64()).collect::<Vec<_>>()
        );
    }
}
