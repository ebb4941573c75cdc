//! The `npy` target: its body is `bodies/npy.rs` (see there), which the workspace's
//! fuzz smoke test (`crates/kerfx-reliability/tests/fuzz_smoke.rs`) runs too.

#![no_main]

#[path = "../bodies/npy.rs"]
mod body;

libfuzzer_sys::fuzz_target!(|data: &[u8]| body::run(data));
