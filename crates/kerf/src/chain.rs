//! Chains in the facade: a chain of requests lowered step by step, composed into one
//! fused kernel, and run fused or step by step (the comparison every test makes).

use crate::{Error, Jit, Kernel, Plan, Tensor, data_input};
pub use kerf_ir::chain::{ChainRequest, FusedChain, Head};

/// A chain lowered step by step ([`kerf_ir::chain::lower_chain`]) and composed.
#[derive(Clone, Debug)]
pub struct LoweredChain {
    /// One per step.
    pub plans: Vec<Plan>,
    pub fused: FusedChain,
}

/// Validate and lower every step on its own input, and compose the steps. Errors name
/// the step.
pub fn lower_chain(chain: &ChainRequest) -> Result<LoweredChain, Error> {
    let plans = kerf_ir::chain::lower_chain(chain)?;
    let fused = kerf_ir::chain::compose(&plans)?;
    Ok(LoweredChain { plans, fused })
}

/// The data input of the chain's first step, with values; `None` when it is a fill.
pub fn chain_input(chain: &ChainRequest) -> Result<Option<&Tensor>, Error> {
    let first = chain.steps.first().ok_or_else(|| Error::Invalid { what: "a chain has at least one step".into() })?;
    data_input(first).map_err(|e| Error::Step { step: 1, op: first.op.clone(), source: Box::new(e) })
}

/// Run a chain on the reference interpreter: the fused map, or with `fused` false the
/// steps one by one (the oracle).
pub fn run_chain_reference(chain: &ChainRequest, fused: bool) -> Result<Tensor, Error> {
    let lowered = lower_chain(chain)?;
    let input = chain_input(chain)?.map(Tensor::view);
    if fused {
        kerf_ir::chain::evaluate_fused(&lowered.fused, input)
    } else {
        kerf_ir::chain::evaluate_unfused(&lowered.plans, input)
    }
}

/// Run a chain on the JIT: fused, one kernel ([`Jit::compile_chain`], or with `dynamic`
/// the chain's nest as the arguments of a dynamic kernel, [`Jit::compile_dynamic_chain`]),
/// or with `fused` false (or for a chain no single nest can say, see
/// [`kerf_ir::schedule::chain`]) one kernel per step, static or dynamic.
pub fn run_chain_jit(jit: &Jit, chain: &ChainRequest, fused: bool, dynamic: bool) -> Result<Tensor, Error> {
    let lowered = lower_chain(chain)?;
    let input = chain_input(chain)?;
    if fused {
        let kernel =
            if dynamic { jit.compile_dynamic_chain(&lowered.fused)? } else { jit.compile_chain(&lowered.fused)? };
        if let Some(kernel) = kernel {
            return kernel.run_tensor(input.map(Tensor::view));
        }
    }
    run_steps_jit(jit, &lowered.plans, input, dynamic)
}

/// The steps one by one on the JIT, each step's output the next one's input.
pub fn run_steps_jit(jit: &Jit, plans: &[Plan], input: Option<&Tensor>, dynamic: bool) -> Result<Tensor, Error> {
    let mut out: Option<Tensor> = None;
    for (k, plan) in plans.iter().enumerate() {
        let data = out.as_ref().or(input);
        let step = crate::run_plan_jit(jit, plan, data, dynamic).map_err(|e| Error::Step {
            step: k + 1,
            op: "jit".into(),
            source: Box::new(e),
        })?;
        out = Some(step);
    }
    out.ok_or_else(|| Error::Invalid { what: "a chain has at least one step".into() })
}

/// Whether a chain runs as one kernel on the JIT (else [`run_chain_jit`] runs it step by
/// step).
pub fn fuses_on_jit(fused: &FusedChain) -> Result<bool, Error> {
    Ok(kerf_ir::schedule::chain(fused)?.is_some())
}
