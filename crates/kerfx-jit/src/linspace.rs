//! Linspace fills: exact kinds (integers, f32 whose every value is exact) summed four
//! vectors at a time, streamed through a stack buffer when large; f64 kinds computed as
//! `alpha + coef·a` per element and rounded once (the SEMANTICS rule). Argument-block
//! layout of dynamic linspaces in [`crate::abi::dyn_fill`].

use crate::abi::dyn_fill;
use crate::builder::{Gen, clip, mf};
use crate::policy::STREAM_CHUNK;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Type, Value, types};
use kerfx_ir::schedule::FillBody;

/// How a linspace computes: in i32, i64, f32 (exact) or f64 rounded once.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum LinKind {
    I32,
    I64,
    F32Exact,
    F64,
}

impl LinKind {
    #[allow(dead_code)]
    fn scalar(self) -> Type {
        match self {
            LinKind::I32 => types::I32,
            LinKind::I64 => types::I64,
            LinKind::F32Exact => types::F32,
            LinKind::F64 => types::F64,
        }
    }
    fn vector(self) -> Type {
        match self {
            LinKind::I32 => types::I32X4,
            LinKind::I64 => types::I64X2,
            LinKind::F32Exact => types::F32X4,
            LinKind::F64 => types::F64X2,
        }
    }
    fn out_width(self) -> i64 {
        match self {
            LinKind::I64 => 8,
            _ => 4,
        }
    }
    fn is_float(self) -> bool {
        matches!(self, LinKind::F32Exact | LinKind::F64)
    }
}

/// A linspace: `dims` are (extent, coefficient) values outermost first (coefficients of
/// the kind's scalar type); dim 0 runs over [lo, hi).
pub(crate) struct Linspace {
    pub kind: LinKind,
    pub alpha: Value,
    pub dims: Vec<(Value, Value)>,
    /// Write the output through cache-bypassing stores (see [`crate::stream`]).
    pub stream: bool,
}

impl Linspace {
    /// Values of the static schedule.
    pub fn constants(g: &mut Gen, body: &FillBody) -> Option<Linspace> {
        let ext = |g: &mut Gen, e: u64| g.c(e as i64);
        Some(match body {
            FillBody::LinspaceInt { alpha, dims } => Linspace {
                stream: false,
                kind: LinKind::I64,
                alpha: g.c(*alpha),
                dims: dims.iter().map(|d| (ext(g, d.extent), g.c(d.coef))).collect(),
            },
            FillBody::LinspaceF32Exact { alpha, dims } => Linspace {
                stream: false,
                kind: LinKind::F32Exact,
                alpha: g.b.ins().f32const(*alpha),
                dims: dims.iter().map(|d| (ext(g, d.extent), g.b.ins().f32const(d.coef))).collect(),
            },
            FillBody::LinspaceF64 { alpha, dims } => Linspace {
                stream: false,
                kind: LinKind::F64,
                alpha: g.b.ins().f64const(*alpha),
                dims: dims.iter().map(|d| (ext(g, d.extent), g.b.ins().f64const(d.coef))).collect(),
            },
            FillBody::Random { .. } => return None,
        })
    }

    /// Values loaded from a dynamic argument block with `rank` dims.
    pub fn from_args(g: &mut Gen, kind: LinKind, rank: usize) -> Linspace {
        let load = |g: &mut Gen, word: i64, ty: Type| g.b.ins().load(ty, mf(), g.args, (word * 8) as i32);
        let cty = if kind == LinKind::F64 { types::F64 } else { types::I64 };
        let alpha = load(g, dyn_fill::LIN_ALPHA, cty);
        let dims = (0..rank as i64)
            .map(|k| (load(g, dyn_fill::LIN_DIMS + 2 * k, types::I64), load(g, dyn_fill::LIN_DIMS + 2 * k + 1, cty)))
            .collect();
        Linspace { kind, alpha, dims, stream: false }
    }

    pub fn emit(&self, g: &mut Gen, out_is_i32: bool) {
        let kind = if self.kind == LinKind::I64 && out_is_i32 { LinKind::I32 } else { self.kind };
        let narrow = |g: &mut Gen, v: Value| if kind == LinKind::I32 { g.b.ins().ireduce(types::I32, v) } else { v };
        let alpha = narrow(g, self.alpha);
        let dims: Vec<(Value, Value)> = self.dims.iter().map(|&(e, c)| (e, narrow(g, c))).collect();
        if dims.is_empty() {
            // One element: alpha (rounded once for floats).
            let more = g.b.ins().icmp(IntCC::SignedLessThan, g.lo, g.hi);
            g.if_then(more, |g| {
                let v = if kind == LinKind::F64 { g.b.ins().fdemote(types::F32, alpha) } else { alpha };
                g.b.ins().store(mf(), v, g.out, 0);
            });
            return;
        }
        let mut strides = vec![g.c(1); dims.len()];
        for k in (0..dims.len() - 1).rev() {
            strides[k] = g.mul(strides[k + 1], dims[k + 1].0);
        }
        let zero = g.c(0);
        lin_dim(g, kind, self.stream, &dims, &strides, 0, alpha, zero);
    }
}

/// `a as scalar` for a position counter.
fn pos_to(g: &mut Gen, kind: LinKind, a: Value) -> Value {
    match kind {
        LinKind::I32 => g.b.ins().ireduce(types::I32, a),
        LinKind::I64 => a,
        LinKind::F32Exact => g.b.ins().fcvt_from_sint(types::F32, a),
        LinKind::F64 => g.b.ins().fcvt_from_sint(types::F64, a),
    }
}

fn lin_add(g: &mut Gen, kind: LinKind, a: Value, b: Value) -> Value {
    if kind.is_float() { g.b.ins().fadd(a, b) } else { g.b.ins().iadd(a, b) }
}

fn lin_mul(g: &mut Gen, kind: LinKind, a: Value, b: Value) -> Value {
    if kind.is_float() { g.b.ins().fmul(a, b) } else { g.b.ins().imul(a, b) }
}

#[allow(clippy::too_many_arguments)]
fn lin_dim(
    g: &mut Gen,
    kind: LinKind,
    stream: bool,
    dims: &[(Value, Value)],
    strides: &[Value],
    k: usize,
    v: Value,
    out_off: Value,
) {
    let (extent, coef) = dims[k];
    let (first, count) = if k == 0 {
        let zero = g.c(0);
        let (lo, hi) = (g.lo, g.hi);
        clip(g, lo, hi, zero, extent)
    } else {
        (g.c(0), extent)
    };
    if k + 1 < dims.len() {
        let end = g.add(first, count);
        g.for_range(first, end, |g, a| {
            let af = pos_to(g, kind, a);
            let t = lin_mul(g, kind, coef, af);
            let va = lin_add(g, kind, v, t);
            let ao = g.mul(a, strides[k]);
            let o = g.add(out_off, ao);
            lin_dim(g, kind, stream, dims, strides, k + 1, va, o);
        });
        return;
    }
    let ow = kind.out_width();
    let o = g.add(out_off, first);
    let o = g.muli(o, ow);
    let dst = g.add(g.out, o);
    let end = g.add(first, count);
    match kind {
        LinKind::F64 => {
            // Two f64 lanes per vector, each v + coef·a rounded once to f32; two vectors
            // make four outputs.
            let cs = g.b.ins().splat(types::F64X2, coef);
            let vs = g.b.ins().splat(types::F64X2, v);
            let af = pos_to(g, kind, first);
            let av = g.b.ins().splat(types::F64X2, af);
            let mut b = [0u8; 16];
            b[8..].copy_from_slice(&1f64.to_bits().to_le_bytes());
            let iota = g.vconst(types::F64X2, b);
            let av = g.b.ins().fadd(av, iota);
            let mut two = [0u8; 16];
            two[..8].copy_from_slice(&2f64.to_bits().to_le_bytes());
            two[8..].copy_from_slice(&2f64.to_bits().to_le_bytes());
            let two = g.vconst(types::F64X2, two);
            let last = g.addi(end, -4);
            let r = g.while_loop(
                &[first, dst, av],
                |g, s| g.b.ins().icmp(IntCC::SignedLessThanOrEqual, s[0], last),
                |g, s| {
                    let a1 = g.b.ins().fadd(s[2], two);
                    let m0 = g.b.ins().fmul(cs, s[2]);
                    let r0 = g.b.ins().fadd(vs, m0);
                    let m1 = g.b.ins().fmul(cs, a1);
                    let r1 = g.b.ins().fadd(vs, m1);
                    let d0 = g.b.ins().fvdemote(r0);
                    let d1 = g.b.ins().fvdemote(r1);
                    let d0 = g.bitcast(types::I8X16, d0);
                    let d1 = g.bitcast(types::I8X16, d1);
                    let mut m = [0u8; 16];
                    for (i, x) in m.iter_mut().enumerate() {
                        *x = if i < 8 { i as u8 } else { 16 + i as u8 - 8 };
                    }
                    let y = g.shuffle(d0, d1, m);
                    g.b.ins().store(mf(), y, s[1], 0);
                    let a2 = g.b.ins().fadd(a1, two);
                    vec![g.addi(s[0], 4), g.addi(s[1], 16), a2]
                },
            );
            g.while_loop(
                &[r[0], r[1]],
                |g, s| g.b.ins().icmp(IntCC::SignedLessThan, s[0], end),
                |g, s| {
                    let af = pos_to(g, kind, s[0]);
                    let m = g.b.ins().fmul(coef, af);
                    let x = g.b.ins().fadd(v, m);
                    let x = g.b.ins().fdemote(types::F32, x);
                    g.b.ins().store(mf(), x, s[1], 0);
                    vec![g.addi(s[0], 1), g.addi(s[1], 4)]
                },
            );
        }
        _ => {
            // Exact kinds: the value at position a is v + coef·a however it is summed;
            // four vectors advance by 4L·coef per step.
            let lanes = 16 / ow;
            let vty = kind.vector();
            let iota: Vec<Value> = (0..4)
                .map(|u| {
                    let mut b = [0u8; 16];
                    for l in 0..lanes {
                        let n = u * lanes + l;
                        let bytes: Vec<u8> = match kind {
                            LinKind::I32 => (n as i32).to_le_bytes().to_vec(),
                            LinKind::I64 => n.to_le_bytes().to_vec(),
                            _ => (n as f32).to_bits().to_le_bytes().to_vec(),
                        };
                        b[(l * ow) as usize..((l + 1) * ow) as usize].copy_from_slice(&bytes);
                    }
                    g.vconst(vty, b)
                })
                .collect();
            let start = {
                let af = pos_to(g, kind, first);
                let t = lin_mul(g, kind, coef, af);
                lin_add(g, kind, v, t)
            };
            if stream && kind == LinKind::F32Exact {
                // Computed and streamed from registers by the host, 32 bytes a store.
                let bits = |g: &mut Gen, x: Value| {
                    let i = g.b.ins().bitcast(types::I32, MemFlagsData::new(), x);
                    g.b.ins().uextend(types::I64, i)
                };
                let (sb, cb) = (bits(g, start), bits(g, coef));
                g.stream_linspace(dst, count, sb, cb);
                return;
            }
            let cs = g.b.ins().splat(vty, coef);
            let ss = g.b.ins().splat(vty, start);
            let vecs: Vec<Value> = iota
                .iter()
                .map(|&i| {
                    let t = lin_mul(g, kind, cs, i);
                    lin_add(g, kind, ss, t)
                })
                .collect();
            let step4 = {
                let n = g.c(4 * lanes);
                let n = pos_to(g, kind, n);
                let t = lin_mul(g, kind, coef, n);
                g.b.ins().splat(vty, t)
            };
            let step1 = {
                let n = g.c(lanes);
                let n = pos_to(g, kind, n);
                let t = lin_mul(g, kind, coef, n);
                g.b.ins().splat(vty, t)
            };
            let mut init = vec![first, dst];
            init.extend(&vecs);
            if stream && kind != LinKind::F64 {
                // Chunks of the output computed into a stack buffer that stays in the L1
                // cache, then written out with cache-bypassing stores.
                let chunk = STREAM_CHUNK as i64;
                let slot =
                    g.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, chunk as u32, 4));
                let lastc = g.addi(end, -(chunk / ow));
                init = g.while_loop(
                    &init,
                    |g, s| g.b.ins().icmp(IntCC::SignedLessThanOrEqual, s[0], lastc),
                    |g, s| {
                        let buf = g.b.ins().stack_addr(types::I64, slot, 0);
                        let mut inner = vec![buf];
                        inner.extend(&s[2..]);
                        let buf_end = g.addi(buf, chunk);
                        let r = g.while_loop(
                            &inner,
                            |g, t| g.b.ins().icmp(IntCC::UnsignedLessThan, t[0], buf_end),
                            |g, t| {
                                for u in 0..4 {
                                    g.b.ins().store(mf(), t[1 + u], t[0], 16 * u as i32);
                                }
                                let mut next = vec![g.addi(t[0], 64)];
                                for u in 0..4 {
                                    next.push(lin_add(g, kind, t[1 + u], step4));
                                }
                                next
                            },
                        );
                        let n = g.c(chunk);
                        g.stream_copy(s[1], buf, n);
                        let mut next = vec![g.addi(s[0], chunk / ow), g.addi(s[1], chunk)];
                        next.extend(&r[1..]);
                        next
                    },
                );
            }
            let last4 = g.addi(end, -4 * lanes);
            let r = g.while_loop(
                &init,
                |g, s| g.b.ins().icmp(IntCC::SignedLessThanOrEqual, s[0], last4),
                |g, s| {
                    let mut next = vec![g.addi(s[0], 4 * lanes), g.addi(s[1], 64)];
                    for u in 0..4 {
                        g.b.ins().store(mf(), s[2 + u], s[1], 16 * u as i32);
                    }
                    for u in 0..4 {
                        next.push(lin_add(g, kind, s[2 + u], step4));
                    }
                    next
                },
            );
            let last1 = g.addi(end, -lanes);
            let r = g.while_loop(
                &[r[0], r[1], r[2]],
                |g, s| g.b.ins().icmp(IntCC::SignedLessThanOrEqual, s[0], last1),
                |g, s| {
                    g.b.ins().store(mf(), s[2], s[1], 0);
                    vec![g.addi(s[0], lanes), g.addi(s[1], 16), lin_add(g, kind, s[2], step1)]
                },
            );
            g.while_loop(
                &[r[0], r[1]],
                |g, s| g.b.ins().icmp(IntCC::SignedLessThan, s[0], end),
                |g, s| {
                    let d = g.sub(s[0], first);
                    let df = pos_to(g, kind, d);
                    let t = lin_mul(g, kind, coef, df);
                    let x = lin_add(g, kind, start, t);
                    g.b.ins().store(mf(), x, s[1], 0);
                    vec![g.addi(s[0], 1), g.addi(s[1], ow)]
                },
            );
        }
    }
}
