//! The reference interpreter: evaluates any Plan element by element with the formulas
//! of specs/SEMANTICS.md as written. Slow and obviously right: the oracle every backend is
//! tested against.

use crate::dtype::{DType, Layout};
use crate::error::Error;
use crate::plan::{FillKind, FillPlan, Linspace, Plan, Step};
use crate::random;
use crate::scalar::int_to_bits;
use crate::tensor::{Tensor, TensorView, ViewData};

/// Run a plan. Slices take their data input; fills take none.
pub fn evaluate(plan: &Plan, input: Option<TensorView<'_>>) -> Result<Tensor, Error> {
    plan.validate()?;
    match plan {
        Plan::Step(p) => {
            let input = input.ok_or_else(|| Error::Invalid { what: "a slice needs its data input".into() })?;
            slice(p, input)
        }
        Plan::Fill(p) => fill(p),
    }
}

/// Multi-index of linear index `i` in a row-major shape.
pub(crate) fn unravel(mut i: u64, shape: &[u64], out: &mut [u64]) {
    for (k, &d) in shape.iter().enumerate().rev() {
        out[k] = i % d;
        i /= d;
    }
}

/// Run a slice step on its data input, element by element. An error when the plan is
/// invalid or the input's dtype or shape is not the plan's.
pub fn slice(plan: &Step, input: TensorView<'_>) -> Result<Tensor, Error> {
    plan.validate()?;
    if input.dtype != plan.dtype || input.shape != plan.input_shape.as_slice() {
        return Err(Error::Mismatch {
            what: "slice input".into(),
            expected: format!("{} {:?}", plan.dtype, plan.input_shape),
            found: format!("{} {:?}", input.dtype, input.shape),
        });
    }
    input.check("slice input")?;
    let core = plan.core_shape();
    let mut out = match input.data {
        // Output strings are as wide as the input's.
        ViewData::Strings(s) => {
            let n = crate::tensor::volume(&core).and_then(|n| usize::try_from(n).ok());
            let strings = n.and_then(|n| crate::tensor::Strings::empty(s.width(), n));
            let too_large = || Error::TooLarge { what: format!("a string tensor of shape {core:?}") };
            Tensor::from_string_storage(&core, strings.ok_or_else(too_large)?)?
        }
        ViewData::Bytes(_) => Tensor::zeros(plan.dtype, &core)?,
    };
    let n = out.len();
    let rank = core.len();
    let mut y = vec![0u64; rank];
    // Row-major strides of the source (the input read as `source_shape`), in elements.
    // With an empty axis the product of the axes inside it may overflow (e.g. [0, 2^40,
    // 2^40]); no element is then read through those strides (the empty axis sends every
    // read to the fill value), so saturate.
    let in_strides = crate::tensor::row_major_strides(plan.source());
    // Core position j of the output walks source axis order[j].
    let mut at = vec![0u64; rank];
    for i in 0..n {
        unravel(i, &core, &mut y);
        for (j, &yj) in y.iter().enumerate() {
            at[plan.source_axis(j)] = yj;
        }
        // The source element, or None for the fill value.
        let mut src = Some(0u64);
        for k in 0..rank {
            // The mode sees the axis's window: x counts from its first element (validated:
            // a gathered axis's positions index its list).
            let w = plan.window(k);
            let x = plan.x(k, at[k]).unwrap_or(i128::MAX);
            let x = i64::try_from(x).map_err(|_| Error::Overflow {
                op: "reference".into(),
                what: format!("axis {k} coordinate"),
                value: x.to_string(),
            })?;
            let z = plan.mode.source_index(x, w.len);
            src = match (src, z) {
                (Some(s), Some(z)) => Some(s + (w.lo + z) * in_strides[k]),
                _ => None,
            };
        }
        match (&input.data, plan.dtype.layout()) {
            (ViewData::Strings(s), _) => {
                // The fill value of strings is the empty string: the output's zeros.
                if let Some(s_i) = src {
                    out.strings_mut().expect("string output").copy_from(i as usize, s, s_i as usize)?;
                }
            }
            (ViewData::Bytes(_), layout) => {
                let bits = match src {
                    Some(s_i) => input
                        .element_bits(s_i)
                        .ok_or_else(|| Error::Invalid { what: format!("input element {s_i} is outside its buffer") })?,
                    None => plan.fill_bits,
                };
                store_bits(&mut out, layout, i, bits);
            }
        }
    }
    out.reshaped(&plan.output_shape)
}

pub(crate) fn store_bits(out: &mut Tensor, layout: Layout, i: u64, bits: u128) {
    let bytes = out.bytes_mut().expect("byte tensor");
    match layout {
        Layout::Bytes(w) => {
            let at = i as usize * w;
            bytes[at..at + w].copy_from_slice(&bits.to_le_bytes()[..w]);
        }
        Layout::Nibbles => {
            let at = (i / 2) as usize;
            let shift = (i % 2) * 4;
            bytes[at] = (bytes[at] & !(0xf << shift)) | (((bits as u8) & 0xf) << shift);
        }
        Layout::Strings => unreachable!("strings are stored as strings"),
    }
}

/// Run a fill plan: every element by [`fill_element`]. An error when the plan is invalid
/// or the output too large to allocate.
pub fn fill(plan: &FillPlan) -> Result<Tensor, Error> {
    plan.validate()?;
    let mut out = Tensor::zeros(plan.dtype, &plan.shape)?;
    let n = out.len();
    let mut a = vec![0u64; plan.shape.len()];
    let layout = plan.dtype.layout();
    for i in 0..n {
        unravel(i, &plan.shape, &mut a);
        store_bits(&mut out, layout, i, fill_element(plan, i, &a)?);
    }
    Ok(out)
}

/// The bits of a fill's element at linear index `i`, multi-index `a` (row-major in
/// `plan.shape`): the formulas of SEMANTICS.md. Chains that start with a fill evaluate it
/// here at the element each output element maps to.
pub fn fill_element(plan: &FillPlan, i: u64, a: &[u64]) -> Result<u128, Error> {
    let f16 = plan.dtype == DType::F16;
    Ok(match &plan.kind {
        FillKind::Linspace(Linspace::Int { alpha, beta }) => {
            let v = linspace_int(*alpha, beta.iter().copied().zip(a.iter().copied()));
            int_to_bits(plan.dtype, v)
                .map_err(|e| Error::Invalid { what: format!("linspace value {v} as {}: {e}", plan.dtype) })?
        }
        FillKind::Linspace(Linspace::Float { alpha, beta }) => {
            linspace_f32(*alpha, beta.iter().copied().zip(a.iter().copied())).to_bits() as u128
        }
        FillKind::RandomUniform { alpha, beta, seed } => random_bits(false, f16, *alpha, *beta, *seed, i),
        FillKind::RandomNormal { alpha, beta, seed } => random_bits(true, f16, *alpha, *beta, *seed, i),
    })
}

/// An integer linspace's value `alpha + Σk beta_k·a_k`, exactly, from its (beta_k, a_k).
pub fn linspace_int(alpha: i64, terms: impl Iterator<Item = (i64, u64)>) -> i128 {
    alpha as i128 + terms.map(|(b, ak)| b as i128 * ak as i128).sum::<i128>()
}

/// A float linspace's value: `v = alpha; v += beta_k·a_k` in f64 for k in order, rounded
/// once to f32.
pub fn linspace_f32(alpha: f64, terms: impl Iterator<Item = (f64, u64)>) -> f32 {
    linspace_f64(alpha, terms) as f32
}

/// The f64 sum of [`linspace_f32`] before its rounding (a backend that keeps the sum over
/// the leading axes adds the last term to it, in the same order).
pub fn linspace_f64(alpha: f64, terms: impl Iterator<Item = (f64, u64)>) -> f64 {
    let mut v = alpha;
    for (b, ak) in terms {
        v += b * ak as f64;
    }
    v
}

/// The bits of element `i` of a random fill (f32, or f16 when `f16`).
pub fn random_bits(normal: bool, f16: bool, alpha: f32, beta: f32, seed: u64, i: u64) -> u128 {
    match (normal, f16) {
        (false, true) => random::uniform_f16(seed, i, alpha, beta) as u128,
        (false, false) => random::uniform_f32(seed, i, alpha, beta).to_bits() as u128,
        (true, true) => half::f16::from_f32(random::normal_f32(seed, i, alpha, beta)).to_bits() as u128,
        (true, false) => random::normal_f32(seed, i, alpha, beta).to_bits() as u128,
    }
}
