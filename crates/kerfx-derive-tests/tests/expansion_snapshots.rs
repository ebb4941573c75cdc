//! The Rust the derive generates, pinned for a fixed matrix of plans: kerfx-codegen's
//! output for each request, formatted with prettyplease (as `kerf expand` prints it).
//! With CI=true a changed expansion fails; review with `cargo insta review`.

use kerfx::{DType, Request, Tensor};

fn meta(op: &str, dtype: DType, shape: &[u64]) -> Request {
    let name = kerfx::data_input_name(kerfx::op_spec(op).unwrap()).unwrap().to_string();
    Request::new(op).input_meta(&name, dtype, shape)
}

fn trt(dtype: DType, shape: &[u64], start: &[i64], size: &[i64], stride: &[i64], mode: &str) -> Request {
    meta("tensorrt.slice", dtype, shape)
        .attr("start", start.to_vec())
        .attr("size", size.to_vec())
        .attr("stride", stride.to_vec())
        .attr("mode", mode)
}

fn fill(dims: &[i64], operation: &str) -> Request {
    Request::new("tensorrt.fill").attr("dimensions", dims.to_vec()).attr("operation", operation)
}

fn ints(v: &[i64]) -> Tensor {
    Tensor::from_i64s(v)
}

fn expand(name: &str, request: Request) {
    let text = kerfx_codegen::expand_request(&request, "Kernel").unwrap_or_else(|e| panic!("{name}: {e}"));
    insta::assert_snapshot!(name, text);
}

#[test]
fn tensorrt_slice_strict_bounds() {
    expand("trt_seed_f32", trt(DType::F32, &[3, 3], &[0, 0], &[2, 2], &[1, 1], "strict_bounds"));
    expand("trt_negative_strides_i32", trt(DType::I32, &[2, 4], &[1, 3], &[2, 2], &[-1, -2], "strict_bounds"));
    expand("trt_zero_stride_f16", trt(DType::F16, &[2, 3], &[0, 2], &[2, 3], &[1, 0], "strict_bounds"));
    expand("trt_w1_contiguous_rows", trt(DType::F32, &[4096, 4096], &[0, 0], &[2048, 4096], &[1, 1], "strict_bounds"));
    expand("trt_w2_columns", trt(DType::F32, &[4096, 4096], &[0, 1024], &[4096, 2048], &[1, 1], "strict_bounds"));
    expand("trt_w3_stride2", trt(DType::F32, &[4096, 4096], &[0, 0], &[4096, 2048], &[1, 2], "strict_bounds"));
    expand("trt_bool_reverse", trt(DType::Bool, &[3], &[2], &[3], &[-1], "strict_bounds"));
    expand("trt_empty_output", trt(DType::F32, &[2, 3], &[0, 5], &[2, 0], &[1, 1], "strict_bounds"));
    expand(
        "trt_w8_i4_shifted_columns",
        trt(DType::I4, &[4096, 4096], &[0, 1], &[4096, 4094], &[1, 1], "strict_bounds"),
    );
}

#[test]
fn tensorrt_slice_boundary_modes() {
    expand("trt_wrap_2x3", trt(DType::F32, &[2, 3], &[1, -1], &[3, 5], &[1, 1], "wrap"));
    expand("trt_clamp_pad_f16", trt(DType::F16, &[4, 5], &[-3, -2], &[10, 9], &[1, 1], "clamp"));
    expand("trt_reflect_bounce", trt(DType::F32, &[1, 3], &[0, -5], &[2, 10], &[1, 1], "reflect"));
    expand(
        "trt_w5_fill",
        trt(DType::F32, &[1, 3, 1024, 1024], &[0, 0, -16, -16], &[1, 3, 1056, 1056], &[1, 1, 1, 1], "fill"),
    );
    expand(
        "trt_w5_reflect",
        trt(DType::F32, &[1, 3, 1024, 1024], &[0, 0, -16, -16], &[1, 3, 1056, 1056], &[1, 1, 1, 1], "reflect"),
    );
    expand(
        "trt_fill_value_i8",
        trt(DType::I8, &[3, 4], &[-1, -2], &[5, 8], &[1, 1], "fill")
            .input("fill", Tensor::scalar_bits(DType::I64, (-3i64) as u64 as u128)),
    );
    expand("trt_fill_i4_odd", trt(DType::I4, &[3, 3], &[-1, -1], &[5, 5], &[1, 1], "fill"));
    expand("trt_wrap_index_tables", trt(DType::I8, &[3, 2], &[0, 0], &[40, 40], &[1, 1], "wrap"));
    expand("trt_wrap_repeat_1e7", trt(DType::I8, &[3], &[0], &[10_000_000], &[1], "wrap"));
    expand("trt_reflect_repeat_table_i4", trt(DType::I4, &[2, 40], &[-1, 3], &[5, 300], &[1, 7], "reflect"));
    expand(
        "trt_clamp_looped",
        trt(DType::F32, &[4, 4, 4, 4], &[-2, -2, -2, -2], &[9, 9, 9, 9], &[1, 1, 1, 1], "clamp"),
    );
    expand(
        "trt_fill_outer_table",
        trt(DType::I32, &[2, 2, 2, 2], &[-1, -1, -1, -1], &[4, 4, 4, 4], &[1, 1, 1, 1], "fill"),
    );
}

#[test]
fn tensorrt_fill() {
    expand("fill_linspace_i32", fill(&[2, 3], "linspace").attr("beta", vec![3.0, 1.0]).attr("to_type", "i32"));
    expand(
        "fill_linspace_i64_negative",
        fill(&[3, 4], "linspace").attr("alpha", 10.0).attr("beta", vec![-3.0, 1.0]).attr("to_type", "i64"),
    );
    expand("fill_linspace_f32_exact", fill(&[4096, 4096], "linspace").attr("beta", vec![4096.0, 1.0]));
    expand(
        "fill_linspace_f64_rounded_once",
        fill(&[3, 5], "linspace").attr("alpha", 0.1).attr("beta", vec![0.3, -0.7]),
    );
    expand(
        "fill_random_uniform_f32",
        fill(&[4096, 4096], "random_uniform").attr("alpha", -1.0).attr("beta", 1.0).attr("seed", 42i64),
    );
    expand("fill_random_normal_f16", fill(&[8, 8], "random_normal").attr("beta", 2.0).attr("to_type", "f16"));
}

#[test]
fn onnx_slice() {
    let r = meta("onnx.slice", DType::F32, &[2, 4])
        .input("starts", ints(&[1, 0]))
        .input("ends", ints(&[2, 3]))
        .input("axes", ints(&[0, 1]))
        .input("steps", ints(&[1, 2]));
    expand("onnx_example_1", r);
    let r = meta("onnx.slice", DType::F32, &[2, 4]).version(1).attr("starts", [1, 0]).attr("ends", [2, 3]);
    expand("onnx_v1_attributes", r);
    let r = meta("onnx.slice", DType::String, &[3])
        .input("starts", ints(&[-1]))
        .input("ends", ints(&[-4]))
        .input("steps", ints(&[-1]));
    expand("onnx_string_reverse", r);
    let r = meta("onnx.slice", DType::C128, &[64, 64])
        .input("starts", ints(&[-1]))
        .input("ends", ints(&[i64::MIN]))
        .input("axes", ints(&[1]))
        .input("steps", ints(&[-1]));
    expand("onnx_reversed_columns_c128", r);
}

#[test]
fn openvino_strided_slice() {
    let r = meta("openvino.strided_slice", DType::F32, &[1, 2, 384, 640, 8])
        .attr("begin", [0, 1, 0, 0, 0])
        .attr("end", [0, 0, 0, 0, 0])
        .attr("begin_mask", [1, 0, 1, 1, 1])
        .attr("end_mask", [1, 0, 1, 1, 1])
        .attr("shrink_axis_mask", [0, 1, 0, 0, 0]);
    expand("ov_w7_shrink", r);
    let r = meta("openvino.strided_slice", DType::F32, &[2, 3, 4])
        .attr("begin", [0, 0, 0])
        .attr("end", [0, 0, 0])
        .attr("begin_mask", [1, 1, 1])
        .attr("end_mask", [1, 1, 1])
        .attr("new_axis_mask", [1, 0, 0]);
    expand("ov_new_axis", r);
    let r = meta("openvino.strided_slice", DType::U4, &[2, 3, 5])
        .attr("begin", [0, 4])
        .attr("end", [0, 0])
        .attr("stride", [1, -2])
        .attr("begin_mask", [0, 0])
        .attr("end_mask", [0, 1])
        .attr("ellipsis_mask", [1, 0]);
    expand("ov_ellipsis_u4_reverse", r);
}

#[test]
fn pad_family() {
    let pads = |shape: &[u64], pads: &[i64], mode: &str| {
        meta("onnx.pad", DType::F32, shape).version(19).input("pads", ints(pads)).attr("mode", mode)
    };
    expand("onnx_pad_wrap_2x3", pads(&[2, 3], &[1, 2, 0, 1], "wrap"));
    expand("onnx_pad_p1_reflect", pads(&[1, 3, 1024, 1024], &[0, 0, 16, 16, 0, 0, 16, 16], "reflect"));
    expand("onnx_pad_crop_then_reflect", pads(&[2, 5], &[0, -2, 1, 4], "reflect"));
    let r = meta("onnx.pad", DType::I16, &[3, 2])
        .input("pads", ints(&[1, 0, 0, 2]))
        .input("constant_value", Tensor::scalar_bits(DType::I64, 9));
    expand("onnx_pad_constant_i16", r);
    let ov = |shape: &[u64], begin: &[i64], end: &[i64], mode: &str| {
        meta("openvino.pad", DType::U8, shape)
            .input("pads_begin", ints(begin))
            .input("pads_end", ints(end))
            .attr("pad_mode", mode)
    };
    expand("ov_pad_symmetric_2x3", ov(&[2, 3], &[1, 3], &[2, -1], "symmetric"));
    expand("ov_pad_symmetric_bounces_tables", ov(&[2, 2], &[2, 2], &[2, 2], "symmetric"));
    let r = meta("openvino.slice", DType::F32, &[4, 6])
        .input("start", ints(&[-1, 100]))
        .input("stop", ints(&[-100, 0]))
        .input("step", ints(&[-2, -3]));
    expand("ov_slice8_backward", r);
}

/// A request of an op over several inputs or outputs, its data entries by shape.
fn program(op: &str, dtype: DType, shapes: &[&[u64]]) -> Request {
    let entries = shapes.iter().map(|s| kerfx::InputArg::Meta { dtype, shape: s.to_vec() }).collect();
    Request::new(op).input_list("inputs", entries)
}

/// Programs: one loops function per move, each writing its box of its output (Concat:
/// through the output's strides; Split: each whole output, dense), and `run` over arrays
/// of slices with every length checked first.
#[test]
fn programs() {
    expand("onnx_concat_columns_f32", program("onnx.concat", DType::F32, &[&[2, 3], &[2, 1]]).attr("axis", 1i64));
    expand(
        "trt_concatenation_rows_u4",
        program("tensorrt.concatenation", DType::U4, &[&[1, 3], &[2, 3]]).attr("axis", 0i64),
    );
    expand(
        "onnx_split_v11_outputs_i16",
        meta("onnx.split", DType::I16, &[4, 2]).attr("axis", 0i64).outputs(2).version(11),
    );
    expand(
        "ov_variadic_split_f16",
        meta("openvino.variadic_split", DType::F16, &[2, 5])
            .input("axis", ints(&[-1]))
            .input("split_lengths", ints(&[1, -1, 2])),
    );
}
