// Generated from tests/data/conformance by `conformance_cases_are_current` in
// tests/conformance.rs (KERF_REGENERATE=1); do not edit.

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 21, constant_value = 1.2000000476837158, dtype = "f32", input = [1, 3, 4, 5], pads = [0, 0, 1, 3, 0, 0, 2, 4], mode = "constant")]
struct Case_onnx_node_test_constant_pad;

#[test]
fn onnx_node_test_constant_pad() {
    check_case("onnx_node_test_constant_pad", &Case_onnx_node_test_constant_pad);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 21, axes = [1, 3], constant_value = 1.2000000476837158, dtype = "f32", input = [1, 3, 4, 5], pads = [0, 3, 0, 4], mode = "constant")]
struct Case_onnx_node_test_constant_pad_axes;

#[test]
fn onnx_node_test_constant_pad_axes() {
    check_case("onnx_node_test_constant_pad_axes", &Case_onnx_node_test_constant_pad_axes);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 21, axes = [-3, -1], constant_value = 1.2000000476837158, dtype = "f32", input = [1, 3, 4, 5], pads = [0, 3, 0, 4], mode = "constant")]
struct Case_onnx_node_test_constant_pad_negative_axes;

#[test]
fn onnx_node_test_constant_pad_negative_axes() {
    check_case("onnx_node_test_constant_pad_negative_axes", &Case_onnx_node_test_constant_pad_negative_axes);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 21, dtype = "i32", input = [1, 3, 4, 5], pads = [0, 0, 1, 1, 0, 0, 1, 1], mode = "edge")]
struct Case_onnx_node_test_edge_pad;

#[test]
fn onnx_node_test_edge_pad() {
    check_case("onnx_node_test_edge_pad", &Case_onnx_node_test_edge_pad);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 21, dtype = "i32", input = [1, 3, 4, 5], pads = [0, 0, 1, 1, 0, 0, 1, 1], mode = "reflect")]
struct Case_onnx_node_test_reflect_pad;

#[test]
fn onnx_node_test_reflect_pad() {
    check_case("onnx_node_test_reflect_pad", &Case_onnx_node_test_reflect_pad);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [0, 1], dtype = "f32", input = [20, 10, 5], ends = [3, 10], starts = [0, 0], steps = [1, 1])]
struct Case_onnx_node_test_slice;

#[test]
fn onnx_node_test_slice() {
    check_case("onnx_node_test_slice", &Case_onnx_node_test_slice);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, dtype = "f32", input = [20, 10, 5], ends = [20, 10, 4], starts = [0, 0, 3])]
struct Case_onnx_node_test_slice_default_axes;

#[test]
fn onnx_node_test_slice_default_axes() {
    check_case("onnx_node_test_slice_default_axes", &Case_onnx_node_test_slice_default_axes);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [0, 1, 2], dtype = "f32", input = [20, 10, 5], ends = [20, 10, 4], starts = [0, 0, 3])]
struct Case_onnx_node_test_slice_default_steps;

#[test]
fn onnx_node_test_slice_default_steps() {
    check_case("onnx_node_test_slice_default_steps", &Case_onnx_node_test_slice_default_steps);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [1], dtype = "f32", input = [20, 10, 5], ends = [1000], starts = [1], steps = [1])]
struct Case_onnx_node_test_slice_end_out_of_bounds;

#[test]
fn onnx_node_test_slice_end_out_of_bounds() {
    check_case("onnx_node_test_slice_end_out_of_bounds", &Case_onnx_node_test_slice_end_out_of_bounds);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [1], dtype = "f32", input = [20, 10, 5], ends = [-1], starts = [0], steps = [1])]
struct Case_onnx_node_test_slice_neg;

#[test]
fn onnx_node_test_slice_neg() {
    check_case("onnx_node_test_slice_neg", &Case_onnx_node_test_slice_neg);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [0, 1, 2], dtype = "f32", input = [20, 10, 5], ends = [0, 0, 1], starts = [20, 10, 4], steps = [-1, -3, -2])]
struct Case_onnx_node_test_slice_neg_steps;

#[test]
fn onnx_node_test_slice_neg_steps() {
    check_case("onnx_node_test_slice_neg_steps", &Case_onnx_node_test_slice_neg_steps);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [0, -2, -1], dtype = "f32", input = [20, 10, 5], ends = [20, 10, 4], starts = [0, 0, 3])]
struct Case_onnx_node_test_slice_negative_axes;

#[test]
fn onnx_node_test_slice_negative_axes() {
    check_case("onnx_node_test_slice_negative_axes", &Case_onnx_node_test_slice_negative_axes);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [1], dtype = "f32", input = [20, 10, 5], ends = [1000], starts = [1000], steps = [1])]
struct Case_onnx_node_test_slice_start_out_of_bounds;

#[test]
fn onnx_node_test_slice_start_out_of_bounds() {
    check_case("onnx_node_test_slice_start_out_of_bounds", &Case_onnx_node_test_slice_start_out_of_bounds);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 21, dtype = "i32", input = [1, 3, 4, 5], pads = [0, 0, 1, 1, 0, 0, 1, 1], mode = "wrap")]
struct Case_onnx_node_test_wrap_pad;

#[test]
fn onnx_node_test_wrap_pad() {
    check_case("onnx_node_test_wrap_pad", &Case_onnx_node_test_wrap_pad);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 2, dtype = "f16", input = [0, 2], mode = "reflect", pads = [0, 0, 0, 1])]
struct Case_onnx_pad_0001;

#[test]
fn onnx_pad_0001() {
    check_case("onnx_pad_0001", &Case_onnx_pad_0001);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 1, dtype = "f16", input = [1, 1, 4, 1], mode = "reflect", paddings = [0, 0, 1, 0, 0, 0, 1, 0])]
struct Case_onnx_pad_0003;

#[test]
fn onnx_pad_0003() {
    check_case("onnx_pad_0003", &Case_onnx_pad_0003);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 21, axes = [1, 0], dtype = "bf16", input = [2, 5], pads = [3, 0, 4, 1], mode = "reflect")]
struct Case_onnx_pad_0007;

#[test]
fn onnx_pad_0007() {
    check_case("onnx_pad_0007", &Case_onnx_pad_0007);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 21, axes = [], dtype = "f64", input = [1, 0, 1], pads = [], mode = "edge")]
struct Case_onnx_pad_0010;

#[test]
fn onnx_pad_0010() {
    check_case("onnx_pad_0010", &Case_onnx_pad_0010);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 19, axes = [-2], dtype = "f16", input = [2, 4, 1, 3, 1], pads = [8, 2], mode = "wrap")]
struct Case_onnx_pad_0013;

#[test]
fn onnx_pad_0013() {
    check_case("onnx_pad_0013", &Case_onnx_pad_0013);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 11, dtype = "f64", input = [1, 1], pads = [4, 0, 4, 3], mode = "constant")]
struct Case_onnx_pad_0015;

#[test]
fn onnx_pad_0015() {
    check_case("onnx_pad_0015", &Case_onnx_pad_0015);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 11, constant_value = 9223372036854775807, dtype = "i64", input = [0, 4], pads = [1, 2, 1, 0], mode = "constant")]
struct Case_onnx_pad_0017;

#[test]
fn onnx_pad_0017() {
    check_case("onnx_pad_0017", &Case_onnx_pad_0017);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 18, axes = [0, -1, 1], dtype = "i64", input = [3, 4, 4], pads = [1, 1, 2, 0, 1, 3], mode = "reflect")]
struct Case_onnx_pad_0018;

#[test]
fn onnx_pad_0018() {
    check_case("onnx_pad_0018", &Case_onnx_pad_0018);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 19, dtype = "u16", input = [5], pads = [1, 3], mode = "reflect")]
struct Case_onnx_pad_0019;

#[test]
fn onnx_pad_0019() {
    check_case("onnx_pad_0019", &Case_onnx_pad_0019);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 18, axes = [0, 1, -1], dtype = "u16", input = [3, 1, 1], pads = [1, 0, 0, 2, 0, 0], mode = "reflect")]
struct Case_onnx_pad_0021;

#[test]
fn onnx_pad_0021() {
    check_case("onnx_pad_0021", &Case_onnx_pad_0021);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 18, dtype = "bool", input = [1, 1], pads = [0, 2, 2, 4], mode = "edge")]
struct Case_onnx_pad_0022;

#[test]
fn onnx_pad_0022() {
    check_case("onnx_pad_0022", &Case_onnx_pad_0022);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 21, axes = [1, 0], dtype = "f16", input = [1, 1, 2, 0], pads = [4, 2, 1, 2], mode = "edge")]
struct Case_onnx_pad_0024;

#[test]
fn onnx_pad_0024() {
    check_case("onnx_pad_0024", &Case_onnx_pad_0024);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 18, dtype = "f32", input = [1, 1, 1, 4], pads = [4, 2, 0, 5, 1, 1, 0, 2], mode = "edge")]
struct Case_onnx_pad_0025;

#[test]
fn onnx_pad_0025() {
    check_case("onnx_pad_0025", &Case_onnx_pad_0025);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 11, dtype = "i8", input = [1, 3], pads = [3, 6, 1, 1], mode = "constant")]
struct Case_onnx_pad_0028;

#[test]
fn onnx_pad_0028() {
    check_case("onnx_pad_0028", &Case_onnx_pad_0028);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 1, dtype = "f16", input = [4, 1, 2, 1], mode = "constant", paddings = [4, 4, 1, 1, 2, 3, 1, 3])]
struct Case_onnx_pad_0029;

#[test]
fn onnx_pad_0029() {
    check_case("onnx_pad_0029", &Case_onnx_pad_0029);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 2, dtype = "f16", input = [1], mode = "reflect", pads = [0, 0])]
struct Case_onnx_pad_0031;

#[test]
fn onnx_pad_0031() {
    check_case("onnx_pad_0031", &Case_onnx_pad_0031);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 11, dtype = "u16", input = [2, 4], pads = [0, 0, 3, 3], mode = "edge")]
struct Case_onnx_pad_0032;

#[test]
fn onnx_pad_0032() {
    check_case("onnx_pad_0032", &Case_onnx_pad_0032);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 21, axes = [-1], dtype = "bool", input = [4], pads = [10, 2], mode = "wrap")]
struct Case_onnx_pad_0033;

#[test]
fn onnx_pad_0033() {
    check_case("onnx_pad_0033", &Case_onnx_pad_0033);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 21, dtype = "u16", input = [2, 1], pads = [3, 2, 0, 0], mode = "edge")]
struct Case_onnx_pad_0034;

#[test]
fn onnx_pad_0034() {
    check_case("onnx_pad_0034", &Case_onnx_pad_0034);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 19, axes = [-1, -2], dtype = "u32", input = [5, 1], pads = [4, 0, 2, 6], mode = "constant")]
struct Case_onnx_pad_0035;

#[test]
fn onnx_pad_0035() {
    check_case("onnx_pad_0035", &Case_onnx_pad_0035);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 1, dtype = "f64", input = [3, 2, 4, 1], mode = "constant", paddings = [3, 4, 5, 0, 1, 3, 6, 2], value = 0.1)]
struct Case_onnx_pad_0039;

#[test]
fn onnx_pad_0039() {
    check_case("onnx_pad_0039", &Case_onnx_pad_0039);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 19, dtype = "i32", input = [1, 3, 3], pads = [4, 1, 5, 1, 8, 8], mode = "wrap")]
struct Case_onnx_pad_0040;

#[test]
fn onnx_pad_0040() {
    check_case("onnx_pad_0040", &Case_onnx_pad_0040);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 13, dtype = "f32", input = [1], pads = [4, 4], mode = "edge")]
struct Case_onnx_pad_0043;

#[test]
fn onnx_pad_0043() {
    check_case("onnx_pad_0043", &Case_onnx_pad_0043);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 18, dtype = "i32", input = [4, 1, 1, 4, 2], pads = [1, 1, 3, 0, 1, 5, 3, 1, 1, 0], mode = "constant")]
struct Case_onnx_pad_0044;

#[test]
fn onnx_pad_0044() {
    check_case("onnx_pad_0044", &Case_onnx_pad_0044);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 11, dtype = "u16", input = [0], pads = [0, 0], mode = "reflect")]
struct Case_onnx_pad_0048;

#[test]
fn onnx_pad_0048() {
    check_case("onnx_pad_0048", &Case_onnx_pad_0048);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 11, dtype = "i32", input = [3, 2, 1, 4, 4], pads = [0, 1, 0, 0, 1, 1, 1, 0, 3, 3], mode = "reflect")]
struct Case_onnx_pad_0049;

#[test]
fn onnx_pad_0049() {
    check_case("onnx_pad_0049", &Case_onnx_pad_0049);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 19, axes = [0], dtype = "i64", input = [5], pads = [7, 4], mode = "edge")]
struct Case_onnx_pad_0051;

#[test]
fn onnx_pad_0051() {
    check_case("onnx_pad_0051", &Case_onnx_pad_0051);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 18, constant_value = -9223372036854775808, dtype = "i64", input = [4, 2], pads = [0, 1, 2, 4], mode = "constant")]
struct Case_onnx_pad_0054;

#[test]
fn onnx_pad_0054() {
    check_case("onnx_pad_0054", &Case_onnx_pad_0054);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 21, dtype = "f32", input = [5], pads = [2, 0], mode = "reflect")]
struct Case_onnx_pad_0056;

#[test]
fn onnx_pad_0056() {
    check_case("onnx_pad_0056", &Case_onnx_pad_0056);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 18, axes = [-1], dtype = "f64", input = [1, 5, 4], pads = [1, 4], mode = "edge")]
struct Case_onnx_pad_0058;

#[test]
fn onnx_pad_0058() {
    check_case("onnx_pad_0058", &Case_onnx_pad_0058);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 2, dtype = "f32", input = [2], mode = "edge", pads = [2, 5])]
struct Case_onnx_pad_0059;

#[test]
fn onnx_pad_0059() {
    check_case("onnx_pad_0059", &Case_onnx_pad_0059);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 13, constant_value = 65535, dtype = "u16", input = [0, 3], pads = [0, 1, 0, 2], mode = "reflect")]
struct Case_onnx_pad_0061;

#[test]
fn onnx_pad_0061() {
    check_case("onnx_pad_0061", &Case_onnx_pad_0061);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 21, axes = [0], dtype = "f32", input = [1], pads = [0, 4], mode = "wrap")]
struct Case_onnx_pad_0063;

#[test]
fn onnx_pad_0063() {
    check_case("onnx_pad_0063", &Case_onnx_pad_0063);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 2, dtype = "f16", input = [2, 2, 1], mode = "edge", pads = [1, 5, 4, 3, 3, 4])]
struct Case_onnx_pad_0066;

#[test]
fn onnx_pad_0066() {
    check_case("onnx_pad_0066", &Case_onnx_pad_0066);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 2, dtype = "f32", input = [1, 0, 3, 2], mode = "edge", pads = [0, 0, 1, 2, 4, 0, 6, 4])]
struct Case_onnx_pad_0068;

#[test]
fn onnx_pad_0068() {
    check_case("onnx_pad_0068", &Case_onnx_pad_0068);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 1, dtype = "f32", input = [1, 1, 1, 4], mode = "edge", paddings = [1, 2, 2, 2, 0, 4, 2, 2])]
struct Case_onnx_pad_0069;

#[test]
fn onnx_pad_0069() {
    check_case("onnx_pad_0069", &Case_onnx_pad_0069);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 19, dtype = "u32", input = [5, 5], pads = [3, 1, 6, 7], mode = "edge")]
struct Case_onnx_pad_0072;

#[test]
fn onnx_pad_0072() {
    check_case("onnx_pad_0072", &Case_onnx_pad_0072);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 21, axes = [-1], dtype = "u8", input = [3], pads = [5, 3], mode = "wrap")]
struct Case_onnx_pad_0073;

#[test]
fn onnx_pad_0073() {
    check_case("onnx_pad_0073", &Case_onnx_pad_0073);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 19, axes = [0], constant_value = -9223372036854775808, dtype = "i64", input = [3], pads = [3, 1], mode = "edge")]
struct Case_onnx_pad_0083;

#[test]
fn onnx_pad_0083() {
    check_case("onnx_pad_0083", &Case_onnx_pad_0083);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 13, dtype = "bool", input = [4, 1, 4, 1], pads = [3, 2, 2, 1, 7, 1, 0, 4], mode = "edge")]
struct Case_onnx_pad_0089;

#[test]
fn onnx_pad_0089() {
    check_case("onnx_pad_0089", &Case_onnx_pad_0089);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 1, dtype = "f16", input = [1, 4], mode = "constant", paddings = [0, 6, 3, 6], value = 0.1)]
struct Case_onnx_pad_0095;

#[test]
fn onnx_pad_0095() {
    check_case("onnx_pad_0095", &Case_onnx_pad_0095);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 2, dtype = "f64", input = [3, 4, 1], mode = "edge", pads = [1, 7, 3, 3, 2, 1])]
struct Case_onnx_pad_0097;

#[test]
fn onnx_pad_0097() {
    check_case("onnx_pad_0097", &Case_onnx_pad_0097);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 1, dtype = "f64", input = [3, 5, 5], mode = "constant", paddings = [0, 3, 4, 4, 3, 0])]
struct Case_onnx_pad_0099;

#[test]
fn onnx_pad_0099() {
    check_case("onnx_pad_0099", &Case_onnx_pad_0099);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 21, axes = [], dtype = "bf16", input = [4], pads = [], mode = "reflect")]
struct Case_onnx_pad_0100;

#[test]
fn onnx_pad_0100() {
    check_case("onnx_pad_0100", &Case_onnx_pad_0100);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 18, axes = [0, 1], dtype = "f32", input = [2, 1], pads = [5, 2, 1, 4], mode = "edge")]
struct Case_onnx_pad_0101;

#[test]
fn onnx_pad_0101() {
    check_case("onnx_pad_0101", &Case_onnx_pad_0101);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 2, dtype = "f64", input = [5, 4], mode = "constant", pads = [5, 0, 3, 2], value = 1.5)]
struct Case_onnx_pad_0102;

#[test]
fn onnx_pad_0102() {
    check_case("onnx_pad_0102", &Case_onnx_pad_0102);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 11, dtype = "i8", input = [1], pads = [0, 0], mode = "reflect")]
struct Case_onnx_pad_0104;

#[test]
fn onnx_pad_0104() {
    check_case("onnx_pad_0104", &Case_onnx_pad_0104);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 18, dtype = "bf16", input = [3, 3, 4, 1, 4], pads = [1, 2, 2, 0, 2, 2, 1, 0, 0, 2], mode = "reflect")]
struct Case_onnx_pad_0105;

#[test]
fn onnx_pad_0105() {
    check_case("onnx_pad_0105", &Case_onnx_pad_0105);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 13, constant_value = false, dtype = "bool", input = [0, 3, 4], pads = [0, 0, 3, 0, 1, 0], mode = "reflect")]
struct Case_onnx_pad_0108;

#[test]
fn onnx_pad_0108() {
    check_case("onnx_pad_0108", &Case_onnx_pad_0108);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 13, dtype = "i64", input = [1, 1, 1, 3, 0], pads = [2, 1, 4, 6, 3, 1, 0, 3, 3, 2], mode = "constant")]
struct Case_onnx_pad_0109;

#[test]
fn onnx_pad_0109() {
    check_case("onnx_pad_0109", &Case_onnx_pad_0109);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 18, axes = [1, 0], dtype = "f16", input = [1, 2, 2, 1], pads = [4, 0, 1, 1], mode = "constant")]
struct Case_onnx_pad_0111;

#[test]
fn onnx_pad_0111() {
    check_case("onnx_pad_0111", &Case_onnx_pad_0111);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 13, dtype = "u8", input = [1, 0, 4], pads = [0, 0, 0, 0, 0, 3], mode = "reflect")]
struct Case_onnx_pad_0112;

#[test]
fn onnx_pad_0112() {
    check_case("onnx_pad_0112", &Case_onnx_pad_0112);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 1, dtype = "f64", input = [1, 1, 3], mode = "reflect", paddings = [0, 0, 2, 0, 0, 2])]
struct Case_onnx_pad_0113;

#[test]
fn onnx_pad_0113() {
    check_case("onnx_pad_0113", &Case_onnx_pad_0113);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 2, dtype = "f64", input = [3, 2, 3, 2], mode = "constant", pads = [0, 7, 1, 1, 4, 0, 1, 7])]
struct Case_onnx_pad_0114;

#[test]
fn onnx_pad_0114() {
    check_case("onnx_pad_0114", &Case_onnx_pad_0114);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 2, dtype = "f16", input = [1], mode = "constant", pads = [0, 0], value = 0.1)]
struct Case_onnx_pad_0117;

#[test]
fn onnx_pad_0117() {
    check_case("onnx_pad_0117", &Case_onnx_pad_0117);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 11, dtype = "i8", input = [2, 1], pads = [1, 0, 1, 0], mode = "reflect")]
struct Case_onnx_pad_0119;

#[test]
fn onnx_pad_0119() {
    check_case("onnx_pad_0119", &Case_onnx_pad_0119);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 1, dtype = "f64", input = [2, 4], mode = "constant", paddings = [4, 5, 0, 0], value = -0.0)]
struct Case_onnx_pad_0121;

#[test]
fn onnx_pad_0121() {
    check_case("onnx_pad_0121", &Case_onnx_pad_0121);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 19, constant_value = 0.5, dtype = "f16", input = [4], pads = [8, 2], mode = "constant")]
struct Case_onnx_pad_0122;

#[test]
fn onnx_pad_0122() {
    check_case("onnx_pad_0122", &Case_onnx_pad_0122);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 18, axes = [2, 1], dtype = "i16", input = [3, 0, 1], pads = [0, 0, 0, 0], mode = "reflect")]
struct Case_onnx_pad_0124;

#[test]
fn onnx_pad_0124() {
    check_case("onnx_pad_0124", &Case_onnx_pad_0124);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 19, dtype = "f16", input = [5], pads = [0, 6], mode = "edge")]
struct Case_onnx_pad_0125;

#[test]
fn onnx_pad_0125() {
    check_case("onnx_pad_0125", &Case_onnx_pad_0125);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 11, dtype = "i64", input = [1, 1, 3, 4], pads = [0, 5, 0, 3, 5, 0, 1, 5], mode = "edge")]
struct Case_onnx_pad_0128;

#[test]
fn onnx_pad_0128() {
    check_case("onnx_pad_0128", &Case_onnx_pad_0128);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.pad", version = 18, axes = [-4, 3], constant_value = 31750, dtype = "i16", input = [2, 2, 3, 4], pads = [0, 1, 2, 1], mode = "constant")]
struct Case_onnx_pad_0129;

#[test]
fn onnx_pad_0129() {
    check_case("onnx_pad_0129", &Case_onnx_pad_0129);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [0, 3], dtype = "f64", input = [5, 5, 5, 2], ends = [-6, 2], starts = [4, -5], steps = [2, -2])]
struct Case_onnx_slice_0000;

#[test]
fn onnx_slice_0000() {
    check_case("onnx_slice_0000", &Case_onnx_slice_0000);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [-1], dtype = "f64", input = [5], ends = [6], starts = [-3], steps = [3])]
struct Case_onnx_slice_0001;

#[test]
fn onnx_slice_0001() {
    check_case("onnx_slice_0001", &Case_onnx_slice_0001);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [1, 2], dtype = "i64", input = [6, 3, 5], ends = [-9223372036854775808, -5], starts = [-9223372036854775808, -9223372036854775808], steps = [-3, -2])]
struct Case_onnx_slice_0002;

#[test]
fn onnx_slice_0002() {
    check_case("onnx_slice_0002", &Case_onnx_slice_0002);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 1, dtype = "i16", input = [6, 4, 6, 1], axes = [0, 1, 3], ends = [-9, -3, -2], starts = [2, 0, 1000])]
struct Case_onnx_slice_0003;

#[test]
fn onnx_slice_0003() {
    check_case("onnx_slice_0003", &Case_onnx_slice_0003);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 1, dtype = "bool", input = [3, 4, 1], axes = [0, 1, 2], ends = [-2147483648, -2, 0], starts = [4, -9223372036854775808, -2147483648])]
struct Case_onnx_slice_0004;

#[test]
fn onnx_slice_0004() {
    check_case("onnx_slice_0004", &Case_onnx_slice_0004);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [0, 1, 2, 3], dtype = "u8", input = [2, 1, 6, 2], ends = [-5, -1, 6, -5], starts = [-5, -3, -8, -2], steps = [-1, 1, 3, -1])]
struct Case_onnx_slice_0005;

#[test]
fn onnx_slice_0005() {
    check_case("onnx_slice_0005", &Case_onnx_slice_0005);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [1], dtype = "f32", input = [6, 1, 4, 6], ends = [3], starts = [-4], steps = [-2])]
struct Case_onnx_slice_0006;

#[test]
fn onnx_slice_0006() {
    check_case("onnx_slice_0006", &Case_onnx_slice_0006);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 10, axes = [0], dtype = "u8", input = [3], ends = [2], starts = [5], steps = [-2])]
struct Case_onnx_slice_0007;

#[test]
fn onnx_slice_0007() {
    check_case("onnx_slice_0007", &Case_onnx_slice_0007);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [0], dtype = "f64", input = [1], ends = [-4], starts = [-2], steps = [3])]
struct Case_onnx_slice_0008;

#[test]
fn onnx_slice_0008() {
    check_case("onnx_slice_0008", &Case_onnx_slice_0008);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [0, 1], dtype = "i64", input = [3, 5], ends = [4, -5], starts = [-3, 2], steps = [3, 2])]
struct Case_onnx_slice_0009;

#[test]
fn onnx_slice_0009() {
    check_case("onnx_slice_0009", &Case_onnx_slice_0009);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [1], dtype = "bool", input = [1, 4], ends = [-4], starts = [9223372036854775807], steps = [-2])]
struct Case_onnx_slice_0010;

#[test]
fn onnx_slice_0010() {
    check_case("onnx_slice_0010", &Case_onnx_slice_0010);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 1, dtype = "f32", input = [3, 1], axes = [0, 1], ends = [6, 2], starts = [9223372036854775807, 4])]
struct Case_onnx_slice_0011;

#[test]
fn onnx_slice_0011() {
    check_case("onnx_slice_0011", &Case_onnx_slice_0011);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 1, dtype = "i16", input = [1, 2, 5, 4], axes = [3, 2], ends = [1, 0], starts = [-7, 1])]
struct Case_onnx_slice_0012;

#[test]
fn onnx_slice_0012() {
    check_case("onnx_slice_0012", &Case_onnx_slice_0012);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [0, 1], dtype = "i16", input = [6, 3], ends = [-6, -3], starts = [5, -5], steps = [-3, -3])]
struct Case_onnx_slice_0013;

#[test]
fn onnx_slice_0013() {
    check_case("onnx_slice_0013", &Case_onnx_slice_0013);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [0], dtype = "u32", input = [3], ends = [3], starts = [-5], steps = [-2])]
struct Case_onnx_slice_0014;

#[test]
fn onnx_slice_0014() {
    check_case("onnx_slice_0014", &Case_onnx_slice_0014);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 10, axes = [2, 0], dtype = "f16", input = [5, 1, 5], ends = [1, 5], starts = [-9223372036854775808, -6], steps = [1, -2])]
struct Case_onnx_slice_0015;

#[test]
fn onnx_slice_0015() {
    check_case("onnx_slice_0015", &Case_onnx_slice_0015);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 10, axes = [0], dtype = "i16", input = [3, 3, 5], ends = [-3], starts = [-3], steps = [-3])]
struct Case_onnx_slice_0016;

#[test]
fn onnx_slice_0016() {
    check_case("onnx_slice_0016", &Case_onnx_slice_0016);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 10, axes = [0], dtype = "f16", input = [4], ends = [6], starts = [9223372036854775807], steps = [2])]
struct Case_onnx_slice_0017;

#[test]
fn onnx_slice_0017() {
    check_case("onnx_slice_0017", &Case_onnx_slice_0017);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 1, dtype = "i64", input = [4, 5, 0], axes = [0, 2], ends = [-3, -1], starts = [2147483647, -2])]
struct Case_onnx_slice_0018;

#[test]
fn onnx_slice_0018() {
    check_case("onnx_slice_0018", &Case_onnx_slice_0018);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [-2, 1], dtype = "f16", input = [2, 2], ends = [1, 5], starts = [-2, -5], steps = [-3, 2])]
struct Case_onnx_slice_0019;

#[test]
fn onnx_slice_0019() {
    check_case("onnx_slice_0019", &Case_onnx_slice_0019);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 1, dtype = "u32", input = [6], ends = [-1], starts = [-2])]
struct Case_onnx_slice_0020;

#[test]
fn onnx_slice_0020() {
    check_case("onnx_slice_0020", &Case_onnx_slice_0020);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 1, dtype = "i64", input = [5], ends = [-7], starts = [-6])]
struct Case_onnx_slice_0021;

#[test]
fn onnx_slice_0021() {
    check_case("onnx_slice_0021", &Case_onnx_slice_0021);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [1], dtype = "f16", input = [2, 4], ends = [-3], starts = [-1], steps = [2])]
struct Case_onnx_slice_0022;

#[test]
fn onnx_slice_0022() {
    check_case("onnx_slice_0022", &Case_onnx_slice_0022);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, dtype = "u32", input = [6, 1], ends = [-5], starts = [4])]
struct Case_onnx_slice_0023;

#[test]
fn onnx_slice_0023() {
    check_case("onnx_slice_0023", &Case_onnx_slice_0023);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 1, dtype = "i16", input = [2, 5], axes = [1, 0], ends = [-5, 3], starts = [-8, 3])]
struct Case_onnx_slice_0024;

#[test]
fn onnx_slice_0024() {
    check_case("onnx_slice_0024", &Case_onnx_slice_0024);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 10, axes = [1, 0], dtype = "i16", input = [3, 0, 4, 3], ends = [-2, -2], starts = [3, 3], steps = [-2, 1])]
struct Case_onnx_slice_0025;

#[test]
fn onnx_slice_0025() {
    check_case("onnx_slice_0025", &Case_onnx_slice_0025);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [-3, -2, -1, -4], dtype = "u8", input = [5, 2, 6, 1], ends = [-1, 9223372036854775807, -1, -1], starts = [3, 0, -2, -6], steps = [-3, 2, -2, 1])]
struct Case_onnx_slice_0026;

#[test]
fn onnx_slice_0026() {
    check_case("onnx_slice_0026", &Case_onnx_slice_0026);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [0], dtype = "f32", input = [2], ends = [-1], starts = [1], steps = [-2])]
struct Case_onnx_slice_0027;

#[test]
fn onnx_slice_0027() {
    check_case("onnx_slice_0027", &Case_onnx_slice_0027);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [3, 1, 2, 0], dtype = "i64", input = [2, 1, 1, 5], ends = [0, 3, 4, 3], starts = [-8, 1, 1, 4], steps = [-3, -1, 2, 1])]
struct Case_onnx_slice_0028;

#[test]
fn onnx_slice_0028() {
    check_case("onnx_slice_0028", &Case_onnx_slice_0028);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [0], dtype = "i16", input = [5], ends = [8], starts = [7], steps = [-2])]
struct Case_onnx_slice_0029;

#[test]
fn onnx_slice_0029() {
    check_case("onnx_slice_0029", &Case_onnx_slice_0029);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 10, axes = [1], dtype = "bool", input = [4, 6, 2], ends = [-3], starts = [9], steps = [2])]
struct Case_onnx_slice_0030;

#[test]
fn onnx_slice_0030() {
    check_case("onnx_slice_0030", &Case_onnx_slice_0030);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 10, axes = [1], dtype = "i16", input = [1, 2, 6], ends = [-3], starts = [1], steps = [-3])]
struct Case_onnx_slice_0031;

#[test]
fn onnx_slice_0031() {
    check_case("onnx_slice_0031", &Case_onnx_slice_0031);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [-4], dtype = "bool", input = [1, 5, 2, 5], ends = [-2], starts = [-4])]
struct Case_onnx_slice_0032;

#[test]
fn onnx_slice_0032() {
    check_case("onnx_slice_0032", &Case_onnx_slice_0032);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 10, axes = [0], dtype = "i64", input = [5], ends = [-6], starts = [-7], steps = [-1])]
struct Case_onnx_slice_0033;

#[test]
fn onnx_slice_0033() {
    check_case("onnx_slice_0033", &Case_onnx_slice_0033);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 10, axes = [0], dtype = "i64", input = [3], ends = [1], starts = [6], steps = [-2])]
struct Case_onnx_slice_0034;

#[test]
fn onnx_slice_0034() {
    check_case("onnx_slice_0034", &Case_onnx_slice_0034);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 10, axes = [0, 1], dtype = "i16", input = [1, 1], ends = [3, -9223372036854775808], starts = [1, -1000], steps = [1, -3])]
struct Case_onnx_slice_0035;

#[test]
fn onnx_slice_0035() {
    check_case("onnx_slice_0035", &Case_onnx_slice_0035);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 1, dtype = "i64", input = [6, 1, 3], axes = [2], ends = [-3], starts = [-3])]
struct Case_onnx_slice_0036;

#[test]
fn onnx_slice_0036() {
    check_case("onnx_slice_0036", &Case_onnx_slice_0036);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 1, dtype = "f16", input = [5], axes = [0], ends = [1], starts = [-8])]
struct Case_onnx_slice_0037;

#[test]
fn onnx_slice_0037() {
    check_case("onnx_slice_0037", &Case_onnx_slice_0037);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [1, 0], dtype = "i64", input = [1, 4], ends = [1, -3], starts = [5, 2], steps = [-1, -3])]
struct Case_onnx_slice_0038;

#[test]
fn onnx_slice_0038() {
    check_case("onnx_slice_0038", &Case_onnx_slice_0038);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 10, axes = [2], dtype = "f32", input = [6, 2, 4], ends = [1], starts = [-2], steps = [-2])]
struct Case_onnx_slice_0039;

#[test]
fn onnx_slice_0039() {
    check_case("onnx_slice_0039", &Case_onnx_slice_0039);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [1, 0], dtype = "u8", input = [4, 1], ends = [1, -4], starts = [-1, 4], steps = [2, -2])]
struct Case_onnx_slice_dt_005;

#[test]
fn onnx_slice_dt_005() {
    check_case("onnx_slice_dt_005", &Case_onnx_slice_dt_005);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [1, 2, 0], dtype = "u32", input = [4, 4, 1], ends = [4, -1, -6], starts = [5, -2, 3], steps = [-2, 3, -2])]
struct Case_onnx_slice_dt_007;

#[test]
fn onnx_slice_dt_007() {
    check_case("onnx_slice_dt_007", &Case_onnx_slice_dt_007);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [0], dtype = "i32", input = [2], ends = [-4], starts = [0], steps = [-1])]
struct Case_onnx_slice_dt_011;

#[test]
fn onnx_slice_dt_011() {
    check_case("onnx_slice_dt_011", &Case_onnx_slice_dt_011);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [0], dtype = "i64", input = [4], ends = [-1], starts = [1], steps = [2])]
struct Case_onnx_slice_dt_012;

#[test]
fn onnx_slice_dt_012() {
    check_case("onnx_slice_dt_012", &Case_onnx_slice_dt_012);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [1], dtype = "bf16", input = [1, 2], ends = [-4], starts = [-1], steps = [-1])]
struct Case_onnx_slice_dt_014;

#[test]
fn onnx_slice_dt_014() {
    check_case("onnx_slice_dt_014", &Case_onnx_slice_dt_014);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 10, axes = [0], dtype = "f64", input = [4], ends = [-6], starts = [-5], steps = [3])]
struct Case_onnx_slice_dt_016;

#[test]
fn onnx_slice_dt_016() {
    check_case("onnx_slice_dt_016", &Case_onnx_slice_dt_016);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [0], dtype = "c64", input = [3], ends = [-3], starts = [1], steps = [-1])]
struct Case_onnx_slice_dt_017;

#[test]
fn onnx_slice_dt_017() {
    check_case("onnx_slice_dt_017", &Case_onnx_slice_dt_017);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [0], dtype = "u64", input = [3, 1], ends = [-3], starts = [4], steps = [-2])]
struct Case_onnx_slice_dt_021;

#[test]
fn onnx_slice_dt_021() {
    check_case("onnx_slice_dt_021", &Case_onnx_slice_dt_021);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [2], dtype = "i64", input = [4, 3, 1], ends = [-3], starts = [1], steps = [2])]
struct Case_onnx_slice_dt_022;

#[test]
fn onnx_slice_dt_022() {
    check_case("onnx_slice_dt_022", &Case_onnx_slice_dt_022);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [0], dtype = "bf16", input = [4, 2], ends = [3], starts = [-5], steps = [1])]
struct Case_onnx_slice_dt_023;

#[test]
fn onnx_slice_dt_023() {
    check_case("onnx_slice_dt_023", &Case_onnx_slice_dt_023);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 10, axes = [0], dtype = "c128", input = [1, 3, 2], ends = [0], starts = [-3], steps = [3])]
struct Case_onnx_slice_dt_024;

#[test]
fn onnx_slice_dt_024() {
    check_case("onnx_slice_dt_024", &Case_onnx_slice_dt_024);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [1, -2], dtype = "f32", input = [2, 2, 5, 3], ends = [3, 2147483647], starts = [5, -5], steps = [-3, -3])]
struct Case_onnx_slice_edge_000;

#[test]
fn onnx_slice_edge_000() {
    check_case("onnx_slice_edge_000", &Case_onnx_slice_edge_000);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [0, 2], dtype = "i64", input = [3, 4, 2], ends = [8, -2147483648], starts = [-4, 2147483647], steps = [-2, 7])]
struct Case_onnx_slice_edge_001;

#[test]
fn onnx_slice_edge_001() {
    check_case("onnx_slice_edge_001", &Case_onnx_slice_edge_001);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [0], dtype = "bool", input = [2], ends = [2147483647], starts = [0], steps = [2])]
struct Case_onnx_slice_edge_003;

#[test]
fn onnx_slice_edge_003() {
    check_case("onnx_slice_edge_003", &Case_onnx_slice_edge_003);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [-1], dtype = "f32", input = [3], ends = [2147483647], starts = [2], steps = [-1])]
struct Case_onnx_slice_edge_004;

#[test]
fn onnx_slice_edge_004() {
    check_case("onnx_slice_edge_004", &Case_onnx_slice_edge_004);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [1, 2], dtype = "bool", input = [4, 1, 4, 2], ends = [4, -2147483648], starts = [-2147483648, -2147483648], steps = [3, 2])]
struct Case_onnx_slice_edge_007;

#[test]
fn onnx_slice_edge_007() {
    check_case("onnx_slice_edge_007", &Case_onnx_slice_edge_007);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [3, 1, -2, 0], dtype = "f32", input = [5, 1, 1, 2], ends = [-2147483648, -7, 8, -5], starts = [-5, 6, 8, 7], steps = [-1, 3, 1, 3])]
struct Case_onnx_slice_edge_008;

#[test]
fn onnx_slice_edge_008() {
    check_case("onnx_slice_edge_008", &Case_onnx_slice_edge_008);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [-2, 1], dtype = "u8", input = [1, 1], ends = [-2147483648, -2147483648], starts = [2147483647, -2147483648], steps = [-3, 1])]
struct Case_onnx_slice_edge_010;

#[test]
fn onnx_slice_edge_010() {
    check_case("onnx_slice_edge_010", &Case_onnx_slice_edge_010);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [1, 0, -2, 3], dtype = "bool", input = [1, 4, 3, 1], ends = [-4, -2147483648, -3, 2147483647], starts = [-8, -4, 2147483647, 1], steps = [-3, -2, 7, 7])]
struct Case_onnx_slice_edge_011;

#[test]
fn onnx_slice_edge_011() {
    check_case("onnx_slice_edge_011", &Case_onnx_slice_edge_011);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 11, axes = [0], dtype = "f32", input = [4], ends = [-8], starts = [-2147483648], steps = [-1])]
struct Case_onnx_slice_edge_012;

#[test]
fn onnx_slice_edge_012() {
    check_case("onnx_slice_edge_012", &Case_onnx_slice_edge_012);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "onnx.slice", version = 13, axes = [1], dtype = "i64", input = [5, 1], ends = [-8], starts = [3], steps = [7])]
struct Case_onnx_slice_edge_013;

#[test]
fn onnx_slice_edge_013() {
    check_case("onnx_slice_edge_013", &Case_onnx_slice_edge_013);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "i16", input = [1, 4], pad_value = -32768, pads_begin = [-1, -1], pads_end = [0, 7], pad_mode = "constant")]
struct Case_ov_pad_0002;

#[test]
fn ov_pad_0002() {
    check_case("ov_pad_0002", &Case_ov_pad_0002);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "f64", input = [4], pads_begin = [4], pads_end = [2], pad_mode = "edge")]
struct Case_ov_pad_0003;

#[test]
fn ov_pad_0003() {
    check_case("ov_pad_0003", &Case_ov_pad_0003);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "bool", input = [5], pads_begin = [4], pads_end = [3], pad_mode = "edge")]
struct Case_ov_pad_0005;

#[test]
fn ov_pad_0005() {
    check_case("ov_pad_0005", &Case_ov_pad_0005);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "f16", input = [1, 3, 3, 1], pads_begin = [0, 2, 0, 0], pads_end = [-1, 0, 2, 0], pad_mode = "reflect")]
struct Case_ov_pad_0007;

#[test]
fn ov_pad_0007() {
    check_case("ov_pad_0007", &Case_ov_pad_0007);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "u8", input = [2], pads_begin = [1], pads_end = [0], pad_mode = "edge")]
struct Case_ov_pad_0011;

#[test]
fn ov_pad_0011() {
    check_case("ov_pad_0011", &Case_ov_pad_0011);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "i16", input = [1, 4, 4, 3], pads_begin = [0, 2, 0, 0], pads_end = [0, 0, 1, 3], pad_mode = "symmetric")]
struct Case_ov_pad_0012;

#[test]
fn ov_pad_0012() {
    check_case("ov_pad_0012", &Case_ov_pad_0012);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "u16", input = [3, 3, 4, 3], pads_begin = [0, 1, 2, 0], pads_end = [0, 1, 1, 0], pad_mode = "symmetric")]
struct Case_ov_pad_0014;

#[test]
fn ov_pad_0014() {
    check_case("ov_pad_0014", &Case_ov_pad_0014);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "u32", input = [4], pads_begin = [2], pads_end = [0], pad_mode = "symmetric")]
struct Case_ov_pad_0015;

#[test]
fn ov_pad_0015() {
    check_case("ov_pad_0015", &Case_ov_pad_0015);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "i16", input = [3, 3, 2, 1, 1], pads_begin = [3, 1, 1, 0, 1], pads_end = [0, 6, 2, 2, 1], pad_mode = "edge")]
struct Case_ov_pad_0016;

#[test]
fn ov_pad_0016() {
    check_case("ov_pad_0016", &Case_ov_pad_0016);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "u8", input = [1, 3, 3, 1], pad_value = 1, pads_begin = [4, 3, 0, 1], pads_end = [0, 2, 2, 3], pad_mode = "constant")]
struct Case_ov_pad_0017;

#[test]
fn ov_pad_0017() {
    check_case("ov_pad_0017", &Case_ov_pad_0017);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "f16", input = [1, 2, 1], pads_begin = [2, 5, 1], pads_end = [1, 5, 4], pad_mode = "edge")]
struct Case_ov_pad_0019;

#[test]
fn ov_pad_0019() {
    check_case("ov_pad_0019", &Case_ov_pad_0019);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "i32", input = [1, 2, 3], pads_begin = [0, 0, 1], pads_end = [1, 2, 1], pad_mode = "symmetric")]
struct Case_ov_pad_0021;

#[test]
fn ov_pad_0021() {
    check_case("ov_pad_0021", &Case_ov_pad_0021);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "u64", input = [1, 1, 4, 4], pads_begin = [0, 1, 2, 2], pads_end = [1, 0, 1, 0], pad_mode = "symmetric")]
struct Case_ov_pad_0023;

#[test]
fn ov_pad_0023() {
    check_case("ov_pad_0023", &Case_ov_pad_0023);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "f32", input = [5, 5], pads_begin = [3, 5], pads_end = [5, 4], pad_mode = "symmetric")]
struct Case_ov_pad_0025;

#[test]
fn ov_pad_0025() {
    check_case("ov_pad_0025", &Case_ov_pad_0025);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "u8", input = [1, 2], pads_begin = [0, 0], pads_end = [0, 1], pad_mode = "reflect")]
struct Case_ov_pad_0027;

#[test]
fn ov_pad_0027() {
    check_case("ov_pad_0027", &Case_ov_pad_0027);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "bf16", input = [3, 1, 2, 4, 3], pads_begin = [0, 0, 0, 1, 2], pads_end = [0, 0, 0, 2, 0], pad_mode = "reflect")]
struct Case_ov_pad_0031;

#[test]
fn ov_pad_0031() {
    check_case("ov_pad_0031", &Case_ov_pad_0031);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "bool", input = [4, 4], pads_begin = [4, 3], pads_end = [4, 2], pad_mode = "symmetric")]
struct Case_ov_pad_0032;

#[test]
fn ov_pad_0032() {
    check_case("ov_pad_0032", &Case_ov_pad_0032);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "u8", input = [4, 5], pads_begin = [4, -2], pads_end = [0, -2], pad_mode = "symmetric")]
struct Case_ov_pad_0033;

#[test]
fn ov_pad_0033() {
    check_case("ov_pad_0033", &Case_ov_pad_0033);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "bf16", input = [3, 3, 1], pads_begin = [3, 3, 1], pads_end = [2, 2, 1], pad_mode = "symmetric")]
struct Case_ov_pad_0034;

#[test]
fn ov_pad_0034() {
    check_case("ov_pad_0034", &Case_ov_pad_0034);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "i64", input = [2, 1, 3, 4], pads_begin = [1, 1, 0, 4], pads_end = [2, 0, 1, 2], pad_mode = "symmetric")]
struct Case_ov_pad_0035;

#[test]
fn ov_pad_0035() {
    check_case("ov_pad_0035", &Case_ov_pad_0035);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "f16", input = [1, 2, 2, 3], pads_begin = [0, -2, 0, 0], pads_end = [0, 1, 0, 0], pad_mode = "reflect")]
struct Case_ov_pad_0036;

#[test]
fn ov_pad_0036() {
    check_case("ov_pad_0036", &Case_ov_pad_0036);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "i64", input = [4, 2], pads_begin = [0, 0], pads_end = [2, 1], pad_mode = "reflect")]
struct Case_ov_pad_0038;

#[test]
fn ov_pad_0038() {
    check_case("ov_pad_0038", &Case_ov_pad_0038);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "u8", input = [4, 0, 1], pads_begin = [2, 0, 1], pads_end = [2, 0, 1], pad_mode = "symmetric")]
struct Case_ov_pad_0040;

#[test]
fn ov_pad_0040() {
    check_case("ov_pad_0040", &Case_ov_pad_0040);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "u64", input = [1, 3, 1, 3, 4], pads_begin = [0, 3, 1, 2, 2], pads_end = [1, 3, 1, 1, 1], pad_mode = "symmetric")]
struct Case_ov_pad_0041;

#[test]
fn ov_pad_0041() {
    check_case("ov_pad_0041", &Case_ov_pad_0041);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "u64", input = [3, 1, 1, 4], pad_value = 9223372036854775807, pads_begin = [5, 3, 0, 1], pads_end = [0, 3, 1, 0], pad_mode = "constant")]
struct Case_ov_pad_0042;

#[test]
fn ov_pad_0042() {
    check_case("ov_pad_0042", &Case_ov_pad_0042);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "u16", input = [1], pads_begin = [0], pads_end = [0], pad_mode = "reflect")]
struct Case_ov_pad_0044;

#[test]
fn ov_pad_0044() {
    check_case("ov_pad_0044", &Case_ov_pad_0044);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "u16", input = [3, 1, 3, 1], pads_begin = [2, 0, -2, 0], pads_end = [1, 0, 1, 0], pad_mode = "reflect")]
struct Case_ov_pad_0045;

#[test]
fn ov_pad_0045() {
    check_case("ov_pad_0045", &Case_ov_pad_0045);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "f32", input = [2, 1, 4], pads_begin = [0, 0, 0], pads_end = [1, 0, 1], pad_mode = "symmetric")]
struct Case_ov_pad_0049;

#[test]
fn ov_pad_0049() {
    check_case("ov_pad_0049", &Case_ov_pad_0049);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "f64", input = [1, 4, 4, 3], pads_begin = [0, 2, -3, 1], pads_end = [0, 0, -1, 2], pad_mode = "reflect")]
struct Case_ov_pad_0054;

#[test]
fn ov_pad_0054() {
    check_case("ov_pad_0054", &Case_ov_pad_0054);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "bool", input = [3, 1], pads_begin = [0, 4], pads_end = [-1, 4], pad_mode = "edge")]
struct Case_ov_pad_0055;

#[test]
fn ov_pad_0055() {
    check_case("ov_pad_0055", &Case_ov_pad_0055);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "i64", input = [5, 5, 1], pads_begin = [2, 5, 0], pads_end = [4, 1, 0], pad_mode = "symmetric")]
struct Case_ov_pad_0057;

#[test]
fn ov_pad_0057() {
    check_case("ov_pad_0057", &Case_ov_pad_0057);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "f64", input = [4], pad_value = 1.5, pads_begin = [5], pads_end = [3], pad_mode = "constant")]
struct Case_ov_pad_0059;

#[test]
fn ov_pad_0059() {
    check_case("ov_pad_0059", &Case_ov_pad_0059);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "i32", input = [1, 3, 1, 1], pads_begin = [0, 1, 0, 0], pads_end = [0, 1, 0, 0], pad_mode = "reflect")]
struct Case_ov_pad_0062;

#[test]
fn ov_pad_0062() {
    check_case("ov_pad_0062", &Case_ov_pad_0062);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "f64", input = [2], pads_begin = [2], pads_end = [1], pad_mode = "symmetric")]
struct Case_ov_pad_0063;

#[test]
fn ov_pad_0063() {
    check_case("ov_pad_0063", &Case_ov_pad_0063);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "f16", input = [1], pads_begin = [1], pads_end = [0], pad_mode = "symmetric")]
struct Case_ov_pad_0066;

#[test]
fn ov_pad_0066() {
    check_case("ov_pad_0066", &Case_ov_pad_0066);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "u16", input = [1, 2, 2, 3, 4], pads_begin = [1, 2, 2, -3, 4], pads_end = [1, 1, 1, 0, -2], pad_mode = "symmetric")]
struct Case_ov_pad_0067;

#[test]
fn ov_pad_0067() {
    check_case("ov_pad_0067", &Case_ov_pad_0067);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "u64", input = [2], pad_value = 0, pads_begin = [2], pads_end = [-1], pad_mode = "constant")]
struct Case_ov_pad_0070;

#[test]
fn ov_pad_0070() {
    check_case("ov_pad_0070", &Case_ov_pad_0070);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "u32", input = [4, 1], pads_begin = [0, 0], pads_end = [2, -1], pad_mode = "reflect")]
struct Case_ov_pad_0071;

#[test]
fn ov_pad_0071() {
    check_case("ov_pad_0071", &Case_ov_pad_0071);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "i64", input = [1, 2, 1, 1, 1], pads_begin = [0, 0, -1, 0, 0], pads_end = [0, 0, 0, 0, 0], pad_mode = "reflect")]
struct Case_ov_pad_0072;

#[test]
fn ov_pad_0072() {
    check_case("ov_pad_0072", &Case_ov_pad_0072);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "u8", input = [2], pad_value = 211, pads_begin = [2], pads_end = [2], pad_mode = "constant")]
struct Case_ov_pad_0073;

#[test]
fn ov_pad_0073() {
    check_case("ov_pad_0073", &Case_ov_pad_0073);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "u16", input = [1, 1, 5], pads_begin = [0, 4, 1], pads_end = [3, 3, -2], pad_mode = "edge")]
struct Case_ov_pad_0076;

#[test]
fn ov_pad_0076() {
    check_case("ov_pad_0076", &Case_ov_pad_0076);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "i16", input = [5, 2, 5], pads_begin = [-3, 0, -3], pads_end = [1, 0, 2], pad_mode = "reflect")]
struct Case_ov_pad_0080;

#[test]
fn ov_pad_0080() {
    check_case("ov_pad_0080", &Case_ov_pad_0080);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "f16", input = [1, 1, 3, 1], pads_begin = [0, 0, 0, 0], pads_end = [0, 0, -1, 0], pad_mode = "reflect")]
struct Case_ov_pad_0083;

#[test]
fn ov_pad_0083() {
    check_case("ov_pad_0083", &Case_ov_pad_0083);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [0], dtype = "i16", input = [3], start = [5], step = [1], stop = [1])]
struct Case_ov_slice8_0001;

#[test]
fn ov_slice8_0001() {
    check_case("ov_slice8_0001", &Case_ov_slice8_0001);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", dtype = "f32", input = [2, 1], start = [2147483647], step = [-1], stop = [4])]
struct Case_ov_slice8_0002;

#[test]
fn ov_slice8_0002() {
    check_case("ov_slice8_0002", &Case_ov_slice8_0002);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [2, -2, 0], dtype = "u8", input = [1, 5, 4], start = [1000, 0, 1], step = [1, 2, 1], stop = [5, 1, 1])]
struct Case_ov_slice8_0004;

#[test]
fn ov_slice8_0004() {
    check_case("ov_slice8_0004", &Case_ov_slice8_0004);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [-2, -1], dtype = "f32", input = [5, 4], start = [-1000, 1], step = [2, 1], stop = [-2, -5])]
struct Case_ov_slice8_0005;

#[test]
fn ov_slice8_0005() {
    check_case("ov_slice8_0005", &Case_ov_slice8_0005);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [0], dtype = "f64", input = [2], start = [0], step = [2], stop = [-9223372036854775808])]
struct Case_ov_slice8_0006;

#[test]
fn ov_slice8_0006() {
    check_case("ov_slice8_0006", &Case_ov_slice8_0006);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [0], dtype = "i64", input = [6], start = [5], step = [-3], stop = [-5])]
struct Case_ov_slice8_0010;

#[test]
fn ov_slice8_0010() {
    check_case("ov_slice8_0010", &Case_ov_slice8_0010);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [-1], dtype = "bool", input = [4], start = [6], step = [1], stop = [9223372036854775807])]
struct Case_ov_slice8_0011;

#[test]
fn ov_slice8_0011() {
    check_case("ov_slice8_0011", &Case_ov_slice8_0011);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [-1], dtype = "i16", input = [6], start = [5], step = [1], stop = [3])]
struct Case_ov_slice8_0015;

#[test]
fn ov_slice8_0015() {
    check_case("ov_slice8_0015", &Case_ov_slice8_0015);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [0], dtype = "u32", input = [6], start = [-1], step = [2], stop = [2])]
struct Case_ov_slice8_0016;

#[test]
fn ov_slice8_0016() {
    check_case("ov_slice8_0016", &Case_ov_slice8_0016);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [-1, 0], dtype = "bool", input = [2, 3], start = [2147483647, 5], step = [2, 2], stop = [-4, 2147483647])]
struct Case_ov_slice8_0019;

#[test]
fn ov_slice8_0019() {
    check_case("ov_slice8_0019", &Case_ov_slice8_0019);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [-1], dtype = "i8", input = [3], start = [3], step = [1], stop = [-2])]
struct Case_ov_slice8_0020;

#[test]
fn ov_slice8_0020() {
    check_case("ov_slice8_0020", &Case_ov_slice8_0020);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [-1], dtype = "i8", input = [2], start = [-1000], step = [3], stop = [3])]
struct Case_ov_slice8_0021;

#[test]
fn ov_slice8_0021() {
    check_case("ov_slice8_0021", &Case_ov_slice8_0021);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", dtype = "f32", input = [2], start = [5], step = [-3], stop = [-3])]
struct Case_ov_slice8_0026;

#[test]
fn ov_slice8_0026() {
    check_case("ov_slice8_0026", &Case_ov_slice8_0026);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", dtype = "bf16", input = [5, 2, 4], start = [-7], step = [-1], stop = [6])]
struct Case_ov_slice8_0029;

#[test]
fn ov_slice8_0029() {
    check_case("ov_slice8_0029", &Case_ov_slice8_0029);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [-3, -2, -4, -1], dtype = "f64", input = [4, 1, 6, 3], start = [-4, -6, 5, -6], step = [-1, -9223372036854775808, 3, -2], stop = [1000, 2, -5, 2])]
struct Case_ov_slice8_0032;

#[test]
fn ov_slice8_0032() {
    check_case("ov_slice8_0032", &Case_ov_slice8_0032);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [0, 1], dtype = "bf16", input = [6, 2], start = [1000, 1], step = [-3, 1], stop = [-2147483648, -2])]
struct Case_ov_slice8_0038;

#[test]
fn ov_slice8_0038() {
    check_case("ov_slice8_0038", &Case_ov_slice8_0038);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", dtype = "bf16", input = [3, 1, 6], start = [0, 2, 4], step = [-3, 3, -3], stop = [6, -1, 0])]
struct Case_ov_slice8_0046;

#[test]
fn ov_slice8_0046() {
    check_case("ov_slice8_0046", &Case_ov_slice8_0046);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [0], dtype = "bf16", input = [3, 5, 4], start = [2], step = [1], stop = [5])]
struct Case_ov_slice8_0047;

#[test]
fn ov_slice8_0047() {
    check_case("ov_slice8_0047", &Case_ov_slice8_0047);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [-1], dtype = "f64", input = [5], start = [1], step = [-3], stop = [3])]
struct Case_ov_slice8_0049;

#[test]
fn ov_slice8_0049() {
    check_case("ov_slice8_0049", &Case_ov_slice8_0049);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [1, 2, 0], dtype = "bf16", input = [2, 3, 5], start = [4, -2, -2147483648], step = [1, -1, -3], stop = [1, -4, 2])]
struct Case_ov_slice8_0051;

#[test]
fn ov_slice8_0051() {
    check_case("ov_slice8_0051", &Case_ov_slice8_0051);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", dtype = "u64", input = [4, 4, 5], start = [-1], step = [1], stop = [2])]
struct Case_ov_slice8_0052;

#[test]
fn ov_slice8_0052() {
    check_case("ov_slice8_0052", &Case_ov_slice8_0052);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [-1], dtype = "i64", input = [4, 2], start = [-4], step = [3], stop = [5])]
struct Case_ov_slice8_0054;

#[test]
fn ov_slice8_0054() {
    check_case("ov_slice8_0054", &Case_ov_slice8_0054);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", dtype = "f32", input = [6], start = [-2], step = [3], stop = [4])]
struct Case_ov_slice8_0055;

#[test]
fn ov_slice8_0055() {
    check_case("ov_slice8_0055", &Case_ov_slice8_0055);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [-1], dtype = "i64", input = [5], start = [-9223372036854775808], step = [-1], stop = [-7])]
struct Case_ov_slice8_0057;

#[test]
fn ov_slice8_0057() {
    check_case("ov_slice8_0057", &Case_ov_slice8_0057);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [-2], dtype = "f16", input = [1, 1], start = [-2], step = [-1], stop = [-2147483648])]
struct Case_ov_slice8_0058;

#[test]
fn ov_slice8_0058() {
    check_case("ov_slice8_0058", &Case_ov_slice8_0058);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", dtype = "u64", input = [2], start = [1000], step = [-1], stop = [1])]
struct Case_ov_slice8_0059;

#[test]
fn ov_slice8_0059() {
    check_case("ov_slice8_0059", &Case_ov_slice8_0059);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [0], dtype = "i32", input = [2, 1], start = [-5], step = [3], stop = [1])]
struct Case_ov_slice8_0060;

#[test]
fn ov_slice8_0060() {
    check_case("ov_slice8_0060", &Case_ov_slice8_0060);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [-1], dtype = "u64", input = [2], start = [0], step = [7], stop = [1000])]
struct Case_ov_slice8_0061;

#[test]
fn ov_slice8_0061() {
    check_case("ov_slice8_0061", &Case_ov_slice8_0061);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [1, -1], dtype = "i8", input = [2, 2, 6], start = [0, -8], step = [-3, -3], stop = [4, 2])]
struct Case_ov_slice8_0063;

#[test]
fn ov_slice8_0063() {
    check_case("ov_slice8_0063", &Case_ov_slice8_0063);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [-4, 3, -3, -2], dtype = "f64", input = [5, 4, 6, 5], start = [-2147483648, 5, -2, 2], step = [-1, -3, -3, 2], stop = [1000, 2, -7, 7])]
struct Case_ov_slice8_0065;

#[test]
fn ov_slice8_0065() {
    check_case("ov_slice8_0065", &Case_ov_slice8_0065);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", axes = [-1], dtype = "i64", input = [1, 3, 5], start = [3], step = [1], stop = [-2147483648])]
struct Case_ov_slice8_0068;

#[test]
fn ov_slice8_0068() {
    check_case("ov_slice8_0068", &Case_ov_slice8_0068);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.slice", dtype = "bool", input = [1, 2, 6, 4], start = [-3, -9223372036854775808, -8], step = [-1, -1, 1], stop = [-9223372036854775808, -2, -3])]
struct Case_ov_slice8_0069;

#[test]
fn ov_slice8_0069() {
    check_case("ov_slice8_0069", &Case_ov_slice8_0069);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [5], dtype = "i32", input = [2], end = [-1], stride = [1], begin_mask = [0], ellipsis_mask = [0], end_mask = [0], new_axis_mask = [1], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0000;

#[test]
fn ov_strided_slice_0000() {
    check_case("ov_strided_slice_0000", &Case_ov_strided_slice_0000);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [1, 5, 5, 0], dtype = "f32", input = [4, 5, 3, 2], end = [6, -2, -2, 2], stride = [3, -2, 3, 1], begin_mask = [0, 0, 0, 1], ellipsis_mask = [0, 0, 0, 0], end_mask = [0, 1, 0, 0], new_axis_mask = [], shrink_axis_mask = [1, 0, 0, 1])]
struct Case_ov_strided_slice_0001;

#[test]
fn ov_strided_slice_0001() {
    check_case("ov_strided_slice_0001", &Case_ov_strided_slice_0001);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-1, 0], dtype = "u8", input = [4, 4], end = [5, 7], stride = [2, 2], begin_mask = [0, 0], ellipsis_mask = [0, 0], end_mask = [0, 1], new_axis_mask = [], shrink_axis_mask = [0, 1])]
struct Case_ov_strided_slice_0002;

#[test]
fn ov_strided_slice_0002() {
    check_case("ov_strided_slice_0002", &Case_ov_strided_slice_0002);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [1, 5, -3], dtype = "i32", input = [5, 1, 1], end = [-6, -4, -7], stride = [1, 3, 1], begin_mask = [0, 1, 1], ellipsis_mask = [0, 0, 0], end_mask = [1, 0, 0], new_axis_mask = [], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0003;

#[test]
fn ov_strided_slice_0003() {
    check_case("ov_strided_slice_0003", &Case_ov_strided_slice_0003);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [3, 2], dtype = "bool", input = [4, 5, 3], end = [0, -5], stride = [-1, 1], begin_mask = [1, 0], ellipsis_mask = [0, 0], end_mask = [0, 1], new_axis_mask = [], shrink_axis_mask = [0, 0])]
struct Case_ov_strided_slice_0004;

#[test]
fn ov_strided_slice_0004() {
    check_case("ov_strided_slice_0004", &Case_ov_strided_slice_0004);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-5], dtype = "u8", input = [4, 3, 1, 2], end = [5], stride = [-1], begin_mask = [0], ellipsis_mask = [0], end_mask = [1], new_axis_mask = [], shrink_axis_mask = [0])]
struct Case_ov_strided_slice_0005;

#[test]
fn ov_strided_slice_0005() {
    check_case("ov_strided_slice_0005", &Case_ov_strided_slice_0005);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [7], dtype = "i64", input = [5, 3, 2], end = [5], stride = [-2], begin_mask = [1], ellipsis_mask = [0], end_mask = [1], new_axis_mask = [], shrink_axis_mask = [0])]
struct Case_ov_strided_slice_0006;

#[test]
fn ov_strided_slice_0006() {
    check_case("ov_strided_slice_0006", &Case_ov_strided_slice_0006);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-3, -7], dtype = "i32", input = [5, 4], end = [-7, 6], stride = [-2, -1], begin_mask = [0, 1], ellipsis_mask = [0, 0], end_mask = [0, 0], new_axis_mask = [], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0007;

#[test]
fn ov_strided_slice_0007() {
    check_case("ov_strided_slice_0007", &Case_ov_strided_slice_0007);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [3, 0, -2], dtype = "u8", input = [3, 1, 4], end = [6, 1, -4], stride = [-2, 1, 3], begin_mask = [0, 1, 0], ellipsis_mask = [0, 0, 0], end_mask = [0, 0, 0], new_axis_mask = [0, 0, 0], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0008;

#[test]
fn ov_strided_slice_0008() {
    check_case("ov_strided_slice_0008", &Case_ov_strided_slice_0008);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-6, 5], dtype = "i32", input = [5], end = [-2, -1], stride = [-2, 1], begin_mask = [0, 1], ellipsis_mask = [0, 0], end_mask = [0, 1], new_axis_mask = [1, 0], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0009;

#[test]
fn ov_strided_slice_0009() {
    check_case("ov_strided_slice_0009", &Case_ov_strided_slice_0009);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-1, -2, -6], dtype = "f16", input = [1, 2], end = [-7, -7, -1], stride = [2, 2, 1], begin_mask = [0, 1, 0], ellipsis_mask = [0, 0, 0], end_mask = [0, 0, 0], new_axis_mask = [0, 1, 0], shrink_axis_mask = [1, 0, 0])]
struct Case_ov_strided_slice_0010;

#[test]
fn ov_strided_slice_0010() {
    check_case("ov_strided_slice_0010", &Case_ov_strided_slice_0010);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [2, -7], dtype = "i32", input = [3, 5], end = [6, -3], stride = [2, -1], begin_mask = [1, 1], ellipsis_mask = [0, 0], end_mask = [0, 0], new_axis_mask = [], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0011;

#[test]
fn ov_strided_slice_0011() {
    check_case("ov_strided_slice_0011", &Case_ov_strided_slice_0011);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [4, -6], dtype = "f16", input = [5], end = [6, -4], stride = [-2, 1], begin_mask = [0, 1], ellipsis_mask = [1, 0], end_mask = [1, 0], new_axis_mask = [0, 0], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0012;

#[test]
fn ov_strided_slice_0012() {
    check_case("ov_strided_slice_0012", &Case_ov_strided_slice_0012);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-2], dtype = "f16", input = [5, 5], end = [-2], stride = [1], begin_mask = [1], ellipsis_mask = [0], end_mask = [0], new_axis_mask = [1], shrink_axis_mask = [0])]
struct Case_ov_strided_slice_0013;

#[test]
fn ov_strided_slice_0013() {
    check_case("ov_strided_slice_0013", &Case_ov_strided_slice_0013);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [5, 7], dtype = "f16", input = [5, 5, 1, 5], end = [-1, 4], stride = [1, 1], begin_mask = [1, 0], ellipsis_mask = [0, 0], end_mask = [1, 1], new_axis_mask = [], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0014;

#[test]
fn ov_strided_slice_0014() {
    check_case("ov_strided_slice_0014", &Case_ov_strided_slice_0014);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-1], dtype = "i64", input = [5, 1], end = [-6], stride = [3], begin_mask = [1], ellipsis_mask = [0], end_mask = [0], new_axis_mask = [0], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0015;

#[test]
fn ov_strided_slice_0015() {
    check_case("ov_strided_slice_0015", &Case_ov_strided_slice_0015);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-1, -7], dtype = "bool", input = [1, 5], end = [-1, 1], stride = [1, -2], begin_mask = [0, 0], ellipsis_mask = [0, 0], end_mask = [0, 1], new_axis_mask = [0, 0], shrink_axis_mask = [1, 0])]
struct Case_ov_strided_slice_0016;

#[test]
fn ov_strided_slice_0016() {
    check_case("ov_strided_slice_0016", &Case_ov_strided_slice_0016);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-6, -5, 7, -1], dtype = "u8", input = [4, 5, 2, 1], end = [-4, 6, -5, -2], stride = [3, 1, 1, 3], begin_mask = [0, 0, 1, 0], ellipsis_mask = [0, 0, 0, 0], end_mask = [0, 0, 0, 1], new_axis_mask = [], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0017;

#[test]
fn ov_strided_slice_0017() {
    check_case("ov_strided_slice_0017", &Case_ov_strided_slice_0017);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-5], dtype = "u8", input = [2], end = [-3], stride = [-2], begin_mask = [1], ellipsis_mask = [0], end_mask = [1], new_axis_mask = [0], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0018;

#[test]
fn ov_strided_slice_0018() {
    check_case("ov_strided_slice_0018", &Case_ov_strided_slice_0018);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-7], dtype = "f32", input = [1, 1], end = [-7], stride = [1], begin_mask = [0], ellipsis_mask = [1], end_mask = [1], new_axis_mask = [0], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0019;

#[test]
fn ov_strided_slice_0019() {
    check_case("ov_strided_slice_0019", &Case_ov_strided_slice_0019);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-6, 3], dtype = "f16", input = [2], end = [-4, -4], stride = [-1, 2], begin_mask = [0, 0], ellipsis_mask = [1, 0], end_mask = [0, 0], new_axis_mask = [0, 0], shrink_axis_mask = [0, 0])]
struct Case_ov_strided_slice_0020;

#[test]
fn ov_strided_slice_0020() {
    check_case("ov_strided_slice_0020", &Case_ov_strided_slice_0020);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-2, -1], dtype = "f32", input = [5], end = [3, -3], stride = [3, 1], begin_mask = [0, 0], ellipsis_mask = [0, 0], end_mask = [1, 0], new_axis_mask = [0, 1], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0021;

#[test]
fn ov_strided_slice_0021() {
    check_case("ov_strided_slice_0021", &Case_ov_strided_slice_0021);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-4], dtype = "bool", input = [1, 1], end = [0], stride = [-2], begin_mask = [0], ellipsis_mask = [0], end_mask = [0], new_axis_mask = [0], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0022;

#[test]
fn ov_strided_slice_0022() {
    check_case("ov_strided_slice_0022", &Case_ov_strided_slice_0022);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [1], dtype = "i32", input = [2, 5, 5], end = [4], stride = [3], begin_mask = [0], ellipsis_mask = [0], end_mask = [0], new_axis_mask = [], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0023;

#[test]
fn ov_strided_slice_0023() {
    check_case("ov_strided_slice_0023", &Case_ov_strided_slice_0023);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [5, -3], dtype = "i64", input = [3, 5], end = [-5, 6], stride = [1, 2], begin_mask = [0, 1], ellipsis_mask = [0, 0], end_mask = [0, 0], new_axis_mask = [], shrink_axis_mask = [0, 0])]
struct Case_ov_strided_slice_0024;

#[test]
fn ov_strided_slice_0024() {
    check_case("ov_strided_slice_0024", &Case_ov_strided_slice_0024);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-2, -3, 2, -2], dtype = "f32", input = [3, 2, 5], end = [-2, 2, -3, 1], stride = [-1, -2, -2, -2], begin_mask = [0, 1, 0, 0], ellipsis_mask = [0, 0, 0, 0], end_mask = [1, 1, 1, 1], new_axis_mask = [0, 1, 0, 0], shrink_axis_mask = [0, 0, 0, 0])]
struct Case_ov_strided_slice_0025;

#[test]
fn ov_strided_slice_0025() {
    check_case("ov_strided_slice_0025", &Case_ov_strided_slice_0025);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-4, -1], dtype = "i32", input = [1, 2], end = [0, -5], stride = [1, 1], begin_mask = [0, 0], ellipsis_mask = [0, 1], end_mask = [1, 0], new_axis_mask = [], shrink_axis_mask = [0, 0])]
struct Case_ov_strided_slice_0027;

#[test]
fn ov_strided_slice_0027() {
    check_case("ov_strided_slice_0027", &Case_ov_strided_slice_0027);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-5, 2, 6], dtype = "f16", input = [5, 2], end = [-2, -3, 7], stride = [1, 1, 1], begin_mask = [1, 0, 0], ellipsis_mask = [0, 0, 0], end_mask = [0, 0, 0], new_axis_mask = [1, 0, 0], shrink_axis_mask = [0, 0, 0])]
struct Case_ov_strided_slice_0028;

#[test]
fn ov_strided_slice_0028() {
    check_case("ov_strided_slice_0028", &Case_ov_strided_slice_0028);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-7], dtype = "f16", input = [5, 2, 3, 2], end = [-2], stride = [2], begin_mask = [0], ellipsis_mask = [1], end_mask = [1], new_axis_mask = [], shrink_axis_mask = [0])]
struct Case_ov_strided_slice_0029;

#[test]
fn ov_strided_slice_0029() {
    check_case("ov_strided_slice_0029", &Case_ov_strided_slice_0029);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [4], dtype = "u8", input = [3, 5, 1, 4], end = [-5], stride = [3], begin_mask = [0], ellipsis_mask = [0], end_mask = [1], new_axis_mask = [], shrink_axis_mask = [0])]
struct Case_ov_strided_slice_0030;

#[test]
fn ov_strided_slice_0030() {
    check_case("ov_strided_slice_0030", &Case_ov_strided_slice_0030);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [3, 7, 5, -6, 6], dtype = "i64", input = [5, 5, 4, 3], end = [-2, -2, -1, 0, 1], stride = [1, 3, 2, -1, 1], begin_mask = [0, 0, 0, 1, 0], ellipsis_mask = [0, 0, 0, 0, 0], end_mask = [0, 0, 0, 0, 0], new_axis_mask = [0, 0, 0, 0, 1], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0031;

#[test]
fn ov_strided_slice_0031() {
    check_case("ov_strided_slice_0031", &Case_ov_strided_slice_0031);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [5, 1], dtype = "i64", input = [4, 5], end = [-3, 6], stride = [1, -2], begin_mask = [1, 0], ellipsis_mask = [0, 0], end_mask = [0, 0], new_axis_mask = [0, 1], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0032;

#[test]
fn ov_strided_slice_0032() {
    check_case("ov_strided_slice_0032", &Case_ov_strided_slice_0032);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [1, 1, 2, -5, -4], dtype = "u8", input = [1, 3, 5, 3], end = [5, 1, 0, 3, 0], stride = [3, 1, -2, 3, -1], begin_mask = [0, 1, 0, 0, 0], ellipsis_mask = [0, 0, 0, 0, 0], end_mask = [0, 0, 0, 1, 0], new_axis_mask = [1, 0, 0, 0, 0], shrink_axis_mask = [0, 0, 0, 0, 0])]
struct Case_ov_strided_slice_0033;

#[test]
fn ov_strided_slice_0033() {
    check_case("ov_strided_slice_0033", &Case_ov_strided_slice_0033);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-5], dtype = "u8", input = [1, 2, 2], end = [0], stride = [3], begin_mask = [0], ellipsis_mask = [0], end_mask = [1], new_axis_mask = [], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0035;

#[test]
fn ov_strided_slice_0035() {
    check_case("ov_strided_slice_0035", &Case_ov_strided_slice_0035);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [4], dtype = "bool", input = [1, 2, 4], end = [3], stride = [2], begin_mask = [0], ellipsis_mask = [0], end_mask = [0], new_axis_mask = [], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0036;

#[test]
fn ov_strided_slice_0036() {
    check_case("ov_strided_slice_0036", &Case_ov_strided_slice_0036);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [3, -1, 0], dtype = "i64", input = [3, 4, 5], end = [-4, 4, -3], stride = [-2, 1, 2], begin_mask = [1, 0, 0], ellipsis_mask = [0, 0, 0], end_mask = [1, 1, 0], new_axis_mask = [], shrink_axis_mask = [0, 0, 1])]
struct Case_ov_strided_slice_0037;

#[test]
fn ov_strided_slice_0037() {
    check_case("ov_strided_slice_0037", &Case_ov_strided_slice_0037);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-4, 1, -4], dtype = "bool", input = [2, 4], end = [-2, -6, -7], stride = [1, -2, 1], begin_mask = [0, 1, 1], ellipsis_mask = [1, 0, 0], end_mask = [0, 0, 0], new_axis_mask = [], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0038;

#[test]
fn ov_strided_slice_0038() {
    check_case("ov_strided_slice_0038", &Case_ov_strided_slice_0038);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-6], dtype = "f16", input = [4], end = [7], stride = [-2], begin_mask = [0], ellipsis_mask = [1], end_mask = [0], new_axis_mask = [], shrink_axis_mask = [])]
struct Case_ov_strided_slice_0039;

#[test]
fn ov_strided_slice_0039() {
    check_case("ov_strided_slice_0039", &Case_ov_strided_slice_0039);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-3], dtype = "bool", input = [4, 3, 1], end = [5], stride = [2], begin_mask = [0], end_mask = [0], new_axis_mask = [], shrink_axis_mask = [0])]
struct Case_ov_strided_slice_dt_006;

#[test]
fn ov_strided_slice_dt_006() {
    check_case("ov_strided_slice_dt_006", &Case_ov_strided_slice_dt_006);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-4], dtype = "i8", input = [4], end = [1], stride = [1], begin_mask = [1], end_mask = [1], new_axis_mask = [], shrink_axis_mask = [0])]
struct Case_ov_strided_slice_dt_009;

#[test]
fn ov_strided_slice_dt_009() {
    check_case("ov_strided_slice_dt_009", &Case_ov_strided_slice_dt_009);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-1, -2], dtype = "u8", input = [5, 4, 3], end = [2, 4], stride = [-1, 2], begin_mask = [0, 0], end_mask = [0, 0], new_axis_mask = [], shrink_axis_mask = [0, 0])]
struct Case_ov_strided_slice_dt_010;

#[test]
fn ov_strided_slice_dt_010() {
    check_case("ov_strided_slice_dt_010", &Case_ov_strided_slice_dt_010);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [4, -2, 4], dtype = "i16", input = [4, 3, 1], end = [6, -5, 2], stride = [2, -2, -2], begin_mask = [1, 0, 1], end_mask = [1, 0, 0], new_axis_mask = [0, 0, 1], shrink_axis_mask = [0, 1, 0])]
struct Case_ov_strided_slice_dt_011;

#[test]
fn ov_strided_slice_dt_011() {
    check_case("ov_strided_slice_dt_011", &Case_ov_strided_slice_dt_011);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [5], dtype = "u16", input = [5], end = [5], stride = [-1], begin_mask = [1], end_mask = [1], new_axis_mask = [], shrink_axis_mask = [0])]
struct Case_ov_strided_slice_dt_012;

#[test]
fn ov_strided_slice_dt_012() {
    check_case("ov_strided_slice_dt_012", &Case_ov_strided_slice_dt_012);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [5], dtype = "u32", input = [4, 4, 4], end = [-1], stride = [1], begin_mask = [0], end_mask = [0], new_axis_mask = [1], shrink_axis_mask = [0])]
struct Case_ov_strided_slice_dt_014;

#[test]
fn ov_strided_slice_dt_014() {
    check_case("ov_strided_slice_dt_014", &Case_ov_strided_slice_dt_014);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [4, 5], dtype = "i64", input = [2, 1], end = [-5, 4], stride = [-1, -1], begin_mask = [1, 1], end_mask = [0, 1], new_axis_mask = [0, 1], shrink_axis_mask = [0, 0])]
struct Case_ov_strided_slice_dt_015;

#[test]
fn ov_strided_slice_dt_015() {
    check_case("ov_strided_slice_dt_015", &Case_ov_strided_slice_dt_015);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [1], dtype = "f16", input = [4, 5], end = [-5], stride = [1], begin_mask = [1], end_mask = [0], new_axis_mask = [], shrink_axis_mask = [1])]
struct Case_ov_strided_slice_dt_019;

#[test]
fn ov_strided_slice_dt_019() {
    check_case("ov_strided_slice_dt_019", &Case_ov_strided_slice_dt_019);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [0, -1, 6], dtype = "bf16", input = [5, 1, 4], end = [-1, 5, 1], stride = [-2, -2, 3], begin_mask = [0, 1, 0], end_mask = [1, 0, 0], new_axis_mask = [0, 0, 0], shrink_axis_mask = [0, 1, 0])]
struct Case_ov_strided_slice_dt_020;

#[test]
fn ov_strided_slice_dt_020() {
    check_case("ov_strided_slice_dt_020", &Case_ov_strided_slice_dt_020);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-1], dtype = "f64", input = [2], end = [6], stride = [2], begin_mask = [0], end_mask = [0], new_axis_mask = [], shrink_axis_mask = [0])]
struct Case_ov_strided_slice_dt_022;

#[test]
fn ov_strided_slice_dt_022() {
    check_case("ov_strided_slice_dt_022", &Case_ov_strided_slice_dt_022);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-2], dtype = "bool", input = [4, 4], end = [1], stride = [-1], begin_mask = [1], end_mask = [1], new_axis_mask = [], shrink_axis_mask = [0])]
struct Case_ov_strided_slice_dt_025;

#[test]
fn ov_strided_slice_dt_025() {
    check_case("ov_strided_slice_dt_025", &Case_ov_strided_slice_dt_025);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-2], dtype = "u4", input = [2, 4, 3], end = [2], stride = [-1], begin_mask = [0], end_mask = [0], new_axis_mask = [], shrink_axis_mask = [1])]
struct Case_ov_strided_slice_dt_027;

#[test]
fn ov_strided_slice_dt_027() {
    check_case("ov_strided_slice_dt_027", &Case_ov_strided_slice_dt_027);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [1, 2, -1], dtype = "u64", input = [1], end = [0, 0, 3], stride = [-1, 0, 1], begin_mask = [1, 0, 1], ellipsis_mask = [0, 1, 0], end_mask = [0, 0, 0], new_axis_mask = [1, 0, 1])]
struct Case_ov_strided_slice_mask_000;

#[test]
fn ov_strided_slice_mask_000() {
    check_case("ov_strided_slice_mask_000", &Case_ov_strided_slice_mask_000);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-1, -2, -2, -1], dtype = "i32", input = [2, 2, 1], end = [-1, 2, 4, -2], stride = [1, 1, -1, 2], begin_mask = [0, 0, 0, 0], ellipsis_mask = [0, 1, 0, 0], end_mask = [0, 1, 1, 1], new_axis_mask = [], shrink_axis_mask = [1, 0, 1, 0])]
struct Case_ov_strided_slice_mask_001;

#[test]
fn ov_strided_slice_mask_001() {
    check_case("ov_strided_slice_mask_001", &Case_ov_strided_slice_mask_001);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [2], dtype = "f32", input = [2, 3, 1, 4, 3], end = [-2], begin_mask = [1, 0], ellipsis_mask = [0], end_mask = [0, 1, 0], new_axis_mask = [0], shrink_axis_mask = [0])]
struct Case_ov_strided_slice_mask_002;

#[test]
fn ov_strided_slice_mask_002() {
    check_case("ov_strided_slice_mask_002", &Case_ov_strided_slice_mask_002);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [3, 3, 1, 0, -1], dtype = "u64", input = [1, 2, 2, 2, 1], end = [-3, 2, 3, -4, -9223372036854775808], stride = [-2, -2, -1, -1, -1], begin_mask = [1, 0, 0, 0, 0], ellipsis_mask = [0, 0, 0, 0, 0], end_mask = [0, 1, 0, 0, 1], new_axis_mask = [])]
struct Case_ov_strided_slice_mask_003;

#[test]
fn ov_strided_slice_mask_003() {
    check_case("ov_strided_slice_mask_003", &Case_ov_strided_slice_mask_003);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", dtype = "bf16", input = [4, 2, 1, 4], begin = [-3], begin_mask = [0], end = [-2], end_mask = [0], new_axis_mask = [1], shrink_axis_mask = [0], stride = [-1])]
struct Case_ov_strided_slice_mask_005;

#[test]
fn ov_strided_slice_mask_005() {
    check_case("ov_strided_slice_mask_005", &Case_ov_strided_slice_mask_005);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-4, -6], dtype = "f32", input = [1, 3, 3, 3], end = [1, -9223372036854775808], stride = [3, -2], begin_mask = [], ellipsis_mask = [0, 0, 1], end_mask = [0, 1, 0], new_axis_mask = [0, 0, 0, 0], shrink_axis_mask = [0])]
struct Case_ov_strided_slice_mask_008;

#[test]
fn ov_strided_slice_mask_008() {
    check_case("ov_strided_slice_mask_008", &Case_ov_strided_slice_mask_008);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-3, -4, -2147483648], dtype = "i4", input = [3, 1, 3], end = [3, 0, -5], stride = [0, 1, -3], begin_mask = [0, 0, 1], ellipsis_mask = [1, 0, 0], end_mask = [0, 0, 1], new_axis_mask = [0, 0, 0], shrink_axis_mask = [0, 0, 0])]
struct Case_ov_strided_slice_mask_010;

#[test]
fn ov_strided_slice_mask_010() {
    check_case("ov_strided_slice_mask_010", &Case_ov_strided_slice_mask_010);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", dtype = "i4", input = [1, 4], end = [-1], begin = [-1], begin_mask = [1], ellipsis_mask = [0], end_mask = [0], new_axis_mask = [1], stride = [2])]
struct Case_ov_strided_slice_mask_011;

#[test]
fn ov_strided_slice_mask_011() {
    check_case("ov_strided_slice_mask_011", &Case_ov_strided_slice_mask_011);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-1, 0, 3, 5, 2], dtype = "bool", input = [1, 1, 2], end = [0, -1, -3, -3, 2], stride = [0, -1, 0, -1, 1], begin_mask = [0, 1, 1], ellipsis_mask = [0, 0, 1, 0, 0, 1], end_mask = [0, 0, 0, 0], new_axis_mask = [0, 0, 0, 0, 1, 0], shrink_axis_mask = [1, 1, 0, 0, 0])]
struct Case_ov_strided_slice_mask_014;

#[test]
fn ov_strided_slice_mask_014() {
    check_case("ov_strided_slice_mask_014", &Case_ov_strided_slice_mask_014);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-1, 0], dtype = "f16", input = [4], end = [-1, -1], stride = [-1, -3], begin_mask = [1, 1], ellipsis_mask = [0, 0], end_mask = [0, 1], new_axis_mask = [1, 0])]
struct Case_ov_strided_slice_mask_015;

#[test]
fn ov_strided_slice_mask_015() {
    check_case("ov_strided_slice_mask_015", &Case_ov_strided_slice_mask_015);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [3, -2], dtype = "bf16", input = [4, 3, 1, 4], end = [3, 1], stride = [-1, -1], begin_mask = [0, 1], ellipsis_mask = [1, 0], end_mask = [1, 1], new_axis_mask = [0, 1], shrink_axis_mask = [0, 0])]
struct Case_ov_strided_slice_mask_024;

#[test]
fn ov_strided_slice_mask_024() {
    check_case("ov_strided_slice_mask_024", &Case_ov_strided_slice_mask_024);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-2, -1, 1, -6, -1], dtype = "i8", input = [2, 1, 3, 1], end = [1, 0, 2, -3, -1], stride = [-1, 2, 1, 1, 2], begin_mask = [0, 0, 0, 1, 0], ellipsis_mask = [0, 0, 1, 0, 0], end_mask = [1, 0, 1, 1, 0], shrink_axis_mask = [1, 1, 0, 0, 1])]
struct Case_ov_strided_slice_mask_025;

#[test]
fn ov_strided_slice_mask_025() {
    check_case("ov_strided_slice_mask_025", &Case_ov_strided_slice_mask_025);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [5, -3, 5, 4], dtype = "i8", input = [3, 2, 3, 1, 3], end = [-2, -3, -9223372036854775808, 0], stride = [-2, -1, -1, -3], begin_mask = [1, 1, 0, 1], end_mask = [0, 0, 1, 0], new_axis_mask = [0, 0, 0, 0], shrink_axis_mask = [])]
struct Case_ov_strided_slice_mask_027;

#[test]
fn ov_strided_slice_mask_027() {
    check_case("ov_strided_slice_mask_027", &Case_ov_strided_slice_mask_027);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-4, -1, -1], dtype = "bf16", input = [1, 4, 1, 3], end = [2, -1, -4], stride = [-2, 1, 0], begin_mask = [0, 1, 1], end_mask = [0, 0, 0], shrink_axis_mask = [0, 1, 1])]
struct Case_ov_strided_slice_mask_031;

#[test]
fn ov_strided_slice_mask_031() {
    check_case("ov_strided_slice_mask_031", &Case_ov_strided_slice_mask_031);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-1, -4, -2, -1, -1, -3], dtype = "bool", input = [4, 2, 1, 1, 3], end = [-1, -1, 1, -2, -2, 3], stride = [-1, -1, -1, 0, 0, 0], begin_mask = [0, 0, 0, 0, 1, 0], ellipsis_mask = [1, 0, 0, 0, 0, 0], end_mask = [1, 0, 0, 0, 1, 0], new_axis_mask = [0, 0, 0, 0, 0, 0], shrink_axis_mask = [0, 1, 1, 1, 1, 1])]
struct Case_ov_strided_slice_mask_037;

#[test]
fn ov_strided_slice_mask_037() {
    check_case("ov_strided_slice_mask_037", &Case_ov_strided_slice_mask_037);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-5], dtype = "bf16", input = [3], end = [3], stride = [-2], begin_mask = [0], ellipsis_mask = [], end_mask = [1], new_axis_mask = [0])]
struct Case_ov_strided_slice_mask_039;

#[test]
fn ov_strided_slice_mask_039() {
    check_case("ov_strided_slice_mask_039", &Case_ov_strided_slice_mask_039);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", dtype = "i4", input = [1, 1, 3, 3], stride = [2, -2, 3, -1], begin = [-4, 0, 3, 1], begin_mask = [0, 1, 0, 0], ellipsis_mask = [0, 0, 0, 0], end = [0, 9223372036854775807, 2, -4], end_mask = [0, 0, 0, 1], shrink_axis_mask = [0, 0, 0, 1])]
struct Case_ov_strided_slice_mask_041;

#[test]
fn ov_strided_slice_mask_041() {
    check_case("ov_strided_slice_mask_041", &Case_ov_strided_slice_mask_041);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [1, -2, -1], dtype = "i32", input = [3, 2], end = [-2, 1, 1], stride = [2, 0, 0], begin_mask = [0, 1, 1], ellipsis_mask = [1, 0, 0], end_mask = [0, 0, 0], new_axis_mask = [0, 1, 1])]
struct Case_ov_strided_slice_mask_042;

#[test]
fn ov_strided_slice_mask_042() {
    check_case("ov_strided_slice_mask_042", &Case_ov_strided_slice_mask_042);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [0, -2, -1], dtype = "i4", input = [3], end = [2, 3, -5], stride = [2, 0, -1], begin_mask = [0, 0, 0], ellipsis_mask = [1, 0, 0], end_mask = [0, 1, 0], new_axis_mask = [0, 1, 0], shrink_axis_mask = [0, 0, 1])]
struct Case_ov_strided_slice_mask_043;

#[test]
fn ov_strided_slice_mask_043() {
    check_case("ov_strided_slice_mask_043", &Case_ov_strided_slice_mask_043);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [3, 3, 1, 0], dtype = "i8", input = [3, 2, 1, 1], end = [1, 1, 1, -1], stride = [0, 2, -1, 1], begin_mask = [0, 1, 1, 0], ellipsis_mask = [0, 1, 0, 0, 0, 1], end_mask = [0, 0, 1, 0, 1], new_axis_mask = [1, 0, 1, 0], shrink_axis_mask = [0, 0, 0, 0, 1, 0])]
struct Case_ov_strided_slice_mask_044;

#[test]
fn ov_strided_slice_mask_044() {
    check_case("ov_strided_slice_mask_044", &Case_ov_strided_slice_mask_044);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [3], dtype = "f16", input = [3, 3, 2], end = [-3], stride = [3], begin_mask = [0], ellipsis_mask = [0], end_mask = [1], new_axis_mask = [])]
struct Case_ov_strided_slice_mask_046;

#[test]
fn ov_strided_slice_mask_046() {
    check_case("ov_strided_slice_mask_046", &Case_ov_strided_slice_mask_046);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-1, -1, -1], dtype = "bf16", input = [2, 2, 4], begin_mask = [0, 0, 1], ellipsis_mask = [0, 0, 0], end = [5, -1, 2], end_mask = [0, 0, 1], shrink_axis_mask = [1, 1, 0], stride = [-1, 1, 2])]
struct Case_ov_strided_slice_mask_047;

#[test]
fn ov_strided_slice_mask_047() {
    check_case("ov_strided_slice_mask_047", &Case_ov_strided_slice_mask_047);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-2, -9223372036854775808, -1, 2, 6, 3], dtype = "i8", input = [3, 4, 2, 4, 3], end = [1, -1, -3, -2, 7, -3], stride = [2, -2, 2, 2, -1, 3], begin_mask = [0, 0, 0, 0, 1, 0], ellipsis_mask = [1, 0, 0, 0], end_mask = [1, 0, 0, 0, 0], new_axis_mask = [0, 0, 1, 0, 0, 0], shrink_axis_mask = [0, 0, 0, 0])]
struct Case_ov_strided_slice_mask_050;

#[test]
fn ov_strided_slice_mask_050() {
    check_case("ov_strided_slice_mask_050", &Case_ov_strided_slice_mask_050);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [1, 4], dtype = "u64", input = [3, 4, 1], end = [-2, 5], stride = [-2, -3], begin_mask = [0, 0], ellipsis_mask = [0, 0], end_mask = [0, 1])]
struct Case_ov_strided_slice_mask_051;

#[test]
fn ov_strided_slice_mask_051() {
    check_case("ov_strided_slice_mask_051", &Case_ov_strided_slice_mask_051);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", dtype = "bool", input = [4, 2, 4, 3, 4], end = [-1, 2, -3, 0, -3], begin = [3, -2, -2, 0, -1], begin_mask = [0, 0, 1, 0, 1], ellipsis_mask = [1, 0, 0, 0, 0], end_mask = [0, 0, 1, 1, 0], new_axis_mask = [0, 0, 0, 1, 1], shrink_axis_mask = [0, 1, 1, 0, 0], stride = [-1, 0, 0, 0, 1])]
struct Case_ov_strided_slice_mask_053;

#[test]
fn ov_strided_slice_mask_053() {
    check_case("ov_strided_slice_mask_053", &Case_ov_strided_slice_mask_053);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-2, 3, 0, -4, -2, 1], dtype = "f32", input = [1, 4, 2], end = [0, 2, 4, 1, -3, 1], stride = [1, -1, 0, -1, 3, 1], begin_mask = [0, 0, 0, 0, 1, 0], ellipsis_mask = [0, 1, 0, 0, 0, 0], end_mask = [0, 1, 1, 1, 0, 1], new_axis_mask = [1, 0, 0, 0, 0, 1], shrink_axis_mask = [0, 0, 1, 0, 0, 0])]
struct Case_ov_strided_slice_mask_054;

#[test]
fn ov_strided_slice_mask_054() {
    check_case("ov_strided_slice_mask_054", &Case_ov_strided_slice_mask_054);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-1, -1, 0, 3, 5], dtype = "i4", input = [4, 2, 2, 4, 2], end = [-2, -3, -1, 2, 0], stride = [1, 1, -2, -1, 3], begin_mask = [0, 0, 1, 0, 1], ellipsis_mask = [], end_mask = [1, 1, 0, 0, 0], new_axis_mask = [0, 0, 0, 0, 0], shrink_axis_mask = [0, 1, 0, 0, 0])]
struct Case_ov_strided_slice_mask_055;

#[test]
fn ov_strided_slice_mask_055() {
    check_case("ov_strided_slice_mask_055", &Case_ov_strided_slice_mask_055);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [3, 2], dtype = "i8", input = [3, 4, 1, 2], end = [0, 2], stride = [-1, 1], begin_mask = [], ellipsis_mask = [1, 0, 1, 1], end_mask = [0, 0], new_axis_mask = [0, 1, 0, 0], shrink_axis_mask = [0, 0, 0, 0])]
struct Case_ov_strided_slice_mask_056;

#[test]
fn ov_strided_slice_mask_056() {
    check_case("ov_strided_slice_mask_056", &Case_ov_strided_slice_mask_056);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-4, -4], dtype = "i32", input = [2, 3, 2], end = [5, -1], stride = [-3, -1], begin_mask = [0, 0], ellipsis_mask = [0, 0], end_mask = [0, 0], shrink_axis_mask = [0, 0])]
struct Case_ov_strided_slice_mask_058;

#[test]
fn ov_strided_slice_mask_058() {
    check_case("ov_strided_slice_mask_058", &Case_ov_strided_slice_mask_058);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", dtype = "i32", input = [3], stride = [-3, 1, 1], begin = [5, 3, 1], begin_mask = [0, 0, 0], ellipsis_mask = [0, 1, 0], end = [-6, -1, 2], end_mask = [0, 0, 0], new_axis_mask = [0, 0, 1], shrink_axis_mask = [0, 0, 0])]
struct Case_ov_strided_slice_mask_059;

#[test]
fn ov_strided_slice_mask_059() {
    check_case("ov_strided_slice_mask_059", &Case_ov_strided_slice_mask_059);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-1, 2, 1, -3], dtype = "i8", input = [2, 2, 3], end = [3, 2147483647, -2, -1], stride = [1, 3, 1, 0], begin_mask = [0, 1, 0, 0], ellipsis_mask = [0, 0, 1, 0], end_mask = [0, 1, 1, 0], shrink_axis_mask = [1, 0, 0, 1])]
struct Case_ov_strided_slice_mask_061;

#[test]
fn ov_strided_slice_mask_061() {
    check_case("ov_strided_slice_mask_061", &Case_ov_strided_slice_mask_061);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-3], dtype = "i8", input = [3, 3], end = [-6], stride = [-3], begin_mask = [1], ellipsis_mask = [0], end_mask = [0], new_axis_mask = [], shrink_axis_mask = [0])]
struct Case_ov_strided_slice_mask_063;

#[test]
fn ov_strided_slice_mask_063() {
    check_case("ov_strided_slice_mask_063", &Case_ov_strided_slice_mask_063);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [3], dtype = "bf16", input = [4, 2, 2, 4], end = [-1], stride = [0], begin_mask = [1], end_mask = [0], new_axis_mask = [1], shrink_axis_mask = [0])]
struct Case_ov_strided_slice_mask_064;

#[test]
fn ov_strided_slice_mask_064() {
    check_case("ov_strided_slice_mask_064", &Case_ov_strided_slice_mask_064);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [2, -1, -3, -5, 3], dtype = "f16", input = [1, 3], end = [2, 0, 2, -4, -1], stride = [0, 2, -1, -3, 0], begin_mask = [0, 1, 1, 1, 1], ellipsis_mask = [0, 0, 0, 0, 1], end_mask = [0, 1, 0, 0, 0], new_axis_mask = [1, 0, 1, 0, 0], shrink_axis_mask = [0, 1, 0, 0, 0])]
struct Case_ov_strided_slice_mask_066;

#[test]
fn ov_strided_slice_mask_066() {
    check_case("ov_strided_slice_mask_066", &Case_ov_strided_slice_mask_066);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-3, 2, -1], dtype = "u64", input = [4], end = [-1, 0, 2], stride = [2, -1, 0], begin_mask = [0, 1, 0], ellipsis_mask = [0, 1, 0], end_mask = [0, 0, 1], new_axis_mask = [1, 0, 0], shrink_axis_mask = [0, 0, 1])]
struct Case_ov_strided_slice_mask_067;

#[test]
fn ov_strided_slice_mask_067() {
    check_case("ov_strided_slice_mask_067", &Case_ov_strided_slice_mask_067);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [3, -1, -3], dtype = "f16", input = [1, 4, 1, 4], end = [1, -2, 0], stride = [0, 0, 1], begin_mask = [0, 0, 1], ellipsis_mask = [0, 0, 1], end_mask = [0, 0, 1], new_axis_mask = [1, 1, 0])]
struct Case_ov_strided_slice_mask_070;

#[test]
fn ov_strided_slice_mask_070() {
    check_case("ov_strided_slice_mask_070", &Case_ov_strided_slice_mask_070);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", dtype = "f16", input = [2], end = [-2, 1, -1], begin = [1, -1, -4], begin_mask = [0, 0, 1], ellipsis_mask = [0, 1, 0], end_mask = [0, 1, 0], new_axis_mask = [1, 0, 0], stride = [-1, 1, 2])]
struct Case_ov_strided_slice_mask_071;

#[test]
fn ov_strided_slice_mask_071() {
    check_case("ov_strided_slice_mask_071", &Case_ov_strided_slice_mask_071);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [5, -2, 1, 3, 0], dtype = "bf16", input = [4, 2, 3, 1], end = [3, -3, 1, 3, 0], stride = [-2, 1, 1, 2, 0], begin_mask = [1, 0, 0, 0, 0, 0, 1], ellipsis_mask = [0, 0, 0, 1, 0, 1], end_mask = [0, 0, 1, 1, 1], new_axis_mask = [0, 0, 1], shrink_axis_mask = [0, 1, 0, 0, 1])]
struct Case_ov_strided_slice_mask_074;

#[test]
fn ov_strided_slice_mask_074() {
    check_case("ov_strided_slice_mask_074", &Case_ov_strided_slice_mask_074);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-4], dtype = "u64", input = [1], end = [-1], stride = [-3], begin_mask = [0], ellipsis_mask = [0], end_mask = [0], new_axis_mask = [], shrink_axis_mask = [0])]
struct Case_ov_strided_slice_mask_075;

#[test]
fn ov_strided_slice_mask_075() {
    check_case("ov_strided_slice_mask_075", &Case_ov_strided_slice_mask_075);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [0, -2147483648, 2, -2, 0, 3], dtype = "i4", input = [1, 4, 2, 2, 2], end = [2, -6, -5, 0, 1, 3], stride = [0, -3, 2, 2, 1, -1], begin_mask = [0, 0, 0, 1, 0, 0], ellipsis_mask = [1, 0, 0, 0, 0, 0], end_mask = [1, 0, 0, 0, 1, 0], new_axis_mask = [0, 0, 0, 0, 1, 0], shrink_axis_mask = [0, 0, 0, 1, 0, 0])]
struct Case_ov_strided_slice_mask_077;

#[test]
fn ov_strided_slice_mask_077() {
    check_case("ov_strided_slice_mask_077", &Case_ov_strided_slice_mask_077);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [0, 1, 1, -2, -1], dtype = "i4", input = [1, 3, 1], end = [-3, 0, 2, 1, -3], stride = [0, 0, -1, 2, 1], begin_mask = [1, 0, 1, 0, 0], ellipsis_mask = [0, 0, 0, 1, 0], end_mask = [0, 1, 0, 0, 1], new_axis_mask = [0, 1, 0, 0, 0], shrink_axis_mask = [1, 0, 0, 0, 0])]
struct Case_ov_strided_slice_mask_078;

#[test]
fn ov_strided_slice_mask_078() {
    check_case("ov_strided_slice_mask_078", &Case_ov_strided_slice_mask_078);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-3, -3], dtype = "f16", input = [3], end = [-3, 1], stride = [-1, 0], begin_mask = [0, 0], ellipsis_mask = [1, 0], end_mask = [0, 0], new_axis_mask = [0, 0], shrink_axis_mask = [0, 1])]
struct Case_ov_strided_slice_mask_079;

#[test]
fn ov_strided_slice_mask_079() {
    check_case("ov_strided_slice_mask_079", &Case_ov_strided_slice_mask_079);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-9223372036854775808, 0, -3, -3, 0], dtype = "i8", input = [4, 2, 3, 1], end = [-4, 5, 1, -4, -1], stride = [3, 0, -1, 2, 2], begin_mask = [1, 0, 0, 0, 1], ellipsis_mask = [0, 0, 0, 0, 0], end_mask = [0, 0, 0, 0, 0], new_axis_mask = [0, 0, 1, 0, 1], shrink_axis_mask = [0, 1, 0, 1, 0])]
struct Case_ov_strided_slice_mask_083;

#[test]
fn ov_strided_slice_mask_083() {
    check_case("ov_strided_slice_mask_083", &Case_ov_strided_slice_mask_083);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "openvino.strided_slice", begin = [-2, 4, -1, -2, 6], dtype = "bf16", input = [1, 3, 2, 3, 3], end = [-1, 2, 0, -1, 3], stride = [2, 1, 2, -1, 2], begin_mask = [0, 0, 0, 0, 0], ellipsis_mask = [1, 0, 0, 0, 0], end_mask = [0, 0, 0, 0, 0], new_axis_mask = [0, 0, 1, 1, 0], shrink_axis_mask = [0, 0, 0, 0, 0])]
struct Case_ov_strided_slice_mask_084;

#[test]
fn ov_strided_slice_mask_084() {
    check_case("ov_strided_slice_mask_084", &Case_ov_strided_slice_mask_084);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", alpha = 0, beta = [-2, 3, 1, -2], dimensions = [1, 4, 2, 5], operation = "linspace", to_type = "i64")]
struct Case_trt_fill_linspace_0000;

#[test]
fn trt_fill_linspace_0000() {
    check_case("trt_fill_linspace_0000", &Case_trt_fill_linspace_0000);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", alpha = 0, beta = [2, 3], dimensions = [5, 4], operation = "linspace", to_type = "i64")]
struct Case_trt_fill_linspace_0001;

#[test]
fn trt_fill_linspace_0001() {
    check_case("trt_fill_linspace_0001", &Case_trt_fill_linspace_0001);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", alpha = -1.0, beta = [4.0, -4.0, -3.0, -3.0], dimensions = [2, 4, 3, 4], operation = "linspace", to_type = "f32")]
struct Case_trt_fill_linspace_0002;

#[test]
fn trt_fill_linspace_0002() {
    check_case("trt_fill_linspace_0002", &Case_trt_fill_linspace_0002);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", alpha = -1, beta = [-3, 1, 2, -2], dimensions = [5, 3, 1, 5], operation = "linspace", to_type = "i64")]
struct Case_trt_fill_linspace_0003;

#[test]
fn trt_fill_linspace_0003() {
    check_case("trt_fill_linspace_0003", &Case_trt_fill_linspace_0003);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", alpha = 5.0, beta = [-4.0, 0.0, -3.0, 3.0], dimensions = [4, 4, 3, 1], operation = "linspace", to_type = "f32")]
struct Case_trt_fill_linspace_0004;

#[test]
fn trt_fill_linspace_0004() {
    check_case("trt_fill_linspace_0004", &Case_trt_fill_linspace_0004);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", alpha = 5, beta = [3, -2, 4, -4], dimensions = [1, 3, 2, 1], operation = "linspace", to_type = "i64")]
struct Case_trt_fill_linspace_0005;

#[test]
fn trt_fill_linspace_0005() {
    check_case("trt_fill_linspace_0005", &Case_trt_fill_linspace_0005);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", alpha = 6, beta = [1, -1, -4], dimensions = [1, 4, 4], operation = "linspace", to_type = "i64")]
struct Case_trt_fill_linspace_0006;

#[test]
fn trt_fill_linspace_0006() {
    check_case("trt_fill_linspace_0006", &Case_trt_fill_linspace_0006);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", alpha = -5.0, beta = [-4.0, 3.0, -1.0, 2.0], dimensions = [1, 1, 1, 5], operation = "linspace", to_type = "f32")]
struct Case_trt_fill_linspace_0007;

#[test]
fn trt_fill_linspace_0007() {
    check_case("trt_fill_linspace_0007", &Case_trt_fill_linspace_0007);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", alpha = -6, beta = [-3, -4, 4], dimensions = [4, 5, 5], operation = "linspace", to_type = "i32")]
struct Case_trt_fill_linspace_0008;

#[test]
fn trt_fill_linspace_0008() {
    check_case("trt_fill_linspace_0008", &Case_trt_fill_linspace_0008);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", alpha = 2, beta = [-4, 2], dimensions = [5, 4], operation = "linspace", to_type = "i64")]
struct Case_trt_fill_linspace_0009;

#[test]
fn trt_fill_linspace_0009() {
    check_case("trt_fill_linspace_0009", &Case_trt_fill_linspace_0009);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", alpha = 0.08020281422832634, beta = [1464000384.0, -6.558104515075684], dimensions = [2, 3], operation = "linspace", to_type = "f32")]
struct Case_trt_fill_ls_018;

#[test]
fn trt_fill_ls_018() {
    check_case("trt_fill_ls_018", &Case_trt_fill_ls_018);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", alpha = -3641.6305896959293, beta = [5.6781560642992606e23], dimensions = [4], operation = "linspace", to_type = "f32")]
struct Case_trt_fill_ls_019;

#[test]
fn trt_fill_ls_019() {
    check_case("trt_fill_ls_019", &Case_trt_fill_ls_019);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", alpha = 10402576.153396688, beta = [-8.467823843929114e22], dimensions = [2], operation = "linspace", to_type = "f32")]
struct Case_trt_fill_ls_020;

#[test]
fn trt_fill_ls_020() {
    check_case("trt_fill_ls_020", &Case_trt_fill_ls_020);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", alpha = -5.452180279319973e22, beta = [-0.0005599955911748111, 5.5137580683257446e17], dimensions = [3, 3], operation = "linspace", to_type = "f32")]
struct Case_trt_fill_ls_021;

#[test]
fn trt_fill_ls_021() {
    check_case("trt_fill_ls_021", &Case_trt_fill_ls_021);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", alpha = -21748544900.28756, beta = [9.005523681640625, -9102553.0, -5.123347853392298e21], dimensions = [2, 1, 3], operation = "linspace", to_type = "f32")]
struct Case_trt_fill_ls_023;

#[test]
fn trt_fill_ls_023() {
    check_case("trt_fill_ls_023", &Case_trt_fill_ls_023);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", alpha = 0.0, beta = [3.0, 1.0], dimensions = [2, 3], operation = "linspace")]
struct Case_trt_fill_seed_linspace;

#[test]
fn trt_fill_seed_linspace() {
    check_case("trt_fill_seed_linspace", &Case_trt_fill_seed_linspace);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "bool", input = [1], size = [1], start = [0], stride = [-1], mode = "strict_bounds")]
struct Case_trt_slice_0001;

#[test]
fn trt_slice_0001() {
    check_case("trt_slice_0001", &Case_trt_slice_0001);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i64", input = [3], mode = "strict_bounds", size = [1], start = [2], stride = [2])]
struct Case_trt_slice_0002;

#[test]
fn trt_slice_0002() {
    check_case("trt_slice_0002", &Case_trt_slice_0002);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "bool", input = [1, 2, 4], mode = "reflect", size = [4, 6, 5], start = [-4, 2, -9], stride = [2, 3, 2])]
struct Case_trt_slice_0003;

#[test]
fn trt_slice_0003() {
    check_case("trt_slice_0003", &Case_trt_slice_0003);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "bool", input = [2], mode = "reflect", size = [3], start = [-5], stride = [-1])]
struct Case_trt_slice_0004;

#[test]
fn trt_slice_0004() {
    check_case("trt_slice_0004", &Case_trt_slice_0004);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [6, 3], axes = [-2], mode = "clamp", size = [6], start = [8], stride = [2])]
struct Case_trt_slice_0005;

#[test]
fn trt_slice_0005() {
    check_case("trt_slice_0005", &Case_trt_slice_0005);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i32", input = [1], mode = "strict_bounds", size = [1], start = [0], stride = [-2])]
struct Case_trt_slice_0006;

#[test]
fn trt_slice_0006() {
    check_case("trt_slice_0006", &Case_trt_slice_0006);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = 4, dtype = "i32", input = [2, 1, 3], mode = "fill", size = [0, 6, 1], start = [-5, 1, -6], stride = [-2, 0, 1])]
struct Case_trt_slice_0007;

#[test]
fn trt_slice_0007() {
    check_case("trt_slice_0007", &Case_trt_slice_0007);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = 5.0, dtype = "f16", input = [5, 4], mode = "fill", size = [3, 5], start = [10, 7], stride = [3, 2])]
struct Case_trt_slice_0008;

#[test]
fn trt_slice_0008() {
    check_case("trt_slice_0008", &Case_trt_slice_0008);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i32", input = [5, 5, 6, 5], axes = [-2, -1], mode = "wrap", size = [1, 3], start = [-2, -5], stride = [-3, 1])]
struct Case_trt_slice_0009;

#[test]
fn trt_slice_0009() {
    check_case("trt_slice_0009", &Case_trt_slice_0009);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = 1, dtype = "i32", input = [6, 2], mode = "fill", size = [2, 6], start = [13, -6], stride = [-1, 0])]
struct Case_trt_slice_0010;

#[test]
fn trt_slice_0010() {
    check_case("trt_slice_0010", &Case_trt_slice_0010);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = 2.0, dtype = "f16", input = [5, 6], mode = "fill", size = [2, 1], start = [4, -12], stride = [2, 3])]
struct Case_trt_slice_0011;

#[test]
fn trt_slice_0011() {
    check_case("trt_slice_0011", &Case_trt_slice_0011);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", axes = [-1], dtype = "bool", input = [4, 4], size = [2], start = [1], stride = [1], mode = "strict_bounds")]
struct Case_trt_slice_0012;

#[test]
fn trt_slice_0012() {
    check_case("trt_slice_0012", &Case_trt_slice_0012);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f16", input = [2, 4, 5, 6], mode = "strict_bounds", size = [4, 0, 1, 3], start = [-1, 3, 1, -3], stride = [2, 1, -2, -1])]
struct Case_trt_slice_0013;

#[test]
fn trt_slice_0013() {
    check_case("trt_slice_0013", &Case_trt_slice_0013);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "bool", input = [5, 1, 4, 5], size = [0, 5, 3, 5], start = [6, 1, -6, -10], stride = [3, 1, -2, 3], mode = "wrap")]
struct Case_trt_slice_0014;

#[test]
fn trt_slice_0014() {
    check_case("trt_slice_0014", &Case_trt_slice_0014);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i8", input = [5, 5, 2], mode = "reflect", size = [0, 1, 1], start = [-4, 11, 1], stride = [3, 3, 1])]
struct Case_trt_slice_0015;

#[test]
fn trt_slice_0015() {
    check_case("trt_slice_0015", &Case_trt_slice_0015);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i64", input = [5, 1], mode = "strict_bounds", size = [1, 1], start = [1, 0], stride = [1, -2])]
struct Case_trt_slice_0016;

#[test]
fn trt_slice_0016() {
    check_case("trt_slice_0016", &Case_trt_slice_0016);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f16", input = [2], mode = "strict_bounds", size = [1], start = [0], stride = [-2])]
struct Case_trt_slice_0017;

#[test]
fn trt_slice_0017() {
    check_case("trt_slice_0017", &Case_trt_slice_0017);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [3, 2], mode = "strict_bounds", size = [0, 0], start = [1, 1], stride = [2, 1])]
struct Case_trt_slice_0018;

#[test]
fn trt_slice_0018() {
    check_case("trt_slice_0018", &Case_trt_slice_0018);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f16", input = [1, 3, 3], mode = "clamp", size = [4, 2, 3], start = [-4, -7, 0], stride = [-2, -2, -3])]
struct Case_trt_slice_0019;

#[test]
fn trt_slice_0019() {
    check_case("trt_slice_0019", &Case_trt_slice_0019);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = -2, dtype = "i8", input = [3], mode = "fill", size = [5], start = [3], stride = [-3])]
struct Case_trt_slice_0020;

#[test]
fn trt_slice_0020() {
    check_case("trt_slice_0020", &Case_trt_slice_0020);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "bool", input = [1], mode = "reflect", size = [3], start = [-3], stride = [3])]
struct Case_trt_slice_0022;

#[test]
fn trt_slice_0022() {
    check_case("trt_slice_0022", &Case_trt_slice_0022);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i32", input = [3, 5, 4, 5], mode = "clamp", size = [5, 3, 3, 3], start = [2, 7, 10, 2], stride = [3, 2, -2, -1])]
struct Case_trt_slice_0023;

#[test]
fn trt_slice_0023() {
    check_case("trt_slice_0023", &Case_trt_slice_0023);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f16", input = [1, 4], mode = "strict_bounds", size = [0, 1], start = [0, 1], stride = [1, 1])]
struct Case_trt_slice_0024;

#[test]
fn trt_slice_0024() {
    check_case("trt_slice_0024", &Case_trt_slice_0024);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i32", input = [1], mode = "wrap", size = [0], start = [4], stride = [-3])]
struct Case_trt_slice_0025;

#[test]
fn trt_slice_0025() {
    check_case("trt_slice_0025", &Case_trt_slice_0025);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = -5.0, dtype = "f16", input = [1, 6, 5], size = [3, 2, 0], start = [3, -12, 9], stride = [3, -3, 1], mode = "fill")]
struct Case_trt_slice_0026;

#[test]
fn trt_slice_0026() {
    check_case("trt_slice_0026", &Case_trt_slice_0026);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = 1, dtype = "bool", input = [5], size = [4], start = [12], stride = [-1], mode = "fill")]
struct Case_trt_slice_0028;

#[test]
fn trt_slice_0028() {
    check_case("trt_slice_0028", &Case_trt_slice_0028);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i64", input = [3, 6, 4, 2], size = [0, 4, 1, 0], start = [2, 0, 2, 2], stride = [-2, -1, 2, -1], mode = "strict_bounds")]
struct Case_trt_slice_0029;

#[test]
fn trt_slice_0029() {
    check_case("trt_slice_0029", &Case_trt_slice_0029);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = 1, dtype = "bool", input = [6, 1, 3, 2], size = [4, 5, 3, 1], start = [-1, -1, 8, 0], stride = [1, 3, 3, -3], mode = "fill")]
struct Case_trt_slice_0031;

#[test]
fn trt_slice_0031() {
    check_case("trt_slice_0031", &Case_trt_slice_0031);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = -4, dtype = "i8", input = [5, 1], mode = "fill", size = [5, 4], start = [2, -3], stride = [3, 1])]
struct Case_trt_slice_0032;

#[test]
fn trt_slice_0032() {
    check_case("trt_slice_0032", &Case_trt_slice_0032);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "bool", input = [2, 6], mode = "reflect", size = [5, 5], start = [3, -14], stride = [-2, -2])]
struct Case_trt_slice_0033;

#[test]
fn trt_slice_0033() {
    check_case("trt_slice_0033", &Case_trt_slice_0033);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i32", input = [6, 2], size = [0, 1], start = [-11, 4], stride = [-3, 1], mode = "clamp")]
struct Case_trt_slice_0035;

#[test]
fn trt_slice_0035() {
    check_case("trt_slice_0035", &Case_trt_slice_0035);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f16", input = [3], size = [3], start = [-6], stride = [2], mode = "wrap")]
struct Case_trt_slice_0036;

#[test]
fn trt_slice_0036() {
    check_case("trt_slice_0036", &Case_trt_slice_0036);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f16", input = [3, 6], size = [4, 5], start = [7, -8], stride = [1, -1], mode = "clamp")]
struct Case_trt_slice_0037;

#[test]
fn trt_slice_0037() {
    check_case("trt_slice_0037", &Case_trt_slice_0037);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = 4, dtype = "i8", input = [3, 3, 6, 3], size = [1, 0, 1, 5], start = [9, 4, 5, 2], stride = [-1, 3, 0, 3], mode = "fill")]
struct Case_trt_slice_0038;

#[test]
fn trt_slice_0038() {
    check_case("trt_slice_0038", &Case_trt_slice_0038);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = 0.0, dtype = "f32", input = [1, 3, 5, 5], mode = "fill", size = [3, 4, 0, 4], start = [5, 7, 5, 1], stride = [-1, -3, 3, -3])]
struct Case_trt_slice_0039;

#[test]
fn trt_slice_0039() {
    check_case("trt_slice_0039", &Case_trt_slice_0039);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "bool", input = [1, 2], mode = "strict_bounds", size = [1, 1], start = [0, 0], stride = [3, 1])]
struct Case_trt_slice_dt_001;

#[test]
fn trt_slice_dt_001() {
    check_case("trt_slice_dt_001", &Case_trt_slice_dt_001);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "bool", input = [3], mode = "clamp", size = [5], start = [-4], stride = [2])]
struct Case_trt_slice_dt_003;

#[test]
fn trt_slice_dt_003() {
    check_case("trt_slice_dt_003", &Case_trt_slice_dt_003);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "bool", input = [1, 2, 3], mode = "reflect", size = [2, 5, 3], start = [-4, 0, 4], stride = [0, -1, 1])]
struct Case_trt_slice_dt_005;

#[test]
fn trt_slice_dt_005() {
    check_case("trt_slice_dt_005", &Case_trt_slice_dt_005);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i4", input = [1], mode = "wrap", size = [5], start = [-4], stride = [-2])]
struct Case_trt_slice_dt_007;

#[test]
fn trt_slice_dt_007() {
    check_case("trt_slice_dt_007", &Case_trt_slice_dt_007);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i4", input = [3], mode = "clamp", size = [6], start = [6], stride = [-2])]
struct Case_trt_slice_dt_008;

#[test]
fn trt_slice_dt_008() {
    check_case("trt_slice_dt_008", &Case_trt_slice_dt_008);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i8", input = [1], mode = "strict_bounds", size = [1], start = [0], stride = [-1])]
struct Case_trt_slice_dt_011;

#[test]
fn trt_slice_dt_011() {
    check_case("trt_slice_dt_011", &Case_trt_slice_dt_011);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i8", input = [3, 3, 4], mode = "wrap", size = [5, 4, 4], start = [8, 5, -4], stride = [1, -2, 2])]
struct Case_trt_slice_dt_012;

#[test]
fn trt_slice_dt_012() {
    check_case("trt_slice_dt_012", &Case_trt_slice_dt_012);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i8", input = [4, 2, 2], mode = "clamp", size = [5, 1, 2], start = [7, 5, 2], stride = [1, 1, 2])]
struct Case_trt_slice_dt_013;

#[test]
fn trt_slice_dt_013() {
    check_case("trt_slice_dt_013", &Case_trt_slice_dt_013);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = -128, dtype = "i8", input = [2], mode = "fill", size = [1], start = [5], stride = [0])]
struct Case_trt_slice_dt_014;

#[test]
fn trt_slice_dt_014() {
    check_case("trt_slice_dt_014", &Case_trt_slice_dt_014);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i8", input = [2, 4], mode = "reflect", size = [5, 1], start = [3, -2], stride = [-1, -2])]
struct Case_trt_slice_dt_015;

#[test]
fn trt_slice_dt_015() {
    check_case("trt_slice_dt_015", &Case_trt_slice_dt_015);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i32", input = [2, 4, 3], mode = "strict_bounds", size = [2, 1, 2], start = [1, 2, 2], stride = [0, -1, 0])]
struct Case_trt_slice_dt_016;

#[test]
fn trt_slice_dt_016() {
    check_case("trt_slice_dt_016", &Case_trt_slice_dt_016);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i32", input = [4, 2, 3], mode = "clamp", size = [3, 5, 3], start = [5, 5, -1], stride = [-2, 2, 2])]
struct Case_trt_slice_dt_018;

#[test]
fn trt_slice_dt_018() {
    check_case("trt_slice_dt_018", &Case_trt_slice_dt_018);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = 2147483647, dtype = "i32", input = [3], mode = "fill", size = [1], start = [0], stride = [-1])]
struct Case_trt_slice_dt_019;

#[test]
fn trt_slice_dt_019() {
    check_case("trt_slice_dt_019", &Case_trt_slice_dt_019);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i32", input = [3, 4, 4], mode = "reflect", size = [1, 6, 6], start = [-3, -9, 9], stride = [-2, -2, 0])]
struct Case_trt_slice_dt_020;

#[test]
fn trt_slice_dt_020() {
    check_case("trt_slice_dt_020", &Case_trt_slice_dt_020);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i64", input = [3], mode = "strict_bounds", size = [1], start = [0], stride = [2])]
struct Case_trt_slice_dt_021;

#[test]
fn trt_slice_dt_021() {
    check_case("trt_slice_dt_021", &Case_trt_slice_dt_021);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i64", input = [3, 3, 2], mode = "wrap", size = [6, 4, 1], start = [-7, 7, 5], stride = [3, 0, 1])]
struct Case_trt_slice_dt_022;

#[test]
fn trt_slice_dt_022() {
    check_case("trt_slice_dt_022", &Case_trt_slice_dt_022);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f8e4m3fn", input = [2, 2, 1], mode = "wrap", size = [3, 3, 3], start = [-5, 4, -3], stride = [1, 0, 0])]
struct Case_trt_slice_dt_024;

#[test]
fn trt_slice_dt_024() {
    check_case("trt_slice_dt_024", &Case_trt_slice_dt_024);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f8e4m3fn", input = [1, 2], mode = "clamp", size = [1, 3], start = [1, 3], stride = [-2, -2])]
struct Case_trt_slice_dt_025;

#[test]
fn trt_slice_dt_025() {
    check_case("trt_slice_dt_025", &Case_trt_slice_dt_025);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f8e4m3fn", input = [3, 4], mode = "reflect", size = [1, 4], start = [-2, -1], stride = [0, -2])]
struct Case_trt_slice_dt_027;

#[test]
fn trt_slice_dt_027() {
    check_case("trt_slice_dt_027", &Case_trt_slice_dt_027);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f16", input = [2, 4, 1], mode = "wrap", size = [6, 5, 5], start = [3, -3, 4], stride = [-1, -1, 3])]
struct Case_trt_slice_dt_029;

#[test]
fn trt_slice_dt_029() {
    check_case("trt_slice_dt_029", &Case_trt_slice_dt_029);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [1, 3, 3], mode = "wrap", size = [1, 5, 2], start = [0, 1, 1], stride = [1, 1, 1])]
struct Case_trt_slice_dt_034;

#[test]
fn trt_slice_dt_034() {
    check_case("trt_slice_dt_034", &Case_trt_slice_dt_034);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [4], mode = "clamp", size = [3], start = [9], stride = [-1])]
struct Case_trt_slice_dt_035;

#[test]
fn trt_slice_dt_035() {
    check_case("trt_slice_dt_035", &Case_trt_slice_dt_035);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = 3.5, dtype = "f32", input = [2, 4], mode = "fill", size = [3, 6], start = [5, -1], stride = [-2, 3])]
struct Case_trt_slice_dt_036;

#[test]
fn trt_slice_dt_036() {
    check_case("trt_slice_dt_036", &Case_trt_slice_dt_036);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [3, 4, 2], mode = "reflect", size = [3, 5, 4], start = [-8, 3, 5], stride = [0, 1, 1])]
struct Case_trt_slice_dt_037;

#[test]
fn trt_slice_dt_037() {
    check_case("trt_slice_dt_037", &Case_trt_slice_dt_037);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "bf16", input = [3, 1], mode = "strict_bounds", size = [2, 1], start = [1, 0], stride = [1, 1])]
struct Case_trt_slice_dt_038;

#[test]
fn trt_slice_dt_038() {
    check_case("trt_slice_dt_038", &Case_trt_slice_dt_038);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "bf16", input = [1, 3, 2], mode = "wrap", size = [4, 5, 2], start = [0, -5, 4], stride = [-1, 1, 1])]
struct Case_trt_slice_dt_039;

#[test]
fn trt_slice_dt_039() {
    check_case("trt_slice_dt_039", &Case_trt_slice_dt_039);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i8", input = [2, 1, 154], mode = "reflect", size = [2, 1, 166], start = [0, 0, 175], stride = [1, 1, 1])]
struct Case_trt_slice_dt_047;

#[test]
fn trt_slice_dt_047() {
    check_case("trt_slice_dt_047", &Case_trt_slice_dt_047);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i32", input = [1, 123], mode = "reflect", size = [1, 83], start = [0, 79], stride = [1, 1])]
struct Case_trt_slice_dt_048;

#[test]
fn trt_slice_dt_048() {
    check_case("trt_slice_dt_048", &Case_trt_slice_dt_048);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = 127.0, dtype = "f8e4m3fn", input = [1, 231], mode = "fill", size = [1, 135], start = [0, 47], stride = [1, -1])]
struct Case_trt_slice_dt_050;

#[test]
fn trt_slice_dt_050() {
    check_case("trt_slice_dt_050", &Case_trt_slice_dt_050);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f16", input = [2, 2, 88], mode = "wrap", size = [2, 2, 105], start = [0, 0, -13], stride = [1, 1, -2])]
struct Case_trt_slice_dt_051;

#[test]
fn trt_slice_dt_051() {
    check_case("trt_slice_dt_051", &Case_trt_slice_dt_051);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = 6.0, dtype = "f32", input = [3, 259], mode = "fill", size = [3, 192], start = [0, -59], stride = [1, 1])]
struct Case_trt_slice_dt_052;

#[test]
fn trt_slice_dt_052() {
    check_case("trt_slice_dt_052", &Case_trt_slice_dt_052);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i4", input = [2, 1, 171], mode = "wrap", size = [2, 1, 136], start = [0, 0, 209], stride = [1, 1, 3])]
struct Case_trt_slice_dt_055;

#[test]
fn trt_slice_dt_055() {
    check_case("trt_slice_dt_055", &Case_trt_slice_dt_055);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f16", input = [2, 142], mode = "reflect", size = [2, 144], start = [0, 101], stride = [1, -1])]
struct Case_trt_slice_dt_056;

#[test]
fn trt_slice_dt_056() {
    check_case("trt_slice_dt_056", &Case_trt_slice_dt_056);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "bool", input = [2, 1, 267], mode = "wrap", size = [2, 1, 151], start = [0, 0, 109], stride = [1, 1, -1])]
struct Case_trt_slice_dt_057;

#[test]
fn trt_slice_dt_057() {
    check_case("trt_slice_dt_057", &Case_trt_slice_dt_057);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f8e4m3fn", input = [3, 195], mode = "wrap", size = [3, 202], start = [0, 77], stride = [1, -2])]
struct Case_trt_slice_dt_058;

#[test]
fn trt_slice_dt_058() {
    check_case("trt_slice_dt_058", &Case_trt_slice_dt_058);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = 2.0, dtype = "i8", input = [2, 2, 136], mode = "fill", size = [2, 2, 68], start = [0, 0, -41], stride = [1, 1, -2])]
struct Case_trt_slice_dt_059;

#[test]
fn trt_slice_dt_059() {
    check_case("trt_slice_dt_059", &Case_trt_slice_dt_059);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f8e4m3fn", input = [3, 5, 1], size = [3, 6, 6], stride = [1, 3, -1], mode = "reflect", start = [7, 18, -2])]
struct Case_trt_slice_rt_001;

#[test]
fn trt_slice_rt_001() {
    check_case("trt_slice_rt_001", &Case_trt_slice_rt_001);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i64", input = [5], size = [2], start = [1], stride = [0])]
struct Case_trt_slice_rt_002;

#[test]
fn trt_slice_rt_002() {
    check_case("trt_slice_rt_002", &Case_trt_slice_rt_002);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [2], size = [5], start = [-7], stride = [2], mode = "reflect")]
struct Case_trt_slice_rt_005;

#[test]
fn trt_slice_rt_005() {
    check_case("trt_slice_rt_005", &Case_trt_slice_rt_005);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "bool", input = [5, 4, 3, 2], size = [6, 6, 2, 3], start = [16, 14, -10, 9], stride = [0, 1, 3, -2], mode = "clamp")]
struct Case_trt_slice_rt_007;

#[test]
fn trt_slice_rt_007() {
    check_case("trt_slice_rt_007", &Case_trt_slice_rt_007);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i4", input = [5, 2, 5, 4], size = [4, 5, 1, 2], start = [-15, 4, -6, -11], stride = [2, -2, 0, -3], mode = "reflect")]
struct Case_trt_slice_rt_008;

#[test]
fn trt_slice_rt_008() {
    check_case("trt_slice_rt_008", &Case_trt_slice_rt_008);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [1, 1, 2], size = [4], start = [-5], stride = [-3], axes = [2], mode = "clamp")]
struct Case_trt_slice_rt_010;

#[test]
fn trt_slice_rt_010() {
    check_case("trt_slice_rt_010", &Case_trt_slice_rt_010);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [4], size = [6], start = [-13], stride = [-1], mode = "fill")]
struct Case_trt_slice_rt_011;

#[test]
fn trt_slice_rt_011() {
    check_case("trt_slice_rt_011", &Case_trt_slice_rt_011);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = 100, dtype = "f8e4m3fn", input = [1, 3, 1, 1], size = [6, 4, 6, 4], start = [5, 0, -2, -1], mode = "fill", stride = [3, -3, 2, -1])]
struct Case_trt_slice_rt_014;

#[test]
fn trt_slice_rt_014() {
    check_case("trt_slice_rt_014", &Case_trt_slice_rt_014);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i32", input = [1], size = [1], start = [0], stride = [-2])]
struct Case_trt_slice_rt_015;

#[test]
fn trt_slice_rt_015() {
    check_case("trt_slice_rt_015", &Case_trt_slice_rt_015);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f8e4m3fn", input = [1], size = [3], stride = [2], mode = "clamp", start = [-1])]
struct Case_trt_slice_rt_016;

#[test]
fn trt_slice_rt_016() {
    check_case("trt_slice_rt_016", &Case_trt_slice_rt_016);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i8", input = [1, 3], size = [1, 1], start = [0, 2], mode = "strict_bounds", stride = [-1, 1])]
struct Case_trt_slice_rt_020;

#[test]
fn trt_slice_rt_020() {
    check_case("trt_slice_rt_020", &Case_trt_slice_rt_020);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f16", input = [3, 4, 2, 5], size = [6], start = [-483865871670], stride = [-3], axes = [3], mode = "reflect")]
struct Case_trt_slice_rt_021;

#[test]
fn trt_slice_rt_021() {
    check_case("trt_slice_rt_021", &Case_trt_slice_rt_021);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", axes = [2, -3, 1], dtype = "i4", input = [4, 4, 1], size = [1, 3, 1], stride = [-1, 1, 1], mode = "wrap", start = [-5, -9, 3])]
struct Case_trt_slice_rt_025;

#[test]
fn trt_slice_rt_025() {
    check_case("trt_slice_rt_025", &Case_trt_slice_rt_025);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", axes = [-3], dtype = "i64", input = [1, 2, 1], size = [1], start = [-5], stride = [1], mode = "wrap")]
struct Case_trt_slice_rt_026;

#[test]
fn trt_slice_rt_026() {
    check_case("trt_slice_rt_026", &Case_trt_slice_rt_026);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", axes = [-3, 2], fill = 0, dtype = "bool", input = [1, 3, 4], size = [4, 2], start = [-1, 2], stride = [-3, 1], mode = "fill")]
struct Case_trt_slice_rt_029;

#[test]
fn trt_slice_rt_029() {
    check_case("trt_slice_rt_029", &Case_trt_slice_rt_029);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", axes = [3, 0], dtype = "f16", input = [3, 1, 4, 4], size = [4, 5], start = [15, -10], mode = "wrap", stride = [0, -2])]
struct Case_trt_slice_rt_030;

#[test]
fn trt_slice_rt_030() {
    check_case("trt_slice_rt_030", &Case_trt_slice_rt_030);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [2, 4, 5], size = [3, 3, 6], start = [-8, -2147483648, 1016665522132], stride = [2147483647, 0, 0], mode = "wrap")]
struct Case_trt_slice_rt_031;

#[test]
fn trt_slice_rt_031() {
    check_case("trt_slice_rt_031", &Case_trt_slice_rt_031);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i64", input = [5, 3, 4], size = [4, 1, 4], start = [9, -8, -1], stride = [1, 3, -3], mode = "wrap")]
struct Case_trt_slice_rt_036;

#[test]
fn trt_slice_rt_036() {
    check_case("trt_slice_rt_036", &Case_trt_slice_rt_036);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", axes = [1, 0], dtype = "bool", input = [3, 3], size = [1, 1], start = [0, 1], stride = [3, 1], mode = "strict_bounds")]
struct Case_trt_slice_rt_039;

#[test]
fn trt_slice_rt_039() {
    check_case("trt_slice_rt_039", &Case_trt_slice_rt_039);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", axes = [2, 1, 0], dtype = "i4", input = [1, 2, 2], size = [2, 4, 5], start = [-1, 5, 4], stride = [1, -3, 0], mode = "reflect")]
struct Case_trt_slice_rt_042;

#[test]
fn trt_slice_rt_042() {
    check_case("trt_slice_rt_042", &Case_trt_slice_rt_042);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", axes = [0], dtype = "f16", input = [5], size = [2], start = [7], stride = [0], mode = "wrap")]
struct Case_trt_slice_rt_044;

#[test]
fn trt_slice_rt_044() {
    check_case("trt_slice_rt_044", &Case_trt_slice_rt_044);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i32", input = [1, 3, 5, 5], size = [6, 6, 3, 2], mode = "reflect", start = [-2, -5, 4, -15], stride = [0, 3, 3, -3])]
struct Case_trt_slice_rt_048;

#[test]
fn trt_slice_rt_048() {
    check_case("trt_slice_rt_048", &Case_trt_slice_rt_048);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f8e4m3fn", input = [4, 3, 5, 4], size = [1, 3, 2, 5], start = [-8, -12, 0, -8], stride = [0, 1, 0, 2], axes = [-4, 1, -1, -2], mode = "wrap")]
struct Case_trt_slice_rt_049;

#[test]
fn trt_slice_rt_049() {
    check_case("trt_slice_rt_049", &Case_trt_slice_rt_049);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", axes = [0, -2, 3, 1], dtype = "bool", input = [4, 2, 4, 3], size = [6, 5, 5, 2], start = [2, -2, 8, -8], mode = "reflect", stride = [1, -2, 3, 1])]
struct Case_trt_slice_rt_056;

#[test]
fn trt_slice_rt_056() {
    check_case("trt_slice_rt_056", &Case_trt_slice_rt_056);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i32", input = [2, 1, 2], start = [3, 4, -4], stride = [-3, 3, -3], mode = "reflect", size = [1, 3, 5])]
struct Case_trt_slice_rt_057;

#[test]
fn trt_slice_rt_057() {
    check_case("trt_slice_rt_057", &Case_trt_slice_rt_057);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [3, 1], start = [-2, 0], mode = "clamp", size = [6, 4], stride = [1, -3])]
struct Case_trt_slice_rt_058;

#[test]
fn trt_slice_rt_058() {
    check_case("trt_slice_rt_058", &Case_trt_slice_rt_058);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", axes = [-2], dtype = "bool", input = [1, 1], size = [4], start = [-4611686018427387904], stride = [-2], mode = "clamp")]
struct Case_trt_slice_rt_059;

#[test]
fn trt_slice_rt_059() {
    check_case("trt_slice_rt_059", &Case_trt_slice_rt_059);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i4", input = [5, 2, 4, 2], size = [5, 1, 4, 3], start = [-5, 2, 13, -5], stride = [3, 1, 0, -2], mode = "reflect")]
struct Case_trt_slice_rt_061;

#[test]
fn trt_slice_rt_061() {
    check_case("trt_slice_rt_061", &Case_trt_slice_rt_061);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f8e4m3fn", input = [4], start = [1], stride = [0], size = [3])]
struct Case_trt_slice_rt_062;

#[test]
fn trt_slice_rt_062() {
    check_case("trt_slice_rt_062", &Case_trt_slice_rt_062);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", axes = [0], dtype = "i64", input = [2, 5], size = [3], start = [-755536415386], stride = [-3], mode = "wrap")]
struct Case_trt_slice_rt_064;

#[test]
fn trt_slice_rt_064() {
    check_case("trt_slice_rt_064", &Case_trt_slice_rt_064);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", axes = [1], dtype = "f32", input = [1, 5], size = [1], stride = [-3], mode = "wrap", start = [-7])]
struct Case_trt_slice_rt_065;

#[test]
fn trt_slice_rt_065() {
    check_case("trt_slice_rt_065", &Case_trt_slice_rt_065);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", axes = [2, 1, -3], dtype = "i32", input = [4, 3, 1], start = [6, 2, -4], stride = [0, 1, -2], mode = "wrap", size = [1, 6, 1])]
struct Case_trt_slice_rt_067;

#[test]
fn trt_slice_rt_067() {
    check_case("trt_slice_rt_067", &Case_trt_slice_rt_067);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", axes = [1, -4, 2], dtype = "i32", input = [1, 5, 4, 2], size = [1, 2, 6], start = [3, -1, 8], mode = "wrap", stride = [1, 2, -1])]
struct Case_trt_slice_rt_068;

#[test]
fn trt_slice_rt_068() {
    check_case("trt_slice_rt_068", &Case_trt_slice_rt_068);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [2], start = [-1], stride = [2], mode = "clamp", size = [2])]
struct Case_trt_slice_rt_069;

#[test]
fn trt_slice_rt_069() {
    check_case("trt_slice_rt_069", &Case_trt_slice_rt_069);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = 65504, dtype = "i32", input = [3, 5, 1], size = [5, 5], start = [-11, -5], axes = [1, -3], mode = "fill", stride = [3, 1])]
struct Case_trt_slice_rt_070;

#[test]
fn trt_slice_rt_070() {
    check_case("trt_slice_rt_070", &Case_trt_slice_rt_070);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "bool", input = [5, 3, 1, 3], size = [2, 4, 2, 1], start = [-4611686018427387904, -878035705001, 4611686018427387904, -11], stride = [-1, -3, 0, 8589934593], mode = "reflect")]
struct Case_trt_slice_rt_071;

#[test]
fn trt_slice_rt_071() {
    check_case("trt_slice_rt_071", &Case_trt_slice_rt_071);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", axes = [0], dtype = "bf16", input = [1, 3], size = [3], stride = [1], mode = "wrap", start = [6])]
struct Case_trt_slice_rt_073;

#[test]
fn trt_slice_rt_073() {
    check_case("trt_slice_rt_073", &Case_trt_slice_rt_073);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [5, 5, 1, 1], size = [4, 4, 3, 2], start = [-4, 7, 1, -2], stride = [2, 1, -2, 0], mode = "reflect")]
struct Case_trt_slice_rt_075;

#[test]
fn trt_slice_rt_075() {
    check_case("trt_slice_rt_075", &Case_trt_slice_rt_075);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i32", input = [3, 5], size = [6, 2], start = [-2, 3], mode = "wrap", stride = [-1, 3])]
struct Case_trt_slice_rt_078;

#[test]
fn trt_slice_rt_078() {
    check_case("trt_slice_rt_078", &Case_trt_slice_rt_078);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", axes = [1, 2, 0], dtype = "bf16", input = [3, 4, 5], size = [1, 4, 1], start = [3, 0, 1], stride = [1, 0, 3], mode = "strict_bounds")]
struct Case_trt_slice_rt_079;

#[test]
fn trt_slice_rt_079() {
    check_case("trt_slice_rt_079", &Case_trt_slice_rt_079);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [3, 3], size = [2, 2], start = [0, 0], stride = [1, 1])]
struct Case_trt_slice_seed_example;

#[test]
fn trt_slice_seed_example() {
    check_case("trt_slice_seed_example", &Case_trt_slice_seed_example);
}

#[allow(non_camel_case_types)]
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", fill = 1.0, dtype = "f32", input = [2, 2], mode = "fill", size = [3, 3], start = [0, 0], stride = [1, 1])]
struct Case_trt_slice_seed_fill;

#[test]
fn trt_slice_seed_fill() {
    check_case("trt_slice_seed_fill", &Case_trt_slice_seed_fill);
}

