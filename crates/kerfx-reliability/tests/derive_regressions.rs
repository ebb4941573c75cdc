//! Findings about derived kernels (from the random derived kernels of the guard-page test).

use kerfx_ir::{DType, Request};

/// KERF_RANDOM_DERIVED=1000 (kernel Random772, a reflect slice of bool [4, 9, 6, 9]):
/// the derive emits a dim's index table as a `static TABLE{k}` each time an outer dim's
/// segment recurses into that dim, so a nest whose outer dim has two segments over an
/// inner table dim defines `TABLE1` twice and the user's crate fails to compile (E0428).
/// Minimal case: wrap on [3, 100] from (-1, 7), size [3, 1000], stride [1, 33]: dim 0
/// has two segments (z = 2, then z = 0, 1), dim 1 repeats every 100 positions with more
/// segments than that in a period and becomes a table of one period. (It was [3, 2] →
/// [3, 40] before repeating dims, whose dim 1 is now one repeated segment.)
#[test]
fn a_table_under_a_segmented_dim_is_emitted_once() {
    let req = Request::new("tensorrt.slice")
        .input_meta("input", DType::F32, &[3, 100])
        .attr("start", [-1, 7])
        .attr("size", [3, 1000])
        .attr("stride", [1, 33])
        .attr("mode", "wrap");
    let text = kerfx_codegen::expand_request(&req, "TwoSegmentsOverATable").unwrap();
    let defs = text.matches("static TABLE1").count();
    assert_eq!(defs, 1, "`static TABLE1` is defined {defs} times:\n{text}");
}
