//! kerf's runtime library: the host functions kernels call — streaming (non-temporal)
//! copies, fills and linspaces, tiled transposes, stride-2 gathers, repeats — and the
//! planner of dynamic kernels written ahead of time ([`plan`], its C functions in
//! [`capi`]), with no Cranelift. The JIT calls them through their Rust paths (`kerfx-jit`'s `host.rs` table);
//! objects written by `kerf aot` link them by their C symbols, which carry the ABI major
//! (`kerf_rt1_*`, declared in `include/kerf_rt.h`), so that a runtime of another major
//! fails at link time. One implementation of each helper, for both.
//!
//! Each runs on any CPU of its architecture: wide paths (AVX2) are chosen at run time.
//! A caller that ran code which streams calls [`stream::fence`] (`kerf_rt1_fence`) before
//! the output is read by another thread.

#![warn(missing_docs)]

pub mod capi;
pub mod dynamic;
pub mod plan;
pub mod policy;
pub mod repeat;
pub mod status;
pub mod stream;
pub mod tile;

/// The environment variable that, set to `1` when the process first calls a helper,
/// forces every helper to its baseline path (SSE2 on x86-64): for tools that do not model
/// the wide instructions, and to test the baseline paths on a machine that has them.
pub const BASELINE_ENV: &str = "KERF_RT_BASELINE";

/// Whether the wide (AVX2) paths run: the CPU has AVX2 and [`BASELINE_ENV`] is not `1`
/// (both read once). Streaming stores are then 32 bytes wide (measured on the project's
/// host: 32-byte streaming copies took 0.6–0.8 × memcpy's time from 256 KiB to 64 MiB,
/// 16-byte ones 0.8–1.8 × (one noisy run each)), else 16 (SSE2, part of x86-64).
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx2() -> bool {
    static WIDE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WIDE.get_or_init(|| {
        std::arch::is_x86_feature_detected!("avx2") && std::env::var_os(BASELINE_ENV).is_none_or(|v| v != "1")
    })
}

/// The ABI major in every exported symbol (`kerf_rt1_*`).
pub const ABI_MAJOR: u32 = 1;

/// `kerf_rt.h`, the C declarations of the exported functions (written beside an object
/// that needs the runtime).
pub const HEADER: &str = include_str!("../include/kerf_rt.h");
