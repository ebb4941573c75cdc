//! Opening the files kerf reads: regular files only, and never blocking on one that is not.

use crate::error::FileError;
use std::fs::{self, File, Metadata};
use std::io;
use std::path::Path;

/// What kind of file a non-regular file is, for messages.
pub fn file_kind(m: &Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    if m.is_dir() { "a directory" } else { "not a regular file" }
}

/// Open a regular file for reading, with its length; anything else (a directory, FIFO,
/// socket or device, which could block or never end) is refused. `action` names the
/// failure ("cannot open", "cannot read").
pub(crate) fn open_regular(path: &Path, action: &'static str) -> Result<(File, u64), FileError> {
    let refuse = |m: &Metadata| {
        FileError::io(path, action, io::Error::other(format!("it is {}, not a regular file", file_kind(m))))
    };
    // The type is checked before opening: opening a FIFO waits for a writer.
    let meta = fs::metadata(path).map_err(|e| FileError::io(path, action, e))?;
    if !meta.is_file() {
        return Err(refuse(&meta));
    }
    let mut open = fs::OpenOptions::new();
    open.read(true);
    #[cfg(unix)]
    {
        // Should the path have become a FIFO since the check, opening it must not wait.
        use std::os::unix::fs::OpenOptionsExt;
        open.custom_flags(libc::O_NONBLOCK);
    }
    let file = open.open(path).map_err(|e| FileError::io(path, action, e))?;
    // The file opened is the one read: checked again on the open descriptor.
    let meta = file.metadata().map_err(|e| FileError::io(path, action, e))?;
    if !meta.is_file() {
        return Err(refuse(&meta));
    }
    Ok((file, meta.len()))
}
