//! A request: an op id, its version, static attributes and inputs by name; and the
//! generic validation of a request against its spec.

use crate::dtype::DType;
use crate::error::{Error, Hint};
use crate::tensor::Tensor;
use kerfx_spec::{AttrType, InputRank, OpSpec, RuleKind};
use std::collections::BTreeMap;

/// A static attribute value.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// An integer (`int` attributes, and `u64` ones before validation).
    Int(i64),
    /// An integer of a `u64` attribute (a fill's `seed`), any in [0, 2^64): the form of
    /// values past `i64::MAX`. Validation turns a `u64` attribute given as a
    /// non-negative `Int`, or as the decimal string of a u64 (request files: TOML
    /// integers stop at 2^63 − 1), into this.
    UInt(u64),
    /// A number of a `float` or `float_or_list` attribute (validation turns an `Int` given
    /// for one into this).
    Float(f64),
    /// A string or dtype name.
    Str(String),
    /// A list of integers (`int_list`, `mask`).
    IntList(Vec<i64>),
    /// A list of numbers (`float_list`, `float_or_list`; validation turns an `IntList`
    /// given for one into this).
    FloatList(Vec<f64>),
    /// A `bool` attribute's value (request files: TOML `true`/`false`).
    Bool(bool),
}

impl AttrValue {
    /// What kind of value this is, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            AttrValue::Int(_) => "an integer",
            AttrValue::UInt(_) => "an unsigned 64-bit integer",
            AttrValue::Float(_) => "a float",
            AttrValue::Str(_) => "a string",
            AttrValue::IntList(_) => "a list of integers",
            AttrValue::FloatList(_) => "a list of floats",
            AttrValue::Bool(_) => "a boolean",
        }
    }

    /// From a TOML value (spec defaults, examples, request files).
    pub fn from_toml(v: &toml_like::Value) -> Option<AttrValue> {
        toml_like::to_attr(v)
    }
}

impl std::fmt::Display for AttrValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AttrValue::Int(v) => write!(f, "{v}"),
            AttrValue::UInt(v) => write!(f, "{v}"),
            AttrValue::Float(v) => write!(f, "{v}"),
            AttrValue::Str(v) => write!(f, "\"{v}\""),
            AttrValue::IntList(v) => write!(f, "{v:?}"),
            AttrValue::FloatList(v) => write!(f, "{v:?}"),
            AttrValue::Bool(v) => write!(f, "{v}"),
        }
    }
}

/// An input: a tensor with values, or only its dtype and shape (the data input of a
/// kernel compiled ahead of its data, or a runtime parameter of a dynamic kernel).
#[derive(Clone, Debug, PartialEq)]
pub enum InputArg {
    /// The tensor itself: its values are known when lowering.
    Tensor(Tensor),
    /// Only the tensor's type: its values come at run time.
    Meta {
        /// The element type.
        dtype: DType,
        /// The extent of each axis.
        shape: Vec<u64>,
    },
    /// The entries of a variadic input (ONNX Concat's `inputs`), in order; each a tensor
    /// or a `Meta`. Only a variadic input takes a list, and it takes nothing else.
    List(Vec<InputArg>),
}

impl InputArg {
    /// The input's element type (a list: its first entry's, `bool` when empty —
    /// validation refuses a list wherever one tensor is expected).
    pub fn dtype(&self) -> DType {
        match self {
            InputArg::Tensor(t) => t.dtype(),
            InputArg::Meta { dtype, .. } => *dtype,
            InputArg::List(entries) => entries.first().map_or(DType::Bool, InputArg::dtype),
        }
    }
    /// The input's shape (a list: its first entry's, `[]` when empty).
    pub fn shape(&self) -> &[u64] {
        match self {
            InputArg::Tensor(t) => t.shape(),
            InputArg::Meta { shape, .. } => shape,
            InputArg::List(entries) => entries.first().map_or(&[], InputArg::shape),
        }
    }
    /// The tensor, when its values are given; `None` for `Meta` and lists.
    pub fn tensor(&self) -> Option<&Tensor> {
        match self {
            InputArg::Tensor(t) => Some(t),
            InputArg::Meta { .. } | InputArg::List(_) => None,
        }
    }
    /// A variadic input's entries; `None` for one tensor.
    pub fn entries(&self) -> Option<&[InputArg]> {
        match self {
            InputArg::List(entries) => Some(entries),
            _ => None,
        }
    }
}

impl From<Tensor> for InputArg {
    fn from(t: Tensor) -> Self {
        InputArg::Tensor(t)
    }
}

/// A request to lower: what a request file, a derive attribute or a library call says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Request {
    /// The op's id, `vendor.op` (`tensorrt.slice`).
    pub op: String,
    /// None: the newest version.
    pub version: Option<u32>,
    /// Attribute values by name; the spec's defaults fill in the rest.
    pub attributes: BTreeMap<String, AttrValue>,
    /// Inputs by the spec's names (`data`, `starts`, ...).
    pub inputs: BTreeMap<String, InputArg>,
    /// How many outputs, where neither attributes nor inputs say (ONNX Split 2–13
    /// without `split`: the node's output count); `None` elsewhere.
    pub outputs: Option<u32>,
}

impl Request {
    /// A request for op `op` (`vendor.op`) at its newest version, with nothing set yet.
    pub fn new(op: &str) -> Request {
        Request { op: op.to_string(), ..Request::default() }
    }
    /// The same request at op version `v`.
    pub fn version(mut self, v: u32) -> Request {
        self.version = Some(v);
        self
    }
    /// The same request with attribute `name` set to `v` (replacing any earlier value).
    pub fn attr(mut self, name: &str, v: impl Into<AttrValue>) -> Request {
        self.attributes.insert(name.to_string(), v.into());
        self
    }
    /// The same request with input `name` set to `v` (a [`Tensor`], or an [`InputArg`]).
    pub fn input(mut self, name: &str, v: impl Into<InputArg>) -> Request {
        self.inputs.insert(name.to_string(), v.into());
        self
    }
    /// The same request with variadic input `name` set to `entries`.
    pub fn input_list(mut self, name: &str, entries: Vec<InputArg>) -> Request {
        self.inputs.insert(name.to_string(), InputArg::List(entries));
        self
    }
    /// The same request with its output count stated (see [`Request::outputs`]).
    pub fn outputs(mut self, count: u32) -> Request {
        self.outputs = Some(count);
        self
    }
    /// An input known only by dtype and shape.
    pub fn input_meta(mut self, name: &str, dtype: DType, shape: &[u64]) -> Request {
        self.inputs.insert(name.to_string(), InputArg::Meta { dtype, shape: shape.to_vec() });
        self
    }
}

impl From<i64> for AttrValue {
    fn from(v: i64) -> Self {
        AttrValue::Int(v)
    }
}
impl From<f64> for AttrValue {
    fn from(v: f64) -> Self {
        AttrValue::Float(v)
    }
}
impl From<&str> for AttrValue {
    fn from(v: &str) -> Self {
        AttrValue::Str(v.to_string())
    }
}
impl From<Vec<i64>> for AttrValue {
    fn from(v: Vec<i64>) -> Self {
        AttrValue::IntList(v)
    }
}
impl<const N: usize> From<[i64; N]> for AttrValue {
    fn from(v: [i64; N]) -> Self {
        AttrValue::IntList(v.to_vec())
    }
}
impl From<bool> for AttrValue {
    fn from(v: bool) -> Self {
        AttrValue::Bool(v)
    }
}
impl From<Vec<f64>> for AttrValue {
    fn from(v: Vec<f64>) -> Self {
        AttrValue::FloatList(v)
    }
}

/// TOML values → attribute values, shared by specs, examples and request files.
pub mod toml_like {
    pub use kerfx_spec::TomlValue as Value;

    /// The attribute value a TOML value writes: integers, floats, strings and booleans as
    /// themselves, a list of integers as `IntList`, a list of numbers as `FloatList`;
    /// `None` for anything else (tables, dates, mixed lists).
    pub fn to_attr(v: &Value) -> Option<super::AttrValue> {
        use super::AttrValue;
        Some(match v {
            Value::Integer(i) => AttrValue::Int(*i),
            Value::Float(f) => AttrValue::Float(*f),
            Value::String(s) => AttrValue::Str(s.clone()),
            Value::Boolean(b) => AttrValue::Bool(*b),
            Value::Array(a) => {
                if a.iter().all(|x| x.is_integer()) {
                    AttrValue::IntList(a.iter().filter_map(|x| x.as_integer()).collect())
                } else if a.iter().all(|x| x.is_integer() || x.is_float()) {
                    AttrValue::FloatList(
                        a.iter().filter_map(|x| x.as_float().or(x.as_integer().map(|i| i as f64))).collect(),
                    )
                } else {
                    return None;
                }
            }
            _ => return None,
        })
    }
}

/// A request checked against its spec, with defaults filled in: what every frontend reads.
#[derive(Debug)]
pub struct Validated<'a> {
    /// The op's spec.
    pub spec: &'a OpSpec,
    /// The op version: the request's, or the spec's newest.
    pub version: u32,
    /// Every attribute the request gave, checked, and every default it did not.
    pub attributes: BTreeMap<String, AttrValue>,
    /// The request's inputs, checked against the spec's dtypes and ranks.
    pub inputs: &'a BTreeMap<String, InputArg>,
    /// The request's output count, where it states one (see [`Request::outputs`]).
    pub outputs: Option<u32>,
}

impl<'a> Validated<'a> {
    /// The op's id (`vendor.op`).
    pub fn op(&self) -> &str {
        &self.spec.id
    }
    /// An attribute's value (given or default).
    pub fn attr(&self, name: &str) -> Option<&AttrValue> {
        self.attributes.get(name)
    }
    /// A string or dtype attribute's value (given or default).
    pub fn attr_str(&self, name: &str) -> Option<&str> {
        match self.attr(name)? {
            AttrValue::Str(s) => Some(s),
            _ => None,
        }
    }
    /// A `bool` attribute's value (given or default).
    pub fn attr_bool(&self, name: &str) -> Option<bool> {
        match self.attr(name)? {
            AttrValue::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// The input named `name`, when the request gave it.
    pub fn input(&self, name: &str) -> Option<&'a InputArg> {
        self.inputs.get(name)
    }

    /// An integer-list parameter: the input of that name when present (it replaces the
    /// attribute), else the attribute. `Ok(None)` when neither is given.
    pub fn int_list(&self, name: &str) -> Result<Option<Vec<i64>>, Error> {
        if let Some(input) = self.input(name) {
            return input_ints(self.op(), name, input).map(Some);
        }
        Ok(match self.attr(name) {
            Some(AttrValue::IntList(v)) => Some(v.clone()),
            _ => None,
        })
    }
}

/// The values of a 1-D integer input as exact i64 (u64 values above i64::MAX are refused).
pub fn input_ints(op: &str, name: &str, input: &InputArg) -> Result<Vec<i64>, Error> {
    let Some(t) = input.tensor() else {
        return Err(Error::Invalid {
            what: format!(
                "{op}: input `{name}` has no values (only dtype and shape were given); its values are needed to plan"
            ),
        });
    };
    (0..t.len())
        .map(|i| {
            let v = t.element_i128(i).ok_or_else(|| Error::InputDType {
                op: op.to_string(),
                name: name.to_string(),
                dtype: t.dtype(),
                allowed: "integer types".into(),
            })?;
            i64::try_from(v).map_err(|_| Error::Overflow {
                op: op.to_string(),
                what: format!("input `{name}`[{i}]"),
                value: v.to_string(),
            })
        })
        .collect()
}

fn type_matches(ty: AttrType, v: &AttrValue) -> bool {
    matches!(
        (ty, v),
        (AttrType::Int, AttrValue::Int(_))
            | (AttrType::U64, AttrValue::Int(_) | AttrValue::UInt(_) | AttrValue::Str(_))
            | (AttrType::Float, AttrValue::Int(_) | AttrValue::Float(_))
            | (AttrType::String | AttrType::Dtype, AttrValue::Str(_))
            | (AttrType::IntList | AttrType::Mask, AttrValue::IntList(_))
            | (AttrType::Bool, AttrValue::Bool(_))
            | (AttrType::FloatList, AttrValue::IntList(_) | AttrValue::FloatList(_))
            | (
                AttrType::FloatOrList,
                AttrValue::Int(_) | AttrValue::Float(_) | AttrValue::IntList(_) | AttrValue::FloatList(_)
            )
    )
}

/// The u64 a `u64` attribute's value says: a non-negative integer, or the decimal
/// string of one (digits only). `None` for anything else.
pub fn u64_value(v: &AttrValue) -> Option<u64> {
    match v {
        AttrValue::Int(i) => u64::try_from(*i).ok(),
        AttrValue::UInt(u) => Some(*u),
        AttrValue::Str(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => s.parse().ok(),
        _ => None,
    }
}

/// Normalize attribute values to their declared type (ints where floats are wanted;
/// `u64` attributes as [`AttrValue::UInt`]).
fn normalize(ty: AttrType, v: AttrValue) -> AttrValue {
    match (ty, v) {
        (AttrType::U64, v) => u64_value(&v).map_or(v, AttrValue::UInt),
        (AttrType::Float | AttrType::FloatOrList, AttrValue::Int(i)) => AttrValue::Float(i as f64),
        (AttrType::FloatList | AttrType::FloatOrList, AttrValue::IntList(l)) => {
            AttrValue::FloatList(l.into_iter().map(|i| i as f64).collect())
        }
        (_, v) => v,
    }
}

/// Check a request against its spec: version known, every attribute known, of its type
/// and allowed value, required ones present; every input known, of its type set and
/// rank, required ones present; then (when all that holds) the spec's dtype rules.
/// Returns every error found, each naming what it is about; unknown names and values
/// come with a "did you mean" hint. An unknown version is the only error reported alone
/// (every other check depends on it).
pub fn validate<'a>(spec: &'a OpSpec, request: &'a Request) -> Result<Validated<'a>, Vec<Error>> {
    let op = spec.id.as_str();
    let version = request.version.unwrap_or_else(|| spec.latest_version());
    if !spec.versions.contains(&version) {
        return Err(vec![Error::UnknownVersion { op: op.into(), version, known: spec.versions.clone() }]);
    }
    let mut errors = Vec::new();
    let versioned = spec.versions.len() > 1;
    let attribute = |name: &str| spec.attribute(name).filter(|a| kerfx_spec::in_version(&a.versions, version));
    let input = |name: &str| spec.input(name).filter(|i| kerfx_spec::in_version(&i.versions, version));
    let mut attributes = BTreeMap::new();
    for (name, value) in &request.attributes {
        let Some(a) = attribute(name) else {
            let hint = unknown_name_hint(spec, version, name, spec.attributes.iter().map(|a| (&a.name, &a.versions)));
            errors.push(Error::UnknownAttribute {
                op: op.into(),
                name: name.clone(),
                version: versioned.then_some(version),
                hint: Box::new(hint),
            });
            continue;
        };
        if !type_matches(a.ty, value) {
            errors.push(Error::AttributeType {
                op: op.into(),
                name: name.clone(),
                expected: format!("of type {} ({})", a.ty.name(), type_description(a.ty)),
                found: format!("{} ({value})", value.kind()),
            });
        } else if let Err(e) = check_value(op, a, value) {
            errors.push(e);
        } else {
            attributes.insert(name.clone(), normalize(a.ty, value.clone()));
        }
    }
    for a in spec.attributes.iter().filter(|a| kerfx_spec::in_version(&a.versions, version)) {
        if request.attributes.contains_key(&a.name) {
            continue;
        }
        let replaced = spec
            .inputs
            .iter()
            .any(|i| i.replaces.as_deref() == Some(a.name.as_str()) && request.inputs.contains_key(&i.name));
        if a.required && !replaced {
            errors.push(Error::MissingAttribute {
                op: op.into(),
                name: a.name.clone(),
                about: format!("{} ({})", a.doc, type_description(a.ty)),
            });
        }
        if let Some(d) = &a.default {
            match toml_like::to_attr(d) {
                Some(v) => {
                    attributes.insert(a.name.clone(), normalize(a.ty, v));
                }
                None => errors
                    .push(Error::Invalid { what: format!("{op}: the spec's default for `{}` is not a value", a.name) }),
            }
        }
    }
    for (name, arg) in &request.inputs {
        let Some(i) = input(name) else {
            let hint = unknown_name_hint(spec, version, name, spec.inputs.iter().map(|i| (&i.name, &i.versions)));
            errors.push(Error::UnknownInput {
                op: op.into(),
                name: name.clone(),
                version: versioned.then_some(version),
                hint: Box::new(hint),
            });
            continue;
        };
        let entries = match (i.variadic, arg) {
            (true, InputArg::List(entries)) => {
                entries.iter().enumerate().map(|(k, e)| (format!("{name}[{k}]"), e)).collect()
            }
            (false, InputArg::List(_)) => {
                errors.push(Error::Invalid {
                    what: format!(
                        "{op}: input `{name}` is one tensor, not a list (only a variadic input takes a list)"
                    ),
                });
                continue;
            }
            (true, _) => {
                errors.push(Error::Invalid {
                    what: format!("{op}: input `{name}` is variadic: give it a list of tensors"),
                });
                continue;
            }
            (false, _) => vec![(name.clone(), arg)],
        };
        for (name, arg) in entries {
            if let InputArg::List(_) = arg {
                errors.push(Error::Invalid { what: format!("{op}: input `{name}` is a list inside a list") });
                continue;
            }
            check_input(op, spec, i, &name, arg, &mut errors);
        }
    }
    if let Some(n) = request.outputs
        && !spec.variadic_output()
    {
        errors.push(Error::Invalid {
            what: format!("{op}: `outputs = {n}`: the op has a fixed number of outputs; only an op with a variadic output (Split) takes a count"),
        });
    }
    for i in spec.inputs.iter().filter(|i| kerfx_spec::in_version(&i.versions, version)) {
        if !i.optional && !request.inputs.contains_key(&i.name) {
            errors.push(Error::MissingInput { op: op.into(), name: i.name.clone() });
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let validated = Validated { spec, version, attributes, inputs: &request.inputs, outputs: request.outputs };
    let errors = dtype_rule_errors(&validated, request);
    if errors.is_empty() { Ok(validated) } else { Err(errors) }
}

/// The type set and rank of one tensor input (or one entry of a variadic input).
fn check_input(
    op: &str,
    spec: &OpSpec,
    i: &kerfx_spec::InputSpec,
    name: &str,
    arg: &InputArg,
    errors: &mut Vec<Error>,
) {
    let set = spec.type_set(&i.types).unwrap_or_default();
    if !set.contains(&arg.dtype().name()) {
        errors.push(Error::InputDType {
            op: op.into(),
            name: name.to_string(),
            dtype: arg.dtype(),
            allowed: format!("{} = {{{}}}", i.types, set.join(", ")),
        });
    }
    let rank = arg.shape().len();
    let (ok, expected) = match i.rank {
        InputRank::Any => (true, "any shape"),
        InputRank::Scalar => (rank == 0 || arg.shape() == [1], "a scalar"),
        InputRank::Vector => (rank == 1, "a 1-D tensor"),
        InputRank::ScalarOrVector => (rank <= 1, "a scalar or a 1-D tensor"),
    };
    if !ok {
        errors.push(Error::InputRank {
            op: op.into(),
            name: name.to_string(),
            expected: expected.into(),
            found: arg.shape().to_vec(),
        });
    }
}

/// The hint for a name the request's `version` does not have: the versions that have
/// it, or the nearest name of this version.
fn unknown_name_hint<'s>(
    spec: &OpSpec,
    version: u32,
    name: &str,
    declared: impl Iterator<Item = (&'s String, &'s Option<Vec<u32>>)> + Clone,
) -> Hint {
    let here = declared.clone().filter(|(_, vs)| kerfx_spec::in_version(vs, version)).map(|(n, _)| n.as_str());
    let mut hint = Hint::new(name, here);
    if let Some((_, vs)) = declared.into_iter().find(|(n, _)| *n == name) {
        hint.in_versions = spec.versions.iter().copied().filter(|&v| kerfx_spec::in_version(vs, v)).collect();
    }
    hint
}

/// What a value of an attribute type looks like, for messages.
pub fn type_description(ty: AttrType) -> &'static str {
    match ty {
        AttrType::Int => "an integer",
        AttrType::U64 => "an integer in [0, 2^64), or its decimal string like \"18446744073709551615\"",
        AttrType::Float => "a number",
        AttrType::String => "a string",
        AttrType::Dtype => "a dtype name like \"f32\"",
        AttrType::IntList => "a list of integers like [0, -1]",
        AttrType::FloatList => "a list of numbers like [0.5, 1]",
        AttrType::FloatOrList => "a number or a list of numbers",
        AttrType::Mask => "a list of 0/1 flags like [1, 0]",
        AttrType::Bool => "true or false",
    }
}

fn check_value(op: &str, a: &kerfx_spec::AttributeSpec, value: &AttrValue) -> Result<(), Error> {
    if let (Some(allowed), AttrValue::Str(s)) = (&a.allowed, value)
        && !allowed.iter().any(|x| x == s)
    {
        let mut hint = Hint::new(s, allowed.iter().map(String::as_str));
        hint.known.clear(); // `allowed` lists them
        return Err(Error::AttributeValue {
            op: op.into(),
            name: a.name.clone(),
            value: format!("\"{s}\""),
            allowed: allowed.join(", "),
            hint: Box::new(hint),
        });
    }
    match (a.ty, value) {
        (AttrType::Mask, AttrValue::IntList(l)) => {
            if let Some((i, bad)) = l.iter().enumerate().find(|(_, b)| **b != 0 && **b != 1) {
                return Err(Error::AttributeValue {
                    op: op.into(),
                    name: a.name.clone(),
                    value: format!("{l:?}"),
                    allowed: format!("lists of 0/1 flags; entry {i} is {bad}"),
                    hint: Box::default(),
                });
            }
        }
        (AttrType::U64, v) if u64_value(v).is_none() => {
            return Err(Error::AttributeValue {
                op: op.into(),
                name: a.name.clone(),
                value: match v {
                    AttrValue::Str(s) => format!("\"{s}\""),
                    v => v.to_string(),
                },
                allowed: format!("integers in [0, {}], or their decimal strings", u64::MAX),
                hint: Box::default(),
            });
        }
        (AttrType::Dtype, AttrValue::Str(s)) => {
            s.parse::<DType>().map_err(|_| Error::AttributeValue {
                op: op.into(),
                name: a.name.clone(),
                value: format!("\"{s}\""),
                allowed: "dtype names".into(),
                hint: Box::new(Hint::new(s, DType::ALL.iter().map(|d| d.name()))),
            })?;
        }
        _ => {}
    }
    Ok(())
}

/// The spec's dtype rules a validated request breaks, each about the attribute its
/// condition names when the request wrote it (the mode), else about its subject.
fn dtype_rule_errors(v: &Validated<'_>, request: &Request) -> Vec<Error> {
    let mut errors = Vec::new();
    for rule in v.spec.rules.iter().filter(|r| r.kind == RuleKind::Dtype) {
        if !kerfx_spec::in_version(&rule.versions, v.version) {
            continue;
        }
        if let Some(cond) = &rule.when {
            match v.attr_str(&cond.attribute) {
                Some(s) if cond.values.iter().any(|x| x == s) => {}
                _ => continue,
            }
        }
        let subject = rule.subject.as_deref().unwrap_or_default();
        let (dtype, subject_name) = match subject.split_once(':') {
            Some(("input", n)) => (v.input(n).map(|i| i.dtype().name().to_string()), n),
            Some(("attribute", n)) => (v.attr_str(n).map(str::to_string), n),
            _ => (None, subject),
        };
        let Some(dtype) = dtype else { continue };
        let broken = match (&rule.allow, &rule.forbid) {
            (Some(allow), _) => !allow.contains(&dtype),
            (None, Some(forbid)) => forbid.contains(&dtype),
            (None, None) => false,
        };
        if broken {
            let when = rule
                .when
                .as_ref()
                .and_then(|c| v.attr_str(&c.attribute).map(|s| format!(" with {} = \"{s}\"", c.attribute)))
                .unwrap_or_default();
            let about = match &rule.when {
                Some(c) if request.attributes.contains_key(&c.attribute) => c.attribute.as_str(),
                _ => subject_name,
            };
            errors.push(
                Error::rule(v.op(), &rule.id, format!("dtype {dtype} of {subject}{when}: {}", rule.doc))
                    .about_name(about),
            );
        }
    }
    errors
}
