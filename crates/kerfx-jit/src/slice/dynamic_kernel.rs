//! Dynamic move kernels: one map kind, element layout and loop depth, every number of the
//! nest read from the argument block (layout in [`crate::abi::dyn_slice`]), every dim
//! walked (see [`super::walk`]).

use super::moves::{FillVal, Levels, Moves};
use super::walk::{Floor, Next, Walked};
use crate::abi::dyn_slice;
use crate::builder::{Elem, Gen, elem_type, mf};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, StackSlotData, StackSlotKind, Value, types};
use kerfx_ir::map::Kind;

/// A dynamic move kernel for one map kind, element layout and loop depth: the nest's
/// numbers come from the argument block (layout in [`dyn_slice`]). Every dim is one walk
/// whose code does not depend on the others': the code grows linearly with the depth.
pub(crate) struct DynSlice {
    depth: usize,
    /// Whether the kind repeats: only then do dims have periods shorter than their
    /// extents, or tables (see `Indexing::Table`).
    repeats: bool,
    fills: bool,
    /// Whether the kernel writes output views: no dim is taken as dense (repetitions are
    /// recomputed, fills of outer dims go position by position), innermost runs check
    /// their stride, and element 0's output offset is an argument.
    view: bool,
    moves: Moves,
}

impl DynSlice {
    pub fn emit(g: &mut Gen, kind: Kind, elem: Elem, depth: usize, view: bool) {
        let fill = if kind.fills {
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
        let fills = kind.fills;
        let filling = (view && fills).then(|| {
            let slot = g.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 1, 0));
            let zero = g.b.ins().iconst(types::I8, 0);
            g.b.ins().stack_store(types::I64, zero, slot, 0);
            slot
        });
        let me = DynSlice {
            depth,
            repeats: kind.repeats,
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
