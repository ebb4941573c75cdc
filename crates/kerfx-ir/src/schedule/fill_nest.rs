//! The fill nest: a `FillPlan` to a `FillNest` (random, exact integer, exact f32 or f64 linspace loops).

use crate::dtype::DType;
use crate::error::Error;
use crate::plan::{FillKind, FillPlan, Linspace};
use std::fmt;

/// A fill plan scheduled.
#[derive(Clone, Debug, PartialEq)]
pub struct FillNest {
    /// The output's element type.
    pub dtype: DType,
    /// The number of output elements, written in row-major order.
    pub len: u64,
    /// The loops and what they compute.
    pub body: FillBody,
}

impl FillNest {
    /// Check that the loops cover exactly `len` elements: backends write by the loops,
    /// and the buffers they are given hold `len` elements.
    pub fn verify(&self) -> Result<(), Error> {
        fn product<T>(dims: &[LinDim<T>]) -> Option<u64> {
            dims.iter().try_fold(1u64, |acc, d| acc.checked_mul(d.extent))
        }
        let covered = match &self.body {
            FillBody::Random { .. } => Some(self.len),
            FillBody::LinspaceInt { dims, .. } => product(dims),
            FillBody::LinspaceF32Exact { dims, .. } => product(dims),
            FillBody::LinspaceF64 { dims, .. } => product(dims),
        };
        if covered != Some(self.len) {
            return Err(Error::Invalid {
                what: format!("fill nest: loops cover {covered:?} elements, output has {}", self.len),
            });
        }
        Ok(())
    }
}

/// One loop of a linspace: `coef` is added per step.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct LinDim<T> {
    /// The number of steps of the loop.
    pub extent: u64,
    /// What each step adds to the value.
    pub coef: T,
}

/// What a fill computes, in the form its loops take.
#[derive(Clone, Debug, PartialEq)]
pub enum FillBody {
    /// Element i (linear index, 0..len) is a pure function of (seed, i): one flat loop.
    Random {
        /// Normal (mean `alpha`, standard deviation `beta`) rather than uniform in
        /// [alpha, beta).
        normal: bool,
        /// The uniform fill's lowest value, or the normal fill's mean.
        alpha: f32,
        /// The uniform fill's bound, or the normal fill's standard deviation.
        beta: f32,
        /// The Philox key.
        seed: u64,
    },
    /// Integer linspace, exact (wrapping arithmetic in the output's width gives the
    /// exact value, which the frontend checked fits). Extent-1 dims dropped, continuing
    /// dims merged; empty dims = one element, alpha.
    LinspaceInt {
        /// The first element's value.
        alpha: i64,
        /// The loops, outermost first.
        dims: Vec<LinDim<i64>>,
    },
    /// f32 linspace whose every partial sum is exactly representable in f32 (all values
    /// are multiples of one power of two, small enough): any order of f32 additions gives
    /// the reference's bits, so dims are dropped and merged and values computed by
    /// repeated addition.
    LinspaceF32Exact {
        /// The first element's value.
        alpha: f32,
        /// The loops, outermost first.
        dims: Vec<LinDim<f32>>,
    },
    /// General f32 linspace: per element `v = alpha; v += coef_k · a_k` in f64 for k in
    /// order, rounded once. Dims are kept exactly as in the plan (no drop, no merge).
    LinspaceF64 {
        /// The first element's value, before rounding.
        alpha: f64,
        /// The loops, one per output axis, outermost first.
        dims: Vec<LinDim<f64>>,
    },
}

/// `v = m·2^e` with m odd: e (`None` for zero).
fn lowest_exponent(v: f64) -> Option<i32> {
    if v == 0.0 {
        return None;
    }
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let mant = bits & ((1u64 << 52) - 1);
    let (m, e) = if exp == 0 { (mant, -1074) } else { (mant | (1u64 << 52), exp - 1075) };
    Some(e + m.trailing_zeros() as i32)
}

/// Whether every partial sum of the linspace is exactly an f32 (see [`FillBody`]).
fn f32_exact(alpha: f64, beta: &[f64], shape: &[u64]) -> bool {
    if !alpha.is_finite() || beta.iter().any(|b| !b.is_finite()) || (alpha == 0.0 && alpha.is_sign_negative()) {
        return false;
    }
    let values = std::iter::once(alpha).chain(beta.iter().copied());
    let Some(e_min) = values.clone().filter_map(lowest_exponent).min() else {
        return true; // all zero
    };
    if e_min < -149 {
        return false;
    }
    // |alpha| + Σ|b_k|·(d_k − 1), in units of 2^e_min.
    let units = |v: f64| -> Option<u128> {
        if v == 0.0 {
            return Some(0);
        }
        let e = lowest_exponent(v)?;
        let shift = u32::try_from(e - e_min).ok().filter(|&s| s < 64)?;
        let m = (v.abs() / 2f64.powi(e)) as u128; // exact: v = m·2^e, m < 2^53
        m.checked_shl(shift)
    };
    let mut total = match units(alpha) {
        Some(u) => u,
        None => return false,
    };
    for (&b, &d) in beta.iter().zip(shape) {
        let Some(u) = units(b) else { return false };
        let Some(t) = u.checked_mul(d.saturating_sub(1) as u128).and_then(|t| total.checked_add(t)) else {
            return false;
        };
        total = t;
    }
    total <= 1 << 24 && e_min + 24 <= 127
}

/// Schedule a fill plan.
pub fn fill(plan: &FillPlan) -> Result<FillNest, Error> {
    plan.validate()?;
    let len = crate::tensor::volume(&plan.shape)
        .ok_or_else(|| Error::TooLarge { what: format!("a fill of shape {:?}", plan.shape) })?;
    let drop_and_merge = |dims: Vec<(u64, i128)>| -> Vec<(u64, i128)> {
        let mut out: Vec<(u64, i128)> = Vec::new();
        for (e, c) in dims.into_iter().filter(|d| d.0 != 1) {
            if let Some(last) = out.last_mut()
                && last.1 == c * e as i128
            {
                last.0 *= e;
                last.1 = c;
                continue;
            }
            out.push((e, c));
        }
        out
    };
    let body = match &plan.kind {
        FillKind::RandomUniform { alpha, beta, seed } => {
            FillBody::Random { normal: false, alpha: *alpha, beta: *beta, seed: *seed }
        }
        FillKind::RandomNormal { alpha, beta, seed } => {
            FillBody::Random { normal: true, alpha: *alpha, beta: *beta, seed: *seed }
        }
        FillKind::Linspace(Linspace::Int { alpha, beta }) => {
            let dims = drop_and_merge(plan.shape.iter().zip(beta).map(|(&e, &b)| (e, b as i128)).collect());
            FillBody::LinspaceInt {
                alpha: *alpha,
                dims: dims.into_iter().map(|(extent, c)| LinDim { extent, coef: c as i64 }).collect(),
            }
        }
        FillKind::Linspace(Linspace::Float { alpha, beta }) => {
            if f32_exact(*alpha, beta, &plan.shape) {
                // Exact multiples of 2^e_min: scale to integers, merge exactly, scale back.
                let e_min =
                    std::iter::once(*alpha).chain(beta.iter().copied()).filter_map(lowest_exponent).min().unwrap_or(0);
                let scale = 2f64.powi(e_min);
                let dims =
                    drop_and_merge(plan.shape.iter().zip(beta).map(|(&e, &b)| (e, (b / scale) as i128)).collect());
                FillBody::LinspaceF32Exact {
                    alpha: *alpha as f32,
                    dims: dims
                        .into_iter()
                        .map(|(extent, c)| LinDim { extent, coef: (c as f64 * scale) as f32 })
                        .collect(),
                }
            } else {
                FillBody::LinspaceF64 {
                    alpha: *alpha,
                    dims: plan.shape.iter().zip(beta).map(|(&extent, &coef)| LinDim { extent, coef }).collect(),
                }
            }
        }
    };
    Ok(FillNest { dtype: plan.dtype, len, body })
}

impl fmt::Display for FillNest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fill {}, {} elements: ", self.dtype, self.len)?;
        fn dims<T: fmt::Display>(f: &mut fmt::Formatter<'_>, dims: &[LinDim<T>]) -> fmt::Result {
            for (k, d) in dims.iter().enumerate() {
                writeln!(f, "{}for a{k} in 0..{}:  v += {}*a{k}", "  ".repeat(k), d.extent, d.coef)?;
            }
            Ok(())
        }
        match &self.body {
            FillBody::Random { normal, alpha, beta, seed } => {
                let what = if *normal { "random_normal" } else { "random_uniform" };
                writeln!(f, "{what} alpha {alpha:?} beta {beta:?} seed {seed}")?;
                writeln!(f, "for i in 0..{}:  out[i] = philox(seed, i)", self.len)
            }
            FillBody::LinspaceInt { alpha, dims: d } => {
                writeln!(f, "linspace exact integer, v = {alpha}")?;
                dims(f, d)
            }
            FillBody::LinspaceF32Exact { alpha, dims: d } => {
                writeln!(f, "linspace exact in f32, v = {alpha:?}")?;
                dims(f, d)
            }
            FillBody::LinspaceF64 { alpha, dims: d } => {
                writeln!(f, "linspace in f64 rounded once, v = {alpha:?}")?;
                dims(f, d)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_exactness() {
        assert!(f32_exact(0.0, &[4096.0, 1.0], &[4096, 4096]));
        assert!(!f32_exact(0.0, &[4097.0, 1.0], &[4096, 4096]));
        assert!(f32_exact(0.5, &[0.25], &[100]));
        assert!(!f32_exact(0.1, &[1.0], &[10]));
        assert!(!f32_exact(-0.0, &[1.0], &[10]));
    }
}
