//! The one renderer of a request as `#[kerf(...)]` derive attributes, as a user writes
//! them: the data input by `dtype` and `input` (its shape), every other input as a
//! constant, attributes as literals. Build scripts use it to derive kernels from spec
//! examples, conformance cases and random requests.

use kerfx::{AttrValue, DType, InputArg, Request, Tensor};

/// The attribute list (without `#[kerf(` `)]`) a request stands for; `None` when the
/// derive cannot express it: string data, an unknown op, an input with an empty dim
/// outside others (nested lists cannot say its inner dims), a value that is not finite,
/// a variadic input of mixed dtypes. A variadic data input (Concat's) is `input = [[...],
/// ...]`, one shape per entry; a request's output count is `outputs = N`.
pub fn derive_attributes(request: &Request) -> Option<String> {
    let spec = kerfx::op_spec(&request.op).ok()?;
    let data_name = kerfx::data_input_name(spec);
    let data_dtype = match data_name.and_then(|n| request.inputs.get(n)) {
        Some(InputArg::Tensor(t)) => Some(t.dtype()),
        Some(InputArg::Meta { dtype, .. }) => Some(*dtype),
        // A variadic data input (Concat's): `input` lists the entries' shapes.
        Some(InputArg::List(entries)) => Some(entries.first()?.dtype()),
        None => None,
    };
    if data_dtype == Some(DType::String) {
        return None; // strings move as `String`s, not bytes: the derive tests cover them by hand
    }
    let mut parts = vec![format!("op = {:?}", request.op)];
    if let Some(v) = request.version {
        parts.push(format!("version = {v}"));
    }
    if let Some(n) = request.outputs {
        parts.push(format!("outputs = {n}"));
    }
    for (name, input) in &request.inputs {
        if let (InputArg::List(entries), true) = (input, Some(name.as_str()) == data_name) {
            let shapes: Vec<String> = entries
                .iter()
                .map(|e| match e {
                    InputArg::Tensor(t) if t.dtype() == data_dtype? => Some(format!("{:?}", t.shape())),
                    InputArg::Meta { dtype, shape } if Some(*dtype) == data_dtype => Some(format!("{shape:?}")),
                    _ => None, // mixed dtypes: the derive writes one `dtype`
                })
                .collect::<Option<_>>()?;
            parts.push(format!("dtype = {:?}", data_dtype?.name()));
            parts.push(format!("input = [{}]", shapes.join(", ")));
            continue;
        }
        let (dtype, shape) = match input {
            InputArg::Tensor(t) => (t.dtype(), t.shape()),
            InputArg::Meta { dtype, shape } => (*dtype, shape.as_slice()),
            InputArg::List(_) => return None,
        };
        if Some(name.as_str()) == data_name {
            parts.push(format!("dtype = {:?}", dtype.name()));
            parts.push(format!("input = {shape:?}"));
            continue;
        }
        let InputArg::Tensor(t) = input else { return None };
        parts.push(format!("{name} = {}", tensor_literal(t, data_dtype)?));
    }
    for (name, value) in &request.attributes {
        if !request.inputs.contains_key(name) {
            parts.push(format!("{name} = {}", attr_literal(value)?));
        }
    }
    Some(parts.join(", "))
}

fn list(items: impl Iterator<Item = String>) -> String {
    format!("[{}]", items.collect::<Vec<_>>().join(", "))
}

fn float(f: f64) -> Option<String> {
    f.is_finite().then(|| format!("{f:?}"))
}

fn attr_literal(v: &AttrValue) -> Option<String> {
    Some(match v {
        AttrValue::Int(i) => i.to_string(),
        AttrValue::UInt(u) => u.to_string(),
        AttrValue::Float(f) => float(*f)?,
        AttrValue::Str(s) => format!("{s:?}"),
        AttrValue::Bool(b) => b.to_string(),
        AttrValue::IntList(l) => list(l.iter().map(i64::to_string)),
        AttrValue::FloatList(l) => list(l.iter().map(|&f| float(f)).collect::<Option<Vec<_>>>()?.into_iter()),
    })
}

/// A constant input: integers exactly, other numbers through f64 (exact for every dtype
/// but i64/u64, which are integers); a scalar as one value. A whole-valued float for
/// integer or bool data is written as an integer, as a user would.
fn tensor_literal(t: &Tensor, data: Option<DType>) -> Option<String> {
    let int_data = data.is_some_and(|d| d.is_integer() || d == DType::Bool);
    let values: Vec<String> = (0..t.len())
        .map(|i| match t.dtype() {
            DType::Bool => t.element_i128(i).map(|v| (v != 0).to_string()),
            d if d.is_integer() => t.element_i128(i).map(|v| v.to_string()),
            _ => {
                let f = t.element_f64(i)?;
                if int_data && f.fract() == 0.0 && f.abs() < 2f64.powi(53) {
                    Some((f as i64).to_string())
                } else {
                    float(f)
                }
            }
        })
        .collect::<Option<_>>()?;
    nested(&values, t.shape())
}

/// Row-major `values` of `shape` as nested lists (a scalar for rank 0).
fn nested(values: &[String], shape: &[u64]) -> Option<String> {
    let Some((&d, inner)) = shape.split_first() else { return values.first().cloned() };
    if d == 0 && !inner.is_empty() {
        return None; // `[]` says one empty axis: the dims inside it would be lost
    }
    let chunk = if d == 0 { 0 } else { values.len() / d as usize };
    let rows = (0..d as usize).map(|i| nested(&values[i * chunk..(i + 1) * chunk], inner));
    Some(list(rows.collect::<Option<Vec<_>>>()?.into_iter()))
}
