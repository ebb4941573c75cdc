//! The one entry point: what a kernel is compiled from ([`Map`]: a plan or a fused chain),
//! how ([`Options`]: static or dynamic, and the [`Views`] its input and output are read
//! and written through), [`Jit::compile`] and [`JitKernel::run`].
//!
//! Every kind of map lowers here in two ways: to the loop nest or plan a static kernel is
//! emitted from (`Jit::static_kernel`), and to the key of the dynamic kernel it runs on
//! with its argument block (`dynamic_key`, `dynamic_args`), which compiling and running a
//! dynamic kernel share, so that a call is checked exactly as the kernel's own map was.
//! A new kind of map is a variant of [`Map`] and an arm in each of those three functions.
//! Every nest is verified to read only `[0, input_len)` and to write exactly
//! `[0, output_len)`, or each element of its output view once (`LoopNest::out_view`),
//! before any code runs.

use crate::abi::{encode_slice, prepare_dynamic};
use crate::cache::{PlanKey, PlanRef};
use crate::compile::{DynKey, DynOp};
use crate::{Jit, JitKernel, check_dtype};
use kerf_ir::chain::FusedChain;
use kerf_ir::schedule::{self, LoopNest, Strided};
use kerf_ir::{Error, Plan, Request, SlicePlan};
use std::borrow::Cow;
use std::sync::Arc;

/// What a kernel is compiled from and runs: a [`Plan`] (a slice or a fill) or a
/// [`FusedChain`] (one kernel for a chain of steps, see [`kerf_ir::chain`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Map<'a> {
    Plan(Cow<'a, Plan>),
    Chain(&'a FusedChain),
}

/// What [`Jit::compile`] and [`JitKernel::run`] take: a [`Map`], or what makes one —
/// `&Plan`, `&SlicePlan` (cloned into a plan), `&FusedChain`, and `&Request`, lowered by
/// its frontend ([`kerf_ir::lower`]: its errors are the call's).
pub trait IntoMap<'a> {
    fn into_map(self) -> Result<Map<'a>, Error>;
}

impl<'a> IntoMap<'a> for Map<'a> {
    fn into_map(self) -> Result<Map<'a>, Error> {
        Ok(self)
    }
}

impl<'a> IntoMap<'a> for &'a Plan {
    fn into_map(self) -> Result<Map<'a>, Error> {
        Ok(Map::Plan(Cow::Borrowed(self)))
    }
}

impl<'a> IntoMap<'a> for &SlicePlan {
    fn into_map(self) -> Result<Map<'a>, Error> {
        Ok(Map::Plan(Cow::Owned(Plan::Slice(self.clone()))))
    }
}

impl<'a> IntoMap<'a> for &'a FusedChain {
    fn into_map(self) -> Result<Map<'a>, Error> {
        Ok(Map::Chain(self))
    }
}

impl<'a> IntoMap<'a> for &Request {
    fn into_map(self) -> Result<Map<'a>, Error> {
        Ok(Map::Plan(Cow::Owned(kerf_ir::lower(self)?)))
    }
}

/// The layouts of a kernel's input and output: each a view of a buffer ([`Strided`]: an
/// offset and a stride per axis, in elements) or `None`, the dense tensor alone in its
/// buffer. A kernel is compiled for one layout (which views exist); a static kernel bakes
/// the views themselves into its code, a dynamic one takes them per call.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Views<'v> {
    pub input: Option<&'v Strided>,
    pub output: Option<&'v Strided>,
}

impl<'v> Views<'v> {
    /// Dense input and output.
    pub const DENSE: Views<'static> = Views { input: None, output: None };

    /// The input read through `view`.
    pub fn input(self, view: &'v Strided) -> Self {
        Views { input: Some(view), ..self }
    }

    /// The output written through `view`.
    pub fn output(self, view: &'v Strided) -> Self {
        Views { output: Some(view), ..self }
    }

    fn is_dense(&self) -> bool {
        self.input.is_none() && self.output.is_none()
    }
}

/// How [`Jit::compile`] compiles a map.
///
/// - static (`dynamic: false`): every number of the map and of its views baked into the
///   code; a dense plan's kernel is cached (by plan), every other one compiles per call.
/// - dynamic: the code is specialized on the kind of map only (op, mode, dtype, loop
///   depth, and whether the output is a view) and cached by that kind; the map's numbers
///   and the views' offsets and strides are its argument block, so
///   [`JitKernel::run`] runs any map of that kind, through any views of the layout it was
///   compiled for, without compiling.
///
/// An output view's strides must be positive and its elements apart (checked with the
/// input view's bounds before anything compiles: an error naming the axis otherwise); a
/// kernel writing one writes only the view's elements, in place, and leaves the rest of
/// its buffer as it was. Packed 4-bit dtypes are written dense only; fills read no input
/// and write dense outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Options<'v> {
    pub dynamic: bool,
    pub views: Views<'v>,
}

impl<'v> Options<'v> {
    /// A static kernel on dense buffers.
    pub const STATIC: Options<'static> = Options { dynamic: false, views: Views::DENSE };
    /// A dynamic kernel on dense buffers.
    pub const DYNAMIC: Options<'static> = Options { dynamic: true, views: Views::DENSE };

    /// Static (`false`) or dynamic (`true`).
    pub fn dynamic(dynamic: bool) -> Options<'static> {
        Options { dynamic, views: Views::DENSE }
    }

    /// The input read through `view`.
    pub fn input(self, view: &'v Strided) -> Self {
        Options { views: self.views.input(view), ..self }
    }

    /// The output written through `view`.
    pub fn output(self, view: &'v Strided) -> Self {
        Options { views: self.views.output(view), ..self }
    }

    /// Input and output read and written through `views`.
    pub fn views(self, views: Views<'v>) -> Self {
        Options { views, ..self }
    }
}

/// What a kernel was compiled from, kept to check what it is asked to run.
#[derive(Debug)]
pub(crate) enum Origin {
    /// The kernel's own [`JitKernel::plan`] (a dense plan).
    Plan,
    /// A plan read or written through views (the kernel's `plan` states its buffers).
    Slice(Plan),
    Chain(FusedChain),
}

/// The views a kernel was compiled for (owned).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct OwnedViews {
    input: Option<Strided>,
    output: Option<Strided>,
}

impl OwnedViews {
    pub(crate) fn of(views: Views<'_>) -> OwnedViews {
        OwnedViews { input: views.input.cloned(), output: views.output.cloned() }
    }
    fn get(&self) -> Views<'_> {
        Views { input: self.input.as_ref(), output: self.output.as_ref() }
    }
}

#[cold]
fn fill_views() -> Error {
    Error::Invalid { what: "a fill reads no input and writes a dense output: it takes no view".into() }
}

#[cold]
fn string_chain() -> Error {
    Error::Invalid {
        what: "the JIT moves bytes and cannot move strings; chains of dtype string run on the reference interpreter"
            .into(),
    }
}

/// The plan a nest kernel reports ([`JitKernel::plan`]): its dtype, the shapes of the
/// buffers it reads and writes — a view's whole buffer (`[buffer_len]`), else the dense
/// `input_shape` / `output_shape` — its mode and fill value; no axes (the nest is the
/// truth).
fn carrier(nest: &LoopNest, (input_shape, output_shape): (&[u64], &[u64]), views: Views<'_>) -> Plan {
    let buffer = |dense: &[u64], view: Option<&Strided>| view.map_or_else(|| dense.to_vec(), |v| vec![v.buffer_len]);
    Plan::Slice(SlicePlan {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype: nest.dtype,
        input_shape: buffer(input_shape, views.input),
        axes: Vec::new(),
        mode: nest.mode,
        fill_bits: nest.fill_bits,
        output_shape: buffer(output_shape, views.output),
        windows: Vec::new(),
        gathered: None,
    })
}

/// A map's dense input and output shapes (the carrier's, see [`carrier`]).
fn shapes<'m>(what: &'m Map<'_>) -> (&'m [u64], &'m [u64]) {
    match what {
        Map::Plan(p) => match p.as_ref() {
            Plan::Slice(p) => (&p.input_shape, &p.output_shape),
            Plan::Fill(p) => (&[], &p.shape),
        },
        Map::Chain(f) => (f.head_shape(), &f.output_shape),
    }
}

/// The loop nest of a map read and written through views (any map but a dense plan, whose
/// static kernel is emitted from its plan: see `Emitter::of_static`), not yet verified.
fn nest_of(what: &Map<'_>, views: Views<'_>) -> Result<LoopNest, Error> {
    match what {
        Map::Plan(p) => match p.as_ref() {
            Plan::Slice(p) => schedule::slice_views(p, views.input, views.output),
            Plan::Fill(_) => Err(fill_views()),
        },
        Map::Chain(f) => schedule::chain_views(f, views.input, views.output)?.ok_or_else(string_chain),
    }
}

/// The dynamic kernel a fused chain's nest runs on: a plan's slice kernel of its mode when
/// it is a plan's kind of nest, else the chain kernel.
fn chain_op(nest: &LoopNest) -> DynOp {
    if nest.head.is_none() && nest.levels.is_empty() {
        DynOp::Slice(nest.mode)
    } else {
        DynOp::Chain { head: nest.head.is_some(), fills: nest.mode == kerf_ir::BoundaryMode::Fill }
    }
}

/// The key of the dynamic kernel `what` runs on through `views` (a kernel writing output
/// views when `views.output` is set), the map validated first; and its nest, scheduled
/// and verified, where it has one apart from its plan's (a chain, whose key depends on
/// it; a plan through views), which [`dynamic_args`] encodes.
fn dynamic_key(what: &Map<'_>, views: Views<'_>) -> Result<(DynKey, Option<LoopNest>), Error> {
    let (key, nest) = match what {
        Map::Plan(plan) if views.is_dense() => (DynKey::of(plan)?, None),
        Map::Plan(plan) => {
            let key = DynKey::of(plan)?;
            let nest = nest_of(what, views)?;
            nest.verify()?;
            (key, Some(nest))
        }
        Map::Chain(fused) => {
            let nest = nest_of(what, views)?;
            nest.verify()?;
            check_dtype(&carrier(&nest, (fused.head_shape(), &fused.output_shape), views))?;
            let key =
                DynKey { op: chain_op(&nest), dtype: nest.dtype, rank: nest.dims.len().clamp(1, schedule::MAX_DIMS) };
            (key, Some(nest))
        }
    };
    let key = if views.output.is_some() { key.view()? } else { key };
    Ok((key, nest))
}

/// The argument block of `what` for the dynamic kernel `key` (from [`dynamic_key`], with
/// its `nest`, which states the views): every number checked on the host first.
fn dynamic_args(what: &Map<'_>, key: &DynKey, nest: Option<LoopNest>) -> Result<crate::abi::Prepared, Error> {
    match (what, nest) {
        (_, Some(nest)) => encode_slice(&nest, key.rank, key.writes_views(), matches!(key.op, DynOp::Chain { .. })),
        (Map::Plan(plan), None) => prepare_dynamic(plan, key),
        (Map::Chain(_), None) => unreachable!("dynamic_key schedules chains"),
    }
}

impl Jit {
    /// Compile `what` (a [`Plan`], a [`SlicePlan`], a [`FusedChain`], or a [`Request`],
    /// lowered first: see [`IntoMap`]) into a kernel as `options` says: static or
    /// dynamic, reading and writing dense buffers or views (see [`Options`]). Run it on its
    /// own map with `run_bytes` (see [`kerf_ir::Kernel`]), or on another map or views with
    /// [`JitKernel::run`]. Every map and view is validated, and every loop nest verified,
    /// before anything compiles.
    ///
    /// The kernel's [`JitKernel::plan`] is the plan compiled, or for a chain or views a
    /// plan stating the buffers it reads and writes (a view's whole buffer as
    /// `[buffer_len]`; a chain's first input — none when it starts with a fill, whose
    /// elements the kernel computes — and last output) with no axes. A chain of strings
    /// is an error (it runs on the reference: no single loop nest of bytes says it).
    pub fn compile<'a>(&self, what: impl IntoMap<'a>, options: &Options<'_>) -> Result<Arc<JitKernel>, Error> {
        let what = what.into_map()?;
        if options.dynamic {
            self.dynamic_kernel(&what, options.views)
        } else {
            self.static_kernel(&what, options.views)
        }
    }

    fn static_kernel(&self, what: &Map<'_>, views: Views<'_>) -> Result<Arc<JitKernel>, Error> {
        if let (Map::Plan(plan), true) = (what, views.is_dense()) {
            // A plan equal to a cached one (`PlanKey`'s equality) validates as that one did
            // when it was compiled: a hit needs no validation, nor a clone of the plan.
            if let Some(hit) = self.kernels.get(&PlanRef(plan)) {
                return hit;
            }
            plan.validate()?;
            check_dtype(plan)?;
            return self.kernels.get_or_init(PlanKey::of(plan), || self.build_static(plan));
        }
        let nest = nest_of(what, views)?;
        let plan = carrier(&nest, shapes(what), views);
        let origin = match what {
            Map::Plan(p) => Origin::Slice(p.as_ref().clone()),
            Map::Chain(f) => Origin::Chain((*f).clone()),
        };
        self.build_nest(nest, plan, origin, OwnedViews::of(views))
    }

    fn dynamic_kernel(&self, what: &Map<'_>, views: Views<'_>) -> Result<Arc<JitKernel>, Error> {
        let (key, nest) = dynamic_key(what, views)?;
        let code = self.dynamic.get_or_init(key.clone(), || self.build_dynamic(&key))?;
        let (plan, origin) = match (what, &nest) {
            (Map::Plan(p), None) => (p.as_ref().clone(), Origin::Plan),
            (Map::Plan(p), Some(nest)) => (carrier(nest, shapes(what), views), Origin::Slice(p.as_ref().clone())),
            (Map::Chain(f), Some(nest)) => (carrier(nest, shapes(what), views), Origin::Chain((*f).clone())),
            (Map::Chain(_), None) => unreachable!("dynamic_key schedules chains"),
        };
        let prepared = dynamic_args(what, &key, nest)?;
        Ok(Arc::new(JitKernel {
            code,
            plan,
            origin,
            views: OwnedViews::of(views),
            prepared,
            dynamic: Some(key),
            threads: self.settings.threads,
        }))
    }
}

impl JitKernel {
    /// The map this kernel was compiled from.
    fn origin(&self) -> Map<'_> {
        match &self.origin {
            Origin::Plan => Map::Plan(Cow::Borrowed(&self.plan)),
            Origin::Slice(p) => Map::Plan(Cow::Borrowed(p)),
            Origin::Chain(f) => Map::Chain(f),
        }
    }

    /// The views this kernel was compiled for (its own: `run_bytes` runs through them).
    pub fn views(&self) -> Views<'_> {
        self.views.get()
    }

    /// Run `what` read and written through `views` on this kernel: the input buffer
    /// (`None` for maps that read none) and the output buffer hold the whole buffers the
    /// views lie in (dense: exactly the tensors).
    ///
    /// `views` must have the layout the kernel was compiled for (an input view where it
    /// was compiled with one, an output view likewise; an error naming the mismatch
    /// otherwise). A static kernel runs only its own map through its own views (it bakes
    /// every number in). A dynamic kernel runs any map of its kind (op, mode, dtype, loop
    /// depth) through any views of its layout: the map is validated, the views checked
    /// inside their buffers (the output's elements apart), and the nest scheduled and
    /// verified, before any machine code runs; the kernel writes only the output view's
    /// elements.
    pub fn run<'a>(
        &self,
        what: impl IntoMap<'a>,
        views: Views<'_>,
        input: Option<&[u8]>,
        output: &mut [u8],
    ) -> Result<(), Error> {
        let what = what.into_map()?;
        let own = self.views();
        for (side, compiled, found) in [
            ("input", own.input.is_some(), views.input.is_some()),
            ("output", own.output.is_some(), views.output.is_some()),
        ] {
            if compiled != found {
                let layout = |view: bool| if view { "a view" } else { "dense" }.to_string();
                return Err(Error::Mismatch {
                    what: format!("{side} layout of a kernel (compiled for it)"),
                    expected: layout(compiled),
                    found: layout(found),
                });
            }
        }
        let Some(key) = &self.dynamic else {
            if what != self.origin() {
                return Err(Error::Mismatch {
                    what: "map of a static kernel".into(),
                    expected: describe(&self.origin()),
                    found: describe(&what),
                });
            }
            if views != own {
                return Err(Error::Mismatch {
                    what: "views of a static kernel (it bakes its views in; a dynamic kernel takes them per call)"
                        .into(),
                    expected: format!("{own:?}"),
                    found: format!("{views:?}"),
                });
            }
            return self.run_prepared(&self.prepared, input, output);
        };
        let (found, nest) = dynamic_key(&what, views)?;
        if &found != key {
            return Err(Error::Mismatch {
                what: "map of a dynamic kernel".into(),
                expected: format!("{key:?}"),
                found: format!("{found:?}"),
            });
        }
        let prepared = dynamic_args(&what, key, nest)?;
        self.run_prepared(&prepared, input, output)
    }
}

/// A map, for an error message.
fn describe(what: &Map<'_>) -> String {
    match what {
        Map::Plan(p) => p.to_string(),
        Map::Chain(f) => f.to_string(),
    }
}
