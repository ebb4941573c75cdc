//! The object: per kernel its code and argument block (local), and the checking entry
//! points written in CLIF (exported), then the info table and `<lib>_info()`.

use crate::program::{Buffer, PartRuns, Place, ProgramFunctions};
use crate::{ABI_MAJOR, ABI_MINOR, Body, DynamicKernel, Kernel, Target, status};
use cranelift_codegen::Context;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, Function, InstBuilder, MemFlagsData, Signature, StackSlotData, StackSlotKind,
    UserExternalName, Value, types,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{DataDescription, DataId, FuncId, Linkage, Module, default_libcall_names};
use cranelift_object::{ObjectBuilder, ObjectModule};
use kerfx_jit::object::StaticFunction;

/// Bytes of one `kerf_kernel_info` record, of `kerf_library_info` and of one
/// `kerf_tensor_info` (the header's structs, 64-bit targets).
pub(crate) const KERNEL_INFO_BYTES: usize = 96;
pub(crate) const LIBRARY_INFO_BYTES: usize = 48;
pub(crate) const TENSOR_INFO_BYTES: usize = 32;
/// `kerf_kernel_info.flags`: the entry point takes an input pair.
pub(crate) const FLAG_READS_INPUT: u32 = 1;
/// `kerf_kernel_info.flags`: a program kernel (ABI 1.1): every input pair, then every
/// output pair; `input_shape` and `output_shape` point to `kerf_tensor_info` records.
pub(crate) const FLAG_PROGRAM: u32 = 2;
/// `kerf_kernel_info.flags`: a dynamic kernel (ABI 1.3): `entry` takes a plan first,
/// `range_entry` is the plan constructor; `input_rank` is the input's rank,
/// `output_rank` the parameter count, shapes NULL and byte counts 0.
pub(crate) const FLAG_DYNAMIC: u32 = 4;
/// Bytes of the runtime's `kerf_rt1_kernel` descriptor (`kerfx_rt::capi::KernelDesc`).
const KERNEL_DESC_BYTES: usize = 32;

fn err(e: impl std::fmt::Display) -> String {
    format!("writing the object: {e}")
}

/// Where a kernel's pieces are in the module.
struct Entries {
    entry: FuncId,
    /// The range entry point; a dynamic kernel's plan constructor.
    range: Option<FuncId>,
}

pub(crate) fn object(name: &str, kernels: &[Kernel], target: &Target) -> Result<Vec<u8>, String> {
    let isa = kernels
        .iter()
        .find_map(Kernel::isa)
        .ok_or("a library has at least one kernel with at least one function")?
        .clone();
    if isa.pointer_bytes() != 8 {
        return Err(format!("target {}: kerf writes objects for 64-bit targets", isa.triple()));
    }
    let builder = ObjectBuilder::new(isa, name.as_bytes().to_vec(), default_libcall_names()).map_err(err)?;
    let mut module = ObjectModule::new(builder);
    let mut entries = Vec::with_capacity(kernels.len());
    for k in kernels {
        entries.push(kernel(&mut module, name, k)?);
    }
    info(&mut module, name, kernels, &entries, target)?;
    module.finish().emit().map_err(err)
}

/// Define one kernel's code, argument blocks and entry points.
fn kernel(module: &mut ObjectModule, lib: &str, k: &Kernel) -> Result<Entries, String> {
    match &k.body {
        Body::Dynamic(d) => {
            let (body, _) = define_body(module, &format!("{lib}_{}__kernel", k.name), "", &d.function.func, &[])?;
            let desc = descriptor(module, &format!("{lib}_{}", k.name), d)?;
            let plan = plan_constructor(module, &format!("{lib}_{}_plan", k.name), d, desc)?;
            let entry = dynamic_entry(module, &format!("{lib}_{}", k.name), body, desc)?;
            Ok(Entries { entry, range: Some(plan) })
        }
        Body::Single(f) => {
            let (body, args) = define_body(
                module,
                &format!("{lib}_{}__kernel", k.name),
                &format!("{lib}_{}__args", k.name),
                &f.func,
                &f.args,
            )?;
            let entry = checked_entry(module, &format!("{lib}_{}", k.name), f, body, args, false)?;
            let range = checked_entry(module, &format!("{lib}_{}_range", k.name), f, body, args, true)?;
            Ok(Entries { entry, range: Some(range) })
        }
        Body::Program(p) => {
            let mut bodies = Vec::with_capacity(p.moves.len());
            for (m, mv) in p.moves.iter().enumerate() {
                let mut calls = Vec::with_capacity(mv.calls.len());
                for (c, call) in mv.calls.iter().enumerate() {
                    let symbol = format!("{lib}_{}__move{m}_{c}", k.name);
                    let f = &call.function;
                    calls.push(define_body(module, &symbol, &format!("{symbol}_args"), &f.func, &f.args)?);
                }
                bodies.push(calls);
            }
            let mut constants = Vec::with_capacity(p.inputs.len());
            for (i, input) in p.inputs.iter().enumerate() {
                constants.push(match &input.constant {
                    Some(bytes) if !bytes.is_empty() => {
                        let id = module
                            .declare_data(&format!("{lib}_{}__const{i}", k.name), Linkage::Local, false, false)
                            .map_err(err)?;
                        let mut d = DataDescription::new();
                        d.define(bytes.clone().into_boxed_slice());
                        d.set_align(16);
                        module.define_data(id, &d).map_err(err)?;
                        Some(id)
                    }
                    _ => None,
                });
            }
            let range = program_range_entry(module, &format!("{lib}_{}_range", k.name), p, &bodies, &constants)?;
            let entry = program_entry(module, &format!("{lib}_{}", k.name), p, range)?;
            Ok(Entries { entry, range: Some(range) })
        }
    }
}

/// Define a kernel's function (local symbol `symbol`) and its argument block `args`
/// (local symbol `args_symbol`; none when empty), its host calls pointed at their imports.
fn define_body(
    module: &mut ObjectModule,
    symbol: &str,
    args_symbol: &str,
    func: &Function,
    args: &[i64],
) -> Result<(FuncId, Option<DataId>), String> {
    let body = module.declare_function(symbol, Linkage::Local, &func.signature).map_err(err)?;
    let mut func = func.clone();
    // The kernel names host function N as `u0:N`: point each at its import by symbol
    // (`kerf_rt1_*`), declared only when used so that runtime-free objects import none.
    let named: Vec<_> = func.params.user_named_funcs().iter().map(|(r, n)| (r, n.clone())).collect();
    for (r, n) in named {
        let host =
            kerfx_jit::object::host_function(n.index).ok_or_else(|| err(format!("host function {}", n.index)))?;
        let mut sig = Signature::new(func.signature.call_conv);
        sig.params.extend((0..host.args).map(|_| AbiParam::new(types::I64)));
        let id = module.declare_function(host.symbol, Linkage::Import, &sig).map_err(err)?;
        func.params.reset_user_func_name(r, UserExternalName::new(0, id.as_u32()));
    }
    let mut ctx = Context::for_function(func);
    module.define_function(body, &mut ctx).map_err(|e| err(format!("{e:?}")))?;
    // The argument block is a constant of the object (read-only data), encoded by
    // `static_function` from the validated, scheduled and verified plan: the host
    // functions that read it (a random fill's alpha, beta and seed; a fill head's kind, rank
    // and axes) get no number a caller built, since the entry points take only buffers,
    // their lengths and a range, all checked before the kernel runs. (A dynamic kernel has
    // none: its block is its plan's, built and checked by the runtime's planner.)
    let args = if args.is_empty() {
        None
    } else {
        let id = module.declare_data(args_symbol, Linkage::Local, false, false).map_err(err)?;
        let mut d = DataDescription::new();
        d.define(args.iter().flat_map(|w| w.to_le_bytes()).collect());
        d.set_align(8);
        module.define_data(id, &d).map_err(err)?;
        Some(id)
    };
    Ok((body, args))
}

/// A dynamic kernel's descriptor for the runtime (`kerf_rt1_kernel`, local symbol
/// `<prefix>__desc`): ABI major, kind bits, depth, and pointers to its dtype's name and
/// its request template (NUL-terminated, in `<prefix>__request`).
fn descriptor(module: &mut ObjectModule, prefix: &str, d: &DynamicKernel) -> Result<DataId, String> {
    let key = &d.function.key;
    if d.request.contains('\0') {
        return Err(err("a request template holds a NUL byte"));
    }
    let dtype = key.dtype.to_string();
    let mut text = dtype.clone().into_bytes();
    text.push(0);
    text.extend(d.request.as_bytes());
    text.push(0);
    let strings = module.declare_data(&format!("{prefix}__request"), Linkage::Local, false, false).map_err(err)?;
    let mut sd = DataDescription::new();
    sd.define(text.into_boxed_slice());
    module.define_data(strings, &sd).map_err(err)?;
    let id = module.declare_data(&format!("{prefix}__desc"), Linkage::Local, false, false).map_err(err)?;
    let mut dd = DataDescription::new();
    let mut bytes = vec![0u8; KERNEL_DESC_BYTES];
    let kind = kerfx_rt::capi::kind_bits(key.kind);
    bytes[0..4].copy_from_slice(&kerfx_rt::ABI_MAJOR.to_le_bytes());
    bytes[4..8].copy_from_slice(&kind.to_le_bytes());
    bytes[8..16].copy_from_slice(&(key.depth as u64).to_le_bytes());
    let gv = module.declare_data_in_data(strings, &mut dd);
    dd.write_data_addr(16, gv, 0);
    dd.write_data_addr(24, gv, dtype.len() as i64 + 1);
    dd.define(bytes.into_boxed_slice());
    dd.set_align(8);
    module.define_data(id, &dd).map_err(err)?;
    Ok(id)
}

/// Import a runtime function of `params` i64 parameters returning an `int32_t`.
fn runtime_call(module: &mut ObjectModule, symbol: &str, params: usize) -> Result<FuncId, String> {
    let mut sig = Signature::new(module.isa().default_call_conv());
    sig.params.extend((0..params).map(|_| AbiParam::new(types::I64)));
    sig.returns.push(AbiParam::new(types::I32));
    module.declare_function(symbol, Linkage::Import, &sig).map_err(err)
}

/// Define the exported function `symbol` of `params` i64 parameters returning `ret`
/// (`None`: an i32 status), whose body `body` writes from its entry block (given the
/// parameters), returning the value the function returns: the one place an exported
/// function's signature, builder and definition are made.
fn define_export(
    module: &mut ObjectModule,
    symbol: &str,
    params: usize,
    ret: Option<types::Type>,
    body: impl FnOnce(&mut ObjectModule, &mut FunctionBuilder, &[Value]) -> Result<Value, String>,
) -> Result<FuncId, String> {
    let mut sig = Signature::new(module.isa().default_call_conv());
    sig.params.extend((0..params).map(|_| AbiParam::new(types::I64)));
    sig.returns.push(AbiParam::new(ret.unwrap_or(types::I32)));
    let id = module.declare_function(symbol, Linkage::Export, &sig).map_err(err)?;
    let mut ctx = module.make_context();
    let frontend = module.isa().frontend_config();
    ctx.func.signature = sig;
    let mut fctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
    let start = b.create_block();
    b.append_block_params_for_function_params(start);
    b.switch_to_block(start);
    let v = b.block_params(start).to_vec();
    let value = body(module, &mut b, &v)?;
    b.ins().return_(&[value]);
    b.seal_all_blocks();
    b.finalize(frontend);
    module.define_function(id, &mut ctx).map_err(|e| err(format!("{e:?}")))?;
    Ok(id)
}

/// A dynamic kernel's plan constructor: `(shape, rank, p_0, p_0_count, …, plan) -> i32`,
/// one pointer and count per parameter, which it lays out as `kerf_rt1_param` records on
/// its stack for `kerf_rt1_plan_new` (which checks every pointer and number).
fn plan_constructor(
    module: &mut ObjectModule,
    symbol: &str,
    d: &DynamicKernel,
    desc: DataId,
) -> Result<FuncId, String> {
    let n = d.template.params.len();
    let new = runtime_call(module, "kerf_rt1_plan_new", 6)?;
    define_export(module, symbol, 3 + 2 * n, None, |module, b, v| {
        let p = types::I64;
        let slot =
            b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, (16 * n.max(1)) as u32, 3));
        for k in 0..n {
            b.ins().stack_store(p, v[2 + 2 * k], slot, (16 * k) as i32);
            b.ins().stack_store(p, v[3 + 2 * k], slot, (16 * k + 8) as i32);
        }
        let params = b.ins().stack_addr(p, slot, 0);
        let count = b.ins().iconst(p, n as i64);
        let gv = module.declare_data_in_func(desc, b.func);
        let desc = b.ins().symbol_value(p, gv);
        let new = module.declare_func_in_func(new, b.func);
        let call = b.ins().call(new, &[desc, v[0], v[1], params, count, v[2 + 2 * n]]);
        Ok(b.inst_results(call)[0])
    })
}

/// A dynamic kernel's entry point: `(plan, input, input_bytes, output, output_bytes) ->
/// i32`, run by `kerf_rt1_plan_run` with this kernel's descriptor and code (which checks
/// the plan is this kernel's, then every buffer, before the code runs).
fn dynamic_entry(module: &mut ObjectModule, symbol: &str, body: FuncId, desc: DataId) -> Result<FuncId, String> {
    let run = runtime_call(module, "kerf_rt1_plan_run", 7)?;
    define_export(module, symbol, 5, None, |module, b, v| {
        let p = types::I64;
        let gv = module.declare_data_in_func(desc, b.func);
        let desc = b.ins().symbol_value(p, gv);
        let code = module.declare_func_in_func(body, b.func);
        let code = b.ins().func_addr(p, code);
        let run = module.declare_func_in_func(run, b.func);
        let call = b.ins().call(run, &[v[0], desc, code, v[1], v[2], v[3], v[4]]);
        Ok(b.inst_results(call)[0])
    })
}

/// Return `code` from the function when `cond` is set; continue in a new block.
fn fail_if(b: &mut FunctionBuilder, cond: Value, code: i32) {
    let (fail, next) = (b.create_block(), b.create_block());
    b.ins().brif(cond, fail, &[], next, &[]);
    b.switch_to_block(fail);
    let c = b.ins().iconst(types::I32, i64::from(code));
    b.ins().return_(&[c]);
    b.switch_to_block(next);
}

/// Run `then` in a block entered when `cond` is set; continue after it.
fn when(b: &mut FunctionBuilder, cond: Value, then: impl FnOnce(&mut FunctionBuilder)) {
    let (yes, after): (Block, Block) = (b.create_block(), b.create_block());
    b.ins().brif(cond, yes, &[], after, &[]);
    b.switch_to_block(yes);
    then(b);
    b.ins().jump(after, &[]);
    b.switch_to_block(after);
}

/// An exported entry point: `(input, input_bytes,)? output, output_bytes (, lo, hi)? ->
/// i32`. Checks, before anything is written: NULL pointers of non-empty buffers, both
/// lengths, overlap of the buffers, and for a range that `lo <= hi <= extent` with `lo`
/// (and `hi`, unless it is `extent`) multiples of the range alignment. Then zeroes a lone
/// 4-bit element's byte (its range writes the low half), calls the kernel, and fences
/// when the kernel streams.
fn checked_entry(
    module: &mut ObjectModule,
    symbol: &str,
    f: &StaticFunction,
    body: FuncId,
    args: Option<DataId>,
    range: bool,
) -> Result<FuncId, String> {
    let p = types::I64;
    let params = 2 + 2 * usize::from(f.input_bytes.is_some()) + 2 * usize::from(range);
    define_export(module, symbol, params, None, |module, b, v| {
        let (input, ib, rest) = match f.input_bytes {
            Some(_) => (Some(v[0]), Some(v[1]), &v[2..]),
            None => (None, None, v),
        };
        let (output, ob) = (rest[0], rest[1]);
        let out_len = f.output_bytes as i64;
        // NULL: only a buffer that must hold bytes.
        if let (Some(i), Some(n)) = (input, f.input_bytes)
            && n > 0
        {
            let c = b.ins().icmp_imm_u(IntCC::Equal, i, 0);
            fail_if(b, c, status::NULL);
        }
        if out_len > 0 {
            let c = b.ins().icmp_imm_u(IntCC::Equal, output, 0);
            fail_if(b, c, status::NULL);
        }
        if let (Some(ib), Some(n)) = (ib, f.input_bytes) {
            let c = b.ins().icmp_imm_u(IntCC::NotEqual, ib, n as i64);
            fail_if(b, c, status::INPUT_BYTES);
        }
        let c = b.ins().icmp_imm_u(IntCC::NotEqual, ob, out_len);
        fail_if(b, c, status::OUTPUT_BYTES);
        if let (Some(i), Some(n)) = (input, f.input_bytes)
            && n > 0
            && out_len > 0
        {
            // [i, i+n) and [o, o+m) overlap iff i < o+m and o < i+n (buffers that exist do
            // not wrap around the address space).
            let out_end = b.ins().iadd_imm_u(output, out_len);
            let in_end = b.ins().iadd_imm_u(i, n as i64);
            let a = b.ins().icmp(IntCC::UnsignedLessThan, i, out_end);
            let c = b.ins().icmp(IntCC::UnsignedLessThan, output, in_end);
            let both = b.ins().band(a, c);
            fail_if(b, both, status::OVERLAP);
        }
        let extent = f.extent as i64;
        let (lo, hi) = if range {
            let (lo, hi) = (rest[2], rest[3]);
            let c = b.ins().icmp(IntCC::UnsignedGreaterThan, lo, hi);
            fail_if(b, c, status::RANGE);
            let c = b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, hi, extent);
            fail_if(b, c, status::RANGE);
            if f.align > 1 {
                let r = b.ins().urem_imm_u(lo, f.align as i64);
                fail_if(b, r, status::RANGE);
                let r = b.ins().urem_imm_u(hi, f.align as i64);
                let not_end = b.ins().icmp_imm_u(IntCC::NotEqual, hi, extent);
                let r = b.ins().icmp_imm_u(IntCC::NotEqual, r, 0);
                let c = b.ins().band(r, not_end);
                fail_if(b, c, status::RANGE);
            }
            (lo, hi)
        } else {
            (b.ins().iconst(p, 0), b.ins().iconst(p, extent))
        };
        let runs = b.ins().icmp(IntCC::UnsignedLessThan, lo, hi);
        let body_ref = module.declare_func_in_func(body, b.func);
        let args_ptr = match args {
            Some(d) => {
                let gv = module.declare_data_in_func(d, b.func);
                b.ins().symbol_value(p, gv)
            }
            None => b.ins().iconst(p, 0),
        };
        let input_ptr = input.unwrap_or_else(|| b.ins().iconst(p, 0));
        let odd_nibble = f.odd_nibble;
        // A kernel that streams fences its own non-temporal stores before it returns (each
        // range call too: its caller's threads then see them as ordinary stores).
        let fence = if f.streams {
            let sig = Signature::new(module.isa().default_call_conv());
            let id = module.declare_function("kerf_rt1_fence", Linkage::Import, &sig).map_err(err)?;
            Some(module.declare_func_in_func(id, b.func))
        } else {
            None
        };
        when(b, runs, |b| {
            if odd_nibble {
                // The range that writes the last element zeroes its byte first.
                let last = b.ins().icmp_imm_u(IntCC::Equal, hi, extent);
                when(b, last, |b| {
                    let zero = b.ins().iconst(types::I8, 0);
                    let last_byte = b.ins().iadd_imm_u(output, out_len - 1);
                    b.ins().store(MemFlagsData::new().with_notrap(), zero, last_byte, 0);
                });
            }
            b.ins().call(body_ref, &[input_ptr, output, args_ptr, lo, hi]);
            if let Some(fence) = fence {
                b.ins().call(fence, &[]);
            }
        });
        let ok = b.ins().iconst(types::I32, i64::from(status::OK));
        Ok(ok)
    })
}

/// A program's exported range entry point: `(in_0, in_0_bytes, …, out_0, out_0_bytes, …,
/// lo, hi) -> i32`, a pair per input the caller passes (constants are the object's own)
/// and per output. Checks, before anything is written: NULL pointers of non-empty buffers
/// (inputs first, in order, then outputs), every input length, every output length,
/// overlap of each non-empty output with each non-empty input and each earlier output,
/// then that `lo <= hi <= range_extent`. Then runs each part of the program's range
/// ([`crate::program::RangePart`]) that meets `[lo, hi)`: a split move's function on its
/// positions' sub-range of its split loop (zeroing first, in the range that writes it,
/// the last byte of a whole 4-bit output holding a lone element), a whole part's moves
/// on the whole buffers they read and write; and fences once when a move streams. When a
/// part that runs needs scratch, it is allocated (`malloc`) after the checks, returning
/// `KERF_ERR_NOMEM` when that fails, and freed after the parts.
fn program_range_entry(
    module: &mut ObjectModule,
    symbol: &str,
    p: &ProgramFunctions,
    bodies: &[Vec<(FuncId, Option<DataId>)>],
    constants: &[Option<DataId>],
) -> Result<FuncId, String> {
    let ptr = types::I64;
    let callers: Vec<usize> = (0..p.inputs.len()).filter(|&i| p.inputs[i].constant.is_none()).collect();
    define_export(module, symbol, 2 * (callers.len() + p.outputs.len()) + 2, None, |module, b, v| {
        // (pointer, length parameter, the bytes it must hold)
        let ins: Vec<(Value, Value, u64)> =
            callers.iter().enumerate().map(|(k, &i)| (v[2 * k], v[2 * k + 1], p.inputs[i].bytes)).collect();
        let base = 2 * callers.len();
        let outs: Vec<(Value, Value, u64)> =
            p.outputs.iter().enumerate().map(|(k, o)| (v[base + 2 * k], v[base + 2 * k + 1], o.bytes)).collect();
        let (lo, hi) = (v[v.len() - 2], v[v.len() - 1]);
        for &(at, _, n) in ins.iter().chain(&outs) {
            if n > 0 {
                let c = b.ins().icmp_imm_u(IntCC::Equal, at, 0);
                fail_if(b, c, status::NULL);
            }
        }
        for (buffers, code) in [(&ins, status::INPUT_BYTES), (&outs, status::OUTPUT_BYTES)] {
            for &(_, len, n) in buffers {
                let c = b.ins().icmp_imm_u(IntCC::NotEqual, len, n as i64);
                fail_if(b, c, code);
            }
        }
        // [a, a+n) and [o, o+m) overlap iff a < o+m and o < a+n (buffers that exist do not
        // wrap around the address space).
        for (k, &(o, _, m)) in outs.iter().enumerate() {
            if m == 0 {
                continue;
            }
            for &(a, _, n) in ins.iter().chain(&outs[..k]) {
                if n == 0 {
                    continue;
                }
                let o_end = b.ins().iadd_imm_u(o, m as i64);
                let a_end = b.ins().iadd_imm_u(a, n as i64);
                let x = b.ins().icmp(IntCC::UnsignedLessThan, a, o_end);
                let y = b.ins().icmp(IntCC::UnsignedLessThan, o, a_end);
                let both = b.ins().band(x, y);
                fail_if(b, both, status::OVERLAP);
            }
        }
        let c = b.ins().icmp(IntCC::UnsignedGreaterThan, lo, hi);
        fail_if(b, c, status::RANGE);
        let c = b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, hi, p.range_extent as i64);
        fail_if(b, c, status::RANGE);
        // Every program input's pointer: the caller's, or the object's constant.
        let mut input_ptrs = Vec::with_capacity(p.inputs.len());
        let mut next = 0;
        for (i, input) in p.inputs.iter().enumerate() {
            input_ptrs.push(if input.constant.is_none() {
                next += 1;
                ins[next - 1].0
            } else if let Some(d) = constants[i] {
                let gv = module.declare_data_in_func(d, b.func);
                b.ins().symbol_value(ptr, gv)
            } else {
                b.ins().iconst(ptr, 0)
            });
        }
        // Whether position `at` lies in [lo, hi).
        let holds = |b: &mut FunctionBuilder, at: u64| {
            let x = b.ins().icmp_imm_u(IntCC::UnsignedLessThanOrEqual, lo, at as i64);
            let y = b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, hi, at as i64);
            b.ins().band(x, y)
        };
        let uses_scratch = |part: &PartRuns| match part {
            PartRuns::Split(_) => false,
            PartRuns::Whole(ms) => {
                ms.iter().any(|&m| p.moves[m].calls.iter().any(|c| matches!(c.writes, Buffer::Scratch { .. })))
            }
        };
        // The scratch, once every argument is checked, when a part that runs needs it: one
        // allocation for every move.
        let call_conv = module.isa().default_call_conv();
        let scratch = if p.scratch_bytes > 0 {
            let mut need = b.ins().iconst(types::I8, 0);
            for part in p.parts.iter().filter(|part| uses_scratch(&part.runs)) {
                let c = holds(b, part.start);
                need = b.ins().bor(need, c);
            }
            let mut sig = Signature::new(call_conv);
            sig.params.push(AbiParam::new(ptr));
            sig.returns.push(AbiParam::new(ptr));
            let malloc = module.declare_function("malloc", Linkage::Import, &sig).map_err(err)?;
            let malloc = module.declare_func_in_func(malloc, b.func);
            let (alloc, join) = (b.create_block(), b.create_block());
            b.append_block_param(join, ptr);
            let none = b.ins().iconst(ptr, 0);
            b.ins().brif(need, alloc, &[], join, &[BlockArg::Value(none)]);
            b.switch_to_block(alloc);
            let n = b.ins().iconst(ptr, p.scratch_bytes as i64);
            let call = b.ins().call(malloc, &[n]);
            let at = b.inst_results(call)[0];
            let c = b.ins().icmp_imm_u(IntCC::Equal, at, 0);
            fail_if(b, c, status::NOMEM);
            b.ins().jump(join, &[BlockArg::Value(at)]);
            b.switch_to_block(join);
            Some(b.block_params(join)[0])
        } else {
            None
        };
        let buffer = |b: &mut FunctionBuilder, which: Buffer| -> Result<Value, String> {
            Ok(match which {
                Buffer::None => b.ins().iconst(ptr, 0),
                Buffer::Input(i) => input_ptrs[i],
                Buffer::Output(o) => outs[o].0,
                Buffer::Scratch { offset, .. } => {
                    let at = scratch.ok_or_else(|| err("a scratch buffer without scratch"))?;
                    b.ins().iadd_imm_u(at, offset as i64)
                }
            })
        };
        let args_of = |module: &mut ObjectModule, b: &mut FunctionBuilder, args: Option<DataId>| match args {
            Some(d) => {
                let gv = module.declare_data_in_func(d, b.func);
                b.ins().symbol_value(ptr, gv)
            }
            None => b.ins().iconst(ptr, 0),
        };
        let zero_byte = |b: &mut FunctionBuilder, at: Value, offset: u64| {
            let zero = b.ins().iconst(types::I8, 0);
            let last_byte = b.ins().iadd_imm_u(at, offset as i64);
            b.ins().store(MemFlagsData::new().with_notrap(), zero, last_byte, 0);
        };
        for part in &p.parts {
            // The part's positions in [lo, hi): [l, h) of [start, end).
            let (first, end) =
                (b.ins().iconst(ptr, part.start as i64), b.ins().iconst(ptr, (part.start + part.positions) as i64));
            let l = b.ins().umax(lo, first);
            let l = b.ins().umin(l, end);
            let h = b.ins().umax(hi, first);
            let h = b.ins().umin(h, end);
            let runs = b.ins().icmp(IntCC::UnsignedLessThan, l, h);
            let (yes, after) = (b.create_block(), b.create_block());
            b.ins().brif(runs, yes, &[], after, &[]);
            b.switch_to_block(yes);
            match &part.runs {
                PartRuns::Split(m) => {
                    let (mv, &(body, args)) = (&p.moves[*m], &bodies[*m][0]);
                    let (call, f) = (&mv.calls[0], &mv.calls[0].function);
                    let input = buffer(b, call.reads)?;
                    let out = buffer(b, call.writes)?;
                    if f.odd_nibble {
                        // The range that writes the whole output's last element zeroes its
                        // byte first: the code writes its low half.
                        let last = b.ins().icmp(IntCC::Equal, h, end);
                        when(b, last, |b| zero_byte(b, out, f.output_bytes - 1));
                    }
                    // Positions [l, h) of the part: [l·align, min(h·align, extent)) of the split loop.
                    let l = b.ins().isub(l, first);
                    let h = b.ins().isub(h, first);
                    let (l, h) = if f.align > 1 {
                        let l = b.ins().imul_imm_u(l, f.align as i64);
                        let h = b.ins().imul_imm_u(h, f.align as i64);
                        let extent = b.ins().iconst(ptr, f.extent as i64);
                        (l, b.ins().umin(h, extent))
                    } else {
                        (l, h)
                    };
                    let body_ref = module.declare_func_in_func(body, b.func);
                    let args_ptr = args_of(module, b, args);
                    b.ins().call(body_ref, &[input, out, args_ptr, l, h]);
                }
                PartRuns::Whole(ms) => {
                    // A packed output of an odd count whose boxes are placed: its last byte's
                    // high half is padding, zeroed (the placements keep the nibble they do not
                    // write).
                    let placed = ms.iter().find(|&&m| p.moves[m].place.is_some()).map(|&m| p.moves[m].output);
                    if let Some(o) = placed
                        && p.outputs[o].shape.iter().product::<u64>() % 2 == 1
                    {
                        zero_byte(b, outs[o].0, p.outputs[o].bytes - 1);
                    }
                    for &m in ms {
                        let mv = &p.moves[m];
                        for (call, &(body, args)) in mv.calls.iter().zip(&bodies[m]) {
                            let f = &call.function;
                            if f.extent == 0 {
                                continue;
                            }
                            let input = buffer(b, call.reads)?;
                            let out = buffer(b, call.writes)?;
                            if f.odd_nibble {
                                // The whole buffer's last byte holds a lone element: the code
                                // writes its low half.
                                zero_byte(b, out, f.output_bytes - 1);
                            }
                            let body_ref = module.declare_func_in_func(body, b.func);
                            let args_ptr = args_of(module, b, args);
                            let (lo, hi) = (b.ins().iconst(ptr, 0), b.ins().iconst(ptr, f.extent as i64));
                            b.ins().call(body_ref, &[input, out, args_ptr, lo, hi]);
                        }
                        if let Some(place) = &mv.place {
                            let from = buffer(b, place.from)?;
                            place_nibbles(b, place, from, outs[mv.output].0);
                        }
                    }
                }
            }
            b.ins().jump(after, &[]);
            b.switch_to_block(after);
        }
        if let Some(at) = scratch {
            let mut sig = Signature::new(call_conv);
            sig.params.push(AbiParam::new(ptr));
            let free = module.declare_function("free", Linkage::Import, &sig).map_err(err)?;
            let free = module.declare_func_in_func(free, b.func);
            // free(NULL) when no part that ran needed it: nothing.
            b.ins().call(free, &[at]);
        }
        if p.moves.iter().flat_map(|mv| &mv.calls).any(|c| c.function.streams) {
            // The moves' non-temporal stores, ordered before the caller reads the outputs
            // (each range call fences its own).
            let sig = Signature::new(module.isa().default_call_conv());
            let fence = module.declare_function("kerf_rt1_fence", Linkage::Import, &sig).map_err(err)?;
            let fence = module.declare_func_in_func(fence, b.func);
            b.ins().call(fence, &[]);
        }
        let ok = b.ins().iconst(types::I32, i64::from(status::OK));
        Ok(ok)
    })
}

/// A program's exported entry point: `(in_0, in_0_bytes, …, out_0, out_0_bytes, …) ->
/// i32`, the range entry point `range` over the whole range `[0, range_extent)`: one code
/// path for the whole call and its ranges.
fn program_entry(
    module: &mut ObjectModule,
    symbol: &str,
    p: &ProgramFunctions,
    range: FuncId,
) -> Result<FuncId, String> {
    let ptr = types::I64;
    let params = 2 * (p.caller_inputs().count() + p.outputs.len());
    define_export(module, symbol, params, None, |module, b, v| {
        let mut args = v.to_vec();
        args.push(b.ins().iconst(ptr, 0));
        args.push(b.ins().iconst(ptr, p.range_extent as i64));
        let range = module.declare_func_in_func(range, b.func);
        let call = b.ins().call(range, &args);
        let status = b.inst_results(call)[0];
        Ok(status)
    })
}

/// Place a dense box of packed 4-bit elements at `from` into the output at `out`: one loop
/// over the box's elements `e`, each read from nibble `e` of `from` and written, keeping
/// the other half of its byte, to nibble `offset + Σ_d ((e / inner_d) % shape_d) ·
/// strides_d` of `out` (low nibble first), `inner_d` the volume of the box's axes after
/// `d`. Every index lies inside its buffer: the box lies inside the output
/// (`Program::validate`), and the scratch holds the box.
fn place_nibbles(b: &mut FunctionBuilder, place: &Place, from: Value, out: Value) {
    let n: u64 = place.shape.iter().product();
    if n == 0 {
        return;
    }
    let i64t = types::I64;
    let (header, body, exit) = (b.create_block(), b.create_block(), b.create_block());
    b.append_block_param(header, i64t);
    let zero = b.ins().iconst(i64t, 0);
    b.ins().jump(header, &[BlockArg::Value(zero)]);
    b.switch_to_block(header);
    let e = b.block_params(header)[0];
    let more = b.ins().icmp_imm_u(IntCC::UnsignedLessThan, e, n as i64);
    b.ins().brif(more, body, &[], exit, &[]);
    b.switch_to_block(body);
    // The output element.
    let mut at = b.ins().iconst(i64t, place.offset as i64);
    let mut inner = n;
    for (&extent, &stride) in place.shape.iter().zip(&place.strides) {
        inner /= extent.max(1);
        let y = b.ins().udiv_imm_u(e, inner.max(1) as i64);
        let y = b.ins().urem_imm_u(y, extent.max(1) as i64);
        let y = b.ins().imul_imm_u(y, stride as i64);
        at = b.ins().iadd(at, y);
    }
    let flags = MemFlagsData::new().with_notrap();
    // Its nibble of `from`.
    let byte = b.ins().ushr_imm_u(e, 1);
    let a = b.ins().iadd(from, byte);
    let x = b.ins().uload8(types::I32, flags, a, 0);
    let odd = b.ins().band_imm_u(e, 1);
    let sh = b.ins().ishl_imm_u(odd, 2);
    let sh = b.ins().ireduce(types::I32, sh);
    let x = b.ins().ushr(x, sh);
    let v = b.ins().band_imm_u(x, 15);
    // Written into its nibble of `out`.
    let byte = b.ins().ushr_imm_u(at, 1);
    let a = b.ins().iadd(out, byte);
    let old = b.ins().uload8(types::I32, flags, a, 0);
    let odd = b.ins().band_imm_u(at, 1);
    let sh = b.ins().ishl_imm_u(odd, 2);
    let sh = b.ins().ireduce(types::I32, sh);
    let m = b.ins().iconst(types::I32, 15);
    let m = b.ins().ishl(m, sh);
    let keep = b.ins().band_not(old, m);
    let v = b.ins().ishl(v, sh);
    let x = b.ins().bor(keep, v);
    b.ins().istore8(flags, x, a, 0);
    let next = b.ins().iadd_imm_u(e, 1);
    b.ins().jump(header, &[BlockArg::Value(next)]);
    b.switch_to_block(exit);
}

/// The info table: strings, shapes, one record per kernel, the library record, and the
/// exported `<lib>_info()` returning its address.
fn info(
    module: &mut ObjectModule,
    lib: &str,
    kernels: &[Kernel],
    entries: &[Entries],
    target: &Target,
) -> Result<(), String> {
    let mut strings: Vec<u8> = Vec::new();
    let mut string = |s: &str| {
        let at = strings.len() as i64;
        strings.extend(s.as_bytes());
        strings.push(0);
        at
    };
    let mut shapes: Vec<u8> = Vec::new();
    let mut shape = |s: &[u64]| {
        let at = shapes.len() as i64;
        shapes.extend(s.iter().flat_map(|d| d.to_le_bytes()));
        at
    };
    struct Rec {
        name: i64,
        dtype: i64,
        input_shape: Option<i64>,
        output_shape: i64,
    }
    // A program's operands: per input (the caller's) and output, its name and shape, and
    // the index of its first `kerf_tensor_info` record.
    struct Operand {
        name: i64,
        shape: i64,
        rank: u32,
        bytes: u64,
    }
    let mut operands: Vec<Operand> = Vec::new();
    let mut program_at: Vec<Option<(usize, usize)>> = Vec::with_capacity(kernels.len());
    let mut recs: Vec<Rec> = Vec::with_capacity(kernels.len());
    for k in kernels {
        let (name, dtype) = (string(&k.name), string(&k.dtype().to_string()));
        match &k.body {
            Body::Single(f) => {
                recs.push(Rec {
                    name,
                    dtype,
                    input_shape: f.input_shape.as_deref().map(&mut shape),
                    output_shape: shape(&f.output_shape),
                });
                program_at.push(None);
            }
            Body::Dynamic(_) => {
                recs.push(Rec { name, dtype, input_shape: None, output_shape: 0 });
                program_at.push(None);
            }
            Body::Program(p) => {
                let first = operands.len();
                for o in p.caller_inputs().chain(&p.outputs) {
                    operands.push(Operand {
                        name: string(&o.name),
                        shape: shape(&o.shape),
                        rank: o.shape.len() as u32,
                        bytes: o.bytes,
                    });
                }
                recs.push(Rec { name, dtype, input_shape: None, output_shape: 0 });
                program_at.push(Some((first, first + p.caller_inputs().count())));
            }
        }
    }
    let lib_name = string(lib);
    let triple = string(&module.isa().triple().to_string());
    let cpu = string(target.cpu.name());
    // Shapes may all be empty (scalars): keep the object non-empty so every pointer
    // points into it.
    shapes.resize(shapes.len().max(8), 0);
    let data = |module: &mut ObjectModule, sym: &str, bytes: Vec<u8>| -> Result<DataId, String> {
        let id = module.declare_data(sym, Linkage::Local, false, false).map_err(err)?;
        let mut d = DataDescription::new();
        d.define(bytes.into_boxed_slice());
        d.set_align(8);
        module.define_data(id, &d).map_err(err)?;
        Ok(id)
    };
    let strings_id = data(module, &format!("{lib}__strings"), strings)?;
    let shapes_id = data(module, &format!("{lib}__shapes"), shapes)?;
    let put = |bytes: &mut Vec<u8>, at: usize, v: u64| bytes[at..at + 8].copy_from_slice(&v.to_le_bytes());
    let put32 = |bytes: &mut Vec<u8>, at: usize, v: u32| bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());

    // Programs' `kerf_tensor_info` records (only in libraries that hold a program, one
    // record more than the operands so that every pointer points into it).
    let tensors_id = if program_at.iter().any(Option::is_some) {
        let id = module.declare_data(&format!("{lib}__tensors"), Linkage::Local, false, false).map_err(err)?;
        let mut d = DataDescription::new();
        let mut bytes = vec![0u8; TENSOR_INFO_BYTES * (operands.len() + 1)];
        let s_gv = module.declare_data_in_data(strings_id, &mut d);
        let sh_gv = module.declare_data_in_data(shapes_id, &mut d);
        for (k, o) in operands.iter().enumerate() {
            let base = TENSOR_INFO_BYTES * k;
            d.write_data_addr(base as u32, s_gv, o.name);
            d.write_data_addr((base + 8) as u32, sh_gv, o.shape);
            put32(&mut bytes, base + 16, o.rank);
            put(&mut bytes, base + 24, o.bytes);
        }
        d.define(bytes.into_boxed_slice());
        d.set_align(8);
        module.define_data(id, &d).map_err(err)?;
        Some(id)
    } else {
        None
    };

    let table_id = module.declare_data(&format!("{lib}__kernels"), Linkage::Local, false, false).map_err(err)?;
    let mut d = DataDescription::new();
    let mut bytes = vec![0u8; KERNEL_INFO_BYTES * kernels.len()];
    let s_gv = module.declare_data_in_data(strings_id, &mut d);
    let sh_gv = module.declare_data_in_data(shapes_id, &mut d);
    let t_gv = tensors_id.map(|t| module.declare_data_in_data(t, &mut d));
    for (k, ((kernel, rec), e)) in kernels.iter().zip(&recs).zip(entries).enumerate() {
        let base = KERNEL_INFO_BYTES * k;
        d.write_data_addr(base as u32, s_gv, rec.name);
        d.write_data_addr((base + 8) as u32, s_gv, rec.dtype);
        match (&kernel.body, program_at[k], t_gv) {
            (Body::Single(f), _, _) => {
                if let Some(at) = rec.input_shape {
                    d.write_data_addr((base + 16) as u32, sh_gv, at);
                }
                d.write_data_addr((base + 24) as u32, sh_gv, rec.output_shape);
                put32(&mut bytes, base + 32, f.input_shape.as_ref().map_or(0, Vec::len) as u32);
                put32(&mut bytes, base + 36, f.output_shape.len() as u32);
                put(&mut bytes, base + 40, f.input_bytes.unwrap_or(0));
                put(&mut bytes, base + 48, f.output_bytes);
                put(&mut bytes, base + 56, f.extent);
                put(&mut bytes, base + 64, f.align);
                put32(&mut bytes, base + 72, if f.input_bytes.is_some() { FLAG_READS_INPUT } else { 0 });
            }
            (Body::Program(p), Some((first, outputs_at)), Some(t_gv)) => {
                // input_shape and output_shape point to the inputs' and outputs'
                // kerf_tensor_info records, input_rank and output_rank count them,
                // input_bytes and output_bytes add them up; its range (ABI 1.2) has
                // range_extent positions, any bound valid.
                d.write_data_addr((base + 16) as u32, t_gv, (TENSOR_INFO_BYTES * first) as i64);
                d.write_data_addr((base + 24) as u32, t_gv, (TENSOR_INFO_BYTES * outputs_at) as i64);
                put32(&mut bytes, base + 32, (outputs_at - first) as u32);
                put32(&mut bytes, base + 36, p.outputs.len() as u32);
                put(&mut bytes, base + 40, p.caller_inputs().map(|o| o.bytes).sum());
                put(&mut bytes, base + 48, p.outputs.iter().map(|o| o.bytes).sum());
                put(&mut bytes, base + 56, p.range_extent);
                put(&mut bytes, base + 64, 1);
                put32(&mut bytes, base + 72, FLAG_PROGRAM);
            }
            (Body::Program(_), _, _) => return Err(err("a program kernel without its tensor records")),
            (Body::Dynamic(dk), _, _) => {
                // No shapes nor byte counts (a plan's); the input's rank and the
                // parameter count; range_entry is the plan constructor.
                put32(&mut bytes, base + 32, dk.template.data.2 as u32);
                put32(&mut bytes, base + 36, dk.template.params.len() as u32);
                put(&mut bytes, base + 64, 1);
                put32(&mut bytes, base + 72, FLAG_DYNAMIC | FLAG_READS_INPUT);
            }
        }
        let entry = module.declare_func_in_data(e.entry, &mut d);
        d.write_function_addr((base + 80) as u32, entry);
        if let Some(range) = e.range {
            let range = module.declare_func_in_data(range, &mut d);
            d.write_function_addr((base + 88) as u32, range);
        }
    }
    d.define(bytes.into_boxed_slice());
    d.set_align(8);
    module.define_data(table_id, &d).map_err(err)?;

    let lib_id = module.declare_data(&format!("{lib}__library"), Linkage::Local, false, false).map_err(err)?;
    let mut d = DataDescription::new();
    let mut bytes = vec![0u8; LIBRARY_INFO_BYTES];
    bytes[0..4].copy_from_slice(&ABI_MAJOR.to_le_bytes());
    bytes[4..8].copy_from_slice(&ABI_MINOR.to_le_bytes());
    bytes[8..16].copy_from_slice(&(kernels.len() as u64).to_le_bytes());
    let s_gv = module.declare_data_in_data(strings_id, &mut d);
    let t_gv = module.declare_data_in_data(table_id, &mut d);
    d.write_data_addr(16, s_gv, lib_name);
    d.write_data_addr(24, s_gv, triple);
    d.write_data_addr(32, s_gv, cpu);
    d.write_data_addr(40, t_gv, 0);
    d.define(bytes.into_boxed_slice());
    d.set_align(8);
    module.define_data(lib_id, &d).map_err(err)?;

    define_export(module, &format!("{lib}_info"), 0, Some(types::I64), |module, b, _| {
        let gv = module.declare_data_in_func(lib_id, b.func);
        Ok(b.ins().symbol_value(types::I64, gv))
    })?;
    Ok(())
}
