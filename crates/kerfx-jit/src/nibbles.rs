//! Nibble runs: packed 4-bit elements, low nibble first.

use crate::builder::{Gen, mf};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value, types};

impl Gen<'_> {
    pub fn nib_get(&mut self, i: Value) -> Value {
        let byte = self.b.ins().ushr_imm_s(i, 1);
        let a = self.add(self.inp, byte);
        let x = self.b.ins().uload8(types::I32, mf(), a, 0);
        let odd = self.b.ins().band_imm_s(i, 1);
        let sh = self.b.ins().ishl_imm_s(odd, 2);
        let sh = self.b.ins().ireduce(types::I32, sh);
        let x = self.b.ins().ushr(x, sh);
        self.b.ins().band_imm_s(x, 15)
    }

    /// Write nibble `v` (an i32 in 0..16) at output index `o`, keeping the other nibble.
    pub fn nib_put(&mut self, o: Value, v: Value) {
        let byte = self.b.ins().ushr_imm_s(o, 1);
        let a = self.add(self.out, byte);
        let x = self.b.ins().uload8(types::I32, mf(), a, 0);
        let odd = self.b.ins().band_imm_s(o, 1);
        let sh = self.b.ins().ishl_imm_s(odd, 2);
        let sh = self.b.ins().ireduce(types::I32, sh);
        let m = self.b.ins().iconst(types::I32, 15);
        let m = self.b.ins().ishl(m, sh);
        let keep = self.b.ins().band_not(x, m);
        let v = self.b.ins().ishl(v, sh);
        let x = self.b.ins().bor(keep, v);
        self.b.ins().istore8(mf(), x, a, 0);
    }

    /// Any affine nibble run: out[o + j] = in[i + step·j].
    pub fn nib_affine(&mut self, i: Value, step: Value, o: Value, n: Value) {
        let end = self.add(o, n);
        self.while_loop(
            &[i, o],
            |g, v| g.b.ins().icmp(IntCC::SignedLessThan, v[1], end),
            |g, v| {
                let x = g.nib_get(v[0]);
                g.nib_put(v[1], x);
                vec![g.add(v[0], step), g.addi(v[1], 1)]
            },
        );
    }

    /// A contiguous nibble run: out[o..o+n] = in[i..i+n], bytes at a time when the
    /// parities agree, shifted 16 bytes at a time when they differ.
    pub fn nib_copy(&mut self, i: Value, o: Value, n: Value) {
        // Head: one nibble to reach an even output index.
        let o_odd = self.b.ins().band_imm_s(o, 1);
        let any = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, n, 0);
        let any = self.b.ins().uextend(types::I64, any);
        let head = self.b.ins().band(o_odd, any);
        self.if_then(head, |g| {
            let x = g.nib_get(i);
            g.nib_put(o, x);
        });
        let i = self.add(i, head);
        let o = self.add(o, head);
        let n = self.sub(n, head);
        let i_odd = self.b.ins().band_imm_s(i, 1);
        let r = self.if_else_vals(
            i_odd,
            |g| {
                // Odd input, even output: each output byte is the high nibble of one input
                // byte and the low nibble of the next; 32 nibbles (16 output bytes) per
                // vector, four vectors per step while they last.
                let steps = g.b.ins().ushr_imm_s(n, 5);
                let sb = g.b.ins().ushr_imm_s(i, 1);
                let sa = g.add(g.inp, sb);
                let db = g.b.ins().ushr_imm_s(o, 1);
                let da = g.add(g.out, db);
                let shifted = |g: &mut Self, sa: Value, da: Value, at: i32| {
                    let a = g.ld(types::I64X2, sa, at);
                    let b = g.ld(types::I64X2, sa, at + 1);
                    let four = g.b.ins().iconst(types::I32, 4);
                    let a = g.b.ins().ushr(a, four);
                    let b = g.b.ins().ishl(b, four);
                    let mut top = [0u8; 16];
                    top[7] = 0xf0;
                    top[15] = 0xf0;
                    let m = g.vconst(types::I64X2, top);
                    let b = g.b.ins().band(b, m);
                    let y = g.b.ins().bor(a, b);
                    g.st(y, da, at);
                };
                let r = g.while_loop(
                    &[sa, da, steps],
                    |g, v| g.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, v[2], 4),
                    |g, v| {
                        for k in 0..4 {
                            shifted(g, v[0], v[1], 16 * k);
                        }
                        vec![g.addi(v[0], 64), g.addi(v[1], 64), g.addi(v[2], -4)]
                    },
                );
                let r = g.while_loop(
                    &r,
                    |g, v| g.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, v[2], 0),
                    |g, v| {
                        shifted(g, v[0], v[1], 0);
                        vec![g.addi(v[0], 16), g.addi(v[1], 16), g.addi(v[2], -1)]
                    },
                );
                let _ = r;
                let done = g.b.ins().band_imm_s(n, !31);
                vec![g.add(i, done), g.add(o, done), g.sub(n, done)]
            },
            |g| {
                // Both even: whole bytes; an odd last nibble is left to the tail.
                let bytes = g.b.ins().ushr_imm_s(n, 1);
                let sb = g.b.ins().ushr_imm_s(i, 1);
                let sa = g.add(g.inp, sb);
                let db = g.b.ins().ushr_imm_s(o, 1);
                let da = g.add(g.out, db);
                g.copy_bytes(da, sa, bytes, None, 1);
                let done = g.b.ins().band_imm_s(n, !1);
                vec![g.add(i, done), g.add(o, done), g.sub(n, done)]
            },
        );
        let one = self.c(1);
        self.nib_affine(r[0], one, r[1], r[2]);
    }

    /// `n` nibbles of value `v` (an i32 in 0..16) from output index `o`.
    pub fn nib_fill(&mut self, o: Value, n: Value, v: Value) {
        let o_odd = self.b.ins().band_imm_s(o, 1);
        let any = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, n, 0);
        let any = self.b.ins().uextend(types::I64, any);
        let head = self.b.ins().band(o_odd, any);
        self.if_then(head, |g| g.nib_put(o, v));
        let o = self.add(o, head);
        let n = self.sub(n, head);
        let hi = self.b.ins().ishl_imm_s(v, 4);
        let byte = self.b.ins().bor(v, hi);
        let byte = self.b.ins().ireduce(types::I8, byte);
        let s = self.splat(1, byte);
        let bytes = self.b.ins().ushr_imm_s(n, 1);
        let db = self.b.ins().ushr_imm_s(o, 1);
        let da = self.add(self.out, db);
        self.fill_bytes(da, bytes, None, s);
        let tail = self.b.ins().band_imm_s(n, 1);
        self.if_then(tail, |g| {
            let last = g.add(o, n);
            let last = g.addi(last, -1);
            g.nib_put(last, v);
        });
    }

    /// [`Gen::repeat_bytes`] for packed nibbles: output nibbles [start, start + total)
    /// repeat every `filled` ([`crate::repeat::repeat_nibbles`]).
    pub fn repeat_nibbles(&mut self, start: Value, filled: Value, total: Value) {
        let more = self.b.ins().icmp(IntCC::SignedLessThan, filled, total);
        let out = self.out;
        self.if_then(more, |g| g.call_helper(crate::host::Helper::RepeatNibbles, &[out, start, filled, total]));
    }
}
