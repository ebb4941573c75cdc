//! The `kerf` binary, run as a user would: every subcommand, every error path (one line
//! on stderr, non-zero exit, no panic, no output file left behind), and every dtype
//! through `.npy` files and back.

use assert_cmd::Command;
use kerfx::{DType, Tensor};
use std::path::{Path, PathBuf};

/// The `kerf` binary, built by cargo for this package's tests.
fn kerf_bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_kerf"))
}

fn kerf() -> Command {
    let mut c = Command::new(kerf_bin());
    // A backtrace must never be printed, even when asked for.
    c.env("RUST_BACKTRACE", "1");
    c
}

fn conformance(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/conformance").join(case)
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

/// Run `kerf ARGS` expecting failure: exit status 1, one line on stderr per problem, each
/// starting with `error: `, containing every needle, nothing that smells of a panic.
fn fails(args: &[&str], needles: &[&str]) -> String {
    let out = kerf().args(args).output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "kerf {args:?}: status {:?}, stderr {err}", out.status);
    assert!(err.lines().count() >= 1, "kerf {args:?}: stderr is empty");
    assert!(err.lines().all(|l| l.starts_with("error: ")), "kerf {args:?}: {err}");
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

/// Each subcommand's help (`--help` and `-h`) ends with one example invocation of it;
/// the ones that need no file run as they are written.
#[test]
fn every_subcommand_help_ends_with_an_example() {
    for sub in ["run", "ops", "spec", "clif", "expand", "bench", "demo"] {
        let mut example = None;
        for flag in ["--help", "-h"] {
            let out = kerf().args([sub, flag]).output().unwrap();
            assert!(out.status.success(), "kerf {sub} {flag}");
            let text = stdout(&out);
            let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            let [.., heading, last] = lines[..] else { panic!("kerf {sub} {flag}: {text}") };
            assert_eq!(heading, "Example:", "kerf {sub} {flag}: {text}");
            let want = format!("  kerf {sub}");
            assert!(last == want || last.starts_with(&format!("{want} ")), "kerf {sub} {flag}: `{last}`");
            assert_eq!(text.matches("Example:").count(), 1, "one example: {text}");
            example = Some(last.trim().to_string());
        }
        // The flags an example uses are flags the subcommand takes.
        let example = example.unwrap();
        let help = stdout(&kerf().args([sub, "--help"]).output().unwrap());
        for flag in example.split_whitespace().filter(|w| w.starts_with("--")) {
            let listed =
                help.lines().any(|l| l.trim_start().starts_with('-') && l.split_whitespace().any(|w| w == flag));
            assert!(listed, "kerf {sub}: {flag} is not in its options: {help}");
        }
        if matches!(sub, "ops" | "spec" | "demo") {
            let words: Vec<&str> = example.split_whitespace().skip(1).collect();
            let out = kerf().args(&words).output().unwrap();
            assert!(out.status.success(), "`{example}`: {}", stderr(&out));
            assert!(!stdout(&out).is_empty(), "`{example}`");
        }
    }
}

#[test]
fn ops_lists_every_op_with_versions() {
    let out = kerf().arg("ops").output().unwrap();
    assert!(out.status.success());
    let text = stdout(&out);
    for id in [
        "tensorrt.slice",
        "tensorrt.fill",
        "onnx.slice",
        "openvino.strided_slice",
        "onnx.pad",
        "openvino.pad",
        "openvino.slice",
    ] {
        assert!(text.lines().any(|l| l.starts_with(id)), "{id} missing:\n{text}");
    }
    assert!(text.contains("1, 10, 11, 13"), "{text}");
    assert!(text.contains("1, 2, 11, 13, 18, 19, 21"), "{text}");
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
    let got = kerfx::npy::read(&out).unwrap();
    let want = kerfx::npy::read(&case.join("expected.npy")).unwrap();
    assert_eq!(got, want);
    assert_eq!(files_in(s.dir.path()), vec!["out.npy"], "temporary files left behind");
    // Run again over the existing file: replaced, still no leftovers.
    kerf().args(["run", case.join("request.toml").to_str().unwrap(), "-o", s.s("out.npy").as_str()]).assert().success();
    assert_eq!(kerfx::npy::read(&out).unwrap(), want);
    assert_eq!(files_in(s.dir.path()), vec!["out.npy"]);
}

#[test]
fn run_prints_the_output_without_dash_o() {
    let out = kerf()
        .args(["run", conformance("trt_slice_seed_fill").join("request.toml").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // Floats print as numpy prints the scalars: `1.0`, not `1`.
    assert_eq!(stdout(&out), "f32[3, 3]\n[[0.0, 0.0, 1.0],\n [0.0, 0.0, 1.0],\n [1.0, 1.0, 1.0]]\n");
}

/// Every float dtype's elements print as numpy prints them (`str(np.float32(x))`): the
/// shortest digits that read back, positional or scientific by numpy's per-type bounds.
#[test]
fn run_prints_floats_as_numpy_does() {
    let s = Scratch::new();
    let cases = [
        ("f32", "[1.0, 0.1, 1e-05, 1e+06, 123456.0]", "[1.0, 0.1, 1e-05, 1e+06, 123456.0]"),
        ("f64", "[1.0, 0.1, 1e-05, 1e+15, 1e+16]", "[1.0, 0.1, 1e-05, 1000000000000000.0, 1e+16]"),
        ("f16", "[1.0, 0.1, 1000.0, -0.0]", "[1.0, 0.1, 1e+03, -0.0]"),
        ("bf16", "[1.0, 0.1]", "[1, 0.100098]"),
    ];
    for (dtype, values, want) in cases {
        let request = s.write(
            &format!("{dtype}.toml"),
            &format!(
                "op = \"onnx.identity\"\n[inputs]\ninput = {{ dtype = \"{dtype}\", shape = [{}], values = {values} }}\n",
                values.matches(',').count() + 1
            ),
        );
        let out = kerf().args(["run", &request]).output().unwrap();
        assert!(out.status.success(), "{dtype}: {}", stderr(&out));
        assert_eq!(stdout(&out).lines().nth(1), Some(want), "{dtype}: {}", stdout(&out));
    }
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

/// Every error path of `run`: one clear line; a file at OUT is left as it was, and where
/// there was none, none is created; no temporary file is left behind.
#[test]
fn every_mistake_of_a_request_is_one_error_line_with_a_hint() {
    let s = Scratch::new();
    let bad = s.write(
        "bad.toml",
        "op = \"tensorrt.slice\"\n\n[attributes]\nstrat = [0, 0]\nsize = [2, 2.5]\nstride = [1, 1]\nmode = \"refelct\"\n\n\
         [inputs]\ninput = { dtype = \"f32\", shape = [3, 3], values = [0, 1, 2, 3, 4, 5, 6, 7, 8] }\n",
    );
    let err = fails(&["run", &bad], &[]);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    // In the order of the file, each at its entry's line.
    for (line, (at, what)) in lines.iter().zip([
        ("bad.toml:4:1: ", "unknown attribute `strat` (did you mean `start`?)"),
        ("bad.toml:5:1: ", "attribute `size` must be of type int_list"),
        ("bad.toml:7:1: ", "attribute `mode` = \"refelct\" is not allowed (did you mean `reflect`?)"),
    ]) {
        assert!(line.contains(at) && line.contains(what), "`{at}` … `{what}` missing from: {line}");
    }
}

#[test]
fn run_errors_leave_out_as_it_was() {
    let s = Scratch::new();
    let good_npy = s.path("x.npy");
    let x = Tensor::from_bytes(DType::F32, &[2, 3], &[0u8; 24]).unwrap();
    kerfx::npy::write(&good_npy, &x).unwrap();
    // A truncated copy of a valid file.
    let bytes = std::fs::read(&good_npy).unwrap();
    std::fs::write(s.path("truncated.npy"), &bytes[..bytes.len() - 3]).unwrap();
    std::fs::write(s.path("garbage.npy"), b"not an npy file at all").unwrap();
    let u16_npy = s.path("u16.npy");
    kerfx::npy::write(&u16_npy, &Tensor::from_bytes(DType::U16, &[2], &[0u8; 4]).unwrap()).unwrap();

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
        std::fs::write(&out, b"output of an earlier run").unwrap();
        fails(&["run", &req, "-o", out.to_str().unwrap()], &needles);
        assert_eq!(std::fs::read(&out).unwrap(), b"output of an earlier run", "{name}: OUT was changed");
        let fresh = s.path("fresh.npy");
        fails(&["run", &req, "-o", fresh.to_str().unwrap()], &needles);
        assert!(!fresh.exists(), "{name}: a new output file is left behind");
        let leftovers: Vec<_> =
            files_in(s.dir.path()).into_iter().filter(|f| f.starts_with('.') || f.contains("tmp")).collect();
        assert!(leftovers.is_empty(), "{name}: temporary files left behind: {leftovers:?}");
    }
    std::fs::remove_file(s.path("out.npy")).unwrap();
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

// ------------------------------------------------------------------ -o like cp

/// A request that succeeds (the seeds' fill example: f32[3, 3]) with its input, and one
/// that fails when it runs (strict bounds broken), in a scratch folder.
fn good_and_bad(s: &Scratch) -> (String, String) {
    let case = conformance("trt_slice_seed_fill");
    std::fs::copy(case.join("input.npy"), s.path("input.npy")).unwrap();
    let good = s.write("good.toml", &std::fs::read_to_string(case.join("request.toml")).unwrap());
    let bad = s.write(
        "bad.toml",
        "op = \"tensorrt.slice\"\n[attributes]\nstart = [0, 5]\nsize = [1, 1]\nstride = [1, 1]\n\
         [inputs]\ninput = \"input.npy\"\n",
    );
    (good, bad)
}

/// `kerf run -` reads the request (or a chain) from standard input; its relative `.npy`
/// paths resolve against the current directory, and so does a relative `-o`.
#[test]
fn run_reads_the_request_from_stdin() {
    let case = conformance("trt_slice_seed_fill");
    let text = std::fs::read_to_string(case.join("request.toml")).unwrap();
    let want = kerfx::npy::read(&case.join("expected.npy")).unwrap();
    // From the request's own directory: what naming the file prints.
    let by_name = kerf().args(["run", case.join("request.toml").to_str().unwrap()]).output().unwrap();
    assert!(by_name.status.success());
    let out = kerf().current_dir(&case).args(["run", "-"]).write_stdin(text.clone()).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), stdout(&by_name));
    assert_eq!(stderr(&out), "");
    // From another directory holding input.npy: written to a relative OUT there.
    let s = Scratch::new();
    std::fs::copy(case.join("input.npy"), s.path("input.npy")).unwrap();
    let out = kerf().current_dir(s.dir.path()).args(["run", "-", "-o", "out.npy"]).write_stdin(text.clone()).output();
    let out = out.unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(kerfx::npy::read(&s.path("out.npy")).unwrap(), want);
    assert_eq!(files_in(s.dir.path()), ["input.npy", "out.npy"]);
    // Against the current directory, not the request's: elsewhere there is no input.npy.
    let elsewhere = Scratch::new();
    let out = kerf().current_dir(elsewhere.dir.path()).args(["run", "-", "-o", "out.npy"]).write_stdin(text).output();
    let out = out.unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.starts_with("error: input.npy: ") && err.lines().count() == 1, "{err}");
    assert!(files_in(elsewhere.dir.path()).is_empty(), "{:?}", files_in(elsewhere.dir.path()));
    // A chain file on standard input.
    let chain = conformance("chain_pad_0010");
    let by_name = kerf().args(["run", chain.join("request.toml").to_str().unwrap()]).output().unwrap();
    let text = std::fs::read_to_string(chain.join("request.toml")).unwrap();
    let out = kerf().current_dir(&chain).args(["run", "-"]).write_stdin(text).output().unwrap();
    assert!(out.status.success() && by_name.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), stdout(&by_name));
    // The help says so.
    let help = stdout(&kerf().args(["run", "--help"]).output().unwrap());
    assert!(help.contains("`-` to read the request from standard input"), "{help}");
    assert!(help.contains("resolve against the current directory"), "{help}");
}

/// `kerf run -` keeps every guarantee of `kerf run`: one error line per mistake (naming
/// `<stdin>` and the line), no new or partial output file after an error (an existing one
/// left as it was), and OUT refused, never replaced, when it is not a regular file, is an
/// input of the run, or is the file standard input reads.
#[test]
fn run_from_stdin_keeps_every_guarantee() {
    let s = Scratch::new();
    let case = conformance("trt_slice_seed_fill");
    std::fs::copy(case.join("input.npy"), s.path("input.npy")).unwrap();
    let good = std::fs::read_to_string(case.join("request.toml")).unwrap();
    let input = std::fs::read(s.path("input.npy")).unwrap();
    let fails_on = |args: &[&str], stdin: std::process::Stdio, needles: &[&str]| -> String {
        let out = std::process::Command::new(kerf_bin())
            .current_dir(s.dir.path())
            .env("RUST_BACKTRACE", "1")
            .arg("run")
            .args(args)
            .stdin(stdin)
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.is_empty() && err.lines().all(|l| l.starts_with("error: ")), "{args:?}: {err}");
        assert!(!err.contains("panicked") && !err.contains("internal error"), "{args:?}: {err}");
        for n in needles {
            assert!(err.contains(n), "{args:?}: `{n}` missing from {err}");
        }
        assert_eq!(stdout(&out), "", "{args:?}");
        err
    };
    let text = |t: &str| {
        let path = s.path("stdin.txt");
        std::fs::write(&path, t).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::process::Stdio::from(file)
    };
    // Two mistakes: two lines, each at its place in <stdin>; no output file.
    let two = "op = \"tensorrt.slice\"\n[attributes]\nstart = [0, 0]\nsize = [3, 3]\nstride = [1, 1]\n\
               mode = \"bogus\"\nfoo = 1\n[inputs]\ninput = \"input.npy\"\n";
    let err = fails_on(&["-", "-o", "out.npy"], text(two), &[]);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].starts_with("error: <stdin>:6:1: ") && lines[0].contains("`mode`"), "{err}");
    assert!(lines[1].starts_with("error: <stdin>:7:1: ") && lines[1].contains("`foo`"), "{err}");
    fails_on(&["-"], text("op = \n"), &["<stdin>:1:"]);
    fails_on(&["-"], text(""), &["<stdin>"]);
    let bytes = std::process::Stdio::from({
        std::fs::write(s.path("bin"), [b'o', b'p', 0xff, 0xfe]).unwrap();
        std::fs::File::open(s.path("bin")).unwrap()
    });
    fails_on(&["-"], bytes, &["<stdin>", "not UTF-8"]);
    std::fs::remove_file(s.path("bin")).unwrap();
    assert_eq!(files_in(s.dir.path()), ["input.npy"], "no output after an error");
    // An existing OUT is left as it was by a failed run.
    std::fs::write(s.path("out.npy"), b"before").unwrap();
    fails_on(&["-", "-o", "out.npy"], text(two), &["<stdin>:6:1"]);
    assert_eq!(std::fs::read(s.path("out.npy")).unwrap(), b"before");
    // Refused, never replaced: a directory, an input of the run, the file stdin reads.
    std::fs::create_dir(s.path("dir")).unwrap();
    fails_on(&["-", "-o", "dir"], text(&good), &["dir", "never replaces"]);
    fails_on(&["-", "-o", "input.npy"], text(&good), &["input.npy", "an input"]);
    assert_eq!(std::fs::read(s.path("input.npy")).unwrap(), input);
    std::fs::write(s.path("req.npy"), &good).unwrap();
    let req = std::process::Stdio::from(std::fs::File::open(s.path("req.npy")).unwrap());
    fails_on(&["-", "-o", "req.npy"], req, &["req.npy", "the request file"]);
    assert_eq!(std::fs::read_to_string(s.path("req.npy")).unwrap(), good);
    assert_eq!(files_in(s.dir.path()), ["dir", "input.npy", "out.npy", "req.npy"]);
    assert!(files_in(&s.path("dir")).is_empty());
    // And the same request on stdin succeeds, replacing the file kerf may write.
    let out = kerf().current_dir(s.dir.path()).args(["run", "-", "-o", "out.npy"]).write_stdin(good).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let want = kerfx::npy::read(&case.join("expected.npy")).unwrap();
    assert_eq!(kerfx::npy::read(&s.path("out.npy")).unwrap(), want);
}

/// The temporary files kerf may have left in a folder.
fn temporaries(dir: &Path) -> Vec<String> {
    files_in(dir).into_iter().filter(|f| f.starts_with('.') && f.ends_with(".tmp")).collect()
}

#[test]
fn out_replaces_a_file_only_on_success_and_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let s = Scratch::new();
    let (good, bad) = good_and_bad(&s);
    let out = s.path("out.npy");
    std::fs::write(&out, b"earlier").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
    fails(&["run", &bad, "-o", &s.s("out.npy")], &["strict_bounds"]);
    assert_eq!(std::fs::read(&out).unwrap(), b"earlier");
    kerf().args(["run", &good, "-o", &s.s("out.npy")]).assert().success();
    let want = kerfx::npy::read(&conformance("trt_slice_seed_fill").join("expected.npy")).unwrap();
    assert_eq!(kerfx::npy::read(&out).unwrap(), want);
    assert_eq!(std::fs::metadata(&out).unwrap().permissions().mode() & 0o777, 0o600, "permissions kept");
    assert!(temporaries(s.dir.path()).is_empty());
}

/// A read-only file at OUT is never replaced, whether the run fails or would succeed
/// (even for root, who may write it).
#[test]
fn a_read_only_out_is_refused_and_kept() {
    let s = Scratch::new();
    let (good, bad) = good_and_bad(&s);
    let out = s.path("out.npy");
    std::fs::write(&out, b"keep me").unwrap();
    let mut p = std::fs::metadata(&out).unwrap().permissions();
    p.set_readonly(true);
    std::fs::set_permissions(&out, p).unwrap();
    fails(&["run", &s.s("missing.toml"), "-o", &s.s("out.npy")], &["out.npy", "read-only"]);
    fails(&["run", &bad, "-o", &s.s("out.npy")], &["out.npy", "read-only"]);
    fails(&["run", &good, "-o", &s.s("out.npy")], &["out.npy", "read-only"]);
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me");
    assert!(temporaries(s.dir.path()).is_empty());
}

/// OUT naming the request file or an input of the same run is refused, like gcc's
/// "input file is the same as output file"; the file is untouched.
#[test]
fn out_may_not_be_the_runs_own_request_or_input() {
    let s = Scratch::new();
    let (good, bad) = good_and_bad(&s);
    let input = std::fs::read(s.path("input.npy")).unwrap();
    for req in [&good, &bad] {
        let text = std::fs::read(req).unwrap();
        fails(&["run", req, "-o", req], &["request file"]);
        assert_eq!(&std::fs::read(req).unwrap(), &text);
        fails(&["run", req, "-o", &s.s("input.npy")], &["input.npy", "an input"]);
        assert_eq!(std::fs::read(s.path("input.npy")).unwrap(), input);
        // Through another name of the same file too.
        std::os::unix::fs::symlink(s.path("input.npy"), s.path("alias.npy")).unwrap();
        fails(&["run", req, "-o", &s.s("alias.npy")], &["an input"]);
        std::fs::remove_file(s.path("alias.npy")).unwrap();
    }
    assert_eq!(std::fs::read(s.path("input.npy")).unwrap(), input);
    assert!(temporaries(s.dir.path()).is_empty());
}

/// A FIFO, socket, directory or device at OUT (or a symlink to one) is refused by kind
/// and left as it was, whether the run would succeed or not.
#[test]
fn out_that_is_not_a_regular_file_is_refused_and_kept() {
    use std::os::unix::fs::FileTypeExt;
    let s = Scratch::new();
    let (good, bad) = good_and_bad(&s);
    let status = std::process::Command::new("mkfifo").arg(s.path("fifo")).status().unwrap();
    assert!(status.success(), "mkfifo");
    let _socket = std::os::unix::net::UnixListener::bind(s.path("socket")).unwrap();
    std::fs::create_dir(s.path("dir")).unwrap();
    std::fs::write(s.path("dir/inside"), b"x").unwrap();
    std::os::unix::fs::symlink("/dev/null", s.path("null")).unwrap();
    let kind = |name: &str| {
        let m = std::fs::symlink_metadata(s.path(name)).unwrap();
        let t = m.file_type();
        (t.is_fifo(), t.is_socket(), t.is_dir(), t.is_symlink(), t.is_file())
    };
    for (name, needle) in [
        ("fifo", "a FIFO"),
        ("socket", "a socket"),
        ("dir", "a directory"),
        ("null", "a symlink to a character device"),
    ] {
        let before = kind(name);
        for req in [&good, &bad] {
            fails(&["run", req, "-o", &s.s(name)], &[name, needle]);
            assert_eq!(kind(name), before, "{name} was replaced");
        }
    }
    assert_eq!(std::fs::read_link(s.path("null")).unwrap(), Path::new("/dev/null"));
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    assert_eq!(files_in(&s.path("dir")), ["inside"]);
    assert!(temporaries(s.dir.path()).is_empty());
}

/// A symlink at OUT is written through: the file it points to is replaced (atomically,
/// by a temporary file beside it) and the link stays; a dangling link is refused.
#[test]
fn a_symlink_at_out_is_written_through() {
    let s = Scratch::new();
    let (good, bad) = good_and_bad(&s);
    std::fs::create_dir(s.path("real")).unwrap();
    std::fs::write(s.path("real/target.npy"), b"earlier").unwrap();
    std::os::unix::fs::symlink(s.path("real/target.npy"), s.path("link.npy")).unwrap();
    fails(&["run", &bad, "-o", &s.s("link.npy")], &["strict_bounds"]);
    assert_eq!(std::fs::read(s.path("real/target.npy")).unwrap(), b"earlier");
    kerf().args(["run", &good, "-o", &s.s("link.npy")]).assert().success();
    assert!(std::fs::symlink_metadata(s.path("link.npy")).unwrap().file_type().is_symlink(), "the link stays");
    let want = kerfx::npy::read(&conformance("trt_slice_seed_fill").join("expected.npy")).unwrap();
    assert_eq!(kerfx::npy::read(&s.path("real/target.npy")).unwrap(), want);
    assert!(temporaries(s.dir.path()).is_empty() && temporaries(&s.path("real")).is_empty());
    std::os::unix::fs::symlink(s.path("nowhere.npy"), s.path("dangling.npy")).unwrap();
    fails(&["run", &good, "-o", &s.s("dangling.npy")], &["dangling.npy", "symlink"]);
    assert!(!s.path("nowhere.npy").exists());
}

/// Runs on one OUT at once: a failing run never removes what a successful one wrote,
/// before, during or after it.
#[test]
fn a_failing_run_never_removes_a_concurrent_runs_output() {
    let s = Scratch::new();
    let (good, bad) = good_and_bad(&s);
    let out = s.s("out.npy");
    let want = kerfx::npy::read(&conformance("trt_slice_seed_fill").join("expected.npy")).unwrap();
    // The success first, then the failure.
    kerf().args(["run", &good, "-o", &out]).assert().success();
    fails(&["run", &bad, "-o", &out], &["strict_bounds"]);
    assert_eq!(kerfx::npy::read(Path::new(&out)).unwrap(), want);
    // Both at once, several times over.
    for _ in 0..4 {
        let spawn = |req: &str| {
            std::process::Command::new(kerf_bin())
                .args(["run", req, "-o", &out])
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        };
        let (mut a, mut b, mut c) = (spawn(&bad), spawn(&good), spawn(&bad));
        assert!(b.wait().unwrap().success());
        assert!(!a.wait().unwrap().success() && !c.wait().unwrap().success());
        assert_eq!(kerfx::npy::read(Path::new(&out)).unwrap(), want);
    }
    assert!(temporaries(s.dir.path()).is_empty());
}

/// A request whose output (128 MiB of f32) takes long enough to write to be caught in the act.
fn big_fill(s: &Scratch) -> String {
    s.write(
        "big.toml",
        "op = \"tensorrt.fill\"\n[attributes]\ndimensions = [33554432]\noperation = \"linspace\"\nto_type = \"f32\"\n",
    )
}

/// `kerf run big.toml -o out.npy` with no core files and `limits` set (resource, value).
fn big_run(s: &Scratch, limits: &[(libc::__rlimit_resource_t, u64)]) -> std::process::Command {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(kerf_bin());
    cmd.args(["run", &big_fill(s), "-o", &s.s("out.npy")]).current_dir(s.dir.path());
    cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
    let limits: Vec<_> = [(libc::RLIMIT_CORE, 0)].iter().chain(limits).copied().collect();
    // SAFETY: between fork and exec only setrlimit, async-signal-safe, on local values.
    unsafe {
        cmd.pre_exec(move || {
            for &(resource, value) in &limits {
                let l = libc::rlimit { rlim_cur: value, rlim_max: value };
                if libc::setrlimit(resource, &l) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    cmd
}

/// Every signal that ends a process and can be handled, sent while a large output is
/// being written: the temporary file is removed, the file at OUT is as it was, and the
/// process ends by that signal. (SIGQUIT once left 800 MB behind, SIGUSR1 and the
/// others tens of MB.)
#[test]
fn every_ending_signal_during_the_write_removes_the_temporary_file() {
    use std::os::unix::process::ExitStatusExt;
    let s = Scratch::new();
    let signals = [
        libc::SIGHUP,
        libc::SIGINT,
        libc::SIGQUIT,
        libc::SIGTRAP,
        libc::SIGABRT,
        libc::SIGUSR1,
        libc::SIGUSR2,
        libc::SIGPIPE,
        libc::SIGALRM,
        libc::SIGTERM,
        libc::SIGXCPU,
        libc::SIGVTALRM,
        libc::SIGPROF,
        libc::SIGIO,
        libc::SIGSYS,
        libc::SIGPWR,
        libc::SIGRTMIN(),
        libc::SIGRTMAX(),
    ];
    for sig in signals {
        // A run that ends before the signal lands proves nothing: try again.
        let caught = (0..5).any(|_| {
            std::fs::write(s.path("out.npy"), b"earlier").unwrap();
            let mut child = big_run(&s, &[]).spawn().unwrap();
            // Poll until the temporary file appears (or the run ends without one, a failure).
            while temporaries(s.dir.path()).is_empty() {
                assert!(child.try_wait().unwrap().is_none(), "signal {sig}: the run ended before its temporary file");
                std::thread::yield_now();
            }
            // SAFETY: kill on the child's pid, which is not reaped before wait() below.
            assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
            let out = child.wait_with_output().unwrap();
            if out.status.success() {
                return false;
            }
            assert_eq!(out.status.signal(), Some(sig), "ends by signal {sig}: {:?} {}", out.status, stderr(&out));
            assert!(temporaries(s.dir.path()).is_empty(), "signal {sig}: temporary left: {:?}", files_in(s.dir.path()));
            assert_eq!(std::fs::read(s.path("out.npy")).unwrap(), b"earlier", "signal {sig}");
            true
        });
        assert!(caught, "signal {sig}: never caught the run during its write");
    }
}

/// `ulimit -f` below the output's size: SIGXFSZ is ignored, so the write fails (EFBIG)
/// and is one error line; no temporary file is left (it once left 100 MB).
#[test]
fn a_file_size_limit_is_an_error_and_leaves_no_temporary_file() {
    let s = Scratch::new();
    std::fs::write(s.path("out.npy"), b"earlier").unwrap();
    let out = big_run(&s, &[(libc::RLIMIT_FSIZE, 1 << 20)]).output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{:?} {err}", out.status);
    assert!(err.starts_with("error: ") && err.lines().count() == 1, "{err}");
    assert!(err.contains("out.npy") && err.contains("File too large"), "{err}");
    assert!(temporaries(s.dir.path()).is_empty(), "temporary left: {:?}", files_in(s.dir.path()));
    assert_eq!(std::fs::read(s.path("out.npy")).unwrap(), b"earlier");
}

// ------------------------------------------------------------------ what kerf reads

/// Run `kerf ARGS`, killing it (and failing) should it still run after a minute: a FIFO
/// must be refused, not waited on.
fn fails_without_blocking(args: &[&str], needles: &[&str]) {
    let mut child = std::process::Command::new(kerf_bin())
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed().as_secs() > 60 {
            child.kill().unwrap();
            panic!("kerf {args:?} blocked");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "kerf {args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    for n in needles {
        assert!(err.contains(n), "`{n}` missing from: {err}");
    }
}

#[test]
fn fifos_and_devices_are_refused_as_request_and_input_files() {
    let s = Scratch::new();
    let status = std::process::Command::new("mkfifo").arg(s.path("req.toml")).arg(s.path("x.npy")).status().unwrap();
    assert!(status.success(), "mkfifo");
    fails_without_blocking(&["run", &s.s("req.toml")], &["req.toml", "a FIFO", "not a regular file"]);
    fails_without_blocking(&["clif", &s.s("req.toml")], &["req.toml", "a FIFO"]);
    fails_without_blocking(&["run", "/dev/zero"], &["/dev/zero", "a character device"]);
    let req = s.write("uses_fifo.toml", "op = \"onnx.slice\"\n[inputs]\ndata = \"x.npy\"\nstarts = [0]\nends = [1]\n");
    fails_without_blocking(&["run", &req], &["x.npy", "a FIFO", "not a regular file"]);
    let req =
        s.write("uses_device.toml", "op = \"onnx.slice\"\n[inputs]\ndata = \"/dev/zero\"\nstarts = [0]\nends = [1]\n");
    fails_without_blocking(&["run", &req], &["/dev/zero", "a character device"]);
}

/// A request file over 64 MiB is refused by its size, before it is read (a sparse file).
#[test]
fn oversized_request_files_are_refused() {
    let s = Scratch::new();
    let p = s.path("huge.toml");
    std::fs::File::create(&p).unwrap().set_len((64 << 20) + 1).unwrap();
    fails(&["run", p.to_str().unwrap()], &["huge.toml", "67108865 bytes", "at most 64 MiB"]);
    // Exactly 64 MiB is read (and then found not to be a request).
    std::fs::File::create(&p).unwrap().set_len(64 << 20).unwrap();
    let err = fails(&["run", p.to_str().unwrap()], &["huge.toml"]);
    assert!(!err.contains("64 MiB"), "{err}");
}

/// Request files that once took 20–150 times their size (and aborted under a memory
/// limit, SIGABRT and a backtrace from the TOML parser): under `ulimit -v` 400 MB each
/// is one `error:` line — a long list is read compactly, a file whose TOML tree would be
/// too large is refused before it is parsed.
#[test]
fn large_request_files_fit_in_memory_or_are_refused() {
    let s = Scratch::new();
    let data = "[inputs]\ninput = { dtype = \"f32\", shape = [4, 4] }\n";
    let n = 4_000_000;
    let headers: String = (0..n / 8).map(|i| format!("[attributes.a{i}]\n")).collect();
    let cases = [
        (
            "start",
            format!(
                "op = \"tensorrt.slice\"\n[attributes]\nstart = [{}0]\nsize = [1]\nstride = [1]\n{data}",
                "1,".repeat(n)
            ),
            "`start` has 4000001 entries",
        ),
        ("headers", format!("op = \"onnx.slice\"\n{headers}"), "kerf reads at most 250000"),
        (
            "strings",
            format!("op = \"onnx.slice\"\n[attributes]\ns = [{}]\n", "\"x\",".repeat(n / 2)),
            "the string \"x\" (element 0",
        ),
        (
            "tables",
            format!("op = \"onnx.slice\"\n[attributes]\nt = [{}]\n", "{},".repeat(n / 2)),
            "kerf reads at most 250000",
        ),
    ];
    for (name, text, needle) in cases {
        let req = s.write(&format!("{name}.toml"), &text);
        let out = std::process::Command::new("sh")
            .args(["-c", "ulimit -v 400000 && exec \"$0\" run \"$1\"", kerf_bin().to_str().unwrap(), &req])
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: {:?} {}", out.status, &err[..err.len().min(500)]);
        assert!(err.starts_with("error: ") && err.lines().count() == 1, "{name}: {}", &err[..err.len().min(500)]);
        assert!(err.contains(needle), "{name}: `{needle}` missing from {err}");
    }
}

/// A memory limit kerf cannot run under: one `error:` line and status 1, never std's
/// "memory allocation of N bytes failed", a backtrace and SIGABRT.
#[test]
fn an_allocation_failure_is_an_error_line() {
    let s = Scratch::new();
    let text = format!(
        "op = \"tensorrt.slice\"\n[attributes]\nstart = [{}0]\nsize = [1]\nstride = [1]\n\
         [inputs]\ninput = {{ dtype = \"f32\", shape = [4, 4] }}\n",
        "1,".repeat(4_000_000)
    );
    let req = s.write("start.toml", &text);
    for limit in ["60000", "80000", "100000"] {
        let out = std::process::Command::new("sh")
            .args(["-c", "ulimit -v $2 && exec \"$0\" run \"$1\"", kerf_bin().to_str().unwrap(), &req, limit])
            .env("RUST_BACKTRACE", "1")
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "ulimit -v {limit}: {:?} {err}", out.status);
        assert!(err.starts_with("error: ") && err.lines().count() == 1, "ulimit -v {limit}: {err}");
        assert!(!err.contains("memory allocation of") && !err.contains("backtrace"), "ulimit -v {limit}: {err}");
    }
}

// ------------------------------------------------------------------ writing stdout

/// A full disk on stdout is one `error:` line and exit status 1 for every subcommand.
#[test]
fn stdout_errors_are_one_error_line() {
    let case = conformance("trt_slice_seed_fill").join("request.toml");
    let req = case.to_str().unwrap();
    let commands: [&[&str]; 7] = [
        &["run", req],
        &["ops"],
        &["spec", "tensorrt.slice"],
        &["clif", req],
        &["expand", req],
        &["bench", req, "--iters", "1"],
        &["demo", "--op", "tensorrt.fill"],
    ];
    for args in commands {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let out = std::process::Command::new(kerf_bin()).args(args).stdout(full).output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "kerf {args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "kerf {args:?}: {err}");
        assert!(err.starts_with("error: ") && err.contains("cannot write to stdout"), "kerf {args:?}: {err}");
        assert!(!err.contains("internal error") && !err.contains("panicked"), "kerf {args:?}: {err}");
    }
}

/// A reader that goes away (`kerf demo | head -1`) ends kerf quietly: by SIGPIPE, or —
/// where the parent blocked SIGPIPE, so that writes fail with EPIPE instead — with the
/// status a shell gives SIGPIPE, 141 (it once reported an internal error).
#[test]
fn a_closed_pipe_on_stdout_ends_quietly() {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    for blocked in [false, true] {
        let mut cmd = std::process::Command::new(kerf_bin());
        cmd.arg("demo").stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        if blocked {
            // SAFETY: between fork and exec only async-signal-safe calls are made
            // (sigemptyset, sigaddset, sigprocmask on a local set).
            unsafe {
                cmd.pre_exec(|| {
                    let mut set: libc::sigset_t = std::mem::zeroed();
                    libc::sigemptyset(&mut set);
                    libc::sigaddset(&mut set, libc::SIGPIPE);
                    if libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = cmd.spawn().unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let want = if blocked { out.status.code() == Some(141) } else { out.status.signal() == Some(13) };
        assert!(want, "SIGPIPE blocked: {blocked}; status {:?}, stderr {}", out.status, stderr(&out));
        assert_eq!(stderr(&out), "", "quietly");
    }
}

/// Stdout closed when kerf starts (`kerf ops >&-`): what would be printed is an error,
/// not lost with exit status 0; `run -o`, which prints nothing, still succeeds.
#[test]
fn a_closed_stdout_is_an_error_where_kerf_prints() {
    use std::os::unix::process::CommandExt;
    let s = Scratch::new();
    let case = conformance("trt_slice_seed_fill").join("request.toml");
    let req = case.to_str().unwrap();
    let closed = |args: &[&str]| {
        let mut cmd = std::process::Command::new(kerf_bin());
        cmd.args(args);
        // SAFETY: between fork and exec only close(), async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                libc::close(1);
                Ok(())
            });
        }
        cmd.output().unwrap()
    };
    for args in [&["ops"][..], &["run", req], &["clif", req]] {
        let out = closed(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "kerf {args:?}: {err}");
        assert_eq!(err, "error: cannot write to stdout: it was closed when kerf started\n", "kerf {args:?}");
    }
    let out = closed(&["run", req, "-o", &s.s("out.npy")]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(s.path("out.npy").exists());
}

/// `-o /dev/stdout` (or `/dev/fd/1`): named as kerf's standard output, with what to do
/// instead (it said "a symlink kerf cannot follow ... No such file or directory"), and
/// never a rename over the file a shell redirected stdout to.
#[test]
fn out_naming_a_descriptor_says_so() {
    let s = Scratch::new();
    let case = conformance("trt_slice_seed_fill").join("request.toml");
    let req = case.to_str().unwrap();
    for out in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
        // Stdout a pipe, then a regular file (which must stay the file the shell opened).
        let piped = kerf().args(["run", req, "-o", out]).output().unwrap();
        let file = std::fs::File::create(s.path("redirected")).unwrap();
        let to_file =
            std::process::Command::new(kerf_bin()).args(["run", req, "-o", out]).stdout(file).output().unwrap();
        for (result, kind) in [(piped, "a FIFO"), (to_file, "a regular file")] {
            let err = stderr(&result);
            assert_eq!(result.status.code(), Some(1), "{out}: {err}");
            for needle in [out, "is kerf's standard output", kind, "name a file, or leave out -o"] {
                assert!(err.contains(needle), "{out}: `{needle}` missing from {err}");
            }
        }
        assert_eq!(std::fs::read(s.path("redirected")).unwrap(), b"");
    }
}

// ---------------------------------------------------------------- every dtype via .npy

/// Element bits from i, valid for the dtype (bool 0/1; floats stay finite and not NaN).
fn sample(dtype: DType, n: u64) -> Tensor {
    if dtype == DType::String {
        let v: Vec<&str> = (0..n).map(|i| ["", "a", "bé", "日本語"][i as usize % 4]).collect();
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

/// The dtypes an op's data input takes, as its spec says.
fn data_dtypes(op: &str) -> Vec<DType> {
    let spec = kerfx::spec::registry().unwrap().get(op).unwrap();
    let data = spec.data_input().unwrap();
    spec.type_set(&data.types).unwrap().iter().map(|name| name.parse().unwrap()).collect()
}

/// Each dtype an op moves goes in through a `.npy` file (with the request's `dtype`
/// key for the types numpy lacks) and comes back out bit for bit, through `kerf run`.
#[test]
fn every_dtype_round_trips_through_kerf_run() {
    let s = Scratch::new();
    let onnx = data_dtypes("onnx.slice");
    // What TensorRT's slice moves and ONNX's does not (int4, fp8), through tensorrt.slice.
    let trt: Vec<DType> = data_dtypes("tensorrt.slice").into_iter().filter(|d| !onnx.contains(d)).collect();
    assert!(!trt.is_empty(), "tensorrt.slice moves no dtype beyond onnx.slice's");
    for dtype in onnx.iter().chain(&trt).copied() {
        let n = 7;
        let t = sample(dtype, n);
        let input = s.path(&format!("in_{dtype}.npy"));
        kerfx::npy::write(&input, &t).unwrap();
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
        let back = kerfx::npy::read_as(&out, Some(dtype)).unwrap();
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
    assert!(text.starts_with("function %kerf_move_repeat_f32"), "{text}");
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
    assert!(text.contains("impl ::kerfx::Kernel for W6Slice"), "{text}");
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
    let want = kerfx::npy::read(&case.join("expected.npy")).unwrap();
    let req = case.join("request.toml");
    let s = Scratch::new();
    for args in [&[][..], &["--backend", "jit"][..], &["--dynamic"][..], &["--backend", "reference"][..]] {
        let out = s.path("out.npy");
        let mut cmd = kerf();
        cmd.args(["run", req.to_str().unwrap(), "-o", out.to_str().unwrap()]).args(args);
        let res = cmd.output().unwrap();
        assert!(res.status.success(), "{args:?}: {}", stderr(&res));
        assert_eq!(kerfx::npy::read(&out).unwrap(), want, "{args:?}");
        std::fs::remove_file(&out).unwrap();
    }
}

/// The Pad family through every command: run (each backend, dynamic), clif, expand,
/// bench, demo and spec; nothing in the CLI names an op.
#[test]
fn pad_family_through_every_command() {
    let s = Scratch::new();
    for case in ["onnx_node_test_wrap_pad", "ov_pad_0025", "ov_slice8_0046", "onnx_pad_0039"] {
        let dir = conformance(case);
        let want = kerfx::npy::read(&dir.join("expected.npy")).unwrap();
        let req = dir.join("request.toml");
        let req = req.to_str().unwrap();
        for args in [&[][..], &["--dynamic"][..], &["--backend", "reference"][..]] {
            let out = s.path("out.npy");
            let res = kerf().args(["run", req, "-o", out.to_str().unwrap()]).args(args).output().unwrap();
            assert!(res.status.success(), "{case} {args:?}: {}", stderr(&res));
            assert_eq!(kerfx::npy::read(&out).unwrap(), want, "{case} {args:?}");
            std::fs::remove_file(&out).unwrap();
        }
        for cmd in ["clif", "expand"] {
            let res = kerf().args([cmd, req]).output().unwrap();
            assert!(res.status.success(), "{case} {cmd}: {}", stderr(&res));
        }
    }
    let sym = s.write(
        "sym.toml",
        "op = \"openvino.pad\"\n[attributes]\npad_mode = \"symmetric\"\n\
         [inputs]\narg = { dtype = \"f32\", shape = [8, 8] }\npads_begin = [2, 2]\npads_end = [2, 2]\n",
    );
    let out = kerf().args(["clif", &sym]).output().unwrap();
    assert!(stdout(&out).starts_with("function %kerf_move_repeat_f32"), "{}", stdout(&out));
    let out = kerf().args(["bench", &sym, "--json", "--iters", "2"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!((v["baseline"].as_str(), v["bytes"].as_u64()), (Some("memcpy"), Some(12 * 12 * 4)), "{v}");
    for op in ["onnx.pad", "openvino.pad", "openvino.slice"] {
        let out = kerf().args(["demo", "--op", op]).output().unwrap();
        assert!(out.status.success(), "{op}: {}", stdout(&out));
        let out = kerf().args(["spec", op]).output().unwrap();
        assert!(out.status.success() && stdout(&out).contains(op), "{op}");
    }
    let out = kerf().args(["spec", "onnx.pad"]).output().unwrap();
    let text = stdout(&out);
    for needle in ["wrap_from_19", "constant_value", "paddings"] {
        assert!(text.contains(needle), "{needle}: {text}");
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

/// `--peer ndarray` times ndarray doing the same job (its output checked equal to the
/// kernel's) and reports it under peers.ndarray; a job ndarray has none for is an error
/// naming the peer and why.
#[test]
fn bench_peer_ndarray() {
    let s = Scratch::new();
    let pad = s.write(
        "pad.toml",
        "op = \"tensorrt.slice\"\n[attributes]\nstart = [0, -3]\nsize = [5, 40]\nstride = [1, 1]\nmode = \"reflect\"\n\
         [inputs]\ninput = { dtype = \"f32\", shape = [5, 20] }\n",
    );
    let lin = s.write(
        "lin.toml",
        "op = \"tensorrt.fill\"\n[attributes]\ndimensions = [64, 64]\noperation = \"linspace\"\nalpha = 0.5\n\
         beta = [64.0, 0.1]\nto_type = \"f32\"\n",
    );
    for req in [&pad, &lin] {
        let out = kerf().args(["bench", req, "--json", "--iters", "3", "--peer", "ndarray"]).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        let p = &v["peers"]["ndarray"];
        for key in ["median_ns", "baseline_median_ns", "ratio"] {
            assert!(p[key].as_f64().is_some_and(|x| x > 0.0), "{key}: {v}");
        }
        let ratio = p["median_ns"].as_f64().unwrap() / p["baseline_median_ns"].as_f64().unwrap();
        assert!((ratio - p["ratio"].as_f64().unwrap()).abs() < 1e-9 * ratio.max(1.0), "{v}");
    }
    let out = kerf().args(["bench", &pad, "--iters", "2", "--peer", "ndarray"]).output().unwrap();
    assert!(out.status.success() && stdout(&out).contains("ndarray"), "{}", stderr(&out));
    let out = kerf().args(["bench", &pad, "--json", "--iters", "2"]).output().unwrap();
    assert!(!stdout(&out).contains("peers"), "no peer unless asked for");
    let random = s.write(
        "random.toml",
        "op = \"tensorrt.fill\"\n[attributes]\ndimensions = [8]\noperation = \"random_normal\"\n",
    );
    fails(
        &["bench", &random, "--peer", "ndarray"],
        &["random.toml", "--peer ndarray", "random_normal", "ndarray-rand"],
    );
    let chain = conformance("chain_pad_0010").join("request.toml");
    fails(&["bench", chain.to_str().unwrap(), "--peer", "ndarray"], &["--peer", "chains"]);
}

/// Each median of `bench --json` (under `prefix`, in `unit`) has its samples' min, 10th
/// and 90th percentile and max beside it, in order.
fn assert_spread(v: &serde_json::Value, prefix: &str, median: &str, unit: &str) {
    let get = |stat: &str| {
        let key = format!("{prefix}{stat}_{unit}");
        v[&key].as_f64().filter(|x| *x > 0.0).unwrap_or_else(|| panic!("{key}: {v}"))
    };
    let m = v[median].as_f64().unwrap_or_else(|| panic!("{median}: {v}"));
    let (min, p10, p90, max) = (get("min"), get("p10"), get("p90"), get("max"));
    assert!(min <= p10 && p10 <= m && m <= p90 && p90 <= max, "{prefix}*_{unit} out of order: {v}");
}

/// `kerf bench` prints min / median / max with units for each timed figure; `--json` keeps
/// every key it had and adds each median's min, p10, p90 and max beside it.
#[test]
fn bench_reports_min_median_max() {
    let s = Scratch::new();
    let slice = s.write(
        "slice.toml",
        "op = \"tensorrt.slice\"\n[attributes]\nstart = [0, 1]\nsize = [64, 32]\nstride = [1, 2]\n\
         [inputs]\ninput = { dtype = \"f32\", shape = [64, 64] }\n",
    );
    let chain = conformance("chain_pad_0010").join("request.toml");
    let chain = chain.to_str().unwrap();
    // A figure: a number and its unit.
    let timed = |cell: &str| {
        let (num, unit) = cell.trim().split_once(' ').unwrap_or_else(|| panic!("no unit in `{cell}`"));
        num.parse::<f64>().unwrap_or_else(|_| panic!("`{cell}`"));
        assert!(["ns", "µs", "ms", "s"].contains(&unit), "`{cell}`");
    };
    // Each timed row holds min / median / max, each with its unit.
    let rows = |text: &str, labels: &[&str]| {
        assert!(text.lines().nth(1).is_some_and(|l| l.split_whitespace().eq(["min", "median", "max"])), "{text}");
        for label in labels {
            let row = text
                .lines()
                .find(|l| l.trim_start().starts_with(label))
                .unwrap_or_else(|| panic!("no `{label}` row:\n{text}"));
            let cells: Vec<&str> = row.trim_start()[label.len()..].split('/').collect();
            assert_eq!(cells.len(), 3, "`{row}`");
            timed(cells[0]);
            timed(cells[1]);
            timed(cells[2].split("   (").next().unwrap());
        }
    };
    let out = kerf().args(["bench", &slice, "--iters", "5", "--peer", "ndarray"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.lines().next().unwrap().ends_with("5 samples each:"), "{text}");
    rows(&text, &["kernel", "memcpy", "ndarray", "compile", "cache hit"]);
    assert_eq!(text.lines().filter(|l| l.trim_start().starts_with("memcpy")).count(), 2, "{text}");
    assert!(text.lines().any(|l| l.trim_start().starts_with("ratio")), "{text}");
    let out = kerf().args(["bench", chain, "--iters", "3"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    rows(&stdout(&out), &["fused", "memcpy", "unfused", "compile"]);
    let out = kerf().args(["bench", &slice, "--iters", "3", "--backend", "reference"]).output().unwrap();
    let text = stdout(&out);
    assert!(text.lines().any(|l| l.trim_start().starts_with("cache hit") && l.contains("n/a")), "{text}");

    // JSON: the old keys as they were, the spread beside each median.
    let out = kerf().args(["bench", &slice, "--json", "--iters", "7", "--peer", "ndarray"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    for key in ["median_ns", "baseline_median_ns", "ratio", "compile_us", "cache_hit_ns"] {
        assert!(v[key].as_f64().is_some_and(|x| x > 0.0), "{key}: {v}");
    }
    assert_eq!(
        (v["baseline"].as_str(), v["threads"].as_u64(), v["bytes"].as_u64()),
        (Some("memcpy"), Some(1), Some(64 * 32 * 4))
    );
    let ratio = v["median_ns"].as_f64().unwrap() / v["baseline_median_ns"].as_f64().unwrap();
    assert!((ratio - v["ratio"].as_f64().unwrap()).abs() < 1e-9 * ratio.max(1.0), "{v}");
    assert_spread(&v, "", "median_ns", "ns");
    assert_spread(&v, "baseline_", "baseline_median_ns", "ns");
    assert_spread(&v, "compile_", "compile_us", "us");
    assert_spread(&v, "cache_hit_", "cache_hit_ns", "ns");
    let p = &v["peers"]["ndarray"];
    let ratio = p["median_ns"].as_f64().unwrap() / p["baseline_median_ns"].as_f64().unwrap();
    assert!((ratio - p["ratio"].as_f64().unwrap()).abs() < 1e-9 * ratio.max(1.0), "{v}");
    assert_spread(p, "", "median_ns", "ns");
    assert_spread(p, "baseline_", "baseline_median_ns", "ns");
    // One sample: every figure is that sample.
    let out = kerf().args(["bench", &slice, "--json", "--iters", "1"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    for key in ["min_ns", "p10_ns", "p90_ns", "max_ns"] {
        assert_eq!(v[key], v["median_ns"], "{key}: {v}");
    }
    // The reference has no cache: its cache-hit figures are all null.
    let out = kerf().args(["bench", &slice, "--json", "--iters", "2", "--backend", "reference"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    for key in ["cache_hit_ns", "cache_hit_min_ns", "cache_hit_p10_ns", "cache_hit_p90_ns", "cache_hit_max_ns"] {
        assert!(v.get(key).is_some_and(serde_json::Value::is_null), "{key}: {v}");
    }
    // A chain: the fused, baseline and unfused times, each with its spread.
    let out = kerf().args(["bench", chain, "--json", "--iters", "5"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    for key in ["median_ns", "baseline_median_ns", "ratio", "unfused_median_ns", "speedup_vs_unfused", "compile_us"] {
        assert!(v[key].as_f64().is_some_and(|x| x > 0.0), "{key}: {v}");
    }
    assert_spread(&v, "", "median_ns", "ns");
    assert_spread(&v, "baseline_", "baseline_median_ns", "ns");
    assert_spread(&v, "unfused_", "unfused_median_ns", "ns");
}

/// Counts are checked before anything is allocated for them: a huge `--iters` is a usage
/// error naming the flag and its range (it once aborted allocating 34 GB for samples).
#[test]
fn bench_refuses_huge_counts_by_name() {
    let req = conformance("trt_slice_seed_fill").join("request.toml");
    for (flag, value, range) in [("--iters", "4294967295", "1..=100000"), ("--threads", "100000", "1..=256")] {
        let out = kerf().args(["bench", req.to_str().unwrap(), flag, value]).output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(err.contains(flag) && err.contains(range), "{flag}: {err}");
    }
}

// ------------------------------------------------------------------------------ demo

/// The built-in graph examples (crates/kerfx-cli/graphs/) as `kerf demo` names them.
const DEMO_GRAPHS: [&str; 4] = [
    "ok    graph/swin_roll_2d (6 nodes in 2 programs)",
    "ok    graph/gpt2_qkv_split (2 nodes in 1 program)",
    "ok    graph/unet_pad_concat (2 nodes in 1 program)",
    "ok    graph/shufflenet_shuffle_split (4 nodes in 1 program)",
];

/// `kerf demo` (the README's first command): one line per example, every one checked:
/// the spec examples, then the graph examples (each cut into programs, run on the JIT and
/// the reference and compared with its nodes run one by one).
#[test]
fn demo_runs_every_spec_example() {
    let out = kerf().arg("demo").output().unwrap();
    let text = stdout(&out);
    assert!(out.status.success(), "{}\n{}", text, stderr(&out));
    let examples: usize = kerfx::spec::registry().unwrap().ops().iter().map(|s| s.examples.len()).sum();
    let graphs: Vec<&str> = text.lines().filter(|l| l.starts_with("ok    graph/")).collect();
    assert_eq!(graphs, DEMO_GRAPHS, "{text}");
    let total = examples + graphs.len();
    let ok: Vec<&str> = text.lines().filter(|l| l.starts_with("ok ")).collect();
    assert_eq!(ok.len(), total, "one line per example:\n{text}");
    assert!(ok.iter().any(|l| l.ends_with("tensorrt.slice/seed_basic")), "{text}");
    // The header, a line per example, a blank line and the summary: nothing else.
    assert_eq!(text.lines().count(), total + 3, "{text}");
    assert!(text.contains(&format!("{total} examples: {total} ok, 0 failed")), "{text}");
    for verbose_only in ["input ", "output: ", "cranelift IR", "loop nest"] {
        assert!(!text.contains(verbose_only), "`{verbose_only}` without --verbose:\n{text}");
    }
    fails(&["demo", "--op", "nope.op"], &["unknown op `nope.op`"]);
}

/// `--verbose` shows each example in full: inputs, output, plan, loop nest and IR.
#[test]
fn demo_verbose_shows_arrays_and_ir() {
    let out = kerf().args(["demo", "--verbose"]).output().unwrap();
    let text = stdout(&out);
    assert!(out.status.success(), "{}\n{}", text, stderr(&out));
    let examples: usize = kerfx::spec::registry().unwrap().ops().iter().map(|s| s.examples.len()).sum();
    let total = examples + DEMO_GRAPHS.len();
    assert!(text.contains("seed_basic") && text.contains("output: f32[2, 2]"), "{text}");
    assert!(text.contains("== graph/gpt2_qkv_split: GPT-2's q/k/v split"), "{text}");
    assert!(text.contains("  cut into 6 nodes in 2 programs:\n  program 0: node 0 (onnx.slice)"), "{text}");
    for needle in ["  input ", "  plan:", "  loop nest:", "  cranelift IR", "function %kerf_", "  move 1: `x` into `k`"]
    {
        assert!(text.contains(needle), "`{needle}` missing:\n{text}");
    }
    assert_eq!(text.lines().filter(|l| l.starts_with("ok ")).count(), 0, "no one-line form:\n{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("  ok: ")).count(), total, "{text}");
    assert!(text.contains(&format!("{total} examples: {total} ok, 0 failed")), "{text}");
    let short = kerf().args(["demo", "--op", "tensorrt.fill", "-v"]).output().unwrap();
    assert!(short.status.success() && stdout(&short).contains("cranelift IR"), "{}", stderr(&short));
}

/// `--brief`, the old spelling of the default, is still accepted (hidden from the help)
/// and prints exactly what the default prints; with `--verbose` it is a usage error.
#[test]
fn demo_brief_is_a_hidden_alias_of_the_default() {
    let default = kerf().args(["demo", "--op", "tensorrt.fill"]).output().unwrap();
    let brief = kerf().args(["demo", "--op", "tensorrt.fill", "--brief"]).output().unwrap();
    assert!(default.status.success() && brief.status.success(), "{}", stderr(&brief));
    assert_eq!(stdout(&brief), stdout(&default));
    assert!(stdout(&brief).lines().any(|l| l.starts_with("ok    tensorrt.fill/")), "{}", stdout(&brief));
    let help = stdout(&kerf().args(["demo", "--help"]).output().unwrap());
    assert!(help.contains("--verbose") && !help.contains("--brief"), "{help}");
    let out = kerf().args(["demo", "--brief", "--verbose"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--verbose"), "{}", stderr(&out));
}

/// The benchmark requests (the performance table in crates/README.md) in tests/data/bench all compile (running them is
/// `kerf bench`'s job, too slow for the test suite).
#[test]
fn bench_workload_requests_compile() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/bench");
    let files = files_in(&dir);
    assert!(files.len() >= 14, "{files:?}");
    for f in files.iter().filter(|f| f.ends_with(".toml")) {
        let out = kerf().args(["clif", dir.join(f).to_str().unwrap()]).output().unwrap();
        assert!(out.status.success(), "{f}: {}", stderr(&out));
        // A program (Concat, Split) shows each move's kernel under a `; move k` line.
        let text = stdout(&out);
        assert!(text.starts_with("function %kerf_") || text.starts_with("; move 0:"), "{f}");
    }
}

#[test]
fn run_writes_several_outputs_to_an_npz_named_by_the_spec() {
    let case = conformance("onnx_split_0004");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("parts.npz");
    let run = kerf()
        .args(["run", case.join("request.toml").to_str().unwrap(), "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    let got = kerfx::npz::read(&out).unwrap();
    let expected = kerfx::npz::read(&case.join("expected.npz")).unwrap();
    assert_eq!(got, expected);
    assert_eq!(got.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["outputs_0", "outputs_1"]);
    // Printed, each under its name.
    let printed = stdout(&kerf().args(["run", case.join("request.toml").to_str().unwrap()]).output().unwrap());
    assert!(printed.starts_with("outputs_0: f32[5, 3, 1, 3]") && printed.contains("outputs_1:"), "{printed}");
}

#[test]
fn several_outputs_to_an_npy_are_refused_and_nothing_is_written() {
    let case = conformance("onnx_split_0004");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("parts.npy");
    fails(
        &["run", case.join("request.toml").to_str().unwrap(), "-o", out.to_str().unwrap()],
        &["2 outputs (outputs_0, outputs_1)", "-o OUT.npz"],
    );
    assert!(files_in(dir.path()).is_empty(), "{:?}", files_in(dir.path()));
}

#[test]
fn clif_of_a_program_shows_each_move() {
    let case = conformance("onnx_concat_0003");
    let out = kerf().args(["clif", case.join("request.toml").to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.matches("; move ").count(), 4, "{text}");
    assert!(text.contains("; move 3: input 3 into output 0 at [6, 0, 0]"), "{text}");
    assert_eq!(text.matches("function %kerf_move_").count(), 4, "{text}");
}
