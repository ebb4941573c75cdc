//! The planner of dynamic kernels written ahead of time: a kernel's request, with its
//! data input's shape and its integer parameters taken from the caller at run time,
//! lowered, validated, scheduled and verified exactly as the JIT's dynamic path does
//! ([`crate::dynamic`]), into an immutable [`Plan`] — the argument block and buffer sizes
//! the kernel's machine code runs with. No number the caller gives reaches machine code
//! unchecked. The C functions (`kerf_rt1_plan_*`) are in [`crate::capi`].
//!
//! A kernel's *template* is its request (the library file's), kept as text in the object
//! ([`Template::encode`]). Its parameters ([`Template::params`]) are, in the op spec's
//! order, every integer attribute the request gives (`int` or `int_list`) and then every
//! integer tensor it gives for an input other than the data input: TensorRT Slice's
//! `start`, `size`, `stride`; ONNX Slice's `starts`, `ends`, `axes`, `steps`; ONNX Pad's
//! `pads`; Gather's `indices`. Everything else (modes, float attributes, fill values) is
//! the template's. A scalar takes one value; a list (an `int_list` attribute, a vector
//! input) any count; an input of rank 2 or more keeps its declared shape and takes its
//! element count.

use crate::dynamic::{MoveKey, encode_slice, split_extent, verified_nest};
use crate::status;
use kerfx_ir::request::{AttrValue, InputArg, Request};
use kerfx_ir::tensor::Tensor;
use kerfx_ir::{DType, Error};
use std::fmt::Write;

/// A failure to build a plan: its status code ([`crate::status`]) and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanError {
    /// The `KERF_ERR_*` code.
    pub status: i32,
    /// What was wrong, naming the number.
    pub message: String,
}

impl PlanError {
    pub(crate) fn new(status: i32, message: impl Into<String>) -> PlanError {
        PlanError { status, message: message.into() }
    }
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Where a parameter goes in the request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// An integer attribute: one value (`scalar`) or a list.
    Attr {
        /// An `int` attribute (one value) rather than an `int_list`.
        scalar: bool,
    },
    /// An integer input tensor of `dtype`: rank 0 takes one value, rank 1 any count, a
    /// higher rank keeps `shape` and takes its element count.
    Input {
        /// The tensor's element type (values are range-checked into it).
        dtype: DType,
        /// The declared shape.
        shape: Vec<u64>,
    },
}

/// One run-time parameter of a dynamic kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The attribute's or input's name in the op's spec.
    pub name: String,
    /// Where it goes.
    pub place: Place,
}

impl Param {
    /// The count of values it takes: `Some(n)` exactly `n`, `None` any.
    pub fn count(&self) -> Option<u64> {
        match &self.place {
            Place::Attr { scalar: true } => Some(1),
            Place::Attr { scalar: false } => None,
            Place::Input { shape, .. } => match shape.len() {
                0 => Some(1),
                1 => None,
                _ => Some(shape.iter().product()),
            },
        }
    }
}

/// A dynamic kernel's request, its data input and its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Template {
    /// The request as declared (its data input's shape and its parameters' values are
    /// replaced per plan).
    pub request: Request,
    /// The data input's name, dtype and rank.
    pub data: (String, DType, usize),
    /// Its run-time parameters, in order.
    pub params: Vec<Param>,
}

fn invalid(what: impl Into<String>) -> Error {
    Error::Invalid { what: what.into() }
}

impl Template {
    /// The template of a request: its data input given by dtype and shape (a
    /// `{ dtype, shape }` input), its parameters as the module documentation says. An
    /// op with no data input (a fill), several inputs (a variadic list), string tensors or
    /// a data input given with values are refused.
    pub fn of(request: &Request) -> Result<Template, Error> {
        let spec = kerfx_ir::frontend::spec(&request.op)?;
        let data_spec = spec.data_input().ok_or_else(|| {
            invalid(format!("{}: a dynamic kernel written ahead of time reads a data input", request.op))
        })?;
        let data = match request.inputs.get(&data_spec.name) {
            Some(InputArg::Meta { dtype, shape }) => (data_spec.name.clone(), *dtype, shape.len()),
            _ => {
                return Err(invalid(format!(
                    "{}: the data input `{}` of a dynamic kernel is given by dtype and shape only",
                    request.op, data_spec.name
                )));
            }
        };
        let mut params = Vec::new();
        for a in &spec.attributes {
            match request.attributes.get(&a.name) {
                Some(AttrValue::Int(_)) => {
                    params.push(Param { name: a.name.clone(), place: Place::Attr { scalar: true } })
                }
                Some(AttrValue::IntList(_)) => {
                    params.push(Param { name: a.name.clone(), place: Place::Attr { scalar: false } })
                }
                _ => {}
            }
        }
        for i in &spec.inputs {
            match request.inputs.get(&i.name) {
                Some(InputArg::Tensor(t)) if i.name != data.0 && t.dtype().is_integer() && t.bytes().is_some() => {
                    if matches!(t.dtype(), DType::I4 | DType::U4 | DType::Bool) {
                        continue;
                    }
                    params.push(Param {
                        name: i.name.clone(),
                        place: Place::Input { dtype: t.dtype(), shape: t.shape().to_vec() },
                    });
                }
                Some(InputArg::List(_)) => {
                    return Err(invalid(format!(
                        "{}: input `{}` is a list: ops over several inputs are programs, not dynamic kernels",
                        request.op, i.name
                    )));
                }
                _ => {}
            }
        }
        Ok(Template { request: request.clone(), data, params })
    }

    /// The request as text: the form the object holds (`decode` reads it back).
    pub fn encode(&self) -> Result<String, Error> {
        encode_request(&self.request)
    }

    /// The template of an encoded request ([`Template::encode`]).
    pub fn decode(text: &str) -> Result<Template, Error> {
        Template::of(&decode_request(text)?)
    }

    /// The request of one plan: the data input of `shape` (the template's rank), each
    /// parameter its values. Errors: `KERF_ERR_RANK`, `KERF_ERR_PARAM`.
    pub fn request(&self, shape: &[u64], values: &[&[i64]]) -> Result<Request, PlanError> {
        let (name, dtype, rank) = &self.data;
        if shape.len() != *rank {
            return Err(PlanError::new(
                status::RANK,
                format!("the input shape has {} dims; this kernel takes rank {rank}", shape.len()),
            ));
        }
        if values.len() != self.params.len() {
            return Err(PlanError::new(
                status::PARAM,
                format!("{} parameters given; this kernel takes {}", values.len(), self.params.len()),
            ));
        }
        let mut request = self.request.clone();
        request.inputs.insert(name.clone(), InputArg::Meta { dtype: *dtype, shape: shape.to_vec() });
        for (p, v) in self.params.iter().zip(values) {
            if let Some(n) = p.count()
                && v.len() as u64 != n
            {
                return Err(PlanError::new(
                    status::PARAM,
                    format!("parameter `{}`: {} values; it takes {n}", p.name, v.len()),
                ));
            }
            match &p.place {
                Place::Attr { scalar: true } => {
                    request.attributes.insert(p.name.clone(), AttrValue::Int(v[0]));
                }
                Place::Attr { scalar: false } => {
                    request.attributes.insert(p.name.clone(), AttrValue::IntList(v.to_vec()));
                }
                Place::Input { dtype, shape } => {
                    let shape = match shape.len() {
                        0 => Vec::new(),
                        1 => vec![v.len() as u64],
                        _ => shape.clone(),
                    };
                    let bytes = int_bytes(*dtype, v).map_err(|at| {
                        PlanError::new(
                            status::PARAM,
                            format!("parameter `{}`: value {} at {at} does not fit {dtype}", p.name, v[at]),
                        )
                    })?;
                    let t = Tensor::from_bytes(*dtype, &shape, &bytes)
                        .map_err(|e| PlanError::new(status::PARAM, format!("parameter `{}`: {e}", p.name)))?;
                    request.inputs.insert(p.name.clone(), InputArg::Tensor(t));
                }
            }
        }
        Ok(request)
    }
}

/// `values` as little-endian elements of the integer `dtype`; `Err(index)` of the first
/// value out of its range.
fn int_bytes(dtype: DType, values: &[i64]) -> Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(values.len() * 8);
    for (i, &v) in values.iter().enumerate() {
        let ok = match dtype {
            DType::I8 => i8::try_from(v).map(|x| out.extend(x.to_le_bytes())).is_ok(),
            DType::U8 => u8::try_from(v).map(|x| out.extend(x.to_le_bytes())).is_ok(),
            DType::I16 => i16::try_from(v).map(|x| out.extend(x.to_le_bytes())).is_ok(),
            DType::U16 => u16::try_from(v).map(|x| out.extend(x.to_le_bytes())).is_ok(),
            DType::I32 => i32::try_from(v).map(|x| out.extend(x.to_le_bytes())).is_ok(),
            DType::U32 => u32::try_from(v).map(|x| out.extend(x.to_le_bytes())).is_ok(),
            DType::I64 => {
                out.extend(v.to_le_bytes());
                true
            }
            DType::U64 => u64::try_from(v).map(|x| out.extend(x.to_le_bytes())).is_ok(),
            _ => false,
        };
        if !ok {
            return Err(i);
        }
    }
    Ok(out)
}

/// A plan of a dynamic move kernel: the argument block its machine code runs with and the
/// buffers it reads and writes, from a request validated, lowered, scheduled and verified
/// on the host. Immutable: any number of threads may run it at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The argument block (layout in [`crate::dynamic::layout`]); empty when nothing runs.
    pub args: Vec<i64>,
    /// The call computes `[0, extent)` of its split loop (0: the output is empty).
    pub extent: u64,
    /// Bytes of the input.
    pub input_bytes: u64,
    /// Bytes of the output.
    pub output_bytes: u64,
    /// Whether the output's last byte holds a lone 4-bit element (zeroed before the
    /// kernel writes its low half).
    pub odd_nibble: bool,
    /// The output's shape.
    pub output_shape: Vec<u64>,
}

/// Build the plan of `template` for the kernel `key` from the input `shape` and the
/// parameters' `values`: the request lowered ([`kerfx_ir::lower`]), its plan's kernel
/// key checked against `key` (`KERF_ERR_KIND`), its nest validated, scheduled and
/// verified and its argument block encoded ([`crate::dynamic`], as the JIT's dynamic
/// path). An invalid request is `KERF_ERR_INVALID`, naming the problem.
pub fn build(key: &MoveKey, template: &Template, shape: &[u64], values: &[&[i64]]) -> Result<Plan, PlanError> {
    let request = template.request(shape, values)?;
    let bad = |e: Error| PlanError::new(status::INVALID, e.to_string());
    let plan = kerfx_ir::lower(&request).map_err(bad)?;
    let kerfx_ir::Plan::Step(step) = &plan else {
        return Err(PlanError::new(status::KIND, "the request lowers to a fill, not a move"));
    };
    plan.validate().map_err(bad)?;
    let found = MoveKey::of(step);
    if &found != key {
        return Err(PlanError::new(
            status::KIND,
            format!(
                "the plan runs on the kernel of {} {} maps of depth {}; this kernel runs {} {} maps of depth {}",
                found.kind.name(),
                found.dtype,
                found.depth,
                key.kind.name(),
                key.dtype,
                key.depth
            ),
        ));
    }
    let nest = verified_nest(&plan).map_err(bad)?;
    let args = encode_slice(&nest, key.depth, false, None).map_err(bad)?;
    let bytes = |n: u64| {
        key.dtype
            .buffer_bytes(n)
            .map(|b| b as u64)
            .ok_or_else(|| PlanError::new(status::INVALID, format!("{n} elements of {} do not fit memory", key.dtype)))
    };
    Ok(Plan {
        extent: if args.is_empty() { 0 } else { split_extent(&nest) },
        args,
        input_bytes: bytes(nest.input_len)?,
        output_bytes: bytes(nest.output_buffer_len())?,
        odd_nibble: key.dtype.layout() == kerfx_ir::dtype::Layout::Nibbles && nest.output_buffer_len() % 2 == 1,
        output_shape: plan.output_shape().to_vec(),
    })
}

/// The text form of a request (its op, version, output count, attributes and inputs, one
/// per line; strings hex-encoded, floats by their bits): what [`decode_request`] reads.
pub fn encode_request(r: &Request) -> Result<String, Error> {
    let hex = |b: &[u8]| {
        b.iter().fold(String::new(), |mut s, x| {
            let _ = write!(s, "{x:02x}");
            s
        })
    };
    let mut s = format!("kerf-request 1\nop {}\n", hex(r.op.as_bytes()));
    if let Some(v) = r.version {
        let _ = writeln!(s, "version {v}");
    }
    if let Some(n) = r.outputs {
        let _ = writeln!(s, "outputs {n}");
    }
    let join = |v: &mut dyn Iterator<Item = String>| v.collect::<Vec<_>>().join(" ");
    for (name, v) in &r.attributes {
        let value = match v {
            AttrValue::Int(x) => format!("int {x}"),
            AttrValue::UInt(x) => format!("uint {x}"),
            AttrValue::Float(x) => format!("float {}", x.to_bits()),
            AttrValue::Str(x) => format!("str {}", hex(x.as_bytes())),
            AttrValue::IntList(x) => format!("ints {}", join(&mut x.iter().map(|v| v.to_string()))).trim().to_string(),
            AttrValue::FloatList(x) => {
                format!("floats {}", join(&mut x.iter().map(|v| v.to_bits().to_string()))).trim().to_string()
            }
            AttrValue::Bool(x) => format!("bool {}", u8::from(*x)),
        };
        let _ = writeln!(s, "attr {} {value}", hex(name.as_bytes()));
    }
    for (name, i) in &r.inputs {
        let value = match i {
            InputArg::Meta { dtype, shape } => format!("meta {dtype} {}", join(&mut shape.iter().map(u64::to_string))),
            InputArg::Tensor(t) => {
                let bytes = t.bytes().ok_or_else(|| invalid(format!("input `{name}`: a tensor of strings")))?;
                format!("tensor {} {} {}", t.dtype(), hex(bytes), join(&mut t.shape().iter().map(u64::to_string)))
            }
            InputArg::List(_) => return Err(invalid(format!("input `{name}`: a list of tensors"))),
        };
        let _ = writeln!(s, "input {} {}", hex(name.as_bytes()), value.trim());
    }
    Ok(s)
}

/// Read a request's text form ([`encode_request`]).
pub fn decode_request(text: &str) -> Result<Request, Error> {
    let bad = |line: &str| invalid(format!("a dynamic kernel's request: cannot read {line:?}"));
    let unhex = |s: &str| -> Option<Vec<u8>> {
        s.len().is_multiple_of(2).then_some(())?;
        (0..s.len()).step_by(2).map(|i| s.get(i..i + 2).and_then(|b| u8::from_str_radix(b, 16).ok())).collect()
    };
    let text_of = |s: &str| unhex(s).and_then(|b| String::from_utf8(b).ok());
    let mut lines = text.lines();
    if lines.next() != Some("kerf-request 1") {
        return Err(invalid("a dynamic kernel's request: not kerf's text form (version 1)"));
    }
    let mut r = Request::default();
    for line in lines {
        let w: Vec<&str> = line.split(' ').collect();
        let nums = |ws: &[&str]| ws.iter().map(|x| x.parse::<i64>().ok()).collect::<Option<Vec<i64>>>();
        let dims = |ws: &[&str]| ws.iter().map(|x| x.parse::<u64>().ok()).collect::<Option<Vec<u64>>>();
        match w.as_slice() {
            ["op", op] => r.op = text_of(op).ok_or_else(|| bad(line))?,
            ["version", v] => r.version = Some(v.parse().map_err(|_| bad(line))?),
            ["outputs", n] => r.outputs = Some(n.parse().map_err(|_| bad(line))?),
            ["attr", name, kind, rest @ ..] => {
                let name = text_of(name).ok_or_else(|| bad(line))?;
                let value = match (*kind, rest) {
                    ("int", [x]) => x.parse().ok().map(AttrValue::Int),
                    ("uint", [x]) => x.parse().ok().map(AttrValue::UInt),
                    ("float", [x]) => x.parse().ok().map(|b| AttrValue::Float(f64::from_bits(b))),
                    ("str", [x]) => text_of(x).map(AttrValue::Str),
                    ("ints", xs) => nums(xs).map(AttrValue::IntList),
                    ("floats", xs) => {
                        dims(xs).map(|b| AttrValue::FloatList(b.into_iter().map(f64::from_bits).collect()))
                    }
                    ("bool", ["0"]) => Some(AttrValue::Bool(false)),
                    ("bool", ["1"]) => Some(AttrValue::Bool(true)),
                    _ => None,
                };
                r.attributes.insert(name, value.ok_or_else(|| bad(line))?);
            }
            ["input", name, "meta", dtype, shape @ ..] => {
                let name = text_of(name).ok_or_else(|| bad(line))?;
                let dtype: DType = dtype.parse().map_err(|_| bad(line))?;
                r.inputs.insert(name, InputArg::Meta { dtype, shape: dims(shape).ok_or_else(|| bad(line))? });
            }
            ["input", name, "tensor", dtype, bytes, shape @ ..] => {
                let name = text_of(name).ok_or_else(|| bad(line))?;
                let dtype: DType = dtype.parse().map_err(|_| bad(line))?;
                let shape = dims(shape).ok_or_else(|| bad(line))?;
                let t = Tensor::from_bytes(dtype, &shape, &unhex(bytes).ok_or_else(|| bad(line))?)?;
                r.inputs.insert(name, InputArg::Tensor(t));
            }
            _ => return Err(bad(line)),
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice() -> Request {
        Request::new("onnx.slice")
            .input_meta("data", DType::F32, &[4, 5])
            .input("starts", Tensor::from_i64s(&[1, 0]))
            .input("ends", Tensor::from_i64s(&[3, 5]))
            .input("steps", Tensor::from_i64s(&[1, 2]))
    }

    /// Every attribute and input form survives the text form.
    #[test]
    fn a_request_survives_its_text_form() {
        let r = slice()
            .attr("mode", "wrap x")
            .attr("alpha", 0.1)
            .attr("list", vec![1.5, -0.0])
            .attr("flag", true)
            .attr("none", Vec::<i64>::new())
            .version(13)
            .outputs(2);
        let mut r = r;
        r.attributes.insert("seed".into(), AttrValue::UInt(u64::MAX));
        assert_eq!(decode_request(&encode_request(&r).unwrap()).unwrap(), r);
        assert!(decode_request("kerf-request 1\nop zz\n").is_err());
        assert!(decode_request("something else").is_err());
    }

    /// ONNX Slice's parameters are its index inputs, in the spec's order; a plan's
    /// numbers are checked, each failure with its status.
    #[test]
    fn a_template_takes_its_parameters_and_checks_every_number() {
        let t = Template::of(&slice()).unwrap();
        let names: Vec<&str> = t.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["starts", "ends", "steps"]);
        assert_eq!(t.data, ("data".to_string(), DType::F32, 2));
        let key = MoveKey { kind: kerfx_ir::map::Kind::default(), dtype: DType::F32, depth: 2 };
        let plan = build(&key, &t, &[6, 7], &[&[0, 1], &[6, 7], &[2, 3]]).unwrap();
        assert_eq!(plan.output_shape, [3, 2]);
        assert_eq!((plan.input_bytes, plan.output_bytes, plan.extent), (6 * 7 * 4, 6 * 4, 3));
        let status = |shape: &[u64], v: &[&[i64]]| build(&key, &t, shape, v).unwrap_err().status;
        assert_eq!(status(&[6], &[&[0], &[1], &[1]]), status::RANK);
        assert_eq!(status(&[6, 7], &[&[0], &[1]]), status::PARAM);
        assert_eq!(status(&[6, 7], &[&[0, 0], &[1, 1], &[0, 1]]), status::INVALID);
        let wide = MoveKey { depth: 3, ..key };
        assert_eq!(build(&wide, &t, &[6, 7], &[&[0, 1], &[6, 7], &[2, 3]]).unwrap_err().status, status::KIND);
        let i32s = Template::of(
            &Request::new("onnx.slice")
                .input_meta("data", DType::F32, &[4])
                .input("starts", Tensor::from_bytes(DType::I32, &[1], &0i32.to_le_bytes()).unwrap())
                .input("ends", Tensor::from_bytes(DType::I32, &[1], &2i32.to_le_bytes()).unwrap()),
        )
        .unwrap();
        let e = build(&MoveKey { depth: 1, ..key }, &i32s, &[4], &[&[0], &[1 << 40]]).unwrap_err();
        assert_eq!(e.status, status::PARAM);
        assert!(e.message.contains("does not fit i32"), "{}", e.message);
    }
}
