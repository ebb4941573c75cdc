//! Chains that start with a fill: their nest's offsets index the fill's elements
//! (`LoopNest::head`), which kernels compute instead of loading, by the runtime library's
//! [`kerfx_rt::head::head_run`] (`kerf_rt1_head_run`), reading the head's block
//! ([`kerfx_rt::head::encode`]).

use crate::builder::Gen;
use cranelift_codegen::ir::Value;
pub(crate) use kerfx_rt::head::encode;

/// Emit a call of [`kerfx_rt::head::head_run`]: `count` elements from byte address `dst`,
/// the j-th the head's element `start + stride·j`; `head` is the address of its block.
pub(crate) fn emit_run(g: &mut Gen, dst: Value, head: Value, start: Value, stride: Value, count: Value) {
    g.call_helper(crate::host::Helper::HeadRun, &[dst, head, start, stride, count]);
}
