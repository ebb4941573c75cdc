//! `kerfx._kerf.OnnxModel`: an ONNX model run as whole graphs — imported with its shape
//! path folded and cut into fused programs once per set of input shapes
//! ([`kerfx::graph::OnnxModel`]), then run on the process's JIT.

use crate::arrays::{self, ArrayArg};
use crate::dtypes::{self, Form};
use crate::errors::invalid;
use kerfx::graph::{Backend, ModelError, Runner};
use kerfx::onnx::OnnxError;
use kerfx::{DType, TensorView, ViewData};
use numpy::npyffi::{_PyArray_GET_ITEM_DATA, NPY_ARRAY_WRITEABLE};
use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple, PyType};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// An ONNX model (its serialized bytes, external data already inline) that kerf runs as
/// whole fused programs: `run(inputs)` with a dict of arrays by graph input name returns
/// the graph's outputs in order. `groups(inputs)` names the nodes of each program.
///
/// `run_fast(inputs)` is `run`'s fast path for `kerfx.onnx`: given `declared` (the graph
/// inputs without an initializer, in order, each `(name, dtype, dims)` as the model
/// declares it: a kerf dtype name, `""` for a type kerf lacks, or None; a list of fixed
/// dims, None for a symbolic one, or None for no shape) it takes those inputs as a list,
/// tuple or dict of plain numpy arrays and returns the outputs as `result(*outputs)` (a
/// tuple class such as a namedtuple, made as `tuple.__new__(result, outputs)`; a list
/// without one) --
/// or None for anything else (another form, another declaration, a graph that is not one
/// program), which `run` then handles, errors included.
#[pyclass(frozen, module = "kerfx", name = "OnnxModel")]
pub struct OnnxModel {
    model: kerfx::graph::OnnxModel,
    declared: Vec<Declared>,
    /// What `run_fast` returns the outputs as: a tuple subclass (a namedtuple), made by
    /// `tuple.__new__` (the second item) as the class's own `__new__` would, without its
    /// Python frame; `None`: a list.
    result: Option<(Py<PyType>, Py<PyAny>)>,
    /// `run_fast`'s runners by the inputs' dtypes and shapes, the last used first.
    runners: Mutex<Vec<FastEntry>>,
}

/// A graph input's declaration as `OnnxModel(..., declared)` gives it: name, kerf dtype
/// name (`""`: a type kerf lacks; None: any), dims (None per symbolic dim; None: any).
type DeclaredArg<'py> = (Bound<'py, PyString>, Option<String>, Option<Vec<Option<i64>>>);

/// A graph input as the model declares it (`run_fast` takes only arrays that match).
struct Declared {
    name: Py<PyString>,
    /// `None`: any dtype; `Some(None)`: a type kerf lacks, which no array matches.
    dtype: Option<Option<DType>>,
    /// Per dim its fixed size (`None`: symbolic; any int64 a model may hold); `None`: no
    /// shape declared.
    dims: Option<Vec<Option<i64>>>,
}

/// The runner of one set of input dtypes and shapes (`None`: the graph does not run as
/// one program for them; `run` runs it).
struct FastEntry {
    signature: Vec<(DType, Vec<u64>)>,
    runner: Option<Arc<Runner>>,
}

/// How many input signatures `run_fast` keeps runners for.
const FAST_SIGNATURES: usize = 16;

/// A graph input `run_fast` takes: a C-contiguous array in native byte order, its dtype
/// object kept (so that a dtype set on the array meanwhile is seen: a new object).
struct FastInput<'py> {
    array: Bound<'py, PyUntypedArray>,
    descr: Bound<'py, PyArrayDescr>,
    dtype: DType,
}

/// The inputs as array arguments, by name.
fn array_args<'py>(py: Python<'py>, inputs: &Bound<'py, PyDict>) -> PyResult<Vec<(String, ArrayArg<'py>)>> {
    let mut out = Vec::with_capacity(inputs.len());
    for (key, value) in inputs.iter() {
        let name: String = key.extract()?;
        let bad = |what: String| invalid(py, None, Some(&name), format!("input `{name}`: {what}"));
        let array = match ArrayArg::from_py(&value)? {
            Ok(Some(a)) => a,
            Ok(None) => return Err(bad(format!("a numpy array or kerfx.raw(...), not {}", value.get_type().name()?))),
            Err(e) => return Err(bad(e)),
        };
        out.push((name, array));
    }
    Ok(out)
}

/// A model's error as a `KerfError`; a node kerf does not run carries `unsupported =
/// True` and the node's label as `name` (kerfx.onnx raises its UnsupportedError then).
fn model_error(py: Python<'_>, e: ModelError) -> PyErr {
    match e {
        ModelError::Run(e) => crate::errors::from_kerf(py, &e),
        ModelError::Import(e) => {
            let unsupported = matches!(e, OnnxError::UnsupportedNode { .. });
            let name = match &e {
                OnnxError::UnsupportedNode { node, .. } => Some(node.clone()),
                _ => None,
            };
            let err = invalid(py, None, name.as_deref(), e.to_string());
            match err.value(py).setattr("unsupported", unsupported) {
                Ok(()) => err,
                Err(e) => e,
            }
        }
    }
}

fn backend(py: Python<'_>, name: &str) -> PyResult<Backend<'static>> {
    let jit = crate::jit(py)?;
    match name {
        "jit" => Ok(Backend::Jit { jit, dynamic: false }),
        "jit-dynamic" => Ok(Backend::Jit { jit, dynamic: true }),
        "reference" => Ok(Backend::Reference),
        other => Err(invalid(
            py,
            None,
            Some("backend"),
            format!("backend `{other}`: one of \"jit\", \"jit-dynamic\", \"reference\""),
        )),
    }
}

#[pymethods]
impl OnnxModel {
    #[new]
    #[pyo3(signature = (model, /, declared = None, result = None))]
    fn new(
        py: Python<'_>,
        model: &Bound<'_, PyBytes>,
        declared: Option<Vec<DeclaredArg<'_>>>,
        result: Option<Bound<'_, PyType>>,
    ) -> PyResult<OnnxModel> {
        let bytes = model.as_bytes();
        let model = py
            .detach(|| kerfx::graph::OnnxModel::new(bytes, None))
            .map_err(|e| model_error(py, ModelError::Import(e)))?;
        let mut inputs = Vec::new();
        for (name, dtype, dims) in declared.unwrap_or_default() {
            let dtype = match dtype.as_deref() {
                None => None,
                Some("") => Some(None),
                Some(d) => {
                    Some(Some(d.parse::<DType>().map_err(|e| invalid(py, None, Some("declared"), e.to_string()))?))
                }
            };
            inputs.push(Declared { name: name.unbind(), dtype, dims });
        }
        let result = match result {
            Some(class) if class.is_subclass_of::<PyTuple>()? => {
                let new = py.get_type::<PyTuple>().getattr(pyo3::intern!(py, "__new__"))?;
                Some((class.unbind(), new.unbind()))
            }
            Some(class) => {
                return Err(invalid(
                    py,
                    None,
                    Some("result"),
                    format!("result: {} is not a tuple class", class.name()?),
                ));
            }
            None => None,
        };
        Ok(OnnxModel { model, declared: inputs, result, runners: Mutex::new(Vec::new()) })
    }

    /// `run` for the graph inputs given as plain arrays that match their declarations
    /// (see the class's doc), on the JIT; None when they are not.
    fn run_fast<'py>(&self, py: Python<'py>, inputs: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(given) = self.fast_inputs(inputs)? else { return Ok(None) };
        let Some(runner) = self.fast_runner(py, &given) else { return Ok(None) };
        let descr = dtypes::descr_for(py, runner.dtype(), Form::Natural)?;
        let mut outs = Vec::with_capacity(runner.output_shapes().len());
        for shape in runner.output_shapes() {
            outs.push(arrays::new_array(py, shape, descr.clone())?);
        }
        // Making the outputs may have run Python code (a collection's finalizers): the
        // inputs' layouts are checked again now, and from here on no Python code runs
        // until the kernel is done (the GIL is held throughout).
        let mut ins = Vec::with_capacity(given.len());
        for (k, (input, (_, shape))) in given.iter().zip(runner.inputs()).enumerate() {
            let (data, len) = fast_buffer(input, shape).ok_or_else(|| {
                let name = self.declared[k].name.bind(py).to_string();
                invalid(py, None, Some(&name), format!("input `{name}` changed while the call ran"))
            })?;
            // SAFETY: a C-contiguous array of `shape` whose elements are `len` bytes from
            // `data` (checked by `fast_buffer` just above), alive while `given` holds it;
            // no Python code runs until the kernel is done, so nothing frees or resizes it.
            ins.push(unsafe { crate::bytes_at(data, len) });
        }
        let mut buffers = Vec::with_capacity(outs.len());
        for (o, (array, shape)) in outs.iter().zip(runner.output_shapes()).enumerate() {
            let fresh = FastInput { array: array.clone(), descr: descr.clone(), dtype: runner.dtype() };
            let Some((data, len)) = fast_buffer(&fresh, shape).filter(|_| is_writeable(array)) else {
                return Err(invalid(py, None, None, format!("output {o}: changed while the call ran")));
            };
            // SAFETY: a new C-contiguous writeable array of `len` bytes (checked by
            // `fast_buffer` and `is_writeable`), alive while `outs` is, that no other slice
            // refers to; no Python code runs until the kernel is done.
            buffers.push(unsafe { crate::bytes_at_mut(data, len) });
        }
        runner.run(&ins, &mut buffers).map_err(|e| crate::errors::from_kerf(py, &e))?;
        match &self.result {
            Some((class, new)) => new.bind(py).call1((class.bind(py), PyTuple::new(py, outs)?)).map(Some),
            None => Ok(Some(PyList::new(py, outs)?.into_any())),
        }
    }

    /// The graph's outputs for `inputs` (a dict of arrays by graph input name), in
    /// order, each a new array. `backend`: "jit" (default), "jit-dynamic" or "reference".
    /// `raw`: outputs of dtypes numpy lacks as `kerfx.raw` gives them (their bits in
    /// unsigned integers), as for inputs given that way.
    #[pyo3(signature = (inputs, /, *, backend = "jit", raw = false))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        inputs: &Bound<'py, PyDict>,
        backend: &str,
        raw: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let arrays = array_args(py, inputs)?;
        let backend = self::backend(py, backend)?;
        let form = if raw { Form::Raw } else { Form::Natural };
        // Strings and 4-bit types (one element per byte in numpy) are converted; every
        // other input is read in place.
        let mut owned = BTreeMap::new();
        for (name, a) in &arrays {
            if matches!(a.dtype, DType::String | DType::I4 | DType::U4) {
                let bad = |e: String| invalid(py, None, Some(name), format!("input `{name}`: {e}"));
                owned.insert(name.clone(), a.tensor()?.map_err(bad)?);
            }
        }
        let signature = arrays.iter().map(|(k, a)| (k.clone(), a.dtype, a.shape())).collect();
        let prepared = self.model.prepare_for(signature).map_err(|e| model_error(py, e))?;
        // A graph of one program on the JIT writes straight into new arrays.
        let direct = match (backend, prepared.single_program()) {
            (Backend::Jit { jit, dynamic }, Some((dtype, shapes)))
                if !matches!(dtype, DType::String | DType::I4 | DType::U4) =>
            {
                let outs = shapes.iter().map(|s| arrays::empty(py, s, dtype, form)).collect::<PyResult<Vec<_>>>()?;
                Some((jit, dynamic, outs))
            }
            _ => None,
        };
        // Buffers are taken (their layout checked again) only now, with no Python code run
        // after: the GIL stays held while the graph runs, so nothing changes them.
        let mut bytes = BTreeMap::new();
        for (name, a) in arrays.iter().filter(|(name, _)| !owned.contains_key(name)) {
            let bad = |e: String| invalid(py, None, Some(name), format!("input `{name}`: {e}"));
            bytes.insert(name.clone(), (a.dtype, a.shape(), a.bytes().map_err(bad)?));
        }
        let mut views: BTreeMap<String, TensorView<'_>> = owned.iter().map(|(k, t)| (k.clone(), t.view())).collect();
        for (name, (dtype, shape, data)) in &bytes {
            views.insert(name.clone(), TensorView { dtype: *dtype, shape, data: ViewData::Bytes(data) });
        }
        if let Some((jit, dynamic, outs)) = direct {
            let mut buffers = Vec::with_capacity(outs.len());
            for (o, a) in outs.iter().enumerate() {
                let (data, len) = a.buffer_mut().map_err(|e| invalid(py, None, None, format!("output {o}: {e}")))?;
                // SAFETY: a new C-contiguous writeable array (checked by `buffer_mut`) of
                // `len` bytes, alive while `outs` is, that nothing else refers to; the GIL
                // is held, so no Python code runs meanwhile.
                buffers.push(unsafe { crate::bytes_at_mut(data, len) });
            }
            prepared.run_into(&views, &mut buffers, jit, dynamic).map_err(|e| crate::errors::from_kerf(py, &e))?;
            return PyList::new(py, outs.into_iter().map(|a| a.array));
        }
        let outs = prepared.run_views(&views, backend).map_err(|e| crate::errors::from_kerf(py, &e))?;
        let arrays = outs.iter().map(|(_, t)| crate::to_numpy_as(py, t, form)).collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, arrays)
    }

    /// The programs the graph runs as for `inputs`' dtypes and shapes: per program, the
    /// labels of its nodes.
    fn groups(&self, py: Python<'_>, inputs: &Bound<'_, PyDict>) -> PyResult<Vec<Vec<String>>> {
        // Only the inputs' dtypes and shapes decide the programs: nothing is copied.
        let signature = array_args(py, inputs)?.iter().map(|(k, a)| (k.clone(), a.dtype, a.shape())).collect();
        let prepared = py.detach(|| self.model.prepare_for(signature)).map_err(|e| model_error(py, e))?;
        let graph = prepared.graph();
        Ok(prepared.groups().iter().map(|g| g.nodes.iter().map(|&k| graph.nodes[k].label(k)).collect()).collect())
    }
}

impl OnnxModel {
    /// The graph inputs in declared order when `inputs` gives each as a plain array that
    /// matches its declaration (a list or tuple of them in order, a dict of exactly them
    /// by name, or the one array of a graph of one input); `None` otherwise.
    fn fast_inputs<'py>(&self, inputs: &Bound<'py, PyAny>) -> PyResult<Option<Vec<FastInput<'py>>>> {
        let py = inputs.py();
        let n = self.declared.len();
        let objects: Vec<Bound<'py, PyAny>> = if let Ok(list) = inputs.cast::<PyList>() {
            if list.len() != n {
                return Ok(None);
            }
            list.iter().collect()
        } else if let Ok(tuple) = inputs.cast::<PyTuple>() {
            if tuple.len() != n {
                return Ok(None);
            }
            tuple.iter().collect()
        } else if let Ok(dict) = inputs.cast::<PyDict>() {
            if dict.len() != n {
                return Ok(None);
            }
            let mut objects = Vec::with_capacity(n);
            for d in &self.declared {
                match dict.get_item(d.name.bind(py))? {
                    Some(v) => objects.push(v),
                    None => return Ok(None),
                }
            }
            objects
        } else if n == 1 && inputs.cast::<PyUntypedArray>().is_ok() {
            vec![inputs.clone()]
        } else {
            return Ok(None);
        };
        let mut given = Vec::with_capacity(n);
        for (obj, declared) in objects.iter().zip(&self.declared) {
            let Ok(array) = obj.cast::<PyUntypedArray>() else { return Ok(None) };
            let descr = array.dtype();
            // Strings and 4-bit types are converted, byte-swapped or strided arrays
            // copied: `run` does that.
            let dtype = match dtypes::of_descr(&descr) {
                Ok(DType::String | DType::I4 | DType::U4) | Err(_) => return Ok(None),
                Ok(d) => d,
            };
            if !array.is_c_contiguous() || descr.is_native_byteorder() == Some(false) {
                return Ok(None);
            }
            if declared.dtype.is_some_and(|d| d != Some(dtype)) {
                return Ok(None);
            }
            if let Some(dims) = &declared.dims {
                let shape = array.shape();
                let fits = |(f, &s): (&Option<i64>, &usize)| f.is_none_or(|f| i64::try_from(s) == Ok(f));
                if dims.len() != shape.len() || !dims.iter().zip(shape).all(fits) {
                    return Ok(None);
                }
            }
            given.push(FastInput { array: array.clone(), descr, dtype });
        }
        Ok(Some(given))
    }

    /// The runner for the inputs' dtypes and shapes, prepared (and cached) on a miss;
    /// `None` when the graph does not run as one program for them, or does not prepare
    /// (`run` then says why).
    fn fast_runner(&self, py: Python<'_>, given: &[FastInput<'_>]) -> Option<Arc<Runner>> {
        let matches = |e: &FastEntry| {
            e.signature
                .iter()
                .zip(given)
                .all(|((d, s), g)| *d == g.dtype && s.iter().copied().eq(g.array.shape().iter().map(|&n| n as u64)))
        };
        // A poisoned lock only means a thread panicked holding it; the list is whole.
        let lock = || self.runners.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        {
            let mut runners = lock();
            if let Some(at) = runners.iter().position(matches) {
                let runner = runners[at].runner.clone();
                if at > 0 {
                    let entry = runners.remove(at);
                    runners.insert(0, entry);
                }
                return runner;
            }
        }
        let signature: Vec<(DType, Vec<u64>)> =
            given.iter().map(|g| (g.dtype, g.array.shape().iter().map(|&n| n as u64).collect())).collect();
        let names: Vec<String> = self.declared.iter().map(|d| d.name.bind(py).to_string()).collect();
        let jit = crate::jit(py).ok()?;
        let runner = py
            .detach(|| {
                let named = names.iter().zip(&signature).map(|(k, (d, s))| (k.clone(), *d, s.clone())).collect();
                let prepared = self.model.prepare_for(named).ok()?;
                // 4-bit outputs are unpacked into one byte per element, strings are objects: `run`.
                let (dtype, _) = prepared.single_program()?;
                if matches!(dtype, DType::String | DType::I4 | DType::U4) {
                    return None;
                }
                let order: Vec<&str> = names.iter().map(String::as_str).collect();
                prepared.runner(&order, jit, false).ok()
            })
            .map(Arc::new);
        let mut runners = lock();
        if runners.len() >= FAST_SIGNATURES {
            runners.pop();
        }
        runners.insert(0, FastEntry { signature, runner: runner.clone() });
        runner
    }
}

/// The address and byte length of an array's elements when it is still C-contiguous,
/// of `shape` and of the dtype object it had when taken; `None` when it changed.
fn fast_buffer(input: &FastInput<'_>, shape: &[u64]) -> Option<(usize, usize)> {
    let array = &input.array;
    let same_shape = array.shape().iter().map(|&n| n as u64).eq(shape.iter().copied());
    if !same_shape || !array.is_c_contiguous() || !array.dtype().is(&input.descr) {
        return None;
    }
    let len = array.len().checked_mul(input.descr.itemsize())?;
    // SAFETY: `as_array_ptr` points at the live array object `input.array` holds a
    // reference to (a checked cast made it a `PyUntypedArray`).
    let data = unsafe { (*_PyArray_GET_ITEM_DATA(array.as_array_ptr())).data };
    Some((data as usize, len))
}

/// Whether numpy lets `array` be written.
fn is_writeable(array: &Bound<'_, PyUntypedArray>) -> bool {
    // SAFETY: as in `fast_buffer`: the array object is live.
    let flags = unsafe { (*_PyArray_GET_ITEM_DATA(array.as_array_ptr())).flags };
    flags & NPY_ARRAY_WRITEABLE != 0
}

/// The ONNX op types kerf evaluates on the host when their inputs are known when a
/// model is prepared (its shape path: `Shape`, `Gather` of shapes, `Concat` of them, ...).
#[pyfunction]
pub fn onnx_host_ops() -> Vec<&'static str> {
    kerfx::onnx::shape::HOST_OPS.to_vec()
}
