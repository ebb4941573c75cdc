//! The library file: `name = "mykernels"`, then `[[kernels]]` tables of `name` and
//! `request` (a request, chain or graph file, relative to the library file), and
//! `dynamic = true` for a dynamic kernel (a request file's op, dtype and rank; its
//! numbers given at run time through a plan).

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The longest library file read (a list of names and paths).
const MAX_LIBRARY_BYTES: u64 = 1 << 20;

/// One kernel of a library: its name and the request, chain or graph file it is compiled from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelEntry {
    /// The kernel's name (a C identifier; the entry point is `<lib>_<name>`).
    pub name: String,
    /// The request, chain or graph file, resolved against the library file's directory.
    pub request: PathBuf,
    /// A dynamic kernel (`dynamic = true`): specialized on the request's op, mode, dtype
    /// and rank, its input shape and integer parameters given per plan.
    pub dynamic: bool,
}

/// A parsed library file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Library {
    /// The library's name (a C identifier: the prefix of every symbol, the file names).
    pub name: String,
    /// Its kernels, in the file's order.
    pub kernels: Vec<KernelEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLibrary {
    name: String,
    #[serde(default)]
    kernels: Vec<RawKernel>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKernel {
    name: String,
    request: String,
    #[serde(default)]
    dynamic: bool,
}

/// Whether `s` is a C identifier kerf accepts as a name: lowercase ASCII letters,
/// digits and `_`, starting with a letter, at most 64 bytes (so that every symbol made
/// of it is a valid, portable C name).
pub(crate) fn is_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && b[0].is_ascii_lowercase()
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_')
}

/// Whether a kernel name is reserved: `info`, or ending in `_range` or `_plan` (entry
/// points kerf adds to a kernel's).
pub(crate) fn is_reserved(name: &str) -> bool {
    name == "info" || name.ends_with("_range") || name.ends_with("_plan")
}

impl Library {
    /// Read and parse a library file (a regular file of at most 1 MiB).
    pub fn load(path: &Path) -> Result<Library, String> {
        let meta = std::fs::metadata(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        if !meta.is_file() {
            return Err(format!("{}: not a regular file", path.display()));
        }
        if meta.len() > MAX_LIBRARY_BYTES {
            return Err(format!("{}: a library file may be at most 1 MiB", path.display()));
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        Library::parse(&text, path.parent().unwrap_or(Path::new(""))).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parse a library file's text; request paths are resolved against `base`.
    pub fn parse(text: &str, base: &Path) -> Result<Library, String> {
        let raw: RawLibrary = toml::from_str(text).map_err(|e| e.message().to_string() + &where_(text, &e))?;
        if !is_name(&raw.name) {
            return Err(format!(
                "library name {:?}: a name is lowercase letters, digits and `_`, starting with a letter, at most 64 bytes",
                raw.name
            ));
        }
        if raw.kernels.is_empty() {
            return Err("a library lists at least one kernel ([[kernels]] with name and request)".into());
        }
        let mut kernels: Vec<KernelEntry> = Vec::with_capacity(raw.kernels.len());
        for k in raw.kernels {
            if !is_name(&k.name) {
                return Err(format!(
                    "kernel name {:?}: a name is lowercase letters, digits and `_`, starting with a letter, at most 64 bytes",
                    k.name
                ));
            }
            if is_reserved(&k.name) {
                return Err(format!(
                    "kernel name {:?}: reserved (entry points `_range`, `_plan` and `info` are kerf's)",
                    k.name
                ));
            }
            if kernels.iter().any(|e| e.name == k.name) {
                return Err(format!("kernel {:?} is listed twice", k.name));
            }
            kernels.push(KernelEntry { name: k.name, request: base.join(k.request), dynamic: k.dynamic });
        }
        Ok(Library { name: raw.name, kernels })
    }
}

/// ` (line L)` of a TOML error, when it has a position.
fn where_(text: &str, e: &toml::de::Error) -> String {
    e.span().map_or_else(String::new, |s| format!(" (line {})", text[..s.start].matches('\n').count() + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_refuses_names() {
        let lib = Library::parse("name = \"mk\"\n[[kernels]]\nname = \"a1\"\nrequest = \"r.toml\"\n", Path::new("d"))
            .unwrap();
        assert_eq!(
            lib.kernels,
            [KernelEntry { name: "a1".into(), request: PathBuf::from("d/r.toml"), dynamic: false }]
        );
        let lib = Library::parse(
            "name = \"mk\"\n[[kernels]]\nname = \"a\"\nrequest = \"r\"\ndynamic = true\n",
            Path::new(""),
        )
        .unwrap();
        assert!(lib.kernels[0].dynamic);
        for (text, want) in [
            ("name = \"Mk\"\n[[kernels]]\nname = \"a\"\nrequest = \"r\"\n", "library name \"Mk\""),
            ("name = \"mk\"\n", "at least one kernel"),
            (
                "name = \"mk\"\n[[kernels]]\nname = \"a\"\nrequest = \"r\"\n[[kernels]]\nname = \"a\"\nrequest = \"s\"\n",
                "listed twice",
            ),
            ("name = \"mk\"\n[[kernels]]\nname = \"a_range\"\nrequest = \"r\"\n", "reserved"),
            ("name = \"mk\"\n[[kernels]]\nname = \"a\"\nrequest = \"r\"\ndynamic = 1\n", "invalid type"),
            ("name = \"mk\"\n[[kernels]]\nname = \"a\"\nrequest = \"r\"\nextra = 1\n", "unknown field `extra`"),
        ] {
            let e = Library::parse(text, Path::new("")).unwrap_err();
            assert!(e.contains(want), "{e}");
        }
    }
}
