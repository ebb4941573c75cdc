//! Requests drawn at build time by a fixed-seed generator (build.rs) for every slice op,
//! mode and dtype family, kept when the frontend accepts them; each is derived, and the
//! derived kernel must give the reference's bits and the JIT's.

use kerf::{Kernel, Request, Tensor};
use kerf_derive_tests::{V, check_against_reference, request};

fn check(kernel: &dyn Kernel, request: &Request) {
    let got = check_against_reference(kernel, request);
    let jit = kerf_jit::Jit::default();
    let data = kerf::data_input(request).unwrap();
    let jit_out = jit.compile(request).unwrap().run_tensor(data.map(Tensor::view)).unwrap();
    assert_eq!(got.bytes(), jit_out.bytes(), "derive and JIT differ on {request:?}");
}

include!(concat!(env!("OUT_DIR"), "/random_plans.rs"));
