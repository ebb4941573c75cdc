//! What the pad ops share: the data input and mode they read first, their mode names as
//! boundary modes, the pad value, and the plan they end with.

use super::data_input;
use crate::dtype::DType;
use crate::error::Error;
use crate::plan::{AxisRead, BoundaryMode, Plan, Step, Window};
use crate::request::{InputArg, Validated};
use crate::scalar::{convert_bits, format_bits};

/// What a pad reads first: its data input and its mode.
pub(crate) struct Head<'v> {
    pub dtype: DType,
    pub shape: Vec<u64>,
    /// The mode as the request names it ("constant" when absent).
    pub mode_name: &'v str,
    pub mode: BoundaryMode,
}

/// The data input `data` and the mode attribute `mode_attr` of a pad request.
pub(crate) fn head<'v>(v: &'v Validated<'_>, data: &str, mode_attr: &str) -> Result<Head<'v>, Error> {
    let input = data_input(v, data)?;
    let mode_name = v.attr_str(mode_attr).unwrap_or("constant");
    Ok(Head {
        dtype: input.dtype(),
        shape: input.shape().to_vec(),
        mode_name,
        mode: boundary_mode(v.op(), mode_attr, mode_name)?,
    })
}

/// A pad's plan from its reads (one per data axis): the output shape is their extents,
/// whose volume must fit a u64; windows that cover the whole data are dropped.
pub(crate) fn plan(
    op: &str,
    head: Head<'_>,
    reads: Vec<AxisRead>,
    fill_bits: u128,
    windows: Vec<Window>,
) -> Result<Plan, Error> {
    let output_shape: Vec<u64> = reads.iter().map(|a| a.extent).collect();
    crate::tensor::volume(&output_shape).ok_or_else(|| Error::Overflow {
        op: op.into(),
        what: "output volume (the product of the padded extents)".into(),
        value: format!("{output_shape:?}"),
    })?;
    let whole = windows.iter().zip(&head.shape).all(|(w, &d)| w.lo == 0 && w.len == d);
    let windows = if whole { Vec::new() } else { windows };
    let Head { dtype, shape, mode, .. } = head;
    Ok(Plan::Step(Step {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype,
        input_shape: shape,
        axes: reads,
        mode,
        fill_bits,
        output_shape,
        windows,
        gathered: None,
    }))
}

/// A pad mode (ONNX Pad's and OpenVINO Pad's names) as the boundary mode that reads it:
/// a pad is a slice whose coordinates run past the data. An unknown name is refused naming
/// the op's attribute `mode_attr` (spec validation refuses it first; this stays exact).
pub(crate) fn boundary_mode(op: &str, mode_attr: &str, name: &str) -> Result<BoundaryMode, Error> {
    Ok(match name {
        "constant" => BoundaryMode::Fill,
        "edge" => BoundaryMode::Clamp,
        "reflect" => BoundaryMode::Reflect,
        "wrap" => BoundaryMode::Wrap,
        "symmetric" => BoundaryMode::Symmetric,
        other => {
            return Err(Error::AttributeValue {
                op: op.into(),
                name: mode_attr.into(),
                value: format!("\"{other}\""),
                allowed: "constant, edge, reflect, wrap, symmetric".into(),
                hint: Box::default(),
            });
        }
    })
}

/// The pad value input `name` as element bits of `dtype` (0 — zero, false, or the empty
/// string — when absent). A scalar of the data's own dtype is taken as it is; a plain
/// number (a request file's or a derive attribute's number: an i64 or f64 scalar) is
/// converted by the rules of specs/SEMANTICS.md (exactly for integers and bool, rounded once
/// for floats); any other dtype is refused, as the vendors type the pad value T.
pub(crate) fn value_bits(op: &str, name: &str, dtype: DType, value: Option<&InputArg>) -> Result<u128, Error> {
    let Some(value) = value else { return Ok(0) };
    let t = value.tensor().ok_or_else(|| Error::Invalid {
        what: format!(
            "{op}: input `{name}` has no value (only dtype and shape were given); its value is needed to plan"
        ),
    })?;
    let from = t.dtype();
    if dtype == DType::String {
        return match t.strings().and_then(|s| s.get(0)) {
            Some("") => Ok(0),
            Some(s) => Err(Error::rule(
                op,
                "pad_value_representable",
                format!("`{name}` = {s:?}: kerf pads strings with the empty string only"),
            )
            .about_name(name)),
            None => Err(Error::rule(
                op,
                "pad_value_type",
                format!("`{name}` has dtype {from}; the data is string, so the pad value is a string"),
            )
            .about_name(name)),
        };
    }
    if from != dtype && !matches!(from, DType::I64 | DType::F64) {
        return Err(Error::rule(
            op,
            "pad_value_type",
            format!(
                "`{name}` has dtype {from} but the data is {dtype}: give a scalar of dtype {dtype}, or a plain number"
            ),
        )
        .about_name(name));
    }
    let bits = t
        .element_bits(0)
        .ok_or_else(|| Error::rule(op, "pad_value_type", format!("`{name}` holds no element")).about_name(name))?;
    convert_bits(from, bits, dtype).map_err(|e| {
        Error::rule(
            op,
            "pad_value_representable",
            format!("`{name}` = {} ({from}) cannot be {dtype}: {e}", format_bits(from, bits)),
        )
        .about_name(name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_mode_is_refused_naming_the_ops_own_attribute() {
        let err = boundary_mode("openvino.pad", "pad_mode", "mirror").unwrap_err().to_string();
        assert!(err.contains("openvino.pad") && err.contains("`pad_mode`") && err.contains("mirror"), "{err}");
        let err = boundary_mode("onnx.pad", "mode", "mirror").unwrap_err().to_string();
        assert!(err.contains("`mode`") && !err.contains("pad_mode"), "{err}");
        assert_eq!(boundary_mode("openvino.pad", "pad_mode", "symmetric").unwrap(), BoundaryMode::Symmetric);
    }
}
