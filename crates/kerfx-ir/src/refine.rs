//! Lining up the reshapes of a chain: where one step's core axes and the next step's
//! source axes are two factorizations of one row-major volume that do not pair axis for
//! axis, both are split into their common refinement (the factors between every suffix
//! product of either), each split rewriting a step's reads exactly: a source axis of
//! extent d = d'·f read as two axes (x = x'·f + x''), a core axis of extent e = e'·f
//! walked as two (y = y'·f + y''). A read splits when it stays inside its axis and its
//! step lines up with the factor (whole reads, aligned slices, reversals, broadcasts);
//! otherwise the steps do not fuse and the chain is cut there.

use crate::plan::{AxisRead, Step, Window};

/// The factors of the common refinement of two shapes of one volume (unit axes left
/// out), innermost first; `None` when a factor would not be whole (e.g. [2, 3] and
/// [3, 2]) or the volume is 0.
fn refinement(a: &[u64], b: &[u64]) -> Option<Vec<u64>> {
    let suffixes = |s: &[u64]| {
        let mut out = vec![1u128];
        for &d in s.iter().rev() {
            out.push(out.last()? * d as u128);
        }
        Some(out)
    };
    let (pa, pb) = (suffixes(a)?, suffixes(b)?);
    if pa.last() != pb.last() || pa.last() == Some(&0) {
        return None;
    }
    let mut cuts: Vec<u128> = pa.into_iter().chain(pb).collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts.windows(2).map(|w| (w[1] % w[0] == 0).then(|| (w[1] / w[0]) as u64)).collect()
}

/// How `shape`'s axes split into the refinement's factors (innermost first): per axis,
/// its factors outermost first.
fn groups(shape: &[u64], factors: &[u64]) -> Vec<Vec<u64>> {
    let mut out = vec![Vec::new(); shape.len()];
    let mut f = factors.iter();
    for (k, &d) in shape.iter().enumerate().rev() {
        let mut left = d;
        while left > 1 {
            let Some(&g) = f.next() else { break };
            out[k].insert(0, g);
            left /= g;
        }
    }
    out
}

/// Whether every coordinate of `a` lies in [0, d).
fn inside(a: &AxisRead, d: u64) -> bool {
    a.extent == 0 || [a.x(0), a.x(a.extent - 1)].iter().all(|&x| 0 <= x && x < d as i128)
}

/// Source axis d = (d/f)·f: the reads of the outer and inner axes, whose core extents
/// multiply to the old one (the inner core axis follows the outer), or `None`.
fn split_by_source(a: AxisRead, d: u64, f: u64) -> Option<[AxisRead; 2]> {
    if !inside(&a, d) || f == 0 || !d.is_multiple_of(f) || a.extent == 0 {
        return None;
    }
    let (s, t, e) = (a.start, a.step, a.extent);
    let fi = i64::try_from(f).ok()?;
    let (q, r) = (s.div_euclid(fi), s.rem_euclid(fi));
    if t % fi == 0 {
        // The inner coordinate never moves.
        return Some([AxisRead { extent: e, start: q, step: t / fi }, AxisRead { extent: 1, start: r, step: 0 }]);
    }
    let u = t.unsigned_abs();
    if !f.is_multiple_of(u) {
        return None;
    }
    let m = f / u; // inner positions per outer one
    let fits = if t > 0 { (r as u64) < u } else { r as u64 >= f - u };
    (e % m == 0 && fits)
        .then_some([AxisRead { extent: e / m, start: q, step: t.signum() }, AxisRead { extent: m, start: r, step: t }])
}

/// Core axis e = (e/f)·f, reading source axis d by `a`: the inner source factor g (the
/// source axis becomes d/g and g) and the two reads, or `None`.
fn split_by_core(a: AxisRead, d: u64, f: u64) -> Option<(u64, [AxisRead; 2])> {
    if !inside(&a, d) || f == 0 || !a.extent.is_multiple_of(f) {
        return None;
    }
    let (s, t, e1) = (a.start, a.step, a.extent / f);
    if t == 0 {
        return Some((1, [AxisRead { extent: e1, start: s, step: 0 }, AxisRead { extent: f, start: 0, step: 0 }]));
    }
    let u = t.unsigned_abs();
    let g = u.checked_mul(f)?;
    if !d.is_multiple_of(g) {
        return None;
    }
    let gi = i64::try_from(g).ok()?;
    let (q, r) = (s.div_euclid(gi), s.rem_euclid(gi));
    let fits = if t > 0 { (r as u64) < u } else { r as u64 >= g - u };
    fits.then_some((
        g,
        [AxisRead { extent: e1, start: q, step: t.signum() }, AxisRead { extent: f, start: r, step: t }],
    ))
}

/// Replace source axis `k` of `p` by two, of extents `outer` and `inner`, read by `reads`,
/// their core axes where the old one was, outer first.
fn replace_source_axis(p: &mut Step, k: usize, (outer, inner): (u64, u64), reads: [AxisRead; 2]) {
    let mut source = p.source().to_vec();
    source.splice(k..k + 1, [outer, inner]);
    let n = p.axes.len();
    let mut order: Vec<usize> = (0..n).map(|j| p.source_axis(j)).collect();
    let at = order.iter().position(|&j| j == k).unwrap_or(n);
    for j in &mut order {
        if *j > k {
            *j += 1;
        }
    }
    order.insert(at + 1, k + 1);
    p.axes.splice(k..k + 1, reads);
    if let Some(g) = &mut p.gathered
        && g.axis > k
    {
        g.axis += 1;
    }
    if !p.windows.is_empty() {
        p.windows.splice(k..k + 1, [Window { lo: 0, len: outer }, Window { lo: 0, len: inner }]);
    }
    p.set_reading(source, order);
}

/// Whether source axis `k`'s window is the whole axis (a split keeps no window).
fn whole_window(p: &Step, k: usize) -> bool {
    let w = p.window(k);
    w.lo == 0 && w.len == p.source()[k]
}

/// Split the source axes of `upper` and the core axes of `lower` into the common
/// refinement of `lower`'s core shape and `upper`'s source shape. `false` (plans
/// untouched or partly split, either way still valid) when some read does not split.
pub(crate) fn align(lower: &mut Step, upper: &mut Step) -> bool {
    let nonunit = |s: &[u64]| s.iter().copied().filter(|&d| d != 1).collect::<Vec<_>>();
    let (core, source) = (lower.core_shape(), upper.source().to_vec());
    if nonunit(&core) == nonunit(&source) {
        return true;
    }
    let Some(factors) = refinement(&nonunit(&core), &nonunit(&source)) else { return false };
    // The upper step's source axes, innermost split first so indices stay put.
    for (k, fs) in groups(&source, &factors).into_iter().enumerate().rev() {
        for i in (1..fs.len()).rev() {
            let (outer, inner) = (fs[..i].iter().product::<u64>(), fs[i]);
            let d = outer * inner;
            // A gathered axis's coordinates are a list, not a read that splits.
            if !whole_window(upper, k) || upper.gathers(k) {
                return false;
            }
            let Some(reads) = split_by_source(upper.axes[k], d, inner) else { return false };
            replace_source_axis(upper, k, (outer, inner), reads);
        }
    }
    // The lower step's core axes, innermost first.
    for (j, fs) in groups(&core, &factors).into_iter().enumerate().rev() {
        for i in (1..fs.len()).rev() {
            let k = lower.source_axis(j);
            let d = lower.source()[k];
            if !whole_window(lower, k) || lower.gathers(k) {
                return false;
            }
            let Some((g, reads)) = split_by_core(lower.axes[k], d, fs[i]) else { return false };
            replace_source_axis(lower, k, (d / g, g), reads);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refinements_cut_at_every_suffix_product() {
        assert_eq!(refinement(&[6, 4], &[2, 12]), Some(vec![4, 3, 2]));
        assert_eq!(refinement(&[2, 3], &[3, 2]), None);
        assert_eq!(refinement(&[0, 3], &[3, 0]), None);
        assert_eq!(groups(&[6, 4], &[4, 3, 2]), vec![vec![2, 3], vec![4]]);
    }

    #[test]
    fn reads_split_exactly() {
        // A whole axis of 6 read as 2 x 3.
        let whole = AxisRead { extent: 6, start: 0, step: 1 };
        let [o, i] = split_by_source(whole, 6, 3).unwrap();
        assert_eq!((o, i), (AxisRead { extent: 2, start: 0, step: 1 }, AxisRead { extent: 3, start: 0, step: 1 }));
        // Every coordinate of every split equals the original's.
        for (a, d, f) in [
            (AxisRead { extent: 4, start: 7, step: -1 }, 8, 2),
            (AxisRead { extent: 3, start: 1, step: 2 }, 6, 2),
            (AxisRead { extent: 5, start: 2, step: 0 }, 4, 2),
            (AxisRead { extent: 4, start: 4, step: 1 }, 8, 4),
        ] {
            if let Some([o, i]) = split_by_source(a, d, f) {
                for y in 0..a.extent {
                    let (y1, y2) = (y / i.extent, y % i.extent);
                    assert_eq!(o.x(y1) * f as i128 + i.x(y2), a.x(y), "{a:?} source split by {f}");
                }
            }
            for g in [2u64, 4] {
                if let Some((inner, [o, i])) = split_by_core(a, d, g) {
                    for y in 0..a.extent {
                        let (y1, y2) = (y / g, y % g);
                        assert_eq!(o.x(y1) * inner as i128 + i.x(y2), a.x(y), "{a:?} core split by {g}");
                    }
                }
            }
        }
    }
}
