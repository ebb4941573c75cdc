//! The derive's compile errors, pinned: each case in `ui/` with its `.stderr`, all in one
//! trybuild run (one project, checked once). They live in this crate, not in a user crate
//! of the derive, so that trybuild's project has only this crate's few dependencies.
//! Regenerate with `TRYBUILD=overwrite cargo test -p kerfx-derive --test compile_fail`
//! and review the diff.

#[test]
fn compile_fail() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
