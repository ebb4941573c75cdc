//! Chains in the facade: a chain of requests lowered step by step, composed into as few
//! fused kernels as its reshapes allow (one, for almost every chain), and run fused or
//! step by step (the comparison every test makes).

use crate::{DType, Error, Jit, Kernel, Map, Options, Plan, Tensor, data_input};
pub use kerfx_ir::chain::ChainRequest;
/// A valid request no single plan expresses, as the chain that runs it (see
/// [`kerfx_ir::frontend::as_chain`]); [`crate::run_jit`] and [`crate::run_reference`] run it so.
pub use kerfx_ir::frontend::as_chain;
pub use kerfx_ir::map::{Head, Segment};

/// A chain lowered step by step ([`kerfx_ir::chain::lower_chain`]) and composed into
/// segments ([`kerfx_ir::map::compose_segments`]).
#[derive(Clone, Debug)]
pub struct LoweredChain {
    /// One per step.
    pub plans: Vec<Plan>,
    /// The fused maps, in order: one unless a reshape does not line up with the steps
    /// around it.
    pub segments: Vec<Segment>,
}

impl LoweredChain {
    /// The chain as one fused map, or an error naming the step where it is cut.
    pub fn fused(&self) -> Result<&Map, Error> {
        match self.segments.as_slice() {
            [one] => Ok(&one.fused),
            [first, ..] => Err(Error::Invalid {
                what: format!(
                    "this chain fuses into {} kernels, not one: step {} reads its input in a shape whose axes do not line up with the steps before it",
                    self.segments.len(),
                    first.steps.end + 1
                ),
            }),
            [] => Err(Error::Invalid { what: "a chain has at least one step".into() }),
        }
    }
}

/// Validate and lower every step on its own input, and compose the steps. Errors name
/// the step.
pub fn lower_chain(chain: &ChainRequest) -> Result<LoweredChain, Error> {
    let plans = kerfx_ir::chain::lower_chain(chain)?;
    let segments = kerfx_ir::map::compose_segments(&plans)?;
    Ok(LoweredChain { plans, segments })
}

/// The data input of the chain's first step, with values; `None` when it is a fill.
pub fn chain_input(chain: &ChainRequest) -> Result<Option<&Tensor>, Error> {
    let first = chain.steps.first().ok_or_else(|| Error::Invalid { what: "a chain has at least one step".into() })?;
    data_input(first).map_err(|e| Error::Step { step: 1, op: first.op.clone(), source: Box::new(e) })
}

/// Run a chain on the reference interpreter: the composed maps evaluated element by
/// element, or with `fused` false the steps one by one (the oracle).
pub fn run_chain_reference(chain: &ChainRequest, fused: bool) -> Result<Tensor, Error> {
    let lowered = lower_chain(chain)?;
    let input = chain_input(chain)?.map(Tensor::view);
    if fused {
        kerfx_ir::map::evaluate_segments(&lowered.segments, input)
    } else {
        kerfx_ir::chain::evaluate_unfused(&lowered.plans, input)
    }
}

/// Run a chain on the JIT: fused, one kernel ([`Jit::compile`] of the fused chain; with
/// `dynamic` the chain's nest as the arguments of a dynamic kernel), or with `fused` false
/// (or for a chain of strings, which the JIT, moving bytes, runs as slices of fixed-width
/// elements or indices) one kernel per step, static or dynamic.
pub fn run_chain_jit(jit: &Jit, chain: &ChainRequest, fused: bool, dynamic: bool) -> Result<Tensor, Error> {
    let lowered = lower_chain(chain)?;
    let input = chain_input(chain)?;
    if !fused {
        return run_steps_jit(jit, &lowered.plans, input, dynamic);
    }
    // Each segment one kernel, reading the one before's output.
    let mut out: Option<Tensor> = None;
    for s in &lowered.segments {
        let data = out.as_ref().or(input);
        out = Some(if s.fused.dtype == DType::String {
            // Strings: the segment's steps one by one.
            run_steps_jit(jit, &lowered.plans[s.steps.clone()], data, dynamic)?
        } else {
            jit.compile(&s.fused, &Options::dynamic(dynamic))?.run_tensor(data.map(Tensor::view))?
        });
    }
    out.ok_or_else(|| Error::Invalid { what: "a chain has at least one step".into() })
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
/// step: strings).
pub fn fuses_on_jit(fused: &Map) -> Result<bool, Error> {
    fused.validate()?;
    Ok(fused.dtype != DType::String)
}
