//! kerf's runtime library: the host functions kernels call — streaming (non-temporal)
//! copies, fills and linspaces, tiled transposes, stride-2 gathers, repeats — with no
//! Cranelift. The JIT calls them through their Rust paths (`kerfx-jit`'s `host.rs` table);
//! objects written by `kerf aot` link them by their C symbols, which carry the ABI major
//! (`kerf_rt1_*`, declared in `include/kerf_rt.h`), so that a runtime of another major
//! fails at link time. One implementation of each helper, for both.
//!
//! Each runs on any CPU of its architecture: wide paths (AVX2) are chosen at run time.
//! A caller that ran code which streams calls [`stream::fence`] (`kerf_rt1_fence`) before
//! the output is read by another thread.

#![warn(missing_docs)]

pub mod policy;
pub mod repeat;
pub mod stream;
pub mod tile;

/// The ABI major in every exported symbol (`kerf_rt1_*`).
pub const ABI_MAJOR: u32 = 1;

/// `kerf_rt.h`, the C declarations of the exported functions (written beside an object
/// that needs the runtime).
pub const HEADER: &str = include_str!("../include/kerf_rt.h");
