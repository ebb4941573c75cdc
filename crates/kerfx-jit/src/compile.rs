//! Compilation: the target ISA and its Cranelift settings, one JIT module per kernel
//! with the host functions it may call, the cache keys of static and dynamic kernels,
//! and the dispatch from what a kernel is emitted from to its emitter.

use crate::abi::{self, Prepared};
use crate::builder::Gen;
use crate::host::{HELPERS, Helper};
use crate::linspace::{self, LinKind};
use crate::random;
use crate::slice::{self, DynSlice, StaticSlice};
use crate::source::{Origin, OwnedViews, Signature};
use crate::threading::{self, Split};
use crate::{Jit, JitKernel, jit_error, policy};
use cranelift_codegen::Context;
use cranelift_codegen::ir::{Function, InstBuilder, UserFuncName};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};
use kerfx_ir::map::Kind;
use kerfx_ir::schedule::{self, FillBody, LoopNest};
use kerfx_ir::{DType, Error, FillKind, Linspace, Plan};
use std::sync::{Arc, Mutex, OnceLock};

/// Compiled machine code: one Cranelift module per kernel, so that its memory is freed
/// when the last kernel using it is dropped.
pub(crate) struct Code {
    module: Mutex<Option<JITModule>>,
    pub(crate) entry: usize,
    /// What the code was emitted from, to emit its IR again as text when asked for:
    /// compiling does not format text nobody may read.
    source: Emitter,
    /// Whether callers fence after the code ran (it wrote with non-temporal stores).
    pub(crate) streams: bool,
    frontend: TargetFrontendConfig,
    clif: OnceLock<String>,
}

impl Code {
    /// Whether the code calls [`crate::tile::tile_copy`] (see [`policy::tiles`]).
    pub(crate) fn tiled(&self) -> bool {
        matches!(&self.source, Emitter::Slice { nest, .. } if policy::tiles(nest))
    }
    pub(crate) fn clif(&self) -> &str {
        self.clif.get_or_init(|| {
            let (func, _) = make_function(&self.source, self.frontend);
            func.display().to_string()
        })
    }
}

impl Drop for Code {
    fn drop(&mut self) {
        if let Some(m) = self.module.get_mut().map(Option::take).unwrap_or(None) {
            // SAFETY: the code is dropped only when no kernel (and so no caller) holds it.
            unsafe { m.free_memory() };
        }
    }
}

/// What a dynamic kernel is specialized on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DynKey {
    pub(crate) op: DynOp,
    pub(crate) dtype: DType,
    /// Loop depth: for a slice its source rank (the axes it reads), at least 1 and at most
    /// [`schedule::MAX_DIMS`]; dims of a linspace; 0 for random fills.
    pub(crate) rank: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum DynOp {
    /// A map's nest of one fill value and no fill head, of the map's kind.
    Move(Kind),
    /// A map's nest that the move kernel does not run: it starts with a fill (`head`) or
    /// has fill levels (`fills`; see `DynSlice::emit_chain`).
    Chain {
        head: bool,
        fills: bool,
    },
    /// A slice writing an output view (its strides may leave gaps): a dynamic kernel
    /// compiled with an output view ([`crate::Options::output`]). A kernel apart from the
    /// dense one of its kind, so that dense outputs keep their code: here no dim is taken
    /// as dense (repetitions are recomputed, fill rows go position by position) and
    /// innermost runs check their output stride (contiguous rows are still copied and
    /// filled whole).
    MoveView(Kind),
    Random {
        normal: bool,
    },
    LinspaceInt,
    LinspaceFloat,
}

impl DynKey {
    pub(crate) fn of(plan: &Plan) -> Result<DynKey, Error> {
        plan.validate()?;
        crate::check_dtype(plan)?;
        Ok(match plan {
            // The runtime's key, which the planner of kernels written ahead of time
            // checks too: no rank is too large (see `MoveKey::depth`).
            Plan::Step(p) => DynKey::of_move(kerfx_rt::dynamic::MoveKey::of(p)),
            Plan::Fill(p) => match &p.kind {
                FillKind::RandomUniform { .. } => {
                    DynKey { op: DynOp::Random { normal: false }, dtype: p.dtype, rank: 0 }
                }
                FillKind::RandomNormal { .. } => DynKey { op: DynOp::Random { normal: true }, dtype: p.dtype, rank: 0 },
                FillKind::Linspace(Linspace::Int { .. }) => {
                    DynKey { op: DynOp::LinspaceInt, dtype: p.dtype, rank: p.shape.len() }
                }
                FillKind::Linspace(Linspace::Float { .. }) => {
                    DynKey { op: DynOp::LinspaceFloat, dtype: p.dtype, rank: p.shape.len() }
                }
            },
        })
    }
    /// The key of the move kernel a step's plan runs on (dense outputs).
    pub(crate) fn of_move(key: kerfx_rt::dynamic::MoveKey) -> DynKey {
        DynKey { op: DynOp::Move(key.kind), dtype: key.dtype, rank: key.depth }
    }
    /// The key of the kernel of this slice kind that writes output views; an error for
    /// packed 4-bit dtypes, whose outputs are written dense only (no such kernel exists).
    pub(crate) fn view(&self) -> Result<DynKey, Error> {
        check_view_dtype(self.dtype)?;
        Ok(match self.op {
            DynOp::Move(k) => DynKey { op: DynOp::MoveView(k), ..self.clone() },
            _ => self.clone(),
        })
    }
    /// Whether this kernel writes output views.
    pub(crate) fn writes_views(&self) -> bool {
        matches!(self.op, DynOp::MoveView(_))
    }
    fn name(&self) -> String {
        match self.op {
            DynOp::Move(k) => format!("kerf_move_{}_{}_r{}_dyn", k.name(), self.dtype, self.rank),
            DynOp::Chain { head, fills } => format!(
                "kerf_chain{}{}_{}_r{}_dyn",
                if fills { "_fill_levels" } else { "" },
                if head { "_from_fill" } else { "" },
                self.dtype,
                self.rank
            ),
            DynOp::MoveView(k) => format!("kerf_move_{}_{}_r{}_view_dyn", k.name(), self.dtype, self.rank),
            DynOp::Random { normal } => {
                format!("kerf_{}_{}_dyn", if normal { "random_normal" } else { "random_uniform" }, self.dtype)
            }
            DynOp::LinspaceInt | DynOp::LinspaceFloat => format!("kerf_linspace_{}_r{}_dyn", self.dtype, self.rank),
        }
    }
}

/// A nest's facts as a map kind (kernels' names).
fn nest_kind(nest: &LoopNest) -> Kind {
    Kind { fills: nest.fills, repeats: nest.repeats }
}

/// Refuse output views of packed 4-bit elements: the emitters write nibbles dense only.
pub(crate) fn check_view_dtype(dtype: DType) -> Result<(), Error> {
    if dtype.layout() == kerfx_ir::dtype::Layout::Nibbles {
        return Err(Error::Invalid {
            what: format!("output view of {dtype} elements: packed 4-bit outputs are written dense only"),
        });
    }
    Ok(())
}

impl Jit {
    fn build(&self, source: Emitter) -> Result<(Arc<Code>, Vec<i64>), Error> {
        // Both ISAs are the host's: one frontend configuration.
        let mut frontend = self.isa.frontend_config();
        frontend.default_call_conv = self.call_conv;
        let name = source.name();
        // One compilation context and function-builder context per thread, reused: the
        // function is emitted into the context's own (cleared) function, so the IR's, the
        // register allocator's and the analyses' allocations carry over from one kernel to
        // the next. Taken out while in use, so that a compile that panicked leaves none
        // half-used behind.
        thread_local! {
            static CONTEXT: std::cell::Cell<Option<Box<(Context, FunctionBuilderContext)>>> =
                const { std::cell::Cell::new(None) };
        }
        let mut contexts = CONTEXT.take().unwrap_or_else(|| Box::new((Context::new(), FunctionBuilderContext::new())));
        let (ctx, fctx) = &mut *contexts;
        ctx.clear();
        let (block, loops) = emit_function(&mut ctx.func, fctx, &source, frontend);
        let isa = if policy::light(source.light(), loops) { &self.isa_light } else { &self.isa };
        let mut builder = JITBuilder::with_isa(isa.clone(), default_libcall_names());
        // The one symbol kernels call; known here, it needs no dynamic-linker lookup.
        builder.symbol("memcpy", libc_memcpy as *const u8);
        builder.symbol("memset", libc_memset as *const u8);
        for &h in Helper::ALL {
            builder.symbol(h.symbol(), h.address());
        }
        let mut module = JITModule::new(builder);
        // Declared first, in order, so that their ids are the indices kernels name them by.
        for &h in Helper::ALL {
            let mut sig = cranelift_codegen::ir::Signature::new(self.call_conv);
            sig.params.extend(vec![cranelift_codegen::ir::AbiParam::new(cranelift_codegen::ir::types::I64); h.args()]);
            let id = module.declare_function(h.symbol(), Linkage::Import, &sig).map_err(jit_error)?;
            debug_assert_eq!(id.as_u32(), h.index());
        }
        let id = module.declare_function(&name, Linkage::Export, &ctx.func.signature).map_err(jit_error)?;
        let disasm = std::env::var_os("KERF_JIT_DISASM").is_some();
        ctx.set_disasm(disasm);
        let defined = module.define_function(id, ctx).map_err(|e| jit_error(format!("{e:?}")));
        if disasm && let Some(code) = ctx.compiled_code() {
            eprintln!("{name}:\n{}", code.vcode.as_deref().unwrap_or(""));
        }
        ctx.clear();
        CONTEXT.set(Some(contexts));
        defined?;
        module.finalize_definitions().map_err(jit_error)?;
        let entry = module.get_finalized_function(id) as usize;
        let streams = source.streams();
        let code = Code { module: Mutex::new(Some(module)), entry, source, streams, frontend, clif: OnceLock::new() };
        Ok((Arc::new(code), block))
    }

    pub(crate) fn build_static(&self, plan: &Plan) -> Result<Arc<JitKernel>, Error> {
        let source = Emitter::of_static(plan)?;
        let (split, (input_len, output_len)) = (source.split(), source.buffer_lens());
        let (code, args) = self.build(source)?;
        Ok(Arc::new(JitKernel {
            code,
            prepared: Prepared::new(plan.dtype(), args, split, input_len, output_len),
            signature: Signature {
                dtype: plan.dtype(),
                input_shape: plan.input_shape().map(<[u64]>::to_vec),
                output_shape: plan.output_shape().to_vec(),
            },
            origin: Origin::Plan(plan.clone()),
            views: OwnedViews::default(),
            dynamic: None,
            threads: self.settings.threads,
        }))
    }

    /// A static kernel from a loop nest (a map's, or a plan's through views: see `map`),
    /// emitted as a plan's static kernel is; `signature` states its buffers, `origin` and
    /// `views` what it was compiled from.
    pub(crate) fn build_nest(
        &self,
        nest: LoopNest,
        call_bytes: u64,
        signature: Signature,
        origin: Origin,
        views: OwnedViews,
    ) -> Result<Arc<JitKernel>, Error> {
        nest.verify()?;
        slice::elem_of(nest.dtype).ok_or_else(|| Error::Invalid {
            what: "the JIT moves bytes and cannot move strings; string chains run on the reference interpreter".into(),
        })?;
        if nest.out_view.is_some() {
            check_view_dtype(nest.dtype)?;
        }
        let (dtype, source) = (nest.dtype, Emitter::slice(nest, call_bytes));
        let (split, (input_len, output_len)) = (source.split(), source.buffer_lens());
        let (code, args) = self.build(source)?;
        Ok(Arc::new(JitKernel {
            code,
            signature,
            origin,
            views,
            prepared: Prepared::new(dtype, args, split, input_len, output_len),
            dynamic: None,
            threads: self.settings.threads,
        }))
    }

    pub(crate) fn build_dynamic(&self, key: &DynKey) -> Result<Arc<Code>, Error> {
        Ok(self.build(Emitter::Dynamic(key.clone()))?.0)
    }
}
/// What a kernel is emitted from: a static plan's schedule, or a dynamic kernel's key.
pub(crate) enum Emitter {
    /// `streams`: whether it writes with non-temporal stores ([`policy::slice_streams`]).
    Slice {
        nest: LoopNest,
        dtype: DType,
        streams: bool,
    },
    Fill(schedule::FillNest),
    Dynamic(DynKey),
}

impl Emitter {
    /// A static slice kernel's emitter, writing part of a call of `call_bytes` bytes
    /// (0: the kernel alone; see [`crate::Options`]).
    pub(crate) fn slice(nest: LoopNest, call_bytes: u64) -> Emitter {
        let streams = policy::slice_streams(&nest, call_bytes);
        Emitter::Slice { dtype: nest.dtype, nest, streams }
    }

    pub(crate) fn of_static(plan: &Plan) -> Result<Emitter, Error> {
        Ok(match plan {
            Plan::Step(p) => {
                let nest = schedule::map_nest(&kerfx_ir::Map::of(plan)?)?;
                nest.verify()?;
                slice::elem_of(p.dtype).ok_or_else(|| Error::Invalid { what: "strings".into() })?;
                Emitter::slice(nest, 0)
            }
            Plan::Fill(p) => {
                let nest = schedule::fill(p)?;
                nest.verify()?;
                Emitter::Fill(nest)
            }
        })
    }

    /// The elements a static kernel reads and writes: its verified nest's.
    pub(crate) fn buffer_lens(&self) -> (Option<u64>, u64) {
        match self {
            Emitter::Slice { nest, .. } => (nest.head.is_none().then_some(nest.input_len), nest.output_buffer_len()),
            Emitter::Fill(nest) => (None, nest.len),
            Emitter::Dynamic(_) => (None, 0),
        }
    }

    fn name(&self) -> String {
        match self {
            Emitter::Slice { nest, dtype, .. } if nest.head.is_some() || !nest.levels.is_empty() => format!(
                "kerf_chain_{}{}_{dtype}",
                if nest.levels.is_empty() { nest_kind(nest).name() } else { "fill_levels" },
                if nest.head.is_some() { "_from_fill" } else { "" },
            ),
            Emitter::Slice { nest, dtype, .. } => format!("kerf_move_{}_{}", nest_kind(nest).name(), dtype),
            Emitter::Fill(nest) => match &nest.body {
                FillBody::Random { normal, .. } => {
                    format!("kerf_{}_{}", if *normal { "random_normal" } else { "random_uniform" }, nest.dtype)
                }
                FillBody::LinspaceF32Exact { .. } => format!("kerf_linspace_{}_exact", nest.dtype),
                FillBody::LinspaceInt { .. } | FillBody::LinspaceF64 { .. } => {
                    format!("kerf_linspace_{}", nest.dtype)
                }
            },
            Emitter::Dynamic(key) => key.name(),
        }
    }

    /// Whether the kernel writes its output with cache-bypassing stores (see [`crate::stream`]).
    pub(crate) fn streams(&self) -> bool {
        match self {
            Emitter::Fill(nest) => policy::fill_streams(nest),
            Emitter::Slice { streams, .. } => *streams,
            Emitter::Dynamic(_) => false,
        }
    }

    /// Whether the kernel's loops leave register allocation without effect on its run
    /// time (see [`policy::light`]).
    fn light(&self) -> bool {
        match self {
            Emitter::Slice { nest, .. } => policy::row_kernel(nest),
            Emitter::Dynamic(DynKey {
                op: DynOp::Move(_) | DynOp::MoveView(_) | DynOp::Chain { .. }, rank, ..
            }) => *rank > policy::LIGHT_DEPTH,
            _ => false,
        }
    }

    /// How a static kernel's calls split over threads.
    pub(crate) fn split(&self) -> Split {
        match self {
            Emitter::Slice { nest, .. } => threading::slice_split(nest, 0),
            Emitter::Fill(nest) => match &nest.body {
                FillBody::Random { normal, .. } => {
                    Split { extent: nest.len, align: random::ALIGN, cost: policy::random_cost(*normal) }
                }
                FillBody::LinspaceInt { dims, .. } => threading::lin_split(nest.len, dims.iter().map(|d| d.extent)),
                FillBody::LinspaceF32Exact { dims, .. } => {
                    threading::lin_split(nest.len, dims.iter().map(|d| d.extent))
                }
                FillBody::LinspaceF64 { dims, .. } => threading::lin_split(nest.len, dims.iter().map(|d| d.extent)),
            },
            Emitter::Dynamic(_) => Split::default(),
        }
    }

    /// Emit the kernel's body; returns its argument block (a static kernel's tables).
    fn emit(&self, g: &mut Gen) -> Vec<i64> {
        match self {
            Emitter::Slice { nest, dtype, .. } => {
                StaticSlice::emit(g, nest, slice::elem_of(*dtype).expect("strings were refused"))
            }
            Emitter::Fill(nest) => match &nest.body {
                FillBody::Random { normal, alpha, beta, seed } => {
                    random::emit(g, *normal, nest.dtype == DType::F16);
                    random::encode(*alpha, *beta, *seed)
                }
                body => {
                    let mut lin = linspace::Linspace::constants(g, body).expect("a linspace body");
                    lin.stream = self.streams();
                    lin.emit(g, nest.dtype == DType::I32);
                    Vec::new()
                }
            },
            Emitter::Dynamic(key) => {
                match key.op {
                    DynOp::Move(kind) => {
                        let elem = slice::elem_of(key.dtype).expect("strings were refused");
                        DynSlice::emit(g, kind, elem, key.rank, false);
                    }
                    DynOp::MoveView(kind) => {
                        let elem = slice::elem_of(key.dtype).expect("strings were refused");
                        DynSlice::emit(g, kind, elem, key.rank, true);
                    }
                    DynOp::Chain { head, fills } => {
                        let elem = slice::elem_of(key.dtype).expect("strings were refused");
                        DynSlice::emit_chain(g, elem, key.rank, head, fills);
                    }
                    DynOp::Random { normal } => random::emit(g, normal, key.dtype == DType::F16),
                    DynOp::LinspaceInt => {
                        linspace::Linspace::from_args(g, LinKind::I64, key.rank).emit(g, key.dtype == DType::I32);
                    }
                    DynOp::LinspaceFloat => {
                        linspace::Linspace::from_args(g, LinKind::F64, key.rank).emit(g, false);
                    }
                }
                Vec::new()
            }
        }
    }
}

/// The kernel's Cranelift function, and its argument block.
pub(crate) fn make_function(source: &Emitter, frontend: TargetFrontendConfig) -> (Function, Vec<i64>) {
    let mut func = Function::new();
    let (block, _) = emit_function(&mut func, &mut FunctionBuilderContext::new(), source, frontend);
    (func, block)
}

/// Emit the kernel into `func` (empty); returns its argument block and how many loops
/// it has.
fn emit_function(
    func: &mut Function,
    fctx: &mut FunctionBuilderContext,
    source: &Emitter,
    frontend: TargetFrontendConfig,
) -> (Vec<i64>, usize) {
    func.name = UserFuncName::testcase(source.name());
    func.signature = abi::signature(frontend.default_call_conv);
    let mut b = FunctionBuilder::new(func, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let mut g = Gen {
        b,
        cfg: frontend,
        inp: p[0],
        out: p[1],
        args: p[2],
        lo: p[3],
        hi: p[4],
        consts: (None, Vec::new()),
        helpers: [None; HELPERS],
        stream: source.streams(),
        loops: 0,
    };
    let block = source.emit(&mut g);
    g.b.ins().return_(&[]);
    g.b.seal_all_blocks();
    let loops = g.loops;
    g.b.finalize(frontend);
    (block, loops)
}

unsafe extern "C" {
    #[link_name = "memcpy"]
    fn libc_memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8;
    #[link_name = "memset"]
    fn libc_memset(dst: *mut u8, c: i32, n: usize) -> *mut u8;
}
