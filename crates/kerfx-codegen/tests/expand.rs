//! kerfx-codegen as a library: every plan the spec examples lower to expands to Rust that
//! parses, names its items, and uses only `::kerf` paths; bad names and bad requests are
//! errors, not panics.

use kerfx_ir::{DType, Request};

fn trt() -> Request {
    Request::new("tensorrt.slice")
        .input_meta("input", DType::F32, &[3, 3])
        .attr("start", [0, 0])
        .attr("size", [2, 2])
        .attr("stride", [1, 1])
}

#[test]
fn expansion_is_a_formatted_file() {
    let text = kerfx_codegen::expand_request(&trt(), "Seed").unwrap();
    syn::parse_file(&text).unwrap();
    for item in ["pub struct Seed;", "impl Seed {", "impl ::kerfx::Kernel for Seed {", "pub fn run(", "INPUT_SHAPE"] {
        assert!(text.contains(item), "{item} missing from\n{text}");
    }
    assert!(text.contains("copy_from_slice"), "{text}");
}

#[test]
fn bad_names_and_requests_are_errors() {
    assert!(kerfx_codegen::expand_request(&trt(), "not a name").is_err());
    let bad = trt().attr("mode", "mirror");
    let err = kerfx_codegen::expand_request(&bad, "K").unwrap_err();
    assert!(err.to_string().contains("mirror"), "{err}");
}

#[test]
fn every_spec_example_that_lowers_expands() {
    let registry = kerfx_spec::registry().unwrap();
    let mut expanded = 0;
    for spec in registry.ops() {
        for ex in &spec.examples {
            let mut req = Request::new(&spec.id);
            req.version = ex.version;
            for (k, v) in &ex.attributes {
                if let Some(a) = kerfx_ir::request::toml_like::to_attr(v) {
                    req.attributes.insert(k.clone(), a);
                }
            }
            // Inputs by dtype and shape only where the frontend allows it (data inputs);
            // examples with index or value inputs are covered by the derive's own tests.
            let mut skip = false;
            for (k, v) in &ex.inputs {
                match v.as_table() {
                    Some(t) if spec.data_input().is_some_and(|i| &i.name == k) => {
                        let dtype: DType = t["dtype"].as_str().unwrap().parse().unwrap();
                        let shape: Vec<u64> =
                            t["shape"].as_array().unwrap().iter().map(|d| d.as_integer().unwrap() as u64).collect();
                        req = req.input_meta(k, dtype, &shape);
                    }
                    _ => skip = true,
                }
            }
            if skip {
                continue;
            }
            match kerfx_codegen::expand_request(&req, "K") {
                Ok(text) => {
                    assert!(ex.error.is_none(), "{} {} should fail", spec.id, ex.name);
                    syn::parse_file(&text).unwrap();
                    expanded += 1;
                }
                Err(e) => assert!(ex.error.is_some(), "{} {}: {e}", spec.id, ex.name),
            }
        }
    }
    assert!(expanded >= 20, "only {expanded} examples expanded");
}

/// A wrap or reflect of a tiny input to 10^7 elements expands to a few KB of Rust: one
/// period and a copy loop (it once listed a table entry per output element: 34.6 MB).
#[test]
fn repeating_slices_expand_small() {
    for (mode, stride) in [("wrap", 1), ("reflect", 1), ("wrap", 2), ("reflect", -3)] {
        let r = Request::new("tensorrt.slice")
            .input_meta("input", DType::I8, &[3])
            .attr("start", [0])
            .attr("size", [10_000_000])
            .attr("stride", [stride])
            .attr("mode", mode);
        let text = kerfx_codegen::expand_request(&r, "K").unwrap();
        assert!(text.len() < 16_000, "{mode} stride {stride}: {} bytes", text.len());
        assert!(text.contains("__kerf_repeat"), "{text}");
    }
    // A period with many segments: a table of one period (100 entries), not of 10^6.
    let r = Request::new("tensorrt.slice")
        .input_meta("input", DType::I32, &[100])
        .attr("start", [7])
        .attr("size", [1_000_000])
        .attr("stride", [33])
        .attr("mode", "wrap");
    let text = kerfx_codegen::expand_request(&r, "K").unwrap();
    assert!(text.len() < 16_000, "{} bytes", text.len());
}
