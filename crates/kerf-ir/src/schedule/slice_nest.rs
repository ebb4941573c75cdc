//! The slice nest builder: a `SlicePlan` (through optional input and output views) to a `LoopNest`.

use super::axis::{axis_coords, axis_table};
use super::chain_nest::push_merged;
use super::strided::core_out_strides;
use super::{Dim, Indexing, LoopNest, MAX_SEGMENTS_PER_AXIS, OutView, Segment, Strided, Table, TableRule, TableStage};
use crate::error::Error;
use crate::plan::{BoundaryMode, SlicePlan};

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
/// input stride, its window non-empty): one segment per run of coordinates that continue
/// each other, or — with more runs than [`MAX_SEGMENTS_PER_AXIS`] outside fill mode — a
/// table of their offsets. A fill-mode plan keeps its runs as segments (fill positions
/// are no table entry), so its kernel is the fill mode's; any other's tables run on the
/// kernels of modes that repeat (see `kerf-jit`'s `DynKey`).
fn gathered_axis(
    plan: &SlicePlan,
    g: &crate::plan::Gathered,
    k: usize,
    t: i128,
    what: &dyn Fn() -> String,
) -> Result<Indexing, Error> {
    let (a, w) = (plan.axes[k], plan.window(k));
    // Only fill mode reads outside the axis (validated), so only it has fill positions.
    let tabled = plan.mode != BoundaryMode::Fill;
    let mut segs: Vec<Segment> = Vec::new();
    let mut entries: Vec<i64> = Vec::new();
    if tabled {
        entries
            .try_reserve_exact(a.extent as usize)
            .map_err(|_| Error::TooLarge { what: format!("an index table of {} entries", a.extent) })?;
    }
    for y in 0..a.extent {
        let x = plan.x(k, y).and_then(|x| i64::try_from(x).ok());
        let x = x.ok_or_else(|| Error::Invalid { what: format!("{}: position {y} reads past its list", what()) })?;
        let s = match plan.mode.source_index(x, w.len) {
            None => Segment::Fill { len: 1 },
            Some(z) => {
                let offset = to_i64((w.lo as i128 + z as i128) * t, &what())?;
                if tabled {
                    entries.push(offset);
                }
                Segment::Affine { len: 1, offset, stride: 0 }
            }
        };
        push_merged(&mut segs, s);
    }
    if segs.len() <= MAX_SEGMENTS_PER_AXIS || !tabled {
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
