//! Conversions between element bits and numbers: fill values, alpha/beta, printing.

use crate::{DType, fp8};
use half::{bf16, f16};

/// Element bits of `dtype` as f64 (complex: the real part). `None` for strings.
pub fn bits_to_f64(dtype: DType, bits: u128) -> Option<f64> {
    Some(match dtype {
        DType::Bool => (bits & 1) as f64,
        DType::I4 => ((((bits as u8) << 4) as i8) >> 4) as f64,
        DType::U4 => (bits & 0xf) as f64,
        DType::I8 => bits as u8 as i8 as f64,
        DType::U8 => bits as u8 as f64,
        DType::I16 => bits as u16 as i16 as f64,
        DType::U16 => bits as u16 as f64,
        DType::I32 => bits as u32 as i32 as f64,
        DType::U32 => bits as u32 as f64,
        DType::I64 => bits as u64 as i64 as f64,
        DType::U64 => bits as u64 as f64,
        DType::F8E4M3FN => fp8::e4m3fn_to_f32(bits as u8) as f64,
        DType::F8E5M2 => fp8::e5m2_to_f32(bits as u8) as f64,
        DType::F16 => f16::from_bits(bits as u16).to_f64(),
        DType::BF16 => bf16::from_bits(bits as u16).to_f64(),
        DType::F32 => f32::from_bits(bits as u32) as f64,
        DType::F64 => f64::from_bits(bits as u64),
        DType::C64 => f32::from_bits(bits as u32) as f64,
        DType::C128 => f64::from_bits(bits as u64),
        DType::String => return None,
    })
}

/// Why a number cannot become an element of a dtype.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConvertError {
    /// NaN or infinity for an integer type.
    NotFinite,
    /// Not an integer, for an integer type.
    NotIntegral,
    /// Outside the integer type's range, or beyond the largest finite float.
    OutOfRange,
    /// The dtype has no numeric elements.
    NotNumeric,
}

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ConvertError::NotFinite => "NaN and infinity have no integer value",
            ConvertError::NotIntegral => "it is not a whole number",
            ConvertError::OutOfRange => "it is outside the type's range",
            ConvertError::NotNumeric => "the type holds no numbers",
        })
    }
}

/// A number as element bits of `dtype`: exact for integers (else an error naming why),
/// round-to-nearest-even for floats. A finite value beyond a float type's largest
/// finite value is an error too (fp8 E4M3FN has no infinity; for the others, a fill
/// value turning into infinity is almost surely a mistake).
pub fn f64_to_bits(dtype: DType, v: f64) -> Result<u128, ConvertError> {
    if dtype.is_integer() || dtype == DType::Bool {
        if !v.is_finite() {
            return Err(ConvertError::NotFinite);
        }
        if v.fract() != 0.0 {
            return Err(ConvertError::NotIntegral);
        }
        // |v| < 2^64 is checked before the cast so the i128 conversion is exact.
        if v.abs() >= 2f64.powi(64) {
            return Err(ConvertError::OutOfRange);
        }
        return int_to_bits(dtype, v as i128);
    }
    let narrow = |format: &NarrowFloat, from_f32: fn(f32) -> u128| {
        if !v.is_finite() {
            // NaN and infinities are exact in f32; their encodings are the type's own.
            return Ok(from_f32(v as f32));
        }
        format.round(v).ok_or(ConvertError::OutOfRange)
    };
    let bits = match dtype {
        DType::F8E4M3FN => narrow(&NarrowFloat::E4M3FN, |x| fp8::f32_to_e4m3fn(x, false) as u128)?,
        DType::F8E5M2 => narrow(&NarrowFloat::E5M2, |x| fp8::f32_to_e5m2(x, false) as u128)?,
        DType::F16 => narrow(&NarrowFloat::F16, |x| f16::from_f32(x).to_bits() as u128)?,
        DType::BF16 => narrow(&NarrowFloat::BF16, |x| bf16::from_f32(x).to_bits() as u128)?,
        DType::F32 => {
            let x = v as f32;
            if v.is_finite() && x.is_infinite() {
                return Err(ConvertError::OutOfRange);
            }
            x.to_bits() as u128
        }
        DType::F64 => v.to_bits() as u128,
        DType::C64 => (v as f32).to_bits() as u128,
        DType::C128 => v.to_bits() as u128,
        _ => return Err(ConvertError::NotNumeric),
    };
    Ok(bits)
}

/// A binary floating-point format narrower than f64, for exact conversions from f64:
/// `half` converts f64 → f16 through f32 on CPUs with F16C (two roundings, and an answer
/// that depends on the CPU), so kerf rounds from the exact f64 value itself.
struct NarrowFloat {
    /// Stored mantissa bits (the precision is one more).
    mantissa: u32,
    /// Exponent bias; the smallest normal exponent is `1 - bias`.
    bias: i32,
    /// The largest finite value: `max_significand · 2^max_exponent`, the significand
    /// an integer of `mantissa + 1` bits.
    max_significand: u64,
    max_exponent: i32,
}

impl NarrowFloat {
    const F16: NarrowFloat = NarrowFloat { mantissa: 10, bias: 15, max_significand: 0x7ff, max_exponent: 5 };
    const BF16: NarrowFloat = NarrowFloat { mantissa: 7, bias: 127, max_significand: 0xff, max_exponent: 120 };
    /// E4M3FN: no infinities; exponent field 15 holds finite values up to 1.75 · 2^8 = 448.
    const E4M3FN: NarrowFloat = NarrowFloat { mantissa: 3, bias: 7, max_significand: 0b1110, max_exponent: 5 };
    const E5M2: NarrowFloat = NarrowFloat { mantissa: 2, bias: 15, max_significand: 0b111, max_exponent: 13 };

    /// The bits of the finite `v` rounded once, to nearest with ties to even, or `None`
    /// when it rounds beyond the largest finite value.
    fn round(&self, v: f64) -> Option<u128> {
        let sign = (v.is_sign_negative() as u128) << (self.mantissa + self.exponent_bits());
        if v == 0.0 {
            return Some(sign);
        }
        // |v| = m · 2^e exactly, m < 2^53.
        let raw = v.abs().to_bits();
        let (f64_exp, f64_frac) = ((raw >> 52) as i32, raw & ((1 << 52) - 1));
        let (m, e) = if f64_exp == 0 { (f64_frac, -1074) } else { (f64_frac | 1 << 52, f64_exp - 1075) };
        // The quantum (unit in the last place) of the result: from |v|'s binade, but no
        // finer than the subnormals' quantum.
        let top = e + 63 - m.leading_zeros() as i32; // floor(log2 |v|)
        let min_normal_exp = 1 - self.bias;
        let q = top.max(min_normal_exp) - self.mantissa as i32;
        // n = |v| / 2^q rounded to nearest, ties to even.
        let mut n: u128 = if e >= q {
            // Exact: n < 2^(mantissa + 1), so the shift is at most mantissa + 1.
            (m as u128) << (e - q) as u32
        } else {
            let shift = (q - e) as u32;
            if shift > 60 {
                0 // far below half the quantum
            } else {
                let (whole, rest) = ((m >> shift) as u128, m & ((1 << shift) - 1));
                let half = 1u64 << (shift - 1);
                whole + (rest > half || (rest == half && whole & 1 == 1)) as u128
            }
        };
        let mut q = q;
        if n >> (self.mantissa + 1) != 0 {
            // Rounded up into the next binade: n = 2^(p), exact after the shift.
            n >>= 1;
            q += 1;
        }
        let exceeds = q > self.max_exponent || (q == self.max_exponent && n > self.max_significand as u128);
        if exceeds {
            return None;
        }
        if n >> self.mantissa == 0 {
            return Some(sign | n); // subnormal (or zero after rounding)
        }
        let exponent = (q + self.mantissa as i32 + self.bias) as u128;
        Some(sign | exponent << self.mantissa | (n & ((1 << self.mantissa) - 1)))
    }

    fn exponent_bits(&self) -> u32 {
        (2 * self.bias as u32 + 1).ilog2() + 1
    }
}

/// An integer as element bits of an integer dtype, if it fits.
pub fn int_to_bits(dtype: DType, v: i128) -> Result<u128, ConvertError> {
    let (lo, hi) = if dtype == DType::Bool { (0, 1) } else { dtype.int_range().ok_or(ConvertError::NotNumeric)? };
    if v < lo || v > hi {
        return Err(ConvertError::OutOfRange);
    }
    let width_bits = match dtype {
        DType::I4 | DType::U4 => 4,
        DType::Bool | DType::I8 | DType::U8 => 8,
        DType::I16 | DType::U16 => 16,
        DType::I32 | DType::U32 => 32,
        _ => 64,
    };
    Ok((v as u128) & ((1u128 << width_bits) - 1))
}

/// An integer as element bits of any numeric dtype: exact for integer types (else an
/// error), rounded once to nearest for float types (the real part for complex). Going
/// through `v as f64` would round twice for |v| > 2^53 (and 2^60 + 2^36 + 1 would become
/// 2^60 in f32, not 2^60 + 2^37), so `v` is first rounded to odd at f64's 53 bits: a
/// second rounding to any format of at most 51 bits is then the correct one.
pub fn integer_to_bits(dtype: DType, v: i128) -> Result<u128, ConvertError> {
    if dtype.is_integer() || dtype == DType::Bool {
        return int_to_bits(dtype, v);
    }
    if matches!(dtype, DType::F64 | DType::C128) {
        return f64_to_bits(dtype, v as f64); // one rounding
    }
    let m = v.unsigned_abs();
    let shift = (128 - m.leading_zeros()).saturating_sub(53);
    let mut odd = m >> shift << shift;
    if odd != m {
        odd |= 1 << shift; // sticky: inexact values land on an odd significand
    }
    // `odd` has at most 53 significant bits: exact in f64.
    let x = odd as f64;
    f64_to_bits(dtype, if v < 0 { -x } else { x })
}

/// Element bits of `from` converted to `to` ("implicitly convertible", for fill values
/// given in another type than the data's): through an exact integer when both are
/// integers, else through f64.
pub fn convert_bits(from: DType, bits: u128, to: DType) -> Result<u128, ConvertError> {
    if from == to {
        return Ok(bits);
    }
    let from_int = from.is_integer() || from == DType::Bool;
    let to_int = to.is_integer() || to == DType::Bool;
    if from_int && to_int {
        let v = match from {
            DType::Bool | DType::U4 | DType::U8 | DType::U16 | DType::U32 | DType::U64 => bits as i128,
            _ => bits_to_f64(from, bits).ok_or(ConvertError::NotNumeric)? as i128,
        };
        // i64 needs the exact path: f64 would lose low bits.
        let v = if from == DType::I64 { bits as u64 as i64 as i128 } else { v };
        return int_to_bits(to, v);
    }
    if from_int {
        let v = match from {
            DType::I64 => bits as u64 as i64 as i128,
            DType::U64 => bits as u64 as i128,
            _ => bits_to_f64(from, bits).ok_or(ConvertError::NotNumeric)? as i128,
        };
        return integer_to_bits(to, v);
    }
    f64_to_bits(to, bits_to_f64(from, bits).ok_or(ConvertError::NotNumeric)?)
}

/// One element as text, for printing tensors.
pub fn format_bits(dtype: DType, bits: u128) -> String {
    match dtype {
        DType::Bool => (bits & 1 == 1).to_string(),
        DType::I64 => (bits as u64 as i64).to_string(),
        DType::U64 => (bits as u64).to_string(),
        DType::C64 => format!("{}{:+}i", f32::from_bits(bits as u32), f32::from_bits((bits >> 32) as u32)),
        DType::C128 => format!("{}{:+}i", f64::from_bits(bits as u64), f64::from_bits((bits >> 64) as u64)),
        d if d.is_integer() => bits_to_f64(d, bits).map(|v| (v as i64).to_string()).unwrap_or_default(),
        DType::F32 => f32::from_bits(bits as u32).to_string(),
        d => bits_to_f64(d, bits).map(|v| v.to_string()).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Integers become floats with one rounding, even beyond 2^53 (where f64 is inexact).
    #[test]
    fn integers_round_once_to_floats() {
        let v: i128 = (1 << 60) + (1 << 36) + 1; // just above an f32 tie
        let want = ((1u64 << 60) + (1 << 37)) as f32;
        assert_eq!(v as i64 as f32, want, "Rust's own cast rounds once");
        assert_eq!(integer_to_bits(DType::F32, v), Ok(want.to_bits() as u128));
        assert_eq!(integer_to_bits(DType::F32, -v), Ok((-want).to_bits() as u128));
        assert_eq!(integer_to_bits(DType::C64, v), Ok(want.to_bits() as u128));
        assert_eq!(integer_to_bits(DType::BF16, v), f64_to_bits(DType::BF16, want as f64));
        assert_eq!(integer_to_bits(DType::F64, v), Ok((v as f64).to_bits() as u128));
        assert_eq!(integer_to_bits(DType::F32, 3), Ok(3f32.to_bits() as u128));
        assert_eq!(integer_to_bits(DType::I8, -3), Ok(0xfd));
        assert_eq!(integer_to_bits(DType::I8, 300), Err(ConvertError::OutOfRange));
        assert_eq!(integer_to_bits(DType::F16, 1 << 20), Err(ConvertError::OutOfRange));
        assert_eq!(integer_to_bits(DType::String, 1), Err(ConvertError::NotNumeric));
        assert_eq!(convert_bits(DType::I64, v as u128, DType::F32), Ok(want.to_bits() as u128));
        assert_eq!(
            convert_bits(DType::U64, u64::MAX as u128, DType::F32),
            Ok(u64::MAX as f32).map(|x| x.to_bits() as u128)
        );
    }

    #[test]
    fn integer_fill_values_are_exact_or_refused() {
        assert_eq!(f64_to_bits(DType::I8, -1.0), Ok(0xff));
        assert_eq!(f64_to_bits(DType::I8, 128.0), Err(ConvertError::OutOfRange));
        assert_eq!(f64_to_bits(DType::I32, 1.5), Err(ConvertError::NotIntegral));
        assert_eq!(f64_to_bits(DType::I32, f64::NAN), Err(ConvertError::NotFinite));
        assert_eq!(f64_to_bits(DType::I4, -8.0), Ok(0x8));
        assert_eq!(f64_to_bits(DType::I4, 8.0), Err(ConvertError::OutOfRange));
        assert_eq!(f64_to_bits(DType::Bool, 1.0), Ok(1));
        assert_eq!(f64_to_bits(DType::Bool, 2.0), Err(ConvertError::OutOfRange));
        assert_eq!(f64_to_bits(DType::U64, -1.0), Err(ConvertError::OutOfRange));
    }

    #[test]
    fn float_fill_values_round_and_refuse_overflow() {
        assert_eq!(f64_to_bits(DType::F16, 1.0), Ok(0x3c00));
        assert_eq!(f64_to_bits(DType::F16, 1e6), Err(ConvertError::OutOfRange));
        assert_eq!(f64_to_bits(DType::F8E4M3FN, 448.0), Ok(0x7e));
        assert_eq!(f64_to_bits(DType::F8E4M3FN, 500.0), Err(ConvertError::OutOfRange));
        assert_eq!(f64_to_bits(DType::F32, f64::INFINITY), Ok(f32::INFINITY.to_bits() as u128));
        assert_eq!(f64_to_bits(DType::BF16, 1.0), Ok(0x3f80));
    }

    /// specs/SEMANTICS.md, "Values converted to a tensor's type": one rounding from the exact
    /// value. Each of these rounds differently through f32 (a tie after the first rounding).
    #[test]
    fn narrow_floats_round_once_from_the_exact_value() {
        // 1.0625000001 lies just above the tie 1.0625 between 1.0 and 1.125 (E4M3FN);
        // through f32 it becomes the tie itself and rounds to even, 1.0.
        assert_eq!(bits_to_f64(DType::F8E4M3FN, f64_to_bits(DType::F8E4M3FN, 1.0625000001).unwrap()), Some(1.125));
        // The same for f16 (tie 1 + 2^-11 between 1.0 and 1 + 2^-10).
        assert_eq!(
            f64_to_bits(DType::F16, 1.0004882812509095),
            Ok(f16::from_f64_const(1.0009765625).to_bits() as u128)
        );
        assert_eq!(bits_to_f64(DType::F16, f64_to_bits(DType::F16, 1.0004882812509095).unwrap()), Some(1.0009765625));
        // bf16: the tie 1 + 2^-8 between 1.0 and 1 + 2^-7, approached from above.
        let above_tie = 1.0 + 2f64.powi(-8) + 2f64.powi(-40);
        assert_eq!(bits_to_f64(DType::BF16, f64_to_bits(DType::BF16, above_tie).unwrap()), Some(1.0 + 2f64.powi(-7)));
        // E5M2: tie 1.125 between 1.0 and 1.25.
        let above_tie = 1.125 + 2f64.powi(-40);
        assert_eq!(bits_to_f64(DType::F8E5M2, f64_to_bits(DType::F8E5M2, above_tie).unwrap()), Some(1.25));
        // Exact ties go to even; the largest finite values and what rounds to them.
        assert_eq!(bits_to_f64(DType::F8E4M3FN, f64_to_bits(DType::F8E4M3FN, 1.0625).unwrap()), Some(1.0));
        assert_eq!(f64_to_bits(DType::F8E4M3FN, 464.0), Ok(0x7e));
        assert_eq!(f64_to_bits(DType::F8E4M3FN, -464.0), Ok(0xfe));
        assert_eq!(f64_to_bits(DType::F8E4M3FN, 464.000001), Err(ConvertError::OutOfRange));
        assert_eq!(f64_to_bits(DType::F16, 65519.99), Ok(0x7bff));
        assert_eq!(f64_to_bits(DType::F16, 65520.0), Err(ConvertError::OutOfRange));
        assert_eq!(f64_to_bits(DType::F8E5M2, 61439.0), Ok(0x7b));
        assert_eq!(f64_to_bits(DType::F8E5M2, 61440.0), Err(ConvertError::OutOfRange));
        // Subnormals, signed zero, values that round to zero; non-finite values keep their meaning.
        assert_eq!(f64_to_bits(DType::F16, 2f64.powi(-24)), Ok(1));
        assert_eq!(f64_to_bits(DType::F16, 2f64.powi(-25)), Ok(0));
        assert_eq!(f64_to_bits(DType::F16, 2f64.powi(-25) * 1.0000001), Ok(1));
        assert_eq!(f64_to_bits(DType::F16, -0.0), Ok(0x8000));
        assert_eq!(f64_to_bits(DType::F8E4M3FN, 2f64.powi(-9)), Ok(1));
        assert_eq!(f64_to_bits(DType::F16, f64::INFINITY), Ok(0x7c00));
        assert!(f16::from_bits(f64_to_bits(DType::F16, f64::NAN).unwrap() as u16).is_nan());
        assert!(fp8::e4m3fn_to_f32(f64_to_bits(DType::F8E4M3FN, f64::INFINITY).unwrap() as u8).is_nan());
    }

    /// Every finite value of a narrow float type with its bits, sorted by value.
    type Values = Vec<(f64, u128)>;
    fn finite_values(dtype: DType) -> Values {
        let n_bits = if matches!(dtype, DType::F16 | DType::BF16) { 16 } else { 8 };
        let mut v: Vec<(f64, u128)> = (0..1u128 << n_bits)
            .filter_map(|b| bits_to_f64(dtype, b).filter(|x| x.is_finite()).map(|x| (x, b)))
            .collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        v
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Any finite f64 becomes the nearest value of each narrow type (ties to the even
        /// bit pattern), or is refused exactly when it rounds beyond the largest finite
        /// value: checked against the type's neighbouring values, which are exact in f64.
        #[test]
        fn narrow_floats_are_nearest(raw in proptest::prelude::any::<u64>(), scale in -40i32..20) {
            use std::sync::OnceLock;
            static TABLES: OnceLock<Vec<(DType, Values)>> = OnceLock::new();
            let tables = TABLES.get_or_init(|| {
                [DType::F16, DType::BF16, DType::F8E4M3FN, DType::F8E5M2].map(|d| (d, finite_values(d))).to_vec()
            });
            // A random significand in a random binade, around and beyond each type's range.
            let unit = f64::from_bits(raw & 0x800f_ffff_ffff_ffff | 0x3ff0_0000_0000_0000);
            for (dtype, values) in tables {
                let scale = if *dtype == DType::BF16 { scale * 4 } else { scale };
                let v = unit * 2f64.powi(scale);
                let got = f64_to_bits(*dtype, v);
                let (max, max_bits) = *values.last().unwrap();
                let below_max = values[values.len() - 2].0;
                let want = if v.abs() > max {
                    let half = (max - below_max) / 2.0;
                    let tie_down = v.abs() == max + half && max_bits & 1 == 0;
                    (v.abs() < max + half || tie_down).then_some(max.copysign(v))
                } else {
                    let i = values.partition_point(|&(x, _)| x < v);
                    let (hi, _) = values[i];
                    let (lo, lo_bits) = values[i.saturating_sub(1)];
                    let (dl, dh) = (v - lo, hi - v);
                    Some(if dl < dh || (dl == dh && lo_bits & 1 == 0) { lo } else { hi })
                };
                match want {
                    None => proptest::prop_assert_eq!(got, Err(ConvertError::OutOfRange), "{} {:e}", dtype, v),
                    Some(x) => {
                        let got = got.map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{dtype} {v:e}: {e}")))?;
                        proptest::prop_assert_eq!(bits_to_f64(*dtype, got), Some(x), "{} {:e}", dtype, v);
                    }
                }
            }
        }
    }

    #[test]
    fn i64_conversion_keeps_every_bit() {
        let big = (i64::MAX - 1) as u64 as u128;
        assert_eq!(convert_bits(DType::I64, big, DType::I64), Ok(big));
        assert_eq!(convert_bits(DType::I64, big, DType::U64), Ok(big));
        assert_eq!(convert_bits(DType::I64, big, DType::I32), Err(ConvertError::OutOfRange));
        assert_eq!(convert_bits(DType::I32, 0xffff_ffff, DType::I8), Ok(0xff));
    }
}
