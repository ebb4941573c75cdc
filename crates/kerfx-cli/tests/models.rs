//! `kerf run model.onnx --input NAME=FILE.npy`: outputs printed, written as `.npz` (every
//! output) or `.npy` (a model of one output), on both backends; refusals as one line.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn kerf() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kerf"));
    c.env("RUST_BACKTRACE", "1");
    c
}

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel)
}

fn fanout_input() -> String {
    format!("x={}", data("graph/fanout_x.npy").display())
}

#[test]
fn a_model_s_outputs_go_to_an_npz_equal_to_the_reference_evaluator_s() {
    let dir = tempfile::tempdir().unwrap();
    let expected = kerfx::npz::read(&data("graph/fanout_expected.npz")).unwrap();
    let mut files = Vec::new();
    for extra in [&["--backend", "jit"][..], &["--backend", "jit", "--dynamic"], &["--backend", "reference"]] {
        let out = dir.path().join(format!("out{}.npz", files.len()));
        let o = kerf()
            .arg("run")
            .arg(data("graph/fanout.onnx"))
            .args(["--input", &fanout_input()])
            .arg("-o")
            .arg(&out)
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&o.stderr));
        let got = kerfx::npz::read(&out).unwrap();
        let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["c", "f", "d"], "{extra:?}");
        for (n, t) in &got {
            let want = &expected.iter().find(|(m, _)| m == n).unwrap().1;
            assert!(t.dtype() == want.dtype() && t.shape() == want.shape() && t.bytes() == want.bytes(), "{n}");
        }
        files.push(std::fs::read(&out).unwrap());
    }
    assert!(files.windows(2).all(|w| w[0] == w[1]), "the backends' files differ");
    // Three outputs do not fit one .npy: refused, nothing written.
    let npy = dir.path().join("out.npy");
    let o = kerf()
        .arg("run")
        .arg(data("graph/fanout.onnx"))
        .args(["--input", &fanout_input()])
        .arg("-o")
        .arg(&npy)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("the run gives 3 outputs"));
    assert!(!npy.exists());
}

#[test]
fn a_model_of_one_output_prints_it_or_writes_an_npy() {
    let case = data("conformance-graph/n_unsqueeze_ee829855_f16");
    let input = format!("x0={}", case.join("inputs/x0.npy").display());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("y.npy");
    kerf().arg("run").arg(case.join("model.onnx")).args(["--input", &input]).arg("-o").arg(&out).assert().success();
    let (got, want) = (kerfx::npy::read(&out).unwrap(), kerfx::npy::read(&case.join("expected/y0.npy")).unwrap());
    assert!(got.dtype() == want.dtype() && got.shape() == want.shape() && got.bytes() == want.bytes());
    let o = kerf().arg("run").arg(case.join("model.onnx")).args(["--input", &input]).output().unwrap();
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.starts_with("y0: f16[3234, 2, 1]\n[[["), "{}", &text[..80.min(text.len())]);
}

#[test]
fn refusals_are_one_line_naming_what() {
    // An Add of a run-time value: shape path only, refused naming the node.
    let o = kerf().arg("run").arg(data("graph/add.onnx")).args(["--input", &fanout_input()]).output().unwrap();
    assert!(!o.status.success());
    let e = String::from_utf8(o.stderr).unwrap();
    assert!(e.contains("node 0 (Add `twice`): Add-13 is not an op kerf runs"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");

    let model = data("graph/fanout.onnx");
    let o = kerf().arg("run").arg(&model).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("graph input `x` is not given"));
    let o = kerf().arg("run").arg(&model).args(["--input", "x"]).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("--input x: expected NAME=FILE.npy"));
    let wrong = format!("x={}", data("npz/stored.npz").display());
    let o = kerf().arg("run").arg(&model).args(["--input", &wrong]).output().unwrap();
    assert!(!o.status.success());
    let o = kerf()
        .arg("run")
        .arg(data("conformance/chain_pad_0010/request.toml"))
        .args(["--input", "x=a.npy"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("--input gives the inputs of an ONNX model"));
    // OUT may not be an input of the run.
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.npy");
    std::fs::copy(data("graph/fanout_x.npy"), &x).unwrap();
    let before = std::fs::read(&x).unwrap();
    let o = kerf()
        .arg("run")
        .arg(&model)
        .args(["--input", &format!("x={}", x.display())])
        .arg("-o")
        .arg(&x)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("is an input of this run"));
    assert_eq!(std::fs::read(&x).unwrap(), before);
}

/// `kerf run graph.toml`: a graph file (Swin's roll: Slice, Slice → Concat) runs as one
/// fused program, equal on every backend to its nodes run one by one; `kerf clif` shows
/// the program; a graph file's errors name the file and the value or entry.
#[test]
fn a_graph_file_runs_as_one_program_on_every_backend() {
    let dir = tempfile::tempdir().unwrap();
    let roll = data("graph/roll.toml");
    let mut files = Vec::new();
    for extra in
        [&["--backend", "jit"][..], &["--backend", "jit", "--dynamic"], &["--backend", "reference"], &["--unfused"]]
    {
        let out = dir.path().join(format!("y{}.npy", files.len()));
        let o = kerf().arg("run").arg(&roll).arg("-o").arg(&out).args(extra).output().unwrap();
        assert!(o.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&o.stderr));
        files.push(std::fs::read(&out).unwrap());
    }
    assert!(files.windows(2).all(|w| w[0] == w[1]), "the backends' files differ");
    let y = kerfx::npy::read(&dir.path().join("y0.npy")).unwrap();
    let want: Vec<u8> =
        (0..2).flat_map(|r| (0..8).map(move |c| (r * 8 + (c + 3) % 8) as f32)).flat_map(f32::to_le_bytes).collect();
    assert_eq!(y.bytes(), Some(want.as_slice()), "a roll by 3");
    let o = kerf().arg("clif").arg(&roll).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("; program 0: node 0 (onnx.slice `tail`), node 1 (onnx.slice `head`), node 2 (onnx.concat)\n"),
        "{text}"
    );
    assert_eq!(text.matches("; move ").count(), 2, "one move per half: {text}");
    // kerf bench times the graph as one program into preallocated outputs.
    let o = kerf().arg("bench").arg(&roll).args(["--iters", "3", "--json"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["programs"].as_u64(), v["nodes"].as_u64(), v["bytes"].as_u64()), (Some(1), Some(3), Some(64)));
    assert_eq!(v["into_buffers"], serde_json::Value::Bool(true));
    assert!(v["median_ns"].as_f64().is_some_and(|t| t > 0.0) && v["ratio"].as_f64().is_some());
    // kerf expand prints the derive's code of the one program: a move per half.
    let o = kerf().arg("expand").arg(&roll).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.starts_with(
            "// node 0 (onnx.slice `tail`), node 1 (onnx.slice `head`), node 2 (onnx.concat); reads `x`, writes `y`.\n"
        ),
        "{text}"
    );
    assert!(text.contains("pub struct Roll;") && text.contains("impl ::kerfx::Kernel for Roll"), "{text}");
    assert!(text.contains("fn __kerf_move1") && !text.contains("fn __kerf_move2"), "{text}");
}

/// `kerf expand` on a graph cut into two programs (a transposed Split part read twice by a
/// Concat is written to memory): one struct per program,
/// `Name0`, `Name1`, each headed by what it reads and writes; a request of the family
/// (Concat) expands to its program.
#[test]
fn expand_prints_one_struct_per_program_of_a_graph() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("two.toml");
    std::fs::write(
        &graph,
        r#"outputs = ["z", "b"]

[inputs]
x = { dtype = "i32", shape = [4, 2] }

[[nodes]]
op = "onnx.split"
version = 11
reads = { input = "x" }
writes = ["a", "b"]
[nodes.attributes]
axis = 0

[[nodes]]
op = "onnx.transpose"
reads = { data = "a" }
writes = ["t"]

[[nodes]]
op = "onnx.concat"
version = 13
reads = { inputs = ["t", "t"] }
writes = ["z"]
[nodes.attributes]
axis = 0
"#,
    )
    .unwrap();
    let o = kerf().arg("expand").arg(&graph).args(["--name", "Two"]).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // `t` is read twice by the Concat: it is written to memory, between two programs.
    let heads: Vec<&str> = text.lines().filter(|l| l.starts_with("// ")).collect();
    assert_eq!(
        heads,
        [
            "// Program 0 of 2: node 0 (onnx.split), node 1 (onnx.transpose); reads `x`, writes `b`, `t`.",
            "// Program 1 of 2: node 2 (onnx.concat); reads `t`, writes `z`."
        ],
        "{text}"
    );
    assert!(text.contains("pub struct Two0;") && text.contains("pub struct Two1;"), "{text}");
    let concat = dir.path().join("concat.toml");
    std::fs::write(
        &concat,
        "op = \"onnx.concat\"\nversion = 13\n[attributes]\naxis = 1\n[inputs]\n\
         inputs = [{ dtype = \"f32\", shape = [2, 3] }, { dtype = \"f32\", shape = [2, 1] }]\n",
    )
    .unwrap();
    let o = kerf().arg("expand").arg(&concat).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("pub struct Concat;")
            && text.contains("pub const INPUT_LENS: [::core::primitive::usize; 2] = [6, 2];"),
        "{text}"
    );
}

#[test]
fn a_graph_file_s_errors_name_the_value_or_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(data("graph/roll.toml")).unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let undefined = write("undefined.toml", &text.replace(r#"inputs = ["a", "b"]"#, r#"inputs = ["a", "c"]"#));
    let o = kerf().arg("run").arg(&undefined).output().unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("reads value `c`, which no input, constant or node defines"), "{e}");
    let bad = write("bad.toml", &text.replace(r#"reads = { data = "x" }"#, "reads = { data = 3 }"));
    let o = kerf().arg("run").arg(&bad).output().unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("bad.toml:12:18:") && e.contains("reads.data: a value's name, or a list of names"), "{e}");
    let meta = write(
        "meta.toml",
        &text.replace(
            &text[text.find("x = {").unwrap()..text.find("\n\n[[nodes]]").unwrap()],
            r#"x = { dtype = "f32", shape = [2, 8] }"#,
        ),
    );
    let o = kerf().arg("run").arg(&meta).output().unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("input `x` is given by dtype and shape only"), "{e}");
    // The bench form still compiles: clif needs no values.
    kerf().arg("clif").arg(&meta).assert().success();
}
