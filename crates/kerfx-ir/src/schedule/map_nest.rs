//! The one nest builder: a [`Map`] (through optional input and output views) to a `LoopNest`.

use super::nest::NO_VIEW_IN_FILL_MODE;
use super::strided::core_out_strides;
use super::{Dim, FillHead, Indexing, LoopNest, OutView, Segment, Strided, Table, TableRule};
use crate::error::Error;
use crate::map::{DigitMap, Head, Map, Outcome, Piece};

pub(super) fn to_i64(v: i128, what: &str) -> Result<i64, Error> {
    i64::try_from(v).map_err(|_| Error::Overflow { op: "schedule".into(), what: what.into(), value: v.to_string() })
}

/// An axis while the nest is built.
#[derive(Clone, Debug)]
pub(super) struct Axis {
    pub(super) extent: u64,
    pub(super) period: u64,
    pub(super) indexing: Indexing,
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

/// A map as a loop nest, for any dtype (strings included: the reference's, and a
/// listing's; backends that move bytes refuse them). Its facts are the map's kind: fill
/// positions take the value of the one step whose fill they are, or — where the
/// elements take two fill values, or fill positions lie on digits that repeat or are
/// tables — a value by level ([`LoopNest::levels`], a table with fill positions becoming
/// segments). A map that starts with a fill gets a nest whose offsets index that fill
/// ([`LoopNest::head`]).
pub fn map_nest(f: &Map) -> Result<LoopNest, Error> {
    map_views(f, None, None)
}

/// [`map_nest`] reading the map's input through a view (any strides, zero and negative
/// ones included): the nest's offsets are the view's buffer offsets, and axes merge only
/// where the view's strides continue each other. The view is checked to lie inside its
/// buffer first (an error naming the axis otherwise), and the nest verified against the
/// buffer's length.
pub fn map_strided(f: &Map, input: &Strided) -> Result<LoopNest, Error> {
    map_views(f, Some(input), None)
}

/// [`map_nest`] reading its input and writing its output through views (either `None`:
/// dense): the output view has positive strides whose elements do not overlap (checked,
/// an error naming the axis otherwise), and axes merge only where both views' strides
/// continue; the nest's [`LoopNest::out_view`] holds the view's offset and buffer. A map
/// with a fill head or fill levels writes no output view (an error): its nest walks and
/// writes row-major output positions.
pub fn map_views(f: &Map, view: Option<&Strided>, output: Option<&Strided>) -> Result<LoopNest, Error> {
    f.validate()?;
    // A fill head is indexed as a dense tensor of its shape (see `LoopNest::head`).
    let (shape, head) = match &f.head {
        Head::Input { shape } => (shape, None),
        Head::Fill(p) if view.is_none() => (&p.shape, Some(FillHead(p.clone()))),
        Head::Fill(_) => {
            return Err(Error::Invalid { what: "a map that starts with a fill reads no input view".into() });
        }
    };
    let steps = f.const_steps();
    let all = || f.axes.iter().chain(&f.fixed);
    // The value of fill positions: the first filling step's (a map of a kind that fills
    // but fills nowhere keeps its first step's, which no element takes).
    let fill_bits = steps.first().map(|s| f.fill_bits[s - 1]);
    let fill_bits = fill_bits.or_else(|| f.kind.fills.then(|| f.fill_bits.first().copied().unwrap_or(0)));
    // A table of offsets only in a map of a kind that repeats (its kernels read tables).
    let tabled = |a: &crate::map::Digit| f.kind.repeats && a.reads_table();
    let irregular = all().any(|a| a.repeats() || tabled(a));
    // One fill value on regular digits: a plain nest. Otherwise each filling step is a
    // level (in step order: a later step's fill wins).
    let levelled = !steps.is_empty() && (irregular || steps.iter().any(|s| Some(f.fill_bits[s - 1]) != fill_bits));
    let levels: Vec<u128> = if levelled { steps.iter().map(|s| f.fill_bits[s - 1]).collect() } else { Vec::new() };
    let level = |step: usize| if levelled { steps.binary_search(&step).unwrap_or(0) } else { 0 };
    if output.is_some() && (head.is_some() || levelled) {
        return Err(Error::Invalid { what: NO_VIEW_IN_FILL_MODE.into() });
    }
    let core = f.core_shape();
    let output_len = crate::tensor::volume(&core).filter(|&n| n <= i64::MAX as u64);
    let input_len = crate::tensor::volume(shape).filter(|&n| n <= i64::MAX as u64);
    let (Some(output_len), Some(input_len)) = (output_len, input_len) else {
        return Err(Error::TooLarge { what: "a map of more than 2^63 elements".into() });
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
        fills: f.kind.fills,
        repeats: f.kind.repeats,
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
        return Ok(nest);
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
        let what = "offset";
        let read = |len: u64, z0: i64, dz: i64| -> Result<Segment, Error> {
            if unread {
                return Ok(Segment::fill_at(len, 0));
            }
            Ok(Segment::Affine { len, offset: to_i64(z0 as i128 * t, what)?, stride: to_i64(dz as i128 * t, what)? })
        };
        let indexing = match &a.map {
            DigitMap::Pieces(p) => Indexing::Segments(
                p.iter()
                    .map(|p| match *p {
                        Piece::Const { len, step } => Ok(Segment::fill_at(len, level(step))),
                        Piece::Read { len, z0, dz } => read(len, z0, dz),
                    })
                    .collect::<Result<_, Error>>()?,
            ),
            DigitMap::Table(entries) if !unread && tabled(a) => Indexing::Table(Table {
                entries: entries
                    .iter()
                    .map(|o| match *o {
                        Outcome::Read(z) => to_i64(z as i128 * t, what),
                        Outcome::Const(_) => unreachable!("checked: no fill positions"),
                    })
                    .collect::<Result<_, Error>>()?,
                rule: TableRule { stages: a.stages.clone(), scale: to_i64(t, what)? },
            }),
            DigitMap::Table(entries) => {
                // Fill positions in a table, or a kind that does not repeat: its positions
                // as segments (runs that continue each other merged), at most one per entry.
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
    finish(nest, axes, view.offset, out_strides.as_deref())
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

/// The rest of building a nest from its axes (one per output axis, in order, extent-1
/// axes anywhere) and, with an output view, their output strides: all-fill when an axis
/// is, extent-1 axes dropped into the base, axes merged where both the input offsets
/// and the output strides continue, dims with row-major (or the view's) output strides;
/// verified.
pub(super) fn finish(
    mut nest: LoopNest,
    axes: Vec<Axis>,
    base: i64,
    out_strides: Option<&[i64]>,
) -> Result<LoopNest, Error> {
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
