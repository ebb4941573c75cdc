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
use kerfx_ir::schedule::{self, Dim, Indexing, LoopNest, Segment};
use kerfx_ir::{DType, Error, FillKind, Linspace, Plan};

/// The kernel signature.
pub(crate) fn signature(call_conv: CallConv) -> Signature {
    let mut sig = Signature::new(call_conv);
    for _ in 0..5 {
        sig.params.push(AbiParam::new(types::I64));
    }
    sig
}

/// Argument-block layout of slice kernels (i64 words): the whole block of a dynamic
/// kernel; the segment descriptors and tables of a static kernel's looped dims.
pub(crate) mod dyn_slice {
    pub const BASE: i64 = 0;
    /// Two words: the fill value's 16 bytes, little-endian.
    pub const FILL: i64 = 1;
    /// The dim whose positions `[lo, hi)` select (the others run whole).
    pub const SPLIT: i64 = 3;
    /// Per dim, `DIM_WORDS` words: extent, out_stride, period, segment count, word index
    /// of its first segment descriptor.
    pub const DIMS: i64 = 4;
    pub const DIM_WORDS: i64 = 5;
    /// Per segment of one period, `SEG_WORDS` words: kind, len, offset (a table: the word
    /// index of its entries), stride.
    pub const SEG_WORDS: i64 = 4;
    pub const KIND_AFFINE: i64 = 0;
    pub const KIND_FILL: i64 = 1;
    pub const KIND_TABLE: i64 = 2;
    /// A fill descriptor's offset word holds its fill level (`LoopNest::levels`).
    ///
    /// The kernel of fused chains (see `DynSlice::emit_chain`) reads three words after the
    /// dims' headers, at these indices from there: the word index of the fill values by
    /// level (16 bytes each), the top level, and the word index of the fill head's block.
    pub const CHAIN: i64 = 0;
    pub const CHAIN_LEVELS: i64 = CHAIN;
    pub const CHAIN_TOP: i64 = CHAIN + 1;
    pub const CHAIN_HEAD: i64 = CHAIN + 2;
    pub const CHAIN_WORDS: i64 = 3;
    /// The word after the dim headers of a kernel writing output views: the output
    /// offset of element 0.
    pub fn out_base(depth: usize) -> i64 {
        DIMS + DIM_WORDS * depth as i64
    }
}

/// Append the segment descriptors of one period of `dim` (a table: one descriptor, then
/// its entries) to `block`; returns the word index of the first descriptor.
pub(crate) fn push_segments(block: &mut Vec<i64>, dim: &Dim) -> i64 {
    let at = block.len() as i64;
    match &dim.indexing {
        Indexing::Segments(segs) => {
            for s in segs {
                match *s {
                    Segment::Affine { len, offset, stride } => {
                        block.extend([dyn_slice::KIND_AFFINE, len as i64, offset, stride])
                    }
                    Segment::Fill { len } => block.extend([dyn_slice::KIND_FILL, len as i64, 0, 0]),
                    Segment::FillAt { len, level } => block.extend([dyn_slice::KIND_FILL, len as i64, level as i64, 0]),
                }
            }
        }
        Indexing::Table(t) => {
            block.extend([dyn_slice::KIND_TABLE, t.len() as i64, at + dyn_slice::SEG_WORDS, 0]);
            block.extend(t);
        }
    }
    at
}

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

/// The argument block of a dynamic slice kernel with `depth` loops: the nest's dims last,
/// after extent-1 dims padding it to the depth; for the kernel of fused chains (`chain`),
/// the words of [`dyn_slice::CHAIN`] after the dims' headers. O(dims + segments + tables)
/// words.
/// A kernel writing output views (`view`) has one more word after the dim headers: the
/// output offset of element 0 ([`dyn_slice::out_base`]).
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
    let nd = nest.dims.len();
    let (input_len, output_len) = (nest.head.is_none().then_some(nest.input_len), nest.output_buffer_len());
    if nd == 0 {
        return Ok(Prepared::new(nest.dtype, Vec::new(), Split::default(), input_len, output_len));
    }
    if nd > depth {
        return Err(Error::Invalid { what: format!("a nest of {nd} dims for a kernel of {depth}") });
    }
    let pad = depth - nd;
    let headers = (dyn_slice::DIMS + dyn_slice::DIM_WORDS * depth as i64) as usize;
    let mut w = vec![0i64; headers + usize::from(view)];
    if view {
        w[headers] = nest.out_view.map_or(0, |v| v.base as i64);
    }
    w[dyn_slice::BASE as usize] = nest.base;
    let fill = nest.fill_bits.to_le_bytes();
    w[dyn_slice::FILL as usize] = i64::from_le_bytes(fill[..8].try_into().expect("8 bytes"));
    w[dyn_slice::FILL as usize + 1] = i64::from_le_bytes(fill[8..].try_into().expect("8 bytes"));
    w[dyn_slice::SPLIT as usize] = pad as i64;
    if chain {
        // The chain kernel's words, then its levels and its head's block.
        let area = w.len();
        w.extend([0; dyn_slice::CHAIN_WORDS as usize]);
        let levels = if nest.levels.is_empty() { vec![nest.fill_bits] } else { nest.levels.clone() };
        w[area + dyn_slice::CHAIN_LEVELS as usize] = w.len() as i64;
        w[area + dyn_slice::CHAIN_TOP as usize] = levels.len() as i64 - 1;
        w.extend(crate::slice::Levels::encode(&levels));
        if let Some(h) = &nest.head {
            w[area + dyn_slice::CHAIN_HEAD as usize] = w.len() as i64;
            w.extend(crate::head::encode(&h.0));
        }
    }
    for k in 0..depth {
        let hdr = (dyn_slice::DIMS + dyn_slice::DIM_WORDS * k as i64) as usize;
        let header = if k < pad {
            let at = w.len() as i64;
            w.extend([dyn_slice::KIND_AFFINE, 1, 0, 0]);
            [1, nest.output_len as i64, 1, 1, at]
        } else {
            let dim = &nest.dims[k - pad];
            let at = push_segments(&mut w, dim);
            [dim.extent as i64, dim.out_stride as i64, dim.period as i64, dim.pieces() as i64, at]
        };
        w[hdr..hdr + dyn_slice::DIM_WORDS as usize].copy_from_slice(&header);
    }
    Ok(Prepared::new(nest.dtype, w, slice_split(nest, 0), input_len, output_len))
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
    plan.validate()?;
    match plan {
        Plan::Step(_) => {
            let nest = schedule::map_nest(&kerfx_ir::Map::of(plan)?)?;
            nest.verify()?;
            encode_slice(&nest, key.rank, key.writes_views(), false)
        }
        Plan::Fill(p) => Ok(encode_fill(p)),
    }
}
