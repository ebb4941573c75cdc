//! Reliability harness for kerf kernels: buffers flush against `PROT_NONE` guard pages,
//! random plans, and a check of any [`Kernel`] against the reference interpreter.
//!
//! A kernel that reads or writes one byte outside its input or output buffer touches a
//! guard page and the process dies with SIGSEGV. Every buffer is made twice: once ending
//! exactly where the trailing guard page begins ([`Flush::End`]: overruns fault), once
//! starting exactly where the leading guard page ends ([`Flush::Start`]: underruns fault).
//! The bytes of a buffer's pages that lie outside the buffer hold a canary that is checked
//! after each run, so a stray write that stays inside a page is caught too.

use kerfx_ir::dtype::Layout;
use kerfx_ir::{DType, Error, Kernel, Plan, Tensor};

/// The test kit's random requests (one generator for every test crate).
pub use kerfx_testkit::random::*;
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

/// Bytes a caller would allocate for a tensor of `shape` as a plan or chain claims it
/// (saturating: a malformed one's shape may be huge).
pub fn claimed_bytes(dtype: DType, shape: &[u64]) -> usize {
    kerfx_ir::tensor::volume(shape).and_then(|n| dtype.buffer_bytes(n)).unwrap_or(usize::MAX)
}

/// Byte length of a dense buffer of `shape`.
pub fn byte_len(dtype: DType, shape: &[u64]) -> usize {
    kerfx_ir::tensor::volume(shape).and_then(|n| dtype.buffer_bytes(n)).expect("test shapes are small")
}

/// Random valid input bytes for a plan's data input: random elements, and for packed
/// nibbles of odd length a zero high nibble in the last byte (the layout's rule).
pub fn random_input(rng: &mut Rng, dtype: DType, shape: &[u64]) -> Vec<u8> {
    let mut bytes = vec![0u8; byte_len(dtype, shape)];
    rng.fill_bytes(&mut bytes);
    let n = kerfx_ir::tensor::volume(shape).unwrap_or(0);
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
    let out = kerfx_ir::reference::evaluate(plan, view.as_ref().map(Tensor::view))?;
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

/// How a guarded run calls the kernel: `run_bytes`, or `run` of a dynamic kernel.
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
