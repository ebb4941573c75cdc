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
    let expected = kerf::npz::read(&data("graph/fanout_expected.npz")).unwrap();
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
        let got = kerf::npz::read(&out).unwrap();
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
    let (got, want) = (kerf::npy::read(&out).unwrap(), kerf::npy::read(&case.join("expected/y0.npy")).unwrap());
    assert!(got.dtype() == want.dtype() && got.shape() == want.shape() && got.bytes() == want.bytes());
    let o = kerf().arg("run").arg(case.join("model.onnx")).args(["--input", &input]).output().unwrap();
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.starts_with("y0: f16[3234, 2, 1]\n[[["), "{}", &text[..80.min(text.len())]);
}

#[test]
fn refusals_are_one_line_naming_what() {
    let case = data("conformance-graph/n_concat_e3ee3b5c");
    let mut cmd = kerf();
    cmd.arg("run").arg(case.join("model.onnx"));
    for k in 0..9 {
        cmd.args(["--input", &format!("x{k}={}", case.join(format!("inputs/x{k}.npy")).display())]);
    }
    let o = cmd.output().unwrap();
    assert!(!o.status.success());
    let e = String::from_utf8(o.stderr).unwrap();
    assert!(e.contains("node 0 (Concat `node_cat_28`): Concat-18 is not an op kerf runs"), "{e}");
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
