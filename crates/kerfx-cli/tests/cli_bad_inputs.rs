//! Bad inputs through the `kerf` binary: every vendor rule broken, i64 extremes, volumes
//! and byte sizes that overflow or cannot be allocated, malformed request TOML, and
//! truncated or corrupt `.npy` files. Each row must end with exit status 1 and one line
//! on stderr naming what is wrong — never a panic, never a backtrace — and leave the file
//! at OUT as it was and no temporary file behind. Rows that reach
//! lowering run four ways: `kerf run` (JIT), `--dynamic`, `--backend reference` and
//! `kerf clif`.

use assert_cmd::Command;
use kerfx::{DType, Tensor};
use kerfx_testkit::npy_v1;
use std::path::Path;

/// The `kerf` binary, built by cargo for this package's tests.
fn kerf_bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_kerf"))
}

/// Run `kerf ARGS`; a failure message unless it failed as a user error should.
fn check_fails(args: &[&str], needles: &[&str]) -> Option<String> {
    let out = Command::new(kerf_bin()).env("RUST_BACKTRACE", "1").args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let what = format!("kerf {}", args.join(" "));
    if out.status.code() != Some(1) {
        return Some(format!("{what}: status {:?} (stderr: {err})", out.status));
    }
    if err.lines().count() == 0 || !err.lines().all(|l| l.starts_with("error: ")) {
        return Some(format!("{what}: stderr is not `error: ` lines:\n{err}"));
    }
    if ["panicked", "backtrace", "internal error"].iter().any(|b| err.contains(b)) {
        return Some(format!("{what}: {err}"));
    }
    let missing: Vec<&&str> = needles.iter().filter(|n| !err.contains(**n)).collect();
    if !missing.is_empty() {
        return Some(format!("{what}: {missing:?} missing from: {err}"));
    }
    None
}

/// The data files the rows name, written into `dir`.
fn write_files(dir: &Path) {
    let w = |name: &str, t: &Tensor| kerfx::npy::write(&dir.join(name), t).unwrap();
    let f32s = Tensor::from_bytes(DType::F32, &[4, 4], &[0u8; 64]).unwrap();
    w("f32.npy", &f32s);
    w("i32.npy", &Tensor::from_bytes(DType::I32, &[4], &[0u8; 16]).unwrap());
    w("u16.npy", &Tensor::from_bytes(DType::U16, &[4], &[0u8; 8]).unwrap());
    w("u8.npy", &Tensor::from_bytes(DType::U8, &[4], &[0, 1, 2, 9]).unwrap());
    w("i8_big.npy", &Tensor::from_bytes(DType::I8, &[2], &[1, 9]).unwrap());
    w("i4_ok.npy", &Tensor::from_bytes(DType::I8, &[3], &[1, 0xfe, 7]).unwrap());
    w("u64_max.npy", &Tensor::from_bytes(DType::U64, &[1], &u64::MAX.to_le_bytes()).unwrap());
    w("i64_2d.npy", &Tensor::from_bytes(DType::I64, &[1, 1], &[0u8; 8]).unwrap());
    w("f32_starts.npy", &Tensor::from_bytes(DType::F32, &[1], &[0u8; 4]).unwrap());
    let raw = |name: &str, bytes: &[u8]| std::fs::write(dir.join(name), bytes).unwrap();
    let good = std::fs::read(dir.join("f32.npy")).unwrap();
    raw("truncated_data.npy", &good[..good.len() - 1]);
    raw("truncated_header.npy", &good[..20]);
    raw("trailing.npy", &[good.as_slice(), &[0u8; 3]].concat());
    raw("empty.npy", b"");
    raw("garbage.npy", b"PK\x03\x04 this is a zip file, not an array");
    raw(
        "huge_header_len.npy",
        &[b"\x93NUMPY\x02\x00".as_slice(), &u32::MAX.to_le_bytes(), b"{'descr': '<f4', 'fo"].concat(),
    );
    raw(
        "shape_overflow.npy",
        &npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", b""),
    );
    raw(
        "shape_overflow_after_zero.npy",
        &npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4294967296, 4294967296), }", b""),
    );
    raw("promises_8gb.npy", &npy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000,), }", &[0; 8]));
    raw(
        "zero_width_strings.npy",
        &npy_v1("{'descr': '<U0', 'fortran_order': False, 'shape': (1000000000000,), }", b""),
    );
    raw("object.npy", &npy_v1("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", &[0; 16]));
    raw("datetime.npy", &npy_v1("{'descr': '<M8[D]', 'fortran_order': False, 'shape': (1,), }", &[0; 8]));
    raw(
        "structured.npy",
        &npy_v1("{'descr': [('a', '<i4'), ('b', '<f4')], 'fortran_order': False, 'shape': (1,), }", &[0; 8]),
    );
    raw("bad_header_dict.npy", &npy_v1("{'descr': '<f4', 'shape': (2,), }", &[0; 8]));
    raw("negative_dim.npy", &npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", &[0; 8]));
    let nested = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': {}", "{".repeat(90));
    raw("nested_header.npy", &npy_v1(&nested, &[0; 4]));
    raw("not_utf8.toml", b"op = \"tensorrt.slice\"\n# \xff\xfe\n");
    std::fs::create_dir(dir.join("a_directory.npy")).unwrap();
}

/// A tensorrt.slice request on `input` (an input value in TOML) with extra lines.
fn trt(input: &str, start: &str, size: &str, stride: &str, extra_attrs: &str, extra_inputs: &str) -> String {
    format!(
        "op = \"tensorrt.slice\"\n[attributes]\nstart = {start}\nsize = {size}\nstride = {stride}\n{extra_attrs}\n\
         [inputs]\ninput = {input}\n{extra_inputs}\n"
    )
}

const I32_4: &str = "{ dtype = \"i32\", shape = [4], values = [1, 2, 3, 4] }";
const F32_44: &str = "\"f32.npy\"";

fn fill(attrs: &str, inputs: &str) -> String {
    format!("op = \"tensorrt.fill\"\n[attributes]\n{attrs}\n[inputs]\n{inputs}\n")
}

fn onnx(version: u32, data: &str, inputs: &str, attrs: &str) -> String {
    format!("op = \"onnx.slice\"\nversion = {version}\n[attributes]\n{attrs}\n[inputs]\ndata = {data}\n{inputs}\n")
}

fn ov(data: &str, inputs: &str, masks: &str) -> String {
    format!("op = \"openvino.strided_slice\"\n[attributes]\n{masks}\n[inputs]\ndata = {data}\n{inputs}\n")
}

const OV_MASKS: &str = "begin_mask = [0]\nend_mask = [0]";

/// How far a row's request gets, and so which commands it is tried with.
#[derive(Copy, Clone, PartialEq)]
enum Reach {
    /// Fails reading the file (TOML or .npy): `kerf run` only.
    File,
    /// Lowers, fails compiling or running: `kerf run` on each backend, and `--dynamic`.
    Run,
    /// Fails lowering: the `run` commands and `kerf clif`.
    All,
}
use Reach::{All as ALL, File as FILE, Run as RUN};

/// (name, request text, fragments the message must hold, how far it gets).
fn rows() -> Vec<(&'static str, String, Vec<&'static str>, Reach)> {
    let wrap = "mode = \"wrap\"";
    vec![
        // ---- tensorrt.slice: every rule
        (
            "trt_params_missing",
            format!("op = \"tensorrt.slice\"\n[attributes]\nsize = [1]\nstride = [1]\n[inputs]\ninput = {I32_4}\n"),
            vec!["params_given"],
            ALL,
        ),
        (
            "trt_param_lengths",
            trt(F32_44, "[0]", "[2, 2]", "[1, 1]", wrap, ""),
            vec!["param_lengths", "`start` has 1 entries"],
            ALL,
        ),
        ("trt_axes_unique", trt(F32_44, "[0, 0]", "[1, 1]", "[1, 1]", "axes = [1, -1]", ""), vec!["axes_unique"], ALL),
        ("trt_axes_in_range", trt(F32_44, "[0]", "[1]", "[1]", "axes = [2]", ""), vec!["axes_in_range"], ALL),
        ("trt_size_negative", trt(F32_44, "[0, 0]", "[2, -1]", "[1, 1]", wrap, ""), vec!["size_non_negative"], ALL),
        (
            "trt_strict_reverse_below_zero",
            trt(I32_4, "[1]", "[3]", "[-1]", "", ""),
            vec!["strict_bounds_in_range"],
            ALL,
        ),
        (
            "trt_strict_past_end",
            trt(I32_4, "[2]", "[2]", "[2]", "mode = \"strict_bounds\"", ""),
            vec!["strict_bounds_in_range"],
            ALL,
        ),
        (
            "trt_clamp_i64",
            trt("{ dtype = \"i64\", shape = [2], values = [1, 2] }", "[0]", "[1]", "[1]", "mode = \"clamp\"", ""),
            vec!["mode_dtype"],
            ALL,
        ),
        (
            "trt_reflect_bf16",
            trt("{ path = \"u16.npy\", dtype = \"bf16\" }", "[0]", "[1]", "[1]", "mode = \"reflect\"", ""),
            vec!["mode_dtype", "bf16"],
            ALL,
        ),
        (
            "trt_fill_outside_fill_mode",
            trt(I32_4, "[0]", "[2]", "[1]", wrap, "fill = 1"),
            vec!["fill_only_in_fill_mode"],
            ALL,
        ),
        (
            "trt_nan_fill_int",
            trt(I32_4, "[0]", "[6]", "[1]", "mode = \"fill\"", "fill = nan"),
            vec!["fill_value_representable"],
            ALL,
        ),
        (
            "trt_inf_fill_int",
            trt(I32_4, "[0]", "[6]", "[1]", "mode = \"fill\"", "fill = -inf"),
            vec!["fill_value_representable"],
            ALL,
        ),
        (
            "trt_fill_out_of_i8",
            trt("\"i8_big.npy\"", "[0]", "[3]", "[1]", "mode = \"fill\"", "fill = 300"),
            vec!["fill_value_representable", "300"],
            ALL,
        ),
        (
            "trt_fill_out_of_i4",
            trt("{ path = \"i4_ok.npy\", dtype = \"i4\" }", "[0]", "[5]", "[1]", "mode = \"fill\"", "fill = 8"),
            vec!["fill_value_representable"],
            ALL,
        ),
        (
            "trt_fill_beyond_fp8",
            trt("{ path = \"u8.npy\", dtype = \"f8e4m3fn\" }", "[0]", "[5]", "[1]", "mode = \"fill\"", "fill = 1e4"),
            vec!["fill_value_representable"],
            ALL,
        ),
        (
            "trt_fill_fractional_int",
            trt(I32_4, "[0]", "[5]", "[1]", "mode = \"fill\"", "fill = 0.5"),
            vec!["fill_value_representable"],
            ALL,
        ),
        (
            "trt_fill_string",
            trt(
                I32_4,
                "[0]",
                "[5]",
                "[1]",
                "mode = \"fill\"",
                "fill = { dtype = \"string\", shape = [], values = [\"x\"] }",
            ),
            vec!["input `fill`"],
            ALL,
        ),
        (
            "trt_empty_axis_clamp",
            trt("{ dtype = \"f32\", shape = [0], values = [] }", "[0]", "[2]", "[1]", "mode = \"clamp\"", ""),
            vec!["empty_input_axis"],
            ALL,
        ),
        ("trt_start_i64_max", trt(I32_4, "[9223372036854775807]", "[2]", "[1]", wrap, ""), vec!["overflows"], ALL),
        ("trt_stride_i64_min", trt(I32_4, "[0]", "[3]", "[-9223372036854775808]", wrap, ""), vec!["overflows"], ALL),
        (
            "trt_start_input_i64_min",
            trt(I32_4, "[0]", "[3]", "[4611686018427387904]", "mode = \"reflect\"", ""),
            vec!["overflows"],
            ALL,
        ),
        (
            "trt_volume_overflows",
            trt(
                "{ dtype = \"f32\", shape = [2, 2, 2] }",
                "[0, 0, 0]",
                "[1073741824, 1073741824, 1073741824]",
                "[0, 0, 0]",
                wrap,
                "",
            ),
            vec!["output volume"],
            ALL,
        ),
        ("trt_output_16_tib", trt(F32_44, "[0, 0]", "[2097152, 2097152]", "[0, 0]", wrap, ""), vec!["too large"], RUN),
        (
            "trt_input_bytes_overflow",
            trt("{ dtype = \"c128\", shape = [1152921504606846976, 2] }", "[0, 0]", "[1, 1]", "[1, 1]", wrap, ""),
            vec!["input"],
            ALL,
        ),
        (
            "trt_size_as_f32_input",
            trt(I32_4, "[0]", "[1]", "[1]", "", "start = \"f32_starts.npy\""),
            vec!["input `start` has dtype f32"],
            ALL,
        ),
        (
            "trt_start_2d",
            trt(I32_4, "[0]", "[1]", "[1]", "", "start = \"i64_2d.npy\""),
            vec!["input `start` must be a 1-D tensor"],
            ALL,
        ),
        ("trt_mode_unknown", trt(I32_4, "[0]", "[1]", "[1]", "mode = \"mirror\"", ""), vec!["mode", "mirror"], ALL),
        ("trt_input_u16", trt("\"u16.npy\"", "[0]", "[1]", "[1]", "", ""), vec!["input `input` has dtype u16"], ALL),
        // ---- tensorrt.fill
        ("fill_dims_missing", fill("operation = \"linspace\"", ""), vec!["dimensions_given"], ALL),
        (
            "fill_dims_negative",
            fill("dimensions = [2, -3]\noperation = \"linspace\"\nbeta = [1, 1]", ""),
            vec!["dimensions_given", "-3"],
            ALL,
        ),
        (
            "fill_volume_limit",
            fill("dimensions = [65536, 65536]\noperation = \"random_uniform\"", ""),
            vec!["volume_limit"],
            ALL,
        ),
        (
            "fill_volume_overflow",
            fill("dimensions = [4294967296, 4294967296, 4294967296]\noperation = \"random_uniform\"", ""),
            vec!["volume_limit"],
            ALL,
        ),
        (
            "fill_random_i32",
            fill("dimensions = [2]\noperation = \"random_uniform\"\nto_type = \"i32\"", ""),
            vec!["random_types"],
            ALL,
        ),
        (
            "fill_linspace_f16",
            fill("dimensions = [2]\noperation = \"linspace\"\nto_type = \"f16\"", ""),
            vec!["linspace_types"],
            ALL,
        ),
        (
            "fill_alpha_only_input",
            fill("dimensions = [2]\noperation = \"linspace\"", "alpha = 1.0"),
            vec!["alpha_beta_together"],
            ALL,
        ),
        (
            "fill_beta_length",
            fill("dimensions = [2, 3]\noperation = \"linspace\"\nbeta = [1.0]", ""),
            vec!["beta_length"],
            ALL,
        ),
        (
            "fill_linspace_i32_range",
            fill("dimensions = [3]\noperation = \"linspace\"\nto_type = \"i32\"\nalpha = 2147483647\nbeta = 1", ""),
            vec!["linspace_range"],
            ALL,
        ),
        (
            "fill_linspace_i64_fraction",
            fill("dimensions = [3]\noperation = \"linspace\"\nto_type = \"i64\"\nalpha = 0.5\nbeta = 1", ""),
            vec!["linspace_range"],
            ALL,
        ),
        (
            "fill_linspace_f32_overflow",
            fill("dimensions = [3]\noperation = \"linspace\"\nalpha = 3e38\nbeta = 3e38", ""),
            vec!["linspace_range"],
            ALL,
        ),
        (
            "fill_uniform_empty_range",
            fill("dimensions = [3]\noperation = \"random_uniform\"\nalpha = 2.0\nbeta = 2.0", ""),
            vec!["uniform_range"],
            ALL,
        ),
        (
            "fill_uniform_nan",
            fill("dimensions = [3]\noperation = \"random_uniform\"\nalpha = nan", ""),
            vec!["uniform_range"],
            ALL,
        ),
        (
            "fill_normal_negative_std",
            fill("dimensions = [3]\noperation = \"random_normal\"\nbeta = -1.0", ""),
            vec!["normal_std"],
            ALL,
        ),
        (
            "fill_normal_inf_mean",
            fill("dimensions = [3]\noperation = \"random_normal\"\nalpha = inf", ""),
            vec!["normal_std"],
            ALL,
        ),
        (
            "fill_seed_negative",
            fill("dimensions = [3]\noperation = \"random_normal\"\nseed = -1", ""),
            vec!["seed"],
            ALL,
        ),
        (
            "fill_to_type_unknown",
            fill("dimensions = [3]\noperation = \"random_normal\"\nto_type = \"float\"", ""),
            vec!["to_type"],
            ALL,
        ),
        (
            "fill_operation_unknown",
            fill("dimensions = [3]\noperation = \"arange\"", ""),
            vec!["operation", "arange"],
            ALL,
        ),
        // ---- onnx.slice
        ("onnx_lengths", onnx(13, F32_44, "starts = [0, 0]\nends = [1]", ""), vec!["lengths_equal"], ALL),
        ("onnx_zero_step", onnx(13, F32_44, "starts = [0]\nends = [1]\nsteps = [0]", ""), vec!["step_nonzero"], ALL),
        (
            "onnx_axes_repeated",
            onnx(13, F32_44, "starts = [0, 0]\nends = [1, 1]\naxes = [1, -1]", ""),
            vec!["axes_unique"],
            ALL,
        ),
        (
            "onnx_axis_out_of_range",
            onnx(13, F32_44, "starts = [0]\nends = [1]\naxes = [-3]", ""),
            vec!["axis_in_range"],
            ALL,
        ),
        (
            "onnx_negative_axis_v10",
            onnx(10, F32_44, "starts = [0]\nends = [1]\naxes = [-1]", ""),
            vec!["negative_axes_from_11"],
            ALL,
        ),
        (
            "onnx_bf16_v11",
            onnx(11, "{ path = \"u16.npy\", dtype = \"bf16\" }", "starts = [0]\nends = [1]", ""),
            vec!["bf16_from_13"],
            ALL,
        ),
        (
            "onnx_steps_input_v1",
            onnx(1, F32_44, "steps = [1]", "starts = [0]\nends = [1]"),
            vec!["unknown input `steps` in version 1"],
            ALL,
        ),
        ("onnx_starts_missing_v1", onnx(1, F32_44, "", "ends = [1]"), vec!["starts_ends_given"], ALL),
        (
            "onnx_steps_u8",
            onnx(13, F32_44, "starts = [0]\nends = [1]\nsteps = \"u8.npy\"", ""),
            vec!["input `steps` has dtype u8"],
            ALL,
        ),
        // ---- openvino.strided_slice
        (
            "ov_two_ellipses",
            ov(
                F32_44,
                "begin = [0, 0]\nend = [1, 1]",
                "begin_mask = [0, 0]\nend_mask = [0, 0]\nellipsis_mask = [1, 1]",
            ),
            vec!["single_ellipsis"],
            ALL,
        ),
        ("ov_zero_stride", ov(F32_44, "begin = [0]\nend = [1]\nstride = [0]", OV_MASKS), vec!["stride_nonzero"], ALL),
        (
            "ov_shrink_out_of_range",
            ov(F32_44, "begin = [4]\nend = [0]", "begin_mask = [0]\nend_mask = [0]\nshrink_axis_mask = [1]"),
            vec!["shrink_in_range"],
            ALL,
        ),
        (
            "ov_entries_fit_rank",
            ov(I32_4, "begin = [0, 0]\nend = [1, 1]", "begin_mask = [0, 0]\nend_mask = [0, 0]"),
            vec!["entries_fit_rank"],
            ALL,
        ),
        (
            "ov_mask_not_bits",
            ov(F32_44, "begin = [0]\nend = [1]", "begin_mask = [2]\nend_mask = [0]"),
            vec!["begin_mask"],
            ALL,
        ),
        ("ov_lengths", ov(F32_44, "begin = [0, 0]\nend = [1]", OV_MASKS), vec!["lengths_equal"], ALL),
        (
            "ov_end_mask_missing",
            ov(F32_44, "begin = [0]\nend = [1]", "begin_mask = [0]"),
            vec!["missing required attribute `end_mask`"],
            ALL,
        ),
        ("ov_begin_u64_max", ov(I32_4, "begin = \"u64_max.npy\"\nend = [1]", OV_MASKS), vec!["overflows"], ALL),
        // ---- malformed request TOML
        ("toml_empty", String::new(), vec!["op"], FILE),
        (
            "toml_unclosed_list",
            "op = \"onnx.slice\"\n[inputs]\nstarts = [0, \n".into(),
            vec!["toml_unclosed_list.toml:"],
            FILE,
        ),
        (
            "toml_duplicate_key",
            "op = \"onnx.slice\"\nop = \"onnx.slice\"\n".into(),
            vec!["toml_duplicate_key.toml:2:"],
            FILE,
        ),
        ("toml_op_not_string", "op = 5\n".into(), vec!["toml_op_not_string.toml:1:"], FILE),
        (
            "toml_version_negative",
            "op = \"onnx.slice\"\nversion = -1\n".into(),
            vec![":2:", "not a version number"],
            FILE,
        ),
        (
            "toml_version_huge",
            "op = \"onnx.slice\"\nversion = 99999999999\n".into(),
            vec![":2:", "not a version number"],
            FILE,
        ),
        (
            "toml_inputs_not_table",
            "op = \"onnx.slice\"\ninputs = 5\n".into(),
            vec!["toml_inputs_not_table.toml:2:"],
            FILE,
        ),
        (
            "toml_attribute_table",
            trt(I32_4, "{ a = 1 }", "[1]", "[1]", "", ""),
            vec![":3:9:", "attribute `start`", "not an attribute value"],
            FILE,
        ),
        (
            "toml_attribute_mixed_list",
            trt(I32_4, "[0, \"a\"]", "[1]", "[1]", "", ""),
            vec![":3:9:", "attribute `start`"],
            FILE,
        ),
        ("toml_attribute_nested_list", trt(I32_4, "[[0]]", "[1]", "[1]", "", ""), vec!["attribute `start`"], FILE),
        ("toml_attribute_bool", trt(I32_4, "[0]", "[1]", "[1]", "mode = true", ""), vec!["attribute `mode`"], FILE),
        ("toml_input_date", trt("1979-05-27", "[0]", "[1]", "[1]", "", ""), vec!["input `input`", "date"], FILE),
        (
            "toml_input_negative_shape",
            trt("{ dtype = \"f32\", shape = [-1] }", "[0]", "[1]", "[1]", "", ""),
            vec!["input `input`", "shape"],
            FILE,
        ),
        (
            "toml_input_values_not_list",
            trt("{ dtype = \"f32\", shape = [1], values = 3 }", "[0]", "[1]", "[1]", "", ""),
            vec!["`values` must be a list"],
            FILE,
        ),
        (
            "toml_input_path_and_values",
            trt("{ path = \"f32.npy\", values = [1] }", "[0]", "[1]", "[1]", "", ""),
            vec!["no `shape` or `values`"],
            FILE,
        ),
        (
            "toml_input_huge_shape_no_values",
            trt(
                "{ dtype = \"f32\", shape = [1099511627776, 1099511627776], values = [] }",
                "[0]",
                "[1]",
                "[1]",
                "",
                "",
            ),
            vec!["input `input`"],
            FILE,
        ),
        (
            "toml_input_unknown_dtype",
            trt("{ dtype = \"f128\", shape = [1], values = [1] }", "[0]", "[1]", "[1]", "", ""),
            vec!["unknown dtype `f128`"],
            FILE,
        ),
        (
            "toml_input_int_too_big",
            trt("{ dtype = \"u8\", shape = [1], values = [256] }", "[0]", "[1]", "[1]", "", ""),
            vec!["value 0", "u8"],
            FILE,
        ),
        (
            "toml_list_of_strings",
            trt(I32_4, "[0]", "[1]", "[1]", "", "size = [\"1\"]"),
            vec!["input `size`", "list input"],
            FILE,
        ),
        // ---- .npy files: truncated, corrupt, unsupported, and refused before allocating
        (
            "npy_truncated_data",
            trt("\"truncated_data.npy\"", "[0]", "[1]", "[1]", "", ""),
            vec!["truncated_data.npy", "truncated"],
            FILE,
        ),
        (
            "npy_truncated_header",
            trt("\"truncated_header.npy\"", "[0]", "[1]", "[1]", "", ""),
            vec!["truncated_header.npy", "truncated"],
            FILE,
        ),
        (
            "npy_trailing_bytes",
            trt("\"trailing.npy\"", "[0]", "[1]", "[1]", "", ""),
            vec!["trailing.npy", "corrupt"],
            FILE,
        ),
        ("npy_empty", trt("\"empty.npy\"", "[0]", "[1]", "[1]", "", ""), vec!["empty.npy", "empty"], FILE),
        (
            "npy_garbage",
            trt("\"garbage.npy\"", "[0]", "[1]", "[1]", "", ""),
            vec!["garbage.npy", "not a valid .npy"],
            FILE,
        ),
        (
            "npy_header_len_4gb",
            trt("\"huge_header_len.npy\"", "[0]", "[1]", "[1]", "", ""),
            vec!["huge_header_len.npy", "header claims"],
            FILE,
        ),
        (
            "npy_shape_overflow",
            trt("\"shape_overflow.npy\"", "[0]", "[1]", "[1]", "", ""),
            vec!["shape_overflow.npy", "overflows"],
            FILE,
        ),
        (
            "npy_shape_overflow_after_zero",
            trt("\"shape_overflow_after_zero.npy\"", "[0]", "[1]", "[1]", "", ""),
            vec!["overflows"],
            FILE,
        ),
        (
            "npy_nested_header",
            trt("\"nested_header.npy\"", "[0]", "[1]", "[1]", "", ""),
            vec!["nested_header.npy", "nests brackets"],
            FILE,
        ),
        (
            "npy_promises_8gb",
            trt("\"promises_8gb.npy\"", "[0]", "[1]", "[1]", "", ""),
            vec!["promises_8gb.npy", "truncated", "the file holds 8"],
            FILE,
        ),
        (
            "npy_zero_width_strings",
            onnx(13, "\"zero_width_strings.npy\"", "starts = [0]\nends = [1]", ""),
            vec!["zero_width_strings.npy"],
            FILE,
        ),
        ("npy_object", trt("\"object.npy\"", "[0]", "[1]", "[1]", "", ""), vec!["object.npy", "not supported"], FILE),
        (
            "npy_datetime",
            trt("\"datetime.npy\"", "[0]", "[1]", "[1]", "", ""),
            vec!["datetime.npy", "not supported"],
            FILE,
        ),
        (
            "npy_structured",
            trt("\"structured.npy\"", "[0]", "[1]", "[1]", "", ""),
            vec!["structured.npy", "structured"],
            FILE,
        ),
        (
            "npy_header_missing_key",
            trt("\"bad_header_dict.npy\"", "[0]", "[1]", "[1]", "", ""),
            vec!["bad_header_dict.npy", "fortran_order"],
            FILE,
        ),
        (
            "npy_negative_dim",
            trt("\"negative_dim.npy\"", "[0]", "[1]", "[1]", "", ""),
            vec!["negative_dim.npy", "negative"],
            FILE,
        ),
        ("npy_is_a_directory", trt("\"a_directory.npy\"", "[0]", "[1]", "[1]", "", ""), vec!["a_directory.npy"], FILE),
        ("npy_missing", trt("\"nowhere.npy\"", "[0]", "[1]", "[1]", "", ""), vec!["nowhere.npy", "cannot open"], FILE),
        (
            "npy_i4_out_of_range",
            trt("{ path = \"i8_big.npy\", dtype = \"i4\" }", "[0]", "[1]", "[1]", "", ""),
            vec!["i8_big.npy", "outside the i4 range"],
            FILE,
        ),
        (
            "npy_bf16_from_f32",
            trt("{ path = \"f32.npy\", dtype = \"bf16\" }", "[0]", "[1]", "[1]", "", ""),
            vec!["f32.npy", "bf16"],
            FILE,
        ),
        (
            "npy_dtype_key_unknown",
            trt("{ path = \"f32.npy\", dtype = \"q8\" }", "[0]", "[1]", "[1]", "", ""),
            vec!["unknown dtype `q8`"],
            FILE,
        ),
    ]
}

fn onnx_pad(version: u32, data: &str, pads: &str, mode: &str, extra_inputs: &str) -> String {
    let pads = if version <= 2 { String::new() } else { format!("pads = {pads}") };
    format!(
        "op = \"onnx.pad\"\nversion = {version}\n[attributes]\nmode = \"{mode}\"\n[inputs]\ndata = {data}\n{pads}\n{extra_inputs}\n"
    )
}

fn ov_pad(version: u32, arg: &str, begin: &str, end: &str, mode: &str, extra_inputs: &str) -> String {
    format!(
        "op = \"openvino.pad\"\nversion = {version}\n[attributes]\npad_mode = \"{mode}\"\n[inputs]\narg = {arg}\n\
         pads_begin = {begin}\npads_end = {end}\n{extra_inputs}\n"
    )
}

fn ov_slice(data: &str, inputs: &str) -> String {
    format!("op = \"openvino.slice\"\n[inputs]\ndata = {data}\n{inputs}\n")
}

/// The Pad family's rows: each rule broken, through the same commands.
fn pad_rows() -> Vec<(&'static str, String, Vec<&'static str>, Reach)> {
    vec![
        (
            "onnx_pad_pads_length",
            onnx_pad(19, F32_44, "[1, 1]", "constant", ""),
            vec!["pads_length", "it needs 4"],
            ALL,
        ),
        (
            "onnx_pad_v1_paddings_length",
            onnx_pad(1, F32_44, "", "edge", "").replace("[inputs]", "paddings = [1]\n[inputs]"),
            vec!["pads_length", "`paddings` has 1 entries"],
            ALL,
        ),
        ("onnx_pad_wrap_before_19", onnx_pad(18, I32_4, "[1, 1]", "wrap", ""), vec!["wrap_from_19"], ALL),
        (
            "onnx_pad_axes_repeated",
            onnx_pad(18, F32_44, "[1, 1, 1, 1]", "edge", "axes = [0, -2]"),
            vec!["axes_unique", "axes[1] = -2"],
            ALL,
        ),
        (
            "onnx_pad_axis_out_of_range",
            onnx_pad(21, F32_44, "[1, 1]", "edge", "axes = [-3]"),
            vec!["axes_in_range", "axes[0] = -3"],
            ALL,
        ),
        (
            "onnx_pad_value_not_representable",
            onnx_pad(19, "\"u8.npy\"", "[1, 1]", "constant", "constant_value = 256"),
            vec!["pad_value_representable", "cannot be u8"],
            ALL,
        ),
        (
            "onnx_pad_value_of_another_dtype",
            onnx_pad(19, I32_4, "[1, 1]", "constant", "constant_value = { dtype = \"u8\", shape = [], values = [1] }"),
            vec!["pad_value_type", "dtype u8"],
            ALL,
        ),
        (
            "onnx_pad_negative_extent",
            onnx_pad(19, I32_4, "[-3, -2]", "constant", ""),
            vec!["output_extent_non_negative", "axis 0"],
            ALL,
        ),
        ("onnx_pad_crop_past_extent", onnx_pad(19, I32_4, "[-5, 2]", "reflect", ""), vec!["crop_within_extent"], ALL),
        (
            "onnx_pad_empty_axis_edge",
            onnx_pad(19, "{ dtype = \"f32\", shape = [0], values = [] }", "[0, 1]", "edge", ""),
            vec!["empty_axis_padded"],
            ALL,
        ),
        (
            "onnx_pad_v1_integers",
            onnx_pad(1, I32_4, "", "edge", "").replace("[inputs]", "paddings = [1, 1]\n[inputs]"),
            vec!["types_version_1_2"],
            ALL,
        ),
        ("onnx_pad_pads_i32", onnx_pad(19, I32_4, "\"i32.npy\"", "edge", ""), vec!["input `pads` has dtype i32"], ALL),
        (
            "onnx_pad_extent_overflows",
            onnx_pad(19, I32_4, "[9223372036854775807, 9223372036854775807]", "constant", ""),
            vec!["overflows"],
            ALL,
        ),
        (
            "onnx_pad_output_too_large",
            onnx_pad(19, I32_4, "[0, 4611686018427387904]", "constant", ""),
            vec!["too large"],
            RUN,
        ),
        (
            "ov_pad_pads_length",
            ov_pad(12, F32_44, "[1]", "[1, 1]", "constant", ""),
            vec!["pads_length", "`pads_begin` has 1"],
            ALL,
        ),
        ("ov_pad_negative_on_pad1", ov_pad(1, I32_4, "[0]", "[-1]", "edge", ""), vec!["pads_non_negative_v1"], ALL),
        (
            "ov_pad_reflect_pads_reach_d",
            ov_pad(12, I32_4, "[4]", "[0]", "reflect", ""),
            vec!["reflect_pads_below_extent", "at most 3"],
            ALL,
        ),
        (
            "ov_pad_symmetric_pads_past_d",
            ov_pad(12, I32_4, "[0]", "[5]", "symmetric", ""),
            vec!["symmetric_pads_within_extent"],
            ALL,
        ),
        (
            "ov_pad_edge_empty_axis",
            ov_pad(12, "{ dtype = \"f32\", shape = [0], values = [] }", "[1]", "[0]", "edge", ""),
            vec!["empty_axis_padded"],
            ALL,
        ),
        (
            "ov_pad_negative_extent",
            ov_pad(12, I32_4, "[-3]", "[-3]", "constant", ""),
            vec!["output_extent_non_negative"],
            ALL,
        ),
        (
            "ov_pad_value_not_integral",
            ov_pad(12, I32_4, "[1]", "[1]", "constant", "pad_value = 0.5"),
            vec!["pad_value_representable"],
            ALL,
        ),
        ("ov_pad_pads_u64_max", ov_pad(12, I32_4, "\"u64_max.npy\"", "[0]", "constant", ""), vec!["overflows"], ALL),
        (
            "ov_pad_symmetric_on_trt",
            trt(I32_4, "[-1]", "[5]", "[1]", "mode = \"symmetric\"", ""),
            vec!["attribute `mode` = \"symmetric\" is not allowed"],
            ALL,
        ),
        ("ov_slice_zero_step", ov_slice(I32_4, "start = [0]\nstop = [2]\nstep = [0]"), vec!["step_nonzero"], ALL),
        (
            "ov_slice_lengths",
            ov_slice(F32_44, "start = [0, 0]\nstop = [2]\nstep = [1, 1]"),
            vec!["lengths_equal", "`stop` has 1"],
            ALL,
        ),
        (
            "ov_slice_axes_repeated",
            ov_slice(F32_44, "start = [0, 0]\nstop = [1, 1]\nstep = [1, 1]\naxes = [1, -1]"),
            vec!["axes_unique"],
            ALL,
        ),
        (
            "ov_slice_axis_out_of_range",
            ov_slice(F32_44, "start = [0]\nstop = [1]\nstep = [1]\naxes = [2]"),
            vec!["axes_in_range"],
            ALL,
        ),
        (
            "ov_slice_scalar",
            ov_slice("{ dtype = \"f32\", shape = [], values = [1] }", "start = []\nstop = []\nstep = []"),
            vec!["data_rank"],
            ALL,
        ),
        ("ov_slice_step_missing", ov_slice(I32_4, "start = [0]\nstop = [2]"), vec!["missing input `step`"], ALL),
    ]
}

#[test]
fn every_bad_input_through_the_cli_is_one_clear_line_and_leaves_out_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path());
    let baseline: Vec<String> = listing(dir.path());
    let rows = [rows(), pad_rows()].concat();
    assert!(rows.len() >= 90, "the table keeps at least 90 rows, has {}", rows.len());
    let mut failures = Vec::new();
    let mut runs = 0;
    for (name, text, needles, reach) in &rows {
        let req = dir.path().join(format!("{name}.toml"));
        std::fs::write(&req, text).unwrap();
        let req = req.to_str().unwrap();
        let out = dir.path().join("out.npy");
        let out_s = out.to_str().unwrap();
        let mut variants: Vec<Vec<&str>> = vec![vec!["run", req, "-o", out_s]];
        if *reach != FILE {
            variants.push(vec!["run", req, "--dynamic", "-o", out_s]);
            variants.push(vec!["run", req, "--backend", "reference", "-o", out_s]);
        }
        if *reach == ALL {
            variants.push(vec!["clif", req]);
        }
        for args in variants {
            std::fs::write(&out, b"output of an earlier run").unwrap();
            runs += 1;
            if let Some(f) = check_fails(&args, needles) {
                failures.push(format!("{name}: {f}"));
            }
            if std::fs::read(&out).ok().as_deref() != Some(b"output of an earlier run") {
                failures.push(format!("{name}: {args:?} changed the file at OUT"));
            }
            let _ = std::fs::remove_file(&out);
            let left: Vec<String> =
                listing(dir.path()).into_iter().filter(|f| !baseline.contains(f) && !f.ends_with(".toml")).collect();
            if !left.is_empty() {
                failures.push(format!("{name}: {args:?} left {left:?}"));
            }
        }
    }
    eprintln!("cli bad inputs: {} rows, {runs} kerf invocations", rows.len());
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// A request file that is not UTF-8, and one that is a directory.
#[test]
fn unreadable_request_files() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path());
    let bad = dir.path().join("not_utf8.toml");
    let out = dir.path().join("out.npy");
    assert_eq!(check_fails(&["run", bad.to_str().unwrap(), "-o", out.to_str().unwrap()], &["not_utf8.toml"]), None);
    assert!(!out.exists(), "no new file at OUT");
    let d = dir.path().join("a_directory.npy");
    assert_eq!(check_fails(&["run", d.to_str().unwrap()], &["a_directory.npy"]), None);
}

/// Huge shapes through every subcommand that compiles: refused by name, quickly, without
/// allocating the buffers they describe.
#[test]
fn huge_shapes_through_clif_expand_and_bench() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        // Output of 2^42 f32 (16 TiB).
        trt("{ dtype = \"f32\", shape = [4, 4] }", "[0, 0]", "[2097152, 2097152]", "[1, 1]", "mode = \"wrap\"", ""),
        // Input whose byte count overflows.
        trt(
            "{ dtype = \"c128\", shape = [1152921504606846976, 2] }",
            "[0, 0]",
            "[1, 1]",
            "[1, 1]",
            "mode = \"wrap\"",
            "",
        ),
        // A fill past TensorRT's volume limit.
        fill("dimensions = [65536, 65536]\noperation = \"random_normal\"", ""),
    ];
    let mut failures = Vec::new();
    for (i, text) in cases.iter().enumerate() {
        let req = dir.path().join(format!("huge{i}.toml"));
        std::fs::write(&req, text).unwrap();
        let req = req.to_str().unwrap();
        for args in [vec!["bench", req, "--iters", "1"], vec!["bench", req, "--iters", "1", "--dynamic"]] {
            let t = std::time::Instant::now();
            if let Some(f) = check_fails(&args, &[]) {
                failures.push(format!("case {i}: {f}"));
            }
            assert!(t.elapsed().as_secs() < 30, "case {i}: {args:?} took {:?}", t.elapsed());
        }
        if i == 2 {
            for args in [vec!["clif", req], vec!["expand", req]] {
                if let Some(f) = check_fails(&args, &["volume_limit"]) {
                    failures.push(format!("case {i}: {f}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}
