//! Keyword arguments → a kerf request. The spec's own names are the keywords; the type
//! of each argument decides what it is: a numpy array (or numpy scalar, `kerf.raw`) is a
//! tensor input, `kerf.meta` an input known by dtype and shape only, and a Python int,
//! float, str or list an attribute — or, for a name the op has only as an input, a
//! static value (an int is an i64 scalar, a list of ints -- `[]` too -- a 1-D i64 tensor,
//! as in request files).

use crate::arrays::{ArrayArg, numpy};
use crate::errors::{self, KerfResult};
use kerf::{AttrValue, DType, InputArg, Request};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// `kerf.meta(dtype, shape)`: an input known by dtype and shape only, to compile a kernel
/// before its data exists.
#[pyclass(frozen, module = "kerf", name = "Meta")]
pub struct Meta {
    pub dtype: DType,
    pub shape: Vec<u64>,
}

#[pymethods]
impl Meta {
    fn __repr__(&self) -> String {
        format!("kerf.meta(\"{}\", {:?})", self.dtype, self.shape)
    }
    /// The kerf dtype name.
    #[getter]
    fn dtype(&self) -> &'static str {
        self.dtype.name()
    }
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.shape)
    }
}

/// A request, and the data input's array when it is read in place.
pub struct Call<'py> {
    pub request: Request,
    /// The data input (the tensor a slice reads); `None` for fills or a `kerf.meta` one.
    pub data: Option<ArrayArg<'py>>,
}

/// Build the request for `op` from keyword arguments.
pub fn build<'py>(
    py: Python<'py>,
    op: &str,
    version: Option<u32>,
    params: Option<&Bound<'py, PyDict>>,
) -> PyResult<Call<'py>> {
    let spec = kerf::op_spec(op).py(py)?;
    // Names are looked up in the version asked for; an unknown version is reported by
    // the request's validation.
    let v = version.unwrap_or_else(|| spec.latest_version());
    let data_name = kerf::data_input_name(spec);
    let mut request = Request::new(op);
    request.version = version;
    let mut data = None;
    for (key, value) in params.into_iter().flat_map(|d| d.iter()) {
        let name: String = key.extract()?;
        let bad = |m: String| errors::invalid(py, Some(op), Some(&name), m);
        if let Ok(meta) = value.cast::<Meta>() {
            let meta = meta.get();
            request.inputs.insert(name, InputArg::Meta { dtype: meta.dtype, shape: meta.shape.clone() });
            continue;
        }
        let is_attribute = spec.attribute(&name).is_some_and(|a| kerf::spec::in_version(&a.versions, v));
        let is_input = spec.input(&name).is_some_and(|i| kerf::spec::in_version(&i.versions, v));
        let array = match ArrayArg::from_py(&value)?.map_err(|e| bad(format!("input `{name}`: {e}")))? {
            Some(array) => array,
            None if is_input && !is_attribute => {
                // As in request files, `[]` is an empty i64 tensor (numpy would make f64).
                let empty = value.len().is_ok_and(|n| n == 0) && !value.is_instance_of::<PyString>();
                let dtype = if empty { Some("int64") } else { None };
                let array = numpy(py)?
                    .getattr(pyo3::intern!(py, "asarray"))?
                    .call1((&value, dtype))
                    .map_err(|e| bad(format!("input `{name}`: {value} is not a tensor value: {e}")))?;
                ArrayArg::from_py(&array)?
                    .map_err(|e| bad(format!("input `{name}`: {e}")))?
                    .ok_or_else(|| bad(format!("input `{name}`: {value} is not a tensor value")))?
            }
            None => {
                let attribute = attr_value(&value).map_err(|e| bad(format!("attribute `{name}`: {e}")))?;
                request.attributes.insert(name, attribute);
                continue;
            }
        };
        // The data input is read in place at run time: the request needs only its dtype
        // and shape. String data is copied: strings are Python objects.
        if data_name == Some(name.as_str()) && array.dtype != DType::String {
            request.inputs.insert(name, InputArg::Meta { dtype: array.dtype, shape: array.shape() });
            data = Some(array);
        } else {
            let tensor = array.tensor()?.map_err(|e| bad(format!("input `{name}`: {e}")))?;
            request.inputs.insert(name, InputArg::Tensor(tensor));
        }
    }
    Ok(Call { request, data })
}

/// A Python value as an attribute value.
fn attr_value(value: &Bound<'_, PyAny>) -> Result<AttrValue, String> {
    if value.is_instance_of::<PyString>() {
        return Ok(AttrValue::Str(value.extract::<String>().map_err(|e| e.to_string())?));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let mut ints = Vec::new();
        let mut floats = Vec::new();
        let items = value.try_iter().map_err(|e| e.to_string())?;
        for (i, item) in items.enumerate() {
            match number(&item.map_err(|e| e.to_string())?).map_err(|e| format!("[{i}]: {e}"))? {
                AttrValue::Int(n) => {
                    ints.push(n);
                    floats.push(n as f64);
                }
                AttrValue::Float(f) => floats.push(f),
                other => return Err(format!("[{i}]: {other} does not fit a signed 64-bit integer")),
            }
        }
        return Ok(if ints.len() == floats.len() { AttrValue::IntList(ints) } else { AttrValue::FloatList(floats) });
    }
    number(value)
}

/// An int or float (Python's or numpy's) as an attribute value.
fn number(value: &Bound<'_, PyAny>) -> Result<AttrValue, String> {
    let py = value.py();
    let kind = || value.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    if value.is_instance_of::<PyBool>() {
        return Err(format!(
            "{value} is a bool; attributes are ints, floats, strings or lists of numbers (write 0 or 1)"
        ));
    }
    if value.is_instance_of::<PyInt>() {
        // Past i64: the u64 of a `u64` attribute (a seed); validation refuses it elsewhere.
        return value
            .extract::<i64>()
            .map(AttrValue::Int)
            .or_else(|_| value.extract::<u64>().map(AttrValue::UInt))
            .map_err(|_| format!("{value} does not fit a 64-bit integer"));
    }
    if value.is_instance_of::<PyFloat>() {
        return value.extract::<f64>().map(AttrValue::Float).map_err(|e| e.to_string());
    }
    let generic = numpy(py).and_then(|np| np.getattr(pyo3::intern!(py, "generic"))).map_err(|e| e.to_string())?;
    if value.is_instance(&generic).unwrap_or(false) {
        let item = value.call_method0(pyo3::intern!(py, "item")).map_err(|e| e.to_string())?;
        return number(&item);
    }
    Err(format!("a {} is not an attribute value (an int, a float, a str or a list of numbers)", kind()))
}
