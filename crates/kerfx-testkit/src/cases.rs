//! The conformance cases on disk (shared by the crate and its build script, which writes
//! the suite macro from them).

use std::path::{Path, PathBuf};

/// tests/data/conformance: one folder per case.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/conformance")
}

/// The cases' folder names (those holding a `request.toml`), sorted.
pub fn case_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(data_dir())
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.path().join("request.toml").is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// A case's name as a Rust identifier.
pub fn ident(case: &str) -> String {
    let id: String = case.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if id.starts_with(|c: char| c.is_ascii_digit()) { format!("case_{id}") } else { id }
}
