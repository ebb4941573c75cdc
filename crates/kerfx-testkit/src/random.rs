//! The one random-request generator of kerf's tests: every op, shapes with empty and
//! unit axes, coordinates far outside the input, reversed, zero and huge steps, every
//! version form. Deterministic by seed (rand's Xoshiro256++, whose output rand documents
//! as portable), so build scripts can derive kernels from a sequence that tests replay.

use kerfx::chain::ChainRequest;
use kerfx::{DType, Request, Tensor};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// A seeded generator with the few draws the requests need.
#[derive(Clone, Debug)]
pub struct Rng(Xoshiro256PlusPlus);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(Xoshiro256PlusPlus::seed_from_u64(seed))
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0.random()
    }
    /// Uniform in [0, n) (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.0.random_range(0..n)
    }
    /// Uniform in [lo, hi].
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        self.0.random_range(lo..=hi)
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
    pub fn fill_bytes(&mut self, buf: &mut [u8]) {
        self.0.fill(buf);
    }
}

/// Byte-moving dtypes of tensorrt.slice (its whole type set) plus the other widths the
/// ONNX and OpenVINO ops move.
pub const SLICE_DTYPES: [DType; 9] =
    [DType::Bool, DType::I4, DType::I8, DType::I32, DType::I64, DType::F8E4M3FN, DType::F16, DType::F32, DType::BF16];
pub const WIDE_DTYPES: [DType; 6] = [DType::U4, DType::U16, DType::U64, DType::F64, DType::C64, DType::C128];

/// A random shape: rank 0..=max_rank, extents 0..=max_extent (zero rarely).
pub fn random_shape(rng: &mut Rng, max_rank: u64, max_extent: u64) -> Vec<u64> {
    let rank = rng.below(max_rank + 1);
    (0..rank).map(|_| if rng.chance(4) { 0 } else { 1 + rng.below(max_extent) }).collect()
}

/// A coordinate, often far outside [0, d).
fn random_start(rng: &mut Rng, d: u64) -> i64 {
    let d = d as i64;
    match rng.below(6) {
        0 => rng.range(-1000, 1000),
        1 => rng.range(-(3 * d + 50), -1),
        2 => rng.range(d, 3 * d + 50),
        3 => rng.range(-(1 << 20), 1 << 20),
        _ => rng.range(0, d.max(1) - 1),
    }
}

fn random_step(rng: &mut Rng) -> i64 {
    match rng.below(8) {
        0 => -1,
        1 => 0,
        2 => rng.range(-9, 9),
        3 => rng.range(-200, 200),
        4 => *rng.pick(&[1 << 20, -(1 << 20), 1 << 31, -(1 << 31)]),
        _ => 1,
    }
}

/// A random tensorrt.slice request (all modes, static or runtime parameters; the data
/// input by dtype and shape only).
pub fn random_trt_slice(rng: &mut Rng) -> Request {
    let mut shape = random_shape(rng, 4, 9);
    // Sometimes a high rank: unit axes read once (size 1) around the others (a dynamic
    // kernel's depth is the rank).
    let mut unit = vec![false; shape.len()];
    if rng.chance(8) {
        for _ in 0..rng.range(4, 12) {
            let at = rng.below(shape.len() as u64 + 1) as usize;
            shape.insert(at, 1);
            unit.insert(at, true);
        }
    }
    let dtype = *rng.pick(&SLICE_DTYPES);
    let mode = *rng.pick(&["strict_bounds", "wrap", "clamp", "fill", "reflect", "wrap", "reflect", "fill"]);
    let mut start = Vec::new();
    let mut size = Vec::new();
    let mut stride = Vec::new();
    // At most one long axis (wrap and reflect repeat along it), so outputs stay small.
    let mut long = rng.chance(15);
    for (&d, &unit) in shape.iter().zip(&unit) {
        let n = if unit {
            1
        } else if rng.chance(5) {
            0
        } else if long && d > 1 {
            long = false;
            rng.range(14, 120)
        } else {
            rng.range(1, 13)
        };
        let mut s = random_step(rng);
        let mut a = random_start(rng, d);
        if mode == "strict_bounds" && d > 0 {
            // Mostly in range, so the plan lowers: an in-bounds first and last read.
            a = rng.range(0, d as i64 - 1);
            if n > 1 {
                let room_up = (d as i64 - 1 - a) / (n - 1);
                let room_down = a / (n - 1);
                s = rng.range(-room_down, room_up);
            }
        }
        start.push(a);
        size.push(n);
        stride.push(s);
    }
    let mut r = Request::new("tensorrt.slice").input_meta("input", dtype, &shape).attr("mode", mode);
    // Sometimes the runtime inputs of the same names instead of the static attributes.
    r = if rng.chance(25) {
        r.input("start", Tensor::from_i64s(&start))
            .input("size", Tensor::from_i64s(&size))
            .input("stride", Tensor::from_i64s(&stride))
    } else {
        r.attr("start", start).attr("size", size).attr("stride", stride)
    };
    if mode == "fill" && rng.chance(60) {
        let v = if dtype.is_integer() {
            rng.range(if dtype == DType::I4 { -8 } else { -100 }, 7) as f64
        } else if dtype == DType::Bool {
            1.0
        } else {
            *rng.pick(&[1.5, -2.0, 448.0, 0.0, 3.25])
        };
        r = r.input("fill", Tensor::scalar_bits(DType::F64, v.to_bits() as u128));
    }
    r
}

/// A random onnx.slice request (versions 10, 11 and 13: parameters as inputs; negative
/// axes from 11 on).
pub fn random_onnx_slice(rng: &mut Rng) -> Request {
    let version = *rng.pick(&[10, 11, 13, 13]);
    let mut shape = random_shape(rng, 4, 9);
    if shape.is_empty() {
        shape.push(1 + rng.below(9));
    }
    let dtype = *rng.pick(&[SLICE_DTYPES.as_slice(), WIDE_DTYPES.as_slice()].concat());
    let rank = shape.len() as i64;
    let mut axes: Vec<i64> = (0..rank).collect();
    // Shuffle, then keep a prefix.
    for i in (1..axes.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        axes.swap(i, j);
    }
    axes.truncate(1 + rng.below(rank as u64) as usize);
    let axes: Vec<i64> = axes.into_iter().map(|a| if version >= 11 && rng.chance(30) { a - rank } else { a }).collect();
    let extreme = [i64::MIN, i64::MAX, i32::MIN as i64, i32::MAX as i64];
    let bound = |rng: &mut Rng| if rng.chance(10) { *rng.pick(&extreme) } else { rng.range(-12, 12) };
    let starts: Vec<i64> = axes.iter().map(|_| bound(rng)).collect();
    let ends: Vec<i64> = axes.iter().map(|_| bound(rng)).collect();
    let steps: Vec<i64> = axes
        .iter()
        .map(|_| {
            let s = rng.range(-4, 4);
            if s == 0 { if rng.chance(50) { 1 } else { i64::MIN } } else { s }
        })
        .collect();
    Request::new("onnx.slice")
        .version(version)
        .input_meta("data", dtype, &shape)
        .input("starts", Tensor::from_i64s(&starts))
        .input("ends", Tensor::from_i64s(&ends))
        .input("axes", Tensor::from_i64s(&axes))
        .input("steps", Tensor::from_i64s(&steps))
}

/// A random openvino.strided_slice request (all five masks).
pub fn random_ov_slice(rng: &mut Rng) -> Request {
    let shape = random_shape(rng, 4, 7);
    let dtype = *rng.pick(&SLICE_DTYPES);
    let m = rng.below(shape.len() as u64 + 2) as usize;
    let list = |rng: &mut Rng, lo: i64, hi: i64| -> Vec<i64> { (0..m).map(|_| rng.range(lo, hi)).collect() };
    let mask = |rng: &mut Rng, p: u64| -> Vec<i64> { (0..m).map(|_| i64::from(rng.chance(p))).collect() };
    let begin = list(rng, -10, 10);
    let end = list(rng, -10, 10);
    let stride: Vec<i64> = (0..m)
        .map(|_| {
            let s = rng.range(-3, 3);
            if s == 0 { 1 } else { s }
        })
        .collect();
    let mut ellipsis = vec![0; m];
    if m > 0 && rng.chance(30) {
        ellipsis[rng.below(m as u64) as usize] = 1;
    }
    Request::new("openvino.strided_slice")
        .input_meta("data", dtype, &shape)
        .input("begin", Tensor::from_i64s(&begin))
        .input("end", Tensor::from_i64s(&end))
        .input("stride", Tensor::from_i64s(&stride))
        .attr("begin_mask", mask(rng, 30))
        .attr("end_mask", mask(rng, 30))
        .attr("new_axis_mask", mask(rng, 10))
        .attr("shrink_axis_mask", mask(rng, 15))
        .attr("ellipsis_mask", ellipsis)
}

/// Random pads for an axis of extent d: mostly small, sometimes past the extent or
/// negative (crops), rarely extreme.
fn random_pads(rng: &mut Rng, d: u64) -> (i64, i64) {
    let d = d as i64;
    let one = |rng: &mut Rng| match rng.below(8) {
        0 => rng.range(-(d + 2), -1),
        1 => rng.range(d, 3 * d + 9),
        2 => 0,
        _ => rng.range(0, d.max(1)),
    };
    (one(rng), one(rng))
}

/// A random data shape of rank 0..=4 for the pad ops (extents 0..=6, zero rarely).
fn pad_shape(rng: &mut Rng) -> Vec<u64> {
    random_shape(rng, 4, 6)
}

/// A random onnx.pad request (versions 11 to 21, every mode, optional axes and pad value).
pub fn random_onnx_pad(rng: &mut Rng) -> Request {
    let shape = pad_shape(rng);
    let dtype =
        *rng.pick(&[DType::I8, DType::I32, DType::I64, DType::F16, DType::F32, DType::BF16, DType::U16, DType::F64]);
    let version = *rng.pick(&[11, 13, 18, 19, 21, 21]);
    let modes: &[&str] =
        if version >= 19 { &["constant", "edge", "reflect", "wrap"] } else { &["constant", "edge", "reflect"] };
    let mode = *rng.pick(modes);
    let rank = shape.len() as i64;
    let mut axes: Vec<i64> = (0..rank).collect();
    let with_axes = version >= 18 && rank > 0 && rng.chance(40);
    if with_axes {
        for i in (1..axes.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            axes.swap(i, j);
        }
        axes.truncate(1 + rng.below(rank as u64) as usize);
        axes = axes.into_iter().map(|a| if rng.chance(30) { a - rank } else { a }).collect();
    }
    let (mut begin, mut end) = (Vec::new(), Vec::new());
    for &a in &axes {
        let (b, e) = random_pads(rng, shape[a.rem_euclid(rank.max(1)) as usize]);
        begin.push(b);
        end.push(e);
    }
    let dtype = if version < 13 && dtype == DType::BF16 { DType::F32 } else { dtype };
    let mut r = Request::new("onnx.pad")
        .version(version)
        .input_meta("data", dtype, &shape)
        .input("pads", Tensor::from_i64s(&[begin, end].concat()))
        .attr("mode", mode);
    if with_axes {
        r = r.input("axes", Tensor::from_i64s(&axes));
    }
    if mode == "constant" && rng.chance(60) {
        let v = if dtype.is_integer() { rng.range(-100, 100) as f64 } else { *rng.pick(&[1.5, -2.0, 0.25, 3.0]) };
        r = r.input("constant_value", Tensor::scalar_bits(DType::F64, v.to_bits() as u128));
    }
    r
}

/// A random openvino.pad request (Pad-1 and Pad-12, every mode, symmetric included).
pub fn random_ov_pad(rng: &mut Rng) -> Request {
    let shape = pad_shape(rng);
    let dtype = *rng.pick(&SLICE_DTYPES);
    let version = *rng.pick(&[1, 12, 12]);
    let mode = *rng.pick(&["constant", "edge", "reflect", "symmetric", "symmetric"]);
    let (mut begin, mut end) = (Vec::new(), Vec::new());
    for &d in &shape {
        // Mostly within the modes' bounds (reflect ≤ d - 1, symmetric ≤ d), so they lower.
        let (b, e) = random_pads(rng, d);
        let cap = if mode == "reflect" { d as i64 - 1 } else { d as i64 };
        let fit = |p: i64| if mode == "reflect" || mode == "symmetric" { p.min(cap) } else { p };
        let (b, e) = (fit(b), fit(e));
        let (b, e) = if version == 1 { (b.max(0), e.max(0)) } else { (b, e) };
        begin.push(b);
        end.push(e);
    }
    let mut r = Request::new("openvino.pad")
        .version(version)
        .input_meta("arg", dtype, &shape)
        .input("pads_begin", Tensor::from_i64s(&begin))
        .input("pads_end", Tensor::from_i64s(&end))
        .attr("pad_mode", mode);
    if mode == "constant" && rng.chance(60) {
        let v = if dtype.is_integer() {
            rng.range(if dtype == DType::I4 { -8 } else { -100 }, 7) as f64
        } else if dtype == DType::Bool {
            1.0
        } else {
            *rng.pick(&[1.5, -2.0, 448.0, 0.0])
        };
        r = r.input("pad_value", Tensor::scalar_bits(DType::F64, v.to_bits() as u128));
    }
    r
}

/// A random openvino.slice request (Slice-8).
pub fn random_ov_slice8(rng: &mut Rng) -> Request {
    let onnx = random_onnx_slice(rng);
    let mut r = Request::new("openvino.slice");
    for (from, to) in [("data", "data"), ("starts", "start"), ("ends", "stop"), ("steps", "step"), ("axes", "axes")] {
        if let Some(input) = onnx.inputs.get(from) {
            r.inputs.insert(to.to_string(), input.clone());
        }
    }
    r
}

/// A random tensorrt.fill request (small outputs).
pub fn random_fill(rng: &mut Rng) -> Request {
    let shape = random_shape(rng, 3, 12);
    let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let rank = dims.len();
    match rng.below(3) {
        0 => {
            let to_type = *rng.pick(&["i32", "i64", "f32"]);
            let beta: Vec<f64> = (0..rank)
                .map(|_| if to_type == "f32" { rng.range(-300, 300) as f64 / 8.0 } else { rng.range(-50, 50) as f64 })
                .collect();
            let alpha =
                if to_type == "f32" { rng.range(-1000, 1000) as f64 / 3.0 } else { rng.range(-999, 999) as f64 };
            let mut r = Request::new("tensorrt.fill")
                .attr("dimensions", dims)
                .attr("operation", "linspace")
                .attr("to_type", to_type)
                .attr("alpha", alpha);
            // A scalar beta is valid for rank 1 only; an empty list is not a list of floats.
            if rank == 1 && rng.chance(50) {
                r = r.attr("beta", beta[0]);
            } else if rank > 0 {
                r = r.attr("beta", beta);
            }
            r
        }
        k => {
            let to_type = *rng.pick(&["f16", "f32"]);
            let alpha = rng.range(-10, 10) as f64 / 4.0;
            let beta = alpha + 1.0 + rng.below(40) as f64 / 8.0;
            Request::new("tensorrt.fill")
                .attr("dimensions", dims)
                .attr("operation", if k == 1 { "random_uniform" } else { "random_normal" })
                .attr("to_type", to_type)
                .attr("alpha", alpha)
                .attr("beta", beta)
                .attr("seed", rng.below(1 << 40) as i64)
        }
    }
}

/// A random permutation of `0..n`.
/// Whether `op`'s data input takes `dtype`.
fn takes(op: &str, dtype: DType) -> bool {
    let Ok(spec) = kerfx::op_spec(op) else { return false };
    let set = spec.inputs.first().and_then(|i| spec.type_set(&i.types));
    set.is_some_and(|s| s.contains(&dtype.name()))
}

/// A gather of data of `shape` (rank ≥ 1) by random indices, mostly in range (each
/// vendor's own range, so the request is valid; OpenVINO Gather-8 also out of it: zeros):
/// ONNX Gather and GatherElements, OpenVINO Gather with batch dims, TensorRT's three modes.
pub fn random_gather_for(rng: &mut Rng, dtype: DType, shape: &[u64]) -> Request {
    let rank = shape.len();
    let axis = rng.below(rank as u64) as usize;
    let d = shape[axis] as i64;
    let index = |rng: &mut Rng, lo: i64| if d == 0 { 0 } else { rng.range(lo, d - 1) };
    let indices = |rng: &mut Rng, ishape: &[u64], lo: i64| {
        let n: u64 = ishape.iter().product();
        let v: Vec<i64> = (0..n).map(|_| index(rng, lo)).collect();
        Tensor::from_i64s(&v).reshaped(ishape).expect("a shape of n elements")
    };
    let small_shape = |rng: &mut Rng| -> Vec<u64> { (0..rng.below(3)).map(|_| rng.below(4)).collect() };
    let choice = rng.below(5);
    let fits = |op: &str| d > 0 && takes(op, dtype);
    match choice {
        0 if fits("onnx.gather") => {
            let ishape = small_shape(rng);
            Request::new("onnx.gather")
                .version(13)
                .input_meta("data", dtype, shape)
                .input("indices", indices(rng, &ishape, -d))
                .attr("axis", if rng.chance(50) { axis as i64 } else { axis as i64 - rank as i64 })
        }
        1 if fits("onnx.gather_elements") => {
            // Off the axis data's dims; on it any extent.
            let mut ishape = shape.to_vec();
            ishape[axis] = rng.below(4);
            Request::new("onnx.gather_elements")
                .version(13)
                .input_meta("data", dtype, shape)
                .input("indices", indices(rng, &ishape, -d))
                .attr("axis", axis as i64)
        }
        2 | 3 if fits("tensorrt.gather") => {
            let (mode, ishape, elementwise) = match choice {
                2 => {
                    let mut ishape = shape.to_vec();
                    ishape[axis] = rng.below(4);
                    ("element", ishape, 0)
                }
                _ if axis > 0 && rng.chance(50) => {
                    let mut ishape = vec![if rng.chance(30) { 1 } else { shape[0] }];
                    ishape.extend(small_shape(rng));
                    ("default", ishape, 1)
                }
                _ => ("default", small_shape(rng), 0),
            };
            Request::new("tensorrt.gather")
                .input_meta("data", dtype, shape)
                .input("indices", indices(rng, &ishape, 0))
                .attr("axis", axis as i64)
                .attr("mode", mode)
                .attr("num_elementwise_dims", elementwise)
        }
        _ => {
            // OpenVINO Gather-8 takes every dtype: batch dims up to the axis, indices
            // partly out of range (zeros).
            let batch = rng.below(axis as u64 + 1) as usize;
            let mut ishape = shape[..batch].to_vec();
            ishape.extend(small_shape(rng));
            let n: u64 = ishape.iter().product();
            let v: Vec<i64> = (0..n)
                .map(|_| if rng.chance(10) { rng.range(-2 * d - 2, 2 * d + 2) } else { index(rng, -d) })
                .collect();
            Request::new("openvino.gather")
                .version(8)
                .input_meta("data", dtype, shape)
                .input("indices", Tensor::from_i64s(&v).reshaped(&ishape).expect("a shape of n elements"))
                .input("axis", Tensor::from_i64s(&[axis as i64]).reshaped(&[]).expect("one element"))
                .attr("batch_dims", batch as i64)
        }
    }
}

fn random_perm(rng: &mut Rng, n: usize) -> Vec<i64> {
    let mut perm: Vec<i64> = (0..n as i64).collect();
    for i in (1..n).rev() {
        perm.swap(i, rng.below(i as u64 + 1) as usize);
    }
    perm
}

/// A random shape of the same volume as `shape`: axes merged, split at a divisor, unit
/// axes inserted and removed.
fn random_reshape(rng: &mut Rng, shape: &[u64]) -> Vec<u64> {
    let mut out = shape.to_vec();
    for _ in 0..rng.below(4) {
        match rng.below(4) {
            0 if out.len() >= 2 => {
                let i = rng.below(out.len() as u64 - 1) as usize;
                let merged = out[i] * out[i + 1];
                out.splice(i..i + 2, [merged]);
            }
            1 if !out.is_empty() => {
                let i = rng.below(out.len() as u64) as usize;
                let d = out[i];
                let divisors: Vec<u64> = (1..=d).filter(|&f| d.is_multiple_of(f)).collect();
                if let Some(&f) = divisors.get(rng.below(divisors.len().max(1) as u64) as usize) {
                    out.splice(i..i + 1, [f, d / f]);
                }
            }
            2 => out.insert(rng.below(out.len() as u64 + 1) as usize, 1),
            _ => {
                if let Some(i) = out.iter().position(|&d| d == 1) {
                    out.remove(i);
                }
            }
        }
    }
    out
}

/// A random op of the axis-moving family (Transpose, Reshape, Flatten, Squeeze,
/// Unsqueeze, Identity, Expand, Tile, DepthToSpace, SpaceToDepth; OpenVINO's Transpose,
/// Tile, Roll, Broadcast, DepthToSpace, SpaceToDepth, Reshape, Squeeze and Unsqueeze;
/// TensorRT's Shuffle) that lowers on a data
/// input of `dtype` and `shape`, the data input given by dtype and shape only.
pub fn random_move_for(rng: &mut Rng, dtype: DType, shape: &[u64]) -> Request {
    let rank = shape.len();
    if rank > 0 && rng.chance(12) {
        return random_gather_for(rng, dtype, shape);
    }
    let version = |rng: &mut Rng, v: &[u32]| *rng.pick(v);
    match rng.below(20) {
        13 => random_ov_broadcast(rng, dtype, shape),
        k @ (14 | 15) if rank >= 3 => {
            let d2s = k == 14;
            let spatial = &shape[2..];
            // A block of 2 where it divides, else 1.
            let divides = if d2s {
                2u64.checked_pow(spatial.len() as u32).is_some_and(|bk| shape[1].is_multiple_of(bk))
            } else {
                spatial.iter().all(|d| d.is_multiple_of(2))
            };
            let b = if divides && rng.chance(70) { 2 } else { 1 };
            let op = if d2s { "openvino.depth_to_space" } else { "openvino.space_to_depth" };
            Request::new(op)
                .input_meta("data", dtype, shape)
                .attr("block_size", b)
                .attr("mode", *rng.pick(&["blocks_first", "depth_first"]))
        }
        16 => {
            let target = random_reshape(rng, shape);
            // A 0 of an empty target is an empty axis only without special_zero.
            let special_zero = rng.chance(50) && !target.contains(&0);
            let mut dims: Vec<i64> = target.iter().map(|&d| d as i64).collect();
            if !target.contains(&0) && !dims.is_empty() && rng.chance(40) {
                let i = rng.below(dims.len() as u64) as usize;
                dims[i] = -1;
            }
            if special_zero {
                for (i, d) in dims.iter_mut().enumerate() {
                    if shape.get(i) == Some(&(*d as u64)) && *d > 0 && rng.chance(30) {
                        *d = 0;
                    }
                }
            }
            Request::new("openvino.reshape")
                .input_meta("data", dtype, shape)
                .input("shape", Tensor::from_i64s(&dims))
                .attr("special_zero", special_zero)
        }
        17 => {
            // Any axes, non-unit ones too (kept), repeats, or none.
            let axes: Vec<i64> = if rank == 0 {
                Vec::new()
            } else {
                (0..rng.below(rank as u64 + 2)).map(|_| rng.range(-(rank as i64), rank as i64 - 1)).collect()
            };
            let r = Request::new("openvino.squeeze").input_meta("data", dtype, shape);
            if axes.is_empty() && rng.chance(50) { r } else { r.input("axes", Tensor::from_i64s(&axes)) }
        }
        18 => {
            let new = 1 + rng.below(2) as i64;
            let out_rank = rank as i64 + new;
            let mut axes: Vec<i64> = Vec::new();
            while (axes.len() as i64) < new {
                let k = rng.range(0, out_rank - 1);
                if !axes.contains(&k) {
                    axes.push(k);
                }
            }
            // Negative forms, and a repeat (ignored).
            for a in axes.iter_mut() {
                if rng.chance(40) {
                    *a -= out_rank;
                }
            }
            if rng.chance(20) {
                axes.push(axes[0]);
            }
            Request::new("openvino.unsqueeze").input_meta("data", dtype, shape).input("axes", Tensor::from_i64s(&axes))
        }
        19 => random_trt_shuffle(rng, dtype, shape),
        10 => {
            let order = if rng.chance(20) { Vec::new() } else { random_perm(rng, rank) };
            Request::new("openvino.transpose")
                .input_meta("arg", dtype, shape)
                .input("input_order", Tensor::from_i64s(&order))
        }
        11 => {
            let repeats: Vec<i64> = (0..rng.below(rank as u64 + 2)).map(|_| rng.range(-1, 3)).collect();
            Request::new("openvino.tile").input_meta("data", dtype, shape).input("repeats", Tensor::from_i64s(&repeats))
        }
        12 if rank > 0 => {
            let axes: Vec<i64> = (0..1 + rng.below(3)).map(|_| rng.range(-(rank as i64), rank as i64 - 1)).collect();
            let shift: Vec<i64> = axes.iter().map(|_| rng.range(-20, 20)).collect();
            Request::new("openvino.roll")
                .input_meta("data", dtype, shape)
                .input("shift", Tensor::from_i64s(&shift))
                .input("axes", Tensor::from_i64s(&axes))
        }
        0 => {
            let r = Request::new("onnx.transpose").version(version(rng, &[13, 21])).input_meta("data", dtype, shape);
            if rng.chance(20) { r } else { r.attr("perm", random_perm(rng, rank)) }
        }
        1 | 2 => {
            let target = random_reshape(rng, shape);
            let mut dims: Vec<i64> = target.iter().map(|&d| d as i64).collect();
            // A -1 where the rest do not multiply to 0; 0s that copy the input's dim.
            if !target.contains(&0) && !dims.is_empty() && rng.chance(40) {
                let i = rng.below(dims.len() as u64) as usize;
                dims[i] = -1;
            }
            // A real 0 in the target is a 0 only with allowzero 1 (version 14 on): without
            // it a 0 copies the input's dim. Else some 0s that copy the input's dim.
            let real_zero = target.contains(&0);
            for (i, d) in dims.iter_mut().enumerate() {
                if !real_zero && shape.get(i) == Some(&(*d as u64)) && *d > 0 && rng.chance(20) {
                    *d = 0;
                }
            }
            let r = Request::new("onnx.reshape")
                .version(if real_zero { version(rng, &[14, 21]) } else { version(rng, &[13, 14, 21]) })
                .input_meta("data", dtype, shape)
                .input("shape", Tensor::from_i64s(&dims));
            if real_zero { r.attr("allowzero", 1i64) } else { r }
        }
        3 => Request::new("onnx.flatten")
            .version(13)
            .input_meta("input", dtype, shape)
            .attr("axis", rng.range(-(rank as i64), rank as i64)),
        4 => {
            let units: Vec<i64> = (0..rank as i64).filter(|&k| shape[k as usize] == 1).collect();
            let r = Request::new("onnx.squeeze").version(13).input_meta("data", dtype, shape);
            if units.is_empty() || rng.chance(30) {
                r
            } else {
                let k = *rng.pick(&units);
                r.input("axes", Tensor::from_i64s(&[if rng.chance(50) { k - rank as i64 } else { k }]))
            }
        }
        5 => {
            let out_rank = rank as i64 + 1;
            let k = rng.range(-out_rank, out_rank - 1);
            Request::new("onnx.unsqueeze")
                .version(13)
                .input_meta("data", dtype, shape)
                .input("axes", Tensor::from_i64s(&[k]))
        }
        6 => {
            let mut target: Vec<i64> = shape
                .iter()
                .map(|&d| {
                    if d == 1 {
                        rng.range(0, 4)
                    } else if rng.chance(30) {
                        1
                    } else {
                        d as i64
                    }
                })
                .collect();
            if rng.chance(30) {
                target.insert(0, rng.range(1, 3));
            }
            Request::new("onnx.expand")
                .version(13)
                .input_meta("input", dtype, shape)
                .input("shape", Tensor::from_i64s(&target))
        }
        7 => {
            let repeats: Vec<i64> = shape.iter().map(|_| rng.range(0, 3)).collect();
            Request::new("onnx.tile")
                .version(13)
                .input_meta("input", dtype, shape)
                .input("repeats", Tensor::from_i64s(&repeats))
        }
        8 if rank == 4 => {
            let b = rng.range(1, 3);
            let d2s = rng.chance(50);
            let (op, mode) =
                if d2s { ("onnx.depth_to_space", rng.pick(&["DCR", "CRD"])) } else { ("onnx.space_to_depth", &"DCR") };
            let r = Request::new(op).version(13).input_meta("input", dtype, shape).attr("blocksize", b);
            if d2s { r.attr("mode", *mode) } else { r }
        }
        _ => Request::new("onnx.identity").version(13).input_meta("input", dtype, shape),
    }
}

/// A random OpenVINO Broadcast (numpy, explicit or bidirectional mode) that lowers on
/// data of `shape`.
fn random_ov_broadcast(rng: &mut Rng, dtype: DType, shape: &[u64]) -> Request {
    let rank = shape.len();
    let grow = |rng: &mut Rng, d: u64| if d == 1 { rng.range(0, 3) } else { d as i64 };
    let r = Request::new("openvino.broadcast").input_meta("data", dtype, shape);
    match rng.below(3) {
        0 => {
            let mut target: Vec<i64> = shape.iter().map(|&d| grow(rng, d)).collect();
            for _ in 0..rng.below(2) {
                target.insert(0, rng.range(0, 3));
            }
            r.version(*rng.pick(&[1, 3])).input("target_shape", Tensor::from_i64s(&target))
        }
        1 => {
            // The data's axes at increasing positions of a longer target; new axes anywhere.
            let out_rank = rank + rng.below(3) as usize;
            let mut mapping: Vec<usize> = (0..out_rank).collect();
            while mapping.len() > rank {
                mapping.remove(rng.below(mapping.len() as u64) as usize);
            }
            let mut target: Vec<i64> = (0..out_rank).map(|_| rng.range(1, 3)).collect();
            for (i, &k) in mapping.iter().enumerate() {
                target[k] = grow(rng, shape[i]);
            }
            let mapping: Vec<i64> = mapping.iter().map(|&k| k as i64).collect();
            r.version(*rng.pick(&[1, 3]))
                .attr("mode", "explicit")
                .input("target_shape", Tensor::from_i64s(&target))
                .input("axes_mapping", Tensor::from_i64s(&mapping))
        }
        _ => {
            // Bidirectional: a 1 on either side, a shorter or longer target.
            let mut target: Vec<i64> = shape
                .iter()
                .map(|&d| {
                    if d == 1 {
                        rng.range(1, 3)
                    } else if rng.chance(40) {
                        1
                    } else {
                        d as i64
                    }
                })
                .collect();
            if rng.chance(30) && !target.is_empty() {
                target.remove(0);
            } else if rng.chance(30) {
                target.insert(0, rng.range(1, 3));
            }
            r.version(3).attr("mode", "bidirectional").input("target_shape", Tensor::from_i64s(&target))
        }
    }
}

/// A random TensorRT Shuffle that lowers on data of `shape`: a first transpose, a random
/// reshape of its result (0 placeholders where the input's dim agrees, a -1), a second
/// transpose — left out where the three do not fold into one plan.
fn random_trt_shuffle(rng: &mut Rng, dtype: DType, shape: &[u64]) -> Request {
    let first = random_perm(rng, shape.len());
    let transposed: Vec<u64> = first.iter().map(|&k| shape[k as usize]).collect();
    let target = random_reshape(rng, &transposed);
    let mut dims: Vec<i64> = target.iter().map(|&d| d as i64).collect();
    // A 0 of an empty target is an empty axis only without placeholders.
    let placeholder = rng.chance(70) && !target.contains(&0);
    if placeholder {
        for (i, d) in dims.iter_mut().enumerate() {
            if shape.get(i) == Some(&(*d as u64)) && *d > 0 && rng.chance(30) {
                *d = 0;
            }
        }
    }
    if !target.contains(&0) && !dims.is_empty() && rng.chance(30) {
        let i = rng.below(dims.len() as u64) as usize;
        dims[i] = -1;
    }
    let mut r = Request::new("tensorrt.shuffle").input_meta("input", dtype, shape);
    if !rng.chance(10) {
        r = r.attr("first_transpose", first);
    }
    if !placeholder {
        r = r.attr("zero_is_placeholder", false);
    }
    r = if rng.chance(30) {
        r.input("reshape_dims", Tensor::from_i64s(&dims))
    } else if rng.chance(90) {
        r.attr("reshape_dims", dims)
    } else {
        r.attr("reshape_dims", target.iter().map(|&d| d as i64).collect::<Vec<_>>())
    };
    let with_second = r.clone().attr("second_transpose", random_perm(rng, target.len()));
    if kerfx::lower(&with_second).is_ok() { with_second } else { r }
}

/// A random op of the axis-moving family on a random input (see [`random_move_for`]);
/// DepthToSpace and SpaceToDepth get inputs their blocks divide.
pub fn random_move(rng: &mut Rng) -> Request {
    let dtype = *rng.pick(&[SLICE_DTYPES.as_slice(), WIDE_DTYPES.as_slice()].concat());
    let shape = if rng.chance(15) {
        let b = rng.range(1, 3) as u64;
        vec![1 + rng.below(2), b * b * (1 + rng.below(3)), b * (1 + rng.below(3)), b * (1 + rng.below(3))]
    } else {
        random_shape(rng, 4, 6)
    };
    random_move_for(rng, dtype, &shape)
}

/// A random request of any op, weighted towards the slices with boundary modes.
pub fn random_request(rng: &mut Rng) -> Request {
    match rng.below(17) {
        0..=4 => random_trt_slice(rng),
        5 | 6 => random_onnx_slice(rng),
        7 | 8 => random_ov_slice(rng),
        9 => random_fill(rng),
        10 => random_onnx_pad(rng),
        11 | 12 => random_ov_pad(rng),
        13 => random_ov_slice8(rng),
        _ => random_move(rng),
    }
}

/// A random chain of 1 to `steps` steps: a [`random_request`] first, then requests drawn
/// until one lowers on the previous step's output (its data input, of the same rank,
/// left out as a chain step's is), 4 tries a step at the most.
pub fn random_chain(rng: &mut Rng, steps: usize) -> ChainRequest {
    let mut chain = ChainRequest { steps: vec![random_request(rng)] };
    for _ in 0..4 * steps {
        if chain.steps.len() >= steps {
            break;
        }
        let Ok(plans) = kerfx::chain::lower_chain(&chain).map(|l| l.plans) else { break };
        let rank = plans.last().map_or(0, |p| p.output_shape().len());
        let (dtype, shape) = plans.last().map_or((DType::F32, Vec::new()), |p| (p.dtype(), p.output_shape().to_vec()));
        let next = (0..32).find_map(|_| {
            // Half the time an axis move fitted to the output, so that reshapes chain.
            let mut r = if rng.chance(50) { random_move_for(rng, dtype, &shape) } else { random_request(rng) };
            let name = kerfx_ir::chain::data_input_name(kerfx::op_spec(&r.op).ok()?)?;
            let data = r.inputs.remove(name)?;
            (data.shape().len() == rank).then_some(r)
        });
        let Some(next) = next else { break };
        chain.steps.push(next);
        if kerfx::chain::lower_chain(&chain).is_err() {
            chain.steps.pop();
        }
    }
    chain
}

/// The request at `index` in the sequence [`random_request`] draws from `seed`.
pub fn nth_request(seed: u64, index: u64) -> Request {
    let mut rng = Rng::new(seed);
    (0..index).for_each(|_| drop(random_request(&mut rng)));
    random_request(&mut rng)
}

/// A random request a build script can derive a kernel from, with where to find it again.
pub struct Derivable {
    /// Its index in the sequence of the seed ([`nth_request`]).
    pub index: u64,
    pub request: Request,
    pub plan: kerfx::Plan,
    /// Its `#[kerf(...)]` attribute list ([`crate::derive_attributes`]).
    pub attributes: String,
}

/// The first `count` requests of `seed`'s sequence that lower, schedule, stay within
/// `limit` elements of input and output, can be written as derive attributes and pass
/// `keep` (at most 100 draws per request kept).
pub fn derivable(seed: u64, count: usize, limit: u64, keep: impl Fn(&kerfx::Plan) -> bool) -> Vec<Derivable> {
    let small = |s: &[u64]| kerfx_ir::tensor::volume(s).is_some_and(|v| v <= limit);
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for index in 0..100 * count as u64 + 100 {
        if out.len() == count {
            break;
        }
        let request = random_request(&mut rng);
        let Ok(plan) = kerfx::lower(&request) else { continue };
        if !small(plan.output_shape()) || !plan.input_shape().is_none_or(small) {
            continue;
        }
        if kerfx_ir::schedule::schedule(&plan).is_err() || !keep(&plan) {
            continue;
        }
        let Some(attributes) = crate::derive_attributes(&request) else { continue };
        out.push(Derivable { index, request, plan, attributes });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chains of several steps come out, and every chain lowers.
    #[test]
    fn random_chains_lower_and_most_have_several_steps() {
        let mut rng = Rng::new(11);
        let mut long = 0;
        for _ in 0..40 {
            let chain = random_chain(&mut rng, 3);
            if chain.steps.len() > 1 {
                kerfx::chain::lower_chain(&chain).unwrap_or_else(|e| panic!("{e}: {chain:?}"));
                long += 1;
            }
        }
        assert!(long >= 20, "{long} of 40 chains have more than one step");
    }
}

#[cfg(test)]
mod move_tests {
    use super::*;

    /// The ops whose random requests always lower (the others' may break a rule: their
    /// callers take the error as the reference's and the backends' alike).
    const ALWAYS_LOWER: [&str; 12] = [
        "onnx.reshape",
        "onnx.gather",
        "onnx.gather_elements",
        "openvino.gather",
        "tensorrt.gather",
        "openvino.broadcast",
        "openvino.depth_to_space",
        "openvino.space_to_depth",
        "openvino.reshape",
        "openvino.squeeze",
        "openvino.unsqueeze",
        "tensorrt.shuffle",
    ];

    /// The OpenVINO and TensorRT axis ops, ONNX Reshape and the gathers come out of
    /// `random_move_for`, and each of their requests lowers on the shape it was drawn for
    /// (empty dims included).
    #[test]
    fn random_moves_lower_and_draw_every_op() {
        let mut rng = Rng::new(5);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..6000 {
            let rank = rng.below(5) as usize;
            let shape: Vec<u64> = (0..rank).map(|_| if rng.chance(5) { 0 } else { 1 + rng.below(4) }).collect();
            let dtype = *rng.pick(&[DType::F32, DType::Bool, DType::U64]);
            let request = random_move_for(&mut rng, dtype, &shape);
            if ALWAYS_LOWER.contains(&request.op.as_str()) {
                kerfx::lower(&request).unwrap_or_else(|e| panic!("{e}: {request:?}"));
                seen.insert(request.op.clone());
            }
        }
        for op in ALWAYS_LOWER {
            assert!(seen.contains(op), "{op} never drawn");
        }
    }
}

/// A random graph of up to `nodes` nodes (Split, Concat, ONNX Slice and the axis moves
/// and gathers of [`random_move_for`]) over one or two graph inputs of one dtype, with
/// fan-in (Concat of several values, a value read twice), fan-out (a value read by
/// several nodes, Split's outputs) and graph outputs in the middle of fusable runs.
/// Every node lowers on its inputs' shapes; each value has at most 4096 elements.
/// Returns the graph and random tensors for its inputs.
pub fn random_graph(rng: &mut Rng, nodes: usize) -> (kerfx::graph::Graph, std::collections::BTreeMap<String, Tensor>) {
    use kerfx::graph::{Graph, GraphInput, Node};
    let dtype = *rng.pick(&[DType::F32, DType::U8, DType::F16, DType::I64, DType::Bool, DType::F64, DType::I4]);
    let mut g = Graph::default();
    let mut inputs = std::collections::BTreeMap::new();
    // Every value: its name and shape.
    let mut pool: Vec<(String, Vec<u64>)> = Vec::new();
    for i in 0..1 + rng.below(2) {
        let mut shape = random_shape(rng, 4, 5);
        if shape.is_empty() {
            shape.push(1 + rng.below(6));
        }
        let name = format!("in{i}");
        g.inputs.push(GraphInput { name: name.clone(), dtype, shape: shape.clone() });
        inputs.insert(name.clone(), crate::random_tensor(rng, dtype, &shape));
        pool.push((name, shape));
    }
    for _ in 0..nodes * 16 {
        if g.nodes.len() >= nodes {
            break;
        }
        let (value, shape) = rng.pick(&pool).clone();
        let rank = shape.len();
        let Some((request, wired)) = random_graph_node(rng, dtype, &value, &shape, &pool) else { continue };
        let Ok(program) = kerfx::lower_program(&request) else { continue };
        if program.outputs.iter().any(|s| kerfx::volume(s).is_none_or(|n| n > 4096)) || rank > 6 {
            continue;
        }
        let k = g.nodes.len();
        let outputs: Vec<String> = (0..program.outputs.len()).map(|o| format!("v{k}_{o}")).collect();
        pool.extend(outputs.iter().cloned().zip(program.outputs.iter().cloned()));
        g.nodes.push(Node { name: format!("n{k}"), request, inputs: wired, outputs });
    }
    // The leaves, and now and then a value in the middle (which then is written).
    let read: std::collections::BTreeSet<&str> =
        g.nodes.iter().flat_map(|n| n.inputs.iter().map(|(_, v)| v.as_str())).collect();
    let outputs: Vec<String> = pool
        .iter()
        .map(|(v, _)| v.clone())
        .filter(|v| !v.starts_with("in") && (!read.contains(v.as_str()) || rng.chance(15)))
        .collect();
    g.outputs = if outputs.is_empty() { vec![pool[0].0.clone()] } else { outputs };
    (g, inputs)
}

/// One node of [`random_graph`] reading `value` (of `shape`): its request (data given by
/// dtype and shape) and wiring.
fn random_graph_node(
    rng: &mut Rng,
    dtype: DType,
    value: &str,
    shape: &[u64],
    pool: &[(String, Vec<u64>)],
) -> Option<(Request, Vec<(String, String)>)> {
    let rank = shape.len();
    let wire = |name: &str, v: &str| vec![(name.to_string(), v.to_string())];
    match rng.below(10) {
        // Split into 2 or 3 parts of random sizes (empty ones too).
        0 | 1 if rank > 0 => {
            let axis = rng.below(rank as u64) as usize;
            let d = shape[axis] as i64;
            let parts = 2 + rng.below(2) as usize;
            let mut cuts: Vec<i64> = (0..parts - 1).map(|_| rng.range(0, d)).collect();
            cuts.sort_unstable();
            let mut sizes = Vec::with_capacity(parts);
            let mut at = 0;
            for c in cuts.into_iter().chain([d]) {
                sizes.push(c - at);
                at = c;
            }
            let request = Request::new("onnx.split")
                .version(13)
                .attr("axis", axis as i64 - if rng.chance(30) { rank as i64 } else { 0 })
                .input("split", Tensor::from_i64s(&sizes))
                .input_meta("input", dtype, shape);
            Some((request, wire("input", value)))
        }
        // Concat with values whose shapes differ from this one's on the axis only.
        2 | 3 if rank > 0 => {
            let axis = rng.below(rank as u64) as usize;
            let fits = |s: &[u64]| s.len() == rank && (0..rank).all(|d| d == axis || s[d] == shape[d]);
            let others: Vec<&(String, Vec<u64>)> = pool.iter().filter(|(_, s)| fits(s)).collect();
            let mut entries = vec![(value.to_string(), shape.to_vec())];
            for _ in 0..1 + rng.below(2) {
                let (v, s) = rng.pick(&others);
                entries.insert(rng.below(entries.len() as u64 + 1) as usize, (v.clone(), s.clone()));
            }
            let metas = entries.iter().map(|(_, s)| kerfx::InputArg::Meta { dtype, shape: s.clone() }).collect();
            let request = Request::new("onnx.concat").version(13).attr("axis", axis as i64).input_list("inputs", metas);
            let wired = entries.iter().map(|(v, _)| ("inputs".to_string(), v.clone())).collect();
            Some((request, wired))
        }
        // An ONNX Slice of every axis, steps of either sign.
        4 | 5 if rank > 0 => {
            let (mut starts, mut ends, mut steps) = (Vec::new(), Vec::new(), Vec::new());
            for &d in shape {
                let d = d as i64;
                let step = *rng.pick(&[1, 1, 2, -1, -2]);
                let (a, b) = (rng.range(-d - 1, d + 1), rng.range(-d - 1, d + 1));
                starts.push(a);
                ends.push(b);
                steps.push(step);
            }
            let axes: Vec<i64> = (0..rank as i64).collect();
            let request = Request::new("onnx.slice")
                .version(13)
                .input("starts", Tensor::from_i64s(&starts))
                .input("ends", Tensor::from_i64s(&ends))
                .input("axes", Tensor::from_i64s(&axes))
                .input("steps", Tensor::from_i64s(&steps))
                .input_meta("data", dtype, shape);
            Some((request, wire("data", value)))
        }
        _ => {
            let request = random_move_for(rng, dtype, shape);
            let name = kerfx::data_input_name(kerfx::op_spec(&request.op).ok()?)?;
            Some((request, wire(name, value)))
        }
    }
}
