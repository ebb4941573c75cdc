//! Printing tensors the way numpy does: nested brackets, row-major, long axes elided.

use kerf_ir::scalar::format_bits;
use kerf_ir::{DType, Tensor};
use std::fmt::Write;

/// Above this many elements, each axis shows only its first and last `EDGE` entries.
const SUMMARY_THRESHOLD: u64 = 1000;
const EDGE: u64 = 3;

/// `dtype[shape]` followed by the values, e.g. `f32[2, 2] [[0, 1], [3, 4]]`.
pub fn describe(t: &Tensor) -> String {
    format!("{}{:?} {}", t.dtype(), t.shape(), format_values(t))
}

/// The values as nested brackets (one line per outer row for rank ≥ 2).
pub fn format_values(t: &Tensor) -> String {
    let summarize = t.len() > SUMMARY_THRESHOLD;
    let mut out = String::new();
    let shape = t.shape().to_vec();
    let mut strides = vec![1u64; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * shape[k + 1];
    }
    nest(t, &shape, &strides, 0, 0, summarize, &mut out);
    out
}

fn element(t: &Tensor, i: u64) -> String {
    match t.dtype() {
        DType::String => format!("{:?}", t.strings().and_then(|s| s.get(i as usize)).unwrap_or("")),
        d => t.element_bits(i).map(|b| format_bits(d, b)).unwrap_or_default(),
    }
}

fn nest(t: &Tensor, shape: &[u64], strides: &[u64], axis: usize, offset: u64, summarize: bool, out: &mut String) {
    if axis == shape.len() {
        out.push_str(&element(t, offset));
        return;
    }
    let d = shape[axis];
    out.push('[');
    let rank = shape.len();
    let sep = if axis + 1 < rank { format!(",\n{}", " ".repeat(axis + 1)) } else { ", ".to_string() };
    let mut first = true;
    let mut i = 0;
    while i < d {
        if summarize && d > 2 * EDGE && i == EDGE {
            let _ = write!(out, "{sep}...");
            i = d - EDGE;
            continue;
        }
        if !first {
            out.push_str(&sep);
        }
        first = false;
        nest(t, shape, strides, axis + 1, offset + i * strides[axis], summarize, out);
        i += 1;
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_brackets() {
        let t = Tensor::from_i64s(&[0, 1, 2, 3, 4, 5]).reshaped(&[2, 3]).unwrap();
        assert_eq!(format_values(&t), "[[0, 1, 2],\n [3, 4, 5]]");
        let s = Tensor::scalar_bits(DType::F32, 1.5f32.to_bits() as u128);
        assert_eq!(describe(&s), "f32[] 1.5");
        let e = Tensor::zeros(DType::I8, &[0, 3]).unwrap();
        assert_eq!(format_values(&e), "[]");
        let big = Tensor::zeros(DType::U8, &[2000]).unwrap();
        assert_eq!(format_values(&big), "[0, 0, 0, ..., 0, 0, 0]");
    }
}
