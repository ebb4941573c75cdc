//! Random graphs (2–6 nodes of Split, Concat, Slice and the axis moves; fan-in and
//! fan-out; `kerfx_testkit::random::random_graph`) prepared into programs, every program
//! run on the JIT (static and dynamic) with each of its input and output buffers flush
//! against a PROT_NONE page (both ends), equal byte for byte to the program on the
//! reference; the whole graph fused equal to its nodes one by one. Any access outside the
//! buffers faults; the bytes around each buffer stay the canary.
//!
//! `KERF_GRAPH_GUARDED_CASES=N` sets the number of graphs (default 150).

use kerfx::graph::{Backend, Prepared, run_unfused_reference};
use kerfx_ir::Tensor;
use kerfx_jit::Jit;
use kerfx_reliability::*;
use kerfx_testkit::random::{Rng, random_graph};
use std::collections::BTreeMap;

#[test]
fn random_graph_programs_stay_inside_their_buffers() {
    let cases: usize = std::env::var("KERF_GRAPH_GUARDED_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(150);
    let jit = Jit::default();
    let mut rng = Rng::new(0x6a2d_0f5e);
    let mut programs_run = 0;
    for case in 0..cases {
        let nodes = 2 + rng.below(5) as usize;
        let (graph, inputs) = random_graph(&mut rng, nodes);
        let what = format!("case {case}");
        let prepared = Prepared::new(graph.clone()).unwrap_or_else(|e| panic!("{what}: {e}"));
        // Every value, computed the oracle's way, feeds the programs their inputs.
        let mut values: BTreeMap<String, Tensor> = prepared.graph().constants.clone();
        values.extend(inputs.clone());
        for (k, (group, program)) in prepared.groups().iter().zip(prepared.programs()).enumerate() {
            let Some(gp) = program else { continue };
            let ins: Vec<&Tensor> = gp.reads.iter().map(|v| &values[v]).collect();
            let views: Vec<_> = ins.iter().map(|t| t.view()).collect();
            let want = kerfx_ir::program::evaluate(&gp.program, &views).unwrap_or_else(|e| panic!("{what}: {e}"));
            if gp.program.dtype != kerfx_ir::DType::String {
                for dynamic in [false, true] {
                    let kernel = jit.compile_program(&gp.program, dynamic).unwrap_or_else(|e| panic!("{what}: {e}"));
                    for flush in Flush::BOTH {
                        let guarded_in: Vec<GuardedBuf> =
                            ins.iter().map(|t| GuardedBuf::from_bytes(t.bytes().unwrap_or_default(), flush)).collect();
                        let mut guarded_out: Vec<GuardedBuf> =
                            want.iter().map(|t| GuardedBuf::new(t.bytes().map_or(0, <[u8]>::len), flush)).collect();
                        let in_slices: Vec<&[u8]> = guarded_in.iter().map(GuardedBuf::as_slice).collect();
                        let mut out_slices: Vec<&mut [u8]> =
                            guarded_out.iter_mut().map(GuardedBuf::as_mut_slice).collect();
                        kernel
                            .run_buffers(&in_slices, &mut out_slices)
                            .unwrap_or_else(|e| panic!("{what}, program {k} ({:?}): {e}", group.nodes));
                        drop(out_slices);
                        for (o, (got, w)) in guarded_out.iter().zip(&want).enumerate() {
                            assert_eq!(
                                Some(got.as_slice()),
                                w.bytes(),
                                "{what}, program {k}, output {o}, dynamic {dynamic}, {flush:?}"
                            );
                            assert!(got.canary_intact(), "{what}, program {k}: bytes around output {o} written");
                        }
                        programs_run += 1;
                    }
                }
            }
            values.extend(gp.writes.iter().cloned().zip(want));
        }
        let fused = prepared.run(&inputs, Backend::Reference).unwrap_or_else(|e| panic!("{what}: {e}"));
        let unfused = run_unfused_reference(&graph, &inputs).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(fused, unfused, "{what}: fused differs from the nodes one by one");
    }
    assert!(programs_run >= cases, "only {programs_run} program runs in {cases} graphs");
}

/// `Prepared::runner` on the random graphs that run as one program: the graph inputs by
/// position (in reverse order of the graph's), each buffer flush against a guard page,
/// equal byte for byte to the nodes one by one; a runner of a graph of several programs,
/// of an input given twice or left out, and a call with a wrong count or length, are
/// refused with an error.
#[test]
fn runners_take_inputs_by_position_and_stay_inside_their_buffers() {
    let cases: usize = std::env::var("KERF_GRAPH_GUARDED_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(150);
    let jit = Jit::default();
    let mut rng = Rng::new(0x51_6e_3a);
    let (mut ran, mut refused) = (0, 0);
    for case in 0..cases {
        let nodes = 2 + rng.below(5) as usize;
        let (graph, inputs) = random_graph(&mut rng, nodes);
        let what = format!("case {case}");
        let prepared = std::sync::Arc::new(Prepared::new(graph.clone()).unwrap_or_else(|e| panic!("{what}: {e}")));
        let names: Vec<&str> = prepared.graph().inputs.iter().rev().map(|i| i.name.as_str()).collect();
        let dynamic = rng.below(2) == 1;
        let strings = prepared.programs().iter().flatten().any(|gp| gp.program.dtype == kerfx_ir::DType::String);
        let runner = match prepared.runner(&names, &jit, dynamic) {
            Ok(r) => r,
            Err(e) => {
                assert!(prepared.single_program().is_none() || strings, "{what}: a one-program graph refused: {e}");
                refused += 1;
                continue;
            }
        };
        assert!(prepared.single_program().is_some(), "{what}: a runner of several programs");
        if let Some((first, rest)) = names.split_first() {
            let twice: Vec<&str> = [*first, *first].into_iter().chain(rest.iter().copied()).collect();
            assert!(prepared.runner(&twice, &jit, dynamic).is_err(), "{what}: an input given twice");
            assert!(prepared.runner(rest, &jit, dynamic).is_err(), "{what}: an input left out");
        }
        let want = run_unfused_reference(&graph, &inputs).unwrap_or_else(|e| panic!("{what}: {e}"));
        for flush in Flush::BOTH {
            let guarded_in: Vec<GuardedBuf> =
                names.iter().map(|n| GuardedBuf::from_bytes(inputs[*n].bytes().unwrap_or_default(), flush)).collect();
            let mut guarded_out: Vec<GuardedBuf> =
                want.iter().map(|(_, t)| GuardedBuf::new(t.bytes().map_or(0, <[u8]>::len), flush)).collect();
            let in_slices: Vec<&[u8]> = guarded_in.iter().map(GuardedBuf::as_slice).collect();
            let mut out_slices: Vec<&mut [u8]> = guarded_out.iter_mut().map(GuardedBuf::as_mut_slice).collect();
            runner.run(&in_slices, &mut out_slices).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(
                runner.run(&in_slices[..in_slices.len().saturating_sub(1)], &mut out_slices).is_err()
                    || names.is_empty()
            );
            drop(out_slices);
            for (o, (got, (name, w))) in guarded_out.iter().zip(&want).enumerate() {
                assert_eq!(Some(got.as_slice()), w.bytes(), "{what}: output {o} (`{name}`), {flush:?}");
                assert!(got.canary_intact(), "{what}: bytes around output {o} written");
            }
            assert_eq!(runner.output_shapes().count(), want.len(), "{what}");
        }
        ran += 1;
    }
    // About one random graph in twenty runs as one program (150 by default: 7).
    assert!(cases < 50 || (ran >= 3 && refused > 0), "{ran} graphs ran through runners, {refused} refused, of {cases}");
}
