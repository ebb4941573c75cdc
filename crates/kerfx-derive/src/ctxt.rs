//! Error collection in the manner of serde_derive's `Ctxt`: every check records its
//! error with its own span and goes on, so the user sees all mistakes at once.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    pub fn new() -> Ctxt {
        Ctxt::default()
    }

    /// Record an error at the span of `tokens`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.errors.borrow_mut().push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    pub fn syn_error(&self, err: syn::Error) {
        self.errors.borrow_mut().push(err);
    }

    /// The errors so far, if any; the context can be used again afterwards.
    pub fn check(&self) -> Result<(), Vec<syn::Error>> {
        let errors = std::mem::take(&mut *self.errors.borrow_mut());
        if errors.is_empty() { Ok(()) } else { Err(errors) }
    }
}

pub fn to_compile_errors(errors: Vec<syn::Error>) -> TokenStream {
    let compile_errors = errors.iter().map(syn::Error::to_compile_error);
    quote::quote!(#(#compile_errors)*)
}
