//! kerf's run-time backend: a map's (or a fill's) loop nest lowered to
//! Cranelift IR, compiled to machine code specialized for its shape, strides, mode and
//! dtype, and run on caller-owned buffers.
//!
//! ```
//! use kerfx_ir::{DType, Kernel, Request, Tensor};
//! use kerfx_jit::{Jit, Options};
//!
//! let jit = Jit::default();
//! let request = Request::new("tensorrt.slice")
//!     .input_meta("input", DType::F32, &[3, 3])
//!     .attr("start", [0, 0])
//!     .attr("size", [2, 2])
//!     .attr("stride", [1, 1]);
//! let kernel = jit.compile(&request, &Options::STATIC).unwrap();
//! let input: Vec<u8> = (0..9).flat_map(|v| (v as f32).to_le_bytes()).collect();
//! let mut output = vec![0u8; 16];
//! kernel.run_bytes(Some(&input), &mut output).unwrap();
//! let values: Vec<f32> = output.chunks(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
//! assert_eq!(values, [0.0, 1.0, 3.0, 4.0]);
//! assert!(kernel.clif().contains("function %kerf_move_plain_f32"));
//! ```
//!
//! One entry point, [`Jit::compile`], takes what a kernel is compiled from (a [`Source`]:
//! a plan, whose step is compiled through its [`kerfx_ir::Map`], or any map) and
//! [`Options`]: static kernels bake every number in; dynamic kernels
//! ([`Options::DYNAMIC`]) are specialized on the map's kind (fills, repeats), dtype and
//! rank only and read the rest from an argument block computed per call
//! ([`JitKernel::run`], which takes another map of the kind, and the views of the layout
//! the kernel was compiled for). Every check (buffer lengths, plan bounds, views, the schedule's invariants)
//! happens on the host before machine code runs.
//!
//! Compile latency: the emitters fold constants and known branches themselves and
//! place every value where it is needed, so Cranelift runs without its mid-end;
//! outer dims with several segments over long rows (a pad's borders and middle) are walked
//! from descriptors, their rows' code emitted once; kernels whose every loop iteration
//! moves a row through memcpy, memset or straight-line code, and kernels without loops,
//! use the single-pass register allocator, and so do deep dynamic slice kernels
//! (their compile time then grows linearly with the depth, as their code does); one
//! compilation context is reused per thread; the CLIF text is produced only when
//! [`JitKernel::clif`] asks for it, by emitting the kernel again. Run time: large static
//! outputs write their long copies and fills, their exact f32 linspaces and (through a
//! stack buffer) their reversed, strided and integer-linspace runs with non-temporal
//! stores, fenced before the call returns; threaded calls take chunks of the outer range
//! from a shared counter.
//!
//! The crate by layer: this file is the public API; `abi` the kernel signature, the
//! argument-block layout and its encoders; `compile` the ISA, one module per kernel, cache
//! keys and emitter dispatch; `target` the compile target (the host's for the JIT, a
//! CPU preset for objects written ahead of time, which [`object`] serves); `policy` every
//! threshold and heuristic; `builder` the
//! constant-folding IR builder and control flow; `runs` and `nibbles` the data-moving
//! runs; `slice` (the moves of a map's nest), `linspace` and `random` the lowering of each
//! kind of nest; `threading` how calls split over threads; the host functions kernels call
//! are the runtime library's (`kerfx_rt`: `stream`, `repeat`, `tile`, the Philox block fill
//! of random fills and the runs of fill heads, which `random` and `head` emit calls of),
//! declared once in `host`'s table; `source` the one compile entry point and run
//! (plans, maps, views; static and dynamic); `cache` the kernel cache.

#![warn(missing_docs)]

mod abi;
// The runtime library's fence, which the JIT calls after a kernel that streams.
use kerfx_rt::stream;
mod builder;
mod cache;
mod compile;
mod head;
mod host;
mod interleave;
mod linspace;
mod nibbles;
pub mod object;
mod policy;
mod program;
mod random;
mod runs;
mod slice;
mod source;
mod target;
mod threading;

use cranelift_codegen::isa::{CallConv, OwnedTargetIsa};
use kerfx_ir::dtype::Layout;
use kerfx_ir::{DType, Error, FillKind, Kernel, Plan};
use std::sync::Arc;

use abi::{Bytes, Prepared};
use cache::{Lru, PlanKey};
use compile::Code;
pub use compile::DynKey;
pub use policy::MAX_THREADS;
pub use program::{ProgramKernel, ProgramViews};
pub use source::{IntoSource, Options, Source, Views};
use source::{Origin, OwnedViews, Signature};
pub use target::{AOT_TRIPLES, Cpu, Target};

/// Settings of a [`Jit`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JitSettings {
    /// Threads a large kernel call may use (splitting its outermost loop); 1 (or 0) = the
    /// calling thread only. At most [`MAX_THREADS`] ([`Jit::new`] refuses more); a call
    /// uses fewer when its work is small (each thread gets at least a megabyte of it).
    pub threads: usize,
    /// Kernels kept in the cache; the least recently used is evicted past this. Its code
    /// memory is freed when no [`JitKernel`] refers to it any more.
    pub cache_capacity: usize,
}

impl Default for JitSettings {
    fn default() -> Self {
        JitSettings { threads: 1, cache_capacity: 256 }
    }
}

/// A compiled kernel: static (one map) or dynamic (one kind of map, dtype and rank).
pub struct JitKernel {
    code: Arc<Code>,
    /// The buffers it reads and writes.
    signature: Signature,
    /// What the kernel was compiled from (see [`Map`]), and through which views.
    origin: Origin,
    views: OwnedViews,
    prepared: Prepared,
    dynamic: Option<DynKey>,
    threads: usize,
}

impl std::fmt::Debug for JitKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JitKernel")
            .field("signature", &self.signature)
            .field("origin", &self.origin)
            .field("views", &self.views)
            .field("dynamic", &self.dynamic)
            .finish()
    }
}

/// Refuse strings: the JIT moves bytes.
pub(crate) fn check_moves_bytes(dtype: DType) -> Result<(), Error> {
    if dtype.layout() == Layout::Strings {
        return Err(Error::Invalid {
            what: "the JIT moves bytes and cannot move strings; maps of dtype string run on the reference interpreter"
                .into(),
        });
    }
    Ok(())
}

pub(crate) fn check_dtype(plan: &Plan) -> Result<(), Error> {
    match plan {
        Plan::Step(p) => check_moves_bytes(p.dtype),
        // Which dtypes a fill produces is the IR's (`FillKind::dtypes`, checked by
        // `FillPlan::validate`); only the JIT's own limit is checked here.
        Plan::Fill(p) => {
            if matches!(p.kind, FillKind::RandomUniform { .. } | FillKind::RandomNormal { .. })
                && p.output_len() > u32::MAX as u64
            {
                return Err(Error::TooLarge { what: "a random fill of more than 2^32 elements".into() });
            }
            Ok(())
        }
    }
}

/// The error of a buffer of the wrong length (out of line: calls are checked inline).
#[cold]
pub(crate) fn length_error(what: &str, expected: usize, found: usize) -> Error {
    Error::BufferLength { what: what.into(), expected, found }
}

#[cold]
pub(crate) fn no_input() -> Error {
    Error::Invalid { what: "a slice kernel needs its input buffer".into() }
}

pub(crate) fn buffer_bytes(dtype: DType, count: u64) -> Result<usize, Error> {
    dtype.buffer_bytes(count).ok_or_else(|| Error::TooLarge { what: format!("{count} elements of {dtype}") })
}

impl JitKernel {
    /// The Cranelift IR of this kernel, as text.
    pub fn clif(&self) -> &str {
        self.code.clif()
    }
    /// Words (i64) of the argument block this kernel's own plan runs with: index tables and
    /// segment descriptors; for a dynamic kernel, every number of the plan. It is
    /// O(dims + segments + tables), never O(output elements).
    pub fn argument_words(&self) -> usize {
        self.prepared.args.len()
    }
    /// Whether this kernel moves the block of its two innermost loops as cache-sized tiles
    /// (reads whose innermost stride is large, as from a transposed view).
    pub fn is_tiled(&self) -> bool {
        self.code.tiled()
    }
    /// Whether this is a dynamic kernel (see [`Options`]).
    pub fn is_dynamic(&self) -> bool {
        self.dynamic.is_some()
    }

    /// Check the buffers against `prepared`'s byte lengths (computed when it was built),
    /// then run the code on them. Inlined into `run_bytes`: a tiny kernel's call is
    /// mostly this.
    #[inline]
    fn run_prepared(&self, prepared: &Prepared, input: Option<&[u8]>, output: &mut [u8]) -> Result<(), Error> {
        let bytes = Self::check_output(prepared, output)?;
        let input_ptr = match (bytes.input, input) {
            (Some(n), Some(i)) if i.len() == n => i.as_ptr(),
            (Some(n), Some(i)) => return Err(length_error("kernel input", n, i.len())),
            (Some(_), None) => return Err(no_input()),
            (None, _) => std::ptr::null(),
        };
        if bytes.odd_nibble
            && let Some(b) = output.last_mut()
        {
            *b = 0;
        }
        // The buffers now hold exactly the elements `prepared` was verified against.
        self.call(prepared, input_ptr, output.as_mut_ptr());
        Ok(())
    }

    /// Run this kernel reading its input through a pointer: what [`Kernel::run_bytes`]
    /// does, for an input buffer the caller may not hold as a slice (a view whose gaps
    /// other code may be writing). The output is checked as `run_bytes` checks it.
    ///
    /// # Safety
    /// Every input element this kernel reads must be readable at `input` plus its offset
    /// times the element width, for the whole call. A static kernel
    /// compiled with an input view ([`Options::input`]) reads only elements of that view
    /// (offsets `offset + Σ i_k·strides[k]` for indices inside the shape), so a pointer to
    /// element 0 of a buffer in which that view's elements are readable satisfies this.
    ///
    /// [`Kernel::run_bytes`]: kerfx_ir::Kernel::run_bytes
    pub unsafe fn run_from_ptr(&self, input: *const u8, output: &mut [u8]) -> Result<(), Error> {
        let bytes = Self::check_output(&self.prepared, output)?;
        if bytes.input.is_some() && input.is_null() {
            return Err(no_input());
        }
        if bytes.odd_nibble
            && let Some(b) = output.last_mut()
        {
            *b = 0;
        }
        // The caller vouches for the input (this function's contract); the output was
        // checked to hold exactly the elements the verified nest writes.
        self.call(&self.prepared, input, output.as_mut_ptr());
        Ok(())
    }

    /// [`run_from_ptr`](Self::run_from_ptr) writing its output through a pointer too: for
    /// a kernel writing an output view ([`Options::output`]), whose buffer holds
    /// elements the caller does not own (between the view's), so that no slice over it may
    /// be formed.
    ///
    /// # Safety
    /// As for `run_from_ptr` for `input`; and every output element this kernel writes must
    /// be writable at `output` plus its offset times the element width, with no other
    /// access to it during the call. A static kernel compiled with an output view writes only
    /// the elements of that view (offsets `offset + Σ i_k·strides[k]`
    /// for indices inside the shape, verified distinct and inside the view's buffer), so a
    /// pointer to element 0 of a buffer in which that view's elements are writable and
    /// exclusively borrowed satisfies this.
    pub unsafe fn run_from_ptrs(&self, input: *const u8, output: *mut u8) -> Result<(), Error> {
        let bytes = self.prepared.bytes.clone()?;
        if bytes.odd_nibble {
            return Err(Error::Invalid {
                what: "an output of an odd number of 4-bit elements is written through a slice (run_from_ptr)".into(),
            });
        }
        if bytes.input.is_some() && input.is_null() {
            return Err(no_input());
        }
        if output.is_null() {
            return Err(Error::Invalid { what: "a kernel needs its output buffer".into() });
        }
        // The caller vouches for both buffers (this function's contract).
        self.call(&self.prepared, input, output);
        Ok(())
    }

    /// Check that `output` holds exactly `prepared`'s output bytes; returns the buffers'
    /// byte lengths.
    #[inline]
    fn check_output(prepared: &Prepared, output: &[u8]) -> Result<Bytes, Error> {
        let bytes = match &prepared.bytes {
            Ok(b) => *b,
            Err(e) => return Err(e.clone()),
        };
        if output.len() != bytes.output {
            return Err(length_error("kernel output", bytes.output, output.len()));
        }
        Ok(bytes)
    }
}

impl Kernel for JitKernel {
    fn dtype(&self) -> DType {
        self.signature.dtype
    }
    fn input_shape(&self) -> Option<&[u64]> {
        self.signature.input_shape.as_deref()
    }
    fn output_shape(&self) -> &[u64] {
        &self.signature.output_shape
    }
    #[inline]
    fn run_bytes(&self, input: Option<&[u8]>, output: &mut [u8]) -> Result<(), Error> {
        self.run_prepared(&self.prepared, input, output)
    }
}

/// The JIT: compiles plans to kernels and caches them. `Send + Sync`: share one across
/// threads; concurrent requests for one plan compile it once.
pub struct Jit {
    settings: JitSettings,
    isa: OwnedTargetIsa,
    /// The same target with the single-pass register allocator (half the compile time,
    /// values kept on the stack between blocks): for kernels whose every loop iteration
    /// moves a row through a call or straight-line code (see [`policy::row_kernel`]).
    isa_light: OwnedTargetIsa,
    call_conv: CallConv,
    kernels: Lru<PlanKey, Arc<JitKernel>>,
    dynamic: Lru<DynKey, Arc<Code>>,
    programs: Lru<cache::ProgramKey, Arc<ProgramKernel>>,
}

impl Default for Jit {
    fn default() -> Self {
        Jit::new(JitSettings::default()).expect("the host is supported by Cranelift")
    }
}

pub(crate) fn jit_error(e: impl std::fmt::Display) -> Error {
    Error::Invalid { what: format!("jit: {e}") }
}

impl Jit {
    /// A JIT for the host machine; an error when `settings.threads` exceeds
    /// [`MAX_THREADS`].
    pub fn new(settings: JitSettings) -> Result<Jit, Error> {
        if settings.threads > MAX_THREADS {
            return Err(Error::Invalid {
                what: format!("JitSettings.threads = {}: at most {MAX_THREADS} threads", settings.threads),
            });
        }
        let target = Target::host();
        let ((isa, call_conv), (isa_light, _)) = (target.isa("backtracking")?, target.isa("single_pass")?);
        let capacity = settings.cache_capacity.max(1);
        Ok(Jit {
            settings,
            isa,
            isa_light,
            call_conv,
            kernels: Lru::new(capacity),
            dynamic: Lru::new(capacity),
            programs: Lru::new(capacity),
        })
    }

    /// The settings this JIT was made with (threads, cache capacity).
    pub fn settings(&self) -> &JitSettings {
        &self.settings
    }

    /// Kernels currently cached (static, dynamic).
    pub fn cached(&self) -> (usize, usize) {
        (self.kernels.len(), self.dynamic.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::EntryFn;

    /// A random fill called on sub-ranges [lo, hi) with any lo (not only the thread
    /// splits' multiples of a block) writes exactly those elements, each the reference's.
    #[test]
    fn random_fills_on_any_subrange() {
        let jit = Jit::default();
        for (dtype, normal) in [(DType::F32, false), (DType::F32, true), (DType::F16, false), (DType::F16, true)] {
            let n = 301u64;
            let kind = if normal {
                FillKind::RandomNormal { alpha: 0.25, beta: 2.0, seed: 0x1234_5678_9abc }
            } else {
                FillKind::RandomUniform { alpha: -1.5, beta: 3.0, seed: 77 }
            };
            let plan = Plan::Fill(kerfx_ir::FillPlan { dtype, shape: vec![n], kind });
            let want = kerfx_ir::reference::evaluate(&plan, None).unwrap();
            let want = want.bytes().unwrap();
            let ew = if dtype == DType::F16 { 2 } else { 4 };
            for k in [jit.compile(&plan, &Options::STATIC).unwrap(), jit.compile(&plan, &Options::DYNAMIC).unwrap()] {
                // SAFETY: `entry` is the finalized code of a function with this signature.
                let f: EntryFn = unsafe { std::mem::transmute::<usize, EntryFn>(k.code.entry) };
                for (lo, hi) in
                    [(0, 0), (0, 1), (1, 2), (3, 4), (1, 7), (5, 37), (30, 97), (33, 301), (298, 301), (0, 301)]
                {
                    let mut out = vec![0xa5u8; want.len()];
                    // SAFETY: [lo, hi) lies inside the plan's output, which `out` holds.
                    unsafe { f(std::ptr::null(), out.as_mut_ptr(), k.prepared.args.as_ptr(), lo, hi) };
                    let (a, b) = (lo as usize * ew, hi as usize * ew);
                    assert_eq!(&out[a..b], &want[a..b], "{dtype} normal={normal} [{lo}, {hi})");
                    assert!(out[..a].iter().chain(&out[b..]).all(|&x| x == 0xa5), "{dtype} [{lo}, {hi}) wrote outside");
                }
            }
        }
    }

    #[test]
    fn jit_and_kernels_are_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Jit>();
        check::<JitKernel>();
        check::<Arc<JitKernel>>();
    }
}
