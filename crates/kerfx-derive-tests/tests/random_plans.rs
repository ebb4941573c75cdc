//! Requests drawn at build time by the test kit's seeded generator for every op, mode and
//! dtype family, kept when they lower and stay small; each is derived (build.rs), and the
//! derived kernel must give the reference's bits and the JIT's.

use kerfx::{Kernel, Options, Tensor};
use kerfx_derive_tests::check_against_reference;

/// The kernel derived from request `index` of `seed`'s sequence, on pattern data.
fn check(kernel: &dyn Kernel, seed: u64, index: u64) {
    let request = kerfx_testkit::with_pattern_data(kerfx_testkit::random::nth_request(seed, index));
    let got = check_against_reference(kernel, &request);
    let jit = kerfx_jit::Jit::default();
    let data = kerfx::data_input(&request).unwrap();
    let jit_out = jit.compile(&request, &Options::STATIC).unwrap().run_tensor(data.map(Tensor::view)).unwrap();
    assert_eq!(got.bytes(), jit_out.bytes(), "derive and JIT differ on {request:?}");
}

include!(concat!(env!("OUT_DIR"), "/random_plans.rs"));
