//! Derived kernels for every op, mode and dtype family, each checked bit for bit against
//! the reference interpreter on the request its attributes stand for (through the
//! `Kernel` trait, i.e. `run_bytes`). Typed `run` calls are checked in `typed.rs`.

use kerfx_derive_tests::derived;

// ------------------------------------------------------------------ tensorrt.slice

// strict_bounds, every dtype of the spec's T.
derived!(strict_f32_seed, StrictF32, op = "tensorrt.slice", dtype = "f32", input = [3, 3]; start = [0, 0], size = [2, 2], stride = [1, 1]);
derived!(strict_bool_reverse, StrictBool, op = "tensorrt.slice", dtype = "bool", input = [3]; start = [2], size = [3], stride = [-1]);
derived!(strict_i8_stride3, StrictI8, op = "tensorrt.slice", dtype = "i8", input = [4, 10]; start = [1, 0], size = [3, 4], stride = [1, 3]);
derived!(strict_i32_negative, StrictI32, op = "tensorrt.slice", dtype = "i32", input = [2, 4]; start = [1, 3], size = [2, 2], stride = [-1, -2]);
derived!(strict_i64_rows, StrictI64, op = "tensorrt.slice", dtype = "i64", input = [6, 5]; start = [1, 0], size = [3, 5], stride = [2, 1]);
derived!(strict_f8_cols, StrictF8, op = "tensorrt.slice", dtype = "f8e4m3fn", input = [4, 8]; start = [0, 2], size = [4, 4], stride = [1, 1]);
derived!(strict_f16_zero_stride, StrictF16, op = "tensorrt.slice", dtype = "f16", input = [2, 3]; start = [0, 2], size = [2, 3], stride = [1, 0]);
derived!(strict_bf16_3d, StrictBf16, op = "tensorrt.slice", dtype = "bf16", input = [3, 4, 5]; start = [2, 3, 4], size = [2, 2, 3], stride = [-1, -2, -1]);
derived!(strict_i4_shifted_columns, StrictI4, op = "tensorrt.slice", dtype = "i4", input = [5, 9]; start = [0, 1], size = [5, 7], stride = [1, 1]);
derived!(strict_i4_even_columns, StrictI4Even, op = "tensorrt.slice", dtype = "i4", input = [4, 8]; start = [1, 2], size = [3, 4], stride = [1, 1]);
derived!(strict_i4_reverse_strided, StrictI4Rev, op = "tensorrt.slice", dtype = "i4", input = [3, 7]; start = [2, 6], size = [3, 3], stride = [-1, -3]);
derived!(strict_i4_broadcast, StrictI4Bcast, op = "tensorrt.slice", dtype = "i4", input = [3, 3]; start = [0, 1], size = [3, 5], stride = [1, 0]);
derived!(strict_axes, StrictAxes, op = "tensorrt.slice", dtype = "f32", input = [2, 3, 4]; axes = [-1, 0], start = [1, 1], size = [2, 1], stride = [2, 1]);
derived!(strict_empty_output, StrictEmpty, op = "tensorrt.slice", dtype = "f32", input = [2, 3]; start = [0, 5], size = [2, 0], stride = [1, 1]);
derived!(strict_contiguous_rows, StrictRows, op = "tensorrt.slice", dtype = "f32", input = [16, 16]; start = [0, 0], size = [8, 16], stride = [1, 1]);
derived!(strict_columns_w2, StrictCols, op = "tensorrt.slice", dtype = "f32", input = [16, 16]; start = [0, 4], size = [16, 8], stride = [1, 1]);
derived!(strict_stride2_w3, StrictStride2, op = "tensorrt.slice", dtype = "f32", input = [16, 16]; start = [0, 0], size = [16, 8], stride = [1, 2]);

// wrap
derived!(wrap_example, WrapF32, op = "tensorrt.slice", dtype = "f32", input = [2, 3]; start = [1, -1], size = [3, 5], stride = [1, 1], mode = "wrap");
derived!(wrap_i4, WrapI4, op = "tensorrt.slice", dtype = "i4", input = [5]; start = [3], size = [4], stride = [1], mode = "wrap");
derived!(wrap_i4_2d, WrapI4Rows, op = "tensorrt.slice", dtype = "i4", input = [3, 5]; start = [-1, -3], size = [5, 11], stride = [1, 1], mode = "wrap");
derived!(wrap_tables, WrapTables, op = "tensorrt.slice", dtype = "i8", input = [3, 2]; start = [0, 0], size = [40, 40], stride = [1, 1], mode = "wrap");
derived!(wrap_negative_big_stride, WrapStride, op = "tensorrt.slice", dtype = "i32", input = [7]; start = [100], size = [9], stride = [-5], mode = "wrap");
derived!(wrap_i64, WrapI64, op = "tensorrt.slice", dtype = "i64", input = [4, 4]; start = [-2, 3], size = [6, 6], stride = [1, 1], mode = "wrap");
derived!(wrap_bf16, WrapBf16, op = "tensorrt.slice", dtype = "bf16", input = [3, 3]; start = [2, 2], size = [4, 4], stride = [2, -1], mode = "wrap");

// clamp
derived!(clamp_example, ClampI32, op = "tensorrt.slice", dtype = "i32", input = [5]; start = [-2], size = [5], stride = [2], mode = "clamp");
derived!(clamp_pad_2d, ClampF16, op = "tensorrt.slice", dtype = "f16", input = [4, 5]; start = [-3, -2], size = [10, 9], stride = [1, 1], mode = "clamp");
derived!(clamp_i4, ClampI4, op = "tensorrt.slice", dtype = "i4", input = [3, 3]; start = [-2, -2], size = [7, 7], stride = [1, 1], mode = "clamp");
derived!(clamp_reverse, ClampBool, op = "tensorrt.slice", dtype = "bool", input = [6]; start = [8], size = [12], stride = [-1], mode = "clamp");

// fill
derived!(fill_example_default, FillDefault, op = "tensorrt.slice", dtype = "f32", input = [2, 2]; start = [0, 0], size = [3, 3], stride = [1, 1], mode = "fill");
derived!(fill_value_attr, FillValue, op = "tensorrt.slice", dtype = "f32", input = [2, 2]; start = [0, 0], size = [3, 3], stride = [1, 1], mode = "fill", fill = 1.0);
derived!(fill_i8_border, FillI8, op = "tensorrt.slice", dtype = "i8", input = [3, 4]; start = [-1, -2], size = [5, 8], stride = [1, 1], mode = "fill", fill = -3);
derived!(fill_i4_odd, FillI4, op = "tensorrt.slice", dtype = "i4", input = [3, 3]; start = [-1, -1], size = [5, 5], stride = [1, 1], mode = "fill", fill = 7);
derived!(fill_f8, FillF8, op = "tensorrt.slice", dtype = "f8e4m3fn", input = [2, 3]; start = [-1, 0], size = [4, 3], stride = [1, 1], mode = "fill", fill = 448.0);
derived!(fill_empty_input, FillEmpty, op = "tensorrt.slice", dtype = "f32", input = [0]; start = [0], size = [3], stride = [1], mode = "fill", fill = 2.5);
derived!(fill_strided_reverse, FillRev, op = "tensorrt.slice", dtype = "f16", input = [4, 6]; start = [5, 8], size = [7, 6], stride = [-1, -2], mode = "fill", fill = -1.5);
derived!(fill_all_outside, FillOutside, op = "tensorrt.slice", dtype = "i32", input = [3, 3]; start = [5, 0], size = [2, 3], stride = [1, 1], mode = "fill", fill = 9);
derived!(fill_outer_tables, FillTables, op = "tensorrt.slice", dtype = "i32", input = [2, 2, 2, 2]; start = [-1, -1, -1, -1], size = [4, 4, 4, 4], stride = [1, 1, 1, 1], mode = "fill", fill = 5);

// reflect
derived!(reflect_repeated_bounce, ReflectF32, op = "tensorrt.slice", dtype = "f32", input = [1, 3]; start = [0, -5], size = [2, 10], stride = [1, 1], mode = "reflect");
derived!(reflect_pad_i8, ReflectI8, op = "tensorrt.slice", dtype = "i8", input = [4, 5]; start = [-3, -4], size = [10, 13], stride = [1, 1], mode = "reflect");
derived!(reflect_i4, ReflectI4, op = "tensorrt.slice", dtype = "i4", input = [3, 5]; start = [-2, -4], size = [7, 13], stride = [1, 1], mode = "reflect");
derived!(reflect_tables, ReflectTables, op = "tensorrt.slice", dtype = "f32", input = [3, 2]; start = [-7, -9], size = [30, 50], stride = [1, 1], mode = "reflect");
derived!(reflect_strided, ReflectStrided, op = "tensorrt.slice", dtype = "f8e4m3fn", input = [9]; start = [-20], size = [15], stride = [3], mode = "reflect");

// Repeating dims (one period, then copies), repeating tables and looped dims.
derived!(wrap_repeat_long, WrapLong, op = "tensorrt.slice", dtype = "i8", input = [3]; start = [0], size = [100000], stride = [1], mode = "wrap");
derived!(reflect_repeat_rows_i4, ReflectRowsI4, op = "tensorrt.slice", dtype = "i4", input = [3, 5]; start = [-1, -3], size = [50, 11], stride = [1, 1], mode = "reflect");
derived!(wrap_repeat_odd_rows_i4, WrapOddRowsI4, op = "tensorrt.slice", dtype = "i4", input = [2, 3]; start = [0, 1], size = [3, 21], stride = [1, 1], mode = "wrap");
derived!(wrap_repeat_even_i4, WrapEvenI4, op = "tensorrt.slice", dtype = "i4", input = [4]; start = [1], size = [1001], stride = [1], mode = "wrap");
derived!(wrap_repeat_table_i32, WrapTableI32, op = "tensorrt.slice", dtype = "i32", input = [100]; start = [7], size = [1000], stride = [33], mode = "wrap");
// Index tables computed at run time from their rules (issue 20: they were literal arrays).
derived!(reflect_coprime_table, ReflectCoprime, op = "tensorrt.slice", dtype = "f32", input = [1003]; start = [-5], size = [3000], stride = [7], mode = "reflect");
// Issue 20's case: a table of 2,000,004 entries (it was 18.4 MB of literal Rust).
derived!(reflect_two_million_entry_table, ReflectMillion, op = "tensorrt.slice", dtype = "f32", input = [1000003]; start = [-5], size = [3000000], stride = [7], mode = "reflect");
derived!(wrap_negative_table_2d, WrapNegTable, op = "tensorrt.slice", dtype = "i8", input = [3, 97]; start = [1, 200], size = [4, 500], stride = [1, -13], mode = "wrap");
derived!(reflect_repeat_table_f32, ReflectTableF32, op = "tensorrt.slice", dtype = "f32", input = [2, 40]; start = [-1, 3], size = [5, 300], stride = [1, 7], mode = "reflect");
derived!(clamp_looped, ClampLooped, op = "tensorrt.slice", dtype = "f32", input = [4, 4, 4, 4]; start = [-2, -2, -2, -2], size = [9, 9, 9, 9], stride = [1, 1, 1, 1], mode = "clamp");
derived!(fill_looped_i4, FillLoopedI4, op = "tensorrt.slice", dtype = "i4", input = [2, 2, 2, 2]; start = [-1, -1, -1, -1], size = [4, 4, 4, 5], stride = [1, 1, 1, 1], mode = "fill", fill = 5);

// W5 in small: a 4-D pad in every mode.
derived!(w5_fill, W5Fill, op = "tensorrt.slice", dtype = "f32", input = [1, 3, 12, 12]; start = [0, 0, -4, -4], size = [1, 3, 20, 20], stride = [1, 1, 1, 1], mode = "fill");
derived!(w5_clamp, W5Clamp, op = "tensorrt.slice", dtype = "f32", input = [1, 3, 12, 12]; start = [0, 0, -4, -4], size = [1, 3, 20, 20], stride = [1, 1, 1, 1], mode = "clamp");
derived!(w5_wrap, W5Wrap, op = "tensorrt.slice", dtype = "f32", input = [1, 3, 12, 12]; start = [0, 0, -4, -4], size = [1, 3, 20, 20], stride = [1, 1, 1, 1], mode = "wrap");
derived!(w5_reflect, W5Reflect, op = "tensorrt.slice", dtype = "f32", input = [1, 3, 12, 12]; start = [0, 0, -4, -4], size = [1, 3, 20, 20], stride = [1, 1, 1, 1], mode = "reflect");

// ------------------------------------------------------------------- tensorrt.fill

derived!(linspace_i32, LinI32, op = "tensorrt.fill"; dimensions = [2, 3], operation = "linspace", alpha = 0.0, beta = [3.0, 1.0], to_type = "i32");
derived!(linspace_i64_negative, LinI64, op = "tensorrt.fill"; dimensions = [3, 1, 4], operation = "linspace", alpha = 10.0, beta = [-3.0, 7.0, 1.0], to_type = "i64");
derived!(linspace_i64_extremes, LinI64Big, op = "tensorrt.fill"; dimensions = [2, 2], operation = "linspace", alpha = -9.0e18, beta = [9.0e18, 1.0], to_type = "i64");
derived!(linspace_f32_fractional, LinF32, op = "tensorrt.fill"; dimensions = [2, 2], operation = "linspace", alpha = -1.0, beta = [0.5, 0.125]);
derived!(linspace_f32_inexact, LinF32Inexact, op = "tensorrt.fill"; dimensions = [3, 5, 7], operation = "linspace", alpha = 0.1, beta = [0.3, -0.7, 1e-3]);
derived!(linspace_f32_rounded_once, LinF32Once, op = "tensorrt.fill"; dimensions = [2, 2], operation = "linspace", alpha = 16777216.0, beta = [1.0, 1.0]);
derived!(linspace_scalar_beta, LinScalar, op = "tensorrt.fill"; dimensions = [3], operation = "linspace", alpha = 1.0, beta = 0.25);
derived!(linspace_empty, LinEmpty, op = "tensorrt.fill"; dimensions = [0, 3], operation = "linspace", beta = [1.0, 1.0]);
derived!(linspace_unit_dims, LinUnit, op = "tensorrt.fill"; dimensions = [1, 1], operation = "linspace", alpha = 4.0, beta = [1.0, 2.0], to_type = "i32");
derived!(uniform_f32, UniF32, op = "tensorrt.fill"; dimensions = [7, 9], operation = "random_uniform", alpha = -2.0, beta = 3.0, seed = 42);
derived!(uniform_f16, UniF16, op = "tensorrt.fill"; dimensions = [300], operation = "random_uniform", alpha = 0.0, beta = 1.0, to_type = "f16", seed = 7);
derived!(uniform_default, UniDefault, op = "tensorrt.fill"; dimensions = [5, 5], operation = "random_uniform");
derived!(normal_f32, NormF32, op = "tensorrt.fill"; dimensions = [64, 3], operation = "random_normal", alpha = 1.0, beta = 2.0, seed = 123456789);
derived!(normal_f16, NormF16, op = "tensorrt.fill"; dimensions = [100], operation = "random_normal", alpha = -1.0, beta = 0.5, to_type = "f16");

/// Seeds past 2^63 − 1 (issue 20): the derive takes the u64 literal and its decimal string.
#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.fill", dimensions = [3, 5], operation = "random_normal", seed = 18446744073709551615)]
struct SeedMax;
#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.fill", dimensions = [3, 5], operation = "random_normal", seed = "18446744073709551615")]
struct SeedMaxString;

#[test]
fn seeds_past_i64() {
    let request = kerfx::Request::new("tensorrt.fill")
        .attr("dimensions", [3, 5])
        .attr("operation", "random_normal")
        .attr("seed", kerfx::AttrValue::UInt(u64::MAX));
    let a = kerfx_derive_tests::check_against_reference(&SeedMax, &request);
    let b = kerfx_derive_tests::check_against_reference(&SeedMaxString, &request);
    assert_eq!(a, b);
    assert_eq!(a.element_f64(7), Some(kerfx::random::normal_f32(u64::MAX, 7, 0.0, 1.0) as f64));
}

// ---------------------------------------------------------------------- onnx.slice

derived!(onnx_example_1, OnnxEx1, op = "onnx.slice", dtype = "f32", input = [2, 4]; starts = [1, 0], ends = [2, 3], axes = [0, 1], steps = [1, 2]);
derived!(onnx_example_2, OnnxEx2, op = "onnx.slice", dtype = "f32", input = [2, 4]; starts = [0, 1], ends = [-1, 1000]);
derived!(onnx_negative_steps, OnnxNegSteps, op = "onnx.slice", dtype = "i32", input = [2, 4]; starts = [1, -1], ends = [-3, -1000], steps = [-1, -2]);
derived!(onnx_version1, OnnxV1, op = "onnx.slice", version = 1, dtype = "f32", input = [2, 4]; starts = [1, 0], ends = [2, 3], axes = [0, 1]);
derived!(onnx_version10, OnnxV10, op = "onnx.slice", version = 10, dtype = "i64", input = [3, 2]; starts = [1], ends = [3]);
derived!(onnx_version11_negative_axes, OnnxV11, op = "onnx.slice", version = 11, dtype = "u16", input = [2, 4]; starts = [1], ends = [3], axes = [-1]);
derived!(onnx_bf16_v13, OnnxBf16, op = "onnx.slice", version = 13, dtype = "bf16", input = [3]; starts = [1], ends = [3]);
derived!(onnx_c64, OnnxC64, op = "onnx.slice", dtype = "c64", input = [4, 3]; starts = [3, 0], ends = [-5, 3], steps = [-2, 1]);
derived!(onnx_c128, OnnxC128, op = "onnx.slice", dtype = "c128", input = [5]; starts = [1], ends = [5], steps = [3]);
derived!(onnx_f64_default_steps, OnnxF64, op = "onnx.slice", dtype = "f64", input = [3, 3, 3]; starts = [0, 1], ends = [2, 3], axes = [2, 0]);
derived!(onnx_u64, OnnxU64, op = "onnx.slice", dtype = "u64", input = [10]; starts = [-100], ends = [-200], steps = [-1]);
derived!(onnx_i16_int64_max_end, OnnxI16, op = "onnx.slice", dtype = "i16", input = [5]; starts = [-1], ends = [9223372036854775807i64], steps = [-1]);
derived!(onnx_empty_axis, OnnxEmpty, op = "onnx.slice", dtype = "u32", input = [0, 2]; starts = [0], ends = [5]);
derived!(onnx_bool, OnnxBool, op = "onnx.slice", dtype = "bool", input = [3, 5]; starts = [0, 4], ends = [3, 0], steps = [2, -1]);

// ----------------------------------------------------------- openvino.strided_slice

derived!(ov_begin_end_mask, OvMasks, op = "openvino.strided_slice", dtype = "i32", input = [2, 3, 4]; begin = [1, 0, 0], end = [0, 0, 2], stride = [1, 1, 1], begin_mask = [0, 1, 1], end_mask = [1, 1, 0]);
derived!(ov_new_axis, OvNewAxis, op = "openvino.strided_slice", dtype = "f32", input = [2, 3, 4]; begin = [0, 0, 0], end = [0, 0, 0], begin_mask = [1, 1, 1], end_mask = [1, 1, 1], new_axis_mask = [1, 0, 0]);
derived!(ov_shrink, OvShrink, op = "openvino.strided_slice", dtype = "f32", input = [1, 2, 3, 2]; begin = [0, 1, 0, 0], end = [0, 0, 0, 0], begin_mask = [1, 0, 1, 1], end_mask = [1, 0, 1, 1], shrink_axis_mask = [0, 1, 0, 0]);
derived!(ov_shrink_w7, OvShrinkW7, op = "openvino.strided_slice", dtype = "f32", input = [1, 2, 6, 5, 8]; begin = [0, 1, 0, 0, 0], end = [0, 0, 0, 0, 0], begin_mask = [1, 0, 1, 1, 1], end_mask = [1, 0, 1, 1, 1], shrink_axis_mask = [0, 1, 0, 0, 0]);
derived!(ov_shrink_ignores_begin_mask, OvShrinkMask, op = "openvino.strided_slice", dtype = "i32", input = [4]; begin = [2], end = [0], begin_mask = [1], end_mask = [0], shrink_axis_mask = [1]);
derived!(ov_reverse_end_mask, OvReverse, op = "openvino.strided_slice", dtype = "u4", input = [4]; begin = [3], end = [0], stride = [-1], begin_mask = [0], end_mask = [1]);
derived!(ov_ellipsis, OvEllipsis, op = "openvino.strided_slice", dtype = "c64", input = [2, 3, 4]; begin = [0, 1], end = [0, 3], begin_mask = [0, 0], end_mask = [0, 0], ellipsis_mask = [1, 0]);
derived!(ov_negative_stride_clamped, OvNegStride, op = "openvino.strided_slice", dtype = "f8e5m2", input = [5]; begin = [10], end = [-10], stride = [-2], begin_mask = [0], end_mask = [0]);
derived!(ov_u16_every_other, OvU16, op = "openvino.strided_slice", dtype = "u16", input = [6, 6]; begin = [0, 5], end = [6, 0], stride = [2, -2], begin_mask = [0, 0], end_mask = [0, 1]);

// ------------------------------------------------------------------------ edges

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [], start = [], size = [], stride = [])]
struct Rank0;

#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.slice", dtype = "i8", input = [], starts = [], ends = [])]
struct Rank0Onnx;

#[test]
fn rank0_scalars() {
    use kerfx_derive_tests::{V, check_against_reference, request};
    let none = || V::Ints(Vec::new());
    let r =
        request("tensorrt.slice", None, Some(("f32", &[])), &[("start", none()), ("size", none()), ("stride", none())]);
    check_against_reference(&Rank0, &r);
    let r = request("onnx.slice", None, Some(("i8", &[])), &[("starts", none()), ("ends", none())]);
    check_against_reference(&Rank0Onnx, &r);
}

derived!(ov_new_axis_on_scalar, OvScalar, op = "openvino.strided_slice", dtype = "i16", input = []; begin = [0], end = [0], begin_mask = [0], end_mask = [0], new_axis_mask = [1]);
derived!(fill_size_one_everywhere, FillOne, op = "tensorrt.slice", dtype = "i8", input = [1, 1]; start = [-1, 0], size = [3, 1], stride = [1, 1], mode = "fill", fill = 4);
