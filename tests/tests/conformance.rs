//! The conformance suite (tests/data/conformance) on the run-time backends: the test
//! kit's `conformance_suite!`, one `#[test]` per case and backend. The derive backend's
//! instance is in crates/kerf-derive-tests/tests/conformance.rs.

use kerf_testkit::Backend;

#[test]
fn the_suite_has_every_case() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/conformance");
    let on_disk =
        std::fs::read_dir(root).unwrap().filter(|e| e.as_ref().unwrap().path().join("request.toml").is_file()).count();
    assert_eq!(kerf_testkit::CASE_COUNT, on_disk, "the generated suite is stale");
    assert!(on_disk >= 298, "only {on_disk} conformance cases were found");
}

mod reference {
    kerf_testkit::conformance_suite!(super::Backend::Reference);
}

mod jit_static {
    kerf_testkit::conformance_suite!(super::Backend::JitStatic);
}

mod jit_dynamic {
    kerf_testkit::conformance_suite!(super::Backend::JitDynamic);
}

/// Every shared chain case that runs (all but those that must fail) compiles to one
/// fused kernel, static and dynamic: fill heads and several fill values included. Pinned.
#[test]
fn every_chain_case_that_runs_fuses_into_one_kernel() {
    use kerf::request_file::{AnyFile, load_any};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/conformance");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("chain_"))
        .collect();
    names.sort();
    let jit = kerf::Jit::default();
    let (mut running, mut fused, mut not_fused) = (0, 0, Vec::new());
    for name in names {
        let dir = root.join(&name);
        if dir.join("expected_error").exists() {
            continue;
        }
        let AnyFile::Chain(file) = load_any(&dir.join("request.toml")).unwrap() else {
            panic!("{name} is not a chain file")
        };
        let lowered = kerf::chain::lower_chain(&file.chain()).unwrap();
        running += 1;
        let one_static = jit.compile(lowered.fused().unwrap(), &kerf::Options::STATIC).is_ok();
        let one_dynamic = jit.compile(lowered.fused().unwrap(), &kerf::Options::DYNAMIC).is_ok();
        if one_static && one_dynamic {
            fused += 1;
        } else {
            not_fused.push(name);
        }
    }
    assert_eq!(running, 47, "the shared chain cases that run");
    assert_eq!(fused, 47, "chain cases not fused into one kernel: {not_fused:?}");
}
