//! What the pad ops share: their mode names as boundary modes, and the pad value.

use crate::dtype::DType;
use crate::error::Error;
use crate::plan::BoundaryMode;
use crate::request::InputArg;
use crate::scalar::{convert_bits, format_bits};

/// A pad mode (ONNX Pad's and OpenVINO Pad's names) as the boundary mode that reads it:
/// a pad is a slice whose coordinates run past the data.
pub(crate) fn boundary_mode(op: &str, name: &str) -> Result<BoundaryMode, Error> {
    Ok(match name {
        "constant" => BoundaryMode::Fill,
        "edge" => BoundaryMode::Clamp,
        "reflect" => BoundaryMode::Reflect,
        "wrap" => BoundaryMode::Wrap,
        "symmetric" => BoundaryMode::Symmetric,
        other => {
            return Err(Error::AttributeValue {
                op: op.into(),
                name: "mode".into(),
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
