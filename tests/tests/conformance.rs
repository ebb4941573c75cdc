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
