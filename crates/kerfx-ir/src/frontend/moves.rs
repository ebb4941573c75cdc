//! The ops that move axes: ONNX Transpose, Reshape, Flatten, Squeeze, Unsqueeze, Identity,
//! Expand, Tile, DepthToSpace and SpaceToDepth; OpenVINO Transpose, Tile, Roll, Broadcast,
//! DepthToSpace, SpaceToDepth, Reshape, Squeeze and Unsqueeze; TensorRT Shuffle.
//! Each lowers to one plan: the input read as a source shape (a row-major reshape), each
//! source axis read whole (or broadcast, or wrapped around for Tile and Roll), the core axes in a
//! permuted order, the core reshaped into the output shape.

use super::data_input;
use crate::chain::ChainRequest;
use crate::error::Error;
use crate::plan::{AxisRead, BoundaryMode, Plan, Step};
use crate::request::{AttrValue, Request, Validated};
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
    let mut plan = Step {
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
    Ok(Plan::Step(plan))
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

/// An integer attribute's value (`None` when absent: the spec's default is then the
/// frontend's to apply).
pub(super) fn int_attr(v: &Validated<'_>, name: &str) -> Option<i64> {
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
    let out = reshape_target(op, "shape", &input, &target, !allowzero)?;
    reshaped(v, "data", out)
}

/// The shape a Reshape's `target` (the list `name`) gives a tensor of `input`'s volume:
/// one -1 inferred, a 0 copying `input`'s dim at its index when `zero_copies` (else an
/// empty axis). The rules are ONNX Reshape's, which OpenVINO Reshape and TensorRT
/// Shuffle share: `one_inferred_dim`, `zero_copies_existing_dim`, `no_zero_with_inferred`,
/// `volume_preserved`.
fn reshape_target(op: &str, name: &str, input: &[u64], target: &[i64], zero_copies: bool) -> Result<Vec<u64>, Error> {
    let rule = |id: &str, what: String| Error::rule(op, id, what).about_name(name);
    let mut inferred: Option<usize> = None;
    let mut out: Vec<u64> = Vec::with_capacity(target.len());
    for (i, &d) in target.iter().enumerate() {
        out.push(match d {
            -1 => {
                if let Some(first) = inferred.replace(i) {
                    return Err(rule("one_inferred_dim", format!("{name}[{first}] and {name}[{i}] are both -1")));
                }
                1
            }
            0 if zero_copies => *input.get(i).ok_or_else(|| {
                rule(
                    "zero_copies_existing_dim",
                    format!(
                        "{name}[{i}] = 0 copies the input's dim {i}, but the input {input:?} has rank {}",
                        input.len()
                    ),
                )
            })?,
            d if d < -1 => return Err(rule("one_inferred_dim", format!("{name}[{i}] = {d} is below -1"))),
            d => d as u64,
        });
    }
    let in_volume = volume(input).ok_or_else(|| Error::TooLarge { what: format!("an input of shape {input:?}") })?;
    if let Some(i) = inferred {
        let rest = out.iter().enumerate().filter(|&(k, _)| k != i).try_fold(1u64, |acc, (_, &d)| acc.checked_mul(d));
        match rest {
            Some(0) => {
                return Err(rule(
                    "no_zero_with_inferred",
                    format!("{name}[{i}] = -1 cannot be inferred: the other dims {out:?} multiply to 0"),
                ));
            }
            Some(rest) if in_volume.is_multiple_of(rest) => out[i] = in_volume / rest,
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
            format!("{name} {out:?} does not hold the input {input:?}'s {in_volume} elements"),
        ));
    }
    Ok(out)
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

/// One output axis of a broadcast: data dim `d` against target dim `t`. Equal dims read
/// whole, a data dim of 1 broadcasts (step 0, to any t, 0 too); with `both_ways` a target
/// dim of 1 keeps the data's (numpy: [0] with [1] is [0]).
fn broadcast_read(op: &str, k: usize, d: u64, t: u64, both_ways: bool) -> Result<AxisRead, Error> {
    match (d, t) {
        _ if d == t || (both_ways && t == 1) => Ok(AxisRead { extent: d, start: 0, step: 1 }),
        (1, _) => Ok(AxisRead { extent: t, start: 0, step: 0 }),
        _ => Err(Error::rule(
            op,
            "shapes_broadcast",
            format!("output axis {k}: the data's dim {d} and the target's dim {t} differ and the data's is not 1"),
        )
        .about_name("target_shape")
        .on_axis(k)),
    }
}

pub(super) fn openvino_broadcast(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let data = data_input(v, "data")?;
    let shape = data.shape().to_vec();
    let rank = shape.len();
    let Some(target) = v.int_list("target_shape")? else {
        return Err(Error::MissingInput { op: op.to_string(), name: "target_shape".into() });
    };
    let mode = v.attr_str("mode").unwrap_or("numpy");
    if mode == "bidirectional" && v.version < 3 {
        return Err(Error::rule(
            op,
            "bidirectional_from_3",
            format!("mode \"bidirectional\" exists from version 3; this request is version {}", v.version),
        )
        .about_name("mode"));
    }
    let target = target
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            u64::try_from(t).map_err(|_| {
                Error::rule(op, "shapes_broadcast", format!("target_shape[{i}] = {t} is negative"))
                    .about_name("target_shape")
            })
        })
        .collect::<Result<Vec<u64>, Error>>()?;
    let mapping = v.int_list("axes_mapping")?;
    let mapping_rule = |what: String| Error::rule(op, "axes_mapping_length", what).about_name("axes_mapping");
    let (source, reads) = match mode {
        "explicit" => {
            let mapping = mapping.ok_or_else(|| mapping_rule("explicit mode needs axes_mapping".into()))?;
            if mapping.len() != rank {
                return Err(mapping_rule(format!(
                    "axes_mapping has {} entries for data of rank {rank} (one output axis per data axis)",
                    mapping.len()
                )));
            }
            // Data axis i sits at output axis mapping[i]; the others are new unit axes: the
            // mapping increasing, that source is a reshape of the data.
            let mut source = vec![1u64; target.len()];
            let mut below = -1i64;
            for (i, &a) in mapping.iter().enumerate() {
                if a <= below || a >= target.len() as i64 {
                    return Err(Error::rule(
                        op,
                        "axes_mapping_increasing",
                        format!(
                            "axes_mapping[{i}] = {a}: entries increase strictly and lie in [0, {}] (target_shape has rank {})",
                            target.len() as i64 - 1,
                            target.len()
                        ),
                    )
                    .about_name("axes_mapping"));
                }
                source[a as usize] = shape[i];
                below = a;
            }
            let reads = (source.iter().zip(&target).enumerate())
                .map(|(k, (&d, &t))| broadcast_read(op, k, d, t, false))
                .collect::<Result<Vec<_>, Error>>()?;
            (source, reads)
        }
        _ => {
            if let Some(m) = &mapping {
                return Err(mapping_rule(format!(
                    "axes_mapping {m:?} is given in mode \"{mode}\"; only explicit mode takes it"
                )));
            }
            let both_ways = mode == "bidirectional";
            if !both_ways && target.len() < rank {
                return Err(Error::rule(
                    op,
                    "target_rank",
                    format!(
                        "target_shape {target:?} has rank {}, below the data's {rank}: numpy mode broadcasts one way",
                        target.len()
                    ),
                )
                .about_name("target_shape"));
            }
            let out_rank = rank.max(target.len());
            let source = aligned(&shape, out_rank);
            let reads = (source.iter().zip(aligned(&target, out_rank)).enumerate())
                .map(|(k, (&d, t))| broadcast_read(op, k, d, t, both_ways))
                .collect::<Result<Vec<_>, Error>>()?;
            (source, reads)
        }
    };
    in_order(data.dtype(), shape, source, reads, BoundaryMode::StrictBounds)
}

/// The [N, C, D1, ..., Dk] data of OpenVINO's DepthToSpace and SpaceToDepth (k ≥ 1), and
/// the block side.
fn blocks(v: &Validated<'_>) -> Result<(Vec<u64>, u64), Error> {
    let op = v.op();
    let shape = data_input(v, "data")?.shape().to_vec();
    if shape.len() < 3 {
        return Err(Error::rule(
            op,
            "data_rank_at_least_3",
            format!("data has shape {shape:?}, of rank {}, not [N, C, D1, ..., Dk] with k >= 1", shape.len()),
        )
        .about_name("data"));
    }
    let b = int_attr(v, "block_size").unwrap_or(1);
    let b = u64::try_from(b).ok().filter(|&b| b >= 1).ok_or_else(|| {
        Error::rule(op, "block_size_divides", format!("block_size = {b} is below 1")).about_name("block_size")
    })?;
    Ok((shape, b))
}

pub(super) fn openvino_depth_to_space(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let (shape, b) = blocks(v)?;
    let (n, c, spatial) = (shape[0], shape[1], &shape[2..]);
    let k = spatial.len();
    let bk = b.checked_pow(k as u32).filter(|&bk| c.is_multiple_of(bk)).ok_or_else(|| {
        Error::rule(op, "block_size_divides", format!("C = {c} is not divisible by block_size^{k} = {b}^{k}"))
            .about_name("block_size")
    })?;
    let c2 = c / bk;
    let blocks = std::iter::repeat_n(b, k);
    // blocks_first reads the channels as (b, ..., b, C'), depth_first as (C', b, ..., b);
    // each spatial axis is followed by its block offset.
    let (source, order): (Vec<u64>, Vec<usize>) = match v.attr_str("mode").unwrap_or("blocks_first") {
        "depth_first" => (
            [n, c2].into_iter().chain(blocks).chain(spatial.iter().copied()).collect(),
            [0, 1].into_iter().chain((0..k).flat_map(|i| [k + 2 + i, 2 + i])).collect(),
        ),
        _ => (
            std::iter::once(n).chain(blocks).chain([c2]).chain(spatial.iter().copied()).collect(),
            [0, k + 1].into_iter().chain((0..k).flat_map(|i| [k + 2 + i, 1 + i])).collect(),
        ),
    };
    let mut out = vec![n, c2];
    for &d in spatial {
        out.push(d.checked_mul(b).ok_or_else(|| Error::TooLarge { what: format!("a spatial dim {d} × {b}") })?);
    }
    permuted(v, "data", source, order, out)
}

pub(super) fn openvino_space_to_depth(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let (shape, b) = blocks(v)?;
    let (n, c, spatial) = (shape[0], shape[1], &shape[2..]);
    let k = spatial.len();
    if let Some(i) = spatial.iter().position(|d| !d.is_multiple_of(b)) {
        return Err(Error::rule(
            op,
            "block_size_divides",
            format!("spatial dim {} = {} is not divisible by block_size = {b}", i + 2, spatial[i]),
        )
        .about_name("block_size")
        .on_axis(i + 2));
    }
    // [N, C, D1/b, b, ..., Dk/b, b]: block offset i at source axis 3 + 2i.
    let source: Vec<u64> = [n, c].into_iter().chain(spatial.iter().flat_map(|&d| [d / b, b])).collect();
    let offsets = (0..k).map(|i| 3 + 2 * i);
    let cells = (0..k).map(|i| 2 + 2 * i);
    let order: Vec<usize> = match v.attr_str("mode").unwrap_or("blocks_first") {
        "depth_first" => [0, 1].into_iter().chain(offsets).chain(cells).collect(),
        _ => std::iter::once(0).chain(offsets).chain([1]).chain(cells).collect(),
    };
    let channels = b
        .checked_pow(k as u32)
        .and_then(|bk| c.checked_mul(bk))
        .ok_or_else(|| Error::TooLarge { what: format!("C = {c} × block_size^{k} = {b}^{k}") })?;
    let out = [n, channels].into_iter().chain(spatial.iter().map(|&d| d / b)).collect();
    permuted(v, "data", source, order, out)
}

pub(super) fn openvino_reshape(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let input = data_input(v, "data")?.shape().to_vec();
    let Some(target) = v.int_list("shape")? else {
        return Err(Error::MissingInput { op: op.to_string(), name: "shape".into() });
    };
    let special_zero = v.attr_bool("special_zero").unwrap_or(false);
    let out = reshape_target(op, "shape", &input, &target, special_zero)?;
    reshaped(v, "data", out)
}

pub(super) fn openvino_squeeze(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let shape = data_input(v, "data")?.shape().to_vec();
    let rank = shape.len();
    let axes = v.int_list("axes")?.unwrap_or_default();
    // Empty or omitted axes: every unit axis; a listed axis of another extent is kept, a
    // repeated one is squeezed once.
    let mut removed: Vec<bool> = shape.iter().map(|&d| d == 1 && axes.is_empty()).collect();
    for (i, &a) in axes.iter().enumerate() {
        let k = super::normalize_axis(a, rank).ok_or_else(|| {
            Error::rule(op, "axis_in_range", format!("axes[{i}] = {a} is outside [-{rank}, {}]", rank as i64 - 1))
                .about_name("axes")
        })?;
        removed[k] |= shape[k] == 1;
    }
    let out = shape.iter().zip(&removed).filter(|(_, r)| !**r).map(|(&d, _)| d).collect();
    reshaped(v, "data", out)
}

pub(super) fn openvino_unsqueeze(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let shape = data_input(v, "data")?.shape().to_vec();
    let axes = v.int_list("axes")?.unwrap_or_default();
    let mut distinct = axes.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let rank = shape.len() + distinct.len();
    // The entry that named each output axis first.
    let mut named: Vec<Option<i64>> = vec![None; rank];
    for (i, &a) in axes.iter().enumerate() {
        let k = super::normalize_axis(a, rank).ok_or_else(|| {
            Error::rule(
                op,
                "axis_in_range",
                format!("axes[{i}] = {a} is outside [-{rank}, {}] for an output of rank {rank}", rank as i64 - 1),
            )
            .about_name("axes")
        })?;
        match named[k].replace(a) {
            Some(b) if b != a => {
                return Err(Error::rule(
                    op,
                    "axes_distinct",
                    format!("axes[{i}] = {a} names output axis {k}, as {b} does (an output of rank {rank})"),
                )
                .about_name("axes")
                .on_axis(k));
            }
            _ => {}
        }
    }
    let mut dims = shape.iter();
    let out = named.iter().map(|new| if new.is_some() { 1 } else { dims.next().copied().unwrap_or(1) }).collect();
    reshaped(v, "data", out)
}

/// A TensorRT permutation `name` of `rank` axes (numpy's convention); omitted: the identity.
fn trt_permutation(v: &Validated<'_>, name: &str, rule: &str, rank: usize) -> Result<Vec<usize>, Error> {
    let Some(order) = v.int_list(name)? else { return Ok((0..rank).collect()) };
    let mut seen = vec![false; rank];
    let fresh = |&k: &usize| k < rank && !std::mem::replace(&mut seen[k], true);
    let perm: Vec<usize> = order.iter().map(|&k| usize::try_from(k).unwrap_or(usize::MAX)).collect();
    if perm.len() != rank || !perm.iter().all(fresh) {
        return Err(Error::rule(
            v.op(),
            rule,
            format!("{name} {order:?} does not hold every axis of [0, {}] once", rank as i64 - 1),
        )
        .about_name(name));
    }
    Ok(perm)
}

/// A TensorRT Shuffle's parts: the input's shape, the first transpose, the reshaped
/// shape (the transposed one when there is no reshape) and the second transpose.
type ShuffleParts = (Vec<u64>, Vec<usize>, Vec<u64>, Vec<usize>);

fn shuffle_parts(v: &Validated<'_>) -> Result<ShuffleParts, Error> {
    let op = v.op();
    let shape = data_input(v, "input")?.shape().to_vec();
    let first = trt_permutation(v, "first_transpose", "first_transpose_is_permutation", shape.len())?;
    let transposed: Vec<u64> = first.iter().map(|&k| shape[k]).collect();
    let reshaped = match v.int_list("reshape_dims")? {
        None => transposed,
        // A 0 placeholder copies the dim of the layer's input, not of the transposed tensor.
        Some(dims) => {
            let placeholder = v.attr_bool("zero_is_placeholder").unwrap_or(true);
            reshape_target(op, "reshape_dims", &shape, &dims, placeholder)?
        }
    };
    let second = trt_permutation(v, "second_transpose", "second_transpose_is_permutation", reshaped.len())?;
    Ok((shape, first, reshaped, second))
}

pub(super) fn tensorrt_shuffle(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let (shape, first, reshaped, second) = shuffle_parts(v)?;
    let out: Vec<u64> = second.iter().map(|&j| reshaped[j]).collect();
    match shuffle_reading(&shape, &first, &reshaped, &second) {
        Some((source, order)) => permuted(v, "input", source, order, out),
        None => flat_shuffle(v, op, &shape, &first, &reshaped, &second, out),
    }
}

/// A Shuffle whose reshape regroups factors its second transpose separates, which no
/// reading of the input's axes says: the input read flat, through the list of the flat
/// input position each output element takes (a gather of every element: as many
/// coordinates as elements, computed here once). kerf's run functions (`kerf run`,
/// `run_reference`, `run_jit`, Python's `kerfx.run`) run such a Shuffle as two kernels
/// instead ([`shuffle_chain`]), which need no list; a derived or compiled kernel, being one
/// kernel, takes this.
fn flat_shuffle(
    v: &Validated<'_>,
    op: &str,
    shape: &[u64],
    first: &[usize],
    reshaped: &[u64],
    second: &[usize],
    out: Vec<u64>,
) -> Result<Plan, Error> {
    let data = data_input(v, "input")?;
    // (Validated: the volume is the data's, which fits memory.)
    let n = volume(shape).unwrap_or(0);
    let mut coords: Vec<i64> = Vec::new();
    coords.try_reserve_exact(n as usize).map_err(|_| Error::TooLarge {
        what: format!("{op}: a list of {n} flat input positions (one per element, for one kernel)"),
    })?;
    let transposed: Vec<u64> = first.iter().map(|&k| shape[k]).collect();
    let strides = crate::tensor::row_major_strides;
    let (in_strides, reshaped_strides) = (strides(shape), strides(reshaped));
    let mut y = vec![0u64; out.len()];
    let mut t = vec![0u64; transposed.len()];
    for i in 0..n {
        // The output element's index, back through the second transpose to the reshaped
        // tensor's flat position (the transposed tensor's), then through the first
        // transpose to the input's flat position.
        crate::reference::unravel(i, &out, &mut y);
        let flat: u64 = second.iter().zip(&y).map(|(&j, &yj)| yj * reshaped_strides[j]).sum();
        crate::reference::unravel(flat, &transposed, &mut t);
        let x: u64 = first.iter().zip(&t).map(|(&k, &tk)| tk * in_strides[k]).sum();
        coords.push(x as i64);
    }
    let mut plan = Step {
        dtype: data.dtype(),
        input_shape: shape.to_vec(),
        source_shape: Vec::new(),
        axes: vec![AxisRead { extent: n, start: 0, step: 1 }],
        order: Vec::new(),
        mode: BoundaryMode::StrictBounds,
        fill_bits: 0,
        output_shape: out,
        windows: Vec::new(),
        gathered: Some(crate::plan::Gathered { axis: 0, coords: coords.into() }),
    };
    plan.set_reading(vec![n], Vec::new());
    Ok(Plan::Step(plan))
}

/// A Shuffle no single plan can express, as two shuffles: its first transpose and
/// reshape, then its second transpose. `None` when it is one plan.
pub(super) fn shuffle_chain(v: &Validated<'_>, request: &Request) -> Result<Option<ChainRequest>, Error> {
    let (shape, first, reshaped, second) = shuffle_parts(v)?;
    if shuffle_reading(&shape, &first, &reshaped, &second).is_some() {
        return Ok(None);
    }
    let mut head = request.clone();
    head.attributes.remove("second_transpose");
    let second: Vec<i64> = second.iter().map(|&j| j as i64).collect();
    let tail = Request::new(v.op()).version(v.version).attr("first_transpose", second);
    Ok(Some(ChainRequest { steps: vec![head, tail] }))
}

/// Transpose by `first`, reshape to `reshaped`, transpose by `second`, as one reading of
/// `shape`: the source (runs of input axes the first transpose keeps together, each split
/// into the factors the reshape cuts it into) and the order of the core axes; the output
/// shape is then a reshape of the core.
///
/// The cuts: the flat positions where a run of the transposed tensor ends, and where an
/// axis of `reshaped` ends when that falls on a whole factor of a run. A run of reshaped
/// axes between two shared cuts is a cluster (one axis, or several whose ends cut no
/// factor); the second transpose may reorder clusters but must keep each cluster's axes
/// together and in order. `None` when it does not (then no single reading exists). Unit
/// axes are reshapes and take no part; a tensor of at most one element reads as it is.
fn shuffle_reading(
    shape: &[u64],
    first: &[usize],
    reshaped: &[u64],
    second: &[usize],
) -> Option<(Vec<u64>, Vec<usize>)> {
    if volume(shape).is_none_or(|n| n <= 1) {
        return Some((shape.to_vec(), (0..shape.len()).collect()));
    }
    let nonunit: Vec<usize> = (0..shape.len()).filter(|&k| shape[k] > 1).collect();
    let rank_of = |k: usize| nonunit.iter().position(|&x| x == k);
    // Runs of the transposed tensor's non-unit axes that are consecutive input axes:
    // (first input axis, non-unit axes in the run, volume).
    let mut runs: Vec<(usize, usize, u128)> = Vec::new();
    let mut prev: Option<usize> = None;
    for &k in first.iter().filter(|&&k| shape[k] > 1) {
        let r = rank_of(k)?;
        match runs.last_mut() {
            Some(run) if prev == Some(r.wrapping_sub(1)) => {
                run.1 += 1;
                run.2 *= shape[k] as u128;
            }
            _ => runs.push((k, 1, shape[k] as u128)),
        }
        prev = Some(r);
    }
    let r_axes: Vec<usize> = (0..reshaped.len()).filter(|&j| reshaped[j] > 1).collect();
    let mut r_ends = Vec::with_capacity(r_axes.len());
    let mut acc = 1u128;
    for &j in &r_axes {
        acc *= reshaped[j] as u128;
        r_ends.push(acc);
    }
    // Each run cut into factors at the reshaped ends inside it that divide.
    let mut factors: Vec<Vec<u64>> = Vec::with_capacity(runs.len());
    let mut cuts: Vec<u128> = Vec::new();
    let mut begin = 1u128;
    for &(_, _, size) in &runs {
        let end = begin * size;
        let mut last = begin;
        let mut f = Vec::new();
        for &r in r_ends.iter().filter(|&&r| r > begin && r < end) {
            if r.is_multiple_of(last) && end.is_multiple_of(r) {
                f.push((r / last) as u64);
                cuts.push(r);
                last = r;
            }
        }
        f.push((end / last) as u64);
        cuts.push(end);
        factors.push(f);
        begin = end;
    }
    // Clusters: runs of reshaped (non-unit) axes between shared cuts, each the factors
    // (numbered in transposed order) it covers.
    let mut cluster_of = vec![0usize; r_axes.len()];
    let mut cluster_factors: Vec<std::ops::Range<usize>> = Vec::new();
    let mut from = 0usize;
    for (a, end) in r_ends.iter().enumerate() {
        cluster_of[a] = cluster_factors.len();
        if let Ok(i) = cuts.binary_search(end) {
            cluster_factors.push(from..i + 1);
            from = i + 1;
        }
    }
    // The second transpose over the non-unit axes: each cluster's axes together, in order.
    let mut clusters_in_order = Vec::new();
    let mut prev: Option<usize> = None;
    for &j in second.iter().filter(|&&j| reshaped[j] > 1) {
        let a = r_axes.iter().position(|&x| x == j)?;
        if a == 0 || cluster_of[a - 1] != cluster_of[a] {
            clusters_in_order.push(cluster_of[a]);
        } else if prev != Some(a - 1) {
            return None;
        }
        prev = Some(a);
    }
    // The source: the runs in input order, each as its factors.
    let mut first_factor = Vec::with_capacity(runs.len());
    let mut n = 0;
    for f in &factors {
        first_factor.push(n);
        n += f.len();
    }
    let mut by_input: Vec<usize> = (0..runs.len()).collect();
    by_input.sort_by_key(|&t| runs[t].0);
    let mut source = Vec::with_capacity(n);
    let mut source_of_factor = vec![0usize; n];
    for t in by_input {
        for (i, &f) in factors[t].iter().enumerate() {
            source_of_factor[first_factor[t] + i] = source.len();
            source.push(f);
        }
    }
    let order =
        clusters_in_order.iter().flat_map(|&c| cluster_factors[c].clone().map(|f| source_of_factor[f])).collect();
    Some((source, order))
}
