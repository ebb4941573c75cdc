//! Load and memory: one `Jit` with a cache of 1,000 kernels compiles many distinct plans
//! from 2 threads; resident memory stays bounded (the cache evicts, and evicted kernels'
//! code is freed), while kernels a caller still holds keep working after eviction.
//!
//! The count defaults to 20,000 compiles (about 16 s on the 2-core CI machine);
//! `KERF_LOAD_COMPILES=N` sets it, `KERF_LOAD_SAMPLES=1` prints RSS every 5,000 compiles.
//! The full count of the issue:
//! `KERF_LOAD_COMPILES=100000 cargo test -p kerfx-reliability --test load_memory -- --nocapture`
//! (measured: 100,000 compiles in 81 s, 1,230/s; RSS 22 MiB before, 40 MiB after and at
//! its peak, flat over the last 50,000).
//! This file holds one test so that no other test's memory is counted.

use kerfx_ir::{BoundaryMode, DType, Kernel, Request, Tensor};
use kerfx_jit::{Jit, JitSettings, Options};
use kerfx_reliability::rss_bytes;
use std::sync::Arc;
use std::time::Instant;

const CAPACITY: usize = 1000;
const MIB: u64 = 1 << 20;

/// The i-th distinct plan: a wrap slice of a 1-D f32 input whose start, size and stride
/// vary with i (every i gives another plan, so every call compiles).
fn plan_request(i: u64) -> Request {
    // tensorrt.slice's modes but strict_bounds (these starts read outside the input).
    let modes: Vec<BoundaryMode> = kerfx_testkit::boundary_modes("tensorrt.slice", "mode")
        .into_iter()
        .filter(|&m| m != BoundaryMode::StrictBounds)
        .collect();
    Request::new("tensorrt.slice")
        .input_meta("input", DType::F32, &[64])
        .attr("start", [-((i / 4) as i64)])
        .attr("size", [96])
        .attr("stride", [1 + (i % 3) as i64])
        .attr("mode", modes[(i % modes.len() as u64) as usize].name())
}

fn check(kernel: &dyn Kernel, request: &Request) {
    let values: Vec<u8> = (0..64).flat_map(|v| (v as f32 * 0.5).to_le_bytes()).collect();
    let input = Tensor::from_bytes(DType::F32, &[64], &values).unwrap();
    let plan = kerfx_ir::lower(request).unwrap();
    let expected = kerfx_ir::reference::evaluate(&plan, Some(input.view())).unwrap();
    let out = kernel.run_tensor(Some(input.view())).unwrap();
    assert_eq!(out, expected, "a held kernel gives the reference's output");
}

#[test]
fn a_bounded_cache_keeps_memory_bounded_under_many_distinct_compiles() {
    let total: u64 = std::env::var("KERF_LOAD_COMPILES").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    let jit = Arc::new(Jit::new(JitSettings { threads: 1, cache_capacity: CAPACITY }).unwrap());

    // Warm up: fill the cache once, so the baseline includes a full cache.
    let start = Instant::now();
    let held_requests: Vec<Request> = (0..8).map(|i| plan_request(i * 37)).collect();
    let held: Vec<_> = held_requests.iter().map(|r| jit.compile(r, &Options::STATIC).unwrap()).collect();
    for i in 0..2 * CAPACITY as u64 {
        jit.compile(&plan_request(1_000_000_000 + i), &Options::STATIC).unwrap();
    }
    let rss_before = rss_bytes();

    let per_thread = total / 2;
    let samples: Vec<Vec<u64>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2u64)
            .map(|t| {
                let jit = jit.clone();
                s.spawn(move || {
                    let mut samples = Vec::new();
                    for n in 0..per_thread {
                        // Distinct across threads: even and odd plan numbers.
                        let k = jit.compile(&plan_request(2 * n + t), &Options::STATIC).unwrap();
                        assert_eq!(k.output_shape(), &[96]);
                        if n % 5000 == 4999 {
                            samples.push(rss_bytes());
                        }
                    }
                    samples
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let rss_after = rss_bytes();
    if std::env::var_os("KERF_LOAD_SAMPLES").is_some() {
        for (t, s) in samples.iter().enumerate() {
            eprintln!("thread {t} RSS every 5000 compiles (MiB): {:?}", s.iter().map(|b| b / MIB).collect::<Vec<_>>());
        }
    }
    let peak = samples.iter().flatten().copied().max().unwrap_or(rss_after).max(rss_after);
    let elapsed = start.elapsed();

    let (cached, _) = jit.cached();
    assert!(cached <= CAPACITY, "the cache holds {cached} kernels, more than its capacity {CAPACITY}");
    // Kernels compiled first have long been evicted; the caller's copies still run.
    for (k, r) in held.iter().zip(&held_requests) {
        check(k.as_ref(), r);
    }
    eprintln!(
        "load: {} compiles ({} warm-up) from 2 threads in {:.1?} ({:.0}/s); cache {cached}/{CAPACITY}; \
         RSS before {} MiB, after {} MiB, peak {} MiB",
        per_thread * 2,
        2 * CAPACITY + held.len(),
        elapsed,
        (per_thread * 2) as f64 / elapsed.as_secs_f64(),
        rss_before / MIB,
        rss_after / MIB,
        peak / MIB,
    );
    // A full cache was already resident at the baseline: growth beyond it means a leak.
    // (Each kernel's code and module take a few pages; 100,000 leaked kernels would be
    // hundreds of MiB, 64 MiB is the allocator's slack plus sampling noise.)
    assert!(
        peak <= rss_before + 64 * MIB,
        "RSS grew from {} MiB to a peak of {} MiB over {} compiles",
        rss_before / MIB,
        peak / MIB,
        per_thread * 2
    );
}
