//! Static slice kernels: every number of the nest baked in, segments unrolled (looped
//! dims walked, see [`super::walk`]; tiled blocks, see [`crate::tile`]).

use super::moves::{FillVal, Levels, Moves};
use super::walk::{FillRest, Floor, Next, Walked, first_repetition};
use crate::abi::push_segments;
use crate::builder::{Elem, Gen, clip, mf};
use crate::policy;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value, types};
use kerfx_ir::schedule::{Indexing, LoopNest, Run, Segment};

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
    /// Whether the two innermost dims move as streamed rows ([`policy::stream_rows`]).
    rowed: bool,
    /// Whether the dim outside streamed rows moves them in bands ([`policy::row_blocks`]).
    blocked: bool,
}

impl<'n> StaticSlice<'n> {
    /// Lower `nest`; returns its argument block.
    pub fn emit(g: &mut Gen, nest: &'n LoopNest, elem: Elem) -> Vec<i64> {
        let mut block = Vec::new();
        let looped = policy::walked_dims(nest, g.stream);
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
        let fill = match (nest.fills, elem) {
            // Fill levels come from the argument block.
            _ if !nest.levels.is_empty() => FillVal::None,
            (true, Elem::Bytes(w)) => FillVal::Bytes(g.splat_const(w, nest.fill_bits)),
            (true, Elem::Nibble) => FillVal::Nibble(g.b.ins().iconst(types::I32, (nest.fill_bits & 15) as i64)),
            (false, _) => FillVal::None,
        };
        let stream = policy::slice_stages(nest, g.stream);
        let head = nest.head.as_ref().map(|h| {
            let at = block.len() as i64;
            block.extend(crate::head::encode(&h.0));
            g.addi(g.args, at * 8)
        });
        let levels = (!nest.levels.is_empty()).then(|| {
            let at = block.len() as i64;
            block.extend(kerfx_rt::dynamic::encode_levels(&nest.levels));
            Levels { table: g.addi(g.args, at * 8), top: g.c(nest.levels.len() as i64 - 1) }
        });
        let floor = levels.map(|_| g.c(-1));
        let dense = (0..nest.dims.len()).map(|k| nest.dense_from(k)).collect();
        let (tiled, rowed) = (policy::tiles(nest), policy::stream_rows(nest, g.stream));
        let blocked = policy::row_blocks(nest, g.stream);
        let moves = Moves { elem, fill, stream, head, levels, filling: None };
        let me = StaticSlice { nest, moves, words, looped, dense, tiled, rowed, blocked };
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

    /// The byte addresses of a block of the two innermost dims that a host function moves
    /// (see [`policy::tiles`], [`policy::stream_rows`]): its first input element (input
    /// offset `in_off` plus the innermost segment's) and its first output element (output
    /// offset `out_off`); with the element width, the innermost dim's extent and input
    /// stride.
    fn block_ends(&self, g: &mut Gen, in_off: Value, out_off: Value) -> (Value, Value, i64, u64, i64) {
        let inner = &self.nest.dims[self.nest.dims.len() - 1];
        let (Elem::Bytes(w), Some(&[Segment::Affine { offset, stride, .. }])) = (self.moves.elem, inner.segments())
        else {
            unreachable!("a host-moved block has whole-byte elements and one innermost affine segment")
        };
        let wi = w as i64;
        let i = g.addi(in_off, offset);
        let s = g.muli(i, wi);
        let src = g.add(g.inp, s);
        let d = g.muli(out_off, wi);
        let dst = g.add(g.out, d);
        (src, dst, wi, inner.extent, stride)
    }

    /// `count` positions of the next-to-innermost dim from input offset `in_seg` (stepping
    /// `stride`) and output offset `out_seg`, with the innermost dim: one block for
    /// [`crate::tile::tile_copy`] (see [`policy::tiles`] for the shape of such nests).
    fn tile(&self, g: &mut Gen, in_seg: Value, stride: i64, out_seg: Value, count: Value) {
        let (src, dst, wi, cols, cs) = self.block_ends(g, in_seg, out_seg);
        let args = [
            dst,
            src,
            count,
            g.c(cols as i64),
            g.c(stride * wi),
            g.c(cs * wi),
            g.c(cols as i64 * wi),
            g.c(wi),
            g.c(g.stream as i64),
        ];
        g.call_helper(crate::host::Helper::TileCopy, &args);
    }

    /// `count` positions of the next-to-innermost dim from input offset `in_seg` (stepping
    /// `stride`) and output offset `out_seg`, with the innermost dim: contiguous rows
    /// written one after another, for [`crate::stream::stream_rows`] (see
    /// [`policy::stream_rows`] for the shape of such nests).
    fn rows(&self, g: &mut Gen, in_seg: Value, stride: i64, out_seg: Value, count: Value) {
        let (src, dst, wi, cols, _) = self.block_ends(g, in_seg, out_seg);
        let args = [dst, src, count, g.c(cols as i64 * wi), g.c(stride * wi)];
        g.call_helper(crate::host::Helper::StreamRows, &args);
    }

    /// `count` positions of the dim outside streamed rows from input offset `in_seg`
    /// (stepping `stride`) and output offset `out_seg`, each with the two dims inside it:
    /// blocks of rows for [`crate::stream::stream_row_blocks`] (see
    /// [`policy::row_blocks`]).
    fn row_blocks(&self, g: &mut Gen, in_seg: Value, stride: i64, out_seg: Value, count: Value) {
        let dims = &self.nest.dims;
        let rows = &dims[dims.len() - 2];
        let Some(&[Segment::Affine { offset, stride: row_stride, .. }]) = rows.segments() else {
            unreachable!("row blocks read their rows from one affine segment")
        };
        let first_row = g.addi(in_seg, offset);
        let (src, dst, wi, cols, _) = self.block_ends(g, first_row, out_seg);
        let args =
            [dst, src, count, g.c(stride * wi), g.c(rows.extent as i64), g.c(cols as i64 * wi), g.c(row_stride * wi)];
        g.call_helper(crate::host::Helper::StreamRowBlocks, &args);
    }

    /// `count` positions of a next-to-innermost table dim, their offsets the table's
    /// entries from `table` on (added to `in_off`), with the innermost dim: contiguous rows
    /// written one after another, for [`crate::stream::stream_table_rows`].
    fn table_rows(&self, g: &mut Gen, in_off: Value, table: Value, out_seg: Value, count: Value) {
        let (src, dst, wi, cols, _) = self.block_ends(g, in_off, out_seg);
        let args = [dst, src, count, g.c(cols as i64 * wi), table, g.c(wi)];
        g.call_helper(crate::host::Helper::StreamTableRows, &args);
    }

    /// Whether `seg`, an affine segment of the dim outside streamed rows, moves as row
    /// blocks ([`policy::row_blocks_pay`]).
    fn blocks_pay(&self, seg: &Segment) -> bool {
        let dims = &self.nest.dims;
        match (seg, dims[dims.len() - 2].segments()) {
            (&Segment::Affine { len, stride, .. }, Some(&[Segment::Affine { stride: row_stride, .. }])) => {
                policy::row_blocks_pay(len, stride, row_stride)
            }
            _ => false,
        }
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
                            } else if self.rowed && k + 2 == self.nest.dims.len() {
                                self.rows(g, in_seg, stride, out_seg, count);
                            } else if self.blocked && k + 3 == self.nest.dims.len() && self.blocks_pay(seg) {
                                self.row_blocks(g, in_seg, stride, out_seg, count);
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
                } else if self.rowed && k + 2 == self.nest.dims.len() {
                    let f8 = g.muli(first, 8);
                    let t = g.add(tab, f8);
                    let fo = g.muli(first, os);
                    let out_seg = g.add(o, fo);
                    self.table_rows(g, in_off, t, out_seg, count);
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
