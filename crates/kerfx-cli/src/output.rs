//! `kerf run -o OUT`: the output file, written the way `cp` and `gcc -o` treat theirs.
//!
//! - OUT is checked before the run: a new file in an existing directory, or an existing
//!   regular file kerf may write. A directory, FIFO, socket or device at OUT is refused,
//!   never replaced; so is a read-only file. A symlink is written through: the regular
//!   file it points to is replaced and the link stays (a link to anything else, or to
//!   nothing, is refused). OUT naming the request file or an input of the same run is
//!   refused, like gcc's "input file is the same as output file".
//! - The output goes to a temporary file beside the file it replaces, which is synced and
//!   renamed over it only when everything is written. A failed run leaves whatever is at
//!   OUT as it was and leaves no new file; of concurrent runs on one OUT the last
//!   successful rename wins. Every signal that ends a process and can be handled
//!   ([`cleanup::ending`]) removes the temporary file during the write before the process
//!   ends by that signal; SIGXFSZ (`ulimit -f`) is ignored, so that the write fails with
//!   EFBIG and the ordinary error path removes it. SIGKILL (and so the OOM killer) cannot
//!   be caught, nor can a fault of kerf itself (SIGSEGV, SIGBUS, SIGILL, SIGFPE) be
//!   recovered from: those leave the temporary file.

use crate::CliError;
use kerfx::Tensor;
use std::fs::{self, Metadata};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Where `kerf run -o` writes, as checked before the run.
pub struct Target {
    /// OUT as the user wrote it (for messages).
    shown: PathBuf,
    /// The path that is replaced: OUT, or the file a symlink at OUT points to.
    path: PathBuf,
    /// The regular file there now, if any.
    existing: Option<Metadata>,
}

use kerfx::file_kind as kind;

/// The directory a file is created in.
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Check OUT before anything runs (see the module docs for what is refused).
pub fn check(out: &Path) -> Result<Target, CliError> {
    let err = |m: String| CliError::new(format!("{}: {m}", out.display()));
    let refuse = |what: String| {
        err(format!("is {what}; kerf writes its output only to a regular file and never replaces anything else"))
    };
    if let Some(fd) = open_descriptor(out) {
        let what = match fd.as_str() {
            "0" => "kerf's standard input".to_string(),
            "1" => "kerf's standard output".to_string(),
            "2" => "kerf's standard error".to_string(),
            n => format!("kerf's open file descriptor {n}"),
        };
        let kind = match fs::metadata(out) {
            Ok(m) if m.is_file() => "a regular file",
            Ok(m) => kind(&m),
            Err(_) => "closed",
        };
        return Err(err(format!(
            "is {what}, {kind}, not a file path; kerf writes -o by renaming a temporary file over a \
             regular file, which a descriptor cannot take: name a file, or leave out -o to print the values"
        )));
    }
    let (path, existing) = match fs::symlink_metadata(out) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let dir = dir_of(out);
            if !fs::metadata(dir).is_ok_and(|m| m.is_dir()) {
                return Err(err(format!("cannot write: the directory {} does not exist", dir.display())));
            }
            (out.to_path_buf(), None)
        }
        Err(e) => return Err(err(format!("cannot write: {e}"))),
        Ok(m) if m.file_type().is_symlink() => {
            let real = fs::canonicalize(out)
                .map_err(|e| err(format!("is a symlink kerf cannot follow to an existing file ({e}); kerf writes through a symlink only to a regular file")))?;
            let m = fs::metadata(&real).map_err(|e| err(format!("cannot write: {e}")))?;
            if !m.is_file() {
                return Err(refuse(format!("a symlink to {} ({})", kind(&m), real.display())));
            }
            (real, Some(m))
        }
        Ok(m) if !m.is_file() => return Err(refuse(kind(&m).to_string())),
        Ok(m) => (out.to_path_buf(), Some(m)),
    };
    if let Some(m) = &existing {
        // A file nobody may write is read-only even for root, who could replace it.
        if m.permissions().readonly() {
            return Err(err("is read-only; kerf does not replace it".into()));
        }
        // Opening for writing without truncating changes nothing; it asks the system
        // whether this process may write the file.
        let mut open = fs::OpenOptions::new();
        open.write(true);
        #[cfg(unix)]
        {
            // Should it have become a FIFO since the check, fail instead of blocking.
            use std::os::unix::fs::OpenOptionsExt;
            open.custom_flags(libc::O_NONBLOCK);
        }
        match open.open(&path) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                return Err(err("is read-only; kerf does not replace it".into()));
            }
            Err(e) => return Err(err(format!("cannot write: {e}"))),
        }
    }
    Ok(Target { shown: out.to_path_buf(), path, existing })
}

/// The descriptor number when `out` is, or leads by symlinks to, an entry of this
/// process's descriptor directory (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`).
fn open_descriptor(out: &Path) -> Option<String> {
    let fd_dir = fs::canonicalize("/proc/self/fd").ok()?;
    let mut p = out.to_path_buf();
    // A bounded walk: a symlink loop ends here, and check() then reports it.
    for _ in 0..40 {
        let dir = fs::canonicalize(dir_of(&p)).ok()?;
        if dir == fd_dir {
            return p.file_name().map(|n| n.to_string_lossy().into_owned());
        }
        let next = fs::read_link(&p).ok()?;
        p = dir.join(next);
    }
    None
}

impl Target {
    /// Refuse to replace a file this run reads (`what` says which, e.g. "the request file").
    pub fn refuse_input(&self, input: &Path, what: &str) -> Result<(), CliError> {
        let (Some(out), Ok(inp)) = (&self.existing, fs::metadata(input)) else {
            return Ok(());
        };
        if same_file(out, &inp) {
            return Err(CliError::new(format!(
                "{}: is {what} of this run ({}); kerf does not overwrite its own inputs, write the output elsewhere",
                self.shown.display(),
                input.display()
            )));
        }
        Ok(())
    }

    /// Write named arrays: one as `.npy`, or any number as `.npz` (one entry per array)
    /// when the target ends in `.npz`; several arrays need a `.npz` target. Written to a
    /// temporary file beside the target, renamed over it at the end.
    pub fn write_arrays(&self, arrays: &[(String, Tensor)]) -> Result<(), CliError> {
        let npz = self.path.extension().is_some_and(|e| e.eq_ignore_ascii_case("npz"));
        if !npz && arrays.len() != 1 {
            let names: Vec<&str> = arrays.iter().map(|(n, _)| n.as_str()).collect();
            return Err(CliError::new(format!(
                "{}: the run gives {} outputs ({}); write them to a .npz file (-o OUT.npz)",
                self.shown.display(),
                arrays.len(),
                names.join(", ")
            )));
        }
        self.write_with(|w| match arrays {
            [(_, t)] if !npz => kerfx::npy::to_writer(w, t),
            _ => kerfx::npz::to_writer(w, arrays),
        })
    }

    /// Write the file with `body`: a temporary file beside the target, renamed over it
    /// only when `body` and the sync succeed.
    fn write_with(
        &self,
        body: impl FnOnce(&mut io::BufWriter<&std::fs::File>) -> io::Result<()>,
    ) -> Result<(), CliError> {
        let err = |action: &str, e: io::Error| CliError::new(format!("{}: {action}: {e}", self.shown.display()));
        let name = self
            .path
            .file_name()
            .ok_or_else(|| CliError::new(format!("{}: cannot write: the path names no file", self.shown.display())))?;
        let prefix = format!(".{}.", name.to_string_lossy());
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        // An ordinary new file's permissions (0666 less the umask), not a temporary file's 0600.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(fs::Permissions::from_mode(0o666));
        }
        cleanup::install();
        // Created and registered under the handler's lock: a signal finds it registered.
        let slot = cleanup::slot();
        let tmp =
            builder.tempfile_in(dir_of(&self.path)).map_err(|e| err("cannot create a temporary file beside it", e))?;
        let pending = cleanup::Pending::new(slot, tmp.path());
        {
            let mut w = io::BufWriter::with_capacity(1 << 20, tmp.as_file());
            body(&mut w).map_err(|e| err("cannot write", e))?;
            w.flush().map_err(|e| err("cannot write", e))?;
        }
        if let Some(m) = &self.existing {
            // A replaced file keeps its permissions, as `cp` keeps them.
            tmp.as_file().set_permissions(m.permissions()).map_err(|e| err("cannot write", e))?;
        }
        tmp.as_file().sync_all().map_err(|e| err("cannot write", e))?;
        let rename = pending.lock();
        // Whatever appeared at the path during the run is replaced only if it is a file.
        match fs::symlink_metadata(&self.path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Ok(m) if m.is_file() => {}
            Ok(m) => {
                return Err(CliError::new(format!(
                    "{}: is now {}; kerf does not replace it",
                    self.shown.display(),
                    kind(&m)
                )));
            }
            Err(e) => return Err(err("cannot write", e)),
        }
        tmp.persist(&self.path).map_err(|e| err("cannot rename the temporary file to it", e.error))?;
        cleanup::Pending::renamed(rename);
        Ok(())
    }
}

#[cfg(unix)]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(_: &Metadata, _: &Metadata) -> bool {
    false
}

pub use cleanup::ignore_file_size_limit;

/// Removing the temporary file when a signal ends the process during the write.
mod cleanup {
    use std::path::{Path, PathBuf};
    use std::sync::{Mutex, MutexGuard, PoisonError};

    /// The temporary file being written, if any.
    static PENDING: Mutex<Option<PathBuf>> = Mutex::new(None);

    /// The registration, locked (the signal handler waits while it is held).
    pub fn slot() -> MutexGuard<'static, Option<PathBuf>> {
        PENDING.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A temporary file registered for removal on a signal; unregistered when dropped
    /// (the file itself is then renamed, or removed by its own guard).
    pub struct Pending;

    impl Pending {
        pub fn new(mut slot: MutexGuard<'static, Option<PathBuf>>, path: &Path) -> Pending {
            *slot = Some(path.to_path_buf());
            #[cfg(unix)]
            crate::oom::set_pending(Some(path));
            Pending
        }
        /// The file is renamed to the output: no longer removed on a signal.
        pub fn renamed(mut slot: MutexGuard<'static, Option<PathBuf>>) {
            *slot = None;
            #[cfg(unix)]
            crate::oom::set_pending(None);
        }
        /// Hold off the signal handler (for the rename: the file is then either still
        /// the temporary one, or already the output).
        pub fn lock(&self) -> MutexGuard<'static, Option<PathBuf>> {
            slot()
        }
    }

    impl Drop for Pending {
        fn drop(&mut self) {
            Pending::renamed(slot());
        }
    }

    /// The signals whose default action ends the process and that can be handled: all
    /// but SIGKILL and SIGSTOP, and the faults (SIGSEGV, SIGBUS, SIGILL, SIGFPE), whose
    /// handler would return to the faulting instruction. SIGXFSZ is ignored instead
    /// ([`ignore_file_size_limit`]).
    #[cfg(unix)]
    pub fn ending() -> Vec<libc::c_int> {
        use libc::*;
        #[allow(unused_mut)]
        let mut v = vec![
            SIGHUP, SIGINT, SIGQUIT, SIGTRAP, SIGABRT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGVTALRM,
            SIGPROF, SIGIO, SIGSYS,
        ];
        #[cfg(any(target_os = "linux", target_os = "android"))]
        v.extend([SIGSTKFLT, SIGPWR].into_iter().chain(SIGRTMIN()..=SIGRTMAX()));
        v
    }

    /// Ignore SIGXFSZ: a write beyond `ulimit -f` then fails with EFBIG, an error the
    /// write reports and cleans up after, instead of ending the process mid-write.
    #[cfg(unix)]
    pub fn ignore_file_size_limit() {
        // SAFETY: setting a signal's disposition to SIG_IGN installs no handler code.
        unsafe {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        }
    }

    #[cfg(not(unix))]
    pub fn ignore_file_size_limit() {}

    /// Start the thread that, on any of [`ending`], removes the pending file and ends the
    /// process by the same signal (so the parent sees what it sent).
    #[cfg(unix)]
    pub fn install() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let Ok(mut signals) = signal_hook::iterator::Signals::new([] as [libc::c_int; 0]) else {
                return;
            };
            // One by one: a signal the system refuses must not leave the others unhandled.
            for sig in ending() {
                if signals.add_signal(sig).is_ok() && sig == libc::SIGABRT {
                    crate::oom::hand_off_abort();
                }
            }
            std::thread::spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    let guard = slot();
                    if let Some(p) = guard.as_ref() {
                        let _ = std::fs::remove_file(p);
                    }
                    // signal_hook's emulation knows the standard signals only, not the
                    // real-time ones: restore the default action and raise it here.
                    // SAFETY: SIG_DFL installs no handler code; the set is a local value.
                    unsafe {
                        libc::signal(sig, libc::SIG_DFL);
                        let mut set: libc::sigset_t = std::mem::zeroed();
                        libc::sigemptyset(&mut set);
                        libc::sigaddset(&mut set, sig);
                        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
                        libc::raise(sig);
                    }
                    std::process::exit(128 + sig);
                }
            });
        });
    }

    #[cfg(not(unix))]
    pub fn install() {}
}
