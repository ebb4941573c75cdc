//! The ops that move axes: ONNX Transpose, Reshape, Flatten, Squeeze, Unsqueeze, Identity,
//! Expand, Tile, DepthToSpace and SpaceToDepth; OpenVINO Transpose, Tile and Roll.
//! Each lowers to one plan: the input read as a source shape (a row-major reshape), each
//! source axis read whole (or broadcast, or wrapped around for Tile and Roll), the core axes in a
//! permuted order, the core reshaped into the output shape.

use super::data_input;
use crate::error::Error;
use crate::plan::{AxisRead, BoundaryMode, Plan, SlicePlan};
use crate::request::{AttrValue, Validated};
use crate::tensor::volume;

/// A plan that reads `source` (a reshape of the input) whole, its axes in `order`, into
/// `output_shape` (a reshape of the permuted source).
fn permuted(
    v: &Validated<'_>,
    name: &str,
    source: Vec<u64>,
    order: Vec<usize>,
    output_shape: Vec<u64>,
) -> Result<Plan, Error> {
    let data = data_input(v, name)?;
    let axes = source.iter().map(|&d| AxisRead { extent: d, start: 0, step: 1 }).collect();
    moved(data.dtype(), data.shape().to_vec(), source, axes, order, BoundaryMode::StrictBounds, output_shape)
}

/// A plan of this module's kind, the empty forms of `source_shape` and `order` used where
/// they say nothing.
fn moved(
    dtype: crate::DType,
    input_shape: Vec<u64>,
    source: Vec<u64>,
    axes: Vec<AxisRead>,
    order: Vec<usize>,
    mode: BoundaryMode,
    output_shape: Vec<u64>,
) -> Result<Plan, Error> {
    let mut plan = SlicePlan {
        dtype,
        input_shape,
        source_shape: Vec::new(),
        axes,
        order: Vec::new(),
        mode,
        fill_bits: 0,
        output_shape,
        windows: Vec::new(),
        gathered: None,
    };
    plan.set_reading(source, order);
    // The frontends build valid plans; the check names the op if one did not.
    plan.validate()?;
    Ok(Plan::Slice(plan))
}

/// A plan reading `source` in its own order, its output the reads' extents (Expand, Tile,
/// Roll).
fn in_order(
    dtype: crate::DType,
    input_shape: Vec<u64>,
    source: Vec<u64>,
    reads: Vec<AxisRead>,
    mode: BoundaryMode,
) -> Result<Plan, Error> {
    let output_shape = reads.iter().map(|a| a.extent).collect();
    moved(dtype, input_shape, source, reads, Vec::new(), mode, output_shape)
}

/// `shape` with leading unit axes up to `rank`: two shapes aligned at the back.
fn aligned(shape: &[u64], rank: usize) -> Vec<u64> {
    std::iter::repeat_n(1, rank.saturating_sub(shape.len())).chain(shape.iter().copied()).collect()
}

/// A tile of `source` (a reshape of the input): source axis k repeated `repeats[k]` times,
/// output position y reading y mod d (a wrap read).
fn tiled(dtype: crate::DType, input_shape: Vec<u64>, source: Vec<u64>, repeats: &[u64]) -> Result<Plan, Error> {
    let mut reads = Vec::with_capacity(source.len());
    for (k, (&d, &r)) in source.iter().zip(repeats).enumerate() {
        let extent =
            d.checked_mul(r).ok_or_else(|| Error::TooLarge { what: format!("axis {k}: {d} × {r} elements") })?;
        reads.push(AxisRead { extent, start: 0, step: 1 });
    }
    in_order(dtype, input_shape, source, reads, BoundaryMode::Wrap)
}

/// A reshape of the input `name` into `output_shape` (same volume, checked by the caller).
fn reshaped(v: &Validated<'_>, name: &str, output_shape: Vec<u64>) -> Result<Plan, Error> {
    let shape = data_input(v, name)?.shape().to_vec();
    let rank = shape.len();
    permuted(v, name, shape, (0..rank).collect(), output_shape)
}

fn int_attr(v: &Validated<'_>, name: &str) -> Option<i64> {
    match v.attr(name) {
        Some(AttrValue::Int(i)) => Some(*i),
        _ => None,
    }
}

pub(super) fn transpose(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let shape = data_input(v, "data")?.shape().to_vec();
    let rank = shape.len();
    let perm: Vec<usize> = match v.int_list("perm")? {
        None => (0..rank).rev().collect(),
        Some(perm) => {
            if perm.len() != rank {
                return Err(Error::rule(
                    op,
                    "perm_is_permutation",
                    format!("perm has {} entries for data of rank {rank}", perm.len()),
                )
                .about_name("perm"));
            }
            let mut seen = vec![false; rank];
            let mut out = Vec::with_capacity(rank);
            for (i, &p) in perm.iter().enumerate() {
                let k = usize::try_from(p).ok().filter(|&k| k < rank).ok_or_else(|| {
                    Error::rule(
                        op,
                        "perm_is_permutation",
                        format!("perm[{i}] = {p} is outside [0, {}]", rank as i64 - 1),
                    )
                    .about_name("perm")
                })?;
                if std::mem::replace(&mut seen[k], true) {
                    return Err(Error::rule(
                        op,
                        "perm_is_permutation",
                        format!("perm[{i}] = {p} names axis {k} again"),
                    )
                    .about_name("perm")
                    .on_axis(k));
                }
                out.push(k);
            }
            out
        }
    };
    let output_shape = perm.iter().map(|&k| shape[k]).collect();
    permuted(v, "data", shape, perm, output_shape)
}

pub(super) fn reshape(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let input = data_input(v, "data")?.shape().to_vec();
    let Some(target) = v.int_list("shape")? else {
        return Err(Error::MissingInput { op: op.to_string(), name: "shape".into() });
    };
    let allowzero = match int_attr(v, "allowzero").unwrap_or(0) {
        0 => false,
        1 => true,
        other => {
            return Err(
                Error::rule(op, "allowzero_flag", format!("allowzero = {other}, not 0 or 1")).about_name("allowzero")
            );
        }
    };
    let rule = |id: &str, what: String| Error::rule(op, id, what).about_name("shape");
    let mut inferred: Option<usize> = None;
    let mut out: Vec<u64> = Vec::with_capacity(target.len());
    for (i, &d) in target.iter().enumerate() {
        out.push(match d {
            -1 => {
                if let Some(first) = inferred.replace(i) {
                    return Err(rule("one_inferred_dim", format!("shape[{first}] and shape[{i}] are both -1")));
                }
                1
            }
            0 if !allowzero => *input.get(i).ok_or_else(|| {
                rule(
                    "zero_copies_existing_dim",
                    format!(
                        "shape[{i}] = 0 copies the input's dim {i}, but the input {input:?} has rank {}",
                        input.len()
                    ),
                )
            })?,
            d if d < -1 => return Err(rule("one_inferred_dim", format!("shape[{i}] = {d} is below -1"))),
            d => d as u64,
        });
    }
    let in_volume = volume(&input).ok_or_else(|| Error::TooLarge { what: format!("an input of shape {input:?}") })?;
    if let Some(i) = inferred {
        let rest = out.iter().enumerate().filter(|&(k, _)| k != i).try_fold(1u64, |acc, (_, &d)| acc.checked_mul(d));
        match rest {
            Some(0) => {
                return Err(rule(
                    "no_zero_with_inferred",
                    format!("shape[{i}] = -1 cannot be inferred: the other dims {out:?} multiply to 0"),
                ));
            }
            Some(rest) if in_volume % rest == 0 => out[i] = in_volume / rest,
            _ => {
                return Err(rule(
                    "volume_preserved",
                    format!("the input's {in_volume} elements do not divide into dims {target:?} with -1 inferred"),
                ));
            }
        }
    }
    if volume(&out) != Some(in_volume) {
        return Err(rule(
            "volume_preserved",
            format!("shape {out:?} does not hold the input {input:?}'s {in_volume} elements"),
        ));
    }
    reshaped(v, "data", out)
}

pub(super) fn flatten(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let shape = data_input(v, "input")?.shape().to_vec();
    let r = shape.len() as i64;
    let axis = int_attr(v, "axis").unwrap_or(1);
    let lowest = if v.version >= 11 { -r } else { 0 };
    if axis < lowest || axis > r {
        return Err(Error::rule(op, "axis_in_range", format!("axis = {axis} is outside [{lowest}, {r}] for rank {r}"))
            .about_name("axis"));
    }
    let axis = if axis < 0 { axis + r } else { axis } as usize;
    let too_large = || Error::TooLarge { what: format!("an input of shape {shape:?}") };
    let rows = volume(&shape[..axis]).ok_or_else(too_large)?;
    let cols = volume(&shape[axis..]).ok_or_else(too_large)?;
    reshaped(v, "input", vec![rows, cols])
}

/// The axes of a Squeeze or Unsqueeze: the input from version 13, the attribute before.
/// Negative entries are refused before version 11; `rank` is what they count from.
fn listed_axes(v: &Validated<'_>, rank: usize) -> Result<Option<Vec<usize>>, Error> {
    let Some(axes) = v.int_list("axes")? else { return Ok(None) };
    if let Some((i, a)) = axes.iter().enumerate().find(|(_, a)| **a < 0 && v.version < 11) {
        return Err(Error::rule(
            v.op(),
            "negative_axes_from_11",
            format!("axes[{i}] = {a}: negative axes exist from version 11, this request is version {}", v.version),
        )
        .about_name("axes"));
    }
    super::resolve_axes(v.op(), &axes, rank, "axis_in_range").map(Some)
}

pub(super) fn squeeze(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let shape = data_input(v, "data")?.shape().to_vec();
    let removed: Vec<bool> = match listed_axes(v, shape.len())? {
        None => shape.iter().map(|&d| d == 1).collect(),
        Some(axes) => {
            let mut removed = vec![false; shape.len()];
            for (i, &k) in axes.iter().enumerate() {
                if shape[k] != 1 {
                    return Err(Error::rule(
                        op,
                        "squeezed_dim_is_one",
                        format!("axes[{i}] names axis {k}, of extent {} (only axes of extent 1 squeeze)", shape[k]),
                    )
                    .about_name("axes")
                    .on_axis(k));
                }
                removed[k] = true;
            }
            removed
        }
    };
    let out = shape.iter().zip(&removed).filter(|(_, r)| !**r).map(|(&d, _)| d).collect();
    reshaped(v, "data", out)
}

pub(super) fn unsqueeze(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let shape = data_input(v, "data")?.shape().to_vec();
    let given = v.int_list("axes")?.map(|a| a.len()).ok_or_else(|| {
        Error::rule(op, "axes_given", format!("`axes` is required (version {})", v.version)).about_name("axes")
    })?;
    let rank = shape.len() + given;
    let axes = listed_axes(v, rank)?.unwrap_or_default();
    let mut inserted = vec![false; rank];
    for &k in &axes {
        inserted[k] = true;
    }
    let mut dims = shape.iter();
    let out = inserted.iter().map(|&new| if new { 1 } else { dims.next().copied().unwrap_or(1) }).collect();
    reshaped(v, "data", out)
}

pub(super) fn identity(v: &Validated<'_>) -> Result<Plan, Error> {
    let shape = data_input(v, "input")?.shape().to_vec();
    reshaped(v, "input", shape)
}

pub(super) fn expand(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let data = data_input(v, "input")?;
    let shape = data.shape().to_vec();
    let Some(target) = v.int_list("shape")? else {
        return Err(Error::MissingInput { op: op.to_string(), name: "shape".into() });
    };
    let rank = shape.len().max(target.len());
    let source = aligned(&shape, rank);
    let mut reads = Vec::with_capacity(rank);
    for (k, &d) in source.iter().enumerate() {
        let t = match (k + target.len()).checked_sub(rank) {
            None => 1,
            Some(i) => u64::try_from(target[i]).map_err(|_| {
                Error::rule(op, "shapes_broadcast", format!("shape[{i}] = {} is negative", target[i]))
                    .about_name("shape")
            })?,
        };
        reads.push(match (d, t) {
            _ if d == t || t == 1 => AxisRead { extent: d, start: 0, step: 1 },
            (1, _) => AxisRead { extent: t, start: 0, step: 0 },
            _ => {
                return Err(Error::rule(
                    op,
                    "shapes_broadcast",
                    format!("output axis {k}: the input's dim {d} and the shape's dim {t} differ and neither is 1"),
                )
                .about_name("shape")
                .on_axis(k));
            }
        });
    }
    in_order(data.dtype(), shape, source, reads, BoundaryMode::StrictBounds)
}

pub(super) fn tile(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let data = data_input(v, "input")?;
    let shape = data.shape().to_vec();
    let Some(repeats) = v.int_list("repeats")? else {
        return Err(Error::MissingInput { op: op.to_string(), name: "repeats".into() });
    };
    if repeats.len() != shape.len() {
        return Err(Error::rule(
            op,
            "repeats_per_axis",
            format!("repeats has {} entries for an input of rank {}", repeats.len(), shape.len()),
        )
        .about_name("repeats"));
    }
    let repeats = repeats
        .iter()
        .enumerate()
        .map(|(k, &r)| {
            u64::try_from(r).map_err(|_| {
                Error::rule(op, "repeats_non_negative", format!("repeats[{k}] = {r} is negative"))
                    .about_name("repeats")
                    .on_axis(k)
            })
        })
        .collect::<Result<Vec<u64>, Error>>()?;
    tiled(data.dtype(), shape.clone(), shape, &repeats)
}

/// The [N, C, H, W] input of DepthToSpace and SpaceToDepth, and the block side.
fn image(v: &Validated<'_>) -> Result<([u64; 4], u64), Error> {
    let op = v.op();
    let shape = data_input(v, "input")?.shape().to_vec();
    let nchw: [u64; 4] = shape.as_slice().try_into().map_err(|_| {
        Error::rule(op, "input_rank_4", format!("input has shape {shape:?}, of rank {}, not [N, C, H, W]", shape.len()))
            .about_name("input")
    })?;
    let b = int_attr(v, "blocksize").unwrap_or(0);
    let b = u64::try_from(b).ok().filter(|&b| b >= 1).ok_or_else(|| {
        Error::rule(op, "blocksize_divides", format!("blocksize = {b} is below 1")).about_name("blocksize")
    })?;
    Ok((nchw, b))
}

pub(super) fn depth_to_space(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let ([n, c, h, w], b) = image(v)?;
    let bb = b.checked_mul(b).filter(|&bb| c % bb == 0).ok_or_else(|| {
        Error::rule(op, "blocksize_divides", format!("C = {c} is not divisible by blocksize² = {b}²"))
            .about_name("blocksize")
    })?;
    let c2 = c / bb;
    // ONNX's function bodies: DCR reads the channels as (i, j, c), CRD as (c, i, j).
    let (source, order) = match v.attr_str("mode").unwrap_or("DCR") {
        "CRD" => (vec![n, c2, b, b, h, w], vec![0, 1, 4, 2, 5, 3]),
        _ => (vec![n, b, b, c2, h, w], vec![0, 3, 4, 1, 5, 2]),
    };
    permuted(v, "input", source, order, vec![n, c2, h * b, w * b])
}

pub(super) fn space_to_depth(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let ([n, c, h, w], b) = image(v)?;
    if h % b != 0 || w % b != 0 {
        return Err(Error::rule(
            op,
            "blocksize_divides",
            format!("H = {h} and W = {w} are not both divisible by blocksize = {b}"),
        )
        .about_name("blocksize"));
    }
    let (h2, w2) = (h / b, w / b);
    let source = vec![n, c, h2, b, w2, b];
    // ONNX's function bodies: DCR writes the channels as (i, j, c), CRD as (c, i, j).
    let order = match v.attr_str("mode").unwrap_or("DCR") {
        "CRD" => vec![0, 1, 3, 5, 2, 4],
        _ => vec![0, 3, 5, 1, 2, 4],
    };
    permuted(v, "input", source, order, vec![n, c * b * b, h2, w2])
}

pub(super) fn openvino_transpose(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let shape = data_input(v, "arg")?.shape().to_vec();
    let rank = shape.len();
    let order = v.int_list("input_order")?.unwrap_or_default();
    let perm: Vec<usize> = if order.is_empty() {
        (0..rank).rev().collect()
    } else {
        let mut seen = vec![false; rank];
        let fresh = |&k: &usize| k < rank && !std::mem::replace(&mut seen[k], true);
        let perm: Vec<usize> = order.iter().map(|&k| usize::try_from(k).unwrap_or(usize::MAX)).collect();
        if perm.len() != rank || !perm.iter().all(fresh) {
            return Err(Error::rule(
                op,
                "order_is_permutation",
                format!("input_order {order:?} does not hold every axis of [0, {}] once", rank as i64 - 1),
            )
            .about_name("input_order"));
        }
        perm
    };
    let output_shape = perm.iter().map(|&k| shape[k]).collect();
    permuted(v, "arg", shape, perm, output_shape)
}

pub(super) fn openvino_tile(v: &Validated<'_>) -> Result<Plan, Error> {
    let data = data_input(v, "data")?;
    let shape = data.shape().to_vec();
    let repeats = v.int_list("repeats")?.unwrap_or_default();
    // np.tile's promotion: both aligned at the back, the shorter padded with 1s.
    let rank = shape.len().max(repeats.len());
    // A negative repeat is 0.
    let repeats: Vec<u64> = repeats.iter().map(|&r| r.max(0) as u64).collect();
    tiled(data.dtype(), shape.clone(), aligned(&shape, rank), &aligned(&repeats, rank))
}

pub(super) fn openvino_roll(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let data = data_input(v, "data")?;
    let shape = data.shape().to_vec();
    let rank = shape.len();
    let shift = v.int_list("shift")?.unwrap_or_default();
    let axes = v.int_list("axes")?.unwrap_or_default();
    let scalar_shift = v.input("shift").is_some_and(|s| s.shape().is_empty());
    if !scalar_shift && shift.len() != axes.len() {
        return Err(Error::rule(
            op,
            "shift_axes_length",
            format!("shift has {} entries for {} axes", shift.len(), axes.len()),
        )
        .about_name("shift"));
    }
    let mut total = vec![0i128; rank];
    for (i, &a) in axes.iter().enumerate() {
        let k = super::normalize_axis(a, rank).ok_or_else(|| {
            Error::rule(op, "axis_in_range", format!("axes[{i}] = {a} is outside [-{rank}, {}]", rank as i64 - 1))
                .about_name("axes")
        })?;
        // Repeated axes add their shifts.
        total[k] += shift[if scalar_shift { 0 } else { i }] as i128;
    }
    // Element x moves to x + s: output position y reads y - s, a wrap read.
    let reads = shape
        .iter()
        .zip(&total)
        .map(|(&d, &s)| AxisRead {
            extent: d,
            start: if d == 0 { 0 } else { (-s).rem_euclid(d as i128) as i64 },
            step: 1,
        })
        .collect();
    in_order(data.dtype(), shape.clone(), shape, reads, BoundaryMode::Wrap)
}
