//! Fills: a [`FillNest`] → `run(&self, output)` and a `kerfx::Kernel` impl.
//!
//! Random fills are one call of `kerfx::random`'s block fill (bit-identical to the
//! functions the reference calls, on every CPU). Linspaces are one loop per dim carrying
//! the partial sum of the outer dims, in the arithmetic the schedule prescribes:
//! wrapping integer arithmetic, exact f32, or f64 rounded once in the plan's order.

use crate::elem::Elem;
use crate::{ident, length_check, lit, ulit};
use kerfx_ir::schedule::{FillBody, FillNest, LinDim};
use kerfx_ir::{DType, Error, FillPlan};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

fn f32_lit(v: f32) -> TokenStream {
    Elem::new(DType::F32).constant(v.to_bits() as u128)
}

fn f64_lit(v: f64) -> TokenStream {
    Elem::new(DType::F64).constant(v.to_bits() as u128)
}

/// Nested linspace loops. `start` is the alpha literal, `step(v, c, a)` the value at
/// position a of a dim given the outer partial sum v, `finish(v)` the stored value.
fn linspace_loops<C: Copy>(
    dims: &[LinDim<C>],
    start: TokenStream,
    coef: impl Fn(C) -> TokenStream,
    step: impl Fn(&TokenStream, &TokenStream, &TokenStream) -> TokenStream,
    finish: impl Fn(&TokenStream) -> TokenStream,
) -> TokenStream {
    if dims.is_empty() {
        let v = finish(&start);
        return quote!(output[0] = store(#v););
    }
    // Output elements per step of each dim.
    let mut strides = vec![1u64; dims.len()];
    for k in (0..dims.len() - 1).rev() {
        strides[k] = strides[k + 1] * dims[k + 1].extent;
    }
    let loops = Level { dims, strides, coef: &coef, step: &step, finish: &finish };
    let v0 = format_ident!("v0");
    let inner = loops.level(0, quote!(#v0), None);
    quote! {
        let #v0 = #start;
        #inner
    }
}

/// The loops of one linspace, level by level.
struct Level<'a, C> {
    dims: &'a [LinDim<C>],
    strides: Vec<u64>,
    coef: &'a dyn Fn(C) -> TokenStream,
    step: &'a dyn Fn(&TokenStream, &TokenStream, &TokenStream) -> TokenStream,
    finish: &'a dyn Fn(&TokenStream) -> TokenStream,
}

impl<C: Copy> Level<'_, C> {
    /// The loop of dim k, given the outer partial sum `v` and output offset `o` (`None`
    /// at the outermost level, where it is 0).
    fn level(&self, k: usize, v: TokenStream, o: Option<TokenStream>) -> TokenStream {
        let d = self.dims[k];
        let (e, c) = (ulit(d.extent), (self.coef)(d.coef));
        let a = format_ident!("a{}", k);
        let at = quote!(#a);
        let value = (self.step)(&v, &c, &at);
        if k + 1 == self.dims.len() {
            let stored = (self.finish)(&value);
            let o = o.unwrap_or_else(|| {
                let zero = ulit(0);
                quote!(#zero)
            });
            return quote! {
                for (#a, d) in output[#o..#o + #e].iter_mut().enumerate() {
                    *d = store(#stored);
                }
            };
        }
        let (vn, on) = (format_ident!("v{}", k + 1), format_ident!("o{}", k + 1));
        let s = lit(self.strides[k]);
        let o_next = match o {
            None => quote!(#a * #s),
            Some(o) => quote!(#o + #a * #s),
        };
        let inner = self.level(k + 1, quote!(#vn), Some(quote!(#on)));
        quote! {
            for #a in 0..#e {
                let #vn = #value;
                let #on = #o_next;
                #inner
            }
        }
    }
}

pub fn kernel(plan: &FillPlan, nest: &FillNest, name: &Ident, doc: &[String]) -> Result<TokenStream, Error> {
    let elem = Elem::new(plan.dtype);
    let t = elem.rust_type();
    let dtype = elem.dtype_path();
    let Some(w) = elem.width() else {
        return Err(Error::Invalid { what: format!("a fill of {} is not supported", plan.dtype) });
    };
    let out_shape: Vec<_> = plan.shape.iter().map(|&d| lit(d)).collect();
    let out_rank = lit(out_shape.len() as u64);
    let out_len = lit(nest.len);
    // A random fill is one call of the block fill (vectorized for the CPU it runs on),
    // which needs the output's element type to take the values' bits.
    let mut bound = TokenStream::new();
    let body = match &nest.body {
        FillBody::Random { normal, alpha, beta, seed } => {
            let (a, b) = (f32_lit(*alpha), f32_lit(*beta));
            let seed = Literal::u64_unsuffixed(*seed);
            let (f, bits) = match (normal, plan.dtype) {
                (false, DType::F16) => (quote!(fill_uniform_f16), quote!(::core::primitive::u16)),
                (false, _) => (quote!(fill_uniform_f32), quote!(::core::primitive::u32)),
                (true, DType::F16) => (quote!(fill_normal_f16), quote!(::core::primitive::u16)),
                (true, _) => (quote!(fill_normal_f32), quote!(::core::primitive::u32)),
            };
            bound = quote!(where E: ::kerfx::random::FromBits<#bits>);
            quote!(::kerfx::random::#f(#seed, 0, #a, #b, &mut output[..]);)
        }
        FillBody::LinspaceInt { alpha, dims } => {
            let ty = match plan.dtype {
                DType::I32 => quote!(::core::primitive::i32),
                DType::I64 => quote!(::core::primitive::i64),
                other => return Err(Error::Invalid { what: format!("an integer linspace to {other}") }),
            };
            // Wrapping arithmetic in the output's width: coefficients are truncated to it.
            let dtype = plan.dtype;
            let int = move |v: i64| -> TokenStream {
                match dtype {
                    DType::I32 => Elem::new(DType::I32).constant(v as i32 as u32 as u128),
                    _ => Elem::new(DType::I64).constant(v as u64 as u128),
                }
            };
            let start = int(*alpha);
            let ty2 = ty.clone();
            linspace_loops(
                dims,
                start,
                int,
                move |v, c, a| quote!(#v.wrapping_add((#c).wrapping_mul(#a as #ty2))),
                |v| quote!(#v),
            )
        }
        FillBody::LinspaceF32Exact { alpha, dims } => linspace_loops(
            dims,
            f32_lit(*alpha),
            f32_lit,
            |v, c, a| quote!(#v + #c * (#a as ::core::primitive::i32) as ::core::primitive::f32),
            |v| quote!(#v),
        ),
        FillBody::LinspaceF64 { alpha, dims } => linspace_loops(
            dims,
            f64_lit(*alpha),
            f64_lit,
            |v, c, a| quote!(#v + #c * (#a as ::core::primitive::i32) as ::core::primitive::f64),
            |v| quote!((#v) as ::core::primitive::f32),
        ),
    };
    let name_s = name.to_string();
    let reads_none = format!("{name_s}: a fill kernel reads no input");
    let what_out = format!("{name_s} output ({} {:?})", plan.dtype, plan.shape);
    let output_id = ident("output");
    let check_out = length_check(&output_id, &what_out, &quote!(Self::OUTPUT_LEN));
    let out_bytes = lit(nest.len * w as u64);
    let check_out_b = length_check(&output_id, &what_out, &quote!(#out_bytes));
    let wl = lit(w as u64);
    let doc_attrs = doc.iter().map(|l| quote!(#[doc = #l]));
    Ok(quote! {
        #(#doc_attrs)*
        impl #name {
            /// Shape of the output.
            pub const OUTPUT_SHAPE: [::core::primitive::u64; #out_rank] = [#(#out_shape),*];
            /// Length of the `output` slice `run` writes (elements).
            pub const OUTPUT_LEN: ::core::primitive::usize = #out_len;
            /// Element type of the output.
            pub const DTYPE: ::kerfx::DType = #dtype;

            /// Fill a caller-owned buffer: checks its length once, then writes every
            /// element; allocates nothing.
            #[inline]
            pub fn run(&self, output: &mut [#t]) -> ::core::result::Result<(), ::kerfx::Error> {
                #check_out
                let ::core::result::Result::Ok(output) = <&mut [#t; #out_len]>::try_from(output) else {
                    ::core::unreachable!("length checked above")
                };
                Self::__kerf_loops(output, |v| v);
                ::core::result::Result::Ok(())
            }

            #[inline(always)]
            #[allow(unused_variables, clippy::identity_op, clippy::erasing_op, clippy::reversed_empty_ranges)]
            fn __kerf_loops<E>(output: &mut [E; #out_len], store: impl Fn(#t) -> E) #bound {
                #body
            }
        }

        impl ::kerfx::Kernel for #name {
            fn dtype(&self) -> ::kerfx::DType {
                Self::DTYPE
            }
            fn input_shape(&self) -> ::core::option::Option<&[::core::primitive::u64]> {
                ::core::option::Option::None
            }
            fn output_shape(&self) -> &[::core::primitive::u64] {
                &Self::OUTPUT_SHAPE
            }
            fn run_bytes(&self, input: ::core::option::Option<&[::core::primitive::u8]>, output: &mut [::core::primitive::u8]) -> ::core::result::Result<(), ::kerfx::Error> {
                if input.is_some() {
                    return ::core::result::Result::Err(::kerfx::Error::Invalid {
                        what: ::std::string::String::from(#reads_none),
                    });
                }
                #check_out_b
                let ::core::result::Result::Ok(output) = <&mut [[::core::primitive::u8; #wl]; #out_len]>::try_from(output.as_chunks_mut::<#wl>().0) else {
                    ::core::unreachable!("length checked above")
                };
                Self::__kerf_loops(output, |v: #t| v.to_le_bytes());
                ::core::result::Result::Ok(())
            }
        }
    })
}
