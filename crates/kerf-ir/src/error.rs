//! Typed errors: one variant per kind of bad input, each naming the op, the
//! attribute or input, the axis and the rule broken.

use crate::dtype::DType;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    #[error("unknown op `{op}` (known: {known})")]
    UnknownOp { op: String, known: String },

    #[error("{op}: unknown version {version} (known: {known:?})")]
    UnknownVersion { op: String, version: u32, known: Vec<u32> },

    #[error("{op}: unknown attribute `{name}`{}", version_note(*.version))]
    UnknownAttribute { op: String, name: String, version: Option<u32> },

    #[error("{op}: attribute `{name}` must be {expected}, found {found}")]
    AttributeType { op: String, name: String, expected: String, found: String },

    #[error("{op}: attribute `{name}` = {value} is not allowed (allowed: {allowed})")]
    AttributeValue { op: String, name: String, value: String, allowed: String },

    #[error("{op}: missing required attribute `{name}`")]
    MissingAttribute { op: String, name: String },

    #[error("{op}: unknown input `{name}`{}", version_note(*.version))]
    UnknownInput { op: String, name: String, version: Option<u32> },

    #[error("{op}: missing input `{name}`")]
    MissingInput { op: String, name: String },

    #[error("{op}: input `{name}` has dtype {dtype}, not in its type set {allowed}")]
    InputDType { op: String, name: String, dtype: DType, allowed: String },

    #[error("{op}: input `{name}` must be {expected}, found shape {found:?}")]
    InputRank { op: String, name: String, expected: String, found: Vec<u64> },

    /// A rule of the spec (by id) is broken; `detail` says how.
    #[error("{op}: rule `{rule}` broken: {detail}")]
    Rule { op: String, rule: String, detail: String },

    #[error("{op}: {what}: {value} overflows 64-bit index arithmetic")]
    Overflow { op: String, what: String, value: String },

    #[error("{what} is too large to allocate")]
    TooLarge { what: String },

    #[error("buffer for {what}: expected {expected} bytes, found {found}")]
    BufferLength { what: String, expected: usize, found: usize },

    #[error("{what}: expected {expected}, found {found}")]
    Mismatch { what: String, expected: String, found: String },

    #[error("invalid: {what}")]
    Invalid { what: String },

    /// A step of a chain is wrong (numbered from 1): the error it gives on its own input.
    #[error("step {step} ({op}): {source}")]
    Step { step: usize, op: String, source: Box<Error> },

    #[error("spec: {0}")]
    Spec(#[from] kerf_spec::SpecError),
}

fn version_note(v: Option<u32>) -> String {
    v.map(|v| format!(" in version {v}")).unwrap_or_default()
}

impl Error {
    /// Shorthand for a broken spec rule.
    pub fn rule(op: &str, rule: &str, detail: impl Into<String>) -> Error {
        Error::Rule { op: op.to_string(), rule: rule.to_string(), detail: detail.into() }
    }
}
