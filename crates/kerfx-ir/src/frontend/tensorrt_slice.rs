//! tensorrt.slice (ISliceLayer).

use super::{data_input, fits_i64, resolve_axes};
use crate::error::Error;
use crate::plan::{AxisRead, BoundaryMode, Plan, Step};
use crate::request::Validated;
use crate::scalar::convert_bits;

pub(super) fn lower(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let data = data_input(v, "input")?;
    let dtype = data.dtype();
    let shape = data.shape().to_vec();
    let rank = shape.len();
    let mode_name = v.attr_str("mode").unwrap_or("strict_bounds");
    let mode = BoundaryMode::from_name(mode_name).ok_or_else(|| Error::AttributeValue {
        op: op.into(),
        name: "mode".into(),
        value: format!("\"{mode_name}\""),
        allowed: "strict_bounds, wrap, clamp, fill, reflect".into(),
        hint: Box::default(),
    })?;

    let param = |name: &str| -> Result<Vec<i64>, Error> {
        v.int_list(name)?.ok_or_else(|| {
            Error::rule(op, "params_given", format!("`{name}` is given neither as attribute nor as input"))
                .about_name(name)
        })
    };
    let (start, size, stride) = (param("start")?, param("size")?, param("stride")?);

    // Which input axis each parameter entry refers to.
    let targets: Vec<usize> = match v.int_list("axes")? {
        None => (0..rank).collect(),
        Some(axes) => resolve_axes(op, &axes, rank, "axes_in_range")?,
    };
    for (name, list) in [("start", &start), ("size", &size), ("stride", &stride)] {
        if list.len() != targets.len() {
            let of = if v.int_list("axes")?.is_some() { "axes" } else { "input axes (its rank)" };
            return Err(Error::rule(
                op,
                "param_lengths",
                format!("`{name}` has {} entries, but there are {} {of}", list.len(), targets.len()),
            )
            .about_name(name));
        }
    }

    let mut axes: Vec<AxisRead> = shape.iter().map(|&d| AxisRead { extent: d, start: 0, step: 1 }).collect();
    for (i, &axis) in targets.iter().enumerate() {
        if size[i] < 0 {
            return Err(Error::rule(
                op,
                "size_non_negative",
                format!("size[{i}] = {} on axis {axis} is negative", size[i]),
            )
            .about_name("size")
            .on_axis(axis));
        }
        axes[axis] = AxisRead { extent: size[i] as u64, start: start[i], step: stride[i] };
    }

    let fill_bits = match v.input("fill") {
        None => 0,
        Some(_) if mode != BoundaryMode::Fill => {
            return Err(Error::rule(
                op,
                "fill_only_in_fill_mode",
                format!("a fill input was given, but mode is \"{mode}\""),
            )
            .about_name("fill"));
        }
        Some(f) => {
            let t = f.tensor().ok_or_else(|| Error::Invalid { what: format!("{op}: input `fill` has no value") })?;
            let bits = t.element_bits(0).ok_or_else(|| {
                Error::rule(op, "fill_value_representable", "the fill input holds no element").about_name("fill")
            })?;
            convert_bits(t.dtype(), bits, dtype).map_err(|e| {
                Error::rule(
                    op,
                    "fill_value_representable",
                    format!(
                        "fill value {} ({}) cannot be {dtype}: {e}",
                        crate::scalar::format_bits(t.dtype(), bits),
                        t.dtype()
                    ),
                )
                .about_name("fill")
            })?
        }
    };

    let output_empty = axes.iter().any(|a| a.extent == 0);
    crate::tensor::volume(&axes.iter().map(|a| a.extent).collect::<Vec<_>>()).ok_or_else(|| Error::Overflow {
        op: op.into(),
        what: "output volume (product of size)".into(),
        value: format!("{size:?}"),
    })?;
    if !output_empty {
        for (axis, (a, &d)) in axes.iter().zip(&shape).enumerate() {
            let last = a.x(a.extent - 1);
            fits_i64(op, || format!("axis {axis}: last coordinate start + (size-1)*stride"), last)?;
            if d == 0 && mode != BoundaryMode::Fill {
                return Err(Error::rule(
                    op,
                    "empty_input_axis",
                    format!(
                        "axis {axis} of the input has extent 0 but the output reads {} elements on it; only mode fill can produce them (mode is \"{mode}\")",
                        a.extent
                    ),
                ).about_name("input").on_axis(axis));
            }
            if mode == BoundaryMode::StrictBounds {
                let first = a.start as i128;
                let (lo, hi) = (first.min(last), first.max(last));
                if lo < 0 || hi >= d as i128 {
                    return Err(Error::rule(
                        op,
                        "strict_bounds_in_range",
                        format!(
                            "axis {axis} reads coordinates {first}..={last} (start {}, size {}, stride {}) outside [0, {d})",
                            a.start, a.extent, a.step
                        ),
                    ).about_name("start").on_axis(axis));
                }
            }
        }
    }
    let output_shape = axes.iter().map(|a| a.extent).collect();
    Ok(Plan::Step(Step {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype,
        input_shape: shape,
        axes,
        mode,
        fill_bits,
        output_shape,
        windows: Vec::new(),
        gathered: None,
    }))
}
