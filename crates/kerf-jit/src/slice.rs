//! Slice lowering: a slice's loop nest as nested dims whose segments are runs (see
//! [`crate::runs`], [`crate::nibbles`]); static kernels unroll every segment with its
//! numbers baked in, dynamic ones walk segment descriptors in the argument block (layout
//! in [`crate::abi::dyn_slice`]).
//!
//! A repeating dim (wrap, reflect) writes one period and copies it forward from the
//! output itself ([`crate::repeat`]); the hot loops hold no modulo or division (one
//! division per call finds where the split range starts).

use crate::abi::{dyn_slice, push_segments};
use crate::builder::{Elem, Gen, clip, elem_type, mf};
use crate::policy;
use crate::runs::Splat;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, StackSlot, StackSlotData, StackSlotKind, Value, types};
use kerf_ir::BoundaryMode;
use kerf_ir::schedule::{Indexing, LoopNest, Run, Segment};

/// The element layout of a dtype (`None` for strings).
pub(crate) fn elem_of(dtype: kerf_ir::DType) -> Option<Elem> {
    match dtype.layout() {
        kerf_ir::dtype::Layout::Bytes(w) => Some(Elem::Bytes(w as u8)),
        kerf_ir::dtype::Layout::Nibbles => Some(Elem::Nibble),
        kerf_ir::dtype::Layout::Strings => None,
    }
}

/// The fill value in the form the runs take.
#[derive(Copy, Clone)]
enum FillVal {
    Bytes(Splat),
    Nibble(Value),
    None,
}

/// Common parts of static and dynamic slice lowering.
struct Moves {
    elem: Elem,
    fill: FillVal,
    /// Reversed and strided runs go through a stack buffer and cache-bypassing stores
    /// (large static outputs; see [`crate::stream`]).
    stream: bool,
    /// The address of a fill head's block (see [`crate::head`]): the offsets index that
    /// fill, whose elements runs compute instead of loading.
    head: Option<Value>,
    /// A nest with fill levels (`LoopNest::levels`): where their values are.
    levels: Option<Levels>,
    /// A dynamic kernel writing output views in fill mode: a byte on the stack, set while
    /// the dims inside a fill position run, so that their innermost runs write the fill
    /// value (the dims are walked once whether they read or fill: linear code).
    filling: Option<StackSlot>,
}

/// The fill values of a nest's levels: 16 bytes each (two argument words, little-endian)
/// from address `table`; `top` is the highest level.
#[derive(Copy, Clone)]
pub(crate) struct Levels {
    table: Value,
    top: Value,
}

impl Levels {
    /// The argument words of fill values by level (see [`Levels`]).
    pub(crate) fn encode(values: &[u128]) -> Vec<i64> {
        values.iter().flat_map(|v| [*v as u64 as i64, (*v >> 64) as u64 as i64]).collect()
    }
}

impl Moves {
    /// `count` fill elements from output element `out_off`.
    fn fill(&self, g: &mut Gen, out_off: Value, count: Value, known: Option<u64>) {
        match (self.elem, self.fill) {
            (Elem::Bytes(w), FillVal::Bytes(s)) => {
                let d = g.muli(out_off, w as i64);
                let d = g.add(g.out, d);
                let n = g.muli(count, w as i64);
                g.fill_bytes(d, n, known.map(|k| k * w as u64), s);
            }
            (Elem::Nibble, FillVal::Nibble(v)) => g.nib_fill(out_off, count, v),
            _ => unreachable!("fill segments exist only in fill mode"),
        }
    }

    /// `count` elements from output element `out_off` with the fill value of `level` (a
    /// run-time value).
    fn fill_level(&self, g: &mut Gen, level: Value, out_off: Value, count: Value) {
        let lv = self.levels.expect("fill levels are set up for nests that have them");
        let at = g.muli(level, 16);
        let at = g.add(lv.table, at);
        match self.elem {
            Elem::Bytes(w) => {
                let x = g.b.ins().load(elem_type(w), mf(), at, 0);
                let s = g.splat(w, x);
                let d = g.muli(out_off, w as i64);
                let d = g.add(g.out, d);
                let n = g.muli(count, w as i64);
                g.fill_bytes(d, n, None, s);
            }
            Elem::Nibble => {
                let x = g.b.ins().uload8(types::I32, mf(), at, 0);
                let v = g.b.ins().band_imm_s(x, 15);
                g.nib_fill(out_off, count, v);
            }
        }
    }

    /// Elements `in_off + stride·j` (j < count) of the fill head at output element `out_off`.
    fn head_run(&self, g: &mut Gen, head: Value, in_off: Value, stride: Value, out_off: Value, count: Value) {
        let Elem::Bytes(w) = self.elem else { unreachable!("fills produce byte elements") };
        let d = g.muli(out_off, w as i64);
        let dst = g.add(g.out, d);
        crate::head::emit_run(g, dst, head, in_off, stride, count);
    }

    /// An innermost table run: element j reads offset `in_off + table[j]` and writes
    /// `out_off + j·os` (`os` `None`: 1).
    fn gather(&self, g: &mut Gen, tab: Value, in_off: Value, out_off: Value, count: Value, os: Option<Value>) {
        let Some(head) = self.head else { return g.gather(self.elem, tab, in_off, out_off, count, os) };
        assert!(os.is_none(), "nests with a fill head write dense outputs (schedule refuses views)");
        let zero = g.c(0);
        g.for_range(zero, count, |g, j| {
            let ta = g.muli(j, 8);
            let ta = g.add(tab, ta);
            let e = g.ld(types::I64, ta, 0);
            let i = g.add(in_off, e);
            let o = g.add(out_off, j);
            let (zero, one) = (g.c(0), g.c(1));
            self.head_run(g, head, i, zero, o, one);
        });
    }

    /// `count` elements of an output view's innermost dim, `os` elements apart (not 1):
    /// read from `in_off` stepping `in_step`, or the fill value (`in_step` `None`).
    fn scatter(&self, g: &mut Gen, in_off: Value, in_step: Option<Value>, out_off: Value, os: Value, count: Value) {
        let Elem::Bytes(w) = self.elem else { unreachable!("nests writing nibbles are dense (refused in nest.rs)") };
        let fill = match (in_step, self.fill) {
            (Some(_), _) => None,
            (None, FillVal::Bytes(s)) => Some(g.splat_element(s)),
            (None, _) => unreachable!("fill segments exist only in fill mode"),
        };
        g.scatter(w, in_off, in_step, fill, out_off, os, count);
    }

    /// `count` fill elements of an innermost dim `os` elements apart (1: one contiguous
    /// fill).
    fn fill_view(&self, g: &mut Gen, out_off: Value, os: Value, count: Value) {
        let one = g.b.ins().icmp_imm_s(IntCC::Equal, os, 1);
        g.if_else(one, |g| self.fill(g, out_off, count, None), |g| self.scatter(g, out_off, None, out_off, os, count));
    }

    /// An innermost run of an output view whose stride `os` is known at run time only.
    fn run_view(&self, g: &mut Gen, in_off: Value, stride: Value, out_off: Value, os: Value, count: Value) {
        let one = g.b.ins().icmp_imm_s(IntCC::Equal, os, 1);
        g.if_else(
            one,
            |g| self.run_dyn(g, in_off, stride, out_off, count),
            |g| self.scatter(g, in_off, Some(stride), out_off, os, count),
        );
    }

    /// `moved` (an innermost run's reads and writes), or its `count` elements filled when
    /// a dim outside is at a fill position (see [`Moves::filling`]).
    fn unless_filling(&self, g: &mut Gen, out_off: Value, os: Value, count: Value, moved: impl FnOnce(&mut Gen)) {
        let Some(slot) = self.filling else { return moved(g) };
        let f = g.b.ins().stack_load(types::I64, types::I8, slot, 0);
        g.if_else(f, |g| self.fill_view(g, out_off, os, count), moved);
    }

    /// The input step of an innermost run.
    fn step_of(g: &mut Gen, run: Run) -> Option<Value> {
        match run {
            Run::Copy => Some(g.c(1)),
            Run::Reverse => Some(g.c(-1)),
            Run::Broadcast => Some(g.c(0)),
            Run::Strided(s) => Some(g.c(s)),
            Run::Fill => None,
        }
    }

    /// An innermost affine run whose stride is known.
    fn run(&self, g: &mut Gen, run: Run, in_off: Value, out_off: Value, count: Value, known: Option<u64>) {
        if let Some(head) = self.head
            && run != Run::Fill
        {
            let stride = match run {
                Run::Copy => 1,
                Run::Reverse => -1,
                Run::Broadcast => 0,
                Run::Strided(s) => s,
                Run::Fill => unreachable!("handled below"),
            };
            let s = g.c(stride);
            return self.head_run(g, head, in_off, s, out_off, count);
        }
        match self.elem {
            Elem::Bytes(w) => {
                let wi = w as i64;
                let s = g.muli(in_off, wi);
                let src = g.add(g.inp, s);
                let d = g.muli(out_off, wi);
                let dst = g.add(g.out, d);
                match run {
                    Run::Copy => {
                        let n = g.muli(count, wi);
                        g.copy_bytes(dst, src, n, known.map(|k| k * w as u64), w as u64);
                    }
                    Run::Reverse if self.stream && policy::stages(known.map(|k| k * w as u64)) => {
                        g.staged(dst, count, w, |g, buf, at, n| {
                            let back = g.muli(at, wi);
                            let first = g.sub(src, back);
                            g.reverse(w, buf, first, n)
                        });
                    }
                    Run::Reverse => g.reverse(w, dst, src, count),
                    Run::Broadcast => {
                        let x = g.b.ins().load(elem_type(w), mf(), src, 0);
                        let sp = g.splat(w, x);
                        let n = g.muli(count, wi);
                        g.fill_bytes(dst, n, known.map(|k| k * w as u64), sp);
                    }
                    Run::Strided(2)
                        if self.stream && policy::stages(known.map(|k| k * w as u64)) && policy::stride2_streams(w) =>
                    {
                        g.stream_stride2(dst, src, count, w)
                    }
                    Run::Strided(st) if self.stream && policy::stages(known.map(|k| k * w as u64)) => {
                        g.staged(dst, count, w, |g, buf, at, n| {
                            let from = g.muli(at, st * wi);
                            let from = g.add(src, from);
                            let sv = g.c(st);
                            g.strided(w, buf, from, sv, Some(st), n)
                        });
                    }
                    Run::Strided(st) => {
                        let sv = g.c(st);
                        g.strided(w, dst, src, sv, Some(st), count);
                    }
                    Run::Fill => self.fill(g, out_off, count, known),
                }
            }
            Elem::Nibble => match run {
                Run::Copy => g.nib_copy(in_off, out_off, count),
                Run::Broadcast => {
                    let v = g.nib_get(in_off);
                    g.nib_fill(out_off, count, v);
                }
                Run::Reverse => {
                    let s = g.c(-1);
                    g.nib_affine(in_off, s, out_off, count)
                }
                Run::Strided(st) => {
                    let s = g.c(st);
                    g.nib_affine(in_off, s, out_off, count)
                }
                Run::Fill => self.fill(g, out_off, count, known),
            },
        }
    }

    /// An innermost affine run whose stride is a run-time value.
    fn run_dyn(&self, g: &mut Gen, in_off: Value, stride: Value, out_off: Value, count: Value) {
        if let Some(head) = self.head {
            return self.head_run(g, head, in_off, stride, out_off, count);
        }
        let is = |g: &mut Gen, k: i64| g.b.ins().icmp_imm_s(IntCC::Equal, stride, k);
        let c1 = is(g, 1);
        g.if_else(
            c1,
            |g| self.run(g, Run::Copy, in_off, out_off, count, None),
            |g| {
                let c0 = is(g, 0);
                g.if_else(
                    c0,
                    |g| self.run(g, Run::Broadcast, in_off, out_off, count, None),
                    |g| match self.elem {
                        Elem::Nibble => g.nib_affine(in_off, stride, out_off, count),
                        Elem::Bytes(w) => {
                            let cm = is(g, -1);
                            g.if_else(
                                cm,
                                |g| self.run(g, Run::Reverse, in_off, out_off, count, None),
                                |g| {
                                    let wi = w as i64;
                                    let s = g.muli(in_off, wi);
                                    let src = g.add(g.inp, s);
                                    let d = g.muli(out_off, wi);
                                    let dst = g.add(g.out, d);
                                    let c2 = is(g, 2);
                                    g.if_else(
                                        c2,
                                        |g| g.strided(w, dst, src, stride, Some(2), count),
                                        |g| g.strided(w, dst, src, stride, None, count),
                                    );
                                },
                            );
                        }
                    },
                );
            },
        );
    }
}

/// `floor(a / period) · period`: where the repetitions of a dim that cover positions
/// from `a` start. `a` is 0 except on the dim split over threads, so the division runs at
/// most once per call.
fn first_repetition(g: &mut Gen, a: Value, period: Value) -> Value {
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
type Next<'a> = Option<&'a dyn Fn(&mut Gen, Value, Value, Floor)>;

/// In a nest with fill levels, the level an outer dim's fill positions give the elements
/// below (a run-time value, −1 where they read); `None` in nests without levels.
type Floor = Option<Value>;

/// A dim whose segments are read at run time from descriptors in the argument block (see
/// [`dyn_slice`]): every dim of a dynamic kernel, looped dims of a static one.
#[derive(Copy, Clone)]
struct Walked {
    os: Value,
    period: Value,
    nseg: Value,
    /// Byte address of the first descriptor.
    segs: Value,
    /// Whether descriptors may be tables or fills (else all are affine), and whether the
    /// period may be shorter than the extent (else it is the extent).
    tables: bool,
    fills: bool,
    repeats: bool,
    /// Whether this dim and the ones inside it are dense in the output (see
    /// `LoopNest::dense_from`): else repetitions are recomputed rather than copied, fills
    /// go position by position, and innermost runs element by element.
    dense: bool,
    /// The extent, when known (a static kernel's): a walk over all of it from position 0
    /// takes every descriptor whole, without clipping.
    extent: Option<i64>,
}

/// The code that fills the output block of one position of a dim (all dims inside it),
/// from its output offset: for fills of dims that are not dense in the output.
type FillRest<'a> = Option<&'a dyn Fn(&mut Gen, Value)>;

impl Moves {
    /// Positions [b1, b) of a repeating dim, copied from the positions before them, where
    /// [a, b1) holds one period, written. No per-element work: the
    /// copied prefix doubles (see [`crate::repeat`]).
    fn repeat(&self, g: &mut Gen, out_off: Value, os: Value, a: Value, b1: Value, b: Value) {
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
    fn walk(
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
    fn walked_piece(
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
struct Piece {
    kind: Value,
    off: Value,
    stride: Value,
    first: Value,
    count: Value,
    /// The descriptor's address.
    sp: Value,
}

/// A static slice kernel: every number of the nest baked in, segments unrolled; the
/// tables and the looped dims' segment descriptors in the argument block.
pub(crate) struct StaticSlice<'n> {
    nest: &'n LoopNest,
    moves: Moves,
    /// Per dim: the word of its table (unrolled table dims) or of its descriptors (looped
    /// dims, see [`LoopNest::looped_dims`]).
    words: Vec<Option<i64>>,
    looped: Vec<bool>,
    /// Per dim k: `nest.dense_from(k)` (all true without an output view).
    dense: Vec<bool>,
    /// Whether the two innermost dims move as tiled blocks ([`policy::tiles`]).
    tiled: bool,
}

impl<'n> StaticSlice<'n> {
    /// Lower `nest`; returns its argument block.
    pub fn emit(g: &mut Gen, nest: &'n LoopNest, elem: Elem) -> Vec<i64> {
        let mut block = Vec::new();
        let looped = policy::walked_dims(nest);
        let words = nest
            .dims
            .iter()
            .zip(&looped)
            .map(|(dim, &looped)| match &dim.indexing {
                _ if looped => Some(push_segments(&mut block, dim)),
                Indexing::Table(t) => {
                    let w = block.len() as i64;
                    block.extend(t);
                    Some(w)
                }
                Indexing::Segments(_) => None,
            })
            .collect();
        if nest.dims.is_empty() {
            return block;
        }
        let fill = match (nest.mode, elem) {
            // Fill levels come from the argument block.
            _ if !nest.levels.is_empty() => FillVal::None,
            (BoundaryMode::Fill, Elem::Bytes(w)) => FillVal::Bytes(g.splat_const(w, nest.fill_bits)),
            (BoundaryMode::Fill, Elem::Nibble) => {
                FillVal::Nibble(g.b.ins().iconst(types::I32, (nest.fill_bits & 15) as i64))
            }
            _ => FillVal::None,
        };
        let stream = policy::slice_stages(nest);
        let head = nest.head.as_ref().map(|h| {
            let at = block.len() as i64;
            block.extend(crate::head::encode(&h.0));
            g.addi(g.args, at * 8)
        });
        let levels = (!nest.levels.is_empty()).then(|| {
            let at = block.len() as i64;
            block.extend(Levels::encode(&nest.levels));
            Levels { table: g.addi(g.args, at * 8), top: g.c(nest.levels.len() as i64 - 1) }
        });
        let floor = levels.map(|_| g.c(-1));
        let dense = (0..nest.dims.len()).map(|k| nest.dense_from(k)).collect();
        let tiled = policy::tiles(nest);
        let moves = Moves { elem, fill, stream, head, levels, filling: None };
        let me = StaticSlice { nest, moves, words, looped, dense, tiled };
        let base = g.c(nest.base);
        let out_base = g.c(nest.out_view.map_or(0, |v| v.base as i64));
        me.dim(g, 0, base, out_base, floor);
        block
    }

    /// `floor`: set in nests with fill levels, whose dims are all walked.
    fn dim(&self, g: &mut Gen, k: usize, in_off: Value, out_off: Value, floor: Floor) {
        let dim = &self.nest.dims[k];
        let inner = k + 1 == self.nest.dims.len();
        // The positions this call computes: dim 0's come from the thread split.
        let span = |g: &mut Gen| if k == 0 { (g.lo, g.hi) } else { (g.c(0), g.c(dim.extent as i64)) };
        let next = |g: &mut Gen, i: Value, o: Value, fl: Floor| self.dim(g, k + 1, i, o, fl);
        let next: Next<'_> = if inner { None } else { Some(&next) };
        let rest = |g: &mut Gen, o: Value| self.fill_from(g, k + 1, o);
        let rest: FillRest<'_> = if inner || self.dense[k] { None } else { Some(&rest) };
        if self.looped[k] {
            let word = self.words[k].expect("looped dims have descriptors");
            let d = Walked {
                os: g.c(dim.out_stride as i64),
                period: g.c(dim.period as i64),
                nseg: g.c(dim.pieces() as i64),
                segs: g.addi(g.args, word * 8),
                tables: matches!(dim.indexing, Indexing::Table(_)),
                fills: dim.segments().is_some_and(|s| s.iter().any(|s| s.run() == Run::Fill)),
                repeats: dim.repeats(),
                dense: self.dense[k],
                extent: Some(dim.extent as i64),
            };
            let (a, b) = span(g);
            return self.moves.walk(g, d, a, b, in_off, out_off, next, floor, rest);
        }
        assert!(floor.is_none(), "nests with fill levels walk every dim");
        let period = dim.period as i64;
        let zero = g.c(0);
        if !dim.repeats() {
            let range = (k == 0).then_some((g.lo, g.hi));
            return self.period_body(g, k, zero, range, in_off, out_off);
        }
        let (a, b) = span(g);
        // One period, then copies of it; where the output is not dense, every
        // repetition is computed.
        if k > 0 && self.dense[k] {
            self.period_body(g, k, zero, None, in_off, out_off);
            let (os, b1) = (g.c(dim.out_stride as i64), g.c(period));
            return self.moves.repeat(g, out_off, os, a, b1, b);
        }
        let b1 = if self.dense[k] {
            let ap = g.addi(a, period);
            g.smin(b, ap)
        } else {
            b
        };
        let p = g.c(period);
        let start = first_repetition(g, a, p);
        g.while_loop(
            &[start],
            |g, v| g.b.ins().icmp(IntCC::SignedLessThan, v[0], b1),
            |g, v| {
                let lo = g.sub(a, v[0]);
                let hi = g.sub(b1, v[0]);
                self.period_body(g, k, v[0], Some((lo, hi)), in_off, out_off);
                vec![g.addi(v[0], period)]
            },
        );
        if self.dense[k] {
            let os = g.c(dim.out_stride as i64);
            self.moves.repeat(g, out_off, os, a, b1, b);
        }
    }

    /// Fill the output block of dims `k..` from output offset `out_off`: one fill where
    /// it is dense, else position by position (a dim of an output view).
    fn fill_from(&self, g: &mut Gen, k: usize, out_off: Value) {
        let dims = &self.nest.dims;
        if k == dims.len() || self.dense[k] {
            let n: u64 = dims[k..].iter().map(|d| d.extent).product();
            let count = g.c(n as i64);
            return self.moves.fill(g, out_off, count, Some(n));
        }
        let count = g.c(dims[k].extent as i64);
        self.fill_positions(g, k, out_off, count);
    }

    /// Fill `count` positions of dim `k`, which is not dense (a dim of an output view),
    /// from output offset `out_off`: each the block of dims `k + 1..`.
    fn fill_positions(&self, g: &mut Gen, k: usize, out_off: Value, count: Value) {
        let dims = &self.nest.dims;
        let os = dims[k].out_stride as i64;
        if k + 1 == dims.len() {
            let os = g.c(os);
            return self.moves.scatter(g, out_off, None, out_off, os, count);
        }
        let zero = g.c(0);
        g.while_loop(
            &[zero, out_off],
            |g, v| g.b.ins().icmp(IntCC::SignedLessThan, v[0], count),
            |g, v| {
                self.fill_from(g, k + 1, v[1]);
                vec![g.addi(v[0], 1), g.addi(v[1], os)]
            },
        );
    }

    /// `count` positions of the next-to-innermost dim from input offset `in_seg` (stepping
    /// `stride`) and output offset `out_seg`, with the innermost dim: one block for
    /// [`crate::tile::tile_copy`] (see [`policy::tiles`] for the shape of such nests).
    fn tile(&self, g: &mut Gen, in_seg: Value, stride: i64, out_seg: Value, count: Value) {
        let inner = &self.nest.dims[self.nest.dims.len() - 1];
        let (Elem::Bytes(w), Some(&[Segment::Affine { offset, stride: cs, .. }])) = (self.moves.elem, inner.segments())
        else {
            unreachable!("policy::tiles takes whole-byte elements and one innermost affine segment")
        };
        let wi = w as i64;
        let i = g.addi(in_seg, offset);
        let s = g.muli(i, wi);
        let src = g.add(g.inp, s);
        let d = g.muli(out_seg, wi);
        let dst = g.add(g.out, d);
        let args = [
            dst,
            src,
            count,
            g.c(inner.extent as i64),
            g.c(stride * wi),
            g.c(cs * wi),
            g.c(inner.extent as i64 * wi),
            g.c(wi),
            g.c(g.stream as i64),
        ];
        g.call_helper(crate::host::Helper::TileCopy, &args);
    }

    /// The repetition of a dim's period that starts at position `ybase`, every segment
    /// unrolled: its positions [lo, hi) (relative to `ybase`), or all of them (`None`).
    fn period_body(
        &self,
        g: &mut Gen,
        k: usize,
        ybase: Value,
        range: Option<(Value, Value)>,
        in_off: Value,
        out_off: Value,
    ) {
        let dim = &self.nest.dims[k];
        let inner = k + 1 == self.nest.dims.len();
        let os = dim.out_stride as i64;
        // (first, count) of the positions [y0, y0 + len) of the period.
        let part = |g: &mut Gen, y0: u64, len: u64| match range {
            Some((lo, hi)) => {
                let (y, l) = (g.c(y0 as i64), g.c(len as i64));
                clip(g, lo, hi, y, l)
            }
            None => (g.c(0), g.c(len as i64)),
        };
        // Output offset of position y0 of this repetition.
        let out_at = |g: &mut Gen, y0: u64| match g.known(ybase) {
            Some(yb) => g.addi(out_off, (yb + y0 as i64) * os),
            None => {
                let y = g.addi(ybase, y0 as i64);
                let o = g.muli(y, os);
                g.add(out_off, o)
            }
        };
        match &dim.indexing {
            Indexing::Segments(segs) => {
                let mut y0 = 0u64;
                for seg in segs {
                    let len = seg.len();
                    let (first, count) = part(g, y0, len);
                    let known = range.is_none().then_some(len);
                    let o = out_at(g, y0);
                    let fo = g.muli(first, os);
                    let out_seg = g.add(o, fo);
                    match *seg {
                        Segment::Fill { .. } if self.dense[k] => {
                            let n = g.muli(count, os);
                            self.moves.fill(g, out_seg, n, known.map(|k| k * os as u64));
                        }
                        Segment::FillAt { .. } => unreachable!("nests with fill levels walk every dim"),
                        Segment::Fill { .. } => self.fill_positions(g, k, out_seg, count),
                        Segment::Affine { offset, stride, .. } => {
                            let i = g.addi(in_off, offset);
                            let fs = g.muli(first, stride);
                            let in_seg = g.add(i, fs);
                            if inner && self.dense[k] {
                                self.moves.run(g, seg.run(), in_seg, out_seg, count, known);
                            } else if inner {
                                let step = Moves::step_of(g, seg.run());
                                let osv = g.c(os);
                                self.moves.scatter(g, in_seg, step, out_seg, osv, count);
                            } else if self.tiled && k + 2 == self.nest.dims.len() {
                                self.tile(g, in_seg, stride, out_seg, count);
                            } else {
                                let zero = g.c(0);
                                g.while_loop(
                                    &[zero, in_seg, out_seg],
                                    |g, v| g.b.ins().icmp(IntCC::SignedLessThan, v[0], count),
                                    |g, v| {
                                        self.dim(g, k + 1, v[1], v[2], None);
                                        vec![g.addi(v[0], 1), g.addi(v[1], stride), g.addi(v[2], os)]
                                    },
                                );
                            }
                        }
                    }
                    y0 += len;
                }
            }
            Indexing::Table(_) => {
                let word = self.words[k].expect("table dims have a word offset");
                let (first, count) = part(g, 0, dim.period);
                let tab = g.addi(g.args, word * 8);
                let o = out_at(g, 0);
                if inner {
                    let f8 = g.muli(first, 8);
                    let t = g.add(tab, f8);
                    let fo = g.muli(first, os);
                    let o = g.add(o, fo);
                    let osv = (!self.dense[k]).then(|| g.c(os));
                    self.moves.gather(g, t, in_off, o, count, osv);
                } else {
                    let end = g.add(first, count);
                    g.for_range(first, end, |g, j| {
                        let j8 = g.muli(j, 8);
                        let ta = g.add(tab, j8);
                        let e = g.b.ins().load(types::I64, mf(), ta, 0);
                        let jo = g.muli(j, os);
                        let out_j = g.add(o, jo);
                        let i = g.add(in_off, e);
                        self.dim(g, k + 1, i, out_j, None);
                    });
                }
            }
        }
    }
}

/// A dynamic slice kernel for one mode, element layout and loop depth: the nest's
/// numbers come from the argument block (layout in [`dyn_slice`]). Every dim is one walk
/// whose code does not depend on the others': the code grows linearly with the depth.
pub(crate) struct DynSlice {
    depth: usize,
    /// Whether the mode repeats (wrap, reflect): only then do dims have periods shorter
    /// than their extents, or tables (see `Indexing::Table`).
    repeats: bool,
    fills: bool,
    /// Whether the kernel writes output views: no dim is taken as dense (repetitions are
    /// recomputed, fills of outer dims go position by position), innermost runs check
    /// their stride, and element 0's output offset is an argument.
    view: bool,
    moves: Moves,
}

impl DynSlice {
    pub fn emit(g: &mut Gen, mode: BoundaryMode, elem: Elem, depth: usize, view: bool) {
        let fill = if mode == BoundaryMode::Fill {
            let fa = g.addi(g.args, dyn_slice::FILL * 8);
            match elem {
                Elem::Bytes(w) => {
                    let x = g.b.ins().load(elem_type(w), mf(), fa, 0);
                    FillVal::Bytes(g.splat(w, x))
                }
                Elem::Nibble => {
                    let x = g.b.ins().uload8(types::I32, mf(), fa, 0);
                    FillVal::Nibble(g.b.ins().band_imm_s(x, 15))
                }
            }
        } else {
            FillVal::None
        };
        let fills = mode == BoundaryMode::Fill;
        let filling = (view && fills).then(|| {
            let slot = g.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 1, 0));
            let zero = g.b.ins().iconst(types::I8, 0);
            g.b.ins().stack_store(types::I64, zero, slot, 0);
            slot
        });
        let me = DynSlice {
            depth,
            repeats: mode.period(2).is_some(),
            fills,
            view,
            moves: Moves { elem, fill, stream: false, head: None, levels: None, filling },
        };
        let base = g.arg(dyn_slice::BASE);
        let out_base = if view { g.arg(dyn_slice::out_base(depth)) } else { g.c(0) };
        me.dim(g, 0, base, out_base, None);
    }

    /// The dynamic kernel of fused chains' nests that a plan's kernel does not run: ones
    /// with a fill head (`head`), or with fill levels (`fills`: every fill goes by level,
    /// a nest without levels has the one level `fill_bits`). Its dims may repeat and have
    /// tables. The words after the dims' headers locate the levels and the head (layout
    /// in [`dyn_slice::CHAIN`]).
    pub fn emit_chain(g: &mut Gen, elem: Elem, depth: usize, head: bool, fills: bool) {
        let area = dyn_slice::DIMS + dyn_slice::DIM_WORDS * depth as i64;
        let at = |g: &mut Gen, word: i64| {
            let w = g.arg(area + word);
            let w8 = g.muli(w, 8);
            g.add(g.args, w8)
        };
        let levels =
            fills.then(|| Levels { table: at(g, dyn_slice::CHAIN_LEVELS), top: g.arg(area + dyn_slice::CHAIN_TOP) });
        let head = head.then(|| at(g, dyn_slice::CHAIN_HEAD));
        let me = DynSlice {
            depth,
            repeats: true,
            fills,
            view: false,
            moves: Moves { elem, fill: FillVal::None, stream: false, head, levels, filling: None },
        };
        let base = g.arg(dyn_slice::BASE);
        let zero = g.c(0);
        let floor = fills.then(|| g.c(-1));
        me.dim(g, 0, base, zero, floor);
    }

    fn dim(&self, g: &mut Gen, k: usize, in_off: Value, out_off: Value, floor: Floor) {
        let hdr = dyn_slice::DIMS + dyn_slice::DIM_WORDS * k as i64;
        let extent = g.arg(hdr);
        let os = g.arg(hdr + 1);
        let period = g.arg(hdr + 2);
        let nseg = g.arg(hdr + 3);
        let sw = g.arg(hdr + 4);
        let s8 = g.muli(sw, 8);
        let segs = g.add(g.args, s8);
        let split = g.arg(dyn_slice::SPLIT);
        let is_split = g.b.ins().icmp_imm_s(IntCC::Equal, split, k as i64);
        let zero = g.c(0);
        let (lo, hi) = (g.lo, g.hi);
        let a = g.b.ins().select(is_split, lo, zero);
        let b = g.b.ins().select(is_split, hi, extent);
        let d = Walked {
            os,
            period,
            nseg,
            segs,
            tables: self.repeats,
            fills: self.fills,
            repeats: self.repeats,
            dense: !self.view,
            extent: None,
        };
        let next = |g: &mut Gen, i: Value, o: Value, fl: Floor| self.dim(g, k + 1, i, o, fl);
        let next: Next<'_> = if k + 1 == self.depth { None } else { Some(&next) };
        self.moves.walk(g, d, a, b, in_off, out_off, next, floor, None);
    }
}
