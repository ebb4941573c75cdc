//! kerf's runtime library: the host functions kernels call — streaming (non-temporal)
//! copies, fills and linspaces, tiled transposes, stride-2 gathers, repeats, the Philox
//! block fill of random fills and the runs of fill heads (chains that start with a
//! fill) — and the planner of dynamic kernels written ahead of time ([`plan`], its C
//! functions in [`capi`]), with no Cranelift. The JIT calls them through their Rust paths (`kerfx-jit`'s `host.rs` table);
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
pub mod head;
pub mod plan;
pub mod policy;
pub mod random;
pub mod repeat;
pub mod status;
pub mod stream;
pub mod tile;

/// The environment variable that, set to `1` when the process first calls a helper,
/// forces every helper to its baseline path (SSE2 on x86-64; the random fills' portable
/// path instead of AVX2 or AVX-512): for tools that do not model the wide instructions,
/// and to test the baseline paths on a machine that has them.
pub const BASELINE_ENV: &str = "KERF_RT_BASELINE";

/// Whether [`BASELINE_ENV`] is `1` (read once).
pub(crate) fn baseline() -> bool {
    static BASELINE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *BASELINE.get_or_init(|| std::env::var_os(BASELINE_ENV).is_some_and(|v| v == "1"))
}

/// Whether the wide (AVX2) paths run: the CPU has AVX2 and [`BASELINE_ENV`] is not `1`
/// (both read once). Streaming stores are then 32 bytes wide (measured on the project's
/// host: 32-byte streaming copies took 0.6–0.8 × memcpy's time from 256 KiB to 64 MiB,
/// 16-byte ones 0.8–1.8 × (one noisy run each)), else 16 (SSE2, part of x86-64).
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx2() -> bool {
    static WIDE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WIDE.get_or_init(|| std::arch::is_x86_feature_detected!("avx2") && !baseline())
}

/// The ABI major in every exported symbol (`kerf_rt1_*`).
pub const ABI_MAJOR: u32 = 1;

/// `kerf_rt.h`, the C declarations of the exported functions (written beside an object
/// that needs the runtime).
pub const HEADER: &str = include_str!("../include/kerf_rt.h");

#[cfg(test)]
mod tests {
    /// The header states the ABI major and the layouts kernels and the runtime share as
    /// the Rust side does (the C side asserts the struct's size when it compiles).
    #[test]
    fn the_header_states_the_rust_layouts() {
        let h = super::HEADER;
        let define = |name: &str| -> usize {
            let line =
                h.lines().find(|l| l.starts_with(&format!("#define {name} "))).unwrap_or_else(|| panic!("{name}"));
            line.split_whitespace().nth(2).unwrap().parse().unwrap()
        };
        assert_eq!(define("KERF_RT_ABI_MAJOR"), super::ABI_MAJOR as usize);
        assert_eq!(define("KERF_RT1_HEAD_RANDOM_WORDS"), crate::head::args::RANDOM_WORDS);
        assert_eq!(define("KERF_RT1_HEAD_AXES"), crate::head::args::AXES);
        assert_eq!(define("KERF_RT1_HEAD_AXIS_WORDS"), crate::head::args::AXIS_WORDS);
        let size = std::mem::size_of::<crate::random::RandomArgs>();
        assert!(h.contains(&format!("sizeof(kerf_rt1_random_args) == {size} ? 1 : -1")), "{size}");
        assert_eq!(size, 8 * crate::random::args::WORDS);
    }
}
