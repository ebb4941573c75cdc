//! openvino.pad, Pad-1 and Pad-12: every mode reads relative to the original data (its
//! reference implementation's rule), so negative pads need no window.

use super::{fits_i64, pad};
use crate::error::Error;
use crate::plan::{AxisRead, BoundaryMode, Plan};
use crate::request::Validated;

pub(super) fn lower(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let head = pad::head(v, "arg", "pad_mode")?;
    let (dtype, shape, mode) = (head.dtype, &head.shape, head.mode);
    let rank = shape.len();
    let list = |name: &str| -> Result<Vec<i64>, Error> {
        let l = v.int_list(name)?.ok_or_else(|| Error::MissingInput { op: op.into(), name: name.into() })?;
        if l.len() != rank {
            return Err(Error::rule(
                op,
                "pads_length",
                format!("`{name}` has {} entries, but arg has {rank} axes", l.len()),
            )
            .about_name(name));
        }
        Ok(l)
    };
    let (begin, end) = (list("pads_begin")?, list("pads_end")?);
    let fill_bits =
        if mode == BoundaryMode::Fill { pad::value_bits(op, "pad_value", dtype, v.input("pad_value"))? } else { 0 };

    let mut reads = Vec::with_capacity(rank);
    for (axis, &d) in shape.iter().enumerate() {
        let (b, e) = (begin[axis], end[axis]);
        let pads = || format!("axis {axis}: pads_begin {b}, pads_end {e}, extent {d}");
        if v.version == 1 && (b < 0 || e < 0) {
            return Err(Error::rule(op, "pads_non_negative_v1", format!("{}: Pad-1 pads are non-negative", pads()))
                .about_name(if b < 0 { "pads_begin" } else { "pads_end" })
                .on_axis(axis));
        }
        let d_i = d as i128;
        let (b_i, e_i) = (b as i128, e as i128);
        match mode {
            BoundaryMode::Reflect if b_i > d_i - 1 || e_i > d_i - 1 => {
                return Err(Error::rule(
                    op,
                    "reflect_pads_below_extent",
                    format!("{}: reflect pads at most {}", pads(), d_i - 1),
                )
                .about_name(if b_i > d_i - 1 { "pads_begin" } else { "pads_end" })
                .on_axis(axis));
            }
            BoundaryMode::Symmetric if b_i > d_i || e_i > d_i => {
                return Err(Error::rule(
                    op,
                    "symmetric_pads_within_extent",
                    format!("{}: symmetric pads at most {d}", pads()),
                )
                .about_name(if b_i > d_i { "pads_begin" } else { "pads_end" })
                .on_axis(axis));
            }
            BoundaryMode::Clamp if d == 0 && (b > 0 || e > 0) => {
                return Err(Error::rule(op, "empty_axis_padded", format!("{}: edge has no element to repeat", pads()))
                    .about_name(if b > 0 { "pads_begin" } else { "pads_end" })
                    .on_axis(axis));
            }
            _ => {}
        }
        let extent = b_i + d_i + e_i;
        if extent < 0 {
            return Err(Error::rule(
                op,
                "output_extent_non_negative",
                format!("{}: the output extent would be {extent}", pads()),
            )
            .about_name(if b_i < 0 { "pads_begin" } else { "pads_end" })
            .on_axis(axis));
        }
        let extent = fits_i64(op, || format!("axis {axis}: output extent"), extent)?;
        // Output y reads x = y - b of the original data (no element when the extent is 0).
        let start = if extent == 0 { 0 } else { fits_i64(op, || format!("axis {axis}: first coordinate"), -b_i)? };
        reads.push(AxisRead { extent: extent as u64, start, step: 1 });
    }
    pad::plan(op, head, reads, fill_bits, Vec::new())
}
