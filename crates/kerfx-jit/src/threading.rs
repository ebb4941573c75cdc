//! Threads: how a call's range splits (a slice's outermost dim, a fill's first dim or
//! linear indices), and the threaded call that takes chunks of it from a shared counter.

use crate::JitKernel;
use crate::abi::{EntryFn, Prepared};
use crate::policy::{CHUNKS_PER_THREAD, threads_for};
use crate::stream;
use kerfx_ir::dtype::Layout;
use kerfx_ir::schedule::LoopNest;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// How a call's range `[lo, hi)` is split over threads.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Split {
    /// Positions of the split loop (0: nothing to do).
    pub(crate) extent: u64,
    /// Split points are multiples of this (2: packed nibbles with an odd per-position
    /// size, so that threads write whole bytes; a random fill's block, so that no block
    /// is computed twice); 0 or 1: anywhere.
    pub(crate) align: u64,
    /// Work per position, in bytes of output or equivalent, to decide on threads.
    pub(crate) cost: u64,
}

/// The split of a slice over its dim `dim`.
pub(crate) fn slice_split(nest: &LoopNest, dim: usize) -> Split {
    let Some(d) = nest.dims.get(dim) else { return Split::default() };
    let w = match nest.dtype.layout() {
        Layout::Bytes(w) => w as u64,
        _ => 1,
    };
    Split {
        extent: d.extent,
        align: if nest.dtype.layout() == Layout::Nibbles && d.out_stride % 2 == 1 { 2 } else { 1 },
        // The elements one position writes (its out_stride, unless it writes a view).
        cost: nest.dims[dim + 1..].iter().fold(w, |c, d| c.saturating_mul(d.extent)),
    }
}

/// The split of a linspace of `len` elements over its first dim (`extents` outermost
/// first).
pub(crate) fn lin_split(len: u64, mut extents: impl Iterator<Item = u64>) -> Split {
    let first = extents.next();
    let rest: u64 = extents.product();
    Split { extent: if len == 0 { 0 } else { first.unwrap_or(1) }, align: 1, cost: 4 * rest }
}

/// The chunks of a threaded call: the next one to take, and how many are done.
struct Progress {
    next: AtomicU64,
    done: AtomicU64,
}

impl JitKernel {
    /// Run the code on `[0, split.extent)` of its split loop. Its callers
    /// ([`Self::run_prepared`], `run_from_ptr(s)`) first check that `input` and `output`
    /// hold `prepared.bytes` (or that the input is not read), or have the caller vouch. Inlined: the one-thread call
    /// is a few compares around the code's; the threaded one is out of line.
    #[inline]
    pub(crate) fn call(&self, prepared: &Prepared, input: *const u8, output: *mut u8) {
        let split = prepared.split;
        if split.extent == 0 {
            return;
        }
        let threads = threads_for(self.threads, split);
        if threads > 1 {
            return self.call_threaded(prepared, input, output, threads);
        }
        // SAFETY: `entry` is the finalized code of a function with this signature.
        let f: EntryFn = unsafe { std::mem::transmute::<usize, EntryFn>(self.code.entry) };
        // `prepared` was encoded from (static) or checked against (dynamic) the schedule this code was
        // emitted for, verified to read only input elements [0, input_len) and to write exactly the output
        // elements [0, output_len) over [0, split.extent) (an output view: each of its elements once, all
        // inside [0, output_len), its buffer).
        // SAFETY: by the above; and run_prepared checked that the buffers hold exactly those elements (or
        // run_from_ptr(s)'s caller vouches for them).
        unsafe { f(input, output, prepared.args.as_ptr(), 0, split.extent as i64) };
        if self.code.streams {
            stream::fence();
        }
    }

    /// [`Self::call`] on `threads` threads (2 to `split.extent`, see [`threads_for`]).
    #[inline(never)]
    fn call_threaded(&self, prepared: &Prepared, input: *const u8, output: *mut u8, threads: usize) {
        let split = prepared.split;
        // SAFETY: `entry` is the finalized code of a function with this signature.
        let f: EntryFn = unsafe { std::mem::transmute::<usize, EntryFn>(self.code.entry) };
        let args = prepared.args.as_ptr();
        // Chunks taken from a shared counter rather than one fixed share per thread: a
        // thread that runs slower (a core shared with another process) takes fewer
        // chunks instead of holding up the call. Chunk bounds are multiples of the split's
        // alignment. The call returns when every chunk is done, not when the helper
        // threads end: a helper that the scheduler starts late finds no chunk left and
        // never touches the buffers, so that it cannot hold up the call either.
        let chunks = (threads as u64 * CHUNKS_PER_THREAD).min(split.extent);
        let align = split.align.max(1);
        let bound = move |c: u64| -> u64 {
            let b = (split.extent as u128 * c as u128 / chunks as u128) as u64;
            if c == chunks { b } else { b - b % align }
        };
        let progress = Arc::new(Progress { next: AtomicU64::new(0), done: AtomicU64::new(0) });
        let streams = self.code.streams;
        // The pointers cross threads as integers; they are dereferenced only inside chunks,
        // and the call (and so the buffers' borrow) lasts until every chunk is done.
        let (ip, op, ap) = (input as usize, output as usize, args as usize);
        let work = move |progress: &Progress| {
            let mut ran = 0;
            loop {
                let c = progress.next.fetch_add(1, Ordering::Relaxed);
                if c >= chunks {
                    break;
                }
                let (lo, hi) = (bound(c), bound(c + 1));
                if lo < hi {
                    // SAFETY: as in `call`, for [lo, hi) ⊂ [0, split.extent); chunks are disjoint whole-byte output
                    // ranges (split.align); the buffers outlive it: the call waits for this chunk (`done`).
                    unsafe { f(ip as *const u8, op as *mut u8, ap as *const i64, lo as i64, hi as i64) };
                }
                ran += 1;
            }
            if streams && ran > 0 {
                stream::fence();
            }
            // Release: the chunks' stores happen before the caller sees them done.
            progress.done.fetch_add(ran, Ordering::Release);
        };
        for _ in 1..threads {
            let (progress, code) = (progress.clone(), self.code.clone());
            // A thread that cannot be started leaves its chunks to the others.
            let _ = std::thread::Builder::new().spawn(move || {
                let _code = code; // the machine code stays mapped while the thread lives
                work(&progress)
            });
        }
        work(&progress);
        while progress.done.load(Ordering::Acquire) < chunks {
            std::thread::yield_now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{MAX_THREADS, THREAD_MIN_COST};

    /// A call spawns no more threads than its split positions, its work in units of
    /// THREAD_MIN_COST, or MAX_THREADS, whatever the setting asks for.
    #[test]
    fn threads_follow_the_work() {
        let split = |extent, cost| Split { extent, align: 1, cost };
        // 8 MiB of output in 1,024 rows: at most 8 threads, even asked for 100,000.
        assert_eq!(threads_for(100_000, split(1024, 8 << 10)), 8);
        assert_eq!(threads_for(4, split(1024, 8 << 10)), 4);
        // At the threshold: two.
        assert_eq!(threads_for(64, split(1024, 1 << 10)), 2);
        // Under THREAD_MIN_COST, or one position: the calling thread only.
        assert_eq!(threads_for(64, split(1000, THREAD_MIN_COST / 1000 - 1)), 1);
        assert_eq!(threads_for(64, split(1, 1 << 40)), 1);
        assert_eq!(threads_for(0, split(1000, 1 << 30)), 1);
        // A huge call: the cap.
        assert_eq!(threads_for(usize::MAX, split(1 << 40, 1 << 30)), MAX_THREADS);
        assert_eq!(threads_for(3, split(2, 1 << 30)), 2);
    }
}
