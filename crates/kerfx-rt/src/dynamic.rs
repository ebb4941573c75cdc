//! Dynamic move kernels' host side, shared by the JIT (`kerfx-jit`'s dynamic path) and
//! the planner ([`crate::plan`]) of kernels written ahead of time: what a plan's kernel
//! is specialized on ([`MoveKey`]), the plan's loop nest validated, scheduled and verified
//! ([`verified_nest`]), and its argument block ([`encode_slice`], layout in [`layout`]).
//! One implementation, so that a plan the runtime builds is checked exactly as the JIT
//! checks it.

use kerfx_ir::map::Kind;
use kerfx_ir::schedule::{self, Dim, Indexing, LoopNest, Segment};
use kerfx_ir::{DType, Error, Plan, Step};

/// Argument-block layout of slice kernels (i64 words): the whole block of a dynamic
/// kernel; the segment descriptors and tables of a static kernel's looped dims.
pub mod layout {
    /// Input offset added to every element's (dropped extent-1 axes).
    pub const BASE: i64 = 0;
    /// Two words: the fill value's 16 bytes, little-endian.
    pub const FILL: i64 = 1;
    /// The dim whose positions `[lo, hi)` select (the others run whole).
    pub const SPLIT: i64 = 3;
    /// Per dim, `DIM_WORDS` words: extent, out_stride, period, segment count, word index
    /// of its first segment descriptor.
    pub const DIMS: i64 = 4;
    /// Words of one dim's header.
    pub const DIM_WORDS: i64 = 5;
    /// Per segment of one period, `SEG_WORDS` words: kind, len, offset (a table: the word
    /// index of its entries), stride.
    pub const SEG_WORDS: i64 = 4;
    /// A segment read affinely.
    pub const KIND_AFFINE: i64 = 0;
    /// A segment of fill values.
    pub const KIND_FILL: i64 = 1;
    /// A table of input positions.
    pub const KIND_TABLE: i64 = 2;
    /// A fill descriptor's offset word holds its fill level (`LoopNest::levels`).
    ///
    /// The kernel of fused chains reads three words after the dims' headers, at these
    /// indices from there: the word index of the fill values by level (16 bytes each), the
    /// top level, and the word index of the fill head's block.
    pub const CHAIN: i64 = 0;
    /// See [`CHAIN`].
    pub const CHAIN_LEVELS: i64 = CHAIN;
    /// See [`CHAIN`].
    pub const CHAIN_TOP: i64 = CHAIN + 1;
    /// See [`CHAIN`].
    pub const CHAIN_HEAD: i64 = CHAIN + 2;
    /// See [`CHAIN`].
    pub const CHAIN_WORDS: i64 = 3;
    /// The word after the dim headers of a kernel writing output views: the output
    /// offset of element 0.
    pub fn out_base(depth: usize) -> i64 {
        DIMS + DIM_WORDS * depth as i64
    }
}

/// What the dynamic move kernel a step's plan runs on is specialized on: the map's kind
/// (whether it may fill, whether its dims may repeat or be tables), the dtype and the loop
/// depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MoveKey {
    /// The map's kind ([`Kind::of`] the step: its mode's facts, whatever its numbers).
    pub kind: Kind,
    /// The element type.
    pub dtype: DType,
    /// Loop depth: the step's source rank (the axes it reads), at least 1 and at most
    /// [`schedule::MAX_DIMS`] (a nest never has more dims: unit axes are dropped and
    /// contiguous ones merged, so deeper kernels are never needed).
    pub depth: usize,
}

impl MoveKey {
    /// The key of a step's plan.
    pub fn of(step: &Step) -> MoveKey {
        MoveKey { kind: Kind::of(step), dtype: step.dtype, depth: step.source().len().clamp(1, schedule::MAX_DIMS) }
    }
}

/// The loop nest of a plan, scheduled from its map and verified (its reads lie in
/// `[0, input_len)`, its writes cover exactly `[0, output_len)`); the plan validated
/// first.
pub fn verified_nest(plan: &Plan) -> Result<LoopNest, Error> {
    plan.validate()?;
    let nest = schedule::map_nest(&kerfx_ir::Map::of(plan)?)?;
    nest.verify()?;
    Ok(nest)
}

/// Append the segment descriptors of one period of `dim` (a table: one descriptor, then
/// its entries) to `block`; returns the word index of the first descriptor.
pub fn push_segments(block: &mut Vec<i64>, dim: &Dim) -> i64 {
    let at = block.len() as i64;
    match &dim.indexing {
        Indexing::Segments(segs) => {
            for s in segs {
                match *s {
                    Segment::Affine { len, offset, stride } => {
                        block.extend([layout::KIND_AFFINE, len as i64, offset, stride])
                    }
                    Segment::Fill { len } => block.extend([layout::KIND_FILL, len as i64, 0, 0]),
                    Segment::FillAt { len, level } => block.extend([layout::KIND_FILL, len as i64, level as i64, 0]),
                }
            }
        }
        Indexing::Table(t) => {
            block.extend([layout::KIND_TABLE, t.len() as i64, at + layout::SEG_WORDS, 0]);
            block.extend(t);
        }
    }
    at
}

/// The argument words of fill values by level: 16 bytes each, two words, little-endian.
pub fn encode_levels(values: &[u128]) -> Vec<i64> {
    values.iter().flat_map(|v| [*v as u64 as i64, (*v >> 64) as u64 as i64]).collect()
}

/// The words the kernel of fused chains reads after the dims' headers (see
/// [`layout::CHAIN`]): its fill values by level, and the fill head's block, which its
/// caller encodes.
pub struct ChainWords {
    /// Fill values by level (level 0 first).
    pub levels: Vec<u128>,
    /// The fill head's block, when the nest starts with a fill.
    pub head: Option<Vec<i64>>,
}

/// The argument block of a verified nest for a dynamic slice kernel of `depth` loops:
/// the nest's dims last, after extent-1 dims padding it to the depth; a kernel writing
/// output views (`view`) has one more word after the dim headers (the output offset of
/// element 0), the kernel of fused chains the words of `chain`. O(dims + segments +
/// tables) words; empty for a nest of no dims (an empty output: nothing runs).
pub fn encode_slice(nest: &LoopNest, depth: usize, view: bool, chain: Option<ChainWords>) -> Result<Vec<i64>, Error> {
    let nd = nest.dims.len();
    if nd == 0 {
        return Ok(Vec::new());
    }
    if nd > depth {
        return Err(Error::Invalid { what: format!("a nest of {nd} dims for a kernel of {depth}") });
    }
    let pad = depth - nd;
    let headers = (layout::DIMS + layout::DIM_WORDS * depth as i64) as usize;
    let mut w = vec![0i64; headers + usize::from(view)];
    if view {
        w[headers] = nest.out_view.map_or(0, |v| v.base as i64);
    }
    w[layout::BASE as usize] = nest.base;
    let fill = nest.fill_bits.to_le_bytes();
    w[layout::FILL as usize] = i64::from_le_bytes(fill[..8].try_into().expect("8 bytes"));
    w[layout::FILL as usize + 1] = i64::from_le_bytes(fill[8..].try_into().expect("8 bytes"));
    w[layout::SPLIT as usize] = pad as i64;
    if let Some(chain) = chain {
        // The chain kernel's words, then its levels and its head's block.
        let area = w.len();
        w.extend([0; layout::CHAIN_WORDS as usize]);
        w[area + layout::CHAIN_LEVELS as usize] = w.len() as i64;
        w[area + layout::CHAIN_TOP as usize] = chain.levels.len() as i64 - 1;
        w.extend(encode_levels(&chain.levels));
        if let Some(h) = chain.head {
            w[area + layout::CHAIN_HEAD as usize] = w.len() as i64;
            w.extend(h);
        }
    }
    for k in 0..depth {
        let hdr = (layout::DIMS + layout::DIM_WORDS * k as i64) as usize;
        let header = if k < pad {
            let at = w.len() as i64;
            w.extend([layout::KIND_AFFINE, 1, 0, 0]);
            [1, nest.output_len as i64, 1, 1, at]
        } else {
            let dim = &nest.dims[k - pad];
            let at = push_segments(&mut w, dim);
            [dim.extent as i64, dim.out_stride as i64, dim.period as i64, dim.pieces() as i64, at]
        };
        w[hdr..hdr + layout::DIM_WORDS as usize].copy_from_slice(&header);
    }
    Ok(w)
}

/// The positions of a nest's split loop (its outermost dim): a call computes
/// `[0, extent)`; 0 when the output is empty.
pub fn split_extent(nest: &LoopNest) -> u64 {
    nest.dims.first().map_or(0, |d| d.extent)
}
