//! Concurrency: many threads run one kernel at once on their own buffers; one plan asked
//! for by many threads at once compiles once (every caller gets the same kernel); dynamic
//! kernels of one kind share one compiled code; kernels outlive their JIT and its cache.

use kerfx_ir::{DType, Kernel, Plan, Request, Tensor};
use kerfx_jit::{Jit, JitKernel, JitSettings, Options};
use kerfx_reliability::{Flush, GuardedBuf, Rng, random_input, reference_bytes};
use std::sync::{Arc, Barrier};

const THREADS: usize = 8;

fn reflect_request() -> Request {
    Request::new("tensorrt.slice")
        .input_meta("input", DType::F32, &[64, 48])
        .attr("start", [-70, 100])
        .attr("size", [150, 130])
        .attr("stride", [1, -3])
        .attr("mode", "reflect")
}

/// Each thread runs the shared kernel many times on its own input, in guarded buffers.
fn hammer(kernel: &Arc<JitKernel>, plan: &Plan, rounds: usize) {
    let barrier = Barrier::new(THREADS);
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (kernel, barrier) = (kernel.clone(), &barrier);
            s.spawn(move || {
                let mut rng = Rng::new(1000 + t as u64);
                let bytes = random_input(&mut rng, plan.dtype(), plan.input_shape().unwrap());
                let expected = reference_bytes(plan, Some(&bytes)).unwrap();
                let flush = if t % 2 == 0 { Flush::End } else { Flush::Start };
                let input = GuardedBuf::from_bytes(&bytes, flush);
                let mut out = GuardedBuf::new(expected.len(), flush);
                barrier.wait();
                for round in 0..rounds {
                    out.as_mut_slice().fill(round as u8);
                    kernel.run_bytes(Some(input.as_slice()), out.as_mut_slice()).unwrap();
                    assert!(out.as_slice() == expected, "thread {t} round {round}: wrong output");
                }
                assert!(out.canary_intact() && input.canary_intact());
            });
        }
    });
}

#[test]
fn many_threads_run_one_static_kernel_at_once() {
    let jit = Jit::default();
    let req = reflect_request();
    let kernel = jit.compile(&req, &Options::STATIC).unwrap();
    hammer(&kernel, &kerfx_ir::lower(&req).unwrap(), 200);
}

#[test]
fn many_threads_run_one_dynamic_kernel_at_once() {
    let jit = Jit::default();
    let req = reflect_request();
    let kernel = jit.compile(&req, &Options::DYNAMIC).unwrap();
    hammer(&kernel, &kerfx_ir::lower(&req).unwrap(), 200);
}

#[test]
fn many_threads_run_one_internally_threaded_kernel_at_once() {
    // Large enough (4 MiB of output) that each call splits over the JIT's own 2 threads.
    let jit = Jit::new(JitSettings { threads: 2, cache_capacity: 8 }).unwrap();
    let req = Request::new("tensorrt.slice")
        .input_meta("input", DType::I8, &[700, 1000])
        .attr("start", [-300, 999])
        .attr("size", [2048, 2048])
        .attr("stride", [1, -1])
        .attr("mode", "wrap");
    let kernel = jit.compile(&req, &Options::STATIC).unwrap();
    hammer(&kernel, &kerfx_ir::lower(&req).unwrap(), 3);
}

#[test]
fn one_plan_asked_for_concurrently_compiles_once() {
    for round in 0..20 {
        let jit = Jit::default();
        let req = reflect_request().attr("start", [-70 - round, 100]);
        let barrier = Barrier::new(THREADS);
        let kernels: Vec<Arc<JitKernel>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..THREADS)
                .map(|_| {
                    s.spawn(|| {
                        barrier.wait();
                        jit.compile(&req, &Options::STATIC).unwrap()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        // One compile: every caller got the one kernel the cache made (a second compile
        // would have produced a second kernel).
        assert!(kernels.iter().all(|k| Arc::ptr_eq(k, &kernels[0])), "round {round}: several kernels");
        assert_eq!(jit.cached(), (1, 0));
    }
}

#[test]
fn dynamic_kernels_of_one_kind_share_one_compiled_code_across_threads() {
    let jit = Jit::default();
    let barrier = Barrier::new(THREADS);
    let kernels: Vec<(Arc<JitKernel>, Request)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS as i64)
            .map(|t| {
                let (jit, barrier) = (&jit, &barrier);
                s.spawn(move || {
                    // Different plans, same op, mode, dtype and rank.
                    let req = reflect_request().attr("start", [-t, 3 * t]).attr("size", [10 + t, 20]);
                    barrier.wait();
                    (jit.compile(&req, &Options::DYNAMIC).unwrap(), req)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(jit.cached(), (0, 1), "one dynamic code for one kind");
    // The code's text is one allocation shared by every kernel of the kind.
    let clif = kernels[0].0.clif().as_ptr();
    assert!(kernels.iter().all(|(k, _)| k.clif().as_ptr() == clif));
    let mut rng = Rng::new(5);
    let bytes = random_input(&mut rng, DType::F32, &[64, 48]);
    let input = Tensor::from_bytes(DType::F32, &[64, 48], &bytes).unwrap();
    for (k, req) in &kernels {
        let plan = kerfx_ir::lower(req).unwrap();
        assert_eq!(
            k.run_tensor(Some(input.view())).unwrap(),
            kerfx_ir::reference::evaluate(&plan, Some(input.view())).unwrap()
        );
    }
}

#[test]
fn kernels_outlive_their_jit() {
    let req = reflect_request();
    let (stat, dynk) = {
        let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 1 }).unwrap();
        let s = jit.compile(&req, &Options::STATIC).unwrap();
        let d = jit.compile(&req, &Options::DYNAMIC).unwrap();
        // Push both out of the one-entry caches.
        jit.compile(&reflect_request().attr("size", [1, 1]), &Options::STATIC).unwrap();
        jit.compile(&reflect_request().attr("mode", "wrap"), &Options::DYNAMIC).unwrap();
        (s, d)
    };
    let plan = kerfx_ir::lower(&req).unwrap();
    hammer(&stat, &plan, 5);
    hammer(&dynk, &plan, 5);
}
