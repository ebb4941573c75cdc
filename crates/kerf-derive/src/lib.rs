//! `#[derive(kerf::Kernel)]`: a kernel specialized at the user's compile time.
//!
//! The macro is thin. [`attr`] parses the `#[kerf(...)]` attributes into spanned values,
//! [`check`] checks them against the op's TOML spec (every mistake collected, each at
//! its own span) and builds a `kerf_ir::Request`, which `kerf_ir::lower` turns into a
//! Plan with the same frontends the JIT uses; `kerf_codegen` then emits the loops.
//! Users reach it as `kerf::Kernel`; see the `kerf` crate for the attribute reference.

mod attr;
mod check;
mod ctxt;

use proc_macro::TokenStream;

/// Derive a kernel specialized for one op, dtype, shape and mode. See the crate docs of
/// `kerf` (`kerf::Kernel`) for the attributes and the generated items.
#[proc_macro_derive(Kernel, attributes(kerf))]
pub fn derive_kernel(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    check::expand(&input).unwrap_or_else(ctxt::to_compile_errors).into()
}
