//! The innermost runs of a slice nest, shared by static and dynamic kernels: fills (by
//! value or by level), affine runs of a known or run-time stride, table gathers, a fill
//! head's computed runs, and an output view's scattered runs (see [`crate::runs`],
//! [`crate::nibbles`]).

use crate::builder::{Elem, Gen, elem_type, mf};
use crate::policy;
use crate::runs::Splat;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, StackSlot, Value, types};
use kerfx_ir::schedule::Run;

/// The fill value in the form the runs take.
#[derive(Copy, Clone)]
pub(super) enum FillVal {
    Bytes(Splat),
    Nibble(Value),
    None,
}

/// Common parts of static and dynamic slice lowering.
pub(super) struct Moves {
    pub(super) elem: Elem,
    pub(super) fill: FillVal,
    /// Reversed and strided runs go through a stack buffer and cache-bypassing stores
    /// (large static outputs; see [`crate::stream`]).
    pub(super) stream: bool,
    /// The address of a fill head's block (see [`crate::head`]): the offsets index that
    /// fill, whose elements runs compute instead of loading.
    pub(super) head: Option<Value>,
    /// A nest with fill levels (`LoopNest::levels`): where their values are.
    pub(super) levels: Option<Levels>,
    /// A dynamic kernel writing output views in fill mode: a byte on the stack, set while
    /// the dims inside a fill position run, so that their innermost runs write the fill
    /// value (the dims are walked once whether they read or fill: linear code).
    pub(super) filling: Option<StackSlot>,
}

/// The fill values of a nest's levels: 16 bytes each (two argument words, little-endian:
/// `kerfx_rt::dynamic::encode_levels`) from address `table`; `top` is the highest level.
#[derive(Copy, Clone)]
pub(crate) struct Levels {
    pub(super) table: Value,
    pub(super) top: Value,
}

impl Moves {
    /// `count` fill elements from output element `out_off`.
    pub(super) fn fill(&self, g: &mut Gen, out_off: Value, count: Value, known: Option<u64>) {
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
    pub(super) fn fill_level(&self, g: &mut Gen, level: Value, out_off: Value, count: Value) {
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
    pub(super) fn head_run(
        &self,
        g: &mut Gen,
        head: Value,
        in_off: Value,
        stride: Value,
        out_off: Value,
        count: Value,
    ) {
        let Elem::Bytes(w) = self.elem else { unreachable!("fills produce byte elements") };
        let d = g.muli(out_off, w as i64);
        let dst = g.add(g.out, d);
        crate::head::emit_run(g, dst, head, in_off, stride, count);
    }

    /// An innermost table run: element j reads offset `in_off + table[j]` and writes
    /// `out_off + j·os` (`os` `None`: 1).
    pub(super) fn gather(
        &self,
        g: &mut Gen,
        tab: Value,
        in_off: Value,
        out_off: Value,
        count: Value,
        os: Option<Value>,
    ) {
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
    pub(super) fn scatter(
        &self,
        g: &mut Gen,
        in_off: Value,
        in_step: Option<Value>,
        out_off: Value,
        os: Value,
        count: Value,
    ) {
        let Elem::Bytes(w) = self.elem else {
            unreachable!("nests writing nibbles are dense (refused in compile.rs and abi.rs)")
        };
        let fill = match (in_step, self.fill) {
            (Some(_), _) => None,
            (None, FillVal::Bytes(s)) => Some(g.splat_element(s)),
            (None, _) => unreachable!("fill segments exist only in fill mode"),
        };
        g.scatter(w, in_off, in_step, fill, out_off, os, count);
    }

    /// `count` fill elements of an innermost dim `os` elements apart (1: one contiguous
    /// fill).
    pub(super) fn fill_view(&self, g: &mut Gen, out_off: Value, os: Value, count: Value) {
        let one = g.b.ins().icmp_imm_s(IntCC::Equal, os, 1);
        g.if_else(one, |g| self.fill(g, out_off, count, None), |g| self.scatter(g, out_off, None, out_off, os, count));
    }

    /// An innermost run of an output view whose stride `os` is known at run time only.
    pub(super) fn run_view(&self, g: &mut Gen, in_off: Value, stride: Value, out_off: Value, os: Value, count: Value) {
        let one = g.b.ins().icmp_imm_s(IntCC::Equal, os, 1);
        g.if_else(
            one,
            |g| self.run_dyn(g, in_off, stride, out_off, count),
            |g| self.scatter(g, in_off, Some(stride), out_off, os, count),
        );
    }

    /// `moved` (an innermost run's reads and writes), or its `count` elements filled when
    /// a dim outside is at a fill position (see [`Moves::filling`]).
    pub(super) fn unless_filling(
        &self,
        g: &mut Gen,
        out_off: Value,
        os: Value,
        count: Value,
        moved: impl FnOnce(&mut Gen),
    ) {
        let Some(slot) = self.filling else { return moved(g) };
        let f = g.b.ins().stack_load(types::I64, types::I8, slot, 0);
        g.if_else(f, |g| self.fill_view(g, out_off, os, count), moved);
    }

    /// The input step of an innermost run.
    pub(super) fn step_of(g: &mut Gen, run: Run) -> Option<Value> {
        match run {
            Run::Copy => Some(g.c(1)),
            Run::Reverse => Some(g.c(-1)),
            Run::Broadcast => Some(g.c(0)),
            Run::Strided(s) => Some(g.c(s)),
            Run::Fill => None,
        }
    }

    /// An innermost affine run whose stride is known.
    pub(super) fn run(&self, g: &mut Gen, run: Run, in_off: Value, out_off: Value, count: Value, known: Option<u64>) {
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
    pub(super) fn run_dyn(&self, g: &mut Gen, in_off: Value, stride: Value, out_off: Value, count: Value) {
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
