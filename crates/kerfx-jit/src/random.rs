//! Random fills: a kernel is one call of the runtime library's block fill
//! ([`kerfx_rt::random::random_fill`], `kerf_rt1_random_fill`), which every backend
//! shares; its argument block and split alignment are the runtime's
//! ([`kerfx_rt::random`]).

use crate::builder::Gen;
pub(crate) use kerfx_rt::random::{ALIGN, encode};

/// The kernel's body: elements `[lo, hi)` of the fill, by the helper.
pub(crate) fn emit(g: &mut Gen, normal: bool, f16: bool) {
    let (out, args, lo, hi) = (g.out, g.args, g.lo, g.hi);
    let kind = g.c(kerfx_rt::random::kind(normal, f16));
    g.call_helper(crate::host::Helper::RandomFill, &[out, args, lo, hi, kind]);
}
