//! The `graphs` target: its body is `bodies/graphs.rs` (see there), which the workspace's
//! fuzz smoke test (`crates/kerfx-reliability/tests/fuzz_smoke.rs`) runs too.

#![no_main]

#[path = "../bodies/graphs.rs"]
mod body;

libfuzzer_sys::fuzz_target!(|data: &[u8]| body::run(data));
