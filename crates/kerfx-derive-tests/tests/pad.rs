//! The Pad family derived: onnx.pad, openvino.pad (symmetric included) and openvino.slice
//! as a user writes them. Inputs such as `pads` are attributes baked in as constants; a
//! constant-mode pad takes its pad value as the last argument of `run`.

use kerfx_derive_tests::derived;

// The issue's own example: wrap padding from version 19.
#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.pad", version = 19, dtype = "f32", input = [2, 3], pads = [1, 2, 0, 1], mode = "wrap")]
struct WrapPad;

#[test]
fn onnx_pad_wrap_from_attributes() {
    assert_eq!(WrapPad::OUTPUT_SHAPE, [3, 6]);
    let mut out = [0f32; 18];
    WrapPad.run(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &mut out).unwrap();
    #[rustfmt::skip]
    let want = [
        5.0, 6.0, 4.0, 5.0, 6.0, 4.0,
        2.0, 3.0, 1.0, 2.0, 3.0, 1.0,
        5.0, 6.0, 4.0, 5.0, 6.0, 4.0,
    ];
    assert_eq!(out, want);
}

#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.pad", dtype = "i16", input = [3], pads = [2, -1], constant_value = 7)]
struct ConstantCrop;

#[test]
fn onnx_pad_constant_value_is_the_default_fill() {
    assert_eq!(ConstantCrop::FILL, 7);
    let mut out = [0i16; 4];
    ConstantCrop.run(&[1, 2, 3], &mut out, ConstantCrop::FILL).unwrap();
    assert_eq!(out, [7, 7, 1, 2]);
    ConstantCrop.run(&[1, 2, 3], &mut out, -1).unwrap();
    assert_eq!(out, [-1, -1, 1, 2]);
}

#[derive(kerfx::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "u8", input = [2, 3], pads_begin = [1, 3], pads_end = [2, -1], pad_mode = "symmetric")]
struct Symmetric;

#[test]
fn openvino_pad_symmetric_repeats_the_edge() {
    assert_eq!(Symmetric::OUTPUT_SHAPE, [5, 5]);
    let mut out = [0u8; 25];
    Symmetric.run(&[1, 2, 3, 4, 5, 6], &mut out).unwrap();
    #[rustfmt::skip]
    let want = [
        3, 2, 1, 1, 2,
        3, 2, 1, 1, 2,
        6, 5, 4, 4, 5,
        6, 5, 4, 4, 5,
        3, 2, 1, 1, 2,
    ];
    assert_eq!(out, want);
}

// Versions 1 and 2 take their pads and value as attributes anyway.
derived!(onnx_v1_paddings, V1Paddings, op = "onnx.pad", version = 1, dtype = "f32", input = [2, 2]; paddings = [1, 0, 0, 2], value = 1.5);
derived!(onnx_v2_reflect, V2Reflect, op = "onnx.pad", version = 2, dtype = "f64", input = [3, 4]; pads = [2, 5, 1, 3], mode = "reflect");
derived!(onnx_crop_then_reflect, CropReflect, op = "onnx.pad", dtype = "i32", input = [2, 5]; pads = [0, -2, 1, 4], mode = "reflect");
derived!(onnx_crop_then_wrap, CropWrap, op = "onnx.pad", dtype = "u16", input = [7]; pads = [9, -3], mode = "wrap");
derived!(onnx_edge_axes, EdgeAxes, op = "onnx.pad", version = 18, dtype = "bf16", input = [2, 3, 2]; pads = [3, 0, 1, 2], axes = [-1, 0], mode = "edge");
derived!(onnx_reflect_bounces, ReflectBounces, op = "onnx.pad", dtype = "i8", input = [3]; pads = [11, 9], mode = "reflect");
derived!(onnx_i4_constant, I4Constant, op = "onnx.pad", dtype = "i4", input = [3, 3]; pads = [1, 1, 1, 2], constant_value = -3);
derived!(ov_reflect, OvReflect, op = "openvino.pad", dtype = "f16", input = [4, 4]; pads_begin = [3, -1], pads_end = [-2, 3], pad_mode = "reflect");
derived!(ov_symmetric_full, OvSymmetricFull, op = "openvino.pad", version = 1, dtype = "i64", input = [3, 2]; pads_begin = [3, 2], pads_end = [3, 2], pad_mode = "symmetric");
derived!(ov_edge_bool, OvEdge, op = "openvino.pad", dtype = "bool", input = [2, 1]; pads_begin = [0, 4], pads_end = [3, 0], pad_mode = "edge");
derived!(ov_constant_value, OvConstant, op = "openvino.pad", dtype = "f32", input = [2, 2]; pads_begin = [1, 1], pads_end = [0, 2], pad_mode = "constant", pad_value = 2.5);
derived!(ov_slice_backward, OvSlice, op = "openvino.slice", dtype = "f32", input = [4, 6]; start = [-1, 100], stop = [-100, 0], step = [-2, -3]);
derived!(ov_slice_axes, OvSliceAxes, op = "openvino.slice", dtype = "u8", input = [3, 4, 5]; start = [1], stop = [4], step = [2], axes = [-1]);

#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.pad", version = 13, dtype = "string", input = [2], pads = [1, 2])]
struct PadStrings;

#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.pad", version = 13, dtype = "string", input = [3], pads = [2, 1], mode = "reflect")]
struct ReflectStrings;

#[test]
fn strings_pad_with_the_empty_string_and_move_like_any_element() {
    let input: Vec<String> = ["a", "b"].map(String::from).to_vec();
    let mut out = vec![String::from("x"); 5];
    PadStrings.run(&input, &mut out, PadStrings::FILL).unwrap();
    assert_eq!(out, ["", "a", "b", "", ""]);
    let input: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
    let mut out = vec![String::new(); 6];
    ReflectStrings.run(&input, &mut out).unwrap();
    assert_eq!(out, ["c", "b", "a", "b", "c", "b"]);
}
