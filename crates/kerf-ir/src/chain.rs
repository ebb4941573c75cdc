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
    /// What position `y` (< extent) yields.
    pub fn outcome(&self, y: u64) -> Outcome {
        let mut y = y % self.period.max(1);
        match &self.map {
            AxisMap::Table(t) => t[y as usize],
            AxisMap::Pieces(pieces) => {
                for p in pieces {
                    if y < p.len() {
                        return match *p {
                            Piece::Read { z0, dz, .. } => Outcome::Read(z0 + dz * y as i64),
                            Piece::Const { step, .. } => Outcome::Const(step),
                        };
                    }
                    y -= p.len();
                }
                unreachable!("pieces cover the period (checked when composed)")
            }
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

/// One slice level of a chain: its step number and plan, and per input axis the core
/// axis of the level below it reads (`None` for a unit axis inserted below; the level
/// at the bottom reads the head's axes themselves).
struct Level<'a> {
    step: usize,
    plan: &'a SlicePlan,
    below: Vec<Option<usize>>,
}

/// Compose a lowered chain (from [`lower_chain`]) into one map. O(steps · rank ·
/// MAX_SEGMENTS_PER_AXIS), plus the tables, each at most its axis's output extent.
pub fn compose(plans: &[Plan]) -> Result<FusedChain, Error> {
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
    let mut levels: Vec<Level<'_>> = Vec::new();
    let mut below_shape: Vec<u64> = match &head {
        Head::Input { shape } => shape.clone(),
        Head::Fill(f) => f.shape.clone(),
    };
    let mut below_core: Option<Vec<u64>> = None;
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
        let below = match &below_core {
            None => (0..p.input_shape.len()).map(Some).collect(),
            Some(core) => pair_axes(core, &p.input_shape).ok_or_else(|| {
                bad(format!(
                    "step {}'s output {:?} is not a reshape of its axes {core:?} by unit axes",
                    step - 1,
                    p.input_shape
                ))
            })?,
        };
        levels.push(Level { step, plan: p, below });
        below_core = Some(p.core_shape());
        below_shape = p.output_shape.clone();
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
        return Ok(FusedChain { dtype, head, fill_bits, axes, fixed: Vec::new(), output_shape: below_shape });
    };
    let mut axes = Vec::new();
    for (k, a) in levels[top].plan.axes.iter().enumerate() {
        axes.push(track(&levels, top, k, a.extent)?);
    }
    // Core axes of a lower step that no axis above reads: unit axes removed between steps.
    let mut fixed = Vec::new();
    for l in 0..top {
        let read: Vec<usize> = levels[l + 1].below.iter().flatten().copied().collect();
        for (k, a) in levels[l].plan.axes.iter().enumerate() {
            if !read.contains(&k) {
                fixed.push(track(&levels, l, k, a.extent)?);
            }
        }
    }
    Ok(FusedChain { dtype, head, fill_bits, axes, fixed, output_shape: below_shape })
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

/// The head axis that core axis `k` of level `l` ends on.
fn head_axis(levels: &[Level<'_>], mut l: usize, mut k: usize) -> Option<usize> {
    loop {
        let below = levels[l].below[k]?;
        if l == 0 {
            return Some(below);
        }
        (l, k) = (l - 1, below);
    }
}

/// The path of core axis `k` of level `l` down to the head: per level its step number
/// and the stage its position goes through (a plan's read of the axis and the window its
/// mode sees), and whether the path ends in a unit axis inserted below (whose only
/// coordinate, 0, every position then reads).
fn path(levels: &[Level<'_>], mut l: usize, mut k: usize) -> (Vec<(usize, TableStage)>, bool) {
    let mut out = Vec::new();
    loop {
        let lv = &levels[l];
        let (a, w) = (lv.plan.axes[k], lv.plan.window(k));
        out.push((lv.step, TableStage { mode: lv.plan.mode, start: a.start, step: a.step, lo: w.lo, len: w.len }));
        match (lv.below[k], l) {
            (None, _) => return (out, true),
            (Some(_), 0) => return (out, false),
            (Some(below), _) => (l, k) = (l - 1, below),
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

/// Follow core axis `k` (of `extent` positions) of level `l` down to the head.
fn track(levels: &[Level<'_>], l: usize, k: usize, extent: u64) -> Result<FusedAxis, Error> {
    let head = head_axis(levels, l, k);
    let lv = &levels[l];
    let a = lv.plan.axes[k];
    // The top level's repetition is the whole axis's: positions y and y + P read the
    // same coordinate there, so the same everything below.
    let period = match lv.plan.window(k).len {
        _ if extent == 0 => 0,
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
            Some(below) => (l, k) = (l - 1, below),
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

/// Evaluate a fused chain element by element (the reference of the fused form: the
/// unfused run, [`evaluate_unfused`], is the oracle both are checked against).
pub fn evaluate_fused(f: &FusedChain, input: Option<TensorView<'_>>) -> Result<Tensor, Error> {
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
            let consistent = match input.data {
                ViewData::Strings(s) => f.dtype == DType::String && Some(s.len() as u64) == volume(shape),
                ViewData::Bytes(_) => f.dtype != DType::String,
            };
            if !consistent {
                return Err(Error::Invalid {
                    what: format!("chain input: its data does not hold the {} {shape:?} it claims", f.dtype),
                });
            }
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
    let mut strides = vec![1u64; head_shape.len()];
    for k in (0..head_shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1].saturating_mul(head_shape[k + 1]);
    }
    let fixed: Vec<(Option<usize>, Outcome)> = f.fixed.iter().map(|a| (a.head_axis, a.outcome(0))).collect();
    let mut y = vec![0u64; core.len()];
    let mut at = vec![0u64; head_shape.len()];
    let layout = f.dtype.layout();
    for i in 0..out.len() {
        unravel(i, &core, &mut y);
        let outcomes = f.axes.iter().zip(&y).map(|(a, &y)| (a.head_axis, a.outcome(y)));
        let mut step = 0;
        at.fill(0);
        for (h, o) in outcomes.chain(fixed.iter().copied()) {
            match (o, h) {
                (Outcome::Const(s), _) => step = step.max(s),
                (Outcome::Read(z), Some(h)) => at[h] = z as u64,
                (Outcome::Read(_), None) => {}
            }
        }
        let src: u64 = at.iter().zip(&strides).map(|(a, s)| a * s).sum();
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
                        Head::Fill(p) => fill_element(p, src, &at)?,
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
            write!(f, "\n  fill of step {s} = {}", crate::scalar::format_bits(self.dtype, self.fill_bits[s - 1]))?;
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
