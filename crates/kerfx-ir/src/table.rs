//! Index tables and the rule each is computed by.
//!
//! An axis with too many segments is indexed by a table of one offset per position of
//! its period ([`crate::schedule::Indexing::Table`]). The JIT copies the entries into its
//! argument block; generated Rust (the derive, `kerf expand`) cannot carry millions of
//! entries as literals, so it computes them once at run time from the table's
//! [`TableRule`]: the boundary modes' formula, a few numbers per axis.

use crate::error::Error;
use crate::plan::BoundaryMode;
use std::sync::Arc;

/// One step of a table's rule: the position `v` reads coordinate `x = start + step·v` of
/// an axis whose mode sees `len` elements from element `lo` — or, on a gathered axis
/// ([`crate::plan::Gathered`]), entry `start + step·v` of its list `coords` — and becomes
/// `lo + z` for z the mode's index of x ([`BoundaryMode::source_index`]). A slice's table
/// has one stage; a chain's has one per step its axis goes through, the outermost step
/// first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TableStage {
    /// How a coordinate outside `[0, len)` is mapped in, or is a fill.
    pub mode: BoundaryMode,
    /// The coordinate position 0 reads (on a gathered axis, the list entry).
    pub start: i64,
    /// The coordinate step between positions (negative to read backwards).
    pub step: i64,
    /// The first element the mode sees, added to its index.
    pub lo: u64,
    /// How many elements the mode sees; 0 makes every position a fill.
    pub len: u64,
    /// On a gathered axis, the list of coordinates, read at entry `start + step·v`.
    pub coords: Option<Arc<[i64]>>,
}

/// How entry y of a table is computed: y through every stage in order, times `scale`
/// (the axis's input stride).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TableRule {
    /// The stages, the outermost step first.
    pub stages: Vec<TableStage>,
    /// The axis's input stride, in elements.
    pub scale: i64,
}

impl TableRule {
    /// Where position `y` leads after every stage: `Ok(v)`, or `Err(i)` when stage i
    /// reads outside its axis (a fill). An error when a coordinate overflows i64.
    pub fn walk(&self, y: u64) -> Result<Result<u64, usize>, Error> {
        let mut v = y;
        for (i, s) in self.stages.iter().enumerate() {
            let x = s.start as i128 + s.step as i128 * v as i128;
            let x = match &s.coords {
                // (An entry past the list, only in a hand-built rule, reads as i128::MAX:
                // an overflow below.)
                Some(c) => usize::try_from(x).ok().and_then(|i| c.get(i)).map_or(i128::MAX, |&c| c as i128),
                None => x,
            };
            let x = i64::try_from(x).map_err(|_| Error::Overflow {
                op: "table".into(),
                what: "a coordinate".into(),
                value: x.to_string(),
            })?;
            let z = if s.len == 0 { None } else { s.mode.source_index(x, s.len) };
            let Some(z) = z else { return Ok(Err(i)) };
            v = s.lo.checked_add(z).ok_or_else(|| Error::Overflow {
                op: "table".into(),
                what: "a coordinate".into(),
                value: format!("{} + {z}", s.lo),
            })?;
        }
        Ok(Ok(v))
    }

    /// Entry `y`: the coordinate [`TableRule::walk`] reaches times `scale` (`None` for a
    /// fill, or an entry outside i64).
    pub fn entry(&self, y: u64) -> Option<i64> {
        let v = self.walk(y).ok()?.ok()?;
        i64::try_from(v as i128 * self.scale as i128).ok()
    }

    /// Whether `entries` are this rule's entries of positions 0, 1, …: what a backend that
    /// computes the table (instead of copying it) checks before relying on it.
    pub fn computes(&self, entries: &[i64]) -> bool {
        entries.iter().enumerate().all(|(y, &e)| self.entry(y as u64) == Some(e))
    }
}

/// An index table: one offset per position of a dim's period, and the rule that
/// computes them (see the module doc). Derefs to the entries.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Table {
    /// The offsets, in elements, one per position of the period.
    pub entries: Vec<i64>,
    /// The rule that computes `entries`.
    pub rule: TableRule,
}

impl std::ops::Deref for Table {
    type Target = [i64];
    fn deref(&self) -> &[i64] {
        &self.entries
    }
}

impl<'a> IntoIterator for &'a Table {
    type Item = &'a i64;
    type IntoIter = std::slice::Iter<'a, i64>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter()
    }
}
