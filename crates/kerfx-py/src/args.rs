//! Keyword arguments → a kerf request. The spec's own names are the keywords; the type
//! of each argument decides what it is: a numpy array (or numpy scalar, `kerfx.raw`) is a
//! tensor input, `kerfx.meta` an input known by dtype and shape only, and a Python int,
//! float, str or list an attribute — or, for a name the op has only as an input, a
//! static value (an int is an i64 scalar, a list of ints -- `[]` too -- a 1-D i64 tensor,
//! as in request files).

use crate::arrays::{ArrayArg, numpy};
use crate::errors::{self, KerfResult};
use kerfx::{AttrValue, DType, InputArg, Request};
use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// `kerfx.meta(dtype, shape)`: an input known by dtype and shape only, to compile a kernel
/// before its data exists.
#[pyclass(frozen, module = "kerfx", name = "Meta")]
pub struct Meta {
    pub dtype: DType,
    pub shape: Vec<u64>,
}

#[pymethods]
impl Meta {
    fn __repr__(&self) -> String {
        format!("kerfx.meta(\"{}\", {:?})", self.dtype, self.shape)
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
    /// The data input (the tensor a slice reads) by name; `None` for fills or a
    /// `kerfx.meta` one.
    pub data: Option<(String, ArrayArg<'py>)>,
}

/// The op id argument as text (PyO3's own `&str` conversion raises a bare
/// `UnicodeEncodeError` for a lone surrogate, and a TypeError whose message does not
/// name the argument).
/// (A copy: the limited API of abi3 before Python 3.10 lends no UTF-8 view of a str.)
pub fn op(py: Python<'_>, op: &Bound<'_, PyAny>) -> PyResult<String> {
    let Ok(text) = op.cast::<PyString>() else {
        let kind = op.get_type().name()?;
        return Err(PyTypeError::new_err(format!("`op` must be a str (an op id, e.g. \"onnx.slice\"), not {kind}")));
    };
    match text.to_cow() {
        Ok(text) => Ok(text.into_owned()),
        Err(_) => Err(errors::invalid(py, None, Some("op"), format!("op id {} is not UTF-8 text", op.repr()?))),
    }
}

/// A bool keyword (PyO3's own conversion raises a TypeError not naming it).
pub fn flag(value: &Bound<'_, PyAny>, name: &str) -> PyResult<bool> {
    match value.cast::<PyBool>() {
        Ok(b) => Ok(b.is_true()),
        Err(_) => Err(PyTypeError::new_err(format!("`{name}` must be a bool, not {}", value.get_type().name()?))),
    }
}

/// The `version` keyword: `None`, or an int that is an op version. (PyO3's own `u32`
/// conversion raises a bare `OverflowError` for `-1`.)
pub fn version(py: Python<'_>, op: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u32>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    let kind = || value.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    if value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!("{op}: `version` must be an int, not a bool")));
    }
    match value.extract::<u32>() {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.is_instance_of::<PyOverflowError>(py) => Err(errors::invalid(
            py,
            Some(op),
            Some("version"),
            format!("version {value} is not an op version (versions are integers from 1 to {})", u32::MAX),
        )),
        Err(_) => Err(PyTypeError::new_err(format!("{op}: `version` must be an int, not {}", kind()))),
    }
}

/// Build the request for `op` from keyword arguments.
pub fn build<'py>(
    py: Python<'py>,
    op: &str,
    version: Option<u32>,
    params: Option<&Bound<'py, PyDict>>,
) -> PyResult<Call<'py>> {
    let spec = kerfx::op_spec(op).py(py)?;
    // The arguments' conversions run Python code (`__len__`, `__array__`), which could
    // change the dict meanwhile: its items are taken first, with no Python code run.
    let params: Vec<_> = params.into_iter().flat_map(|d| d.iter()).collect();
    // Names are looked up in the version asked for; an unknown version is reported by
    // the request's validation.
    let v = version.unwrap_or_else(|| spec.latest_version());
    let data_name = kerfx::data_input_name(spec);
    let mut request = Request::new(op);
    request.version = version;
    let mut data = None;
    for (key, value) in params {
        let Ok(name) = key.extract::<String>() else {
            let message = format!("keyword {} is not UTF-8 text", key.repr()?);
            return Err(errors::invalid(py, Some(op), None, message));
        };
        let bad = |m: String| errors::invalid(py, Some(op), Some(&name), m);
        if let Ok(meta) = value.cast::<Meta>() {
            let meta = meta.get();
            request.inputs.insert(name, InputArg::Meta { dtype: meta.dtype, shape: meta.shape.clone() });
            continue;
        }
        if name == "outputs" && spec.variadic_output() && spec.attribute("outputs").is_none() {
            let n = value.extract::<u32>().ok().filter(|&n| n >= 1);
            request.outputs = Some(n.ok_or_else(|| bad(format!("outputs = {value}: an output count is at least 1")))?);
            continue;
        }
        if spec.input(&name).is_some_and(|i| i.variadic) {
            // A list of tensors, each converted as one input is (copied: several buffers).
            let items: Vec<Bound<'py, PyAny>> =
                if value.is_instance_of::<PyString>() || ArrayArg::from_py(&value)?.is_ok_and(|a| a.is_some()) {
                    return Err(bad(format!("input `{name}` is variadic: give a list or tuple of arrays")));
                } else {
                    value
                        .try_iter()
                        .map_err(|_| bad(format!("input `{name}` is variadic: give a list or tuple of arrays")))?
                        .collect::<PyResult<_>>()?
                };
            let mut entries = Vec::with_capacity(items.len());
            for (k, item) in items.iter().enumerate() {
                // `kerfx.meta(...)`: an entry known by dtype and shape only (to compile).
                if let Ok(meta) = item.cast::<Meta>() {
                    let meta = meta.get();
                    entries.push(InputArg::Meta { dtype: meta.dtype, shape: meta.shape.clone() });
                    continue;
                }
                let array = match ArrayArg::from_py(item)?.map_err(|e| bad(format!("input `{name}[{k}]`: {e}")))? {
                    Some(a) => a,
                    None => {
                        let a = numpy(py)?
                            .getattr(pyo3::intern!(py, "asarray"))?
                            .call1((item,))
                            .map_err(|e| bad(format!("input `{name}[{k}]`: not a tensor value: {e}")))?;
                        ArrayArg::from_py(&a)?
                            .map_err(|e| bad(format!("input `{name}[{k}]`: {e}")))?
                            .ok_or_else(|| bad(format!("input `{name}[{k}]`: not a tensor value")))?
                    }
                };
                let tensor = array.tensor()?.map_err(|e| bad(format!("input `{name}[{k}]`: {e}")))?;
                entries.push(InputArg::Tensor(tensor));
            }
            request.inputs.insert(name, InputArg::List(entries));
            continue;
        }
        let is_attribute = spec.attribute(&name).is_some_and(|a| kerfx::spec::in_version(&a.versions, v));
        let is_input = spec.input(&name).is_some_and(|i| kerfx::spec::in_version(&i.versions, v));
        // The data input is read where it lies whatever its strides (a view kernel).
        let convert = if data_name == Some(name.as_str()) { ArrayArg::from_py_view } else { ArrayArg::from_py };
        let array = match convert(&value)?.map_err(|e| bad(format!("input `{name}`: {e}")))? {
            Some(array) => array,
            None if is_input && !is_attribute => {
                // As in request files, `[]` is an empty i64 tensor (numpy would make f64).
                let empty = value.len().is_ok_and(|n| n == 0) && !value.is_instance_of::<PyString>();
                let dtype = if empty { Some("int64") } else { None };
                let array = numpy(py)?
                    .getattr(pyo3::intern!(py, "asarray"))?
                    .call1((&value, dtype))
                    .map_err(|e| bad(format!("input `{name}`: {value} is not a tensor value: {e}")))?;
                let array = ArrayArg::from_py(&array)?
                    .map_err(|e| bad(format!("input `{name}`: {e}")))?
                    .ok_or_else(|| bad(format!("input `{name}`: {value} is not a tensor value")))?;
                if let Some(e) = oversized_int(&array)? {
                    return Err(bad(format!("input `{name}`: {e}")));
                }
                array
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
            request.inputs.insert(name.clone(), InputArg::Meta { dtype: array.dtype, shape: array.shape() });
            data = Some((name, array));
        } else {
            let tensor = array.tensor()?.map_err(|e| bad(format!("input `{name}`: {e}")))?;
            request.inputs.insert(name, InputArg::Tensor(tensor));
        }
    }
    Ok(Call { request, data })
}

/// numpy keeps ints beyond 64 bits as Python objects, so a static value holding one
/// becomes an object array, which kerf would take for strings: name the int instead.
fn oversized_int(array: &ArrayArg<'_>) -> PyResult<Option<String>> {
    if array.dtype != DType::String {
        return Ok(None);
    }
    for (i, item) in array.elements()?.try_iter()?.enumerate() {
        let item = item?;
        if item.is_instance_of::<PyInt>() && item.extract::<i64>().is_err() {
            return Ok(Some(format!("element {i} = {item} does not fit a 64-bit integer")));
        }
    }
    Ok(None)
}

/// A Python value as an attribute value.
fn attr_value(value: &Bound<'_, PyAny>) -> Result<AttrValue, String> {
    if let Some(b) = boolean(value)? {
        return Ok(AttrValue::Bool(b));
    }
    if value.is_instance_of::<PyString>() {
        return Ok(AttrValue::Str(value.extract::<String>().map_err(|e| e.to_string())?));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let mut ints = Vec::new();
        let mut floats = Vec::new();
        let items = value.try_iter().map_err(|e| e.to_string())?;
        for (i, item) in items.enumerate() {
            match number(&item.map_err(|e| e.to_string())?).map_err(|e| format!("[{i}]: {e}"))? {
                Number::Int(n) => {
                    ints.push(n);
                    floats.push(n as f64);
                }
                Number::Float(f) => floats.push(f),
                Number::UInt(n) => return Err(format!("[{i}]: {n} does not fit a signed 64-bit integer")),
            }
        }
        return Ok(if ints.len() == floats.len() { AttrValue::IntList(ints) } else { AttrValue::FloatList(floats) });
    }
    Ok(match number(value)? {
        Number::Int(n) => AttrValue::Int(n),
        Number::UInt(n) => AttrValue::UInt(n),
        Number::Float(f) => AttrValue::Float(f),
    })
}

/// A Python bool or a numpy bool scalar (`np.True_`): a `bool` attribute's value.
fn boolean(value: &Bound<'_, PyAny>) -> Result<Option<bool>, String> {
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Some(b.is_true()));
    }
    let py = value.py();
    let np_bool = numpy(py).and_then(|np| np.getattr(pyo3::intern!(py, "bool_"))).map_err(|e| e.to_string())?;
    if value.is_instance(&np_bool).unwrap_or(false) {
        return value.is_truthy().map(Some).map_err(|e| e.to_string());
    }
    Ok(None)
}

enum Number {
    Int(i64),
    /// Past i64: the u64 of a `u64` attribute (a seed); validation refuses it elsewhere.
    UInt(u64),
    Float(f64),
}

/// An int or float (Python's or numpy's).
fn number(value: &Bound<'_, PyAny>) -> Result<Number, String> {
    let py = value.py();
    let generic = numpy(py).and_then(|np| np.getattr(pyo3::intern!(py, "generic"))).map_err(|e| e.to_string())?;
    if value.is_instance(&generic).unwrap_or(false) {
        // A numpy scalar's value; once only (a subclass's `item` may return the scalar itself).
        let item = value.call_method0(pyo3::intern!(py, "item")).map_err(|e| e.to_string())?;
        return python_number(&item);
    }
    python_number(value)
}

/// A Python int or float.
fn python_number(value: &Bound<'_, PyAny>) -> Result<Number, String> {
    let kind = || value.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    if value.is_instance_of::<PyBool>() {
        return Err(format!("{value} is a bool; attribute lists hold numbers only (write 0 or 1)"));
    }
    if value.is_instance_of::<PyInt>() {
        return value
            .extract::<i64>()
            .map(Number::Int)
            .or_else(|_| value.extract::<u64>().map(Number::UInt))
            .map_err(|_| format!("{value} does not fit a 64-bit integer"));
    }
    if value.is_instance_of::<PyFloat>() {
        return value.extract::<f64>().map(Number::Float).map_err(|e| e.to_string());
    }
    Err(format!("a {} is not an attribute value (an int, a float, a str, a bool or a list of numbers)", kind()))
}
