//! CLIF of representative fused chains and strided inputs, pinned: one function per
//! chain, the steps' maps composed (review changes with `cargo insta review`).

use kerf_ir::chain::{self, ChainRequest};
use kerf_ir::schedule::Strided;
use kerf_ir::{BoundaryMode, DType, Request, Tensor};
use kerf_jit::Jit;
use kerf_testkit::plans::slice_plan;

fn ints(v: &[i64]) -> Tensor {
    Tensor::from_i64s(v)
}

#[test]
fn fused_chain_clif_snapshots() {
    let jit = Jit::default();
    let cases: Vec<(&str, Vec<Request>)> = vec![
        (
            "ch1_pad_reflect_then_crop",
            vec![
                Request::new("onnx.pad")
                    .version(19)
                    .attr("mode", "reflect")
                    .input_meta("data", DType::F32, &[1, 3, 64, 64])
                    .input("pads", ints(&[0, 0, 16, 16, 0, 0, 16, 16])),
                Request::new("onnx.slice")
                    .input("starts", ints(&[8, 8]))
                    .input("ends", ints(&[-8, -8]))
                    .input("axes", ints(&[2, 3])),
            ],
        ),
        (
            "slice_then_constant_pad",
            vec![
                Request::new("onnx.slice")
                    .input_meta("data", DType::U8, &[16, 16])
                    .input("starts", ints(&[2, 1]))
                    .input("ends", ints(&[10, 15]))
                    .input("steps", ints(&[1, 2])),
                Request::new("onnx.pad").version(19).attr("mode", "constant").input("pads", ints(&[1, 1, 1, 1])),
            ],
        ),
        (
            "wrap_then_strided_crop",
            vec![
                Request::new("tensorrt.slice")
                    .input_meta("input", DType::I32, &[8, 8])
                    .attr("start", [-4, -4])
                    .attr("size", [16, 16])
                    .attr("stride", [1, 1])
                    .attr("mode", "wrap"),
                Request::new("tensorrt.slice").attr("start", [2, 6]).attr("size", [6, 5]).attr("stride", [2, -1]),
            ],
        ),
    ];
    for (name, steps) in cases {
        let plans = chain::lower_chain(&ChainRequest { steps }).unwrap();
        let fused = chain::compose(&plans).unwrap();
        let kernel = jit.compile_chain(&fused).unwrap().expect("these chains fuse");
        let clif = kernel.clif();
        assert_eq!(clif.matches("function ").count(), 1, "{clif}");
        insta::assert_snapshot!(format!("chain_{name}"), clif);
    }
}

#[test]
fn strided_input_clif_snapshots() {
    let jit = Jit::default();
    // W2's crop (columns 16..48 of a 64x64 f32) read from a transposed view and from a
    // stride-2 view of a 64x128 buffer.
    let plan = slice_plan(DType::F32, &[64, 64], &[(64, 0, 1), (32, 16, 1)], BoundaryMode::StrictBounds);
    for (name, view) in [
        ("transposed", Strided { offset: 0, strides: vec![1, 64], buffer_len: 64 * 64 }),
        ("stride2", Strided { offset: 0, strides: vec![128, 2], buffer_len: 64 * 128 }),
    ] {
        let kernel = jit.compile_strided(&plan, &view).unwrap();
        insta::assert_snapshot!(format!("strided_w2_{name}"), kernel.clif());
    }
}

/// Kernels writing output views: W2's crop into its place in a wider output (rows apart:
/// each row one copy from the view's offset), a reflect pad into a transposed output (an
/// innermost stride other than 1: element by element, the border's repetitions
/// recomputed), and the dynamic fill kernel that writes views.
#[test]
fn output_view_clif_snapshots() {
    let jit = Jit::default();
    let crop = slice_plan(DType::F32, &[64, 64], &[(64, 0, 1), (32, 16, 1)], BoundaryMode::StrictBounds);
    let into_columns = Strided { offset: 32, strides: vec![64, 1], buffer_len: 64 * 64 };
    let kernel = jit.compile_views(&crop, None, Some(&into_columns)).unwrap();
    insta::assert_snapshot!("view_w2_into_columns", kernel.clif());
    let pad = slice_plan(DType::U16, &[3, 4], &[(7, -2, 1), (9, -2, 1)], BoundaryMode::Reflect);
    let transposed = Strided { offset: 0, strides: vec![1, 7], buffer_len: 63 };
    let kernel = jit.compile_views(&pad, None, Some(&transposed)).unwrap();
    insta::assert_snapshot!("view_reflect_into_transposed", kernel.clif());
    let fill = kerf_ir::SlicePlan { mode: BoundaryMode::Fill, ..pad };
    let kernel = jit.compile_dynamic_views(&fill).unwrap();
    insta::assert_snapshot!("view_dynamic_fill_u16_r2", kernel.clif());
}

/// A transposed read wide enough to tile: the two innermost loops are one call of the
/// tiled block copy per segment of the outer loop (a crop of fewer columns than a tile's
/// 8 × 8 squares is not tiled).
#[test]
fn tiled_transposed_clif_snapshot() {
    let jit = Jit::default();
    let plan = slice_plan(DType::F32, &[128, 128], &[(128, 0, 1), (64, 32, 1)], BoundaryMode::StrictBounds);
    let transposed = Strided { offset: 0, strides: vec![1, 128], buffer_len: 128 * 128 };
    let kernel = jit.compile_strided(&plan, &transposed).unwrap();
    assert!(kernel.is_tiled());
    insta::assert_snapshot!("strided_w2_transposed_tiled", kernel.clif());
    let narrow = slice_plan(DType::F32, &[128, 128], &[(128, 0, 1), (7, 32, 1)], BoundaryMode::StrictBounds);
    assert!(!jit.compile_strided(&narrow, &transposed).unwrap().is_tiled());
}
