//! openvino.strided_slice (StridedSlice-1), by OpenVINO's reference `make_slice_plan`.

use super::{data_input, div_ceil, in_bounds_slice};
use crate::error::Error;
use crate::plan::{AxisRead, Plan};
use crate::request::{AttrValue, Validated};

/// What an entry of begin/end/stride does: the first of these that its masks select.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Entry {
    NewAxis,
    Shrink,
    Ellipsis,
    Normal,
}

/// (begin, length) of a normal axis of extent d with stride s ≠ 0.
pub(crate) fn normal_axis(begin: i64, end: i64, s: i64, begin_masked: bool, end_masked: bool, d: u64) -> (i64, u64) {
    if d == 0 {
        return (0, 0);
    }
    let d = d as i128;
    let b = if begin_masked {
        if s > 0 { 0 } else { d - 1 }
    } else {
        let b = begin as i128;
        let b = if b < 0 { b + d } else { b };
        if s > 0 { b.clamp(0, d) } else { b.clamp(0, d - 1) }
    };
    let e = if end_masked {
        if s > 0 { d } else { -1 }
    } else {
        let e = end as i128;
        let e = if e < 0 { e + d } else { e };
        if s > 0 { e.clamp(0, d) } else { e.clamp(-1, d) }
    };
    let len = div_ceil(e - b, s as i128).max(0);
    (b as i64, len as u64)
}

pub(super) fn lower(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let data = data_input(v, "data")?;
    let shape = data.shape().to_vec();
    let rank = shape.len();
    let given = |name: &str| -> Result<Vec<i64>, Error> {
        v.int_list(name)?.ok_or_else(|| {
            Error::rule(op, "begin_end_given", format!("`{name}` is given neither as attribute nor as input"))
                .about_name(name)
        })
    };
    let begin = given("begin")?;
    let end = given("end")?;
    let m = begin.len();
    let stride = v.int_list("stride")?.unwrap_or_else(|| vec![1; m]);
    for (name, len) in [("end", end.len()), ("stride", stride.len())] {
        if len != m {
            return Err(Error::rule(op, "lengths_equal", format!("`{name}` has {len} entries but `begin` has {m}"))
                .about_name(name));
        }
    }
    // Masks: padded with zeros to m, entries past m ignored.
    let mask = |name: &str| -> Vec<bool> {
        let bits = match v.attr(name) {
            Some(AttrValue::IntList(l)) => l.clone(),
            _ => Vec::new(),
        };
        (0..m).map(|i| bits.get(i).is_some_and(|&b| b == 1)).collect()
    };
    let (begin_mask, end_mask) = (mask("begin_mask"), mask("end_mask"));
    let (new_axis, shrink, ellipsis) = (mask("new_axis_mask"), mask("shrink_axis_mask"), mask("ellipsis_mask"));
    let ellipsis_count = ellipsis.iter().filter(|&&b| b).count();
    if ellipsis_count > 1 {
        return Err(Error::rule(
            op,
            "single_ellipsis",
            format!("ellipsis_mask sets {ellipsis_count} bits among the first {m} entries; at most one is allowed"),
        )
        .about_name("ellipsis_mask"));
    }
    let entries: Vec<Entry> = (0..m)
        .map(|i| {
            if new_axis[i] {
                Entry::NewAxis
            } else if shrink[i] {
                Entry::Shrink
            } else if ellipsis[i] {
                Entry::Ellipsis
            } else {
                Entry::Normal
            }
        })
        .collect();
    let consumed = entries.iter().filter(|e| matches!(e, Entry::Shrink | Entry::Normal)).count();
    if consumed > rank {
        return Err(Error::rule(
            op,
            "entries_fit_rank",
            format!("{consumed} entries consume an input axis each (normal or shrink), but data has rank {rank}"),
        )
        .about_name("begin"));
    }
    let mut reads: Vec<AxisRead> = shape.iter().map(|&d| AxisRead { extent: d, start: 0, step: 1 }).collect();
    let mut output_shape = Vec::new();
    let mut k = 0usize; // next input axis
    for (i, entry) in entries.iter().enumerate() {
        match entry {
            Entry::NewAxis => output_shape.push(1),
            Entry::Shrink => {
                let d = shape[k];
                let b = begin[i] as i128;
                if b < -(d as i128) || b >= d as i128 {
                    return Err(Error::rule(
                        op,
                        "shrink_in_range",
                        format!("entry {i} shrinks axis {k} at begin {} outside [-{d}, {}]", begin[i], d as i128 - 1),
                    )
                    .about_name("begin")
                    .on_axis(k));
                }
                let b = if b < 0 { b + d as i128 } else { b };
                reads[k] = AxisRead { extent: 1, start: b as i64, step: 1 };
                k += 1;
            }
            Entry::Ellipsis => {
                for _ in 0..rank - consumed {
                    output_shape.push(shape[k]);
                    k += 1;
                }
            }
            Entry::Normal => {
                let s = stride[i];
                if s == 0 {
                    return Err(Error::rule(op, "stride_nonzero", format!("stride[{i}] = 0 on axis {k}"))
                        .about_name("stride")
                        .on_axis(k));
                }
                let (b, len) = normal_axis(begin[i], end[i], s, begin_mask[i], end_mask[i], shape[k]);
                reads[k] = AxisRead { extent: len, start: b, step: s };
                output_shape.push(len);
                k += 1;
            }
        }
    }
    // The implicit ellipsis after the last entry keeps the remaining axes whole.
    output_shape.extend_from_slice(&shape[k..]);
    Ok(in_bounds_slice(data.dtype(), shape, reads, output_shape))
}

#[cfg(test)]
mod tests {
    use super::normal_axis;

    #[test]
    fn begin_equal_end_is_empty_as_the_code_says_not_one_element_as_the_doc_says() {
        assert_eq!(normal_axis(2, 2, 1, false, false, 4).1, 0);
    }

    #[test]
    fn reverse_with_end_mask_reaches_element_zero() {
        // The doc shows [3,2,1]; the reference code (and kerf) gives [3,2,1,0].
        assert_eq!(normal_axis(3, 0, -1, false, true, 4), (3, 4));
    }

    #[test]
    fn clamps_follow_the_stride_sign() {
        assert_eq!(normal_axis(10, -10, -1, false, false, 4), (3, 4));
        assert_eq!(normal_axis(-10, 10, 2, false, false, 5), (0, 3));
        assert_eq!(normal_axis(0, 0, 1, true, true, 0), (0, 0));
    }
}
