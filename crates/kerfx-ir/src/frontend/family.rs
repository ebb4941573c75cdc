//! The ops over several inputs or outputs: ONNX Concat and Split, OpenVINO Concat, Split
//! and VariadicSplit, TensorRT Concatenation. Each lowers to a [`Program`]: Concat one
//! move per non-empty input (the input read whole) into its box of the output, Split one
//! move per output (a slice of the input along the axis) into the whole output.

use super::{data_input, in_bounds_slice, moves::int_attr, normalize_axis};
use crate::error::Error;
use crate::plan::{AxisRead, Plan};
use crate::program::{Move, Program};
use crate::request::{InputArg, Validated, input_ints};

/// The axis of a Concat or Split: `axis` in [-r, r-1] (`negative`: negative values
/// allowed), else rule `axis_range` naming `name`.
fn axis(op: &str, name: &str, axis: i64, rank: usize, negative: bool) -> Result<usize, Error> {
    let lo = if negative { -(rank as i64) } else { 0 };
    match normalize_axis(axis, rank) {
        Some(a) if axis >= lo => Ok(a),
        _ if rank == 0 => {
            Err(Error::rule(op, "axis_range", format!("{name} = {axis}: a scalar has no axis to join or split"))
                .about_name(name))
        }
        _ => Err(Error::rule(
            op,
            "axis_range",
            format!("{name} = {axis} is outside [{lo}, {}] for rank {rank}", rank as i64 - 1),
        )
        .about_name(name)),
    }
}

/// A move reading all of `shape` (an identity step) into box `at` of output `output`.
fn whole(dtype: crate::DType, input: usize, shape: &[u64], output: usize, at: Vec<u64>) -> Move {
    Move { input: Some(input), steps: vec![Plan::copy(dtype, shape)], output, at }
}

/// ONNX Concat (4, 11, 13), OpenVINO Concat-1, TensorRT Concatenation.
pub(super) fn concat(v: &Validated<'_>) -> Result<Program, Error> {
    let op = v.op();
    let entries = match data_input(v, "inputs")? {
        InputArg::List(entries) => entries.as_slice(),
        _ => return Err(Error::Invalid { what: format!("{op}: input `inputs` is a list of tensors") }),
    };
    let Some(first) = entries.first() else {
        return Err(Error::rule(op, "at_least_one_input", "inputs is empty: nothing to join").about_name("inputs"));
    };
    let (dtype, rank) = (first.dtype(), first.shape().len());
    let axis = match (op, int_attr(v, "axis")) {
        ("tensorrt.concatenation", None) => rank.saturating_sub(3),
        ("tensorrt.concatenation", Some(a)) => self::axis(op, "axis", a, rank, false)?,
        (_, Some(a)) => self::axis(op, "axis", a, rank, !(op == "onnx.concat" && v.version < 11))?,
        (_, None) => return Err(Error::MissingAttribute { op: op.into(), name: "axis".into(), about: String::new() }),
    };
    let mut output = first.shape().to_vec();
    output[axis] = 0;
    for (k, e) in entries.iter().enumerate() {
        if e.dtype() != dtype {
            return Err(Error::rule(op, "same_dtype", format!("inputs[{k}] is {}, inputs[0] {dtype}", e.dtype()))
                .about_name("inputs"));
        }
        let shape = e.shape();
        let off_axis_differs = shape.len() != rank || (0..rank).any(|d| d != axis && shape[d] != first.shape()[d]);
        if off_axis_differs {
            return Err(Error::rule(
                op,
                "same_shape_off_axis",
                format!(
                    "inputs[{k}] has shape {shape:?}, inputs[0] {:?}: they may differ only on axis {axis}",
                    first.shape()
                ),
            )
            .about_name("inputs"));
        }
        output[axis] = output[axis]
            .checked_add(shape[axis])
            .ok_or_else(|| Error::TooLarge { what: format!("{op}: axis {axis} of the output") })?;
    }
    let mut moves = Vec::new();
    let mut offset = 0;
    for (k, e) in entries.iter().enumerate() {
        let shape = e.shape();
        if shape.iter().all(|&d| d > 0) {
            let mut at = vec![0; rank];
            at[axis] = offset;
            moves.push(whole(dtype, k, shape, 0, at));
        }
        offset += shape[axis];
    }
    let program =
        Program { dtype, inputs: entries.iter().map(|e| e.shape().to_vec()).collect(), outputs: vec![output], moves };
    program.validate()?;
    Ok(program)
}

/// The parts of a Split: the slices of `input` (dtype, shape) along `axis` of extents
/// `sizes`, each into its own output.
fn parts(dtype: crate::DType, shape: &[u64], axis: usize, sizes: &[u64]) -> Result<Program, Error> {
    let mut outputs = Vec::with_capacity(sizes.len());
    let mut moves = Vec::new();
    let mut start = 0u64;
    for (o, &n) in sizes.iter().enumerate() {
        let mut out = shape.to_vec();
        out[axis] = n;
        // Every output has its move, an empty one too: a graph may fuse it into a reader.
        let axes = (0..shape.len())
            .map(|d| {
                if d == axis {
                    AxisRead { extent: n, start: start as i64, step: 1 }
                } else {
                    AxisRead { extent: shape[d], start: 0, step: 1 }
                }
            })
            .collect();
        let plan: Plan = in_bounds_slice(dtype, shape.to_vec(), axes, out.clone());
        moves.push(Move { input: Some(0), steps: vec![plan], output: o, at: vec![0; shape.len()] });
        start += n;
        outputs.push(out);
    }
    let program = Program { dtype, inputs: vec![shape.to_vec()], outputs, moves };
    program.validate()?;
    Ok(program)
}

/// Equal parts: `n` outputs of d/n elements, else rule `rule`.
fn equal(op: &str, rule: &str, what: &str, d: u64, n: u64) -> Result<Vec<u64>, Error> {
    if n == 0 || !d.is_multiple_of(n) {
        return Err(Error::rule(
            op,
            rule,
            format!("{what} = {n} does not divide the axis's extent {d} into equal parts"),
        ));
    }
    Ok(vec![d / n; n as usize])
}

/// Explicit sizes: none negative, adding up to d, else rule `rule` naming `name`.
fn sized(op: &str, rule: &str, name: &str, sizes: &[i64], d: u64) -> Result<Vec<u64>, Error> {
    let err = |m: String| Error::rule(op, rule, m).about_name(name);
    if sizes.is_empty() {
        return Err(err(format!("{name} is empty: at least one output")));
    }
    if let Some((k, s)) = sizes.iter().enumerate().find(|(_, s)| **s < 0) {
        return Err(err(format!("{name}[{k}] = {s} is negative")));
    }
    let sum: i128 = sizes.iter().map(|&s| s as i128).sum();
    if sum != d as i128 {
        return Err(err(format!("{name} {sizes:?} adds up to {sum}, the axis's extent is {d}")));
    }
    Ok(sizes.iter().map(|&s| s as u64).collect())
}

/// ONNX Split (2, 11, 13, 18).
pub(super) fn onnx_split(v: &Validated<'_>) -> Result<Program, Error> {
    let op = v.op();
    let data = data_input(v, "input")?;
    let shape = data.shape();
    let axis = axis(op, "axis", int_attr(v, "axis").unwrap_or(0), shape.len(), v.version >= 11)?;
    let d = shape[axis];
    let split = match v.version {
        2 | 11 => v.int_list("split")?,
        _ => v.input("split").map(|s| input_ints(op, "split", s)).transpose()?,
    };
    let stated = v.outputs;
    let sizes = match (v.version, split, int_attr(v, "num_outputs")) {
        (18, Some(_), Some(_)) | (18, None, None) => {
            return Err(Error::rule(op, "split_or_num_outputs", "give exactly one of the split input and num_outputs"));
        }
        (18, None, Some(n)) => {
            if n < 1 {
                return Err(Error::rule(op, "split_or_num_outputs", format!("num_outputs = {n}: at least 1"))
                    .about_name("num_outputs"));
            }
            let n = n as u64;
            let chunk = d.div_ceil(n);
            let last = d as i128 - chunk as i128 * (n as i128 - 1);
            if last < 0 {
                return Err(Error::rule(
                    op,
                    "num_outputs_uneven",
                    format!(
                        "num_outputs = {n} on an axis of {d}: parts of {chunk} leave {last} for the last (onnx/onnx#5766)"
                    ),
                )
                .about_name("num_outputs"));
            }
            let mut sizes = vec![chunk; n as usize - 1];
            sizes.push(last as u64);
            sizes
        }
        (_, Some(split), _) => sized(op, "split_sizes", "split", &split, d)?,
        (_, None, _) => {
            let Some(n) = stated else {
                return Err(Error::rule(
                    op,
                    "output_count",
                    "without split the outputs are equal parts: say how many with the request's `outputs = N`",
                ));
            };
            equal(op, "output_count", "outputs", d, n as u64)?
        }
    };
    if let Some(n) = stated
        && n as usize != sizes.len()
    {
        return Err(Error::rule(
            op,
            "output_count",
            format!("outputs = {n}, but the split gives {} outputs", sizes.len()),
        ));
    }
    parts(data.dtype(), shape, axis, &sizes)
}

/// The scalar `axis` input of OpenVINO's splits.
fn scalar_axis(v: &Validated<'_>) -> Result<i64, Error> {
    let op = v.op();
    let values = input_ints(op, "axis", data_input(v, "axis")?)?;
    match values.as_slice() {
        [a] => Ok(*a),
        _ => {
            Err(Error::rule(op, "axis_range", format!("axis holds {} values, not one", values.len()))
                .about_name("axis"))
        }
    }
}

/// OpenVINO Split-1.
pub(super) fn openvino_split(v: &Validated<'_>) -> Result<Program, Error> {
    let op = v.op();
    let data = data_input(v, "data")?;
    let shape = data.shape();
    let axis = axis(op, "axis", scalar_axis(v)?, shape.len(), true)?;
    let d = shape[axis];
    let n = int_attr(v, "num_splits").unwrap_or(0);
    if n < 1 || d == 0 || n as u64 > d {
        return Err(Error::rule(
            op,
            "num_splits_divides",
            format!("num_splits = {n} is outside [1, {d}] (the axis's dim)"),
        )
        .about_name("num_splits"));
    }
    let sizes = equal(op, "num_splits_divides", "num_splits", d, n as u64)?;
    parts(data.dtype(), shape, axis, &sizes)
}

/// OpenVINO VariadicSplit-1.
pub(super) fn openvino_variadic_split(v: &Validated<'_>) -> Result<Program, Error> {
    let op = v.op();
    let data = data_input(v, "data")?;
    let shape = data.shape();
    let axis = axis(op, "axis", scalar_axis(v)?, shape.len(), true)?;
    let d = shape[axis];
    let mut lengths = input_ints(op, "split_lengths", data_input(v, "split_lengths")?)?;
    let rule = |m: String| Error::rule(op, "lengths_sum", m).about_name("split_lengths");
    if let Some((k, l)) = lengths.iter().enumerate().find(|(_, l)| **l < -1) {
        return Err(rule(format!("split_lengths[{k}] = {l}: lengths are >= 0, or -1 once")));
    }
    let rest: Vec<usize> = (0..lengths.len()).filter(|&k| lengths[k] == -1).collect();
    if rest.len() > 1 {
        return Err(rule(format!("split_lengths {lengths:?} has {} entries of -1, at most one", rest.len())));
    }
    if let [k] = rest[..] {
        let known: i128 = lengths.iter().filter(|&&l| l >= 0).map(|&l| l as i128).sum();
        let left = d as i128 - known;
        if left < 0 {
            return Err(rule(format!(
                "split_lengths {lengths:?}: the others add up to {known}, more than the dim {d}"
            )));
        }
        lengths[k] = left as i64;
    }
    let sizes = sized(op, "lengths_sum", "split_lengths", &lengths, d)?;
    parts(data.dtype(), shape, axis, &sizes)
}
