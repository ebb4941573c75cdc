//! The shared conformance suite (tests/data/conformance) on the derive backend: every
//! case with an expected output becomes a derived kernel — its request's attributes and
//! its non-data inputs written as `#[kerf(...)]` constants — whose output must equal
//! `expected.npy` bit for bit. The derives live in `conformance/cases.rs`, generated from
//! the data by `conformance_cases_are_current` below (run with `KERF_REGENERATE=1` to
//! rewrite it after the data changes).

use kerf::{AttrValue, InputArg, Kernel, Tensor};
use std::fmt::Write;
use std::path::PathBuf;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/conformance")
}

fn check_case(name: &str, kernel: &dyn Kernel) {
    let dir = data_dir().join(name);
    let file = kerf::request_file::load(&dir.join("request.toml")).unwrap();
    let expected = kerf::npy::read_as(&dir.join("expected.npy"), Some(kernel.dtype())).unwrap();
    let data = kerf::data_input(&file.request).unwrap();
    let got = kernel.run_tensor(data.map(Tensor::view)).unwrap();
    assert_eq!(got.shape(), expected.shape(), "{name}");
    assert_eq!(got.bytes(), expected.bytes(), "{name}");
}

include!("conformance/cases.rs");

/// An attribute value as a literal.
fn attr_literal(v: &AttrValue) -> String {
    let list = |items: Vec<String>| format!("[{}]", items.join(", "));
    match v {
        AttrValue::Int(i) => i.to_string(),
        AttrValue::Float(f) => format!("{f:?}"),
        AttrValue::Str(s) => format!("{s:?}"),
        AttrValue::IntList(l) => list(l.iter().map(|x| x.to_string()).collect()),
        AttrValue::FloatList(l) => list(l.iter().map(|x| format!("{x:?}")).collect()),
    }
}

/// A constant input as a literal: integers exactly, other numbers through f64 (exact for
/// every dtype but i64/u64, which are integers), one value for a scalar.
fn input_literal(t: &Tensor) -> Option<String> {
    let values: Option<Vec<String>> = (0..t.len())
        .map(|i| match t.dtype() {
            kerf::DType::Bool => t.element_i128(i).map(|v| (v != 0).to_string()),
            d if d.is_integer() => t.element_i128(i).map(|v| v.to_string()),
            _ => t.element_f64(i).filter(|f| f.is_finite()).map(|f| format!("{f:?}")),
        })
        .collect();
    let values = values?;
    if t.shape().is_empty() { values.into_iter().next() } else { Some(format!("[{}]", values.join(", "))) }
}

/// The generated file for the current data, and how many cases it holds.
fn generate() -> (String, usize) {
    let mut names: Vec<String> = std::fs::read_dir(data_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("expected.npy").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut out = String::from(
        "// Generated from tests/data/conformance by `conformance_cases_are_current` in\n\
         // tests/conformance.rs (KERF_REGENERATE=1); do not edit.\n\n",
    );
    let mut count = 0;
    for name in names {
        let file = match kerf::request_file::load_any(&data_dir().join(&name).join("request.toml")).unwrap() {
            kerf::request_file::AnyFile::Request(f) => f,
            // A chain has no derive form: the derive compiles one op.
            kerf::request_file::AnyFile::Chain(_) => continue,
        };
        let r = &file.request;
        let spec = kerf::op_spec(&r.op).unwrap();
        let data_name = kerf::data_input_name(spec);
        let mut attrs = vec![format!("op = {:?}", r.op)];
        if let Some(v) = r.version {
            attrs.push(format!("version = {v}"));
        }
        let mut ok = true;
        for (k, input) in &r.inputs {
            let InputArg::Tensor(t) = input else {
                ok = false;
                break;
            };
            if Some(k.as_str()) == data_name {
                if t.dtype() == kerf::DType::String {
                    ok = false; // strings move as `String`s: covered by tests/typed.rs
                    break;
                }
                attrs.push(format!("dtype = {:?}", t.dtype().name()));
                attrs.push(format!("input = {:?}", t.shape()));
            } else {
                match input_literal(t) {
                    Some(l) => attrs.push(format!("{k} = {l}")),
                    None => ok = false,
                }
            }
        }
        for (k, v) in &r.attributes {
            if !r.inputs.contains_key(k) {
                attrs.push(format!("{k} = {}", attr_literal(v)));
            }
        }
        if !ok {
            continue;
        }
        let ident: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        writeln!(
            out,
            "#[allow(non_camel_case_types)]\n#[derive(kerf::Kernel)]\n#[kerf({})]\nstruct Case_{ident};\n\n\
             #[test]\nfn {ident}() {{\n    check_case({name:?}, &Case_{ident});\n}}\n",
            attrs.join(", ")
        )
        .unwrap();
        count += 1;
    }
    (out, count)
}

#[test]
fn conformance_cases_are_current() {
    let (text, count) = generate();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases.rs");
    if std::env::var_os("KERF_REGENERATE").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(count >= 100, "only {count} conformance cases became derived kernels");
    assert!(committed == text, "tests/conformance/cases.rs is stale: rerun with KERF_REGENERATE=1 and commit it");
}
