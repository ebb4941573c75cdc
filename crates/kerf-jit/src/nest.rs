//! Kernels run on a loop nest that no single plan says: a chain fused into one kernel
//! ([`kerf_ir::chain`]) and a slice reading a strided view of a buffer
//! ([`schedule::Strided`]), either of them writing a strided view of an output buffer.
//! Static ones are emitted as a plan's static kernel is, dynamic ones take the nest as
//! their argument block; every nest is verified to read only `[0, input_len)` and to
//! write exactly `[0, output_len)`, or each element of its output view once
//! (`LoopNest::out_view`), before any code runs.

use crate::abi::encode_slice;
use crate::compile::{DynKey, DynOp};
use crate::{Jit, JitKernel};
use kerf_ir::chain::FusedChain;
use kerf_ir::schedule::{self, LoopNest, Strided};
use kerf_ir::{Error, Plan, SlicePlan};
use std::sync::Arc;

/// The plan a nest kernel reports ([`JitKernel::plan`]): its dtype, the shapes of the
/// buffers it reads and writes — a view's whole buffer (`[buffer_len]`), else the dense
/// `input_shape` / `output_shape` — its mode and fill value; no axes (the nest is the
/// truth).
fn carrier(
    nest: &LoopNest,
    (input_shape, output_shape): (&[u64], &[u64]),
    input: Option<&Strided>,
    output: Option<&Strided>,
) -> SlicePlan {
    let buffer = |dense: &[u64], view: Option<&Strided>| view.map_or_else(|| dense.to_vec(), |v| vec![v.buffer_len]);
    SlicePlan {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype: nest.dtype,
        input_shape: buffer(input_shape, input),
        axes: Vec::new(),
        mode: nest.mode,
        fill_bits: nest.fill_bits,
        output_shape: buffer(output_shape, output),
        windows: Vec::new(),
        gathered: None,
    }
}

/// A fused chain's dense input and output shapes.
fn chain_shapes(fused: &FusedChain) -> (&[u64], &[u64]) {
    (fused.head_shape(), &fused.output_shape)
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

impl Jit {
    /// Compile a fused chain into one static kernel (`Ok(None)` for a chain of strings, see
    /// [`schedule::chain`]; it runs on the reference). The kernel
    /// reads the chain's first input (none when the chain starts with a fill: it computes
    /// the fill's elements it maps to) and writes its last output; its [`JitKernel::plan`]
    /// states those buffers and has no axes. Each call compiles (chains are not cached).
    pub fn compile_chain(&self, fused: &FusedChain) -> Result<Option<Arc<JitKernel>>, Error> {
        let Some(nest) = schedule::chain(fused)? else { return Ok(None) };
        let plan = carrier(&nest, chain_shapes(fused), None, None);
        self.build_nest(nest, plan).map(Some)
    }

    /// Compile a slice plan reading its input through a view of a buffer: an offset and a
    /// stride per axis, in elements, of any sign (zero included), baked into the code. The
    /// view is checked to lie inside its buffer first (an error naming the axis); axes
    /// merge only where the strides continue. The kernel's input is the whole buffer
    /// (`input.buffer_len` elements, the kernel's `input_shape`), its output the plan's,
    /// dense. Each call compiles (not cached).
    pub fn compile_strided(&self, plan: &SlicePlan, input: &Strided) -> Result<Arc<JitKernel>, Error> {
        self.compile_views(plan, Some(input), None)
    }

    /// Compile a slice plan reading its input and writing its output through views of
    /// buffers (`None`: dense), their offsets and strides baked into the code. The output
    /// view's strides must be positive and its elements apart (checked with the input's
    /// bounds before anything compiles: an error naming the axis otherwise); the kernel
    /// writes only the view's elements, in place, and leaves the rest of its buffer as it
    /// was. Its `input_shape` is the input buffer (`[buffer_len]`) when the input is a
    /// view, its `output_shape` the output buffer when the output is one. Rows of the
    /// view that are contiguous are copied and filled as a dense output's are; an
    /// innermost stride other than 1 moves one element at a time. Packed 4-bit dtypes
    /// are written dense only. Each call compiles (not cached).
    pub fn compile_views(
        &self,
        plan: &SlicePlan,
        input: Option<&Strided>,
        output: Option<&Strided>,
    ) -> Result<Arc<JitKernel>, Error> {
        let nest = schedule::slice_views(plan, input, output)?;
        let carrier = carrier(&nest, (&plan.input_shape, &plan.output_shape), input, output);
        self.build_nest(nest, carrier)
    }

    /// [`compile_chain`](Self::compile_chain) reading the chain's input and writing its
    /// output through views (either `None`: dense), as [`compile_views`](Self::compile_views)
    /// does for one plan. `Ok(None)` when no single loop nest says the chain.
    pub fn compile_chain_views(
        &self,
        fused: &FusedChain,
        input: Option<&Strided>,
        output: Option<&Strided>,
    ) -> Result<Option<Arc<JitKernel>>, Error> {
        let Some(nest) = schedule::chain_views(fused, input, output)? else { return Ok(None) };
        let plan = carrier(&nest, chain_shapes(fused), input, output);
        self.build_nest(nest, plan).map(Some)
    }

    /// [`compile_chain`](Self::compile_chain) on a dynamic kernel: the chain's loop nest is
    /// the argument block of the kernel of its mode, dtype and depth (the one single plans
    /// of that kind share), so a chain compiles nothing once that kernel exists.
    pub fn compile_dynamic_chain(&self, fused: &FusedChain) -> Result<Option<Arc<JitKernel>>, Error> {
        self.compile_dynamic_chain_views(fused, None, None)
    }

    /// [`compile_dynamic_chain`](Self::compile_dynamic_chain) reading and writing views
    /// (either `None`: dense): the views' offsets and strides are arguments; with an output
    /// view the kernel is the one of its kind that writes views (see
    /// [`compile_dynamic_views`](Self::compile_dynamic_views)). The kernel's `input_shape`
    /// and `output_shape` are the buffers', as for [`compile_chain_views`](Self::compile_chain_views).
    pub fn compile_dynamic_chain_views(
        &self,
        fused: &FusedChain,
        input: Option<&Strided>,
        output: Option<&Strided>,
    ) -> Result<Option<Arc<JitKernel>>, Error> {
        let Some(nest) = schedule::chain_views(fused, input, output)? else { return Ok(None) };
        nest.verify()?;
        let plan = Plan::Slice(carrier(&nest, chain_shapes(fused), input, output));
        crate::check_dtype(&plan)?;
        let key = DynKey { op: chain_op(&nest), dtype: nest.dtype, rank: nest.dims.len().clamp(1, schedule::MAX_DIMS) };
        let key = if output.is_some() { key.view()? } else { key };
        let prepared = encode_slice(&nest, key.rank, key.writes_views(), matches!(key.op, DynOp::Chain { .. }))?;
        let code = self.dynamic.get_or_init(key.clone(), || self.build_dynamic(&key))?;
        Ok(Some(Arc::new(JitKernel { code, plan, prepared, dynamic: Some(key), threads: self.settings.threads })))
    }

    /// The dynamic kernel of a slice plan's kind (op, mode, dtype, rank) that writes
    /// output views: [`JitKernel::run_views`] runs any plan of that kind on it with the
    /// views' offsets and strides as arguments; `run_bytes` runs `plan` dense. A kernel
    /// apart from the one [`compile_dynamic_plan`](Self::compile_dynamic_plan) gives, so
    /// that dense outputs keep their code: here no dim is taken as dense (repetitions are
    /// recomputed, fill rows go position by position) and innermost runs check their
    /// output stride (contiguous rows are still copied and filled whole).
    pub fn compile_dynamic_views(&self, plan: &SlicePlan) -> Result<Arc<JitKernel>, Error> {
        let plan = Plan::Slice(plan.clone());
        let key = DynKey::of(&plan)?.view()?;
        let code = self.dynamic.get_or_init(key.clone(), || self.build_dynamic(&key))?;
        let prepared = crate::abi::prepare_dynamic(&plan, &key)?;
        Ok(Arc::new(JitKernel { code, plan, prepared, dynamic: Some(key), threads: self.settings.threads }))
    }
}

impl JitKernel {
    /// Run a slice plan reading its input through a view of `buffer` on this dynamic
    /// kernel: the view's offset and strides are arguments, not code (a static kernel bakes
    /// them: [`Jit::compile_strided`]). The plan must be of this kernel's kind (op, mode,
    /// dtype, rank); the view is checked inside the buffer and the nest verified before
    /// any code runs.
    pub fn run_strided(
        &self,
        plan: &SlicePlan,
        input: &Strided,
        buffer: &[u8],
        output: &mut [u8],
    ) -> Result<(), Error> {
        self.run_views(plan, Some(input), buffer, None, output)
    }

    /// Run a slice plan on this dynamic kernel reading its input through a view of
    /// `input_buffer` and writing its output through a view of `output_buffer` (either
    /// `None`: dense, the buffer exactly the tensor). An output view needs the kernel that
    /// writes views ([`Jit::compile_dynamic_views`]); the plan must be of this kernel's
    /// kind (op, mode, dtype, rank). Both views are checked inside their buffers, the
    /// output's elements apart, and the nest verified, before any code runs; the kernel
    /// writes only the output view's elements.
    pub fn run_views(
        &self,
        plan: &SlicePlan,
        input: Option<&Strided>,
        input_buffer: &[u8],
        output: Option<&Strided>,
        output_buffer: &mut [u8],
    ) -> Result<(), Error> {
        let Some(key) = &self.dynamic else {
            return Err(Error::Invalid {
                what: "a static kernel bakes its strides (Jit::compile_views); run_views takes a dynamic kernel".into(),
            });
        };
        let found = DynKey::of(&Plan::Slice(plan.clone()))?;
        if !found.runs_on(key) {
            return Err(Error::Mismatch {
                what: "plan of a dynamic kernel".into(),
                expected: format!("{key:?}"),
                found: format!("{found:?}"),
            });
        }
        let nest = schedule::slice_views(plan, input, output)?;
        nest.verify()?;
        let prepared = encode_slice(&nest, key.rank, key.writes_views(), false)?;
        self.run_prepared(&prepared, Some(input_buffer), output_buffer)
    }

    /// Run this kernel reading its input through a pointer: what [`Kernel::run_bytes`]
    /// does, for an input buffer the caller may not hold as a slice (a view whose gaps
    /// other code may be writing). The output is checked as `run_bytes` checks it.
    ///
    /// # Safety
    /// Every input element this kernel reads must be readable at `input` plus its offset
    /// times the element width, for the whole call. A kernel from
    /// [`Jit::compile_strided`] reads only elements of the view it was compiled for
    /// (offsets `offset + Σ i_k·strides[k]` for indices inside the shape), so a pointer to
    /// element 0 of a buffer in which that view's elements are readable satisfies this.
    ///
    /// [`Kernel::run_bytes`]: kerf_ir::Kernel::run_bytes
    pub unsafe fn run_from_ptr(&self, input: *const u8, output: &mut [u8]) -> Result<(), Error> {
        let bytes = Self::check_output(&self.prepared, output)?;
        if bytes.input.is_some() && input.is_null() {
            return Err(crate::no_input());
        }
        if bytes.odd_nibble
            && let Some(b) = output.last_mut()
        {
            *b = 0;
        }
        // The caller vouches for the input (this function's contract); the output was
        // checked to hold exactly the elements the verified nest writes.
        self.call(&self.prepared, input, output.as_mut_ptr());
        Ok(())
    }
}

impl JitKernel {
    /// [`run_from_ptr`](Self::run_from_ptr) writing its output through a pointer too: for
    /// a kernel writing an output view ([`Jit::compile_views`]), whose buffer holds
    /// elements the caller does not own (between the view's), so that no slice over it may
    /// be formed.
    ///
    /// # Safety
    /// As for `run_from_ptr` for `input`; and every output element this kernel writes must
    /// be writable at `output` plus its offset times the element width, with no other
    /// access to it during the call. A kernel from [`Jit::compile_views`] writes only the
    /// elements of the output view it was compiled for (offsets `offset + Σ i_k·strides[k]`
    /// for indices inside the shape, verified distinct and inside the view's buffer), so a
    /// pointer to element 0 of a buffer in which that view's elements are writable and
    /// exclusively borrowed satisfies this.
    pub unsafe fn run_from_ptrs(&self, input: *const u8, output: *mut u8) -> Result<(), Error> {
        let bytes = self.prepared.bytes.clone()?;
        if bytes.odd_nibble {
            return Err(Error::Invalid {
                what: "an output of an odd number of 4-bit elements is written through a slice (run_from_ptr)".into(),
            });
        }
        if bytes.input.is_some() && input.is_null() {
            return Err(crate::no_input());
        }
        if output.is_null() {
            return Err(Error::Invalid { what: "a kernel needs its output buffer".into() });
        }
        // The caller vouches for both buffers (this function's contract).
        self.call(&self.prepared, input, output);
        Ok(())
    }
}
