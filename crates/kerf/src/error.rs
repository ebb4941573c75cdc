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
        path: PathBuf,
        action: &'static str,
        #[source]
        source: std::io::Error,
    },

    /// The file is not a `.npy` kerf can read (truncated, corrupt header, unsupported dtype),
    /// or a tensor cannot be stored in one.
    #[error("{}: {detail}", path.display())]
    Npy { path: PathBuf, detail: String },

    /// The request file is not valid TOML, or a key has the wrong type.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Syntax { path: PathBuf, line: usize, column: usize, message: String },

    /// The request file is valid TOML but says something kerf cannot turn into a request
    /// (an inline tensor with the wrong number of values, an unknown dtype, ...).
    /// `line`/`column` point at the offending value when known.
    #[error("{}{}: {detail}", path.display(), location(*line, *column))]
    Request { path: PathBuf, line: Option<usize>, column: Option<usize>, detail: String },
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
    let at = at.min(text.len());
    let mut at = at;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
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
    }
}
