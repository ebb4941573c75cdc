//! The backends the CLI runs kernels on, behind one interface.

use crate::CliError;
use kerf::request_file::RequestFile;
use kerf::{Kernel, Request, Tensor};
use std::time::Instant;

/// Which backend runs a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// Cranelift JIT: compiled machine code
    Jit,
    /// The reference interpreter: element by element, the oracle
    Reference,
}

impl Backend {
    /// The default backend: the JIT where this build has it.
    pub fn default_kind() -> Backend {
        if jit_available() { Backend::Jit } else { Backend::Reference }
    }
    pub fn name(self) -> &'static str {
        match self {
            Backend::Jit => "jit",
            Backend::Reference => "reference",
        }
    }
}

/// Whether this build includes the JIT backend.
pub fn jit_available() -> bool {
    false
}

fn no_jit() -> CliError {
    CliError(
        "the JIT backend is not available in this build (crates/kerf-jit is not linked yet); \
         use --backend reference"
            .into(),
    )
}

fn check_dynamic(backend: Backend, dynamic: bool) -> Result<(), CliError> {
    if dynamic && backend != Backend::Jit {
        return Err(CliError("--dynamic compiles a JIT kernel; it needs --backend jit".into()));
    }
    Ok(())
}

/// Run a request on a backend (not tied to a file: for examples too).
pub fn run_request(request: &Request, backend: Backend, dynamic: bool) -> Result<Tensor, RunError> {
    check_dynamic(backend, dynamic).map_err(RunError::Cli)?;
    match backend {
        Backend::Reference => kerf::run_reference(request).map_err(RunError::Kerf),
        Backend::Jit => Err(RunError::Cli(no_jit())),
    }
}

/// Why a run failed: a lowering/running error of kerf, or a CLI-level problem.
pub enum RunError {
    Kerf(kerf::Error),
    Cli(CliError),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Kerf(e) => write!(f, "{e}"),
            RunError::Cli(e) => f.write_str(&e.0),
        }
    }
}

/// Run a request file on a backend; errors name the file (and the entry's line).
pub fn run(file: &RequestFile, backend: Backend, dynamic: bool) -> Result<Tensor, CliError> {
    run_request(&file.request, backend, dynamic).map_err(|e| in_file(file, e))
}

pub fn in_file(file: &RequestFile, e: RunError) -> CliError {
    match e {
        RunError::Kerf(e) => CliError(file.describe_error(&e)),
        RunError::Cli(e) => CliError(format!("{}: {}", file.path.display(), e.0)),
    }
}

/// The Cranelift IR of a request's kernel.
pub fn clif(file: &RequestFile, dynamic: bool) -> Result<String, CliError> {
    let _ = (file, dynamic);
    Err(no_jit())
}

/// A compiled kernel with what compiling it cost.
pub struct Compiled {
    pub kernel: Box<dyn Kernel>,
    /// A compile with nothing cached, in µs.
    pub compile_us: f64,
    /// A compile answered by the kernel cache, in ns; `None` for backends without a cache.
    pub cache_hit_ns: Option<f64>,
}

/// Compile a request for benchmarking (the data input may be given by dtype and shape).
pub fn compile(file: &RequestFile, backend: Backend, dynamic: bool, threads: u32) -> Result<Compiled, CliError> {
    check_dynamic(backend, dynamic).map_err(|e| in_file(file, RunError::Cli(e)))?;
    // Parse the embedded specs before timing: that is start-up, not compilation.
    let _ = kerf::op_spec(&file.request.op);
    match backend {
        Backend::Reference => {
            if threads > 1 {
                return Err(CliError(
                    "--threads above 1 needs --backend jit (the reference runs on one thread)".into(),
                ));
            }
            let t = Instant::now();
            let kernel = kerf::ReferenceKernel::new(&file.request).map_err(|e| in_file(file, RunError::Kerf(e)))?;
            let compile_us = t.elapsed().as_secs_f64() * 1e6;
            Ok(Compiled { kernel: Box::new(kernel), compile_us, cache_hit_ns: None })
        }
        Backend::Jit => Err(no_jit()),
    }
}
