//! `kerfx.ops()` and `kerfx.spec(op)`: the spec registry as Python values.

use crate::errors::KerfResult;
use kerfx::spec::{InputRank, OpSpec, RuleKind, TomlValue};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The spec of `op` as a dict.
pub fn to_dict<'py>(py: Python<'py>, op: &str) -> PyResult<Bound<'py, PyDict>> {
    let spec: &OpSpec = kerfx::op_spec(op).py(py)?;
    let d = PyDict::new(py);
    d.set_item("id", &spec.id)?;
    d.set_item("vendor", &spec.vendor)?;
    d.set_item("summary", &spec.summary)?;
    d.set_item("versions", &spec.versions)?;
    d.set_item("type_sets", &spec.type_sets)?;
    let attributes = PyList::empty(py);
    for a in &spec.attributes {
        let x = PyDict::new(py);
        x.set_item("name", &a.name)?;
        x.set_item("type", a.ty.name())?;
        x.set_item("required", a.required)?;
        x.set_item("default", a.default.as_ref().map(|v| toml_to_py(py, v)).transpose()?)?;
        x.set_item("allowed", &a.allowed)?;
        x.set_item("versions", &a.versions)?;
        x.set_item("doc", &a.doc)?;
        attributes.append(x)?;
    }
    d.set_item("attributes", attributes)?;
    let inputs = PyList::empty(py);
    let mut sorted: Vec<_> = spec.inputs.iter().collect();
    sorted.sort_by_key(|i| i.index);
    for i in sorted {
        let x = PyDict::new(py);
        x.set_item("index", i.index)?;
        x.set_item("name", &i.name)?;
        x.set_item("optional", i.optional)?;
        x.set_item("variadic", i.variadic)?;
        x.set_item("types", spec.type_set(&i.types).unwrap_or_default())?;
        x.set_item(
            "rank",
            match i.rank {
                InputRank::Any => "any",
                InputRank::Scalar => "scalar",
                InputRank::Vector => "vector",
                InputRank::ScalarOrVector => "scalar_or_vector",
            },
        )?;
        x.set_item("replaces", &i.replaces)?;
        x.set_item("versions", &i.versions)?;
        x.set_item("doc", &i.doc)?;
        inputs.append(x)?;
    }
    d.set_item("inputs", inputs)?;
    let outputs = PyList::empty(py);
    for o in spec.output_specs() {
        let x = PyDict::new(py);
        x.set_item("name", &o.name)?;
        x.set_item("variadic", o.variadic)?;
        x.set_item("doc", &o.doc)?;
        outputs.append(x)?;
    }
    d.set_item("outputs", outputs)?;
    let rules = PyList::empty(py);
    for r in &spec.rules {
        let x = PyDict::new(py);
        x.set_item("id", &r.id)?;
        x.set_item("kind", if r.kind == RuleKind::Dtype { "dtype" } else { "frontend" })?;
        x.set_item("versions", &r.versions)?;
        x.set_item("subject", &r.subject)?;
        let when = match &r.when {
            Some(c) => {
                let w = PyDict::new(py);
                w.set_item("attribute", &c.attribute)?;
                w.set_item("in", &c.values)?;
                Some(w)
            }
            None => None,
        };
        x.set_item("when", when)?;
        x.set_item("allow", &r.allow)?;
        x.set_item("forbid", &r.forbid)?;
        x.set_item("doc", &r.doc)?;
        rules.append(x)?;
    }
    d.set_item("rules", rules)?;
    let examples = PyList::empty(py);
    for ex in &spec.examples {
        let x = PyDict::new(py);
        x.set_item("name", &ex.name)?;
        x.set_item("doc", &ex.doc)?;
        x.set_item("version", ex.version)?;
        x.set_item("attributes", toml_to_py(py, &TomlValue::Table(ex.attributes.clone()))?)?;
        x.set_item("inputs", toml_to_py(py, &TomlValue::Table(ex.inputs.clone()))?)?;
        let literal = |t: &kerfx::spec::TensorLiteral| -> PyResult<Bound<'_, PyDict>> {
            let e = PyDict::new(py);
            e.set_item("dtype", &t.dtype)?;
            e.set_item("shape", &t.shape)?;
            e.set_item("values", toml_to_py(py, &TomlValue::Array(t.values.clone()))?)?;
            Ok(e)
        };
        x.set_item("expected", ex.expected.as_ref().map(literal).transpose()?)?;
        let outputs = ex.expected_outputs.iter().flatten().map(literal).collect::<PyResult<Vec<_>>>()?;
        x.set_item("expected_outputs", ex.expected_outputs.is_some().then_some(outputs))?;
        x.set_item("error", &ex.error)?;
        examples.append(x)?;
    }
    d.set_item("examples", examples)?;
    Ok(d)
}

fn toml_to_py(py: Python<'_>, v: &TomlValue) -> PyResult<Py<PyAny>> {
    match v {
        TomlValue::String(s) => s.into_py_any(py),
        TomlValue::Integer(i) => i.into_py_any(py),
        TomlValue::Float(f) => f.into_py_any(py),
        TomlValue::Boolean(b) => b.into_py_any(py),
        TomlValue::Datetime(d) => d.to_string().into_py_any(py),
        TomlValue::Array(a) => {
            let items = a.iter().map(|x| toml_to_py(py, x)).collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_py_any(py)
        }
        TomlValue::Table(t) => {
            let d = PyDict::new(py);
            for (k, x) in t {
                d.set_item(k, toml_to_py(py, x)?)?;
            }
            d.into_py_any(py)
        }
    }
}
