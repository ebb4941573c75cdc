//! Dims walked from segment descriptors (layout in [`crate::abi::dyn_slice`]): every dim
//! of a dynamic kernel and the looped dims of a static one, one period at a time, then
//! the repetitions copied forward ([`crate::repeat`]); with fill levels, the level each
//! block takes.

use super::moves::Moves;
use crate::abi::dyn_slice;
use crate::builder::{Elem, Gen, clip, mf};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value, types};

/// `floor(a / period) · period`: where the repetitions of a dim that cover positions
/// from `a` start. `a` is 0 except on the dim split over threads, so the division runs at
/// most once per call.
pub(super) fn first_repetition(g: &mut Gen, a: Value, period: Value) -> Value {
    if g.known(a) == Some(0) {
        return g.c(0);
    }
    let nz = g.b.ins().icmp_imm_s(IntCC::NotEqual, a, 0);
    g.if_else_vals(
        nz,
        |g| {
            let q = g.b.ins().udiv(a, period);
            vec![g.mul(q, period)]
        },
        |g| vec![g.c(0)],
    )[0]
}

/// The code of the next dim, for a position's input and output offsets and fill floor.
pub(super) type Next<'a> = Option<&'a dyn Fn(&mut Gen, Value, Value, Floor)>;

/// In a nest with fill levels, the level an outer dim's fill positions give the elements
/// below (a run-time value, −1 where they read); `None` in nests without levels.
pub(super) type Floor = Option<Value>;

/// A dim whose segments are read at run time from descriptors in the argument block (see
/// [`dyn_slice`]): every dim of a dynamic kernel, looped dims of a static one.
#[derive(Copy, Clone)]
pub(super) struct Walked {
    pub(super) os: Value,
    pub(super) period: Value,
    pub(super) nseg: Value,
    /// Byte address of the first descriptor.
    pub(super) segs: Value,
    /// Whether descriptors may be tables or fills (else all are affine), and whether the
    /// period may be shorter than the extent (else it is the extent).
    pub(super) tables: bool,
    pub(super) fills: bool,
    pub(super) repeats: bool,
    /// Whether this dim and the ones inside it are dense in the output (see
    /// `LoopNest::dense_from`): else repetitions are recomputed rather than copied, fills
    /// go position by position, and innermost runs element by element.
    pub(super) dense: bool,
    /// The extent, when known (a static kernel's): a walk over all of it from position 0
    /// takes every descriptor whole, without clipping.
    pub(super) extent: Option<i64>,
}

/// The code that fills the output block of one position of a dim (all dims inside it),
/// from its output offset: for fills of dims that are not dense in the output.
pub(super) type FillRest<'a> = Option<&'a dyn Fn(&mut Gen, Value)>;

impl Moves {
    /// Positions [b1, b) of a repeating dim, copied from the positions before them, where
    /// [a, b1) holds one period, written. No per-element work: the
    /// copied prefix doubles (see [`crate::repeat`]).
    pub(super) fn repeat(&self, g: &mut Gen, out_off: Value, os: Value, a: Value, b1: Value, b: Value) {
        let elems = |g: &mut Gen, from: Value, to: Value| {
            let n = g.sub(to, from);
            g.mul(n, os)
        };
        let at = g.mul(a, os);
        let at = g.add(out_off, at);
        let (filled, total) = (elems(g, a, b1), elems(g, a, b));
        match self.elem {
            Elem::Nibble => g.repeat_nibbles(at, filled, total),
            Elem::Bytes(w) => {
                let wi = w as i64;
                let at = g.muli(at, wi);
                let dst = g.add(g.out, at);
                let (filled, total) = (g.muli(filled, wi), g.muli(total, wi));
                g.repeat_bytes(dst, filled, total);
            }
        }
    }

    /// Positions [a, b) of a dim walked from its descriptors: one period from a, then
    /// [`Moves::repeat`]. The next dim's code (`next`, `None` for the innermost dim) is
    /// emitted once.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn walk(
        &self,
        g: &mut Gen,
        d: Walked,
        a: Value,
        b: Value,
        in_off: Value,
        out_off: Value,
        next: Next<'_>,
        floor: Floor,
        rest: FillRest<'_>,
    ) {
        // The positions [lo, hi) of the repetition from position `ybase`.
        let repetition = |g: &mut Gen, ybase: Value, lo: Value, hi: Value| {
            let zero = g.c(0);
            g.while_loop(
                &[zero, zero, d.segs],
                |g, v| g.b.ins().icmp(IntCC::SignedLessThan, v[0], d.nseg),
                |g, v| {
                    let (s, y0, sp) = (v[0], v[1], v[2]);
                    // (Without tables and fills every descriptor is affine.)
                    let kind = if d.tables || d.fills {
                        g.b.ins().load(types::I64, mf(), sp, 0)
                    } else {
                        g.c(dyn_slice::KIND_AFFINE)
                    };
                    let len = g.b.ins().load(types::I64, mf(), sp, 8);
                    let off = g.b.ins().load(types::I64, mf(), sp, 16);
                    let stride = g.b.ins().load(types::I64, mf(), sp, 24);
                    let whole = d.extent.is_some_and(|e| g.known(lo) == Some(0) && g.known(hi) == Some(e));
                    let (first, count) = if whole { (g.c(0), len) } else { clip(g, lo, hi, y0, len) };
                    let yf = g.add(ybase, y0);
                    let yf = g.add(yf, first);
                    let yo = g.mul(yf, d.os);
                    let out_seg = g.add(out_off, yo);
                    let piece = Piece { kind, off, stride, first, count, sp };
                    self.walked_piece(g, d, piece, in_off, out_seg, next, floor, rest);
                    vec![g.addi(s, 1), g.add(y0, len), g.addi(sp, 8 * dyn_slice::SEG_WORDS)]
                },
            );
        };
        if !d.repeats {
            let zero = g.c(0);
            return repetition(g, zero, a, b);
        }
        // One period from a (two repetitions at most when a is inside one), then copies;
        // where the output is not dense, every repetition is computed.
        let b1 = if d.dense {
            let ap = g.add(a, d.period);
            g.smin(b, ap)
        } else {
            b
        };
        let start = first_repetition(g, a, d.period);
        g.while_loop(
            &[start],
            |g, v| g.b.ins().icmp(IntCC::SignedLessThan, v[0], b1),
            |g, v| {
                let lo = g.sub(a, v[0]);
                let hi = g.sub(b1, v[0]);
                repetition(g, v[0], lo, hi);
                vec![g.add(v[0], d.period)]
            },
        );
        if d.dense {
            self.repeat(g, out_off, d.os, a, b1, b);
        }
    }

    /// Positions `[first, first + count)` of one descriptor, from output offset `out_seg`.
    /// With fill levels (`floor` set): the level of these positions is the higher of the
    /// floor and a fill descriptor's level (its offset word); where it is a level, the
    /// block is filled with it when no dim below can raise it (it is the top level, or
    /// this is the innermost dim), else each position's inner dims run with it as floor.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn walked_piece(
        &self,
        g: &mut Gen,
        d: Walked,
        p: Piece,
        in_off: Value,
        out_seg: Value,
        next: Next<'_>,
        floor: Floor,
        rest: FillRest<'_>,
    ) {
        let is = |g: &mut Gen, k: i64| g.b.ins().icmp_imm_s(IntCC::Equal, p.kind, k);
        let table_at = |g: &mut Gen| {
            let t = g.add(p.off, p.first);
            let t = g.muli(t, 8);
            g.add(g.args, t)
        };
        let in_aff = |g: &mut Gen| {
            let i = g.add(in_off, p.off);
            let fs = g.mul(p.first, p.stride);
            g.add(i, fs)
        };
        let not_fill = |g: &mut Gen| match next {
            None => {
                let run = |g: &mut Gen| {
                    let i = in_aff(g);
                    if d.dense {
                        self.run_dyn(g, i, p.stride, out_seg, p.count);
                    } else {
                        self.run_view(g, i, p.stride, out_seg, d.os, p.count);
                    }
                };
                let moved = |g: &mut Gen| {
                    if d.tables {
                        let t = is(g, dyn_slice::KIND_TABLE);
                        let os = (!d.dense).then_some(d.os);
                        g.if_else(
                            t,
                            |g| {
                                let tab = table_at(g);
                                self.gather(g, tab, in_off, out_seg, p.count, os)
                            },
                            run,
                        );
                    } else {
                        run(g);
                    }
                };
                self.unless_filling(g, out_seg, d.os, p.count, moved);
            }
            Some(next) => {
                // One loop for both kinds: an affine offset stepped by the stride, and a
                // table pointer stepped by 8 (a table) or 0 (pointing at the descriptor).
                let i = in_aff(g);
                let zero = g.c(0);
                // The loop's values: position, input offset, output offset, and with tables
                // the table pointer.
                let mut init = vec![zero, i, out_seg];
                let table = d.tables.then(|| {
                    let t = is(g, dyn_slice::KIND_TABLE);
                    let tab = table_at(g);
                    init.push(g.b.ins().select(t, tab, p.sp));
                    let eight = g.c(8);
                    (t, g.b.ins().select(t, eight, zero))
                });
                g.while_loop(
                    &init,
                    |g, v| g.b.ins().icmp(IntCC::SignedLessThan, v[0], p.count),
                    |g, v| {
                        let o = match table {
                            Some((t, _)) => {
                                let e = g.b.ins().load(types::I64, mf(), v[3], 0);
                                let e = g.add(in_off, e);
                                g.b.ins().select(t, e, v[1])
                            }
                            None => v[1],
                        };
                        next(g, o, v[2], floor);
                        let mut step = vec![g.addi(v[0], 1), g.add(v[1], p.stride), g.add(v[2], d.os)];
                        if let Some((_, tstep)) = table {
                            step.push(g.add(v[3], tstep));
                        }
                        step
                    },
                );
            }
        };
        if let (Some(floor), Some(lv)) = (floor, self.levels) {
            let level = if d.fills {
                let f = is(g, dyn_slice::KIND_FILL);
                let none = g.c(-1);
                let l = g.b.ins().select(f, p.off, none);
                g.smax(floor, l)
            } else {
                floor
            };
            let reads = g.b.ins().icmp_imm_s(IntCC::SignedLessThan, level, 0);
            let fill_block = |g: &mut Gen| {
                let n = g.mul(p.count, d.os);
                self.fill_level(g, level, out_seg, n);
            };
            let filled = |g: &mut Gen| match next {
                None => fill_block(g),
                Some(next) => {
                    let top = g.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, level, lv.top);
                    g.if_else(top, fill_block, |g| {
                        let zero = g.c(0);
                        g.while_loop(
                            &[zero, out_seg],
                            |g, v| g.b.ins().icmp(IntCC::SignedLessThan, v[0], p.count),
                            |g, v| {
                                next(g, in_off, v[1], Some(level));
                                vec![g.addi(v[0], 1), g.add(v[1], d.os)]
                            },
                        );
                    });
                }
            };
            return g.if_else(reads, not_fill, filled);
        }
        if let (true, Some(_), Some(slot)) = (d.fills, next, self.filling) {
            // The dims inside run once whatever the kind, with the flag set at a fill
            // position (and restored after: this may itself run inside one); the code of
            // the dims inside is emitted once, so it stays linear in the depth.
            let f = is(g, dyn_slice::KIND_FILL);
            let was = g.b.ins().stack_load(types::I64, types::I8, slot, 0);
            let now = g.b.ins().bor(was, f);
            g.b.ins().stack_store(types::I64, now, slot, 0);
            not_fill(g);
            g.b.ins().stack_store(types::I64, was, slot, 0);
        } else if d.fills {
            let f = is(g, dyn_slice::KIND_FILL);
            g.if_else(
                f,
                |g| match (d.dense, next, rest) {
                    (true, _, _) => {
                        let n = g.mul(p.count, d.os);
                        self.fill(g, out_seg, n, None);
                    }
                    (false, None, _) => self.fill_view(g, out_seg, d.os, p.count),
                    (false, Some(_), Some(rest)) => {
                        let zero = g.c(0);
                        g.while_loop(
                            &[zero, out_seg],
                            |g, v| g.b.ins().icmp(IntCC::SignedLessThan, v[0], p.count),
                            |g, v| {
                                rest(g, v[1]);
                                vec![g.addi(v[0], 1), g.add(v[1], d.os)]
                            },
                        );
                    }
                    (false, Some(_), None) => unreachable!("dynamic kernels writing views fill through the flag"),
                },
                not_fill,
            );
        } else {
            not_fill(g);
        }
    }
}

/// One descriptor's values while walking (see [`Moves::walk`]).
#[derive(Copy, Clone)]
pub(super) struct Piece {
    pub(super) kind: Value,
    pub(super) off: Value,
    pub(super) stride: Value,
    pub(super) first: Value,
    pub(super) count: Value,
    /// The descriptor's address.
    pub(super) sp: Value,
}
