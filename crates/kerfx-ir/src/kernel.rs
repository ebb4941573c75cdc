//! The runtime kernel interface shared by every backend: a JIT kernel and a
//! derive-generated kernel are interchangeable behind it.

use crate::dtype::DType;
use crate::error::Error;
use crate::tensor::{Tensor, TensorView};

/// A compiled op for one map (or, for dynamic kernels, one kind of map, dtype and rank).
pub trait Kernel {
    /// Element type of the data input and of the output.
    fn dtype(&self) -> DType;
    /// Shape of the data input (`None` for fill ops, which read nothing).
    fn input_shape(&self) -> Option<&[u64]>;
    /// Shape of the output.
    fn output_shape(&self) -> &[u64];
    /// Run on caller-owned buffers: dense row-major bytes (packed nibbles for i4/u4).
    /// Checks dtype-implied lengths once, then runs; allocates nothing.
    fn run_bytes(&self, input: Option<&[u8]>, output: &mut [u8]) -> Result<(), Error>;

    /// The shapes of every input buffer, in order (none for a fill). A kernel over
    /// several inputs (Concat) overrides this and [`Kernel::output_shapes`].
    fn input_shapes(&self) -> Vec<&[u64]> {
        self.input_shape().into_iter().collect()
    }
    /// The shapes of every output buffer, in order.
    fn output_shapes(&self) -> Vec<&[u64]> {
        vec![self.output_shape()]
    }
    /// Run on caller-owned buffers, one per input and one per output, in order (dense
    /// row-major bytes, as [`Kernel::run_bytes`] takes them); every buffer is checked
    /// before anything is written. A one-to-one kernel runs [`Kernel::run_bytes`].
    fn run_buffers(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<(), Error> {
        let expected_inputs = usize::from(self.input_shape().is_some());
        if inputs.len() != expected_inputs || outputs.len() != 1 {
            return Err(Error::Mismatch {
                what: "kernel buffers".into(),
                expected: format!("{expected_inputs} input and 1 output"),
                found: format!("{} inputs and {} outputs", inputs.len(), outputs.len()),
            });
        }
        self.run_bytes(inputs.first().copied(), outputs[0])
    }

    /// Allocating convenience: run on a tensor view and return a new tensor.
    fn run_tensor(&self, input: Option<TensorView<'_>>) -> Result<Tensor, Error> {
        if let Some(view) = &input
            && (view.dtype != self.dtype() || Some(view.shape) != self.input_shape())
        {
            return Err(Error::Mismatch {
                what: "kernel input".into(),
                expected: format!("{} {:?}", self.dtype(), self.input_shape()),
                found: format!("{} {:?}", view.dtype, view.shape),
            });
        }
        let mut out = Tensor::zeros(self.dtype(), self.output_shape())?;
        let bytes = input.and_then(|v| match v.data {
            crate::tensor::ViewData::Bytes(b) => Some(b),
            crate::tensor::ViewData::Strings(_) => None,
        });
        let dst = out.bytes_mut().ok_or_else(|| Error::Invalid {
            what: "this kernel moves bytes; string tensors go through the reference".into(),
        })?;
        self.run_bytes(bytes, dst)?;
        Ok(out)
    }
}
