//! The loop-nest types (Segment, Run, Indexing, Dim, LoopNest, OutView, FillHead), their listings, and `LoopNest::verify`.

use super::Table;
use super::strided::check_writes;
use crate::dtype::DType;
use crate::error::Error;
use crate::plan::{FillKind, FillPlan, Linspace};
use std::fmt;

/// An axis with more segments than this (in one period) is indexed by a table instead.
pub const MAX_SEGMENTS_PER_AXIS: usize = 8;
/// A backend that unrolls segments (one copy of the inner dims' code per segment) unrolls
/// dims while the product of their segment counts stays at most this, and walks the others
/// at run time ([`LoopNest::looped_dims`]), so that its code stays bounded.
pub const MAX_SEGMENT_PRODUCT: usize = 64;
/// The most dims a nest has, whatever the rank: every dim of a nest with more than one
/// has an extent of 2 or more, and an output has fewer than 2^63 elements.
pub const MAX_DIMS: usize = 63;

/// Consecutive positions of a dim on which the input offset is affine, or the fill value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    /// `len` positions; the j-th (from 0) adds `offset + stride·j` to the input offset.
    /// A segment of length 1 has stride 0.
    Affine {
        /// The number of positions.
        len: u64,
        /// What the first position adds to the input offset, in elements.
        offset: i64,
        /// What each further position adds on top, in elements.
        stride: i64,
    },
    /// `len` positions whose elements are all the fill value.
    Fill {
        /// The number of positions.
        len: u64,
    },
    /// `len` positions whose elements take the fill value of `level` (≥ 1) of the nest's
    /// [`LoopNest::levels`], or a higher level another dim gives them.
    FillAt {
        /// The number of positions.
        len: u64,
        /// The index into [`LoopNest::levels`] (≥ 1).
        level: usize,
    },
}

/// How an innermost segment moves its elements (what a backend emits for it).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Run {
    /// Stride 1: a contiguous run, a memcpy.
    Copy,
    /// Stride -1: a contiguous run read backwards.
    Reverse,
    /// Stride 0: one element repeated.
    Broadcast,
    /// Any other stride: a strided gather.
    Strided(i64),
    /// The fill value repeated.
    Fill,
}

impl Segment {
    /// The number of positions.
    pub fn len(&self) -> u64 {
        match *self {
            Segment::Affine { len, .. } | Segment::Fill { len } | Segment::FillAt { len, .. } => len,
        }
    }
    /// A fill segment of `level` (0: [`Segment::Fill`]).
    pub fn fill_at(len: u64, level: usize) -> Segment {
        if level == 0 { Segment::Fill { len } } else { Segment::FillAt { len, level } }
    }
    /// The fill level of a fill segment (`None` for affine ones).
    pub fn level(&self) -> Option<usize> {
        match *self {
            Segment::Fill { .. } => Some(0),
            Segment::FillAt { level, .. } => Some(level),
            Segment::Affine { .. } => None,
        }
    }
    /// Whether the segment has no positions.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// How the segment moves its elements when it is innermost.
    pub fn run(&self) -> Run {
        match *self {
            Segment::Fill { .. } | Segment::FillAt { .. } => Run::Fill,
            Segment::Affine { stride: 1, .. } => Run::Copy,
            Segment::Affine { stride: -1, .. } => Run::Reverse,
            Segment::Affine { stride: 0, .. } => Run::Broadcast,
            Segment::Affine { stride, .. } => Run::Strided(stride),
        }
    }
}

/// How the positions of one period of a dim map to input offsets.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Indexing {
    /// Segments in order; their lengths add up to the dim's period.
    Segments(Vec<Segment>),
    /// One entry per position of the period: the offset it adds, with the rule that
    /// computes it. Only positions that read are tabled (a digit with fill positions
    /// becomes segments), so every entry is an offset; only nests that repeat have tables.
    Table(Table),
}

/// One loop of the nest.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dim {
    /// The number of positions (iterations of the loop).
    pub extent: u64,
    /// Output elements per step of this dim: the product of the inner dims' extents in a
    /// dense nest, the output view's stride in a nest that writes a view
    /// ([`LoopNest::out_view`]).
    pub out_stride: u64,
    /// The positions repeat with this period (1 ≤ period ≤ extent): position y reads as
    /// position y mod period does, and `indexing` covers positions [0, period); the last
    /// repetition is cut at the extent. Equal to the extent when nothing repeats.
    pub period: u64,
    /// What the positions of one period add to the input offset, or fill.
    pub indexing: Indexing,
}

impl Dim {
    /// The segments, if this dim is not a table.
    pub fn segments(&self) -> Option<&[Segment]> {
        match &self.indexing {
            Indexing::Segments(s) => Some(s),
            Indexing::Table(_) => None,
        }
    }
    /// Whether the positions repeat (the period is shorter than the extent).
    pub fn repeats(&self) -> bool {
        self.period < self.extent
    }
    /// The pieces of one period (segments; a table is one piece): what a backend that
    /// unrolls this dim emits the inner dims' code for.
    pub fn pieces(&self) -> usize {
        match &self.indexing {
            Indexing::Segments(s) => s.len(),
            Indexing::Table(_) => 1,
        }
    }
}

/// A map scheduled as a loop nest. Offsets count elements (nibbles for i4/u4).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LoopNest {
    /// The element type, the same in the input and the output.
    pub dtype: DType,
    /// Whether positions may take a fill value (the map's kind fills): only then do
    /// segments fill, and `fill_bits` is read.
    pub fills: bool,
    /// Whether dims may repeat (a period shorter than the extent) or be tables (the
    /// map's kind repeats): the kernels that walk periods and read tables run it.
    pub repeats: bool,
    /// The fill value's element bits (0 unless the nest fills).
    pub fill_bits: u128,
    /// Elements of the input, and elements the nest writes (the product of its extents).
    pub input_len: u64,
    /// Elements the nest writes: the product of its dims' extents.
    pub output_len: u64,
    /// Input offset added to every element's offset (from dropped extent-1 axes).
    pub base: i64,
    /// Outermost first, at most [`MAX_DIMS`]. Empty exactly when the output is empty.
    /// Without an output view their `out_stride`s are row-major (the innermost 1);
    /// with one they are the view's.
    pub dims: Vec<Dim>,
    /// `None`: offsets index the input buffer. A fill (a chain that starts with one):
    /// offset i stands for the fill's element at linear index i (row-major in its shape,
    /// `input_len` elements), computed instead of loaded; the kernel reads no input.
    pub head: Option<FillHead>,
    /// A map's fill values by level, where one value per nest does not say it (two
    /// or more values, or fill positions on dims that repeat or have tables): level 0 is
    /// `fill_bits` ([`Segment::Fill`]), [`Segment::FillAt`] names the others, and an
    /// element on fill positions of several dims takes the highest of their levels. Such
    /// a nest fills, and its dims may repeat and have tables; backends walk all
    /// its dims ([`LoopNest::looped_dims`]). Empty otherwise.
    pub levels: Vec<u128>,
    /// `None`: the output is dense, exactly `[0, output_len)` of its buffer. `Some`: the
    /// output is a view of a larger buffer (see [`OutView`]).
    pub out_view: Option<OutView>,
}

/// Why a nest with a fill head or fill levels writes no output view.
pub(super) const NO_VIEW_IN_FILL_MODE: &str = "a map that starts with a fill or has fill levels (two fill values, or \
     fill positions on an axis that repeats or has a table) writes no output view: its kernel writes the output \
     row-major; write a dense output and copy it into the view";

/// Where a nest writing an output view writes: element (y_0, …) of the dims at
/// `base + Σ y_k·out_stride_k` of a buffer of `buffer_len` elements. [`LoopNest::verify`]
/// proves every such offset lies in the buffer and no two elements share one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OutView {
    /// Where element (0, …) goes in the buffer, in elements.
    pub base: u64,
    /// The buffer's length in elements.
    pub buffer_len: u64,
}

/// The fill a nest's offsets index (see [`LoopNest::head`]). Equality and hashing go by
/// the bits of its numbers.
#[derive(Clone, Debug)]
pub struct FillHead(pub FillPlan);

impl FillHead {
    /// The plan's numbers as bits, the key of equality and hashing.
    fn key(&self) -> (DType, &[u64], Vec<u64>) {
        let p = &self.0;
        let numbers = match &p.kind {
            FillKind::Linspace(Linspace::Int { alpha, beta }) => {
                std::iter::once(0).chain(std::iter::once(*alpha as u64)).chain(beta.iter().map(|&b| b as u64)).collect()
            }
            FillKind::Linspace(Linspace::Float { alpha, beta }) => std::iter::once(1)
                .chain(std::iter::once(alpha.to_bits()))
                .chain(beta.iter().map(|b| b.to_bits()))
                .collect(),
            FillKind::RandomUniform { alpha, beta, seed } => {
                vec![2, alpha.to_bits() as u64, beta.to_bits() as u64, *seed]
            }
            FillKind::RandomNormal { alpha, beta, seed } => {
                vec![3, alpha.to_bits() as u64, beta.to_bits() as u64, *seed]
            }
        };
        (p.dtype, &p.shape, numbers)
    }
}

impl PartialEq for FillHead {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for FillHead {}

impl std::hash::Hash for FillHead {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state)
    }
}

impl LoopNest {
    /// The smallest and largest input offset any element reads, `None` when no element
    /// reads the input (all fill, or empty). Every position of a period occurs (the period
    /// is at most the extent), so the bounds are exact.
    pub fn input_offset_range(&self) -> Option<(i128, i128)> {
        if self.dims.is_empty() {
            return None;
        }
        let (mut lo, mut hi) = (self.base as i128, self.base as i128);
        for dim in &self.dims {
            let mut range: Option<(i128, i128)> = None;
            let mut widen = |a: i128, b: i128| {
                range = Some(match range {
                    None => (a.min(b), a.max(b)),
                    Some((l, h)) => (l.min(a).min(b), h.max(a).max(b)),
                })
            };
            match &dim.indexing {
                Indexing::Segments(segs) => {
                    for s in segs {
                        if let Segment::Affine { len, offset, stride } = *s
                            && len > 0
                        {
                            let last = offset as i128 + stride as i128 * (len as i128 - 1);
                            widen(offset as i128, last);
                        }
                    }
                }
                Indexing::Table(t) => {
                    for &o in t {
                        widen(o as i128, o as i128);
                    }
                }
            }
            // (Saturated past i128, only for a nest built by hand: outside any input.)
            let (l, h) = range?;
            lo = lo.saturating_add(l);
            hi = hi.saturating_add(h);
        }
        Some((lo, hi))
    }

    /// Check the nest's invariants: at most [`MAX_DIMS`] dims whose extents multiply to the
    /// output length, periods within their extents (shorter, and tables, only in nests
    /// that repeat or have fill levels), fill segments only in nests that fill, fill
    /// levels that exist, a head that is a
    /// valid fill of the input's dtype and length, segments or tables covering their
    /// periods, row-major strides, every read in [0, input_len). Backends call this before
    /// emitting code that trusts the nest.
    pub fn verify(&self) -> Result<(), Error> {
        let bad = |what: String| Err(Error::Invalid { what: format!("loop nest: {what}") });
        if self.dims.is_empty() {
            if self.output_len != 0 {
                return bad(format!("no dims but {} output elements", self.output_len));
            }
            return Ok(());
        }
        if self.dims.len() > MAX_DIMS {
            return bad(format!("{} dims, more than {MAX_DIMS}", self.dims.len()));
        }
        if !self.levels.is_empty() && (!self.fills || self.levels[0] != self.fill_bits) {
            return bad("fill levels in a nest that does not fill, or whose level 0 is not its fill value".into());
        }
        if self.out_view.is_some() && (self.head.is_some() || !self.levels.is_empty()) {
            return bad(NO_VIEW_IN_FILL_MODE.into());
        }
        if let Some(FillHead(p)) = &self.head {
            p.validate()?;
            if p.dtype != self.dtype || p.output_len() != self.input_len {
                return bad(format!(
                    "its head, a {} fill of {} elements, is not the {} input of {} elements it indexes",
                    p.dtype,
                    p.output_len(),
                    self.dtype,
                    self.input_len
                ));
            }
        }
        let mut inner: u64 = 1;
        for (k, dim) in self.dims.iter().enumerate().rev() {
            if self.out_view.is_none() && dim.out_stride != inner {
                return bad(format!("dim {k} has out_stride {}, expected {inner}", dim.out_stride));
            }
            if dim.extent == 0 || dim.period == 0 || dim.period > dim.extent {
                return bad(format!("dim {k}: period {} for extent {}", dim.period, dim.extent));
            }
            // Only nests that say so have repeating dims, tables or fill segments (backends
            // specialized on those facts rely on it).
            let table = matches!(dim.indexing, Indexing::Table(_));
            if (dim.repeats() || table) && !self.repeats && self.levels.is_empty() {
                return bad(format!("dim {k} repeats or has a table in a nest that does not repeat"));
            }
            if !self.fills && dim.segments().is_some_and(|s| s.iter().any(|s| s.level().is_some())) {
                return bad(format!("dim {k} has fill segments in a nest that does not fill"));
            }
            let top = dim.segments().and_then(|s| s.iter().filter_map(Segment::level).max()).unwrap_or(0);
            if top > 0 && top >= self.levels.len() {
                return bad(format!("dim {k} fills with level {top} of {} levels", self.levels.len()));
            }
            let covered = match &dim.indexing {
                Indexing::Segments(s) => s.iter().try_fold(0u64, |acc, s| acc.checked_add(s.len())),
                Indexing::Table(t) => Some(t.len() as u64),
            };
            if covered != Some(dim.period) {
                return bad(format!("dim {k}: segments cover {covered:?} of period {}", dim.period));
            }
            inner = match inner.checked_mul(dim.extent) {
                Some(v) => v,
                None => return bad("output volume overflows".into()),
            };
        }
        if inner != self.output_len {
            return bad(format!("extents cover {inner} elements, output has {}", self.output_len));
        }
        if let Some(view) = self.out_view {
            let strides: Vec<(u64, i64)> = self.dims.iter().map(|d| (d.extent, d.out_stride as i64)).collect();
            check_writes(&strides, view.base as i128, view.buffer_len)
                .map_err(|e| Error::Invalid { what: format!("loop nest: {e}") })?;
        }
        if let Some((lo, hi)) = self.input_offset_range()
            && (lo < 0 || hi >= self.input_len as i128)
        {
            return bad(format!("reads offsets {lo}..={hi} outside the input's {} elements", self.input_len));
        }
        Ok(())
    }

    /// Elements of the output buffer: the output's own, or the view's buffer's.
    pub fn output_buffer_len(&self) -> u64 {
        self.out_view.map_or(self.output_len, |v| v.buffer_len)
    }

    /// Whether the positions of dims `k..` are one contiguous run of the output for each
    /// position of the dims outside them (always so without an output view): what a fill
    /// of a whole block, a copy of earlier repetitions or a contiguous innermost run needs.
    /// `dense_from(dims.len())` is true.
    pub fn dense_from(&self, k: usize) -> bool {
        let mut inner = 1u64;
        for dim in self.dims[k.min(self.dims.len())..].iter().rev() {
            if dim.out_stride != inner {
                return false;
            }
            inner = inner.saturating_mul(dim.extent);
        }
        true
    }

    /// Which dims a backend that unrolls segments (the static kernels, the derive) walks at
    /// run time from a list of segments instead, with the inner dims' code emitted once:
    /// the outer dims with the most segments first, until the product of the unrolled
    /// dims' segment counts is at most [`MAX_SEGMENT_PRODUCT`]. The innermost dim is
    /// always unrolled.
    pub fn looped_dims(&self) -> Vec<bool> {
        if !self.levels.is_empty() {
            // Fill levels pass from dim to dim at run time: every dim is walked.
            return vec![true; self.dims.len()];
        }
        let mut looped = vec![false; self.dims.len()];
        let outer = self.dims.len().saturating_sub(1);
        loop {
            let product = self
                .dims
                .iter()
                .zip(&looped)
                .filter(|(_, l)| !**l)
                .try_fold(1usize, |acc, (d, _)| acc.checked_mul(d.pieces()));
            if product.is_some_and(|p| p <= MAX_SEGMENT_PRODUCT) {
                break;
            }
            let Some(k) =
                (0..outer).filter(|&k| !looped[k]).max_by_key(|&k| (self.dims[k].pieces(), std::cmp::Reverse(k)))
            else {
                break;
            };
            looped[k] = true;
        }
        looped
    }
}

impl fmt::Display for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Segment::Fill { .. } => f.write_str("fill"),
            Segment::FillAt { level, .. } => write!(f, "fill level {level}"),
            Segment::Affine { offset, stride, .. } => match stride {
                0 => write!(f, "in += {offset}"),
                1 => write!(f, "in += {offset} + j"),
                -1 => write!(f, "in += {offset} - j"),
                s if s < 0 => write!(f, "in += {offset} - {}*j", -(s as i128)),
                s => write!(f, "in += {offset} + {s}*j"),
            },
        }
    }
}

impl fmt::Display for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Run::Copy => f.write_str("copy"),
            Run::Reverse => f.write_str("reverse"),
            Run::Broadcast => f.write_str("broadcast"),
            Run::Strided(s) => write!(f, "strided {s}"),
            Run::Fill => f.write_str("fill"),
        }
    }
}

/// A listing in the manner of Halide's `print_loop_nest`: one `for` per dim, under it the
/// dim's segments as `[first, end)` ranges of its counter (j counts from the segment's
/// first position), innermost segments tagged with how they move data. A repeating dim
/// lists one period (`y mod P`); a dim that unrolling backends walk at run time is tagged
/// `[looped]`.
impl fmt::Display for LoopNest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {}, input {} elements, output {} elements", self.dtype, self.input_len, self.output_len)?;
        if self.fills {
            write!(f, ", fill {}", crate::scalar::format_bits(self.dtype, self.fill_bits))?;
        }
        if self.repeats {
            write!(f, ", repeats")?;
        }
        writeln!(f)?;
        if !self.levels.is_empty() {
            let values: Vec<String> = self.levels.iter().map(|&b| crate::scalar::format_bits(self.dtype, b)).collect();
            writeln!(f, "fill levels [{}] (the highest level among an element's dims wins)", values.join(", "))?;
        }
        if let Some(FillHead(p)) = &self.head {
            writeln!(f, "in indexes the fill {:?} {:?} (computed, not loaded)", p.shape, p.kind)?;
        }
        if self.dims.is_empty() {
            return writeln!(f, "(empty output)");
        }
        match self.out_view {
            Some(v) => writeln!(f, "in = {}, out = {} (a view of {} elements)", self.base, v.base, v.buffer_len)?,
            None => writeln!(f, "in = {}", self.base)?,
        }
        let last = self.dims.len() - 1;
        let looped = self.looped_dims();
        for (k, dim) in self.dims.iter().enumerate() {
            let pad = "  ".repeat(k);
            let out = if dim.out_stride == 1 { format!("y{k}") } else { format!("{}*y{k}", dim.out_stride) };
            let (pos, every) = if dim.repeats() {
                (format!("y{k} mod {}", dim.period), format!(", repeating every {}", dim.period))
            } else {
                (format!("y{k}"), String::new())
            };
            let tag = if looped[k] { "  [looped]" } else { "" };
            writeln!(f, "{pad}for y{k} in 0..{}:  out += {out}{every}{tag}", dim.extent)?;
            match &dim.indexing {
                Indexing::Segments(segs) => {
                    let mut y = 0u64;
                    for s in segs {
                        let tag = if k == last { format!("  [{}]", s.run()) } else { String::new() };
                        writeln!(f, "{pad}  {pos} in [{y}, {}): {s}{tag}", y + s.len())?;
                        y += s.len();
                    }
                }
                Indexing::Table(t) => {
                    let shown: Vec<String> = t.iter().take(12).map(i64::to_string).collect();
                    let more = if t.len() > 12 { format!(", ... ({} entries)", t.len()) } else { String::new() };
                    let tag = if k == last { "  [gather]" } else { "" };
                    writeln!(f, "{pad}  in += table[{pos}] = [{}{more}]{tag}", shown.join(", "))?;
                }
            }
        }
        Ok(())
    }
}
