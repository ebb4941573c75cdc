//! The typed `run` of derived kernels: element types, the runtime fill argument, the
//! generated constants, length errors, and interchangeability behind `dyn Kernel`.

use kerfx::half::{bf16, f16};
use kerfx::num_complex::Complex;
use kerfx::{DType, Kernel, Request, Tensor};

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [2, 2], start = [0, 0], size = [3, 3], stride = [1, 1], mode = "fill")]
struct SeedFill;

#[test]
fn fill_value_is_an_argument_of_run() {
    let mut out = [0f32; 9];
    SeedFill.run(&[0.0; 4], &mut out, 1.0).unwrap();
    assert_eq!(out, [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
    SeedFill.run(&[1.0, 2.0, 3.0, 4.0], &mut out, -7.5).unwrap();
    assert_eq!(out, [1.0, 2.0, -7.5, 3.0, 4.0, -7.5, -7.5, -7.5, -7.5]);
    // The Kernel trait has no fill argument: it fills with FILL, the spec's default 0.
    assert_eq!(SeedFill::FILL, 0.0);
}

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f16", input = [3], start = [-1], size = [5], stride = [1], mode = "fill", fill = 2.5)]
struct FillF16;

#[test]
fn f16_kernels_take_half_and_bake_the_fill_attribute() {
    assert_eq!(FillF16::FILL, f16::from_f32(2.5));
    let input = [f16::from_f32(1.0), f16::from_f32(2.0), f16::from_f32(3.0)];
    let mut out = [f16::ZERO; 5];
    FillF16.run(&input, &mut out, FillF16::FILL).unwrap();
    let got: Vec<f32> = out.iter().map(|v| v.to_f32()).collect();
    assert_eq!(got, [2.5, 1.0, 2.0, 3.0, 2.5]);
    // Through the trait: the baked fill.
    let t =
        Tensor::from_bytes(DType::F16, &[3], &input.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>()).unwrap();
    let out = FillF16.run_tensor(Some(t.view())).unwrap();
    assert_eq!(out.element_f64(0), Some(2.5));
    assert_eq!(out.element_f64(4), Some(2.5));
}

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "bf16", input = [4], start = [3], size = [4], stride = [-1])]
struct ReverseBf16;

#[test]
fn bf16_kernels_take_bf16() {
    let input: Vec<bf16> = (0..4).map(|i| bf16::from_f32(i as f32)).collect();
    let mut out = [bf16::ZERO; 4];
    ReverseBf16.run(&input, &mut out).unwrap();
    assert_eq!(out.map(|v| v.to_f32()), [3.0, 2.0, 1.0, 0.0]);
}

#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.slice", dtype = "c64", input = [2, 3], starts = [0, 2], ends = [2, -4], steps = [1, -1])]
struct ComplexRows;

#[test]
fn complex_kernels_take_complex() {
    let input: Vec<Complex<f32>> = (0..6).map(|i| Complex::new(i as f32, -(i as f32))).collect();
    let mut out = [Complex::new(0.0, 0.0); 6];
    ComplexRows.run(&input, &mut out).unwrap();
    let re: Vec<f32> = out.iter().map(|c| c.re).collect();
    assert_eq!(re, [2.0, 1.0, 0.0, 5.0, 4.0, 3.0]);
    assert!(out.iter().all(|c| c.im == -c.re));
}

#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.slice", dtype = "string", input = [3], starts = [-1], ends = [-4], steps = [-1])]
struct ReverseStrings;

#[test]
fn string_kernels_move_strings() {
    let input: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
    let mut out = vec![String::new(); 3];
    ReverseStrings.run(&input, &mut out).unwrap();
    assert_eq!(out, ["c", "b", "a"]);
    // Strings are not bytes.
    assert!(ReverseStrings.run_bytes(Some(&[]), &mut []).is_err());
    // And the reference agrees.
    let req = Request::new("onnx.slice")
        .input("data", Tensor::from_strings(&[3], &input).unwrap())
        .input("starts", Tensor::from_i64s(&[-1]))
        .input("ends", Tensor::from_i64s(&[-4]))
        .input("steps", Tensor::from_i64s(&[-1]));
    let expected = kerfx::run_reference(&req).unwrap();
    assert_eq!(expected.strings().unwrap().to_vec(), out);
}

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i4", input = [2, 5], start = [0, 1], size = [2, 3], stride = [1, 1])]
struct PackedI4;

#[test]
fn int4_kernels_take_packed_bytes() {
    // Elements 0..10 as nibbles, low nibble first: bytes 0x10, 0x32, 0x54, 0x76, 0x98.
    let input = [0x10u8, 0x32, 0x54, 0x76, 0x98];
    assert_eq!(PackedI4::INPUT_LEN, 5);
    assert_eq!(PackedI4::OUTPUT_LEN, 3);
    let mut out = [0xffu8; 3];
    PackedI4.run(&input, &mut out).unwrap();
    // Elements 1,2,3,6,7,8; six nibbles.
    assert_eq!(out, [0x21, 0x63, 0x87]);
}

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i4", input = [5], start = [0], size = [3], stride = [2])]
struct OddI4;

#[test]
fn an_odd_nibble_count_leaves_the_last_high_nibble_zero() {
    let mut out = [0xffu8; 2];
    OddI4.run(&[0x10, 0x32, 0x04], &mut out).unwrap();
    assert_eq!(out, [0x20, 0x04]);
}

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f8e4m3fn", input = [4], start = [1], size = [2], stride = [2])]
struct Fp8;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "bool", input = [3], start = [0], size = [4], stride = [1], mode = "clamp")]
struct Bools;

#[test]
fn fp8_is_raw_bytes_and_bool_is_bool() {
    let mut out = [0u8; 2];
    Fp8.run(&[0x38, 0x40, 0x48, 0x7e], &mut out).unwrap();
    assert_eq!(out, [0x40, 0x7e]);
    let mut out = [false; 4];
    Bools.run(&[true, false, true], &mut out).unwrap();
    assert_eq!(out, [true, false, true, true]);
}

#[derive(kerfx::Kernel)]
#[kerf(op = "openvino.strided_slice", dtype = "f32", input = [1, 2, 3, 2], begin = [0, 1, 0, 0], end = [0, 0, 0, 0], begin_mask = [1, 0, 1, 1], end_mask = [1, 0, 1, 1], shrink_axis_mask = [0, 1, 0, 0])]
struct Shrink;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.fill", dimensions = [2, 3], operation = "linspace", beta = [3.0, 1.0], to_type = "i32")]
struct Linspace;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.fill", dimensions = [4, 4], operation = "random_normal", seed = 9, to_type = "f16")]
struct Normal;

#[test]
fn constants_describe_the_kernel() {
    assert_eq!(Shrink::INPUT_SHAPE, [1, 2, 3, 2]);
    assert_eq!(Shrink::OUTPUT_SHAPE, [1, 3, 2]);
    assert_eq!((Shrink::INPUT_LEN, Shrink::OUTPUT_LEN), (12, 6));
    assert_eq!(Shrink::DTYPE, DType::F32);
    assert_eq!(Linspace::OUTPUT_SHAPE, [2, 3]);
    assert_eq!(Linspace::DTYPE, DType::I32);
    assert_eq!(Normal::DTYPE, DType::F16);
    assert_eq!(Linspace.input_shape(), None);
    assert_eq!(Shrink.input_shape(), Some(&[1u64, 2, 3, 2][..]));
}

#[test]
fn fills_write_typed_and_byte_outputs_alike() {
    let mut out = [0i32; 6];
    Linspace.run(&mut out).unwrap();
    assert_eq!(out, [0, 1, 2, 3, 4, 5]);
    let mut typed = [f16::ZERO; 16];
    Normal.run(&mut typed).unwrap();
    let mut bytes = [0u8; 32];
    Normal.run_bytes(None, &mut bytes).unwrap();
    let from_bytes: Vec<f16> = bytes.chunks(2).map(|b| f16::from_le_bytes([b[0], b[1]])).collect();
    assert_eq!(typed.to_vec(), from_bytes);
    for (i, v) in typed.iter().enumerate() {
        let want = f16::from_f32(kerfx::random::normal_f32(9, i as u64, 0.0, 1.0));
        assert_eq!(v.to_bits(), want.to_bits());
    }
}

#[test]
fn wrong_lengths_are_errors_not_panics() {
    let mut out = [0f32; 9];
    let err = SeedFill.run(&[0.0; 3], &mut out, 0.0).unwrap_err();
    assert!(matches!(err, kerfx::Error::BufferLength { expected: 4, found: 3, .. }), "{err}");
    let err = SeedFill.run(&[0.0; 4], &mut out[..8], 0.0).unwrap_err();
    assert!(matches!(err, kerfx::Error::BufferLength { expected: 9, found: 8, .. }), "{err}");
    let err = SeedFill.run_bytes(Some(&[0; 15]), &mut [0; 36]).unwrap_err();
    assert!(matches!(err, kerfx::Error::BufferLength { expected: 16, found: 15, .. }), "{err}");
    assert!(SeedFill.run_bytes(None, &mut [0; 36]).is_err());
    assert!(Linspace.run(&mut [0; 5]).is_err());
    assert!(Linspace.run_bytes(Some(&[]), &mut [0; 24]).is_err());
}

#[test]
fn derived_kernels_stand_behind_dyn_kernel() {
    let kernels: Vec<Box<dyn Kernel>> = vec![Box::new(Shrink), Box::new(Linspace), Box::new(SeedFill)];
    let reference: Box<dyn Kernel> = Box::new(
        kerfx::ReferenceKernel::new(
            &Request::new("tensorrt.fill")
                .attr("dimensions", [2, 3])
                .attr("operation", "linspace")
                .attr("beta", vec![3.0, 1.0])
                .attr("to_type", "i32"),
        )
        .unwrap(),
    );
    let a = kernels[1].run_tensor(None).unwrap();
    let b = reference.run_tensor(None).unwrap();
    assert_eq!(a, b);
    assert_eq!(kernels[0].output_shape(), &[1, 3, 2]);
    assert_eq!(kernels[2].dtype(), DType::F32);
}

#[test]
fn unaligned_byte_buffers_are_fine() {
    // run_bytes reads and writes element-sized byte arrays: no alignment is assumed.
    let storage = [0u8; 64];
    let input = &storage[1..1 + 48];
    let mut out_storage = [0u8; 40];
    Shrink.run_bytes(Some(input), &mut out_storage[3..3 + 24]).unwrap();
}
