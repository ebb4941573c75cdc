//! What the tests that build and run native code (objects written ahead of time, C
//! drivers, cross builds) need from the system: whether a tool runs, and kerf's runtime
//! library built for the running test.

use std::path::PathBuf;
use std::process::Command;

/// Whether `tool` runs (`tool --version` succeeds); prints why not, so that a test that
/// skips says so (CI installs every tool the tests use, in `.ci/run`).
pub fn have(tool: &str) -> bool {
    match Command::new(tool).arg("--version").output() {
        Ok(o) if o.status.success() => true,
        _ => {
            eprintln!("skipped: no `{tool}` on this system (CI installs it in .ci/run)");
            false
        }
    }
}

/// `libkerfx_rt.a`, built by cargo in the running test's profile and target directory
/// (the test binary's `deps/` sits in that profile's directory).
pub fn runtime_library() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).expect("a test binary under <target>/<profile>/deps");
    let profile = if cfg!(debug_assertions) { "dev" } else { "release" };
    let status = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "-p", "kerfx-rt", "--profile", profile])
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build -p kerfx-rt failed");
    let lib = profile_dir.join("libkerfx_rt.a");
    assert!(lib.is_file(), "{} was not built", lib.display());
    lib
}
