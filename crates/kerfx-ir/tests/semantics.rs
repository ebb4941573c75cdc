//! One named test per rule of specs/SEMANTICS.md, through the frontends and the reference.

mod common;
use common::*;
use kerfx_ir::{BoundaryMode, DType, Request, Tensor};

// ---------------------------------------------------------------- tensorrt.slice

#[test]
fn trt_seed_example_contiguous_window() {
    let out = run(&trt(arange_i32(&[3, 3]), &[0, 0], &[2, 2], &[1, 1], "strict_bounds")).unwrap();
    assert_eq!(out.shape(), &[2, 2]);
    assert_eq!(ints(&out), [0, 1, 3, 4]);
}

#[test]
fn trt_seed_example_fill_mode() {
    let req = trt(f32s(&[2, 2], &[0.0; 4]), &[0, 0], &[3, 3], &[1, 1], "fill").input("fill", scalar_f64(1.0));
    let out = run(&req).unwrap();
    assert_eq!(floats(&out), [0., 0., 1., 0., 0., 1., 1., 1., 1.]);
}

#[test]
fn trt_default_mode_is_strict_bounds() {
    let req = Request::new("tensorrt.slice")
        .input("input", arange_i32(&[4]))
        .attr("start", [2])
        .attr("size", [3])
        .attr("stride", [1]);
    assert!(error(&req).contains("strict_bounds_in_range"));
}

#[test]
fn trt_input_replaces_attribute() {
    let req = trt(arange_i32(&[5]), &[0], &[2], &[1], "strict_bounds").input("start", Tensor::from_i64s(&[3]));
    assert_eq!(ints(&run(&req).unwrap()), [3, 4]);
}

#[test]
fn trt_i32_parameter_inputs_are_accepted() {
    let start = Tensor::from_bytes(DType::I32, &[1], &2i32.to_le_bytes()).unwrap();
    let req = trt(arange_i32(&[5]), &[0], &[2], &[1], "strict_bounds").input("start", start);
    assert_eq!(ints(&run(&req).unwrap()), [2, 3]);
}

#[test]
fn trt_axes_select_entries_and_keep_other_axes_whole() {
    let req = trt(arange_i32(&[2, 4]), &[1], &[2], &[2], "strict_bounds").attr("axes", [-1]);
    let out = run(&req).unwrap();
    assert_eq!(out.shape(), &[2, 2]);
    assert_eq!(ints(&out), [1, 3, 5, 7]);
}

#[test]
fn trt_repeated_axes_are_refused() {
    let req = trt(arange_i32(&[2, 4]), &[0, 0], &[1, 1], &[1, 1], "wrap").attr("axes", [1, -1]);
    assert!(error(&req).contains("axes_unique"));
}

#[test]
fn trt_axes_out_of_range_are_refused() {
    let req = trt(arange_i32(&[2, 4]), &[0], &[1], &[1], "wrap").attr("axes", [2]);
    let e = error(&req);
    assert!(e.contains("axes_in_range") && e.contains("axes[0] = 2"), "{e}");
}

#[test]
fn trt_parameter_lengths_must_match_rank() {
    let e = error(&trt(arange_i32(&[2, 4]), &[0], &[1, 1], &[1, 1], "wrap"));
    assert!(e.contains("param_lengths") && e.contains("`start`"), "{e}");
}

#[test]
fn trt_negative_size_is_refused() {
    let e = error(&trt(arange_i32(&[4]), &[0], &[-1], &[1], "wrap"));
    assert!(e.contains("size_non_negative") && e.contains("axis 0"), "{e}");
}

#[test]
fn trt_negative_and_zero_strides() {
    let out = run(&trt(arange_i32(&[5]), &[4], &[3], &[-2], "strict_bounds")).unwrap();
    assert_eq!(ints(&out), [4, 2, 0]);
    let out = run(&trt(arange_i32(&[5]), &[3], &[4], &[0], "strict_bounds")).unwrap();
    assert_eq!(ints(&out), [3, 3, 3, 3]);
}

#[test]
fn trt_strict_bounds_checks_both_ends() {
    let e = error(&trt(arange_i32(&[5]), &[4], &[3], &[-3], "strict_bounds"));
    assert!(e.contains("strict_bounds_in_range") && e.contains("4..=-2"), "{e}");
}

#[test]
fn trt_empty_output_is_never_out_of_bounds() {
    let out = run(&trt(arange_i32(&[2, 3]), &[100, -100], &[0, 5], &[1, 7], "strict_bounds")).unwrap();
    assert_eq!(out.shape(), &[0, 5]);
}

#[test]
fn trt_wrap_is_floor_modulo() {
    let out = run(&trt(arange_i32(&[3]), &[-4], &[7], &[1], "wrap")).unwrap();
    assert_eq!(ints(&out), [2, 0, 1, 2, 0, 1, 2]);
}

#[test]
fn trt_clamp_repeats_the_edges() {
    let out = run(&trt(arange_i32(&[3]), &[-2], &[7], &[1], "clamp")).unwrap();
    assert_eq!(ints(&out), [0, 0, 0, 1, 2, 2, 2]);
}

#[test]
fn trt_fill_value_defaults_to_zero() {
    let data = Tensor::from_bytes(DType::I32, &[2], &[7, 0, 0, 0, 8, 0, 0, 0]).unwrap();
    let out = run(&trt(data, &[-1], &[4], &[1], "fill")).unwrap();
    assert_eq!(ints(&out), [0, 7, 8, 0]);
}

#[test]
fn trt_fill_input_outside_fill_mode_is_refused() {
    let req = trt(arange_i32(&[3]), &[0], &[2], &[1], "clamp").input("fill", scalar_f64(1.0));
    assert!(error(&req).contains("fill_only_in_fill_mode"));
}

#[test]
fn trt_reflect_matches_numpy_reflect_with_repeated_bounces() {
    // np.pad(np.arange(4), (7, 7), mode="reflect")
    let out = run(&trt(arange_i32(&[4]), &[-7], &[18], &[1], "reflect")).unwrap();
    assert_eq!(ints(&out), [1, 0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2]);
}

#[test]
fn trt_reflect_on_extent_one_reads_zero() {
    let out = run(&trt(arange_i32(&[1]), &[-3], &[5], &[2], "reflect")).unwrap();
    assert_eq!(ints(&out), [0; 5]);
}

#[test]
fn trt_empty_input_axis_fills_in_fill_mode_and_fails_otherwise() {
    let data = Tensor::zeros(DType::I32, &[0, 2]).unwrap();
    let out = run(&trt(data.clone(), &[0, 0], &[2, 2], &[1, 1], "fill").input("fill", scalar_i64(9))).unwrap();
    assert_eq!(ints(&out), [9; 4]);
    let modes = kerfx_testkit::boundary_modes("tensorrt.slice", "mode");
    for mode in modes.into_iter().filter(|&m| m != BoundaryMode::Fill).map(BoundaryMode::name) {
        let e = error(&trt(data.clone(), &[0, 0], &[2, 2], &[1, 1], mode));
        assert!(e.contains("empty_input_axis") || e.contains("strict_bounds_in_range"), "{mode}: {e}");
    }
}

#[test]
fn trt_clamp_fill_reflect_forbid_i64_and_bf16() {
    for mode in ["clamp", "fill", "reflect"] {
        let e = error(&trt(arange_i64(&[3]), &[0], &[2], &[1], mode));
        assert!(e.contains("mode_dtype") && e.contains("i64"), "{mode}: {e}");
        let bf = Tensor::zeros(DType::BF16, &[3]).unwrap();
        let e = error(&trt(bf, &[0], &[2], &[1], mode));
        assert!(e.contains("mode_dtype") && e.contains("bf16"), "{mode}: {e}");
    }
    assert_eq!(ints(&run(&trt(arange_i64(&[3]), &[-1], &[2], &[1], "wrap")).unwrap()), [2, 0]);
}

#[test]
fn trt_types_outside_the_type_set_are_refused() {
    let e = error(&trt(Tensor::zeros(DType::F64, &[3]).unwrap(), &[0], &[2], &[1], "wrap"));
    assert!(e.contains("input `input` has dtype f64"), "{e}");
}

#[test]
fn trt_int4_is_packed_low_nibble_first() {
    // values 1..=5 packed: [0x21, 0x43, 0x05]
    let data = Tensor::from_bytes(DType::I4, &[5], &[0x21, 0x43, 0x05]).unwrap();
    let out = run(&trt(data, &[1], &[3], &[1], "strict_bounds")).unwrap();
    // 2, 3, 4 → [0x32, 0x04]: an odd count leaves the last high nibble zero
    assert_eq!(out.bytes().unwrap(), &[0x32, 0x04]);
}

#[test]
fn trt_int4_fill_value_is_sign_checked() {
    let data = Tensor::from_bytes(DType::I4, &[2], &[0x21]).unwrap();
    let out = run(&trt(data.clone(), &[0], &[3], &[1], "fill").input("fill", scalar_i64(-8))).unwrap();
    assert_eq!(out.bytes().unwrap(), &[0x21, 0x08]);
    let e = error(&trt(data, &[0], &[3], &[1], "fill").input("fill", scalar_i64(8)));
    assert!(e.contains("fill_value_representable"), "{e}");
}

#[test]
fn trt_fp8_e4m3fn_largest_finite_is_448() {
    let data = Tensor::zeros(DType::F8E4M3FN, &[1]).unwrap();
    let out = run(&trt(data.clone(), &[0], &[2], &[1], "fill").input("fill", scalar_f64(448.0))).unwrap();
    assert_eq!(out.bytes().unwrap(), &[0x00, 0x7e]);
    let e = error(&trt(data, &[0], &[2], &[1], "fill").input("fill", scalar_f64(500.0)));
    assert!(e.contains("fill_value_representable"), "{e}");
}

#[test]
fn trt_integer_fill_values_must_be_finite_whole_and_in_range() {
    let data = arange_i32(&[2]);
    for (v, why) in [(f64::NAN, "NaN"), (1.5, "whole"), (3e9, "range")] {
        let e = error(&trt(data.clone(), &[0], &[3], &[1], "fill").input("fill", scalar_f64(v)));
        assert!(e.contains("fill_value_representable") && e.contains(why), "{v}: {e}");
    }
}

#[test]
fn trt_index_arithmetic_never_wraps() {
    let e = error(&trt(arange_i32(&[3]), &[i64::MAX - 1], &[4], &[1], "wrap"));
    assert!(e.contains("overflows"), "{e}");
    // Far outside but representable: exact modulo.
    let out = run(&trt(arange_i32(&[3]), &[i64::MIN], &[2], &[1], "wrap")).unwrap();
    let m = (i64::MIN as i128).rem_euclid(3) as i64;
    assert_eq!(ints(&out), [m, (m + 1) % 3]);
}

// ---------------------------------------------------------------- tensorrt.fill

fn fill(op: &str, dims: &[i64], to_type: &str) -> Request {
    Request::new("tensorrt.fill").attr("dimensions", dims.to_vec()).attr("operation", op).attr("to_type", to_type)
}

#[test]
fn fill_seed_example_linspace() {
    let out = run(&fill("linspace", &[2, 3], "i32").attr("alpha", 0.0).attr("beta", vec![3.0, 1.0])).unwrap();
    assert_eq!(out.dtype(), DType::I32);
    assert_eq!(ints(&out), [0, 1, 2, 3, 4, 5]);
}

#[test]
fn fill_output_types_per_operation() {
    for t in ["i32", "i64", "f32"] {
        assert!(run(&fill("linspace", &[2], t)).is_ok(), "{t}");
    }
    assert!(error(&fill("linspace", &[2], "f16")).contains("linspace_types"));
    for op in ["random_uniform", "random_normal"] {
        for t in ["f16", "f32"] {
            assert!(run(&fill(op, &[2], t)).is_ok(), "{op} {t}");
        }
        for t in ["i32", "i64"] {
            assert!(error(&fill(op, &[2], t)).contains("random_types"), "{op} {t}");
        }
    }
}

#[test]
fn fill_volume_is_at_most_2_pow_31_minus_1() {
    assert!(error(&fill("linspace", &[1 << 16, 1 << 15], "f32")).contains("volume_limit"));
    let plan = kerfx_ir::lower(&fill("linspace", &[(1 << 31) - 1], "f32")).unwrap();
    assert_eq!(plan.output_shape(), &[(1u64 << 31) - 1]);
}

#[test]
fn fill_f32_linspace_sums_in_f64_and_rounds_once() {
    // alpha = 1, beta = [2^-24, 2^-24]: in f32, 1 + 2^-24 rounds to 1 at each step;
    // in f64 the sum at [1,1] is 1 + 2^-23, which f32 represents exactly.
    let b = 2f64.powi(-24);
    let out = run(&fill("linspace", &[2, 2], "f32").attr("alpha", 1.0).attr("beta", vec![b, b])).unwrap();
    assert_eq!(floats(&out)[3], 1.0 + 2f64.powi(-23));
}

#[test]
fn fill_integer_linspace_is_exact_and_range_checked() {
    let out = run(&fill("linspace", &[3], "i64").attr("alpha", (1i64 << 60) as f64).attr("beta", 1.0)).unwrap();
    assert_eq!(ints(&out), [1 << 60, (1 << 60) + 1, (1 << 60) + 2]);
    let e = error(&fill("linspace", &[2, 2], "i32").attr("alpha", 2147483646.0).attr("beta", vec![1.0, 1.0]));
    assert!(e.contains("linspace_range"), "{e}");
    let e = error(&fill("linspace", &[2], "i32").attr("alpha", 0.5));
    assert!(e.contains("linspace_range"), "{e}");
}

#[test]
fn fill_scalar_beta_only_for_rank_one() {
    assert_eq!(floats(&run(&fill("linspace", &[3], "f32").attr("beta", 2.0)).unwrap()), [0.0, 2.0, 4.0]);
    assert!(error(&fill("linspace", &[2, 2], "f32").attr("beta", 2.0)).contains("beta_length"));
    assert!(error(&fill("linspace", &[2, 2], "f32").attr("beta", vec![1.0, 2.0, 3.0])).contains("beta_length"));
}

#[test]
fn fill_alpha_and_beta_both_static_or_both_inputs() {
    let e = error(&fill("linspace", &[2], "f32").input("alpha", scalar_f64(1.0)));
    assert!(e.contains("alpha_beta_together"), "{e}");
    let req = fill("linspace", &[2], "f32").input("alpha", scalar_f64(1.0)).input("beta", scalar_f64(0.5));
    assert_eq!(floats(&run(&req).unwrap()), [1.0, 1.5]);
}

/// "Values converted to a tensor's type": whole numbers held in a float tensor are
/// integral, so float tensors are valid runtime alpha/beta of an integer linspace.
#[test]
fn fill_integer_linspace_takes_whole_numbers_from_float_tensors() {
    let alpha = Tensor::from_bytes(DType::F32, &[], &7f32.to_le_bytes()).unwrap();
    let beta_bytes: Vec<u8> = [-2f32, 3.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let beta = Tensor::from_bytes(DType::F32, &[2], &beta_bytes).unwrap();
    let req = fill("linspace", &[2, 3], "i32").input("alpha", alpha).input("beta", beta);
    assert_eq!(ints(&run(&req).unwrap()), [7, 10, 13, 5, 8, 11]);
    // A fraction in the float tensor is still refused.
    let half = Tensor::from_bytes(DType::F32, &[], &0.5f32.to_le_bytes()).unwrap();
    let req = fill("linspace", &[2], "i32").input("alpha", half).input("beta", scalar_f64(1.0));
    assert!(error(&req).contains("linspace_range"));
}

/// "Values converted to a tensor's type": a scalar input may be given as shape [] or [1],
/// for every scalar input alike (slice's fill, fill's alpha and the random ops' beta).
#[test]
fn scalar_inputs_take_shape_one() {
    let one = |v: f64| Tensor::from_bytes(DType::F64, &[1], &v.to_le_bytes()).unwrap();
    let req = fill("linspace", &[3], "f32").input("alpha", one(1.0)).input("beta", one(0.5));
    assert_eq!(floats(&run(&req).unwrap()), [1.0, 1.5, 2.0]);
    let req = fill("random_uniform", &[4], "f32").input("alpha", one(2.0)).input("beta", one(3.0));
    assert!(floats(&run(&req).unwrap()).iter().all(|v| (2.0..3.0).contains(v)));
    let req = trt(f32s(&[1], &[0.0]), &[0], &[2], &[1], "fill").input("fill", one(4.0));
    assert_eq!(floats(&run(&req).unwrap()), [0.0, 4.0]);
}

/// "Values converted to a tensor's type": one rounding from the exact value, never
/// through f32 (which turns each of these into a tie that rounds the other way).
#[test]
fn fill_values_round_once_to_narrow_floats() {
    let case = |dtype: DType, fill: f64| {
        let input = Tensor::zeros(dtype, &[1]).unwrap();
        let req = trt(input, &[0], &[2], &[1], "fill").input("fill", scalar_f64(fill));
        floats(&run(&req).unwrap())[1]
    };
    assert_eq!(case(DType::F8E4M3FN, 1.0625000001), 1.125);
    assert_eq!(case(DType::F16, 1.0004882812509095), 1.0009765625);
    assert_eq!(case(DType::F8E4M3FN, 464.0), 448.0);
}

#[test]
fn fill_dimensions_input_replaces_attribute() {
    let req = fill("linspace", &[9], "f32").input("dimensions", Tensor::from_i64s(&[2]));
    assert_eq!(run(&req).unwrap().shape(), &[2]);
}

#[test]
fn fill_random_uniform_is_in_half_open_range_with_the_right_moments() {
    let out =
        run(&fill("random_uniform", &[1 << 16], "f32").attr("alpha", -2.0).attr("beta", 3.0).attr("seed", 5)).unwrap();
    let v = floats(&out);
    assert!(v.iter().all(|x| (-2.0..3.0).contains(x)));
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64;
    assert!((mean - 0.5).abs() < 0.03, "mean {mean}");
    assert!((var.sqrt() - 5.0 / 12f64.sqrt()).abs() < 0.02, "std {}", var.sqrt());
}

#[test]
fn fill_random_normal_has_the_right_moments() {
    for t in ["f32", "f16"] {
        let out =
            run(&fill("random_normal", &[1 << 16], t).attr("alpha", -1.0).attr("beta", 0.5).attr("seed", 9)).unwrap();
        let v = floats(&out);
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let std = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64).sqrt();
        assert!((mean + 1.0).abs() < 0.01, "{t} mean {mean}");
        assert!((std - 0.5).abs() < 0.01, "{t} std {std}");
    }
}

/// Seeds take all of u64: past 2^63 − 1 as `AttrValue::UInt` or as a decimal string
/// (request files), each the same seed as the integer; anything else names `seed`.
#[test]
fn fill_seed_is_any_u64_or_its_decimal_string() {
    use kerfx_ir::AttrValue;
    let normal = |seed: AttrValue| run(&fill("random_normal", &[5], "f32").attr("seed", seed));
    let top = normal(AttrValue::UInt(u64::MAX)).unwrap();
    assert_eq!(normal(AttrValue::Str(u64::MAX.to_string())).unwrap(), top);
    assert_eq!(top.element_f64(3), Some(kerfx_ir::random::normal_f32(u64::MAX, 3, 0.0, 1.0) as f64));
    assert_ne!(normal(AttrValue::UInt(1 << 63)).unwrap(), top);
    for (a, b) in [(AttrValue::Int(7), AttrValue::UInt(7)), (AttrValue::Int(7), AttrValue::Str("7".into()))] {
        assert_eq!(normal(a).unwrap(), normal(b).unwrap());
    }
    for bad in ["18446744073709551616", "-1", "+7", " 7", "0x10", "", "seven"] {
        let e = normal(AttrValue::Str(bad.into())).unwrap_err().to_string();
        assert!(e.contains("attribute `seed`") && e.contains("decimal strings"), "{bad:?}: {e}");
    }
    let e = normal(AttrValue::Int(-1)).unwrap_err().to_string();
    assert!(e.contains("attribute `seed` = -1 is not allowed"), "{e}");
    // Other integer attributes keep i64.
    let e = run(&fill("linspace", &[2], "f32").attr("dimensions", AttrValue::UInt(2))).unwrap_err().to_string();
    assert!(e.contains("attribute `dimensions` must be of type int_list"), "{e}");
}

#[test]
fn fill_random_value_is_a_pure_function_of_seed_and_index() {
    let a = run(&fill("random_normal", &[2, 3], "f32").attr("seed", 42)).unwrap();
    let b = run(&fill("random_normal", &[6], "f32").attr("seed", 42)).unwrap();
    let c = run(&fill("random_normal", &[6], "f32").attr("seed", 43)).unwrap();
    assert_eq!(a.bytes(), b.bytes());
    assert_ne!(b.bytes(), c.bytes());
    assert_eq!(a.element_f64(4), Some(kerfx_ir::random::normal_f32(42, 4, 0.0, 1.0) as f64));
}

#[test]
fn fill_random_parameter_rules() {
    assert!(error(&fill("random_uniform", &[2], "f32").attr("alpha", 1.0).attr("beta", 1.0)).contains("uniform_range"));
    assert!(error(&fill("random_normal", &[2], "f32").attr("beta", -1.0)).contains("normal_std"));
}

// ---------------------------------------------------------------- onnx.slice

#[test]
fn onnx_axes_and_steps_default() {
    let out = run(&onnx(13, arange_i32(&[3, 4]), &[1, 1], &[3, 3], None, None)).unwrap();
    assert_eq!(out.shape(), &[2, 2]);
    assert_eq!(ints(&out), [5, 6, 9, 10]);
}

#[test]
fn onnx_parameter_lengths_must_match() {
    let e = error(&onnx(13, arange_i32(&[3, 4]), &[1, 1], &[3], None, None));
    assert!(e.contains("lengths_equal") && e.contains("`ends`"), "{e}");
}

#[test]
fn onnx_repeated_axes_zero_steps_and_axes_out_of_range_are_refused() {
    assert!(error(&onnx(13, arange_i32(&[3, 4]), &[0, 0], &[1, 1], Some(&[1, -1]), None)).contains("axes_unique"));
    assert!(error(&onnx(13, arange_i32(&[3, 4]), &[0], &[1], None, Some(&[0]))).contains("step_nonzero"));
    assert!(error(&onnx(13, arange_i32(&[3, 4]), &[0], &[1], Some(&[2]), None)).contains("axis_in_range"));
    assert!(error(&onnx(13, arange_i32(&[3, 4]), &[0], &[1], Some(&[-3]), None)).contains("axis_in_range"));
}

#[test]
fn onnx_negative_axes_only_from_version_11() {
    for v in [1, 10] {
        let e = error(&onnx(v, arange_i32(&[3, 4]), &[0], &[1], Some(&[-1]), None));
        assert!(e.contains("negative_axes_from_11"), "v{v}: {e}");
    }
    for v in [11, 13] {
        assert_eq!(ints(&run(&onnx(v, arange_i32(&[3, 4]), &[3], &[4], Some(&[-1]), None)).unwrap()), [3, 7, 11]);
    }
}

#[test]
fn onnx_version_1_takes_attributes_and_10_takes_inputs() {
    let out = run(&onnx(1, arange_i32(&[4]), &[1], &[3], None, None)).unwrap();
    assert_eq!(ints(&out), [1, 2]);
    let req = Request::new("onnx.slice").version(10).input("data", arange_i32(&[4])).attr("starts", [1]);
    assert!(error(&req).contains("unknown attribute `starts` in version 10"));
    let req = Request::new("onnx.slice").version(1).input("data", arange_i32(&[4])).attr("starts", [1]);
    assert!(error(&req).contains("starts_ends_given"));
}

#[test]
fn onnx_empty_axis_stays_empty() {
    let out =
        run(&onnx(13, Tensor::zeros(DType::I32, &[0, 3]).unwrap(), &[-5], &[5], Some(&[0]), Some(&[-1]))).unwrap();
    assert_eq!(out.shape(), &[0, 3]);
}

#[test]
fn onnx_clamps_follow_the_step_sign() {
    // step > 0: start and end clamp to [0, d]
    assert_eq!(ints(&run(&onnx(13, arange_i32(&[5]), &[-100], &[100], None, Some(&[2]))).unwrap()), [0, 2, 4]);
    // step < 0: start clamps to [0, d-1], end to [-1, d-1]
    assert_eq!(ints(&run(&onnx(13, arange_i32(&[5]), &[100], &[-100], None, Some(&[-2]))).unwrap()), [4, 2, 0]);
    assert_eq!(ints(&run(&onnx(13, arange_i32(&[5]), &[3], &[1], None, Some(&[1]))).unwrap()), Vec::<i64>::new());
}

#[test]
fn onnx_divergence_onnxruntime_int_max_end_with_negative_step() {
    // ONNX Runtime gives all five; the spec rule (kerf) gives none.
    let out = run(&onnx(13, arange_i32(&[5]), &[-1], &[i64::MAX], None, Some(&[-1]))).unwrap();
    assert_eq!(out.shape(), &[0]);
    let out = run(&onnx(13, arange_i32(&[5]), &[-1], &[i32::MAX as i64], None, Some(&[-1]))).unwrap();
    assert_eq!(out.shape(), &[0]);
}

#[test]
fn onnx_divergence_python_reference_start_below_minus_d_with_negative_step() {
    // numpy x[-100:-200:-1] is []; the rule (and ONNX Runtime, OpenVINO) give [x0].
    assert_eq!(ints(&run(&onnx(13, arange_i32(&[5]), &[-100], &[-200], None, Some(&[-1]))).unwrap()), [0]);
}

#[test]
fn onnx_bf16_only_from_version_13() {
    let bf = Tensor::zeros(DType::BF16, &[4]).unwrap();
    assert!(error(&onnx(11, bf.clone(), &[0], &[2], None, None)).contains("bf16_from_13"));
    assert_eq!(run(&onnx(13, bf, &[0], &[2], None, None)).unwrap().shape(), &[2]);
}

#[test]
fn onnx_slices_strings_and_complex() {
    let s = Tensor::from_strings(&[3], ["a", "bc", ""]).unwrap();
    let out = run(&onnx(13, s, &[-1], &[i64::MIN], None, Some(&[-1]))).unwrap();
    assert_eq!(out.strings().unwrap().to_vec(), ["", "bc", "a"]);
    let c: Vec<u8> = (0..6u8).flat_map(|i| [i; 16]).collect();
    let c = Tensor::from_bytes(DType::C128, &[6], &c).unwrap();
    let out = run(&onnx(13, c, &[1], &[6], None, Some(&[3]))).unwrap();
    assert_eq!(out.bytes().unwrap(), [[1u8; 16], [4u8; 16]].concat());
}

// ---------------------------------------------------------------- openvino.strided_slice

const NONE: &[i64] = &[];

#[test]
fn ov_seed_example_masks() {
    let out = run(&ov(
        arange_i32(&[2, 3, 4]),
        &[1, 0, 0],
        &[0, 0, 2],
        &[1, 1, 1],
        [&[0, 1, 1], &[1, 1, 0], NONE, NONE, NONE],
    ))
    .unwrap();
    assert_eq!(out.shape(), &[1, 3, 2]);
    assert_eq!(ints(&out), [12, 13, 16, 17, 20, 21]);
}

#[test]
fn ov_seed_example_new_axis() {
    let out = run(&ov(
        arange_i32(&[2, 3, 4]),
        &[0, 0, 0],
        &[0, 0, 0],
        &[1, 1, 1],
        [&[1, 1, 1], &[1, 1, 1], &[1, 0, 0], NONE, NONE],
    ))
    .unwrap();
    // new axis first, then the first two entries cover axes 0 and 1; axis 2 stays whole.
    assert_eq!(out.shape(), &[1, 2, 3, 4]);
    assert_eq!(ints(&out), (0..24).collect::<Vec<_>>());
}

#[test]
fn ov_seed_example_shrink() {
    let plan = kerfx_ir::lower(&ov(
        Tensor::zeros(DType::U8, &[1, 2, 384, 640, 8]).unwrap(),
        &[0, 1, 0, 0, 0],
        &[0, 0, 0, 0, 0],
        &[1, 1, 1, 1, 1],
        [&[1, 0, 1, 1, 1], &[1, 0, 1, 1, 1], NONE, &[0, 1, 0, 0, 0], NONE],
    ))
    .unwrap();
    assert_eq!(plan.output_shape(), &[1, 384, 640, 8]);
}

#[test]
fn ov_short_masks_are_padded_and_long_ones_cut() {
    let out =
        run(&ov(arange_i32(&[2, 3]), &[1, 1], &[2, 3], &[1, 1], [&[0], &[0, 0, 1, 1], NONE, NONE, NONE])).unwrap();
    assert_eq!(ints(&out), [4, 5]);
}

#[test]
fn ov_more_than_one_ellipsis_is_refused() {
    let e = error(&ov(arange_i32(&[2, 3]), &[0, 0], &[1, 1], &[1, 1], [NONE, NONE, NONE, NONE, &[1, 1]]));
    assert!(e.contains("single_ellipsis"), "{e}");
}

#[test]
fn ov_implicit_ellipsis_follows_the_last_entry() {
    let out = run(&ov(arange_i32(&[2, 3]), &[1], &[2], &[1], [NONE, NONE, NONE, NONE, NONE])).unwrap();
    assert_eq!(out.shape(), &[1, 3]);
    assert_eq!(ints(&out), [3, 4, 5]);
}

#[test]
fn ov_ellipsis_consumes_the_axes_the_others_leave() {
    let out = run(&ov(arange_i32(&[2, 3, 4]), &[0, 1], &[0, 3], &[1, 2], [NONE, NONE, NONE, NONE, &[1, 0]])).unwrap();
    assert_eq!(out.shape(), &[2, 3, 1]);
    assert_eq!(ints(&out), [1, 5, 9, 13, 17, 21]);
}

#[test]
fn ov_entry_with_several_bits_is_taken_by_the_first_rule() {
    // new_axis and shrink both set on entry 0: new axis wins (consumes no input axis),
    // so entry 1 slices axis 0 (end 3 clamps to 2) and axis 1 stays whole.
    let out = run(&ov(arange_i32(&[2, 3]), &[1, 0], &[2, 3], &[1, 1], [NONE, NONE, &[1, 0], &[1, 0], NONE])).unwrap();
    assert_eq!(out.shape(), &[1, 2, 3]);
    // shrink and ellipsis on entry 0: shrink wins.
    let out = run(&ov(arange_i32(&[2, 3]), &[1], &[2], &[1], [NONE, NONE, NONE, &[1], &[1]])).unwrap();
    assert_eq!(out.shape(), &[3]);
    assert_eq!(ints(&out), [3, 4, 5]);
}

#[test]
fn ov_shrink_begin_must_be_in_range_and_counts_from_the_end() {
    let out = run(&ov(arange_i32(&[4, 2]), &[-1], &[0], &[1], [NONE, NONE, NONE, &[1], NONE])).unwrap();
    assert_eq!(ints(&out), [6, 7]);
    for b in [4, -5] {
        let e = error(&ov(arange_i32(&[4, 2]), &[b], &[0], &[1], [NONE, NONE, NONE, &[1], NONE]));
        assert!(e.contains("shrink_in_range"), "{b}: {e}");
    }
}

#[test]
fn ov_divergence_cpu_plugin_shrink_with_begin_mask_reads_begin() {
    // OpenVINO's CPU plugin reads element 0 here; the reference (and kerf) read element 2.
    let out = run(&ov(arange_i32(&[4]), &[2], &[0], &[0], [&[1], NONE, NONE, &[1], NONE])).unwrap();
    assert_eq!(out.shape(), &[] as &[u64]);
    assert_eq!(ints(&out), [2]);
}

#[test]
fn ov_zero_stride_is_refused_on_normal_axes() {
    let e = error(&ov(arange_i32(&[4]), &[0], &[2], &[0], [NONE, NONE, NONE, NONE, NONE]));
    assert!(e.contains("stride_nonzero"), "{e}");
}

#[test]
fn ov_divergence_doc_begin_equal_end_is_empty() {
    let out = run(&ov(arange_i32(&[4]), &[2], &[2], &[1], [NONE, NONE, NONE, NONE, NONE])).unwrap();
    assert_eq!(out.shape(), &[0]);
}

#[test]
fn ov_divergence_doc_reverse_end_mask_reaches_zero() {
    let out = run(&ov(arange_i32(&[4]), &[3], &[0], &[-1], [NONE, &[1], NONE, NONE, NONE])).unwrap();
    assert_eq!(ints(&out), [3, 2, 1, 0]);
}

#[test]
fn ov_begin_and_end_clamp_by_stride_sign() {
    assert_eq!(ints(&run(&ov(arange_i32(&[4]), &[-10], &[10], &[1], [NONE; 5])).unwrap()), [0, 1, 2, 3]);
    assert_eq!(ints(&run(&ov(arange_i32(&[4]), &[10], &[-10], &[-1], [NONE; 5])).unwrap()), [3, 2, 1, 0]);
    assert_eq!(
        ints(&run(&ov(arange_i32(&[4]), &[0], &[0], &[-1], [&[1], NONE, NONE, NONE, NONE])).unwrap()),
        [3, 2, 1]
    );
}

#[test]
fn ov_too_many_entries_for_the_rank_are_refused() {
    let e = error(&ov(arange_i32(&[4]), &[0, 0], &[1, 1], &[1, 1], [NONE; 5]));
    assert!(e.contains("entries_fit_rank"), "{e}");
}

#[test]
fn ov_static_attributes_work_like_inputs() {
    let req = Request::new("openvino.strided_slice")
        .input("data", arange_i32(&[4]))
        .attr("begin", [1])
        .attr("end", [3])
        .attr("begin_mask", [0])
        .attr("end_mask", [0]);
    assert_eq!(ints(&run(&req).unwrap()), [1, 2]);
}

// ---------------------------------------------------------------- the Pad family (specs/SEMANTICS.md "Pad family")

fn i32s(values: &[i32]) -> Tensor {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    Tensor::from_bytes(DType::I32, &[values.len() as u64], &bytes).unwrap()
}

#[test]
fn pad_is_a_slice_with_a_boundary_mode() {
    let data = i32s(&[1, 2, 3]);
    for (mode, want) in [
        ("constant", [0, 0, 1, 2, 3, 0]),
        ("edge", [1, 1, 1, 2, 3, 3]),
        ("reflect", [3, 2, 1, 2, 3, 2]),
        ("wrap", [2, 3, 1, 2, 3, 1]),
    ] {
        assert_eq!(ints(&run(&onnx_pad(19, data.clone(), &[2, 1], mode)).unwrap()), want, "onnx {mode}");
    }
    for (mode, want) in
        [("edge", [1, 1, 1, 2, 3, 3]), ("reflect", [3, 2, 1, 2, 3, 2]), ("symmetric", [2, 1, 1, 2, 3, 3])]
    {
        assert_eq!(ints(&run(&ov_pad(12, data.clone(), &[2], &[1], mode)).unwrap()), want, "openvino {mode}");
    }
}

#[test]
fn onnx_pad_reflect_keeps_bouncing_past_the_extent() {
    // numpy.pad and the onnx reference; ONNX Runtime refuses reflect pads ≥ d.
    let out = run(&onnx_pad(19, i32s(&[1, 2, 3]), &[5, 4], "reflect")).unwrap();
    assert_eq!(ints(&out), [2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3]);
    // d = 1 repeats the element (numpy does too).
    assert_eq!(ints(&run(&onnx_pad(11, i32s(&[7]), &[2, 1], "reflect")).unwrap()), [7, 7, 7, 7]);
}

#[test]
fn onnx_pad_edge_and_wrap_take_pads_of_any_size() {
    assert_eq!(ints(&run(&onnx_pad(19, i32s(&[1, 2]), &[3, 4], "edge")).unwrap()), [1, 1, 1, 1, 2, 2, 2, 2, 2]);
    assert_eq!(ints(&run(&onnx_pad(19, i32s(&[1, 2]), &[3, 4], "wrap")).unwrap()), [2, 1, 2, 1, 2, 1, 2, 1, 2]);
}

#[test]
fn openvino_pad_reflect_and_symmetric_pads_are_bounded() {
    // reflect: at most d - 1; symmetric: at most d (its doc and shape inference).
    assert_eq!(ints(&run(&ov_pad(12, i32s(&[1, 2, 3]), &[2], &[0], "reflect")).unwrap()), [3, 2, 1, 2, 3]);
    let e = error(&ov_pad(12, i32s(&[1, 2, 3]), &[3], &[0], "reflect"));
    assert!(e.contains("reflect_pads_below_extent") && e.contains("axis 0"), "{e}");
    assert_eq!(ints(&run(&ov_pad(1, i32s(&[1, 2, 3]), &[0], &[3], "symmetric")).unwrap()), [1, 2, 3, 3, 2, 1]);
    let e = error(&ov_pad(1, i32s(&[1, 2, 3]), &[0], &[4], "symmetric"));
    assert!(e.contains("symmetric_pads_within_extent"), "{e}");
    // reflect on d = 1 takes no pad; edge clamps any size.
    assert!(error(&ov_pad(12, i32s(&[7]), &[1], &[0], "reflect")).contains("reflect_pads_below_extent"));
    assert_eq!(ints(&run(&ov_pad(12, i32s(&[7]), &[3], &[0], "edge")).unwrap()), [7, 7, 7, 7]);
}

#[test]
fn negative_pads_crop_in_constant_and_edge() {
    for (mode, want) in [("constant", [2, 3, 0]), ("edge", [2, 3, 3])] {
        assert_eq!(ints(&run(&onnx_pad(11, i32s(&[1, 2, 3]), &[-1, 1], mode)).unwrap()), want, "onnx {mode}");
        assert_eq!(ints(&run(&ov_pad(12, i32s(&[1, 2, 3]), &[-1], &[1], mode)).unwrap()), want, "openvino {mode}");
        assert_eq!(floats(&run(&onnx_pad(2, f32s(&[3], &[1.0, 2.0, 3.0]), &[-1, -1], mode)).unwrap()), [2.0], "{mode}");
    }
}

#[test]
fn onnx_pad_crops_first_then_pads_what_is_left() {
    // ONNX Runtime's order: reflect [2, 3] by 2.
    assert_eq!(ints(&run(&onnx_pad(19, i32s(&[1, 2, 3]), &[-1, 2], "reflect")).unwrap()), [2, 3, 2, 3]);
    assert_eq!(ints(&run(&onnx_pad(19, i32s(&[1, 2, 3, 4]), &[3, -2], "wrap")).unwrap()), [2, 1, 2, 1, 2]);
    assert_eq!(ints(&run(&onnx_pad(19, i32s(&[1, 2, 3]), &[-1, 2], "edge")).unwrap()), [2, 3, 3, 3]);
}

#[test]
fn openvino_pad_pads_relative_to_the_original_data() {
    // Its reference implementation: x = y - pads_begin on the original axis.
    assert_eq!(ints(&run(&ov_pad(12, i32s(&[1, 2, 3]), &[-1], &[2], "reflect")).unwrap()), [2, 3, 2, 1]);
    assert_eq!(ints(&run(&ov_pad(12, i32s(&[1, 2, 3]), &[-1], &[2], "symmetric")).unwrap()), [2, 3, 3, 2]);
}

#[test]
fn crop_past_the_extent_then_pad() {
    // (-4, +2) on d = 3: one output element.
    let fill = |r: Request| r.input("constant_value", Tensor::scalar_bits(DType::I32, 9));
    assert_eq!(ints(&run(&fill(onnx_pad(19, i32s(&[1, 2, 3]), &[-4, 2], "constant"))).unwrap()), [9]);
    for mode in ["edge", "reflect", "wrap"] {
        let e = error(&onnx_pad(19, i32s(&[1, 2, 3]), &[-4, 2], mode));
        assert!(e.contains("crop_within_extent"), "{mode}: {e}");
    }
    // Cropped to nothing, then padded: nothing to extend.
    assert!(error(&onnx_pad(19, i32s(&[1, 2, 3]), &[-3, 1], "edge")).contains("empty_axis_padded"));
    // OpenVINO's reference reads x = 4 of the original data in every mode.
    let ov = |mode: &str| ints(&run(&ov_pad(12, i32s(&[1, 2, 3]), &[-4], &[2], mode)).unwrap());
    assert_eq!(ov("constant"), [0]);
    assert_eq!(ov("edge"), [3]);
    assert_eq!(ov("reflect"), [1]);
    assert_eq!(ov("symmetric"), [2]);
}

#[test]
fn a_negative_output_extent_is_refused() {
    let e = error(&onnx_pad(19, i32s(&[1, 2, 3]), &[-2, -2], "constant"));
    assert!(e.contains("output_extent_non_negative") && e.contains("axis 0"), "{e}");
    let e = error(&ov_pad(12, i32s(&[1, 2, 3]), &[-2], &[-2], "constant"));
    assert!(e.contains("output_extent_non_negative"), "{e}");
}

#[test]
fn an_empty_axis_padded_in_a_non_constant_mode_is_refused() {
    let empty = || Tensor::zeros(DType::I32, &[0, 2]).unwrap();
    for mode in ["edge", "reflect", "wrap"] {
        let e = error(&onnx_pad(19, empty(), &[1, 0, 0, 0], mode));
        assert!(e.contains("empty_axis_padded") && e.contains("axis 0"), "{mode}: {e}");
    }
    // Even when another axis leaves the output empty (numpy.pad refuses it too).
    assert!(error(&onnx_pad(19, empty(), &[1, 0, 0, -2], "edge")).contains("empty_axis_padded"));
    assert!(error(&ov_pad(12, empty(), &[1, 0], &[0, 0], "edge")).contains("empty_axis_padded"));
    assert!(error(&ov_pad(12, empty(), &[0, 0], &[0, 0], "reflect")).contains("reflect_pads_below_extent"));
    // Not padded, or in mode constant: fine.
    assert_eq!(run(&onnx_pad(19, empty(), &[0, 1, 0, 1], "reflect")).unwrap().shape(), &[0, 4]);
    let out = run(&onnx_pad(19, empty(), &[1, 0, 0, 0], "constant")).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[1u64, 2][..], vec![0, 0]));
}

#[test]
fn rank0_data_is_the_identity() {
    let scalar = Tensor::scalar_bits(DType::I32, 5);
    assert_eq!(ints(&run(&onnx_pad(19, scalar.clone(), &[], "reflect")).unwrap()), [5]);
    assert_eq!(ints(&run(&ov_pad(12, scalar.clone(), &[], &[], "symmetric")).unwrap()), [5]);
    assert!(error(&onnx_pad(19, scalar, &[1, 1], "constant")).contains("pads_length"));
}

#[test]
fn pad_values_of_another_dtype_are_refused_plain_numbers_converted() {
    let f16_one = Tensor::scalar_bits(DType::F16, 0x3c00);
    let req = onnx_pad(19, f32s(&[1], &[2.0]), &[1, 0], "constant").input("constant_value", f16_one.clone());
    assert!(error(&req).contains("pad_value_type"));
    let req = ov_pad(12, f32s(&[1], &[2.0]), &[1], &[0], "constant").input("pad_value", f16_one);
    assert!(error(&req).contains("pad_value_type"));
    // Plain numbers (i64, f64 scalars): exact for integers, one rounding for floats.
    let req = onnx_pad(19, arange_i64(&[1]), &[1, 0], "constant").input("constant_value", scalar_i64(i64::MIN));
    assert_eq!(ints(&run(&req).unwrap()), [i64::MIN, 0]);
    let req = onnx_pad(19, arange_i32(&[1]), &[1, 0], "constant").input("constant_value", scalar_f64(2.5));
    assert!(error(&req).contains("pad_value_representable"));
    // Just above the f16 tie between 1 and 1 + 2^-10: one rounding goes up (through f32 it
    // would land on the tie and go down to 1).
    let above_tie = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
    let f16_data = Tensor::scalar_bits(DType::F16, 0).reshaped(&[1]).unwrap();
    let req = onnx_pad(19, f16_data.clone(), &[1, 0], "constant").input("constant_value", scalar_f64(above_tie));
    assert_eq!(run(&req).unwrap().element_bits(0), Some(0x3c01));
    let req = ov_pad(12, f16_data, &[1], &[0], "constant")
        .input("pad_value", Tensor::scalar_bits(DType::F64, above_tie.to_bits() as u128));
    assert_eq!(run(&req).unwrap().element_bits(0), Some(0x3c01));
}

#[test]
fn onnx_pad_value_attribute_is_an_f32() {
    // Versions 1 and 2 store the pad value as an ONNX float (an f32): rounded to f32 first.
    let above_tie = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
    let f16_data = Tensor::scalar_bits(DType::F16, 0).reshaped(&[1]).unwrap();
    let req = onnx_pad(2, f16_data, &[1, 0], "constant").attr("value", above_tie);
    assert_eq!(run(&req).unwrap().element_bits(0), Some(0x3c00));
    let req =
        onnx_pad(1, Tensor::scalar_bits(DType::F64, 0).reshaped(&[1]).unwrap(), &[1, 0], "constant").attr("value", 0.1);
    assert_eq!(floats(&run(&req).unwrap())[0], 0.1f32 as f64);
    let req = onnx_pad(2, f32s(&[1], &[0.0]), &[1, 0], "constant").attr("value", 1e39);
    assert!(error(&req).contains("pad_value_representable"));
}

#[test]
fn onnx_pad_constant_value_is_ignored_outside_constant_mode() {
    // ONNX Runtime and the onnx reference ignore it; so does kerf, even when it could not convert.
    let req = onnx_pad(19, i32s(&[1, 2]), &[1, 0], "edge").input("constant_value", scalar_f64(0.5));
    assert_eq!(ints(&run(&req).unwrap()), [1, 1, 2]);
}

#[test]
fn onnx_pad_axes_repeated_or_out_of_range_are_refused() {
    let req = onnx_pad(18, arange_i32(&[2, 2]), &[1, 1, 1, 1], "constant").input("axes", Tensor::from_i64s(&[1, -1]));
    assert!(error(&req).contains("axes_unique"));
    let req = onnx_pad(18, arange_i32(&[2, 2]), &[1, 1], "constant").input("axes", Tensor::from_i64s(&[-3]));
    let e = error(&req);
    assert!(e.contains("axes_in_range") && e.contains("axes[0] = -3"), "{e}");
    // Axes pick the entries of pads: [x_axis0_begin, x_axis1_begin, ..., ends].
    let req = onnx_pad(18, arange_i32(&[2, 2]), &[1, 0, 0, 2], "constant").input("axes", Tensor::from_i64s(&[-1, 0]));
    let out = run(&req).unwrap();
    assert_eq!(out.shape(), &[4, 3]);
    assert_eq!(ints(&out), [0, 0, 1, 0, 2, 3, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn onnx_pad_wrap_exists_from_19() {
    assert!(error(&onnx_pad(18, i32s(&[1, 2]), &[1, 0], "wrap")).contains("wrap_from_19"));
    assert!(error(&onnx_pad(2, f32s(&[2], &[1.0, 2.0]), &[1, 0], "wrap")).contains("wrap_from_19"));
    assert_eq!(ints(&run(&onnx_pad(19, i32s(&[1, 2]), &[1, 0], "wrap")).unwrap()), [2, 1, 2]);
}

#[test]
fn openvino_pad1_refuses_negative_pads() {
    // Pad-1's doc: non-negative pads (OpenVINO accepts them: a named divergence).
    let e = error(&ov_pad(1, i32s(&[1, 2, 3]), &[0], &[-1], "constant"));
    assert!(e.contains("pads_non_negative_v1") && e.contains("axis 0"), "{e}");
    assert_eq!(ints(&run(&ov_pad(12, i32s(&[1, 2, 3]), &[0], &[-1], "constant")).unwrap()), [1, 2]);
}

#[test]
fn openvino_slice_follows_the_onnx_rule() {
    // start < -d with a negative step reads element 0 (Python slicing reads nothing).
    assert_eq!(ints(&run(&ov_slice(arange_i32(&[5]), &[-100], &[-200], &[-1], None)).unwrap()), [0]);
    // Extremes clamp; a step of i64::MIN takes one element.
    assert_eq!(ints(&run(&ov_slice(arange_i32(&[5]), &[i64::MAX], &[i64::MIN], &[i64::MIN], None)).unwrap()), [4]);
    assert_eq!(ints(&run(&ov_slice(arange_i32(&[5]), &[i64::MIN], &[i64::MAX], &[2], None)).unwrap()), [0, 2, 4]);
    // Axes select; the other axes stay whole.
    let out = run(&ov_slice(arange_i32(&[2, 3]), &[2], &[0], &[-1], Some(&[-1]))).unwrap();
    assert_eq!(ints(&out), [2, 1, 5, 4]);
    assert!(error(&ov_slice(arange_i32(&[5]), &[0], &[1], &[0], None)).contains("step_nonzero"));
    assert!(error(&ov_slice(Tensor::scalar_bits(DType::I32, 1), &[], &[], &[], None)).contains("data_rank"));
}

// ---------------------------------------------------------------- generic request checks

#[test]
fn unknown_op_version_attribute_and_input_are_named() {
    assert!(error(&Request::new("tensorrt.pad")).contains("unknown op `tensorrt.pad`"));
    assert!(error(&onnx(12, arange_i32(&[2]), &[0], &[1], None, None)).contains("unknown version 12"));
    let e = error(&trt(arange_i32(&[2]), &[0], &[1], &[1], "wrap").attr("strides", [1]));
    assert!(e.contains("unknown attribute `strides`"), "{e}");
    let e = error(&trt(arange_i32(&[2]), &[0], &[1], &[1], "wrap").input("bias", scalar_i64(1)));
    assert!(e.contains("unknown input `bias`"), "{e}");
}

#[test]
fn attribute_types_and_values_are_checked() {
    let e = error(&trt(arange_i32(&[2]), &[0], &[1], &[1], "wrap").attr("start", "zero"));
    assert!(e.contains("attribute `start` must be of type int_list"), "{e}");
    let e = error(&trt(arange_i32(&[2]), &[0], &[1], &[1], "mirror"));
    assert!(e.contains("attribute `mode` = \"mirror\" is not allowed"), "{e}");
    let e = error(&ov(arange_i32(&[2]), &[0], &[1], &[1], [&[2], NONE, NONE, NONE, NONE]));
    assert!(e.contains("begin_mask"), "{e}");
    assert!(error(&fill("linspace", &[2], "f32").attr("seed", -1)).contains("seed"));
}

#[test]
fn required_attributes_and_inputs_are_named() {
    let req = Request::new("openvino.strided_slice")
        .input("data", arange_i32(&[4]))
        .input("begin", Tensor::from_i64s(&[0]))
        .input("end", Tensor::from_i64s(&[1]))
        .attr("end_mask", [0]);
    assert!(error(&req).contains("missing required attribute `begin_mask`"));
    let req = Request::new("tensorrt.slice").attr("start", [0]).attr("size", [1]).attr("stride", [1]);
    assert!(error(&req).contains("missing input `input`"));
}

#[test]
fn parameter_inputs_must_be_1d_integers() {
    let req = trt(arange_i32(&[4]), &[0], &[1], &[1], "wrap").input("start", f32s(&[1], &[0.0]));
    assert!(error(&req).contains("input `start` has dtype f32"));
    let req = trt(arange_i32(&[4]), &[0], &[1], &[1], "wrap").input("start", arange_i64(&[1, 1]));
    assert!(error(&req).contains("input `start` must be a 1-D tensor"));
}

/// An empty axis has no coordinate: every mode reads "outside" there (the formula's
/// `d = 0` case; wrap, clamp and symmetric divided by zero or clamped to [0, -1] and
/// panicked). A window asked of an axis past the rank is empty, not a panic.
#[test]
fn an_empty_axis_has_no_coordinate_in_any_mode() {
    for mode in BoundaryMode::ALL {
        for x in [-3, 0, 5, i64::MIN, i64::MAX] {
            assert_eq!(mode.source_index(x, 0), None, "{mode} x={x}");
        }
    }
    let p = kerfx_testkit::plans::slice_plan(DType::F32, &[3], &[(2, 0, 1)], BoundaryMode::Wrap);
    assert_eq!(p.window(5), kerfx_ir::plan::Window { lo: 0, len: 0 });
}

// ------------------------------------------------------------------------ axis ops

fn axis_op(op: &str, version: u32, name: &str, data: Tensor) -> Request {
    Request::new(op).version(version).input(name, data)
}

#[test]
fn transpose_perm_omitted_reverses_the_axes() {
    let out = run(&axis_op("onnx.transpose", 13, "data", arange_i32(&[2, 3, 4]))).unwrap();
    assert_eq!(out.shape(), &[4, 3, 2]);
    // out[i, j, k] = in[k, j, i] = 12k + 4j + i.
    let expect: Vec<i64> = (0..24).map(|n| (n / 6) + 4 * ((n / 2) % 3) + 12 * (n % 2)).collect();
    assert_eq!(ints(&out), expect);
    let out = run(&axis_op("onnx.transpose", 13, "data", arange_i32(&[2, 3])).attr("perm", [1, 0])).unwrap();
    assert_eq!(ints(&out), [0, 3, 1, 4, 2, 5]);
}

#[test]
fn transpose_perm_must_be_a_permutation() {
    for perm in [vec![0, 0], vec![0], vec![-1, 0], vec![0, 2]] {
        let req = axis_op("onnx.transpose", 13, "data", arange_i32(&[2, 2])).attr("perm", perm.clone());
        assert!(error(&req).contains("perm_is_permutation"), "{perm:?}");
    }
}

fn reshape(version: u32, data: Tensor, shape: &[i64]) -> Request {
    axis_op("onnx.reshape", version, "data", data).input("shape", Tensor::from_i64s(shape))
}

#[test]
fn reshape_zero_copies_the_input_dim() {
    let out = run(&reshape(13, arange_i32(&[2, 3, 4]), &[0, -1])).unwrap();
    assert_eq!(out.shape(), &[2, 12]);
    assert!(error(&reshape(13, arange_i32(&[6]), &[2, 0, 3])).contains("zero_copies_existing_dim"));
    let empty = Tensor::from_bytes(DType::I32, &[0, 4], &[]).unwrap();
    let out = run(&reshape(14, empty, &[4, 0]).attr("allowzero", 1)).unwrap();
    assert_eq!(out.shape(), &[4, 0]);
}

#[test]
fn reshape_one_inferred_dim() {
    let out = run(&reshape(13, arange_i32(&[2, 6]), &[3, -1])).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[3u64, 4][..], (0..12).collect::<Vec<_>>()));
    assert!(error(&reshape(13, arange_i32(&[2, 6]), &[-1, -1])).contains("one_inferred_dim"));
    assert!(error(&reshape(13, arange_i32(&[2, 6]), &[-2, 6])).contains("one_inferred_dim"));
    let empty = Tensor::from_bytes(DType::I32, &[0, 4], &[]).unwrap();
    assert!(error(&reshape(14, empty.clone(), &[0, -1]).attr("allowzero", 1)).contains("no_zero_with_inferred"));
    assert!(error(&reshape(13, empty, &[0, -1])).contains("no_zero_with_inferred"));
}

#[test]
fn reshape_volume_is_preserved() {
    assert!(error(&reshape(13, arange_i32(&[2, 6]), &[5, 2])).contains("volume_preserved"));
    assert!(error(&reshape(13, arange_i32(&[2, 6]), &[5, -1])).contains("volume_preserved"));
}

#[test]
fn flatten_axis_ranges_by_version() {
    let flatten = |v: u32, axis: i64, shape: &[u64]| {
        axis_op("onnx.flatten", v, "input", Tensor::zeros(DType::F32, shape).unwrap()).attr("axis", axis)
    };
    assert_eq!(run(&flatten(13, -1, &[2, 3, 4])).unwrap().shape(), &[6, 4]);
    assert_eq!(run(&flatten(9, 3, &[2, 3, 4])).unwrap().shape(), &[24, 1]);
    assert_eq!(run(&flatten(9, 0, &[2, 3, 4])).unwrap().shape(), &[1, 24]);
    assert!(error(&flatten(9, -1, &[2, 3, 4])).contains("axis_in_range"));
    assert!(error(&flatten(13, 4, &[2, 3, 4])).contains("axis_in_range"));
    assert_eq!(run(&flatten(13, 1, &[0, 3, 4])).unwrap().shape(), &[0, 12]);
}

#[test]
fn squeeze_requires_unit_axes() {
    let sq = |axes: &[i64]| {
        axis_op("onnx.squeeze", 13, "data", arange_i32(&[1, 3, 1])).input("axes", Tensor::from_i64s(axes))
    };
    assert!(error(&sq(&[1])).contains("squeezed_dim_is_one"));
    assert!(error(&sq(&[0, -3])).contains("axes_unique"));
    assert_eq!(run(&sq(&[2, 0])).unwrap().shape(), &[3]);
}

#[test]
fn squeeze_without_axes_removes_every_unit_axis() {
    let data = || arange_i32(&[1, 3, 1]);
    assert_eq!(run(&axis_op("onnx.squeeze", 13, "data", data())).unwrap().shape(), &[3]);
    let given_empty = axis_op("onnx.squeeze", 13, "data", data()).input("axes", Tensor::from_i64s(&[]));
    assert_eq!(run(&given_empty).unwrap().shape(), &[1, 3, 1]);
}

#[test]
fn unsqueeze_axes_count_in_the_output() {
    let unsq = |axes: &[i64]| {
        axis_op("onnx.unsqueeze", 13, "data", arange_i32(&[2, 3])).input("axes", Tensor::from_i64s(axes))
    };
    assert_eq!(run(&unsq(&[-1, 0])).unwrap().shape(), &[1, 2, 3, 1]);
    assert_eq!(run(&unsq(&[3, 1])).unwrap().shape(), &[2, 1, 3, 1]);
    assert_eq!(run(&unsq(&[-4, -2])).unwrap().shape(), &[1, 2, 1, 3]);
    assert!(error(&unsq(&[0, -4])).contains("axes_unique"));
    assert!(error(&unsq(&[4])).contains("axis_in_range"));
}

#[test]
fn negative_axes_from_version_11() {
    for op in ["onnx.squeeze", "onnx.unsqueeze"] {
        let req = axis_op(op, 1, "data", arange_i32(&[1, 2])).attr("axes", [-2]);
        assert!(error(&req).contains("negative_axes_from_11"), "{op}");
        let req = axis_op(op, 11, "data", arange_i32(&[1, 2])).attr("axes", [-2]);
        assert!(run(&req).is_ok(), "{op}");
    }
}

#[test]
fn expand_broadcasts_both_ways() {
    let expand = |data: Tensor, shape: &[i64]| {
        axis_op("onnx.expand", 13, "input", data).input("shape", Tensor::from_i64s(shape))
    };
    let out = run(&expand(arange_i32(&[3, 1]), &[2, 1, 4])).unwrap();
    assert_eq!(out.shape(), &[2, 3, 4]);
    assert_eq!(ints(&out)[..8], [0, 0, 0, 0, 1, 1, 1, 1]);
    // A shorter shape, and 1s where the input is larger.
    assert_eq!(run(&expand(arange_i32(&[2, 3]), &[1])).unwrap().shape(), &[2, 3]);
    assert!(error(&expand(arange_i32(&[2, 3]), &[2, 2])).contains("shapes_broadcast"));
    assert!(error(&expand(arange_i32(&[3]), &[-3])).contains("shapes_broadcast"));
}

#[test]
fn tile_repeats_every_axis() {
    let tile = |data: Tensor, repeats: &[i64]| {
        axis_op("onnx.tile", 13, "input", data).input("repeats", Tensor::from_i64s(repeats))
    };
    let out = run(&tile(arange_i32(&[2, 2]), &[2, 1])).unwrap();
    assert_eq!(ints(&out), [0, 1, 2, 3, 0, 1, 2, 3]);
    assert_eq!(run(&tile(arange_i32(&[2, 2]), &[0, 3])).unwrap().shape(), &[0, 6]);
    assert!(error(&tile(arange_i32(&[2, 2]), &[2])).contains("repeats_per_axis"));
    assert!(error(&tile(arange_i32(&[2, 2]), &[1, -1])).contains("repeats_non_negative"));
}

#[test]
fn depth_to_space_dcr_and_crd() {
    // C = 9, b = 3 on a 1x1 image: DCR reads the channels as (i, j, c), CRD as (c, i, j);
    // with one output channel both give the channels in order, so take C = 18 (2 out).
    let d2s = |mode: &str| {
        axis_op("onnx.depth_to_space", 13, "input", arange_i32(&[1, 18, 1, 1])).attr("blocksize", 3).attr("mode", mode)
    };
    let dcr = run(&d2s("DCR")).unwrap();
    let crd = run(&d2s("CRD")).unwrap();
    assert_eq!(dcr.shape(), &[1, 2, 3, 3]);
    // out[0, c, i, j]: DCR reads channel (3i + j)·2 + c, CRD c·9 + 3i + j.
    let idx = |c: i64, i: i64, j: i64| (c * 9 + i * 3 + j) as usize;
    for (c, i, j) in [(0, 0, 1), (1, 2, 0), (1, 1, 2)] {
        assert_eq!(ints(&dcr)[idx(c, i, j)], (3 * i + j) * 2 + c);
        assert_eq!(ints(&crd)[idx(c, i, j)], c * 9 + 3 * i + j);
    }
    let bad = axis_op("onnx.depth_to_space", 13, "input", arange_i32(&[1, 8, 1, 1])).attr("blocksize", 3);
    assert!(error(&bad).contains("blocksize_divides"));
}

#[test]
fn space_to_depth_blocks() {
    let s2d =
        |shape: &[u64], b: i64| axis_op("onnx.space_to_depth", 13, "input", arange_i32(shape)).attr("blocksize", b);
    let out = run(&s2d(&[1, 1, 2, 4], 2)).unwrap();
    assert_eq!(out.shape(), &[1, 4, 1, 2]);
    // Channel (i, j) of block (h', w') is pixel (2h' + i, 2w' + j).
    assert_eq!(ints(&out), [0, 2, 1, 3, 4, 6, 5, 7]);
    // CRD (version 28): channel c·b² + i·b + j; with two channels the orders differ.
    let crd = Request::new("onnx.space_to_depth")
        .version(28)
        .input("input", arange_i32(&[1, 2, 2, 2]))
        .attr("blocksize", 2)
        .attr("mode", "CRD");
    assert_eq!(ints(&run(&crd).unwrap()), [0, 1, 2, 3, 4, 5, 6, 7]);
    let dcr =
        Request::new("onnx.space_to_depth").version(28).input("input", arange_i32(&[1, 2, 2, 2])).attr("blocksize", 2);
    assert_eq!(ints(&run(&dcr).unwrap()), [0, 4, 1, 5, 2, 6, 3, 7]);
    assert!(error(&s2d(&[1, 1, 3, 4], 2)).contains("blocksize_divides"));
    assert!(error(&s2d(&[1, 1, 2, 2], 0)).contains("blocksize_divides"));
}

#[test]
fn chains_cut_where_reshapes_do_not_line_up() {
    use kerfx_ir::chain::{ChainRequest, evaluate_unfused, lower_chain};
    use kerfx_ir::map::{compose_segments, evaluate_segments};
    // A crop from row 1 read as blocks of 2 rows, then transposed: two fused segments (the
    // crop with the reshape, then the transpose), the steps' bytes.
    let chain = ChainRequest {
        steps: vec![
            Request::new("onnx.slice")
                .input("data", arange_i32(&[8, 3]))
                .input("starts", Tensor::from_i64s(&[1]))
                .input("ends", Tensor::from_i64s(&[5])),
            reshape(13, arange_i32(&[0]), &[2, 2, 3]),
            Request::new("onnx.transpose").attr("perm", [1, 0, 2]),
        ],
    };
    let mut chain = chain;
    chain.steps[1].inputs.remove("data");
    let plans = lower_chain(&chain).unwrap();
    let segments = compose_segments(&plans).unwrap();
    assert_eq!(segments.iter().map(|s| s.steps.clone()).collect::<Vec<_>>(), [0..2, 2..3]);
    let input = arange_i32(&[8, 3]);
    assert_eq!(
        evaluate_segments(&segments, Some(input.view())).unwrap(),
        evaluate_unfused(&plans, Some(input.view())).unwrap()
    );
}

#[test]
fn openvino_transpose_empty_order_reverses() {
    let t = |order: &[i64]| {
        Request::new("openvino.transpose")
            .input("arg", arange_i32(&[2, 3]))
            .input("input_order", Tensor::from_i64s(order))
    };
    assert_eq!(ints(&run(&t(&[])).unwrap()), [0, 3, 1, 4, 2, 5]);
    assert_eq!(ints(&run(&t(&[0, 1])).unwrap()), [0, 1, 2, 3, 4, 5]);
    for bad in [&[1][..], &[0, 0], &[0, 2], &[-1, 0]] {
        assert!(error(&t(bad)).contains("order_is_permutation"), "{bad:?}");
    }
}

#[test]
fn openvino_tile_promotes_like_np_tile() {
    let tile = |data: Tensor, repeats: &[i64]| {
        Request::new("openvino.tile").input("data", data).input("repeats", Tensor::from_i64s(repeats))
    };
    // Repeats longer than the rank: the data gains leading unit axes.
    let out = run(&tile(arange_i32(&[2]), &[2, 2])).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[2u64, 4][..], vec![0, 1, 0, 1, 0, 1, 0, 1]));
    // Shorter: leading repeats of 1.
    let out = run(&tile(arange_i32(&[2, 2]), &[2])).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[2u64, 4][..], vec![0, 1, 0, 1, 2, 3, 2, 3]));
    assert_eq!(run(&tile(arange_i32(&[2, 2]), &[-3, 1])).unwrap().shape(), &[0, 2]);
}

#[test]
fn openvino_roll_shifts_add() {
    let roll = |shift: Tensor, axes: &[i64]| {
        Request::new("openvino.roll")
            .input("data", arange_i32(&[5]))
            .input("shift", shift)
            .input("axes", Tensor::from_i64s(axes))
    };
    assert_eq!(ints(&run(&roll(Tensor::from_i64s(&[2]), &[0])).unwrap()), [3, 4, 0, 1, 2]);
    // Repeated axes add: 2 + 4 = 6 ≡ 1; negative shifts roll back.
    assert_eq!(ints(&run(&roll(Tensor::from_i64s(&[2, 4]), &[0, -1])).unwrap()), [4, 0, 1, 2, 3]);
    assert_eq!(ints(&run(&roll(Tensor::from_i64s(&[-1]), &[0])).unwrap()), [1, 2, 3, 4, 0]);
    // A scalar shift applies to every listed axis; a 1-D one needs one entry per axis.
    assert_eq!(ints(&run(&roll(scalar_i64(1), &[0, 0])).unwrap()), [3, 4, 0, 1, 2]);
    assert!(error(&roll(Tensor::from_i64s(&[1]), &[0, 0])).contains("shift_axes_length"));
    assert!(error(&roll(Tensor::from_i64s(&[1]), &[1])).contains("axis_in_range"));
}

fn gather(op: &str, data: Tensor, indices: Tensor) -> Request {
    Request::new(op).input("data", data).input("indices", indices)
}

fn i64s_of(shape: &[u64], values: &[i64]) -> Tensor {
    Tensor::from_i64s(values).reshaped(shape).unwrap()
}

#[test]
fn gather_output_shape() {
    // Axis 1 of [2, 3, 2] by indices of shape [2, 2]: [2, 2, 2, 2].
    let r = gather("onnx.gather", arange_i32(&[2, 3, 2]), i64s_of(&[2, 2], &[0, 2, 1, 1])).attr("axis", 1i64);
    let out = run(&r).unwrap();
    assert_eq!(out.shape(), &[2, 2, 2, 2]);
    assert_eq!(ints(&out), [0, 1, 4, 5, 2, 3, 2, 3, 6, 7, 10, 11, 8, 9, 8, 9]);
    // A 0-d index removes the axis.
    let out = run(&gather("onnx.gather", arange_i32(&[3, 2]), scalar_i64(2))).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[2u64][..], vec![4, 5]));
    // Empty indices: an empty axis.
    let out = run(&gather("onnx.gather", arange_i32(&[3, 2]), Tensor::from_i64s(&[]))).unwrap();
    assert_eq!(out.shape(), &[0, 2]);
}

#[test]
fn gather_negative_indices_count_from_the_end() {
    for version in [1, 11, 13] {
        let r = gather("onnx.gather", arange_i32(&[4]), Tensor::from_i64s(&[-1, -4, 0])).version(version);
        assert_eq!(ints(&run(&r).unwrap()), [3, 0, 0], "Gather-{version}");
    }
    let r = gather("onnx.gather_elements", arange_i32(&[3]), Tensor::from_i64s(&[-3, -1]));
    assert_eq!(ints(&run(&r).unwrap()), [0, 2]);
    let r = gather("openvino.gather", arange_i32(&[3]), Tensor::from_i64s(&[-1])).input("axis", scalar_i64(0));
    assert_eq!(ints(&run(&r.version(8)).unwrap()), [2]);
}

#[test]
fn gather_index_out_of_range_is_an_error() {
    let onnx = |i: i64| gather("onnx.gather", arange_i32(&[3]), Tensor::from_i64s(&[i]));
    for i in [3, -4, i64::MIN, i64::MAX] {
        assert!(error(&onnx(i)).contains("indices_in_range"), "{i}");
    }
    let ov = |v: u32, i: i64| {
        gather("openvino.gather", arange_i32(&[3]), Tensor::from_i64s(&[i])).input("axis", scalar_i64(0)).version(v)
    };
    for v in [1, 7] {
        assert!(error(&ov(v, -1)).contains("indices_in_range"), "Gather-{v}");
        assert!(error(&ov(v, 3)).contains("indices_in_range"), "Gather-{v}");
    }
    let trt = |i: i64| gather("tensorrt.gather", arange_i32(&[3]), Tensor::from_i64s(&[i]));
    assert!(error(&trt(-1)).contains("indices_in_range"));
    assert!(error(&trt(3)).contains("indices_in_range"));
    assert_eq!(ints(&run(&trt(2)).unwrap()), [2]);
}

#[test]
fn openvino_gather_8_reads_out_of_range_as_zero() {
    let r = gather("openvino.gather", arange_i32(&[2, 3]), Tensor::from_i64s(&[3, -4, 1, i64::MIN]))
        .input("axis", scalar_i64(1))
        .version(8);
    let out = run(&r).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[2u64, 4][..], vec![0, 0, 1, 0, 0, 0, 4, 0]));
}

#[test]
fn openvino_gather_batch_dims() {
    // batch_dims 1 (and -1: counted from the indices' rank 2): row b read by indices row b.
    for batch in [1i64, -1] {
        let r = gather("openvino.gather", arange_i32(&[2, 3]), i64s_of(&[2, 2], &[2, 0, 1, 1]))
            .input("axis", scalar_i64(1))
            .attr("batch_dims", batch)
            .version(8);
        assert_eq!(ints(&run(&r).unwrap()), [2, 0, 4, 4], "batch_dims {batch}");
    }
    // Dims between the batch and the axis: [2, 2, 3] by [2, 1] on axis 2, batch 1.
    let r = gather("openvino.gather", arange_i32(&[2, 2, 3]), i64s_of(&[2, 1], &[2, 0]))
        .input("axis", scalar_i64(2))
        .attr("batch_dims", 1i64)
        .version(7);
    let out = run(&r).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[2u64, 2, 1][..], vec![2, 5, 6, 9]));
    let bad = |batch: i64, axis: i64| {
        error(
            &gather("openvino.gather", arange_i32(&[2, 3]), i64s_of(&[2, 2], &[0, 0, 0, 0]))
                .input("axis", scalar_i64(axis))
                .attr("batch_dims", batch)
                .version(8),
        )
    };
    assert!(bad(1, 0).contains("batch_dims_at_most_axis"));
    assert!(bad(3, 1).contains("batch_dims_in_range"));
    let r = gather("openvino.gather", arange_i32(&[2, 3]), i64s_of(&[3, 1], &[0, 0, 0]))
        .input("axis", scalar_i64(1))
        .attr("batch_dims", 1i64);
    assert!(error(&r.version(8)).contains("batch_dims_match"));
}

#[test]
fn gather_elements_reads_one_element_per_index() {
    let r = gather("onnx.gather_elements", arange_i32(&[2, 3]), i64s_of(&[2, 3], &[1, 0, 1, 0, 0, 1]));
    assert_eq!(ints(&run(&r).unwrap()), [3, 1, 5, 0, 1, 5]);
    // ONNX: off the axis the dims equal data's; TensorRT's element mode allows smaller.
    let smaller = i64s_of(&[2, 2], &[1, 0, 0, 1]);
    assert!(error(&gather("onnx.gather_elements", arange_i32(&[2, 3]), smaller.clone())).contains("indices_dims"));
    let trt = gather("tensorrt.gather", arange_i32(&[2, 3]), smaller).attr("mode", "element");
    assert_eq!(ints(&run(&trt).unwrap()), [3, 1, 0, 4]);
    assert!(
        error(&gather("onnx.gather_elements", arange_i32(&[2, 3]), Tensor::from_i64s(&[0]))).contains("indices_rank")
    );
}

#[test]
fn tensorrt_gather_modes() {
    // Default, one elementwise dim: indices' batch dim 1 broadcasts over data's 2.
    let r = gather("tensorrt.gather", arange_i32(&[2, 3]), i64s_of(&[1, 2], &[2, 0]))
        .attr("axis", 1i64)
        .attr("num_elementwise_dims", 1i64);
    let out = run(&r).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[2u64, 2][..], vec![2, 0, 5, 3]));
    // nd: GatherND with batch_dims = num_elementwise_dims.
    let nd = gather("tensorrt.gather", arange_i32(&[2, 2, 2]), i64s_of(&[2, 2], &[0, 1, 1, 0])).attr("mode", "nd");
    let out = run(&nd).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[2u64, 2][..], vec![2, 3, 4, 5]));
    let nd1 = gather("tensorrt.gather", arange_i32(&[2, 2, 2]), i64s_of(&[2, 1, 2], &[0, 1, 1, 0]))
        .attr("mode", "nd")
        .attr("num_elementwise_dims", 1i64);
    let out = run(&nd1).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[2u64, 1][..], vec![1, 6]));
    let el = gather("tensorrt.gather", arange_i32(&[2]), Tensor::from_i64s(&[0]))
        .attr("mode", "element")
        .attr("num_elementwise_dims", 1i64);
    assert!(error(&el).contains("num_elementwise_dims"));
}

fn broadcast(version: u32, mode: &str, data: Tensor, target: &[i64], mapping: Option<&[i64]>) -> Request {
    let r = Request::new("openvino.broadcast")
        .version(version)
        .attr("mode", mode)
        .input("data", data)
        .input("target_shape", Tensor::from_i64s(target));
    match mapping {
        Some(m) => r.input("axes_mapping", Tensor::from_i64s(m)),
        None => r,
    }
}

#[test]
fn openvino_broadcast_modes() {
    let out = run(&broadcast(1, "numpy", arange_i32(&[2]), &[2, 2], None)).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[2u64, 2][..], vec![0, 1, 0, 1]));
    // explicit: data axis 0 at output axis 0, axis 1 new.
    let out = run(&broadcast(1, "explicit", arange_i32(&[2]), &[2, 2], Some(&[0]))).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[2u64, 2][..], vec![0, 0, 1, 1]));
    let out = run(&broadcast(3, "bidirectional", arange_i32(&[2, 1]), &[3], None)).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[2u64, 3][..], vec![0, 0, 0, 1, 1, 1]));
    // Bidirectional keeps the data's larger dims; numpy mode refuses a shorter target.
    assert_eq!(run(&broadcast(3, "bidirectional", arange_i32(&[2, 3]), &[1], None)).unwrap().shape(), &[2, 3]);
    assert!(error(&broadcast(1, "bidirectional", arange_i32(&[2]), &[2], None)).contains("bidirectional_from_3"));
    assert!(error(&broadcast(3, "numpy", arange_i32(&[2, 3]), &[3], None)).contains("target_rank"));
    assert!(error(&broadcast(3, "numpy", arange_i32(&[2]), &[3], None)).contains("shapes_broadcast"));
    assert!(error(&broadcast(3, "numpy", arange_i32(&[2]), &[-2], None)).contains("shapes_broadcast"));
    assert!(error(&broadcast(1, "explicit", arange_i32(&[2, 2]), &[2, 2], None)).contains("axes_mapping_length"));
    assert!(error(&broadcast(1, "explicit", arange_i32(&[2, 2]), &[2, 2], Some(&[0]))).contains("axes_mapping_length"));
    assert!(error(&broadcast(1, "numpy", arange_i32(&[2]), &[2], Some(&[0]))).contains("axes_mapping_length"));
    for bad in [&[1, 0][..], &[0, 0], &[0, 2], &[-1, 0]] {
        let e = error(&broadcast(1, "explicit", arange_i32(&[2, 2]), &[2, 2], Some(bad)));
        assert!(e.contains("axes_mapping_increasing"), "{bad:?}: {e}");
    }
}

#[test]
fn openvino_broadcast_explicit_unit_dims_broadcast() {
    // A data dim of 1 broadcasts in explicit mode too.
    let out = run(&broadcast(1, "explicit", arange_i32(&[1, 2]), &[3, 2, 2], Some(&[0, 2]))).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[3u64, 2, 2][..], vec![0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]));
    // Zero-size dims as numpy: 1 to 0 is empty, 0 to 0 too; 0 to 1 one way is an error.
    assert_eq!(run(&broadcast(1, "explicit", arange_i32(&[1]), &[0, 2], Some(&[0]))).unwrap().shape(), &[0, 2]);
    assert_eq!(run(&broadcast(1, "numpy", arange_i32(&[0, 1]), &[0, 4], None)).unwrap().shape(), &[0, 4]);
    assert!(error(&broadcast(1, "numpy", arange_i32(&[0]), &[1], None)).contains("shapes_broadcast"));
    assert_eq!(run(&broadcast(3, "bidirectional", arange_i32(&[0]), &[1], None)).unwrap().shape(), &[0]);
}

fn blocks(op: &str, data: Tensor, b: i64, mode: &str) -> Request {
    Request::new(op).input("data", data).attr("block_size", b).attr("mode", mode)
}

#[test]
fn openvino_depth_to_space_any_spatial_rank() {
    let d2s = "openvino.depth_to_space";
    // Four spatial axes' worth of ONNX: on [1, 4, 1, 2] blocks_first is DCR, depth_first CRD.
    let dcr = [0, 2, 1, 3, 4, 6, 5, 7];
    let out = run(&blocks(d2s, arange_i32(&[1, 4, 1, 2]), 2, "blocks_first")).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[1u64, 1, 2, 4][..], dcr.to_vec()));
    let out = run(&blocks(d2s, arange_i32(&[1, 8, 1, 1]), 2, "depth_first")).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[1u64, 2, 2, 2][..], (0..8).collect::<Vec<_>>()));
    // One spatial axis: [1, 4, 2] with b = 2.
    let out = run(&blocks(d2s, arange_i32(&[1, 4, 2]), 2, "blocks_first")).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[1u64, 2, 4][..], vec![0, 4, 1, 5, 2, 6, 3, 7]));
    let out = run(&blocks(d2s, arange_i32(&[1, 4, 2]), 2, "depth_first")).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[1u64, 2, 4][..], vec![0, 2, 1, 3, 4, 6, 5, 7]));
    // Three spatial axes: C divisible by b³.
    assert_eq!(run(&blocks(d2s, arange_i32(&[1, 8, 1, 2, 1]), 2, "blocks_first")).unwrap().shape(), &[1, 1, 2, 4, 2]);
    assert!(error(&blocks(d2s, arange_i32(&[1, 4, 1, 1, 1]), 2, "blocks_first")).contains("block_size_divides"));
    assert!(error(&blocks(d2s, arange_i32(&[4, 2]), 2, "blocks_first")).contains("data_rank_at_least_3"));
    assert!(error(&blocks(d2s, arange_i32(&[1, 4, 2]), 0, "blocks_first")).contains("block_size_divides"));
}

#[test]
fn openvino_space_to_depth_any_spatial_rank() {
    let s2d = "openvino.space_to_depth";
    // Inverse of DepthToSpace in the same mode.
    for mode in ["blocks_first", "depth_first"] {
        for shape in [&[1u64, 2, 4][..], &[2, 1, 2, 4], &[1, 2, 2, 2, 4]] {
            let there = run(&blocks(s2d, arange_i32(shape), 2, mode)).unwrap();
            let back = run(&blocks("openvino.depth_to_space", there, 2, mode)).unwrap();
            assert_eq!((back.shape(), ints(&back)), (shape, ints(&arange_i32(shape))), "{mode} {shape:?}");
        }
    }
    let out = run(&blocks(s2d, arange_i32(&[1, 1, 4]), 2, "blocks_first")).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[1u64, 2, 2][..], vec![0, 2, 1, 3]));
    assert!(error(&blocks(s2d, arange_i32(&[1, 1, 4, 3]), 2, "depth_first")).contains("block_size_divides"));
    assert!(error(&blocks(s2d, arange_i32(&[4]), 2, "depth_first")).contains("data_rank_at_least_3"));
}

fn ov_reshape(data: Tensor, shape: &[i64], special_zero: bool) -> Request {
    Request::new("openvino.reshape")
        .input("data", data)
        .input("shape", Tensor::from_i64s(shape))
        .attr("special_zero", special_zero)
}

#[test]
fn openvino_reshape_special_zero() {
    assert_eq!(run(&ov_reshape(arange_i32(&[2, 6]), &[0, 2, -1], true)).unwrap().shape(), &[2, 2, 3]);
    assert_eq!(run(&ov_reshape(arange_i32(&[0, 3]), &[3, 0], false)).unwrap().shape(), &[3, 0]);
    assert!(error(&ov_reshape(arange_i32(&[2, 6]), &[0, 2, -1], false)).contains("no_zero_with_inferred"));
    assert!(error(&ov_reshape(arange_i32(&[6]), &[6, 0], true)).contains("zero_copies_existing_dim"));
    assert!(error(&ov_reshape(arange_i32(&[2, 3]), &[-1, -1], true)).contains("one_inferred_dim"));
    assert!(error(&ov_reshape(arange_i32(&[0, 3]), &[0, -1], true)).contains("no_zero_with_inferred"));
    assert!(error(&ov_reshape(arange_i32(&[2, 3]), &[4], true)).contains("volume_preserved"));
    // special_zero is required.
    let req = Request::new("openvino.reshape").input("data", arange_i32(&[2])).input("shape", Tensor::from_i64s(&[2]));
    assert!(error(&req).contains("special_zero"));
}

#[test]
fn bool_attributes_take_booleans() {
    let req = Request::new("openvino.reshape")
        .input("data", arange_i32(&[2]))
        .input("shape", Tensor::from_i64s(&[2]))
        .attr("special_zero", 1i64);
    let e = error(&req);
    assert!(e.contains("special_zero") && e.contains("true or false"), "{e}");
    let req = Request::new("tensorrt.shuffle").input("input", arange_i32(&[2])).attr("zero_is_placeholder", "yes");
    assert!(error(&req).contains("zero_is_placeholder"));
    // The attribute value from TOML.
    let v = "b = true".parse::<kerfx_spec::TomlTable>().unwrap()["b"].clone();
    assert_eq!(kerfx_ir::AttrValue::from_toml(&v), Some(kerfx_ir::AttrValue::Bool(true)));
}

fn ov_squeeze(data: Tensor, axes: Option<&[i64]>) -> Request {
    let r = Request::new("openvino.squeeze").input("data", data);
    match axes {
        Some(a) => r.input("axes", Tensor::from_i64s(a)),
        None => r,
    }
}

#[test]
fn openvino_squeeze_keeps_non_unit_axes() {
    assert_eq!(run(&ov_squeeze(arange_i32(&[1, 2, 1]), Some(&[0, 1]))).unwrap().shape(), &[2, 1]);
    assert_eq!(run(&ov_squeeze(arange_i32(&[1, 2, 1]), Some(&[]))).unwrap().shape(), &[2]);
    assert_eq!(run(&ov_squeeze(arange_i32(&[1, 2, 1]), None)).unwrap().shape(), &[2]);
    assert_eq!(run(&ov_squeeze(arange_i32(&[1, 2, 1]), Some(&[-1, 2, 2]))).unwrap().shape(), &[1, 2]);
    assert_eq!(run(&ov_squeeze(arange_i32(&[3, 1, 0]), Some(&[-2]))).unwrap().shape(), &[3, 0]);
    assert!(error(&ov_squeeze(arange_i32(&[1, 2]), Some(&[2]))).contains("axis_in_range"));
    assert!(error(&ov_squeeze(arange_i32(&[1, 2]), Some(&[-3]))).contains("axis_in_range"));
}

#[test]
fn openvino_unsqueeze_ignores_duplicates() {
    let unsq = |shape: &[u64], axes: &[i64]| {
        Request::new("openvino.unsqueeze").input("data", arange_i32(shape)).input("axes", Tensor::from_i64s(axes))
    };
    assert_eq!(run(&unsq(&[2], &[0, 0])).unwrap().shape(), &[1, 2]);
    assert_eq!(run(&unsq(&[4, 6], &[-2, -4])).unwrap().shape(), &[1, 4, 1, 6]);
    assert_eq!(run(&unsq(&[2, 6], &[3, 0, 3])).unwrap().shape(), &[1, 2, 6, 1]);
    let scalar_axis = Request::new("openvino.unsqueeze").input("data", arange_i32(&[2])).input("axes", scalar_i64(-1));
    assert_eq!(run(&scalar_axis).unwrap().shape(), &[2, 1]);
    assert!(error(&unsq(&[2], &[2, -1])).contains("axes_distinct"));
    assert!(error(&unsq(&[2], &[2])).contains("axis_in_range"));
}

fn shuffle(shape: &[u64], first: Option<&[i64]>, dims: Option<&[i64]>, second: Option<&[i64]>) -> Request {
    let mut r = Request::new("tensorrt.shuffle").input("input", arange_i32(shape));
    for (name, v) in [("first_transpose", first), ("reshape_dims", dims), ("second_transpose", second)] {
        if let Some(v) = v {
            r = r.attr(name, v.to_vec());
        }
    }
    r
}

#[test]
fn trt_shuffle_numpy_permutations() {
    // CHW → HWC with [1, 2, 0]: output axis i is input axis order[i].
    let out = run(&shuffle(&[2, 1, 3], Some(&[1, 2, 0]), None, None)).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[1u64, 3, 2][..], vec![0, 3, 1, 4, 2, 5]));
    let out = run(&shuffle(&[2, 3], None, Some(&[3, 2]), Some(&[1, 0]))).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[2u64, 3][..], vec![0, 2, 4, 1, 3, 5]));
    // The runtime input replaces the attribute.
    let req = shuffle(&[2, 3], None, Some(&[3, 2]), None).input("reshape_dims", Tensor::from_i64s(&[6]));
    assert_eq!(run(&req).unwrap().shape(), &[6]);
    for bad in [&[0, 0][..], &[0], &[0, 2], &[-1, 0]] {
        assert!(error(&shuffle(&[2, 3], Some(bad), None, None)).contains("first_transpose_is_permutation"));
    }
    assert!(error(&shuffle(&[2, 3], None, Some(&[6]), Some(&[1, 0]))).contains("second_transpose_is_permutation"));
}

#[test]
fn trt_shuffle_placeholder_reads_the_input() {
    // [2, 3] transposed is [3, 2]; the 0 copies the input's dim 0 (2), not the transposed 3.
    let out = run(&shuffle(&[2, 3], Some(&[1, 0]), Some(&[0, -1]), None)).unwrap();
    assert_eq!((out.shape(), ints(&out)), (&[2u64, 3][..], vec![0, 3, 1, 4, 2, 5]));
    let no_placeholder = |dims: &[i64]| shuffle(&[2, 0], None, Some(dims), None).attr("zero_is_placeholder", false);
    assert_eq!(run(&no_placeholder(&[0, 2])).unwrap().shape(), &[0, 2]);
    assert!(error(&no_placeholder(&[0, -1])).contains("no_zero_with_inferred"));
    assert!(error(&shuffle(&[0, 2], None, Some(&[0, -1]), None)).contains("no_zero_with_inferred"));
    assert!(error(&shuffle(&[2], None, Some(&[2, 0]), None)).contains("zero_copies_existing_dim"));
    assert!(error(&shuffle(&[2, 3], None, Some(&[-1, -1]), None)).contains("one_inferred_dim"));
    assert!(error(&shuffle(&[2, 3], None, Some(&[5, 5]), None)).contains("volume_preserved"));
}

/// The shuffle as three moves, one by one on the reference: the oracle of its one plan.
fn shuffle_by_steps(shape: &[u64], first: &[i64], dims: &[i64], second: &[i64]) -> Tensor {
    let t = run(&Request::new("onnx.transpose").input("data", arange_i32(shape)).attr("perm", first.to_vec())).unwrap();
    let reshape = Request::new("onnx.reshape").attr("allowzero", 1i64).input("data", t);
    let r = run(&reshape.input("shape", Tensor::from_i64s(dims))).unwrap();
    run(&Request::new("onnx.transpose").input("data", r).attr("perm", second.to_vec())).unwrap()
}

#[test]
fn trt_shuffle_folds_into_one_plan() {
    // (input shape, first_transpose, reshape_dims, second_transpose)
    type Case<'a> = (&'a [u64], &'a [i64], &'a [i64], &'a [i64]);
    let cases: &[Case] = &[
        (&[2, 3, 4], &[2, 0, 1], &[4, 6], &[1, 0]),
        (&[4, 6], &[1, 0], &[2, 3, 2, 2], &[3, 1, 0, 2]),
        (&[2, 3, 4, 5], &[3, 1, 0, 2], &[5, 6, 4], &[2, 0, 1]),
        (&[1, 1, 2], &[2, 1, 0], &[1, 2, 1, 1, 1], &[1, 0, 2, 4, 3]),
        (&[6, 4], &[1, 0], &[4, 2, 3], &[0, 2, 1]),
        // A regrouped run the second transpose keeps whole: [10, 6] → [4, 15] moved as one.
        (&[2, 6, 10], &[0, 2, 1], &[2, 4, 15], &[1, 2, 0]),
        (&[3, 0, 2], &[2, 0, 1], &[2, 0], &[1, 0]),
    ];
    for &(shape, first, dims, second) in cases {
        let out = run(&shuffle(shape, Some(first), Some(dims), Some(second))).unwrap();
        let want = shuffle_by_steps(shape, first, dims, second);
        assert_eq!((out.shape(), ints(&out)), (want.shape(), ints(&want)), "{shape:?} {first:?} {dims:?} {second:?}");
        let plan = kerfx_ir::lower(&shuffle(shape, Some(first), Some(dims), Some(second))).unwrap();
        assert!(matches!(plan, kerfx_ir::Plan::Step(_)));
    }
    // [3, 2] → [2, 3] then transposed: the regrouped factors are separated; no reading of
    // the input's axes, but a chain of two shuffles (transpose and reshape, then
    // transpose) that the run functions take, and for one kernel a flat gather (see
    // `trt_shuffle_regrouping_is_one_flat_gather`).
    let hard = shuffle(&[2, 3], Some(&[1, 0]), Some(&[2, 3]), Some(&[1, 0]));
    let chain = kerfx_ir::frontend::as_chain(&hard).unwrap().expect("a chain");
    let plans = kerfx_ir::chain::lower_chain(&chain).unwrap();
    let segments = kerfx_ir::map::compose_segments(&plans).unwrap();
    let out = kerfx_ir::map::evaluate_segments(&segments, Some(arange_i32(&[2, 3]).view())).unwrap();
    let want = shuffle_by_steps(&[2, 3], &[1, 0], &[2, 3], &[1, 0]);
    assert_eq!((out.shape(), ints(&out)), (want.shape(), ints(&want)));
    assert_eq!(ints(&out), [0, 4, 3, 2, 1, 5]);
    assert!(
        kerfx_ir::frontend::as_chain(&shuffle(&[2, 3, 4], Some(&[2, 0, 1]), Some(&[4, 6]), Some(&[1, 0])))
            .unwrap()
            .is_none()
    );
}

/// `trt_shuffle_folds_into_one_plan`'s exception: a Shuffle whose reshape regroups
/// factors its second transpose separates lowers, for one kernel, to the input read flat
/// through the list of each output element's flat input position.
#[test]
fn trt_shuffle_regrouping_is_one_flat_gather() {
    for (shape, first, dims, second) in [
        (&[2u64, 3][..], &[1i64, 0][..], &[2i64, 3][..], &[1i64, 0][..]),
        (&[4, 6], &[1, 0], &[4, 6], &[1, 0]),
        (&[2, 3, 4], &[2, 1, 0], &[3, 8], &[1, 0]),
    ] {
        let request = shuffle(shape, Some(first), Some(dims), Some(second));
        let plan = kerfx_ir::lower(&request).unwrap();
        let kerfx_ir::Plan::Step(step) = &plan else { panic!("a step") };
        let n: u64 = shape.iter().product();
        assert_eq!((step.source(), step.gathered.as_ref().map(|g| g.coords.len())), (&[n][..], Some(n as usize)));
        let got = run(&request).unwrap();
        let want = shuffle_by_steps(shape, first, dims, second);
        assert_eq!((got.shape(), ints(&got)), (want.shape(), ints(&want)), "{shape:?}");
        // Its map and loop nest move the same elements.
        let nest = kerfx_ir::schedule::map_nest(&step.map().unwrap()).unwrap();
        assert!(nest.verify().is_ok());
    }
}

/// Random shuffles against the three moves run one by one: the folded plan where one
/// exists, else the two-step chain [`kerfx_ir::frontend::as_chain`] gives.
#[test]
fn trt_shuffle_random_against_its_steps() {
    let mut rng = kerfx_testkit::random::Rng::new(7);
    let perm = |rng: &mut kerfx_testkit::random::Rng, n: usize| {
        let mut p: Vec<i64> = (0..n as i64).collect();
        for i in (1..n).rev() {
            p.swap(i, rng.below(i as u64 + 1) as usize);
        }
        p
    };
    let (mut folded, mut chained) = (0, 0);
    for _ in 0..400 {
        let shape: Vec<u64> = (0..rng.below(5)).map(|_| 1 + rng.below(4)).collect();
        let first = perm(&mut rng, shape.len());
        // The volume's prime factors in a random order, grouped at random, with unit axes.
        let mut primes = Vec::new();
        for &d in &shape {
            let mut d = d;
            for p in [2, 3] {
                while d % p == 0 {
                    primes.push(p);
                    d /= p;
                }
            }
        }
        for i in (1..primes.len()).rev() {
            primes.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut dims: Vec<i64> = Vec::new();
        for p in primes {
            match dims.last_mut() {
                Some(last) if rng.chance(40) => *last *= p as i64,
                _ => dims.push(p as i64),
            }
            if rng.chance(10) {
                dims.push(1);
            }
        }
        let second = perm(&mut rng, dims.len());
        let request = shuffle(&shape, Some(&first), Some(&dims), Some(&second)).attr("zero_is_placeholder", false);
        let want = shuffle_by_steps(&shape, &first, &dims, &second);
        let got = match kerfx_ir::frontend::as_chain(&request).unwrap() {
            None => {
                folded += 1;
                run(&request).unwrap()
            }
            Some(chain) => {
                chained += 1;
                let plans = kerfx_ir::chain::lower_chain(&chain).unwrap();
                let segments = kerfx_ir::map::compose_segments(&plans).unwrap();
                let two = kerfx_ir::map::evaluate_segments(&segments, Some(arange_i32(&shape).view())).unwrap();
                // The one-kernel form, the flat gather `lower` gives, agrees.
                let flat = run(&request).unwrap();
                assert_eq!(ints(&flat), ints(&two), "{shape:?} {first:?} {dims:?} {second:?}");
                two
            }
        };
        let what = format!("{shape:?} {first:?} {dims:?} {second:?}");
        assert_eq!((got.shape(), ints(&got)), (want.shape(), ints(&want)), "{what}");
    }
    assert!(folded > 100 && chained > 10, "{folded} folded, {chained} chained");
}

// ---------------------------------------------------------------- Concat and Split

fn split18(d: u64, num_outputs: i64) -> Request {
    Request::new("onnx.split").input("input", arange_i64(&[d])).attr("num_outputs", num_outputs)
}

fn extents(outs: &[Tensor]) -> Vec<u64> {
    outs.iter().map(|t| t.shape()[0]).collect()
}

#[test]
fn onnx_split_18_num_outputs_not_dividing_gives_a_smaller_last_part() {
    let outs = run_outputs(&split18(7, 3)).unwrap();
    assert_eq!(extents(&outs), [3, 3, 1]);
    assert_eq!(outs.iter().flat_map(ints).collect::<Vec<_>>(), (0..7).collect::<Vec<_>>());
    // A last part of 0 is allowed: 6 into 4 is 2, 2, 2, 0.
    assert_eq!(extents(&run_outputs(&split18(6, 4)).unwrap()), [2, 2, 2, 0]);
}

#[test]
fn onnx_split_18_negative_last_part_is_an_error_naming_onnx_5766() {
    for (d, n) in [(5, 4), (2, 4)] {
        let e = outputs_error(&split18(d, n));
        assert!(e.contains("num_outputs_uneven") && e.contains("onnx/onnx#5766"), "{d}/{n}: {e}");
    }
}

#[test]
fn onnx_split_2_to_13_without_split_needs_equal_parts() {
    let req = Request::new("onnx.split").version(13).input("input", arange_i64(&[6])).outputs(3);
    assert_eq!(extents(&run_outputs(&req).unwrap()), [2, 2, 2]);
    let e = outputs_error(&Request::new("onnx.split").version(11).input("input", arange_i64(&[5])).outputs(2));
    assert!(e.contains("output_count") && e.contains("equal parts"), "{e}");
    // Without the count there is nothing to split by.
    let e = outputs_error(&Request::new("onnx.split").version(2).input("input", arange_i64(&[4])));
    assert!(e.contains("output_count"), "{e}");
}

#[test]
fn onnx_split_sizes_negative_or_not_summing_are_errors() {
    let sized = |split: &[i64]| {
        Request::new("onnx.split").version(13).input("input", arange_i64(&[4])).input("split", Tensor::from_i64s(split))
    };
    assert_eq!(extents(&run_outputs(&sized(&[1, 0, 3])).unwrap()), [1, 0, 3]);
    assert!(outputs_error(&sized(&[1, 2])).contains("split_sizes"));
    assert!(outputs_error(&sized(&[5, -1])).contains("split_sizes"));
    // Version 2 takes split as an attribute.
    let v2 = Request::new("onnx.split").version(2).input("input", arange_i64(&[4])).attr("split", [3, 1]);
    assert_eq!(extents(&run_outputs(&v2).unwrap()), [3, 1]);
}

#[test]
fn onnx_split_18_takes_exactly_one_of_split_and_num_outputs() {
    let neither = Request::new("onnx.split").input("input", arange_i64(&[4]));
    assert!(outputs_error(&neither).contains("split_or_num_outputs"));
    let both = split18(4, 2).input("split", Tensor::from_i64s(&[2, 2]));
    assert!(outputs_error(&both).contains("split_or_num_outputs"));
}

#[test]
fn onnx_split_axis_negative_from_11_only() {
    let m = arange_i64(&[2, 3]);
    let v11 = Request::new("onnx.split").version(11).input("input", m.clone()).attr("axis", -1).attr("split", [1, 2]);
    let outs = run_outputs(&v11).unwrap();
    assert_eq!((outs[0].shape(), ints(&outs[0])), (&[2, 1][..], vec![0, 3]));
    let v2 = Request::new("onnx.split").version(2).input("input", m).attr("axis", -1).attr("split", [1, 2]);
    assert!(outputs_error(&v2).contains("axis_range"));
}

fn concat(op: &str, version: Option<u32>, axis: Option<i64>, inputs: Vec<Tensor>) -> Request {
    let mut req = Request::new(op).input_list("inputs", inputs.into_iter().map(Into::into).collect());
    req.version = version;
    match axis {
        Some(a) => req.attr("axis", a),
        None => req,
    }
}

#[test]
fn onnx_concat_empty_inputs_take_part_and_their_other_dims_must_match() {
    let a = arange_i64(&[2, 2]);
    let empty = Tensor::zeros(DType::I64, &[0, 2]).unwrap();
    let out = run_outputs(&concat("onnx.concat", None, Some(0), vec![a.clone(), empty, a.clone()])).unwrap();
    assert_eq!((out[0].shape(), ints(&out[0])), (&[4, 2][..], vec![0, 1, 2, 3, 0, 1, 2, 3]));
    let wrong = Tensor::zeros(DType::I64, &[0, 3]).unwrap();
    let e = outputs_error(&concat("onnx.concat", None, Some(0), vec![a, wrong]));
    assert!(e.contains("same_shape_off_axis"), "{e}");
}

#[test]
fn concat_mixed_dtypes_and_ranks_are_refused_with_the_rule() {
    let e = outputs_error(&concat("openvino.concat", None, Some(0), vec![arange_i64(&[2]), arange_i32(&[2])]));
    assert!(e.contains("same_dtype"), "{e}");
    let e = outputs_error(&concat("openvino.concat", None, Some(0), vec![arange_i64(&[2]), arange_i64(&[1, 2])]));
    assert!(e.contains("same_shape_off_axis"), "{e}");
}

#[test]
fn onnx_concat_axis_negative_from_11_only() {
    let ins = || vec![arange_i64(&[1, 2]), arange_i64(&[1, 1])];
    let out = run_outputs(&concat("onnx.concat", Some(11), Some(-1), ins())).unwrap();
    assert_eq!((out[0].shape(), ints(&out[0])), (&[1, 3][..], vec![0, 1, 0]));
    assert!(outputs_error(&concat("onnx.concat", Some(4), Some(-1), ins())).contains("axis_range"));
}

#[test]
fn tensorrt_concatenation_default_axis_is_max_0_rank_minus_3_and_negative_axes_are_errors() {
    // Rank 4: axis 1 (the channels of NCHW); rank 2: axis 0.
    let out = run_outputs(&concat("tensorrt.concatenation", None, None, vec![arange_i64(&[1, 1, 1, 2]); 2])).unwrap();
    assert_eq!(out[0].shape(), [1, 2, 1, 2]);
    let out = run_outputs(&concat("tensorrt.concatenation", None, None, vec![arange_i64(&[1, 2]); 2])).unwrap();
    assert_eq!(out[0].shape(), [2, 2]);
    let e = outputs_error(&concat("tensorrt.concatenation", None, Some(-1), vec![arange_i64(&[1, 2])]));
    assert!(e.contains("axis_range"), "{e}");
}

#[test]
fn openvino_split_zero_size_axis_or_non_dividing_count_is_an_error() {
    let split = |data: Tensor, n: i64| {
        Request::new("openvino.split").input("data", data).input("axis", scalar_i64(0)).attr("num_splits", n)
    };
    assert_eq!(extents(&run_outputs(&split(arange_i64(&[6]), 3)).unwrap()), [2, 2, 2]);
    let empty = Tensor::zeros(DType::I64, &[0]).unwrap();
    assert!(outputs_error(&split(empty, 1)).contains("num_splits_divides"));
    assert!(outputs_error(&split(arange_i64(&[6]), 4)).contains("num_splits_divides"));
}

#[test]
fn openvino_variadic_split_lengths_exceeding_the_dim_are_an_error() {
    let vsplit = |lengths: &[i64]| {
        Request::new("openvino.variadic_split")
            .input("data", arange_i64(&[5]))
            .input("axis", scalar_i64(0))
            .input("split_lengths", Tensor::from_i64s(lengths))
    };
    assert_eq!(extents(&run_outputs(&vsplit(&[1, -1, 1])).unwrap()), [1, 3, 1]);
    for bad in [&[3, 3][..], &[4, -1, 2], &[-1, -1], &[2, -2, 5]] {
        assert!(outputs_error(&vsplit(bad)).contains("lengths_sum"), "{bad:?}");
    }
}
