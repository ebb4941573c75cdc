//! `kerfx._kerf`, the extension module behind the Python package `kerfx`: numpy arrays in,
//! kerf's JIT kernels run on their buffers, numpy arrays out.
//!
//! One JIT (and its kernel cache) serves the whole process; every call releases the GIL
//! while it compiles and while a kernel runs, so Python threads run kernels side by
//! side. Data inputs are read in place, through view kernels when strided (byte-swapped
//! arrays are copied once); DLPack tensors (torch's) are inputs and outputs too; outputs
//! are written in place, into a caller's `out` or a new array.

mod args;
mod arrays;
mod dtypes;
mod errors;
mod model;
mod program;
mod registry;

use args::Meta;
use arrays::{ArrayArg, Raw};
use dtypes::Form;
use errors::{KerfError, KerfResult, invalid};
use kerfx::{DType, Jit, JitKernel, JitSettings, Kernel as _, Options, Plan};
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple, PyWeakrefReference};
use std::sync::{Arc, OnceLock};

/// The process's JIT.
pub(crate) fn jit(py: Python<'_>) -> PyResult<&'static Jit> {
    static JIT: OnceLock<Result<Jit, kerfx::Error>> = OnceLock::new();
    JIT.get_or_init(|| Jit::new(JitSettings::default())).as_ref().map_err(|e| errors::from_kerf(py, e))
}

/// Run an op once and return its output as a new numpy array (or write it into `out`).
///
/// The op's spec names are the keywords (see `kerfx.spec(op)`); the type of each value
/// decides what it is: a numpy array is a tensor input, `kerfx.meta(...)` an input known
/// by dtype and shape only, and a Python int, float, str or list an attribute -- or, for
/// a name the op has only as an input, a static value (an int is an i64 scalar, a float
/// an f64 scalar, a list of ints a 1-D i64 tensor). Where the spec lets a name be both
/// (TensorRT's start/size/stride), the type decides.
///
///     y = kerfx.run("tensorrt.slice", input=x, start=[0, -1], size=[2, 5],
///                  stride=[1, 1], mode="wrap")
///     y = kerfx.run("onnx.slice", version=13, data=x, starts=np.array([1]),
///                  ends=np.array([3]))
///
/// `version` picks the op set (default: the newest). The data input is read without a
/// copy whatever its strides (Fortran order, steps, negative strides, broadcast: a view
/// kernel, compiled once per layout); byte-swapped arrays are copied once first. Any
/// object with `__dlpack__` (a torch tensor, bf16 included) is a tensor input. `out`,
/// when given, must be a C-contiguous writeable array, or DLPack tensor, of the output's
/// dtype and shape; it is returned. An op
/// of several outputs (Split) returns a tuple of arrays; its `out` is a tuple or list of
/// arrays, one per output.
/// The kernel is compiled on first use and cached (per process); the GIL is released
/// while it compiles and runs. Errors raise `kerfx.KerfError`.
#[pyfunction]
#[pyo3(signature = (op, /, *, version = None, out = None, **params))]
fn run<'py>(
    py: Python<'py>,
    op: &Bound<'py, PyAny>,
    version: Option<&Bound<'py, PyAny>>,
    out: Option<&Bound<'py, PyAny>>,
    params: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let op_id = args::op(py, op)?;
    let op = op_id.as_str();
    let version = args::version(py, op, version)?;
    let call = args::build(py, op, version, params)?;
    let jit = jit(py)?;
    if kerfx::is_program_op(op).py(py)? {
        let mut request = call.request;
        if let Some((name, array)) = &call.data {
            // A program reads its inputs as tensors (copied once: it may read several).
            let t = array.tensor()?.map_err(|e| invalid(py, Some(op), Some(name), format!("input `{name}`: {e}")))?;
            request.inputs.insert(name.clone(), kerfx::InputArg::Tensor(t));
        }
        return run_program(py, op, jit, &request, out);
    }
    let data_is_strings = kerfx::data_input(&call.request).ok().flatten().is_some_and(|t| t.dtype() == DType::String);
    if data_is_strings {
        if out.is_some() {
            return Err(invalid(
                py,
                Some(op),
                Some("out"),
                "string outputs are new object arrays; `out` is not taken".into(),
            ));
        }
        let t = py.detach(|| kerfx::run_jit(jit, &call.request, false)).py(py)?;
        let strings: Vec<&str> = t.strings().map(|s| s.iter().collect()).unwrap_or_default();
        let list = PyList::new(py, strings)?;
        let array = arrays::numpy(py)?.getattr("array")?.call1((list, "object"))?;
        return array.call_method1("reshape", (PyTuple::new(py, t.shape())?,));
    }
    let form = call.data.as_ref().map_or(Form::Natural, |(_, d)| d.form);
    // A request no single kernel expresses runs as its chain of kernels.
    if let Some(chain) = kerfx::chain::as_chain(&call.request).py(py)? {
        return run_chain(py, op, jit, chain, call.data.as_ref(), out, form);
    }
    let plan = py.detach(|| kerfx::lower(&call.request)).py(py)?;
    let target = Target { jit, plan: &plan, dense: None };
    execute(py, op, &target, call.data.as_ref().map(|(name, a)| (name.as_str(), a)), out, form)
}

/// What [`execute`] runs: a plan, and its dense kernel when compiled already (else it is
/// compiled, and cached by the JIT, when a dense input needs it). A strided input is read
/// through a view kernel of the plan ([`kerfx::strided::compile`], cached per layout).
struct Target<'a> {
    jit: &'static Jit,
    plan: &'a Plan,
    dense: Option<&'a Arc<JitKernel>>,
}

impl Target<'_> {
    fn dense(&self, py: Python<'_>) -> PyResult<Arc<JitKernel>> {
        match self.dense {
            Some(k) => Ok(k.clone()),
            None => py.detach(|| self.jit.compile(self.plan, &Options::STATIC)).py(py),
        }
    }
}

/// `kerfx.run` of an op over several inputs or outputs (Concat, Split): its program's
/// kernels, each output a new array — a tuple of them for a variadic output (Split),
/// else the one array — or written into `out`: the one array, or for a variadic output a
/// tuple or list of arrays, one per output (each C-contiguous, writeable, of its output's
/// dtype and shape, no two sharing memory), returned as given.
fn run_program<'py>(
    py: Python<'py>,
    op: &str,
    jit: &'static Jit,
    request: &kerfx::Request,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let variadic = kerfx::op_spec(op).py(py)?.variadic_output();
    if let Some(out) = out {
        return run_program_into(py, op, jit, request, out, variadic);
    }
    let outs = py.detach(|| kerfx::run_jit_outputs(jit, request, false)).py(py)?;
    let arrays = outs.iter().map(|t| to_numpy(py, t)).collect::<PyResult<Vec<_>>>()?;
    if variadic {
        return Ok(PyTuple::new(py, arrays)?.into_any());
    }
    arrays.into_iter().next().ok_or_else(|| invalid(py, Some(op), None, "the op gave no output".into()))
}

/// [`run_program`] into `out` (checked as its doc says), with the GIL released while the
/// kernels run.
fn run_program_into<'py>(
    py: Python<'py>,
    op: &str,
    jit: &'static Jit,
    request: &kerfx::Request,
    out: &Bound<'py, PyAny>,
    variadic: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let program = py.detach(|| kerfx::lower_program(request)).py(py)?;
    let dtype = program.dtype;
    if matches!(dtype, DType::String | DType::I4 | DType::U4) {
        let what = if dtype == DType::String {
            "string outputs are new object arrays"
        } else {
            "4-bit outputs are new arrays"
        };
        return Err(invalid(py, Some(op), Some("out"), format!("{what}; `out` is not taken")));
    }
    let outs = program::outputs(py, op, dtype, &program.outputs, Some(out), variadic, Form::Natural)?;
    // The inputs are kerf's own copies (a program reads its inputs as tensors).
    let inputs = kerfx::program_inputs(request).py(py)?;
    let kernel = py.detach(|| jit.compile_program(&program, false)).py(py)?;
    program::run_into(py, op, &kernel, program::Inputs::Tensors(&inputs), &outs)?;
    program::result(py, outs, Some(out), variadic)
}

/// A new numpy array holding `t` (strings as an object array, 4-bit types one element
/// per byte).
pub(crate) fn to_numpy<'py>(py: Python<'py>, t: &kerfx::Tensor) -> PyResult<Bound<'py, PyAny>> {
    to_numpy_as(py, t, Form::Natural)
}

/// [`to_numpy`] in `form`: `Form::Raw` gives dtypes numpy lacks as their bits.
pub(crate) fn to_numpy_as<'py>(py: Python<'py>, t: &kerfx::Tensor, form: Form) -> PyResult<Bound<'py, PyAny>> {
    if let Some(strings) = t.strings() {
        let np = arrays::numpy(py)?;
        let list = PyList::new(py, strings.iter().collect::<Vec<&str>>())?;
        return np.getattr("array")?.call1((list, "object"))?.call_method1("reshape", (PyTuple::new(py, t.shape())?,));
    }
    let out = arrays::empty(py, t.shape(), t.dtype(), form)?;
    let (data, len) = out.buffer_mut().map_err(|e| invalid(py, None, None, format!("a new array: {e}")))?;
    // SAFETY: `out` is a new C-contiguous writeable array (checked by `buffer_mut`) of `len`
    // bytes that nothing else refers to, alive while `out` is; the GIL is held.
    let bytes = unsafe { bytes_at_mut(data, len) };
    let packed = t.bytes().unwrap_or_default();
    if matches!(t.dtype(), DType::I4 | DType::U4) {
        arrays::unpack_nibbles(packed, bytes, t.dtype(), form);
    } else if packed.len() == bytes.len() {
        bytes.copy_from_slice(packed);
    } else {
        return Err(invalid(py, None, None, format!("a {} output of {} bytes for {len}", t.dtype(), packed.len())));
    }
    Ok(out.array.into_any())
}

/// `kerfx.run` of a request no single kernel expresses ([`kerfx::chain::as_chain`]): the
/// chain's kernels on a copy of the data; the output a new array of `form`, or written
/// into `out` (checked as for a kernel).
fn run_chain<'py>(
    py: Python<'py>,
    op: &str,
    jit: &'static Jit,
    mut chain: kerfx::chain::ChainRequest,
    data: Option<&(String, ArrayArg<'py>)>,
    out: Option<&Bound<'py, PyAny>>,
    form: Form,
) -> PyResult<Bound<'py, PyAny>> {
    if let Some((name, a)) = data {
        let t = a.tensor()?.map_err(|e| invalid(py, Some(op), Some(name), format!("input `{name}`: {e}")))?;
        chain.steps[0].inputs.insert(name.clone(), kerfx::InputArg::Tensor(t));
    }
    let t = py.detach(|| kerfx::chain::run_chain_jit(jit, &chain, true, false)).py(py)?;
    let (dtype, shape) = (t.dtype(), t.shape().to_vec());
    let given = out;
    let out = out.map(|obj| checked_out(py, op, obj, dtype, &shape)).transpose()?;
    let form = out.as_ref().map_or(form, |o| o.form);
    let packed = t.bytes().unwrap_or_default();
    let bytes = if matches!(dtype, DType::I4 | DType::U4) {
        // kerf packs two elements per byte, numpy holds one.
        let mut unpacked = vec![0u8; t.len() as usize];
        arrays::unpack_nibbles(packed, &mut unpacked, dtype, form);
        unpacked
    } else {
        packed.to_vec()
    };
    let np = arrays::numpy(py)?;
    let flat = np.getattr("frombuffer")?.call1((PyBytes::new(py, &bytes), dtypes::descr_for(py, dtype, form)?))?;
    let shaped = flat.call_method1("reshape", (PyTuple::new(py, &shape)?,))?;
    match out {
        Some(o) => {
            np.getattr("copyto")?.call1((&o.array, &shaped))?;
            Ok(returned(given, o))
        }
        None => shaped.call_method0("copy"),
    }
}

/// Compile an op into a `kerfx.Kernel` to run many times on caller-owned arrays.
///
/// Arguments as for `kerfx.run`; the data input is usually `kerfx.meta(dtype, shape)`
/// (an array works too: only its dtype and shape are used).
///
///     k = kerfx.compile("tensorrt.slice", input=kerfx.meta(np.float32, (3, 3)),
///                      start=[0, 0], size=[2, 2], stride=[1, 1])
///     out = np.empty(k.output_shape, k.dtype)
///     k(x, out=out)        # no allocation, no copy
///     print(k.clif)        # the Cranelift IR
///
/// `dynamic=True` compiles the kernel specialized on op, mode, dtype and rank only
/// (shared by every plan of that kind; slower per element than the static one).
#[pyfunction]
#[pyo3(signature = (op, /, *, version = None, dynamic = None, **params))]
fn compile(
    py: Python<'_>,
    op: &Bound<'_, PyAny>,
    version: Option<&Bound<'_, PyAny>>,
    dynamic: Option<&Bound<'_, PyAny>>,
    params: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let op_id = args::op(py, op)?;
    let op = op_id.as_str();
    let dynamic = dynamic.map(|d| args::flag(d, "dynamic")).transpose()?.unwrap_or(false);
    let version = args::version(py, op, version)?;
    let call = args::build(py, op, version, params)?;
    let jit = jit(py)?;
    let form = call.data.as_ref().map_or(Form::Natural, |(_, d)| d.form);
    if kerfx::is_program_op(op).py(py)? {
        let kernel =
            py.detach(|| kerfx::lower_program(&call.request).and_then(|p| jit.compile_program(&p, dynamic))).py(py)?;
        let variadic = kerfx::op_spec(op).py(py)?.variadic_output();
        let program = program::Program { kernel, op: op.to_string(), variadic, form };
        return Ok(Py::new(py, program)?.into_any());
    }
    let plan = py.detach(|| kerfx::lower(&call.request)).py(py)?;
    let kernel = py.detach(|| jit.compile(&plan, &Options::dynamic(dynamic))).py(py)?;
    Ok(Py::new(py, Kernel { kernel, plan, op: op.to_string(), form })?.into_any())
}

/// A compiled op (`kerfx.compile`): call it as `k(x)` or `k(x, out=out)` (`k()` or
/// `k(out=out)` for fills, which read no input).
///
/// `x` is a numpy array (any strides: read in place), a DLPack tensor or `kerfx.raw(...)`,
/// of the kernel's dtype and input shape; `out`, when given, a C-contiguous writeable
/// array or DLPack tensor of `dtype` and `output_shape` (returned; else a new array is). The GIL is released while the kernel runs.
/// Attributes: input_shape, output_shape, dtype (numpy), kerfx_dtype, clif, plan, dynamic.
#[pyclass(frozen, module = "kerfx", name = "Kernel")]
struct Kernel {
    kernel: Arc<JitKernel>,
    /// The plan compiled (a strided input is read through a view kernel of it).
    plan: Plan,
    op: String,
    /// How outputs it allocates hold its dtype (raw bits when compiled for raw input).
    form: Form,
}

#[pymethods]
impl Kernel {
    #[pyo3(signature = (input = None, /, *, out = None))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        input: Option<&Bound<'py, PyAny>>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let input = match input {
            None => None,
            Some(obj) => {
                let bad = |m: String| invalid(py, Some(&self.op), Some("input"), m);
                let arg = match ArrayArg::from_py_view(obj)?.map_err(bad)? {
                    Some(a) => a,
                    None => {
                        let array =
                            arrays::numpy(py)?.getattr("asarray")?.call1((obj,)).map_err(|e| bad(e.to_string()))?;
                        ArrayArg::from_py(&array)?.map_err(bad)?.ok_or_else(|| bad("not an array".into()))?
                    }
                };
                Some(arg)
            }
        };
        let form = input.as_ref().map_or(self.form, |a| a.form);
        let target = Target { jit: jit(py)?, plan: &self.plan, dense: Some(&self.kernel) };
        execute(py, &self.op, &target, input.as_ref().map(|a| ("input", a)), out, form)
    }

    /// The output's shape.
    #[getter]
    fn output_shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.kernel.output_shape())
    }
    /// The input's shape (None for fills, which read no input).
    #[getter]
    fn input_shape<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        self.kernel.input_shape().map(|s| PyTuple::new(py, s)).transpose()
    }
    /// The numpy dtype of input and output (ml_dtypes' for bf16/fp8/int4 when it is
    /// importable, else the raw-bits convention).
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArrayDescr>> {
        dtypes::descr_for(py, self.kernel.dtype(), self.form)
    }
    /// The kerf dtype name (`f32`, `bf16`, ...).
    #[getter]
    fn kerfx_dtype(&self) -> &'static str {
        self.kernel.dtype().name()
    }
    /// The Cranelift IR the kernel runs, as text.
    #[getter]
    fn clif(&self) -> String {
        self.kernel.clif().to_string()
    }
    /// The plan (kerf's canonical form of the op) the kernel was compiled for.
    #[getter]
    fn plan(&self) -> String {
        self.kernel.describe()
    }
    /// Whether this is a dynamic kernel (`kerfx.compile(..., dynamic=True)`).
    #[getter]
    fn dynamic(&self) -> bool {
        self.kernel.is_dynamic()
    }
    fn __repr__(&self) -> String {
        let input = self.kernel.input_shape().map(|s| format!("{s:?} → ")).unwrap_or_default();
        format!("<kerfx.Kernel {} {} {input}{:?}>", self.op, self.kernel.dtype(), self.kernel.output_shape())
    }
}

/// Check `out` against the kernel's output: a numpy array (or `kerfx.raw(...)`) of its
/// dtype and shape, C-contiguous, native byte order, writeable. It is never copied.
pub(crate) fn checked_out<'py>(
    py: Python<'py>,
    op: &str,
    obj: &Bound<'py, PyAny>,
    dtype: DType,
    shape: &[u64],
) -> PyResult<ArrayArg<'py>> {
    let bad = |m: String| invalid(py, Some(op), Some("out"), m);
    let (array, form, dtype_ok) = if let Ok(raw) = obj.cast::<Raw>() {
        let array = raw.get().array.bind(py).clone();
        let ok = raw.get().dtype == dtype && dtypes::holds_raw(&array.dtype(), dtype);
        (array, Form::Raw, ok)
    } else if let Ok(array) = obj.cast::<PyUntypedArray>() {
        let ok = dtypes::of_descr(&array.dtype()) == Ok(dtype);
        (array.clone(), Form::Natural, ok)
    } else if let Some(made) = arrays::dlpack(obj)? {
        // A DLPack tensor (torch's): written where it lies, through numpy's view of it.
        let (array, d, form) = made.map_err(bad)?;
        (array, form, d == dtype)
    } else {
        return Err(bad(format!(
            "`out` must be a numpy array or a DLPack tensor (`__dlpack__`), found {}",
            obj.get_type().name()?
        )));
    };
    let expected = || format!("a C-contiguous writeable {dtype} array of shape {shape:?}");
    let found = array.shape().iter().map(|&d| d as u64).collect::<Vec<_>>();
    if !dtype_ok || found != shape {
        return Err(bad(format!("`out` must be {}, found {} of shape {found:?}", expected(), array.dtype())));
    }
    if !array.is_c_contiguous() || array.dtype().is_native_byteorder() == Some(false) {
        return Err(bad(format!("`out` must be {}, found a non-contiguous or byte-swapped array", expected())));
    }
    let out = ArrayArg::new(array, dtype, form);
    if !out.writeable() {
        return Err(bad(format!("`out` must be {}, found a read-only array", expected())));
    }
    Ok(out)
}

/// What a call given `out` returns: a DLPack tensor (torch's) as given, else the numpy
/// array written (the array inside a `kerfx.raw`).
fn returned<'py>(given: Option<&Bound<'py, PyAny>>, out: ArrayArg<'py>) -> Bound<'py, PyAny> {
    match given {
        Some(g) if g.cast::<PyUntypedArray>().is_err() && g.cast::<Raw>().is_err() => g.clone(),
        _ => out.array.into_any(),
    }
}

/// Run a kernel on `input` (its argument's name and array) into `out` (checked) or a new
/// array of `form`, with the GIL released while the machine code runs; return the output
/// array.
fn execute<'py>(
    py: Python<'py>,
    op: &str,
    target: &Target<'_>,
    input: Option<(&str, &ArrayArg<'py>)>,
    out: Option<&Bound<'py, PyAny>>,
    form: Form,
) -> PyResult<Bound<'py, PyAny>> {
    let plan = target.plan;
    let dtype = plan.dtype();
    match (plan.input_shape(), input) {
        (Some(shape), Some((name, a))) if a.dtype != dtype || a.shape() != shape => {
            let found = format!("{} {:?}", a.dtype, a.shape());
            return Err(invalid(py, Some(op), Some(name), format!("{name} must be {dtype} {shape:?}, found {found}")));
        }
        (Some(shape), None) => {
            return Err(invalid(
                py,
                Some(op),
                Some("input"),
                format!("the kernel reads an input of {dtype} {shape:?}"),
            ));
        }
        (None, Some(_)) => return Err(invalid(py, Some(op), Some("input"), "a fill reads no input".into())),
        _ => {}
    }
    let given = out;
    let out = match out {
        Some(obj) => checked_out(py, op, obj, dtype, plan.output_shape())?,
        None => arrays::empty(py, plan.output_shape(), dtype, form)?,
    };
    // A strided input is read in place through a view kernel (compiled for its layout, or
    // taken from the cache). Compiled before any buffer is taken: the GIL is released meanwhile.
    let view_kernel = match (input, plan) {
        (Some((name, a)), Plan::Step(step)) if !a.is_dense() => {
            let view = a.view().map_err(|e| invalid(py, Some(op), Some(name), format!("`{name}` {e}")))?;
            Some(py.detach(|| kerfx::strided::compile(target.jit, step, &view.strided, None)).py(py)?)
        }
        _ => None,
    };
    let kernel = match view_kernel {
        Some(_) => None,
        None => Some(target.dense(py)?),
    };
    // While the GIL is released another thread may call `resize(refcheck=False)` on either
    // array, which would free its buffer under the kernel; numpy refuses to resize an array
    // that has a weak reference. Made before the buffers are taken: an allocation may run
    // the garbage collector, and so finalizers (Python code). (`ndarray.__setstate__` on a
    // live array frees its buffer all the same, as under numpy's own GIL-releasing loops.)
    let _pins =
        (input.map(|(_, a)| PyWeakrefReference::new(&a.array)).transpose()?, PyWeakrefReference::new(&out.array)?);
    // Buffers are taken (and their layout checked again) only now, with no Python code run after.
    let changed = |name: &str, e: String| invalid(py, Some(op), Some(name), format!("`{name}` {e}"));
    let out_buffer = || out.buffer_mut().map_err(|e| changed("out", e));
    if matches!(dtype, DType::I4 | DType::U4) {
        // kerf packs two elements per byte, numpy holds one: pack, run, unpack.
        let packed_in = match input {
            Some((name, a)) => {
                let bytes = a.bytes().map_err(|e| changed(name, e))?;
                Some(arrays::pack_nibbles(bytes, dtype, a.form).map_err(|e| invalid(py, Some(op), Some(name), e))?)
            }
            None => None,
        };
        let mut packed_out = vec![0u8; dtype.buffer_bytes(out.array.len() as u64).unwrap_or(0)];
        let kernel =
            kernel.ok_or_else(|| invalid(py, Some(op), None, "a 4-bit input is never read through strides".into()))?;
        py.detach(|| kernel.run_bytes(packed_in.as_deref(), &mut packed_out)).py(py)?;
        // Other threads ran while the GIL was released: `out` is checked again.
        let (data, len) = out_buffer()?;
        // SAFETY: `out` is a C-contiguous, writeable array (both checked by `buffer_mut`) of one byte per
        // element, alive while `out` refers to it; the GIL is held, so no Python code runs meanwhile.
        let bytes = unsafe { bytes_at_mut(data, len) };
        arrays::unpack_nibbles(&packed_out, bytes, dtype, out.form);
        return Ok(returned(given, out));
    }
    if let (Some(view_kernel), Some((name, a))) = (view_kernel, input) {
        let view = a.view().map_err(|e| changed(name, e))?;
        let (out_data, out_len) = out_buffer()?;
        if view.span > 0 && out_len > 0 && view.lowest < out_data + out_len && out_data < view.lowest + view.span {
            return Err(invalid(py, Some(op), Some("out"), "`out` shares memory with the input".into()));
        }
        py.detach(move || {
            // SAFETY: as below for the output (writeable, checked by `buffer_mut`; apart from every input element,
            // checked above).
            let output = unsafe { bytes_at_mut(out_data, out_len) };
            // The kernel was compiled for `view.strided`, this array's layout (its shape, strides and dtype
            // checked unchanged by `view` just now), with offset `-lo`: it reads only `lowest + (offset +
            // Σ i_k·strides[k])·width` for indices inside the shape -- each an element of the array, which the
            // caller's frame keeps alive while this runs (other threads may write them, as with numpy's loops).
            // SAFETY: so every element it reads is readable from `lowest`.
            unsafe { view_kernel.run_from_ptr(view.lowest as *const u8, output) }
        })
        .py(py)?;
        return Ok(returned(given, out));
    }
    let kernel = kernel.ok_or_else(|| invalid(py, Some(op), None, "no kernel for a dense input".into()))?;
    let (in_data, in_len) = match input {
        Some((name, a)) => a.buffer().map_err(|e| changed(name, e))?,
        None => (0, 0),
    };
    let (out_data, out_len) = out_buffer()?;
    if in_len > 0 && out_len > 0 && in_data < out_data + out_len && out_data < in_data + in_len {
        return Err(invalid(py, Some(op), Some("out"), "`out` shares memory with the input".into()));
    }
    let has_input = input.is_some();
    py.detach(move || {
        // Other Python threads may write the input meanwhile, as with any numpy routine that releases the GIL.
        // SAFETY: `buffer` checked that the input is C-contiguous: `in_len` bytes from `in_data`, kept alive by
        // the caller's frame while this runs; bytes have no invalid values.
        let input = has_input.then(|| unsafe { bytes_at(in_data, in_len) });
        // SAFETY: as for the input; `out` is also writeable (checked by `buffer_mut`) and overlaps
        // no input (checked above). The kernel checks both lengths against its plan.
        let output = unsafe { bytes_at_mut(out_data, out_len) };
        kernel.run_bytes(input, output)
    })
    .py(py)?;
    Ok(returned(given, out))
}

/// `len` bytes at `data` (an empty slice for none).
///
/// # Safety
/// When `len > 0`, `data` points at `len` readable bytes that outlive the slice.
pub(crate) unsafe fn bytes_at<'a>(data: usize, len: usize) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(data as *const u8, len) }
}

/// `len` writable bytes at `data` (an empty slice for none).
///
/// # Safety
/// When `len > 0`, `data` points at `len` writable bytes that outlive the slice and that
/// no other slice refers to meanwhile.
pub(crate) unsafe fn bytes_at_mut<'a>(data: usize, len: usize) -> &'a mut [u8] {
    if len == 0 {
        return &mut [];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts_mut(data as *mut u8, len) }
}

/// An input known by dtype and shape only (to compile a kernel before its data exists).
///
/// `dtype` is a kerf dtype name (`"f32"`, `"bf16"`, `"i8"` -- kerf's names, so `"i8"` is
/// int8) or a numpy dtype given as a type or dtype object (`np.float32`,
/// `ml_dtypes.bfloat16`).
#[pyfunction]
fn meta(py: Python<'_>, dtype: &Bound<'_, PyAny>, shape: &Bound<'_, PyAny>) -> PyResult<Meta> {
    let dtype = dtypes::parse(py, dtype).map_err(|e| invalid(py, None, Some("dtype"), format!("kerfx.meta: {e}")))?;
    let bad = |m: String| invalid(py, None, Some("shape"), format!("kerfx.meta: shape {m}"));
    // Iterated rather than extracted as a Vec: PyO3 sizes that Vec by `__len__`, which
    // may lie (a capacity-overflow panic).
    let dims = if shape.is_instance_of::<PyString>() { None } else { shape.try_iter().ok() };
    let dims = dims.ok_or_else(|| bad(format!("{shape} is not a sequence of ints")))?;
    let mut extents = Vec::new();
    for (i, d) in dims.enumerate() {
        let d = d.map_err(|e| bad(format!("{shape} is not a sequence of ints: {e}")))?;
        let n = d.extract::<i64>().map_err(|_| bad(format!("[{i}] = {d} is not a 64-bit int")))?;
        extents.push(u64::try_from(n).map_err(|_| bad(format!("[{i}] = {n} is a negative extent")))?);
    }
    let shape = extents;
    Ok(Meta { dtype, shape })
}

/// An array holding a kerf dtype numpy lacks in the raw-bits convention of kerf's
/// `.npy` files: bf16 as uint16, fp8 as uint8, int4/uint4 as one int8/uint8 value per
/// element. Outputs of raw inputs are raw too. With ml_dtypes installed, its dtypes
/// (`ml_dtypes.bfloat16`, ...) need no wrapper.
///
///     y = kerfx.run("onnx.slice", data=kerfx.raw(bits_u16, "bf16"), starts=[0], ends=[2])
#[pyfunction]
fn raw(py: Python<'_>, array: &Bound<'_, PyAny>, dtype: &Bound<'_, PyAny>) -> PyResult<Raw> {
    let dtype = dtypes::parse(py, dtype).map_err(|e| invalid(py, None, Some("dtype"), format!("kerfx.raw: {e}")))?;
    let bad = |m: String| invalid(py, None, Some("array"), format!("kerfx.raw: {m}"));
    let array = array.cast::<PyUntypedArray>().map_err(|_| bad(format!("{array} is not a numpy array")))?;
    dtypes::check_raw(&array.dtype(), dtype).map_err(bad)?;
    Ok(Raw { array: array.clone().unbind(), dtype })
}

/// The ids of the ops kerf knows (`kerfx.spec(op)` tells what each accepts).
#[pyfunction]
fn ops(py: Python<'_>) -> PyResult<Vec<String>> {
    let registry = kerfx::spec::registry().map_err(|e| errors::from_kerf(py, &kerfx::Error::Spec(e.clone())))?;
    Ok(registry.ids().map(str::to_string).collect())
}

/// The spec of an op, as a dict: id, vendor, summary, versions, type_sets, and lists of
/// attributes (name, type, required, default, allowed, versions, doc), inputs (index,
/// name, optional, types, rank, replaces, versions, doc), rules (id, kind, versions,
/// doc; dtype rules also subject, when, allow, forbid) and examples (name, doc, version, attributes, inputs, expected {dtype, shape,
/// values} or error) -- what `kerf spec ID` prints.
#[pyfunction]
fn spec<'py>(py: Python<'py>, op: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    registry::to_dict(py, &args::op(py, op)?)
}

/// kerf's native module; use the package `kerfx`.
#[pymodule]
mod _kerf {
    #[pymodule_export]
    use super::{
        KerfError, Kernel, Meta, Raw, compile, meta, model::OnnxModel, model::onnx_host_ops, ops, program::Program,
        raw, run, spec,
    };

    #[pymodule_init]
    fn init(m: &pyo3::Bound<'_, pyo3::types::PyModule>) -> pyo3::PyResult<()> {
        use pyo3::types::PyModuleMethods;
        m.add("__version__", env!("CARGO_PKG_VERSION"))
    }
}
