//! Static kernels compiled from a loop nest that no single plan says: a chain fused into
//! one kernel ([`kerf_ir::chain`]) and a slice reading a strided view of a buffer
//! ([`schedule::Strided`]). Both are emitted exactly as a plan's static kernel is, from a
//! nest verified to read only `[0, input_len)` and to write exactly `[0, output_len)`.

use crate::abi::encode_slice;
use crate::compile::{DynKey, DynOp};
use crate::{Jit, JitKernel};
use kerf_ir::chain::FusedChain;
use kerf_ir::schedule::{self, LoopNest, Strided};
use kerf_ir::{Error, Plan, SlicePlan};
use std::sync::Arc;

/// The plan a nest kernel reports ([`JitKernel::plan`]): its dtype, the shapes of the
/// buffers it reads and writes, its mode and fill value; no axes (the nest is the truth).
fn carrier(nest: &LoopNest, input_shape: Vec<u64>, output_shape: Vec<u64>) -> SlicePlan {
    SlicePlan {
        dtype: nest.dtype,
        input_shape,
        axes: Vec::new(),
        mode: nest.mode,
        fill_bits: nest.fill_bits,
        output_shape,
        windows: Vec::new(),
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

impl Jit {
    /// Compile a fused chain into one static kernel (`Ok(None)` for a chain of strings, see
    /// [`schedule::chain`]; it runs on the reference). The kernel
    /// reads the chain's first input (none when the chain starts with a fill: it computes
    /// the fill's elements it maps to) and writes its last output; its [`JitKernel::plan`]
    /// states those buffers and has no axes. Each call compiles (chains are not cached).
    pub fn compile_chain(&self, fused: &FusedChain) -> Result<Option<Arc<JitKernel>>, Error> {
        let Some(nest) = schedule::chain(fused)? else { return Ok(None) };
        let plan = carrier(&nest, fused.head_shape().to_vec(), fused.output_shape.clone());
        self.build_nest(nest, plan).map(Some)
    }

    /// Compile a slice plan reading its input through a view of a buffer: an offset and a
    /// stride per axis, in elements, of any sign (zero included), baked into the code. The
    /// view is checked to lie inside its buffer first (an error naming the axis); axes
    /// merge only where the strides continue. The kernel's input is the whole buffer
    /// (`input.buffer_len` elements, the kernel's `input_shape`), its output the plan's,
    /// dense. Each call compiles (not cached).
    pub fn compile_strided(&self, plan: &SlicePlan, input: &Strided) -> Result<Arc<JitKernel>, Error> {
        let nest = schedule::slice_strided(plan, input)?;
        let carrier = carrier(&nest, vec![input.buffer_len], plan.output_shape.clone());
        self.build_nest(nest, carrier)
    }

    /// [`compile_chain`](Self::compile_chain) on a dynamic kernel: the chain's loop nest is
    /// the argument block of the kernel of its mode, dtype and depth (the one single plans
    /// of that kind share), so a chain compiles nothing once that kernel exists.
    pub fn compile_dynamic_chain(&self, fused: &FusedChain) -> Result<Option<Arc<JitKernel>>, Error> {
        let Some(nest) = schedule::chain(fused)? else { return Ok(None) };
        nest.verify()?;
        let plan = Plan::Slice(carrier(&nest, fused.head_shape().to_vec(), fused.output_shape.clone()));
        crate::check_dtype(&plan)?;
        let key = DynKey { op: chain_op(&nest), dtype: nest.dtype, rank: nest.dims.len().clamp(1, schedule::MAX_DIMS) };
        let code = self.dynamic.get_or_init(key.clone(), || self.build_dynamic(&key))?;
        let prepared = encode_slice(&nest, key.rank, matches!(key.op, DynOp::Chain { .. }))?;
        Ok(Some(Arc::new(JitKernel { code, plan, prepared, dynamic: Some(key), threads: self.settings.threads })))
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
        let Some(key) = &self.dynamic else {
            return Err(Error::Invalid {
                what: "a static kernel bakes its strides (Jit::compile_strided); run_strided takes a dynamic kernel"
                    .into(),
            });
        };
        let found = DynKey::of(&Plan::Slice(plan.clone()))?;
        if &found != key {
            return Err(Error::Mismatch {
                what: "plan of a dynamic kernel".into(),
                expected: format!("{key:?}"),
                found: format!("{found:?}"),
            });
        }
        let nest = schedule::slice_strided(plan, input)?;
        nest.verify()?;
        let prepared = encode_slice(&nest, key.rank, false)?;
        self.run_prepared(&prepared, Some(buffer), output)
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
        let (_, output_bytes, zero_last) = self.prepared.buffer_bytes(self.plan.dtype())?;
        if output.len() != output_bytes {
            return Err(Error::BufferLength {
                what: "kernel output".into(),
                expected: output_bytes,
                found: output.len(),
            });
        }
        if self.prepared.input_len.is_some() && input.is_null() {
            return Err(Error::Invalid { what: "a slice kernel needs its input buffer".into() });
        }
        if zero_last && let Some(b) = output.last_mut() {
            *b = 0;
        }
        // The caller vouches for the input (this function's contract); the output was
        // checked to hold exactly the elements the verified nest writes.
        self.call(&self.prepared, input, output.as_mut_ptr());
        Ok(())
    }
}
