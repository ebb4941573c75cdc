//! The schedule shared by both backends: Plan → [`LoopNest`] (slices) or [`FillNest`] (fills).
//!
//! A slice's output is written in row-major order by a nest of loops, one per [`Dim`]
//! (outermost first). Each dim splits its positions into [`Segment`]s on which the input
//! offset is affine — `offset + stride·j` for the j-th position of the segment — or the
//! fill value; where that would take too many segments, a dim carries a table of offsets
//! instead ([`Indexing::Table`]). The input element read by an output element is
//! `base + Σ_dims contribution`, and the fill value if any dim says fill. The hot loops
//! that backends emit from this contain no modulo, clamp or per-element branch.
//!
//! Building a nest: (1) per axis, split the output positions into regions on which the
//! boundary formula of SEMANTICS.md is affine — the in-bounds interior of every mode is one
//! plain segment, fill borders are fill segments, clamp borders constant (stride 0)
//! segments, wrap and reflect borders a few affine segments (reflect reverses the step),
//! with wrap and reflect steps first reduced modulo their period; (2) axes of extent 1 are
//! dropped (their offset goes to `base`); (3) adjacent axes whose offsets continue each
//! other are merged; (4) axes with more than [`MAX_SEGMENTS_PER_AXIS`] segments, and the
//! largest outer axes while the product of segment counts exceeds
//! [`MAX_SEGMENT_PRODUCT`], become tables; (5) every offset is checked to lie in the input.
//! Nothing here knows a vendor; every number is exact (i128) until it is known to fit.

use crate::dtype::DType;
use crate::error::Error;
use crate::plan::{BoundaryMode, FillKind, FillPlan, Linspace, Plan, SlicePlan};
use std::fmt;

/// An axis with more segments than this is indexed by a table instead.
pub const MAX_SEGMENTS_PER_AXIS: usize = 8;
/// The product of the segment counts of all dims (tables count 1) stays at most this, so
/// that a backend unrolling segments emits a bounded amount of code.
pub const MAX_SEGMENT_PRODUCT: usize = 64;

/// Consecutive positions of a dim on which the input offset is affine, or the fill value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    /// `len` positions; the j-th (from 0) adds `offset + stride·j` to the input offset.
    /// A segment of length 1 has stride 0.
    Affine { len: u64, offset: i64, stride: i64 },
    /// `len` positions whose elements are all the fill value.
    Fill { len: u64 },
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
            Segment::Affine { len, .. } | Segment::Fill { len } => len,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn run(&self) -> Run {
        match *self {
            Segment::Fill { .. } => Run::Fill,
            Segment::Affine { stride: 1, .. } => Run::Copy,
            Segment::Affine { stride: -1, .. } => Run::Reverse,
            Segment::Affine { stride: 0, .. } => Run::Broadcast,
            Segment::Affine { stride, .. } => Run::Strided(stride),
        }
    }
}

/// How a dim's positions map to input offsets.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Indexing {
    /// Segments in order; their lengths add up to the dim's extent.
    Segments(Vec<Segment>),
    /// One entry per position: the offset it adds, or `None` for the fill value.
    Table(Vec<Option<i64>>),
}

/// One loop of the nest.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dim {
    pub extent: u64,
    /// Output elements per step of this dim (the product of the inner dims' extents).
    pub out_stride: u64,
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
}

/// A slice plan scheduled as a loop nest. Offsets count elements (nibbles for i4/u4).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LoopNest {
    pub dtype: DType,
    pub mode: BoundaryMode,
    /// The fill value's element bits (0 unless mode is fill).
    pub fill_bits: u128,
    /// Elements of the input and of the output.
    pub input_len: u64,
    pub output_len: u64,
    /// Input offset added to every element's offset (from dropped extent-1 axes).
    pub base: i64,
    /// Outermost first. Empty exactly when the output is empty; the innermost has
    /// `out_stride` 1.
    pub dims: Vec<Dim>,
}

impl LoopNest {
    /// The smallest and largest input offset any element reads, `None` when no element
    /// reads the input (all fill, or empty).
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
                    for o in t.iter().flatten() {
                        widen(*o as i128, *o as i128);
                    }
                }
            }
            let (l, h) = range?;
            lo += l;
            hi += h;
        }
        Some((lo, hi))
    }

    /// Check the nest's invariants: extents multiply to the output length, segments cover
    /// their dims, strides are row-major, every read lies in [0, input_len). Backends call
    /// this before emitting code that trusts the nest.
    pub fn verify(&self) -> Result<(), Error> {
        let bad = |what: String| Err(Error::Invalid { what: format!("loop nest: {what}") });
        if self.dims.is_empty() {
            if self.output_len != 0 {
                return bad(format!("no dims but {} output elements", self.output_len));
            }
            return Ok(());
        }
        let mut inner: u64 = 1;
        for (k, dim) in self.dims.iter().enumerate().rev() {
            if dim.out_stride != inner {
                return bad(format!("dim {k} has out_stride {}, expected {inner}", dim.out_stride));
            }
            let covered = match &dim.indexing {
                Indexing::Segments(s) => s.iter().try_fold(0u64, |acc, s| acc.checked_add(s.len())),
                Indexing::Table(t) => Some(t.len() as u64),
            };
            if covered != Some(dim.extent) || dim.extent == 0 {
                return bad(format!("dim {k}: segments cover {covered:?} of extent {}", dim.extent));
            }
            inner = match inner.checked_mul(dim.extent) {
                Some(v) => v,
                None => return bad("output volume overflows".into()),
            };
        }
        if inner != self.output_len {
            return bad(format!("extents cover {inner} elements, output has {}", self.output_len));
        }
        if let Some((lo, hi)) = self.input_offset_range()
            && (lo < 0 || hi >= self.input_len as i128)
        {
            return bad(format!("reads offsets {lo}..={hi} outside the input's {} elements", self.input_len));
        }
        Ok(())
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
struct CoordSeg {
    len: u64,
    z: Option<(i128, i128)>,
}

/// Per axis: affine coordinate segments, or `None` when there would be more than
/// `MAX_SEGMENTS_PER_AXIS`. `d > 0`.
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
            // Reduce the start and step modulo the period, which leaves z unchanged.
            let (a, s) = match mode.period(d as u64) {
                None => (a, s),
                Some(p) => {
                    let p = p as i128;
                    let mut s = s.rem_euclid(p);
                    if s > p / 2 {
                        s -= p;
                    }
                    (a.rem_euclid(p), s)
                }
            };
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
    indexing: Indexing,
}

impl Axis {
    fn single_affine(&self) -> Option<(i64, i64)> {
        match &self.indexing {
            Indexing::Segments(s) if s.len() == 1 => match s[0] {
                Segment::Affine { offset, stride, .. } => Some((offset, stride)),
                Segment::Fill { .. } => None,
            },
            _ => None,
        }
    }
    fn segment_count(&self) -> usize {
        match &self.indexing {
            Indexing::Segments(s) => s.len(),
            Indexing::Table(_) => 1,
        }
    }
    fn all_fill(&self) -> bool {
        match &self.indexing {
            Indexing::Segments(s) => s.iter().all(|s| matches!(s, Segment::Fill { .. })),
            Indexing::Table(t) => t.iter().all(Option::is_none),
        }
    }
    fn to_table(&self) -> Vec<Option<i64>> {
        match &self.indexing {
            Indexing::Table(t) => t.clone(),
            Indexing::Segments(segs) => {
                let mut t = Vec::with_capacity(self.extent as usize);
                for s in segs {
                    match *s {
                        Segment::Fill { len } => t.extend((0..len).map(|_| None)),
                        Segment::Affine { len, offset, stride } => {
                            t.extend((0..len as i64).map(|j| Some(offset + stride * j)))
                        }
                    }
                }
                t
            }
        }
    }
}

/// Schedule a slice plan.
pub fn slice(plan: &SlicePlan) -> Result<LoopNest, Error> {
    plan.validate()?;
    let rank = plan.input_shape.len();
    let core = plan.core_shape();
    let output_len =
        crate::tensor::volume(&core).ok_or_else(|| Error::TooLarge { what: format!("an output of shape {core:?}") })?;
    let input_len = crate::tensor::volume(&plan.input_shape)
        .ok_or_else(|| Error::TooLarge { what: format!("an input of shape {:?}", plan.input_shape) })?;
    if input_len > i64::MAX as u64 || output_len > i64::MAX as u64 {
        return Err(Error::TooLarge { what: "a slice of more than 2^63 elements".into() });
    }
    let mut nest = LoopNest {
        dtype: plan.dtype,
        mode: plan.mode,
        fill_bits: if plan.mode == BoundaryMode::Fill { plan.fill_bits } else { 0 },
        input_len,
        output_len,
        base: 0,
        dims: Vec::new(),
    };
    if output_len == 0 {
        return Ok(nest);
    }
    let all_fill = |mut nest: LoopNest| -> Result<LoopNest, Error> {
        nest.base = 0;
        nest.dims = vec![Dim {
            extent: output_len,
            out_stride: 1,
            indexing: Indexing::Segments(vec![Segment::Fill { len: output_len }]),
        }];
        Ok(nest)
    };

    // Row-major input strides.
    let mut in_strides = vec![1i128; rank];
    for k in (0..rank.saturating_sub(1)).rev() {
        // Saturating: only an input with an empty axis can overflow here (e.g. [0, 2^60,
        // 2^60, 2^60]); the axes outside it get stride 0, and the empty axis makes the
        // nest all-fill (or an error) before the strides inside it are used.
        in_strides[k] = in_strides[k + 1].saturating_mul(plan.input_shape[k + 1] as i128);
    }
    let mut axes: Vec<Axis> = Vec::with_capacity(rank);
    for (k, a) in plan.axes.iter().enumerate() {
        // The mode sees the axis's window: its extent d, its first element at `lo`.
        let window = plan.window(k);
        let (lo, d) = (window.lo as i128, window.len as i128);
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
        let indexing = match axis_segments(plan.mode, a.start as i128, a.step as i128, a.extent, d) {
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
            None => {
                let mut table = Vec::new();
                table
                    .try_reserve_exact(a.extent as usize)
                    .map_err(|_| Error::TooLarge { what: format!("an index table of {} entries", a.extent) })?;
                // (The message is formatted only on error: tables can have millions of entries.)
                let fits = |v: i128| {
                    i64::try_from(v).map_err(|_| Error::Overflow {
                        op: "schedule".into(),
                        what: what(),
                        value: v.to_string(),
                    })
                };
                for y in 0..a.extent {
                    let x = fits(a.x(y))?;
                    table.push(match plan.mode.source_index(x, d as u64) {
                        None => None,
                        Some(z) => Some(fits((lo + z as i128) * t)?),
                    });
                }
                Indexing::Table(table)
            }
        };
        axes.push(Axis { extent: a.extent, indexing });
    }
    if axes.iter().any(Axis::all_fill) {
        return all_fill(nest);
    }
    // Drop extent-1 axes: their one position's offset goes to the base.
    let mut base: i128 = 0;
    axes.retain(|ax| {
        if ax.extent != 1 {
            return true;
        }
        let off = match &ax.indexing {
            Indexing::Segments(s) => match s[0] {
                Segment::Affine { offset, .. } => offset,
                Segment::Fill { .. } => unreachable!("all-fill axes were handled"),
            },
            Indexing::Table(t) => t[0].expect("all-fill axes were handled"),
        };
        base += off as i128;
        false
    });
    nest.base = to_i64(base, "base offset")?;
    // Merge an axis into the one outside it when the offsets continue.
    let mut merged: Vec<Axis> = Vec::with_capacity(axes.len());
    for ax in axes {
        if let (Some(outer), Some((i_off, i_stride))) = (merged.last_mut(), ax.single_affine())
            && let Some((o_off, o_stride)) = outer.single_affine()
            && o_stride as i128 == i_stride as i128 * ax.extent as i128
        {
            let extent = outer.extent * ax.extent;
            outer.extent = extent;
            outer.indexing = Indexing::Segments(vec![Segment::Affine {
                len: extent,
                offset: to_i64(o_off as i128 + i_off as i128, "merged offset")?,
                stride: i_stride,
            }]);
            continue;
        }
        merged.push(ax);
    }
    if merged.is_empty() {
        merged.push(Axis {
            extent: 1,
            indexing: Indexing::Segments(vec![Segment::Affine { len: 1, offset: 0, stride: 0 }]),
        });
    }
    // Bound the unrolled code: turn the outer axis with the most segments into a table.
    loop {
        let product = merged.iter().try_fold(1usize, |acc, a| acc.checked_mul(a.segment_count()));
        if product.is_some_and(|p| p <= MAX_SEGMENT_PRODUCT) {
            break;
        }
        let outer = merged.len() - 1;
        let (k, _) = merged[..outer]
            .iter()
            .enumerate()
            .max_by_key(|(k, a)| (a.segment_count(), std::cmp::Reverse(*k)))
            .expect("the product exceeds the budget only with outer axes");
        let table = merged[k].to_table();
        merged[k].indexing = Indexing::Table(table);
    }
    let mut out_stride = 1u64;
    let mut dims: Vec<Dim> = Vec::with_capacity(merged.len());
    for ax in merged.into_iter().rev() {
        dims.push(Dim { extent: ax.extent, out_stride, indexing: ax.indexing });
        out_stride *= ax.extent;
    }
    dims.reverse();
    nest.dims = dims;
    nest.verify()?;
    Ok(nest)
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
/// first position), innermost segments tagged with how they move data.
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
        if self.dims.is_empty() {
            return writeln!(f, "(empty output)");
        }
        writeln!(f, "in = {}", self.base)?;
        let last = self.dims.len() - 1;
        for (k, dim) in self.dims.iter().enumerate() {
            let pad = "  ".repeat(k);
            let out = if dim.out_stride == 1 { format!("y{k}") } else { format!("{}*y{k}", dim.out_stride) };
            writeln!(f, "{pad}for y{k} in 0..{}:  out += {out}", dim.extent)?;
            match &dim.indexing {
                Indexing::Segments(segs) => {
                    let mut y = 0u64;
                    for s in segs {
                        let tag = if k == last { format!("  [{}]", s.run()) } else { String::new() };
                        writeln!(f, "{pad}  y{k} in [{y}, {}): {s}{tag}", y + s.len())?;
                        y += s.len();
                    }
                }
                Indexing::Table(t) => {
                    let shown: Vec<String> =
                        t.iter().take(12).map(|o| o.map_or_else(|| "fill".to_string(), |o| o.to_string())).collect();
                    let more = if t.len() > 12 { format!(", ... ({} entries)", t.len()) } else { String::new() };
                    let tag = if k == last { "  [gather]" } else { "" };
                    writeln!(f, "{pad}  in += table[y{k}] = [{}{more}]{tag}", shown.join(", "))?;
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
    use crate::plan::{AxisRead, Window};

    fn plan(dtype: DType, shape: &[u64], axes: &[(u64, i64, i64)], mode: BoundaryMode) -> SlicePlan {
        SlicePlan {
            dtype,
            input_shape: shape.to_vec(),
            axes: axes.iter().map(|&(extent, start, step)| AxisRead { extent, start, step }).collect(),
            mode,
            fill_bits: 0,
            output_shape: axes.iter().map(|a| a.0).collect(),
            windows: Vec::new(),
        }
    }

    /// Evaluate a nest element by element (the naive walk) and compare with the formula.
    fn check_against_formula(p: &SlicePlan) {
        let nest = slice(p).unwrap();
        let mut got: Vec<Option<i128>> = Vec::new();
        fn walk(nest: &LoopNest, k: usize, acc: Option<i128>, got: &mut Vec<Option<i128>>) {
            if k == nest.dims.len() {
                got.push(acc);
                return;
            }
            let dim = &nest.dims[k];
            let mut each = |c: Option<i64>| walk(nest, k + 1, acc.zip(c).map(|(a, c)| a + c as i128), got);
            match &dim.indexing {
                Indexing::Segments(segs) => {
                    for s in segs {
                        match *s {
                            Segment::Fill { len } => (0..len).for_each(|_| each(None)),
                            Segment::Affine { len, offset, stride } => {
                                (0..len as i64).for_each(|j| each(Some(offset + stride * j)))
                            }
                        }
                    }
                }
                Indexing::Table(t) => t.iter().for_each(|&o| each(o)),
            }
        }
        if !nest.dims.is_empty() {
            walk(&nest, 0, Some(nest.base as i128), &mut got);
        }
        let core = p.core_shape();
        let n = crate::tensor::volume(&core).unwrap();
        assert_eq!(got.len() as u64, n);
        let rank = core.len();
        let mut strides = vec![1i128; rank];
        for k in (0..rank.saturating_sub(1)).rev() {
            strides[k] = strides[k + 1] * p.input_shape[k + 1] as i128;
        }
        for (i, g) in got.iter().enumerate() {
            let mut rem = i as u64;
            let mut want = Some(0i128);
            for k in (0..rank).rev() {
                let y = rem % core[k];
                rem /= core[k];
                let window = p.window(k);
                let z = p.mode.source_index(p.axes[k].x(y) as i64, window.len);
                want = want.zip(z).map(|(w, z)| w + (window.lo + z) as i128 * strides[k]);
            }
            assert_eq!(*g, want, "element {i} of {p:?}\n{nest}");
        }
    }

    const BORDER_MODES: [BoundaryMode; 5] =
        [BoundaryMode::Wrap, BoundaryMode::Clamp, BoundaryMode::Fill, BoundaryMode::Reflect, BoundaryMode::Symmetric];

    #[test]
    fn every_mode_matches_the_formula_on_small_axes() {
        for mode in BORDER_MODES {
            for d in 1..6u64 {
                for start in -13..13i64 {
                    for step in -7..8i64 {
                        for n in [1u64, 2, 5, 17] {
                            check_against_formula(&plan(DType::F32, &[2, d], &[(2, 0, 1), (n, start, step)], mode));
                        }
                    }
                }
            }
        }
    }

    /// A window of the axis (a pad that crops first): the mode sees only the window.
    #[test]
    fn windows_match_the_formula() {
        for mode in BORDER_MODES {
            for (lo, len) in [(0, 1), (1, 3), (2, 2), (4, 1), (0, 5), (3, 2)] {
                for start in -9..9i64 {
                    for step in [-3, -1, 0, 1, 2] {
                        for n in [1u64, 4, 13] {
                            let mut p = plan(DType::I16, &[3, 5], &[(2, 1, -1), (n, start, step)], mode);
                            p.windows = vec![Window { lo: 1, len: 2 }, Window { lo, len }];
                            check_against_formula(&p);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn windows_outside_the_input_are_refused() {
        let mut p = plan(DType::F32, &[4], &[(2, 0, 1)], BoundaryMode::Wrap);
        p.windows = vec![Window { lo: 3, len: 2 }];
        assert!(slice(&p).is_err());
        p.windows = vec![Window { lo: 0, len: 4 }, Window { lo: 0, len: 1 }];
        assert!(slice(&p).is_err());
        p.windows = vec![Window { lo: u64::MAX, len: 2 }];
        assert!(slice(&p).is_err());
    }

    #[test]
    fn symmetric_repeats_the_edge_on_every_bounce() {
        // numpy.pad([0, 1, 2], (7, 4), "symmetric")
        let p = plan(DType::U8, &[3], &[(14, -7, 1)], BoundaryMode::Symmetric);
        let z: Vec<u64> = (0..14).map(|y| p.mode.source_index(p.axes[0].x(y) as i64, 3).unwrap()).collect();
        assert_eq!(z, [0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0]);
        check_against_formula(&p);
        assert_eq!(BoundaryMode::Symmetric.period(3), Some(6));
        assert_eq!(BoundaryMode::Reflect.period(1), Some(1));
        assert_eq!(BoundaryMode::Reflect.period(4), Some(6));
        assert_eq!(BoundaryMode::Wrap.period(4), Some(4));
        assert_eq!(BoundaryMode::Clamp.period(4), None);
    }

    #[test]
    fn interior_is_one_segment_and_borders_are_few() {
        for mode in BORDER_MODES {
            let p =
                plan(DType::F32, &[1, 3, 1024, 1024], &[(1, 0, 1), (3, 0, 1), (1056, -16, 1), (1056, -16, 1)], mode);
            let nest = slice(&p).unwrap();
            assert_eq!(nest.dims.len(), 3, "{nest}");
            let segs = nest.dims[2].segments().unwrap();
            assert_eq!(segs.len(), 3, "{nest}");
            assert_eq!(segs[1].len(), if mode == BoundaryMode::Reflect { 1023 } else { 1024 }, "{nest}");
        }
    }

    #[test]
    fn contiguous_axes_merge() {
        let nest =
            slice(&plan(DType::F32, &[4096, 4096], &[(2048, 0, 1), (4096, 0, 1)], BoundaryMode::StrictBounds)).unwrap();
        assert_eq!(nest.dims.len(), 1);
        assert_eq!(nest.dims[0].segments().unwrap()[0].run(), Run::Copy);
        let nest =
            slice(&plan(DType::F32, &[4096, 4096], &[(4096, 0, 1), (2048, 0, 2)], BoundaryMode::StrictBounds)).unwrap();
        assert_eq!(nest.dims.len(), 1);
        assert_eq!(nest.dims[0].segments().unwrap()[0].run(), Run::Strided(2));
    }

    #[test]
    fn many_segments_become_tables() {
        let p = plan(DType::U8, &[3, 2], &[(40, 0, 1), (40, 0, 1)], BoundaryMode::Wrap);
        let nest = slice(&p).unwrap();
        assert!(nest.dims.iter().all(|d| matches!(d.indexing, Indexing::Table(_))), "{nest}");
        check_against_formula(&p);
    }

    #[test]
    fn out_of_bounds_strict_plans_are_refused() {
        let p = plan(DType::F32, &[3], &[(4, 0, 1)], BoundaryMode::StrictBounds);
        assert!(slice(&p).is_err());
    }

    #[test]
    fn f32_exactness() {
        assert!(f32_exact(0.0, &[4096.0, 1.0], &[4096, 4096]));
        assert!(!f32_exact(0.0, &[4097.0, 1.0], &[4096, 4096]));
        assert!(f32_exact(0.5, &[0.25], &[100]));
        assert!(!f32_exact(0.1, &[1.0], &[10]));
        assert!(!f32_exact(-0.0, &[1.0], &[10]));
    }

    /// The fixed matrix of loop nests, pinned (review changes with `cargo insta review`).
    #[test]
    fn loop_nest_snapshots() {
        use BoundaryMode::*;
        let mut fill1 = plan(DType::F32, &[2, 2], &[(3, 0, 1), (3, 0, 1)], Fill);
        fill1.fill_bits = 1.0f32.to_bits() as u128;
        let cases: Vec<(&str, SlicePlan)> = vec![
            ("trt_seed_3x3_to_2x2", plan(DType::F32, &[3, 3], &[(2, 0, 1), (2, 0, 1)], StrictBounds)),
            ("trt_seed_fill_2x2_to_3x3", fill1),
            ("w1_rows", plan(DType::F32, &[4096, 4096], &[(2048, 0, 1), (4096, 0, 1)], StrictBounds)),
            ("w2_columns", plan(DType::F32, &[4096, 4096], &[(4096, 0, 1), (2048, 1024, 1)], StrictBounds)),
            ("w3_stride2", plan(DType::F32, &[4096, 4096], &[(4096, 0, 1), (2048, 0, 2)], StrictBounds)),
            ("w4_reverse", plan(DType::F32, &[4096, 4096], &[(4096, 0, 1), (4096, 4095, -1)], StrictBounds)),
            (
                "w5_fill",
                plan(DType::F32, &[1, 3, 1024, 1024], &[(1, 0, 1), (3, 0, 1), (1056, -16, 1), (1056, -16, 1)], Fill),
            ),
            (
                "w5_clamp",
                plan(DType::F32, &[1, 3, 1024, 1024], &[(1, 0, 1), (3, 0, 1), (1056, -16, 1), (1056, -16, 1)], Clamp),
            ),
            (
                "w5_wrap",
                plan(DType::F32, &[1, 3, 1024, 1024], &[(1, 0, 1), (3, 0, 1), (1056, -16, 1), (1056, -16, 1)], Wrap),
            ),
            (
                "w5_reflect",
                plan(DType::F32, &[1, 3, 1024, 1024], &[(1, 0, 1), (3, 0, 1), (1056, -16, 1), (1056, -16, 1)], Reflect),
            ),
            (
                "w7_shrink",
                plan(
                    DType::F32,
                    &[1, 2, 384, 640, 8],
                    &[(1, 0, 1), (1, 1, 1), (384, 0, 1), (640, 0, 1), (8, 0, 1)],
                    StrictBounds,
                ),
            ),
            ("w8_int4_columns", plan(DType::I4, &[4096, 4096], &[(4096, 0, 1), (4095, 1, 1)], StrictBounds)),
            ("reflect_bounces", plan(DType::U8, &[3], &[(12, -5, 1)], Reflect)),
            ("symmetric_bounces", plan(DType::U8, &[3], &[(12, -5, 1)], Symmetric)),
            (
                "p2_symmetric",
                plan(
                    DType::F32,
                    &[1, 3, 1024, 1024],
                    &[(1, 0, 1), (3, 0, 1), (1056, -16, 1), (1056, -16, 1)],
                    Symmetric,
                ),
            ),
            ("symmetric_negative_step", plan(DType::I16, &[5, 4], &[(7, 9, -2), (6, -3, 3)], Symmetric)),
            ("onnx_crop_then_reflect", {
                // onnx.pad reflect (-1, +2) on [1, 2, 3]: the mode sees the window [1, 3).
                let mut p = plan(DType::I32, &[3], &[(4, 0, 1)], Reflect);
                p.windows = vec![Window { lo: 1, len: 2 }];
                p
            }),
            ("wrap_negative_step", plan(DType::I16, &[5, 4], &[(7, 9, -2), (6, -3, 3)], Wrap)),
            ("clamp_zero_step", plan(DType::C128, &[4, 4], &[(3, 7, 0), (5, -2, 1)], Clamp)),
            ("fill_far_outside", plan(DType::F64, &[4, 4], &[(3, 100, 1), (5, 0, 1)], Fill)),
            ("fill_empty_input_axis", plan(DType::F16, &[0, 4], &[(2, 0, 1), (3, 0, 1)], Fill)),
            ("empty_output", plan(DType::F32, &[4, 4], &[(0, 0, 1), (4, 0, 1)], StrictBounds)),
            ("scalar", plan(DType::I64, &[], &[], StrictBounds)),
            ("wrap_table", plan(DType::U8, &[3, 2], &[(40, 0, 1), (40, 0, 1)], Wrap)),
            ("reflect_outer_table", plan(DType::U8, &[2, 3, 8], &[(20, 0, 1), (20, 0, 1), (8, 0, 1)], Reflect)),
        ];
        for (name, p) in cases {
            let nest = slice(&p).unwrap();
            insta::assert_snapshot!(format!("loop_nest_{name}"), nest.to_string());
        }
        let fills = vec![
            (
                "linspace_f32_exact",
                FillPlan {
                    dtype: DType::F32,
                    shape: vec![4096, 4096],
                    kind: FillKind::Linspace(Linspace::Float { alpha: 0.0, beta: vec![4096.0, 1.0] }),
                },
            ),
            (
                "linspace_f64",
                FillPlan {
                    dtype: DType::F32,
                    shape: vec![2, 3],
                    kind: FillKind::Linspace(Linspace::Float { alpha: 0.1, beta: vec![0.3, 0.7] }),
                },
            ),
            (
                "linspace_i32",
                FillPlan {
                    dtype: DType::I32,
                    shape: vec![2, 1, 3],
                    kind: FillKind::Linspace(Linspace::Int { alpha: 5, beta: vec![3, 9, 1] }),
                },
            ),
            (
                "random_normal",
                FillPlan {
                    dtype: DType::F16,
                    shape: vec![7, 9],
                    kind: FillKind::RandomNormal { alpha: 1.0, beta: 2.0, seed: 42 },
                },
            ),
        ];
        for (name, p) in fills {
            insta::assert_snapshot!(format!("fill_nest_{name}"), fill(&p).unwrap().to_string());
        }
    }
}
