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

mod axis;
mod chain_nest;
mod fill_nest;
mod nest;
mod slice_nest;
mod strided;

pub use crate::table::{Table, TableRule, TableStage};
pub(crate) use axis::axis_coords;
pub use chain_nest::{chain, chain_strided, chain_views};
pub use fill_nest::{FillBody, FillNest, LinDim, fill};
pub use nest::{
    Dim, FillHead, Indexing, LoopNest, MAX_DIMS, MAX_SEGMENT_PRODUCT, MAX_SEGMENTS_PER_AXIS, OutView, Run, Segment,
};
pub use slice_nest::{nest_mode, slice, slice_strided, slice_views};
pub use strided::Strided;

use crate::error::Error;
use crate::plan::Plan;
use std::fmt;

/// A scheduled plan.
#[derive(Clone, Debug, PartialEq)]
pub enum Schedule {
    Slice(LoopNest),
    Fill(FillNest),
}

/// The nest's listing (what `kerf demo --verbose` and the derive's docs show).
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
