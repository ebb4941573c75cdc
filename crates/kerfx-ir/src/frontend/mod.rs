//! Vendor frontends: the only place that knows vendor rules. Each validates a request
//! against its spec and lowers it to a [`Plan`] with exactly the rules of specs/SEMANTICS.md.

mod family;
mod gather;
mod moves;
mod onnx_pad;
mod onnx_slice;
mod openvino_pad;
mod openvino_slice;
mod openvino_strided_slice;
mod pad;
mod tensorrt_fill;
mod tensorrt_slice;

use crate::error::{Error, Hint};
use crate::plan::{AxisRead, BoundaryMode, Plan, Step};
use crate::program::{Move, Program};
use crate::request::{Request, Validated, validate};

/// The spec of `op`, from the embedded registry.
pub fn spec(op: &str) -> Result<&'static kerfx_spec::OpSpec, Error> {
    let registry = kerfx_spec::registry().map_err(|e| Error::Spec(e.clone()))?;
    registry
        .get(op)
        .ok_or_else(|| Error::UnknownOp { op: op.to_string(), hint: Box::new(Hint::new(op, registry.ids())) })
}

/// Validate `request` against its spec and lower it to a Plan.
pub fn lower(request: &Request) -> Result<Plan, Error> {
    let spec = spec(&request.op)?;
    let v = validate(spec, request).map_err(Error::from_list)?;
    lower_validated(&v)
}

/// Validate `request` against its spec and lower it to a [`Program`]: the one form every
/// op has — an op over several inputs or outputs (Concat, Split) its moves, a request
/// no single plan expresses (see [`as_chain`]) one move of its chain, every other op the
/// one move of its plan ([`Program::single`]).
pub fn lower_program(request: &Request) -> Result<Program, Error> {
    let spec = spec(&request.op)?;
    let v = validate(spec, request).map_err(Error::from_list)?;
    match v.op() {
        "onnx.concat" | "openvino.concat" | "tensorrt.concatenation" => family::concat(&v),
        "onnx.split" => family::onnx_split(&v),
        "openvino.split" => family::openvino_split(&v),
        "openvino.variadic_split" => family::openvino_variadic_split(&v),
        "tensorrt.shuffle" => match moves::shuffle_chain(&v, request)? {
            Some(chain) => {
                let steps = crate::chain::lower_chain(&chain)?;
                let Some(first) = steps.first() else {
                    return Err(Error::Invalid { what: "tensorrt.shuffle: an empty chain".into() });
                };
                let (dtype, input) = (first.dtype(), first.input_shape().unwrap_or_default().to_vec());
                let output = steps.last().map_or_else(Vec::new, |p| p.output_shape().to_vec());
                let at = vec![0; output.len()];
                let program = Program {
                    dtype,
                    inputs: vec![input],
                    outputs: vec![output],
                    moves: vec![Move { input: Some(0), steps, output: 0, at }],
                };
                program.validate()?;
                Ok(program)
            }
            None => Ok(Program::single(lower_validated(&v)?)),
        },
        _ => Ok(Program::single(lower_validated(&v)?)),
    }
}

/// A valid request that lowers to no single plan, as the chain of requests that runs it
/// (each step one kernel or fused with its neighbours, [`crate::chain`]); `Ok(None)` for
/// every request [`lower`] takes. Today only a TensorRT Shuffle whose reshape regroups
/// factors that its second transpose then separates: its first transpose and reshape, then
/// its second transpose. An invalid request is the error [`lower`] gives.
pub fn as_chain(request: &Request) -> Result<Option<crate::chain::ChainRequest>, Error> {
    if request.op != "tensorrt.shuffle" {
        return Ok(None);
    }
    let spec = spec(&request.op)?;
    let v = validate(spec, request).map_err(Error::from_list)?;
    moves::shuffle_chain(&v, request)
}

fn lower_validated(v: &Validated<'_>) -> Result<Plan, Error> {
    match v.op() {
        op @ ("onnx.concat"
        | "openvino.concat"
        | "tensorrt.concatenation"
        | "onnx.split"
        | "openvino.split"
        | "openvino.variadic_split") => Err(Error::Invalid {
            what: format!(
                "{op} reads or writes several tensors: it lowers to a program (kerfx_ir::lower_program), not one plan"
            ),
        }),
        "tensorrt.slice" => tensorrt_slice::lower(v),
        "tensorrt.fill" => tensorrt_fill::lower(v),
        "onnx.slice" => onnx_slice::lower(v),
        "openvino.strided_slice" => openvino_strided_slice::lower(v),
        "onnx.pad" => onnx_pad::lower(v),
        "openvino.pad" => openvino_pad::lower(v),
        "openvino.slice" => openvino_slice::lower(v),
        "onnx.transpose" => moves::transpose(v),
        "onnx.reshape" => moves::reshape(v),
        "onnx.flatten" => moves::flatten(v),
        "onnx.squeeze" => moves::squeeze(v),
        "onnx.unsqueeze" => moves::unsqueeze(v),
        "onnx.identity" => moves::identity(v),
        "onnx.expand" => moves::expand(v),
        "onnx.tile" => moves::tile(v),
        "onnx.depth_to_space" => moves::depth_to_space(v),
        "onnx.space_to_depth" => moves::space_to_depth(v),
        "openvino.transpose" => moves::openvino_transpose(v),
        "openvino.tile" => moves::openvino_tile(v),
        "openvino.roll" => moves::openvino_roll(v),
        "onnx.gather" => gather::onnx_gather(v),
        "onnx.gather_elements" => gather::onnx_gather_elements(v),
        "openvino.gather" => gather::openvino_gather(v),
        "tensorrt.gather" => gather::tensorrt_gather(v),
        "openvino.broadcast" => moves::openvino_broadcast(v),
        "openvino.depth_to_space" => moves::openvino_depth_to_space(v),
        "openvino.space_to_depth" => moves::openvino_space_to_depth(v),
        "openvino.reshape" => moves::openvino_reshape(v),
        "openvino.squeeze" => moves::openvino_squeeze(v),
        "openvino.unsqueeze" => moves::openvino_unsqueeze(v),
        "tensorrt.shuffle" => moves::tensorrt_shuffle(v),
        other => Err(Error::Invalid { what: format!("{other}: a spec exists but kerf has no frontend for it") }),
    }
}

/// ceil(a / b) for b ≠ 0, exact.
pub(crate) fn div_ceil(a: i128, b: i128) -> i128 {
    let q = a / b;
    let r = a % b;
    if r != 0 && ((r > 0) == (b > 0)) { q + 1 } else { q }
}

/// Normalize an axis in [-r, r-1] (negative counts from the back); `None` when out of range.
pub(crate) fn normalize_axis(axis: i64, rank: usize) -> Option<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return None;
    }
    Some(if axis < 0 { axis + r } else { axis } as usize)
}

/// Resolve a list of axes: each normalized from [-r, r-1] (else rule `range_rule`), none
/// named twice (else rule `axes_unique`). Returns the input axis of each entry.
pub(crate) fn resolve_axes(op: &str, axes: &[i64], rank: usize, range_rule: &str) -> Result<Vec<usize>, Error> {
    let mut seen = vec![false; rank];
    let mut out = Vec::with_capacity(axes.len());
    for (i, &a) in axes.iter().enumerate() {
        let n = normalize_axis(a, rank).ok_or_else(|| {
            Error::rule(
                op,
                range_rule,
                format!("axes[{i}] = {a} is outside [-{rank}, {}] for rank {rank}", rank as i64 - 1),
            )
            .about_name("axes")
        })?;
        if std::mem::replace(&mut seen[n], true) {
            return Err(Error::rule(op, "axes_unique", format!("axes[{i}] = {a} names axis {n} again"))
                .about_name("axes")
                .on_axis(n));
        }
        out.push(n);
    }
    Ok(out)
}

/// A slice that reads every element it names from inside the input (ONNX and OpenVINO
/// clamp their parameters into range), so its mode is `strict_bounds`.
pub(crate) fn in_bounds_slice(
    dtype: crate::DType,
    input_shape: Vec<u64>,
    axes: Vec<AxisRead>,
    output_shape: Vec<u64>,
) -> Plan {
    Plan::Step(Step {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype,
        input_shape,
        axes,
        mode: BoundaryMode::StrictBounds,
        fill_bits: 0,
        output_shape,
        windows: Vec::new(),
        gathered: None,
    })
}

/// The data input's dtype and shape.
pub(crate) fn data_input<'a>(v: &Validated<'a>, name: &str) -> Result<&'a crate::request::InputArg, Error> {
    v.input(name).ok_or_else(|| Error::MissingInput { op: v.op().to_string(), name: name.to_string() })
}

/// Check that an i128 coordinate fits i64, the width every backend computes in.
pub(crate) fn fits_i64(op: &str, what: impl FnOnce() -> String, x: i128) -> Result<i64, Error> {
    i64::try_from(x).map_err(|_| Error::Overflow { op: op.to_string(), what: what(), value: x.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn div_ceil_rounds_toward_positive_infinity() {
        assert_eq!(div_ceil(7, 2), 4);
        assert_eq!(div_ceil(-7, 2), -3);
        assert_eq!(div_ceil(7, -2), -3);
        assert_eq!(div_ceil(-7, -2), 4);
        assert_eq!(div_ceil(6, 3), 2);
        assert_eq!(div_ceil(0, -3), 0);
    }

    #[test]
    fn axes_normalize_in_range_only() {
        assert_eq!(normalize_axis(-1, 3), Some(2));
        assert_eq!(normalize_axis(-3, 3), Some(0));
        assert_eq!(normalize_axis(-4, 3), None);
        assert_eq!(normalize_axis(3, 3), None);
        assert_eq!(normalize_axis(0, 0), None);
    }
}
