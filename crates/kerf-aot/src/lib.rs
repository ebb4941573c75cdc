//! kerf ahead of time: a library of static kernels compiled into one relocatable object
//! (`<lib>.o`) and a C header (`<lib>.h`), from the same nests and emitters as the JIT
//! (`kerf_jit::object::static_function` for a [`Target`]), defined in a
//! `cranelift-object` module instead of a JIT module.
//!
//! Per kernel the object holds its code and argument block (local symbols) and two
//! exported entry points written in CLIF (`wrapper`): `<lib>_<kernel>` and
//! `<lib>_<kernel>_range`, which check every pointer, length, overlap and range before the
//! kernel runs and return a status code; and `<lib>_info()`, a table of every kernel for
//! discovery without parsing C. Kernels that need no host function link against libc
//! alone (`memcpy`, `memset`); those that call the runtime library's (`kerf-rt`:
//! streaming copies of outputs of 8 MiB or more, tiled transposes, stride-2 gathers)
//! import them as `kerf_rt1_*` and the header says to link `libkerf_rt.a`. Kernels that
//! call a host function still only the JIT's (random fills, chains starting with a fill)
//! are refused, naming it. Output is deterministic: the same library file gives the same
//! bytes.

#![warn(missing_docs)]

mod header;
mod library;
mod wrapper;

pub use kerf_jit::{AOT_TRIPLES, Cpu, Target};
pub use library::{KernelEntry, Library};

use kerf::request_file::{AnyFile, load_any};
use kerf_jit::object::{StaticFunction, static_function};

/// The ABI version of the entry points and the info table (in the header and in
/// `<lib>_info()`): a new major for any change a caller compiled against the old one
/// would misread; a new minor for additions.
pub const ABI_MAJOR: u32 = 1;
/// See [`ABI_MAJOR`].
pub const ABI_MINOR: u32 = 0;

/// Status codes the entry points return (the header's `KERF_*`).
pub mod status {
    /// The kernel ran.
    pub const OK: i32 = 0;
    /// A buffer that must hold bytes is NULL.
    pub const NULL: i32 = 1;
    /// `input_bytes` is not the kernel's input size.
    pub const INPUT_BYTES: i32 = 2;
    /// `output_bytes` is not the kernel's output size.
    pub const OUTPUT_BYTES: i32 = 3;
    /// The input and output buffers overlap.
    pub const OVERLAP: i32 = 4;
    /// `[lo, hi)` is not a range of `[0, extent)` with aligned bounds.
    pub const RANGE: i32 = 5;
}

/// One compiled kernel, ready to be written into a library.
pub struct Kernel {
    /// Its name (the entry point is `<lib>_<name>`).
    pub name: String,
    /// Where it came from (a file path, or a description), for the header's comment.
    pub origin: String,
    /// The function and its facts.
    pub function: StaticFunction,
}

/// A library written: the object file's bytes and the header's text.
pub struct Output {
    /// The library's name.
    pub name: String,
    /// `<lib>.o`: an ELF relocatable object.
    pub object: Vec<u8>,
    /// `<lib>.h`.
    pub header: String,
    /// The symbols the object exports: every entry point and `<lib>_info`.
    pub exported: Vec<String>,
    /// Whether a kernel calls the runtime library: then `kerf_rt.h` ([`RUNTIME_HEADER`])
    /// goes beside the header and programs link `libkerf_rt.a`.
    pub needs_runtime: bool,
}

/// `kerf_rt.h`, the runtime library's C declarations.
pub const RUNTIME_HEADER: &str = kerf_rt::HEADER;

impl Kernel {
    /// Whether this kernel calls the runtime library.
    pub fn needs_runtime(&self) -> bool {
        !self.function.host_functions.is_empty()
    }
}

/// Compile one kernel from a source (a request, plan or map) for `target`; an error when
/// it needs the runtime library (naming the host function) or cannot be compiled.
pub fn compile_kernel<'a>(
    name: &str,
    origin: &str,
    what: impl kerf_jit::IntoSource<'a>,
    target: &Target,
) -> Result<Kernel, String> {
    let function = static_function(what, target).map_err(|e| e.to_string())?;
    if let Some(f) = function.host_functions.iter().find(|f| !f.starts_with("kerf_rt1_")) {
        return Err(format!(
            "calls the host function {f}, which is the JIT's own and not in the runtime library (kerf-rt) yet"
        ));
    }
    Ok(Kernel { name: name.to_string(), origin: origin.to_string(), function })
}

/// Compile every kernel of `library` for `target` into an object and a header. Errors
/// name the kernel and, for a request file's errors, the file (and line).
pub fn compile(library: &Library, target: &Target) -> Result<Output, String> {
    let mut kernels = Vec::with_capacity(library.kernels.len());
    for entry in &library.kernels {
        let at = |e: String| format!("kernel {:?}: {e}", entry.name);
        let file = load_any(&entry.request).map_err(|e| at(e.to_string()))?;
        let origin = entry.request.file_name().map_or_else(String::new, |f| f.to_string_lossy().into_owned());
        let kernel = match &file {
            AnyFile::Request(f) => compile_kernel(&entry.name, &origin, &f.request, target)
                .map_err(|e| at(format!("{}: {e}", f.path.display()))),
            AnyFile::Chain(f) => {
                let lowered = kerf::chain::lower_chain(&f.chain()).map_err(|e| at(f.describe_error(&e)))?;
                let map = lowered.fused().map_err(|e| at(f.describe_error(&e)))?;
                compile_kernel(&entry.name, &origin, map, target).map_err(|e| at(format!("{}: {e}", f.path.display())))
            }
        }?;
        kernels.push(kernel);
    }
    write_library(&library.name, &kernels, target)
}

/// Write compiled kernels into one object and header named `name`: the library's and
/// the kernels' names are checked as a library file's are (C identifiers, unique).
pub fn write_library(name: &str, kernels: &[Kernel], target: &Target) -> Result<Output, String> {
    let bad = |what: &str, n: &str| {
        format!("{what} name {n:?}: lowercase letters, digits and `_`, starting with a letter, at most 64 bytes")
    };
    if !library::is_name(name) {
        return Err(bad("library", name));
    }
    for (i, k) in kernels.iter().enumerate() {
        if !library::is_name(&k.name) || k.name.ends_with("_range") || k.name == "info" {
            return Err(bad("kernel", &k.name) + " (not `info` nor ending in `_range`)");
        }
        if kernels[..i].iter().any(|o| o.name == k.name) {
            return Err(format!("kernel {:?} is listed twice", k.name));
        }
    }
    let object = wrapper::object(name, kernels, target)?;
    let header = header::header(name, kernels, target);
    let mut exported: Vec<String> =
        kernels.iter().flat_map(|k| [format!("{name}_{}", k.name), format!("{name}_{}_range", k.name)]).collect();
    exported.push(format!("{name}_info"));
    let needs_runtime = kernels.iter().any(Kernel::needs_runtime);
    Ok(Output { name: name.to_string(), object, header, exported, needs_runtime })
}
