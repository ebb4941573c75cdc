//! What an ahead-of-time compiler takes of a static kernel (`kerfx-aot`): its Cranelift
//! function, emitted for a [`Target`] by the JIT's own nests and emitters, with the
//! argument block it runs with and the facts its checking entry point needs. One code
//! generator: the JIT and the object file differ only in the target and the module the
//! function is defined in.

use crate::compile::{Emitter, make_function};
use crate::host::Helper;
use crate::source::{Signature, nest_of};
use crate::{IntoSource, Source, Target, Views};
use cranelift_codegen::ir::{ExternalName, Function};
use cranelift_codegen::isa::OwnedTargetIsa;
use kerfx_ir::{DType, Error};

/// A static kernel's function and facts, for a [`Target`].
pub struct StaticFunction {
    /// The kernel: `fn(input, output, args, lo, hi)` (see the crate's ABI), calling
    /// `memcpy`/`memset` as libcalls and the host functions named in `host_functions`.
    pub func: Function,
    /// The ISA to compile `func` with.
    pub isa: OwnedTargetIsa,
    /// The argument block `args` must point to (i64 words; may be empty).
    pub args: Vec<i64>,
    /// The positions of the split loop: a call computes `[lo, hi)` of `[0, extent)`.
    pub extent: u64,
    /// Range bounds other than `extent` must be multiples of this (at least 1).
    pub align: u64,
    /// Bytes of the input buffer (`None`: it reads none).
    pub input_bytes: Option<u64>,
    /// Bytes of the output buffer.
    pub output_bytes: u64,
    /// Whether the output's last byte holds a lone 4-bit element: the caller zeroes that
    /// byte before the range that writes it runs (the code writes its low half).
    pub odd_nibble: bool,
    /// The element type.
    pub dtype: DType,
    /// The input's shape (`None`: it reads none).
    pub input_shape: Option<Vec<u64>>,
    /// The output's shape.
    pub output_shape: Vec<u64>,
    /// The host functions the code calls (their C symbols), sorted: the runtime
    /// library's are `kerf_rt1_*`. `func` names each as a user function `u0:N`, `N` its
    /// index for [`host_function`].
    pub host_functions: Vec<&'static str>,
    /// Whether the code writes with non-temporal stores (through host functions).
    pub streams: bool,
}

/// The static kernel of `what` on dense buffers, for `target`: validated, scheduled and
/// verified exactly as [`crate::Jit::compile`] does with [`crate::Options::STATIC`].
pub fn static_function<'a>(what: impl IntoSource<'a>, target: &Target) -> Result<StaticFunction, Error> {
    static_function_views(what, Views::DENSE, target)
}

/// [`static_function`] reading and writing through `views` (a view's buffer is its whole
/// `buffer_len`, as [`crate::Jit::compile`] with [`crate::Options::STATIC`] and these
/// views): what a program's move writing its box of an output compiles to. A fill takes
/// no view; packed 4-bit outputs are written dense only.
pub fn static_function_views<'a>(
    what: impl IntoSource<'a>,
    views: Views<'_>,
    target: &Target,
) -> Result<StaticFunction, Error> {
    static_function_part(what, views, 0, target)
}

/// [`static_function_views`] for one part of a call that writes `call_bytes` in all (a
/// program's move writing its output: streaming is decided for the call, as
/// [`crate::Options::part_of`] decides it on the JIT).
pub fn static_function_part<'a>(
    what: impl IntoSource<'a>,
    views: Views<'_>,
    call_bytes: u64,
    target: &Target,
) -> Result<StaticFunction, Error> {
    let what = what.into_source()?;
    let emitter = match &what {
        Source::Plan(plan) if views.input.is_none() && views.output.is_none() && call_bytes == 0 => {
            plan.validate()?;
            crate::check_dtype(plan)?;
            Emitter::of_static(plan)?
        }
        Source::Plan(_) | Source::Map(_) => {
            let nest = nest_of(&what, views)?;
            nest.verify()?;
            crate::slice::elem_of(nest.dtype).ok_or_else(|| Error::Invalid {
                what: "kerf moves bytes and cannot compile strings; string chains run on the reference interpreter"
                    .into(),
            })?;
            if nest.out_view.is_some() {
                crate::compile::check_view_dtype(nest.dtype)?;
            }
            Emitter::slice(nest, call_bytes)
        }
    };
    let signature = Signature::of(&what, views);
    // One register allocator for every function of an object (the JIT picks the
    // single-pass one per kernel only to save compile time).
    let (isa, call_conv) = target.isa("backtracking")?;
    let mut frontend = isa.frontend_config();
    frontend.default_call_conv = call_conv;
    let (func, args) = make_function(&emitter, frontend);
    let split = emitter.split();
    let (input_len, output_len) = emitter.buffer_lens();
    let dtype = signature.dtype;
    let bytes = |n: u64| {
        dtype
            .buffer_bytes(n)
            .map(|b| b as u64)
            .ok_or_else(|| Error::TooLarge { what: format!("{n} elements of {dtype}") })
    };
    let host_functions = host_functions_of(&func);
    Ok(StaticFunction {
        args,
        extent: split.extent,
        align: split.align.max(1),
        input_bytes: input_len.map(bytes).transpose()?,
        output_bytes: bytes(output_len)?,
        odd_nibble: dtype.layout() == kerfx_ir::dtype::Layout::Nibbles && output_len % 2 == 1,
        dtype,
        input_shape: signature.input_shape,
        output_shape: signature.output_shape,
        host_functions,
        streams: emitter.streams(),
        func,
        isa,
    })
}

/// A dynamic move kernel's function for a [`Target`]: the code the JIT's dynamic path
/// compiles for the plan's key ([`crate::Options::DYNAMIC`] on dense buffers), every
/// number of a plan read from its argument block (encoded by `kerfx_rt::dynamic`).
pub struct DynamicFunction {
    /// The kernel: `fn(input, output, args, lo, hi)` (see the crate's ABI), calling
    /// `memcpy`/`memset` as libcalls and the host functions named in `host_functions`.
    pub func: Function,
    /// The ISA to compile `func` with.
    pub isa: OwnedTargetIsa,
    /// What the code is specialized on: every plan it runs has this key.
    pub key: kerfx_rt::dynamic::MoveKey,
    /// The host functions the code calls (their C symbols), sorted; `func` names each
    /// as a user function `u0:N`, `N` its index for [`host_function`].
    pub host_functions: Vec<&'static str>,
}

/// The dynamic kernel a plan runs on, for `target`: the plan validated and its key taken
/// exactly as [`crate::Jit::compile`] with [`crate::Options::DYNAMIC`] does. Moves only
/// (a step's plan): fills are refused.
pub fn dynamic_function(plan: &kerfx_ir::Plan, target: &Target) -> Result<DynamicFunction, Error> {
    let key = crate::compile::DynKey::of(plan)?;
    let kerfx_ir::Plan::Step(step) = plan else {
        return Err(Error::Invalid {
            what: "a dynamic fill (random or linspace) is not written ahead of time; compile it static".into(),
        });
    };
    let (isa, call_conv) = target.isa("backtracking")?;
    let mut frontend = isa.frontend_config();
    frontend.default_call_conv = call_conv;
    let (func, _) = make_function(&Emitter::Dynamic(key), frontend);
    let host_functions = host_functions_of(&func);
    Ok(DynamicFunction { func, isa, key: kerfx_rt::dynamic::MoveKey::of(step), host_functions })
}

/// The host functions a kernel's function calls, sorted and deduplicated.
fn host_functions_of(func: &Function) -> Vec<&'static str> {
    let mut host_functions: Vec<&'static str> = func
        .params
        .user_named_funcs()
        .values()
        .filter_map(|n| Helper::ALL.get(n.index as usize).map(|h| h.symbol()))
        .collect();
    debug_assert!(func.dfg.ext_funcs.values().all(|f| !matches!(f.name, ExternalName::TestCase(_))));
    host_functions.sort_unstable();
    host_functions.dedup();
    host_functions
}

/// A host function kernels may call: its C symbol and how many i64 arguments it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostFunction {
    /// The symbol (`kerf_rt1_*` for the runtime library's).
    pub symbol: &'static str,
    /// Its arguments, every one an i64 (pointers and sizes); it returns nothing.
    pub args: usize,
}

/// The host function a kernel's function names as user function `u0:index`.
pub fn host_function(index: u32) -> Option<HostFunction> {
    Helper::ALL.get(index as usize).map(|h| HostFunction { symbol: h.symbol(), args: h.args() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kerfx_ir::schedule::Strided;

    /// A [2, 3] copy written as the right half of a [2, 6] buffer: the function writes the
    /// whole buffer's bytes; packed 4-bit views are refused, as on the JIT.
    #[test]
    fn a_function_writes_a_box_through_an_output_view() {
        let target = Target::aot("x86_64-unknown-linux-gnu").unwrap();
        let view = Strided { offset: 3, strides: vec![6, 1], buffer_len: 12 };
        let plan = kerfx_ir::Plan::copy(DType::F32, &[2, 3]);
        let f = static_function_views(&plan, Views::DENSE.output(&view), &target).unwrap();
        assert_eq!((f.input_bytes, f.output_bytes), (Some(24), 48));
        assert_eq!((f.input_shape.as_deref(), f.output_shape.as_slice()), (Some(&[2u64, 3][..]), &[12u64][..]));
        let dense = static_function(&plan, &target).unwrap();
        assert_eq!(dense.output_bytes, 24);
        let nibbles = kerfx_ir::Plan::copy(DType::U4, &[2, 3]);
        let e = static_function_views(&nibbles, Views::DENSE.output(&view), &target).err().unwrap().to_string();
        assert!(e.contains("packed 4-bit"), "{e}");
    }
}
