//! openvino.slice (Slice-8): the ONNX Slice-13 clamping rule, which OpenVINO's reference
//! implementation follows (shared with onnx.slice).

use super::onnx_slice::slice_axis;
use super::{data_input, in_bounds_slice, resolve_axes};
use crate::error::Error;
use crate::plan::{AxisRead, Plan};
use crate::request::Validated;

pub(super) fn lower(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let data = data_input(v, "data")?;
    let shape = data.shape().to_vec();
    let rank = shape.len();
    if rank == 0 {
        return Err(Error::rule(
            op,
            "data_rank",
            "data is a scalar (rank 0); Slice-8 slices tensors of rank 1 or more",
        )
        .about_name("data"));
    }
    let given = |name: &str| -> Result<Vec<i64>, Error> {
        v.int_list(name)?.ok_or_else(|| Error::MissingInput { op: op.into(), name: name.into() })
    };
    let (start, stop, step) = (given("start")?, given("stop")?, given("step")?);
    let axes = v.int_list("axes")?;
    let n = start.len();
    for (name, len) in [("stop", Some(stop.len())), ("step", Some(step.len())), ("axes", axes.as_ref().map(Vec::len))] {
        if let Some(len) = len.filter(|&l| l != n) {
            return Err(Error::rule(op, "lengths_equal", format!("`{name}` has {len} entries but `start` has {n}"))
                .about_name(name));
        }
    }
    let axes = axes.unwrap_or_else(|| (0..n as i64).collect());
    let targets = resolve_axes(op, &axes, rank, "axes_in_range")?;
    let mut reads: Vec<AxisRead> = shape.iter().map(|&d| AxisRead { extent: d, start: 0, step: 1 }).collect();
    for (i, &axis) in targets.iter().enumerate() {
        if step[i] == 0 {
            return Err(Error::rule(op, "step_nonzero", format!("step[{i}] = 0 on axis {axis}"))
                .about_name("step")
                .on_axis(axis));
        }
        let (s, len) = slice_axis(start[i], stop[i], step[i], shape[axis]);
        reads[axis] = AxisRead { extent: len, start: s, step: step[i] };
    }
    let output_shape = reads.iter().map(|a| a.extent).collect();
    Ok(in_bounds_slice(data.dtype(), shape, reads, output_shape))
}
