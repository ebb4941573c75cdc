//! onnx.pad, versions 1, 2, 11, 13, 18, 19, 21, 23, 24 and 25: negative pads crop first, then the
//! mode extends what is left (ONNX Runtime's order), so a cropped axis is read through a
//! window of the data.

use super::{fits_i64, pad, resolve_axes};
use crate::error::Error;
use crate::plan::{AxisRead, BoundaryMode, Plan, Window};
use crate::request::{AttrValue, Validated};
use crate::scalar::{f64_to_bits, format_bits};

pub(super) fn lower(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let head = pad::head(v, "data", "mode")?;
    let (dtype, shape, mode_name, mode) = (head.dtype, &head.shape, head.mode_name, head.mode);
    let rank = shape.len();
    if mode_name == "wrap" && v.version < 19 {
        return Err(Error::rule(
            op,
            "wrap_from_19",
            format!("mode \"wrap\" exists from version 19, this request is version {}", v.version),
        )
        .about_name("mode"));
    }

    // Versions 1 and 2 name the pads attribute differently; from 11 `pads` is an input.
    let pads_name = if v.version == 1 { "paddings" } else { "pads" };
    let pads = v.int_list(pads_name)?.ok_or_else(|| Error::MissingInput { op: op.into(), name: pads_name.into() })?;
    let given_axes = v.int_list("axes")?;
    let targets: Vec<usize> = match &given_axes {
        None => (0..rank).collect(),
        Some(axes) => resolve_axes(op, axes, rank, "axes_in_range")?,
    };
    let n = targets.len();
    if pads.len() != 2 * n {
        let of = if given_axes.is_some() { "entries of axes" } else { "axes of data (its rank)" };
        return Err(Error::rule(
            op,
            "pads_length",
            format!("`{pads_name}` has {} entries, but there are {n} {of}: it needs {}", pads.len(), 2 * n),
        )
        .about_name(pads_name));
    }

    let fill_bits = if mode != BoundaryMode::Fill {
        0
    } else if v.version <= 2 {
        value_attribute_bits(v, dtype)?
    } else {
        pad::value_bits(op, "constant_value", dtype, v.input("constant_value"))?
    };

    let mut reads: Vec<AxisRead> = shape.iter().map(|&d| AxisRead { extent: d, start: 0, step: 1 }).collect();
    let mut windows: Vec<Window> = shape.iter().map(|&d| Window { lo: 0, len: d }).collect();
    for (i, &axis) in targets.iter().enumerate() {
        let (b, e, d) = (pads[i] as i128, pads[n + i] as i128, shape[axis] as i128);
        let extent = b + d + e;
        if extent < 0 {
            return Err(Error::rule(
                op,
                "output_extent_non_negative",
                format!("axis {axis}: pads ({b}, {e}) on extent {d} leave {extent} elements"),
            )
            .about_name(pads_name)
            .on_axis(axis));
        }
        // Crop first: the window keeps what the negative pads leave.
        let lo = (-b).max(0);
        let kept = d - lo - (-e).max(0);
        if mode != BoundaryMode::Fill {
            if kept < 0 {
                return Err(Error::rule(
                    op,
                    "crop_within_extent",
                    format!(
                        "axis {axis}: pads ({b}, {e}) crop {} of its {d} elements; mode \"{mode_name}\" has nothing left to extend",
                        -b.min(0) - e.min(0)
                    ),
                ).about_name(pads_name).on_axis(axis));
            }
            if kept == 0 && extent > 0 {
                return Err(Error::rule(
                    op,
                    "empty_axis_padded",
                    format!(
                        "axis {axis}: pads ({b}, {e}) extend an axis with no element left (extent {d}) in mode \"{mode_name}\""
                    ),
                ).about_name(pads_name).on_axis(axis));
            }
        }
        let extent = fits_i64(op, || format!("axis {axis}: output extent"), extent)?;
        windows[axis] = Window { lo: lo.min(d) as u64, len: kept.max(0) as u64 };
        // Output y reads window coordinate y - b (the pads before, when positive).
        reads[axis] = AxisRead { extent: extent as u64, start: -(b.max(0) as i64), step: 1 };
    }
    pad::plan(op, head, reads, fill_bits, windows)
}

/// Versions 1 and 2: the float attribute `value`. An ONNX float attribute is an f32, so
/// the number is rounded to f32 first (as a model stores it), then converted to `dtype`.
fn value_attribute_bits(v: &Validated<'_>, dtype: crate::DType) -> Result<u128, Error> {
    let op = v.op();
    let value = match v.attr("value") {
        Some(AttrValue::Float(f)) => *f,
        Some(AttrValue::Int(i)) => *i as f64,
        _ => 0.0,
    };
    let not = |what: String| Error::rule(op, "pad_value_representable", what).about_name("value");
    let as_f32 = f64_to_bits(crate::DType::F32, value)
        .map_err(|e| not(format!("`value` = {value} is not an ONNX float attribute (an f32): {e}")))?;
    let rounded = f32::from_bits(as_f32 as u32) as f64;
    f64_to_bits(dtype, rounded).map_err(|e| {
        not(format!("`value` = {} (as an f32) cannot be {dtype}: {e}", format_bits(crate::DType::F32, as_f32)))
    })
}
