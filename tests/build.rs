//! Lists the conformance cases (one folder each under data/conformance) and writes the
//! `conformance_suite!` macro: one `#[test]` per case, instantiated once per backend
//! by tests/conformance.rs, so a failure names its case and backend.

use std::fmt::Write;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/conformance");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut cases: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.path().join("request.toml").is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    cases.sort();
    let mut out = String::from(
        "/// One test per conformance case, run on the backend `$backend` (an expression).\n\
         macro_rules! conformance_suite {\n    ($backend:expr) => {\n",
    );
    for case in &cases {
        let ident: String = case.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
        let ident = if ident.starts_with(|c: char| c.is_ascii_digit()) { format!("case_{ident}") } else { ident };
        writeln!(out, "        #[test]\n        fn {ident}() {{ $crate::check_case($backend, {case:?}); }}").unwrap();
    }
    out.push_str("    };\n}\n");
    writeln!(out, "/// How many cases the suite has.\npub const CASE_COUNT: usize = {};", cases.len()).unwrap();
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("conformance_suite.rs");
    std::fs::write(dest, out).unwrap();
}
