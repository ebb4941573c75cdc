//! CLIF of representative fused chains and strided inputs, pinned: one function per
//! chain, the steps' maps composed (review changes with `cargo insta review`).

use kerfx_ir::chain::{self, ChainRequest};
use kerfx_ir::schedule::Strided;
use kerfx_ir::{BoundaryMode, DType, Kernel, Request, Tensor};
use kerfx_jit::{Jit, Options};
use kerfx_testkit::plans::slice_plan;

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
        let fused = kerfx_ir::map::compose(&plans).unwrap();
        let kernel = jit.compile(&fused, &Options::STATIC).expect("these chains fuse");
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
        let kernel = jit.compile(&plan, &Options::STATIC.input(&view)).unwrap();
        insta::assert_snapshot!(format!("strided_w2_{name}"), kernel.clif());
    }
}

/// Chains the JIT fused only once fill heads and fill levels were nests: a crop of a
/// random fill (consecutive counters: block fills of its rows), a strided reversed crop
/// of an integer linspace (computed element by element), and two fill values (a pad's,
/// then a slice's outside it). One function each, static and dynamic, equal to the steps
/// run one by one.
#[test]
fn fill_head_and_fill_level_clif_snapshots() {
    let jit = Jit::default();
    let cases: Vec<(&str, Vec<Request>, Option<Tensor>)> = vec![
        (
            "random_crop",
            vec![
                Request::new("tensorrt.fill")
                    .attr("dimensions", [16, 32])
                    .attr("operation", "random_uniform")
                    .attr("alpha", -2.0)
                    .attr("beta", 3.0)
                    .attr("to_type", "f32")
                    .attr("seed", 7),
                Request::new("tensorrt.slice").attr("start", [2, 4]).attr("size", [8, 16]).attr("stride", [1, 1]),
            ],
            None,
        ),
        (
            "linspace_reversed_strided_crop",
            vec![
                Request::new("tensorrt.fill")
                    .attr("dimensions", [8, 8])
                    .attr("operation", "linspace")
                    .attr("to_type", "i32")
                    .attr("alpha", 1)
                    .attr("beta", [8, 1]),
                Request::new("tensorrt.slice").attr("start", [6, 7]).attr("size", [4, 4]).attr("stride", [-1, -2]),
            ],
            None,
        ),
        (
            "two_fill_values",
            vec![
                Request::new("onnx.pad")
                    .version(19)
                    .attr("mode", "constant")
                    .input_meta("data", DType::I8, &[4, 6])
                    .input("pads", ints(&[1, 1, 1, 1]))
                    .input("constant_value", Tensor::from_bytes(DType::I8, &[], &[7]).unwrap()),
                Request::new("tensorrt.slice")
                    .attr("start", [-2, -2])
                    .attr("size", [10, 12])
                    .attr("stride", [1, 1])
                    .attr("mode", "fill")
                    .input("fill", Tensor::scalar_bits(DType::I64, 9)),
            ],
            Some(Tensor::from_bytes(DType::I8, &[4, 6], &(0..24).collect::<Vec<u8>>()).unwrap()),
        ),
    ];
    for (name, mut steps, input) in cases {
        let plans = chain::lower_chain(&ChainRequest { steps: steps.clone() }).unwrap();
        let fused = kerfx_ir::map::compose(&plans).unwrap();
        if let Some(x) = &input {
            steps[0].inputs.insert("data".into(), kerfx_ir::InputArg::Tensor(x.clone()));
        }
        let expected = chain::evaluate_unfused(&plans, input.as_ref().map(Tensor::view)).unwrap();
        let kernel = jit.compile(&fused, &Options::STATIC).expect("every chain of bytes fuses");
        let dynamic = jit.compile(&fused, &Options::DYNAMIC).expect("and on a dynamic kernel");
        for k in [&kernel, &dynamic] {
            assert_eq!(k.run_tensor(input.as_ref().map(Tensor::view)).unwrap(), expected, "{name}\n{fused}");
            assert_eq!(k.clif().matches("function ").count(), 1);
        }
        insta::assert_snapshot!(format!("chain_{name}"), kernel.clif());
        insta::assert_snapshot!(format!("chain_{name}_dynamic"), dynamic.clif());
    }
}

/// Fused chains large enough to split over threads (a crop of a random fill, a linspace
/// head, two fill values): static and dynamic kernels on four threads equal the steps run
/// one by one.
#[test]
fn fused_fill_heads_and_levels_on_threads() {
    let jit = Jit::new(kerfx_jit::JitSettings { threads: 4, cache_capacity: 16 }).unwrap();
    let fill = |operation: &str, to_type: &str| {
        let r = Request::new("tensorrt.fill").attr("dimensions", [700, 900]).attr("operation", operation);
        match operation {
            "linspace" => r.attr("to_type", to_type).attr("alpha", 3).attr("beta", [900, 1]),
            _ => r.attr("to_type", to_type).attr("alpha", -1.0).attr("beta", 2.0).attr("seed", 11),
        }
    };
    let crop =
        || Request::new("tensorrt.slice").attr("start", [3, 899]).attr("size", [690, 890]).attr("stride", [1, -1]);
    let x = Tensor::from_bytes(DType::I8, &[600, 700], &(0..420_000).map(|i| i as u8).collect::<Vec<u8>>()).unwrap();
    let cases: Vec<(Vec<Request>, Option<Tensor>)> = vec![
        (vec![fill("random_normal", "f16"), crop()], None),
        (vec![fill("random_uniform", "f32"), crop()], None),
        (vec![fill("linspace", "i32"), crop()], None),
        (
            vec![
                Request::new("onnx.pad")
                    .version(19)
                    .attr("mode", "constant")
                    .input_meta("data", DType::I8, &[600, 700])
                    .input("pads", ints(&[5, 5, 5, 5]))
                    .input("constant_value", Tensor::from_bytes(DType::I8, &[], &[7]).unwrap()),
                Request::new("tensorrt.slice")
                    .attr("start", [-9, -9])
                    .attr("size", [628, 728])
                    .attr("stride", [1, 1])
                    .attr("mode", "fill")
                    .input("fill", Tensor::scalar_bits(DType::I64, 9)),
            ],
            Some(x),
        ),
    ];
    for (steps, input) in cases {
        let plans = chain::lower_chain(&ChainRequest { steps }).unwrap();
        let fused = kerfx_ir::map::compose(&plans).unwrap();
        let expected = chain::evaluate_unfused(&plans, input.as_ref().map(Tensor::view)).unwrap();
        for k in [jit.compile(&fused, &Options::STATIC), jit.compile(&fused, &Options::DYNAMIC)] {
            let k = k.expect("every chain of bytes fuses");
            assert!(k.run_tensor(input.as_ref().map(Tensor::view)).unwrap() == expected, "{fused}");
        }
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
    let kernel = jit.compile(&crop, &Options::STATIC.output(&into_columns)).unwrap();
    insta::assert_snapshot!("view_w2_into_columns", kernel.clif());
    let pad = slice_plan(DType::U16, &[3, 4], &[(7, -2, 1), (9, -2, 1)], BoundaryMode::Reflect);
    let transposed = Strided { offset: 0, strides: vec![1, 7], buffer_len: 63 };
    let kernel = jit.compile(&pad, &Options::STATIC.output(&transposed)).unwrap();
    insta::assert_snapshot!("view_reflect_into_transposed", kernel.clif());
    let fill = kerfx_ir::Step { mode: BoundaryMode::Fill, ..pad };
    let dense = Strided::contiguous(&fill.output_shape).unwrap();
    let kernel = jit.compile(&fill, &Options::DYNAMIC.output(&dense)).unwrap();
    insta::assert_snapshot!("view_dynamic_fill_u16_r2", kernel.clif());
}

/// A transposed read wide enough to tile: the two innermost loops are one call of the
/// tiled block copy per segment of the outer loop (a crop of fewer columns than a tile's
/// 8 × 8 squares is tiled when its output rows follow each other — an interleave, moved
/// element by element in output order — and not when an output view puts gaps between
/// them).
#[test]
fn tiled_transposed_clif_snapshot() {
    let jit = Jit::default();
    let plan = slice_plan(DType::F32, &[128, 128], &[(128, 0, 1), (64, 32, 1)], BoundaryMode::StrictBounds);
    let transposed = Strided { offset: 0, strides: vec![1, 128], buffer_len: 128 * 128 };
    let kernel = jit.compile(&plan, &Options::STATIC.input(&transposed)).unwrap();
    assert!(kernel.is_tiled());
    insta::assert_snapshot!("strided_w2_transposed_tiled", kernel.clif());
    let narrow = slice_plan(DType::F32, &[128, 128], &[(128, 0, 1), (7, 32, 1)], BoundaryMode::StrictBounds);
    assert!(jit.compile(&narrow, &Options::STATIC.input(&transposed)).unwrap().is_tiled());
    let gaps = Strided { offset: 0, strides: vec![8, 1], buffer_len: 128 * 8 };
    assert!(!jit.compile(&narrow, &Options::STATIC.input(&transposed).output(&gaps)).unwrap().is_tiled());
}
