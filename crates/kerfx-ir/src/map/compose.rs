//! [`compose`]: lowered steps (one op, or a chain) into one [`Map`].

use super::modes::axis_coords;
use super::{Digit, DigitMap, Head, Kind, Map, Outcome, Piece};
use crate::error::Error;
use crate::plan::{BoundaryMode, Plan, Step};
use crate::schedule::MAX_SEGMENTS_PER_AXIS;
use crate::table::{TableRule, TableStage};

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
    plan: &'a Step,
    below: Vec<Option<usize>>,
}

impl Level<'_> {
    /// The source axis that core axis `j` of this level reads.
    fn source_axis(&self, j: usize) -> usize {
        self.plan.source_axis(j)
    }
}

/// Whether a step only reshapes: every element read once, in order (Reshape,
/// Flatten, Squeeze, Unsqueeze, Identity, and full-range slices).
fn only_reshapes(p: &Step) -> bool {
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
fn fold_reshapes(slices: Vec<(usize, Step)>) -> Vec<(usize, Step)> {
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
fn line_up(slices: &mut [(usize, Step)]) -> Result<(), usize> {
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

/// Compose a lowered chain (from [`lower_chain`](crate::chain::lower_chain)) into one map. O(steps · rank ·
/// MAX_SEGMENTS_PER_AXIS), plus the tables, each at most its axis's output extent. A
/// chain whose reshapes do not line up (see [`compose_segments`]) is an error here.
pub fn compose(plans: &[Plan]) -> Result<Map, Error> {
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
    /// Those steps as one map: from the segment's input to its last step's output.
    pub fused: Map,
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
        // The longest run from `from` that fuses: cut where the rest does not line up,
        // and again where the run before the cut does not (lining up a run can need
        // fewer splits than lining up the whole rest: a run whose axes are empty or
        // regrouped may not line up where the longer one was cut). The run shrinks each
        // time, and one step always fuses.
        let mut to = plans.len();
        let fused = loop {
            match compose_or_cut(&plans[from..to])? {
                Ok(fused) => break fused,
                // `step` counts from 1 within the run, and is never its first step.
                Err(step) if to > from + 1 => to = (from + step - 1).clamp(from + 1, to - 1),
                Err(_) => {
                    return Err(Error::Invalid { what: format!("chain: step {} does not compose alone", from + 1) });
                }
            }
        };
        out.push(Segment { steps: from..to, fused });
        from = to;
    }
    Ok(out)
}

/// [`compose`], with `Ok(Err(step))` where step `step` (from 1) does not line up with the
/// steps before it.
fn compose_or_cut(plans: &[Plan]) -> Result<Result<Map, usize>, Error> {
    let bad = |what: String| Error::Invalid { what: format!("chain: {what}") };
    let (head, first_slice) = match plans.first() {
        None => return Err(bad("a chain has at least one step".into())),
        Some(Plan::Fill(f)) => (Head::Fill(f.clone()), 1),
        Some(Plan::Step(p)) => (Head::Input { shape: p.input_shape.clone() }, 0),
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
        let Plan::Step(p) = p else {
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
            Plan::Step(s) if s.mode == BoundaryMode::Fill => s.fill_bits,
            _ => 0,
        })
        .collect();
    // What maps of these ops may need whatever their numbers.
    let mut kind = slices.iter().fold(Kind::default(), |k, (_, p)| k.or(Kind::of(p)));
    let Some(top) = levels.len().checked_sub(1) else {
        // A fill alone: its own axes, read whole.
        let axes = below_shape
            .iter()
            .enumerate()
            .map(|(k, &d)| Digit {
                extent: d,
                period: d,
                head_axis: Some(k),
                map: DigitMap::Pieces(normalize(vec![Piece::Read { len: d, z0: 0, dz: 1 }])),
                stages: Vec::new(),
            })
            .collect();
        return Ok(Ok(Map {
            dtype,
            head,
            kind,
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
    // Composed steps may give a digit more pieces than any step alone, and so a table.
    kind.repeats |= slices.len() > 1 && axes.iter().chain(&fixed).any(|a| a.repeats() || a.reads_table());
    Ok(Ok(Map { dtype, head, kind, source, fill_bits, axes, fixed, output_shape: below_shape }))
}

/// Merge pieces that continue each other; length-1 reads get dz 0; drop empty ones.
fn normalize(pieces: Vec<Piece>) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::with_capacity(pieces.len());
    for p in pieces {
        push_piece(&mut out, p);
    }
    out
}

/// Append `p` to normalized pieces, merged into the last when it continues it.
fn push_piece(out: &mut Vec<Piece>, p: Piece) {
    let p = match p {
        Piece::Read { len: 1, z0, .. } => Piece::Read { len: 1, z0, dz: 0 },
        _ if p.is_empty() => return,
        p => p,
    };
    if let Some(prev) = out.last_mut() {
        match (*prev, p) {
            (Piece::Const { len, step }, Piece::Const { len: l2, step: s2 }) if step == s2 => {
                *prev = Piece::Const { len: len + l2, step };
                return;
            }
            (Piece::Read { len, z0, dz }, Piece::Read { len: l2, z0: z2, dz: d2 }) => {
                let step = if len == 1 { z2 - z0 } else { dz };
                if (l2 == 1 || d2 == step) && z0 as i128 + step as i128 * len as i128 == z2 as i128 {
                    *prev = Piece::Read { len: len + l2, z0, dz: step };
                    return;
                }
            }
            _ => {}
        }
    }
    out.push(p);
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
fn apply(p: &Step, step: usize, k: usize, a: i128, s: i128, len: u64) -> Result<Option<Vec<Piece>>, Error> {
    let w = p.window(k);
    if w.len == 0 {
        // Validated: only fill mode reads an empty axis, and every read is outside.
        return Ok(Some(vec![Piece::Const { len, step }]));
    }
    if let Some(g) = p.gathered.as_ref().filter(|g| g.axis == k) {
        // Position j reads entry a + s·j of the list (validated inside it): one piece a
        // coordinate, merged where they continue each other; given up (a table) at the
        // first piece past the limit, so never more work than the positions.
        let mut out = Vec::new();
        for j in 0..len as i128 {
            let x = usize::try_from(a + s * j).ok().and_then(|i| g.coords.get(i)).ok_or_else(|| Error::Invalid {
                what: format!(
                    "chain: step {step} reads entry {} of a list of {} coordinates",
                    a + s * j,
                    g.coords.len()
                ),
            })?;
            let piece = match p.mode.source_index(*x, w.len) {
                None => Piece::Const { len: 1, step },
                Some(z) => Piece::Read { len: 1, z0: coord(w.lo as i128 + z as i128)?, dz: 0 },
            };
            push_piece(&mut out, piece);
            if out.len() > MAX_SEGMENTS_PER_AXIS {
                return Ok(None);
            }
        }
        return Ok(Some(out));
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
fn track(levels: &[Level<'_>], l: usize, k: usize, extent: u64) -> Result<Digit, Error> {
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
        Some(p) => (DigitMap::Pieces(p), Vec::new()),
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
            (DigitMap::Table(table), rule.stages)
        }
    };
    Ok(Digit { extent, period, head_axis: head, map, stages })
}
