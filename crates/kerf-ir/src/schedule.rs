//! The schedule shared by both backends: Plan → [`LoopNest`] (slices) or [`FillNest`] (fills).
//!
//! A slice's output is written in row-major order by a nest of loops, one per [`Dim`]
//! (outermost first). Each dim splits its positions into [`Segment`]s on which the input
//! offset is affine — `offset + stride·j` for the j-th position of the segment — or the
//! fill value; where that would take too many segments, a dim carries a table of offsets
//! instead ([`Indexing::Table`]). The positions of a wrap or reflect dim repeat with a
//! period ([`Dim::period`]): its segments or table describe one period only, so that
//! nothing here grows with the output. The input element read by an output element is
//! `base + Σ_dims contribution`, and the fill value if any dim says fill. The hot loops
//! that backends emit from this contain no modulo, clamp or per-element branch.
//!
//! Building a nest: (1) per axis, split the output positions into regions on which the
//! boundary formula of specs/SEMANTICS.md is affine — the in-bounds interior of every mode is one
//! plain segment, fill borders are fill segments, clamp borders constant (stride 0)
//! segments, wrap and reflect borders a few affine segments (reflect reverses the step),
//! with wrap and reflect steps first reduced modulo their period; (2) an axis that would
//! take more than [`MAX_SEGMENTS_PER_AXIS`] segments and whose positions repeat (wrap,
//! reflect: position y + P reads as y does, for P = period / gcd(step, period)) keeps the
//! segments of one repetition, or a table of P entries when even those are too many;
//! any other axis with too many segments takes a table of its positions (at most P of
//! them); (3) axes of extent 1 are dropped (their offset goes to `base`); (4) adjacent
//! axes whose offsets continue each other are merged; (5) every offset is checked to lie
//! in the input. Nothing here knows a vendor; every number is exact (i128) until it is
//! known to fit. Every table has at most 2·(input extent) entries, every segment list at
//! most [`MAX_SEGMENTS_PER_AXIS`]; a nest has at most [`MAX_DIMS`] dims.

use crate::dtype::DType;
use crate::error::Error;
use crate::plan::{BoundaryMode, FillKind, FillPlan, Linspace, Plan, SlicePlan};
pub use crate::table::{Table, TableRule, TableStage};
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
    Affine { len: u64, offset: i64, stride: i64 },
    /// `len` positions whose elements are all the fill value.
    Fill { len: u64 },
    /// `len` positions whose elements take the fill value of `level` (≥ 1) of the nest's
    /// [`LoopNest::levels`], or a higher level another dim gives them.
    FillAt { len: u64, level: usize },
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
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
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
    /// computes it. Tables arise only in modes that never read the fill value (wrap,
    /// reflect), so every entry is an offset.
    Table(Table),
}

/// One loop of the nest.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dim {
    pub extent: u64,
    /// Output elements per step of this dim: the product of the inner dims' extents in a
    /// dense nest, the output view's stride in a nest that writes a view
    /// ([`LoopNest::out_view`]).
    pub out_stride: u64,
    /// The positions repeat with this period (1 ≤ period ≤ extent): position y reads as
    /// position y mod period does, and `indexing` covers positions [0, period); the last
    /// repetition is cut at the extent. Equal to the extent when nothing repeats.
    pub period: u64,
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

/// A slice plan scheduled as a loop nest. Offsets count elements (nibbles for i4/u4).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LoopNest {
    pub dtype: DType,
    pub mode: BoundaryMode,
    /// The fill value's element bits (0 unless mode is fill).
    pub fill_bits: u128,
    /// Elements of the input, and elements the nest writes (the product of its extents).
    pub input_len: u64,
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
    /// A fused chain's fill values by level, where one value per nest does not say it (two
    /// or more values, or fill positions on dims that repeat or have tables): level 0 is
    /// `fill_bits` ([`Segment::Fill`]), [`Segment::FillAt`] names the others, and an
    /// element on fill positions of several dims takes the highest of their levels. Such
    /// a nest is in fill mode, and its dims may repeat and have tables; backends walk all
    /// its dims ([`LoopNest::looped_dims`]). Empty otherwise.
    pub levels: Vec<u128>,
    /// `None`: the output is dense, exactly `[0, output_len)` of its buffer. `Some`: the
    /// output is a view of a larger buffer (see [`OutView`]).
    pub out_view: Option<OutView>,
}

/// Why a nest with a fill head or fill levels writes no output view.
const NO_VIEW_IN_FILL_MODE: &str = "a fused chain that starts with a fill or has fill levels (two fill values, or \
     fill positions on an axis that repeats or has a table) writes no output view: its kernel writes the output \
     row-major; write a dense output and copy it into the view";

/// Where a nest writing an output view writes: element (y_0, …) of the dims at
/// `base + Σ y_k·out_stride_k` of a buffer of `buffer_len` elements. [`LoopNest::verify`]
/// proves every such offset lies in the buffer and no two elements share one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OutView {
    pub base: u64,
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
    /// output length, periods within their extents (shorter, and tables, only in modes
    /// that repeat or in nests with fill levels), fill levels that exist, a head that is a
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
        if !self.levels.is_empty() && (self.mode != BoundaryMode::Fill || self.levels[0] != self.fill_bits) {
            return bad(format!("fill levels in mode {} (fill mode, level 0 the fill value, expected)", self.mode));
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
            // Only modes whose formula repeats have repeating dims or tables (backends
            // specialized on a mode rely on it).
            let table = matches!(dim.indexing, Indexing::Table(_));
            if (dim.repeats() || table) && self.mode.period(1).is_none() && self.levels.is_empty() {
                return bad(format!("dim {k} repeats or has a table in mode {}", self.mode));
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

/// A fill plan scheduled.
#[derive(Clone, Debug, PartialEq)]
pub struct FillNest {
    pub dtype: DType,
    pub len: u64,
    pub body: FillBody,
}

impl FillNest {
    /// Check that the loops cover exactly `len` elements: backends write by the loops,
    /// and the buffers they are given hold `len` elements.
    pub fn verify(&self) -> Result<(), Error> {
        fn product<T>(dims: &[LinDim<T>]) -> Option<u64> {
            dims.iter().try_fold(1u64, |acc, d| acc.checked_mul(d.extent))
        }
        let covered = match &self.body {
            FillBody::Random { .. } => Some(self.len),
            FillBody::LinspaceInt { dims, .. } => product(dims),
            FillBody::LinspaceF32Exact { dims, .. } => product(dims),
            FillBody::LinspaceF64 { dims, .. } => product(dims),
        };
        if covered != Some(self.len) {
            return Err(Error::Invalid {
                what: format!("fill nest: loops cover {covered:?} elements, output has {}", self.len),
            });
        }
        Ok(())
    }
}

/// One loop of a linspace: `coef` is added per step.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct LinDim<T> {
    pub extent: u64,
    pub coef: T,
}

/// What a fill computes, in the form its loops take.
#[derive(Clone, Debug, PartialEq)]
pub enum FillBody {
    /// Element i (linear index, 0..len) is a pure function of (seed, i): one flat loop.
    Random { normal: bool, alpha: f32, beta: f32, seed: u64 },
    /// Integer linspace, exact (wrapping arithmetic in the output's width gives the
    /// exact value, which the frontend checked fits). Extent-1 dims dropped, continuing
    /// dims merged; empty dims = one element, alpha.
    LinspaceInt { alpha: i64, dims: Vec<LinDim<i64>> },
    /// f32 linspace whose every partial sum is exactly representable in f32 (all values
    /// are multiples of one power of two, small enough): any order of f32 additions gives
    /// the reference's bits, so dims are dropped and merged and values computed by
    /// repeated addition.
    LinspaceF32Exact { alpha: f32, dims: Vec<LinDim<f32>> },
    /// General f32 linspace: per element `v = alpha; v += coef_k · a_k` in f64 for k in
    /// order, rounded once. Dims are kept exactly as in the plan (no drop, no merge).
    LinspaceF64 { alpha: f64, dims: Vec<LinDim<f64>> },
}

/// A scheduled plan.
#[derive(Clone, Debug, PartialEq)]
pub enum Schedule {
    Slice(LoopNest),
    Fill(FillNest),
}

/// The nest's listing (what `kerf demo` and the derive's docs show).
impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Schedule::Slice(n) => n.fmt(f),
            Schedule::Fill(n) => n.fmt(f),
        }
    }
}

/// Schedule any plan.
pub fn schedule(plan: &Plan) -> Result<Schedule, Error> {
    Ok(match plan {
        Plan::Slice(p) => Schedule::Slice(slice(p)?),
        Plan::Fill(p) => Schedule::Fill(fill(p)?),
    })
}

fn floor_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) { q - 1 } else { q }
}

fn ceil_div(a: i128, b: i128) -> i128 {
    -floor_div(-a, b)
}

/// A segment in coordinate space: z = z0 + dz·j, or the fill value.
#[derive(Copy, Clone, Debug)]
pub(crate) struct CoordSeg {
    pub(crate) len: u64,
    pub(crate) z: Option<(i128, i128)>,
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// How one axis's positions read the input, in coordinates.
#[derive(Clone, Debug)]
pub(crate) struct AxisCoords {
    /// Positions repeat with this period (≤ n; n when they do not repeat).
    pub(crate) period: u64,
    /// The segments of positions [0, period), or `None` when those would be more than
    /// `MAX_SEGMENTS_PER_AXIS`: then a table of the `period` coordinates is needed.
    pub(crate) segs: Option<Vec<CoordSeg>>,
    /// Start and step, reduced modulo the mode's period where it has one.
    a: i128,
    s: i128,
}

/// The positions y ∈ [0, n) of an axis of extent `d > 0` reading x = a + s·y.
pub(crate) fn axis_coords(mode: BoundaryMode, a: i128, s: i128, n: u64, d: u64) -> AxisCoords {
    // Reduce the start and step modulo the mode's period p, which leaves z unchanged;
    // position y + P then reads as y does for P = p / gcd(s, p).
    let (a, s, repeat) = match mode.period(d) {
        Some(p) => {
            let p = p as i128;
            let mut s = s.rem_euclid(p);
            if s > p / 2 {
                s -= p;
            }
            let g = gcd(s.unsigned_abs(), p as u128) as i128; // gcd(0, p) = p: P = 1
            (a.rem_euclid(p), s, Some(p / g))
        }
        None => (a, s, None),
    };
    if let Some(segs) = axis_segments(mode, a, s, n, d as i128) {
        return AxisCoords { period: n, segs: Some(segs), a, s };
    }
    match repeat {
        Some(p) if p < n as i128 => {
            let period = p as u64;
            AxisCoords { period, segs: axis_segments(mode, a, s, period, d as i128), a, s }
        }
        _ => AxisCoords { period: n, segs: None, a, s },
    }
}

/// Affine coordinate segments of positions [0, n), or `None` when there would be more
/// than `MAX_SEGMENTS_PER_AXIS`. `d > 0`; wrap and reflect starts and steps reduced.
fn axis_segments(mode: BoundaryMode, a: i128, s: i128, n: u64, d: i128) -> Option<Vec<CoordSeg>> {
    let n_i = n as i128;
    let mut out: Vec<CoordSeg> = Vec::new();
    match mode {
        BoundaryMode::StrictBounds => out.push(CoordSeg { len: n, z: Some((a, s)) }),
        BoundaryMode::Fill => {
            let (lo, hi) = if s > 0 {
                (ceil_div(-a, s), floor_div(d - 1 - a, s) + 1)
            } else if s < 0 {
                (ceil_div(a - (d - 1), -s), floor_div(a, -s) + 1)
            } else if (0..d).contains(&a) {
                (0, n_i)
            } else {
                (0, 0)
            };
            let lo = lo.clamp(0, n_i);
            let hi = hi.clamp(lo, n_i);
            if lo > 0 {
                out.push(CoordSeg { len: lo as u64, z: None });
            }
            if hi > lo {
                out.push(CoordSeg { len: (hi - lo) as u64, z: Some((a + s * lo, s)) });
            }
            if n_i > hi {
                out.push(CoordSeg { len: (n_i - hi) as u64, z: None });
            }
        }
        BoundaryMode::Clamp | BoundaryMode::Wrap | BoundaryMode::Reflect | BoundaryMode::Symmetric => {
            let mut y: i128 = 0;
            while y < n_i {
                let x = a + s * y;
                // The region containing x (in the direction of travel), inclusive bounds,
                // and z = c + sigma·x on it.
                let (lo_x, hi_x, c, sigma) = region(mode, x, s, d);
                let room = if s > 0 {
                    floor_div(hi_x - x, s) + 1
                } else if s < 0 {
                    floor_div(x - lo_x, -s) + 1
                } else {
                    n_i
                };
                let len = room.min(n_i - y);
                out.push(CoordSeg { len: len as u64, z: Some((c + sigma * x, sigma * s)) });
                if out.len() > MAX_SEGMENTS_PER_AXIS {
                    return None;
                }
                y += len;
            }
        }
    }
    // Length-1 segments have stride 0; merge segments that continue each other.
    let mut merged: Vec<CoordSeg> = Vec::with_capacity(out.len());
    for mut seg in out {
        if seg.len == 1
            && let Some((z0, _)) = seg.z
        {
            seg.z = Some((z0, 0));
        }
        if let Some(prev) = merged.last_mut() {
            match (prev.z, seg.z) {
                (None, None) => {
                    prev.len += seg.len;
                    continue;
                }
                (Some((pz, pdz)), Some((z0, dz))) => {
                    let step = if prev.len == 1 { z0 - pz } else { pdz };
                    if (seg.len == 1 || dz == step) && pz + step * prev.len as i128 == z0 {
                        prev.len += seg.len;
                        prev.z = Some((pz, step));
                        continue;
                    }
                }
                _ => {}
            }
        }
        merged.push(seg);
    }
    (merged.len() <= MAX_SEGMENTS_PER_AXIS).then_some(merged)
}

/// The affine region of x for the clamp, wrap, reflect and symmetric formulas: (lo, hi,
/// c, sigma) with z = c + sigma·x for x in [lo, hi]. Reflect regions are chosen by the
/// direction of travel `s` so that a segment starting at a turning point continues past
/// it; symmetric regions do not share their ends (the edge element is repeated).
fn region(mode: BoundaryMode, x: i128, s: i128, d: i128) -> (i128, i128, i128, i128) {
    const INF: i128 = i128::MAX / 4;
    match mode {
        BoundaryMode::Clamp => {
            if x < 0 {
                (-INF, -1, 0, 0)
            } else if x < d {
                (0, d - 1, 0, 1)
            } else {
                (d, INF, d - 1, 0)
            }
        }
        BoundaryMode::Wrap => {
            let k = floor_div(x, d);
            (k * d, k * d + d - 1, -k * d, 1)
        }
        BoundaryMode::Symmetric => {
            if d == 1 {
                return (-INF, INF, 0, 0);
            }
            // On the period 2d from kp: ascending [kp, kp+d-1], descending [kp+d, kp+2d-1].
            let kp = floor_div(x, 2 * d) * 2 * d;
            if x - kp < d { (kp, kp + d - 1, -kp, 1) } else { (kp + d, kp + 2 * d - 1, kp + 2 * d - 1, -1) }
        }
        _ => {
            if d == 1 {
                return (-INF, INF, 0, 0);
            }
            let p = 2 * d - 2;
            let k = floor_div(x, p);
            let c = x - k * p;
            let kp = k * p;
            let ascending = (kp, kp + d - 1, -kp, 1);
            let descending = (kp + d - 1, kp + p, kp + p, -1);
            if s >= 0 {
                if c < d - 1 { ascending } else { descending }
            } else if c > 0 && c < d {
                ascending
            } else if c == 0 {
                (kp - p + d - 1, kp, kp, -1)
            } else {
                descending
            }
        }
    }
}

fn to_i64(v: i128, what: &str) -> Result<i64, Error> {
    i64::try_from(v).map_err(|_| Error::Overflow { op: "schedule".into(), what: what.into(), value: v.to_string() })
}

/// An axis while the nest is built.
#[derive(Clone, Debug)]
struct Axis {
    extent: u64,
    period: u64,
    indexing: Indexing,
}

impl Axis {
    /// (offset, stride) of an axis that is one affine segment repeated (or not).
    fn one_segment(&self) -> Option<(i64, i64)> {
        match &self.indexing {
            Indexing::Segments(s) if s.len() == 1 => match s[0] {
                Segment::Affine { offset, stride, .. } => Some((offset, stride)),
                Segment::Fill { .. } | Segment::FillAt { .. } => None,
            },
            _ => None,
        }
    }
    fn all_fill(&self) -> bool {
        match &self.indexing {
            Indexing::Segments(s) => s.iter().all(|s| matches!(s, Segment::Fill { .. })),
            Indexing::Table(_) => false,
        }
    }
}

/// Schedule a slice plan.
pub fn slice(plan: &SlicePlan) -> Result<LoopNest, Error> {
    slice_in(plan, None)
}

/// Schedule a slice plan reading its input through a view (any strides, zero and
/// negative ones included): the nest's offsets are the view's buffer offsets, and axes
/// merge only where the view's strides continue each other. The view is checked to lie
/// inside its buffer first (an error naming the axis otherwise), and the nest verified
/// against the buffer's length.
pub fn slice_strided(plan: &SlicePlan, input: &Strided) -> Result<LoopNest, Error> {
    slice_in(plan, Some(input))
}

/// Where a tensor's elements lie in a buffer, in elements: element (i_0, …) at
/// `offset + Σ i_k·strides[k]`, inside `[0, buffer_len)`. The layout of numpy and ndarray
/// views (theirs in bytes or elements from a pointer; here from the buffer's start).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Strided {
    pub offset: i64,
    pub strides: Vec<i64>,
    pub buffer_len: u64,
}

impl Strided {
    /// A dense row-major tensor of `shape` alone in its buffer.
    pub fn contiguous(shape: &[u64]) -> Result<Strided, Error> {
        let len = crate::tensor::volume(shape)
            .filter(|&n| n <= i64::MAX as u64)
            .ok_or_else(|| Error::TooLarge { what: format!("a tensor of shape {shape:?}") })?;
        let mut strides = vec![1i64; shape.len()];
        for k in (0..shape.len().saturating_sub(1)).rev() {
            strides[k] = strides[k + 1].saturating_mul(shape[k + 1] as i64);
        }
        Ok(Strided { offset: 0, strides, buffer_len: len })
    }

    /// The lowest and highest offset of an element of `shape`, `None` when it has none.
    pub fn span(&self, shape: &[u64]) -> Option<(i128, i128)> {
        if shape.contains(&0) {
            return None;
        }
        let (mut lo, mut hi) = (self.offset as i128, self.offset as i128);
        // Each reach fits i128 (|stride| ≤ 2^63, extent < 2^64); their sum may not for a
        // shape no tensor has: saturated, it lies outside every buffer.
        for (&d, &s) in shape.iter().zip(&self.strides) {
            let reach = s as i128 * (d as i128 - 1);
            if reach < 0 { lo = lo.saturating_add(reach) } else { hi = hi.saturating_add(reach) }
        }
        Some((lo, hi))
    }

    /// Check that the view has one stride per axis of `shape` and every element lies in
    /// its buffer; `what` names the view in the error.
    pub fn check_inside(&self, shape: &[u64], what: &str) -> Result<(), Error> {
        if self.strides.len() != shape.len() {
            return Err(Error::Mismatch {
                what: format!("{what} strides"),
                expected: format!("one per axis of {shape:?}"),
                found: format!("{:?}", self.strides),
            });
        }
        let Some((lo, hi)) = self.span(shape) else { return Ok(()) };
        if lo < 0 || hi >= self.buffer_len as i128 || self.buffer_len > i64::MAX as u64 {
            // Name the first axis that reaches outside on its own from the offset.
            let axis = shape.iter().zip(&self.strides).position(|(&d, &s)| {
                let end = self.offset as i128 + s as i128 * (d as i128 - 1);
                end < 0 || end >= self.buffer_len as i128
            });
            let axis = axis.map(|k| format!(" (axis {k}, stride {})", self.strides[k])).unwrap_or_default();
            return Err(Error::Invalid {
                what: format!(
                    "{what}: offset {} and strides {:?} reach elements {lo}..={hi}{axis}, outside its buffer of {} elements",
                    self.offset, self.strides, self.buffer_len
                ),
            });
        }
        Ok(())
    }
}

/// Check that the writes at `base + Σ y_k·stride_k` (`(extent, stride)` per axis, any
/// order) lie in `[0, buffer_len)` and are distinct: every axis of extent 2 or more has a
/// positive stride, and, sorted by stride, each stride exceeds the reach of the axes
/// before it (`Σ stride·(extent − 1)`), so that no two index tuples meet. The message
/// names the axis (its index in `axes`) and the rule.
fn check_writes(axes: &[(u64, i64)], base: i128, buffer_len: u64) -> Result<(), String> {
    if axes.iter().any(|&(e, _)| e == 0) {
        return Ok(());
    }
    let mut order: Vec<usize> = (0..axes.len()).filter(|&k| axes[k].0 > 1).collect();
    if let Some(&k) = order.iter().find(|&&k| axes[k].1 <= 0) {
        return Err(format!("output axis {k} has stride {}; output strides must be positive", axes[k].1));
    }
    order.sort_by_key(|&k| (axes[k].1, k));
    let mut reach: i128 = 0;
    for &k in &order {
        let (e, s) = (axes[k].0 as i128, axes[k].1 as i128);
        if s <= reach {
            return Err(format!(
                "output axis {k} (stride {s}) overlaps the axes of smaller strides, which reach {reach} elements: output elements would share places"
            ));
        }
        reach = reach.saturating_add(s * (e - 1));
    }
    let hi = base.saturating_add(reach);
    // (Offsets are i64 in the backends: a buffer beyond that is refused.)
    if base < 0 || hi >= buffer_len as i128 || buffer_len > i64::MAX as u64 {
        return Err(format!("output writes elements {base}..={hi}, outside its buffer of {buffer_len} elements"));
    }
    Ok(())
}

impl Strided {
    /// The strides of this view of `shape` read as `to`, a row-major reshape of it (the
    /// same elements in the same order), where the view allows that without a copy:
    /// each group of axes that reshapes into another must be contiguous among itself
    /// (numpy's rule for `reshape` returning a view). `None` where it does not.
    pub fn reshaped(&self, shape: &[u64], to: &[u64]) -> Option<Vec<i64>> {
        if shape == to {
            return Some(self.strides.clone());
        }
        if crate::tensor::volume(shape)? != crate::tensor::volume(to)? || self.strides.len() != shape.len() {
            return None;
        }
        if shape.contains(&0) {
            return Some(vec![0; to.len()]); // no element is read
        }
        // Unit axes carry no stride: drop them on both sides.
        let old: Vec<(u64, i64)> =
            shape.iter().zip(&self.strides).filter(|(d, _)| **d != 1).map(|(&d, &s)| (d, s)).collect();
        let mut out = vec![0i64; to.len()];
        let new: Vec<usize> = (0..to.len()).filter(|&k| to[k] != 1).collect();
        let (mut i, mut j) = (0, 0);
        while i < old.len() && j < new.len() {
            // The smallest groups old[i..i2], new[j..j2] of equal volume.
            let (mut i2, mut j2) = (i + 1, j + 1);
            let (mut po, mut pn) = (old[i].0 as u128, to[new[j]] as u128);
            while po != pn {
                if po < pn {
                    po *= old.get(i2)?.0 as u128;
                    i2 += 1;
                } else {
                    pn *= to[*new.get(j2)?] as u128;
                    j2 += 1;
                }
            }
            // The old group must be one contiguous run of its innermost stride.
            for k in i..i2 - 1 {
                if old[k].1 as i128 != old[k + 1].1 as i128 * old[k + 1].0 as i128 {
                    return None;
                }
            }
            let mut stride = old[i2 - 1].1 as i128;
            for &k in new[j..j2].iter().rev() {
                out[k] = i64::try_from(stride).ok()?;
                stride *= to[k] as i128;
            }
            (i, j) = (i2, j2);
        }
        Some(out)
    }

    /// Check an output view of `shape`: inside its buffer (see [`Strided::check_inside`]),
    /// positive strides on every axis of extent 2 or more, and no two elements in one place.
    pub fn check_output(&self, shape: &[u64]) -> Result<(), Error> {
        self.check_inside(shape, "output view")?;
        let axes: Vec<(u64, i64)> = shape.iter().copied().zip(self.strides.iter().copied()).collect();
        check_writes(&axes, self.offset as i128, self.buffer_len)
            .map_err(|e| Error::Invalid { what: format!("output view: {e}") })
    }
}

/// The output view's stride of each core axis (0 on extent-1 axes, which take one
/// position): the output shape differs from the core shape only by extent-1 axes (a
/// shrink or a new axis); any other reshape of a view is refused.
fn core_out_strides(core: &[u64], output_shape: &[u64], out: &Strided) -> Result<Vec<i64>, Error> {
    out.check_output(output_shape)?;
    let nonunit = |s: &[u64]| s.iter().copied().filter(|&d| d != 1).collect::<Vec<_>>();
    if core.contains(&0) {
        return Ok(vec![0; core.len()]); // no element is written
    }
    if nonunit(core) != nonunit(output_shape) {
        return Err(Error::Mismatch {
            what: "output view".into(),
            expected: format!("an output shape that is the axes' extents {core:?} up to extent-1 axes"),
            found: format!("{output_shape:?}"),
        });
    }
    let mut strides = output_shape.iter().zip(&out.strides).filter(|(d, _)| **d != 1).map(|(_, &s)| s);
    Ok(core.iter().map(|&d| if d == 1 { 0 } else { strides.next().unwrap_or(0) }).collect())
}

fn slice_in(plan: &SlicePlan, view: Option<&Strided>) -> Result<LoopNest, Error> {
    slice_views(plan, view, None)
}

/// Schedule a slice plan reading its input through a view (`None`: dense, see
/// [`slice_strided`]) and writing its output through a view of a buffer (`None`: dense):
/// the output view has positive strides whose elements do not overlap (checked, an
/// error naming the axis otherwise), and axes merge only where both views' strides
/// continue. The nest's [`LoopNest::out_view`] holds the view's offset and buffer.
pub fn slice_views(plan: &SlicePlan, view: Option<&Strided>, output: Option<&Strided>) -> Result<LoopNest, Error> {
    plan.validate()?;
    let source = plan.source();
    let rank = source.len();
    let core = plan.core_shape();
    let output_len =
        crate::tensor::volume(&core).ok_or_else(|| Error::TooLarge { what: format!("an output of shape {core:?}") })?;
    let input_len = crate::tensor::volume(&plan.input_shape)
        .ok_or_else(|| Error::TooLarge { what: format!("an input of shape {:?}", plan.input_shape) })?;
    if input_len > i64::MAX as u64 || output_len > i64::MAX as u64 {
        return Err(Error::TooLarge { what: "a slice of more than 2^63 elements".into() });
    }
    if let Some(v) = view {
        v.check_inside(&plan.input_shape, "input view")?;
    }
    let out_strides = output.map(|o| core_out_strides(&core, &plan.output_shape, o)).transpose()?;
    let nest = LoopNest {
        dtype: plan.dtype,
        mode: nest_mode(plan),
        fill_bits: if plan.mode == BoundaryMode::Fill { plan.fill_bits } else { 0 },
        input_len: view.map_or(input_len, |v| v.buffer_len),
        output_len,
        base: 0,
        dims: Vec::new(),
        head: None,
        levels: Vec::new(),
        out_view: output.map(|o| OutView { base: o.offset.max(0) as u64, buffer_len: o.buffer_len }),
    };
    if output_len == 0 {
        return Ok(nest);
    }
    let fill_axes = || {
        core.iter().map(|&e| Axis {
            extent: e,
            period: e,
            indexing: Indexing::Segments(vec![Segment::Fill { len: e }]),
        })
    };
    let all_fill = |nest: LoopNest| finish(nest, fill_axes().collect(), 0, out_strides.as_deref());

    // Row-major source strides.
    let mut in_strides = vec![1i128; rank];
    for k in (0..rank.saturating_sub(1)).rev() {
        // Saturating: only an input with an empty axis can overflow here (e.g. [0, 2^60,
        // 2^60, 2^60]); the axes outside it get stride 0, and the empty axis makes the
        // nest all-fill (or an error) before the strides inside it are used.
        in_strides[k] = in_strides[k + 1].saturating_mul(source[k + 1] as i128);
    }
    if let Some(v) = view {
        let strides = v.reshaped(&plan.input_shape, source).ok_or_else(|| Error::Invalid {
            what: format!(
                "input view: strides {:?} of shape {:?} cannot be read as shape {source:?} without a copy",
                v.strides, plan.input_shape
            ),
        })?;
        in_strides = strides.iter().map(|&s| s as i128).collect();
    }
    let mut axes: Vec<Axis> = Vec::with_capacity(rank);
    for j in 0..rank {
        let k = plan.source_axis(j);
        let a = &plan.axes[k];
        // The mode sees the axis's window: its extent d, its first element at `lo`.
        let window = plan.window(k);
        let (lo, d) = (window.lo as i128, window.len);
        if d == 0 {
            if plan.mode == BoundaryMode::Fill {
                return all_fill(nest);
            }
            return Err(Error::Invalid {
                what: format!(
                    "axis {k} of the input (the window its mode sees) is empty but the output reads {} elements from it in mode {}",
                    a.extent, plan.mode
                ),
            });
        }
        let t = in_strides[k];
        let what = || format!("axis {k} offset");
        if let Some(g) = plan.gathered.as_ref().filter(|g| g.axis == k) {
            axes.push(Axis { extent: a.extent, period: a.extent, indexing: gathered_axis(plan, g, k, t, &what)? });
            continue;
        }
        let coords = axis_coords(plan.mode, a.start as i128, a.step as i128, a.extent, d);
        let indexing = match coords.segs {
            Some(segs) => {
                let mut out = Vec::with_capacity(segs.len());
                for s in segs {
                    out.push(match s.z {
                        None => Segment::Fill { len: s.len },
                        Some((z0, dz)) => Segment::Affine {
                            len: s.len,
                            offset: to_i64((lo + z0) * t, &what())?,
                            stride: to_i64(dz * t, &what())?,
                        },
                    });
                }
                Indexing::Segments(out)
            }
            None => Indexing::Table(Table {
                entries: axis_table(plan.mode, &coords, d, lo, t, &what)?,
                rule: TableRule {
                    stages: vec![TableStage {
                        mode: plan.mode,
                        start: a.start,
                        step: a.step,
                        lo: window.lo,
                        len: d,
                        coords: None,
                    }],
                    scale: to_i64(t, &what())?,
                },
            }),
        };
        axes.push(Axis { extent: a.extent, period: coords.period, indexing });
    }
    finish(nest, axes, view.map_or(0, |v| v.offset), out_strides.as_deref())
}

/// The mode a plan's nest is in: the plan's, but a gather's outside fill mode is in wrap
/// mode — its offsets are computed here whatever the mode, and its gathered axis may take
/// a table, which only nests of modes that repeat have (their kernels read tables).
pub fn nest_mode(plan: &SlicePlan) -> BoundaryMode {
    match plan.mode {
        BoundaryMode::Fill => BoundaryMode::Fill,
        _ if plan.gathered.is_some() => BoundaryMode::Wrap,
        mode => mode,
    }
}

/// The positions of a gathered axis (validated: they index its list; `t` is the axis's
/// input stride): one segment per run of coordinates that continue each other, or — with
/// more runs than [`MAX_SEGMENTS_PER_AXIS`] and no fill position — a table of their
/// offsets. A fill-mode plan keeps its runs as segments (fill positions are no table
/// entry), so its kernel is the fill mode's; any other's tables run on the kernels of
/// modes that repeat (see `kerf-jit`'s `DynKey`).
fn gathered_axis(
    plan: &SlicePlan,
    g: &crate::plan::Gathered,
    k: usize,
    t: i128,
    what: &dyn Fn() -> String,
) -> Result<Indexing, Error> {
    let (a, w) = (plan.axes[k], plan.window(k));
    let mut segs: Vec<Segment> = Vec::new();
    let mut entries: Vec<i64> = Vec::new();
    entries
        .try_reserve_exact(a.extent as usize)
        .map_err(|_| Error::TooLarge { what: format!("an index table of {} entries", a.extent) })?;
    let mut fills = false;
    for y in 0..a.extent {
        let x = plan.x(k, y).and_then(|x| i64::try_from(x).ok());
        let x = x.ok_or_else(|| Error::Invalid { what: format!("{}: position {y} reads past its list", what()) })?;
        let s = match plan.mode.source_index(x, w.len) {
            None => {
                fills = true;
                Segment::Fill { len: 1 }
            }
            Some(z) => {
                let offset = to_i64((w.lo as i128 + z as i128) * t, &what())?;
                entries.push(offset);
                Segment::Affine { len: 1, offset, stride: 0 }
            }
        };
        push_merged(&mut segs, s);
    }
    if segs.len() <= MAX_SEGMENTS_PER_AXIS || fills || plan.mode == BoundaryMode::Fill {
        return Ok(Indexing::Segments(segs));
    }
    let stage = TableStage {
        mode: plan.mode,
        start: a.start,
        step: a.step,
        lo: w.lo,
        len: w.len,
        coords: Some(g.coords.clone()),
    };
    Ok(Indexing::Table(Table { entries, rule: TableRule { stages: vec![stage], scale: to_i64(t, &what())? } }))
}

/// The rest of building a nest from its axes (one per output axis, in order, extent-1
/// axes anywhere) and, with an output view, their output strides: all-fill when an axis
/// is, extent-1 axes dropped into the base, axes merged where both the input offsets
/// and the output strides continue, dims with row-major (or the view's) output strides;
/// verified.
fn finish(mut nest: LoopNest, axes: Vec<Axis>, base: i64, out_strides: Option<&[i64]>) -> Result<LoopNest, Error> {
    let output_len = nest.output_len;
    if output_len == 0 {
        return Ok(nest);
    }
    let mut axes = axes;
    let filled = nest.levels.is_empty() && axes.iter().any(Axis::all_fill);
    if filled {
        nest.base = 0;
        if out_strides.is_some() {
            // Every axis fills; the view's layout still shapes the dims.
            for ax in &mut axes {
                (ax.period, ax.indexing) = (ax.extent, Indexing::Segments(vec![Segment::Fill { len: ax.extent }]));
            }
        } else {
            nest.dims = vec![Dim {
                extent: output_len,
                out_stride: 1,
                period: output_len,
                indexing: Indexing::Segments(vec![Segment::Fill { len: output_len }]),
            }];
            return Ok(nest);
        }
    }
    // Row-major output strides unless a view gives them.
    let out_strides: Vec<i128> = match out_strides {
        Some(s) => s.iter().map(|&s| s as i128).collect(),
        None => {
            let mut s = vec![1i128; axes.len()];
            for k in (0..axes.len().saturating_sub(1)).rev() {
                s[k] = s[k + 1] * axes[k + 1].extent as i128;
            }
            s
        }
    };
    // Drop extent-1 axes: their one position's offset goes to the base, or (fill levels)
    // its fill level is a floor every element's level is raised to.
    let mut base: i128 = base as i128;
    let mut floor: Option<usize> = None;
    let mut kept: Vec<(Axis, i128)> = Vec::with_capacity(axes.len());
    for (ax, os) in axes.into_iter().zip(out_strides) {
        if ax.extent != 1 {
            kept.push((ax, os));
            continue;
        }
        base += match &ax.indexing {
            Indexing::Segments(s) => match s[0] {
                Segment::Affine { offset, .. } => offset as i128,
                // (Without levels, an all-fill axis made the nest `filled` above.)
                Segment::Fill { .. } | Segment::FillAt { .. } => {
                    floor = floor.max(s[0].level());
                    0
                }
            },
            Indexing::Table(t) => t[0] as i128,
        };
    }
    nest.base = if filled { 0 } else { to_i64(base, "base offset")? };
    if let Some(f) = floor.filter(|_| !nest.levels.is_empty()) {
        nest.base = 0;
        for (ax, _) in &mut kept {
            let raised = match &ax.indexing {
                Indexing::Segments(s) => {
                    s.iter().map(|s| Segment::fill_at(s.len(), s.level().map_or(f, |l| l.max(f)))).collect()
                }
                Indexing::Table(_) => vec![Segment::fill_at(ax.period, f)],
            };
            ax.indexing = Indexing::Segments(raised);
        }
        if kept.is_empty() {
            kept.push((Axis { extent: 1, period: 1, indexing: Indexing::Segments(vec![Segment::fill_at(1, f)]) }, 1));
        }
    }
    // Merge an axis into the one outside it when the offsets continue: the outer one is
    // one affine segment (repeated or not), the inner one a single segment spanning it
    // (or both fill, all positions alike), and the output strides continue too.
    let mut merged: Vec<(Axis, i128)> = Vec::with_capacity(kept.len());
    for (ax, os) in kept {
        if let Some((outer, o_os)) = merged.last_mut()
            && *o_os == os * ax.extent as i128
            && ax.period == ax.extent
        {
            if let (Some((i_off, i_stride)), Some((o_off, o_stride))) = (ax.one_segment(), outer.one_segment())
                && o_stride as i128 == i_stride as i128 * ax.extent as i128
            {
                outer.extent *= ax.extent;
                outer.period *= ax.extent;
                outer.indexing = Indexing::Segments(vec![Segment::Affine {
                    len: outer.period,
                    offset: to_i64(o_off as i128 + i_off as i128, "merged offset")?,
                    stride: i_stride,
                }]);
                *o_os = os;
                continue;
            }
            if filled && ax.all_fill() && outer.all_fill() && outer.period == outer.extent {
                outer.extent *= ax.extent;
                outer.period = outer.extent;
                outer.indexing = Indexing::Segments(vec![Segment::Fill { len: outer.extent }]);
                *o_os = os;
                continue;
            }
        }
        merged.push((ax, os));
    }
    if merged.is_empty() {
        let seg = if filled { Segment::Fill { len: 1 } } else { Segment::Affine { len: 1, offset: 0, stride: 0 } };
        merged.push((Axis { extent: 1, period: 1, indexing: Indexing::Segments(vec![seg]) }, 1));
    }
    nest.dims = merged
        .into_iter()
        .map(|(ax, os)| {
            let out_stride = u64::try_from(os)
                .map_err(|_| Error::Invalid { what: format!("output stride {os} of a dim is negative") })?;
            Ok(Dim { extent: ax.extent, out_stride, period: ax.period, indexing: ax.indexing })
        })
        .collect::<Result<_, Error>>()?;
    nest.verify()?;
    Ok(nest)
}

/// A fused chain as a loop nest: a plan's kind of nest when its elements take at most one
/// fill value and no axis that repeats or has a table has fill positions; else a nest with
/// fill levels ([`LoopNest::levels`], a table with fill positions becoming segments). A
/// chain that starts with a fill gets a nest whose offsets index that fill
/// ([`LoopNest::head`]). `Ok(None)` for chains of strings, which backends that move bytes
/// run step by step.
pub fn chain(f: &crate::chain::FusedChain) -> Result<Option<LoopNest>, Error> {
    chain_views(f, None, None)
}

/// [`chain`] reading the chain's input through a view (see [`slice_strided`]).
pub fn chain_strided(f: &crate::chain::FusedChain, input: &Strided) -> Result<Option<LoopNest>, Error> {
    chain_views(f, Some(input), None)
}

/// [`chain`] reading its input and writing its output through views (either `None`:
/// dense), as [`slice_views`] does for one plan. A chain with a fill head or fill levels
/// writes no output view (an error): its nest's fill mode walks and writes row-major
/// output positions.
pub fn chain_views(
    f: &crate::chain::FusedChain,
    view: Option<&Strided>,
    output: Option<&Strided>,
) -> Result<Option<LoopNest>, Error> {
    use crate::chain::{AxisMap, Head, Outcome, Piece};
    f.validate()?;
    // A fill head is indexed as a dense tensor of its shape (see `LoopNest::head`).
    let (shape, head) = match &f.head {
        Head::Input { shape } => (shape, None),
        Head::Fill(p) if view.is_none() => (&p.shape, Some(FillHead(p.clone()))),
        Head::Fill(_) => {
            return Err(Error::Invalid { what: "a chain that starts with a fill reads no input view".into() });
        }
    };
    if f.dtype == DType::String {
        return Ok(None);
    }
    let steps = f.const_steps();
    let fill_bits = steps.first().map(|s| f.fill_bits[s - 1]);
    let all = || f.axes.iter().chain(&f.fixed);
    let irregular = all().any(|a| a.period < a.extent || matches!(a.map, AxisMap::Table(_)));
    // One fill value on regular axes: the nest of a plan in fill mode. Otherwise each
    // filling step is a level (in step order: a later step's fill wins).
    let levelled = fill_bits.is_some() && (irregular || steps.iter().any(|s| Some(f.fill_bits[s - 1]) != fill_bits));
    let levels: Vec<u128> = if levelled { steps.iter().map(|s| f.fill_bits[s - 1]).collect() } else { Vec::new() };
    let level = |step: usize| if levelled { steps.binary_search(&step).unwrap_or(0) } else { 0 };
    if output.is_some() && (head.is_some() || levelled) {
        return Err(Error::Invalid { what: NO_VIEW_IN_FILL_MODE.into() });
    }
    let core = f.core_shape();
    let output_len = crate::tensor::volume(&core).filter(|&n| n <= i64::MAX as u64);
    let input_len = crate::tensor::volume(shape).filter(|&n| n <= i64::MAX as u64);
    let (Some(output_len), Some(input_len)) = (output_len, input_len) else {
        return Err(Error::TooLarge { what: "a chain of more than 2^63 elements".into() });
    };
    let mode = match (fill_bits, irregular) {
        (Some(_), _) => BoundaryMode::Fill,
        (None, true) => BoundaryMode::Wrap,
        (None, false) => BoundaryMode::StrictBounds,
    };
    let mut out_strides = output.map(|o| core_out_strides(&core, &f.output_shape, o)).transpose()?;
    if let Some(s) = &mut out_strides {
        s.extend(f.fixed.iter().map(|_| 0)); // fixed axes take one position
    }
    let contiguous;
    let view = match view {
        Some(v) => {
            v.check_inside(shape, "input view")?;
            v
        }
        None => {
            contiguous = Strided { buffer_len: input_len, ..Strided::contiguous(shape)? };
            &contiguous
        }
    };
    let nest = LoopNest {
        dtype: f.dtype,
        mode,
        fill_bits: fill_bits.unwrap_or(0),
        input_len: view.buffer_len,
        output_len,
        base: 0,
        dims: Vec::new(),
        head,
        levels,
        out_view: output.map(|o| OutView { base: o.offset.max(0) as u64, buffer_len: o.buffer_len }),
    };
    if output_len == 0 {
        return Ok(Some(nest));
    }
    // A head without elements is read by no element (validated: each then falls outside
    // some step's input), and the strides of its axes inside an empty one may not fit:
    // its reads become level-0 fill positions, which each element's own fill outranks.
    let unread = input_len == 0;
    let source = f.source_shape();
    let in_strides: Vec<i128> = if unread {
        vec![0; source.len()]
    } else {
        view.reshaped(shape, source)
            .ok_or_else(|| Error::Invalid {
                what: format!(
                    "input view: strides {:?} of shape {shape:?} cannot be read as shape {source:?} without a copy",
                    view.strides
                ),
            })?
            .iter()
            .map(|&s| s as i128)
            .collect()
    };
    let mut axes = Vec::new();
    for a in all() {
        let t = a.head_axis.map_or(0, |h| in_strides[h]);
        let what = "chain offset";
        let read = |len: u64, z0: i64, dz: i64| -> Result<Segment, Error> {
            if unread {
                return Ok(Segment::fill_at(len, 0));
            }
            Ok(Segment::Affine { len, offset: to_i64(z0 as i128 * t, what)?, stride: to_i64(dz as i128 * t, what)? })
        };
        let indexing = match &a.map {
            AxisMap::Pieces(p) => Indexing::Segments(
                p.iter()
                    .map(|p| match *p {
                        Piece::Const { len, step } => Ok(Segment::fill_at(len, level(step))),
                        Piece::Read { len, z0, dz } => read(len, z0, dz),
                    })
                    .collect::<Result<_, Error>>()?,
            ),
            AxisMap::Table(entries) if !unread && entries.iter().all(|o| matches!(o, Outcome::Read(_))) => {
                Indexing::Table(Table {
                    entries: entries
                        .iter()
                        .map(|o| match *o {
                            Outcome::Read(z) => to_i64(z as i128 * t, what),
                            Outcome::Const(_) => unreachable!("checked: no fill positions"),
                        })
                        .collect::<Result<_, Error>>()?,
                    rule: TableRule { stages: a.stages.clone(), scale: to_i64(t, what)? },
                })
            }
            AxisMap::Table(entries) => {
                // Fill positions in a table: its positions as segments (runs that continue
                // each other merged), at most one per entry.
                let mut segs: Vec<Segment> = Vec::new();
                for o in entries {
                    let s = match *o {
                        Outcome::Read(z) => read(1, z, 0)?,
                        Outcome::Const(step) => Segment::fill_at(1, level(step)),
                    };
                    push_merged(&mut segs, s);
                }
                Indexing::Segments(segs)
            }
        };
        axes.push(Axis { extent: a.extent, period: a.period.max(1), indexing });
    }
    finish(nest, axes, view.offset, out_strides.as_deref()).map(Some)
}

/// Append `s` to `segs`, merged into the last segment when it continues it (fills of one
/// level; affine runs whose offsets continue).
fn push_merged(segs: &mut Vec<Segment>, s: Segment) {
    if let Some(prev) = segs.last_mut() {
        if prev.level().is_some() && prev.level() == s.level() {
            *prev = Segment::fill_at(prev.len() + s.len(), s.level().unwrap_or(0));
            return;
        }
        if let (&mut Segment::Affine { len, offset, stride }, &Segment::Affine { len: l2, offset: o2, stride: s2 }) =
            (&mut *prev, &s)
        {
            let step = if len == 1 { o2 as i128 - offset as i128 } else { stride as i128 };
            if (l2 == 1 || s2 as i128 == step)
                && offset as i128 + step * len as i128 == o2 as i128
                && let Ok(step) = i64::try_from(step)
            {
                *prev = Segment::Affine { len: len + l2, offset, stride: step };
                return;
            }
        }
    }
    segs.push(s);
}

/// The offsets of positions [0, period) of an axis with too many segments, stepping the
/// reduced coordinate (no per-entry multiplication that could overflow). `lo` is the
/// first element of the axis's window, `t` the axis's input stride.
fn axis_table(
    mode: BoundaryMode,
    c: &AxisCoords,
    d: u64,
    lo: i128,
    t: i128,
    what: &dyn Fn() -> String,
) -> Result<Vec<i64>, Error> {
    let mut table = Vec::new();
    table
        .try_reserve_exact(c.period as usize)
        .map_err(|_| Error::TooLarge { what: format!("an index table of {} entries", c.period) })?;
    // (The message is formatted only on error: tables can have millions of entries.)
    let fits = |v: i128| {
        i64::try_from(v).map_err(|_| Error::Overflow { op: "schedule".into(), what: what(), value: v.to_string() })
    };
    // Periodic modes keep x in [0, p); the others (which never need tables in practice:
    // they have at most three segments) step x exactly.
    let p = mode.period(d).map(|p| p as i128);
    let mut x = c.a;
    for _ in 0..c.period {
        let z = mode
            .source_index(fits(x)?, d)
            .ok_or_else(|| Error::Invalid { what: format!("{}: an index table would read the fill value", what()) })?;
        table.push(fits((lo + z as i128) * t)?);
        x += c.s;
        if let Some(p) = p {
            // |s| ≤ p/2: one correction keeps x in [0, p).
            if x >= p {
                x -= p;
            } else if x < 0 {
                x += p;
            }
        }
    }
    Ok(table)
}

/// `v = m·2^e` with m odd: e (`None` for zero).
fn lowest_exponent(v: f64) -> Option<i32> {
    if v == 0.0 {
        return None;
    }
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let mant = bits & ((1u64 << 52) - 1);
    let (m, e) = if exp == 0 { (mant, -1074) } else { (mant | (1u64 << 52), exp - 1075) };
    Some(e + m.trailing_zeros() as i32)
}

/// Whether every partial sum of the linspace is exactly an f32 (see [`FillBody`]).
fn f32_exact(alpha: f64, beta: &[f64], shape: &[u64]) -> bool {
    if !alpha.is_finite() || beta.iter().any(|b| !b.is_finite()) || (alpha == 0.0 && alpha.is_sign_negative()) {
        return false;
    }
    let values = std::iter::once(alpha).chain(beta.iter().copied());
    let Some(e_min) = values.clone().filter_map(lowest_exponent).min() else {
        return true; // all zero
    };
    if e_min < -149 {
        return false;
    }
    // |alpha| + Σ|b_k|·(d_k − 1), in units of 2^e_min.
    let units = |v: f64| -> Option<u128> {
        if v == 0.0 {
            return Some(0);
        }
        let e = lowest_exponent(v)?;
        let shift = u32::try_from(e - e_min).ok().filter(|&s| s < 64)?;
        let m = (v.abs() / 2f64.powi(e)) as u128; // exact: v = m·2^e, m < 2^53
        m.checked_shl(shift)
    };
    let mut total = match units(alpha) {
        Some(u) => u,
        None => return false,
    };
    for (&b, &d) in beta.iter().zip(shape) {
        let Some(u) = units(b) else { return false };
        let Some(t) = u.checked_mul(d.saturating_sub(1) as u128).and_then(|t| total.checked_add(t)) else {
            return false;
        };
        total = t;
    }
    total <= 1 << 24 && e_min + 24 <= 127
}

/// Schedule a fill plan.
pub fn fill(plan: &FillPlan) -> Result<FillNest, Error> {
    plan.validate()?;
    let len = crate::tensor::volume(&plan.shape)
        .ok_or_else(|| Error::TooLarge { what: format!("a fill of shape {:?}", plan.shape) })?;
    let drop_and_merge = |dims: Vec<(u64, i128)>| -> Vec<(u64, i128)> {
        let mut out: Vec<(u64, i128)> = Vec::new();
        for (e, c) in dims.into_iter().filter(|d| d.0 != 1) {
            if let Some(last) = out.last_mut()
                && last.1 == c * e as i128
            {
                last.0 *= e;
                last.1 = c;
                continue;
            }
            out.push((e, c));
        }
        out
    };
    let body = match &plan.kind {
        FillKind::RandomUniform { alpha, beta, seed } => {
            FillBody::Random { normal: false, alpha: *alpha, beta: *beta, seed: *seed }
        }
        FillKind::RandomNormal { alpha, beta, seed } => {
            FillBody::Random { normal: true, alpha: *alpha, beta: *beta, seed: *seed }
        }
        FillKind::Linspace(Linspace::Int { alpha, beta }) => {
            let dims = drop_and_merge(plan.shape.iter().zip(beta).map(|(&e, &b)| (e, b as i128)).collect());
            FillBody::LinspaceInt {
                alpha: *alpha,
                dims: dims.into_iter().map(|(extent, c)| LinDim { extent, coef: c as i64 }).collect(),
            }
        }
        FillKind::Linspace(Linspace::Float { alpha, beta }) => {
            if f32_exact(*alpha, beta, &plan.shape) {
                // Exact multiples of 2^e_min: scale to integers, merge exactly, scale back.
                let e_min =
                    std::iter::once(*alpha).chain(beta.iter().copied()).filter_map(lowest_exponent).min().unwrap_or(0);
                let scale = 2f64.powi(e_min);
                let dims =
                    drop_and_merge(plan.shape.iter().zip(beta).map(|(&e, &b)| (e, (b / scale) as i128)).collect());
                FillBody::LinspaceF32Exact {
                    alpha: *alpha as f32,
                    dims: dims
                        .into_iter()
                        .map(|(extent, c)| LinDim { extent, coef: (c as f64 * scale) as f32 })
                        .collect(),
                }
            } else {
                FillBody::LinspaceF64 {
                    alpha: *alpha,
                    dims: plan.shape.iter().zip(beta).map(|(&extent, &coef)| LinDim { extent, coef }).collect(),
                }
            }
        }
    };
    Ok(FillNest { dtype: plan.dtype, len, body })
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
        write!(
            f,
            "slice {} mode {}, input {} elements, output {} elements",
            self.dtype, self.mode, self.input_len, self.output_len
        )?;
        if self.mode == BoundaryMode::Fill {
            write!(f, ", fill {}", crate::scalar::format_bits(self.dtype, self.fill_bits))?;
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

impl fmt::Display for FillNest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fill {}, {} elements: ", self.dtype, self.len)?;
        fn dims<T: fmt::Display>(f: &mut fmt::Formatter<'_>, dims: &[LinDim<T>]) -> fmt::Result {
            for (k, d) in dims.iter().enumerate() {
                writeln!(f, "{}for a{k} in 0..{}:  v += {}*a{k}", "  ".repeat(k), d.extent, d.coef)?;
            }
            Ok(())
        }
        match &self.body {
            FillBody::Random { normal, alpha, beta, seed } => {
                let what = if *normal { "random_normal" } else { "random_uniform" };
                writeln!(f, "{what} alpha {alpha:?} beta {beta:?} seed {seed}")?;
                writeln!(f, "for i in 0..{}:  out[i] = philox(seed, i)", self.len)
            }
            FillBody::LinspaceInt { alpha, dims: d } => {
                writeln!(f, "linspace exact integer, v = {alpha}")?;
                dims(f, d)
            }
            FillBody::LinspaceF32Exact { alpha, dims: d } => {
                writeln!(f, "linspace exact in f32, v = {alpha:?}")?;
                dims(f, d)
            }
            FillBody::LinspaceF64 { alpha, dims: d } => {
                writeln!(f, "linspace in f64 rounded once, v = {alpha:?}")?;
                dims(f, d)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_exactness() {
        assert!(f32_exact(0.0, &[4096.0, 1.0], &[4096, 4096]));
        assert!(!f32_exact(0.0, &[4097.0, 1.0], &[4096, 4096]));
        assert!(f32_exact(0.5, &[0.25], &[100]));
        assert!(!f32_exact(0.1, &[1.0], &[10]));
        assert!(!f32_exact(-0.0, &[1.0], &[10]));
    }
}
