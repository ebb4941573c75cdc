//! `kerf` on chain files (`[[steps]]`): run fused and `--unfused` on both backends, static
//! and `--dynamic` (the same bytes, the case's expected values), errors naming the step,
//! `clif` of the one fused function, `expand` of the fused Rust, and `bench --json`'s
//! `unfused_median_ns`.

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

fn run_to(file: &Path, out: &Path, extra: &[&str]) -> Vec<u8> {
    let o = kerf().arg("run").arg(file).arg("-o").arg(out).args(extra).output().unwrap();
    assert!(o.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&o.stderr));
    std::fs::read(out).unwrap()
}

#[test]
fn fused_and_unfused_runs_agree_with_the_expected_values() {
    let dir = tempfile::tempdir().unwrap();
    for case in ["chain_pad_0001", "chain_slice_0000", "chain_linspace_0005", "chain_pad_0010"] {
        let case_dir = data("conformance").join(case);
        let file = case_dir.join("request.toml");
        let expected = kerfx::npy::read_as(&case_dir.join("expected.npy"), None).unwrap();
        let mut outputs = Vec::new();
        for extra in [
            &["--backend", "jit"][..],
            &["--backend", "jit", "--unfused"],
            &["--backend", "jit", "--dynamic"],
            &["--backend", "jit", "--dynamic", "--unfused"],
            &["--backend", "reference"],
            &["--backend", "reference", "--unfused"],
        ] {
            let out = dir.path().join(format!("{case}_{}.npy", outputs.len()));
            run_to(&file, &out, extra);
            let got = kerfx::npy::read_as(&out, None).unwrap();
            assert!(got == expected, "{case} {extra:?}: differs from expected.npy");
            outputs.push(std::fs::read(&out).unwrap());
        }
        assert!(outputs.windows(2).all(|w| w[0] == w[1]), "{case}: the runs differ");
    }
}

#[test]
fn bad_chains_name_the_step() {
    for case in ["chain_err_0007", "chain_err_0009", "chain_err_0012"] {
        let file = data("conformance").join(case).join("request.toml");
        for extra in [&[][..], &["--unfused"]] {
            let o = kerf().arg("run").arg(&file).args(extra).output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success(), "{case}");
            assert!(err.contains("step 2 (tensorrt.slice)"), "{case}: {err}");
            assert_eq!(err.lines().count(), 1, "{case}: {err}");
        }
    }
    // A later step naming its data input.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[[steps]]\nop = \"onnx.slice\"\n[steps.inputs]\ndata = [1, 2, 3]\nstarts = [1]\nends = [3]\n\n\
         [[steps]]\nop = \"onnx.slice\"\n[steps.inputs]\ndata = [1, 2]\nstarts = [0]\nends = [1]\n",
    )
    .unwrap();
    let o = kerf().arg("run").arg(&bad).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("step 2 (onnx.slice)") && err.contains("`data`"), "{err}");
    // --unfused is for chains.
    let single = data("bench/w6_tiny.toml");
    let o = kerf().arg("run").arg(&single).arg("--unfused").output().unwrap();
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("--unfused"));
}

#[test]
fn clif_shows_one_fused_function_and_expand_the_fused_rust() {
    let ch1 = data("bench/ch1_pad_crop.toml");
    let o = kerf().arg("clif").arg(&ch1).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let clif = String::from_utf8_lossy(&o.stdout);
    assert_eq!(clif.matches("\nfunction ").count() + usize::from(clif.starts_with("function ")), 1, "{clif}");
    let o = kerf().arg("expand").arg(&ch1).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rust = String::from_utf8_lossy(&o.stdout);
    assert!(rust.contains("pub struct Ch1PadCrop;") && rust.contains("map f32 input [1, 3, 1024, 1024]"), "{rust}");
}

#[test]
fn bench_json_reports_the_unfused_time() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("small.toml");
    std::fs::write(
        &file,
        "[[steps]]\nop = \"onnx.pad\"\nversion = 19\n[steps.attributes]\nmode = \"reflect\"\n[steps.inputs]\n\
         data = { dtype = \"f32\", shape = [64, 64] }\npads = [4, 4, 4, 4]\n\n\
         [[steps]]\nop = \"onnx.slice\"\n[steps.inputs]\nstarts = [2, 2]\nends = [-2, -2]\n",
    )
    .unwrap();
    let o = kerf().args(["bench", "--json", "--iters", "3"]).arg(&file).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for key in ["median_ns", "baseline_median_ns", "unfused_median_ns", "speedup_vs_unfused"] {
        assert!(v[key].as_f64().is_some_and(|x| x > 0.0), "{key}: {v}");
    }
    assert_eq!(v["steps"], 2);
    assert_eq!(v["bytes"], 68 * 68 * 4);
}

/// A chain that starts with a fill and one with two fill values: `clif` shows one fused
/// function, `bench --json` times the fused kernel against the unfused steps, and
/// `expand` (the derive expands chains that read an input and fill with one value) says
/// why it does not expand them.
#[test]
fn fill_heads_and_two_fill_values_fuse_on_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let head = dir.path().join("head.toml");
    std::fs::write(
        &head,
        "[[steps]]\nop = \"tensorrt.fill\"\n[steps.attributes]\ndimensions = [64, 64]\noperation = \"random_uniform\"\n\
         alpha = 0.0\nbeta = 1.0\nto_type = \"f32\"\nseed = 3\n\n\
         [[steps]]\nop = \"tensorrt.slice\"\n[steps.attributes]\nstart = [4, 4]\nsize = [32, 32]\nstride = [1, 1]\n",
    )
    .unwrap();
    let two = dir.path().join("two.toml");
    std::fs::write(
        &two,
        "[[steps]]\nop = \"onnx.pad\"\nversion = 19\n[steps.attributes]\nmode = \"constant\"\n[steps.inputs]\n\
         data = { dtype = \"f32\", shape = [64, 64] }\npads = [4, 4, 4, 4]\n\n\
         [[steps]]\nop = \"tensorrt.slice\"\n[steps.attributes]\nstart = [-2, -2]\nsize = [76, 76]\nstride = [1, 1]\n\
         mode = \"fill\"\n[steps.inputs]\nfill = 1.0\n",
    )
    .unwrap();
    for (file, why) in [(&head, "starts with a fill"), (&two, "fills with two or more values")] {
        let o = kerf().arg("clif").arg(file).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let clif = String::from_utf8_lossy(&o.stdout);
        assert!(clif.starts_with("function %kerf_chain_") && clif.matches("\nfunction ").count() == 0, "{clif}");
        let o = kerf().args(["bench", "--json", "--iters", "3"]).arg(file).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        for key in ["median_ns", "unfused_median_ns", "speedup_vs_unfused"] {
            assert!(v[key].as_f64().is_some_and(|x| x > 0.0), "{key}: {v}");
        }
        let o = kerf().arg("expand").arg(file).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(why) && err.contains("`kerf run` fuses it"), "{err}");
    }
    // `kerf run` runs the fused kernel and agrees with the steps one by one.
    let (a, b) = (dir.path().join("a.npy"), dir.path().join("b.npy"));
    assert_eq!(run_to(&head, &a, &[]), run_to(&head, &b, &["--unfused"]));
}
