//! The kernel ABI: the one signature every kernel has, the layout of its i64 argument
//! block, and the encoders that fill that block from a verified schedule (with the
//! buffer lengths the host checks before any machine code runs).
//!
//! Every kernel has one signature, with an explicit calling convention so that its IR
//! text is the same on every x86-64 host:
//! `fn(input: i64, output: i64, args: i64, lo: i64, hi: i64)` — byte pointers to the input
//! and output buffers, a pointer to the kernel's i64 argument block (index tables and
//! looped dims' segment lists of a static kernel; everything of a dynamic one), and the
//! range `[lo, hi)` of the outermost loop (or of linear indices, for random fills) that
//! this call computes, which is how threads split the work.

use crate::compile::DynKey;
use crate::threading::{Split, lin_split, slice_split};
use crate::{buffer_bytes, policy, random};
use cranelift_codegen::ir::{AbiParam, Signature, types};
use cranelift_codegen::isa::CallConv;
use kerfx_ir::dtype::Layout;
use kerfx_ir::schedule::LoopNest;
use kerfx_ir::{DType, Error, FillKind, Linspace, Plan};

/// The kernel signature.
pub(crate) fn signature(call_conv: CallConv) -> Signature {
    let mut sig = Signature::new(call_conv);
    for _ in 0..5 {
        sig.params.push(AbiParam::new(types::I64));
    }
    sig
}

/// Argument-block layout of slice kernels: the runtime library's, which encodes the
/// blocks of plans (here and in the planner of kernels written ahead of time).
pub(crate) use kerfx_rt::dynamic::layout as dyn_slice;
pub(crate) use kerfx_rt::dynamic::push_segments;

#[cfg(target_arch = "x86_64")]
pub(crate) type EntryFn = unsafe extern "sysv64" fn(*const u8, *mut u8, *const i64, i64, i64);
#[cfg(not(target_arch = "x86_64"))]
pub(crate) type EntryFn = unsafe extern "C" fn(*const u8, *mut u8, *const i64, i64, i64);

/// Argument-block layout of dynamic linspace kernels (i64 words; random fills: see
/// [`kerfx_rt::random::args`]).
pub(crate) mod dyn_fill {
    /// Linspace: word 0 alpha (i64, or f64 bits), then per dim extent and coefficient.
    pub const LIN_ALPHA: i64 = 0;
    pub const LIN_DIMS: i64 = 1;
}

/// The argument block and split of one plan, and the buffers its code touches: built
/// only from a verified schedule ([`LoopNest::verify`], [`schedule::FillNest::verify`] or a
/// validated fill plan), whose reads lie in `[0, input_len)` and whose writes cover
/// exactly `[0, output_len)`, in elements of the kernel's dtype — or, for a nest writing
/// an output view, each element of the view once, inside `[0, output_len)` (the view's
/// buffer; the elements between the view's are not touched).
pub(crate) struct Prepared {
    pub(crate) args: Vec<i64>,
    pub(crate) split: Split,
    /// The buffers' bytes (`output_len` elements in the output), computed here once
    /// rather than on every call; an error when a buffer would not fit the address space
    /// (running returns it).
    pub(crate) bytes: Result<Bytes, Error>,
}

/// Bytes of a kernel's input and output buffers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bytes {
    /// `None`: the code reads no input.
    pub(crate) input: Option<usize>,
    pub(crate) output: usize,
    /// Whether the output's last byte holds a lone nibble (zeroed by the host, the code
    /// writes only the low one).
    pub(crate) odd_nibble: bool,
}

impl Prepared {
    pub(crate) fn new(dtype: DType, args: Vec<i64>, split: Split, input_len: Option<u64>, output_len: u64) -> Prepared {
        let bytes = (|| {
            let input = input_len.map(|n| buffer_bytes(dtype, n)).transpose()?;
            let odd_nibble = dtype.layout() == Layout::Nibbles && output_len % 2 == 1;
            Ok(Bytes { input, output: buffer_bytes(dtype, output_len)?, odd_nibble })
        })();
        Prepared { args, split, bytes }
    }
}

/// The argument block of a dynamic slice kernel with `depth` loops
/// ([`kerfx_rt::dynamic::encode_slice`]): for the kernel of fused chains (`chain`), with
/// its fill levels and its head's block. A kernel writing output views (`view`) takes
/// only nests of its dtype; a nest writing a view needs one.
pub(crate) fn encode_slice(nest: &LoopNest, depth: usize, view: bool, chain: bool) -> Result<Prepared, Error> {
    if nest.out_view.is_some() && !view {
        return Err(Error::Invalid {
            what:
                "output view: this dynamic kernel writes dense outputs; compile one for output views (Options::output)"
                    .into(),
        });
    }
    if view && chain {
        return Err(Error::Invalid {
            what: "a kernel of fused chains with a fill head or fill levels writes no output view".into(),
        });
    }
    if view {
        crate::compile::check_view_dtype(nest.dtype)?;
    }
    let (input_len, output_len) = (nest.head.is_none().then_some(nest.input_len), nest.output_buffer_len());
    let chain = chain.then(|| kerfx_rt::dynamic::ChainWords {
        levels: if nest.levels.is_empty() { vec![nest.fill_bits] } else { nest.levels.clone() },
        head: nest.head.as_ref().map(|h| crate::head::encode(&h.0)),
    });
    let args = kerfx_rt::dynamic::encode_slice(nest, depth, view, chain)?;
    let split = if args.is_empty() { Split::default() } else { slice_split(nest, 0) };
    Ok(Prepared::new(nest.dtype, args, split, input_len, output_len))
}

/// The argument block of a dynamic fill kernel.
pub(crate) fn encode_fill(plan: &kerfx_ir::FillPlan) -> Prepared {
    let len = plan.output_len();
    let prepared = |args, split| Prepared::new(plan.dtype, args, split, None, len);
    let random = |alpha: f32, beta: f32, seed: u64, cost: u64| {
        prepared(random::encode(alpha, beta, seed), Split { extent: len, align: random::ALIGN, cost })
    };
    match &plan.kind {
        FillKind::RandomUniform { alpha, beta, seed } => random(*alpha, *beta, *seed, policy::random_cost(false)),
        FillKind::RandomNormal { alpha, beta, seed } => random(*alpha, *beta, *seed, policy::random_cost(true)),
        FillKind::Linspace(Linspace::Int { alpha, beta }) => {
            let mut w = vec![*alpha];
            for (&e, &b) in plan.shape.iter().zip(beta) {
                w.extend([e as i64, b]);
            }
            prepared(w, lin_split(len, plan.shape.iter().copied()))
        }
        FillKind::Linspace(Linspace::Float { alpha, beta }) => {
            let mut w = vec![alpha.to_bits() as i64];
            for (&e, &b) in plan.shape.iter().zip(beta) {
                w.extend([e as i64, b.to_bits() as i64]);
            }
            prepared(w, lin_split(len, plan.shape.iter().copied()))
        }
    }
}

/// A plan's argument block for a dynamic kernel of `key`, from the plan validated and
/// scheduled on the host: nothing the caller built reaches machine code unchecked.
pub(crate) fn prepare_dynamic(plan: &Plan, key: &DynKey) -> Result<Prepared, Error> {
    match plan {
        Plan::Step(_) => encode_slice(&kerfx_rt::dynamic::verified_nest(plan)?, key.rank, key.writes_views(), false),
        Plan::Fill(p) => {
            plan.validate()?;
            Ok(encode_fill(p))
        }
    }
}
