//! Chains whose fused axes take index tables (wrap, reflect and symmetric under them),
//! expanded as `kerf expand` prints them (build.rs) and compiled here: each kernel, which
//! computes its tables at run time from their rules, gives the reference's bytes.

use kerfx::Kernel;

fn check(i: usize, kernel: &dyn Kernel) {
    let chain = &kerfx_testkit::plans::table_chains()[i];
    let lowered = kerfx::chain::lower_chain(chain).unwrap();
    assert!(
        lowered.fused().unwrap().axes.iter().any(|a| matches!(a.map, kerfx_ir::map::DigitMap::Table(_))),
        "chain {i} takes no table:\n{}",
        lowered.fused().unwrap()
    );
    let expected = kerfx::chain::run_chain_reference(chain, false).unwrap();
    let input = kerfx::chain::chain_input(chain).unwrap();
    let got = kernel.run_tensor(input.map(kerfx::Tensor::view)).unwrap();
    assert_eq!(got.shape(), expected.shape(), "chain {i}");
    assert_eq!(got.bytes(), expected.bytes(), "chain {i}");
}

/// The expansions, as printed: their SAFETY notes are doc lines of `__kerf_loops` (the
/// comments inside the derive's tokens do not survive printing); the tests run them
/// through `Kernel`, not their typed `run`.
#[allow(clippy::undocumented_unsafe_blocks, dead_code)]
mod expanded {
    use super::check;
    include!(concat!(env!("OUT_DIR"), "/table_chains.rs"));
}
