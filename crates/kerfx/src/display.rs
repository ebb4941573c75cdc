//! Printing tensors the way numpy does: nested brackets, row-major, long axes elided, and
//! each element as numpy prints that scalar (`str(np.float32(x))`: `1.0`, `0.1`, `1e-05`).

use kerfx_ir::scalar::{bits_to_f64, f64_to_bits, format_bits};
use kerfx_ir::{DType, Tensor};
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
        d => t.element_bits(i).map(|b| format_element(d, b)).unwrap_or_default(),
    }
}

/// One element as numpy prints the scalar: floats as the shortest decimal that reads back
/// to the same value (`str(np.float32(0.1))` is `0.1`, not f64's `0.10000000149011612`),
/// positional from 1e-4 up to numpy's per-type bound (1e3 for f16, 1e6 for f32, 1e16 for
/// f64), scientific outside it (`1e-05`, `1.5e+20`); complex as `(1+2j)`. bf16 and fp8,
/// which numpy lacks, as ml_dtypes prints them (`%g`: six significant digits). Integers
/// and bools as [`format_bits`] gives them.
pub fn format_element(dtype: DType, bits: u128) -> String {
    match dtype {
        DType::F16 => {
            let v = bits_to_f64(dtype, bits).unwrap_or(f64::NAN);
            float(shortest_digits(DType::F16, bits), v, 1e3, Dot::Keep)
        }
        DType::F32 => f32_text(f32::from_bits(bits as u32), Dot::Keep),
        DType::F64 => f64_text(f64::from_bits(bits as u64), Dot::Keep),
        DType::BF16 | DType::F8E4M3FN | DType::F8E5M2 => bits_to_f64(dtype, bits).map(percent_g).unwrap_or_default(),
        DType::C64 => complex(f32::from_bits(bits as u32), f32::from_bits((bits >> 32) as u32), f32_text),
        DType::C128 => complex(f64::from_bits(bits as u64), f64::from_bits((bits >> 64) as u64), f64_text),
        d => format_bits(d, bits),
    }
}

/// A float as sign, shortest digits and decimal exponent (value = `d.ddd × 10^exp`), or
/// one of the values that have no digits.
#[derive(Clone, Debug, PartialEq)]
enum Digits {
    Finite { negative: bool, digits: String, exp: i32 },
    Nan,
    Inf { negative: bool },
}

/// Rust's `{:e}` of a float (its shortest round-trip digits: `-1.5e-7`, `0e0`, `NaN`,
/// `inf`) as [`Digits`].
fn rust_digits(e: &str) -> Digits {
    let (negative, e) = match e.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, e),
    };
    match e {
        "NaN" => return Digits::Nan,
        "inf" => return Digits::Inf { negative },
        _ => {}
    }
    let (mantissa, exp) = e.split_once('e').unwrap_or((e, "0"));
    Digits::Finite { negative, digits: mantissa.replace('.', ""), exp: exp.parse().unwrap_or(0) }
}

/// The fewest significant digits that read back (rounded to `dtype`) to the same bits,
/// the closest such decimal: what numpy's Dragon4 prints for the types Rust has no
/// float of (f16). At each length the correctly rounded decimal and its two neighbours
/// are tried (a gap wider above a power of two may admit only the one farther away).
fn shortest_digits(dtype: DType, bits: u128) -> Digits {
    let Some(v) = bits_to_f64(dtype, bits) else { return Digits::Nan };
    if !v.is_finite() || v == 0.0 {
        return rust_digits(&format!("{v:e}"));
    }
    let (negative, a) = (v < 0.0, v.abs());
    let reads_back = |x: f64| f64_to_bits(dtype, if negative { -x } else { x }).ok() == Some(bits);
    for places in 0..17usize {
        let text = format!("{a:.places$e}");
        let Some((m, e)) = text.split_once('e') else { break };
        let (Ok(m), Ok(e)) = (m.replace('.', "").parse::<u64>(), e.parse::<i32>()) else { break };
        let scale = e - places as i32;
        let mut best: Option<(u64, f64)> = None;
        for cand in [m, m.saturating_sub(1), m + 1] {
            let Ok(x) = format!("{cand}e{scale}").parse::<f64>() else { continue };
            if cand > 0 && reads_back(x) && best.is_none_or(|(_, d)| (x - a).abs() < d) {
                best = Some((cand, (x - a).abs()));
            }
        }
        if let Some((cand, _)) = best {
            let digits = cand.to_string();
            let exp = scale + digits.len() as i32 - 1;
            return Digits::Finite { negative, digits, exp };
        }
    }
    rust_digits(&format!("{v:e}"))
}

/// An f32 as numpy prints it (`dot`: whether an integral value keeps its `.0`).
fn f32_text(v: f32, dot: Dot) -> String {
    let shortest = format!("{v:e}");
    // Rust's shortest digits round a tie in the last place up; numpy's to even, which is
    // the correctly rounded value at as many places (kept only if it reads back exactly).
    let places = shortest.split_once('e').map_or(0, |(m, _)| m.trim_start_matches('-').len().saturating_sub(2));
    let even = format!("{v:.places$e}");
    let digits = if even.parse::<f32>().is_ok_and(|b| b == v) { even } else { shortest };
    float(rust_digits(&digits), v as f64, 1e6, dot)
}

/// An f64 as numpy (and Python's `repr`) prints it.
fn f64_text(v: f64, dot: Dot) -> String {
    let shortest = format!("{v:e}");
    let places = shortest.split_once('e').map_or(0, |(m, _)| m.trim_start_matches('-').len().saturating_sub(2));
    let even = format!("{v:.places$e}");
    let digits = if even.parse::<f64>().is_ok_and(|b| b == v) { even } else { shortest };
    float(rust_digits(&digits), v, 1e16, dot)
}

/// Whether a float keeps numpy's `.0` on integral values (`1.0`) or drops it as complex
/// parts do (`(1+2j)`).
#[derive(Clone, Copy, PartialEq)]
enum Dot {
    Keep,
    Drop,
}

/// numpy's scalar rule on the value `v` its digits `d` print: positional for zero and for
/// 1e-4 ≤ |v| < `bound` (the exact value decides: f32's 1e-4 is just below it, `1e-04`),
/// else scientific with a signed exponent of at least two digits.
fn float(d: Digits, v: f64, bound: f64, dot: Dot) -> String {
    let magnitude = v.abs();
    match d {
        Digits::Nan => "nan".into(),
        Digits::Inf { negative } => if negative { "-inf" } else { "inf" }.into(),
        Digits::Finite { negative, digits, exp } => {
            let sign = if negative { "-" } else { "" };
            let digits = digits.trim_end_matches('0');
            let digits = if digits.is_empty() { "0" } else { digits };
            if digits == "0" || (1e-4..bound).contains(&magnitude) {
                format!("{sign}{}", positional(digits, exp, dot))
            } else {
                let (lead, rest) = digits.split_at(1);
                let rest = if rest.is_empty() { String::new() } else { format!(".{rest}") };
                let esign = if exp < 0 { '-' } else { '+' };
                format!("{sign}{lead}{rest}e{esign}{:02}", exp.unsigned_abs())
            }
        }
    }
}

/// `digits` (d.ddd × 10^exp) written out: `1234.5`, `0.00015`, `100.0` (`100` with
/// [`Dot::Drop`]).
fn positional(digits: &str, exp: i32, dot: Dot) -> String {
    if digits == "0" {
        return if dot == Dot::Keep { "0.0".into() } else { "0".into() };
    }
    if exp < 0 {
        return format!("0.{}{digits}", "0".repeat((-exp - 1) as usize));
    }
    let int_len = exp as usize + 1;
    if digits.len() > int_len {
        format!("{}.{}", &digits[..int_len], &digits[int_len..])
    } else {
        let int = format!("{digits}{}", "0".repeat(int_len - digits.len()));
        if dot == Dot::Keep { format!("{int}.0") } else { int }
    }
}

/// numpy's complex scalars: `(re+imj)`, parts without `.0`; `imj` alone when the real part
/// is +0 (`2j`, `-0j`).
fn complex<F: Copy + Into<f64>>(re: F, im: F, text: fn(F, Dot) -> String) -> String {
    let (re64, im64): (f64, f64) = (re.into(), im.into());
    let im_sign = if im64.is_sign_negative() && !im64.is_nan() { '-' } else { '+' };
    let im_text = text(im, Dot::Drop);
    let im_text = im_text.strip_prefix('-').unwrap_or(&im_text);
    if re64 == 0.0 && re64.is_sign_positive() {
        let sign = if im_sign == '-' { "-" } else { "" };
        return format!("{sign}{im_text}j");
    }
    format!("({}{im_sign}{im_text}j)", text(re, Dot::Drop))
}

/// C's `%g` (six significant digits, trailing zeros dropped, scientific below 1e-4 and
/// from 1e6), as ml_dtypes prints bf16 and fp8 values.
fn percent_g(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.into();
    }
    let Digits::Finite { negative, digits, exp } = rust_digits(&format!("{v:.5e}")) else { return String::new() };
    let sign = if negative { "-" } else { "" };
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    if digits == "0" {
        return format!("{sign}0");
    }
    if (-4..6).contains(&exp) {
        format!("{sign}{}", positional(digits, exp, Dot::Drop))
    } else {
        let (lead, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{lead}{rest}e{esign}{:02}", exp.unsigned_abs())
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

    /// Each element as numpy (and, for bf16 and fp8, ml_dtypes) prints the scalar: the
    /// expected strings are `str(np.float32(x))` etc. from numpy 2.4. (Checked once against
    /// every f16, bf16 and fp8 value and 400,000 random f32 and f64 values.)
    #[test]
    fn elements_print_as_numpy_prints_them() {
        let cases: &[(DType, u128, &str)] = &[
            (DType::F32, 0x3f800000, "1.0"),
            (DType::F32, 0x3dcccccd, "0.1"),
            (DType::F32, 0x3727c5ac, "1e-05"),
            (DType::F32, 0x38d1b717, "1e-04"),
            (DType::F32, 0x391d4952, "0.00015"),
            (DType::F32, 0x80000000, "-0.0"),
            (DType::F32, 0x7fc00000, "nan"),
            (DType::F32, 0xff800000, "-inf"),
            (DType::F32, 0x497423f0, "999999.0"),
            (DType::F32, 0x49742400, "1e+06"),
            (DType::F32, 0x4ceb79a3, "1.2345679e+08"),
            (DType::F32, 0x4a150dc1, "2.4420962e+06"),
            (DType::F32, 0x48e62cd4, "471398.62"),
            (DType::F32, 0x7f7fffff, "3.4028235e+38"),
            (DType::F32, 0x1, "1e-45"),
            (DType::F32, 0x3e99999a, "0.3"),
            (DType::F64, 0x3ff0000000000000, "1.0"),
            (DType::F64, 0x3fb999999999999a, "0.1"),
            (DType::F64, 0x3ee4f8b588e368f1, "1e-05"),
            (DType::F64, 0x3f1a36e2eb1c432d, "0.0001"),
            (DType::F64, 0x430c6bf526340000, "1000000000000000.0"),
            (DType::F64, 0x4341c37937e08000, "1e+16"),
            (DType::F64, 0x3fd3333333333334, "0.30000000000000004"),
            (DType::F64, 0x1, "5e-324"),
            (DType::F64, 0xc004000000000000, "-2.5"),
            (DType::F64, 0x7ff0000000000000, "inf"),
            (DType::F16, 0x2e66, "0.1"),
            (DType::F16, 0x2400, "0.01563"),
            (DType::F16, 0x63ce, "999.0"),
            (DType::F16, 0x63d0, "1e+03"),
            (DType::F16, 0x7bff, "6.55e+04"),
            (DType::F16, 0x1, "6e-08"),
            (DType::F16, 0x8000, "-0.0"),
            (DType::BF16, 0x3dcd, "0.100098"),
            (DType::BF16, 0x3f80, "1"),
            (DType::BF16, 0x4641, "12352"),
            (DType::BF16, 0x3728, "1.00136e-05"),
            (DType::F8E4M3FN, 0x1d, "0.101562"),
            (DType::F8E4M3FN, 0x7e, "448"),
            (DType::C64, 0x400000003f800000, "(1+2j)"),
            (DType::C64, 0x4000000000000000, "2j"),
            (DType::C64, 0xbf00000049742400, "(1e+06-0.5j)"),
            (DType::C64, 0x3f80000080000000, "(-0+1j)"),
            (DType::C128, 0xbfe00000000000003ff8000000000000, "(1.5-0.5j)"),
            (DType::C128, 0x80000000000000000000000000000000, "-0j"),
            (DType::C128, 0x7ff80000000000003ff0000000000000, "(1+nanj)"),
            (DType::C128, 0x4341c37937e08000430c6bf526340000, "(1000000000000000+1e+16j)"),
        ];
        for &(dtype, bits, want) in cases {
            assert_eq!(format_element(dtype, bits), want, "{dtype} {bits:#x}");
        }
        let t = Tensor::from_bytes(DType::F32, &[3], &[1f32, 0.5, 1e-5].map(f32::to_le_bytes).concat()).unwrap();
        assert_eq!(format_values(&t), "[1.0, 0.5, 1e-05]");
    }

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
