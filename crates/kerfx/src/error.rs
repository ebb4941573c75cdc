//! Errors of the facade's file handling: every message names the file, and for
//! request files the line and column.

use std::path::{Path, PathBuf};

/// An error reading or writing a file (`.npy`, request TOML), or of a request that
/// a file describes. The message always starts with the file's path.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file could not be opened, read, created or renamed.
    #[error("{}: {action}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done ("open", "read", "create", "rename", ...).
        action: &'static str,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// The file is not a `.npy` kerf can read (truncated, corrupt header, unsupported dtype),
    /// or a tensor cannot be stored in one.
    #[error("{}: {detail}", path.display())]
    Npy {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },

    /// The request file is not valid TOML, or a key has the wrong type.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The line of the error (from 1).
        line: usize,
        /// The column of the error (from 1).
        column: usize,
        /// The TOML parser's message.
        message: String,
    },

    /// The request file is valid TOML but says something kerf cannot turn into a request
    /// (an inline tensor with the wrong number of values, an unknown dtype, ...).
    /// `line`/`column` point at the offending value when known.
    #[error("{}{}: {detail}", path.display(), location(*line, *column))]
    Request {
        /// The file.
        path: PathBuf,
        /// The line of the offending value, when known.
        line: Option<usize>,
        /// Its column, when known.
        column: Option<usize>,
        /// What is wrong.
        detail: String,
    },
}

fn location(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        (Some(l), None) => format!(":{l}"),
        _ => String::new(),
    }
}

impl FileError {
    pub(crate) fn io(path: &Path, action: &'static str, source: std::io::Error) -> FileError {
        FileError::Io { path: path.to_path_buf(), action, source }
    }
    pub(crate) fn npy(path: &Path, detail: impl Into<String>) -> FileError {
        FileError::Npy { path: path.to_path_buf(), detail: detail.into() }
    }
    /// The file this error is about.
    pub fn path(&self) -> &Path {
        match self {
            FileError::Io { path, .. }
            | FileError::Npy { path, .. }
            | FileError::Syntax { path, .. }
            | FileError::Request { path, .. } => path,
        }
    }
}

/// 1-based line and column (in characters) of byte offset `at` in `text`.
pub(crate) fn line_column(text: &str, at: usize) -> (usize, usize) {
    line_columns(text, &[at])[0]
}

/// [`line_column`] of every offset, in one pass over `text` (a request's every entry is
/// located at once: one scan per entry made parsing quadratic in the file).
pub(crate) fn line_columns(text: &str, offsets: &[usize]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_unstable_by_key(|&i| offsets[i]);
    let mut out = vec![(1, 1); offsets.len()];
    // The scan so far: up to byte `pos`, which is on `line` at `column`.
    let (mut pos, mut line, mut column) = (0usize, 1usize, 1usize);
    for i in order {
        let mut at = offsets[i].min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        for c in text[pos..at].chars() {
            if c == '\n' {
                line += 1;
                column = 1;
            } else {
                column += 1;
            }
        }
        #[cfg(test)]
        scanned::add(at - pos);
        pos = at;
        out[i] = (line, column);
    }
    out
}

/// Bytes of text scanned for positions on this thread, for the tests that parsing scans
/// a file once.
#[cfg(test)]
pub(crate) mod scanned {
    use std::cell::Cell;
    thread_local!(static SCANNED: Cell<usize> = const { Cell::new(0) });
    pub fn add(n: usize) {
        SCANNED.with(|c| c.set(c.get() + n));
    }
    /// The bytes scanned so far, set back to zero.
    pub fn take() -> usize {
        SCANNED.with(|c| c.replace(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_counts_from_one() {
        let t = "a = 1\nbé = x\n";
        assert_eq!(line_column(t, 0), (1, 1));
        assert_eq!(line_column(t, 6), (2, 1));
        assert_eq!(line_column(t, 12), (2, 6));
        assert_eq!(line_column(t, 1000), (3, 1));
        assert_eq!(line_columns(t, &[12, 0, 6, 3]), [(2, 6), (1, 1), (2, 1), (1, 4)]);
    }
}
