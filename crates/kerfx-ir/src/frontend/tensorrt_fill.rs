//! tensorrt.fill (IFillLayer): linspace, random_uniform, random_normal.

use crate::dtype::DType;
use crate::error::Error;
use crate::plan::{FillKind, FillPlan, Linspace, Plan};
use crate::request::{AttrValue, Validated};

/// The largest output volume TensorRT accepts.
pub const MAX_VOLUME: u64 = (1 << 31) - 1;

/// A scalar or list parameter, as given.
enum Coef {
    Scalar(f64, Option<i128>),
    List(Vec<(f64, Option<i128>)>),
}

/// The exact integer a float holds, if it is a whole number that fits i64.
fn exact(f: f64) -> Option<i128> {
    (f.is_finite() && f.fract() == 0.0 && f.abs() < 2f64.powi(63)).then_some(f as i128)
}

/// alpha or beta: the input of that name if present, else the attribute. A tensor input
/// of shape [] is a scalar, and so is one of shape [1] for alpha (declared a scalar; the
/// vendors' own examples pass `np.array([1.0])`). Whole numbers in a float tensor keep
/// their exact integer value (specs/SEMANTICS.md, "Values converted to a tensor's type").
fn coef(v: &Validated<'_>, name: &str) -> Result<Coef, Error> {
    let op = v.op();
    if let Some(input) = v.input(name) {
        let t = input.tensor().ok_or_else(|| Error::Invalid { what: format!("{op}: input `{name}` has no values") })?;
        let vals: Vec<(f64, Option<i128>)> = (0..t.len())
            .map(|i| {
                let f = t.element_f64(i).ok_or_else(|| Error::InputDType {
                    op: op.into(),
                    name: name.into(),
                    dtype: t.dtype(),
                    allowed: "numeric types".into(),
                })?;
                Ok((f, t.element_i128(i).or_else(|| exact(f))))
            })
            .collect::<Result<_, Error>>()?;
        let scalar = t.shape().is_empty() || (name == "alpha" && t.shape() == [1]);
        return Ok(if scalar { Coef::Scalar(vals[0].0, vals[0].1) } else { Coef::List(vals) });
    }
    Ok(match v.attr(name) {
        Some(AttrValue::Float(f)) => Coef::Scalar(*f, exact(*f)),
        Some(AttrValue::Int(i)) => Coef::Scalar(*i as f64, Some(*i as i128)),
        Some(AttrValue::FloatList(l)) => Coef::List(l.iter().map(|&f| (f, exact(f))).collect()),
        Some(AttrValue::IntList(l)) => Coef::List(l.iter().map(|&i| (i as f64, Some(i as i128))).collect()),
        _ => Coef::Scalar(if name == "alpha" { 0.0 } else { 1.0 }, Some(if name == "alpha" { 0 } else { 1 })),
    })
}

pub(super) fn lower(v: &Validated<'_>) -> Result<Plan, Error> {
    let op = v.op();
    let dims = v.int_list("dimensions")?.ok_or_else(|| {
        Error::rule(op, "dimensions_given", "`dimensions` is given neither as attribute nor as input")
            .about_name("dimensions")
    })?;
    let mut shape = Vec::with_capacity(dims.len());
    for (i, &d) in dims.iter().enumerate() {
        if d < 0 {
            return Err(Error::rule(op, "dimensions_given", format!("dimensions[{i}] = {d} is negative"))
                .about_name("dimensions"));
        }
        shape.push(d as u64);
    }
    let volume = crate::tensor::volume(&shape).filter(|&n| n <= MAX_VOLUME).ok_or_else(|| {
        Error::rule(op, "volume_limit", format!("dimensions {dims:?} hold more than 2^31-1 elements"))
            .about_name("dimensions")
    })?;
    let dtype: DType = v
        .attr_str("to_type")
        .unwrap_or("f32")
        .parse()
        .map_err(|e: crate::dtype::UnknownDType| Error::Invalid { what: format!("{op}: to_type: {e}") })?;
    if v.input("alpha").is_some() != v.input("beta").is_some() {
        return Err(Error::rule(
            op,
            "alpha_beta_together",
            "alpha and beta must both be static attributes or both be inputs",
        )
        .about_name(if v.input("alpha").is_some() { "alpha" } else { "beta" }));
    }
    let operation = v.attr_str("operation").unwrap_or_default();
    let alpha = match coef(v, "alpha")? {
        Coef::Scalar(f, i) => (f, i),
        Coef::List(_) => return Err(Error::rule(op, "beta_length", "alpha must be a scalar").about_name("alpha")),
    };
    let beta = coef(v, "beta")?;
    // (Validated: a u64 attribute is a UInt.)
    let seed = v.attr("seed").and_then(crate::request::u64_value).unwrap_or(0);
    let rank = shape.len();
    let kind = match operation {
        "linspace" => {
            let beta: Vec<(f64, Option<i128>)> = match beta {
                Coef::List(l) if l.len() == rank => l,
                Coef::Scalar(f, i) if rank == 1 => vec![(f, i)],
                Coef::List(l) => {
                    return Err(Error::rule(
                        op,
                        "beta_length",
                        format!("beta has {} entries but the output has rank {rank}", l.len()),
                    )
                    .about_name("beta"));
                }
                Coef::Scalar(..) => {
                    return Err(Error::rule(
                        op,
                        "beta_length",
                        format!("a scalar beta is valid only for rank 1; the output has rank {rank}"),
                    )
                    .about_name("beta"));
                }
            };
            FillKind::Linspace(linspace(op, dtype, &shape, alpha, &beta, volume)?)
        }
        "random_uniform" | "random_normal" => {
            // A scalar beta, given as shape [] or [1].
            let beta = match beta {
                Coef::Scalar(beta, _) => beta,
                Coef::List(l) if l.len() == 1 => l[0].0,
                Coef::List(_) => {
                    return Err(Error::rule(op, "beta_length", "random fills take a scalar beta").about_name("beta"));
                }
            };
            let (a, b) = (alpha.0 as f32, beta as f32);
            if operation == "random_uniform" {
                if !(a.is_finite() && b.is_finite() && a < b && (b - a).is_finite()) {
                    return Err(Error::rule(
                        op,
                        "uniform_range",
                        format!(
                            "alpha = {} and beta = {beta} must be finite with alpha < beta and beta - alpha finite in f32",
                            alpha.0
                        ),
                    ).about_name("beta"));
                }
                FillKind::RandomUniform { alpha: a, beta: b, seed }
            } else {
                if !(a.is_finite() && b.is_finite() && b >= 0.0) {
                    return Err(Error::rule(
                        op,
                        "normal_std",
                        format!(
                            "mean alpha = {} must be finite and standard deviation beta = {beta} finite and ≥ 0",
                            alpha.0
                        ),
                    )
                    .about_name("beta"));
                }
                FillKind::RandomNormal { alpha: a, beta: b, seed }
            }
        }
        other => {
            return Err(Error::AttributeValue {
                op: op.into(),
                name: "operation".into(),
                value: format!("\"{other}\""),
                allowed: "linspace, random_uniform, random_normal".into(),
                hint: Box::default(),
            });
        }
    };
    Ok(Plan::Fill(FillPlan { dtype, shape, kind }))
}

fn linspace(
    op: &str,
    dtype: DType,
    shape: &[u64],
    alpha: (f64, Option<i128>),
    beta: &[(f64, Option<i128>)],
    volume: u64,
) -> Result<Linspace, Error> {
    if dtype.is_integer() {
        let range = || {
            Error::rule(op, "linspace_range", format!("alpha and beta must be whole numbers for {dtype}"))
                .about_name("beta")
        };
        let a = alpha.1.ok_or_else(range)?;
        let b: Vec<i128> = beta.iter().map(|x| x.1.ok_or_else(range)).collect::<Result<_, _>>()?;
        let a64 = i64::try_from(a).map_err(|_| range())?;
        let b64: Vec<i64> = b.iter().map(|&x| i64::try_from(x).map_err(|_| range())).collect::<Result<_, _>>()?;
        if volume > 0 {
            let (lo, hi) = crate::plan::int_linspace_span(a64, &b64, shape);
            let (tmin, tmax) = dtype.int_range().unwrap_or((0, 0));
            if lo < tmin || hi > tmax {
                return Err(Error::rule(
                    op,
                    "linspace_range",
                    format!("values span [{lo}, {hi}], outside {dtype}'s range [{tmin}, {tmax}]"),
                )
                .about_name("beta"));
            }
        }
        Ok(Linspace::Int { alpha: a64, beta: b64 })
    } else {
        let b: Vec<f64> = beta.iter().map(|x| x.0).collect();
        if volume > 0 && alpha.0.is_finite() && b.iter().all(|x| x.is_finite()) {
            // The extremes lie at the corners of the box.
            let (mut lo, mut hi) = (alpha.0, alpha.0);
            for (&bk, &d) in b.iter().zip(shape) {
                let span = bk * (d as f64 - 1.0);
                if span < 0.0 { lo += span } else { hi += span }
            }
            if lo.abs().max(hi.abs()) > f32::MAX as f64 {
                return Err(Error::rule(
                    op,
                    "linspace_range",
                    format!("values span [{lo:e}, {hi:e}], beyond f32's largest finite value"),
                )
                .about_name("beta"));
            }
        }
        Ok(Linspace::Float { alpha: alpha.0, beta: b })
    }
}
