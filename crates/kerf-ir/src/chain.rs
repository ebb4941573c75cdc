//! Chains: requests run one after another, each step reading the previous step's output
//! as its data input, and their composition into one fused map.
//!
//! Lowering ([`lower_chain`]) validates each step exactly as if it ran alone on its
//! input (dtype and shape of the previous output), so a chain errs where the unfused run
//! would; the error names the step ([`Error::Step`]).
//!
//! Composition ([`compose`]) follows every output axis down through the steps. A step
//! reads its input axis k at `x = start + step·y` through its boundary mode; applied to
//! an affine run of positions `y = z0 + dz·j` that is again an affine read, which the
//! schedule's per-axis segmentation splits into affine coordinate segments and runs
//! outside the input. So the fused map of an output axis is a list of [`Piece`]s: runs
//! that read an affine run of coordinates of one axis of the chain's head (its input, or
//! the fill at its start) and runs that yield the fill value of the step they fall
//! outside of. Two steps may fill with two values; an element takes the fill value of the
//! latest step any of its axes falls outside of (that step's fill is what the unfused run
//! writes there). Shrunk and new axes are a reshape between steps: non-unit axes pair in
//! order, a unit axis reads its only coordinate 0. An axis whose pieces would exceed
//! [`MAX_SEGMENTS_PER_AXIS`] (periodic modes over periodic modes) becomes a table of one
//! entry per position of its period — at most the axis's output extent, never per
//! output element.

use crate::dtype::DType;
use crate::error::Error;
use crate::frontend;
use crate::plan::{FillPlan, Plan, SlicePlan};
use crate::reference::{fill_element, store_bits, unravel};
use crate::request::{InputArg, Request};
use crate::schedule::{MAX_SEGMENTS_PER_AXIS, axis_coords};
use crate::table::{TableRule, TableStage};
use crate::tensor::{Tensor, TensorView, ViewData, volume};
use std::fmt;

/// A chain: its steps in order. The first names its data input (unless it is a fill);
/// every later step reads the previous step's output and names no data input.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChainRequest {
    pub steps: Vec<Request>,
}

/// The name of an op's data input (the tensor a slice reads): the spec's first input
/// that may have any rank. `None` for ops that read no tensor (fills).
pub fn data_input_name(spec: &kerf_spec::OpSpec) -> Option<&str> {
    spec.data_input().map(|i| i.name.as_str())
}

fn at_step(step: usize, op: &str) -> impl Fn(Error) -> Error + '_ {
    move |e| Error::Step { step, op: op.to_string(), source: Box::new(e) }
}

/// Validate and lower every step on its own input: the first as given, each later one
/// with its data input replaced by the previous step's output (dtype and shape). Errors
/// name the step (from 1).
pub fn lower_chain(chain: &ChainRequest) -> Result<Vec<Plan>, Error> {
    if chain.steps.is_empty() {
        return Err(Error::Invalid { what: "a chain has at least one step".into() });
    }
    let mut plans: Vec<Plan> = Vec::with_capacity(chain.steps.len());
    for (k, step) in chain.steps.iter().enumerate() {
        let wrap = at_step(k + 1, &step.op);
        let plan = match plans.last() {
            None => frontend::lower(step).map_err(&wrap)?,
            Some(prev) => {
                let spec = frontend::spec(&step.op).map_err(&wrap)?;
                let Some(name) = data_input_name(spec) else {
                    return Err(wrap(Error::Invalid {
                        what: format!("{} reads no data input: only the first step of a chain may be a fill", step.op),
                    }));
                };
                if step.inputs.contains_key(name) {
                    return Err(wrap(Error::Invalid {
                        what: format!(
                            "input `{name}` is given, but a step after the first reads the previous step's output as its data input"
                        ),
                    }));
                }
                let mut request = step.clone();
                let data = InputArg::Meta { dtype: prev.dtype(), shape: prev.output_shape().to_vec() };
                request.inputs.insert(name.to_string(), data);
                frontend::lower(&request).map_err(&wrap)?
            }
        };
        plans.push(plan);
    }
    Ok(plans)
}

/// Run the steps one by one with the reference interpreter: the oracle of fused chains.
pub fn evaluate_unfused(plans: &[Plan], input: Option<TensorView<'_>>) -> Result<Tensor, Error> {
    let mut out: Option<Tensor> = None;
    for (k, plan) in plans.iter().enumerate() {
        let data = match &out {
            Some(t) => Some(t.view()),
            None => input,
        };
        out = Some(crate::reference::evaluate(plan, data).map_err(|e| Error::Step {
            step: k + 1,
            op: "reference".into(),
            source: Box::new(e),
        })?);
    }
    out.ok_or_else(|| Error::Invalid { what: "a chain has at least one step".into() })
}

/// What a run of positions of a fused axis yields.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    /// `len` positions; the j-th reads coordinate `z0 + dz·j` of the head's axis
    /// ([`FusedAxis::head_axis`]). A piece of length 1 has `dz` 0.
    Read { len: u64, z0: i64, dz: i64 },
    /// `len` positions outside the input of step `step` (from 1): its fill value.
    Const { len: u64, step: usize },
}

impl Piece {
    pub fn len(&self) -> u64 {
        match *self {
            Piece::Read { len, .. } | Piece::Const { len, .. } => len,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What one position of a fused axis yields.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// This coordinate of the head's axis.
    Read(i64),
    /// The fill value of step `.0` (from 1).
    Const(usize),
}

/// The positions of one period of a fused axis.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AxisMap {
    /// In order; their lengths add up to the period.
    Pieces(Vec<Piece>),
    /// One outcome per position of the period.
    Table(Vec<Outcome>),
}

/// One axis of a fused chain.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FusedAxis {
    pub extent: u64,
    /// Position y yields what position y mod period does (1 ≤ period ≤ extent, or 0 for
    /// an empty axis).
    pub period: u64,
    /// The head axis its reads are coordinates of; `None` when the axis ends in a unit
    /// axis a step inserted (it reads that axis's only coordinate, 0, or a fill value).
    pub head_axis: Option<usize>,
    pub map: AxisMap,
    /// For a table: the stages its positions go through down to the head (a
    /// [`TableRule`]'s), from which generated code computes it. Empty otherwise.
    pub stages: Vec<TableStage>,
}

impl FusedAxis {
    /// What position `y` yields; `None` when the map does not say (an axis that fails
    /// [`FusedChain::validate`]).
    pub fn outcome(&self, y: u64) -> Option<Outcome> {
        let mut y = y % self.period.max(1);
        match &self.map {
            AxisMap::Table(t) => t.get(usize::try_from(y).ok()?).copied(),
            AxisMap::Pieces(pieces) => {
                for p in pieces {
                    if y < p.len() {
                        return match *p {
                            Piece::Read { z0, dz, .. } => i64::try_from(y)
                                .ok()
                                .and_then(|y| dz.checked_mul(y)?.checked_add(z0))
                                .map(Outcome::Read),
                            Piece::Const { step, .. } => Some(Outcome::Const(step)),
                        };
                    }
                    y -= p.len();
                }
                None
            }
        }
    }

    /// Check the axis against the head's shape and the chain's number of steps (see
    /// [`FusedChain::validate`]), and its coordinates when `reads` (an empty output reads
    /// none, and its steps' plans check none); the message says what is wrong, the
    /// caller names the axis.
    fn check(&self, head: &[u64], steps: usize, reads: bool) -> Result<(), String> {
        let period_ok = if self.extent == 0 { self.period == 0 } else { (1..=self.extent).contains(&self.period) };
        if !period_ok {
            return Err(format!(
                "period {} for extent {} (1 ≤ period ≤ extent, 0 when empty)",
                self.period, self.extent
            ));
        }
        // The coordinates a read may name: those of its head axis, or the only one (0) of
        // a unit axis a step inserted.
        let d = match self.head_axis {
            Some(h) => *head.get(h).ok_or_else(|| format!("head axis {h} of a head of rank {}", head.len()))?,
            None => 1,
        };
        let coordinate = |z: i128| -> Result<(), String> {
            match self.head_axis {
                _ if !reads || (0..d as i128).contains(&z) => Ok(()),
                Some(h) => Err(format!("reads coordinate {z} of head axis {h}, outside [0, {d})")),
                None => Err(format!("reads coordinate {z} of a unit axis a step inserted (its only coordinate is 0)")),
            }
        };
        let step = |s: usize| -> Result<(), String> {
            if (1..=steps).contains(&s) {
                Ok(())
            } else {
                Err(format!("yields the fill value of step {s}, but the chain has fill_bits for steps 1..={steps}"))
            }
        };
        let covered = match &self.map {
            AxisMap::Pieces(pieces) => {
                let mut covered = 0u64;
                for (i, p) in pieces.iter().enumerate() {
                    let at = |e: String| format!("piece {i} ({p}) {e}");
                    match *p {
                        _ if p.is_empty() => return Err(at("is empty".into())),
                        Piece::Read { len: 1, dz, .. } if dz != 0 => return Err(at("has length 1 and dz ≠ 0".into())),
                        Piece::Read { len, z0, dz } => {
                            coordinate(z0 as i128).map_err(at)?;
                            coordinate(z0 as i128 + dz as i128 * (len as i128 - 1)).map_err(at)?;
                        }
                        Piece::Const { step: s, .. } => step(s).map_err(at)?,
                    }
                    covered = covered.checked_add(p.len()).ok_or("pieces longer than 2^64 positions")?;
                }
                covered
            }
            AxisMap::Table(t) => {
                for (i, o) in t.iter().enumerate() {
                    let at = |e: String| format!("table entry {i} {e}");
                    match *o {
                        Outcome::Read(z) => coordinate(z as i128).map_err(at)?,
                        Outcome::Const(s) => step(s).map_err(at)?,
                    }
                }
                t.len() as u64
            }
        };
        if covered != self.period {
            return Err(format!("its map covers {covered} positions of its period {}", self.period));
        }
        Ok(())
    }

    /// Whether some position reads the head (a map entry that is no fill value).
    fn reads(&self) -> bool {
        match &self.map {
            AxisMap::Pieces(p) => p.iter().any(|p| matches!(p, Piece::Read { .. })),
            AxisMap::Table(t) => t.iter().any(|o| matches!(o, Outcome::Read(_))),
        }
    }
    /// The steps whose fill values this axis yields.
    fn const_steps(&self) -> Vec<usize> {
        match &self.map {
            AxisMap::Pieces(p) => p
                .iter()
                .filter_map(|p| match p {
                    Piece::Const { step, .. } => Some(*step),
                    Piece::Read { .. } => None,
                })
                .collect(),
            AxisMap::Table(t) => t
                .iter()
                .filter_map(|o| match o {
                    Outcome::Const(s) => Some(*s),
                    Outcome::Read(_) => None,
                })
                .collect(),
        }
    }
}

/// What a chain starts from.
#[derive(Clone, Debug, PartialEq)]
pub enum Head {
    /// The data input of the first step, of this shape.
    Input { shape: Vec<u64> },
    /// The first step is this fill: the chain evaluates it at the elements it maps to.
    Fill(FillPlan),
}

/// A chain composed into one map: output element (y_0, …) reads the head at the
/// coordinates its axes yield, or the fill value of the latest step one of its axes (or
/// fixed axes) falls outside of.
#[derive(Clone, Debug, PartialEq)]
pub struct FusedChain {
    pub dtype: DType,
    pub head: Head,
    /// The head read as this shape (a row-major reshape of [`FusedChain::head_shape`]):
    /// the axes' `head_axis` index it. Empty: the head's own shape.
    pub source: Vec<u64>,
    /// Per step (index step − 1): its fill value's element bits (0 unless it fills).
    pub fill_bits: Vec<u128>,
    /// One per axis of the output before its final reshape (the last step's axes).
    pub axes: Vec<FusedAxis>,
    /// Unit axes a step removed (shrink): one position each, the same for every element.
    pub fixed: Vec<FusedAxis>,
    pub output_shape: Vec<u64>,
}

impl FusedChain {
    pub fn head_shape(&self) -> &[u64] {
        match &self.head {
            Head::Input { shape } => shape,
            Head::Fill(f) => &f.shape,
        }
    }
    /// The shape the head is read as (see [`FusedChain::source`]).
    pub fn source_shape(&self) -> &[u64] {
        if self.source.is_empty() { self.head_shape() } else { &self.source }
    }
    pub fn core_shape(&self) -> Vec<u64> {
        self.axes.iter().map(|a| a.extent).collect()
    }
    /// The steps whose fill values some element takes, in order.
    pub fn const_steps(&self) -> Vec<usize> {
        let mut s: Vec<usize> = self.axes.iter().chain(&self.fixed).flat_map(FusedAxis::const_steps).collect();
        s.sort_unstable();
        s.dedup();
        s
    }

    /// Check that the chain's fields agree with each other, so that the schedule, the
    /// reference and every backend may trust them: a head that is a valid fill of the
    /// chain's dtype (or an input shape), head and output volumes that fit i64, an output
    /// shape that is a reshape of the axes' extents, fill values that fit one element; per
    /// axis a period within its extent covered exactly by its pieces (non-empty, length-1
    /// reads with dz 0) or table, a head axis within the head's rank (no two axes on one),
    /// every coordinate read inside its head axis (0 for a unit axis a step inserted;
    /// unchecked when the output is empty, as a slice plan's),
    /// every fill value one of a step the chain has; fixed axes of one position; and, when
    /// some element reads the head, no empty head axis that no axis reads (those read
    /// coordinate 0). O(rank + pieces + tables).
    /// [`compose`] builds only valid chains; the fields are public, so every public entry
    /// that takes a chain ([`evaluate_fused`], [`crate::schedule::chain_views`] and so the
    /// JIT and the derive's code generator) calls this first.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |what: String| Err(Error::Invalid { what: format!("fused chain: {what}") });
        if let Head::Fill(p) = &self.head {
            p.validate()?;
            if p.dtype != self.dtype {
                return bad(format!("its head is a {} fill, but the chain is of {}", p.dtype, self.dtype));
            }
        }
        let head_shape = self.head_shape();
        if volume(head_shape).is_none_or(|n| n > i64::MAX as u64) {
            return bad(format!("head shape {head_shape:?} has more than 2^63 elements"));
        }
        // The axes read the head as its source shape, a reshape of it.
        let head = self.source_shape();
        if volume(head) != volume(head_shape) {
            return bad(format!("source {head:?} is not a reshape of the head's shape {head_shape:?}"));
        }
        let core = self.core_shape();
        let core_len = match crate::plan::core_volume(&core, &self.output_shape) {
            Ok(n) => n,
            Err(what) => return bad(what),
        };
        if let Some(k) = self.fill_bits.iter().position(|&b| !crate::plan::fill_bits_fit(self.dtype, b)) {
            return bad(format!(
                "fill_bits[{k}] (step {}) {:#x} do not fit one {} element",
                k + 1,
                self.fill_bits[k],
                self.dtype
            ));
        }
        let named = self.axes.iter().enumerate().map(|(k, a)| (format!("axis {k}"), a));
        let named = named.chain(self.fixed.iter().enumerate().map(|(k, a)| (format!("fixed axis {k}"), a)));
        let mut read_by: Vec<Option<String>> = vec![None; head.len()];
        for (name, a) in named {
            a.check(head, self.fill_bits.len(), core_len > 0).or_else(|e| bad(format!("{name}: {e}")))?;
            if name.starts_with("fixed") && a.extent != 1 {
                return bad(format!("{name} has extent {}; a unit axis a step removed has one position", a.extent));
            }
            if let Some(h) = a.head_axis
                && let Some(other) = read_by[h].replace(name.clone())
            {
                return bad(format!("{other} and {name} both read head axis {h}"));
            }
        }
        // An element that reads the head reads coordinate 0 of the head axes no axis reads.
        let reads = core_len > 0 && self.axes.iter().chain(&self.fixed).all(FusedAxis::reads);
        if reads && let Some(h) = (0..head.len()).find(|&h| read_by[h].is_none() && head[h] == 0) {
            return bad(format!("elements read the head at coordinate 0 of its axis {h}, which is empty"));
        }
        Ok(())
    }
}

/// Pair the axes of `from` with those of `to` (two shapes of one volume that differ by
/// unit axes): non-unit axes in order; unit axes pair with nothing. `None` when the
/// shapes are not such a reshape.
fn pair_axes(from: &[u64], to: &[u64]) -> Option<Vec<Option<usize>>> {
    if from == to {
        return Some((0..to.len()).map(Some).collect());
    }
    let big_from: Vec<usize> = (0..from.len()).filter(|&k| from[k] != 1).collect();
    let big_to: Vec<usize> = (0..to.len()).filter(|&k| to[k] != 1).collect();
    if big_from.len() != big_to.len() || big_from.iter().zip(&big_to).any(|(&a, &b)| from[a] != to[b]) {
        return None;
    }
    let mut out = vec![None; to.len()];
    for (&a, &b) in big_from.iter().zip(&big_to) {
        out[b] = Some(a);
    }
    Some(out)
}

/// One slice level of a chain: its step number and plan, and per source axis the core
/// axis of the level below it reads (`None` for a unit axis inserted below; the level
/// at the bottom reads the axes of the head, as the chain's `source`, themselves).
struct Level<'a> {
    step: usize,
    plan: &'a SlicePlan,
    below: Vec<Option<usize>>,
}

impl Level<'_> {
    /// The source axis that core axis `j` of this level reads.
    fn source_axis(&self, j: usize) -> usize {
        self.plan.source_axis(j)
    }
}

/// Whether a slice plan only reshapes: every element read once, in order (Reshape,
/// Flatten, Squeeze, Unsqueeze, Identity, and full-range slices).
fn only_reshapes(p: &SlicePlan) -> bool {
    p.gathered.is_none()
        && crate::plan::is_identity(&p.order)
        && p.axes.iter().enumerate().all(|(k, a)| {
            let w = p.window(k);
            a.start == 0 && (a.step == 1 || a.extent <= 1) && w.lo == 0 && a.extent == w.len && w.len == p.source()[k]
        })
}

/// The chain's slice steps (with their step numbers) with every step that only reshapes
/// folded into its neighbour: the next step reads the reshape's input as its own source
/// (row-major reshapes compose), or, after the last step, the step before writes the
/// reshape's output shape. So Reshape → Transpose → Reshape is one plan's map.
fn fold_reshapes(slices: Vec<(usize, SlicePlan)>) -> Vec<(usize, SlicePlan)> {
    let mut steps = slices;
    let mut i = 0;
    while i < steps.len() {
        if steps.len() > 1 && only_reshapes(&steps[i].1) {
            let (_, r) = steps.remove(i);
            if let Some((_, next)) = steps.get_mut(i) {
                next.source_shape = next.source().to_vec();
                next.input_shape = r.input_shape;
            } else if let Some((_, prev)) = steps.get_mut(i.wrapping_sub(1)) {
                prev.output_shape = r.output_shape;
            }
            continue;
        }
        i += 1;
    }
    steps
}

/// Split the steps' axes until every step's source pairs with the core of the step below
/// by unit axes (see [`crate::refine`]); `Err` with the step number of the first that
/// does not line up.
fn line_up(slices: &mut [(usize, SlicePlan)]) -> Result<(), usize> {
    // Each round splits axes into smaller factors, which an element count below 2^63
    // bounds (at most 63 factors an axis): no more rounds than that a step.
    for _ in 0..64 * slices.len().max(1) {
        let mut changed = false;
        for l in 1..slices.len() {
            let (below, above) = slices.split_at_mut(l);
            let (lower, (step, upper)) = (&mut below[l - 1].1, &mut above[0]);
            if pair_axes(&lower.core_shape(), upper.source()).is_some() {
                continue;
            }
            if !crate::refine::align(lower, upper) {
                return Err(*step);
            }
            changed = true;
        }
        if !changed {
            return Ok(());
        }
    }
    Err(slices.last().map_or(1, |s| s.0))
}

/// Compose a lowered chain (from [`lower_chain`]) into one map. O(steps · rank ·
/// MAX_SEGMENTS_PER_AXIS), plus the tables, each at most its axis's output extent. A
/// chain whose reshapes do not line up (see [`compose_segments`]) is an error here.
pub fn compose(plans: &[Plan]) -> Result<FusedChain, Error> {
    compose_or_cut(plans)?.map_err(|step| Error::Invalid {
        what: format!(
            "chain: step {step} reads its input in a shape whose axes do not line up with the steps before it, so the chain does not fuse into one map there (compose_segments cuts it)"
        ),
    })
}

/// A run of a chain's steps fused into one map.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    /// The steps it runs (indices into the lowered chain, from 0).
    pub steps: std::ops::Range<usize>,
    pub fused: FusedChain,
}

/// Compose a lowered chain into as few maps as its reshapes allow: a step that reads its
/// input in a shape whose axes do not line up with the step before it (a reshape that
/// splits an axis a slice or pad reads, or that regroups factors, like [2, 3] → [3, 2],
/// before a transpose) starts a new segment, whose input is the one before's output. A
/// chain that fuses whole is one segment.
pub fn compose_segments(plans: &[Plan]) -> Result<Vec<Segment>, Error> {
    let mut out = Vec::new();
    let mut from = 0;
    while from < plans.len() {
        let to = match compose_or_cut(&plans[from..])? {
            Ok(fused) => {
                out.push(Segment { steps: from..plans.len(), fused });
                break;
            }
            // `step` counts from 1 within the rest, and is never its first step.
            Err(step) => from + step - 1,
        };
        let fused = compose(&plans[from..to])?;
        out.push(Segment { steps: from..to, fused });
        from = to;
    }
    Ok(out)
}

/// [`compose`], with `Ok(Err(step))` where step `step` (from 1) does not line up with the
/// steps before it.
fn compose_or_cut(plans: &[Plan]) -> Result<Result<FusedChain, usize>, Error> {
    let bad = |what: String| Error::Invalid { what: format!("chain: {what}") };
    let (head, first_slice) = match plans.first() {
        None => return Err(bad("a chain has at least one step".into())),
        Some(Plan::Fill(f)) => (Head::Fill(f.clone()), 1),
        Some(Plan::Slice(p)) => (Head::Input { shape: p.input_shape.clone() }, 0),
    };
    for p in plans {
        p.validate()?;
    }
    let dtype = plans[0].dtype();
    let mut below_shape: Vec<u64> = match &head {
        Head::Input { shape } => shape.clone(),
        Head::Fill(f) => f.shape.clone(),
    };
    let mut slices = Vec::with_capacity(plans.len());
    for (k, p) in plans.iter().enumerate().skip(first_slice) {
        let step = k + 1;
        let Plan::Slice(p) = p else {
            return Err(bad(format!("step {step} is a fill; only the first step may be")));
        };
        if p.dtype != dtype || p.input_shape != below_shape {
            return Err(bad(format!(
                "step {step} reads {} {:?}, but the step before gives {dtype} {below_shape:?}",
                p.dtype, p.input_shape
            )));
        }
        below_shape = p.output_shape.clone();
        slices.push((step, p.clone()));
    }
    let mut slices = fold_reshapes(slices);
    if let Err(step) = line_up(&mut slices) {
        return Ok(Err(step));
    }
    // The head read as the first level's source (a row-major reshape of it).
    let source = slices.first().map_or_else(|| below_shape.clone(), |(_, p)| p.source().to_vec());
    let mut levels: Vec<Level<'_>> = Vec::new();
    let mut below_core: Option<Vec<u64>> = None;
    for (step, p) in &slices {
        let below = match &below_core {
            None => (0..p.source().len()).map(Some).collect(),
            Some(core) => pair_axes(core, p.source()).ok_or_else(|| {
                bad(format!(
                    "step {step} reads its input as {:?}, which is not a reshape of the axes {core:?} of the step before by unit axes",
                    p.source()
                ))
            })?,
        };
        levels.push(Level { step: *step, plan: p, below });
        below_core = Some(p.core_shape());
    }
    let fill_bits = plans
        .iter()
        .map(|p| match p {
            Plan::Slice(s) if s.mode == crate::BoundaryMode::Fill => s.fill_bits,
            _ => 0,
        })
        .collect();
    let Some(top) = levels.len().checked_sub(1) else {
        // A fill alone: its own axes, read whole.
        let axes = below_shape
            .iter()
            .enumerate()
            .map(|(k, &d)| FusedAxis {
                extent: d,
                period: d,
                head_axis: Some(k),
                map: AxisMap::Pieces(normalize(vec![Piece::Read { len: d, z0: 0, dz: 1 }])),
                stages: Vec::new(),
            })
            .collect();
        return Ok(Ok(FusedChain {
            dtype,
            head,
            source,
            fill_bits,
            axes,
            fixed: Vec::new(),
            output_shape: below_shape,
        }));
    };
    let mut axes = Vec::new();
    for j in 0..levels[top].plan.axes.len() {
        let k = levels[top].source_axis(j);
        axes.push(track(&levels, top, k, levels[top].plan.axes[k].extent)?);
    }
    // Core axes of a lower step that no axis above reads: unit axes removed between steps.
    let mut fixed = Vec::new();
    for l in 0..top {
        let read: Vec<usize> = levels[l + 1].below.iter().flatten().copied().collect();
        for j in 0..levels[l].plan.axes.len() {
            if !read.contains(&j) {
                let k = levels[l].source_axis(j);
                fixed.push(track(&levels, l, k, levels[l].plan.axes[k].extent)?);
            }
        }
    }
    Ok(Ok(FusedChain { dtype, head, source, fill_bits, axes, fixed, output_shape: below_shape }))
}

/// Merge pieces that continue each other; length-1 reads get dz 0; drop empty ones.
fn normalize(pieces: Vec<Piece>) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::with_capacity(pieces.len());
    for p in pieces {
        let p = match p {
            Piece::Read { len: 1, z0, .. } => Piece::Read { len: 1, z0, dz: 0 },
            _ if p.is_empty() => continue,
            p => p,
        };
        if let Some(prev) = out.last_mut() {
            match (*prev, p) {
                (Piece::Const { len, step }, Piece::Const { len: l2, step: s2 }) if step == s2 => {
                    *prev = Piece::Const { len: len + l2, step };
                    continue;
                }
                (Piece::Read { len, z0, dz }, Piece::Read { len: l2, z0: z2, dz: d2 }) => {
                    let step = if len == 1 { z2 - z0 } else { dz };
                    if (l2 == 1 || d2 == step) && z0 as i128 + step as i128 * len as i128 == z2 as i128 {
                        *prev = Piece::Read { len: len + l2, z0, dz: step };
                        continue;
                    }
                }
                _ => {}
            }
        }
        out.push(p);
    }
    out
}

/// A coordinate (within some axis of the chain, so within i64) as i64.
fn coord(v: i128) -> Result<i64, Error> {
    i64::try_from(v).map_err(|_| Error::Overflow {
        op: "chain".into(),
        what: "a coordinate".into(),
        value: v.to_string(),
    })
}

/// The positions `x = a + s·j` (j < len) of input axis `k` of `p` read, as pieces in the
/// coordinates of that input axis; `None` when more than `MAX_SEGMENTS_PER_AXIS`.
fn apply(p: &SlicePlan, step: usize, k: usize, a: i128, s: i128, len: u64) -> Result<Option<Vec<Piece>>, Error> {
    let w = p.window(k);
    if w.len == 0 {
        // Validated: only fill mode reads an empty axis, and every read is outside.
        return Ok(Some(vec![Piece::Const { len, step }]));
    }
    if let Some(g) = p.gathered.as_ref().filter(|g| g.axis == k) {
        // Position j reads entry a + s·j of the list (validated inside it): one piece a
        // coordinate, merged where they continue each other.
        if len > 2 * MAX_SEGMENTS_PER_AXIS as u64 * MAX_SEGMENTS_PER_AXIS as u64 {
            return Ok(None);
        }
        let mut out = Vec::new();
        for j in 0..len as i128 {
            let x = usize::try_from(a + s * j).ok().and_then(|i| g.coords.get(i)).ok_or_else(|| Error::Invalid {
                what: format!(
                    "chain: step {step} reads entry {} of a list of {} coordinates",
                    a + s * j,
                    g.coords.len()
                ),
            })?;
            out.push(match p.mode.source_index(*x, w.len) {
                None => Piece::Const { len: 1, step },
                Some(z) => Piece::Read { len: 1, z0: coord(w.lo as i128 + z as i128)?, dz: 0 },
            });
        }
        let out = normalize(out);
        return Ok((out.len() <= MAX_SEGMENTS_PER_AXIS).then_some(out));
    }
    let c = axis_coords(p.mode, a, s, len, w.len);
    let Some(segs) = c.segs else { return Ok(None) };
    let repeats = len.div_ceil(c.period.max(1));
    if repeats.saturating_mul(segs.len() as u64) > MAX_SEGMENTS_PER_AXIS as u64 {
        return Ok(None);
    }
    if segs.iter().all(|s| s.len == 0) && len > 0 {
        return Ok(None);
    }
    let mut out = Vec::new();
    let mut left = len;
    while left > 0 {
        for seg in &segs {
            let n = seg.len.min(left);
            if n == 0 {
                break;
            }
            out.push(match seg.z {
                None => Piece::Const { len: n, step },
                Some((z0, dz)) => Piece::Read { len: n, z0: coord(w.lo as i128 + z0)?, dz: coord(dz)? },
            });
            left -= n;
        }
    }
    let out = normalize(out);
    Ok((out.len() <= MAX_SEGMENTS_PER_AXIS).then_some(out))
}

/// The head axis (of the chain's source) that source axis `k` of level `l` ends on.
fn head_axis(levels: &[Level<'_>], mut l: usize, mut k: usize) -> Option<usize> {
    loop {
        let below = levels[l].below[k]?;
        if l == 0 {
            return Some(below);
        }
        (l, k) = (l - 1, levels[l - 1].source_axis(below));
    }
}

/// The path of source axis `k` of level `l` down to the head: per level its step number
/// and the stage its position goes through (a plan's read of the axis and the window its
/// mode sees), and whether the path ends in a unit axis inserted below (whose only
/// coordinate, 0, every position then reads).
fn path(levels: &[Level<'_>], mut l: usize, mut k: usize) -> (Vec<(usize, TableStage)>, bool) {
    let mut out = Vec::new();
    loop {
        let lv = &levels[l];
        let (a, w) = (lv.plan.axes[k], lv.plan.window(k));
        let coords = lv.plan.gathered.as_ref().filter(|g| g.axis == k).map(|g| g.coords.clone());
        out.push((
            lv.step,
            TableStage { mode: lv.plan.mode, start: a.start, step: a.step, lo: w.lo, len: w.len, coords },
        ));
        match (lv.below[k], l) {
            (None, _) => return (out, true),
            (Some(_), 0) => return (out, false),
            (Some(below), _) => (l, k) = (l - 1, levels[l - 1].source_axis(below)),
        }
    }
}

/// What position y yields, through the stages of a [`path`] (`steps`: their step numbers).
fn walk(rule: &TableRule, steps: &[usize], unit: bool, y: u64) -> Result<Outcome, Error> {
    Ok(match rule.walk(y)? {
        Err(i) => Outcome::Const(steps[i]),
        Ok(_) if unit => Outcome::Read(0),
        Ok(x) => Outcome::Read(coord(x as i128)?),
    })
}

/// Follow source axis `k` (of `extent` positions) of level `l` down to the head.
fn track(levels: &[Level<'_>], l: usize, k: usize, extent: u64) -> Result<FusedAxis, Error> {
    let head = head_axis(levels, l, k);
    let lv = &levels[l];
    let a = lv.plan.axes[k];
    // The top level's repetition is the whole axis's: positions y and y + P read the
    // same coordinate there, so the same everything below.
    let period = match lv.plan.window(k).len {
        _ if extent == 0 => 0,
        // A list of coordinates does not repeat.
        _ if lv.plan.gathers(k) => extent,
        0 => extent,
        d => axis_coords(lv.plan.mode, a.start as i128, a.step as i128, extent, d).period,
    };
    let mut pieces = vec![Piece::Read { len: period, z0: 0, dz: 1 }];
    let (top_l, top_k) = (l, k);
    let (mut l, mut k) = (l, k);
    let composed = loop {
        let lv = &levels[l];
        let a = lv.plan.axes[k];
        let mut next = Vec::new();
        let mut too_many = false;
        for p in &pieces {
            match *p {
                Piece::Const { .. } => next.push(*p),
                Piece::Read { len, z0, dz } => {
                    let (start, step) = (a.start as i128 + a.step as i128 * z0 as i128, a.step as i128 * dz as i128);
                    match apply(lv.plan, lv.step, k, start, step, len)? {
                        Some(ps) => next.extend(ps),
                        None => too_many = true,
                    }
                }
            }
        }
        let next = normalize(next);
        if too_many || next.len() > MAX_SEGMENTS_PER_AXIS {
            break None;
        }
        pieces = next;
        match lv.below[k] {
            None => {
                // A unit axis inserted below: its only coordinate, 0, read.
                let unit = pieces.iter().map(|p| match *p {
                    Piece::Read { len, .. } => Piece::Read { len, z0: 0, dz: 0 },
                    c => c,
                });
                break Some(normalize(unit.collect()));
            }
            Some(_) if l == 0 => break Some(pieces),
            Some(below) => (l, k) = (l - 1, levels[l - 1].source_axis(below)),
        }
    };
    let (map, stages) = match composed {
        Some(p) => (AxisMap::Pieces(p), Vec::new()),
        None => {
            // Too many pieces: one outcome per position of the period, walked step by step.
            let mut table = Vec::new();
            table
                .try_reserve_exact(period as usize)
                .map_err(|_| Error::TooLarge { what: format!("a chain index table of {period} entries") })?;
            let (path, unit) = path(levels, top_l, top_k);
            let steps: Vec<usize> = path.iter().map(|p| p.0).collect();
            let rule = TableRule { stages: path.into_iter().map(|p| p.1).collect(), scale: 1 };
            for y in 0..period {
                table.push(walk(&rule, &steps, unit, y)?);
            }
            (AxisMap::Table(table), rule.stages)
        }
    };
    Ok(FusedAxis { extent, period, head_axis: head, map, stages })
}

/// Evaluate a chain's segments one after another, each fused (the reference of a chain
/// [`compose_segments`] cut): each segment reads the one before's output.
pub fn evaluate_segments(segments: &[Segment], input: Option<TensorView<'_>>) -> Result<Tensor, Error> {
    let mut out: Option<Tensor> = None;
    for s in segments {
        let data = match &out {
            Some(t) => Some(t.view()),
            None => input,
        };
        out = Some(evaluate_fused(&s.fused, data)?);
    }
    out.ok_or_else(|| Error::Invalid { what: "a chain has at least one segment".into() })
}

/// Evaluate a fused chain element by element (the reference of the fused form: the
/// unfused run, [`evaluate_unfused`], is the oracle both are checked against).
pub fn evaluate_fused(f: &FusedChain, input: Option<TensorView<'_>>) -> Result<Tensor, Error> {
    f.validate()?;
    let head_shape = f.head_shape().to_vec();
    let input = match &f.head {
        Head::Fill(_) => None,
        Head::Input { shape } => {
            let input =
                input.ok_or_else(|| Error::Invalid { what: "a chain of slices needs its data input".into() })?;
            if input.dtype != f.dtype || input.shape != shape.as_slice() {
                return Err(Error::Mismatch {
                    what: "chain input".into(),
                    expected: format!("{} {shape:?}", f.dtype),
                    found: format!("{} {:?}", input.dtype, input.shape),
                });
            }
            input.check("chain input")?;
            Some(input)
        }
    };
    let core = f.core_shape();
    let mut out = match input.map(|i| i.data) {
        Some(ViewData::Strings(s)) => {
            let n = volume(&core).and_then(|n| usize::try_from(n).ok());
            let strings = n.and_then(|n| crate::tensor::Strings::empty(s.width(), n));
            let too_large = || Error::TooLarge { what: format!("a string tensor of shape {core:?}") };
            Tensor::from_string_storage(&core, strings.ok_or_else(too_large)?)?
        }
        _ => Tensor::zeros(f.dtype, &core)?,
    };
    // (Validated: a reshape of the head.)
    let source = f.source_shape().to_vec();
    let mut strides = vec![1u64; source.len()];
    for k in (0..source.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1].saturating_mul(source[k + 1]);
    }
    // A fill's elements are computed from their coordinates in the fill's own shape.
    let mut head_at = vec![0u64; head_shape.len()];
    // (Validated: every position of every axis has an outcome.)
    let unsaid = || Error::Invalid { what: "fused chain: an axis whose map does not cover it".into() };
    let fixed: Vec<(Option<usize>, Outcome)> =
        f.fixed.iter().map(|a| Ok((a.head_axis, a.outcome(0).ok_or_else(unsaid)?))).collect::<Result<_, Error>>()?;
    let mut y = vec![0u64; core.len()];
    let mut at = vec![0u64; source.len()];
    let layout = f.dtype.layout();
    for i in 0..out.len() {
        unravel(i, &core, &mut y);
        let outcomes = f.axes.iter().zip(&y).map(|(a, &y)| (a.head_axis, a.outcome(y)));
        let mut step = 0;
        at.fill(0);
        for (h, o) in outcomes.chain(fixed.iter().map(|&(h, o)| (h, Some(o)))) {
            let o = o.ok_or_else(unsaid)?;
            match (o, h) {
                (Outcome::Const(s), _) => step = step.max(s),
                (Outcome::Read(z), Some(h)) => at[h] = z as u64,
                (Outcome::Read(_), None) => {}
            }
        }
        // An element that reads the head reads inside it (validated), so its offset fits;
        // a fill element's coordinates may meet strides saturated inside an empty axis.
        let src: u64 = if step > 0 { 0 } else { at.iter().zip(&strides).map(|(a, s)| a * s).sum() };
        match (&f.head, input.map(|i| i.data)) {
            // The fill value of strings is the empty string: the output's zeros.
            (_, Some(ViewData::Strings(s))) => {
                if step == 0 {
                    out.strings_mut().expect("string output").copy_from(i as usize, s, src as usize)?;
                }
            }
            (head, _) => {
                let bits = if step > 0 {
                    f.fill_bits[step - 1]
                } else {
                    match head {
                        Head::Fill(p) => {
                            unravel(src, &head_shape, &mut head_at);
                            fill_element(p, src, &head_at)?
                        }
                        Head::Input { .. } => input.and_then(|v| v.element_bits(src)).ok_or_else(|| {
                            Error::Invalid { what: format!("input element {src} is outside its buffer") }
                        })?,
                    }
                };
                store_bits(&mut out, layout, i, bits);
            }
        }
    }
    out.reshaped(&f.output_shape)
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Piece::Read { len, z0, dz } => write!(f, "{len}×read {z0}{dz:+}j"),
            Piece::Const { len, step } => write!(f, "{len}×fill(step {step})"),
        }
    }
}

fn write_axis(f: &mut fmt::Formatter<'_>, name: &str, a: &FusedAxis) -> fmt::Result {
    write!(f, "\n  {name}: extent {}", a.extent)?;
    if a.period != a.extent {
        write!(f, " period {}", a.period)?;
    }
    match a.head_axis {
        Some(h) => write!(f, " head axis {h}:")?,
        None => write!(f, " unit axis a step inserted:")?,
    }
    match &a.map {
        AxisMap::Pieces(p) => {
            for p in p {
                write!(f, " [{p}]")?;
            }
            Ok(())
        }
        AxisMap::Table(t) => write!(f, " table of {} entries", t.len()),
    }
}

impl fmt::Display for FusedChain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.head {
            Head::Input { shape } => write!(f, "fused chain {} input {shape:?}", self.dtype)?,
            Head::Fill(p) => write!(f, "fused chain {} from fill {:?} {:?}", self.dtype, p.shape, p.kind)?,
        }
        write!(f, " -> {:?}", self.output_shape)?;
        for s in self.const_steps() {
            // (A chain that fails `validate` may name a step it has no fill value for.)
            match s.checked_sub(1).and_then(|k| self.fill_bits.get(k)) {
                Some(&bits) => write!(f, "\n  fill of step {s} = {}", crate::scalar::format_bits(self.dtype, bits))?,
                None => write!(f, "\n  fill of step {s} = (none given)")?,
            }
        }
        for (k, a) in self.axes.iter().enumerate() {
            write_axis(f, &format!("axis {k}"), a)?;
        }
        for a in &self.fixed {
            write_axis(f, "fixed", a)?;
        }
        Ok(())
    }
}
