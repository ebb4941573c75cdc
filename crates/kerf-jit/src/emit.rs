//! Building blocks of the emitted code: loops, conditionals, and the data-moving runs
//! (copy, reverse, broadcast, strided, gather, fill) for every element layout.
//!
//! Every function here takes its numbers as Cranelift values, so static kernels (where
//! they are constants) and dynamic kernels (where they are loaded from the argument
//! block) share one emitter; an `Option<u64>` beside a count says when it is known, so
//! that small known runs become straight-line code.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, ConstantData, Endianness, ExtFuncData, ExternalName, FuncRef, InstBuilder,
    InstructionData, MemFlagsData, Opcode, Signature, Type, UserExternalName, Value, types,
};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_frontend::FunctionBuilder;
use std::collections::HashMap;

/// How one element sits in memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Elem {
    /// `w` bytes, w ∈ {1, 2, 4, 8, 16}.
    Bytes(u8),
    /// Packed 4-bit elements, low nibble first.
    Nibble,
}

/// Memory flags of every access: plain little-endian, never trapping (the host checked
/// every buffer's bounds), alignment unknown.
pub(crate) fn mf() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

fn le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// The scalar (or 16-byte vector) type of a w-byte element.
pub(crate) fn elem_type(w: u8) -> Type {
    match w {
        1 => types::I8,
        2 => types::I16,
        4 => types::I32,
        8 => types::I64,
        _ => types::I8X16,
    }
}

/// The splat vector type of a w-byte element (w < 16).
fn splat_type(w: u8) -> Type {
    match w {
        1 => types::I8X16,
        2 => types::I16X8,
        4 => types::I32X4,
        _ => types::I64X2,
    }
}

/// The emitter: a function builder plus the kernel's parameters.
pub(crate) struct Gen<'a> {
    pub b: FunctionBuilder<'a>,
    pub cfg: TargetFrontendConfig,
    pub inp: Value,
    pub out: Value,
    pub args: Value,
    pub lo: Value,
    pub hi: Value,
    /// i64 constants already made in a block (a block's values are visible to the
    /// instructions after them in that block).
    pub consts: HashMap<(Block, i64), Value>,
    /// The host functions the kernel calls (see `helpers` in lib.rs), once imported.
    pub helpers: [Option<FuncRef>; 3],
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

impl<'a> Gen<'a> {
    pub fn c(&mut self, v: i64) -> Value {
        let Some(block) = self.b.current_block() else { return self.b.ins().iconst(types::I64, v) };
        if let Some(&c) = self.consts.get(&(block, v)) {
            return c;
        }
        let c = self.b.ins().iconst(types::I64, v);
        self.consts.insert((block, v), c);
        c
    }
    /// The value of `v` when it is an integer constant. The helpers below fold constants
    /// themselves, so that the IR carries no arithmetic on known numbers (smaller IR
    /// compiles faster, and needs no mid-end to be good).
    pub fn known(&self, v: Value) -> Option<i64> {
        if self.b.func.dfg.value_type(v) != types::I64 {
            return None;
        }
        let inst = self.b.func.dfg.value_def(v).inst()?;
        match self.b.func.dfg.insts[inst] {
            InstructionData::UnaryImm { opcode: Opcode::Iconst, imm } => Some(imm.bits()),
            _ => None,
        }
    }
    /// The value of an i8 condition, when the compare that made it has known operands.
    pub fn known_cond(&self, c: Value) -> Option<bool> {
        let inst = self.b.func.dfg.value_def(c).inst()?;
        let (cc, a, b) = match self.b.func.dfg.insts[inst] {
            InstructionData::IntCompare { cond, args, .. } => (cond, self.known(args[0])?, self.known(args[1])?),
            InstructionData::UnaryImm { opcode: Opcode::Iconst, imm } if self.known(c).is_some() => {
                return Some(imm.bits() != 0);
            }
            _ => return None,
        };
        let (ua, ub) = (a as u64, b as u64);
        Some(match cc {
            IntCC::Equal => a == b,
            IntCC::NotEqual => a != b,
            IntCC::SignedLessThan => a < b,
            IntCC::SignedLessThanOrEqual => a <= b,
            IntCC::SignedGreaterThan => a > b,
            IntCC::SignedGreaterThanOrEqual => a >= b,
            IntCC::UnsignedLessThan => ua < ub,
            IntCC::UnsignedLessThanOrEqual => ua <= ub,
            IntCC::UnsignedGreaterThan => ua > ub,
            IntCC::UnsignedGreaterThanOrEqual => ua >= ub,
        })
    }
    fn fold(&mut self, a: Value, b: Value, f: impl FnOnce(i64, i64) -> i64) -> Option<Value> {
        let (x, y) = (self.known(a)?, self.known(b)?);
        Some(self.c(f(x, y)))
    }
    pub fn add(&mut self, a: Value, b: Value) -> Value {
        if let Some(v) = self.fold(a, b, i64::wrapping_add) {
            return v;
        }
        match (self.known(a), self.known(b)) {
            (Some(0), _) => b,
            (_, Some(0)) => a,
            (Some(x), _) => self.addi(b, x),
            (_, Some(y)) => self.addi(a, y),
            _ => self.b.ins().iadd(a, b),
        }
    }
    pub fn addi(&mut self, a: Value, b: i64) -> Value {
        if b == 0 {
            return a;
        }
        if let Some(x) = self.known(a) {
            return self.c(x.wrapping_add(b));
        }
        self.b.ins().iadd_imm_s(a, b)
    }
    pub fn mul(&mut self, a: Value, b: Value) -> Value {
        if let Some(v) = self.fold(a, b, i64::wrapping_mul) {
            return v;
        }
        match (self.known(a), self.known(b)) {
            (Some(x), _) => self.muli(b, x),
            (_, Some(y)) => self.muli(a, y),
            _ => self.b.ins().imul(a, b),
        }
    }
    pub fn muli(&mut self, a: Value, b: i64) -> Value {
        if let Some(x) = self.known(a) {
            return self.c(x.wrapping_mul(b));
        }
        match b {
            1 => a,
            0 => self.c(0),
            b if b > 0 && (b as u64).is_power_of_two() => self.b.ins().ishl_imm_s(a, b.trailing_zeros() as i64),
            b => self.b.ins().imul_imm_s(a, b),
        }
    }
    pub fn sub(&mut self, a: Value, b: Value) -> Value {
        if let Some(v) = self.fold(a, b, i64::wrapping_sub) {
            return v;
        }
        match self.known(b) {
            Some(y) => self.addi(a, y.wrapping_neg()),
            None => self.b.ins().isub(a, b),
        }
    }
    pub fn smax(&mut self, a: Value, b: Value) -> Value {
        if let Some(v) = self.fold(a, b, i64::max) {
            return v;
        }
        self.b.ins().smax(a, b)
    }
    pub fn smin(&mut self, a: Value, b: Value) -> Value {
        if let Some(v) = self.fold(a, b, i64::min) {
            return v;
        }
        self.b.ins().smin(a, b)
    }
    /// A call to the host function declared at `index` of the kernel's module (see
    /// `helpers` in lib.rs), whose arguments are i64s.
    fn call_helper(&mut self, index: u32, args: &[Value]) {
        let f = match self.helpers[index as usize] {
            Some(f) => f,
            None => {
                let mut sig = Signature::new(self.cfg.default_call_conv);
                sig.params.extend(args.iter().map(|_| AbiParam::new(types::I64)));
                let signature = self.b.import_signature(sig);
                let name = self.b.func.declare_imported_user_function(UserExternalName::new(0, index));
                let f = self.b.import_function(ExtFuncData {
                    name: ExternalName::User(name),
                    signature,
                    colocated: false,
                    patchable: false,
                });
                self.helpers[index as usize] = Some(f);
                f
            }
        };
        self.b.ins().call(f, args);
    }
    /// `n` bytes from `src` to `dst` through cache-bypassing stores (a call to
    /// [`crate::stream::stream_copy`]; the caller of the kernel fences afterwards).
    pub fn stream_copy(&mut self, dst: Value, src: Value, n: Value) {
        self.call_helper(crate::stream::FUNC_INDEX, &[dst, src, n]);
    }
    /// The bytes [dst, dst + total) repeat every `filled` bytes, the first `filled` of
    /// them written: copy them forward (a call to [`crate::repeat::repeat`], when there is
    /// anything to copy).
    pub fn repeat_bytes(&mut self, dst: Value, filled: Value, total: Value) {
        let more = self.b.ins().icmp(IntCC::SignedLessThan, filled, total);
        self.if_then(more, |g| g.call_helper(crate::repeat::FUNC_INDEX, &[dst, filled, total]));
    }
    /// [`Gen::repeat_bytes`] for packed nibbles: output nibbles [start, start + total)
    /// repeat every `filled` ([`crate::repeat::repeat_nibbles`]).
    pub fn repeat_nibbles(&mut self, start: Value, filled: Value, total: Value) {
        let more = self.b.ins().icmp(IntCC::SignedLessThan, filled, total);
        let out = self.out;
        self.if_then(more, |g| g.call_helper(crate::repeat::NIBBLES_FUNC_INDEX, &[out, start, filled, total]));
    }
    /// A run of `n` elements of `w` bytes written to `dst` in chunks: `piece(buf, at, k)`
    /// writes the run's elements `at .. at + k` to the stack buffer `buf`, which is then
    /// streamed out ([`Gen::stream_copy`]).
    pub fn staged(&mut self, dst: Value, n: Value, w: u8, piece: impl FnOnce(&mut Self, Value, Value, Value)) {
        let chunk = crate::stream::CHUNK as i64 / w as i64;
        let slot = self.b.create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
            cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
            crate::stream::CHUNK as u32,
            4,
        ));
        let zero = self.c(0);
        self.while_loop(
            &[zero],
            |g, v| g.b.ins().icmp(IntCC::SignedLessThan, v[0], n),
            |g, v| {
                let left = g.sub(n, v[0]);
                let c = g.c(chunk);
                let k = g.smin(left, c);
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
    /// Load the i64 word `word` of the argument block.
    pub fn arg(&mut self, word: i64) -> Value {
        self.b.ins().load(types::I64, mf(), self.args, (word * 8) as i32)
    }
    pub fn vconst(&mut self, ty: Type, bytes: [u8; 16]) -> Value {
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes.to_vec()));
        self.b.ins().vconst(ty, c)
    }
    pub fn shuffle(&mut self, a: Value, b: Value, mask: [u8; 16]) -> Value {
        let imm = self.b.func.dfg.immediates.push(ConstantData::from(mask.to_vec()));
        self.b.ins().shuffle(a, b, imm)
    }
    pub fn bitcast(&mut self, ty: Type, v: Value) -> Value {
        if self.b.func.dfg.value_type(v) == ty {
            return v;
        }
        self.b.ins().bitcast(ty, le(), v)
    }

    /// `while cond(vals) { vals = body(vals) }`; returns the final values. Only the loop
    /// header takes the values as block parameters: the body and the exit are reached
    /// from the header alone and use its parameters (fewer values for the register
    /// allocator).
    pub fn while_loop(
        &mut self,
        init: &[Value],
        cond: impl FnOnce(&mut Self, &[Value]) -> Value,
        body: impl FnOnce(&mut Self, &[Value]) -> Vec<Value>,
    ) -> Vec<Value> {
        let header = self.b.create_block();
        let body_block = self.b.create_block();
        let exit = self.b.create_block();
        for &v in init {
            let t = self.b.func.dfg.value_type(v);
            self.b.append_block_param(header, t);
        }
        let args: Vec<BlockArg> = init.iter().map(|&v| BlockArg::Value(v)).collect();
        self.b.ins().jump(header, &args);
        self.b.switch_to_block(header);
        let hv: Vec<Value> = self.b.block_params(header).to_vec();
        let c = cond(self, &hv);
        self.b.ins().brif(c, body_block, &[], exit, &[]);
        self.b.switch_to_block(body_block);
        let next = body(self, &hv);
        let nargs: Vec<BlockArg> = next.iter().map(|&v| BlockArg::Value(v)).collect();
        self.b.ins().jump(header, &nargs);
        self.b.switch_to_block(exit);
        hv
    }

    /// `for j in start..end { body(j) }` (i64 counter).
    pub fn for_range(&mut self, start: Value, end: Value, body: impl FnOnce(&mut Self, Value)) {
        self.while_loop(
            &[start],
            |g, v| g.b.ins().icmp(IntCC::SignedLessThan, v[0], end),
            |g, v| {
                body(g, v[0]);
                vec![g.addi(v[0], 1)]
            },
        );
    }

    /// `if cond { then }` (only the branch taken, when the condition is known).
    pub fn if_then(&mut self, cond: Value, then: impl FnOnce(&mut Self)) {
        match self.known_cond(cond) {
            Some(true) => return then(self),
            Some(false) => return,
            None => {}
        }
        let t = self.b.create_block();
        let m = self.b.create_block();
        self.b.ins().brif(cond, t, &[], m, &[]);
        self.b.switch_to_block(t);
        then(self);
        self.b.ins().jump(m, &[]);
        self.b.switch_to_block(m);
    }

    /// `if cond { then } else { other }` (only the branch taken, when the condition is
    /// known).
    pub fn if_else(&mut self, cond: Value, then: impl FnOnce(&mut Self), other: impl FnOnce(&mut Self)) {
        match self.known_cond(cond) {
            Some(true) => return then(self),
            Some(false) => return other(self),
            None => {}
        }
        let t = self.b.create_block();
        let e = self.b.create_block();
        let m = self.b.create_block();
        self.b.ins().brif(cond, t, &[], e, &[]);
        self.b.switch_to_block(t);
        then(self);
        self.b.ins().jump(m, &[]);
        self.b.switch_to_block(e);
        other(self);
        self.b.ins().jump(m, &[]);
        self.b.switch_to_block(m);
    }

    fn ld(&mut self, ty: Type, p: Value, off: i32) -> Value {
        self.b.ins().load(ty, mf(), p, off)
    }
    fn st(&mut self, v: Value, p: Value, off: i32) {
        self.b.ins().store(mf(), v, p, off);
    }

    // ----- byte runs -------------------------------------------------------------------

    /// Copy `n` bytes (known as `known` when constant) from `src` to `dst`.
    /// `n` is a multiple of `align` (the element width), which leaves out smaller pieces.
    pub fn copy_bytes(&mut self, dst: Value, src: Value, n: Value, known: Option<u64>, align: u64) {
        const CALL: u64 = 256;
        match known {
            Some(0) => {}
            Some(k) if k <= 64 => {
                let mut at = 0u64;
                for (size, ty) in
                    [(16u64, types::I8X16), (8, types::I64), (4, types::I32), (2, types::I16), (1, types::I8)]
                {
                    while k - at >= size {
                        let v = self.ld(ty, src, at as i32);
                        self.st(v, dst, at as i32);
                        at += size;
                    }
                }
            }
            Some(k) if k >= CALL => self.b.call_memcpy(self.cfg, dst, src, n),
            Some(_) => self.copy_small(dst, src, n, align),
            None => {
                let big = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, n, CALL as i64);
                self.if_else(big, |g| g.b.call_memcpy(g.cfg, dst, src, n), |g| g.copy_small(dst, src, n, align));
            }
        }
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
        let store_piece = |g: &mut Self, d: Value, off: i32, ty: Type| {
            let v = if ty == types::I8X16 {
                g.bitcast(types::I8X16, s.vec)
            } else {
                let p = s.pat.expect("pieces under 16 bytes only for elements under 16 bytes");
                if ty == types::I64 { p } else { g.b.ins().ireduce(ty, p) }
            };
            g.st(v, d, off);
        };
        const CALL: u64 = 256;
        if let Some(byte) = s.byte {
            let memset = |g: &mut Self| {
                let ch = g.b.ins().iconst(types::I8, byte as i64);
                g.b.call_memset(g.cfg, dst, ch, n);
            };
            match known {
                Some(k) if k >= CALL => return memset(self),
                None => {
                    let big = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, n, CALL as i64);
                    let small = Splat { byte: None, ..s };
                    return self.if_else(big, memset, |g| g.fill_bytes(dst, n, None, small));
                }
                _ => {}
            }
        }
        match known {
            Some(0) => {}
            Some(k) if k <= 64 => {
                let mut at = 0u64;
                for (size, ty) in
                    [(16u64, types::I8X16), (8, types::I64), (4, types::I32), (2, types::I16), (1, types::I8)]
                {
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
            && k * wi <= 256
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

    /// `n` elements whose input offsets (elements, relative to `in_off`) are the i64
    /// table entries at `tab`.
    pub fn gather(&mut self, elem: Elem, tab: Value, in_off: Value, out_off: Value, n: Value) {
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
                let dst = g.add(out_off, j);
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

    // ----- nibble runs -----------------------------------------------------------------

    /// The nibble at input index `i`, as an i32 in 0..16.
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

    /// `if cond { then } else { other }`, each producing values of the same types.
    pub fn if_else_vals(
        &mut self,
        cond: Value,
        then: impl FnOnce(&mut Self) -> Vec<Value>,
        other: impl FnOnce(&mut Self) -> Vec<Value>,
    ) -> Vec<Value> {
        let t = self.b.create_block();
        let e = self.b.create_block();
        let m = self.b.create_block();
        self.b.ins().brif(cond, t, &[], e, &[]);
        self.b.switch_to_block(t);
        let tv = then(self);
        for &v in &tv {
            let ty = self.b.func.dfg.value_type(v);
            self.b.append_block_param(m, ty);
        }
        let ta: Vec<BlockArg> = tv.iter().map(|&v| BlockArg::Value(v)).collect();
        self.b.ins().jump(m, &ta);
        self.b.switch_to_block(e);
        let ev = other(self);
        let ea: Vec<BlockArg> = ev.iter().map(|&v| BlockArg::Value(v)).collect();
        self.b.ins().jump(m, &ea);
        self.b.switch_to_block(m);
        self.b.block_params(m).to_vec()
    }
}
