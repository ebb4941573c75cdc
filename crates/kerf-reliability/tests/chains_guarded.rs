//! Random chains (2–4 steps over every slice and pad op and mode, random dtypes and
//! shapes, fill heads) on every JIT backend with their buffers flush against PROT_NONE
//! pages: the fused kernel (where one loop nest says the chain), the steps' static
//! kernels and the steps' dynamic kernels, each equal byte for byte to the reference
//! running the steps one by one. Any access outside the buffers faults.
//!
//! `KERF_CHAIN_CASES=N` sets the number of chains (default 1500), `KERF_CHAIN_SEED` the
//! first seed.

use kerf::chain::ChainRequest;
use kerf_ir::chain;
use kerf_ir::{Kernel, Plan, Request, Tensor};
use kerf_jit::{Jit, JitSettings};
use kerf_reliability::*;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A random slice or pad request of any op and mode.
fn random_step(rng: &mut Rng) -> Request {
    match rng.below(7) {
        0 | 1 => random_trt_slice(rng),
        2 => random_onnx_slice(rng),
        3 => random_ov_slice(rng),
        4 => random_onnx_pad(rng),
        5 => random_ov_pad(rng),
        _ => random_ov_slice8(rng),
    }
}

/// A chain of 2–4 steps that lowers: a random head (a fill sometimes), then steps drawn
/// until one of the previous output's rank lowers on it (its data input removed: it
/// reads the previous output).
fn random_chain(rng: &mut Rng) -> Option<(ChainRequest, Vec<Plan>)> {
    let head = if rng.chance(15) { random_fill(rng) } else { random_step(rng) };
    let mut chain = ChainRequest { steps: vec![head] };
    let mut plans = chain::lower_chain(&chain).ok()?;
    let want = 2 + rng.below(3) as usize;
    while chain.steps.len() < want {
        let rank = plans.last()?.output_shape().len();
        let mut found = false;
        for _ in 0..200 {
            let mut step = random_step(rng);
            let spec = kerf::op_spec(&step.op).ok()?;
            let name = kerf::data_input_name(spec)?.to_string();
            if step.inputs.get(&name).is_none_or(|d| d.shape().len() != rank) {
                continue;
            }
            step.inputs.remove(&name);
            chain.steps.push(step);
            match chain::lower_chain(&chain) {
                Ok(p) => {
                    plans = p;
                    found = true;
                    break;
                }
                Err(_) => {
                    chain.steps.pop();
                }
            }
        }
        if !found {
            break;
        }
    }
    (chain.steps.len() >= 2).then_some((chain, plans))
}

#[test]
fn random_chains_fused_and_unfused_on_every_jit_backend_under_guard_pages() {
    let count = env_u64("KERF_CHAIN_CASES", 1500);
    let mut rng = Rng::new(env_u64("KERF_CHAIN_SEED", 0x6368_6169));
    let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 256 }).unwrap();
    let (mut chains, mut fused_runs, mut fill_heads, mut steps_total) = (0u64, 0u64, 0u64, 0u64);
    let mut failures: Vec<String> = Vec::new();
    while chains < count {
        let Some((chain, plans)) = random_chain(&mut rng) else { continue };
        chains += 1;
        steps_total += plans.len() as u64;
        let fused = chain::compose(&plans).expect("a lowered chain composes");
        let input = plans[0].input_shape().map(|s| random_input(&mut rng, plans[0].dtype(), s));
        fill_heads += u64::from(input.is_none());
        let input_tensor = match (plans[0].input_shape(), &input) {
            (Some(shape), Some(bytes)) => Some(Tensor::from_bytes(plans[0].dtype(), shape, bytes).unwrap()),
            _ => None,
        };
        let expected = chain::evaluate_unfused(&plans, input_tensor.as_ref().map(Tensor::view)).unwrap();
        let expected = expected.bytes().unwrap().to_vec();
        let fused_ref = chain::evaluate_fused(&fused, input_tensor.as_ref().map(Tensor::view)).unwrap();
        let what = || format!("{:?}\n{fused}", chain.steps.iter().map(|s| &s.op).collect::<Vec<_>>());
        if fused_ref.bytes() != Some(expected.as_slice()) {
            failures.push(format!("fused reference: {}", what()));
        }
        if let Some(k) = jit.compile_chain(&fused).unwrap_or_else(|e| panic!("compile_chain: {e}: {}", what())) {
            fused_runs += 1;
            if let Err(f) = run_guarded(k.as_ref(), input.as_deref(), &expected, &run_bytes) {
                failures.push(format!("fused jit: {}: {f:?}", what()));
            }
        }
        // Step by step, static and dynamic kernels, each step guarded.
        for dynamic in [false, true] {
            let mut data = input.clone();
            for (k, plan) in plans.iter().enumerate() {
                let step_expected = reference_bytes(plan, data.as_deref()).unwrap();
                let kernel = if dynamic { jit.compile_dynamic_plan(plan) } else { jit.compile_plan(plan) };
                let kernel = kernel.unwrap_or_else(|e| panic!("step {}: {e}: {}", k + 1, what()));
                if let Err(f) = run_guarded(kernel.as_ref(), data.as_deref(), &step_expected, &run_bytes) {
                    failures.push(format!("step {} (dynamic {dynamic}): {}: {f:?}", k + 1, what()));
                }
                let mut out = vec![0u8; step_expected.len()];
                kernel.run_bytes(data.as_deref(), &mut out).unwrap();
                data = Some(out);
            }
            if data.as_deref() != Some(expected.as_slice()) {
                failures.push(format!("unfused (dynamic {dynamic}): {}", what()));
            }
        }
    }
    eprintln!("{chains} chains, {steps_total} steps, {fill_heads} fill heads, {fused_runs} fused JIT kernels");
    assert!(failures.is_empty(), "{} failures, first:\n{}", failures.len(), failures[0]);
    // The generator must reach the fused kernels: most chains fuse.
    assert!(fused_runs * 2 > chains, "only {fused_runs} of {chains} chains fused");
    assert!(fill_heads * 40 > chains, "only {fill_heads} fill heads");
}
