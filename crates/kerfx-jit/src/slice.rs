//! Slice lowering: a slice's loop nest as nested dims whose segments are runs (see
//! [`crate::runs`], [`crate::nibbles`]); static kernels unroll every segment with its
//! numbers baked in, dynamic ones walk segment descriptors in the argument block (layout
//! in [`crate::abi::dyn_slice`]).
//!
//! A repeating dim (wrap, reflect) writes one period and copies it forward from the
//! output itself ([`crate::repeat`]); the hot loops hold no modulo or division (one
//! division per call finds where the split range starts).
//!
//! One file per job: `moves` the innermost runs both kinds of kernel emit (fills, affine
//! runs, gathers, a fill head's runs, an output view's scattered runs); `walk` the dims
//! walked from segment descriptors (a dynamic kernel's every dim, a static kernel's
//! looped ones) and their repetitions; `static_kernel` the unrolled static kernel;
//! `dynamic_kernel` the dynamic one.

mod dynamic_kernel;
mod moves;
mod static_kernel;
mod walk;

pub(crate) use dynamic_kernel::DynSlice;
pub(crate) use static_kernel::StaticSlice;

use crate::builder::Elem;

/// The element layout of a dtype (`None` for strings).
pub(crate) fn elem_of(dtype: kerfx_ir::DType) -> Option<Elem> {
    match dtype.layout() {
        kerfx_ir::dtype::Layout::Bytes(w) => Some(Elem::Bytes(w as u8)),
        kerfx_ir::dtype::Layout::Nibbles => Some(Elem::Nibble),
        kerfx_ir::dtype::Layout::Strings => None,
    }
}
