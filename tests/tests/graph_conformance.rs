//! The real data-movement subgraphs of `tests/data/conformance-graph/` (cut from
//! exported models; expected outputs from onnxruntime and onnx's reference agreeing) run
//! as whole graphs on every run-time backend, bit for bit (NaN payloads included), and
//! each as one kernel.
//!
//! The cases of more than 1 MiB are not committed (their real shapes make 1.2–3 MB of
//! inputs each): they are read from the shared case folder beside the repository
//! (`../shared/conformance-graph`, as CI lays it out) or `KERF_GRAPH_CASES`, and the test
//! fails, naming the folder, when it is absent.

use kerfx::graph::{self, Backend};
use kerfx::{Jit, Tensor};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Committed cases kerf runs.
const COMMITTED: &[&str] = &[
    "g_2x-slice-concat_b333edf0_f16",
    "g_reshape-transpose-reshape-transpose-reshape_a0aceccc",
    "g_reshape-transpose-reshape-transpose-reshape_a0aceccc_f16",
    "g_reshape-transpose-reshape_5ba5e8c5",
    "g_reshape-transpose-reshape_5ba5e8c5_f16",
    "g_reshape-transpose_f82f7156",
    "g_reshape-transpose_f82f7156_f16",
    "g_slice-reshape-transpose_45112a55_f16",
    "g_transpose-reshape_cd95453d",
    "g_transpose-reshape_cd95453d_f16",
    "n_concat_e3ee3b5c",
    "n_concat_e3ee3b5c_f16",
    "n_expand_2f8542a9_shape",
    "n_expand_3e30ce42_shape",
    "n_expand_bdab4363_shape",
    "n_expand_e9f28f12",
    "n_gather_9665817a_f16",
    "n_reshape_43d1ffc0_shape",
    "n_reshape_ef41acff",
    "n_reshape_ef41acff_f16",
    "n_slice_fab2a84f",
    "n_slice_fab2a84f_f16",
    "n_split_b788532a",
    "n_split_b788532a_f16",
    "n_transpose_209c0fa4",
    "n_transpose_209c0fa4_f16",
    "n_unsqueeze_ee829855",
    "n_unsqueeze_ee829855_f16",
];

/// The cases over 1 MiB, read from the shared folder.
const LARGE: &[&str] = &[
    "g_2x-slice-concat_b333edf0",
    "g_gather-transpose_40497905",
    "g_gather-transpose_40497905_f16",
    "g_pad-slice_b3906f8c",
    "g_pad-slice_b3906f8c_f16",
    "g_pad-slice_d989fc40_shape",
    "g_reshape-transpose_181445cd_shape",
    "g_slice-reshape-transpose_45112a55",
    "g_slice-reshape-transpose_97d925e4_shape",
    "n_gather_9665817a",
    "n_pad_5556c2ad",
    "n_pad_5556c2ad_f16",
    "n_pad_6464fd3f_shape",
];

fn committed_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/conformance-graph")
}

fn shared_dir() -> PathBuf {
    match std::env::var_os("KERF_GRAPH_CASES") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance-graph"),
    }
}

/// Files of a folder by stem, sorted.
fn npys(dir: &Path) -> BTreeMap<String, Tensor> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        let stem = path.file_stem().expect("a file name").to_string_lossy().into_owned();
        out.insert(stem, kerfx::npy::read(&path).unwrap_or_else(|e| panic!("{e}")));
    }
    out
}

fn same(a: &Tensor, b: &Tensor) -> bool {
    a.dtype() == b.dtype() && a.shape() == b.shape() && a.bytes() == b.bytes()
}

fn run_case(dir: &Path) {
    let name = dir.display();
    let model = std::fs::read(dir.join("model.onnx")).unwrap_or_else(|e| panic!("{name}: {e}"));
    let inputs = npys(&dir.join("inputs"));
    let expected = npys(&dir.join("expected"));
    let imported = graph::import_onnx(&model, &inputs, None).unwrap_or_else(|e| panic!("{name}: {e}"));
    // A fusion group or one node: one kernel, of the pattern's nodes (`g_pad-slice_…`:
    // two), the shape path folded away.
    let groups = graph::cut(&imported).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(groups.len(), 1, "{name}: cut into {groups:?}");
    let case = dir.file_name().expect("a case folder").to_string_lossy();
    let pattern = case.split('_').nth(1).expect("a pattern");
    let nodes = if case.starts_with("g_") { pattern.split('-').count() } else { 1 };
    assert_eq!(groups[0].nodes.len(), nodes, "{name}: {groups:?}");
    let oracle = graph::run_unfused_reference(&imported, &inputs).unwrap_or_else(|e| panic!("{name}: {e}"));
    let jit = Jit::default();
    let backends = [
        ("reference", Backend::Reference),
        ("jit static", Backend::Jit { jit: &jit, dynamic: false }),
        ("jit dynamic", Backend::Jit { jit: &jit, dynamic: true }),
    ];
    for (which, backend) in backends {
        let got = graph::run(&imported, &inputs, backend).unwrap_or_else(|e| panic!("{name} on {which}: {e}"));
        assert_eq!(got.len(), expected.len(), "{name} on {which}");
        for ((out, t), (_, o)) in got.iter().zip(&oracle) {
            let want = expected.get(out).unwrap_or_else(|| panic!("{name}: no expected/{out}.npy"));
            assert!(
                same(t, want),
                "{name} on {which}: output `{out}` differs from expected ({:?} {:?})",
                t.dtype(),
                t.shape()
            );
            assert!(same(t, o), "{name} on {which}: output `{out}` differs from the nodes run one by one");
        }
    }
}

#[test]
fn every_committed_case_is_listed() {
    let mut listed: Vec<&str> = COMMITTED.to_vec();
    listed.sort_unstable();
    assert_eq!(case_folders(&committed_dir()), listed);
}

/// Every case of the shared folder runs: committed, or read from there.
#[test]
fn every_shared_case_is_listed() {
    let mut listed: Vec<&str> = COMMITTED.iter().chain(LARGE).copied().collect();
    listed.sort_unstable();
    assert_eq!(case_folders(&shared_dir()), listed);
}

fn case_folders(dir: &Path) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().expect("a name").to_string_lossy().into_owned())
        .collect();
    found.sort_unstable();
    found
}

#[test]
fn committed_cases_run_bit_for_bit_on_every_backend() {
    for case in COMMITTED {
        run_case(&committed_dir().join(case));
    }
}

#[test]
fn large_cases_from_the_shared_folder() {
    let dir = shared_dir();
    assert!(
        dir.join("README.md").is_file(),
        "{}: the shared graph cases are not there (set KERF_GRAPH_CASES to their folder)",
        dir.display()
    );
    for case in LARGE {
        run_case(&dir.join(case));
    }
}
