//! Chains: requests run one after another, each step reading the previous step's output
//! as its data input; [`crate::map::compose`] makes them one map.
//!
//! Lowering ([`lower_chain`]) validates each step exactly as if it ran alone on its
//! input (dtype and shape of the previous output), so a chain errs where the unfused run
//! would; the error names the step ([`Error::Step`]).

use crate::error::Error;
use crate::frontend;
use crate::plan::Plan;
use crate::request::{InputArg, Request};
use crate::tensor::{Tensor, TensorView};

/// A chain: its steps in order. The first names its data input (unless it is a fill);
/// every later step reads the previous step's output and names no data input.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChainRequest {
    /// The requests, run in this order.
    pub steps: Vec<Request>,
}

/// The name of an op's data input (the tensor a slice reads): the spec's first input
/// that may have any rank. `None` for ops that read no tensor (fills).
pub fn data_input_name(spec: &kerfx_spec::OpSpec) -> Option<&str> {
    spec.data_input().map(|i| i.name.as_str())
}

fn at_step(step: usize, op: &str) -> impl Fn(Error) -> Error + '_ {
    move |e| Error::Step { step, op: op.to_string(), source: Box::new(e) }
}

/// Validate and lower every step on its own input: the first as given, each later one
/// with its data input replaced by the previous step's output (dtype and shape). Errors
/// name the step (from 1).
pub fn lower_chain(chain: &ChainRequest) -> Result<Vec<Plan>, Error> {
    if chain.steps.is_empty() {
        return Err(Error::Invalid { what: "a chain has at least one step".into() });
    }
    let mut plans: Vec<Plan> = Vec::with_capacity(chain.steps.len());
    for (k, step) in chain.steps.iter().enumerate() {
        let wrap = at_step(k + 1, &step.op);
        let plan = match plans.last() {
            None => frontend::lower(step).map_err(&wrap)?,
            Some(prev) => {
                let spec = frontend::spec(&step.op).map_err(&wrap)?;
                let Some(name) = data_input_name(spec) else {
                    return Err(wrap(Error::Invalid {
                        what: format!("{} reads no data input: only the first step of a chain may be a fill", step.op),
                    }));
                };
                if step.inputs.contains_key(name) {
                    return Err(wrap(Error::Invalid {
                        what: format!(
                            "input `{name}` is given, but a step after the first reads the previous step's output as its data input"
                        ),
                    }));
                }
                let mut request = step.clone();
                let data = InputArg::Meta { dtype: prev.dtype(), shape: prev.output_shape().to_vec() };
                request.inputs.insert(name.to_string(), data);
                frontend::lower(&request).map_err(&wrap)?
            }
        };
        plans.push(plan);
    }
    Ok(plans)
}

/// Run the steps one by one with the reference interpreter: the oracle of every composed map.
pub fn evaluate_unfused(plans: &[Plan], input: Option<TensorView<'_>>) -> Result<Tensor, Error> {
    let mut out: Option<Tensor> = None;
    for (k, plan) in plans.iter().enumerate() {
        let data = match &out {
            Some(t) => Some(t.view()),
            None => input,
        };
        out = Some(crate::reference::evaluate(plan, data).map_err(|e| Error::Step {
            step: k + 1,
            op: "reference".into(),
            source: Box::new(e),
        })?);
    }
    out.ok_or_else(|| Error::Invalid { what: "a chain has at least one step".into() })
}
