//! kerf's op specs: the TOML files of `specs/`, embedded at build time, parsed with
//! serde and checked for consistency. They are the single source of truth for what
//! each op accepts: attribute names, types, defaults and allowed values, inputs and
//! their type sets, the vendor's rules, and examples with expected outputs.

#![warn(missing_docs)]

use kerfx_dtype::DType;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

pub mod literal;

/// TOML tables as examples hold them (re-exported so users need not depend on `toml`).
pub use toml::Table as TomlTable;

/// TOML values as specs and requests hold them.
pub use toml::Value as TomlValue;

/// One op, as its spec file declares it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OpSpec {
    /// `vendor.op`, e.g. `tensorrt.slice`.
    pub id: String,
    /// The vendor's name, for people (`ONNX`, `NVIDIA TensorRT`, `OpenVINO`).
    pub vendor: String,
    /// One line on what the op does.
    pub summary: String,
    /// Op-set versions (ONNX) or the single version 1.
    pub versions: Vec<u32>,
    /// Named sets of dtype names (`T = ["f32", ...]`).
    #[serde(default)]
    pub type_sets: BTreeMap<String, Vec<String>>,
    /// The attributes of every version, each naming the versions that have it.
    #[serde(default)]
    pub attributes: Vec<AttributeSpec>,
    /// The inputs of every version, each naming the versions that have it.
    #[serde(default)]
    pub inputs: Vec<InputSpec>,
    /// The outputs, in order (absent: one output named `output`).
    #[serde(default)]
    pub outputs: Vec<OutputSpec>,
    /// The vendor's rules on valid requests, beyond attribute and input types.
    #[serde(default)]
    pub rules: Vec<RuleSpec>,
    /// Requests with the output they must give or the error they must fail with; every
    /// backend runs them.
    #[serde(default)]
    pub examples: Vec<ExampleSpec>,
}

/// The type of an attribute's value.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AttrType {
    /// An integer (i64).
    Int,
    /// A non-negative integer (TOML integers are i64; seeds above i64::MAX are not expressible).
    U64,
    /// A number (integers are accepted as floats).
    Float,
    /// A string, from the `allowed` list when the attribute has one.
    String,
    /// A dtype name.
    Dtype,
    /// A list of integers.
    IntList,
    /// A list of numbers.
    FloatList,
    /// A float or a list of floats.
    FloatOrList,
    /// A list of 0/1 flags.
    Mask,
    /// A boolean (TOML `true`/`false`).
    Bool,
}

impl AttrType {
    /// The type's name in spec files and messages (`"int_list"`, as `type = ...` writes it).
    pub fn name(self) -> &'static str {
        match self {
            AttrType::Int => "int",
            AttrType::U64 => "u64",
            AttrType::Float => "float",
            AttrType::String => "string",
            AttrType::Dtype => "dtype",
            AttrType::IntList => "int_list",
            AttrType::FloatList => "float_list",
            AttrType::FloatOrList => "float_or_list",
            AttrType::Mask => "mask",
            AttrType::Bool => "bool",
        }
    }
}

/// One attribute of an op, as its spec's `[[attributes]]` table declares it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AttributeSpec {
    /// The attribute's name, as requests write it.
    pub name: String,
    /// The type its value must have (`type` in the spec file).
    #[serde(rename = "type")]
    pub ty: AttrType,
    /// Whether a request must give it; a required attribute has no default.
    #[serde(default)]
    pub required: bool,
    /// The default, as a TOML value of the attribute's type.
    #[serde(default)]
    pub default: Option<toml::Value>,
    /// For string and dtype attributes: the values accepted.
    #[serde(default)]
    pub allowed: Option<Vec<String>>,
    /// The versions that have this attribute (all when absent).
    #[serde(default)]
    pub versions: Option<Vec<u32>>,
    /// What the attribute means, for people (shown by `kerf spec`).
    pub doc: String,
}

/// What shape an input must have.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum InputRank {
    /// Any rank (the data input of slices and pads).
    Any,
    /// A 0-D tensor, or a 1-D tensor of one element.
    Scalar,
    /// A 1-D tensor.
    Vector,
    /// A scalar or a 1-D tensor.
    ScalarOrVector,
}

/// One input of an op, as its spec's `[[inputs]]` table declares it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InputSpec {
    /// The input's position in the vendor's op (0-based); unique within the op.
    pub index: u32,
    /// The input's name, as requests write it.
    pub name: String,
    /// Whether a request may leave it out.
    #[serde(default)]
    pub optional: bool,
    /// The name of a type set, or of a single dtype.
    pub types: String,
    /// The rank the input must have.
    pub rank: InputRank,
    /// The attribute this input replaces when present.
    #[serde(default)]
    pub replaces: Option<String>,
    /// The versions that have this input (all when absent).
    #[serde(default)]
    pub versions: Option<Vec<u32>>,
    /// A list of tensors (ONNX Concat's `inputs`) rather than one tensor: each entry
    /// of its type set and rank.
    #[serde(default)]
    pub variadic: bool,
    /// What the input means, for people (shown by `kerf spec`).
    pub doc: String,
}

/// One output of an op, as its spec's `[[outputs]]` table declares it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// The output's name: results are named by it (`<name>_<i>` for entry i of a
    /// variadic output).
    pub name: String,
    /// A list of tensors (ONNX Split's `outputs`), as many as the request decides.
    #[serde(default)]
    pub variadic: bool,
    /// What the output is, for people (shown by `kerf spec`).
    pub doc: String,
}

/// How a rule is enforced.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RuleKind {
    /// Checked generically from the spec: restricts the dtype named by `subject`.
    Dtype,
    /// Checked by the op's frontend, which names this rule's id in its error.
    Frontend,
}

/// A condition on a string attribute.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RuleCondition {
    /// The string or dtype attribute the condition reads.
    pub attribute: String,
    /// The values for which the rule applies (`in` in the spec file).
    #[serde(rename = "in")]
    pub values: Vec<String>,
}

/// One of the vendor's rules, as its spec's `[[rules]]` table declares it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    /// The rule's name, unique within the op; errors for a broken rule name it.
    pub id: String,
    /// Whether the rule is checked from the spec (a dtype rule) or by the frontend.
    pub kind: RuleKind,
    /// The rule in words; the end of the error message when it is broken.
    pub doc: String,
    /// For `dtype` rules: `input:NAME` (that input's dtype) or `attribute:NAME` (a dtype attribute).
    #[serde(default)]
    pub subject: Option<String>,
    /// The rule applies only when this condition holds (always when absent).
    #[serde(default)]
    pub when: Option<RuleCondition>,
    /// For `dtype` rules: the dtype names the subject may have (exactly one of `allow`
    /// and `forbid` is given).
    #[serde(default)]
    pub allow: Option<Vec<String>>,
    /// For `dtype` rules: the dtype names the subject may not have.
    #[serde(default)]
    pub forbid: Option<Vec<String>>,
    /// The versions this rule applies to (all when absent).
    #[serde(default)]
    pub versions: Option<Vec<u32>>,
}

/// An inline tensor: dtype, shape and row-major values.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TensorLiteral {
    /// The dtype's name (see [`DType`]).
    pub dtype: String,
    /// The extent of each axis; `[]` for a scalar.
    pub shape: Vec<u64>,
    /// The elements in row-major order (checked by [`literal`]).
    pub values: Vec<toml::Value>,
}

/// One worked example of an op, as its spec's `[[examples]]` table declares it: a request
/// and the tensor it must give (`expected`) or the error it must fail with (`error`),
/// exactly one of the two.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExampleSpec {
    /// The example's name, unique within the op.
    pub name: String,
    /// What the example shows, for people.
    pub doc: String,
    /// The op version it runs at (the latest when absent).
    #[serde(default)]
    pub version: Option<u32>,
    /// The request's attributes, by name.
    #[serde(default)]
    pub attributes: toml::Table,
    /// By input name: a number, a list of integers, or an inline tensor.
    #[serde(default)]
    pub inputs: toml::Table,
    /// The output the request must give, for examples of one output that must succeed.
    #[serde(default)]
    pub expected: Option<TensorLiteral>,
    /// The outputs the request must give, in order, for examples of several outputs
    /// (ONNX Split) that must succeed.
    #[serde(default)]
    pub expected_outputs: Option<Vec<TensorLiteral>>,
    /// A fragment the error message must contain, for examples that must fail.
    #[serde(default)]
    pub error: Option<String>,
}

/// A spec file that is malformed: the message names the file and the field.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
#[error("spec {file}: {field}: {message}")]
pub struct SpecError {
    /// The spec file, as [`SPEC_FILES`] names it.
    pub file: String,
    /// Where in it: a field path (`attributes[2] (mode)`), `line N` for a TOML syntax or
    /// serde error, or `document`.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

fn is_dtype(name: &str) -> bool {
    name.parse::<DType>().is_ok()
}

/// The 1-based line of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text.as_bytes()[..at].iter().filter(|b| **b == b'\n').count() + 1
}

fn first_duplicate<T: Ord>(items: impl Iterator<Item = T>) -> Option<T> {
    let mut seen = BTreeSet::new();
    for x in items {
        if seen.contains(&x) {
            return Some(x);
        }
        seen.insert(x);
    }
    None
}

fn is_number(v: &TomlValue) -> bool {
    v.is_integer() || v.is_float()
}

/// Whether a TOML value (a default or an example's attribute) has an attribute type.
fn value_has_type(ty: AttrType, v: &TomlValue) -> bool {
    let list_of = |ok: &dyn Fn(&TomlValue) -> bool| v.as_array().is_some_and(|a| a.iter().all(ok));
    match ty {
        AttrType::Int => v.is_integer(),
        AttrType::U64 => v.as_integer().is_some_and(|i| i >= 0),
        AttrType::Float => is_number(v),
        AttrType::String | AttrType::Dtype => v.is_str(),
        AttrType::IntList => list_of(&TomlValue::is_integer),
        AttrType::Mask => list_of(&|x| matches!(x.as_integer(), Some(0 | 1))),
        AttrType::FloatList => list_of(&is_number),
        AttrType::FloatOrList => is_number(v) || list_of(&is_number),
        AttrType::Bool => v.is_bool(),
    }
}

/// The message for an example key that names no attribute or input of its version,
/// with a hint for the usual TOML slip: a key written after `[examples.inputs]` (or
/// `[examples.attributes]`) belongs to that table.
fn unknown_example_key(kind: &str, name: &str, version: u32) -> String {
    if ["name", "doc", "version", "expected", "expected_outputs", "error"].contains(&name) {
        format!(
            "no {kind} `{name}`: keys after an [examples.{kind}s] header belong to that table; \
             write `{name}` before it"
        )
    } else {
        format!("no {kind} `{name}` in version {version}")
    }
}

impl TensorLiteral {
    /// Check that the dtype is known and that the values make a tensor of it and of the
    /// shape, by the one rule of inline tensors ([`literal`]).
    pub fn check(&self) -> Result<(), String> {
        let dtype = self.dtype.parse::<DType>().map_err(|_| format!("unknown dtype `{}`", self.dtype))?;
        literal::check_values(dtype, &self.shape, &self.values)
    }
}

impl OpSpec {
    /// Parse and check one spec file's text. `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<OpSpec, SpecError> {
        let spec: OpSpec = toml::from_str(text).map_err(|e| SpecError {
            file: file.to_string(),
            field: e.span().map(|s| format!("line {}", line_of(text, s.start))).unwrap_or_else(|| "document".into()),
            message: e.message().to_string(),
        })?;
        spec.check(file)?;
        Ok(spec)
    }

    fn check(&self, file: &str) -> Result<(), SpecError> {
        let err = |field: String, message: String| SpecError { file: file.to_string(), field, message };
        if !self.id.contains('.') {
            return Err(err("id".into(), format!("`{}` is not of the form vendor.op", self.id)));
        }
        if self.versions.is_empty() {
            return Err(err("versions".into(), "must list at least one version".into()));
        }
        if let Some(v) = first_duplicate(self.versions.iter()) {
            return Err(err("versions".into(), format!("version {v} listed twice")));
        }
        let check_versions = |field: &str, versions: &Option<Vec<u32>>| match versions {
            Some(vs) if vs.is_empty() => Err(err(field.to_string(), "versions is empty".into())),
            Some(vs) => match vs.iter().find(|v| !self.versions.contains(v)) {
                Some(v) => Err(err(field.to_string(), format!("version {v} is not one of the op's versions"))),
                None => Ok(()),
            },
            None => Ok(()),
        };
        for (name, set) in &self.type_sets {
            if set.is_empty() {
                return Err(err(format!("type_sets.{name}"), "empty type set".into()));
            }
            for d in set {
                if !is_dtype(d) {
                    return Err(err(format!("type_sets.{name}"), format!("unknown dtype `{d}`")));
                }
            }
        }
        let mut seen = BTreeSet::new();
        for (i, a) in self.attributes.iter().enumerate() {
            let field = format!("attributes[{i}] ({})", a.name);
            if !seen.insert(a.name.as_str()) {
                return Err(err(field, "attribute declared twice".into()));
            }
            if a.required && a.default.is_some() {
                return Err(err(field, "a required attribute cannot have a default".into()));
            }
            check_versions(&field, &a.versions)?;
            if a.allowed.is_some() && !matches!(a.ty, AttrType::String | AttrType::Dtype) {
                return Err(err(
                    field,
                    format!("allowed applies only to string and dtype attributes, not {}", a.ty.name()),
                ));
            }
            if a.ty == AttrType::Dtype {
                for d in a.allowed.iter().flatten() {
                    if !is_dtype(d) {
                        return Err(err(field, format!("unknown dtype `{d}` in allowed")));
                    }
                }
            }
            if let Some(d) = &a.default {
                if !value_has_type(a.ty, d) {
                    return Err(err(field, format!("default {d} is not of type {}", a.ty.name())));
                }
                if let Some(s) = d.as_str() {
                    if a.ty == AttrType::Dtype && !is_dtype(s) {
                        return Err(err(field, format!("default `{s}` is not a dtype")));
                    }
                    if let Some(allowed) = &a.allowed
                        && !allowed.iter().any(|x| x == s)
                    {
                        return Err(err(field, format!("default `{s}` is not an allowed value")));
                    }
                }
            }
        }
        let mut seen = BTreeSet::new();
        let mut seen_index = BTreeSet::new();
        for (i, inp) in self.inputs.iter().enumerate() {
            let field = format!("inputs[{i}] ({})", inp.name);
            if !seen.insert(inp.name.as_str()) {
                return Err(err(field, "input declared twice".into()));
            }
            if !seen_index.insert(inp.index) {
                return Err(err(field, format!("index {} used twice", inp.index)));
            }
            if self.type_set(&inp.types).is_none() {
                return Err(err(field, format!("`{}` is neither a type set nor a dtype", inp.types)));
            }
            check_versions(&field, &inp.versions)?;
            if let Some(r) = &inp.replaces
                && self.attribute(r).is_none()
            {
                return Err(err(field, format!("replaces unknown attribute `{r}`")));
            }
        }
        let mut seen = BTreeSet::new();
        for (i, out) in self.outputs.iter().enumerate() {
            let field = format!("outputs[{i}] ({})", out.name);
            if !seen.insert(out.name.as_str()) {
                return Err(err(field, "output declared twice".into()));
            }
            if out.variadic && self.outputs.len() > 1 {
                return Err(err(field, "a variadic output is the op's only output".into()));
            }
        }
        let mut seen = BTreeSet::new();
        for (i, r) in self.rules.iter().enumerate() {
            let field = format!("rules[{i}] ({})", r.id);
            if !seen.insert(r.id.as_str()) {
                return Err(err(field, "rule id used twice".into()));
            }
            check_versions(&field, &r.versions)?;
            match r.kind {
                RuleKind::Dtype => {
                    let Some(subject) = &r.subject else {
                        return Err(err(field, "a dtype rule needs a subject".into()));
                    };
                    let ok = match subject.split_once(':') {
                        Some(("input", n)) => self.inputs.iter().any(|i| i.name == n),
                        Some(("attribute", n)) => self.attribute(n).is_some_and(|a| a.ty == AttrType::Dtype),
                        _ => false,
                    };
                    if !ok {
                        return Err(err(field, format!("subject `{subject}` names no input or dtype attribute")));
                    }
                    if r.allow.is_none() == r.forbid.is_none() {
                        return Err(err(field, "a dtype rule has exactly one of allow and forbid".into()));
                    }
                    for d in r.allow.iter().chain(r.forbid.iter()).flatten() {
                        if !is_dtype(d) {
                            return Err(err(field, format!("unknown dtype `{d}`")));
                        }
                    }
                }
                RuleKind::Frontend => {
                    if r.subject.is_some() || r.allow.is_some() || r.forbid.is_some() {
                        return Err(err(field, "subject, allow and forbid apply only to dtype rules".into()));
                    }
                }
            }
            if let Some(c) = &r.when {
                let Some(a) = self.attribute(&c.attribute) else {
                    return Err(err(field, format!("condition names unknown attribute `{}`", c.attribute)));
                };
                if !matches!(a.ty, AttrType::String | AttrType::Dtype) {
                    return Err(err(field, format!("condition attribute `{}` is not a string or dtype", c.attribute)));
                }
                if let Some(allowed) = &a.allowed
                    && let Some(v) = c.values.iter().find(|v| !allowed.contains(v))
                {
                    return Err(err(
                        field,
                        format!("condition value `{v}` is not an allowed value of `{}`", c.attribute),
                    ));
                }
            }
        }
        let mut seen = BTreeSet::new();
        for (i, ex) in self.examples.iter().enumerate() {
            let field = format!("examples[{i}] ({})", ex.name);
            if !seen.insert(ex.name.as_str()) {
                return Err(err(field, "example name used twice".into()));
            }
            if [ex.expected.is_some(), ex.expected_outputs.is_some(), ex.error.is_some()].iter().filter(|b| **b).count()
                != 1
            {
                return Err(err(field, "an example has exactly one of expected, expected_outputs and error".into()));
            }
            if let Some(v) = ex.version
                && !self.versions.contains(&v)
            {
                return Err(err(field, format!("version {v} is not one of the op's versions")));
            }
            // An example that must fail may break the spec on purpose (an unknown input,
            // an attribute of the wrong type): only the one that must succeed is checked
            // against the declared names, versions and types.
            let must_succeed = ex.error.is_none();
            let version = ex.version.unwrap_or_else(|| self.latest_version());
            for (name, value) in ex.attributes.iter().filter(|_| must_succeed) {
                let field = format!("{field}.attributes.{name}");
                let Some(a) = self.attribute(name).filter(|a| in_version(&a.versions, version)) else {
                    return Err(err(field, unknown_example_key("attribute", name, version)));
                };
                if !value_has_type(a.ty, value) {
                    return Err(err(field, format!("{value} is not of type {}", a.ty.name())));
                }
            }
            for (name, value) in &ex.inputs {
                let field = format!("{field}.inputs.{name}");
                if must_succeed && !self.input(name).is_some_and(|i| in_version(&i.versions, version)) {
                    return Err(err(field, unknown_example_key("input", name, version)));
                }
                let variadic = self.input(name).is_some_and(|i| i.variadic);
                let check_tensor = |value: &TomlValue, field: &str| match value {
                    TomlValue::Integer(_) | TomlValue::Float(_) => Ok(()),
                    TomlValue::Array(a) if a.iter().all(TomlValue::is_integer) => Ok(()),
                    TomlValue::Table(_) => {
                        let t: TensorLiteral = value
                            .clone()
                            .try_into()
                            .map_err(|e: toml::de::Error| err(field.to_string(), e.message().to_string()))?;
                        t.check().map_err(|m| err(field.to_string(), m))
                    }
                    _ => Err(err(
                        field.to_string(),
                        "an example input is a number, a list of integers or a tensor { dtype, shape, values }".into(),
                    )),
                };
                match value {
                    // A variadic input is a list of tensors, each written as a single input is.
                    TomlValue::Array(entries) if variadic => {
                        for (k, entry) in entries.iter().enumerate() {
                            check_tensor(entry, &format!("{field}[{k}]"))?;
                        }
                    }
                    _ => check_tensor(value, &field)?,
                }
            }
            if let Some(t) = &ex.expected {
                t.check().map_err(|m| err(format!("{field}.expected"), m))?;
            }
            for (k, t) in ex.expected_outputs.iter().flatten().enumerate() {
                t.check().map_err(|m| err(format!("{field}.expected_outputs[{k}]"), m))?;
            }
        }
        Ok(())
    }

    /// The attribute named `name`, in whichever versions have it.
    pub fn attribute(&self, name: &str) -> Option<&AttributeSpec> {
        self.attributes.iter().find(|a| a.name == name)
    }

    /// The input named `name`, in whichever versions have it.
    pub fn input(&self, name: &str) -> Option<&InputSpec> {
        self.inputs.iter().find(|a| a.name == name)
    }

    /// The newest version.
    pub fn latest_version(&self) -> u32 {
        self.versions.iter().copied().max().unwrap_or(1)
    }

    /// Dtype names of a type set, or the single dtype when `name` is one.
    pub fn type_set(&self, name: &str) -> Option<Vec<&str>> {
        if let Some(set) = self.type_sets.get(name) {
            return Some(set.iter().map(String::as_str).collect());
        }
        name.parse::<DType>().ok().map(|d| vec![d.name()])
    }

    /// The data input: the tensor a slice or pad reads, the first input that may have
    /// any rank. `None` for ops that read none (fills).
    pub fn data_input(&self) -> Option<&InputSpec> {
        self.inputs.iter().filter(|i| i.rank == InputRank::Any).min_by_key(|i| i.index)
    }

    /// The outputs in order: the spec's `[[outputs]]`, or the one output `output`.
    pub fn output_specs(&self) -> Vec<OutputSpec> {
        if self.outputs.is_empty() {
            vec![OutputSpec { name: "output".into(), variadic: false, doc: "The result.".into() }]
        } else {
            self.outputs.clone()
        }
    }

    /// Whether the op's outputs are a variadic list (their number set by the request).
    pub fn variadic_output(&self) -> bool {
        self.outputs.iter().any(|o| o.variadic)
    }

    /// Whether the op reads a variadic input or writes a variadic output (Concat, Split):
    /// its requests lower to a program over several inputs and outputs.
    pub fn is_program(&self) -> bool {
        self.inputs.iter().any(|i| i.variadic) || self.variadic_output()
    }

    /// The rule whose id is `id`.
    pub fn rule(&self, id: &str) -> Option<&RuleSpec> {
        self.rules.iter().find(|r| r.id == id)
    }
}

/// Whether an attribute or input exists in `version`.
pub fn in_version(versions: &Option<Vec<u32>>, version: u32) -> bool {
    versions.as_ref().is_none_or(|v| v.contains(&version))
}

/// The spec files, embedded at build time.
pub const SPEC_FILES: &[(&str, &str)] = &[
    ("specs/tensorrt.slice.toml", include_str!("../specs/tensorrt.slice.toml")),
    ("specs/tensorrt.fill.toml", include_str!("../specs/tensorrt.fill.toml")),
    ("specs/onnx.slice.toml", include_str!("../specs/onnx.slice.toml")),
    ("specs/openvino.strided_slice.toml", include_str!("../specs/openvino.strided_slice.toml")),
    ("specs/onnx.pad.toml", include_str!("../specs/onnx.pad.toml")),
    ("specs/openvino.pad.toml", include_str!("../specs/openvino.pad.toml")),
    ("specs/openvino.slice.toml", include_str!("../specs/openvino.slice.toml")),
    ("specs/onnx.transpose.toml", include_str!("../specs/onnx.transpose.toml")),
    ("specs/onnx.reshape.toml", include_str!("../specs/onnx.reshape.toml")),
    ("specs/onnx.flatten.toml", include_str!("../specs/onnx.flatten.toml")),
    ("specs/onnx.squeeze.toml", include_str!("../specs/onnx.squeeze.toml")),
    ("specs/onnx.unsqueeze.toml", include_str!("../specs/onnx.unsqueeze.toml")),
    ("specs/onnx.identity.toml", include_str!("../specs/onnx.identity.toml")),
    ("specs/onnx.expand.toml", include_str!("../specs/onnx.expand.toml")),
    ("specs/onnx.tile.toml", include_str!("../specs/onnx.tile.toml")),
    ("specs/onnx.depth_to_space.toml", include_str!("../specs/onnx.depth_to_space.toml")),
    ("specs/onnx.space_to_depth.toml", include_str!("../specs/onnx.space_to_depth.toml")),
    ("specs/openvino.transpose.toml", include_str!("../specs/openvino.transpose.toml")),
    ("specs/openvino.tile.toml", include_str!("../specs/openvino.tile.toml")),
    ("specs/openvino.roll.toml", include_str!("../specs/openvino.roll.toml")),
    ("specs/onnx.gather.toml", include_str!("../specs/onnx.gather.toml")),
    ("specs/onnx.gather_elements.toml", include_str!("../specs/onnx.gather_elements.toml")),
    ("specs/openvino.gather.toml", include_str!("../specs/openvino.gather.toml")),
    ("specs/tensorrt.gather.toml", include_str!("../specs/tensorrt.gather.toml")),
    ("specs/openvino.broadcast.toml", include_str!("../specs/openvino.broadcast.toml")),
    ("specs/openvino.depth_to_space.toml", include_str!("../specs/openvino.depth_to_space.toml")),
    ("specs/openvino.space_to_depth.toml", include_str!("../specs/openvino.space_to_depth.toml")),
    ("specs/openvino.reshape.toml", include_str!("../specs/openvino.reshape.toml")),
    ("specs/openvino.squeeze.toml", include_str!("../specs/openvino.squeeze.toml")),
    ("specs/openvino.unsqueeze.toml", include_str!("../specs/openvino.unsqueeze.toml")),
    ("specs/tensorrt.shuffle.toml", include_str!("../specs/tensorrt.shuffle.toml")),
    ("specs/onnx.concat.toml", include_str!("../specs/onnx.concat.toml")),
    ("specs/openvino.concat.toml", include_str!("../specs/openvino.concat.toml")),
    ("specs/tensorrt.concatenation.toml", include_str!("../specs/tensorrt.concatenation.toml")),
    ("specs/onnx.split.toml", include_str!("../specs/onnx.split.toml")),
    ("specs/openvino.split.toml", include_str!("../specs/openvino.split.toml")),
    ("specs/openvino.variadic_split.toml", include_str!("../specs/openvino.variadic_split.toml")),
];

/// All embedded specs, parsed once. The embedded files are checked by this crate's
/// tests, so a malformed one never ships; should it anyway, the error is returned.
pub fn registry() -> Result<&'static Registry, &'static SpecError> {
    static REGISTRY: OnceLock<Result<Registry, SpecError>> = OnceLock::new();
    REGISTRY
        .get_or_init(|| {
            let mut ops = Vec::new();
            for (file, text) in SPEC_FILES {
                ops.push(OpSpec::parse(file, text)?);
            }
            Ok(Registry { ops })
        })
        .as_ref()
}

/// The specs by id.
#[derive(Debug)]
pub struct Registry {
    ops: Vec<OpSpec>,
}

impl Registry {
    /// The spec of op `id` (`vendor.op`), if kerf has it.
    pub fn get(&self, id: &str) -> Option<&OpSpec> {
        self.ops.iter().find(|o| o.id == id)
    }
    /// Every spec, in [`SPEC_FILES`] order.
    pub fn ops(&self) -> &[OpSpec] {
        &self.ops
    }
    /// Every op id, in [`SPEC_FILES`] order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.ops.iter().map(|o| o.id.as_str())
    }
}
#[cfg(test)]
mod tests;
