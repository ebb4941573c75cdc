//! `kerf`: run request files on `.npy` arrays, print op specs and generated code,
//! benchmark kernels. Every error is one line on stderr (a request with several mistakes: one each) and a
//! non-zero exit status.

mod aot;
mod backend;
mod bench;
mod demo;
#[cfg(unix)]
mod oom;
mod output;
mod peer;
mod spec_print;

use backend::Backend;
use clap::{Parser, Subcommand};
use kerfx::request_file::{AnyFile, RunFile};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// kerf compiles the data-movement ops of ONNX, OpenVINO and TensorRT (slices, pads,
/// transposes, reshapes, gathers, concats, splits, fills: `kerf ops`) into loops
/// specialized for one shape, stride, mode and dtype.
#[derive(Parser, Debug)]
#[command(name = "kerf", version, about, long_about = None, propagate_version = true)]
#[command(after_help = "A request file names an op, its attributes and its inputs:

    op = \"onnx.slice\"     # spec id (see `kerf ops`)
    version = 13          # optional: the op set (default: the newest)
    [attributes]          # static parameters
    [inputs]              # by input name (see `kerf spec ID`):
    data = \"x.npy\"        #   a .npy file, relative to the request file
    starts = [1, 0]       #   a list of integers (a 1-D i64 tensor)
    ends = { dtype = \"i32\", shape = [2], values = [2, 3] }
    # bf16, fp8, int4 in .npy: raw u2/u1 bits (int4: one i1/u1 value per element),
    # named by the input's dtype: data = { path = \"x.npy\", dtype = \"bf16\" }

A chain file lists steps, each a request table; a step after the first names no data
input (it reads the previous step's output). `kerf run` runs the chain as one fused
kernel (`--unfused`: step by step):

    [[steps]]
    op = \"onnx.pad\"
    [steps.attributes]
    mode = \"reflect\"
    [steps.inputs]
    data = \"x.npy\"
    pads = [0, 2, 0, 2]
    [[steps]]
    op = \"onnx.slice\"
    [steps.inputs]
    starts = [1]
    ends = [-1]
    axes = [0]")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a request file and print the output array, or write it to a .npy file
    #[command(after_help = "Example:\n  kerf run request.toml -o out.npy")]
    Run {
        /// The request file (TOML), or `-` to read the request from standard input: its
        /// relative .npy paths then resolve against the current directory, and errors
        /// name it `<stdin>`
        request: PathBuf,
        /// Write the output here (.npy; .npz for several outputs, one array each), like `cp`: to a temporary file beside OUT, renamed
        /// over it only when the run succeeds, so a failed or interrupted run leaves OUT as
        /// it was. OUT must be a new file or a writable regular file; a directory, FIFO,
        /// socket, device or read-only file is refused, never replaced. A symlink is written
        /// through (the file it points to is replaced; the link stays). OUT may not be the
        /// request file or an input of the run
        #[arg(short, long, value_name = "OUT.npy")]
        output: Option<PathBuf>,
        /// The backend that runs the kernel
        #[arg(long, value_enum, default_value_t = Backend::default_kind())]
        backend: Backend,
        /// Compile the dynamic kernel (specialized on op, mode, dtype and rank only;
        /// extents, starts and steps are arguments) instead of the static one
        #[arg(long)]
        dynamic: bool,
        /// For a chain file: run its steps one by one (each step's output written in full
        /// and read by the next) instead of the fused kernel
        #[arg(long)]
        unfused: bool,
        /// For an ONNX model (`.onnx`): a graph input's array, as NAME=FILE.npy (once per
        /// input). Its outputs are printed, or written with -o: an .npz of every output by
        /// name, or for a model of one output an .npy
        #[arg(long = "input", value_name = "NAME=FILE.npy")]
        inputs: Vec<String>,
    },
    /// List every op with its versions and summary
    #[command(after_help = "Example:\n  kerf ops")]
    Ops,
    /// Print an op's spec: attributes, inputs, type sets, rules and examples
    #[command(after_help = "Example:\n  kerf spec tensorrt.slice")]
    Spec {
        /// The op id, e.g. tensorrt.slice (see `kerf ops`)
        id: String,
    },
    /// Print the Cranelift IR of a request's JIT kernel
    #[command(after_help = "Example:\n  kerf clif request.toml --dynamic")]
    Clif {
        /// The request file (TOML); the data input may be given as { dtype, shape }
        request: PathBuf,
        /// The dynamic kernel's IR instead of the static one's
        #[arg(long)]
        dynamic: bool,
    },
    /// Compile a library of kernels ahead of time: DIR/<lib>.o (or lib<lib>.a) and
    /// DIR/<lib>.h, for C and any language with a C FFI
    #[command(after_help = "A library file names the library and its kernels, each a request, chain or
graph file relative to it (an op over several inputs or outputs, or a graph that runs as one
program, is one entry point taking every input, then every output):

    name = \"mykernels\"
    [[kernels]]
    name = \"crop\"
    request = \"crop.toml\"

Example:\n  kerf aot mykernels.toml -o build && cc prog.c build/mykernels.o")]
    Aot {
        /// The library file (TOML)
        library: PathBuf,
        /// The directory written (created if missing; its parent must exist). Files kerf did
        /// not write are never replaced
        #[arg(short, long, value_name = "DIR")]
        output: PathBuf,
        /// An object file or a static library
        #[arg(long, value_enum, default_value = "obj")]
        emit: aot::EmitArg,
        /// A shared library instead: DIR/lib<lib>.so, linked by the system C compiler
        /// ($CC, else cc), and DIR/<lib>.pc for pkg-config
        #[arg(long, conflicts_with = "emit")]
        shared: bool,
        /// With --shared, when a kernel calls kerf's runtime library: libkerfx_rt.a, linked
        /// into the shared library (`cargo build --release -p kerfx-rt` builds it)
        #[arg(long, value_name = "LIBKERF_RT_A", requires = "shared")]
        runtime: Option<PathBuf>,
        /// The target triple: x86_64-unknown-linux-gnu (CPU preset x86-64-v2) or
        /// aarch64-unknown-linux-gnu (the aarch64 baseline)
        #[arg(long, default_value = "x86_64-unknown-linux-gnu")]
        target: String,
        /// The CPU preset the kernels' code may use (default: the target's conservative one,
        /// whose objects run on every CPU of the architecture): on x86-64 any of Cranelift's
        /// presets (x86-64-v3: AVX2, BMI2, FMA; x86-64-v4; haswell, znver1, ...), or host
        /// (this machine's features), for a fleet you own; the header records it
        #[arg(long, value_name = "PRESET")]
        cpu: Option<String>,
    },
    /// Print the Rust the derive macro generates for a request, a chain or a graph (a graph
    /// cut into several programs: one struct per program, NAME0, NAME1, ..., each headed
    /// by a comment naming its nodes and the values it reads and writes)
    #[command(after_help = "Example:\n  kerf expand request.toml --name CropRows")]
    Expand {
        /// The request, chain or graph file (TOML); the data input may be given as { dtype, shape }
        request: PathBuf,
        /// The name of the generated struct (default: the request file's name in CamelCase)
        #[arg(long)]
        name: Option<String>,
    },
    /// Time a request's kernel against memcpy (slices) or memset (fills) of its output; for
    /// a chain file, its fused kernel, also against its steps run one by one
    #[command(after_help = "Example:\n  kerf bench request.toml --iters 101 --json")]
    Bench {
        /// The request file (TOML); inputs may be given as { dtype, shape } alone
        request: PathBuf,
        /// Print one JSON object: median_ns, baseline ("memcpy" or "memset"),
        /// baseline_median_ns, ratio (median_ns / baseline_median_ns), compile_us (plan →
        /// machine code, nothing cached), cache_hit_ns (the same plan from the kernel
        /// cache; null for the reference), threads, bytes (of the output); for a chain also
        /// unfused_median_ns (its steps' kernels one after another) and speedup_vs_unfused.
        /// Beside each median (median_ns, baseline_median_ns, unfused_median_ns, and
        /// compile_us, cache_hit_ns) its samples' min, 10th and 90th percentile (nearest
        /// rank) and max: min_ns, p10_ns, p90_ns, max_ns, baseline_min_ns, ..., compile_max_us
        #[arg(long)]
        json: bool,
        /// Threads the kernel may use (JIT: a large call splits its outermost loop)
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=kerfx::MAX_THREADS as i64))]
        threads: u32,
        /// Timed samples of the kernel and of the baseline (min / median / max are
        /// reported), at most 100,000
        #[arg(long, default_value_t = 51, value_parser = clap::value_parser!(u32).range(1..=bench::MAX_ITERS as i64))]
        iters: u32,
        /// The backend that runs the kernel
        #[arg(long, value_enum, default_value_t = Backend::default_kind())]
        backend: Backend,
        /// Benchmark the dynamic kernel instead of the static one
        #[arg(long)]
        dynamic: bool,
        /// Also time a peer library doing the same job on its own preallocated arrays
        /// (its output checked equal to the kernel's), with the same protocol; JSON adds
        /// peers.NAME = { median_ns, baseline_median_ns, ratio } (with their min, p10, p90
        /// and max)
        #[arg(long, value_enum)]
        peer: Vec<bench::Peer>,
    },
    /// Run every spec example on the default backend, each checked against the reference
    /// interpreter and the spec's expected output, then the built-in graph examples (real
    /// models' data movement), each checked against its nodes run one by one: one line per
    /// example (`--verbose`: its input, output and IR too; `--op`: the graphs using the op)
    #[command(after_help = "Example:\n  kerf demo --op onnx.pad --verbose")]
    Demo {
        /// Only this op's examples
        #[arg(long, value_name = "ID")]
        op: Option<String>,
        /// Show each example in full: its attributes, inputs, output, plan, loop nest and
        /// Cranelift IR
        #[arg(short, long)]
        verbose: bool,
        /// One line per example: the default (kept so that old scripts work)
        #[arg(long, hide = true, conflicts_with = "verbose")]
        brief: bool,
    },
}

/// An error as the lines the user sees: one for each problem (a request's every error).
#[derive(Debug)]
pub struct CliError(pub Vec<String>);

impl CliError {
    /// An error of one line.
    pub fn new(message: impl Into<String>) -> CliError {
        CliError(vec![message.into()])
    }
}

/// A failed write to stdout as an error. A reader that went away (`| head`) ends the
/// process quietly with the status a shell shows for SIGPIPE, as coreutils do; this is
/// reached only when SIGPIPE is blocked, since its default action ends the process first.
pub fn stdout_error(e: io::Error) -> CliError {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(128 + 13);
    }
    CliError::new(format!("cannot write to stdout: {e}"))
}

/// `writeln!` to stdout; a failed write returns the error from the calling function.
#[macro_export]
macro_rules! outln {
    ($w:expr $(, $($arg:tt)*)?) => {
        writeln!($w $(, $($arg)*)?).map_err($crate::stdout_error)?
    };
}

impl<T: std::fmt::Display> From<T> for CliError {
    fn from(e: T) -> Self {
        CliError::new(e.to_string())
    }
}

#[cfg(unix)]
#[global_allocator]
static ALLOCATOR: oom::ErrorOnFailure = oom::ErrorOnFailure;

fn main() -> ExitCode {
    #[cfg(unix)]
    oom::install();
    // Like other Unix tools, end quietly when the reader of stdout goes away (`| head`).
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    output::ignore_file_size_limit();
    // A panic is a bug in kerf; still, the user gets one line, never a backtrace.
    std::panic::set_hook(Box::new(|info| {
        #[cfg(unix)]
        oom::restore_stderr();
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("error: internal error (a bug in kerf, please report it): {}{at}", one_line(&msg));
    }));
    let cli = Cli::parse();
    let result = std::panic::catch_unwind(|| {
        let mut out: Box<dyn Write> =
            if stdout_closed::at_start() { Box::new(stdout_closed::Closed) } else { Box::new(io::stdout().lock()) };
        dispatch(cli.command, &mut out)?;
        out.flush().map_err(stdout_error)
    })
    .unwrap_or_else(|_| Err(CliError(Vec::new())));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError(lines)) => {
            // A failed allocation that was handled (and so reported here) sent stderr away.
            #[cfg(unix)]
            oom::restore_stderr();
            let mut stderr = io::stderr().lock();
            for msg in lines.iter().filter(|m| !m.is_empty()) {
                // stderr may be gone too; there is nowhere left to report that.
                let _ = writeln!(stderr, "error: {}", one_line(msg));
            }
            ExitCode::FAILURE
        }
    }
}

/// Whether stdout was closed when kerf started (`kerf ops >&-`). On Linux std reopens a
/// closed descriptor 0–2 on /dev/null before `main`, where the output would vanish with
/// exit status 0; a constructor that runs before std's start-up sees the truth.
mod stdout_closed {
    use std::io;
    use std::sync::atomic::{AtomicBool, Ordering};

    static CLOSED: AtomicBool = AtomicBool::new(false);

    #[cfg(target_os = "linux")]
    extern "C" fn check() {
        // SAFETY: F_GETFD only asks whether descriptor 1 is open.
        let closed = unsafe { libc::fcntl(1, libc::F_GETFD) } == -1;
        CLOSED.store(closed, Ordering::Relaxed);
    }

    /// Run by the loader before `main` and before std's start-up code.
    #[cfg(target_os = "linux")]
    #[used]
    // SAFETY: `.init_array` holds `extern "C" fn()` pointers the loader calls once before
    // `main`; `check` has that type, takes no arguments, allocates nothing and touches only
    // an atomic, so it needs nothing std sets up later.
    #[unsafe(link_section = ".init_array")]
    static CHECK: extern "C" fn() = check;

    pub fn at_start() -> bool {
        CLOSED.load(Ordering::Relaxed)
    }

    /// Stdout when it was closed: every write fails, as it would have without std's
    /// /dev/null (commands that print nothing, `run -o`, still succeed).
    pub struct Closed;

    impl io::Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::other("it was closed when kerf started"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
}

fn one_line(s: &str) -> String {
    s.split('\n').map(str::trim_end).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" | ")
}

fn dispatch(command: Command, out: &mut dyn Write) -> Result<(), CliError> {
    match command {
        Command::Run { request, output, backend, dynamic, unfused, inputs } => {
            if request.extension().is_some_and(|e| e == "onnx") {
                if unfused {
                    return Err(CliError::new(format!(
                        "{}: --unfused runs the steps of a chain file ([[steps]])",
                        request.display()
                    )));
                }
                return run_model(&request, &inputs, output.as_deref(), backend, dynamic, out);
            }
            if let Some(first) = inputs.first() {
                return Err(CliError::new(format!(
                    "--input {first}: --input gives the inputs of an ONNX model (.onnx); a request file names its own"
                )));
            }
            run(&request, output.as_deref(), backend, dynamic, unfused, out)
        }
        Command::Ops => spec_print::ops(out),
        Command::Spec { id } => spec_print::spec(&id, out),
        Command::Clif { request, dynamic } => {
            let text = match kerfx::request_file::load_run_file(&request)? {
                RunFile::Graph(file) => backend::graph_clif(&file, dynamic)?,
                RunFile::Any(AnyFile::Request(file)) => backend::clif(&file, dynamic)?,
                RunFile::Any(AnyFile::Chain(file)) => backend::compile_chain(&file, dynamic)?.clif().to_string(),
            };
            out.write_all(text.as_bytes()).map_err(stdout_error)
        }
        Command::Expand { request, name } => {
            let name = name.unwrap_or_else(|| struct_name(&request));
            let text = match kerfx::request_file::load_run_file(&request)? {
                RunFile::Graph(file) => backend::expand_graph(&file, &name)?,
                RunFile::Any(AnyFile::Request(file)) => {
                    kerfx::expand_request(&file.request, &name).map_err(|e| CliError(file.describe_errors(&e)))?
                }
                RunFile::Any(AnyFile::Chain(file)) => kerfx::chain::lower_chain(&file.chain())
                    .and_then(|l| kerfx::expand_map(l.fused()?, &name))
                    .map_err(|e| file.describe_error(&e))?,
            };
            out.write_all(text.as_bytes()).map_err(stdout_error)
        }
        Command::Aot { library, output, emit, shared, runtime, target, cpu } => {
            let emit = if shared { aot::Emit::Shared { runtime } } else { emit.into() };
            aot::aot(&library, &output, emit, &target, cpu.as_deref())
        }
        Command::Bench { request, json, threads, iters, backend, dynamic, peer } => {
            bench::bench(&request, &bench::Options { json, threads, iters, backend, dynamic, peers: peer }, out)
        }
        Command::Demo { op, verbose, brief: _ } => demo::demo(op.as_deref(), !verbose, out),
    }
}

/// What `kerf run -` calls the request it reads from standard input.
const STDIN_NAME: &str = "<stdin>";

/// `kerf run -`: the request (or chain) on standard input, read to its end, at most as
/// large as a request file may be; relative `.npy` paths resolve against the current
/// directory (`<stdin>` has no directory).
fn stdin_request() -> Result<RunFile, CliError> {
    use std::io::Read;
    let max = kerfx::request_file::MAX_REQUEST_BYTES;
    let mut bytes = Vec::new();
    io::stdin()
        .lock()
        .take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::new(format!("{STDIN_NAME}: cannot read standard input: {e}")))?;
    if bytes.len() as u64 > max {
        return Err(CliError::new(format!(
            "{STDIN_NAME}: the request is over {} MiB; kerf reads requests of at most {} MiB (put large tensors in .npy files)",
            max >> 20,
            max >> 20
        )));
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| CliError::new(format!("{STDIN_NAME}: the request is not UTF-8 text ({e})")))?;
    Ok(kerfx::request_file::parse_run_file(&text, Path::new(STDIN_NAME))?)
}

/// `w6_slice.toml` → `W6Slice`; `Derived` when the name makes no identifier.
fn struct_name(request: &Path) -> String {
    let stem = request.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let name: String = stem
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
        })
        .collect();
    if name.starts_with(|c: char| c.is_ascii_alphabetic()) { name } else { "Derived".into() }
}

/// `kerf run model.onnx --input NAME=FILE.npy …`: the model's graph, cut into fused
/// kernels (`kerfx::graph`), on the inputs given.
fn run_model(
    model: &Path,
    inputs: &[String],
    output: Option<&Path>,
    backend: Backend,
    dynamic: bool,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    if dynamic && backend != Backend::Jit {
        return Err(CliError::new("--dynamic compiles a JIT kernel; it needs --backend jit"));
    }
    let target = output.map(output::check).transpose()?;
    let mut arrays = std::collections::BTreeMap::new();
    let mut paths = Vec::new();
    for arg in inputs {
        let Some((name, file)) = arg.split_once('=') else {
            return Err(CliError::new(format!("--input {arg}: expected NAME=FILE.npy")));
        };
        let t = kerfx::npy::read(Path::new(file))?;
        if arrays.insert(name.to_string(), t).is_some() {
            return Err(CliError::new(format!("--input {arg}: input `{name}` is given twice")));
        }
        paths.push(PathBuf::from(file));
    }
    if let Some(target) = &target {
        target.refuse_input(model, "the model")?;
        for p in &paths {
            target.refuse_input(p, "an input")?;
        }
    }
    let bytes = kerfx::graph::read_model(model)?;
    // External data only from the model's own directory.
    let dir = model.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p });
    let graph = kerfx::graph::import_onnx(&bytes, &arrays, dir)
        .map_err(|e| CliError::new(format!("{}: {e}", model.display())))?;
    let in_model = |e: kerfx::Error| CliError::new(format!("{}: {e}", model.display()));
    let results = run_graph_on(&graph, &arrays, backend, dynamic).map_err(in_model)?;
    write_results(&results, target, out)
}

/// A graph on `backend`, cut into fused programs.
fn run_graph_on(
    graph: &kerfx::graph::Graph,
    inputs: &std::collections::BTreeMap<String, kerfx::Tensor>,
    backend: Backend,
    dynamic: bool,
) -> Result<Vec<(String, kerfx::Tensor)>, kerfx::Error> {
    match backend {
        Backend::Reference => kerfx::graph::run(graph, inputs, kerfx::graph::Backend::Reference),
        Backend::Jit => {
            let jit = backend::jit().map_err(|e| kerfx::Error::Invalid { what: e.to_string() })?;
            kerfx::graph::run(graph, inputs, kerfx::graph::Backend::Jit { jit, dynamic })
        }
    }
}

/// A graph's outputs into OUT (one `.npy`, or an `.npz` of them), or printed under their names.
fn write_results(
    results: &[(String, kerfx::Tensor)],
    target: Option<output::Target>,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    match target {
        Some(target) => target.write_arrays(results),
        None => {
            for (name, t) in results {
                outln!(out, "{name}: {}{:?}", t.dtype(), t.shape());
                outln!(out, "{}", kerfx::display::format_values(t));
            }
            Ok(())
        }
    }
}

/// `kerf run graph.toml`: a graph file's nodes cut into fused programs, on the inputs it
/// gives (`--unfused`: each node alone on the reference, the oracle).
fn run_graph(
    file: &kerfx::request_file::GraphFile,
    target: Option<output::Target>,
    backend: Backend,
    dynamic: bool,
    unfused: bool,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let in_file = |e: kerfx::Error| CliError::new(format!("{}: {e}", file.path.display()));
    if dynamic && backend != Backend::Jit {
        return Err(CliError::new("--dynamic compiles a JIT kernel; it needs --backend jit"));
    }
    if let Some(target) = &target {
        target.refuse_input(&file.path, "the graph file")?;
        for npy in file.npy_paths() {
            target.refuse_input(npy, "an input")?;
        }
    }
    if let Some(i) = file.graph.inputs.iter().find(|i| !file.inputs.contains_key(&i.name)) {
        return Err(CliError::new(format!(
            "{}: input `{}` is given by dtype and shape only; running needs its values",
            file.path.display(),
            i.name
        )));
    }
    let results = if unfused {
        kerfx::graph::run_unfused_reference(&file.graph, &file.inputs)
    } else {
        run_graph_on(&file.graph, &file.inputs, backend, dynamic)
    }
    .map_err(in_file)?;
    write_results(&results, target, out)
}

fn run(
    request: &Path,
    output: Option<&Path>,
    backend: Backend,
    dynamic: bool,
    unfused: bool,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    // OUT is checked first, so that a run is not wasted on an output that will be refused.
    let target = output.map(output::check).transpose()?;
    let from_stdin = request == Path::new("-");
    let file = if from_stdin { stdin_request()? } else { kerfx::request_file::load_run_file(request)? };
    let file = match file {
        RunFile::Graph(graph) => return run_graph(&graph, target, backend, dynamic, unfused, out),
        RunFile::Any(file) => file,
    };
    let npy_paths = match &file {
        AnyFile::Request(f) => f.npy_paths().to_vec(),
        AnyFile::Chain(f) => f.npy_paths(),
    };
    if let Some(target) = &target {
        if from_stdin {
            // Standard input redirected from OUT (`kerf run - -o x.npy < x.npy`).
            #[cfg(unix)]
            target.refuse_input(Path::new("/dev/stdin"), "the request file (standard input)")?;
        } else {
            target.refuse_input(request, "the request file")?;
        }
        for npy in &npy_paths {
            target.refuse_input(npy, "an input")?;
        }
    }
    let result = match &file {
        AnyFile::Request(f) if unfused => {
            return Err(CliError::new(format!(
                "{}: --unfused runs the steps of a chain file ([[steps]])",
                f.path.display()
            )));
        }
        AnyFile::Request(f) => backend::run_outputs(f, backend, dynamic)?,
        AnyFile::Chain(f) => vec![("output".to_string(), backend::run_chain(f, backend, dynamic, unfused)?)],
    };
    match target {
        Some(target) => target.write_arrays(&result),
        None => {
            for (name, t) in &result {
                // One output prints as it always has; several, each under its name (as a
                // model's outputs).
                if result.len() > 1 {
                    outln!(out, "{name}: {}{:?}", t.dtype(), t.shape());
                } else {
                    outln!(out, "{}{:?}", t.dtype(), t.shape());
                }
                outln!(out, "{}", kerfx::display::format_values(t));
            }
            Ok(())
        }
    }
}
