//! CLIF of representative fused chains and strided inputs, pinned: one function per
//! chain, the steps' maps composed (review changes with `cargo insta review`).

use kerf_ir::chain::{self, ChainRequest};
use kerf_ir::schedule::Strided;
use kerf_ir::{AxisRead, BoundaryMode, DType, Request, SlicePlan, Tensor};
use kerf_jit::Jit;

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
    let plan = SlicePlan {
        dtype: DType::F32,
        input_shape: vec![64, 64],
        axes: vec![AxisRead { extent: 64, start: 0, step: 1 }, AxisRead { extent: 32, start: 16, step: 1 }],
        mode: BoundaryMode::StrictBounds,
        fill_bits: 0,
        output_shape: vec![64, 32],
        windows: Vec::new(),
    };
    for (name, view) in [
        ("transposed", Strided { offset: 0, strides: vec![1, 64], buffer_len: 64 * 64 }),
        ("stride2", Strided { offset: 0, strides: vec![128, 2], buffer_len: 64 * 128 }),
    ] {
        let kernel = jit.compile_strided(&plan, &view).unwrap();
        insta::assert_snapshot!(format!("strided_w2_{name}"), kernel.clif());
    }
}

/// A transposed read wide enough to tile: the two innermost loops are one call of the
/// tiled block copy per segment of the outer loop (a crop of fewer columns than a tile's
/// 8 × 8 squares is not tiled).
#[test]
fn tiled_transposed_clif_snapshot() {
    let jit = Jit::default();
    let plan = SlicePlan {
        dtype: DType::F32,
        input_shape: vec![128, 128],
        axes: vec![AxisRead { extent: 128, start: 0, step: 1 }, AxisRead { extent: 64, start: 32, step: 1 }],
        mode: BoundaryMode::StrictBounds,
        fill_bits: 0,
        output_shape: vec![128, 64],
        windows: Vec::new(),
    };
    let transposed = Strided { offset: 0, strides: vec![1, 128], buffer_len: 128 * 128 };
    let kernel = jit.compile_strided(&plan, &transposed).unwrap();
    assert!(kernel.is_tiled());
    insta::assert_snapshot!("strided_w2_transposed_tiled", kernel.clif());
    let narrow = SlicePlan {
        axes: vec![AxisRead { extent: 128, start: 0, step: 1 }, AxisRead { extent: 7, start: 32, step: 1 }],
        output_shape: vec![128, 7],
        ..plan
    };
    assert!(!jit.compile_strided(&narrow, &transposed).unwrap().is_tiled());
}
