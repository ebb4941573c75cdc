//! The chain nest builder: a `FusedChain` (through optional input and output views) to a `LoopNest`.

use super::nest::NO_VIEW_IN_FILL_MODE;
use super::slice_nest::{Axis, finish, to_i64};
use super::strided::core_out_strides;
use super::{FillHead, Indexing, LoopNest, OutView, Segment, Strided, Table, TableRule};
#[cfg(doc)] // (the doc comments' links)
use super::{slice_strided, slice_views};
use crate::dtype::DType;
use crate::error::Error;
use crate::plan::BoundaryMode;

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
pub(super) fn push_merged(segs: &mut Vec<Segment>, s: Segment) {
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
