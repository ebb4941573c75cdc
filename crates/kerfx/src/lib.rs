//! kerf compiles the data-movement ops of ONNX, OpenVINO and TensorRT — slices, pads,
//! transposes, reshapes, gathers, concats, splits, fills — into loops specialized for one
//! shape, stride, mode and dtype.
//!
//! This crate is the facade users depend on. It re-exports the core ([`Request`],
//! [`lower`] to a [`Plan`], the [`reference`](mod@reference) interpreter, the [`Kernel`] trait) and the
//! Cranelift JIT ([`Jit`], [`JitKernel`]), and adds file formats: [`npy`] for arrays and
//! [`request_file`] for request TOML; with the `ndarray` feature, conversions between
//! `ndarray` arrays and [`Tensor`]s.
//!
//! ```
//! use kerfx::{DType, Jit, Kernel, Options, Request, Tensor};
//!
//! // The top-left 2x2 of a 3x3 arange: compile once, run on caller-owned buffers.
//! let jit = Jit::default();
//! let request = Request::new("tensorrt.slice")
//!     .input_meta("input", DType::I32, &[3, 3])
//!     .attr("start", [0, 0])
//!     .attr("size", [2, 2])
//!     .attr("stride", [1, 1]);
//! let kernel = jit.compile(&request, &Options::STATIC).unwrap();
//! let input: Vec<u8> = (0..9).flat_map(|v: i32| v.to_le_bytes()).collect();
//! let mut output = [0u8; 16];
//! kernel.run_bytes(Some(&input), &mut output).unwrap(); // no allocation
//! assert_eq!(output.chunks(4).map(|b| b[0]).collect::<Vec<_>>(), [0, 1, 3, 4]);
//!
//! // The same through the reference interpreter, on a tensor with values.
//! let request = request.input("input", Tensor::from_bytes(DType::I32, &[3, 3], &input).unwrap());
//! let out = kerfx::run_reference(&request).unwrap();
//! assert_eq!(kerfx::display::format_values(&out), "[[0, 1],\n [3, 4]]");
//! assert_eq!(kerfx::run_jit(&jit, &request, false).unwrap(), out);
//! ```

#![warn(missing_docs)]

pub mod display;
mod error;
mod file;
pub use file::file_kind;
#[cfg(feature = "jit")]
pub mod chain;
#[cfg(feature = "jit")]
pub mod graph;
#[cfg(feature = "ndarray")]
pub mod ndarray;
pub mod npy;
pub mod npz;
#[cfg(feature = "jit")]
pub mod strided;
/// The ONNX importer: a model's bytes as a [`kerfx_ir::graph::Graph`].
pub use kerfx_onnx as onnx;
pub mod request_file;

pub use error::FileError;
/// Items the derive's generated code refers to: the random fill formulas, and the
/// element types of f16/bf16 and complex kernels.
pub use half;
/// The Rust source `#[derive(kerfx::Kernel)]` expands to for a request (`kerf expand`).
pub use kerfx_codegen::{expand_map, expand_program, expand_request};
/// `#[derive(kerfx::Kernel)]`: a kernel specialized at compile time (the derive macro
/// shares its name with the [`Kernel`] trait it implements).
pub use kerfx_derive::Kernel;
pub use kerfx_ir::random;
/// The shared schedule (loop and fill nests) every backend emits from.
pub use kerfx_ir::schedule;
pub use kerfx_ir::schedule::Strided;
#[cfg(feature = "jit")]
use kerfx_ir::tensor;
pub use kerfx_ir::tensor::{Strings, ViewData, volume};
pub use kerfx_ir::{
    About, AttrValue, AxisRead, BoundaryMode, DType, Error, FillKind, FillPlan, Hint, InputArg, Kernel, Linspace, Map,
    Move, Plan, Program, Request, Step, Tensor, TensorView, Window, lower, lower_program, reference,
};
#[cfg(feature = "jit")]
pub use kerfx_jit::{
    IntoSource, Jit, JitKernel, JitSettings, MAX_THREADS, Options, ProgramKernel, ProgramViews, Source, Views,
};
/// The op specs (names, types, defaults, rules, examples), as loaded from `specs/`.
pub use kerfx_spec as spec;
pub use num_complex;

/// The name of an op's data input (the tensor a slice reads): the spec's first input
/// that may have any rank. `None` for ops that read no tensor (fills).
pub fn data_input_name(spec: &kerfx_spec::OpSpec) -> Option<&str> {
    spec.data_input().map(|i| i.name.as_str())
}

/// The spec of an op by id.
pub fn op_spec(op: &str) -> Result<&'static kerfx_spec::OpSpec, Error> {
    kerfx_ir::frontend::spec(op)
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
        Some(InputArg::List(_)) => Err(Error::Invalid {
            what: format!(
                "{}: input `{name}` is a list of tensors; the op runs as a program (run_outputs)",
                request.op
            ),
        }),
    }
}

/// Whether an op reads a variadic input or writes a variadic output (Concat, Split): it
/// lowers to a [`Program`] of several moves, never to one plan.
pub fn is_program_op(op: &str) -> Result<bool, Error> {
    let spec = op_spec(op)?;
    Ok(spec.is_program())
}

/// The tensors a request's program reads, in the program's order: the entries of a
/// variadic data input (Concat's `inputs`), else the data input (none for fills). An
/// error names an input given by dtype and shape only.
pub fn program_inputs(request: &Request) -> Result<Vec<&Tensor>, Error> {
    let spec = op_spec(&request.op)?;
    let Some(name) = data_input_name(spec) else {
        return Ok(Vec::new());
    };
    let meta = |what: String| Error::Invalid {
        what: format!("{}: {what} was given by dtype and shape only; running needs its values", request.op),
    };
    match request.inputs.get(name) {
        None => Err(Error::MissingInput { op: request.op.clone(), name: name.to_string() }),
        Some(InputArg::Tensor(t)) => Ok(vec![t]),
        Some(InputArg::Meta { .. }) => Err(meta(format!("input `{name}`"))),
        Some(InputArg::List(entries)) => entries
            .iter()
            .enumerate()
            .map(|(k, e)| e.tensor().ok_or_else(|| meta(format!("input `{name}[{k}]`"))))
            .collect(),
    }
}

/// Every output of a request, by the reference interpreter: a program's moves one by one
/// ([`kerfx_ir::program::evaluate`]) for ops over several inputs or outputs, the one
/// output of [`run_reference`] for the others.
pub fn run_reference_outputs(request: &Request) -> Result<Vec<Tensor>, Error> {
    if !is_program_op(&request.op)? {
        return Ok(vec![run_reference(request)?]);
    }
    let program = kerfx_ir::lower_program(request)?;
    let inputs = program_inputs(request)?;
    let views: Vec<TensorView<'_>> = inputs.iter().map(|t| t.view()).collect();
    kerfx_ir::program::evaluate(&program, &views)
}

/// The names of a request's `count` outputs, as files and Python name them: the spec's
/// output name, or `<name>_<i>` for entry i of a variadic output (`outputs_0`, ...).
pub fn output_names(request: &Request, count: usize) -> Result<Vec<String>, Error> {
    let spec = op_spec(&request.op)?;
    let outputs = spec.output_specs();
    Ok(match outputs.as_slice() {
        [one] if one.variadic => (0..count).map(|i| format!("{}_{i}", one.name)).collect(),
        _ => outputs.iter().take(count).map(|o| o.name.clone()).collect(),
    })
}

/// The one output of a program op, or an error naming how many it has.
fn only_output(op: &str, mut outputs: Vec<Tensor>) -> Result<Tensor, Error> {
    if outputs.len() == 1 {
        return Ok(outputs.remove(0));
    }
    Err(Error::Invalid {
        what: format!("{op} gives {} outputs here; run it with run_outputs (a list of tensors)", outputs.len()),
    })
}

/// Lower a request and evaluate it with the reference interpreter (the oracle).
pub fn run_reference(request: &Request) -> Result<Tensor, Error> {
    if is_program_op(&request.op)? {
        return only_output(&request.op, run_reference_outputs(request)?);
    }
    // A request no single plan expresses runs as its chain ([`kerfx_ir::frontend::as_chain`]).
    if let Some(chain) = kerfx_ir::frontend::as_chain(request)? {
        let plans = kerfx_ir::chain::lower_chain(&chain)?;
        return kerfx_ir::chain::evaluate_unfused(&plans, data_input(request)?.map(Tensor::view));
    }
    let plan = lower(request)?;
    let data = match &plan {
        Plan::Step(_) => data_input(request)?,
        Plan::Fill(_) => None,
    };
    reference::evaluate(&plan, data.map(Tensor::view))
}

#[cfg(feature = "jit")]
/// Compile a request with the JIT (the static kernel, or with `dynamic` the kernel
/// specialized on op, mode, dtype and rank only) and run it on the request's data input.
/// String tensors go through the JIT as fixed-width elements or element indices (see
/// [`run_jit_strings`]).
pub fn run_jit(jit: &Jit, request: &Request, dynamic: bool) -> Result<Tensor, Error> {
    if is_program_op(&request.op)? {
        return only_output(&request.op, run_jit_outputs(jit, request, dynamic)?);
    }
    // A request no single plan expresses runs as its chain, one kernel per segment.
    if let Some(chain) = kerfx_ir::frontend::as_chain(request)? {
        return chain::run_chain_jit(jit, &chain, true, dynamic);
    }
    let plan = lower(request)?;
    let data = match &plan {
        Plan::Step(_) => data_input(request)?,
        Plan::Fill(_) => None,
    };
    run_plan_jit(jit, &plan, data, dynamic)
}

#[cfg(feature = "jit")]
/// Every output of a request, through the JIT: [`run_program_jit`] for ops over several
/// inputs or outputs, the one output of [`run_jit`] for the others.
pub fn run_jit_outputs(jit: &Jit, request: &Request, dynamic: bool) -> Result<Vec<Tensor>, Error> {
    if !is_program_op(&request.op)? {
        return Ok(vec![run_jit(jit, request, dynamic)?]);
    }
    let program = kerfx_ir::lower_program(request)?;
    run_program_jit(jit, &program, &program_inputs(request)?, dynamic)
}

#[cfg(feature = "jit")]
/// A program through the JIT ([`Jit::compile_program`]: each move one kernel writing its
/// box in place). Strings move as [`run_jit_strings`] moves them, each move into a
/// tensor of its own then placed into its box.
pub fn run_program_jit(jit: &Jit, program: &Program, inputs: &[&Tensor], dynamic: bool) -> Result<Vec<Tensor>, Error> {
    let views: Vec<TensorView<'_>> = inputs.iter().map(|t| t.view()).collect();
    run_program_views(jit, program, &views, dynamic)
}

#[cfg(feature = "jit")]
/// [`run_program_jit`] on views of the inputs (bytes read in place).
pub fn run_program_views(
    jit: &Jit,
    program: &Program,
    inputs: &[TensorView<'_>],
    dynamic: bool,
) -> Result<Vec<Tensor>, Error> {
    kerfx_ir::program::check_inputs(program, inputs)?;
    if program.dtype != DType::String {
        return jit.compile_program(program, dynamic)?.run_tensors(inputs);
    }
    program.validate()?;
    let mut parts = Vec::with_capacity(program.moves.len());
    for (m, mv) in program.moves.iter().enumerate() {
        let data = mv.input.map(|i| inputs[i].to_tensor()).transpose()?;
        let data = data.ok_or_else(|| Error::Invalid { what: format!("program: move {m}: strings are not filled") })?;
        parts.push(chain::run_steps_jit(jit, &mv.steps, Some(&data), dynamic)?);
    }
    kerfx_ir::program::assemble(program, parts)
}

#[cfg(feature = "jit")]
/// [`run_jit`] for a lowered plan and its data input (`None` for fills).
pub fn run_plan_jit(jit: &Jit, plan: &Plan, data: Option<&Tensor>, dynamic: bool) -> Result<Tensor, Error> {
    if plan.dtype() == DType::String {
        let data = data.ok_or_else(|| Error::Invalid { what: "a string slice needs its data".into() })?;
        return run_jit_strings(jit, plan, data, dynamic);
    }
    let kernel = jit.compile(plan, &Options::dynamic(dynamic))?;
    kernel.run_tensor(data.map(Tensor::view))
}

/// A string slice as the JIT moves it (see [`run_jit_strings`]): the same slice on
/// `element`s — unsigned integers as wide as the strings, or the strings' indices — with
/// `fill_bits` in mode fill (the index no string has), 0 otherwise.
pub fn string_slice_as(slice: &Step, element: DType, fill_bits: u128) -> Plan {
    let fill_bits = if slice.mode == BoundaryMode::Fill { fill_bits } else { 0 };
    Plan::Step(Step { dtype: element, fill_bits, ..slice.clone() })
}

#[cfg(feature = "jit")]
/// A slice of strings through the JIT. Strings are stored `width` bytes each, NUL-padded
/// (see [`Strings`]): a width of 1, 2, 4 or 8 bytes moves as u8/u16/u32/u64 elements,
/// straight from the input's buffer into the output's (the fill value, the empty string,
/// is all zero bytes); any other width runs the plan on the element indices 0..n (u32, or
/// u64 past 2^32 − 1 elements), the fill value's positions getting the index type's
/// largest value, which no string has, and copies each picked string. Strings never
/// leave Rust, and the loops are the JIT's own.
pub fn run_jit_strings(jit: &Jit, plan: &Plan, data: &Tensor, dynamic: bool) -> Result<Tensor, Error> {
    let Plan::Step(slice) = plan else {
        return Err(Error::Invalid { what: "only slices move strings".into() });
    };
    let strings = data.strings().ok_or_else(|| Error::Invalid { what: "the data input holds no strings".into() })?;
    let width = strings.width();
    let out_len = usize::try_from(tensor::volume(&slice.output_shape).unwrap_or(u64::MAX))
        .map_err(|_| Error::TooLarge { what: format!("a string tensor of shape {:?}", slice.output_shape) })?;
    let too_large = || Error::TooLarge { what: format!("a string tensor of shape {:?}", slice.output_shape) };
    let compile = |dtype: DType, fill_bits: u128| {
        let p = string_slice_as(slice, dtype, fill_bits);
        jit.compile(&p, &Options::dynamic(dynamic))
    };
    let element = match width {
        1 => Some(DType::U8),
        2 => Some(DType::U16),
        4 => Some(DType::U32),
        8 => Some(DType::U64),
        _ => None,
    };
    let out = match element {
        Some(dtype) => {
            let mut bytes = Vec::new();
            let n = out_len.checked_mul(width).ok_or_else(too_large)?;
            bytes.try_reserve_exact(n).map_err(|_| too_large())?;
            bytes.resize(n, 0);
            compile(dtype, 0)?.run_bytes(Some(strings.bytes()), &mut bytes)?;
            Strings::from_padded(width, out_len, bytes)?
        }
        None => {
            let n = strings.len() as u64;
            let index = if n < u32::MAX as u64 { DType::U32 } else { DType::U64 };
            let no_string: u64 = if index == DType::U32 { u32::MAX as u64 } else { u64::MAX };
            let w = index.byte_width().expect("u32/u64");
            let mut indices = Tensor::zeros(index, data.shape())?;
            for (i, b) in indices.bytes_mut().expect("index bytes").chunks_exact_mut(w).enumerate() {
                b.copy_from_slice(&(i as u64).to_le_bytes()[..w]);
            }
            let picked = compile(index, no_string as u128)?.run_tensor(Some(indices.view()))?;
            drop(indices);
            let mut out = Strings::empty(width, out_len).ok_or_else(too_large)?;
            for i in 0..out_len {
                if picked.element_bits(i as u64) == Some(no_string as u128) {
                    continue; // the fill value: the empty string `out` already holds
                }
                let at = picked
                    .element_bits(i as u64)
                    .and_then(|b| usize::try_from(b).ok())
                    .filter(|&at| at < strings.len());
                let at = at.ok_or_else(|| Error::Invalid {
                    what: format!("the JIT produced no valid string index for output element {i}"),
                })?;
                out.copy_from(i, strings, at)?;
            }
            out
        }
    };
    Tensor::from_string_storage(&slice.output_shape, out)
}

/// The reference interpreter behind the [`Kernel`] trait, so it can stand wherever a
/// compiled kernel does (benchmarks, differential tests). It evaluates a program (one
/// move for most ops; Concat's and Split's several): [`Kernel::run_buffers`] takes every
/// input and output, `run_bytes` the one of each. Slow by design.
#[derive(Clone, Debug)]
pub struct ReferenceKernel {
    program: Program,
}

impl ReferenceKernel {
    /// Lower a request (its data input may be given by dtype and shape only).
    pub fn new(request: &Request) -> Result<ReferenceKernel, Error> {
        Ok(ReferenceKernel { program: kerfx_ir::lower_program(request)? })
    }
    /// The kernel of a lowered plan.
    pub fn from_plan(plan: Plan) -> ReferenceKernel {
        ReferenceKernel { program: Program::single(plan) }
    }
    /// The program it evaluates.
    pub fn program(&self) -> &Program {
        &self.program
    }
}

impl Kernel for ReferenceKernel {
    fn dtype(&self) -> DType {
        self.program.dtype
    }
    /// The input's shape when the program reads exactly one (else `None`).
    fn input_shape(&self) -> Option<&[u64]> {
        match self.program.inputs.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }
    /// The first output's shape (see [`Kernel::output_shapes`] for all).
    fn output_shape(&self) -> &[u64] {
        self.program.outputs.first().map_or(&[], Vec::as_slice)
    }
    fn input_shapes(&self) -> Vec<&[u64]> {
        self.program.inputs.iter().map(Vec::as_slice).collect()
    }
    fn output_shapes(&self) -> Vec<&[u64]> {
        self.program.outputs.iter().map(Vec::as_slice).collect()
    }
    fn run_bytes(&self, input: Option<&[u8]>, output: &mut [u8]) -> Result<(), Error> {
        let inputs: Vec<&[u8]> = input.into_iter().collect();
        if self.program.inputs.len() != inputs.len() && self.program.inputs.len() == 1 {
            return Err(Error::Invalid { what: "a slice kernel needs its input buffer".into() });
        }
        self.run_buffers(&inputs, &mut [output])
    }
    fn run_buffers(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<(), Error> {
        let p = &self.program;
        if inputs.len() != p.inputs.len() || outputs.len() != p.outputs.len() {
            return Err(Error::Mismatch {
                what: "kernel buffers".into(),
                expected: format!("{} inputs and {} outputs", p.inputs.len(), p.outputs.len()),
                found: format!("{} inputs and {} outputs", inputs.len(), outputs.len()),
            });
        }
        let bytes = |what: String, shape: &[u64], found: usize| {
            let expected = p.dtype.buffer_bytes(kerfx_ir::tensor::volume(shape).unwrap_or(u64::MAX));
            match expected {
                Some(n) if n == found => Ok(()),
                _ => Err(Error::BufferLength { what, expected: expected.unwrap_or(0), found }),
            }
        };
        for (i, (b, shape)) in inputs.iter().zip(&p.inputs).enumerate() {
            bytes(format!("kernel input {i}"), shape, b.len())?;
        }
        for (o, (b, shape)) in outputs.iter().zip(&p.outputs).enumerate() {
            bytes(format!("kernel output {o}"), shape, b.len())?;
        }
        let views: Vec<TensorView<'_>> = inputs
            .iter()
            .zip(&p.inputs)
            .map(|(b, shape)| TensorView { dtype: p.dtype, shape, data: kerfx_ir::tensor::ViewData::Bytes(b) })
            .collect();
        let results = kerfx_ir::program::evaluate(p, &views)?;
        for (out, result) in outputs.iter_mut().zip(&results) {
            let b = result.bytes().ok_or_else(|| Error::Invalid {
                what: "string tensors have no byte buffer; use run_reference".into(),
            })?;
            out.copy_from_slice(b);
        }
        Ok(())
    }
}

/// Spec examples as requests and expected tensors (for `kerf demo` and tests).
pub mod examples {
    use super::{AttrValue, DType, InputArg, Request, Tensor};
    use crate::request_file::{input_from_value, tensor_from_values};
    use kerfx_spec::{ExampleSpec, OpSpec};
    use std::path::Path;

    /// An example as a request (its inputs are inline: numbers, lists, tensor literals;
    /// a variadic input a list of them).
    pub fn request(spec: &OpSpec, ex: &ExampleSpec) -> Result<Request, String> {
        let mut req = Request::new(&spec.id);
        req.version = ex.version;
        for (name, v) in &ex.attributes {
            let value = AttrValue::from_toml(v).ok_or_else(|| format!("attribute `{name}` is not a value"))?;
            req.attributes.insert(name.clone(), value);
        }
        for (name, v) in &ex.inputs {
            let one = |v: &kerfx_spec::TomlValue| {
                input_from_value(v, Path::new(".")).map_err(|e| format!("input `{name}`: {e}"))
            };
            let input = match v.as_array() {
                Some(entries) if spec.input(name).is_some_and(|i| i.variadic) => {
                    InputArg::List(entries.iter().map(one).collect::<Result<_, _>>()?)
                }
                _ => one(v)?,
            };
            req.inputs.insert(name.clone(), input);
        }
        Ok(req)
    }

    /// The example's expected outputs (`expected`, or `expected_outputs` for several),
    /// when it has them (else it expects an error).
    pub fn expected(ex: &ExampleSpec) -> Option<Result<Vec<Tensor>, String>> {
        let literals: Vec<&kerfx_spec::TensorLiteral> = match (&ex.expected, &ex.expected_outputs) {
            (Some(one), _) => vec![one],
            (None, Some(all)) => all.iter().collect(),
            (None, None) => return None,
        };
        Some(
            literals
                .into_iter()
                .map(|lit| {
                    lit.dtype
                        .parse::<DType>()
                        .map_err(|e| e.to_string())
                        .and_then(|d| tensor_from_values(d, &lit.shape, &lit.values))
                })
                .collect(),
        )
    }
}

/// The README's Rust examples, compiled and run as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExamples;
