//! The shape path on the host: the small ops exporters compute pads, slice bounds and
//! reshape targets with, evaluated as onnx's reference evaluator (onnx 1.23) does when a
//! graph is imported (the input shapes are known then).
//!
//! Numbers are held as i64 (integer types), f64 (float types: every f32 or f16 result
//! of `+ - * /` computed in f64 and rounded once is the correctly rounded one) or bool.
//! Integer `Div` truncates toward zero, as the reference's integer path does; a division
//! by zero is an error here (numpy would give 0 with a warning). Broadcasting is numpy's.
//! Every tensor made here has at most [`MAX_ELEMENTS`] elements.

use crate::proto::AttributeProto;
use kerfx_ir::DType;
use kerfx_ir::tensor::Tensor;

/// The most elements a host-evaluated tensor may have (shape paths are a few numbers).
pub const MAX_ELEMENTS: u64 = 1 << 24;

/// The ops evaluated here.
pub const HOST_OPS: &[&str] = &[
    "Constant",
    "Shape",
    "Size",
    "ConstantOfShape",
    "Range",
    "Cast",
    "Ceil",
    "Floor",
    "Neg",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Equal",
    "Where",
    "Concat",
];

/// Whether `op_type` is evaluated on the host (when its inputs are known).
pub fn is_host_op(op_type: &str) -> bool {
    HOST_OPS.contains(&op_type)
}

#[derive(Clone, Debug, PartialEq)]
enum Nums {
    I(Vec<i64>),
    F(Vec<f64>),
    B(Vec<bool>),
}

#[derive(Clone, Debug)]
struct Host {
    dtype: DType,
    shape: Vec<u64>,
    nums: Nums,
}

fn count(shape: &[u64]) -> Result<u64, String> {
    match kerfx_ir::tensor::volume(shape) {
        Some(n) if n <= MAX_ELEMENTS => Ok(n),
        _ => Err(format!("shape {shape:?} has more than {MAX_ELEMENTS} elements, more than a shape path computes")),
    }
}

fn host(t: &Tensor) -> Result<Host, String> {
    let n = count(t.shape())?;
    let d = t.dtype();
    let nums = match d {
        DType::Bool => Nums::B((0..n).map(|i| t.element_bits(i).unwrap_or(0) != 0).collect()),
        DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::U8 | DType::U16 | DType::U32 => {
            Nums::I((0..n).map(|i| t.element_i128(i).unwrap_or(0) as i64).collect())
        }
        DType::F16 | DType::F32 | DType::F64 => Nums::F((0..n).map(|i| t.element_f64(i).unwrap_or(0.0)).collect()),
        other => return Err(format!("the shape path evaluates bool, integer and float tensors, not {other}")),
    };
    Ok(Host { dtype: d, shape: t.shape().to_vec(), nums })
}

fn tensor(h: Host) -> Result<Tensor, String> {
    let d = h.dtype;
    let bytes: Vec<u8> = match (&h.nums, d) {
        (Nums::B(v), _) => v.iter().map(|&b| u8::from(b)).collect(),
        (Nums::I(v), DType::I64) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        (Nums::I(v), DType::I32) => v.iter().flat_map(|&x| (x as i32).to_le_bytes()).collect(),
        (Nums::I(v), DType::U32) => v.iter().flat_map(|&x| (x as u32).to_le_bytes()).collect(),
        (Nums::I(v), DType::I16) => v.iter().flat_map(|&x| (x as i16).to_le_bytes()).collect(),
        (Nums::I(v), DType::U16) => v.iter().flat_map(|&x| (x as u16).to_le_bytes()).collect(),
        (Nums::I(v), DType::I8) => v.iter().map(|&x| x as i8 as u8).collect(),
        (Nums::I(v), DType::U8) => v.iter().map(|&x| x as u8).collect(),
        (Nums::F(v), DType::F64) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        (Nums::F(v), DType::F32) => v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect(),
        (Nums::F(v), DType::F16) => v.iter().flat_map(|&x| half::f16::from_f64(x).to_le_bytes()).collect(),
        _ => return Err(format!("cannot make a {d} tensor of these values")),
    };
    Tensor::from_bytes(d, &h.shape, &bytes).map_err(|e| e.to_string())
}

/// Round a float result to its dtype (f32 and f16 hold fewer bits than f64).
fn round(d: DType, x: f64) -> f64 {
    match d {
        DType::F32 => f64::from(x as f32),
        DType::F16 => half::f16::from_f64(x).to_f64(),
        _ => x,
    }
}

fn attr<'a>(attrs: &[(&str, &'a AttributeProto)], name: &str) -> Option<&'a AttributeProto> {
    attrs.iter().find(|(n, _)| *n == name).map(|(_, a)| *a)
}

fn int_attr(attrs: &[(&str, &AttributeProto)], name: &str) -> Option<i64> {
    attr(attrs, name).and_then(|a| a.i)
}

fn input<'a>(values: &[Option<&'a Tensor>], k: usize, what: &str) -> Result<&'a Tensor, String> {
    values.get(k).copied().flatten().ok_or_else(|| format!("input {k} ({what}) is not given"))
}

fn ints(t: &Tensor, what: &str) -> Result<Vec<i64>, String> {
    match host(t)?.nums {
        Nums::I(v) => Ok(v),
        _ => Err(format!("{what} must be an integer tensor, not {}", t.dtype())),
    }
}

/// numpy's broadcast shape of `a` and `b`.
fn broadcast_shape(a: &[u64], b: &[u64]) -> Result<Vec<u64>, String> {
    let rank = a.len().max(b.len());
    let at = |s: &[u64], k: usize| if k + s.len() >= rank { s[k + s.len() - rank] } else { 1 };
    (0..rank)
        .map(|k| match (at(a, k), at(b, k)) {
            (x, y) if x == y => Ok(x),
            (1, y) => Ok(y),
            (x, 1) => Ok(x),
            (x, y) => Err(format!("shapes {a:?} and {b:?} do not broadcast (axis {k}: {x} and {y})")),
        })
        .collect()
}

/// For each element of `out` (row-major), the flat index of the element of `shape` it
/// broadcasts from.
fn broadcast_index(shape: &[u64], out: &[u64]) -> Vec<usize> {
    let rank = out.len();
    let mut strides = vec![0u64; rank];
    let mut stride = 1u64;
    for k in (0..shape.len()).rev() {
        let o = k + rank - shape.len();
        strides[o] = if shape[k] == 1 { 0 } else { stride };
        stride *= shape[k];
    }
    let n = out.iter().product::<u64>();
    let mut idx = Vec::with_capacity(n as usize);
    let mut coord = vec![0u64; rank];
    for _ in 0..n {
        idx.push(coord.iter().zip(&strides).map(|(c, s)| c * s).sum::<u64>() as usize);
        for k in (0..rank).rev() {
            coord[k] += 1;
            if coord[k] < out[k] {
                break;
            }
            coord[k] = 0;
        }
    }
    idx
}

fn binary(op: &str, a: &Tensor, b: &Tensor) -> Result<Host, String> {
    if a.dtype() != b.dtype() {
        return Err(format!("inputs of types {} and {} (ONNX requires one type)", a.dtype(), b.dtype()));
    }
    let (ha, hb) = (host(a)?, host(b)?);
    let shape = broadcast_shape(&ha.shape, &hb.shape)?;
    count(&shape)?;
    let (ia, ib) = (broadcast_index(&ha.shape, &shape), broadcast_index(&hb.shape, &shape));
    let d = a.dtype();
    let pairs = ia.iter().zip(&ib);
    if op == "Equal" {
        let eq: Vec<bool> = match (&ha.nums, &hb.nums) {
            (Nums::I(x), Nums::I(y)) => pairs.map(|(&i, &j)| x[i] == y[j]).collect(),
            (Nums::F(x), Nums::F(y)) => pairs.map(|(&i, &j)| x[i] == y[j]).collect(),
            (Nums::B(x), Nums::B(y)) => pairs.map(|(&i, &j)| x[i] == y[j]).collect(),
            _ => return Err("mixed types".into()),
        };
        return Ok(Host { dtype: DType::Bool, shape, nums: Nums::B(eq) });
    }
    let nums = match (&ha.nums, &hb.nums) {
        (Nums::I(x), Nums::I(y)) => {
            let mut out = Vec::with_capacity(ia.len());
            for (&i, &j) in pairs {
                let (p, q) = (x[i], y[j]);
                out.push(match op {
                    "Add" => p.wrapping_add(q),
                    "Sub" => p.wrapping_sub(q),
                    "Mul" => p.wrapping_mul(q),
                    _ if q == 0 => return Err(format!("integer division of {p} by zero")),
                    // Truncation toward zero, as the reference's integer path.
                    _ => p.wrapping_div(q),
                });
            }
            // Narrower integer types wrap as numpy's do.
            Nums::I(out.into_iter().map(|v| wrap(d, v)).collect())
        }
        (Nums::F(x), Nums::F(y)) => Nums::F(
            pairs
                .map(|(&i, &j)| {
                    let (p, q) = (x[i], y[j]);
                    round(
                        d,
                        match op {
                            "Add" => p + q,
                            "Sub" => p - q,
                            "Mul" => p * q,
                            _ => p / q,
                        },
                    )
                })
                .collect(),
        ),
        _ => return Err(format!("{op} of {d} tensors is not evaluated on the host")),
    };
    Ok(Host { dtype: d, shape, nums })
}

/// An integer wrapped to the range of `d`, as numpy's fixed-width integers wrap.
fn wrap(d: DType, v: i64) -> i64 {
    match d {
        DType::I8 => i64::from(v as i8),
        DType::U8 => i64::from(v as u8),
        DType::I16 => i64::from(v as i16),
        DType::U16 => i64::from(v as u16),
        DType::I32 => i64::from(v as i32),
        DType::U32 => i64::from(v as u32),
        _ => v,
    }
}

fn cast(h: Host, to: DType) -> Result<Host, String> {
    let nums = match (h.nums, to) {
        (n, to) if h.dtype == to => n,
        (Nums::I(v), DType::Bool) => Nums::B(v.iter().map(|&x| x != 0).collect()),
        (Nums::F(v), DType::Bool) => Nums::B(v.iter().map(|&x| x != 0.0).collect()),
        (Nums::B(v), t) if t.is_float() => Nums::F(v.iter().map(|&b| f64::from(u8::from(b))).collect()),
        (Nums::B(v), _) => Nums::I(v.iter().map(|&b| i64::from(b)).collect()),
        (Nums::I(v), t) if t.is_float() => Nums::F(v.iter().map(|&x| round(t, x as f64)).collect()),
        (Nums::I(v), t) => Nums::I(v.iter().map(|&x| wrap(t, x)).collect()),
        (Nums::F(v), t) if t.is_float() => Nums::F(v.iter().map(|&x| round(t, x)).collect()),
        (Nums::F(v), t) => {
            // numpy's astype truncates toward zero; NaN, infinities and values out of
            // range have no defined result there, so they are an error here.
            let mut out = Vec::with_capacity(v.len());
            for x in v {
                let (lo, hi) = t.int_range().map(|(a, b)| (a as f64, b as f64)).unwrap_or((0.0, 0.0));
                if !x.is_finite() || x.trunc() < lo || x.trunc() > hi {
                    return Err(format!("cannot cast {x} to {t}: it is not a number in the type's range"));
                }
                out.push(x.trunc() as i64);
            }
            Nums::I(out)
        }
    };
    Ok(Host { dtype: to, shape: h.shape, nums })
}

fn dtype_attr(attrs: &[(&str, &AttributeProto)], name: &str) -> Result<DType, String> {
    let code = int_attr(attrs, name).ok_or_else(|| format!("attribute `{name}` is missing"))?;
    let d = crate::dtype_of(code as i32).ok_or_else(|| format!("element type {code} is not one kerf has"))?;
    Ok(d)
}

fn scalar_of(t: &Tensor, what: &str) -> Result<Host, String> {
    let h = host(t)?;
    if h.shape.iter().product::<u64>() != 1 {
        return Err(format!("{what} must be one value, not of shape {:?}", h.shape));
    }
    Ok(h)
}

/// Evaluate host op `op_type` on its inputs (`values`: the tensors, `None` for an
/// omitted optional input or — for `Shape` and `Size` only — one known by `metas`):
/// its one output.
pub fn evaluate(
    op_type: &str,
    attrs: &[(&str, &AttributeProto)],
    values: &[Option<&Tensor>],
    metas: &[Option<(DType, Vec<u64>)>],
    options: &crate::Options<'_>,
) -> Result<Tensor, String> {
    let one = tensor;
    match op_type {
        "Constant" => {
            if let Some(t) = attr(attrs, "value").and_then(|a| a.t.as_ref()) {
                return crate::tensor_of(t, options).map_err(|e| e.to_string());
            }
            if let Some(i) = attr(attrs, "value_int").and_then(|a| a.i) {
                return one(Host { dtype: DType::I64, shape: vec![], nums: Nums::I(vec![i]) });
            }
            if let Some(a) = attr(attrs, "value_ints") {
                let n = a.ints.len() as u64;
                return one(Host { dtype: DType::I64, shape: vec![n], nums: Nums::I(a.ints.clone()) });
            }
            if let Some(f) = attr(attrs, "value_float").and_then(|a| a.f) {
                return one(Host { dtype: DType::F32, shape: vec![], nums: Nums::F(vec![f64::from(f)]) });
            }
            if let Some(a) = attr(attrs, "value_floats") {
                let n = a.floats.len() as u64;
                let v = a.floats.iter().map(|&f| f64::from(f)).collect();
                return one(Host { dtype: DType::F32, shape: vec![n], nums: Nums::F(v) });
            }
            Err("a Constant kerf evaluates has a `value`, `value_int(s)` or `value_float(s)` attribute".into())
        }
        "Shape" | "Size" => {
            let shape = metas.first().cloned().flatten().ok_or("input 0 (data) is not given")?.1;
            if op_type == "Size" {
                let n = kerfx_ir::tensor::volume(&shape).ok_or("too many elements")?;
                let n = i64::try_from(n).map_err(|_| "too many elements")?;
                return one(Host { dtype: DType::I64, shape: vec![], nums: Nums::I(vec![n]) });
            }
            // Shape-15's start and end: negative counts from the back, clamped to [0, rank].
            let rank = shape.len() as i64;
            let clamp = |v: i64| (if v < 0 { v + rank } else { v }).clamp(0, rank) as usize;
            let start = clamp(int_attr(attrs, "start").unwrap_or(0));
            let end = clamp(int_attr(attrs, "end").unwrap_or(rank));
            let dims: Vec<i64> = shape[start..end.max(start)].iter().map(|&d| d as i64).collect();
            one(Host { dtype: DType::I64, shape: vec![dims.len() as u64], nums: Nums::I(dims) })
        }
        "ConstantOfShape" => {
            let dims = ints(input(values, 0, "input")?, "input")?;
            let mut shape = Vec::with_capacity(dims.len());
            for d in dims {
                shape.push(u64::try_from(d).map_err(|_| format!("negative dim {d}"))?);
            }
            let n = count(&shape)? as usize;
            let value = match attr(attrs, "value").and_then(|a| a.t.as_ref()) {
                Some(t) => host(&crate::tensor_of(t, options).map_err(|e| e.to_string())?)?,
                None => Host { dtype: DType::F32, shape: vec![1], nums: Nums::F(vec![0.0]) },
            };
            let nums = match value.nums {
                Nums::I(v) if v.len() == 1 => Nums::I(vec![v[0]; n]),
                Nums::F(v) if v.len() == 1 => Nums::F(vec![v[0]; n]),
                Nums::B(v) if v.len() == 1 => Nums::B(vec![v[0]; n]),
                _ => return Err("attribute `value` must hold one element".into()),
            };
            one(Host { dtype: value.dtype, shape, nums })
        }
        "Range" => {
            let (s, l, d) = (
                scalar_of(input(values, 0, "start")?, "start")?,
                scalar_of(input(values, 1, "limit")?, "limit")?,
                scalar_of(input(values, 2, "delta")?, "delta")?,
            );
            match (s.nums, l.nums, d.nums) {
                (Nums::I(s0), Nums::I(l0), Nums::I(d0)) => {
                    let (s0, l0, d0) = (s0[0], l0[0], d0[0]);
                    if d0 == 0 {
                        return Err("delta is 0".into());
                    }
                    // ceil((limit - start) / delta), at least 0.
                    let span = i128::from(l0) - i128::from(s0);
                    let d = i128::from(d0);
                    let n = (span / d + i128::from(span % d != 0 && (span < 0) == (d < 0))).max(0);
                    let n = u64::try_from(n).map_err(|_| "too many elements")?;
                    count(&[n])?;
                    let v = (0..n as i64).map(|k| s0.wrapping_add(k.wrapping_mul(d0))).collect();
                    one(Host { dtype: s.dtype, shape: vec![n], nums: Nums::I(v) })
                }
                (Nums::F(s0), Nums::F(l0), Nums::F(d0)) => {
                    let (s0, l0, d0) = (s0[0], l0[0], d0[0]);
                    let n = ((l0 - s0) / d0).ceil().max(0.0);
                    if !n.is_finite() || n > MAX_ELEMENTS as f64 {
                        return Err(format!("Range from {s0} to {l0} by {d0} has too many elements"));
                    }
                    // The reference's np.arange: start + k * delta, in the dtype.
                    let v = (0..n as u64).map(|k| round(s.dtype, s0 + k as f64 * d0)).collect();
                    one(Host { dtype: s.dtype, shape: vec![n as u64], nums: Nums::F(v) })
                }
                _ => Err("start, limit and delta must be of one numeric type".into()),
            }
        }
        "Cast" => {
            let to = dtype_attr(attrs, "to")?;
            one(cast(host(input(values, 0, "input")?)?, to)?)
        }
        "Ceil" | "Floor" | "Neg" => {
            let h = host(input(values, 0, "X")?)?;
            let nums = match h.nums {
                Nums::F(v) => Nums::F(
                    v.into_iter()
                        .map(|x| match op_type {
                            "Ceil" => x.ceil(),
                            "Floor" => x.floor(),
                            _ => -x,
                        })
                        .collect(),
                ),
                Nums::I(v) if op_type == "Neg" => {
                    Nums::I(v.into_iter().map(|x| wrap(h.dtype, x.wrapping_neg())).collect())
                }
                _ => return Err(format!("{op_type} of {} is not evaluated on the host", h.dtype)),
            };
            one(Host { nums, ..h })
        }
        "Add" | "Sub" | "Mul" | "Div" | "Equal" => {
            one(binary(op_type, input(values, 0, "A")?, input(values, 1, "B")?)?)
        }
        "Where" => {
            let (c, x, y) = (input(values, 0, "condition")?, input(values, 1, "X")?, input(values, 2, "Y")?);
            if c.dtype() != DType::Bool || x.dtype() != y.dtype() {
                return Err(format!("Where of {}, {} and {}", c.dtype(), x.dtype(), y.dtype()));
            }
            let (hc, hx, hy) = (host(c)?, host(x)?, host(y)?);
            let shape = broadcast_shape(&broadcast_shape(&hc.shape, &hx.shape)?, &hy.shape)?;
            count(&shape)?;
            let (ic, ix, iy) = (
                broadcast_index(&hc.shape, &shape),
                broadcast_index(&hx.shape, &shape),
                broadcast_index(&hy.shape, &shape),
            );
            let Nums::B(cv) = &hc.nums else { return Err("condition must be bool".into()) };
            let pick = |k: usize| cv[ic[k]];
            let nums = match (&hx.nums, &hy.nums) {
                (Nums::I(a), Nums::I(b)) => {
                    Nums::I((0..ic.len()).map(|k| if pick(k) { a[ix[k]] } else { b[iy[k]] }).collect())
                }
                (Nums::F(a), Nums::F(b)) => {
                    Nums::F((0..ic.len()).map(|k| if pick(k) { a[ix[k]] } else { b[iy[k]] }).collect())
                }
                (Nums::B(a), Nums::B(b)) => {
                    Nums::B((0..ic.len()).map(|k| if pick(k) { a[ix[k]] } else { b[iy[k]] }).collect())
                }
                _ => return Err("X and Y of different types".into()),
            };
            one(Host { dtype: x.dtype(), shape, nums })
        }
        "Concat" => {
            let parts: Vec<Host> = values
                .iter()
                .enumerate()
                .map(|(k, v)| v.ok_or_else(|| format!("input {k} is empty")).and_then(host))
                .collect::<Result<_, _>>()?;
            let first = parts.first().ok_or("Concat of no inputs")?;
            let rank = first.shape.len() as i64;
            let axis = int_attr(attrs, "axis").ok_or("attribute `axis` is missing")?;
            if axis < -rank || axis >= rank {
                return Err(format!("axis {axis} is outside rank {rank}"));
            }
            let axis = if axis < 0 { axis + rank } else { axis } as usize;
            let mut shape = first.shape.clone();
            shape[axis] = 0;
            for p in &parts {
                let same = p.dtype == first.dtype
                    && p.shape.len() == first.shape.len()
                    && p.shape.iter().zip(&first.shape).enumerate().all(|(k, (a, b))| k == axis || a == b);
                if !same {
                    return Err(format!(
                        "inputs {}{:?} and {}{:?} do not concatenate on axis {axis}",
                        first.dtype, first.shape, p.dtype, p.shape
                    ));
                }
                shape[axis] += p.shape[axis];
            }
            count(&shape)?;
            let outer: u64 = shape[..axis].iter().product();
            let inner: u64 = shape[axis + 1..].iter().product();
            let mut nums = match first.nums {
                Nums::I(_) => Nums::I(Vec::new()),
                Nums::F(_) => Nums::F(Vec::new()),
                Nums::B(_) => Nums::B(Vec::new()),
            };
            for o in 0..outer {
                for p in &parts {
                    let run = (p.shape[axis] * inner) as usize;
                    let at = o as usize * run;
                    match (&mut nums, &p.nums) {
                        (Nums::I(out), Nums::I(v)) => out.extend_from_slice(&v[at..at + run]),
                        (Nums::F(out), Nums::F(v)) => out.extend_from_slice(&v[at..at + run]),
                        (Nums::B(out), Nums::B(v)) => out.extend_from_slice(&v[at..at + run]),
                        _ => return Err("inputs of different types".into()),
                    }
                }
            }
            one(Host { dtype: first.dtype, shape, nums })
        }
        other => Err(format!("{other} is not evaluated on the host")),
    }
}
