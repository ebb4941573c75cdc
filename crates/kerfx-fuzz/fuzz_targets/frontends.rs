//! The `frontends` target: its body is `bodies/frontends.rs` (see there), which the workspace's
//! fuzz smoke test (`crates/kerfx-reliability/tests/fuzz_smoke.rs`) runs too.

#![no_main]

/// Where the bodies find the fixture files (`.npy` inputs the requests name).
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");

#[path = "../bodies/frontends.rs"]
mod body;

libfuzzer_sys::fuzz_target!(|data: &[u8]| body::run(data));
