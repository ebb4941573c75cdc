//! The canonical, vendor-free Plan every frontend lowers to and every backend runs.

use crate::dtype::{DType, Layout};
use crate::error::Error;
use crate::tensor::volume;
use std::fmt;
use std::sync::Arc;

/// What happens when an output element reads outside the input.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BoundaryMode {
    /// Out-of-range reads are refused at plan time.
    StrictBounds,
    /// z = x mod d (floor modulo).
    Wrap,
    /// z = min(max(x, 0), d-1).
    Clamp,
    /// The fill value where any axis reads outside [0, d).
    Fill,
    /// numpy `reflect` (edge not repeated), with repeated bounces.
    Reflect,
    /// numpy `symmetric` (OpenCV BORDER_REFLECT: the edge repeated), with repeated bounces.
    Symmetric,
}

impl BoundaryMode {
    /// Every mode, in declaration order.
    pub const ALL: [BoundaryMode; 6] = [
        BoundaryMode::StrictBounds,
        BoundaryMode::Wrap,
        BoundaryMode::Clamp,
        BoundaryMode::Fill,
        BoundaryMode::Reflect,
        BoundaryMode::Symmetric,
    ];
    /// The mode's name in specs, requests and messages (`"strict_bounds"`, `"wrap"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            BoundaryMode::StrictBounds => "strict_bounds",
            BoundaryMode::Wrap => "wrap",
            BoundaryMode::Clamp => "clamp",
            BoundaryMode::Fill => "fill",
            BoundaryMode::Reflect => "reflect",
            BoundaryMode::Symmetric => "symmetric",
        }
    }
    /// The mode named `s` (see [`BoundaryMode::name`]); `None` for an unknown name.
    pub fn from_name(s: &str) -> Option<BoundaryMode> {
        BoundaryMode::ALL.into_iter().find(|m| m.name() == s)
    }

    /// The input coordinate read for x on an axis of extent d, or `None` for "outside"
    /// (fill, and strict_bounds, which the frontend has already ruled out; and every x of
    /// an empty axis, d = 0, which has no coordinate in any mode).
    /// This is the formula of specs/SEMANTICS.md, written once.
    pub fn source_index(self, x: i64, d: u64) -> Option<u64> {
        if d == 0 {
            return None;
        }
        let d = d as i128;
        let x = x as i128;
        let z = match self {
            BoundaryMode::StrictBounds | BoundaryMode::Fill => {
                if x < 0 || x >= d {
                    return None;
                }
                x
            }
            BoundaryMode::Wrap => x.rem_euclid(d),
            BoundaryMode::Clamp => x.clamp(0, d - 1),
            BoundaryMode::Reflect => {
                if d == 1 {
                    0
                } else {
                    let p = 2 * d - 2;
                    let c = x.abs() % p;
                    if c >= d { p - c } else { c }
                }
            }
            BoundaryMode::Symmetric => {
                let z = x.rem_euclid(2 * d);
                if z >= d { 2 * d - 1 - z } else { z }
            }
        };
        Some(z as u64)
    }

    /// The period of the mode's formula in x on an axis of extent d > 0
    /// (`source_index(x + p) = source_index(x)` for every x), `None` for modes that do not
    /// repeat: wrap d, reflect 2d − 2 (d = 1: 1, every x reads 0), symmetric 2d. The
    /// schedule repeats an axis's segments with it instead of listing every output position.
    pub fn period(self, d: u64) -> Option<u128> {
        let d = d as u128;
        match self {
            BoundaryMode::Wrap => Some(d),
            BoundaryMode::Reflect => Some((2 * d).saturating_sub(2).max(1)),
            BoundaryMode::Symmetric => Some(2 * d),
            BoundaryMode::StrictBounds | BoundaryMode::Clamp | BoundaryMode::Fill => None,
        }
    }
}

impl fmt::Display for BoundaryMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How one input axis is read: output coordinate y in [0, extent) reads x = start + y·step.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct AxisRead {
    /// The number of output positions (the core axis's extent).
    pub extent: u64,
    /// The coordinate position 0 reads; may be outside the axis.
    pub start: i64,
    /// The coordinate step between positions: negative reads backwards, 0 broadcasts.
    pub step: i64,
}

impl AxisRead {
    /// The coordinate read at output position y, exactly (i128: never wraps).
    pub fn x(&self, y: u64) -> i128 {
        self.start as i128 + y as i128 * self.step as i128
    }
}

/// A source axis read through a list of coordinates (Gather): core position y of
/// `axis` reads coordinate `coords[start + y·step]` — the axis's [`AxisRead`] indexes the
/// list — which the plan's mode then sees as it sees any other axis's x (counted from the
/// axis's window). Shared, so that plans and the tables built from them copy no entries.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Gathered {
    /// The source axis gathered.
    pub axis: usize,
    /// The coordinates, as the frontend resolved the gather's indices (negative ones
    /// counted from the end); the mode decides what one outside the axis reads (frontends
    /// write -1 where a vendor's gather reads a zero, in fill mode).
    pub coords: Arc<[i64]>,
}

/// The part of an input axis a boundary mode sees: `len` elements from element `lo`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Window {
    /// The window's first element on the axis.
    pub lo: u64,
    /// The window's number of elements; 0 leaves the mode nothing to read.
    pub len: u64,
}

/// A move of one input: every single-input data-movement op lowers to this. The input is
/// read as `source_shape` (a row-major reshape of it: the same elements in the same
/// order), each source axis through one [`AxisRead`] and the plan's boundary mode; the
/// core output has one axis per source axis, in the order `order` gives (a permutation);
/// shrunk and inserted axes, and any other reshape, are a reshape of the core output into
/// `output_shape`. Slices and pads read in source order with the source the input;
/// Transpose permutes, Reshape/Squeeze/Unsqueeze/Flatten reshape, Expand broadcasts
/// (step 0), Tile and Roll wrap, DepthToSpace reshapes, permutes and reshapes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    /// The element type, the same in the input and the output.
    pub dtype: DType,
    /// The input's shape.
    pub input_shape: Vec<u64>,
    /// The input read as this shape, a row-major reshape of `input_shape`. Empty:
    /// `input_shape` itself (the usual case; frontends leave it empty then).
    pub source_shape: Vec<u64>,
    /// One per source axis.
    pub axes: Vec<AxisRead>,
    /// Core axis j reads source axis `order[j]`: a permutation of the source axes.
    /// Empty: source order (frontends leave it empty then).
    pub order: Vec<usize>,
    /// What a read outside an axis (or its window) yields.
    pub mode: BoundaryMode,
    /// Element bits of the fill value (low bytes; low nibble for i4/u4). 0 unless mode is fill.
    pub fill_bits: u128,
    /// The final output shape: the axes' extents, reshaped for shrink/new axes.
    pub output_shape: Vec<u64>,
    /// Per source axis, the window its boundary mode sees: x counts from the window's
    /// first element and the mode's extent is the window's length. A pad that crops
    /// before it pads (ONNX Pad's negative pads) reads a window of the axis. Empty:
    /// every axis whole, the usual case (frontends leave it empty then).
    pub windows: Vec<Window>,
    /// The source axis read through a list of coordinates (Gather), if any.
    pub gathered: Option<Gathered>,
}

impl Step {
    /// The step's map (a one-step [`crate::map::compose`]): what every backend runs.
    pub fn map(&self) -> Result<crate::map::Map, Error> {
        crate::map::Map::of(&Plan::Step(self.clone()))
    }
    /// The shape the input is read as (see [`Step::source_shape`]).
    pub fn source(&self) -> &[u64] {
        if self.source_shape.is_empty() { &self.input_shape } else { &self.source_shape }
    }
    /// The source axis core axis `j` reads (see [`Step::order`]).
    pub fn source_axis(&self, j: usize) -> usize {
        self.order.get(j).copied().unwrap_or(j)
    }
    /// Whether the plan reads its input as it is: no reshape of the input, no permutation.
    pub fn reads_in_place(&self) -> bool {
        self.source() == self.input_shape.as_slice() && is_identity(&self.order)
    }
    /// Set how the input is read — as `source`, its core axes in `order` — storing the
    /// empty forms where they say nothing (the source the input, the order the identity).
    pub fn set_reading(&mut self, source: Vec<u64>, order: Vec<usize>) {
        self.source_shape = if source == self.input_shape { Vec::new() } else { source };
        self.order = if is_identity(&order) { Vec::new() } else { order };
    }
    /// The coordinate source axis `k` reads at its core position `y`: `start + y·step`,
    /// or for the gathered axis the list's entry there (see [`Gathered`]); `None` for an
    /// entry past the list (only in a plan that fails `validate`). Exact: never wraps.
    pub fn x(&self, k: usize, y: u64) -> Option<i128> {
        let a = self.axes.get(k)?;
        match &self.gathered {
            Some(g) if g.axis == k => {
                let i = usize::try_from(a.x(y)).ok()?;
                g.coords.get(i).map(|&c| c as i128)
            }
            _ => Some(a.x(y)),
        }
    }
    /// Whether source axis `k` is read through a list of coordinates.
    pub fn gathers(&self, k: usize) -> bool {
        self.gathered.as_ref().is_some_and(|g| g.axis == k)
    }
    /// The window of source axis `k` (the whole axis when the plan has none).
    pub fn window(&self, k: usize) -> Window {
        // (An axis past the rank, only in a plan that fails `validate`, is an empty window.)
        let whole = Window { lo: 0, len: self.source().get(k).copied().unwrap_or(0) };
        self.windows.get(k).copied().unwrap_or(whole)
    }
    /// Whether the windows are well formed: none, or one per source axis inside it.
    pub fn windows_fit(&self) -> bool {
        self.windows.is_empty()
            || (self.windows.len() == self.source().len()
                && self
                    .windows
                    .iter()
                    .zip(self.source())
                    .all(|(w, &d)| w.lo.checked_add(w.len).is_some_and(|e| e <= d)))
    }
    /// The core output's shape: the axes' extents in core order. (An order naming an axis
    /// the plan lacks, only in a plan that fails `validate`, gives that axis extent 0.)
    pub fn core_shape(&self) -> Vec<u64> {
        (0..self.axes.len()).map(|j| self.axes.get(self.source_axis(j)).map_or(0, |a| a.extent)).collect()
    }
    /// The number of output elements (0 if it overflows, only in a plan that fails
    /// `validate`).
    pub fn output_len(&self) -> u64 {
        crate::tensor::volume(&self.output_shape).unwrap_or(0)
    }
    /// The number of input elements (0 if it overflows, only in a plan that fails
    /// `validate`).
    pub fn input_len(&self) -> u64 {
        crate::tensor::volume(&self.input_shape).unwrap_or(0)
    }

    /// Check that the plan's fields agree with each other, so that a backend may trust
    /// them: one axis per input axis, output and input volumes that fit i64, an output
    /// shape that is a reshape of the axes' extents, fill bits within the element width
    /// (in fill mode, the only one that reads them), every coordinate read representable in i64, in bounds in
    /// `strict_bounds` mode, windows inside their axes, and no read of an empty axis
    /// (window) outside `fill` mode. O(rank).
    /// The frontends only produce valid plans; the fields are public, so every public
    /// entry that takes a plan (schedule, reference, JIT) calls this first.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |what: String| Err(Error::Invalid { what: format!("step: {what}") });
        let rank = self.source().len();
        if self.axes.len() != rank {
            return bad(format!("{} axes for a source of rank {rank} (one per source axis)", self.axes.len()));
        }
        if !self.order.is_empty() {
            let mut seen = vec![false; rank];
            let permutes = self.order.len() == rank
                && self.order.iter().all(|&k| k < rank && !std::mem::replace(&mut seen[k], true));
            if !permutes {
                return bad(format!("order {:?} is not a permutation of the {rank} source axes", self.order));
            }
        }
        // The sizes are multiplied from the outermost axis on; an empty axis ends the count
        // (its volume is 0: the reference and the schedule never form the strides inside
        // it), so [0, 2^40, 2^40] is valid and [2^40, 2^40, 0] is refused.
        if volume(&self.input_shape).is_none_or(|n| n > i64::MAX as u64) {
            let what = if self.input_shape.contains(&0) {
                "the sizes of the axes outside its first empty axis multiply to more than 2^63"
            } else {
                "it has more than 2^63 elements"
            };
            return bad(format!("input shape {:?}: {what}", self.input_shape));
        }
        if !self.source_shape.is_empty() {
            // Row-major reshapes keep every element where it is: only the volume must agree.
            if volume(&self.source_shape) != volume(&self.input_shape) {
                return bad(format!(
                    "source_shape {:?} is not a reshape of the input shape {:?}",
                    self.source_shape, self.input_shape
                ));
            }
        }
        let core = self.core_shape();
        let core_len = match core_volume(&core, &self.output_shape) {
            Ok(n) => n,
            Err(what) => return bad(what),
        };
        // Outside fill mode the fill value is never read (and backends ignore it).
        if self.mode == BoundaryMode::Fill && !fill_bits_fit(self.dtype, self.fill_bits) {
            return bad(format!("fill_bits {:#x} do not fit one {} element", self.fill_bits, self.dtype));
        }
        if !self.windows_fit() {
            return bad(format!(
                "windows {:?} are not one per source axis inside the source shape {:?}",
                self.windows,
                self.source()
            ));
        }
        if let Some(g) = &self.gathered
            && g.axis >= rank
        {
            return bad(format!("gathered axis {} of a source of rank {rank}", g.axis));
        }
        if core_len == 0 {
            return Ok(());
        }
        for (k, a) in self.axes.iter().enumerate() {
            // The mode sees the axis's window; x counts from its first element.
            let d = self.window(k).len;
            // x is affine in y: its extremes are the first and last positions.
            let (first, last) = (a.x(0), a.x(a.extent - 1));
            for x in [first, last] {
                if i64::try_from(x).is_err() {
                    return bad(format!("axis {k} reads coordinate {x}, which overflows i64"));
                }
            }
            let (first, last) = match &self.gathered {
                Some(g) if g.axis == k => {
                    // The positions index the list: inside it, and the coordinates' extremes
                    // are those of the entries read (an affine run of the list).
                    let n = g.coords.len() as i128;
                    if first.min(last) < 0 || first.max(last) >= n {
                        return bad(format!(
                            "gathered axis {k} reads entries {}..={} of a list of {n} coordinates",
                            first.min(last),
                            first.max(last)
                        ));
                    }
                    let (i, s) = (first as usize, a.step as i128);
                    let read = (0..a.extent).map(|y| g.coords[(i as i128 + s * y as i128) as usize] as i128);
                    read.fold((i128::MAX, i128::MIN), |(lo, hi), x| (lo.min(x), hi.max(x)))
                }
                _ => (first, last),
            };
            if d == 0 && self.mode != BoundaryMode::Fill {
                return bad(format!(
                    "axis {k} of the input is empty but the output reads {} positions of it in mode {}",
                    a.extent, self.mode
                ));
            }
            let (lo, hi) = (first.min(last), first.max(last));
            if self.mode == BoundaryMode::StrictBounds && (lo < 0 || hi >= d as i128) {
                return bad(format!("axis {k} reads coordinates {lo}..={hi} outside [0, {d}) in mode strict_bounds"));
            }
        }
        Ok(())
    }
}

/// Whether `bits` are the bits of one element of `dtype`: within its width (strings: 0,
/// the empty string), and 0 or 1 for bool (callers may view outputs as Rust `bool`s).
pub(crate) fn fill_bits_fit(dtype: DType, bits: u128) -> bool {
    let width_bits = match dtype.layout() {
        Layout::Bytes(w) => 8 * w as u32,
        Layout::Nibbles => 4,
        Layout::Strings => 0,
    };
    if dtype == DType::Bool { bits <= 1 } else { width_bits >= 128 || bits >> width_bits == 0 }
}

/// Whether `order` keeps every axis where it is (the identity; empty included).
pub fn is_identity(order: &[usize]) -> bool {
    order.iter().enumerate().all(|(j, &k)| j == k)
}

/// The element count of `core` (the axes' extents), which `output_shape` must reshape:
/// at most 2^63, or what is wrong, for a plan's or a chain's `validate`.
pub(crate) fn core_volume(core: &[u64], output_shape: &[u64]) -> Result<u64, String> {
    let Some(core_len) = volume(core).filter(|&n| n <= i64::MAX as u64) else {
        return Err(format!("the axes' extents {core:?} make more than 2^63 elements"));
    };
    if volume(output_shape) != Some(core_len) {
        return Err(format!(
            "output_shape {output_shape:?} is not a reshape of the axes' extents {core:?} ({core_len} elements)"
        ));
    }
    Ok(core_len)
}

/// Linspace coefficients: `out[a] = alpha + Σk beta[k]·a_k`.
#[derive(Clone, Debug, PartialEq)]
pub enum Linspace {
    /// Integer outputs: exact; the frontend has checked every value fits.
    Int {
        /// The value of element (0, …, 0).
        alpha: i64,
        /// The increment along each output axis, one per axis.
        beta: Vec<i64>,
    },
    /// f32 output: the sum in f64, k = 0..n-1 in order, rounded once to f32.
    Float {
        /// The value of element (0, …, 0), before rounding.
        alpha: f64,
        /// The increment along each output axis, one per axis.
        beta: Vec<f64>,
    },
}

/// What a fill op computes.
#[derive(Clone, Debug, PartialEq)]
pub enum FillKind {
    /// An affine function of the element's multi-index.
    Linspace(Linspace),
    /// Values in [alpha, beta), computed in f32 (see `random`).
    RandomUniform {
        /// The lowest value.
        alpha: f32,
        /// The bound no value reaches.
        beta: f32,
        /// The Philox key: the same seed gives the same values on every backend.
        seed: u64,
    },
    /// Mean alpha, standard deviation beta, computed in f32 (see `random`).
    RandomNormal {
        /// The mean.
        alpha: f32,
        /// The standard deviation.
        beta: f32,
        /// The Philox key: the same seed gives the same values on every backend.
        seed: u64,
    },
}

impl FillKind {
    /// The dtypes a fill of this kind produces: the IR's contract, which every backend
    /// implements and no frontend exceeds (tensorrt.fill's spec rules `linspace_types` and
    /// `random_types` say the same; a test holds them equal).
    pub fn dtypes(&self) -> &'static [DType] {
        match self {
            FillKind::Linspace(Linspace::Int { .. }) => &[DType::I32, DType::I64],
            FillKind::Linspace(Linspace::Float { .. }) => &[DType::F32],
            FillKind::RandomUniform { .. } | FillKind::RandomNormal { .. } => &[DType::F32, DType::F16],
        }
    }

    /// The kind's name, for messages.
    pub fn name(&self) -> &'static str {
        match self {
            FillKind::Linspace(Linspace::Int { .. }) => "integer linspace",
            FillKind::Linspace(Linspace::Float { .. }) => "float linspace",
            FillKind::RandomUniform { .. } => "random_uniform",
            FillKind::RandomNormal { .. } => "random_normal",
        }
    }
}

/// A fill: an output computed from its position alone, reading no input.
#[derive(Clone, Debug, PartialEq)]
pub struct FillPlan {
    /// The output's element type (one of [`FillKind::dtypes`]).
    pub dtype: DType,
    /// The output's shape.
    pub shape: Vec<u64>,
    /// What each element's value is.
    pub kind: FillKind,
}

impl FillPlan {
    /// The number of output elements (0 if it overflows, only in a plan that fails
    /// `validate`).
    pub fn output_len(&self) -> u64 {
        crate::tensor::volume(&self.shape).unwrap_or(0)
    }

    /// Check that the plan's fields agree with each other (see [`Step::validate`]):
    /// a volume that fits i64; for linspaces one beta per axis, an integer dtype for
    /// integer coefficients (every value in its range) and f32 for float ones; for
    /// random fills f32 or f16. O(rank).
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |what: String| Err(Error::Invalid { what: format!("fill plan: {what}") });
        let Some(len) = volume(&self.shape).filter(|&n| n <= i64::MAX as u64) else {
            return bad(format!("shape {:?} has more than 2^63 elements", self.shape));
        };
        let rank = self.shape.len();
        let dtypes = self.kind.dtypes();
        if !dtypes.contains(&self.dtype) {
            let names: Vec<&str> = dtypes.iter().map(|d| d.name()).collect();
            return bad(format!("{} fills have dtype {}, not {}", self.kind.name(), names.join(" or "), self.dtype));
        }
        match &self.kind {
            FillKind::Linspace(Linspace::Int { alpha, beta }) => {
                if beta.len() != rank {
                    return bad(format!("linspace beta has {} entries for an output of rank {rank}", beta.len()));
                }
                let (tmin, tmax) = self.dtype.int_range().unwrap_or((0, 0));
                if len > 0 {
                    let (lo, hi) = int_linspace_span(*alpha, beta, &self.shape);
                    if lo < tmin || hi > tmax {
                        return bad(format!(
                            "linspace values span [{lo}, {hi}], outside {}'s range [{tmin}, {tmax}]",
                            self.dtype
                        ));
                    }
                }
            }
            FillKind::Linspace(Linspace::Float { beta, .. }) => {
                if beta.len() != rank {
                    return bad(format!("linspace beta has {} entries for an output of rank {rank}", beta.len()));
                }
            }
            // The parameter rules (alpha < beta, beta ≥ 0) are the frontend's: any numbers
            // give the same values on every backend.
            FillKind::RandomUniform { .. } | FillKind::RandomNormal { .. } => {}
        }
        Ok(())
    }
}

/// The smallest and largest value of the integer linspace `alpha + Σk beta[k]·a_k` over
/// a non-empty box of `shape`: an affine map takes its extremes at the box's corners.
pub fn int_linspace_span(alpha: i64, beta: &[i64], shape: &[u64]) -> (i128, i128) {
    let (mut lo, mut hi) = (alpha as i128, alpha as i128);
    for (&b, &d) in beta.iter().zip(shape) {
        let span = b as i128 * (d as i128 - 1);
        if span < 0 { lo += span } else { hi += span }
    }
    (lo, hi)
}

/// A lowered request.
#[derive(Clone, Debug, PartialEq)]
pub enum Plan {
    /// A move of one input.
    Step(Step),
    /// A fill, which reads no input.
    Fill(FillPlan),
}

impl Plan {
    /// The copy of a whole tensor of `shape`: every element read in order (a move that
    /// writes a tensor into a box of another).
    pub fn copy(dtype: DType, shape: &[u64]) -> Plan {
        let axes = shape.iter().map(|&extent| AxisRead { extent, start: 0, step: 1 }).collect();
        crate::frontend::in_bounds_slice(dtype, shape.to_vec(), axes, shape.to_vec())
    }

    /// The output's element type.
    pub fn dtype(&self) -> DType {
        match self {
            Plan::Step(s) => s.dtype,
            Plan::Fill(f) => f.dtype,
        }
    }
    /// The output's shape.
    pub fn output_shape(&self) -> &[u64] {
        match self {
            Plan::Step(s) => &s.output_shape,
            Plan::Fill(f) => &f.shape,
        }
    }
    /// Check that the plan's fields agree with each other (see [`Step::validate`],
    /// [`FillPlan::validate`]).
    pub fn validate(&self) -> Result<(), Error> {
        match self {
            Plan::Step(p) => p.validate(),
            Plan::Fill(p) => p.validate(),
        }
    }
    /// The data input's shape, for slices.
    pub fn input_shape(&self) -> Option<&[u64]> {
        match self {
            Plan::Step(s) => Some(&s.input_shape),
            Plan::Fill(_) => None,
        }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Plan::Step(s) => {
                write!(f, "step {} {:?} -> {:?} mode {}", s.dtype, s.input_shape, s.output_shape, s.mode)?;
                if !s.reads_in_place() {
                    write!(f, "\n  read as {:?}, core axes from source axes {:?}", s.source(), s.order)?;
                }
                for (i, a) in s.axes.iter().enumerate() {
                    match &s.gathered {
                        Some(g) if g.axis == i => write!(
                            f,
                            "\n  axis {i}: x = coords[{} + y*{}] for y < {} ({} coordinates)",
                            a.start,
                            a.step,
                            a.extent,
                            g.coords.len()
                        )?,
                        _ => write!(f, "\n  axis {i}: x = {} + y*{} for y < {}", a.start, a.step, a.extent)?,
                    }
                    if let Some(w) = s.windows.get(i).filter(|w| w.lo != 0 || Some(&w.len) != s.source().get(i)) {
                        write!(f, " in the window [{}, {})", w.lo, w.lo as u128 + w.len as u128)?;
                    }
                }
                if s.mode == BoundaryMode::Fill {
                    write!(f, "\n  fill = {}", crate::scalar::format_bits(s.dtype, s.fill_bits))?;
                }
                Ok(())
            }
            Plan::Fill(p) => write!(f, "fill {} {:?} {:?}", p.dtype, p.shape, p.kind),
        }
    }
}
