//! kerf compiles tensor data-movement ops — slice with boundary modes, strided slice,
//! fill — into loops specialized for one shape, stride, mode and dtype.
//!
//! This crate is the facade users depend on. It re-exports the core ([`Request`],
//! [`lower`] to a [`Plan`], the [`reference`] interpreter, the [`Kernel`] trait) and the
//! Cranelift JIT ([`Jit`], [`JitKernel`]), and adds file formats: [`npy`] for arrays and
//! [`request_file`] for request TOML; with the `ndarray` feature, conversions between
//! `ndarray` arrays and [`Tensor`]s.
//!
//! ```
//! use kerf::{DType, Jit, Kernel, Request, Tensor};
//!
//! // The top-left 2x2 of a 3x3 arange: compile once, run on caller-owned buffers.
//! let jit = Jit::default();
//! let request = Request::new("tensorrt.slice")
//!     .input_meta("input", DType::I32, &[3, 3])
//!     .attr("start", [0, 0])
//!     .attr("size", [2, 2])
//!     .attr("stride", [1, 1]);
//! let kernel = jit.compile(&request).unwrap();
//! let input: Vec<u8> = (0..9).flat_map(|v: i32| v.to_le_bytes()).collect();
//! let mut output = [0u8; 16];
//! kernel.run_bytes(Some(&input), &mut output).unwrap(); // no allocation
//! assert_eq!(output.chunks(4).map(|b| b[0]).collect::<Vec<_>>(), [0, 1, 3, 4]);
//!
//! // The same through the reference interpreter, on a tensor with values.
//! let request = request.input("input", Tensor::from_bytes(DType::I32, &[3, 3], &input).unwrap());
//! let out = kerf::run_reference(&request).unwrap();
//! assert_eq!(kerf::display::format_values(&out), "[[0, 1],\n [3, 4]]");
//! assert_eq!(kerf::run_jit(&jit, &request, false).unwrap(), out);
//! ```

pub mod display;
mod error;
#[cfg(feature = "ndarray")]
pub mod ndarray;
pub mod npy;
pub mod request_file;

pub use error::FileError;
/// Items the derive's generated code refers to: the random fill formulas, and the
/// element types of f16/bf16 and complex kernels.
pub use half;
/// `#[derive(kerf::Kernel)]`: a kernel specialized at compile time (the derive macro
/// shares its name with the [`Kernel`] trait it implements).
pub use kerf_derive::Kernel;
pub use kerf_ir::random;
pub use kerf_ir::{
    AttrValue, AxisRead, BoundaryMode, DType, Error, FillKind, FillPlan, InputArg, Kernel, Linspace, Plan, Request,
    SlicePlan, Tensor, TensorView, lower, reference,
};
pub use kerf_jit::{Jit, JitKernel, JitSettings};
/// The op specs (names, types, defaults, rules, examples), as loaded from `specs/`.
pub use kerf_spec as spec;
pub use num_complex;

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

/// Compile a request with the JIT (the static kernel, or with `dynamic` the kernel
/// specialized on op, mode, dtype and rank only) and run it on the request's data input.
/// String tensors are not plain memory: the JIT runs the same plan on u64 element
/// indices, and the strings are then cloned by index (see [`run_jit_strings`]).
pub fn run_jit(jit: &Jit, request: &Request, dynamic: bool) -> Result<Tensor, Error> {
    let plan = lower(request)?;
    if plan.dtype() == DType::String {
        let data =
            data_input(request)?.ok_or_else(|| Error::Invalid { what: "a string slice needs its data".into() })?;
        return run_jit_strings(jit, &plan, data, dynamic);
    }
    let kernel = if dynamic { jit.compile_dynamic_plan(&plan)? } else { jit.compile_plan(&plan)? };
    let data = match kernel.plan() {
        Plan::Slice(_) => data_input(request)?,
        Plan::Fill(_) => None,
    };
    kernel.run_tensor(data.map(Tensor::view))
}

/// A slice of strings through the JIT: the plan is compiled for u64 elements and run on
/// the input's element indices 0..n, giving each output element the index of the string
/// it copies, or [`NO_STRING`] where it holds the fill value (a string plan's fill is the
/// empty string). Strings never leave Rust, and the loops are the JIT's own.
pub fn run_jit_strings(jit: &Jit, plan: &Plan, data: &Tensor, dynamic: bool) -> Result<Tensor, Error> {
    let Plan::Slice(slice) = plan else {
        return Err(Error::Invalid { what: "only slices move strings".into() });
    };
    let strings = data.strings().ok_or_else(|| Error::Invalid { what: "the data input holds no strings".into() })?;
    let fill_bits = if slice.mode == BoundaryMode::Fill { NO_STRING as u128 } else { 0 };
    let index_plan = Plan::Slice(SlicePlan { dtype: DType::U64, fill_bits, ..slice.clone() });
    let kernel = if dynamic { jit.compile_dynamic_plan(&index_plan)? } else { jit.compile_plan(&index_plan)? };
    let indices: Vec<u8> = (0..strings.len() as u64).flat_map(u64::to_le_bytes).collect();
    let indices = Tensor::from_bytes(DType::U64, data.shape(), &indices)?;
    let picked = kernel.run_tensor(Some(indices.view()))?;
    let out: Vec<String> = (0..picked.len())
        .map(|i| {
            if picked.element_bits(i) == Some(NO_STRING as u128) {
                return Ok(String::new());
            }
            let at = picked.element_bits(i).and_then(|b| usize::try_from(b).ok());
            at.and_then(|at| strings.get(at)).cloned().ok_or_else(|| Error::Invalid {
                what: format!("the JIT produced no valid string index for output element {i}"),
            })
        })
        .collect::<Result<_, Error>>()?;
    Tensor::from_strings(&slice.output_shape, out)
}

/// The index [`run_jit_strings`] gives the fill value's positions: no string has it (a
/// tensor of 2^64 - 1 strings cannot be allocated).
pub const NO_STRING: u64 = u64::MAX;

/// The reference interpreter behind the [`Kernel`] trait, so it can stand wherever a
/// compiled kernel does (benchmarks, differential tests). Slow by design.
#[derive(Clone, Debug)]
pub struct ReferenceKernel {
    plan: Plan,
}

impl ReferenceKernel {
    /// Lower a request (its data input may be given by dtype and shape only).
    pub fn new(request: &Request) -> Result<ReferenceKernel, Error> {
        Ok(ReferenceKernel { plan: lower(request)? })
    }
    pub fn from_plan(plan: Plan) -> ReferenceKernel {
        ReferenceKernel { plan }
    }
    pub fn plan(&self) -> &Plan {
        &self.plan
    }
}

impl Kernel for ReferenceKernel {
    fn dtype(&self) -> DType {
        self.plan.dtype()
    }
    fn input_shape(&self) -> Option<&[u64]> {
        self.plan.input_shape()
    }
    fn output_shape(&self) -> &[u64] {
        self.plan.output_shape()
    }
    fn run_bytes(&self, input: Option<&[u8]>, output: &mut [u8]) -> Result<(), Error> {
        let view = match (self.input_shape(), input) {
            (Some(shape), Some(bytes)) => {
                Some(TensorView { dtype: self.dtype(), shape, data: kerf_ir::tensor::ViewData::Bytes(bytes) })
            }
            (Some(_), None) => {
                return Err(Error::Invalid { what: "a slice kernel needs its input buffer".into() });
            }
            (None, _) => None,
        };
        if let (Some(v), Some(bytes)) = (&view, input) {
            let expected = self.dtype().buffer_bytes(kerf_ir::tensor::volume(v.shape).unwrap_or(u64::MAX));
            if expected != Some(bytes.len()) {
                return Err(Error::BufferLength {
                    what: "kernel input".into(),
                    expected: expected.unwrap_or(0),
                    found: bytes.len(),
                });
            }
        }
        let out = reference::evaluate(&self.plan, view)?;
        let bytes = out
            .bytes()
            .ok_or_else(|| Error::Invalid { what: "string tensors have no byte buffer; use run_reference".into() })?;
        if bytes.len() != output.len() {
            return Err(Error::BufferLength {
                what: "kernel output".into(),
                expected: bytes.len(),
                found: output.len(),
            });
        }
        output.copy_from_slice(bytes);
        Ok(())
    }
}

/// Spec examples as requests and expected tensors (for `kerf demo` and tests).
pub mod examples {
    use super::{AttrValue, DType, Request, Tensor};
    use crate::request_file::{input_from_value, tensor_from_values};
    use kerf_spec::{ExampleSpec, OpSpec};
    use std::path::Path;

    /// An example as a request (its inputs are inline: numbers, lists, tensor literals).
    pub fn request(spec: &OpSpec, ex: &ExampleSpec) -> Result<Request, String> {
        let mut req = Request::new(&spec.id);
        req.version = ex.version;
        for (name, v) in &ex.attributes {
            let value = AttrValue::from_toml(v).ok_or_else(|| format!("attribute `{name}` is not a value"))?;
            req.attributes.insert(name.clone(), value);
        }
        for (name, v) in &ex.inputs {
            let input = input_from_value(v, Path::new(".")).map_err(|e| format!("input `{name}`: {e}"))?;
            req.inputs.insert(name.clone(), input);
        }
        Ok(req)
    }

    /// The example's expected output, when it has one (else it expects an error).
    pub fn expected(ex: &ExampleSpec) -> Option<Result<Tensor, String>> {
        let lit = ex.expected.as_ref()?;
        Some(
            lit.dtype
                .parse::<DType>()
                .map_err(|e| e.to_string())
                .and_then(|d| tensor_from_values(d, &lit.shape, &lit.values)),
        )
    }
}

/// The README's Rust examples, compiled and run as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExamples;
