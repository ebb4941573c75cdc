//! The gathers: ONNX Gather and GatherElements, OpenVINO Gather (1, 7, 8) and TensorRT
//! Gather (modes default, element and nd). Each lowers to one plan whose gathered axis
//! reads a list of coordinates ([`crate::plan::Gathered`]), one per index: a plain gather
//! reads the data as it is, its gathered axis through the normalized indices and every
//! other axis whole; a gather over batch dims, GatherElements and GatherND read the data
//! with its leading axes merged into one, whose coordinate each index names together with
//! the batch (and other) positions it belongs to. The indices are checked here, where the
//! vendor's rule is known: an error naming the index, or — OpenVINO Gather-8 — a
//! coordinate outside the axis, which the plan's fill mode turns into a zero.

use super::moves::int_attr;
use super::{data_input, normalize_axis};
use crate::error::Error;
use crate::plan::{AxisRead, BoundaryMode, Gathered, Plan, Step};
use crate::request::{Validated, input_ints};
use crate::tensor::volume;

/// The values of index input `name` and its shape.
fn index_input(v: &Validated<'_>, name: &str) -> Result<(Vec<i64>, Vec<u64>), Error> {
    let input = data_input(v, name)?;
    Ok((input_ints(v.op(), name, input)?, input.shape().to_vec()))
}

/// How a vendor reads an index `i` of an axis of `d` elements.
#[derive(Clone, Copy)]
enum Indexing {
    /// In [-d, d-1], negative ones counting from the end; others an error.
    Signed,
    /// In [0, d-1]; others an error.
    Unsigned,
    /// In [-d, d-1] as `Signed`; others read as zero (OpenVINO Gather-8).
    SignedOrZero,
}

/// The coordinate index `i` (the `at`-th of the indices) reads, or `None` for a zero; an
/// error naming the index where the vendor refuses it.
fn coordinate(op: &str, indexing: Indexing, at: usize, i: i64, d: u64, axis: usize) -> Result<Option<u64>, Error> {
    let d_i = d as i128;
    let i_w = i as i128;
    let signed = matches!(indexing, Indexing::Signed | Indexing::SignedOrZero);
    let z = if signed && (-d_i..0).contains(&i_w) { i_w + d_i } else { i_w };
    if (0..d_i).contains(&z) {
        return Ok(Some(z as u64));
    }
    let range = if signed { format!("[-{d}, {}]", d_i - 1) } else { format!("[0, {}]", d_i - 1) };
    match indexing {
        Indexing::SignedOrZero => Ok(None),
        _ => Err(Error::rule(
            op,
            "indices_in_range",
            format!("index {i} (element {at} of indices) is outside {range}: axis {axis} of the data has {d} elements"),
        )
        .about_name("indices")
        .on_axis(axis)),
    }
}

/// The plan of a gather: the input read as `source` (a row-major reshape of it), source
/// axis `axis` through `coords` (`None`: a zero), every other axis whole, the core in
/// source order reshaped into `output_shape`. A vendor whose gathers may read zeros
/// (`indexing`) plans in fill mode whatever the indices, so that one dynamic kernel runs
/// every call of that op, dtype and rank.
fn gathered(
    dtype: crate::DType,
    input_shape: Vec<u64>,
    source: Vec<u64>,
    axis: usize,
    coords: Vec<Option<u64>>,
    output_shape: Vec<u64>,
    indexing: Indexing,
) -> Result<Plan, Error> {
    let zeros = matches!(indexing, Indexing::SignedOrZero);
    // A zero reads coordinate -1, outside every axis: the fill value (0) in fill mode.
    let coords: Vec<i64> = coords.into_iter().map(|c| c.map_or(-1, |c| c as i64)).collect();
    let axes = source
        .iter()
        .enumerate()
        .map(|(k, &d)| AxisRead { extent: if k == axis { coords.len() as u64 } else { d }, start: 0, step: 1 })
        .collect();
    let mut plan = Step {
        dtype,
        input_shape,
        source_shape: Vec::new(),
        axes,
        order: Vec::new(),
        mode: if zeros { BoundaryMode::Fill } else { BoundaryMode::StrictBounds },
        fill_bits: 0,
        output_shape,
        windows: Vec::new(),
        gathered: Some(Gathered { axis, coords: coords.into() }),
    };
    let order = (0..source.len()).collect();
    plan.set_reading(source, order);
    plan.validate()?;
    Ok(Plan::Step(plan))
}

/// The data axis `axis` names (negative from the back), or the rule's error.
fn data_axis(op: &str, axis: i64, rank: usize, name: &str) -> Result<usize, Error> {
    normalize_axis(axis, rank).ok_or_else(|| {
        Error::rule(
            op,
            "axis_in_range",
            format!("{name} = {axis} is outside [-{rank}, {}] for data of rank {rank}", rank as i64 - 1),
        )
        .about_name(name)
    })
}

/// A gather of axis `axis` by the indices, over `batch` leading batch dims (their extents
/// in data and indices equal, or — `broadcast` — one of them 1): the output is data's batch
/// dims, its dims up to `axis`, the indices' dims after the batch dims, data's dims after
/// `axis`. Without batch dims the data is read as it is; with them its axes up to `axis`
/// are merged into one, which each index's coordinate names with its batch position.
#[allow(clippy::too_many_arguments)]
fn gather_axis(
    op: &str,
    dtype: crate::DType,
    shape: &[u64],
    (idx, ishape): (&[i64], &[u64]),
    axis: usize,
    batch: usize,
    broadcast: bool,
    indexing: Indexing,
) -> Result<Plan, Error> {
    let d = shape[axis];
    let mut out_batch = Vec::with_capacity(batch);
    for k in 0..batch {
        let (a, b) = (shape[k], ishape[k]);
        let dim = match () {
            _ if a == b => a,
            _ if broadcast && (a == 1 || b == 1) => a.max(b),
            _ => {
                return Err(Error::rule(
                    op,
                    "batch_dims_match",
                    format!("batch dim {k}: data has {a} and indices {b} (they must be equal)"),
                )
                .about_name("indices")
                .on_axis(k));
            }
        };
        out_batch.push(dim);
    }
    let rest = &ishape[batch..];
    let output_shape: Vec<u64> =
        out_batch.iter().chain(&shape[batch..axis]).chain(rest).chain(&shape[axis + 1..]).copied().collect();
    let too_large = || Error::TooLarge { what: format!("{op}: an output of shape {output_shape:?}") };
    let out_len = volume(&output_shape).filter(|&n| n <= i64::MAX as u64).ok_or_else(too_large)?;
    let mut coords = Vec::new();
    if batch == 0 {
        coords.try_reserve_exact(idx.len()).map_err(|_| too_large())?;
        for (at, &i) in idx.iter().enumerate() {
            coords.push(coordinate(op, indexing, at, i, d, axis)?);
        }
        return gathered(dtype, shape.to_vec(), shape.to_vec(), axis, coords, output_shape, indexing);
    }
    // Leading axes [0, axis] merged: the positions run over (batch, between, index).
    let between: u64 = shape[batch..axis].iter().product();
    let per_batch: u64 = rest.iter().product();
    let batches = volume(&out_batch).unwrap_or(0);
    let n = if out_len == 0 { 0 } else { batches * between * per_batch };
    coords.try_reserve_exact(n as usize).map_err(|_| too_large())?;
    let mut b_at = vec![0u64; batch];
    for b in 0..if n == 0 { 0 } else { batches } {
        crate::reference::unravel(b, &out_batch, &mut b_at);
        // The batch position in the data and in the indices (a broadcast dim reads 0).
        let (mut b_data, mut b_idx) = (0u64, 0u64);
        for k in 0..batch {
            b_data = b_data * shape[k] + if shape[k] == 1 { 0 } else { b_at[k] };
            b_idx = b_idx * ishape[k] + if ishape[k] == 1 { 0 } else { b_at[k] };
        }
        for a in 0..between {
            for r in 0..per_batch {
                let at = (b_idx * per_batch + r) as usize;
                let z = coordinate(op, indexing, at, idx[at], d, axis)?;
                coords.push(z.map(|z| (b_data * between + a) * d + z));
            }
        }
    }
    let mut source = vec![shape[..=axis].iter().product::<u64>()];
    source.extend(&shape[axis + 1..]);
    gathered(dtype, shape.to_vec(), source, 0, coords, output_shape, indexing)
}

/// GatherElements: output element i reads data at i with its `axis` coordinate replaced
/// by the index at i. The data is read flat, each index naming one element. `same_dims`:
/// the indices' dims off the axis equal the data's (ONNX), else they may be smaller
/// (TensorRT, as onnxruntime).
fn gather_elements_plan(
    op: &str,
    dtype: crate::DType,
    shape: &[u64],
    (idx, ishape): (&[i64], &[u64]),
    axis: usize,
    same_dims: bool,
    indexing: Indexing,
) -> Result<Plan, Error> {
    let rank = shape.len();
    if ishape.len() != rank {
        return Err(Error::rule(
            op,
            "indices_rank",
            format!("indices of rank {} for data of rank {rank} (they must be equal)", ishape.len()),
        )
        .about_name("indices"));
    }
    for k in (0..rank).filter(|&k| k != axis) {
        let ok = if same_dims { ishape[k] == shape[k] } else { ishape[k] <= shape[k] };
        if !ok {
            let want = if same_dims { "equal to" } else { "at most" };
            return Err(Error::rule(
                op,
                "indices_dims",
                format!(
                    "indices dim {k} is {} and data's {}: off the axis it must be {want} the data's",
                    ishape[k], shape[k]
                ),
            )
            .about_name("indices")
            .on_axis(k));
        }
    }
    let too_large = || Error::TooLarge { what: format!("{op}: an output of shape {ishape:?}") };
    let mut coords = Vec::new();
    coords.try_reserve_exact(idx.len()).map_err(|_| too_large())?;
    let strides = crate::tensor::row_major_strides(shape);
    let mut at = vec![0u64; rank];
    for (n, &i) in idx.iter().enumerate() {
        crate::reference::unravel(n as u64, ishape, &mut at);
        let z = coordinate(op, indexing, n, i, shape[axis], axis)?;
        coords.push(z.map(|z| {
            at[axis] = z;
            at.iter().zip(&strides).map(|(a, s)| a * s).sum()
        }));
    }
    let source = vec![volume(shape).unwrap_or(0)];
    gathered(dtype, shape.to_vec(), source, 0, coords, ishape.to_vec(), indexing)
}

/// GatherND over `batch` batch dims: the indices' last dim q names q coordinates of the
/// data's dims after the batch dims; the output is the indices' dims but the last, then
/// data's dims after those q.
fn gather_nd_plan(
    op: &str,
    dtype: crate::DType,
    shape: &[u64],
    (idx, ishape): (&[i64], &[u64]),
    batch: usize,
    indexing: Indexing,
) -> Result<Plan, Error> {
    let rank = shape.len();
    let Some((&q, lead)) = ishape.split_last() else {
        return Err(Error::rule(op, "indices_rank", "nd mode takes indices of rank 1 or more").about_name("indices"));
    };
    let q_fits = usize::try_from(q).ok().filter(|&q| batch + q <= rank && lead.len() >= batch);
    let Some(q) = q_fits else {
        return Err(Error::rule(
            op,
            "indices_rank",
            format!(
                "indices of shape {ishape:?} name {q} coordinates after {batch} batch dims of data of rank {rank} (at most {})",
                rank.saturating_sub(batch)
            ),
        )
        .about_name("indices"));
    };
    for k in 0..batch {
        if shape[k] != ishape[k] {
            return Err(Error::rule(
                op,
                "batch_dims_match",
                format!("batch dim {k}: data has {} and indices {} (they must be equal)", shape[k], ishape[k]),
            )
            .about_name("indices")
            .on_axis(k));
        }
    }
    let output_shape: Vec<u64> = lead.iter().chain(&shape[batch + q..]).copied().collect();
    let too_large = || Error::TooLarge { what: format!("{op}: an output of shape {output_shape:?}") };
    volume(&output_shape).filter(|&n| n <= i64::MAX as u64).ok_or_else(too_large)?;
    let tuples = volume(lead).unwrap_or(0);
    let per_batch = volume(&lead[batch..]).unwrap_or(0);
    let named = &shape[batch..batch + q];
    let block: u64 = named.iter().product();
    let mut coords = Vec::new();
    coords.try_reserve_exact(tuples as usize).map_err(|_| too_large())?;
    for t in 0..if q == 0 || block > 0 { tuples } else { 0 } {
        let b = t.checked_div(per_batch).unwrap_or(0);
        let mut c = Some(b * block);
        let mut inner = block;
        for (j, &d) in named.iter().enumerate() {
            inner /= d;
            let at = (t * q as u64) as usize + j;
            let z = coordinate(op, indexing, at, idx[at], d, batch + j)?;
            c = c.zip(z).map(|(c, z)| c + z * inner);
        }
        coords.push(c);
    }
    if q > 0 && block == 0 && tuples > 0 {
        // Every index names a coordinate of an empty dim: out of range.
        let (j, &d) = named.iter().enumerate().find(|(_, d)| **d == 0).expect("an empty dim");
        coordinate(op, indexing, j, idx[j], d, batch + j)?;
    }
    let mut source = vec![shape[..batch + q].iter().product::<u64>()];
    source.extend(&shape[batch + q..]);
    gathered(dtype, shape.to_vec(), source, 0, coords, output_shape, indexing)
}

pub(super) fn onnx_gather(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let data = data_input(v, "data")?;
    let shape = data.shape().to_vec();
    let axis = data_axis(op, int_attr(v, "axis").unwrap_or(0), shape.len(), "axis")?;
    let (idx, ishape) = index_input(v, "indices")?;
    gather_axis(op, data.dtype(), &shape, (&idx, &ishape), axis, 0, false, Indexing::Signed)
}

pub(super) fn onnx_gather_elements(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let data = data_input(v, "data")?;
    let shape = data.shape().to_vec();
    let axis = data_axis(op, int_attr(v, "axis").unwrap_or(0), shape.len(), "axis")?;
    let (idx, ishape) = index_input(v, "indices")?;
    gather_elements_plan(op, data.dtype(), &shape, (&idx, &ishape), axis, true, Indexing::Signed)
}

pub(super) fn openvino_gather(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let version = v.version;
    let data = data_input(v, "data")?;
    let shape = data.shape().to_vec();
    let (idx, ishape) = index_input(v, "indices")?;
    let axis_value = match v.int_list("axis")?.as_deref() {
        Some([a]) => *a,
        _ => return Err(Error::rule(op, "axis_scalar", "axis must hold one value").about_name("axis")),
    };
    let rank = shape.len();
    let irank = ishape.len() as i64;
    let given = int_attr(v, "batch_dims").unwrap_or(0);
    let batch = if given < 0 { given + irank } else { given };
    if batch < 0 || batch > irank {
        return Err(Error::rule(
            op,
            "batch_dims_in_range",
            format!("batch_dims = {given} is outside [-{irank}, {irank}] for indices of rank {irank}"),
        )
        .about_name("batch_dims"));
    }
    let batch = batch as usize;
    let axis = data_axis(op, axis_value, rank, "axis")?;
    if batch > axis {
        return Err(Error::rule(
            op,
            "batch_dims_at_most_axis",
            format!("batch_dims = {batch} is greater than axis = {axis} (batch dims come before the axis)"),
        )
        .about_name("batch_dims"));
    }
    let indexing = if version >= 8 { Indexing::SignedOrZero } else { Indexing::Unsigned };
    gather_axis(op, data.dtype(), &shape, (&idx, &ishape), axis, batch, false, indexing)
}

pub(super) fn tensorrt_gather(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let data = data_input(v, "data")?;
    let shape = data.shape().to_vec();
    let (idx, ishape) = index_input(v, "indices")?;
    let rank = shape.len();
    let elementwise = int_attr(v, "num_elementwise_dims").unwrap_or(0);
    let mode = v.attr_str("mode").unwrap_or("default");
    let dims_rule = |allowed: &str| {
        Error::rule(
            op,
            "num_elementwise_dims",
            format!("num_elementwise_dims = {elementwise} in mode {mode} (it must be {allowed})"),
        )
        .about_name("num_elementwise_dims")
    };
    let axis = int_attr(v, "axis").unwrap_or(0);
    let axis = usize::try_from(axis).ok().filter(|&a| a < rank).ok_or_else(|| {
        Error::rule(
            op,
            "axis_in_range",
            format!("axis = {axis} is outside [0, {}] for data of rank {rank}", rank as i64 - 1),
        )
        .about_name("axis")
    });
    match mode {
        "default" => {
            if !(0..=1).contains(&elementwise) {
                return Err(dims_rule("0 or 1"));
            }
            let axis = axis?;
            let batch = elementwise as usize;
            if batch > axis || batch > ishape.len() {
                return Err(dims_rule("at most the axis and the indices' rank"));
            }
            gather_axis(op, data.dtype(), &shape, (&idx, &ishape), axis, batch, true, Indexing::Unsigned)
        }
        "element" => {
            if elementwise != 0 {
                return Err(dims_rule("0"));
            }
            gather_elements_plan(op, data.dtype(), &shape, (&idx, &ishape), axis?, false, Indexing::Unsigned)
        }
        "nd" => {
            let batch =
                usize::try_from(elementwise).ok().filter(|&b| b < rank).ok_or_else(|| dims_rule("in [0, rank)"))?;
            gather_nd_plan(op, data.dtype(), &shape, (&idx, &ishape), batch, Indexing::Unsigned)
        }
        other => Err(Error::Invalid { what: format!("{op}: mode {other:?} is not default, element or nd") }),
    }
}
