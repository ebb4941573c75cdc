//! kerf ahead of time from a build script: [`compile`] compiles a library file (the one
//! `kerf aot` reads) for cargo's `TARGET` into `OUT_DIR` — `lib<lib>.a`, `<lib>.h` and
//! `<lib>.rs` — and tells cargo to link the archive; the crate includes the generated
//! Rust, a module `<lib>` of safe wrappers over the checking C entry points:
//!
//! ```no_run
//! // build.rs's main (kerfx-build is a build-dependency: Cranelift never reaches the crate)
//! if let Err(e) = kerfx_build::compile("kernels/mykernels.toml") {
//!     eprintln!("{e}");
//!     std::process::exit(1);
//! }
//! ```
//!
//! ```text
//! // src/lib.rs
//! include!(concat!(env!("OUT_DIR"), "/mykernels.rs"));
//! // mykernels::crop(&input, &mut output)?  (byte slices; lengths in mykernels::crop::*)
//! ```
//!
//! Each kernel `k` is a function over byte slices (the buffers of the C ABI: raw
//! little-endian elements) returning `Result<(), Error>`: `k(input, output)` (no input
//! for a fill), `k_range(input, output, lo, hi)`, and for a program kernel `k(in_0, …,
//! out_0, …)` and `k_range(in_0, …, out_0, …, lo, hi)`; a module `k` holds its dtype,
//! shapes, byte counts and range extent as constants. The C
//! entry point checks every length and range before anything runs and its status comes
//! back as the generated module's `Error` (below), so no
//! call from safe Rust reads or writes out of bounds. A library with a kernel that calls
//! kerf's runtime library needs `kerfx-rt` as a dependency of the crate (the generated
//! module names it, so its absence is a compile error saying so).
//!
//! # The generated error
//!
//! `<lib>::Error` has one variant per `KERF_ERR_*` code (`Null`, `InputBytes`,
//! `OutputBytes`, `Overlap`, `Range`, `Nomem`) and `Unknown(code)`; it implements
//! `std::error::Error`.

#![warn(missing_docs)]

mod rust;

use kerfx_aot::{Library, Target};
use std::path::{Path, PathBuf};

/// What went wrong: the library file, a kernel, the target or writing `OUT_DIR`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "kerfx-build: {}", self.0)
    }
}

impl std::error::Error for Error {}

/// The files written for one library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Built {
    /// The library's name: the generated module's, the archive's (`lib<name>.a`).
    pub name: String,
    /// `<dir>/<name>.rs`, the Rust wrappers to `include!`.
    pub rust: PathBuf,
    /// `<dir>/<name>.h`, the C header (for C code the crate also builds).
    pub header: PathBuf,
    /// `<dir>/lib<name>.a`, the static library.
    pub archive: PathBuf,
    /// Whether a kernel calls kerf's runtime library (then the crate depends on `kerfx-rt`).
    pub needs_runtime: bool,
    /// The files the output depends on: the library file and each kernel's file.
    pub sources: Vec<PathBuf>,
}

/// From a build script: compile `library` (relative paths: to the crate's directory, as
/// cargo runs build scripts there) for cargo's `TARGET` into `OUT_DIR` ([`write()`]), then
/// tell cargo to link `lib<lib>.a` and to run the script again when a source changes.
pub fn compile(library: impl AsRef<Path>) -> Result<Built, Error> {
    let var = |name: &str| {
        std::env::var(name).map_err(|_| Error(format!("{name} is not set: compile() runs from a build script")))
    };
    let out_dir = PathBuf::from(var("OUT_DIR")?);
    let built = write(library.as_ref(), &out_dir, &var("TARGET")?)?;
    println!("cargo:rustc-link-search=native={}", out_dir.display());
    println!("cargo:rustc-link-lib=static={}", built.name);
    for source in &built.sources {
        println!("cargo:rerun-if-changed={}", source.display());
    }
    Ok(built)
}

/// Compile `library` for the target `triple` (one of [`kerfx_aot::AOT_TRIPLES`], CPU
/// preset the architecture's conservative one) into `dir` (which must exist):
/// `lib<lib>.a`, `<lib>.h`, `<lib>.rs`, and `kerf_rt.h` when a kernel calls the runtime.
/// Prints nothing; errors name the file and kernel.
pub fn write(library: &Path, dir: &Path, triple: &str) -> Result<Built, Error> {
    let lib = Library::load(library).map_err(Error)?;
    let target = Target::aot(triple).map_err(|e| Error(format!("target {triple}: {e}")))?;
    let at = |e: String| Error(format!("{}: {e}", library.display()));
    let kernels = kerfx_aot::compile_kernels(&lib, &target).map_err(at)?;
    let output = kerfx_aot::write_library(&lib.name, &kernels, &target).map_err(at)?;
    let rust_text = rust::wrappers(&lib.name, &kernels, &output, library).map_err(at)?;
    let built = Built {
        name: lib.name.clone(),
        rust: dir.join(format!("{}.rs", lib.name)),
        header: dir.join(format!("{}.h", lib.name)),
        archive: dir.join(format!("lib{}.a", lib.name)),
        needs_runtime: output.needs_runtime,
        sources: std::iter::once(library.to_path_buf()).chain(lib.kernels.iter().map(|k| k.request.clone())).collect(),
    };
    let put = |path: &Path, bytes: &[u8]| {
        std::fs::write(path, bytes).map_err(|e| Error(format!("{}: cannot write: {e}", path.display())))
    };
    put(&built.archive, &kerfx_aot::static_library(&output))?;
    put(&built.header, output.header.as_bytes())?;
    put(&built.rust, rust_text.as_bytes())?;
    if output.needs_runtime {
        put(&dir.join("kerf_rt.h"), kerfx_aot::RUNTIME_HEADER.as_bytes())?;
    }
    Ok(built)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A library `name` of one crop kernel named `kernel`, in `dir`.
    fn library(dir: &Path, name: &str, kernel: &str) -> PathBuf {
        std::fs::write(
            dir.join("crop.toml"),
            "op = \"tensorrt.slice\"\n[attributes]\nstart = [0]\nsize = [2]\nstride = [1]\n\
             [inputs]\ninput = { dtype = \"i8\", shape = [4] }\n",
        )
        .unwrap();
        let path = dir.join("lib.toml");
        std::fs::write(
            &path,
            format!("name = \"{name}\"\n[[kernels]]\nname = \"{kernel}\"\nrequest = \"crop.toml\"\n"),
        )
        .unwrap();
        path
    }

    #[test]
    fn refusals_name_the_problem() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let e = compile(library(d, "mk", "crop")).unwrap_err().to_string();
        assert!(e.contains("OUT_DIR is not set"), "{e}");
        let e = write(&library(d, "mk", "crop"), d, "mips-unknown-linux-gnu").unwrap_err().to_string();
        assert!(e.contains("target mips-unknown-linux-gnu"), "{e}");
        for (lib, kernel) in [("crate", "crop"), ("mk", "self"), ("mk", "super")] {
            let e = write(&library(d, lib, kernel), d, "x86_64-unknown-linux-gnu").unwrap_err().to_string();
            assert!(e.contains("cannot name a Rust module or function"), "{e}");
        }
        let e = write(&d.join("none.toml"), d, "x86_64-unknown-linux-gnu").unwrap_err().to_string();
        assert!(e.contains("none.toml"), "{e}");
    }

    #[test]
    fn writes_the_archive_header_and_wrappers_with_raw_identifiers() {
        let dir = tempfile::tempdir().unwrap();
        let built = write(&library(dir.path(), "type", "match"), dir.path(), "aarch64-unknown-linux-gnu").unwrap();
        assert!(!built.needs_runtime && built.sources.len() == 2);
        assert!(std::fs::read(&built.archive).unwrap().starts_with(b"!<arch>\n"));
        assert!(std::fs::read_to_string(&built.header).unwrap().contains("int32_t type_match("));
        let rust = std::fs::read_to_string(&built.rust).unwrap();
        assert!(rust.contains("pub mod r#type {") && rust.contains("pub fn r#match(input: &[u8], output: &mut [u8])"));
        assert!(rust.contains("pub fn match_range(") && rust.contains("fn type_match_range("));
        assert!(!rust.contains("kerfx_rt"), "a runtime-free library names no runtime");
    }
}
