//! Byte runs: copy, fill, reverse, strided, gather, and the staged and repeated runs
//! that call host functions ([`crate::stream`], [`crate::repeat`]), for elements of
//! 1 to 16 bytes.

use crate::builder::{Elem, Gen, elem_type};
use crate::policy::{CALL_MIN_BYTES, Lowering, STREAM_CHUNK, lowering};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, StackSlotData, StackSlotKind, Type, Value, types};
use kerfx_ir::schedule::Run;

/// The pieces a straight-line run of known length is moved in, widest first.
const STRAIGHT_PIECES: [(u64, Type); 5] =
    [(16, types::I8X16), (8, types::I64), (4, types::I32), (2, types::I16), (1, types::I8)];

/// The splat vector type of a w-byte element (w < 16).
pub(crate) fn splat_type(w: u8) -> Type {
    match w {
        1 => types::I8X16,
        2 => types::I16X8,
        4 => types::I32X4,
        _ => types::I64X2,
    }
}

/// A splatted element: the vector and, for w ≤ 8, the 8-byte repeating pattern.
#[derive(Copy, Clone)]
pub(crate) struct Splat {
    pub vec: Value,
    pub pat: Option<Value>,
    /// The element width.
    pub w: u8,
    /// The byte every byte of the pattern is, when they are all one constant byte (a
    /// large fill is then a call to memset).
    pub byte: Option<u8>,
}

impl Gen<'_> {
    /// `n` bytes from `src` to `dst` through cache-bypassing stores (a call to
    /// [`crate::stream::stream_copy`]; the caller of the kernel fences afterwards).
    pub fn stream_copy(&mut self, dst: Value, src: Value, n: Value) {
        self.call_helper(crate::host::Helper::StreamCopy, &[dst, src, n]);
    }
    /// `n` elements of `w` bytes from every other element at `src` to `dst` through
    /// cache-bypassing stores (a call to [`crate::stream::stream_stride2`]; the caller of
    /// the kernel fences afterwards).
    pub fn stream_stride2(&mut self, dst: Value, src: Value, n: Value, w: u8) {
        let w = self.c(w as i64);
        self.call_helper(crate::host::Helper::StreamStride2, &[dst, src, n, w]);
    }
    /// The bytes [dst, dst + total) repeat every `filled` bytes, the first `filled` of
    /// them written: copy them forward (a call to [`crate::repeat::repeat`], when there is
    /// anything to copy).
    pub fn repeat_bytes(&mut self, dst: Value, filled: Value, total: Value) {
        let more = self.b.ins().icmp(IntCC::SignedLessThan, filled, total);
        self.if_then(more, |g| g.call_helper(crate::host::Helper::Repeat, &[dst, filled, total]));
    }
    /// A run of `n` elements of `w` bytes written to `dst` in chunks: `piece(buf, at, k)`
    /// writes the run's elements `at .. at + k` to the stack buffer `buf`, which is then
    /// streamed out ([`Gen::stream_copy`]).
    pub fn staged(&mut self, dst: Value, n: Value, w: u8, piece: impl FnOnce(&mut Self, Value, Value, Value)) {
        let chunk = STREAM_CHUNK as i64 / w as i64;
        let slot =
            self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, STREAM_CHUNK as u32, 4));
        let zero = self.c(0);
        self.while_loop(
            &[zero],
            |g, v| g.b.ins().icmp(IntCC::SignedLessThan, v[0], n),
            |g, v| {
                // Whole chunks when the length is a known multiple of one.
                let k = match g.known(n) {
                    Some(n) if n % chunk == 0 => g.c(chunk),
                    _ => {
                        let left = g.sub(n, v[0]);
                        let c = g.c(chunk);
                        g.smin(left, c)
                    }
                };
                let buf = g.b.ins().stack_addr(types::I64, slot, 0);
                piece(g, buf, v[0], k);
                let at = g.muli(v[0], w as i64);
                let d = g.add(dst, at);
                let bytes = g.muli(k, w as i64);
                g.stream_copy(d, buf, bytes);
                vec![g.add(v[0], k)]
            },
        );
    }

    /// Copy `n` bytes (known as `known` when constant) from `src` to `dst`.
    /// `n` is a multiple of `align` (the element width), which leaves out smaller pieces.
    pub fn copy_bytes(&mut self, dst: Value, src: Value, n: Value, known: Option<u64>, align: u64) {
        match (lowering(Run::Copy, known, true), known) {
            (Lowering::Straight, Some(k)) => {
                let mut at = 0u64;
                for (size, ty) in STRAIGHT_PIECES {
                    while k - at >= size {
                        let v = self.ld(ty, src, at as i32);
                        self.st(v, dst, at as i32);
                        at += size;
                    }
                }
            }
            (Lowering::Call, _) => self.copy_call(dst, src, n),
            (Lowering::ByLength, _) => {
                let big = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, n, CALL_MIN_BYTES as i64);
                self.if_else(big, |g| g.copy_call(dst, src, n), |g| g.copy_small(dst, src, n, align));
            }
            _ => self.copy_small(dst, src, n, align),
        }
    }

    /// A long copy: memcpy, or [`Gen::stream_copy`] in a streaming kernel.
    fn copy_call(&mut self, dst: Value, src: Value, n: Value) {
        if self.stream { self.stream_copy(dst, src, n) } else { self.b.call_memcpy(self.cfg, dst, src, n) }
    }

    /// `n` bytes of the splatted pattern `s` at `dst` through cache-bypassing stores (a
    /// call to [`crate::stream::stream_fill`]; the caller of the kernel fences afterwards).
    fn stream_fill(&mut self, dst: Value, n: Value, s: Splat) {
        let (lo, hi) = match s.pat {
            Some(p) => (p, p),
            None => {
                let v = self.bitcast(types::I64X2, s.vec);
                (self.b.ins().extractlane(v, 0), self.b.ins().extractlane(v, 1))
            }
        };
        self.call_helper(crate::host::Helper::StreamFill, &[dst, n, lo, hi]);
    }

    /// `n` f32 values `start + coef·j` (j from 0; exact, so that any order of sums gives
    /// them) at `dst` through cache-bypassing stores ([`crate::stream::stream_linspace`]).
    pub fn stream_linspace(&mut self, dst: Value, n: Value, start_bits: Value, coef_bits: Value) {
        self.call_helper(crate::host::Helper::StreamLinspace, &[dst, n, start_bits, coef_bits]);
    }

    /// Copy fewer than a few hundred bytes: 16-byte chunks, then an overlapping last
    /// chunk; under 16 bytes, 8/4/2/1-byte pieces.
    fn copy_small(&mut self, dst: Value, src: Value, n: Value, align: u64) {
        let ge16 = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, n, 16);
        self.if_else(
            ge16,
            |g| {
                let last = g.addi(n, -16);
                let zero = g.c(0);
                g.while_loop(
                    &[zero],
                    |g, v| g.b.ins().icmp(IntCC::SignedLessThan, v[0], last),
                    |g, v| {
                        let s = g.add(src, v[0]);
                        let d = g.add(dst, v[0]);
                        let x = g.ld(types::I8X16, s, 0);
                        g.st(x, d, 0);
                        vec![g.addi(v[0], 16)]
                    },
                );
                let s = g.add(src, last);
                let d = g.add(dst, last);
                let x = g.ld(types::I8X16, s, 0);
                g.st(x, d, 0);
            },
            |g| {
                g.pieces(n, align, |g, at, ty| {
                    let s = g.add(src, at);
                    let d = g.add(dst, at);
                    let x = g.ld(ty, s, 0);
                    g.st(x, d, 0);
                })
            },
        );
    }

    /// For n < 16: call `piece(at, ty)` for the 8-, 4-, 2- and 1-byte pieces of n, in order.
    fn pieces(&mut self, n: Value, align: u64, mut piece: impl FnMut(&mut Self, Value, Type)) {
        let mut at = self.c(0);
        for (size, ty) in [(8i64, types::I64), (4, types::I32), (2, types::I16), (1, types::I8)] {
            if (size as u64) < align {
                break;
            }
            let bit = match self.known(n) {
                Some(k) => self.c(k & size),
                None => self.b.ins().band_imm_s(n, size),
            };
            let bit_set = self.b.ins().icmp_imm_s(IntCC::NotEqual, bit, 0);
            self.if_then(bit_set, |g| piece(g, at, ty));
            at = self.add(at, bit);
        }
    }

    /// Store a splatted pattern over `n` bytes at `dst` (n a multiple of the element width).
    pub fn fill_bytes(&mut self, dst: Value, n: Value, known: Option<u64>, s: Splat) {
        // The vector as bytes, made once where the first piece needs it.
        let mut bytes = None;
        let mut store_piece = |g: &mut Self, d: Value, off: i32, ty: Type| {
            let v = if ty == types::I8X16 {
                *bytes.get_or_insert_with(|| g.bitcast(types::I8X16, s.vec))
            } else {
                let p = s.pat.expect("pieces under 16 bytes only for elements under 16 bytes");
                if ty == types::I64 { p } else { g.b.ins().ireduce(ty, p) }
            };
            g.st(v, d, off);
        };
        // With streaming stores a long fill is a call whatever its bytes (`memset` true).
        if self.stream {
            match lowering(Run::Fill, known, true) {
                Lowering::Call => return self.stream_fill(dst, n, s),
                Lowering::ByLength => {
                    let big = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, n, CALL_MIN_BYTES as i64);
                    return self.if_else(
                        big,
                        |g| g.stream_fill(dst, n, s),
                        |g| {
                            g.stream = false;
                            g.fill_bytes(dst, n, None, s);
                            g.stream = true;
                        },
                    );
                }
                _ => {}
            }
        }
        if let Some(byte) = s.byte {
            let memset = |g: &mut Self| {
                let ch = g.b.ins().iconst(types::I8, byte as i64);
                g.b.call_memset(g.cfg, dst, ch, n);
            };
            match lowering(Run::Fill, known, true) {
                Lowering::Call => return memset(self),
                Lowering::ByLength => {
                    let big = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, n, CALL_MIN_BYTES as i64);
                    let small = Splat { byte: None, ..s };
                    return self.if_else(big, memset, |g| g.fill_bytes(dst, n, None, small));
                }
                _ => {}
            }
        }
        match (lowering(Run::Fill, known, s.byte.is_some()), known) {
            (Lowering::Straight, Some(k)) => {
                let mut at = 0u64;
                for (size, ty) in STRAIGHT_PIECES {
                    while k - at >= size {
                        store_piece(self, dst, at as i32, ty);
                        at += size;
                    }
                }
            }
            _ => {
                let ge16 = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, n, 16);
                self.if_else(
                    ge16,
                    |g| {
                        let v = g.bitcast(types::I8X16, s.vec);
                        let last64 = g.addi(n, -64);
                        let zero = g.c(0);
                        let at = g.while_loop(
                            &[zero],
                            |g, a| g.b.ins().icmp(IntCC::SignedLessThanOrEqual, a[0], last64),
                            |g, a| {
                                let d = g.add(dst, a[0]);
                                for k in 0..4 {
                                    g.st(v, d, 16 * k);
                                }
                                vec![g.addi(a[0], 64)]
                            },
                        );
                        let last = g.addi(n, -16);
                        g.while_loop(
                            &at,
                            |g, a| g.b.ins().icmp(IntCC::SignedLessThan, a[0], last),
                            |g, a| {
                                let d = g.add(dst, a[0]);
                                g.st(v, d, 0);
                                vec![g.addi(a[0], 16)]
                            },
                        );
                        let d = g.add(dst, last);
                        g.st(v, d, 0);
                    },
                    |g| {
                        if s.pat.is_some() {
                            g.pieces(n, s.w as u64, |g, at, ty| {
                                let d = g.add(dst, at);
                                store_piece(g, d, 0, ty)
                            })
                        }
                    },
                );
            }
        }
    }

    /// Splat a w-byte element value (of `elem_type(w)`).
    pub fn splat(&mut self, w: u8, v: Value) -> Splat {
        if w == 16 {
            return Splat { vec: v, pat: None, w, byte: None };
        }
        let vec = self.b.ins().splat(splat_type(w), v);
        let wide = if w == 8 { v } else { self.b.ins().uextend(types::I64, v) };
        let rep: u64 = match w {
            1 => 0x0101_0101_0101_0101,
            2 => 0x0001_0001_0001_0001,
            4 => 0x0000_0001_0000_0001,
            _ => 1,
        };
        let pat = if rep == 1 { wide } else { self.b.ins().imul_imm_s(wide, rep as i64) };
        Splat { vec, pat: Some(pat), w, byte: None }
    }

    /// Splat constant element bits.
    pub fn splat_const(&mut self, w: u8, bits: u128) -> Splat {
        let mut bytes = [0u8; 16];
        let eb = bits.to_le_bytes();
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = eb[i % w as usize];
        }
        let vec = self.vconst(types::I8X16, bytes);
        let pat = (w < 16).then(|| {
            let p = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
            self.b.ins().iconst(types::I64, p as i64)
        });
        let byte = bytes.iter().all(|&b| b == bytes[0]).then_some(bytes[0]);
        Splat { vec, pat, w, byte }
    }

    /// `n` elements of `src` read backwards from `first` (a byte address) to `dst`.
    pub fn reverse(&mut self, w: u8, dst: Value, first: Value, n: Value) {
        let wi = w as i64;
        let lanes = 16 / wi;
        let mut mask = [0u8; 16];
        for (i, m) in mask.iter_mut().enumerate() {
            let i = i as i64;
            *m = ((lanes - 1 - i / wi) * wi + i % wi) as u8;
        }
        if let Some(k) = self.known(n)
            && lowering(Run::Reverse, Some((k * wi) as u64), false) == Lowering::Straight
        {
            // A short run of known length: straight-line code.
            let mut j = 0;
            while w < 16 && k - j >= lanes {
                let x = self.ld(types::I8X16, first, (-(j + lanes - 1) * wi) as i32);
                let y = self.shuffle(x, x, mask);
                self.st(y, dst, (j * wi) as i32);
                j += lanes;
            }
            for j in j..k {
                let x = self.ld(elem_type(w), first, (-j * wi) as i32);
                self.st(x, dst, (j * wi) as i32);
            }
            return;
        }
        let (dp, sp, rem) = if w < 16 {
            let sp0 = self.addi(first, -(lanes - 1) * wi);
            // Four vectors per step while they last, then one.
            let r = self.while_loop(
                &[dst, sp0, n],
                |g, v| g.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, v[2], 4 * lanes),
                |g, v| {
                    for k in 0..4 {
                        let x = g.ld(types::I8X16, v[1], -16 * k);
                        let y = g.shuffle(x, x, mask);
                        g.st(y, v[0], 16 * k);
                    }
                    vec![g.addi(v[0], 64), g.addi(v[1], -64), g.addi(v[2], -4 * lanes)]
                },
            );
            if self.known(n).is_some_and(|k| k % (4 * lanes) == 0) {
                // A known length of whole steps leaves nothing after them.
                return;
            }
            let r = self.while_loop(
                &r,
                |g, v| g.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, v[2], lanes),
                |g, v| {
                    let x = g.ld(types::I8X16, v[1], 0);
                    let y = g.shuffle(x, x, mask);
                    g.st(y, v[0], 0);
                    vec![g.addi(v[0], 16), g.addi(v[1], -16), g.addi(v[2], -lanes)]
                },
            );
            let sp = self.addi(r[1], (lanes - 1) * wi);
            (r[0], sp, r[2])
        } else {
            (dst, first, n)
        };
        let ty = elem_type(w);
        self.while_loop(
            &[dp, sp, rem],
            |g, v| g.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, v[2], 0),
            |g, v| {
                let x = g.ld(ty, v[1], 0);
                g.st(x, v[0], 0);
                vec![g.addi(v[0], wi), g.addi(v[1], -wi), g.addi(v[2], -1)]
            },
        );
    }

    /// `n` elements from `src` with a stride of `stride` elements (a value; `known` when
    /// constant) to `dst`.
    pub fn strided(&mut self, w: u8, dst: Value, src: Value, stride: Value, known: Option<i64>, n: Value) {
        let wi = w as i64;
        let (mut dp, mut sp, mut rem) = (dst, src, n);
        if known == Some(2) && w < 16 {
            // Two vectors hold 2L elements; the even ones are the next L outputs. The
            // second vector's last element is past the last one read, so stop while
            // one more element remains.
            let lanes = 16 / wi;
            let mut mask = [0u8; 16];
            for (i, m) in mask.iter_mut().enumerate() {
                let i = i as i64;
                *m = ((i / wi) * 2 * wi + i % wi) as u8;
            }
            // Four output vectors per step while they last, then one.
            let r = self.while_loop(
                &[dp, sp, rem],
                |g, v| g.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, v[2], 4 * lanes),
                |g, v| {
                    for k in 0..4 {
                        let a = g.ld(types::I8X16, v[1], 32 * k);
                        let b = g.ld(types::I8X16, v[1], 32 * k + 16);
                        let y = g.shuffle(a, b, mask);
                        g.st(y, v[0], 16 * k);
                    }
                    vec![g.addi(v[0], 64), g.addi(v[1], 128), g.addi(v[2], -4 * lanes)]
                },
            );
            let r = self.while_loop(
                &r,
                |g, v| g.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, v[2], lanes),
                |g, v| {
                    let a = g.ld(types::I8X16, v[1], 0);
                    let b = g.ld(types::I8X16, v[1], 16);
                    let y = g.shuffle(a, b, mask);
                    g.st(y, v[0], 0);
                    vec![g.addi(v[0], 16), g.addi(v[1], 32), g.addi(v[2], -lanes)]
                },
            );
            (dp, sp, rem) = (r[0], r[1], r[2]);
        }
        let step = match known {
            Some(s) => self.c(s * wi),
            None => self.muli(stride, wi),
        };
        let ty = elem_type(w);
        self.while_loop(
            &[dp, sp, rem],
            |g, v| g.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, v[2], 0),
            |g, v| {
                let x = g.ld(ty, v[1], 0);
                g.st(x, v[0], 0);
                vec![g.addi(v[0], wi), g.add(v[1], step), g.addi(v[2], -1)]
            },
        );
    }

    /// `n` elements of `w` bytes, one per iteration, from input element `in_off` stepping
    /// `in_step` elements (`None`: the element `fill` every time) to output element
    /// `out_off` stepping `os` elements: a run of an output view whose innermost stride is
    /// not 1 (no vector stores there).
    #[allow(clippy::too_many_arguments)]
    pub fn scatter(
        &mut self,
        w: u8,
        in_off: Value,
        in_step: Option<Value>,
        fill: Option<Value>,
        out_off: Value,
        os: Value,
        n: Value,
    ) {
        let wi = w as i64;
        let (s, d) = (self.muli(in_off, wi), self.muli(out_off, wi));
        let (src, dst) = (self.add(self.inp, s), self.add(self.out, d));
        let in_bytes = match in_step {
            Some(st) => self.muli(st, wi),
            None => self.c(0),
        };
        let out_bytes = self.muli(os, wi);
        self.while_loop(
            &[dst, src, n],
            |g, v| g.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, v[2], 0),
            |g, v| {
                let x = match fill {
                    Some(x) => x,
                    None => g.ld(elem_type(w), v[1], 0),
                };
                g.st(x, v[0], 0);
                vec![g.add(v[0], out_bytes), g.add(v[1], in_bytes), g.addi(v[2], -1)]
            },
        );
    }

    /// The element value of a splat (of `elem_type(w)`).
    pub fn splat_element(&mut self, s: Splat) -> Value {
        match (s.w, s.pat) {
            (8, Some(p)) => p,
            (w, Some(p)) => self.b.ins().ireduce(elem_type(w), p),
            (_, None) => s.vec,
        }
    }

    /// `n` elements whose input offsets (elements, relative to `in_off`) are the i64
    /// table entries at `tab`.
    /// `os`: the output step in elements (`None`: 1, a contiguous run).
    pub fn gather(&mut self, elem: Elem, tab: Value, in_off: Value, out_off: Value, n: Value, os: Option<Value>) {
        let zero = self.c(0);
        self.while_loop(
            &[zero],
            |g, v| g.b.ins().icmp(IntCC::SignedLessThan, v[0], n),
            |g, v| {
                let j = v[0];
                let ta = g.muli(j, 8);
                let ta = g.add(tab, ta);
                let o = g.ld(types::I64, ta, 0);
                let src = g.add(in_off, o);
                let jo = match os {
                    Some(os) => g.mul(j, os),
                    None => j,
                };
                let dst = g.add(out_off, jo);
                match elem {
                    Elem::Bytes(w) => {
                        let sa = g.muli(src, w as i64);
                        let sa = g.add(g.inp, sa);
                        let da = g.muli(dst, w as i64);
                        let da = g.add(g.out, da);
                        let x = g.ld(elem_type(w), sa, 0);
                        g.st(x, da, 0);
                    }
                    Elem::Nibble => {
                        let x = g.nib_get(src);
                        g.nib_put(dst, x);
                    }
                }
                vec![g.addi(j, 1)]
            },
        );
    }
}
