//! The IR builder: a Cranelift function builder plus the kernel's parameters, with
//! integer arithmetic that folds constants and control flow that emits only the branch
//! taken when a condition is known, so that the IR carries no work on known numbers.
//!
//! Every emitter takes its numbers as Cranelift values, so static kernels (where they are
//! constants) and dynamic kernels (where they are loaded from the argument block) share
//! one emitter; an `Option<u64>` beside a count says when it is known, so that small
//! known runs become straight-line code.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, ConstantData, Endianness, ExtFuncData, ExternalName, FuncRef, InstBuilder,
    InstructionData, MemFlagsData, Opcode, Signature, Type, UserExternalName, Value, types,
};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_frontend::FunctionBuilder;

use crate::host::Helper;

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

/// The emitter: a function builder plus the kernel's parameters.
pub(crate) struct Gen<'a> {
    pub b: FunctionBuilder<'a>,
    pub cfg: TargetFrontendConfig,
    pub inp: Value,
    pub out: Value,
    pub args: Value,
    pub lo: Value,
    pub hi: Value,
    /// i64 constants already made in the current block, and that block (a block's values
    /// are visible to the instructions after them in that block; one entered again makes
    /// them anew). A short list searched in order: a block has a few constants, and this
    /// was measurably quicker than a hash map.
    pub consts: (Option<Block>, Vec<(i64, Value)>),
    /// The host functions the kernel calls (see [`crate::host`]), once imported: one slot
    /// per [`Helper`].
    pub helpers: [Option<FuncRef>; crate::host::HELPERS],
    /// Whether long copies and fills write with cache-bypassing stores (the kernel's
    /// output is large, see [`crate::policy::STREAM_MIN_BYTES`]; the host fences after).
    pub stream: bool,
    /// Loops emitted so far (see [`crate::policy::light`]).
    pub loops: usize,
}

impl<'a> Gen<'a> {
    pub fn c(&mut self, v: i64) -> Value {
        let Some(block) = self.b.current_block() else { return self.b.ins().iconst(types::I64, v) };
        if self.consts.0 != Some(block) {
            self.consts.0 = Some(block);
            self.consts.1.clear();
        }
        if let Some(&(_, c)) = self.consts.1.iter().find(|(k, _)| *k == v) {
            return c;
        }
        let c = self.b.ins().iconst(types::I64, v);
        self.consts.1.push((v, c));
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
    /// A call to a host function (see [`crate::host`]), imported on its first call; its
    /// arguments are i64s.
    pub(crate) fn call_helper(&mut self, helper: Helper, args: &[Value]) {
        debug_assert_eq!(args.len(), helper.args(), "{helper:?}");
        let index = helper.index();
        let f = match self.helpers[index as usize] {
            Some(f) => f,
            None => {
                let mut sig = Signature::new(self.cfg.default_call_conv);
                sig.params.extend((0..helper.args()).map(|_| AbiParam::new(types::I64)));
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
        self.loops += 1;
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

    pub(crate) fn ld(&mut self, ty: Type, p: Value, off: i32) -> Value {
        self.b.ins().load(ty, mf(), p, off)
    }
    pub(crate) fn st(&mut self, v: Value, p: Value, off: i32) {
        self.b.ins().store(mf(), v, p, off);
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

/// `[clamp(lo - y0, 0, len), clamp(hi - y0, .., len))` as (first, count).
pub(crate) fn clip(g: &mut Gen, lo: Value, hi: Value, y0: Value, len: Value) -> (Value, Value) {
    let zero = g.c(0);
    let a = g.sub(lo, y0);
    let a = g.smax(a, zero);
    let a = g.smin(a, len);
    let b = g.sub(hi, y0);
    let b = g.smax(b, a);
    let b = g.smin(b, len);
    (a, g.sub(b, a))
}
