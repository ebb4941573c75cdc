//! A map evaluated element by element.

use super::{Head, Map, Outcome, Segment};
use crate::error::Error;
use crate::reference::{fill_element, store_bits, unravel};
use crate::tensor::{Tensor, TensorView, ViewData, volume};

/// Evaluate a chain's segments one after another, each fused (the reference of a chain
/// [`compose_segments`](super::compose_segments) cut): each segment reads the one before's output.
pub fn evaluate_segments(segments: &[Segment], input: Option<TensorView<'_>>) -> Result<Tensor, Error> {
    let mut out: Option<Tensor> = None;
    for s in segments {
        let data = match &out {
            Some(t) => Some(t.view()),
            None => input,
        };
        out = Some(evaluate(&s.fused, data)?);
    }
    out.ok_or_else(|| Error::Invalid { what: "a chain has at least one segment".into() })
}

/// Evaluate a map element by element (the reference of the composed form: the steps run
/// one by one, [`crate::chain::evaluate_unfused`], are the oracle both are checked against).
pub fn evaluate(f: &Map, input: Option<TensorView<'_>>) -> Result<Tensor, Error> {
    f.validate()?;
    let head_shape = f.head_shape().to_vec();
    let input = match &f.head {
        Head::Fill(_) => None,
        Head::Input { shape } => {
            let input =
                input.ok_or_else(|| Error::Invalid { what: "a chain of slices needs its data input".into() })?;
            if input.dtype != f.dtype || input.shape != shape.as_slice() {
                return Err(Error::Mismatch {
                    what: "chain input".into(),
                    expected: format!("{} {shape:?}", f.dtype),
                    found: format!("{} {:?}", input.dtype, input.shape),
                });
            }
            input.check("chain input")?;
            Some(input)
        }
    };
    let core = f.core_shape();
    let mut out = match input.map(|i| i.data) {
        Some(ViewData::Strings(s)) => {
            let n = volume(&core).and_then(|n| usize::try_from(n).ok());
            let strings = n.and_then(|n| crate::tensor::Strings::empty(s.width(), n));
            let too_large = || Error::TooLarge { what: format!("a string tensor of shape {core:?}") };
            Tensor::from_string_storage(&core, strings.ok_or_else(too_large)?)?
        }
        _ => Tensor::zeros(f.dtype, &core)?,
    };
    // (Validated: a reshape of the head.)
    let source = f.source_shape().to_vec();
    let strides = crate::tensor::row_major_strides(&source);
    // A fill's elements are computed from their coordinates in the fill's own shape.
    let mut head_at = vec![0u64; head_shape.len()];
    // (Validated: every position of every axis has an outcome.)
    let unsaid = || Error::Invalid { what: "map: an axis whose pieces do not cover it".into() };
    let fixed: Vec<(Option<usize>, Outcome)> =
        f.fixed.iter().map(|a| Ok((a.head_axis, a.outcome(0).ok_or_else(unsaid)?))).collect::<Result<_, Error>>()?;
    let mut y = vec![0u64; core.len()];
    let mut at = vec![0u64; source.len()];
    let layout = f.dtype.layout();
    for i in 0..out.len() {
        unravel(i, &core, &mut y);
        let outcomes = f.axes.iter().zip(&y).map(|(a, &y)| (a.head_axis, a.outcome(y)));
        let mut step = 0;
        at.fill(0);
        for (h, o) in outcomes.chain(fixed.iter().map(|&(h, o)| (h, Some(o)))) {
            let o = o.ok_or_else(unsaid)?;
            match (o, h) {
                (Outcome::Const(s), _) => step = step.max(s),
                (Outcome::Read(z), Some(h)) => at[h] = z as u64,
                (Outcome::Read(_), None) => {}
            }
        }
        // An element that reads the head reads inside it (validated), so its offset fits;
        // a fill element's coordinates may meet strides saturated inside an empty axis.
        let src: u64 = if step > 0 { 0 } else { at.iter().zip(&strides).map(|(a, s)| a * s).sum() };
        match (&f.head, input.map(|i| i.data)) {
            // The fill value of strings is the empty string: the output's zeros.
            (_, Some(ViewData::Strings(s))) => {
                if step == 0 {
                    out.strings_mut().expect("string output").copy_from(i as usize, s, src as usize)?;
                }
            }
            (head, _) => {
                let bits = if step > 0 {
                    f.fill_bits[step - 1]
                } else {
                    match head {
                        Head::Fill(p) => {
                            unravel(src, &head_shape, &mut head_at);
                            fill_element(p, src, &head_at)?
                        }
                        Head::Input { .. } => input.and_then(|v| v.element_bits(src)).ok_or_else(|| {
                            Error::Invalid { what: format!("input element {src} is outside its buffer") }
                        })?,
                    }
                };
                store_bits(&mut out, layout, i, bits);
            }
        }
    }
    out.reshaped(&f.output_shape)
}
