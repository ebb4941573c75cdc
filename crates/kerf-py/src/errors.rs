//! `kerf.KerfError`: every request kerf refuses, with the CLI's message and the op,
//! rule id and attribute/input name it is about.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    kerf,
    KerfError,
    PyValueError,
    "A request kerf refuses: unknown op, version, attribute or input; a value of the wrong \
type; a broken rule of the op's spec; a buffer that does not fit the kernel.\n\n\
str(e) is the message the `kerf` command prints. Attributes: `op` (the op id, or None), \
`rule` (the id of the spec rule broken, or None), `name` (the attribute or input the \
error is about, or None)."
);

/// A kerf error as a `KerfError` carrying its op, rule id and name.
pub fn from_kerf(py: Python<'_>, e: &kerf::Error) -> PyErr {
    use kerf::Error as E;
    let (op, rule, name): (Option<&str>, Option<&str>, Option<&str>) = match e {
        E::UnknownOp { op, .. } | E::UnknownVersion { op, .. } | E::Overflow { op, .. } => (Some(op), None, None),
        E::UnknownAttribute { op, name, .. }
        | E::AttributeType { op, name, .. }
        | E::AttributeValue { op, name, .. }
        | E::MissingAttribute { op, name }
        | E::UnknownInput { op, name, .. }
        | E::MissingInput { op, name }
        | E::InputDType { op, name, .. }
        | E::InputRank { op, name, .. } => (Some(op), None, Some(name)),
        E::Rule { op, rule, .. } => (Some(op), Some(rule), None),
        _ => (None, None, None),
    };
    new(py, &e.to_string(), op, rule, name)
}

/// A `KerfError` for a bad argument that kerf's core never sees (an `out` array of the
/// wrong shape, an attribute value Python cannot express as one).
pub fn invalid(py: Python<'_>, op: Option<&str>, name: Option<&str>, message: String) -> PyErr {
    let message = match op {
        Some(op) => format!("{op}: {message}"),
        None => message,
    };
    new(py, &message, op, None, name)
}

fn new(py: Python<'_>, message: &str, op: Option<&str>, rule: Option<&str>, name: Option<&str>) -> PyErr {
    let err = KerfError::new_err(message.to_string());
    let set = || -> PyResult<()> {
        let value = err.value(py);
        value.setattr("op", op)?;
        value.setattr("rule", rule)?;
        value.setattr("name", name)
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

impl<T> KerfResult<T> for Result<T, kerf::Error> {
    fn py(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| from_kerf(py, &e))
    }
}
