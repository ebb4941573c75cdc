//! kerf compiles tensor data-movement ops — slice with boundary modes, strided slice,
//! fill — into loops specialized for one shape, stride, mode and dtype.
//!
//! This crate is the facade users depend on. It re-exports the core ([`Request`],
//! [`lower`] to a [`Plan`], the [`reference`] interpreter, the [`Kernel`] trait) and adds
//! file formats: [`npy`] for arrays and [`request_file`] for request TOML; with the
//! `ndarray` feature, conversions between `ndarray` arrays and [`Tensor`]s.
//!
//! ```
//! use kerf::{DType, Request, Tensor};
//!
//! // The top-left 2x2 of a 3x3 arange, by the reference interpreter.
//! let bytes: Vec<u8> = (0..9).flat_map(|v: i32| v.to_le_bytes()).collect();
//! let input = Tensor::from_bytes(DType::I32, &[3, 3], &bytes).unwrap();
//! let request = Request::new("tensorrt.slice")
//!     .attr("start", [0, 0])
//!     .attr("size", [2, 2])
//!     .attr("stride", [1, 1])
//!     .input("input", input);
//! let out = kerf::run_reference(&request).unwrap();
//! assert_eq!(out.shape(), &[2, 2]);
//! assert_eq!(kerf::display::format_values(&out), "[[0, 1],\n [3, 4]]");
//! ```

pub mod display;
mod error;
#[cfg(feature = "ndarray")]
pub mod ndarray;
pub mod npy;
pub mod request_file;

pub use error::FileError;
pub use kerf_ir::{
    AttrValue, AxisRead, BoundaryMode, DType, Error, FillKind, FillPlan, InputArg, Kernel, Linspace, Plan, Request,
    SlicePlan, Tensor, TensorView, lower, reference,
};
/// The op specs (names, types, defaults, rules, examples), as loaded from `specs/`.
pub use kerf_spec as spec;

/// The name of an op's data input (the tensor a slice reads): the spec's first input
/// that may have any rank. `None` for ops that read no tensor (fills).
pub fn data_input_name(spec: &kerf_spec::OpSpec) -> Option<&str> {
    spec.inputs.iter().filter(|i| i.rank == kerf_spec::InputRank::Any).min_by_key(|i| i.index).map(|i| i.name.as_str())
}

/// The spec of an op by id.
pub fn op_spec(op: &str) -> Result<&'static kerf_spec::OpSpec, Error> {
    kerf_ir::frontend::spec(op)
}

/// The data input of a request (for slices), as a tensor with values. `Ok(None)` for
/// ops that read no tensor; an error when the data input is given by dtype and shape only.
pub fn data_input(request: &Request) -> Result<Option<&Tensor>, Error> {
    let spec = op_spec(&request.op)?;
    let Some(name) = data_input_name(spec) else {
        return Ok(None);
    };
    match request.inputs.get(name) {
        None => Err(Error::MissingInput { op: request.op.clone(), name: name.to_string() }),
        Some(InputArg::Tensor(t)) => Ok(Some(t)),
        Some(InputArg::Meta { .. }) => Err(Error::Invalid {
            what: format!("{}: input `{name}` was given by dtype and shape only; running needs its values", request.op),
        }),
    }
}

/// Lower a request and evaluate it with the reference interpreter (the oracle).
pub fn run_reference(request: &Request) -> Result<Tensor, Error> {
    let plan = lower(request)?;
    let data = match &plan {
        Plan::Slice(_) => data_input(request)?,
        Plan::Fill(_) => None,
    };
    reference::evaluate(&plan, data.map(Tensor::view))
}
