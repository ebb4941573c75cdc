//! `kerf demo`: every spec example through the default backend, checked against the
//! reference interpreter and the spec: one line per example, or (`--verbose`) each shown
//! with its input, output and IR.

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
        "kerf demo: every spec example through the {} backend (static kernels; dynamic kernels checked too), \
         each checked against the reference interpreter and the spec",
        backend.name()
    );
    let mut total = 0;
    let mut failed = Vec::new();
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
