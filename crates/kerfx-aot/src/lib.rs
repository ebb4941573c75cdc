//! kerf ahead of time: a library of static kernels compiled into one relocatable object
//! (`<lib>.o`) and a C header (`<lib>.h`), from the same nests and emitters as the JIT
//! (`kerfx_jit::object::static_function` for a [`Target`]), defined in a
//! `cranelift-object` module instead of a JIT module.
//!
//! Per kernel the object holds its code and argument block (local symbols) and two
//! exported entry points written in CLIF (`wrapper`): `<lib>_<kernel>` and
//! `<lib>_<kernel>_range`, which check every pointer, length, overlap and range before the
//! kernel runs and return a status code; and `<lib>_info()`, a table of every kernel for
//! discovery without parsing C. Kernels that need no host function link against libc
//! alone (`memcpy`, `memset`); those that call the runtime library's (`kerfx-rt`:
//! streaming copies of outputs of 8 MiB or more, tiled transposes, stride-2 gathers, the
//! Philox block fill of random fills, the runs of chains that start with a fill) import
//! them as `kerf_rt1_*` and the header says to link `libkerfx_rt.a` (per kernel,
//! `NEEDS_RUNTIME`). Output is deterministic: the same library file gives the same bytes.
//!
//! A request of an op over several inputs or outputs (Concat, Split: [`kerfx::is_program_op`])
//! and a graph file that runs as one program compile to a *program kernel* ([`program`]):
//! one function per move behind the exported entry points `<lib>_<kernel>(in_0,
//! in_0_bytes, …, out_0, out_0_bytes, …)` and `<lib>_<kernel>_range(…, lo, hi)` (ABI
//! 1.2: positions `[lo, hi)` of the moves' split loops one after another, see
//! [`program`]), which check every pointer, every length, every overlap of an output with
//! an input or another output and the range before any move runs, allocating themselves
//! the scratch some moves run through; the header and the info table describe every
//! operand (ABI 1.1).
//!
//! A library kernel with `dynamic = true` compiles to a *dynamic kernel* (ABI 1.3): the
//! code the JIT's dynamic path compiles for the request's plan ([`DynamicKernel`]:
//! specialized on the map's kind — the op's mode —, dtype and loop depth, the input's
//! rank), behind two exported functions:
//! `<lib>_<kernel>_plan(shape, rank, <param>, <param>_count, …, &plan)`, which has the
//! runtime library's planner (`kerfx_rt::plan`) build an immutable plan from the input's
//! shape and the request's integer parameters, validated, scheduled and verified exactly
//! as on the JIT; and `<lib>_<kernel>(plan, input, input_bytes, output, output_bytes)`,
//! which runs it after checking the plan is this kernel's and every buffer
//! (`kerf_rt1_plan_run`). It has no `_range` entry point.

#![warn(missing_docs)]

mod archive;
mod header;
mod library;
pub mod program;
mod wrapper;

pub use archive::static_library;
pub use kerfx_jit::object::DynamicFunction;
pub use kerfx_jit::{AOT_TRIPLES, Cpu, Target};
pub use kerfx_rt::plan::Template;
pub use library::{KernelEntry, Library};
pub use program::{Buffer, Call, MoveFunction, Operand, Operands, PartRuns, Place, ProgramFunctions, RangePart};

use kerfx::Program;
use kerfx::graph::Graph;
use kerfx::request_file::{AnyFile, MAX_REQUEST_BYTES, is_graph, load_any, load_graph};
use kerfx::{DType, Request};
use kerfx_jit::object::{StaticFunction, static_function};

/// The ABI version of the entry points and the info table (in the header and in
/// `<lib>_info()`): a new major for any change a caller compiled against the old one
/// would misread; a new minor for additions.
pub const ABI_MAJOR: u32 = 1;
/// See [`ABI_MAJOR`].
pub const ABI_MINOR: u32 = 3;

/// Status codes the entry points return (the header's `KERF_*`): the runtime library's
/// list, which its planner returns too.
pub use kerfx_rt::status;

/// One compiled kernel, ready to be written into a library.
pub struct Kernel {
    /// Its name (the entry point is `<lib>_<name>`).
    pub name: String,
    /// Where it came from (a file path, or a description), for the header's comment.
    pub origin: String,
    /// What it runs.
    pub body: Body,
}

/// What a kernel runs: one function over one input (or none) and one output, or a
/// program over several.
pub enum Body {
    /// One static kernel: entry points `<lib>_<name>(input, input_bytes, output,
    /// output_bytes)` (no input pair when it reads none) and `<lib>_<name>_range`.
    Single(Box<StaticFunction>),
    /// A program (Concat, Split, a graph run as one program): entry points
    /// `<lib>_<name>(in_0, in_0_bytes, …, out_0, out_0_bytes, …)` running its moves in
    /// order and `<lib>_<name>_range(…, lo, hi)` running positions `[lo, hi)` of its
    /// range ([`program::RangePart`]).
    Program(ProgramFunctions),
    /// A dynamic kernel: entry points `<lib>_<name>_plan(…)` and `<lib>_<name>(plan,
    /// input, input_bytes, output, output_bytes)`.
    Dynamic(Box<DynamicKernel>),
}

/// A dynamic kernel: its code, and the request template the runtime builds its plans
/// from.
pub struct DynamicKernel {
    /// The code and the key it is specialized on.
    pub function: DynamicFunction,
    /// The request, its data input and its run-time parameters.
    pub template: Template,
    /// The template's text, as the object holds it for the planner.
    pub request: String,
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
    /// Whether a program kernel allocates scratch: the object imports `malloc` and `free`.
    pub allocates: bool,
    /// Whether a kernel calls the runtime library: then `kerf_rt.h` ([`RUNTIME_HEADER`])
    /// goes beside the header and programs link `libkerfx_rt.a`.
    pub needs_runtime: bool,
    /// Whether a kernel is dynamic: programs call the runtime's `kerf_rt1_plan_*`
    /// functions themselves (a shared library exports them beside the entry points).
    pub plans: bool,
}

/// `kerf_rt.h`, the runtime library's C declarations.
pub const RUNTIME_HEADER: &str = kerfx_rt::HEADER;

impl Kernel {
    /// Every static function the kernel calls: its one, or its moves' (none for a
    /// dynamic kernel).
    pub fn functions(&self) -> Vec<&StaticFunction> {
        match &self.body {
            Body::Single(f) => vec![f],
            Body::Program(p) => p.moves.iter().flat_map(|m| &m.calls).map(|c| &c.function).collect(),
            Body::Dynamic(_) => Vec::new(),
        }
    }

    /// The ISA its code is compiled for (`None` for a program of no move).
    pub fn isa(&self) -> Option<&cranelift_codegen::isa::OwnedTargetIsa> {
        match &self.body {
            Body::Dynamic(d) => Some(&d.function.isa),
            _ => self.functions().first().map(|f| &f.isa),
        }
    }

    /// The dynamic kernel, for a kernel that is one.
    pub fn dynamic(&self) -> Option<&DynamicKernel> {
        match &self.body {
            Body::Dynamic(d) => Some(d),
            _ => None,
        }
    }

    /// The single function, for a kernel that is one (`None` for a program).
    pub fn single(&self) -> Option<&StaticFunction> {
        match &self.body {
            Body::Single(f) => Some(f),
            Body::Program(_) | Body::Dynamic(_) => None,
        }
    }

    /// Whether this kernel calls the runtime library (a dynamic kernel's plans are its).
    pub fn needs_runtime(&self) -> bool {
        self.dynamic().is_some() || self.functions().iter().any(|f| !f.host_functions.is_empty())
    }

    /// Whether it allocates scratch (a program kernel some move of which runs through it).
    pub fn allocates(&self) -> bool {
        matches!(&self.body, Body::Program(p) if p.scratch_bytes > 0)
    }

    /// The element type of its buffers.
    pub fn dtype(&self) -> DType {
        match &self.body {
            Body::Single(f) => f.dtype,
            Body::Program(p) => p.dtype,
            Body::Dynamic(d) => d.function.key.dtype,
        }
    }
}

/// Compile one kernel from a source (a request, plan or map) for `target`; an error when
/// it cannot be compiled. A
/// request of an op over several inputs or outputs lowers to a program, which
/// [`compile_request`] compiles.
pub fn compile_kernel<'a>(
    name: &str,
    origin: &str,
    what: impl kerfx_jit::IntoSource<'a>,
    target: &Target,
) -> Result<Kernel, String> {
    let function = static_function(what, target).map_err(|e| e.to_string())?;
    check_host_functions(&function)?;
    Ok(Kernel { name: name.to_string(), origin: origin.to_string(), body: Body::Single(Box::new(function)) })
}

/// Every host function a kernel calls is the runtime library's (`kerf_rt1_*`, declared in
/// `kerf_rt.h`): the object imports nothing else (a check of the JIT's host table, whose
/// every entry is the runtime's).
pub(crate) fn check_host_functions(f: &StaticFunction) -> Result<(), String> {
    match f.host_functions.iter().find(|h| !h.starts_with("kerf_rt1_")) {
        Some(h) => Err(format!("calls the host function {h}, which is not in the runtime library (kerfx-rt)")),
        None => Ok(()),
    }
}

/// Compile a request: a program kernel for an op over several inputs or outputs
/// ([`kerfx::is_program_op`]: its inputs `in_k`, its outputs `out_k`), else one kernel
/// ([`compile_kernel`]).
pub fn compile_request(name: &str, origin: &str, request: &Request, target: &Target) -> Result<Kernel, String> {
    if !kerfx::is_program_op(&request.op).map_err(|e| e.to_string())? {
        return compile_kernel(name, origin, request, target);
    }
    let program = kerfx::lower_program(request).map_err(|e| e.to_string())?;
    compile_program_kernel(name, origin, &program, &Operands::plain(&program), target)
}

/// Compile the dynamic kernel of a request (see [`DynamicKernel`]): the code the JIT's
/// dynamic path runs the request's plan on, for `target`, and the request's template
/// ([`Template::of`]: its data input given by dtype and shape, its integer attributes and
/// index inputs the run-time parameters). Ops over several inputs or outputs, fills and
/// requests no single plan expresses are refused, naming why.
pub fn compile_dynamic(name: &str, origin: &str, request: &Request, target: &Target) -> Result<Kernel, String> {
    if kerfx::is_program_op(&request.op).map_err(|e| e.to_string())? {
        return Err(format!(
            "{} reads or writes several tensors (a program): a dynamic kernel is one op over one input",
            request.op
        ));
    }
    if kerfx_ir::frontend::as_chain(request).map_err(|e| e.to_string())?.is_some() {
        return Err("the request lowers to a chain of kernels, not one: compile it static".into());
    }
    let plan = kerfx_ir::lower(request).map_err(|e| e.to_string())?;
    let function = kerfx_jit::object::dynamic_function(&plan, target).map_err(|e| e.to_string())?;
    if let Some(f) = function.host_functions.iter().find(|f| !f.starts_with("kerf_rt1_")) {
        return Err(format!("calls the host function {f}, which is the JIT's own and not in the runtime library"));
    }
    let template = Template::of(request).map_err(|e| e.to_string())?;
    let text = template.encode().map_err(|e| e.to_string())?;
    // The planner reads back exactly this template (checked here, not at run time).
    if Template::decode(&text).as_ref() != Ok(&template) {
        return Err("the request does not survive its text form (a bug: please report it)".into());
    }
    Ok(Kernel {
        name: name.to_string(),
        origin: origin.to_string(),
        body: Body::Dynamic(Box::new(DynamicKernel { function, template, request: text })),
    })
}

/// Compile a program into one kernel (see [`program`]): its operands named and ordered as
/// `operands` says.
pub fn compile_program_kernel(
    name: &str,
    origin: &str,
    program: &Program,
    operands: &Operands,
    target: &Target,
) -> Result<Kernel, String> {
    let functions = program::compile_program(program, operands, target)?;
    Ok(Kernel { name: name.to_string(), origin: origin.to_string(), body: Body::Program(functions) })
}

/// Compile a graph that runs as one program ([`kerfx::graph::Prepared::single_program`])
/// into one kernel: its inputs the graph inputs the program reads, in the graph's order,
/// by their names (graph constants it reads are held in the object); its outputs the
/// graph's, in order. Any other graph is refused, naming why.
pub fn compile_graph(name: &str, origin: &str, graph: &Graph, target: &Target) -> Result<Kernel, String> {
    let prepared = kerfx::graph::Prepared::new(graph.clone()).map_err(|e| e.to_string())?;
    // The graph as prepared: a node's data given as a tensor of its request is a constant.
    let graph = prepared.graph();
    let programs = prepared.programs();
    let gp = match programs {
        [Some(gp)] => gp,
        [None] => {
            return Err("the graph's program needs a value known only when it runs (a run-time parameter): kerf aot compiles graphs whose one program is built ahead of time"
                .into());
        }
        _ => {
            return Err(format!(
                "the graph cuts into {} programs (a value read by several nodes or a graph output is materialized between them): kerf aot compiles graphs that run as one program",
                programs.len()
            ));
        }
    };
    if prepared.single_program().is_none() {
        return Err("the graph's program does not write each graph output exactly once (an output listed twice, or a value written that is not an output): kerf aot compiles graphs whose one program writes its outputs"
            .into());
    }
    // The program's inputs in the graph's order (graph inputs first, then constants).
    let rank = |v: &String| graph.inputs.iter().position(|i| &i.name == v).unwrap_or(graph.inputs.len());
    let mut perm: Vec<usize> = (0..gp.reads.len()).collect();
    perm.sort_by_key(|&k| (rank(&gp.reads[k]), gp.reads[k].clone()));
    let mut program = gp.program.clone();
    program.inputs = perm.iter().map(|&k| gp.program.inputs[k].clone()).collect();
    for mv in &mut program.moves {
        mv.input = mv.input.and_then(|i| perm.iter().position(|&k| k == i));
    }
    let mut inputs = Vec::with_capacity(perm.len());
    for &k in &perm {
        let value = &gp.reads[k];
        let constant = if graph.inputs.iter().any(|i| &i.name == value) {
            None
        } else {
            let t = graph
                .constants
                .get(value)
                .ok_or_else(|| format!("the program reads `{value}`, neither a graph input nor a constant"))?;
            Some(t.bytes().ok_or_else(|| format!("constant `{value}`: kerf moves bytes, not strings"))?.to_vec())
        };
        inputs.push((value.clone(), constant));
    }
    let outputs = graph
        .outputs
        .iter()
        .map(|v| gp.writes.iter().position(|w| w == v).map(|o| (v.clone(), o)).ok_or_else(|| format!("output `{v}`")))
        .collect::<Result<_, _>>()?;
    compile_program_kernel(name, origin, &program, &Operands { inputs, outputs }, target)
}

/// Compile every kernel of `library` for `target` into an object and a header. Errors
/// name the kernel and, for a request file's errors, the file (and line).
pub fn compile(library: &Library, target: &Target) -> Result<Output, String> {
    write_library(&library.name, &compile_kernels(library, target)?, target)
}

/// Compile every kernel of `library` for `target`, in the library file's order (what
/// [`compile`] writes; `kerfx-build` also describes them in Rust). Errors as [`compile`]'s.
pub fn compile_kernels(library: &Library, target: &Target) -> Result<Vec<Kernel>, String> {
    let mut kernels = Vec::with_capacity(library.kernels.len());
    for entry in &library.kernels {
        let at = |e: String| format!("kernel {:?}: {e}", entry.name);
        let origin = entry.request.file_name().map_or_else(String::new, |f| f.to_string_lossy().into_owned());
        let path = entry.request.display();
        if entry.dynamic {
            let kernel = match load_any(&entry.request).map_err(|e| at(e.to_string()))? {
                AnyFile::Request(f) => compile_dynamic(&entry.name, &origin, &f.request, target)
                    .map_err(|e| at(format!("{}: {e}", f.path.display()))),
                AnyFile::Chain(f) => Err(at(format!(
                    "{}: a chain file; a dynamic kernel is one op (a request file): compile the chain static",
                    f.path.display()
                ))),
            }?;
            kernels.push(kernel);
            continue;
        }
        if is_graph_at(&entry.request) {
            let file = load_graph(&entry.request).map_err(|e| at(e.to_string()))?;
            kernels.push(
                compile_graph(&entry.name, &origin, &file.graph, target).map_err(|e| at(format!("{path}: {e}")))?,
            );
            continue;
        }
        let file = load_any(&entry.request).map_err(|e| at(e.to_string()))?;
        let kernel = match &file {
            AnyFile::Request(f) => compile_request(&entry.name, &origin, &f.request, target)
                .map_err(|e| at(format!("{}: {e}", f.path.display()))),
            AnyFile::Chain(f) => {
                let lowered = kerfx::chain::lower_chain(&f.chain()).map_err(|e| at(f.describe_error(&e)))?;
                let map = lowered.fused().map_err(|e| at(f.describe_error(&e)))?;
                compile_kernel(&entry.name, &origin, map, target).map_err(|e| at(format!("{}: {e}", f.path.display())))
            }
        }?;
        kernels.push(kernel);
    }
    Ok(kernels)
}

/// Whether the file at `path` is a graph file ([`is_graph`]): a regular file of at most
/// [`MAX_REQUEST_BYTES`] whose text has `[[nodes]]`. Any other (missing, unreadable, too
/// large) is left to [`load_any`], which names its problem.
fn is_graph_at(path: &std::path::Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else { return false };
    meta.is_file() && meta.len() <= MAX_REQUEST_BYTES && std::fs::read_to_string(path).is_ok_and(|text| is_graph(&text))
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
        if !library::is_name(&k.name) || library::is_reserved(&k.name) {
            return Err(bad("kernel", &k.name) + " (not `info` nor ending in `_range` or `_plan`)");
        }
        if kernels[..i].iter().any(|o| o.name == k.name) {
            return Err(format!("kernel {:?} is listed twice", k.name));
        }
    }
    let object = wrapper::object(name, kernels, target)?;
    let header = header::header(name, kernels, target);
    let mut exported: Vec<String> = Vec::new();
    for k in kernels {
        exported.push(format!("{name}_{}", k.name));
        if k.dynamic().is_some() {
            exported.push(format!("{name}_{}_plan", k.name));
        } else {
            exported.push(format!("{name}_{}_range", k.name));
        }
    }
    exported.push(format!("{name}_info"));
    let needs_runtime = kernels.iter().any(Kernel::needs_runtime);
    let allocates = kernels.iter().any(Kernel::allocates);
    let plans = kernels.iter().any(|k| k.dynamic().is_some());
    Ok(Output { name: name.to_string(), object, header, exported, allocates, needs_runtime, plans })
}
