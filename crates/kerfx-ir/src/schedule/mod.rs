//! The schedule shared by both backends: a [`crate::map::Map`] → [`LoopNest`], a fill → [`FillNest`].
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

mod fill_nest;
mod map_nest;
mod nest;
mod strided;

pub use crate::table::{Table, TableRule, TableStage};
pub use fill_nest::{FillBody, FillNest, LinDim, fill};
pub use map_nest::{map_nest, map_strided, map_views};
pub use nest::{
    Dim, FillHead, Indexing, LoopNest, MAX_DIMS, MAX_SEGMENT_PRODUCT, MAX_SEGMENTS_PER_AXIS, OutView, Run, Segment,
};
pub use strided::Strided;

use crate::error::Error;
use crate::plan::Plan;
use std::fmt;

/// A scheduled plan.
#[derive(Clone, Debug, PartialEq)]
pub enum Schedule {
    /// A plan that reads an input (every map), as a loop nest.
    Slice(LoopNest),
    /// A fill, which reads no input.
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

/// Schedule any plan: a step through its map ([`crate::map::Map::of`]).
pub fn schedule(plan: &Plan) -> Result<Schedule, Error> {
    Ok(match plan {
        Plan::Step(_) => Schedule::Slice(map_nest(&crate::map::Map::of(plan)?)?),
        Plan::Fill(p) => Schedule::Fill(fill(p)?),
    })
}
