//! The backends the CLI runs kernels on, behind one interface.

use crate::CliError;
use kerfx::request_file::{ChainFile, RequestFile};
use kerfx::{DType, Jit, JitSettings, Kernel, Options, Plan, Request, Tensor};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// Which backend runs a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// Cranelift JIT: machine code specialized for the request
    Jit,
    /// The reference interpreter: element by element, the oracle
    Reference,
}

impl Backend {
    /// The default backend.
    pub fn default_kind() -> Backend {
        Backend::Jit
    }
    pub fn name(self) -> &'static str {
        match self {
            Backend::Jit => "jit",
            Backend::Reference => "reference",
        }
    }
}

/// The process's JIT (one thread), shared by every run.
pub fn jit() -> Result<&'static Jit, RunError> {
    static JIT: OnceLock<Result<Jit, kerfx::Error>> = OnceLock::new();
    JIT.get_or_init(|| Jit::new(JitSettings::default())).as_ref().map_err(|e| RunError::Kerf(e.clone()))
}

/// Why a run failed: a lowering/running error of kerf, or a CLI-level problem.
pub enum RunError {
    Kerf(kerfx::Error),
    Cli(CliError),
}

impl From<kerfx::Error> for RunError {
    fn from(e: kerfx::Error) -> Self {
        RunError::Kerf(e)
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Kerf(e) => write!(f, "{e}"),
            RunError::Cli(e) => f.write_str(&e.0.join("\n")),
        }
    }
}

fn check_dynamic(backend: Backend, dynamic: bool) -> Result<(), RunError> {
    if dynamic && backend != Backend::Jit {
        return Err(RunError::Cli(CliError::new("--dynamic compiles a JIT kernel; it needs --backend jit")));
    }
    Ok(())
}

/// Every output of a request on a backend, by name (see `kerfx::output_names`); not
/// tied to a file (examples too). Strings go through the JIT as fixed-width elements or
/// element indices (see `kerfx::run_jit_strings`).
pub fn run_request_outputs(
    request: &Request,
    backend: Backend,
    dynamic: bool,
) -> Result<Vec<(String, Tensor)>, RunError> {
    check_dynamic(backend, dynamic)?;
    let outs = match backend {
        Backend::Reference => kerfx::run_reference_outputs(request)?,
        Backend::Jit => kerfx::run_jit_outputs(jit()?, request, dynamic)?,
    };
    let names = kerfx::output_names(request, outs.len())?;
    Ok(names.into_iter().zip(outs).collect())
}

/// Every output of a request file on a backend; errors name the file (and the entry's line).
pub fn run_outputs(file: &RequestFile, backend: Backend, dynamic: bool) -> Result<Vec<(String, Tensor)>, CliError> {
    run_request_outputs(&file.request, backend, dynamic).map_err(|e| in_file(file, e))
}

pub fn in_file(file: &RequestFile, e: RunError) -> CliError {
    match e {
        RunError::Kerf(e) => CliError(file.describe_errors(&e)),
        RunError::Cli(e) => CliError(e.0.iter().map(|m| format!("{}: {m}", file.path.display())).collect()),
    }
}

/// Compile a request's kernel on the process's JIT. A slice of strings compiles the
/// kernel that moves u64 elements (8-byte strings, or element indices past 2^32 strings;
/// `kerf run` picks the width by the data, see `kerfx::run_jit_strings`).
pub fn compile_jit(request: &Request, dynamic: bool) -> Result<Arc<kerfx::JitKernel>, RunError> {
    let jit = jit()?;
    let plan = match kerfx::lower(request)? {
        Plan::Step(p) if p.dtype == DType::String => kerfx::string_slice_as(&p, DType::U64, 0),
        plan => plan,
    };
    Ok(jit.compile(&plan, &Options::dynamic(dynamic))?)
}

/// Run a chain file: fused (on the JIT one kernel where a loop nest can say the chain,
/// else its steps' kernels one after another), or with `unfused` step by step; with
/// `dynamic`, on dynamic kernels (the fused nest or each step as their arguments).
pub fn run_chain(file: &ChainFile, backend: Backend, dynamic: bool, unfused: bool) -> Result<Tensor, CliError> {
    check_dynamic(backend, dynamic).map_err(|e| CliError::new(format!("{}: {e}", file.path.display())))?;
    let chain = file.chain();
    let result = match backend {
        Backend::Reference => kerfx::chain::run_chain_reference(&chain, !unfused),
        Backend::Jit => match jit() {
            Ok(jit) => kerfx::chain::run_chain_jit(jit, &chain, !unfused, dynamic),
            Err(e) => return Err(CliError::new(format!("{}: {e}", file.path.display()))),
        },
    };
    result.map_err(|e| CliError::new(file.describe_error(&e)))
}

/// The fused kernel of a chain file (its first input may be given by dtype and shape);
/// with `dynamic`, the dynamic kernel its nest runs on.
pub fn compile_chain(file: &ChainFile, dynamic: bool) -> Result<Arc<kerfx::JitKernel>, CliError> {
    let err = |e: kerfx::Error| CliError::new(file.describe_error(&e));
    let lowered = kerfx::chain::lower_chain(&file.chain()).map_err(err)?;
    let jit = jit().map_err(|e| CliError::new(format!("{}: {e}", file.path.display())))?;
    let fused = lowered.fused().map_err(err)?;
    if fused.dtype == DType::String {
        return Err(CliError::new(format!(
            "{}: this chain does not fuse into one kernel: its elements are strings, which the JIT does not move",
            file.path.display()
        )));
    }
    jit.compile(fused, &Options::dynamic(dynamic)).map_err(err)
}

/// The Cranelift IR of a request's kernel (its data input may be given by dtype and shape).
/// A program's (Concat's, Split's): each move's kernel under a `; move k` comment.
pub fn clif(file: &RequestFile, dynamic: bool) -> Result<String, CliError> {
    if kerfx::is_program_op(&file.request.op).map_err(|e| in_file(file, e.into()))? {
        let program = kerfx::lower_program(&file.request).map_err(|e| in_file(file, e.into()))?;
        let kernel = jit().and_then(|jit| Ok(jit.compile_program(&program, dynamic)?)).map_err(|e| in_file(file, e))?;
        let mut text = String::new();
        for ((m, mv), kernels) in program.moves.iter().enumerate().zip(kernel.move_kernels()) {
            let input = mv.input.map_or("a fill".to_string(), |i| format!("input {i}"));
            text.push_str(&format!("; move {m}: {input} into output {} at {:?}\n", mv.output, mv.at));
            for (s, k) in kernels.iter().enumerate() {
                if kernels.len() > 1 {
                    text.push_str(&format!("; segment {s} of move {m}\n"));
                }
                text.push_str(k.clif());
            }
        }
        return Ok(text);
    }
    let kernel = compile_jit(&file.request, dynamic).map_err(|e| in_file(file, e))?;
    Ok(kernel.clif().to_string())
}

/// The Cranelift IR of a graph file's programs: each under a `; program k: <its nodes>`
/// comment, each move's kernels under `; move m`.
pub fn graph_clif(file: &kerfx::request_file::GraphFile, dynamic: bool) -> Result<String, CliError> {
    let in_file = |e: kerfx::Error| CliError::new(format!("{}: {e}", file.path.display()));
    let prepared = kerfx::graph::Prepared::new(file.graph.clone()).map_err(in_file)?;
    let graph = prepared.graph();
    let jit = jit()?;
    let mut text = String::new();
    for (k, (group, program)) in prepared.groups().iter().zip(prepared.programs()).enumerate() {
        let labels: Vec<String> = group.nodes.iter().map(|&n| graph.nodes[n].label(n)).collect();
        text.push_str(&format!("; program {k}: {}\n", labels.join(", ")));
        let Some(gp) = program else {
            text.push_str("; built when the graph runs: it reads a parameter given at run time\n");
            continue;
        };
        let kernel = jit.compile_program(&gp.program, dynamic).map_err(in_file)?;
        for ((m, mv), kernels) in gp.program.moves.iter().enumerate().zip(kernel.move_kernels()) {
            let input = mv.input.map_or("a fill".to_string(), |i| format!("`{}`", gp.reads[i]));
            text.push_str(&format!("; move {m}: {input} into `{}` at {:?}\n", gp.writes[mv.output], mv.at));
            for k in kernels {
                text.push_str(k.clif());
            }
        }
    }
    Ok(text)
}

/// `kerf expand` on a graph file ([`kerfx::graph::expand`]), its errors naming the file.
pub fn expand_graph(file: &kerfx::request_file::GraphFile, name: &str) -> Result<String, CliError> {
    kerfx::graph::expand(&file.graph, name).map_err(|e| CliError::new(format!("{}: {e}", file.path.display())))
}

/// A compiled kernel with what compiling it cost.
pub struct Compiled {
    pub kernel: Arc<dyn Kernel>,
    /// Plan → kernel with nothing cached, in µs: one sample per fresh JIT.
    pub compile_us: Vec<f64>,
    /// Plan → kernel answered by the kernel cache, in ns per call: one sample per batch of
    /// calls; `None` for the reference.
    pub cache_hit_ns: Option<Vec<f64>>,
    /// Threads the kernel may use.
    pub threads: u32,
}

/// Compile a request for benchmarking (the data input may be given by dtype and shape).
pub fn compile(file: &RequestFile, backend: Backend, dynamic: bool, threads: u32) -> Result<Compiled, CliError> {
    let err = |e: RunError| in_file(file, e);
    check_dynamic(backend, dynamic).map_err(err)?;
    // Parse the embedded specs before timing: that is start-up, not compilation.
    let _ = kerfx::op_spec(&file.request.op);
    match backend {
        Backend::Reference => {
            if threads > 1 {
                return Err(CliError::new("--threads above 1 needs --backend jit (the reference runs on one thread)"));
            }
            let t = Instant::now();
            let kernel = kerfx::ReferenceKernel::new(&file.request).map_err(|e| err(e.into()))?;
            let compile_us = vec![t.elapsed().as_secs_f64() * 1e6];
            Ok(Compiled { kernel: Arc::new(kernel), compile_us, cache_hit_ns: None, threads: 1 })
        }
        Backend::Jit if kerfx::is_program_op(&file.request.op).unwrap_or(false) => {
            let program = kerfx::lower_program(&file.request).map_err(|e| err(e.into()))?;
            if program.dtype == DType::String {
                return Err(CliError::new(format!(
                    "{}: string tensors are not plain memory; the JIT (and kerf bench) move bytes only",
                    file.path.display()
                )));
            }
            let settings = JitSettings { threads: threads as usize, ..JitSettings::default() };
            let new_jit = || Jit::new(settings.clone()).map_err(|e| err(e.into()));
            // Compile time on fresh JITs, the first left out (it warms Cranelift up).
            let mut times = Vec::new();
            for i in 0..6 {
                let jit = new_jit()?;
                let t = Instant::now();
                let k = jit.compile_program(&program, dynamic).map_err(|e| err(e.into()))?;
                let us = t.elapsed().as_secs_f64() * 1e6;
                drop(k);
                if i > 0 {
                    times.push(us);
                }
            }
            // Cache hit: the same program again on a JIT that has it.
            let jit = new_jit()?;
            let kernel = jit.compile_program(&program, dynamic).map_err(|e| err(e.into()))?;
            let t = Instant::now();
            std::hint::black_box(jit.compile_program(std::hint::black_box(&program), dynamic).ok());
            let reps = (20_000 / t.elapsed().as_nanos().max(1)).clamp(1, 1000) as u32;
            let mut hits = Vec::new();
            for _ in 0..11 {
                let t = Instant::now();
                for _ in 0..reps {
                    std::hint::black_box(jit.compile_program(std::hint::black_box(&program), dynamic).ok());
                }
                hits.push(t.elapsed().as_nanos() as f64 / reps as f64);
            }
            Ok(Compiled { kernel, compile_us: times, cache_hit_ns: Some(hits), threads })
        }
        Backend::Jit => {
            let plan = kerfx::lower(&file.request).map_err(|e| err(e.into()))?;
            if plan.dtype() == DType::String {
                return Err(CliError::new(format!(
                    "{}: string tensors are not plain memory; the JIT (and kerf bench) move bytes only",
                    file.path.display()
                )));
            }
            let settings = JitSettings { threads: threads as usize, ..JitSettings::default() };
            let new_jit = || Jit::new(settings.clone()).map_err(|e| err(e.into()));
            let build = |jit: &Jit, plan: &Plan| jit.compile(plan, &Options::dynamic(dynamic));
            // Compile time: plan → machine code on fresh JITs (the first one also warms
            // up Cranelift's own lazy state, so it is left out of the samples).
            let mut times = Vec::new();
            for i in 0..6 {
                let jit = new_jit()?;
                let t = Instant::now();
                let k = build(&jit, &plan).map_err(|e| err(e.into()))?;
                let us = t.elapsed().as_secs_f64() * 1e6;
                drop(k);
                if i > 0 {
                    times.push(us);
                }
            }
            let compile_us = times;
            // Cache hit: the same plan again on a JIT that has it (for a dynamic kernel
            // that includes scheduling the plan and encoding its arguments). Repetitions
            // per sample fill about 20 µs and at most 1000, so a plan that is slow to
            // prepare is not prepared thousands of times.
            let jit = new_jit()?;
            let kernel = build(&jit, &plan).map_err(|e| err(e.into()))?;
            let t = Instant::now();
            std::hint::black_box(build(&jit, std::hint::black_box(&plan)).ok());
            let one = t.elapsed().as_nanos().max(1);
            let reps = (20_000 / one).clamp(1, 1000) as u32;
            let mut hits = Vec::new();
            for _ in 0..11 {
                let t = Instant::now();
                for _ in 0..reps {
                    std::hint::black_box(build(&jit, std::hint::black_box(&plan)).ok());
                }
                hits.push(t.elapsed().as_nanos() as f64 / reps as f64);
            }
            let cache_hit_ns = Some(hits);
            Ok(Compiled { kernel, compile_us, cache_hit_ns, threads })
        }
    }
}

pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}
