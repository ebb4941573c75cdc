//! The `kerf` binary, run as a user would: every subcommand, every error path (one line
//! on stderr, non-zero exit, no panic, no output file left behind), and every dtype
//! through `.npy` files and back.

use assert_cmd::Command;
use kerf::{DType, Tensor};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The `kerf` binary, built once for this test run (it belongs to another package, so
/// cargo does not build it for these tests by itself).
fn kerf_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(p) = option_env!("CARGO_BIN_EXE_kerf") {
            return PathBuf::from(p);
        }
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let out = std::process::Command::new(cargo)
            .args(["build", "--quiet", "-p", "kerf-cli", "--bin", "kerf", "--message-format=json"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("cargo runs");
        assert!(out.status.success(), "building kerf failed:\n{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v.get("executable").and_then(|e| e.as_str()).map(PathBuf::from))
            .next_back()
            .expect("cargo reports the kerf executable")
    })
}

fn kerf() -> Command {
    let mut c = Command::new(kerf_bin());
    // A backtrace must never be printed, even when asked for.
    c.env("RUST_BACKTRACE", "1");
    c
}

fn conformance(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/conformance").join(case)
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The files in a directory, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// Run `kerf ARGS` expecting failure: exit status 1, exactly one line on stderr
/// starting with `error: ` and containing every needle, nothing that smells of a panic.
fn fails(args: &[&str], needles: &[&str]) -> String {
    let out = kerf().args(args).output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "kerf {args:?}: status {:?}, stderr {err}", out.status);
    assert_eq!(err.lines().count(), 1, "kerf {args:?}: stderr is not one line:\n{err}");
    assert!(err.starts_with("error: "), "kerf {args:?}: {err}");
    for bad in ["panicked", "backtrace", "RUST_BACKTRACE", "internal error"] {
        assert!(!err.contains(bad), "kerf {args:?}: {err}");
    }
    for n in needles {
        assert!(err.contains(n), "kerf {args:?}: `{n}` missing from: {err}");
    }
    err
}

/// A scratch folder holding a request file (and whatever else a test writes).
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch { dir: tempfile::tempdir().unwrap() }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn write(&self, name: &str, text: &str) -> String {
        let p = self.path(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    }
    fn s(&self, name: &str) -> String {
        self.path(name).to_string_lossy().into_owned()
    }
}

// ------------------------------------------------------------------ help and listing

#[test]
fn help_for_every_subcommand() {
    let out = kerf().arg("--help").output().unwrap();
    assert!(out.status.success());
    let top = stdout(&out);
    for sub in ["run", "ops", "spec", "clif", "expand", "bench", "demo"] {
        assert!(top.contains(sub), "top-level help lacks {sub}");
        let out = kerf().args([sub, "--help"]).output().unwrap();
        assert!(out.status.success(), "kerf {sub} --help");
        let text = stdout(&out);
        assert!(text.contains("Usage: kerf"), "kerf {sub} --help: {text}");
    }
    // No subcommand: usage on stderr, status 2 (clap's convention for usage errors).
    let out = kerf().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("Usage"));
}

#[test]
fn ops_lists_every_op_with_versions() {
    let out = kerf().arg("ops").output().unwrap();
    assert!(out.status.success());
    let text = stdout(&out);
    for id in ["tensorrt.slice", "tensorrt.fill", "onnx.slice", "openvino.strided_slice"] {
        assert!(text.lines().any(|l| l.starts_with(id)), "{id} missing:\n{text}");
    }
    assert!(text.contains("1, 10, 11, 13"), "{text}");
}

#[test]
fn spec_prints_attributes_inputs_type_sets_rules() {
    let out = kerf().args(["spec", "tensorrt.slice"]).output().unwrap();
    assert!(out.status.success());
    let text = stdout(&out);
    for needle in ["attributes:", "inputs:", "type sets:", "rules:", "examples", "strict_bounds", "mode_dtype", "Tind"]
    {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
    fails(&["spec", "tensorrt.nope"], &["unknown op `tensorrt.nope`", "tensorrt.slice"]);
}

// ------------------------------------------------------------------------------- run

#[test]
fn run_writes_the_output_atomically() {
    let case = conformance("trt_slice_0005");
    let s = Scratch::new();
    let out = s.path("out.npy");
    kerf().args(["run", case.join("request.toml").to_str().unwrap(), "-o", out.to_str().unwrap()]).assert().success();
    let got = kerf::npy::read(&out).unwrap();
    let want = kerf::npy::read(&case.join("expected.npy")).unwrap();
    assert_eq!(got, want);
    assert_eq!(files_in(s.dir.path()), vec!["out.npy"], "temporary files left behind");
    // Run again over the existing file: replaced, still no leftovers.
    kerf().args(["run", case.join("request.toml").to_str().unwrap(), "-o", s.s("out.npy").as_str()]).assert().success();
    assert_eq!(kerf::npy::read(&out).unwrap(), want);
    assert_eq!(files_in(s.dir.path()), vec!["out.npy"]);
}

#[test]
fn run_prints_the_output_without_dash_o() {
    let out = kerf()
        .args(["run", conformance("trt_slice_seed_fill").join("request.toml").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "f32[3, 3]\n[[0, 0, 1],\n [0, 0, 1],\n [1, 1, 1]]\n");
}

#[test]
fn run_with_inline_inputs_and_the_reference_backend() {
    let s = Scratch::new();
    let req = s.write(
        "req.toml",
        r#"# the seeds' example: top-left 2x2 of a 3x3 arange
op = "tensorrt.slice"
[attributes]
start = [0, 0]
size = [2, 2]
stride = [1, 1]
[inputs]
input = { dtype = "i32", shape = [3, 3], values = [0, 1, 2, 3, 4, 5, 6, 7, 8] }
"#,
    );
    let out = kerf().args(["run", &req, "--backend", "reference"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "i32[2, 2]\n[[0, 1],\n [3, 4]]\n");
}

/// Every error path of `run`: one clear line, and no file at OUT afterwards — not even
/// an older one, which could pass for this run's result.
#[test]
fn run_errors_leave_no_output_file() {
    let s = Scratch::new();
    let good_npy = s.path("x.npy");
    let x = Tensor::from_bytes(DType::F32, &[2, 3], &[0u8; 24]).unwrap();
    kerf::npy::write(&good_npy, &x).unwrap();
    // A truncated copy of a valid file.
    let bytes = std::fs::read(&good_npy).unwrap();
    std::fs::write(s.path("truncated.npy"), &bytes[..bytes.len() - 3]).unwrap();
    std::fs::write(s.path("garbage.npy"), b"not an npy file at all").unwrap();
    let u16_npy = s.path("u16.npy");
    kerf::npy::write(&u16_npy, &Tensor::from_bytes(DType::U16, &[2], &[0u8; 4]).unwrap()).unwrap();

    let slice =
        |inputs: &str, attrs: &str| format!("op = \"tensorrt.slice\"\n[attributes]\n{attrs}\n[inputs]\n{inputs}\n");
    let ok_attrs = "start = [0, 0]\nsize = [1, 1]\nstride = [1, 1]";
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "malformed_toml",
            "op = \"tensorrt.slice\"\n[attributes]\nstart = [0, 0\n".into(),
            vec!["malformed_toml.toml:3:"],
        ),
        ("unknown_key", "op = \"tensorrt.slice\"\nattributs = {}\n".into(), vec!["unknown_key.toml:2:1", "attributs"]),
        ("unknown_op", "op = \"tensorrt.slyce\"\n".into(), vec!["unknown_op.toml:1:", "unknown op `tensorrt.slyce`"]),
        (
            "unknown_version",
            "op = \"onnx.slice\"\nversion = 12\n[inputs]\ndata = \"x.npy\"\nstarts = [0]\nends = [1]\n".into(),
            vec!["unknown_version.toml:2:", "unknown version 12"],
        ),
        (
            "unknown_attribute",
            slice("input = \"x.npy\"", &format!("{ok_attrs}\nmodee = \"wrap\"")),
            vec!["unknown_attribute.toml:6:1", "unknown attribute `modee`"],
        ),
        (
            "bad_attribute_value",
            slice("input = \"x.npy\"", &format!("{ok_attrs}\nmode = \"mirror\"")),
            vec!["bad_attribute_value.toml:6:", "mode", "mirror"],
        ),
        (
            "unknown_input",
            slice("input = \"x.npy\"\nfil = 1", ok_attrs),
            vec!["unknown_input.toml:", "unknown input `fil`"],
        ),
        ("wrong_dtype", slice("input = \"u16.npy\"", ok_attrs), vec!["wrong_dtype.toml:", "input `input`", "u16"]),
        (
            "mode_dtype_rule",
            slice(
                "input = { dtype = \"i64\", shape = [2], values = [1, 2] }",
                "start = [0]\nsize = [1]\nstride = [1]\nmode = \"clamp\"",
            ),
            vec!["mode_dtype"],
        ),
        (
            "strict_bounds_out_of_range",
            slice("input = \"x.npy\"", "start = [0, 2]\nsize = [2, 2]\nstride = [1, 1]"),
            vec!["strict_bounds", "axis 1"],
        ),
        ("truncated_npy", slice("input = \"truncated.npy\"", ok_attrs), vec!["truncated.npy", "truncated"]),
        ("garbage_npy", slice("input = \"garbage.npy\"", ok_attrs), vec!["garbage.npy", "not a valid .npy"]),
        ("missing_npy", slice("input = \"nope.npy\"", ok_attrs), vec!["nope.npy", "cannot open"]),
        (
            "bad_inline_tensor",
            slice("input = { dtype = \"i8\", shape = [2], values = [1, 200] }", ok_attrs),
            vec!["bad_inline_tensor.toml:7:", "input `input`", "value 1"],
        ),
        (
            "bench_form_input",
            slice("input = { dtype = \"f32\", shape = [2, 3] }", ok_attrs),
            vec!["bench_form_input.toml", "dtype and shape only"],
        ),
        (
            "int4_storage_out_of_range",
            slice("input = { path = \"x.npy\", dtype = \"i4\" }", ok_attrs),
            vec!["x.npy", "i4"],
        ),
    ];
    for (name, text, needles) in cases {
        let req = s.write(&format!("{name}.toml"), &text);
        let out = s.path("out.npy");
        std::fs::write(&out, b"stale output of an earlier run").unwrap();
        fails(&["run", &req, "-o", out.to_str().unwrap()], &needles);
        assert!(!out.exists(), "{name}: an output file is left behind");
        let leftovers: Vec<_> =
            files_in(s.dir.path()).into_iter().filter(|f| f.starts_with('.') || f.contains("tmp")).collect();
        assert!(leftovers.is_empty(), "{name}: temporary files left behind: {leftovers:?}");
    }
    // A request file that does not exist.
    let out = s.path("out.npy");
    fails(&["run", &s.s("missing.toml"), "-o", out.to_str().unwrap()], &["missing.toml", "cannot read"]);
    assert!(!out.exists());
    // An output that cannot be written (its directory does not exist).
    let req = s.write("good.toml", &slice("input = \"x.npy\"", ok_attrs));
    fails(&["run", &req, "-o", &s.s("no/such/dir/out.npy")], &["no/such/dir/out.npy"]);
    // --dynamic needs the JIT.
    fails(&["run", &req, "--backend", "reference", "--dynamic", "-o", out.to_str().unwrap()], &["--dynamic"]);
    assert!(!out.exists());
}

// ---------------------------------------------------------------- every dtype via .npy

/// Element bits from i, valid for the dtype (bool 0/1; floats stay finite and not NaN).
fn sample(dtype: DType, n: u64) -> Tensor {
    if dtype == DType::String {
        let v = (0..n).map(|i| ["", "a", "bé", "日本語"][i as usize % 4].to_string()).collect();
        return Tensor::from_strings(&[n], v).unwrap();
    }
    let mut t = Tensor::zeros(dtype, &[n]).unwrap();
    let b = t.bytes_mut().unwrap();
    for (i, x) in b.iter_mut().enumerate() {
        *x = match dtype {
            DType::Bool => (i % 2) as u8,
            // Keep exponents small for floats so no NaN/inf appears (bits compare anyway).
            _ => ((i as u8).wrapping_mul(29)) & 0x3f,
        };
    }
    if matches!(dtype, DType::I4 | DType::U4) && n % 2 == 1 {
        let last = b.len() - 1;
        b[last] &= 0x0f;
    }
    t
}

/// Each dtype an op moves goes in through a `.npy` file (with the request's `dtype`
/// key for the types numpy lacks) and comes back out bit for bit, through `kerf run`.
#[test]
fn every_dtype_round_trips_through_kerf_run() {
    let s = Scratch::new();
    let onnx = [
        DType::Bool,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::C128,
        DType::String,
    ];
    let trt = [DType::I4, DType::F8E4M3FN];
    for dtype in onnx.iter().chain(&trt).copied() {
        let n = 7;
        let t = sample(dtype, n);
        let input = s.path(&format!("in_{dtype}.npy"));
        kerf::npy::write(&input, &t).unwrap();
        let text = if trt.contains(&dtype) {
            format!(
                "op = \"tensorrt.slice\"\n[attributes]\nstart = [0]\nsize = [{n}]\nstride = [1]\n[inputs]\n\
                 input = {{ path = \"in_{dtype}.npy\", dtype = \"{dtype}\" }}\n"
            )
        } else {
            format!(
                "op = \"onnx.slice\"\n[inputs]\ndata = {{ path = \"in_{dtype}.npy\", dtype = \"{dtype}\" }}\n\
                 starts = [0]\nends = [{n}]\n"
            )
        };
        let req = s.write(&format!("{dtype}.toml"), &text);
        let out = s.path(&format!("out_{dtype}.npy"));
        let res = kerf().args(["run", &req, "-o", out.to_str().unwrap()]).output().unwrap();
        assert!(res.status.success(), "{dtype}: {}", stderr(&res));
        let back = kerf::npy::read_as(&out, Some(dtype)).unwrap();
        assert_eq!(back, t, "{dtype}");
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(&input).unwrap(),
            "{dtype}: the output file differs from the input file"
        );
    }
}

// ------------------------------------------------------------------ clif and expand

#[test]
fn clif_prints_the_kernels_ir() {
    // The data input may be given by dtype and shape alone: IR needs no values.
    let s = Scratch::new();
    let req = s.write(
        "req.toml",
        "op = \"tensorrt.slice\"\n[attributes]\nstart = [0, 0]\nsize = [2, 2]\nstride = [1, 1]\nmode = \"wrap\"\n\
         [inputs]\ninput = { dtype = \"f32\", shape = [3, 3] }\n",
    );
    let out = kerf().args(["clif", &req]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("function %kerf_slice_wrap_f32"), "{text}");
    assert!(text.trim_end().ends_with('}'), "{text}");
    let out = kerf().args(["clif", "--dynamic", &req]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("_dyn("), "{}", stdout(&out));
    fails(&["clif", "no_such_request.toml"], &["no_such_request.toml"]);
    // A request the frontend refuses: the error names the file and the rule.
    let bad = s.write(
        "bad.toml",
        "op = \"tensorrt.slice\"\n[attributes]\nstart = [5]\nsize = [2]\nstride = [1]\n\
         [inputs]\ninput = { dtype = \"f32\", shape = [3] }\n",
    );
    fails(&["clif", &bad], &["bad.toml", "strict_bounds"]);
}

#[test]
fn expand_prints_the_derived_rust() {
    let s = Scratch::new();
    let req = s.write(
        "w6_slice.toml",
        "op = \"tensorrt.slice\"\n[attributes]\nstart = [0, 0]\nsize = [2, 2]\nstride = [1, 1]\n\
         [inputs]\ninput = { dtype = \"f32\", shape = [3, 3] }\n",
    );
    let out = kerf().args(["expand", &req]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("pub struct W6Slice;"), "{text}");
    assert!(text.contains("impl ::kerf::Kernel for W6Slice"), "{text}");
    let out = kerf().args(["expand", &req, "--name", "MySlice"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("pub struct MySlice;"));
    fails(&["expand", &req, "--name", "not an ident"], &["not an ident"]);
    fails(&["expand", "no_such_request.toml"], &["no_such_request.toml"]);
    let bad = s.write("bad.toml", "op = \"tensorrt.slice\"\n[attributes]\nmode = \"wrap\"\n");
    fails(&["expand", &bad], &["bad.toml"]);
}

/// Audit (issue 10, findings 4 and 5): `kerf clif --dynamic` of a rank-12 wrap printed
/// 39 MB of IR (code doubled per dim); `kerf expand` of a wrap to 10^7 elements printed
/// 34.6 MB of Rust (a table entry per output element).
#[test]
fn clif_and_expand_stay_small_for_high_ranks_and_long_wraps() {
    let s = Scratch::new();
    let req = s.write(
        "rank12.toml",
        &format!(
            "op = \"tensorrt.slice\"\n[attributes]\nstart = {:?}\nsize = {:?}\nstride = {:?}\nmode = \"wrap\"\n\
             [inputs]\ninput = {{ dtype = \"f32\", shape = {:?} }}\n",
            [-1; 12], [2; 12], [1; 12], [1; 12]
        ),
    );
    let out = kerf().args(["clif", "--dynamic", &req]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("_r12_dyn("));
    assert!(out.stdout.len() < 400_000, "{} bytes of IR", out.stdout.len());
    let req = s.write(
        "long_wrap.toml",
        "op = \"tensorrt.slice\"\n[attributes]\nstart = [-1]\nsize = [10000000]\nstride = [1]\nmode = \"wrap\"\n\
         [inputs]\ninput = { dtype = \"i8\", shape = [3] }\n",
    );
    let out = kerf().args(["expand", &req]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.len() < 16_000, "{} bytes of Rust", out.stdout.len());
}

#[test]
fn run_on_every_backend_and_the_dynamic_kernel() {
    let case = conformance("onnx_slice_0000");
    let want = kerf::npy::read(&case.join("expected.npy")).unwrap();
    let req = case.join("request.toml");
    let s = Scratch::new();
    for args in [&[][..], &["--backend", "jit"][..], &["--dynamic"][..], &["--backend", "reference"][..]] {
        let out = s.path("out.npy");
        let mut cmd = kerf();
        cmd.args(["run", req.to_str().unwrap(), "-o", out.to_str().unwrap()]).args(args);
        let res = cmd.output().unwrap();
        assert!(res.status.success(), "{args:?}: {}", stderr(&res));
        assert_eq!(kerf::npy::read(&out).unwrap(), want, "{args:?}");
        std::fs::remove_file(&out).unwrap();
    }
}

// ----------------------------------------------------------------------------- bench

#[test]
fn bench_json_reports_every_field() {
    let s = Scratch::new();
    let slice = s.write(
        "slice.toml",
        "op = \"tensorrt.slice\"\n[attributes]\nstart = [0, 1]\nsize = [64, 32]\nstride = [1, 2]\n\
         [inputs]\ninput = { dtype = \"f32\", shape = [64, 64] }\n",
    );
    let fill = s.write(
        "fill.toml",
        "op = \"tensorrt.fill\"\n[attributes]\ndimensions = [32, 32]\noperation = \"random_uniform\"\n",
    );
    for (req, baseline, bytes) in [(&slice, "memcpy", 64 * 32 * 4), (&fill, "memset", 32 * 32 * 4)] {
        let out = kerf().args(["bench", req, "--json", "--iters", "3"]).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        assert_eq!(text.lines().count(), 1, "one JSON object: {text}");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        for key in ["median_ns", "baseline_median_ns", "ratio", "compile_us"] {
            assert!(v[key].as_f64().is_some_and(|x| x > 0.0), "{key}: {v}");
        }
        assert!(v["cache_hit_ns"].is_null() || v["cache_hit_ns"].as_f64().is_some(), "{v}");
        assert_eq!(v["baseline"], baseline);
        assert_eq!(v["threads"], 1);
        assert_eq!(v["bytes"], bytes);
        let ratio = v["median_ns"].as_f64().unwrap() / v["baseline_median_ns"].as_f64().unwrap();
        assert!((ratio - v["ratio"].as_f64().unwrap()).abs() < 1e-9 * ratio.max(1.0));
    }
    // The dynamic kernel, two threads, the reference, and the human-readable form.
    for args in [&["--dynamic"][..], &["--threads", "2"][..], &["--backend", "reference"][..]] {
        let out = kerf().args(["bench", &slice, "--json", "--iters", "2"]).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert!(v["median_ns"].as_f64().is_some(), "{args:?}: {v}");
        let threads = if args.contains(&"2") { 2 } else { 1 };
        assert_eq!(v["threads"], threads, "{args:?}: {v}");
        assert_eq!(v["cache_hit_ns"].is_null(), args.contains(&"reference"), "{args:?}: {v}");
    }
    let out = kerf().args(["bench", &slice, "--iters", "2"]).output().unwrap();
    assert!(out.status.success());
    assert!(stdout(&out).contains("memcpy"));
    // A string slice cannot be benchmarked; --threads needs the JIT.
    let strings = s.write(
        "strings.toml",
        "op = \"onnx.slice\"\n[inputs]\ndata = { dtype = \"string\", shape = [2], values = [\"a\", \"b\"] }\n\
         starts = [0]\nends = [1]\n",
    );
    fails(&["bench", &strings], &["strings.toml", "string"]);
    fails(&["bench", &slice, "--backend", "reference", "--threads", "2"], &["--threads"]);
    // Errors.
    fails(&["bench", &s.s("missing.toml")], &["missing.toml"]);
    let out = kerf().args(["bench", &slice, "--iters", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(stderr(&out).contains("--iters"));
}

// ------------------------------------------------------------------------------ demo

#[test]
fn demo_runs_every_spec_example() {
    let out = kerf().arg("demo").output().unwrap();
    let text = stdout(&out);
    assert!(out.status.success(), "{}\n{}", text, stderr(&out));
    assert!(text.contains("seed_basic") && text.contains("output: f32[2, 2]"), "{text}");
    let total: usize = kerf_spec::registry().unwrap().ops().iter().map(|s| s.examples.len()).sum();
    assert!(text.contains(&format!("{total} examples: {total} ok, 0 failed")), "{text}");
    let out = kerf().args(["demo", "--op", "tensorrt.fill", "--brief"]).output().unwrap();
    assert!(out.status.success());
    assert!(stdout(&out).lines().filter(|l| l.starts_with("ok ")).count() >= 1);
    fails(&["demo", "--op", "nope.op"], &["unknown op `nope.op`"]);
}

/// The WORKLOADS.md benchmark requests in tests/data/bench all compile (running them is
/// `kerf bench`'s job, too slow for the test suite).
#[test]
fn bench_workload_requests_compile() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bench");
    let files = files_in(&dir);
    assert!(files.len() >= 14, "{files:?}");
    for f in files.iter().filter(|f| f.ends_with(".toml")) {
        let out = kerf().args(["clif", dir.join(f).to_str().unwrap()]).output().unwrap();
        assert!(out.status.success(), "{f}: {}", stderr(&out));
        assert!(stdout(&out).starts_with("function %kerf_"), "{f}");
    }
}
