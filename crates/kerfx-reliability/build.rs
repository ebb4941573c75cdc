//! Derives random kernels for the guard-page test: the test kit's random requests (the
//! generator the JIT guard test uses) that lower, schedule and stay small, rendered by the
//! test kit as `#[derive(kerfx::Kernel)]` attributes into `$OUT_DIR/random_derived.rs`. The
//! test replays the generator with the same seed to get each kernel's request back.
//! `KERF_RANDOM_DERIVED=N` sets how many (default 300).

use std::fmt::Write;

pub const SEED: u64 = 0xde51_7ed0;
const LIMIT: u64 = 2048;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=KERF_RANDOM_DERIVED");
    let count: usize = std::env::var("KERF_RANDOM_DERIVED").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    let skipped = std::cell::Cell::new(0);
    // Leave out plans that hit a known codegen bug (a table static emitted once per outer
    // segment: tests/derive_regressions.rs), which would stop this crate compiling.
    let no_table_bug = |plan: &kerfx_ir::Plan| match kerfx_codegen::expand_plan(plan, "Probe") {
        Ok(text) if (0..8).all(|k| text.matches(&format!("static TABLE{k}:")).count() <= 1) => true,
        _ => {
            skipped.set(skipped.get() + 1);
            false
        }
    };
    let mut code = String::new();
    let mut table = String::new();
    for (made, d) in kerfx_testkit::random::derivable(SEED, count, LIMIT, no_table_bug).iter().enumerate() {
        let name = format!("Random{made}");
        writeln!(
            code,
            "/// {}\n#[derive(kerfx::Kernel)]\n#[kerf({})]\nstruct {name};\n",
            d.plan.to_string().replace('\n', "; "),
            d.attributes
        )
        .unwrap();
        writeln!(table, "        (\"{name}\", {}, Box::new({name}) as Box<dyn kerfx_ir::Kernel>),", d.index).unwrap();
    }
    writeln!(
        code,
        "/// The seed the requests were generated with.\nconst RANDOM_SEED: u64 = {SEED};\n\n\
         /// Plans left out for the known codegen bug.\nconst SKIPPED_FOR_TABLE_BUG: usize = {};\n\n\
         /// (name, index of its request in the generator's sequence, kernel).\n\
         fn random_derived() -> Vec<(&'static str, u64, Box<dyn kerfx_ir::Kernel>)> {{\n    vec![\n{table}    ]\n}}",
        skipped.get()
    )
    .unwrap();
    let out = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("random_derived.rs");
    std::fs::write(out, code).unwrap();
}
