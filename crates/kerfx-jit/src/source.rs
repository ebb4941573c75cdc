//! The one entry point: what a kernel is compiled from ([`Source`]: a plan or a map),
//! how ([`Options`]: static or dynamic, and the [`Views`] its input and output are read
//! and written through), [`Jit::compile`] and [`JitKernel::run`].
//!
//! Every kind of map lowers here in two ways: to the loop nest or plan a static kernel is
//! emitted from (`Jit::static_kernel`), and to the key of the dynamic kernel it runs on
//! with its argument block (`dynamic_key`, `dynamic_args`), which compiling and running a
//! dynamic kernel share, so that a call is checked exactly as the kernel's own map was.
//! A new kind of source is a variant of [`Source`] and an arm in each of those three functions.
//! Every nest is verified to read only `[0, input_len)` and to write exactly
//! `[0, output_len)`, or each element of its output view once (`LoopNest::out_view`),
//! before any code runs.

use crate::abi::{encode_slice, prepare_dynamic};
use crate::cache::{PlanKey, PlanRef};
use crate::compile::{DynKey, DynOp};
use crate::{Jit, JitKernel, check_dtype};
use kerfx_ir::schedule::{self, LoopNest, Strided};
use kerfx_ir::{DType, Error, Plan, Request, Step};
use std::borrow::Cow;
use std::sync::Arc;

/// What a kernel is compiled from and runs: a [`Plan`] (one lowered op: a step, compiled
/// through its map, or a fill) or a [`kerfx_ir::Map`] (any map: a chain of steps composed
/// into one, see [`kerfx_ir::map::compose`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Source<'a> {
    /// One lowered op: a step, compiled through its map, or a fill.
    Plan(Cow<'a, Plan>),
    /// Any map (one op's, or a chain's composed).
    Map(Cow<'a, kerfx_ir::Map>),
}

/// What [`Jit::compile`] and [`JitKernel::run`] take: a [`Source`], or what makes one —
/// `&Plan`, `&Step` (cloned into a plan), `&kerfx_ir::Map`, and `&Request`, lowered by
/// its frontend ([`kerfx_ir::lower`]: its errors are the call's).
pub trait IntoSource<'a> {
    /// The source, or the error making it gave (a request's lowering).
    fn into_source(self) -> Result<Source<'a>, Error>;
}

impl<'a> IntoSource<'a> for Source<'a> {
    fn into_source(self) -> Result<Source<'a>, Error> {
        Ok(self)
    }
}

impl<'a> IntoSource<'a> for &'a Plan {
    fn into_source(self) -> Result<Source<'a>, Error> {
        Ok(Source::Plan(Cow::Borrowed(self)))
    }
}

impl<'a> IntoSource<'a> for &Step {
    fn into_source(self) -> Result<Source<'a>, Error> {
        Ok(Source::Plan(Cow::Owned(Plan::Step(self.clone()))))
    }
}

impl<'a> IntoSource<'a> for &'a kerfx_ir::Map {
    fn into_source(self) -> Result<Source<'a>, Error> {
        Ok(Source::Map(Cow::Borrowed(self)))
    }
}

impl<'a> IntoSource<'a> for kerfx_ir::Map {
    fn into_source(self) -> Result<Source<'a>, Error> {
        Ok(Source::Map(Cow::Owned(self)))
    }
}

impl<'a> IntoSource<'a> for &Request {
    fn into_source(self) -> Result<Source<'a>, Error> {
        Ok(Source::Plan(Cow::Owned(kerfx_ir::lower(self)?)))
    }
}

/// The layouts of a kernel's input and output: each a view of a buffer ([`Strided`]: an
/// offset and a stride per axis, in elements) or `None`, the dense tensor alone in its
/// buffer. A kernel is compiled for one layout (which views exist); a static kernel bakes
/// the views themselves into its code, a dynamic one takes them per call.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Views<'v> {
    /// The view the input is read through (`None`: dense).
    pub input: Option<&'v Strided>,
    /// The view the output is written through (`None`: dense).
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
///
/// `call_bytes` (0 by default) says the kernel is one part of a call that writes that
/// many bytes in all — a program's move, the call writing every output of the program.
/// Whether a static kernel writes with non-temporal stores is decided for the call, not
/// for the part: three 6 MiB outputs of one split stream as one 18 MiB output would.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Options<'v> {
    /// A dynamic kernel (specialized on the map's kind, dtype and rank) rather than a
    /// static one.
    pub dynamic: bool,
    /// The layouts of the input and output.
    pub views: Views<'v>,
    /// The bytes the whole call this kernel is part of writes (0: the kernel alone).
    pub call_bytes: u64,
}

impl<'v> Options<'v> {
    /// A static kernel on dense buffers.
    pub const STATIC: Options<'static> = Options { dynamic: false, views: Views::DENSE, call_bytes: 0 };
    /// A dynamic kernel on dense buffers.
    pub const DYNAMIC: Options<'static> = Options { dynamic: true, views: Views::DENSE, call_bytes: 0 };

    /// Static (`false`) or dynamic (`true`).
    pub fn dynamic(dynamic: bool) -> Options<'static> {
        Options { dynamic, ..Options::STATIC }
    }

    /// A part of a call that writes `call_bytes` bytes in all (see [`Options`]).
    pub fn part_of(self, call_bytes: u64) -> Self {
        Options { call_bytes, ..self }
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
    Plan(Plan),
    Map(kerfx_ir::Map),
}

/// What a kernel reads and writes: its dtype, the shape of the buffer it reads (`None`
/// when it reads none: a fill, or a map that starts with one) and of the buffer it
/// writes — a view's whole buffer (`[buffer_len]`), else the dense tensor's shape.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Signature {
    pub(crate) dtype: DType,
    pub(crate) input_shape: Option<Vec<u64>>,
    pub(crate) output_shape: Vec<u64>,
}

impl Signature {
    /// The signature of `what` read and written through `views`.
    pub(crate) fn of(what: &Source<'_>, views: Views<'_>) -> Signature {
        let buffer =
            |dense: &[u64], view: Option<&Strided>| view.map_or_else(|| dense.to_vec(), |v| vec![v.buffer_len]);
        let (dtype, input, output): (DType, Option<&[u64]>, &[u64]) = match what {
            Source::Plan(p) => (p.dtype(), p.input_shape(), p.output_shape()),
            Source::Map(m) => {
                let input = matches!(m.head, kerfx_ir::map::Head::Input { .. }).then(|| m.head_shape());
                (m.dtype, input, &m.output_shape)
            }
        };
        Signature {
            dtype,
            input_shape: input.map(|i| buffer(i, views.input)),
            output_shape: buffer(output, views.output),
        }
    }
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

/// The map of a step, composed; `None` for a fill.
fn map_of<'m>(what: &'m Source<'_>) -> Result<Option<Cow<'m, kerfx_ir::Map>>, Error> {
    Ok(match what {
        Source::Plan(p) => match p.as_ref() {
            Plan::Step(_) => Some(Cow::Owned(kerfx_ir::Map::of(p)?)),
            Plan::Fill(_) => None,
        },
        Source::Map(m) => Some(Cow::Borrowed(m.as_ref())),
    })
}

/// The loop nest of a map (a step's, composed) read and written through views, not yet
/// verified; fills take no views.
pub(crate) fn nest_of(what: &Source<'_>, views: Views<'_>) -> Result<LoopNest, Error> {
    let map = map_of(what)?.ok_or_else(fill_views)?;
    schedule::map_views(&map, views.input, views.output)
}

/// The dynamic kernel a nest runs on: the move kernel of the map's kind, or, for a nest
/// that starts with a fill or has fill levels, the chain kernel.
fn nest_op(nest: &LoopNest) -> DynOp {
    if nest.head.is_none() && nest.levels.is_empty() {
        DynOp::Move(kerfx_ir::map::Kind { fills: nest.fills, repeats: nest.repeats })
    } else {
        DynOp::Chain { head: nest.head.is_some(), fills: nest.fills }
    }
}

/// The key of the dynamic kernel `what` runs on through `views` (a kernel writing output
/// views when `views.output` is set), the map validated first; and its nest, scheduled
/// and verified, where its key or views need it (a map, whose key depends on it; a plan
/// through views), which [`dynamic_args`] encodes.
fn dynamic_key(what: &Source<'_>, views: Views<'_>) -> Result<(DynKey, Option<LoopNest>), Error> {
    let (key, nest) = match what {
        Source::Plan(plan) if views.is_dense() => (DynKey::of(plan)?, None),
        Source::Plan(plan) => {
            let key = DynKey::of(plan)?;
            let nest = nest_of(what, views)?;
            nest.verify()?;
            (key, Some(nest))
        }
        Source::Map(_) => {
            let nest = nest_of(what, views)?;
            nest.verify()?;
            crate::check_moves_bytes(nest.dtype)?;
            let key =
                DynKey { op: nest_op(&nest), dtype: nest.dtype, rank: nest.dims.len().clamp(1, schedule::MAX_DIMS) };
            (key, Some(nest))
        }
    };
    let key = if views.output.is_some() { key.view()? } else { key };
    Ok((key, nest))
}

/// The argument block of `what` for the dynamic kernel `key` (from [`dynamic_key`], with
/// its `nest`, which states the views): every number checked on the host first.
fn dynamic_args(what: &Source<'_>, key: &DynKey, nest: Option<LoopNest>) -> Result<crate::abi::Prepared, Error> {
    match (what, nest) {
        (_, Some(nest)) => encode_slice(&nest, key.rank, key.writes_views(), matches!(key.op, DynOp::Chain { .. })),
        (Source::Plan(plan), None) => prepare_dynamic(plan, key),
        (Source::Map(_), None) => unreachable!("dynamic_key schedules maps"),
    }
}

impl Jit {
    /// Compile `what` (a [`Plan`], a [`Step`], a [`kerfx_ir::Map`], or a [`Request`],
    /// lowered first: see [`IntoSource`]) into a kernel as `options` says: static or
    /// dynamic, reading and writing dense buffers or views (see [`Options`]). Run it on its
    /// own map with `run_bytes` (see [`kerfx_ir::Kernel`]), or on another map or views with
    /// [`JitKernel::run`]. Every map and view is validated, and every loop nest verified,
    /// before anything compiles.
    ///
    /// The kernel carries its signature ([`kerfx_ir::Kernel`]'s dtype and shapes): the
    /// buffers it reads and writes, a view's whole buffer as `[buffer_len]`; a map that
    /// starts with a fill reads none. A map of strings is an error (it runs on the
    /// reference: the JIT moves bytes).
    pub fn compile<'a>(&self, what: impl IntoSource<'a>, options: &Options<'_>) -> Result<Arc<JitKernel>, Error> {
        let what = what.into_source()?;
        if options.dynamic {
            self.dynamic_kernel(&what, options.views)
        } else {
            self.static_kernel(&what, options.views, options.call_bytes)
        }
    }

    fn static_kernel(&self, what: &Source<'_>, views: Views<'_>, call_bytes: u64) -> Result<Arc<JitKernel>, Error> {
        // The plan cache holds kernels compiled alone (`call_bytes` 0); a part of a call
        // is cached with the call (a program's kernel).
        if let (Source::Plan(plan), true, 0) = (what, views.is_dense(), call_bytes) {
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
        self.build_nest(nest, call_bytes, Signature::of(what, views), origin(what), OwnedViews::of(views))
    }

    fn dynamic_kernel(&self, what: &Source<'_>, views: Views<'_>) -> Result<Arc<JitKernel>, Error> {
        let (key, nest) = dynamic_key(what, views)?;
        let code = self.dynamic.get_or_init(key.clone(), || self.build_dynamic(&key))?;
        let prepared = dynamic_args(what, &key, nest)?;
        Ok(Arc::new(JitKernel {
            code,
            signature: Signature::of(what, views),
            origin: origin(what),
            views: OwnedViews::of(views),
            prepared,
            dynamic: Some(key),
            threads: self.settings.threads,
        }))
    }
}

/// What a kernel compiled from `what` keeps of it.
fn origin(what: &Source<'_>) -> Origin {
    match what {
        Source::Plan(p) => Origin::Plan(p.as_ref().clone()),
        Source::Map(m) => Origin::Map(m.as_ref().clone()),
    }
}

impl JitKernel {
    /// What this kernel was compiled from (a dynamic kernel: the source its own
    /// `run_bytes` runs).
    pub fn source(&self) -> Source<'_> {
        match &self.origin {
            Origin::Plan(p) => Source::Plan(Cow::Borrowed(p)),
            Origin::Map(m) => Source::Map(Cow::Borrowed(m)),
        }
    }

    /// What this kernel was compiled from, as text (the plan's or the map's listing).
    pub fn describe(&self) -> String {
        describe(&self.source())
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
        what: impl IntoSource<'a>,
        views: Views<'_>,
        input: Option<&[u8]>,
        output: &mut [u8],
    ) -> Result<(), Error> {
        let what = what.into_source()?;
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
            if what != self.source() {
                return Err(Error::Mismatch {
                    what: "map of a static kernel".into(),
                    expected: describe(&self.source()),
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
fn describe(what: &Source<'_>) -> String {
    match what {
        Source::Plan(p) => p.to_string(),
        Source::Map(m) => m.to_string(),
    }
}
