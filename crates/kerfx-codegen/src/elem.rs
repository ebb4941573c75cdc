//! Element types: the Rust type a dtype is moved as, and constants of it.

use kerfx_ir::DType;
use kerfx_ir::dtype::Layout;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// How a dtype's elements appear in generated code.
#[derive(Copy, Clone, Debug)]
pub struct Elem {
    /// The element type.
    pub dtype: DType,
}

impl Elem {
    /// The elements of `dtype`.
    pub fn new(dtype: DType) -> Elem {
        Elem { dtype }
    }

    /// The element type of `run`'s slices: Rust's own types, `half` types, `Complex`,
    /// `String`; raw bytes (`u8`) for fp8 and for packed 4-bit types (two per byte).
    pub fn rust_type(self) -> TokenStream {
        match self.dtype {
            DType::Bool => quote!(::core::primitive::bool),
            DType::I8 => quote!(::core::primitive::i8),
            DType::U8 | DType::I4 | DType::U4 | DType::F8E4M3FN | DType::F8E5M2 => quote!(::core::primitive::u8),
            DType::I16 => quote!(::core::primitive::i16),
            DType::U16 => quote!(::core::primitive::u16),
            DType::I32 => quote!(::core::primitive::i32),
            DType::U32 => quote!(::core::primitive::u32),
            DType::I64 => quote!(::core::primitive::i64),
            DType::U64 => quote!(::core::primitive::u64),
            DType::F16 => quote!(::kerfx::half::f16),
            DType::BF16 => quote!(::kerfx::half::bf16),
            DType::F32 => quote!(::core::primitive::f32),
            DType::F64 => quote!(::core::primitive::f64),
            DType::C64 => quote!(::kerfx::num_complex::Complex<::core::primitive::f32>),
            DType::C128 => quote!(::kerfx::num_complex::Complex<::core::primitive::f64>),
            DType::String => quote!(::std::string::String),
        }
    }

    /// `::kerfx::DType::X`.
    pub fn dtype_path(self) -> TokenStream {
        let v = crate::ident(match self.dtype {
            DType::Bool => "Bool",
            DType::I4 => "I4",
            DType::U4 => "U4",
            DType::I8 => "I8",
            DType::U8 => "U8",
            DType::I16 => "I16",
            DType::U16 => "U16",
            DType::I32 => "I32",
            DType::U32 => "U32",
            DType::I64 => "I64",
            DType::U64 => "U64",
            DType::F8E4M3FN => "F8E4M3FN",
            DType::F8E5M2 => "F8E5M2",
            DType::F16 => "F16",
            DType::BF16 => "BF16",
            DType::F32 => "F32",
            DType::F64 => "F64",
            DType::C64 => "C64",
            DType::C128 => "C128",
            DType::String => "String",
        });
        quote!(::kerfx::DType::#v)
    }

    /// Whether two elements share a byte (i4, u4).
    pub fn is_nibbles(self) -> bool {
        self.dtype.layout() == Layout::Nibbles
    }

    /// Whether the elements are strings (moved as `String`s, not bytes).
    pub fn is_string(self) -> bool {
        self.dtype == DType::String
    }

    /// Bytes per element for byte-sized types.
    pub fn width(self) -> Option<usize> {
        self.dtype.byte_width()
    }

    /// Length of a `run` slice holding `count` elements (bytes for nibble types).
    pub fn slice_len(self, count: u64) -> u64 {
        if self.is_nibbles() { count.div_ceil(2) } else { count }
    }

    /// An element from its bits (little-endian; the low nibble for 4-bit types), as a
    /// constant expression of [`Elem::rust_type`].
    pub fn constant(self, bits: u128) -> TokenStream {
        let f32_const = |b: u32| {
            let v = f32::from_bits(b);
            if v.is_finite() && !(v == 0.0 && v.is_sign_negative()) {
                let l = Literal::f32_suffixed(v);
                quote!(#l)
            } else {
                let l = Literal::u32_unsuffixed(b);
                quote!(::core::primitive::f32::from_bits(#l))
            }
        };
        let f64_const = |b: u64| {
            let v = f64::from_bits(b);
            if v.is_finite() && !(v == 0.0 && v.is_sign_negative()) {
                let l = Literal::f64_suffixed(v);
                quote!(#l)
            } else {
                let l = Literal::u64_unsuffixed(b);
                quote!(::core::primitive::f64::from_bits(#l))
            }
        };
        match self.dtype {
            DType::Bool => {
                if bits & 1 == 1 {
                    quote!(true)
                } else {
                    quote!(false)
                }
            }
            DType::I8 => lit_signed(bits as u8 as i8 as i64, "i8"),
            DType::I16 => lit_signed(bits as u16 as i16 as i64, "i16"),
            DType::I32 => lit_signed(bits as u32 as i32 as i64, "i32"),
            DType::I64 => lit_signed(bits as u64 as i64, "i64"),
            DType::U8 | DType::F8E4M3FN | DType::F8E5M2 => {
                let l = Literal::u8_suffixed(bits as u8);
                quote!(#l)
            }
            DType::I4 | DType::U4 => {
                let l = Literal::u8_suffixed(bits as u8 & 0xf);
                quote!(#l)
            }
            DType::U16 => {
                let l = Literal::u16_suffixed(bits as u16);
                quote!(#l)
            }
            DType::U32 => {
                let l = Literal::u32_suffixed(bits as u32);
                quote!(#l)
            }
            DType::U64 => {
                let l = Literal::u64_suffixed(bits as u64);
                quote!(#l)
            }
            DType::F16 => {
                let l = Literal::u16_unsuffixed(bits as u16);
                quote!(::kerfx::half::f16::from_bits(#l))
            }
            DType::BF16 => {
                let l = Literal::u16_unsuffixed(bits as u16);
                quote!(::kerfx::half::bf16::from_bits(#l))
            }
            DType::F32 => f32_const(bits as u32),
            DType::F64 => f64_const(bits as u64),
            DType::C64 => {
                let (re, im) = (f32_const(bits as u32), f32_const((bits >> 32) as u32));
                quote!(::kerfx::num_complex::Complex::<::core::primitive::f32> { re: #re, im: #im })
            }
            DType::C128 => {
                let (re, im) = (f64_const(bits as u64), f64_const((bits >> 64) as u64));
                quote!(::kerfx::num_complex::Complex::<::core::primitive::f64> { re: #re, im: #im })
            }
            DType::String => quote!(::std::string::String::new()),
        }
    }

    /// The element's little-endian bytes as a `[u8; W]` constant (byte-sized types).
    pub fn constant_bytes(self, bits: u128) -> TokenStream {
        let w = self.width().unwrap_or(1);
        let bytes = bits.to_le_bytes();
        let bytes = bytes[..w].iter().map(|b| Literal::u8_unsuffixed(*b));
        quote!([#(#bytes),*])
    }
}

fn lit_signed(v: i64, suffix: &str) -> TokenStream {
    let l: Literal = format!("{}{suffix}", v.unsigned_abs()).parse().expect("an integer literal");
    if v < 0 { quote!(-#l) } else { quote!(#l) }
}
