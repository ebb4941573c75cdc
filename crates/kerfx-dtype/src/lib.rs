//! kerf's element types, in one table every layer reads (the specs' type names, the
//! IR, the backends): names, widths and packing, integer ranges, and ([`scalar`]) the
//! conversions between numbers and element bits. Data movement only needs each type's
//! width and packing; conversions exist for fill values, inline tensors and printing.

#![warn(missing_docs)]

pub mod scalar;

use std::fmt;
use std::str::FromStr;

/// Every element type kerf moves. Names follow specs/SEMANTICS.md, "Types" (`f8e4m3fn`, `c64`, ...).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// One byte per element, 0 (false) or 1 (true).
    Bool,
    /// Signed 4-bit, packed two per byte, first element in the low nibble.
    I4,
    /// Unsigned 4-bit, packed like `I4`.
    U4,
    /// Signed 8-bit integer.
    I8,
    /// Unsigned 8-bit integer.
    U8,
    /// Signed 16-bit integer.
    I16,
    /// Unsigned 16-bit integer.
    U16,
    /// Signed 32-bit integer.
    I32,
    /// Unsigned 32-bit integer.
    U32,
    /// Signed 64-bit integer.
    I64,
    /// Unsigned 64-bit integer.
    U64,
    /// 8-bit float, 4 exponent and 3 mantissa bits (bias 7): no infinities, NaN is
    /// 0x7f/0xff, largest finite 448 (the "FN" convention; see [`fp8`]).
    F8E4M3FN,
    /// 8-bit float, 5 exponent and 2 mantissa bits (bias 15), IEEE-like with infinities.
    F8E5M2,
    /// IEEE 754 half precision.
    F16,
    /// bfloat16: the upper 16 bits of an f32 (8 exponent, 7 mantissa bits).
    BF16,
    /// IEEE 754 single precision.
    F32,
    /// IEEE 754 double precision.
    F64,
    /// Complex of two f32s, real part first (8 bytes).
    C64,
    /// Complex of two f64s, real part first (16 bytes).
    C128,
    /// Variable-length strings (onnx.slice only); moved as whole values.
    String,
}

/// How elements of a dtype sit in memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// `n` bytes per element.
    Bytes(usize),
    /// Two 4-bit elements per byte, low nibble first.
    Nibbles,
    /// Owned strings; not plain memory.
    Strings,
}

impl DType {
    /// Every dtype, in declaration order (the order of the variants and of [`UnknownDType`]'s list).
    pub const ALL: [DType; 20] = [
        DType::Bool,
        DType::I4,
        DType::U4,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::U16,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::F8E4M3FN,
        DType::F8E5M2,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::C128,
        DType::String,
    ];

    /// The type's name in specs, requests and messages (`"f8e4m3fn"`, `"c64"`); [`DType::from_str`]
    /// parses it back.
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I4 => "i4",
            DType::U4 => "u4",
            DType::I8 => "i8",
            DType::U8 => "u8",
            DType::I16 => "i16",
            DType::U16 => "u16",
            DType::I32 => "i32",
            DType::U32 => "u32",
            DType::I64 => "i64",
            DType::U64 => "u64",
            DType::F8E4M3FN => "f8e4m3fn",
            DType::F8E5M2 => "f8e5m2",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::C64 => "c64",
            DType::C128 => "c128",
            DType::String => "string",
        }
    }

    /// How the type's elements sit in memory: bytes per element, packed nibbles or strings.
    pub fn layout(self) -> Layout {
        match self {
            DType::I4 | DType::U4 => Layout::Nibbles,
            DType::String => Layout::Strings,
            DType::Bool | DType::I8 | DType::U8 | DType::F8E4M3FN | DType::F8E5M2 => Layout::Bytes(1),
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => Layout::Bytes(2),
            DType::I32 | DType::U32 | DType::F32 => Layout::Bytes(4),
            DType::I64 | DType::U64 | DType::F64 | DType::C64 => Layout::Bytes(8),
            DType::C128 => Layout::Bytes(16),
        }
    }

    /// Bytes per element for byte-sized types; `None` for packed nibbles and strings.
    pub fn byte_width(self) -> Option<usize> {
        match self.layout() {
            Layout::Bytes(n) => Some(n),
            _ => None,
        }
    }

    /// Bytes a dense buffer of `count` elements occupies (`None` for strings or overflow).
    pub fn buffer_bytes(self, count: u64) -> Option<usize> {
        let bytes = match self.layout() {
            Layout::Bytes(n) => count.checked_mul(n as u64)?,
            Layout::Nibbles => count.div_ceil(2),
            Layout::Strings => return None,
        };
        usize::try_from(bytes).ok().filter(|&b| b <= isize::MAX as usize)
    }

    /// Whether the type is a signed or unsigned integer, 4 to 64 bits (not `Bool`).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            DType::I4
                | DType::U4
                | DType::I8
                | DType::U8
                | DType::I16
                | DType::U16
                | DType::I32
                | DType::U32
                | DType::I64
                | DType::U64
        )
    }

    /// Whether the type is a real floating-point type, fp8 to f64 (not complex).
    pub fn is_float(self) -> bool {
        matches!(self, DType::F8E4M3FN | DType::F8E5M2 | DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// Whether the type is complex (`C64`, `C128`).
    pub fn is_complex(self) -> bool {
        matches!(self, DType::C64 | DType::C128)
    }

    /// The inclusive range of an integer type, as i128 so u64 fits.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            DType::I4 => (-8, 7),
            DType::U4 => (0, 15),
            DType::I8 => (i8::MIN as i128, i8::MAX as i128),
            DType::U8 => (0, u8::MAX as i128),
            DType::I16 => (i16::MIN as i128, i16::MAX as i128),
            DType::U16 => (0, u16::MAX as i128),
            DType::I32 => (i32::MIN as i128, i32::MAX as i128),
            DType::U32 => (0, u32::MAX as i128),
            DType::I64 => (i64::MIN as i128, i64::MAX as i128),
            DType::U64 => (0, u64::MAX as i128),
            _ => return None,
        })
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing an unknown dtype name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown dtype `{0}` (known: bool, i4, u4, i8, u8, i16, u16, i32, u32, i64, u64, f8e4m3fn, f8e5m2, f16, bf16, f32, f64, c64, c128, string)"
)]
pub struct UnknownDType(pub String);

impl FromStr for DType {
    type Err = UnknownDType;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DType::ALL.into_iter().find(|d| d.name() == s).ok_or_else(|| UnknownDType(s.to_string()))
    }
}

/// fp8 conversions, written out (the `float8` crate's constants are wrong).
pub mod fp8 {
    /// f32 → E4M3FN (bias 7, no infinities, 0x7f/0xff are NaN, max finite 448),
    /// round to nearest even; values beyond 448 saturate to NaN per the FN
    /// convention only when `saturate` is false, else to ±448.
    pub fn f32_to_e4m3fn(x: f32, saturate: bool) -> u8 {
        encode(x, 4, 3, 7, true, saturate)
    }
    /// f32 → E5M2 (bias 15, IEEE-like with infinities), round to nearest even.
    pub fn f32_to_e5m2(x: f32, saturate: bool) -> u8 {
        encode(x, 5, 2, 15, false, saturate)
    }
    /// E4M3FN bits → f32, exactly (every E4M3FN value is an f32); 0x7f/0xff give NaN.
    pub fn e4m3fn_to_f32(b: u8) -> f32 {
        decode(b, 4, 3, 7, true)
    }
    /// E5M2 bits → f32, exactly, infinities and NaNs included.
    pub fn e5m2_to_f32(b: u8) -> f32 {
        decode(b, 5, 2, 15, false)
    }

    fn decode(b: u8, ebits: u32, mbits: u32, bias: i32, fn_style: bool) -> f32 {
        let sign = if b & 0x80 != 0 { -1.0f32 } else { 1.0 };
        let e = ((b >> mbits) & ((1 << ebits) - 1) as u8) as i32;
        let m = (b & ((1 << mbits) - 1) as u8) as i32;
        let emax_field = (1 << ebits) - 1;
        if fn_style {
            if e == emax_field && m == (1 << mbits) - 1 {
                return f32::NAN;
            }
        } else if e == emax_field {
            return if m == 0 { sign * f32::INFINITY } else { f32::NAN };
        }
        let mant_scale = (1u32 << mbits) as f32;
        if e == 0 {
            sign * (m as f32 / mant_scale) * 2f32.powi(1 - bias)
        } else {
            sign * (1.0 + m as f32 / mant_scale) * 2f32.powi(e - bias)
        }
    }

    fn encode(x: f32, ebits: u32, mbits: u32, bias: i32, fn_style: bool, saturate: bool) -> u8 {
        let sign: u8 = if x.is_sign_negative() { 0x80 } else { 0 };
        let nan: u8 = if fn_style { 0x7f } else { 0x7e };
        if x.is_nan() {
            return sign | nan;
        }
        let emax_field = (1i32 << ebits) - 1;
        // Largest finite encoding.
        let max_code: u8 = if fn_style {
            ((emax_field as u8) << mbits) | (((1u8 << mbits) - 1) - 1)
        } else {
            (((emax_field - 1) as u8) << mbits) | ((1u8 << mbits) - 1)
        };
        let overflow = |sign: u8| -> u8 {
            if saturate {
                sign | max_code
            } else if fn_style {
                sign | nan
            } else {
                sign | ((emax_field as u8) << mbits)
            }
        };
        let a = x.abs();
        if a.is_infinite() {
            return overflow(sign);
        }
        if a == 0.0 {
            return sign;
        }
        // Exact arithmetic: a = m * 2^e with integer m (f32 has 24 bits), done in f64.
        let a = a as f64;
        let min_normal_exp = 1 - bias;
        let mut exp = a.log2().floor() as i32;
        // Guard against log2 rounding at exact powers of two.
        if 2f64.powi(exp) > a {
            exp -= 1;
        }
        if 2f64.powi(exp + 1) <= a {
            exp += 1;
        }
        let scale_exp = exp.max(min_normal_exp) - mbits as i32;
        let q = a / 2f64.powi(scale_exp); // exact: power-of-two scaling
        let fl = q.floor();
        let frac = q - fl;
        let mut mant = fl as u64;
        if frac > 0.5 || (frac == 0.5 && mant & 1 == 1) {
            mant += 1;
        }
        // mant is the significand in units of 2^scale_exp.
        let mut e_field = scale_exp + mbits as i32 + bias; // field if normal
        if exp < min_normal_exp {
            // subnormal: e_field 0 unless rounding carried into the normal range
            if mant >= (1 << mbits) {
                e_field = 1;
                mant -= 1 << mbits;
            } else {
                e_field = 0;
            }
        } else {
            if mant >= (2 << mbits) {
                mant >>= 1;
                e_field += 1;
            }
            mant -= 1 << mbits;
        }
        let code = ((e_field as u64) << mbits) | mant;
        if e_field > emax_field || code > max_code as u64 {
            return overflow(sign);
        }
        sign | code as u8
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn e4m3fn_round_trips_every_finite_code() {
            for b in 0u8..=255 {
                let v = e4m3fn_to_f32(b);
                if v.is_nan() {
                    assert_eq!(b & 0x7f, 0x7f, "only 0x7f/0xff are NaN, got {b:#x}");
                    continue;
                }
                assert_eq!(f32_to_e4m3fn(v, false), b, "code {b:#04x} value {v}");
            }
        }

        #[test]
        fn e5m2_round_trips_every_code() {
            for b in 0u8..=255 {
                let v = e5m2_to_f32(b);
                if v.is_nan() {
                    continue;
                }
                assert_eq!(f32_to_e5m2(v, false), b, "code {b:#04x} value {v}");
            }
        }

        #[test]
        fn e4m3fn_constants() {
            assert_eq!(e4m3fn_to_f32(0x7e), 448.0);
            assert_eq!(e4m3fn_to_f32(0x01), 2f32.powi(-9));
            assert_eq!(e4m3fn_to_f32(0x08), 2f32.powi(-6));
            assert_eq!(f32_to_e4m3fn(1.0, false), 0x38);
            assert_eq!(f32_to_e4m3fn(-2.0, false), 0xc0);
            assert_eq!(f32_to_e4m3fn(448.0, false), 0x7e);
            // 464 is halfway between 448 (even mantissa) and the NaN code: ties to 448.
            assert_eq!(f32_to_e4m3fn(464.0, false), 0x7e);
            assert_eq!(f32_to_e4m3fn(480.0, false), 0x7f, "above max rounds to NaN");
            assert_eq!(f32_to_e4m3fn(1000.0, true), 0x7e);
            assert_eq!(f32_to_e4m3fn(f32::INFINITY, false), 0x7f);
            // 1.0625 is halfway between 1.0 (0x38) and 1.125 (0x39): ties to even.
            assert_eq!(f32_to_e4m3fn(1.0625, false), 0x38);
            assert_eq!(f32_to_e4m3fn(1.1875, false), 0x3a);
        }

        #[test]
        fn e5m2_constants() {
            assert_eq!(e5m2_to_f32(0x7b), 57344.0);
            assert_eq!(e5m2_to_f32(0x7c), f32::INFINITY);
            assert_eq!(f32_to_e5m2(1.0, false), 0x3c);
            assert_eq!(f32_to_e5m2(1e6, false), 0x7c);
            assert_eq!(f32_to_e5m2(1e6, true), 0x7b);
            assert_eq!(e5m2_to_f32(0x01), 2f32.powi(-16));
        }
    }
}
