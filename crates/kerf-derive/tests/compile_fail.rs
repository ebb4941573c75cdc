//! The derive's compile errors, pinned: each case in `ui/` with its `.stderr`.
//! Regenerate with `TRYBUILD=overwrite cargo test -p kerf-derive-tests --test compile_fail`
//! and review the diff.

#[test]
fn compile_fail() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
