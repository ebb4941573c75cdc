//! Differential findings of the fuzzer (target `differential`): plans on which a JIT kernel
//! disagreed with the reference. Each is checked on the static kernel, the dynamic kernel,
//! and a dynamic kernel compiled for another plan of its kind.

use kerfx_ir::{Kernel, Plan, Request};
use kerfx_jit::{Jit, Options, Views};
use kerfx_reliability::reference_bytes;

fn agree(req: &Request, other: &Request) {
    let plan: Plan = kerfx_ir::lower(req).unwrap();
    let expected = reference_bytes(&plan, None).unwrap();
    let jit = Jit::default();
    let mut out = vec![0u8; expected.len()];
    jit.compile(&plan, &Options::STATIC).unwrap().run_bytes(None, &mut out).unwrap();
    assert_eq!(out, expected, "static kernel: {plan}");
    out.fill(0);
    jit.compile(&plan, &Options::DYNAMIC).unwrap().run_bytes(None, &mut out).unwrap();
    assert_eq!(out, expected, "dynamic kernel: {plan}");
    out.fill(0);
    jit.compile(other, &Options::DYNAMIC).unwrap().run(&plan, Views::DENSE, None, &mut out).unwrap();
    assert_eq!(out, expected, "another plan's dynamic kernel: {plan}");
}

fn uniform(to_type: &str, n: i64, seed: i64) -> Request {
    Request::new("tensorrt.fill")
        .attr("dimensions", [n])
        .attr("operation", "random_uniform")
        .attr("to_type", to_type)
        .attr("alpha", 0.0)
        .attr("beta", 1.0)
        .attr("seed", seed)
}

/// crash-1a2633f9…: random_uniform to f16 of 24 elements, seed 0 — the JIT's element i
/// was the reference's element 4i.
#[test]
fn random_uniform_f16() {
    agree(&uniform("f16", 24, 0), &uniform("f16", 3, 9));
}
