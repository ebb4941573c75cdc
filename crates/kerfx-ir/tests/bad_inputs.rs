//! The bad-input table: every kind of bad request, each with the fragment its error
//! message must contain. No row may panic; each must name what is wrong.

mod common;
use common::*;
use kerfx_ir::{DType, Request, Tensor};

fn trt4(mode: &str) -> Request {
    trt(arange_i32(&[4, 4]), &[0, 0], &[2, 2], &[1, 1], mode)
}

fn fillr(op: &str) -> Request {
    Request::new("tensorrt.fill").attr("dimensions", [2, 3]).attr("operation", op)
}

const NONE: &[i64] = &[];

fn rows() -> Vec<(&'static str, Request, &'static str)> {
    let i4 = Tensor::from_bytes(DType::I4, &[3], &[0x21, 0x03]).unwrap();
    vec![
        // generic request checks
        ("unknown op", Request::new("onnx.scatter"), "unknown op `onnx.scatter`"),
        ("unknown version", onnx(9, arange_i32(&[3]), &[0], &[1], None, None), "unknown version 9"),
        ("unknown attribute", trt4("wrap").attr("pads", [1]), "unknown attribute `pads`"),
        ("attribute of wrong type", trt4("wrap").attr("size", 2.5), "attribute `size` must be of type int_list"),
        ("unknown mode", trt4("mirror"), "attribute `mode` = \"mirror\" is not allowed"),
        (
            "missing required attribute",
            Request::new("tensorrt.fill").attr("dimensions", [2]),
            "missing required attribute `operation`",
        ),
        ("unknown input", trt4("wrap").input("bias", scalar_i64(0)), "unknown input `bias`"),
        (
            "missing data input",
            Request::new("onnx.slice").input("starts", Tensor::from_i64s(&[0])).input("ends", Tensor::from_i64s(&[1])),
            "missing input `data`",
        ),
        ("input of wrong dtype", trt4("wrap").input("start", f32s(&[2], &[0.0, 0.0])), "input `start` has dtype f32"),
        ("input of wrong rank", trt4("wrap").input("size", arange_i64(&[1, 2])), "input `size` must be a 1-D tensor"),
        (
            "data dtype outside type set",
            trt(Tensor::zeros(DType::U16, &[2]).unwrap(), &[0], &[1], &[1], "wrap"),
            "input `input` has dtype u16",
        ),
        ("mask with a 2", ov(arange_i32(&[3]), &[0], &[1], &[1], [&[2], NONE, NONE, NONE, NONE]), "begin_mask"),
        ("negative seed", fillr("random_uniform").attr("seed", -3), "attribute `seed`"),
        ("to_type not a dtype", fillr("linspace").attr("to_type", "float"), "to_type"),
        // tensorrt.slice
        (
            "slice parameters missing",
            Request::new("tensorrt.slice").input("input", arange_i32(&[2])).attr("size", [1]).attr("stride", [1]),
            "params_given",
        ),
        ("slice start length", trt(arange_i32(&[4, 4]), &[0], &[2, 2], &[1, 1], "wrap"), "param_lengths"),
        ("slice stride length with axes", trt4("wrap").attr("axes", [0]), "param_lengths"),
        (
            "slice repeated axes",
            trt(arange_i32(&[4, 4]), &[0, 0], &[1, 1], &[1, 1], "wrap").attr("axes", [0, -2]),
            "axes_unique",
        ),
        (
            "slice axis out of range",
            trt(arange_i32(&[4, 4]), &[0], &[1], &[1], "wrap").attr("axes", [-3]),
            "axes_in_range",
        ),
        ("slice negative size", trt(arange_i32(&[4, 4]), &[0, 0], &[2, -2], &[1, 1], "wrap"), "size_non_negative"),
        (
            "strict bounds past the end",
            trt(arange_i32(&[4, 4]), &[0, 3], &[2, 2], &[1, 1], "strict_bounds"),
            "strict_bounds_in_range",
        ),
        (
            "strict bounds negative stride below zero",
            trt(arange_i32(&[4]), &[1], &[3], &[-1], "strict_bounds"),
            "strict_bounds_in_range",
        ),
        ("clamp on i64", trt(arange_i64(&[4]), &[0], &[2], &[1], "clamp"), "mode_dtype"),
        ("reflect on bf16", trt(Tensor::zeros(DType::BF16, &[4]).unwrap(), &[0], &[2], &[1], "reflect"), "mode_dtype"),
        ("fill input in wrap mode", trt4("wrap").input("fill", scalar_i64(1)), "fill_only_in_fill_mode"),
        ("NaN fill for an integer type", trt4("fill").input("fill", scalar_f64(f64::NAN)), "fill_value_representable"),
        (
            "infinite fill for an integer type",
            trt4("fill").input("fill", scalar_f64(f64::INFINITY)),
            "fill_value_representable",
        ),
        (
            "fill value out of i8 range",
            trt(Tensor::zeros(DType::I8, &[2]).unwrap(), &[0], &[3], &[1], "fill").input("fill", scalar_i64(300)),
            "fill_value_representable",
        ),
        (
            "fill value out of int4 range",
            trt(i4, &[0], &[4], &[1], "fill").input("fill", scalar_i64(-9)),
            "fill_value_representable",
        ),
        (
            "fill value beyond fp8 max",
            trt(Tensor::zeros(DType::F8E4M3FN, &[2]).unwrap(), &[0], &[3], &[1], "fill").input("fill", scalar_f64(1e4)),
            "fill_value_representable",
        ),
        (
            "empty input axis in clamp mode",
            trt(Tensor::zeros(DType::I32, &[0]).unwrap(), &[0], &[2], &[1], "clamp"),
            "empty_input_axis",
        ),
        ("i64 extreme start overflows", trt(arange_i32(&[4]), &[i64::MAX], &[2], &[1], "wrap"), "overflows"),
        ("i64 extreme stride overflows", trt(arange_i32(&[4]), &[0], &[3], &[i64::MIN], "wrap"), "overflows"),
        (
            "output volume overflows u64",
            trt(arange_i32(&[4, 4, 4]), &[0, 0, 0], &[1 << 30, 1 << 30, 1 << 30], &[0, 0, 0], "wrap"),
            "output volume",
        ),
        // tensorrt.fill
        ("random fill to i32", fillr("random_uniform").attr("to_type", "i32"), "random_types"),
        ("linspace to f16", fillr("linspace").attr("to_type", "f16").attr("beta", vec![1.0, 1.0]), "linspace_types"),
        ("fill dimensions missing", Request::new("tensorrt.fill").attr("operation", "linspace"), "dimensions_given"),
        ("fill negative dimension", fillr("linspace").attr("dimensions", [2, -1]), "dimensions_given"),
        ("fill volume over 2^31-1", fillr("random_normal").attr("dimensions", [1 << 20, 1 << 12]), "volume_limit"),
        ("fill only alpha as input", fillr("linspace").input("alpha", scalar_f64(0.0)), "alpha_beta_together"),
        ("linspace beta length", fillr("linspace").attr("beta", vec![1.0]), "beta_length"),
        ("random beta list", fillr("random_uniform").attr("beta", vec![1.0, 2.0]), "beta_length"),
        (
            "linspace fractional alpha for ints",
            fillr("linspace").attr("to_type", "i64").attr("alpha", 0.5).attr("beta", vec![1.0, 1.0]),
            "linspace_range",
        ),
        (
            "linspace overflows i32",
            fillr("linspace").attr("to_type", "i32").attr("alpha", 2147483647.0).attr("beta", vec![0.0, 1.0]),
            "linspace_range",
        ),
        (
            "linspace overflows f32",
            fillr("linspace").attr("alpha", 3e38).attr("beta", vec![3e38, 0.0]),
            "linspace_range",
        ),
        ("uniform with alpha = beta", fillr("random_uniform").attr("alpha", 1.0).attr("beta", 1.0), "uniform_range"),
        ("uniform with infinite beta", fillr("random_uniform").attr("beta", f64::INFINITY), "uniform_range"),
        ("normal with negative std", fillr("random_normal").attr("beta", -0.5), "normal_std"),
        ("normal with NaN mean", fillr("random_normal").attr("alpha", f64::NAN), "normal_std"),
        // onnx.slice
        ("onnx lengths differ", onnx(13, arange_i32(&[4, 4]), &[0, 0], &[1], None, None), "lengths_equal"),
        ("onnx steps length", onnx(13, arange_i32(&[4, 4]), &[0], &[1], None, Some(&[1, 1])), "lengths_equal"),
        ("onnx zero step", onnx(13, arange_i32(&[4]), &[0], &[1], None, Some(&[0])), "step_nonzero"),
        ("onnx repeated axis", onnx(13, arange_i32(&[4, 4]), &[0, 0], &[1, 1], Some(&[0, 0]), None), "axes_unique"),
        ("onnx axis out of range", onnx(13, arange_i32(&[4, 4]), &[0], &[1], Some(&[5]), None), "axis_in_range"),
        (
            "onnx negative axis in v10",
            onnx(10, arange_i32(&[4, 4]), &[0], &[1], Some(&[-1]), None),
            "negative_axes_from_11",
        ),
        (
            "onnx starts missing in v1",
            Request::new("onnx.slice").version(1).input("data", arange_i32(&[2])).attr("ends", [1]),
            "starts_ends_given",
        ),
        (
            "onnx bf16 before v13",
            onnx(11, Tensor::zeros(DType::BF16, &[4]).unwrap(), &[0], &[1], None, None),
            "bf16_from_13",
        ),
        (
            "onnx steps input in v1",
            onnx(1, arange_i32(&[4]), &[0], &[1], None, None).input("steps", Tensor::from_i64s(&[1])),
            "unknown input `steps` in version 1",
        ),
        // openvino.strided_slice
        (
            "ov begin missing",
            Request::new("openvino.strided_slice")
                .input("data", arange_i32(&[2]))
                .attr("end", [1])
                .attr("begin_mask", [0])
                .attr("end_mask", [0]),
            "begin_end_given",
        ),
        ("ov lengths differ", ov(arange_i32(&[4, 4]), &[0, 0], &[1], &[1, 1], [NONE; 5]), "lengths_equal"),
        (
            "ov two ellipses",
            ov(arange_i32(&[4, 4]), &[0, 0], &[1, 1], &[1, 1], [NONE, NONE, NONE, NONE, &[1, 1]]),
            "single_ellipsis",
        ),
        ("ov zero stride", ov(arange_i32(&[4, 4]), &[0], &[1], &[0], [NONE; 5]), "stride_nonzero"),
        (
            "ov shrink out of range",
            ov(arange_i32(&[4, 4]), &[-5], &[0], &[1], [NONE, NONE, NONE, &[1], NONE]),
            "shrink_in_range",
        ),
        (
            "ov shrink on an empty axis",
            ov(Tensor::zeros(DType::I32, &[0]).unwrap(), &[0], &[0], &[1], [NONE, NONE, NONE, &[1], NONE]),
            "shrink_in_range",
        ),
        ("ov too many entries", ov(arange_i32(&[4]), &[0, 0], &[1, 1], &[1, 1], [NONE; 5]), "entries_fit_rank"),
        (
            "ov index input holds u64 above i64",
            ov(arange_i32(&[4]), &[0], &[1], &[1], [NONE; 5])
                .input("begin", Tensor::from_bytes(DType::U64, &[1], &u64::MAX.to_le_bytes()).unwrap()),
            "overflows",
        ),
        // onnx.pad
        ("onnx pad wrong pads length", onnx_pad(19, arange_i32(&[2, 2]), &[1, 1, 1], "constant"), "pads_length"),
        (
            "onnx pad length with axes",
            onnx_pad(18, arange_i32(&[2, 2]), &[1, 1, 1, 1], "edge").input("axes", Tensor::from_i64s(&[0])),
            "pads_length",
        ),
        ("onnx pad v1 wrong paddings length", onnx_pad(1, f32s(&[2], &[0.0; 2]), &[1], "constant"), "pads_length"),
        ("onnx pad wrap before v19", onnx_pad(18, arange_i32(&[2]), &[1, 1], "wrap"), "wrap_from_19"),
        (
            "onnx pad repeated axes",
            onnx_pad(18, arange_i32(&[2, 2]), &[1, 1, 1, 1], "edge").input("axes", Tensor::from_i64s(&[1, -1])),
            "axes_unique",
        ),
        (
            "onnx pad axis out of range",
            onnx_pad(19, arange_i32(&[2, 2]), &[1, 1], "edge").input("axes", Tensor::from_i64s(&[2])),
            "axes_in_range",
        ),
        (
            "onnx pad value out of range",
            onnx_pad(19, Tensor::zeros(DType::U8, &[2]).unwrap(), &[1, 1], "constant")
                .input("constant_value", scalar_i64(-1)),
            "pad_value_representable",
        ),
        (
            "onnx pad NaN value for integers",
            onnx_pad(19, arange_i32(&[2]), &[1, 1], "constant").input("constant_value", scalar_f64(f64::NAN)),
            "pad_value_representable",
        ),
        (
            "onnx pad value beyond f16",
            onnx_pad(19, Tensor::zeros(DType::F16, &[2]).unwrap(), &[1, 1], "constant")
                .input("constant_value", scalar_f64(1e6)),
            "pad_value_representable",
        ),
        (
            "onnx pad v2 value beyond an f32 attribute",
            onnx_pad(2, f32s(&[2], &[0.0; 2]), &[1, 1], "constant").attr("value", 1e300),
            "pad_value_representable",
        ),
        (
            "onnx pad value of another dtype",
            onnx_pad(19, arange_i32(&[2]), &[1, 1], "constant").input("constant_value", scalar_bits(DType::I16, 1)),
            "pad_value_type",
        ),
        (
            "onnx pad non-empty string value",
            onnx_pad(19, Tensor::from_strings(&[1], ["a"]).unwrap(), &[1, 1], "constant")
                .input("constant_value", Tensor::from_strings(&[], ["x"]).unwrap()),
            "pad_value_representable",
        ),
        (
            "onnx pad negative output extent",
            onnx_pad(19, arange_i32(&[3]), &[-3, -1], "edge"),
            "output_extent_non_negative",
        ),
        ("onnx pad crop past the extent", onnx_pad(19, arange_i32(&[3]), &[-5, 3], "wrap"), "crop_within_extent"),
        ("onnx pad empty axis reflected", onnx_pad(19, arange_i32(&[0]), &[0, 2], "reflect"), "empty_axis_padded"),
        ("onnx pad v1 integers", onnx_pad(1, arange_i32(&[2]), &[1, 1], "constant"), "types_version_1_2"),
        (
            "onnx pad fp8 before v21",
            onnx_pad(19, Tensor::zeros(DType::F8E4M3FN, &[2]).unwrap(), &[1, 1], "constant"),
            "types_before_21",
        ),
        (
            "onnx pad pads as i32",
            onnx_pad(19, arange_i32(&[2]), &[1, 1], "constant")
                .input("pads", Tensor::from_bytes(DType::I32, &[2], &[0; 8]).unwrap()),
            "input `pads` has dtype i32",
        ),
        (
            "onnx pad pads without values",
            onnx_pad(19, arange_i32(&[2]), &[1, 1], "constant").input_meta("pads", DType::I64, &[2]),
            "has no values",
        ),
        ("onnx pad missing pads", Request::new("onnx.pad").input("data", arange_i32(&[2])), "missing input `pads`"),
        (
            "onnx pad v1 missing paddings",
            Request::new("onnx.pad").version(1).input("data", f32s(&[1], &[0.0])),
            "missing required attribute `paddings`",
        ),
        (
            "onnx pad unknown mode",
            onnx_pad(19, arange_i32(&[2]), &[1, 1], "symmetric"),
            "attribute `mode` = \"symmetric\" is not allowed",
        ),
        ("onnx pad extent overflows", onnx_pad(19, arange_i32(&[2]), &[i64::MAX, i64::MAX], "constant"), "overflows"),
        // openvino.pad
        ("ov pad wrong pads_begin length", ov_pad(12, arange_i32(&[2, 2]), &[1], &[1, 1], "constant"), "pads_length"),
        ("ov pad wrong pads_end length", ov_pad(12, arange_i32(&[2, 2]), &[1, 1], &[1, 1, 1], "edge"), "pads_length"),
        ("ov pad negative pads on Pad-1", ov_pad(1, arange_i32(&[3]), &[-1], &[0], "edge"), "pads_non_negative_v1"),
        (
            "ov pad reflect pads reach d",
            ov_pad(12, arange_i32(&[3]), &[0], &[3], "reflect"),
            "reflect_pads_below_extent",
        ),
        (
            "ov pad symmetric pads past d",
            ov_pad(1, arange_i32(&[3]), &[4], &[0], "symmetric"),
            "symmetric_pads_within_extent",
        ),
        ("ov pad edge on an empty axis", ov_pad(12, arange_i32(&[0]), &[0], &[1], "edge"), "empty_axis_padded"),
        (
            "ov pad negative output extent",
            ov_pad(12, arange_i32(&[3]), &[-2], &[-2], "constant"),
            "output_extent_non_negative",
        ),
        (
            "ov pad value of another dtype",
            ov_pad(12, arange_i32(&[2]), &[1], &[1], "constant").input("pad_value", scalar_bits(DType::U8, 1)),
            "pad_value_type",
        ),
        (
            "ov pad value not integral",
            ov_pad(12, arange_i32(&[2]), &[1], &[1], "constant").input("pad_value", scalar_f64(0.5)),
            "pad_value_representable",
        ),
        (
            "ov pad value not a scalar",
            ov_pad(12, arange_i32(&[2]), &[1], &[1], "constant").input("pad_value", arange_i32(&[2])),
            "input `pad_value` must be a scalar",
        ),
        (
            "ov pad strings in reflect",
            ov_pad(12, Tensor::from_strings(&[2], ["a", "b"]).unwrap(), &[1], &[0], "reflect"),
            "string_constant_only",
        ),
        (
            "ov pad strings in Pad-1",
            ov_pad(1, Tensor::from_strings(&[1], ["a"]).unwrap(), &[1], &[0], "constant"),
            "string_from_12",
        ),
        (
            "ov pad missing pad_mode",
            Request::new("openvino.pad")
                .input("arg", arange_i32(&[1]))
                .input("pads_begin", Tensor::from_i64s(&[0]))
                .input("pads_end", Tensor::from_i64s(&[0])),
            "missing required attribute `pad_mode`",
        ),
        (
            "ov pad pads as f32",
            ov_pad(12, arange_i32(&[2]), &[1], &[1], "edge").input("pads_end", f32s(&[1], &[1.0])),
            "input `pads_end` has dtype f32",
        ),
        (
            "ov pad unknown mode",
            ov_pad(12, arange_i32(&[2]), &[1], &[1], "wrap"),
            "attribute `pad_mode` = \"wrap\" is not allowed",
        ),
        ("ov pad start overflows", ov_pad(12, arange_i32(&[2]), &[i64::MIN], &[i64::MAX], "constant"), "overflows"),
        // openvino.slice
        ("ov slice zero step", ov_slice(arange_i32(&[4]), &[0], &[2], &[0], None), "step_nonzero"),
        ("ov slice stop length", ov_slice(arange_i32(&[4, 4]), &[0, 0], &[2], &[1, 1], None), "lengths_equal"),
        ("ov slice axes length", ov_slice(arange_i32(&[4, 4]), &[0], &[2], &[1], Some(&[0, 1])), "lengths_equal"),
        (
            "ov slice repeated axes",
            ov_slice(arange_i32(&[4, 4]), &[0, 0], &[1, 1], &[1, 1], Some(&[0, -2])),
            "axes_unique",
        ),
        ("ov slice axis out of range", ov_slice(arange_i32(&[4, 4]), &[0], &[1], &[1], Some(&[2])), "axes_in_range"),
        ("ov slice scalar data", ov_slice(Tensor::scalar_bits(DType::I32, 0), &[], &[], &[], None), "data_rank"),
        (
            "ov slice missing step",
            Request::new("openvino.slice")
                .input("data", arange_i32(&[2]))
                .input("start", Tensor::from_i64s(&[0]))
                .input("stop", Tensor::from_i64s(&[1])),
            "missing input `step`",
        ),
        // values needed but not given
        ("parameter input without values", trt4("wrap").input_meta("start", DType::I64, &[2]), "has no values"),
        (
            "gather indices without values",
            Request::new("onnx.gather").input_meta("data", DType::F32, &[3]).input_meta("indices", DType::I64, &[2]),
            "input `indices` has no values",
        ),
    ]
}

#[test]
fn every_bad_input_gets_its_own_clear_error() {
    let rows = rows();
    assert!(rows.len() >= 60, "the table keeps at least 60 rows, has {}", rows.len());
    let mut failures = Vec::new();
    for (what, req, fragment) in &rows {
        match std::panic::catch_unwind(|| run(req)) {
            Err(_) => failures.push(format!("{what}: panicked")),
            Ok(Ok(t)) => failures.push(format!("{what}: accepted, gave shape {:?}", t.shape())),
            Ok(Err(e)) if !e.to_string().contains(fragment) => {
                failures.push(format!("{what}: message `{e}` lacks `{fragment}`"))
            }
            Ok(Err(_)) => {}
        }
    }
    assert!(failures.is_empty(), "{} of {} rows failed:\n{}", failures.len(), rows.len(), failures.join("\n"));
}

#[test]
fn huge_shapes_are_refused_before_allocating() {
    let e = Tensor::zeros(DType::F64, &[1 << 40, 1 << 40]).unwrap_err();
    assert!(e.to_string().contains("too large"), "{e}");
    let e = Tensor::zeros(DType::C128, &[u64::MAX / 8]).unwrap_err();
    assert!(e.to_string().contains("too large"), "{e}");
}

#[test]
fn run_time_mismatches_are_named() {
    // BufferLength: bytes that do not fill the shape.
    let e = Tensor::from_bytes(DType::F32, &[2, 2], &[0u8; 15]).unwrap_err();
    assert!(matches!(e, kerfx_ir::Error::BufferLength { expected: 16, found: 15, .. }), "{e}");
    // Mismatch: data of another shape or dtype than the plan was made for.
    let plan = kerfx_ir::lower(&trt(arange_i32(&[4]), &[0], &[2], &[1], "wrap")).unwrap();
    let e = kerfx_ir::reference::evaluate(&plan, Some(arange_i32(&[5]).view())).unwrap_err();
    assert!(e.to_string().contains("expected i32 [4], found i32 [5]"), "{e}");
    let e = kerfx_ir::reference::evaluate(&plan, Some(arange_i64(&[4]).view())).unwrap_err();
    assert!(e.to_string().contains("found i64 [4]"), "{e}");
    // Invalid: a slice evaluated without its data; reinterpreting across widths.
    let e = kerfx_ir::reference::evaluate(&plan, None).unwrap_err();
    assert!(e.to_string().contains("needs its data input"), "{e}");
    let e = arange_i32(&[2]).reinterpret(DType::F16).unwrap_err();
    assert!(e.to_string().contains("widths differ"), "{e}");
}

#[test]
fn a_malformed_spec_names_its_file_and_field() {
    let e = kerfx_spec::OpSpec::parse("specs/x.toml", "id = \"x.y\"\nvendor = \"v\"\nsummary = \"s\"\nversions = []\n")
        .unwrap_err();
    assert_eq!((e.file.as_str(), e.field.as_str()), ("specs/x.toml", "versions"));
    let e: kerfx_ir::Error = e.into();
    assert!(e.to_string().contains("spec specs/x.toml: versions"), "{e}");
}
