//! `kerf aot LIB.toml -o DIR`: a library of kernels written as `DIR/<lib>.o` (or
//! `DIR/lib<lib>.a`, or with `--shared` `DIR/lib<lib>.so` linked by the system C compiler
//! and `DIR/<lib>.pc`) and `DIR/<lib>.h` (and `DIR/kerf_rt.h` when a kernel calls the
//! runtime library). Everything is compiled in memory first; the files
//! are written to temporary files in DIR and renamed into place at the end, so an error
//! leaves no partial output (and no DIR that kerf created). A file already at one of the
//! names is replaced only if kerf wrote it (a header that says so, an object holding the
//! library's info table); anything else there is refused.

use crate::CliError;
use kerfx_aot::{Library, Target};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `--emit`: what `kerf aot` writes beside the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EmitArg {
    /// `<lib>.o`, a relocatable object.
    Obj,
    /// `lib<lib>.a`, a static library holding the object.
    Staticlib,
}

/// What `kerf aot` writes beside the header: `--emit`'s choices, or `--shared`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Emit {
    /// `<lib>.o`.
    Obj,
    /// `lib<lib>.a`.
    Staticlib,
    /// `lib<lib>.so` linked by the system C compiler (with the runtime archive when a
    /// kernel calls it) and `<lib>.pc`.
    Shared {
        /// `libkerfx_rt.a`, needed when a kernel calls the runtime library.
        runtime: Option<PathBuf>,
    },
}

impl From<EmitArg> for Emit {
    fn from(e: EmitArg) -> Emit {
        match e {
            EmitArg::Obj => Emit::Obj,
            EmitArg::Staticlib => Emit::Staticlib,
        }
    }
}

pub fn aot(library: &Path, dir: &Path, emit: Emit, triple: &str, cpu: Option<&str>) -> Result<(), CliError> {
    let target = Target::aot(triple).map_err(|e| CliError::new(format!("--target: {e}")))?;
    let target = match cpu {
        None => target,
        Some(cpu) => Target::aot_cpu(triple, cpu).map_err(|e| CliError::new(format!("--cpu: {e}")))?,
    };
    let lib = Library::load(library).map_err(CliError::new)?;
    let output = kerfx_aot::compile(&lib, &target).map_err(|e| CliError::new(format!("{}: {e}", library.display())))?;
    let mut files = match &emit {
        Emit::Obj => vec![(format!("{}.o", lib.name), output.object.clone())],
        Emit::Staticlib => vec![(format!("lib{}.a", lib.name), kerfx_aot::static_library(&output))],
        Emit::Shared { runtime } => {
            let absolute = std::path::absolute(dir).map_err(|e| CliError::new(format!("{}: {e}", dir.display())))?;
            vec![
                (format!("lib{}.so", lib.name), shared_library(&output, triple, runtime.as_deref())?),
                (format!("{}.pc", lib.name), pkg_config(&lib.name, &absolute, output.needs_runtime).into_bytes()),
            ]
        }
    };
    files.push((format!("{}.h", lib.name), output.header.into_bytes()));
    if output.needs_runtime {
        files.push(("kerf_rt.h".to_string(), kerfx_aot::RUNTIME_HEADER.as_bytes().to_vec()));
    }
    let err = |m: String| CliError::new(format!("{}: {m}", dir.display()));
    // A symlink to a directory is written through, as `cp` does.
    let created = match fs::metadata(dir) {
        Ok(m) if m.is_dir() => false,
        Ok(_) => return Err(err("is not a directory".into())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            fs::create_dir(dir).map_err(|e| err(format!("cannot create the directory: {e}")))?;
            true
        }
        Err(e) => return Err(err(format!("cannot read: {e}"))),
    };
    let result = write_all(dir, &lib.name, &files);
    if result.is_err() && created {
        let _ = fs::remove_dir_all(dir);
    }
    result
}

/// Check every name, write every file to a temporary file beside it, then rename them
/// all (the temporary files are removed on any error before the renames).
fn write_all(dir: &Path, lib: &str, files: &[(String, Vec<u8>)]) -> Result<(), CliError> {
    for (name, _) in files {
        check_replaceable(&dir.join(name), lib)?;
    }
    let mut pending = Vec::with_capacity(files.len());
    for (name, bytes) in files {
        let path = dir.join(name);
        let err = |e: std::io::Error| CliError::new(format!("{}: cannot write: {e}", path.display()));
        let prefix = format!(".{name}.");
        let mut b = tempfile::Builder::new();
        b.prefix(&prefix).suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            b.permissions(fs::Permissions::from_mode(0o666));
        }
        let mut tmp = b.tempfile_in(dir).map_err(err)?;
        tmp.write_all(bytes).map_err(err)?;
        tmp.as_file().sync_all().map_err(err)?;
        pending.push((tmp, path));
    }
    for (tmp, path) in pending {
        tmp.persist(&path).map_err(|e| {
            CliError::new(format!("{}: cannot rename the temporary file to it: {}", path.display(), e.error))
        })?;
    }
    Ok(())
}

/// A file at `path` may be replaced only if kerf wrote it for this library.
fn check_replaceable(path: &PathBuf, lib: &str) -> Result<(), CliError> {
    let refuse = |what: &str| {
        CliError::new(format!("{}: {what}; kerf replaces only the files it wrote, remove it first", path.display()))
    };
    let meta = match fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(CliError::new(format!("{}: cannot read: {e}", path.display()))),
        Ok(m) => m,
    };
    if !meta.is_file() {
        return Err(refuse("exists and is not a regular file"));
    }
    let bytes = fs::read(path).map_err(|e| CliError::new(format!("{}: cannot read: {e}", path.display())))?;
    let marker = if path.file_name().is_some_and(|n| n == "kerf_rt.h") {
        "/* kerf_rt.h: kerf's runtime library".to_string()
    } else if path.extension().is_some_and(|e| e == "pc") {
        format!("# {lib}.pc: generated by kerf aot")
    } else if path.extension().is_some_and(|e| e == "h") {
        format!("/* {lib}.h: generated by kerf aot")
    } else {
        format!("\0{lib}__library\0")
    };
    if bytes.windows(marker.len()).any(|w| w == marker.as_bytes()) {
        Ok(())
    } else {
        Err(refuse("exists and was not written by kerf aot for this library"))
    }
}

/// The host's architecture, as it starts a target triple.
const HOST_ARCH: &str = std::env::consts::ARCH;

/// `lib<lib>.so`: the object (and `runtime`, the runtime archive, when a kernel calls it)
/// linked by `$CC` (else `cc`) with `-shared`, refusing text relocations and undefined
/// symbols other than libc's. A target of another architecture needs `$CC` set to its
/// compiler.
fn shared_library(output: &kerfx_aot::Output, triple: &str, runtime: Option<&Path>) -> Result<Vec<u8>, CliError> {
    let cc = std::env::var_os("CC").filter(|c| !c.is_empty());
    if cc.is_none() && !triple.starts_with(HOST_ARCH) {
        return Err(CliError::new(format!(
            "--shared --target {triple}: set CC to a C compiler for {triple} (cc builds for {HOST_ARCH})"
        )));
    }
    let runtime = match (output.needs_runtime, runtime) {
        (true, None) => {
            return Err(CliError::new(
                "--shared: a kernel calls kerf's runtime library; give --runtime path/to/libkerfx_rt.a (`cargo build --release -p kerfx-rt` builds it)",
            ));
        }
        (true, Some(r)) if !r.is_file() => {
            return Err(CliError::new(format!("--runtime {}: not a file", r.display())));
        }
        (true, Some(r)) => Some(r),
        (false, _) => None,
    };
    let scratch = tempfile::tempdir().map_err(|e| CliError::new(format!("a temporary directory: {e}")))?;
    let object = scratch.path().join(format!("{}.o", output.name));
    let so = scratch.path().join(format!("lib{}.so", output.name));
    fs::write(&object, &output.object).map_err(|e| CliError::new(format!("{}: {e}", object.display())))?;
    let cc = cc.unwrap_or_else(|| "cc".into());
    let mut cmd = std::process::Command::new(&cc);
    cmd.args(["-shared", "-Wl,-z,text", "-Wl,-z,defs", "-o"]).arg(&so).arg(&object);
    if let Some(r) = runtime {
        if output.plans {
            // Dynamic kernels' callers build, size and free plans with the runtime's
            // kerf_rt1_plan_* functions: the library exports them and its own, no other.
            let script = scratch.path().join("exports.map");
            let globals: String = output.exported.iter().map(|s| format!("{s}; ")).collect();
            fs::write(&script, format!("{{ global: {globals}kerf_rt1_plan_*; local: *; }};\n"))
                .map_err(|e| CliError::new(format!("{}: {e}", script.display())))?;
            cmd.arg(r).arg(format!("-Wl,--version-script={}", script.display()));
        } else {
            // The runtime's symbols stay inside: the library exports only its own.
            cmd.arg(r).arg("-Wl,--exclude-libs,ALL");
        }
        cmd.args(["-lpthread", "-ldl", "-lm"]);
    }
    let shown = cc.to_string_lossy().into_owned();
    let out = cmd.output().map_err(|e| CliError::new(format!("--shared: cannot run `{shown}`: {e}")))?;
    if !out.status.success() {
        return Err(CliError::new(format!(
            "--shared: `{shown} -shared` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    fs::read(&so).map_err(|e| CliError::new(format!("{}: {e}", so.display())))
}

/// `<lib>.pc`: pkg-config's description of the shared library in `dir` (absolute).
fn pkg_config(lib: &str, dir: &Path, needs_runtime: bool) -> String {
    let private = if needs_runtime { "Libs.private: -lpthread -ldl -lm\n" } else { "" };
    format!(
        "# {lib}.pc: generated by kerf aot (ABI {}.{}); do not edit.\nlibdir={d}\nincludedir={d}\n\n\
         Name: {lib}\nDescription: kernels compiled ahead of time by kerf\nVersion: {}\n\
         Cflags: -I${{includedir}}\nLibs: -L${{libdir}} -l{lib}\n{private}",
        kerfx_aot::ABI_MAJOR,
        kerfx_aot::ABI_MINOR,
        env!("CARGO_PKG_VERSION"),
        d = dir.display(),
    )
}
