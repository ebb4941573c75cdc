//! The attributes as a `kerfx_ir::Request`, and kerfx-ir's errors at the spans of the
//! attributes they are about. Nothing here checks the spec's rules: `kerfx_ir::lower`
//! validates the request (every error at once) and runs the op's frontend; this file
//! only maps tokens to the request and each error, by what it is about, to a span.

use crate::attr::{self, Entry, Spanned, Value};
use crate::ctxt::Ctxt;
use kerfx_ir::{About, AttrValue, DType, Error, InputArg, Request, Tensor};
use kerfx_spec::{InputRank, OpSpec, RuleKind};
use proc_macro2::TokenStream;
use quote::ToTokens;
use std::collections::BTreeMap;

/// Names the derive reads itself; every other name is an attribute or input of the spec.
const OWN: [&str; 5] = ["op", "version", "dtype", "input", "outputs"];

pub fn expand(input: &syn::DeriveInput) -> Result<TokenStream, Vec<syn::Error>> {
    let cx = Ctxt::new();
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(&input.generics, "a kerf kernel is one specialized type: it takes no generic parameters");
    }
    if !matches!(input.data, syn::Data::Struct(_)) {
        cx.error_spanned_by(&input.ident, "#[derive(kerfx::Kernel)] applies to structs (a unit struct is usual)");
    }
    let first_attr = input.attrs.iter().find(|a| a.path().is_ident("kerf"));
    let Some(first_attr) = first_attr else {
        cx.error_spanned_by(
            &input.ident,
            "#[derive(kerfx::Kernel)] needs a #[kerf(op = \"...\", dtype = \"...\", input = [...], ...)] attribute",
        );
        return cx.check().map(|_| TokenStream::new());
    };
    attr::check_nesting(&input.attrs)?;
    let entries = attr::parse(&input.attrs, &cx);
    let whole = first_attr.to_token_stream();
    let request = build_request(&entries, &cx, &whole);
    cx.check()?;
    let Some(request) = request else { return Ok(TokenStream::new()) };
    let at_spans = |e: Error| e.list().iter().map(|e| spanned(e, &request, &entries, &whole)).collect::<Vec<_>>();
    if kerfx_codegen::is_program_op(&request.op) {
        // Several inputs or outputs (Concat, Split): a program, one nest per move.
        let program = kerfx_ir::lower_program(&request).map_err(at_spans)?;
        return kerfx_codegen::program_impl(&program, &input.ident)
            .map_err(|e| vec![syn::Error::new_spanned(first_attr, e)]);
    }
    let plan = kerfx_ir::lower(&request).map_err(at_spans)?;
    kerfx_codegen::kernel_impl(&plan, &input.ident).map_err(|e| vec![syn::Error::new_spanned(first_attr, e)])
}

/// Map the entries to a request. Only what the request cannot hold is an error here
/// (a name given twice, a literal no attribute value or input can be, the data input's
/// `dtype`/`input` missing or malformed); everything else is for the validator. `None`
/// when there is no op to ask for.
fn build_request(entries: &[Entry], cx: &Ctxt, whole: &TokenStream) -> Option<Request> {
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
    let Some(op_entry) = by_name.get("op") else {
        cx.error_spanned_by(whole, "missing required attribute `op`: the op's spec id, like \"tensorrt.slice\"");
        return None;
    };
    let Value::Str(op) = &op_entry.value.value else {
        cx.error_spanned_by(&op_entry.value.tokens, "`op` must be a string naming a spec, like \"tensorrt.slice\"");
        return None;
    };
    let mut request = Request::new(op);
    let spec = match kerfx_spec::registry() {
        Ok(r) => r.get(op),
        Err(e) => {
            cx.error_spanned_by(whole, e);
            return None;
        }
    };
    // An unknown op: the validator says so, with a hint.
    let Some(spec) = spec else { return Some(request) };
    if let Some(e) = by_name.get("version") {
        match e.value.value {
            Value::Int(v) if u32::try_from(v).is_ok() => request.version = Some(v as u32),
            _ => cx.error_spanned_by(
                &e.value.tokens,
                format!("`version` must be one of {op}'s versions {:?}", spec.versions),
            ),
        }
    }
    if let Some(e) = by_name.get("outputs") {
        let variadic_output = spec.outputs.iter().any(|o| o.variadic);
        match e.value.value {
            Value::Int(n) if variadic_output && (1..=u32::MAX as i128).contains(&n) => request.outputs = Some(n as u32),
            _ if !variadic_output => cx.error_spanned_by(
                &e.name,
                format!("{op} writes one output: `outputs = N` is for ops whose output count the node decides"),
            ),
            ref v => {
                let found = if let Value::Int(n) = v { n.to_string() } else { v.kind().to_string() };
                cx.error_spanned_by(
                    &e.value.tokens,
                    format!("`outputs` is how many outputs {op} writes: an integer in [1, 2^32), found {found}"),
                )
            }
        }
    }
    let data = spec.data_input();
    match data {
        Some(data) => {
            if let Some(input) = data_input(cx, &by_name, data, whole) {
                request.inputs.insert(data.name.clone(), input);
            }
        }
        None => {
            let out_type = spec.attributes.iter().find(|a| a.ty == kerfx_spec::AttrType::Dtype).map(|a| &a.name);
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
    let version = request.version.unwrap_or_else(|| spec.latest_version());
    for e in entries.iter().filter(|e| by_name.get(&e.name()).is_some_and(|first| std::ptr::eq(*first, *e))) {
        let name = &e.name();
        if OWN.contains(&name.as_str()) {
            continue;
        }
        let attribute = spec.attribute(name);
        let input = spec.input(name).filter(|i| Some(&i.name) != data.map(|d| &d.name));
        let is_input = match (attribute, input) {
            (Some(a), Some(i)) => {
                !kerfx_spec::in_version(&a.versions, version) && kerfx_spec::in_version(&i.versions, version)
            }
            (a, i) => a.is_none() && i.is_some(),
        };
        if data.is_some_and(|d| &d.name == name) {
            cx.error_spanned_by(
                &e.name,
                format!("{op}: `{name}` is the data input: write its shape as `input = [...]` and its type as `dtype = \"...\"`"),
            );
        } else if let (true, Some(i)) = (is_input, input) {
            if let Some(t) = input_tensor(cx, spec, i, e) {
                request.inputs.insert(name.clone(), InputArg::Tensor(t));
            }
        } else if let Some(v) = attr_value(&e.value.value) {
            request.attributes.insert(name.clone(), v);
        } else {
            let expected =
                attribute.map(|a| format!(" of type {} ({})", a.ty.name(), kerfx_ir::request::type_description(a.ty)));
            cx.error_spanned_by(
                &e.value.tokens,
                format!(
                    "{op}: attribute `{name}` must be a value{}, found {} that no attribute takes",
                    expected.unwrap_or_default(),
                    e.value.value.kind()
                ),
            );
        }
    }
    Some(request)
}

/// A literal as an attribute value: numbers, strings and lists of numbers (as written:
/// the validator checks them against the attribute's type).
fn attr_value(v: &Value) -> Option<AttrValue> {
    Some(match v {
        // Past i64: the u64 of a `u64` attribute (a seed); validation refuses it elsewhere.
        Value::Int(i) => {
            i64::try_from(*i).map(AttrValue::Int).or_else(|_| u64::try_from(*i).map(AttrValue::UInt)).ok()?
        }
        Value::Float(f) => AttrValue::Float(*f),
        Value::Str(s) => AttrValue::Str(s.clone()),
        Value::List(l) => match ints(l) {
            Some(ints) => AttrValue::IntList(i64s(&ints)?),
            None => AttrValue::FloatList(numbers(l)?),
        },
        Value::Bool(b) => AttrValue::Bool(*b),
    })
}

/// The data input from `dtype = "..."` and `input = [...]` (its shape).
fn data_input(
    cx: &Ctxt,
    by_name: &BTreeMap<String, &Entry>,
    data: &kerfx_spec::InputSpec,
    whole: &TokenStream,
) -> Option<InputArg> {
    let name = &data.name;
    if data.variadic {
        return variadic_input(cx, by_name, data, whole);
    }
    let shape = match by_name.get("input") {
        None => {
            cx.error_spanned_by(whole, format!("missing `input = [...]`: the shape of the data input `{name}`"));
            None
        }
        Some(e) => match &e.value.value {
            Value::List(l) => shape_of(cx, l, &format!("`input` is the shape of the data input `{name}`")),
            v => {
                cx.error_spanned_by(
                    &e.value.tokens,
                    format!(
                        "`input` is the shape of the data input `{name}`: a list of extents like [3, 3], found {}",
                        v.kind()
                    ),
                );
                None
            }
        },
    };
    let dtype = dtype_of(cx, by_name, name, whole);
    Some(InputArg::Meta { dtype: dtype?, shape: shape? })
}

/// A shape as written: a list of extents in [0, 2^32) (errors at each bad extent).
fn shape_of(cx: &Ctxt, list: &[Spanned], what: &str) -> Option<Vec<u64>> {
    let extents: Vec<Option<u64>> = list
        .iter()
        .map(|item| match item.value {
            Value::Int(d) if (0..=u32::MAX as i128).contains(&d) => Some(d as u64),
            _ => {
                cx.error_spanned_by(&item.tokens, format!("{what}: every extent is an integer in [0, 2^32)"));
                None
            }
        })
        .collect();
    extents.into_iter().collect()
}

/// A variadic data input (Concat's `inputs`) from `dtype = "..."` and `input = [[...],
/// [...], ...]`: one shape per entry, all of the one dtype.
fn variadic_input(
    cx: &Ctxt,
    by_name: &BTreeMap<String, &Entry>,
    data: &kerfx_spec::InputSpec,
    whole: &TokenStream,
) -> Option<InputArg> {
    let name = &data.name;
    let what = format!("`input` lists the shapes of the variadic data input `{name}`");
    let shapes = match by_name.get("input") {
        None => {
            cx.error_spanned_by(
                whole,
                format!(
                    "missing `input = [[...], ...]`: the shapes of the variadic data input `{name}`, one list each"
                ),
            );
            None
        }
        Some(e) => match &e.value.value {
            Value::List(l) if !l.is_empty() && l.iter().all(|x| matches!(x.value, Value::Int(_))) => {
                cx.error_spanned_by(
                    &e.value.tokens,
                    format!("{what}, one list of extents each: write one entry's shape as [[2, 3]], found one shape"),
                );
                None
            }
            Value::List(l) if !l.is_empty() => {
                let shapes: Vec<Option<Vec<u64>>> = l
                    .iter()
                    .map(|entry| match &entry.value {
                        Value::List(extents) => shape_of(cx, extents, &what),
                        v => {
                            cx.error_spanned_by(
                                &entry.tokens,
                                format!("{what}, one list of extents each like [[2, 3], [2, 4]], found {}", v.kind()),
                            );
                            None
                        }
                    })
                    .collect();
                shapes.into_iter().collect::<Option<Vec<_>>>()
            }
            v => {
                cx.error_spanned_by(
                    &e.value.tokens,
                    format!("{what}: a list of shapes like [[2, 3], [2, 4]], found {}", v.kind()),
                );
                None
            }
        },
    };
    let dtype = dtype_of(cx, by_name, name, whole);
    let dtype = dtype?;
    Some(InputArg::List(shapes?.into_iter().map(|shape| InputArg::Meta { dtype, shape }).collect()))
}

/// `dtype = "..."`: the element type of the data input `name`.
fn dtype_of(cx: &Ctxt, by_name: &BTreeMap<String, &Entry>, name: &str, whole: &TokenStream) -> Option<DType> {
    match by_name.get("dtype") {
        None => {
            cx.error_spanned_by(
                whole,
                format!("missing `dtype = \"...\"`: the element type of the data input `{name}`"),
            );
            None
        }
        Some(e) => match &e.value.value {
            Value::Str(s) => s.parse::<DType>().map_err(|err| cx.error_spanned_by(&e.value.tokens, err)).ok(),
            v => {
                cx.error_spanned_by(
                    &e.value.tokens,
                    format!("`dtype` must be a dtype name like \"f32\", found {}", v.kind()),
                );
                None
            }
        },
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

/// A rectangular nesting of integer lists (or one integer: a 0-d tensor) as an i64 tensor
/// of its shape, e.g. `[[0, 1], [2, 3]]` of shape [2, 2].
fn int_tensor(v: &Value) -> Option<Tensor> {
    fn walk(v: &Value, depth: usize, shape: &mut Vec<u64>, out: &mut Vec<i64>) -> Option<()> {
        match v {
            Value::Int(i) if depth == shape.len() => out.push(i64::try_from(*i).ok()?),
            Value::List(l) if depth < shape.len() || (depth == shape.len() && out.is_empty()) => {
                if depth == shape.len() {
                    shape.push(l.len() as u64); // the first list at this depth fixes its extent
                }
                if shape[depth] != l.len() as u64 {
                    return None;
                }
                for x in l {
                    walk(&x.value, depth + 1, shape, out)?;
                }
            }
            _ => return None,
        }
        Some(())
    }
    let (mut shape, mut out) = (Vec::new(), Vec::new());
    walk(v, 0, &mut shape, &mut out)?;
    Tensor::from_i64s(&out).reshaped(&shape).ok()
}

fn i64s(list: &[i128]) -> Option<Vec<i64>> {
    list.iter().map(|&i| i64::try_from(i).ok()).collect()
}

/// An input written as an attribute: its value as a constant tensor (an i64 or f64
/// scalar or vector, whichever the input's type set has; the frontend converts it).
fn input_tensor(cx: &Ctxt, spec: &OpSpec, input: &kerfx_spec::InputSpec, e: &Entry) -> Option<Tensor> {
    let set = spec.type_set(&input.types).unwrap_or_default();
    let has = |d: DType| set.contains(&d.name());
    let scalar_ok = matches!(input.rank, InputRank::Scalar | InputRank::ScalarOrVector);
    let vector_ok = matches!(input.rank, InputRank::Vector | InputRank::ScalarOrVector);
    let t = match &e.value.value {
        // An index tensor of any rank (Gather's indices), written as nested lists.
        v if input.rank == InputRank::Any && has(DType::I64) => int_tensor(v),
        Value::Int(i) if scalar_ok => i64::try_from(*i).ok().map(|i| {
            if has(DType::I64) {
                Tensor::scalar_bits(DType::I64, i as u64 as u128)
            } else {
                Tensor::scalar_bits(DType::F64, (i as f64).to_bits() as u128)
            }
        }),
        Value::Float(f) if scalar_ok && has(DType::F64) => Some(Tensor::scalar_bits(DType::F64, f.to_bits() as u128)),
        Value::Bool(b) if scalar_ok && has(DType::Bool) => Some(Tensor::scalar_bits(DType::Bool, *b as u128)),
        // A scalar may be written as a one-element list, as the validator takes shape [1].
        Value::List(l) if input.rank == InputRank::Scalar && l.len() == 1 && has(DType::I64) && ints(l).is_some() => {
            i64s(&ints(l).unwrap_or_default()).map(|v| Tensor::from_i64s(&v))
        }
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
            InputRank::Scalar => "a number (or a one-element list)",
            InputRank::Vector => "a list of integers like [0, -1]",
            InputRank::ScalarOrVector => "a number or a list of numbers",
            InputRank::Any => "an integer or nested lists of integers like [[0, 1], [2, 3]]",
        };
        cx.error_spanned_by(
            &e.value.tokens,
            format!(
                "{}: input `{}` (baked in as a constant when written as an attribute) must be {shape} of {} = {{{}}} (64-bit), found {}",
                spec.id,
                input.name,
                input.types,
                set.join(", "),
                e.value.value.kind(),
            ),
        );
    }
    t
}

/// An error of kerfx-ir at the span of the entry it is about (from the error's data, never
/// its text): unknown names at the name, bad values at the value, rules at the whole
/// `name = value`, the data input at `dtype` (its type) or `input` (its shape); what no
/// entry wrote (a missing attribute) at the whole `#[kerf(...)]`.
fn spanned(err: &Error, request: &Request, entries: &[Entry], whole: &TokenStream) -> syn::Error {
    let entry = |name: &str| entries.iter().find(|e| e.name() == name);
    let spec = kerfx_spec::registry().ok().and_then(|r| r.get(&request.op));
    let data = spec.and_then(OpSpec::data_input).map(|d| d.name.as_str());
    let is_dtype_rule = || {
        let rule = err.rule_id().and_then(|id| spec?.rule(id));
        rule.is_some_and(|r| r.kind == RuleKind::Dtype)
    };
    // The entry that wrote `name`: the data input's is `dtype` or `input`.
    let written = |name: &str| -> Option<&Entry> {
        if Some(name) == data {
            let by_dtype = matches!(err, Error::InputDType { .. }) || is_dtype_rule();
            entry(if by_dtype { "dtype" } else { "input" })
        } else {
            entry(name)
        }
    };
    let at: Option<TokenStream> = match err.about() {
        Some(About::Op) => entry("op").map(|e| e.value.tokens.clone()),
        Some(About::Version) => entry("version").map(|e| e.value.tokens.clone()),
        Some(about) => about.name().and_then(written).map(|e| match err {
            Error::UnknownAttribute { .. } | Error::UnknownInput { .. } => e.name.to_token_stream(),
            Error::Rule { .. } => e.tokens.clone(),
            _ => e.value.tokens.clone(),
        }),
        None => None,
    };
    // Name the spec the error comes from, so the user knows where to read up.
    let file = spec.map(|s| format!(" (specs/{}.toml)", s.id)).unwrap_or_default();
    syn::Error::new_spanned(at.unwrap_or_else(|| whole.clone()), format!("{err}{file}"))
}
