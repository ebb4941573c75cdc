//! Derives random kernels for the guard-page test: the requests of `src/random.rs` (the
//! generator the JIT guard test uses) that lower and schedule, rendered as
//! `#[derive(kerf::Kernel)]` attributes into `$OUT_DIR/random_derived.rs`. The test
//! replays the generator with the same seed to get each kernel's request back.
//! `KERF_RANDOM_DERIVED=N` sets how many (default 300).

#[path = "src/random.rs"]
#[allow(dead_code)]
mod random;

use kerf_ir::{AttrValue, InputArg, Plan, Request};
use random::{Rng, random_request};
use std::fmt::Write;

pub const SEED: u64 = 0xde51_7ed0;
const LIMIT: u64 = 2048;

fn int_list(v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", items.join(", "))
}

fn float(f: f64) -> String {
    format!("{f:?}")
}

/// The `#[kerf(...)]` attribute list a request stands for, if it can be written as one.
fn attributes(req: &Request, plan: &Plan) -> Option<String> {
    let mut parts = vec![format!("op = \"{}\"", req.op)];
    if let Some(v) = req.version {
        parts.push(format!("version = {v}"));
    }
    for (name, value) in &req.attributes {
        parts.push(format!(
            "{name} = {}",
            match value {
                AttrValue::Int(i) => i.to_string(),
                AttrValue::Float(f) => float(*f),
                AttrValue::Str(s) => format!("\"{s}\""),
                AttrValue::IntList(l) => int_list(l),
                AttrValue::FloatList(l) => format!("[{}]", l.iter().map(|f| float(*f)).collect::<Vec<_>>().join(", ")),
            }
        ));
    }
    for (name, input) in &req.inputs {
        match input {
            InputArg::Meta { dtype, shape } => {
                parts.push(format!("dtype = \"{dtype}\""));
                parts.push(format!("input = [{}]", shape.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")));
            }
            InputArg::Tensor(t) if t.shape().len() == 1 => {
                let v: Vec<i64> = (0..t.len()).map(|i| t.element_i128(i).map(|x| x as i64)).collect::<Option<_>>()?;
                parts.push(format!("{name} = {}", int_list(&v)));
            }
            InputArg::Tensor(t) => {
                // A scalar (the fill value): an integer for integer data, else the float.
                let f = t.element_f64(0)?;
                let int_data = plan.dtype().is_integer() || plan.dtype() == kerf_ir::DType::Bool;
                parts.push(format!("{name} = {}", if int_data { (f as i64).to_string() } else { float(f) }));
            }
        }
    }
    Some(parts.join(", "))
}

fn main() {
    println!("cargo:rerun-if-changed=src/random.rs");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=KERF_RANDOM_DERIVED");
    let count: usize = std::env::var("KERF_RANDOM_DERIVED").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    let mut rng = Rng::new(SEED);
    let mut code = String::new();
    let mut table = String::new();
    let mut made = 0;
    let mut n: u64 = 0;
    let mut skipped = 0;
    while made < count && n < 100 * count as u64 + 100 {
        let req = random_request(&mut rng);
        let index = n;
        n += 1;
        let Ok(plan) = kerf_ir::lower(&req) else { continue };
        let small = |s: &[u64]| kerf_ir::tensor::volume(s).is_some_and(|v| v <= LIMIT);
        if !small(plan.output_shape()) || !plan.input_shape().is_none_or(small) {
            continue;
        }
        if kerf_ir::schedule::schedule(&plan).is_err() {
            continue;
        }
        // Leave out plans that hit a known codegen bug (a table static emitted once per
        // outer segment: tests/derive_regressions.rs), which would stop this crate compiling.
        match kerf_codegen::expand_plan(&plan, "Probe") {
            Ok(text) if (0..8).all(|k| text.matches(&format!("static TABLE{k}:")).count() <= 1) => {}
            _ => {
                skipped += 1;
                continue;
            }
        }
        let Some(attrs) = attributes(&req, &plan) else { continue };
        let name = format!("Random{made}");
        writeln!(
            code,
            "/// {}\n#[derive(kerf::Kernel)]\n#[kerf({attrs})]\nstruct {name};\n",
            plan.to_string().replace('\n', "; ")
        )
        .unwrap();
        writeln!(table, "        (\"{name}\", {index}, Box::new({name}) as Box<dyn kerf_ir::Kernel>),").unwrap();
        made += 1;
    }
    writeln!(
        code,
        "/// The seed the requests were generated with.\nconst RANDOM_SEED: u64 = {SEED};\n\n\
         /// Plans left out for the known codegen bug.\nconst SKIPPED_FOR_TABLE_BUG: usize = {skipped};\n\n\
         /// (name, index of its request in the generator's sequence, kernel).\n\
         fn random_derived() -> Vec<(&'static str, u64, Box<dyn kerf_ir::Kernel>)> {{\n    vec![\n{table}    ]\n}}"
    )
    .unwrap();
    let out = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("random_derived.rs");
    std::fs::write(out, code).unwrap();
}
