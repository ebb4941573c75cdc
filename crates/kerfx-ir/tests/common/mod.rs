//! Helpers for the semantics tests: build tensors and run requests through the reference.
#![allow(dead_code)]

use kerfx_ir::{DType, Error, Request, Tensor, reference};

/// An i64 tensor 0, 1, 2, ... of `shape`.
pub fn arange_i64(shape: &[u64]) -> Tensor {
    let n: u64 = shape.iter().product();
    let bytes: Vec<u8> = (0..n as i64).flat_map(|v| v.to_le_bytes()).collect();
    Tensor::from_bytes(DType::I64, shape, &bytes).unwrap()
}

/// An i32 tensor 0, 1, 2, ... of `shape`.
pub fn arange_i32(shape: &[u64]) -> Tensor {
    let n: u64 = shape.iter().product();
    let bytes: Vec<u8> = (0..n as i32).flat_map(|v| v.to_le_bytes()).collect();
    Tensor::from_bytes(DType::I32, shape, &bytes).unwrap()
}

pub fn f32s(shape: &[u64], values: &[f32]) -> Tensor {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    Tensor::from_bytes(DType::F32, shape, &bytes).unwrap()
}

pub fn scalar_f64(v: f64) -> Tensor {
    Tensor::scalar_bits(DType::F64, v.to_bits() as u128)
}

pub fn scalar_i64(v: i64) -> Tensor {
    Tensor::scalar_bits(DType::I64, v as u64 as u128)
}

/// Lower and evaluate through the reference.
pub fn run(req: &Request) -> Result<Tensor, Error> {
    let plan = kerfx_ir::lower(req)?;
    let data = ["input", "data", "arg"].iter().find_map(|n| req.inputs.get(*n)).and_then(|i| i.tensor());
    reference::evaluate(&plan, data.map(|t| t.view()))
}

/// Every element as i64 (integer tensors) or f64-as-i64 for exact small floats.
pub fn ints(t: &Tensor) -> Vec<i64> {
    (0..t.len()).map(|i| t.element_i128(i).unwrap() as i64).collect()
}

pub fn floats(t: &Tensor) -> Vec<f64> {
    (0..t.len()).map(|i| t.element_f64(i).unwrap()).collect()
}

/// The error message of a request that must fail.
pub fn error(req: &Request) -> String {
    match run(req) {
        Ok(t) => panic!("expected an error, got {:?} {:?}", t.shape(), floats(&t)),
        Err(e) => e.to_string(),
    }
}

/// A tensorrt.slice request on `input` with static start/size/stride and a mode.
pub fn trt(input: Tensor, start: &[i64], size: &[i64], stride: &[i64], mode: &str) -> Request {
    Request::new("tensorrt.slice")
        .input("input", input)
        .attr("start", start.to_vec())
        .attr("size", size.to_vec())
        .attr("stride", stride.to_vec())
        .attr("mode", mode)
}

/// An onnx.slice request (version 10+: parameters as inputs).
pub fn onnx(
    version: u32,
    data: Tensor,
    starts: &[i64],
    ends: &[i64],
    axes: Option<&[i64]>,
    steps: Option<&[i64]>,
) -> Request {
    let mut r = Request::new("onnx.slice").version(version).input("data", data);
    if version == 1 {
        r = r.attr("starts", starts.to_vec()).attr("ends", ends.to_vec());
        if let Some(a) = axes {
            r = r.attr("axes", a.to_vec());
        }
    } else {
        r = r.input("starts", Tensor::from_i64s(starts)).input("ends", Tensor::from_i64s(ends));
        if let Some(a) = axes {
            r = r.input("axes", Tensor::from_i64s(a));
        }
        if let Some(s) = steps {
            r = r.input("steps", Tensor::from_i64s(s));
        }
    }
    r
}

/// An openvino.strided_slice request with begin/end/stride as inputs.
pub fn ov(data: Tensor, begin: &[i64], end: &[i64], stride: &[i64], masks: [&[i64]; 5]) -> Request {
    let names = ["begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask"];
    let mut r = Request::new("openvino.strided_slice")
        .input("data", data)
        .input("begin", Tensor::from_i64s(begin))
        .input("end", Tensor::from_i64s(end))
        .input("stride", Tensor::from_i64s(stride));
    for (n, m) in names.iter().zip(masks) {
        r = r.attr(n, m.to_vec());
    }
    r
}

/// An onnx.pad request: `pads` as the version's attribute (1: paddings, 2: pads) or input.
pub fn onnx_pad(version: u32, data: Tensor, pads: &[i64], mode: &str) -> Request {
    let r = Request::new("onnx.pad").version(version).input("data", data).attr("mode", mode);
    match version {
        1 => r.attr("paddings", pads.to_vec()),
        2 => r.attr("pads", pads.to_vec()),
        _ => r.input("pads", Tensor::from_i64s(pads)),
    }
}

/// An openvino.pad request with pads_begin/pads_end as inputs.
pub fn ov_pad(version: u32, arg: Tensor, begin: &[i64], end: &[i64], mode: &str) -> Request {
    Request::new("openvino.pad")
        .version(version)
        .input("arg", arg)
        .input("pads_begin", Tensor::from_i64s(begin))
        .input("pads_end", Tensor::from_i64s(end))
        .attr("pad_mode", mode)
}

/// An openvino.slice request; `axes` when given.
pub fn ov_slice(data: Tensor, start: &[i64], stop: &[i64], step: &[i64], axes: Option<&[i64]>) -> Request {
    let r = Request::new("openvino.slice")
        .input("data", data)
        .input("start", Tensor::from_i64s(start))
        .input("stop", Tensor::from_i64s(stop))
        .input("step", Tensor::from_i64s(step));
    match axes {
        Some(a) => r.input("axes", Tensor::from_i64s(a)),
        None => r,
    }
}

/// A scalar of `dtype` from its element bits.
pub fn scalar_bits(dtype: DType, bits: u128) -> Tensor {
    Tensor::scalar_bits(dtype, bits)
}

/// Lower a program op (Concat, Split) and evaluate it through the reference: its outputs.
pub fn run_outputs(req: &Request) -> Result<Vec<Tensor>, Error> {
    let program = kerfx_ir::lower_program(req)?;
    let inputs: Vec<&Tensor> = match ["inputs", "input", "data"].iter().find_map(|n| req.inputs.get(*n)) {
        Some(kerfx_ir::InputArg::List(entries)) => entries.iter().map(|e| e.tensor().unwrap()).collect(),
        Some(one) => vec![one.tensor().unwrap()],
        None => vec![],
    };
    let views: Vec<_> = inputs.iter().map(|t| t.view()).collect();
    kerfx_ir::program::evaluate(&program, &views)
}

/// The error message of a program op that must fail.
pub fn outputs_error(req: &Request) -> String {
    match run_outputs(req) {
        Ok(t) => panic!("expected an error, got {} outputs", t.len()),
        Err(e) => e.to_string(),
    }
}
