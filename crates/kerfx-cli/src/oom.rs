//! An allocation that fails ends kerf with one `error:` line and status 1, never an abort.
//!
//! std's handler for a failed infallible allocation prints its own message and aborts,
//! and stable Rust cannot replace it (`set_alloc_error_hook` is unstable); a failed
//! `try_reserve` must still reach the code that asked. So the global allocator notes a
//! failure and sends stderr to /dev/null (std's message and backtrace would follow) until
//! kerf reports an error itself ([`restore_stderr`]: a failure its caller handled). If
//! std aborts instead, SIGABRT's handler restores stderr, removes the pending output's temporary
//! file, writes the `error:` line and exits with status 1 — only async-signal-safe calls.
//! Not covered: the kernel's OOM killer (SIGKILL, see the README), and an abort for
//! another reason while a failure is noted (it is reported as out of memory).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicUsize, Ordering};

/// The size of the allocation that failed last, until one succeeds; 0 when none.
static FAILED: AtomicUsize = AtomicUsize::new(0);
/// stderr as it was, and /dev/null, opened at start; -1 when not.
static STDERR: AtomicI32 = AtomicI32::new(-1);
static DEV_NULL: AtomicI32 = AtomicI32::new(-1);
/// The pending output's temporary file (a NUL-terminated path), or null.
static PENDING: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());
/// Whether the output's signal thread also handles SIGABRT (see [`hand_off_abort`]).
static HANDED_OFF: AtomicBool = AtomicBool::new(false);

pub struct ErrorOnFailure;

fn noted(p: *mut u8, size: usize) -> *mut u8 {
    if p.is_null() && FAILED.swap(size.max(1), Ordering::SeqCst) == 0 {
        let null = DEV_NULL.load(Ordering::SeqCst);
        if null >= 0 {
            // SAFETY: dup2 between descriptors this module opened; no allocation.
            unsafe { libc::dup2(null, 2) };
        }
    }
    p
}

/// Put stderr back before kerf writes to it (after a failure that its caller handled).
pub fn restore_stderr() {
    if FAILED.swap(0, Ordering::SeqCst) != 0 {
        let saved = STDERR.load(Ordering::SeqCst);
        if saved >= 0 {
            // SAFETY: dup2 of the descriptor saved at start back onto 2.
            unsafe { libc::dup2(saved, 2) };
        }
    }
}

// SAFETY: every call is passed on to the system allocator unchanged; only its result is
// inspected.
unsafe impl GlobalAlloc for ErrorOnFailure {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        noted(unsafe { System.alloc(layout) }, layout.size())
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        noted(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        noted(unsafe { System.realloc(ptr, layout, new_size) }, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Write `n` in decimal into `buf`, returning the digits.
fn decimal(mut n: usize, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

extern "C" fn on_abort(_: libc::c_int) {
    let size = FAILED.load(Ordering::SeqCst);
    let pending = PENDING.load(Ordering::SeqCst);
    if size == 0 {
        // Not a failed allocation, and no temporary file registered yet: one may have just
        // been created and be in registration, which the output's signal thread waits for
        // before it removes the file and ends the process by SIGABRT (this handler runs
        // first, in the signal's handler chain: ending the process here would leave the
        // file). An abort() from inside kerf raises SIGABRT again on return.
        if pending.is_null() && HANDED_OFF.load(Ordering::SeqCst) {
            return;
        }
        // Otherwise the process ends by SIGABRT, as it would have, without its temporary
        // file.
        // SAFETY: unlink, signal and raise are async-signal-safe; the path is leaked.
        unsafe {
            if !pending.is_null() {
                libc::unlink(pending);
            }
            libc::signal(libc::SIGABRT, libc::SIG_DFL);
            libc::raise(libc::SIGABRT);
        }
        return;
    }
    let saved = STDERR.load(Ordering::SeqCst);
    let mut digits = [0u8; 20];
    let parts: [&[u8]; 3] = [
        b"error: out of memory: kerf could not allocate ",
        decimal(size, &mut digits),
        b" bytes (a memory limit such as ulimit -v, or too little memory for this request)\n",
    ];
    // SAFETY: dup2, unlink, write and _exit are async-signal-safe; the path is a leaked,
    // NUL-terminated string that is never freed.
    unsafe {
        if saved >= 0 {
            libc::dup2(saved, 2);
        }
        if !pending.is_null() {
            libc::unlink(pending);
        }
        for p in parts {
            libc::write(2, p.as_ptr().cast(), p.len());
        }
        libc::_exit(1);
    }
}

/// Register the temporary file a failure removes (`None`: none). The path is leaked, so
/// that the handler never reads freed memory; a run writes one output.
pub fn set_pending(path: Option<&std::path::Path>) {
    use std::os::unix::ffi::OsStrExt;
    let p = path
        .and_then(|p| std::ffi::CString::new(p.as_os_str().as_bytes()).ok())
        .map_or(std::ptr::null_mut(), |c| c.into_raw());
    PENDING.store(p, Ordering::SeqCst);
}

/// The output's signal thread handles SIGABRT too (its handler runs after this module's):
/// an abort with no temporary file registered is left to it.
pub fn hand_off_abort() {
    HANDED_OFF.store(true, Ordering::SeqCst);
}

/// Open what the handlers need, and handle SIGABRT; before anything else runs.
pub fn install() {
    // SAFETY: fcntl/open on fixed arguments; sigaction with a handler that makes only
    // async-signal-safe calls.
    unsafe {
        STDERR.store(libc::fcntl(2, libc::F_DUPFD_CLOEXEC, 3), Ordering::SeqCst);
        DEV_NULL.store(libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC), Ordering::SeqCst);
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_abort as extern "C" fn(libc::c_int) as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGABRT, &action, std::ptr::null_mut());
    }
}
