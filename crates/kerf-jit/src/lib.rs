//! kerf's run-time backend: a Plan's [`LoopNest`] lowered to
//! Cranelift IR, compiled to machine code specialized for its shape, strides, mode and
//! dtype, and run on caller-owned buffers.
//!
//! ```
//! use kerf_ir::{DType, Kernel, Request, Tensor};
//! use kerf_jit::Jit;
//!
//! let jit = Jit::default();
//! let request = Request::new("tensorrt.slice")
//!     .input_meta("input", DType::F32, &[3, 3])
//!     .attr("start", [0, 0])
//!     .attr("size", [2, 2])
//!     .attr("stride", [1, 1]);
//! let kernel = jit.compile(&request).unwrap();
//! let input: Vec<u8> = (0..9).flat_map(|v| (v as f32).to_le_bytes()).collect();
//! let mut output = vec![0u8; 16];
//! kernel.run_bytes(Some(&input), &mut output).unwrap();
//! let values: Vec<f32> = output.chunks(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
//! assert_eq!(values, [0.0, 1.0, 3.0, 4.0]);
//! assert!(kernel.clif().contains("function %kerf_slice_strict_bounds_f32"));
//! ```
//!
//! Static kernels bake every number in; dynamic kernels ([`Jit::compile_dynamic`]) are
//! specialized on the op, mode, dtype and rank only and read the rest from an argument
//! block computed per call ([`JitKernel::run_plan`]). Every check (buffer lengths, plan
//! bounds, the schedule's invariants) happens on the host before machine code runs.
//!
//! Compile latency: the emitters fold constants and known branches themselves and
//! place every value where it is needed, so Cranelift runs without its mid-end;
//! kernels whose every loop iteration moves a row of 1 KiB or more through memcpy,
//! memset or straight-line code use the single-pass register allocator, and so do dynamic
//! slice kernels deeper than 8 (`LIGHT_DEPTH`; their compile time then grows linearly with
//! the depth, as their code does); one compilation context is reused per thread; the
//! CLIF text is produced only when [`JitKernel::clif`] asks for it, by emitting the
//! kernel again. Run time: static outputs of 8 MiB or more
//! write their computed runs (exact linspaces, reversed and strided runs) through a
//! stack buffer and non-temporal stores (`stream`); threaded calls take chunks of the
//! outer range from a shared counter.

mod cache;
mod emit;
mod lower;
mod nest;
mod random;
mod repeat;
mod stream;

use cranelift_codegen::Context;
use cranelift_codegen::ir::{Function, InstBuilder, UserFuncName};
use cranelift_codegen::isa::{CallConv, OwnedTargetIsa, TargetFrontendConfig};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};
use kerf_ir::dtype::Layout;
use kerf_ir::schedule::{self, FillBody, Indexing, LoopNest, Run};
use kerf_ir::{BoundaryMode, DType, Error, FillKind, Kernel, Linspace, Plan, Request, SlicePlan};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cache::Lru;
use emit::Gen;
use lower::{DynSlice, LinKind, StaticSlice, dyn_fill, dyn_slice};
use random::RandomParams;

/// Settings of a [`Jit`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JitSettings {
    /// Threads a large kernel call may use (splitting its outermost loop); 1 = the
    /// calling thread only.
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

/// Compiled machine code: one Cranelift module per kernel, so that its memory is freed
/// when the last kernel using it is dropped.
struct Code {
    module: Mutex<Option<JITModule>>,
    entry: usize,
    /// What the code was emitted from, to emit its IR again as text when asked for:
    /// compiling does not format text nobody may read.
    source: Emitter,
    /// Whether callers fence after the code ran (it wrote with non-temporal stores).
    streams: bool,
    frontend: TargetFrontendConfig,
    clif: OnceLock<String>,
}

impl Code {
    fn clif(&self) -> &str {
        self.clif.get_or_init(|| {
            let (func, _) = make_function(&self.source, self.frontend);
            func.display().to_string()
        })
    }
}

impl Drop for Code {
    fn drop(&mut self) {
        if let Some(m) = self.module.get_mut().map(Option::take).unwrap_or(None) {
            // SAFETY: the code is dropped only when no kernel (and so no caller) holds it.
            unsafe { m.free_memory() };
        }
    }
}

#[cfg(target_arch = "x86_64")]
type EntryFn = unsafe extern "sysv64" fn(*const u8, *mut u8, *const i64, i64, i64);
#[cfg(not(target_arch = "x86_64"))]
type EntryFn = unsafe extern "C" fn(*const u8, *mut u8, *const i64, i64, i64);

/// What a dynamic kernel is specialized on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DynKey {
    op: DynOp,
    dtype: DType,
    /// Loop depth: for a slice its input rank, at least 1 and at most
    /// [`schedule::MAX_DIMS`]; dims of a linspace; 0 for random fills.
    rank: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum DynOp {
    Slice(BoundaryMode),
    Random { normal: bool },
    LinspaceInt,
    LinspaceFloat,
}

impl DynKey {
    fn of(plan: &Plan) -> Result<DynKey, Error> {
        check_dtype(plan)?;
        Ok(match plan {
            // A nest has at most MAX_DIMS dims whatever the rank (extent-1 axes are
            // dropped): deeper kernels are never needed, so no rank is too large.
            Plan::Slice(p) => DynKey {
                op: DynOp::Slice(p.mode),
                dtype: p.dtype,
                rank: p.input_shape.len().clamp(1, schedule::MAX_DIMS),
            },
            Plan::Fill(p) => match &p.kind {
                FillKind::RandomUniform { .. } => {
                    DynKey { op: DynOp::Random { normal: false }, dtype: p.dtype, rank: 0 }
                }
                FillKind::RandomNormal { .. } => DynKey { op: DynOp::Random { normal: true }, dtype: p.dtype, rank: 0 },
                FillKind::Linspace(Linspace::Int { .. }) => {
                    DynKey { op: DynOp::LinspaceInt, dtype: p.dtype, rank: p.shape.len() }
                }
                FillKind::Linspace(Linspace::Float { .. }) => {
                    DynKey { op: DynOp::LinspaceFloat, dtype: p.dtype, rank: p.shape.len() }
                }
            },
        })
    }
    fn name(&self) -> String {
        match self.op {
            DynOp::Slice(m) => format!("kerf_slice_{m}_{}_r{}_dyn", self.dtype, self.rank),
            DynOp::Random { normal } => {
                format!("kerf_{}_{}_dyn", if normal { "random_normal" } else { "random_uniform" }, self.dtype)
            }
            DynOp::LinspaceInt | DynOp::LinspaceFloat => format!("kerf_linspace_{}_r{}_dyn", self.dtype, self.rank),
        }
    }
}

/// The host functions kernels call, whose arguments are i64s (pointers and sizes):
/// symbol, address, the function index kernels import it by (its declaration order),
/// and the number of arguments.
fn helpers() -> [(&'static str, *const u8, u32, usize); 3] {
    [
        (stream::SYMBOL, stream::stream_copy as *const u8, stream::FUNC_INDEX, 3),
        (repeat::SYMBOL, repeat::repeat as *const u8, repeat::FUNC_INDEX, 3),
        (repeat::NIBBLES_SYMBOL, repeat::repeat_nibbles as *const u8, repeat::NIBBLES_FUNC_INDEX, 4),
    ]
}

/// Dynamic slice kernels deeper than this use the single-pass register allocator: in the
/// backtracking one, every level's loop state is live across all the levels inside it,
/// which makes compile time grow with the square of the depth.
const LIGHT_DEPTH: usize = 8;

/// How a call's range `[lo, hi)` is split over threads.
#[derive(Clone, Copy, Debug, Default)]
struct Split {
    /// Positions of the split loop (0: nothing to do).
    extent: u64,
    /// Split points are multiples of this (2: packed nibbles with an odd per-position
    /// size, so that threads write whole bytes; a random fill's block, so that no block
    /// is computed twice); 0 or 1: anywhere.
    align: u64,
    /// Work per position, in bytes of output or equivalent, to decide on threads.
    cost: u64,
}

/// The argument block and split of one plan, and the buffers its code touches: built
/// only from a verified schedule ([`LoopNest::verify`], [`schedule::FillNest::verify`] or a
/// validated fill plan), whose reads lie in `[0, input_len)` and whose writes cover
/// exactly `[0, output_len)`, in elements of the kernel's dtype.
struct Prepared {
    args: Vec<i64>,
    split: Split,
    /// Elements the code may read (`None`: it reads no input).
    input_len: Option<u64>,
    /// Elements the code writes.
    output_len: u64,
}

impl Prepared {
    /// Bytes of the input and output buffers, and whether the output's last byte holds
    /// a lone nibble (zeroed by the host, the code writes only the low one).
    fn buffer_bytes(&self, dtype: DType) -> Result<(Option<usize>, usize, bool), Error> {
        let input = self.input_len.map(|n| buffer_bytes(dtype, n)).transpose()?;
        let odd_nibble = dtype.layout() == Layout::Nibbles && self.output_len % 2 == 1;
        Ok((input, buffer_bytes(dtype, self.output_len)?, odd_nibble))
    }
}

/// A compiled kernel: static (one plan) or dynamic (one op, mode, dtype and rank).
pub struct JitKernel {
    code: Arc<Code>,
    plan: Plan,
    prepared: Prepared,
    dynamic: Option<DynKey>,
    threads: usize,
}

impl std::fmt::Debug for JitKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JitKernel").field("plan", &self.plan).field("dynamic", &self.dynamic).finish()
    }
}

fn check_dtype(plan: &Plan) -> Result<(), Error> {
    match plan {
        Plan::Slice(p) if p.dtype.layout() == Layout::Strings => Err(Error::Invalid {
            what:
                "the JIT moves bytes and cannot move strings; slices of dtype string run on the reference interpreter"
                    .into(),
        }),
        Plan::Fill(p) => {
            let ok = match &p.kind {
                FillKind::Linspace(Linspace::Int { .. }) => matches!(p.dtype, DType::I32 | DType::I64),
                FillKind::Linspace(Linspace::Float { .. }) => p.dtype == DType::F32,
                _ => matches!(p.dtype, DType::F32 | DType::F16),
            };
            if !ok {
                return Err(Error::Invalid {
                    what: format!("the JIT has no fill kernel for {:?} with dtype {}", p.kind, p.dtype),
                });
            }
            if matches!(p.kind, FillKind::RandomUniform { .. } | FillKind::RandomNormal { .. })
                && p.output_len() > u32::MAX as u64
            {
                return Err(Error::TooLarge { what: "a random fill of more than 2^32 elements".into() });
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn buffer_bytes(dtype: DType, count: u64) -> Result<usize, Error> {
    dtype.buffer_bytes(count).ok_or_else(|| Error::TooLarge { what: format!("{count} elements of {dtype}") })
}

fn slice_split(nest: &LoopNest, dim: usize) -> Split {
    let Some(d) = nest.dims.get(dim) else { return Split::default() };
    let w = match nest.dtype.layout() {
        Layout::Bytes(w) => w as u64,
        _ => 1,
    };
    Split {
        extent: d.extent,
        align: if nest.dtype.layout() == Layout::Nibbles && d.out_stride % 2 == 1 { 2 } else { 1 },
        cost: d.out_stride.saturating_mul(w),
    }
}

/// The argument block of a dynamic slice kernel with `depth` loops: the nest's dims last,
/// after extent-1 dims padding it to the depth. O(dims + segments + tables) words.
fn encode_slice(nest: &LoopNest, depth: usize) -> Result<Prepared, Error> {
    let nd = nest.dims.len();
    let (input_len, output_len) = (Some(nest.input_len), nest.output_len);
    if nd == 0 {
        return Ok(Prepared { args: Vec::new(), split: Split::default(), input_len, output_len });
    }
    if nd > depth {
        return Err(Error::Invalid { what: format!("a nest of {nd} dims for a kernel of {depth}") });
    }
    let pad = depth - nd;
    let mut w = vec![0i64; (dyn_slice::DIMS + dyn_slice::DIM_WORDS * depth as i64) as usize];
    w[dyn_slice::BASE as usize] = nest.base;
    let fill = nest.fill_bits.to_le_bytes();
    w[dyn_slice::FILL as usize] = i64::from_le_bytes(fill[..8].try_into().expect("8 bytes"));
    w[dyn_slice::FILL as usize + 1] = i64::from_le_bytes(fill[8..].try_into().expect("8 bytes"));
    w[dyn_slice::SPLIT as usize] = pad as i64;
    for k in 0..depth {
        let hdr = (dyn_slice::DIMS + dyn_slice::DIM_WORDS * k as i64) as usize;
        let header = if k < pad {
            let at = w.len() as i64;
            w.extend([dyn_slice::KIND_AFFINE, 1, 0, 0]);
            [1, nest.output_len as i64, 1, 1, at]
        } else {
            let dim = &nest.dims[k - pad];
            let at = lower::push_segments(&mut w, dim);
            [dim.extent as i64, dim.out_stride as i64, dim.period as i64, dim.pieces() as i64, at]
        };
        w[hdr..hdr + dyn_slice::DIM_WORDS as usize].copy_from_slice(&header);
    }
    Ok(Prepared { args: w, split: slice_split(nest, 0), input_len, output_len })
}

fn f32_word(v: f32) -> i64 {
    v.to_bits() as i64
}

/// The argument block of a dynamic fill kernel.
fn encode_fill(plan: &kerf_ir::FillPlan) -> Prepared {
    let len = plan.output_len();
    let random = |alpha: f32, beta: f32, seed: u64, cost: u64| {
        let mut w = vec![0i64; 6];
        w[dyn_fill::ALPHA as usize] = f32_word(alpha);
        w[dyn_fill::BETA as usize] = f32_word(beta);
        w[dyn_fill::RANGE as usize] = f32_word(beta - alpha);
        w[dyn_fill::BELOW_BETA as usize] = f32_word(beta.next_down());
        w[dyn_fill::KEY0 as usize] = seed as u32 as i64;
        w[dyn_fill::KEY1 as usize] = (seed >> 32) as i64;
        for (k0, k1) in random::round_keys(seed) {
            for k in [k0, k1] {
                let pair = k as i64 | ((k as i64) << 32);
                w.extend([pair, pair]);
            }
        }
        Prepared {
            args: w,
            split: Split { extent: len, align: random::BLOCK as u64, cost },
            input_len: None,
            output_len: len,
        }
    };
    let lin_split = |shape: &[u64]| Split {
        extent: if len == 0 { 0 } else { shape.first().copied().unwrap_or(1) },
        align: 1,
        cost: 4 * shape.iter().skip(1).product::<u64>(),
    };
    match &plan.kind {
        FillKind::RandomUniform { alpha, beta, seed } => random(*alpha, *beta, *seed, random::cost(false)),
        FillKind::RandomNormal { alpha, beta, seed } => random(*alpha, *beta, *seed, random::cost(true)),
        FillKind::Linspace(Linspace::Int { alpha, beta }) => {
            let mut w = vec![*alpha];
            for (&e, &b) in plan.shape.iter().zip(beta) {
                w.extend([e as i64, b]);
            }
            Prepared { args: w, split: lin_split(&plan.shape), input_len: None, output_len: len }
        }
        FillKind::Linspace(Linspace::Float { alpha, beta }) => {
            let mut w = vec![alpha.to_bits() as i64];
            for (&e, &b) in plan.shape.iter().zip(beta) {
                w.extend([e as i64, b.to_bits() as i64]);
            }
            Prepared { args: w, split: lin_split(&plan.shape), input_len: None, output_len: len }
        }
    }
}

/// Bytes of work below which a call stays on one thread.
const THREAD_MIN_COST: u64 = 1 << 20;

/// Chunks of a threaded call per thread (see [`JitKernel::call`]).
const CHUNKS_PER_THREAD: u64 = 8;

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
    /// Whether this is a dynamic kernel (see [`Jit::compile_dynamic`]).
    pub fn is_dynamic(&self) -> bool {
        self.dynamic.is_some()
    }
    /// The plan this kernel was compiled for (for dynamic kernels: the one `run_bytes` runs).
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Run the code on `[0, split.extent)` of its split loop. Only [`Self::run_prepared`]
    /// calls this, after checking that `input` holds `prepared.input_len` elements (or
    /// is not read) and `output` holds `prepared.output_len`.
    fn call(&self, prepared: &Prepared, input: *const u8, output: *mut u8) {
        let split = prepared.split;
        if split.extent == 0 {
            return;
        }
        // SAFETY: `entry` is the finalized code of a function with this signature.
        let f: EntryFn = unsafe { std::mem::transmute::<usize, EntryFn>(self.code.entry) };
        let args = prepared.args.as_ptr();
        let total = split.extent.saturating_mul(split.cost);
        let threads =
            if self.threads > 1 && total >= THREAD_MIN_COST { self.threads.min(split.extent as usize) } else { 1 };
        if threads <= 1 {
            // SAFETY: the code was emitted for `prepared`'s schedule (static) or for its
            // kernel key, which `prepared` was encoded and checked against (dynamic); that
            // schedule was verified to read only input elements in [0, input_len) and to
            // write exactly the output elements [0, output_len) over [0, split.extent);
            // run_prepared checked that the buffers hold exactly those elements.
            unsafe { f(input, output, args, 0, split.extent as i64) };
            if self.code.streams {
                stream::fence();
            }
            return;
        }
        // Chunks taken from a shared counter rather than one fixed share per thread: a
        // thread that runs slower (a core shared with another process) takes fewer
        // chunks instead of holding up the call. Chunk bounds are multiples of the split's
        // alignment.
        let chunks = (threads as u64 * CHUNKS_PER_THREAD).min(split.extent);
        let align = split.align.max(1);
        let bound = |c: u64| -> u64 {
            let b = (split.extent as u128 * c as u128 / chunks as u128) as u64;
            if c == chunks { b } else { b - b % align }
        };
        let next = std::sync::atomic::AtomicU64::new(0);
        let streams = self.code.streams;
        // The pointers cross threads as integers; the buffers outlive the scope below.
        let (ip, op, ap) = (input as usize, output as usize, args as usize);
        let work = || {
            loop {
                let c = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if c >= chunks {
                    break;
                }
                let (lo, hi) = (bound(c), bound(c + 1));
                if lo < hi {
                    // SAFETY: as above, for the sub-range [lo, hi) of [0, split.extent);
                    // chunks are disjoint output ranges of whole bytes (split.align).
                    unsafe { f(ip as *const u8, op as *mut u8, ap as *const i64, lo as i64, hi as i64) };
                }
            }
            if streams {
                stream::fence();
            }
        };
        std::thread::scope(|s| {
            for _ in 1..threads {
                s.spawn(work);
            }
            work();
        });
    }

    fn run_prepared(&self, prepared: &Prepared, input: Option<&[u8]>, output: &mut [u8]) -> Result<(), Error> {
        let (input_bytes, output_bytes, zero_last) = prepared.buffer_bytes(self.plan.dtype())?;
        if output.len() != output_bytes {
            return Err(Error::BufferLength {
                what: "kernel output".into(),
                expected: output_bytes,
                found: output.len(),
            });
        }
        let input_ptr = match (input_bytes, input) {
            (Some(n), Some(i)) if i.len() == n => i.as_ptr(),
            (Some(n), Some(i)) => {
                return Err(Error::BufferLength { what: "kernel input".into(), expected: n, found: i.len() });
            }
            (Some(_), None) => return Err(Error::Invalid { what: "a slice kernel needs its input buffer".into() }),
            (None, _) => std::ptr::null(),
        };
        if zero_last && let Some(b) = output.last_mut() {
            *b = 0;
        }
        // The buffers now hold exactly the elements `prepared` was verified against.
        self.call(prepared, input_ptr, output.as_mut_ptr());
        Ok(())
    }

    /// Run another plan on a dynamic kernel: it must have this kernel's op, mode, dtype
    /// and rank. The plan is scheduled and checked (bounds included) before any machine
    /// code runs. On a static kernel, only its own plan is accepted.
    pub fn run_plan(&self, plan: &Plan, input: Option<&[u8]>, output: &mut [u8]) -> Result<(), Error> {
        let Some(key) = &self.dynamic else {
            if plan == &self.plan {
                return self.run_bytes(input, output);
            }
            return Err(Error::Mismatch {
                what: "plan of a static kernel".into(),
                expected: self.plan.to_string(),
                found: plan.to_string(),
            });
        };
        let found = DynKey::of(plan)?;
        if &found != key {
            return Err(Error::Mismatch {
                what: "plan of a dynamic kernel".into(),
                expected: format!("{key:?}"),
                found: format!("{found:?}"),
            });
        }
        let prepared = prepare_dynamic(plan, key)?;
        self.run_prepared(&prepared, input, output)
    }

    /// [`run_plan`](Self::run_plan) for a slice plan.
    pub fn run_slice_plan(&self, plan: &SlicePlan, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.run_plan(&Plan::Slice(plan.clone()), Some(input), output)
    }
}

/// A plan's argument block for a dynamic kernel of `key`, from the plan validated and
/// scheduled on the host: nothing the caller built reaches machine code unchecked.
fn prepare_dynamic(plan: &Plan, key: &DynKey) -> Result<Prepared, Error> {
    plan.validate()?;
    match plan {
        Plan::Slice(p) => {
            let nest = schedule::slice(p)?;
            nest.verify()?;
            encode_slice(&nest, key.rank)
        }
        Plan::Fill(p) => Ok(encode_fill(p)),
    }
}

impl Kernel for JitKernel {
    fn dtype(&self) -> DType {
        self.plan.dtype()
    }
    fn input_shape(&self) -> Option<&[u64]> {
        self.plan.input_shape()
    }
    fn output_shape(&self) -> &[u64] {
        self.plan.output_shape()
    }
    fn run_bytes(&self, input: Option<&[u8]>, output: &mut [u8]) -> Result<(), Error> {
        self.run_prepared(&self.prepared, input, output)
    }
}

/// Cache key of a static kernel: the plan with its floats as bits.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum PlanKey {
    Slice(SlicePlan),
    Fill { dtype: DType, shape: Vec<u64>, tag: u8, numbers: Vec<u64> },
}

impl PlanKey {
    fn of(plan: &Plan) -> PlanKey {
        match plan {
            Plan::Slice(p) => {
                let mut p = p.clone();
                if p.mode != BoundaryMode::Fill {
                    p.fill_bits = 0;
                }
                PlanKey::Slice(p)
            }
            Plan::Fill(p) => {
                let (tag, numbers) = match &p.kind {
                    FillKind::Linspace(Linspace::Int { alpha, beta }) => {
                        (0, std::iter::once(*alpha as u64).chain(beta.iter().map(|&b| b as u64)).collect())
                    }
                    FillKind::Linspace(Linspace::Float { alpha, beta }) => {
                        (1, std::iter::once(alpha.to_bits()).chain(beta.iter().map(|b| b.to_bits())).collect())
                    }
                    FillKind::RandomUniform { alpha, beta, seed } => {
                        (2, vec![alpha.to_bits() as u64, beta.to_bits() as u64, *seed])
                    }
                    FillKind::RandomNormal { alpha, beta, seed } => {
                        (3, vec![alpha.to_bits() as u64, beta.to_bits() as u64, *seed])
                    }
                };
                PlanKey::Fill { dtype: p.dtype, shape: p.shape.clone(), tag, numbers }
            }
        }
    }
}

type Compiled<T> = Result<T, Error>;

/// The JIT: compiles plans to kernels and caches them. `Send + Sync`: share one across
/// threads; concurrent requests for one plan compile it once.
pub struct Jit {
    settings: JitSettings,
    isa: OwnedTargetIsa,
    /// The same target with the single-pass register allocator (half the compile time,
    /// values kept on the stack between blocks): for kernels whose every loop iteration
    /// moves a row through a call or straight-line code (see [`row_kernel`]).
    isa_light: OwnedTargetIsa,
    call_conv: CallConv,
    kernels: Lru<PlanKey, Compiled<Arc<JitKernel>>>,
    dynamic: Lru<DynKey, Compiled<Arc<Code>>>,
}

impl Default for Jit {
    fn default() -> Self {
        Jit::new(JitSettings::default()).expect("the host is supported by Cranelift")
    }
}

fn jit_error(e: impl std::fmt::Display) -> Error {
    Error::Invalid { what: format!("jit: {e}") }
}

impl Jit {
    /// A JIT for the host machine.
    pub fn new(settings: JitSettings) -> Result<Jit, Error> {
        let isa = |regalloc: &str| -> Result<OwnedTargetIsa, Error> {
            let mut flags = settings::builder();
            // No mid-end: the emitters fold their constants, keep loop-invariant values
            // out of loops and schedule independent work (random fills interleave their
            // Philox groups, which the mid-end would sink back into one chain each), so
            // the mid-end would only cost compile time (a third to a half of it) for the
            // same machine code.
            flags.set("opt_level", "none").map_err(jit_error)?;
            flags.set("regalloc_algorithm", regalloc).map_err(jit_error)?;
            flags.set("use_colocated_libcalls", "false").map_err(jit_error)?;
            flags.set("is_pic", "false").map_err(jit_error)?;
            flags.set("enable_verifier", if cfg!(debug_assertions) { "true" } else { "false" }).map_err(jit_error)?;
            let mut isa_builder = cranelift_native::builder().map_err(jit_error)?;
            // Philox's 32x32->64 multiplies lower to `pmuludq` through the widening-multiply
            // pattern; with AVX-512DQ Cranelift prefers `vpmullq` (15 cycles of latency) for
            // every i64x2 multiply. Nothing else here gains from AVX-512DQ.
            if cfg!(target_arch = "x86_64") {
                let _ = isa_builder.set("has_avx512dq", "false");
            }
            isa_builder.finish(settings::Flags::new(flags)).map_err(jit_error)
        };
        let (isa, isa_light) = (isa("backtracking")?, isa("single_pass")?);
        let call_conv = if cfg!(target_arch = "x86_64") { CallConv::SystemV } else { isa.default_call_conv() };
        let capacity = settings.cache_capacity.max(1);
        Ok(Jit { settings, isa, isa_light, call_conv, kernels: Lru::new(capacity), dynamic: Lru::new(capacity) })
    }

    pub fn settings(&self) -> &JitSettings {
        &self.settings
    }

    /// Lower a request (see [`kerf_ir::lower`]) and compile its plan into a static kernel.
    pub fn compile(&self, request: &Request) -> Result<Arc<JitKernel>, Error> {
        self.compile_plan(&kerf_ir::lower(request)?)
    }

    /// Compile a plan into a static kernel, or return the cached one.
    pub fn compile_plan(&self, plan: &Plan) -> Result<Arc<JitKernel>, Error> {
        plan.validate()?;
        check_dtype(plan)?;
        self.kernels.get_or_init(PlanKey::of(plan), || self.build_static(plan))
    }

    /// Lower a request and compile a dynamic kernel for its op, mode, dtype and rank; the
    /// kernel runs that request's plan with `run_bytes` and any other plan of the same
    /// kind with [`JitKernel::run_plan`], without recompiling.
    pub fn compile_dynamic(&self, request: &Request) -> Result<Arc<JitKernel>, Error> {
        self.compile_dynamic_plan(&kerf_ir::lower(request)?)
    }

    /// [`compile_dynamic`](Self::compile_dynamic) from a plan.
    pub fn compile_dynamic_plan(&self, plan: &Plan) -> Result<Arc<JitKernel>, Error> {
        let key = DynKey::of(plan)?;
        let code = self.dynamic.get_or_init(key.clone(), || self.build_dynamic(&key))?;
        let prepared = prepare_dynamic(plan, &key)?;
        Ok(Arc::new(JitKernel {
            code,
            plan: plan.clone(),
            prepared,
            dynamic: Some(key),
            threads: self.settings.threads,
        }))
    }

    /// Kernels currently cached (static, dynamic).
    pub fn cached(&self) -> (usize, usize) {
        (self.kernels.len(), self.dynamic.len())
    }

    fn build(&self, source: Emitter) -> Result<(Arc<Code>, Vec<i64>), Error> {
        let isa = if source.light() { &self.isa_light } else { &self.isa };
        let mut builder = JITBuilder::with_isa(isa.clone(), default_libcall_names());
        // The one symbol kernels call; known here, it needs no dynamic-linker lookup.
        builder.symbol("memcpy", libc_memcpy as *const u8);
        builder.symbol("memset", libc_memset as *const u8);
        for (symbol, f, _, _) in helpers() {
            builder.symbol(symbol, f);
        }
        let mut module = JITModule::new(builder);
        // Declared first, in order, so that their ids are the indices kernels name them by.
        for (symbol, _, index, args) in helpers() {
            let mut sig = cranelift_codegen::ir::Signature::new(self.call_conv);
            sig.params.extend(vec![cranelift_codegen::ir::AbiParam::new(cranelift_codegen::ir::types::I64); args]);
            let id = module.declare_function(symbol, Linkage::Import, &sig).map_err(jit_error)?;
            debug_assert_eq!(id.as_u32(), index);
        }
        let mut frontend = isa.frontend_config();
        frontend.default_call_conv = self.call_conv;
        let (func, block) = make_function(&source, frontend);
        let name = source.name();
        let id = module.declare_function(&name, Linkage::Export, &func.signature).map_err(jit_error)?;
        // One compilation context per thread, reused: it keeps the register allocator's
        // and the analyses' allocations from one kernel to the next.
        thread_local! {
            static CONTEXT: std::cell::RefCell<Option<Context>> = const { std::cell::RefCell::new(None) };
        }
        let defined = CONTEXT.with(|cell| {
            let mut slot = cell.borrow_mut();
            let ctx = slot.get_or_insert_with(Context::new);
            ctx.clear();
            ctx.func = func;
            let disasm = std::env::var_os("KERF_JIT_DISASM").is_some();
            ctx.set_disasm(disasm);
            let r = module.define_function(id, ctx).map_err(|e| jit_error(format!("{e:?}")));
            if disasm && let Some(code) = ctx.compiled_code() {
                eprintln!("{name}:\n{}", code.vcode.as_deref().unwrap_or(""));
            }
            ctx.clear();
            r
        });
        defined?;
        module.finalize_definitions().map_err(jit_error)?;
        let entry = module.get_finalized_function(id) as usize;
        let streams = source.streams();
        let code = Code { module: Mutex::new(Some(module)), entry, source, streams, frontend, clif: OnceLock::new() };
        Ok((Arc::new(code), block))
    }

    fn build_static(&self, plan: &Plan) -> Result<Arc<JitKernel>, Error> {
        let source = Emitter::of_static(plan)?;
        let (split, (input_len, output_len)) = (source.split(), source.buffer_lens());
        let (code, args) = self.build(source)?;
        Ok(Arc::new(JitKernel {
            code,
            plan: plan.clone(),
            prepared: Prepared { args, split, input_len, output_len },
            dynamic: None,
            threads: self.settings.threads,
        }))
    }

    fn build_dynamic(&self, key: &DynKey) -> Result<Arc<Code>, Error> {
        Ok(self.build(Emitter::Dynamic(key.clone()))?.0)
    }
}

/// What a kernel is emitted from: a static plan's schedule, or a dynamic kernel's key.
enum Emitter {
    Slice { nest: LoopNest, dtype: DType },
    Fill(schedule::FillNest),
    Dynamic(DynKey),
}

impl Emitter {
    fn of_static(plan: &Plan) -> Result<Emitter, Error> {
        Ok(match plan {
            Plan::Slice(p) => {
                let nest = schedule::slice(p)?;
                nest.verify()?;
                lower::elem_of(p.dtype).ok_or_else(|| Error::Invalid { what: "strings".into() })?;
                Emitter::Slice { nest, dtype: p.dtype }
            }
            Plan::Fill(p) => {
                let nest = schedule::fill(p)?;
                nest.verify()?;
                Emitter::Fill(nest)
            }
        })
    }

    /// The elements a static kernel reads and writes: its verified nest's.
    fn buffer_lens(&self) -> (Option<u64>, u64) {
        match self {
            Emitter::Slice { nest, .. } => (Some(nest.input_len), nest.output_len),
            Emitter::Fill(nest) => (None, nest.len),
            Emitter::Dynamic(_) => (None, 0),
        }
    }

    fn name(&self) -> String {
        match self {
            Emitter::Slice { nest, dtype } => format!("kerf_slice_{}_{}", nest.mode, dtype),
            Emitter::Fill(nest) => match &nest.body {
                FillBody::Random { normal, .. } => {
                    format!("kerf_{}_{}", if *normal { "random_normal" } else { "random_uniform" }, nest.dtype)
                }
                FillBody::LinspaceF32Exact { .. } => format!("kerf_linspace_{}_exact", nest.dtype),
                FillBody::LinspaceInt { .. } | FillBody::LinspaceF64 { .. } => {
                    format!("kerf_linspace_{}", nest.dtype)
                }
            },
            Emitter::Dynamic(key) => key.name(),
        }
    }

    /// Whether the kernel writes its output with cache-bypassing stores (see [`stream`]):
    /// large static fills whose values are exact in any order (the chunked loop sums
    /// them differently).
    fn streams(&self) -> bool {
        match self {
            Emitter::Fill(nest) => {
                let bytes = nest.dtype.buffer_bytes(nest.len).unwrap_or(0) as u64;
                bytes >= stream::MIN_BYTES
                    && matches!(nest.body, FillBody::LinspaceInt { .. } | FillBody::LinspaceF32Exact { .. })
            }
            Emitter::Slice { nest, .. } => stream::slice_streams(nest),
            Emitter::Dynamic(_) => false,
        }
    }

    /// Whether the kernel is compiled with the quick register allocator.
    fn light(&self) -> bool {
        match self {
            Emitter::Slice { nest, .. } => row_kernel(nest),
            Emitter::Dynamic(DynKey { op: DynOp::Slice(_), rank, .. }) => *rank > LIGHT_DEPTH,
            _ => false,
        }
    }

    /// How a static kernel's calls split over threads.
    fn split(&self) -> Split {
        match self {
            Emitter::Slice { nest, .. } => slice_split(nest, 0),
            Emitter::Fill(nest) => match &nest.body {
                FillBody::Random { normal, .. } => {
                    Split { extent: nest.len, align: random::BLOCK as u64, cost: random::cost(*normal) }
                }
                FillBody::LinspaceInt { dims, .. } => lin_split(nest.len, dims.iter().map(|d| d.extent)),
                FillBody::LinspaceF32Exact { dims, .. } => lin_split(nest.len, dims.iter().map(|d| d.extent)),
                FillBody::LinspaceF64 { dims, .. } => lin_split(nest.len, dims.iter().map(|d| d.extent)),
            },
            Emitter::Dynamic(_) => Split::default(),
        }
    }

    /// Emit the kernel's body; returns its argument block (a static kernel's tables).
    fn emit(&self, g: &mut Gen) -> Vec<i64> {
        match self {
            Emitter::Slice { nest, dtype } => {
                StaticSlice::emit(g, nest, lower::elem_of(*dtype).expect("strings were refused"))
            }
            Emitter::Fill(nest) => {
                match &nest.body {
                    FillBody::Random { normal, alpha, beta, seed } => {
                        let f16 = nest.dtype == DType::F16;
                        random::emit_random(g, &RandomParams::constants(*normal, f16, *alpha, *beta, *seed));
                    }
                    body => {
                        let mut lin = lower::Linspace::constants(g, body).expect("a linspace body");
                        lin.stream = self.streams();
                        lin.emit(g, nest.dtype == DType::I32);
                    }
                }
                Vec::new()
            }
            Emitter::Dynamic(key) => {
                match key.op {
                    DynOp::Slice(mode) => {
                        let elem = lower::elem_of(key.dtype).expect("strings were refused");
                        DynSlice::emit(g, mode, elem, key.rank);
                    }
                    DynOp::Random { normal } => {
                        let params = RandomParams::from_args(g, normal, key.dtype == DType::F16);
                        random::emit_random(g, &params);
                    }
                    DynOp::LinspaceInt => {
                        lower::Linspace::from_args(g, LinKind::I64, key.rank).emit(g, key.dtype == DType::I32);
                    }
                    DynOp::LinspaceFloat => {
                        lower::Linspace::from_args(g, LinKind::F64, key.rank).emit(g, false);
                    }
                }
                Vec::new()
            }
        }
    }
}

/// The kernel's Cranelift function, and its argument block.
fn make_function(source: &Emitter, frontend: TargetFrontendConfig) -> (Function, Vec<i64>) {
    let mut func = Function::with_name_signature(
        UserFuncName::testcase(source.name()),
        lower::signature(frontend.default_call_conv),
    );
    let mut fctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let mut g = Gen {
        b,
        cfg: frontend,
        inp: p[0],
        out: p[1],
        args: p[2],
        lo: p[3],
        hi: p[4],
        consts: HashMap::new(),
        helpers: [None; 3],
    };
    let block = source.emit(&mut g);
    g.b.ins().return_(&[]);
    g.b.seal_all_blocks();
    g.b.finalize(frontend);
    (func, block)
}

unsafe extern "C" {
    #[link_name = "memcpy"]
    fn libc_memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8;
    #[link_name = "memset"]
    fn libc_memset(dst: *mut u8, c: i32, n: usize) -> *mut u8;
}

/// Whether every loop of a static slice kernel moves a row or more per iteration through
/// a call (memcpy, memset) or straight-line code, so that no loop is tight enough for
/// register allocation to matter. Mirrors what [`lower::StaticSlice`] and [`emit`] emit
/// for each segment: a contiguous run of 256 bytes or more is a memcpy, a run of known
/// length up to 64 bytes (up to 256 reversed) is straight-line, a fill of one repeated
/// byte of 256 bytes or more is a memset. Dim 0's counts are only known at run time.
/// Rows must be 1 KiB or more, so that the loop overhead of keeping values on the stack
/// is small against a row's work.
fn row_kernel(nest: &LoopNest) -> bool {
    let Layout::Bytes(w) = nest.dtype.layout() else { return false };
    let w = w as u64;
    let fill = nest.fill_bits.to_le_bytes();
    let fill_memset = fill[..w as usize].iter().all(|&b| b == fill[0]);
    let inner = nest.dims.len().saturating_sub(1);
    if nest.dims.iter().any(|d| d.repeats()) || nest.looped_dims().contains(&true) {
        return false;
    }
    if nest.dims.len() == 1 {
        // One contiguous run split over threads: a memcpy (a short copy below 256 bytes).
        return matches!(nest.dims[0].segments(), Some([seg]) if seg.run() == Run::Copy);
    }
    if nest.dims.is_empty() || nest.dims[inner].extent.saturating_mul(w) < 1024 {
        return false;
    }
    nest.dims.iter().enumerate().all(|(k, dim)| {
        let Indexing::Segments(segs) = &dim.indexing else { return false };
        segs.iter().all(|seg| {
            let bytes = seg.len().saturating_mul(dim.out_stride).saturating_mul(w);
            match (k == inner, seg.run()) {
                // An outer affine segment is a loop over the next dim.
                (false, Run::Fill) => fill_memset && (k == 0 || bytes >= 256 || bytes <= 64),
                (false, _) => true,
                (true, Run::Copy) => bytes >= 256 || bytes <= 64,
                (true, Run::Fill) => bytes <= 64 || (fill_memset && bytes >= 256),
                (true, Run::Broadcast) => bytes <= 64,
                (true, Run::Reverse) => bytes <= 256,
                (true, Run::Strided(_)) => false,
            }
        })
    })
}

fn lin_split(len: u64, mut extents: impl Iterator<Item = u64>) -> Split {
    let first = extents.next();
    let rest: u64 = extents.product();
    Split { extent: if len == 0 { 0 } else { first.unwrap_or(1) }, align: 1, cost: 4 * rest }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let plan = Plan::Fill(kerf_ir::FillPlan { dtype, shape: vec![n], kind });
            let want = kerf_ir::reference::evaluate(&plan, None).unwrap();
            let want = want.bytes().unwrap();
            let ew = if dtype == DType::F16 { 2 } else { 4 };
            for k in [jit.compile_plan(&plan).unwrap(), jit.compile_dynamic_plan(&plan).unwrap()] {
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
