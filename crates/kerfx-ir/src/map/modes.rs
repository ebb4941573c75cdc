//! Per-axis boundary-mode arithmetic: the coordinate segments and periods of one axis read
//! through a mode — where a step's modes are compiled into a map's pieces.

use super::MAX_SEGMENTS_PER_AXIS;
use crate::plan::BoundaryMode;

fn floor_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) { q - 1 } else { q }
}

fn ceil_div(a: i128, b: i128) -> i128 {
    -floor_div(-a, b)
}

/// A segment in coordinate space: z = z0 + dz·j, or the fill value.
#[derive(Copy, Clone, Debug)]
pub(crate) struct CoordSeg {
    pub(crate) len: u64,
    pub(crate) z: Option<(i128, i128)>,
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// How one axis's positions read the input, in coordinates.
#[derive(Clone, Debug)]
pub(crate) struct AxisCoords {
    /// Positions repeat with this period (≤ n; n when they do not repeat).
    pub(crate) period: u64,
    /// The segments of positions [0, period), or `None` when those would be more than
    /// `MAX_SEGMENTS_PER_AXIS`: then a table of the `period` coordinates is needed.
    pub(crate) segs: Option<Vec<CoordSeg>>,
}

/// The positions y ∈ [0, n) of an axis of extent `d > 0` reading x = a + s·y.
pub(crate) fn axis_coords(mode: BoundaryMode, a: i128, s: i128, n: u64, d: u64) -> AxisCoords {
    // Reduce the start and step modulo the mode's period p, which leaves z unchanged;
    // position y + P then reads as y does for P = p / gcd(s, p).
    let (a, s, repeat) = match mode.period(d) {
        Some(p) => {
            let p = p as i128;
            let mut s = s.rem_euclid(p);
            if s > p / 2 {
                s -= p;
            }
            let g = gcd(s.unsigned_abs(), p as u128) as i128; // gcd(0, p) = p: P = 1
            (a.rem_euclid(p), s, Some(p / g))
        }
        None => (a, s, None),
    };
    if let Some(segs) = axis_segments(mode, a, s, n, d as i128) {
        return AxisCoords { period: n, segs: Some(segs) };
    }
    match repeat {
        Some(p) if p < n as i128 => {
            let period = p as u64;
            AxisCoords { period, segs: axis_segments(mode, a, s, period, d as i128) }
        }
        _ => AxisCoords { period: n, segs: None },
    }
}

/// Affine coordinate segments of positions [0, n), or `None` when there would be more
/// than `MAX_SEGMENTS_PER_AXIS`. `d > 0`; wrap and reflect starts and steps reduced.
fn axis_segments(mode: BoundaryMode, a: i128, s: i128, n: u64, d: i128) -> Option<Vec<CoordSeg>> {
    let n_i = n as i128;
    let mut out: Vec<CoordSeg> = Vec::new();
    match mode {
        BoundaryMode::StrictBounds => out.push(CoordSeg { len: n, z: Some((a, s)) }),
        BoundaryMode::Fill => {
            let (lo, hi) = if s > 0 {
                (ceil_div(-a, s), floor_div(d - 1 - a, s) + 1)
            } else if s < 0 {
                (ceil_div(a - (d - 1), -s), floor_div(a, -s) + 1)
            } else if (0..d).contains(&a) {
                (0, n_i)
            } else {
                (0, 0)
            };
            let lo = lo.clamp(0, n_i);
            let hi = hi.clamp(lo, n_i);
            if lo > 0 {
                out.push(CoordSeg { len: lo as u64, z: None });
            }
            if hi > lo {
                out.push(CoordSeg { len: (hi - lo) as u64, z: Some((a + s * lo, s)) });
            }
            if n_i > hi {
                out.push(CoordSeg { len: (n_i - hi) as u64, z: None });
            }
        }
        BoundaryMode::Clamp | BoundaryMode::Wrap | BoundaryMode::Reflect | BoundaryMode::Symmetric => {
            let mut y: i128 = 0;
            while y < n_i {
                let x = a + s * y;
                // The region containing x (in the direction of travel), inclusive bounds,
                // and z = c + sigma·x on it.
                let (lo_x, hi_x, c, sigma) = region(mode, x, s, d);
                let room = if s > 0 {
                    floor_div(hi_x - x, s) + 1
                } else if s < 0 {
                    floor_div(x - lo_x, -s) + 1
                } else {
                    n_i
                };
                let len = room.min(n_i - y);
                out.push(CoordSeg { len: len as u64, z: Some((c + sigma * x, sigma * s)) });
                if out.len() > MAX_SEGMENTS_PER_AXIS {
                    return None;
                }
                y += len;
            }
        }
    }
    // Length-1 segments have stride 0; merge segments that continue each other.
    let mut merged: Vec<CoordSeg> = Vec::with_capacity(out.len());
    for mut seg in out {
        if seg.len == 1
            && let Some((z0, _)) = seg.z
        {
            seg.z = Some((z0, 0));
        }
        if let Some(prev) = merged.last_mut() {
            match (prev.z, seg.z) {
                (None, None) => {
                    prev.len += seg.len;
                    continue;
                }
                (Some((pz, pdz)), Some((z0, dz))) => {
                    let step = if prev.len == 1 { z0 - pz } else { pdz };
                    if (seg.len == 1 || dz == step) && pz + step * prev.len as i128 == z0 {
                        prev.len += seg.len;
                        prev.z = Some((pz, step));
                        continue;
                    }
                }
                _ => {}
            }
        }
        merged.push(seg);
    }
    (merged.len() <= MAX_SEGMENTS_PER_AXIS).then_some(merged)
}

/// The affine region of x for the clamp, wrap, reflect and symmetric formulas: (lo, hi,
/// c, sigma) with z = c + sigma·x for x in [lo, hi]. Reflect regions are chosen by the
/// direction of travel `s` so that a segment starting at a turning point continues past
/// it; symmetric regions do not share their ends (the edge element is repeated).
fn region(mode: BoundaryMode, x: i128, s: i128, d: i128) -> (i128, i128, i128, i128) {
    const INF: i128 = i128::MAX / 4;
    match mode {
        BoundaryMode::Clamp => {
            if x < 0 {
                (-INF, -1, 0, 0)
            } else if x < d {
                (0, d - 1, 0, 1)
            } else {
                (d, INF, d - 1, 0)
            }
        }
        BoundaryMode::Wrap => {
            let k = floor_div(x, d);
            (k * d, k * d + d - 1, -k * d, 1)
        }
        BoundaryMode::Symmetric => {
            if d == 1 {
                return (-INF, INF, 0, 0);
            }
            // On the period 2d from kp: ascending [kp, kp+d-1], descending [kp+d, kp+2d-1].
            let kp = floor_div(x, 2 * d) * 2 * d;
            if x - kp < d { (kp, kp + d - 1, -kp, 1) } else { (kp + d, kp + 2 * d - 1, kp + 2 * d - 1, -1) }
        }
        _ => {
            if d == 1 {
                return (-INF, INF, 0, 0);
            }
            let p = 2 * d - 2;
            let k = floor_div(x, p);
            let c = x - k * p;
            let kp = k * p;
            let ascending = (kp, kp + d - 1, -kp, 1);
            let descending = (kp + d - 1, kp + p, kp + p, -1);
            if s >= 0 {
                if c < d - 1 { ascending } else { descending }
            } else if c > 0 && c < d {
                ascending
            } else if c == 0 {
                (kp - p + d - 1, kp, kp, -1)
            } else {
                descending
            }
        }
    }
}
