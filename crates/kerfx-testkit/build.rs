//! Writes the `conformance_suite!` macro: one `#[test]` per conformance case, so a
//! failure names its case and backend (CubeCL's `testgen_all!` pattern).

#[path = "src/cases.rs"]
mod cases;

use std::fmt::Write;

fn main() {
    println!("cargo:rerun-if-changed={}", cases::data_dir().display());
    let names = cases::case_names();
    let mut out = String::from(
        "/// One `#[test]` per conformance case, run on the backend `$backend` (a\n\
         /// [`Backend`] expression). The derive backend's suite is [`derive_suite`]'s.\n\
         #[macro_export]\nmacro_rules! conformance_suite {\n    ($backend:expr) => {\n",
    );
    for case in &names {
        let id = cases::ident(case);
        writeln!(out, "        #[test]\n        fn {id}() {{ $crate::check_case($backend, {case:?}); }}").unwrap();
    }
    out.push_str("    };\n}\n");
    writeln!(out, "/// How many cases the suite has.\npub const CASE_COUNT: usize = {};", names.len()).unwrap();
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("conformance_suite.rs");
    std::fs::write(dest, out).unwrap();
}
