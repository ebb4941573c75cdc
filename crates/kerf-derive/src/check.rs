//! The attributes checked against the op's spec, collecting every error with its span,
//! then lowered by kerf-ir's frontend and emitted by kerf-codegen.

use crate::attr::{self, Entry, Spanned, Value};
use crate::ctxt::Ctxt;
use kerf_ir::{AttrValue, DType, Error, InputArg, Request, Tensor};
use kerf_spec::{AttrType, InputRank, OpSpec, RuleKind};
use proc_macro2::TokenStream;
use quote::ToTokens;
use std::collections::BTreeMap;

/// Names the derive reads itself; every other name is an attribute or input of the spec.
const OWN: [&str; 4] = ["op", "version", "dtype", "input"];

pub fn expand(input: &syn::DeriveInput) -> Result<TokenStream, Vec<syn::Error>> {
    let cx = Ctxt::new();
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(&input.generics, "a kerf kernel is one specialized type: it takes no generic parameters");
    }
    if !matches!(input.data, syn::Data::Struct(_)) {
        cx.error_spanned_by(&input.ident, "#[derive(kerf::Kernel)] applies to structs (a unit struct is usual)");
    }
    let first_attr = input.attrs.iter().find(|a| a.path().is_ident("kerf"));
    let Some(first_attr) = first_attr else {
        cx.error_spanned_by(
            &input.ident,
            "#[derive(kerf::Kernel)] needs a #[kerf(op = \"...\", dtype = \"...\", input = [...], ...)] attribute",
        );
        return cx.check().map(|_| TokenStream::new());
    };
    let entries = attr::parse(&input.attrs, &cx);
    let request = build_request(&entries, &cx, first_attr.to_token_stream());
    cx.check()?;
    let Some(request) = request else { return Ok(TokenStream::new()) };
    let plan = kerf_ir::lower(&request).map_err(|e| vec![lower_error(&e, &entries, first_attr)])?;
    kerf_codegen::kernel_impl(&plan, &input.ident).map_err(|e| vec![syn::Error::new_spanned(first_attr, e)])
}

/// The spec's file name, for messages.
fn spec_file(spec: &OpSpec) -> String {
    format!("specs/{}.toml", spec.id)
}

/// The spec input a slice reads its data from: the first that may have any rank.
fn data_input(spec: &OpSpec) -> Option<&kerf_spec::InputSpec> {
    spec.inputs.iter().filter(|i| i.rank == InputRank::Any).min_by_key(|i| i.index)
}

fn type_description(ty: AttrType) -> &'static str {
    match ty {
        AttrType::Int => "an integer",
        AttrType::U64 => "a non-negative integer",
        AttrType::Float => "a number",
        AttrType::String => "a string",
        AttrType::Dtype => "a dtype name like \"f32\"",
        AttrType::IntList => "a list of integers like [0, -1]",
        AttrType::FloatList => "a list of numbers like [0.5, 1]",
        AttrType::FloatOrList => "a number or a list of numbers",
        AttrType::Mask => "a list of 0/1 flags like [1, 0]",
    }
}

fn ints(list: &[Spanned]) -> Option<Vec<i128>> {
    list.iter().map(|x| if let Value::Int(i) = x.value { Some(i) } else { None }).collect()
}

fn numbers(list: &[Spanned]) -> Option<Vec<f64>> {
    list.iter()
        .map(|x| match x.value {
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            _ => None,
        })
        .collect()
}

fn i64s(list: &[i128]) -> Option<Vec<i64>> {
    list.iter().map(|&i| i64::try_from(i).ok()).collect()
}

/// A literal as a value of an attribute type, if it is one.
fn to_attr(ty: AttrType, v: &Value) -> Option<AttrValue> {
    Some(match (ty, v) {
        (AttrType::Int | AttrType::U64, Value::Int(i)) => AttrValue::Int(i64::try_from(*i).ok()?),
        (AttrType::Float | AttrType::FloatOrList, Value::Int(i)) => AttrValue::Float(*i as f64),
        (AttrType::Float | AttrType::FloatOrList, Value::Float(f)) => AttrValue::Float(*f),
        (AttrType::String | AttrType::Dtype, Value::Str(s)) => AttrValue::Str(s.clone()),
        (AttrType::IntList | AttrType::Mask, Value::List(l)) => AttrValue::IntList(i64s(&ints(l)?)?),
        (AttrType::FloatList | AttrType::FloatOrList, Value::List(l)) => AttrValue::FloatList(numbers(l)?),
        _ => return None,
    })
}

/// Edit distance, for "did you mean".
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

fn did_you_mean<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> String {
    known
        .map(|k| (distance(name, k), k))
        .filter(|(d, k)| *d <= 2 && *d < k.len())
        .min()
        .map(|(_, k)| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default()
}

/// Check every entry against the spec and build the request. Errors go to `cx`; the
/// request is returned only when the op is known.
fn build_request(entries: &[Entry], cx: &Ctxt, whole: TokenStream) -> Option<Request> {
    let mut by_name: BTreeMap<String, &Entry> = BTreeMap::new();
    for e in entries {
        match by_name.entry(e.name()) {
            std::collections::btree_map::Entry::Occupied(_) => {
                cx.error_spanned_by(&e.name, format!("attribute `{}` is given twice", e.name))
            }
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(e);
            }
        }
    }
    let registry = match kerf_spec::registry() {
        Ok(r) => r,
        Err(e) => {
            cx.error_spanned_by(&whole, e);
            return None;
        }
    };
    let known_ops = || registry.ids().collect::<Vec<_>>().join(", ");
    let Some(op_entry) = by_name.get("op") else {
        cx.error_spanned_by(
            &whole,
            format!("missing required attribute `op`: the op's spec id, one of {}", known_ops()),
        );
        return None;
    };
    let Value::Str(op) = &op_entry.value.value else {
        cx.error_spanned_by(
            &op_entry.value.tokens,
            format!("`op` must be a string naming a spec, one of {}", known_ops()),
        );
        return None;
    };
    let Some(spec) = registry.get(op) else {
        cx.error_spanned_by(
            &op_entry.value.tokens,
            format!("unknown op `{op}`{} (known: {})", did_you_mean(op, registry.ids()), known_ops()),
        );
        return None;
    };
    let file = spec_file(spec);
    let mut request = Request::new(op);

    // The version.
    let version = match by_name.get("version") {
        None => spec.latest_version(),
        Some(e) => match e.value.value {
            Value::Int(v) if u32::try_from(v).is_ok_and(|v| spec.versions.contains(&v)) => {
                request.version = Some(v as u32);
                v as u32
            }
            _ => {
                cx.error_spanned_by(
                    &e.value.tokens,
                    format!("{op}: `version` must be one of the versions {:?} of {file}", spec.versions),
                );
                spec.latest_version()
            }
        },
    };
    let versioned = spec.versions.len() > 1;
    let in_version = |v: &Option<Vec<u32>>| kerf_spec::in_version(v, version);
    let version_note = if versioned { format!(" in version {version}") } else { String::new() };

    // The data input: `dtype` and `input` (its shape), or neither for ops that read none.
    let data = data_input(spec);
    let mut data_dtype: Option<DType> = None;
    match data {
        Some(data) => {
            let shape = match by_name.get("input") {
                None => {
                    cx.error_spanned_by(
                        &whole,
                        format!("missing `input = [...]`: the shape of {op}'s data input `{}`", data.name),
                    );
                    None
                }
                Some(e) => match &e.value.value {
                    Value::List(l) => {
                        let mut shape = Some(Vec::with_capacity(l.len()));
                        for item in l {
                            match item.value {
                                Value::Int(d) if (0..=u32::MAX as i128).contains(&d) => {
                                    if let Some(s) = shape.as_mut() {
                                        s.push(d as u64);
                                    }
                                }
                                _ => {
                                    cx.error_spanned_by(
                                        &item.tokens,
                                        format!(
                                            "`input` is the shape of the data input `{}`: every extent is an integer in [0, 2^32)",
                                            data.name
                                        ),
                                    );
                                    shape = None;
                                }
                            }
                        }
                        shape
                    }
                    v => {
                        cx.error_spanned_by(
                            &e.value.tokens,
                            format!(
                                "`input` is the shape of the data input `{}`: a list of extents like [3, 3], found {}",
                                data.name,
                                v.kind()
                            ),
                        );
                        None
                    }
                },
            };
            let set = spec.type_set(&data.types).unwrap_or_default();
            match by_name.get("dtype") {
                None => cx.error_spanned_by(
                    &whole,
                    format!(
                        "missing `dtype = \"...\"`: the element type of `{}`, one of {{{}}}",
                        data.name,
                        set.join(", ")
                    ),
                ),
                Some(e) => match &e.value.value {
                    Value::Str(s) => match s.parse::<DType>() {
                        Ok(d) if set.contains(&d.name()) => data_dtype = Some(d),
                        Ok(d) => cx.error_spanned_by(
                            &e.value.tokens,
                            format!(
                                "{op}: dtype {d} of input `{}` is not in its type set {} = {{{}}} ({file})",
                                data.name,
                                data.types,
                                set.join(", ")
                            ),
                        ),
                        Err(err) => cx.error_spanned_by(&e.value.tokens, err),
                    },
                    v => cx.error_spanned_by(
                        &e.value.tokens,
                        format!("`dtype` must be a dtype name like \"f32\", found {}", v.kind()),
                    ),
                },
            }
            if let (Some(d), Some(shape)) = (data_dtype, shape) {
                request = request.input_meta(&data.name, d, &shape);
            }
        }
        None => {
            let out_type = spec.attributes.iter().find(|a| a.ty == AttrType::Dtype).map(|a| a.name.as_str());
            for name in ["input", "dtype"] {
                if let Some(e) = by_name.get(name) {
                    let hint = match (name, out_type) {
                        ("dtype", Some(t)) => format!("; its output type is the `{t}` attribute"),
                        _ => "; its output shape is an attribute".to_string(),
                    };
                    cx.error_spanned_by(&e.name, format!("{op} reads no input tensor, so it takes no `{name}`{hint}"));
                }
            }
        }
    }

    // The op's own attributes, and inputs written as attributes (baked in as constants).
    let data_name = data.map(|d| d.name.as_str());
    for e in entries {
        let name = e.name();
        if OWN.contains(&name.as_str()) || by_name.get(&name).is_some_and(|first| !std::ptr::eq(*first, e)) {
            continue;
        }
        if let Some(a) = spec.attribute(&name).filter(|a| in_version(&a.versions)) {
            let Some(value) = to_attr(a.ty, &e.value.value) else {
                cx.error_spanned_by(
                    &e.value.tokens,
                    format!(
                        "{op}: attribute `{name}` must be of type {} ({}), found {} ({file})",
                        a.ty.name(),
                        type_description(a.ty),
                        e.value.value.kind()
                    ),
                );
                continue;
            };
            if check_value(cx, spec, a, e, &value) {
                request.attributes.insert(name, value);
            }
        } else if let Some(i) =
            spec.input(&name).filter(|i| in_version(&i.versions) && Some(i.name.as_str()) != data_name)
        {
            if let Some(t) = input_tensor(cx, spec, i, e, data_dtype) {
                request.inputs.insert(name, InputArg::Tensor(t));
            }
        } else if data_name == Some(name.as_str()) {
            cx.error_spanned_by(
                &e.name,
                format!(
                    "{op}: `{name}` is the data input: write its shape as `input = [...]` and its type as `dtype = \"...\"`"
                ),
            );
        } else if spec.attribute(&name).is_some() || spec.input(&name).is_some() {
            let versions: Vec<u32> = spec
                .versions
                .iter()
                .copied()
                .filter(|&v| {
                    spec.attribute(&name).is_some_and(|a| kerf_spec::in_version(&a.versions, v))
                        || spec.input(&name).is_some_and(|i| kerf_spec::in_version(&i.versions, v))
                })
                .collect();
            cx.error_spanned_by(
                &e.name,
                format!(
                    "{op}: `{name}` does not exist in version {version}; it exists in versions {versions:?} ({file})"
                ),
            );
        } else {
            let known: Vec<&str> = OWN
                .iter()
                .copied()
                .filter(|n| data.is_some() || !["dtype", "input"].contains(n))
                .chain(spec.attributes.iter().filter(|a| in_version(&a.versions)).map(|a| a.name.as_str()))
                .chain(
                    spec.inputs
                        .iter()
                        .filter(|i| in_version(&i.versions) && Some(i.name.as_str()) != data_name)
                        .map(|i| i.name.as_str()),
                )
                .fold(Vec::new(), |mut v, n| {
                    if !v.contains(&n) {
                        v.push(n);
                    }
                    v
                });
            let hint = did_you_mean(&name, known.iter().copied());
            cx.error_spanned_by(
                &e.name,
                format!("{op}: unknown attribute `{name}`{version_note}{hint}; {file} accepts {}", known.join(", ")),
            );
        }
    }

    // Required attributes (an input given in their place counts).
    for a in spec.attributes.iter().filter(|a| a.required && in_version(&a.versions)) {
        let replaced = spec
            .inputs
            .iter()
            .any(|i| i.replaces.as_deref() == Some(a.name.as_str()) && request.inputs.contains_key(&i.name));
        if !by_name.contains_key(&a.name) && !replaced {
            cx.error_spanned_by(
                &whole,
                format!(
                    "{op}: missing required attribute `{}`: {} ({}, {file})",
                    a.name,
                    a.doc,
                    type_description(a.ty)
                ),
            );
        }
    }

    if !cx.has_errors() {
        check_dtype_rules(cx, spec, version, &request, &by_name, &whole);
    }
    Some(request)
}

/// Allowed values, masks, non-negative integers and dtype names. Returns whether the value is good.
fn check_value(cx: &Ctxt, spec: &OpSpec, a: &kerf_spec::AttributeSpec, e: &Entry, value: &AttrValue) -> bool {
    let op = &spec.id;
    let file = spec_file(spec);
    let name = &a.name;
    match (a.ty, value) {
        (_, AttrValue::Str(s)) if a.allowed.as_ref().is_some_and(|al| !al.contains(s)) => {
            let allowed = a.allowed.as_deref().unwrap_or_default();
            cx.error_spanned_by(
                &e.value.tokens,
                format!(
                    "{op}: unknown {name} `{s}`{}: attribute `{name}` allows {} ({file})",
                    did_you_mean(s, allowed.iter().map(String::as_str)),
                    allowed.join(", ")
                ),
            );
            false
        }
        (AttrType::Dtype, AttrValue::Str(s)) if s.parse::<DType>().is_err() => {
            cx.error_spanned_by(&e.value.tokens, format!("{op}: attribute `{name}`: unknown dtype `{s}`"));
            false
        }
        (AttrType::Mask, AttrValue::IntList(l)) => {
            let Value::List(items) = &e.value.value else { return false };
            let mut ok = true;
            for (item, b) in items.iter().zip(l) {
                if *b != 0 && *b != 1 {
                    cx.error_spanned_by(
                        &item.tokens,
                        format!("{op}: attribute `{name}` is a mask: every entry is 0 or 1, found {b} ({file})"),
                    );
                    ok = false;
                }
            }
            ok
        }
        (AttrType::U64, AttrValue::Int(i)) if *i < 0 => {
            cx.error_spanned_by(&e.value.tokens, format!("{op}: attribute `{name}` must be ≥ 0, found {i} ({file})"));
            false
        }
        _ => true,
    }
}

/// An input written as an attribute: its value as a constant tensor.
fn input_tensor(
    cx: &Ctxt,
    spec: &OpSpec,
    input: &kerf_spec::InputSpec,
    e: &Entry,
    data_dtype: Option<DType>,
) -> Option<Tensor> {
    let op = &spec.id;
    let name = &input.name;
    let set = spec.type_set(&input.types).unwrap_or_default();
    let has = |d: DType| set.contains(&d.name());
    let scalar_ok = matches!(input.rank, InputRank::Scalar | InputRank::ScalarOrVector);
    let vector_ok = matches!(input.rank, InputRank::Vector | InputRank::ScalarOrVector);
    let t = match &e.value.value {
        Value::Int(i) if scalar_ok => {
            let i = i64::try_from(*i).ok()?;
            // Prefer the data's own type when it is an integer type of the set.
            if has(DType::I64) {
                Some(Tensor::scalar_bits(DType::I64, i as u64 as u128))
            } else {
                Some(Tensor::scalar_bits(DType::F64, (i as f64).to_bits() as u128))
            }
        }
        Value::Float(f) if scalar_ok && has(DType::F64) => Some(Tensor::scalar_bits(DType::F64, f.to_bits() as u128)),
        Value::Bool(b) if scalar_ok && has(DType::Bool) => Some(Tensor::scalar_bits(DType::Bool, *b as u128)),
        Value::List(l) if vector_ok && has(DType::I64) && ints(l).is_some() => {
            i64s(&ints(l).unwrap_or_default()).map(|v| Tensor::from_i64s(&v))
        }
        Value::List(l) if vector_ok && has(DType::F64) && numbers(l).is_some() => {
            let v = numbers(l).unwrap_or_default();
            let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
            Tensor::from_bytes(DType::F64, &[v.len() as u64], &bytes).ok()
        }
        _ => None,
    };
    if t.is_none() {
        let shape = match input.rank {
            InputRank::Scalar => "a number",
            InputRank::Vector => "a list of integers like [0, -1]",
            InputRank::ScalarOrVector => "a number or a list of numbers",
            InputRank::Any => "a tensor",
        };
        let _ = data_dtype;
        cx.error_spanned_by(
            &e.value.tokens,
            format!(
                "{op}: input `{name}` (baked in as a constant when written as an attribute) must be {shape} of {} = {{{}}}, found {} ({})",
                input.types,
                set.join(", "),
                e.value.value.kind(),
                spec_file(spec)
            ),
        );
    }
    t
}

/// The spec's generic dtype rules (mode × dtype and the like), each at the span of the
/// attribute its condition names.
fn check_dtype_rules(
    cx: &Ctxt,
    spec: &OpSpec,
    version: u32,
    request: &Request,
    by_name: &BTreeMap<String, &Entry>,
    whole: &TokenStream,
) {
    let attr_str = |name: &str| -> Option<String> {
        match request.attributes.get(name) {
            Some(AttrValue::Str(s)) => Some(s.clone()),
            Some(_) => None,
            None => spec.attribute(name)?.default.as_ref()?.as_str().map(str::to_string),
        }
    };
    for rule in spec.rules.iter().filter(|r| r.kind == RuleKind::Dtype && kerf_spec::in_version(&r.versions, version)) {
        if let Some(c) = &rule.when {
            match attr_str(&c.attribute) {
                Some(s) if c.values.contains(&s) => {}
                _ => continue,
            }
        }
        let subject = rule.subject.as_deref().unwrap_or_default();
        let (dtype, subject_key) = match subject.split_once(':') {
            Some(("input", n)) => {
                let key = if data_input(spec).is_some_and(|d| d.name == n) { "dtype" } else { n };
                (request.inputs.get(n).map(|i| i.dtype().name().to_string()), key)
            }
            Some(("attribute", n)) => (attr_str(n), n),
            _ => (None, ""),
        };
        let Some(dtype) = dtype else { continue };
        let broken = match (&rule.allow, &rule.forbid) {
            (Some(allow), _) => !allow.contains(&dtype),
            (None, Some(forbid)) => forbid.contains(&dtype),
            (None, None) => false,
        };
        if !broken {
            continue;
        }
        let when = rule
            .when
            .as_ref()
            .and_then(|c| attr_str(&c.attribute).map(|s| format!(" with {} = \"{s}\"", c.attribute)))
            .unwrap_or_default();
        let message = format!(
            "{}: rule `{}` broken: dtype {dtype} of {subject}{when}: {} ({})",
            spec.id,
            rule.id,
            rule.doc,
            spec_file(spec)
        );
        // At the condition's attribute when written (the mode), else at the subject.
        let at = rule
            .when
            .as_ref()
            .and_then(|c| by_name.get(&c.attribute))
            .or_else(|| by_name.get(subject_key))
            .map(|e| e.tokens.clone())
            .unwrap_or_else(|| whole.clone());
        cx.error_spanned_by(at, message);
    }
}

/// A frontend's error, at the span of the attribute it is about: the one it names, or
/// the first attribute written that its message mentions, or the whole `#[kerf]`.
fn lower_error(err: &Error, entries: &[Entry], whole: &syn::Attribute) -> syn::Error {
    let entry = |name: &str| entries.iter().find(|e| e.name() == name);
    let mentioned = |text: &str| {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty() && *w != "op")
            .find_map(&entry)
    };
    let at = match err {
        Error::Rule { op, rule, detail } => mentioned(detail).or_else(|| {
            let doc = kerf_spec::registry().ok()?.get(op)?.rule(rule)?.doc.clone();
            mentioned(&doc)
        }),
        Error::UnknownVersion { .. } => entry("version"),
        Error::InputDType { name, .. } | Error::InputRank { name, .. } => entry(name).or_else(|| entry("dtype")),
        Error::UnknownAttribute { name, .. }
        | Error::AttributeType { name, .. }
        | Error::AttributeValue { name, .. }
        | Error::MissingAttribute { name, .. }
        | Error::UnknownInput { name, .. }
        | Error::MissingInput { name, .. } => entry(name),
        Error::Overflow { what, .. } => mentioned(what),
        _ => None,
    };
    match at {
        Some(e) => syn::Error::new_spanned(&e.tokens, err),
        None => syn::Error::new_spanned(whole, err),
    }
}
