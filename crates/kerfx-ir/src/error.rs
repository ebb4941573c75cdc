//! Typed errors: one variant per kind of bad input, each naming the op, the
//! attribute or input, the axis and the rule broken — as data ([`Error::about`],
//! [`Error::rule_id`], [`Error::axis`]) as well as in the message.

use crate::dtype::DType;
use std::fmt;

/// Why a request, a plan or a buffer was refused. Every variant's message names what was
/// wrong; the accessors ([`Error::op`], [`Error::about`], [`Error::rule_id`],
/// [`Error::axis`]) give the same facts as data.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The request names an op kerf does not have.
    #[error("unknown op `{op}`{hint}")]
    UnknownOp {
        /// The id as the request wrote it.
        op: String,
        /// The nearest known ids, for the message.
        hint: Box<Hint>,
    },

    /// The request asks for a version the op's spec does not list.
    #[error("{op}: unknown version {version} (known: {known:?})")]
    UnknownVersion {
        /// The op's id (`vendor.op`).
        op: String,
        /// The version asked for.
        version: u32,
        /// The versions the spec lists.
        known: Vec<u32>,
    },

    /// The request gives an attribute the op (at that version) does not have.
    #[error("{op}: unknown attribute `{name}`{}{hint}", version_note(*.version))]
    UnknownAttribute {
        /// The op's id (`vendor.op`).
        op: String,
        /// The attribute's name as the request wrote it.
        name: String,
        /// The version, named in the message when the op has several.
        version: Option<u32>,
        /// The nearest known names, for the message.
        hint: Box<Hint>,
    },

    /// An attribute's value has the wrong type.
    #[error("{op}: attribute `{name}` must be {expected}, found {found}")]
    AttributeType {
        /// The op's id (`vendor.op`).
        op: String,
        /// The attribute's name.
        name: String,
        /// The type it must have, in words.
        expected: String,
        /// The kind of value given, in words.
        found: String,
    },

    /// An attribute's value is of the right type but not one the spec allows.
    #[error("{op}: attribute `{name}` = {value} is not allowed{hint} (allowed: {allowed})")]
    AttributeValue {
        /// The op's id (`vendor.op`).
        op: String,
        /// The attribute's name.
        name: String,
        /// The value given, as written.
        value: String,
        /// The values allowed, in words.
        allowed: String,
        /// The nearest allowed value, for the message.
        hint: Box<Hint>,
    },

    /// `about` is the spec's description of the attribute and its type.
    #[error("{op}: missing required attribute `{name}`: {about}")]
    MissingAttribute {
        /// The op's id (`vendor.op`).
        op: String,
        /// The attribute's name.
        name: String,
        /// The spec's description of the attribute and its type.
        about: String,
    },

    /// The request gives an input the op (at that version) does not have.
    #[error("{op}: unknown input `{name}`{}{hint}", version_note(*.version))]
    UnknownInput {
        /// The op's id (`vendor.op`).
        op: String,
        /// The input's name as the request wrote it.
        name: String,
        /// The version, named in the message when the op has several.
        version: Option<u32>,
        /// The nearest known names, for the message.
        hint: Box<Hint>,
    },

    /// A required input is not given.
    #[error("{op}: missing input `{name}`")]
    MissingInput {
        /// The op's id (`vendor.op`).
        op: String,
        /// The input's name.
        name: String,
    },

    /// An input's dtype is not in its type set.
    #[error("{op}: input `{name}` has dtype {dtype}, not in its type set {allowed}")]
    InputDType {
        /// The op's id (`vendor.op`).
        op: String,
        /// The input's name.
        name: String,
        /// The dtype given.
        dtype: DType,
        /// The type set's dtypes, in words.
        allowed: String,
    },

    /// An input's shape does not have the rank its spec requires.
    #[error("{op}: input `{name}` must be {expected}, found shape {found:?}")]
    InputRank {
        /// The op's id (`vendor.op`).
        op: String,
        /// The input's name.
        name: String,
        /// The rank required, in words ("a 1-D tensor").
        expected: String,
        /// The shape given.
        found: Vec<u64>,
    },

    /// A rule of the spec (by id) is broken; `detail` says how. `about` is the attribute
    /// or input the rule is about (its value breaks it), `axis` the input axis, when known.
    #[error("{op}: rule `{rule}` broken: {detail}")]
    Rule {
        /// The op's id (`vendor.op`).
        op: String,
        /// The rule's id in the spec.
        rule: String,
        /// How the request breaks it.
        detail: String,
        /// The attribute or input whose value breaks it, when known.
        about: Option<String>,
        /// The input axis, when known.
        axis: Option<usize>,
    },

    /// A coordinate, extent or offset computed from the request overflows 64-bit index
    /// arithmetic.
    #[error("{op}: {what}: {value} overflows 64-bit index arithmetic")]
    Overflow {
        /// The op's id (`vendor.op`), or the stage that computed it (`table`).
        op: String,
        /// What was being computed.
        what: String,
        /// The value, or the expression, that overflows.
        value: String,
    },

    /// Something too large: its size overflows, or it cannot be allocated (refused before
    /// allocating).
    #[error("{what} is too large to allocate")]
    TooLarge {
        /// What was to be allocated.
        what: String,
    },

    /// A buffer given to a kernel or a tensor constructor has the wrong length.
    #[error("buffer for {what}: expected {expected} bytes, found {found}")]
    BufferLength {
        /// What the buffer holds.
        what: String,
        /// The length it must have, in the buffer's units (bytes for byte buffers).
        expected: usize,
        /// The length it has.
        found: usize,
    },

    /// Data does not match what a plan or kernel was made for (another dtype or shape).
    #[error("{what}: expected {expected}, found {found}")]
    Mismatch {
        /// What was checked.
        what: String,
        /// What the plan or kernel was made for.
        expected: String,
        /// What was given.
        found: String,
    },

    /// Anything else that is inconsistent: a plan whose fields disagree, a view whose
    /// data does not hold its tensor, a bad string.
    #[error("invalid: {what}")]
    Invalid {
        /// What is wrong.
        what: String,
    },

    /// A step of a chain is wrong (numbered from 1): the error it gives on its own input.
    #[error("step {step} ({op}): {source}")]
    Step {
        /// The step's number, from 1.
        step: usize,
        /// The step's op id.
        op: String,
        /// The error the step gives on its own.
        source: Box<Error>,
    },

    /// An embedded spec file is malformed (kerfx-spec's tests rule this out).
    #[error("spec: {0}")]
    Spec(#[from] kerfx_spec::SpecError),

    /// Every problem of one request (two or more), in the order found; one per line.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Several(Vec<Error>),
}

fn version_note(v: Option<u32>) -> String {
    v.map(|v| format!(" in version {v}")).unwrap_or_default()
}

impl Error {
    /// Shorthand for a broken spec rule; name what it is about with [`Error::about_name`]
    /// and [`Error::on_axis`].
    pub fn rule(op: &str, rule: &str, detail: impl Into<String>) -> Error {
        Error::Rule { op: op.to_string(), rule: rule.to_string(), detail: detail.into(), about: None, axis: None }
    }

    /// A rule error about the attribute or input `name`.
    pub fn about_name(mut self, name: &str) -> Error {
        if let Error::Rule { about, .. } = &mut self {
            *about = Some(name.to_string());
        }
        self
    }

    /// A rule error about input axis `axis`.
    pub fn on_axis(mut self, axis: usize) -> Error {
        if let Error::Rule { axis: a, .. } = &mut self {
            *a = Some(axis);
        }
        self
    }

    /// One error for a list of them: the error itself when there is one.
    pub fn from_list(mut errors: Vec<Error>) -> Error {
        match errors.len() {
            1 => errors.remove(0),
            _ => Error::Several(errors),
        }
    }

    /// The errors this one stands for: the list of [`Error::Several`], else itself.
    pub fn list(&self) -> &[Error] {
        match self {
            Error::Several(list) => list,
            e => std::slice::from_ref(e),
        }
    }

    /// The op the error is about, when it is about one.
    pub fn op(&self) -> Option<&str> {
        match self {
            Error::UnknownOp { op, .. }
            | Error::UnknownVersion { op, .. }
            | Error::UnknownAttribute { op, .. }
            | Error::AttributeType { op, .. }
            | Error::AttributeValue { op, .. }
            | Error::MissingAttribute { op, .. }
            | Error::UnknownInput { op, .. }
            | Error::MissingInput { op, .. }
            | Error::InputDType { op, .. }
            | Error::InputRank { op, .. }
            | Error::Rule { op, .. }
            | Error::Overflow { op, .. }
            | Error::Step { op, .. } => Some(op),
            _ => None,
        }
    }

    /// What in the request the error is about: the entry a request file or a derive
    /// attribute wrote it as.
    pub fn about(&self) -> Option<About<'_>> {
        Some(match self {
            Error::UnknownOp { .. } => About::Op,
            Error::UnknownVersion { .. } => About::Version,
            Error::UnknownAttribute { name, .. }
            | Error::AttributeType { name, .. }
            | Error::AttributeValue { name, .. }
            | Error::MissingAttribute { name, .. } => About::Attribute(name),
            Error::UnknownInput { name, .. }
            | Error::MissingInput { name, .. }
            | Error::InputDType { name, .. }
            | Error::InputRank { name, .. } => About::Input(name),
            Error::Rule { about: Some(name), .. } => About::Name(name),
            Error::Step { source, .. } => return source.about(),
            _ => return None,
        })
    }

    /// The id of the spec rule broken, for rule errors.
    pub fn rule_id(&self) -> Option<&str> {
        match self {
            Error::Rule { rule, .. } => Some(rule),
            Error::Step { source, .. } => source.rule_id(),
            _ => None,
        }
    }

    /// The input axis the error is about, when it is about one.
    pub fn axis(&self) -> Option<usize> {
        match self {
            Error::Rule { axis, .. } => *axis,
            Error::Step { source, .. } => source.axis(),
            _ => None,
        }
    }
}

/// What an error is about, as a request names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum About<'a> {
    /// The op id.
    Op,
    /// The op-set version.
    Version,
    /// An attribute, by name.
    Attribute(&'a str),
    /// An input, by name.
    Input(&'a str),
    /// An attribute or the input that replaces it (a rule about `starts`, given either way).
    Name(&'a str),
}

impl About<'_> {
    /// The attribute or input name, when the error is about one.
    pub fn name(&self) -> Option<&str> {
        match self {
            About::Attribute(n) | About::Input(n) | About::Name(n) => Some(n),
            About::Op | About::Version => None,
        }
    }
}

/// What an unknown name or value could have been: the nearest known one ("did you
/// mean"), or the versions that have the name, and every name known.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hint {
    /// The nearest known name (within two edits), e.g. `reflect` for `refelct`.
    pub did_you_mean: Option<String>,
    /// The versions of the op that have the name, when another version does.
    pub in_versions: Vec<u32>,
    /// Every name known there.
    pub known: Vec<String>,
}

impl Hint {
    /// The hint for `name` among `known`.
    pub fn new<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Hint {
        let known: Vec<String> = known.into_iter().map(str::to_string).collect();
        let did_you_mean = known
            .iter()
            .map(|k| (distance(name, k), k))
            .filter(|(d, k)| *d <= 2 && *d < k.chars().count())
            .min()
            .map(|(_, k)| k.clone());
        Hint { did_you_mean, in_versions: Vec::new(), known }
    }
}

impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.in_versions.is_empty() {
            return write!(f, "; it exists in versions {:?}", self.in_versions);
        }
        if let Some(d) = &self.did_you_mean {
            write!(f, " (did you mean `{d}`?)")?;
        }
        if !self.known.is_empty() {
            write!(f, "; known: {}", self.known.join(", "))?;
        }
        Ok(())
    }
}

/// Edit (Levenshtein) distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_the_nearest_name_within_two_edits() {
        let h = Hint::new("refelct", ["wrap", "clamp", "reflect"]);
        assert_eq!(h.did_you_mean.as_deref(), Some("reflect"));
        assert_eq!(h.to_string(), " (did you mean `reflect`?); known: wrap, clamp, reflect");
        assert_eq!(Hint::new("mirror", ["wrap", "clamp", "reflect"]).did_you_mean, None);
        // A one-letter name is never "two edits" from everything.
        assert_eq!(Hint::new("x", ["ab"]).did_you_mean, None);
    }

    #[test]
    fn a_list_of_one_is_that_error() {
        let e = Error::rule("op.x", "r", "d").about_name("axes").on_axis(2);
        assert_eq!(Error::from_list(vec![e.clone()]), e);
        assert_eq!(e.about(), Some(About::Name("axes")));
        assert_eq!((e.rule_id(), e.axis()), (Some("r"), Some(2)));
        let two = Error::from_list(vec![e.clone(), e.clone()]);
        assert_eq!(two.list().len(), 2);
        assert_eq!(two.to_string(), format!("{e}\n{e}"));
    }
}
