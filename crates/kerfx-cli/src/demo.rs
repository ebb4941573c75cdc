//! `kerf demo`: every spec example through the default backend, checked against the
//! reference interpreter and the spec, then the built-in graph examples ([`GRAPHS`]: the
//! data movement of real models, as graph files), each cut into programs and run on the
//! backend, checked against the reference running the programs and running the nodes one
//! by one: one line per example, or (`--verbose`) each shown with its inputs, outputs and
//! IR (for a graph, its programs' moves).

use crate::backend::{self, Backend, RunError};
use crate::{CliError, outln};
use std::fmt::Write as _;
use std::io::Write;

/// A line of an example's text (writing to a `String` cannot fail).
macro_rules! say {
    ($s:expr, $($arg:tt)*) => {{
        let _ = writeln!($s, $($arg)*);
    }};
}
use kerfx::display::describe;
use kerfx::{Tensor, examples};

/// `brief`: one line per example (the default); else each in full (`--verbose`).
pub fn demo(only: Option<&str>, brief: bool, out: &mut dyn Write) -> Result<(), CliError> {
    let reg = kerfx::spec::registry().map_err(|e| CliError::new(e.to_string()))?;
    if let Some(id) = only
        && reg.get(id).is_none()
    {
        return Err(CliError::new(format!("unknown op `{id}` (known: {})", reg.ids().collect::<Vec<_>>().join(", "))));
    }
    let backend = Backend::default_kind();
    outln!(
        out,
        "kerf demo: every spec example, then the graph examples, through the {} backend (static kernels; \
         dynamic kernels checked too), each checked against the reference interpreter and the spec (a graph: \
         against its nodes run one by one)",
        backend.name()
    );
    let mut total = 0;
    let mut failed = Vec::new();
    let graphs = graph_examples(only)?;
    for spec in reg.ops().iter().filter(|s| only.is_none_or(|id| s.id == id)) {
        for ex in &spec.examples {
            total += 1;
            let name = format!("{}/{}", spec.id, ex.name);
            let mut shown = String::new();
            let result = example(spec, ex, backend, brief, &mut shown);
            out.write_all(shown.as_bytes()).map_err(crate::stdout_error)?;
            match result {
                Ok(()) => {
                    if brief {
                        outln!(out, "ok    {name}");
                    }
                }
                Err(why) => {
                    outln!(out, "FAIL  {name}: {why}");
                    failed.push(name);
                }
            }
        }
    }
    for (name, graph) in &graphs {
        total += 1;
        let name = format!("graph/{name}");
        let mut shown = String::new();
        let result = graph_example(&name, graph, backend, brief, &mut shown);
        out.write_all(shown.as_bytes()).map_err(crate::stdout_error)?;
        match result {
            Ok(summary) => {
                if brief {
                    outln!(out, "ok    {name} ({summary})");
                }
            }
            Err(why) => {
                outln!(out, "FAIL  {name}: {why}");
                failed.push(name);
            }
        }
    }
    outln!(out, "\n{total} examples: {} ok, {} failed", total - failed.len(), failed.len());
    if failed.is_empty() {
        Ok(())
    } else {
        Err(CliError::new(format!("demo: {} of {total} examples failed: {}", failed.len(), failed.join(", "))))
    }
}

/// `dtype[shape]`, then the values on their own indented lines.
fn shown(t: &Tensor) -> String {
    format!("{}{:?}\n{}", t.dtype(), t.shape(), indent(&kerfx::display::format_values(t), "    "))
}

fn indent(s: &str, by: &str) -> String {
    s.lines().map(|l| format!("{by}{l}")).collect::<Vec<_>>().join("\n")
}

/// Show and check one example; `Err` says what did not match.
/// What it shows goes to `s`.
fn example(
    spec: &kerfx::spec::OpSpec,
    ex: &kerfx::spec::ExampleSpec,
    backend: Backend,
    brief: bool,
    s: &mut String,
) -> Result<(), String> {
    let req = examples::request(spec, ex)?;
    if !brief {
        let version = ex.version.map(|v| format!(" (version {v})")).unwrap_or_default();
        say!(s, "\n== {} / {}{version}: {}", spec.id, ex.name, ex.doc);
        for (name, value) in &req.attributes {
            say!(s, "  attribute {name} = {value}");
        }
        for (name, input) in &req.inputs {
            let entries = match input {
                kerfx::InputArg::List(entries) => {
                    entries.iter().enumerate().map(|(k, e)| (format!("{name}[{k}]"), e)).collect()
                }
                one => vec![(name.clone(), one)],
            };
            for (name, input) in entries {
                match input.tensor() {
                    Some(t) => say!(s, "  input {name}: {}", shown(t)),
                    None => say!(s, "  input {name}: {} {:?}", input.dtype(), input.shape()),
                }
            }
        }
    }
    let got = backend::run_request_outputs(&req, backend, false);
    let reference = kerfx::run_reference_outputs(&req);
    match examples::expected(ex) {
        Some(want) => {
            let want = want?;
            let outs = got.map_err(|e| format!("failed: {e}"))?;
            if outs.len() != want.len() {
                return Err(format!("gave {} outputs, the spec expects {}", outs.len(), want.len()));
            }
            if !brief {
                for (name, out) in &outs {
                    say!(s, "  output {name}: {}", shown(out));
                }
                print_ir(&req, backend, s);
            }
            let reference = reference.map_err(|e| format!("the reference failed: {e}"))?;
            let dynamic = if backend == Backend::Jit {
                let d = backend::run_request_outputs(&req, backend, true)
                    .map_err(|e| format!("the dynamic kernel failed: {e}"))?;
                Some(d)
            } else {
                None
            };
            for (k, (_, out)) in outs.iter().enumerate() {
                check("the reference", out, &reference[k])?;
                check("the spec's expected output", out, &want[k])?;
                if let Some(d) = &dynamic {
                    check("the dynamic kernel's", &d[k].1, out)?;
                }
            }
            let also = if dynamic.is_some() { ", and so does the dynamic kernel" } else { "" };
            if !brief {
                say!(s, "  ok: equals the reference and the spec, bit for bit{also}");
            }
        }
        None => {
            let fragment = ex.error.clone().unwrap_or_default();
            match got {
                Ok(outs) => {
                    let shown: Vec<String> = outs.iter().map(|(_, t)| describe(t)).collect();
                    return Err(format!("must fail with `{fragment}`, gave {}", shown.join("; ")));
                }
                Err(RunError::Cli(e)) => return Err(e.0.join("; ")),
                Err(RunError::Kerf(e)) => {
                    if !brief {
                        say!(s, "  error: {e}");
                    }
                    if !e.to_string().contains(&fragment) {
                        return Err(format!("the error `{e}` does not name `{fragment}`"));
                    }
                    if reference.is_ok() {
                        return Err("the reference accepts what the backend refuses".into());
                    }
                    if !brief {
                        say!(s, "  ok: refused, naming `{fragment}`, as the reference does");
                    }
                }
            }
        }
    }
    Ok(())
}

fn check(what: &str, out: &Tensor, want: &Tensor) -> Result<(), String> {
    if out == want { Ok(()) } else { Err(format!("output {} differs from {what} {}", describe(out), describe(want))) }
}

/// The kernel's IR: the plan, its loop nest, and for the JIT the Cranelift IR.
fn print_ir(req: &kerfx::Request, backend: Backend, s: &mut String) {
    if kerfx::is_program_op(&req.op).unwrap_or(false) {
        return print_program_ir(req, backend, s);
    }
    match kerfx::lower(req) {
        Ok(plan) => {
            say!(s, "  plan:\n{}", indent(&plan.to_string(), "    "));
            match kerfx::schedule::schedule(&plan) {
                Ok(nest) => say!(s, "  loop nest:\n{}", indent(&nest.to_string(), "    ")),
                Err(e) => say!(s, "  loop nest: {e}"),
            }
        }
        Err(e) => say!(s, "  plan: {e}"),
    }
    if backend == Backend::Jit {
        let strings = kerfx::lower(req).is_ok_and(|p| p.dtype() == kerfx::DType::String);
        let note = if strings {
            " (shown for u64 elements; strings move as elements of their width, 1, 2, 4 or 8 bytes, or by index)"
        } else {
            ""
        };
        match backend::compile_jit(req, false) {
            Ok(k) => say!(s, "  cranelift IR{note}:\n{}", indent(k.clif().trim_end(), "    ")),
            Err(e) => say!(s, "  cranelift IR: {e}"),
        }
    }
}

/// A program's moves (Concat, Split): each move's plan, loop nest and, on the JIT, the
/// kernel writing its box.
fn print_program_ir(req: &kerfx::Request, backend: Backend, s: &mut String) {
    let program = match kerfx::lower_program(req) {
        Ok(p) => p,
        Err(e) => return say!(s, "  program: {e}"),
    };
    let kernels = match backend {
        Backend::Jit => Some(
            backend::jit()
                .map_err(|e| e.to_string())
                .and_then(|jit| jit.compile_program(&program, false).map_err(|e| e.to_string())),
        ),
        Backend::Reference => None,
    };
    say!(s, "  program: {} moves", program.moves.len());
    for (m, mv) in program.moves.iter().enumerate() {
        let input = mv.input.map_or("a fill".to_string(), |i| format!("input {i}"));
        say!(s, "  move {m}: {input} into output {} at {:?}", mv.output, mv.at);
        for plan in &mv.steps {
            say!(s, "{}", indent(&plan.to_string(), "    "));
        }
    }
    match kernels {
        Some(Ok(k)) => {
            for (m, kernels) in k.move_kernels().enumerate() {
                for kernel in kernels {
                    say!(s, "  cranelift IR of move {m}:\n{}", indent(kernel.clif().trim_end(), "    "));
                }
            }
        }
        Some(Err(e)) => say!(s, "  cranelift IR: {e}"),
        None => {}
    }
}

/// The built-in graph examples, by name: the data movement of real models as graph files
/// (crates/kerfx-cli/graphs/, the one copy; embedded, so `kerf demo` needs no files).
pub const GRAPHS: [(&str, &str); 4] = [
    ("swin_roll_2d", include_str!("../graphs/swin_roll_2d.toml")),
    ("gpt2_qkv_split", include_str!("../graphs/gpt2_qkv_split.toml")),
    ("unet_pad_concat", include_str!("../graphs/unet_pad_concat.toml")),
    ("shufflenet_shuffle_split", include_str!("../graphs/shufflenet_shuffle_split.toml")),
];

/// The graph examples to run, parsed: all, or (`--op`) those with a node of that op.
fn graph_examples(only: Option<&str>) -> Result<Vec<(&'static str, kerfx::request_file::GraphFile)>, CliError> {
    let mut graphs = Vec::new();
    for (name, text) in GRAPHS {
        let path = std::path::PathBuf::from(format!("graphs/{name}.toml"));
        let file = kerfx::request_file::parse_graph(text, &path)?;
        if only.is_none_or(|op| file.graph.nodes.iter().any(|n| n.request.op == op)) {
            graphs.push((name, file));
        }
    }
    Ok(graphs)
}

/// Run one graph example: cut into programs, run on `backend` (on the JIT, static and
/// dynamic kernels), compared bit for bit with the reference running the same programs
/// and with the nodes run one by one. `Ok` says how it was cut; what it shows goes to `s`.
fn graph_example(
    name: &str,
    file: &kerfx::request_file::GraphFile,
    backend: Backend,
    brief: bool,
    s: &mut String,
) -> Result<String, String> {
    let graph = &file.graph;
    let prepared = kerfx::graph::Prepared::new(graph.clone()).map_err(|e| format!("cannot prepare: {e}"))?;
    let programs = prepared.programs().len();
    let summary = format!("{} nodes in {programs} program{}", graph.nodes.len(), if programs == 1 { "" } else { "s" });
    if !brief {
        let doc: Vec<&str> = file_doc(name);
        say!(s, "\n== {name}: {}", doc.join(" "));
        for (input, t) in &file.inputs {
            say!(s, "  input {input}: {}", shown(t));
        }
    }
    let unfused = kerfx::graph::run_unfused_reference(graph, &file.inputs)
        .map_err(|e| format!("the nodes one by one failed: {e}"))?;
    let reference = prepared
        .run(&file.inputs, kerfx::graph::Backend::Reference)
        .map_err(|e| format!("the reference failed: {e}"))?;
    let mut runs = vec![("the reference", reference)];
    if backend == Backend::Jit {
        let jit = crate::backend::jit().map_err(|e| e.to_string())?;
        for (what, dynamic) in [("the JIT", false), ("the JIT's dynamic kernels", true)] {
            let outs = prepared
                .run(&file.inputs, kerfx::graph::Backend::Jit { jit, dynamic })
                .map_err(|e| format!("{what} failed: {e}"))?;
            runs.push((what, outs));
        }
    }
    for (what, outs) in &runs {
        if outs.len() != unfused.len() {
            return Err(format!("{what} gave {} outputs, the nodes one by one {}", outs.len(), unfused.len()));
        }
        for ((n, got), (_, want)) in outs.iter().zip(&unfused) {
            if got != want {
                return Err(format!(
                    "output `{n}` of {what}: {} differs from the nodes one by one: {}",
                    describe(got),
                    describe(want)
                ));
            }
        }
    }
    if !brief {
        for (n, t) in &runs[runs.len() - 1].1 {
            say!(s, "  output {n}: {}", shown(t));
        }
        say!(s, "  cut into {summary}:");
        for (k, (group, program)) in prepared.groups().iter().zip(prepared.programs()).enumerate() {
            let labels: Vec<String> = group.nodes.iter().map(|&n| graph.nodes[n].label(n)).collect();
            say!(s, "  program {k}: {}", labels.join(", "));
            let Some(gp) = program else {
                say!(s, "    built when the graph runs (it reads a parameter given at run time)");
                continue;
            };
            for (m, mv) in gp.program.moves.iter().enumerate() {
                let input = mv.input.map_or("a fill".to_string(), |i| format!("`{}`", gp.reads[i]));
                say!(s, "  move {m}: {input} into `{}` at {:?}", gp.writes[mv.output], mv.at);
                for plan in &mv.steps {
                    say!(s, "{}", indent(&plan.to_string(), "    "));
                }
            }
        }
        let also = if runs.len() > 1 {
            " on the JIT (static and dynamic kernels) and the reference"
        } else {
            " on the reference"
        };
        say!(s, "  ok: the programs{also} equal the nodes run one by one, bit for bit");
    }
    Ok(summary)
}

/// A graph example's leading comment lines, without `#`.
fn file_doc(name: &str) -> Vec<&'static str> {
    let text = GRAPHS.iter().find(|(n, _)| format!("graph/{n}") == name).map_or("", |(_, t)| t);
    text.lines().take_while(|l| l.starts_with('#')).map(|l| l.trim_start_matches('#').trim()).collect()
}
