//! `kerfx.KerfError`: every request kerf refuses, with the CLI's message and the op,
//! rule id and attribute/input name it is about.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    kerfx,
    KerfError,
    PyValueError,
    "A request kerf refuses: unknown op, version, attribute or input; a value of the wrong \
type; a broken rule of the op's spec; a buffer that does not fit the kernel.\n\n\
str(e) is the message the `kerf` command prints: every problem of the request, one a \
line, unknown names with a \"did you mean\" hint. Attributes: `op` (the op id, or None), \
`rule` (the id of the spec rule broken, or None), `name` (the attribute or input the \
error is about, or None), `axis` (the input axis, or None) — of the first problem; \
`errors`: every problem as a KerfError of its own."
);

/// A kerf error as a `KerfError` carrying its op, rule id, name and axis, and (when the
/// request has several problems) each of them in `errors`.
pub fn from_kerf(py: Python<'_>, e: &kerfx::Error) -> PyErr {
    let list = e.list();
    let errors: Vec<PyErr> = if list.len() > 1 { list.iter().map(|e| from_kerf(py, e)).collect() } else { Vec::new() };
    let first = list.first().unwrap_or(e);
    let about = first.about().and_then(|a| a.name().map(str::to_string));
    let err = new(py, &e.to_string(), first.op(), first.rule_id(), about.as_deref(), first.axis());
    let set = || -> PyResult<()> {
        let value = err.value(py);
        let errors: Vec<Bound<'_, PyAny>> = if errors.is_empty() {
            vec![value.clone().into_any()]
        } else {
            errors.iter().map(|e| e.value(py).clone().into_any()).collect()
        };
        value.setattr("errors", errors)
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// A `KerfError` for a bad argument that kerf's core never sees (an `out` array of the
/// wrong shape, an attribute value Python cannot express as one).
pub fn invalid(py: Python<'_>, op: Option<&str>, name: Option<&str>, message: String) -> PyErr {
    let message = match op {
        Some(op) => format!("{op}: {message}"),
        None => message,
    };
    new(py, &message, op, None, name, None)
}

fn new(
    py: Python<'_>,
    message: &str,
    op: Option<&str>,
    rule: Option<&str>,
    name: Option<&str>,
    axis: Option<usize>,
) -> PyErr {
    let err = KerfError::new_err(message.to_string());
    let set = || -> PyResult<()> {
        let value = err.value(py);
        value.setattr("op", op)?;
        value.setattr("rule", rule)?;
        value.setattr("name", name)?;
        value.setattr("axis", axis)
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// Results of kerf's core as Python results.
pub trait KerfResult<T> {
    fn py(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> KerfResult<T> for Result<T, kerfx::Error> {
    fn py(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| from_kerf(py, &e))
    }
}
