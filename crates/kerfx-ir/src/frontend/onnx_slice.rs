//! onnx.slice, versions 1, 10, 11 and 13, all by the rule of the ONNX spec text
//! (`processSliceInputs`), as ONNX Runtime applies it to every version.

use super::{data_input, div_ceil, in_bounds_slice, resolve_axes};
use crate::error::Error;
use crate::plan::{AxisRead, Plan};
use crate::request::Validated;

/// One sliced axis: (start, step, length) by the spec rule, for extent d.
pub(crate) fn slice_axis(start: i64, end: i64, step: i64, d: u64) -> (i64, u64) {
    if d == 0 {
        return (0, 0);
    }
    let d = d as i128;
    let (mut s, mut e) = (start as i128, end as i128);
    if s < 0 {
        s += d;
    }
    if e < 0 {
        e += d;
    }
    if step > 0 {
        s = s.clamp(0, d);
        e = e.clamp(0, d);
    } else {
        s = s.clamp(0, d - 1);
        e = e.clamp(-1, d - 1);
    }
    let len = div_ceil(e - s, step as i128).max(0);
    // s ∈ [0, d] and len ≤ d: both fit.
    (s as i64, len as u64)
}

pub(super) fn lower(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let data = data_input(v, "data")?;
    let shape = data.shape().to_vec();
    let rank = shape.len();
    let given = |name: &str| -> Result<Vec<i64>, Error> {
        v.int_list(name)?.ok_or_else(|| {
            Error::rule(op, "starts_ends_given", format!("`{name}` is required (version {})", v.version))
                .about_name(name)
        })
    };
    let starts = given("starts")?;
    let ends = given("ends")?;
    let axes = v.int_list("axes")?;
    let steps = v.int_list("steps")?;
    let n = starts.len();
    for (name, len) in
        [("ends", Some(ends.len())), ("axes", axes.as_ref().map(Vec::len)), ("steps", steps.as_ref().map(Vec::len))]
    {
        if let Some(len) = len.filter(|&l| l != n) {
            return Err(Error::rule(op, "lengths_equal", format!("`{name}` has {len} entries but `starts` has {n}"))
                .about_name(name));
        }
    }
    let axes = axes.unwrap_or_else(|| (0..n as i64).collect());
    let steps = steps.unwrap_or_else(|| vec![1; n]);

    let mut reads: Vec<AxisRead> = shape.iter().map(|&d| AxisRead { extent: d, start: 0, step: 1 }).collect();
    if let Some((i, a)) = axes.iter().enumerate().find(|(_, a)| **a < 0 && v.version < 11) {
        return Err(Error::rule(
            op,
            "negative_axes_from_11",
            format!("axes[{i}] = {a}: negative axes exist from version 11, this request is version {}", v.version),
        )
        .about_name("axes"));
    }
    let targets = resolve_axes(op, &axes, rank, "axis_in_range")?;
    for (i, &axis) in targets.iter().enumerate() {
        if steps[i] == 0 {
            return Err(Error::rule(op, "step_nonzero", format!("steps[{i}] = 0 on axis {axis}"))
                .about_name("steps")
                .on_axis(axis));
        }
        let (start, len) = slice_axis(starts[i], ends[i], steps[i], shape[axis]);
        reads[axis] = AxisRead { extent: len, start, step: steps[i] };
    }
    let output_shape = reads.iter().map(|a| a.extent).collect();
    Ok(in_bounds_slice(data.dtype(), shape, reads, output_shape))
}

#[cfg(test)]
mod tests {
    use super::slice_axis;

    #[test]
    fn spec_rule_per_axis() {
        // x[1:3] on d=5
        assert_eq!(slice_axis(1, 3, 1, 5), (1, 2));
        // ends far past the end clamp to d
        assert_eq!(slice_axis(0, 1000, 1, 5), (0, 5));
        // negative step, full reversal with INT64_MIN end
        assert_eq!(slice_axis(-1, i64::MIN, -1, 5), (4, 5));
        // ONNX Runtime's INT_MAX special case is not copied: x[-1:INT64_MAX:-1] is empty.
        assert_eq!(slice_axis(-1, i64::MAX, -1, 5).1, 0);
        // the onnx Python reference gives [] for x[-100:-200:-1]; the rule gives [x0].
        assert_eq!(slice_axis(-100, -200, -1, 5), (0, 1));
        // d = 0 is empty whatever the parameters
        assert_eq!(slice_axis(-3, 7, -2, 0), (0, 0));
        // extreme starts
        assert_eq!(slice_axis(i64::MIN, i64::MAX, 1, 3), (0, 3));
        assert_eq!(slice_axis(i64::MAX, i64::MIN, -3, 7), (6, 3));
    }
}
