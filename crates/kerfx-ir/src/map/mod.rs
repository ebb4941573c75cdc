//! The map: the one form every single-source movement takes below the frontends, and
//! the only one the schedule, and so every backend, sees.
//!
//! A frontend lowers an op to a [`Step`](crate::plan::Step) — the op's own reading of its input: a reshape
//! of it, per axis an affine read or a list of coordinates seen through a boundary mode,
//! a permutation, a reshape of the result. [`compose`] builds a [`Map`] from one step or
//! from a chain of them (a single op is a one-step chain): per output axis (a *digit*)
//! the head axis it reads and its [`Piece`]s — affine runs of coordinates, runs of a
//! step's fill value — or, where pieces would be too many, a table of one [`Outcome`]
//! per position of its period. Boundary modes are compiled into pieces here and exist
//! nowhere below: the map states its facts (fill values by step, periods, tables, and
//! [`Kind`], what maps of its op may need whatever their numbers).
//!
//! Composition follows every output axis down through the steps. A step reads its input
//! axis k at `x = start + step·y` through its boundary mode; applied to an affine run of
//! positions `y = z0 + dz·j` that is again an affine read, which the per-axis
//! segmentation splits into affine coordinate segments and runs outside the input. Two
//! steps may fill with two values; an element takes the fill value of the latest step any
//! of its axes falls outside of (that step's fill is what the unfused run writes there).
//! Shrunk and new axes are a reshape between steps: non-unit axes pair in order, a unit
//! axis reads its only coordinate 0; where a step's source and the step below's core
//! factor differently, `refine` splits both into their common refinement, and where
//! none exists [`compose_segments`] cuts the chain. A digit whose pieces would exceed
//! [`MAX_SEGMENTS_PER_AXIS`] (periodic modes over periodic modes, long coordinate lists)
//! becomes a table of one entry per position of its period — at most the axis's output
//! extent, never per output element.

mod compose;
mod eval;
mod modes;

pub use compose::{Segment, compose, compose_segments};
pub use eval::{evaluate, evaluate_segments};

use crate::dtype::DType;
use crate::error::Error;
use crate::plan::FillPlan;
use crate::schedule::MAX_SEGMENTS_PER_AXIS;
use crate::table::TableStage;
use crate::tensor::volume;
use std::fmt;

/// What a run of positions of a fused axis yields.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    /// `len` positions; the j-th reads coordinate `z0 + dz·j` of the head's axis
    /// ([`Digit::head_axis`]). A piece of length 1 has `dz` 0.
    Read {
        /// The number of positions.
        len: u64,
        /// The coordinate the first position reads.
        z0: i64,
        /// The coordinate step from one position to the next.
        dz: i64,
    },
    /// `len` positions outside the input of step `step` (from 1): its fill value.
    Const {
        /// The number of positions.
        len: u64,
        /// The step whose fill value they take (from 1).
        step: usize,
    },
}

impl Piece {
    /// The number of positions.
    pub fn len(&self) -> u64 {
        match *self {
            Piece::Read { len, .. } | Piece::Const { len, .. } => len,
        }
    }
    /// Whether the piece has no positions.
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
pub enum DigitMap {
    /// In order; their lengths add up to the period.
    Pieces(Vec<Piece>),
    /// One outcome per position of the period.
    Table(Vec<Outcome>),
}

/// One digit of a map: an output axis before the final reshape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Digit {
    /// The number of positions (the output axis's extent).
    pub extent: u64,
    /// Position y yields what position y mod period does (1 ≤ period ≤ extent, or 0 for
    /// an empty axis).
    pub period: u64,
    /// The head axis its reads are coordinates of; `None` when the axis ends in a unit
    /// axis a step inserted (it reads that axis's only coordinate, 0, or a fill value).
    pub head_axis: Option<usize>,
    /// What the positions of one period yield.
    pub map: DigitMap,
    /// For a table: the stages its positions go through down to the head (a
    /// [`TableRule`](crate::table::TableRule)'s), from which generated code computes it. Empty otherwise.
    pub stages: Vec<TableStage>,
}

impl Digit {
    /// What position `y` yields; `None` when the map does not say (an axis that fails
    /// [`Map::validate`]).
    pub fn outcome(&self, y: u64) -> Option<Outcome> {
        let mut y = y % self.period.max(1);
        match &self.map {
            DigitMap::Table(t) => t.get(usize::try_from(y).ok()?).copied(),
            DigitMap::Pieces(pieces) => {
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
    /// [`Map::validate`]), and its coordinates when `reads` (an empty output reads
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
            DigitMap::Pieces(pieces) => {
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
            DigitMap::Table(t) => {
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

    /// Whether the digit's positions repeat (a period shorter than its extent).
    pub fn repeats(&self) -> bool {
        self.period < self.extent
    }

    /// Whether the digit is a table without fill positions (which a map of a kind that
    /// repeats schedules as a table of offsets; any other table becomes segments).
    pub fn reads_table(&self) -> bool {
        matches!(&self.map, DigitMap::Table(t) if t.iter().all(|o| matches!(o, Outcome::Read(_))))
    }

    /// Whether some position reads the head (a map entry that is no fill value).
    fn reads(&self) -> bool {
        match &self.map {
            DigitMap::Pieces(p) => p.iter().any(|p| matches!(p, Piece::Read { .. })),
            DigitMap::Table(t) => t.iter().any(|o| matches!(o, Outcome::Read(_))),
        }
    }
    /// The steps whose fill values this axis yields.
    fn const_steps(&self) -> Vec<usize> {
        match &self.map {
            DigitMap::Pieces(p) => p
                .iter()
                .filter_map(|p| match p {
                    Piece::Const { step, .. } => Some(*step),
                    Piece::Read { .. } => None,
                })
                .collect(),
            DigitMap::Table(t) => t
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
    Input {
        /// The input's shape.
        shape: Vec<u64>,
    },
    /// The first step is this fill: the chain evaluates it at the elements it maps to.
    Fill(FillPlan),
}

/// What the maps of an op (or of a chain of ops) may need, whatever their numbers: the
/// facts a dynamic kernel, which runs every map of its kind, is compiled for. [`compose`]
/// sets them from the steps' modes; [`Map::validate`] checks the digits need no more.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Kind {
    /// Some element may take a step's fill value (a step fills outside its input).
    pub fills: bool,
    /// Some digit may repeat with a period shorter than its extent, or be a table (a
    /// step wraps or reflects, or reads a list of coordinates).
    pub repeats: bool,
}

impl Kind {
    /// What the maps of one step's op may need: fill values where its mode fills; periods
    /// and tables where its mode repeats (wrap, reflect, symmetric) or it reads a list of
    /// coordinates (outside fill mode: a gather that fills keeps its runs as segments).
    pub fn of(step: &crate::plan::Step) -> Kind {
        use crate::plan::BoundaryMode;
        Kind {
            fills: step.mode == BoundaryMode::Fill,
            repeats: step.mode.period(2).is_some() || (step.gathered.is_some() && step.mode != BoundaryMode::Fill),
        }
    }

    /// Either's needs.
    pub fn or(self, other: Kind) -> Kind {
        Kind { fills: self.fills || other.fills, repeats: self.repeats || other.repeats }
    }

    /// The facts as a name (`plain`, `fill`, `repeat`, `fill_repeat`): kernels' names.
    pub fn name(self) -> &'static str {
        match (self.fills, self.repeats) {
            (false, false) => "plain",
            (true, false) => "fill",
            (false, true) => "repeat",
            (true, true) => "fill_repeat",
        }
    }
}

/// Every single-source movement, and a chain of them, as one map: output element
/// (y_0, …) reads the head at the coordinates its digits yield, or the fill value of the
/// latest step one of its digits (or fixed digits) falls outside of.
#[derive(Clone, Debug, PartialEq)]
pub struct Map {
    /// The element type, the same in the input and the output.
    pub dtype: DType,
    /// What the map reads: the data input, or a fill it evaluates.
    pub head: Head,
    /// What maps of its op (or chain) may need, whatever their numbers.
    pub kind: Kind,
    /// The head read as this shape (a row-major reshape of [`Map::head_shape`]):
    /// the axes' `head_axis` index it. Empty: the head's own shape.
    pub source: Vec<u64>,
    /// Per step (index step − 1): its fill value's element bits (0 unless it fills).
    pub fill_bits: Vec<u128>,
    /// One per axis of the output before its final reshape (the last step's axes).
    pub axes: Vec<Digit>,
    /// Unit axes a step removed (shrink): one position each, the same for every element.
    pub fixed: Vec<Digit>,
    /// The output's shape: a row-major reshape of the digits' extents
    /// ([`Map::core_shape`]).
    pub output_shape: Vec<u64>,
}

impl Map {
    /// The head's shape: the data input's, or the fill's output's.
    pub fn head_shape(&self) -> &[u64] {
        match &self.head {
            Head::Input { shape } => shape,
            Head::Fill(f) => &f.shape,
        }
    }
    /// The shape the head is read as (see [`Map::source`]).
    pub fn source_shape(&self) -> &[u64] {
        if self.source.is_empty() { self.head_shape() } else { &self.source }
    }
    /// The output's shape before its final reshape: the digits' extents.
    pub fn core_shape(&self) -> Vec<u64> {
        self.axes.iter().map(|a| a.extent).collect()
    }
    /// The map of one lowered op (a one-step [`compose`]).
    pub fn of(plan: &crate::plan::Plan) -> Result<Map, Error> {
        compose(std::slice::from_ref(plan))
    }
    /// The steps whose fill values some element takes, in order.
    pub fn const_steps(&self) -> Vec<usize> {
        let mut s: Vec<usize> = self.axes.iter().chain(&self.fixed).flat_map(Digit::const_steps).collect();
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
    /// unchecked when the output is empty, as a step's),
    /// every fill value one of a step the chain has; fixed axes of one position; when
    /// some element reads the head, no empty head axis that no axis reads (those read
    /// coordinate 0); and digits that need no more than the [`Kind`] says (no fill value
    /// unless it fills, no period unless it repeats). O(rank + pieces + tables).
    /// [`compose`] builds only valid maps; the fields are public, so every public entry
    /// that takes a map ([`evaluate`], [`crate::schedule::map_views`] and so the JIT and
    /// the derive's code generator) calls this first.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |what: String| Err(Error::Invalid { what: format!("map: {what}") });
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
        let reads = core_len > 0 && self.axes.iter().chain(&self.fixed).all(Digit::reads);
        if reads && let Some(h) = (0..head.len()).find(|&h| read_by[h].is_none() && head[h] == 0) {
            return bad(format!("elements read the head at coordinate 0 of its axis {h}, which is empty"));
        }
        // The kind says what a kernel of it must handle: no digit may need more (an
        // empty output reads nothing, and its steps' plans check none of its reads).
        let all = || self.axes.iter().chain(&self.fixed);
        if core_len == 0 {
            return Ok(());
        }
        if !self.kind.fills && !self.const_steps().is_empty() {
            return bad("a digit yields a fill value, but its kind does not fill".into());
        }
        if !self.kind.repeats && all().any(Digit::repeats) {
            return bad("a digit repeats, but its kind does not repeat".into());
        }
        Ok(())
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Piece::Read { len, z0, dz } => write!(f, "{len}×read {z0}{dz:+}j"),
            Piece::Const { len, step } => write!(f, "{len}×fill(step {step})"),
        }
    }
}

fn write_axis(f: &mut fmt::Formatter<'_>, name: &str, a: &Digit) -> fmt::Result {
    write!(f, "\n  {name}: extent {}", a.extent)?;
    if a.period != a.extent {
        write!(f, " period {}", a.period)?;
    }
    match a.head_axis {
        Some(h) => write!(f, " head axis {h}:")?,
        None => write!(f, " unit axis a step inserted:")?,
    }
    match &a.map {
        DigitMap::Pieces(p) => {
            for p in p {
                write!(f, " [{p}]")?;
            }
            Ok(())
        }
        DigitMap::Table(t) => write!(f, " table of {} entries", t.len()),
    }
}

impl fmt::Display for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.head {
            Head::Input { shape } => write!(f, "map {} input {shape:?}", self.dtype)?,
            Head::Fill(p) => write!(f, "map {} from fill {:?} {:?}", self.dtype, p.shape, p.kind)?,
        }
        write!(f, " -> {:?}, kind {}", self.output_shape, self.kind.name())?;
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
