//! `kerfx._kerf.OnnxModel`: an ONNX model run as whole graphs — imported with its shape
//! path folded and cut into fused programs once per set of input shapes
//! ([`kerfx::graph::OnnxModel`]), then run on the process's JIT.

use crate::arrays::{self, ArrayArg};
use crate::dtypes::Form;
use crate::errors::invalid;
use kerfx::graph::{Backend, ModelError};
use kerfx::onnx::OnnxError;
use kerfx::{DType, TensorView, ViewData};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::collections::BTreeMap;

/// An ONNX model (its serialized bytes, external data already inline) that kerf runs as
/// whole fused programs: `run(inputs)` with a dict of arrays by graph input name returns
/// the graph's outputs in order. `groups(inputs)` names the nodes of each program.
#[pyclass(frozen, module = "kerfx", name = "OnnxModel")]
pub struct OnnxModel {
    model: kerfx::graph::OnnxModel,
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
    fn new(py: Python<'_>, model: &Bound<'_, PyBytes>) -> PyResult<OnnxModel> {
        let bytes = model.as_bytes();
        let model = py
            .detach(|| kerfx::graph::OnnxModel::new(bytes, None))
            .map_err(|e| model_error(py, ModelError::Import(e)))?;
        Ok(OnnxModel { model })
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

/// The ONNX op types kerf evaluates on the host when their inputs are known when a
/// model is prepared (its shape path: `Shape`, `Gather` of shapes, `Concat` of them, ...).
#[pyfunction]
pub fn onnx_host_ops() -> Vec<&'static str> {
    kerfx::onnx::shape::HOST_OPS.to_vec()
}
