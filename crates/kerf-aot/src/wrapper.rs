//! The object: per kernel its code and argument block (local), and the checking entry
//! points written in CLIF (exported), then the info table and `<lib>_info()`.

use crate::{ABI_MAJOR, ABI_MINOR, Kernel, Target, status};
use cranelift_codegen::Context;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{AbiParam, Block, InstBuilder, MemFlagsData, Signature, UserExternalName, Value, types};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{DataDescription, DataId, FuncId, Linkage, Module, default_libcall_names};
use cranelift_object::{ObjectBuilder, ObjectModule};

/// Bytes of one `kerf_kernel_info` record and of `kerf_library_info` (the header's
/// structs, 64-bit targets).
pub(crate) const KERNEL_INFO_BYTES: usize = 96;
pub(crate) const LIBRARY_INFO_BYTES: usize = 48;

fn err(e: impl std::fmt::Display) -> String {
    format!("writing the object: {e}")
}

/// Where a kernel's pieces are in the module.
struct Entries {
    entry: FuncId,
    range: FuncId,
}

pub(crate) fn object(name: &str, kernels: &[Kernel], target: &Target) -> Result<Vec<u8>, String> {
    let first = kernels.first().ok_or("a library has at least one kernel")?;
    let isa = first.function.isa.clone();
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

/// Define one kernel's code, argument block and entry points.
fn kernel(module: &mut ObjectModule, lib: &str, k: &Kernel) -> Result<Entries, String> {
    let f = &k.function;
    let body = module
        .declare_function(&format!("{lib}_{}__kernel", k.name), Linkage::Local, &f.func.signature)
        .map_err(err)?;
    let mut func = f.func.clone();
    // The kernel names host function N as `u0:N`: point each at its import by symbol
    // (`kerf_rt1_*`), declared only when used so that runtime-free objects import none.
    let named: Vec<_> = func.params.user_named_funcs().iter().map(|(r, n)| (r, n.clone())).collect();
    for (r, n) in named {
        let host = kerf_jit::object::host_function(n.index).ok_or_else(|| err(format!("host function {}", n.index)))?;
        let mut sig = Signature::new(func.signature.call_conv);
        sig.params.extend((0..host.args).map(|_| AbiParam::new(types::I64)));
        let id = module.declare_function(host.symbol, Linkage::Import, &sig).map_err(err)?;
        func.params.reset_user_func_name(r, UserExternalName::new(0, id.as_u32()));
    }
    let mut ctx = Context::for_function(func);
    module.define_function(body, &mut ctx).map_err(|e| err(format!("{e:?}")))?;
    let args = if f.args.is_empty() {
        None
    } else {
        let id = module.declare_data(&format!("{lib}_{}__args", k.name), Linkage::Local, false, false).map_err(err)?;
        let mut d = DataDescription::new();
        d.define(f.args.iter().flat_map(|w| w.to_le_bytes()).collect());
        d.set_align(8);
        module.define_data(id, &d).map_err(err)?;
        Some(id)
    };
    let entry = checked_entry(module, &format!("{lib}_{}", k.name), k, body, args, false)?;
    let range = checked_entry(module, &format!("{lib}_{}_range", k.name), k, body, args, true)?;
    Ok(Entries { entry, range })
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
    k: &Kernel,
    body: FuncId,
    args: Option<DataId>,
    range: bool,
) -> Result<FuncId, String> {
    let f = &k.function;
    let p = types::I64;
    let mut sig = Signature::new(module.isa().default_call_conv());
    let params = 2 + 2 * usize::from(f.input_bytes.is_some()) + 2 * usize::from(range);
    sig.params.extend((0..params).map(|_| AbiParam::new(p)));
    sig.returns.push(AbiParam::new(types::I32));
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
    let (input, ib, rest) = match f.input_bytes {
        Some(_) => (Some(v[0]), Some(v[1]), &v[2..]),
        None => (None, None, &v[..]),
    };
    let (output, ob) = (rest[0], rest[1]);
    let out_len = f.output_bytes as i64;
    // NULL: only a buffer that must hold bytes.
    if let (Some(i), Some(n)) = (input, f.input_bytes)
        && n > 0
    {
        let c = b.ins().icmp_imm_u(IntCC::Equal, i, 0);
        fail_if(&mut b, c, status::NULL);
    }
    if out_len > 0 {
        let c = b.ins().icmp_imm_u(IntCC::Equal, output, 0);
        fail_if(&mut b, c, status::NULL);
    }
    if let (Some(ib), Some(n)) = (ib, f.input_bytes) {
        let c = b.ins().icmp_imm_u(IntCC::NotEqual, ib, n as i64);
        fail_if(&mut b, c, status::INPUT_BYTES);
    }
    let c = b.ins().icmp_imm_u(IntCC::NotEqual, ob, out_len);
    fail_if(&mut b, c, status::OUTPUT_BYTES);
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
        fail_if(&mut b, both, status::OVERLAP);
    }
    let extent = f.extent as i64;
    let (lo, hi) = if range {
        let (lo, hi) = (rest[2], rest[3]);
        let c = b.ins().icmp(IntCC::UnsignedGreaterThan, lo, hi);
        fail_if(&mut b, c, status::RANGE);
        let c = b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, hi, extent);
        fail_if(&mut b, c, status::RANGE);
        if f.align > 1 {
            let r = b.ins().urem_imm_u(lo, f.align as i64);
            fail_if(&mut b, r, status::RANGE);
            let r = b.ins().urem_imm_u(hi, f.align as i64);
            let not_end = b.ins().icmp_imm_u(IntCC::NotEqual, hi, extent);
            let r = b.ins().icmp_imm_u(IntCC::NotEqual, r, 0);
            let c = b.ins().band(r, not_end);
            fail_if(&mut b, c, status::RANGE);
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
    when(&mut b, runs, |b| {
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
    b.ins().return_(&[ok]);
    b.seal_all_blocks();
    b.finalize(frontend);
    module.define_function(id, &mut ctx).map_err(|e| err(format!("{e:?}")))?;
    Ok(id)
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
    let recs: Vec<Rec> = kernels
        .iter()
        .map(|k| Rec {
            name: string(&k.name),
            dtype: string(&k.function.dtype.to_string()),
            input_shape: k.function.input_shape.as_deref().map(&mut shape),
            output_shape: shape(&k.function.output_shape),
        })
        .collect();
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

    let table_id = module.declare_data(&format!("{lib}__kernels"), Linkage::Local, false, false).map_err(err)?;
    let mut d = DataDescription::new();
    let mut bytes = vec![0u8; KERNEL_INFO_BYTES * kernels.len()];
    let s_gv = module.declare_data_in_data(strings_id, &mut d);
    let sh_gv = module.declare_data_in_data(shapes_id, &mut d);
    let put = |bytes: &mut Vec<u8>, at: usize, v: u64| bytes[at..at + 8].copy_from_slice(&v.to_le_bytes());
    for (k, ((kernel, rec), e)) in kernels.iter().zip(&recs).zip(entries).enumerate() {
        let base = KERNEL_INFO_BYTES * k;
        let f = &kernel.function;
        d.write_data_addr(base as u32, s_gv, rec.name);
        d.write_data_addr((base + 8) as u32, s_gv, rec.dtype);
        if let Some(at) = rec.input_shape {
            d.write_data_addr((base + 16) as u32, sh_gv, at);
        }
        d.write_data_addr((base + 24) as u32, sh_gv, rec.output_shape);
        let in_rank = f.input_shape.as_ref().map_or(0, Vec::len) as u32;
        let out_rank = f.output_shape.len() as u32;
        bytes[base + 32..base + 36].copy_from_slice(&in_rank.to_le_bytes());
        bytes[base + 36..base + 40].copy_from_slice(&out_rank.to_le_bytes());
        put(&mut bytes, base + 40, f.input_bytes.unwrap_or(0));
        put(&mut bytes, base + 48, f.output_bytes);
        put(&mut bytes, base + 56, f.extent);
        put(&mut bytes, base + 64, f.align);
        let flags = u32::from(f.input_bytes.is_some());
        bytes[base + 72..base + 76].copy_from_slice(&flags.to_le_bytes());
        let entry = module.declare_func_in_data(e.entry, &mut d);
        d.write_function_addr((base + 80) as u32, entry);
        let range = module.declare_func_in_data(e.range, &mut d);
        d.write_function_addr((base + 88) as u32, range);
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

    let mut sig = Signature::new(module.isa().default_call_conv());
    sig.returns.push(AbiParam::new(types::I64));
    let id = module.declare_function(&format!("{lib}_info"), Linkage::Export, &sig).map_err(err)?;
    let mut ctx = module.make_context();
    let frontend = module.isa().frontend_config();
    ctx.func.signature = sig;
    let mut fctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
    let start = b.create_block();
    b.switch_to_block(start);
    let gv = module.declare_data_in_func(lib_id, b.func);
    let v = b.ins().symbol_value(types::I64, gv);
    b.ins().return_(&[v]);
    b.seal_all_blocks();
    b.finalize(frontend);
    module.define_function(id, &mut ctx).map_err(|e| err(format!("{e:?}")))?;
    Ok(())
}
