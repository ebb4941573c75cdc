//! `kerfx.Program`: a compiled op over several inputs or outputs (Concat, Split), and
//! the `out=` handling `kerfx.run` shares with it.

use crate::arrays::{self, ArrayArg};
use crate::dtypes::{self, Form};
use crate::errors::{KerfResult, invalid};
use kerfx::{DType, ProgramKernel};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple, PyWeakrefReference};
use std::sync::Arc;

/// The arrays a program writes: `out` checked (the one array, or for a variadic output a
/// tuple or list of arrays, one per output; each C-contiguous, writeable, of its output's
/// dtype and shape), else new arrays of `form`.
pub fn outputs<'py>(
    py: Python<'py>,
    op: &str,
    dtype: DType,
    shapes: &[Vec<u64>],
    out: Option<&Bound<'py, PyAny>>,
    variadic: bool,
    form: Form,
) -> PyResult<Vec<ArrayArg<'py>>> {
    let Some(out) = out else {
        return shapes.iter().map(|s| arrays::empty(py, s, dtype, form)).collect();
    };
    let objects: Vec<Bound<'py, PyAny>> = if variadic {
        if !(out.is_instance_of::<PyTuple>() || out.is_instance_of::<PyList>()) {
            return Err(invalid(
                py,
                Some(op),
                Some("out"),
                format!("`out` of {op} is a tuple or list of arrays, one per output, found {}", out.get_type().name()?),
            ));
        }
        out.try_iter()?.collect::<PyResult<_>>()?
    } else {
        vec![out.clone()]
    };
    if objects.len() != shapes.len() {
        return Err(invalid(
            py,
            Some(op),
            Some("out"),
            format!("`out` holds {} arrays; the request has {} outputs", objects.len(), shapes.len()),
        ));
    }
    objects.iter().zip(shapes).map(|(obj, shape)| crate::checked_out(py, op, obj, dtype, shape)).collect()
}

/// The output arrays' buffers, taken (their layout checked again) only now: no two may
/// share memory, and none any of `inputs` (address, length).
pub fn output_buffers(
    py: Python<'_>,
    op: &str,
    outs: &[ArrayArg<'_>],
    inputs: &[(usize, usize)],
) -> PyResult<Vec<(usize, usize)>> {
    let overlap = |(d, l): (usize, usize), (e, m): (usize, usize)| l > 0 && m > 0 && d < e + m && e < d + l;
    let mut buffers: Vec<(usize, usize)> = Vec::with_capacity(outs.len());
    for (k, o) in outs.iter().enumerate() {
        let b = o.buffer_mut().map_err(|e| invalid(py, Some(op), Some("out"), format!("`out` {k} {e}")))?;
        if buffers.iter().any(|&c| overlap(b, c)) {
            return Err(invalid(py, Some(op), Some("out"), format!("`out` {k} shares memory with another output")));
        }
        if inputs.iter().any(|&c| overlap(b, c)) {
            return Err(invalid(py, Some(op), Some("out"), format!("`out` {k} shares memory with an input")));
        }
        buffers.push(b);
    }
    Ok(buffers)
}

/// The inputs of a program run by [`run_into`]: numpy arrays read in place, or kerf's
/// own tensors (copies already made).
pub enum Inputs<'a, 'py> {
    /// Arrays whose buffers are taken (their layout checked again) after they are pinned.
    Arrays(&'a [ArrayArg<'py>]),
    /// Tensors owned by Rust, which no Python code can touch.
    Tensors(&'a [&'a kerfx::Tensor]),
}

/// Run `kernel` on `inputs` into `outs` (checked by [`outputs`]) with the GIL released:
/// every numpy array pinned against `resize(refcheck=False)` first (see `execute`), then
/// the buffers taken, with no Python code run after, no output overlapping another or an
/// input.
pub fn run_into<'py>(
    py: Python<'py>,
    op: &str,
    kernel: &ProgramKernel,
    inputs: Inputs<'_, 'py>,
    outs: &[ArrayArg<'py>],
) -> PyResult<()> {
    let arrays = match inputs {
        Inputs::Arrays(a) => a,
        Inputs::Tensors(_) => &[],
    };
    // Pins are made before the buffers are taken: making one may run Python code.
    let _pins = arrays.iter().chain(outs).map(|a| PyWeakrefReference::new(&a.array)).collect::<PyResult<Vec<_>>>()?;
    let ins: Vec<(usize, usize)> = match inputs {
        Inputs::Arrays(a) => {
            let changed = |e: String| invalid(py, Some(op), Some("inputs"), e);
            a.iter().map(|a| a.buffer().map_err(changed)).collect::<PyResult<_>>()?
        }
        Inputs::Tensors(t) => t.iter().map(|t| t.bytes().map_or((0, 0), |b| (b.as_ptr() as usize, b.len()))).collect(),
    };
    let buffers = output_buffers(py, op, outs, &ins)?;
    py.detach(move || {
        // Other Python threads may write numpy inputs meanwhile, as with any numpy routine
        // that releases the GIL; bytes have no invalid values.
        let inputs: Vec<&[u8]> = ins
            .iter()
            // SAFETY: each pair is a C-contiguous array's buffer (checked by `buffer` just
            // above) or a tensor's bytes, alive for this call (the caller's frame holds the
            // arrays, pinned against resizing, and the tensors).
            .map(|&(d, l)| unsafe { crate::bytes_at(d, l) })
            .collect();
        let mut outputs: Vec<&mut [u8]> = buffers
            .iter()
            // SAFETY: each pair is a C-contiguous writeable array's buffer (checked by
            // `buffer_mut` in `output_buffers`), alive and pinned as above, overlapping no
            // other output and no input (checked there), so this is its only slice.
            .map(|&(d, l)| unsafe { crate::bytes_at_mut(d, l) })
            .collect();
        kernel.run_buffers(&inputs, &mut outputs)
    })
    .py(py)
}

/// What a program call returns: a tuple of its outputs for a variadic output (or the
/// `out` given), else the one array.
pub fn result<'py>(
    py: Python<'py>,
    outs: Vec<ArrayArg<'py>>,
    out: Option<&Bound<'py, PyAny>>,
    variadic: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if let Some(out) = out {
        return Ok(out.clone());
    }
    let arrays: Vec<Bound<'py, PyAny>> = outs.into_iter().map(|a| a.array.into_any()).collect();
    if variadic {
        return Ok(PyTuple::new(py, arrays)?.into_any());
    }
    arrays.into_iter().next().ok_or_else(|| invalid(py, None, None, "the program writes no output".into()))
}

/// A compiled op over several inputs or outputs (`kerfx.compile` of Concat or Split):
/// call it with its inputs in order, `p(a, b)` for a Concat, `p(x)` for a Split; `out=`
/// as for `kerfx.run` (the one array, or a tuple or list of arrays for a Split). Inputs
/// are read in place when C-contiguous in native byte order; the GIL is released while
/// the program runs. Attributes: input_shapes, output_shapes, dtype, kerfx_dtype, clif.
#[pyclass(frozen, module = "kerfx", name = "Program")]
pub struct Program {
    pub kernel: Arc<ProgramKernel>,
    pub op: String,
    /// Whether the op's output is variadic (a tuple of outputs).
    pub variadic: bool,
    /// How outputs it allocates hold its dtype (raw bits when compiled for raw inputs).
    pub form: Form,
}

#[pymethods]
impl Program {
    #[pyo3(signature = (*inputs, out = None))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        inputs: &Bound<'py, PyTuple>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let op = self.op.as_str();
        let (dtype, shapes) = (self.kernel.dtype(), self.kernel.input_shapes());
        if inputs.len() != shapes.len() {
            return Err(invalid(
                py,
                Some(op),
                Some("inputs"),
                format!("the program reads {} inputs, given {}", shapes.len(), inputs.len()),
            ));
        }
        let mut args = Vec::with_capacity(shapes.len());
        for (i, (obj, shape)) in inputs.iter().zip(shapes).enumerate() {
            let bad = |m: String| invalid(py, Some(op), Some("inputs"), format!("input {i}: {m}"));
            let arg = match ArrayArg::from_py(&obj)?.map_err(bad)? {
                Some(a) => a,
                None => {
                    let array =
                        arrays::numpy(py)?.getattr("asarray")?.call1((&obj,)).map_err(|e| bad(e.to_string()))?;
                    ArrayArg::from_py(&array)?.map_err(bad)?.ok_or_else(|| bad("not an array".into()))?
                }
            };
            if arg.dtype != dtype || arg.shape() != shape.as_slice() {
                return Err(bad(format!("must be {dtype} {shape:?}, found {} {:?}", arg.dtype, arg.shape())));
            }
            args.push(arg);
        }
        let form = args.first().map_or(self.form, |a| a.form);
        if matches!(dtype, DType::I4 | DType::U4) {
            return self.call_packed(py, &args, out, form);
        }
        let outs = outputs(py, op, dtype, self.kernel.output_shapes(), out, self.variadic, form)?;
        run_into(py, op, &self.kernel, Inputs::Arrays(&args), &outs)?;
        result(py, outs, out, self.variadic)
    }

    /// The inputs' shapes, in order.
    #[getter]
    fn input_shapes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.kernel.input_shapes().iter().map(|s| PyTuple::new(py, s)).collect::<PyResult<Vec<_>>>()?)
    }
    /// The outputs' shapes, in order.
    #[getter]
    fn output_shapes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.kernel.output_shapes().iter().map(|s| PyTuple::new(py, s)).collect::<PyResult<Vec<_>>>()?)
    }
    /// The numpy dtype of every input and output.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArrayDescr>> {
        dtypes::descr_for(py, self.kernel.dtype(), self.form)
    }
    /// The kerf dtype name.
    #[getter]
    fn kerfx_dtype(&self) -> &'static str {
        self.kernel.dtype().name()
    }
    /// The Cranelift IR of each move's kernels, each under a `; move k` comment.
    #[getter]
    fn clif(&self) -> String {
        let mut text = String::new();
        for (m, kernels) in self.kernel.move_kernels().enumerate() {
            text.push_str(&format!("; move {m}\n"));
            for k in kernels {
                text.push_str(k.clif());
            }
        }
        text
    }
    fn __repr__(&self) -> String {
        format!(
            "<kerfx.Program {} {} {:?} → {:?}>",
            self.op,
            self.kernel.dtype(),
            self.kernel.input_shapes(),
            self.kernel.output_shapes()
        )
    }
}

impl Program {
    /// 4-bit types: numpy holds one element per byte, kerf two. The inputs are packed, the
    /// outputs new arrays (or copied into `out`).
    fn call_packed<'py>(
        &self,
        py: Python<'py>,
        args: &[ArrayArg<'py>],
        out: Option<&Bound<'py, PyAny>>,
        form: Form,
    ) -> PyResult<Bound<'py, PyAny>> {
        let op = self.op.as_str();
        let tensors = args
            .iter()
            .enumerate()
            .map(|(i, a)| a.tensor()?.map_err(|e| invalid(py, Some(op), Some("inputs"), format!("input {i}: {e}"))))
            .collect::<PyResult<Vec<_>>>()?;
        let views: Vec<kerfx::TensorView<'_>> = tensors.iter().map(|t| t.view()).collect();
        let results = py.detach(|| self.kernel.run_tensors(&views)).py(py)?;
        let outs = outputs(py, op, self.kernel.dtype(), self.kernel.output_shapes(), out, self.variadic, form)?;
        for (o, t) in outs.iter().zip(&results) {
            let (data, len) = o.buffer_mut().map_err(|e| invalid(py, Some(op), Some("out"), e))?;
            // SAFETY: a C-contiguous writeable array (checked by `buffer_mut`) of `len`
            // bytes, one per element; the GIL is held, so no Python code runs meanwhile.
            let bytes = unsafe { crate::bytes_at_mut(data, len) };
            arrays::unpack_nibbles(t.bytes().unwrap_or_default(), bytes, t.dtype(), o.form);
        }
        result(py, outs, out, self.variadic)
    }
}
