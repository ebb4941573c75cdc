//! `ndarray` interop (feature `ndarray`): arrays ↔ [`Tensor`]s, and running a
//! [`Kernel`] on arrays.
//!
//! ```
//! use kerfx::ndarray::{array_from_tensor, tensor_from_array};
//! let a = ndarray::arr2(&[[1.0f32, 2.0], [3.0, 4.0]]);
//! let t = tensor_from_array(a.t()); // any layout: copied in logical row-major order
//! assert_eq!(t.shape(), &[2, 2]);
//! let back = array_from_tensor::<f32>(&t).unwrap();
//! assert_eq!(back, a.t().into_dyn());
//! ```

/// The ndarray crate kerf's adapters take arrays of (0.16): depend on this one
/// (`kerfx::ndarray::ndarray::Array2`) or on the same version, since arrays of another
/// ndarray version are other types.
///
/// ```
/// use kerfx::ndarray::{ndarray::arr1, tensor_from_array};
/// assert_eq!(tensor_from_array(arr1(&[1i32, 2, 3]).view()).shape(), &[3]);
/// ```
pub use ::ndarray;

use ::ndarray::{ArrayD, ArrayView, ArrayViewD, ArrayViewMut, Dimension, IxDyn};
use kerfx_ir::schedule::Strided;
use kerfx_ir::{DType, Error, Kernel, Step, Tensor};
use kerfx_jit::Jit;

/// Rust element types that are kerf dtypes: plain little-endian values, no padding.
///
/// # Safety
/// Implementors are plain data whose in-memory layout on little-endian targets is the
/// dtype's element bytes, and every byte pattern kerf produces for the dtype is a valid
/// value of the type (`bool` relies on kerf storing only 0 and 1, which [`view_of_tensor`]
/// checks).
pub unsafe trait Element: Copy + 'static {
    /// The kerf dtype whose elements this type holds.
    const DTYPE: DType;
}

macro_rules! element {
    ($($t:ty => $d:expr),* $(,)?) => {
        $(
            // SAFETY: a primitive (or `repr(C)` pair of primitives, for complex) whose
            // little-endian bytes are exactly the dtype's element; `bool`'s validity is
            // checked where tensors are viewed (see the trait's contract).
            unsafe impl Element for $t { const DTYPE: DType = $d; }
        )*
    };
}
element! {
    bool => DType::Bool,
    i8 => DType::I8,
    u8 => DType::U8,
    i16 => DType::I16,
    u16 => DType::U16,
    i32 => DType::I32,
    u32 => DType::U32,
    i64 => DType::I64,
    u64 => DType::U64,
    half::f16 => DType::F16,
    half::bf16 => DType::BF16,
    f32 => DType::F32,
    f64 => DType::F64,
    num_complex::Complex<f32> => DType::C64,
    num_complex::Complex<f64> => DType::C128,
}

fn as_bytes<T: Element>(s: &[T]) -> &[u8] {
    // SAFETY: Element types are plain data without padding.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
}

fn as_bytes_mut<T: Element>(s: &mut [T]) -> &mut [u8] {
    // SAFETY: as above; the caller writes only valid element bytes (kerf kernels write
    // elements of the same dtype).
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
}

fn shape_of<D: Dimension>(dim: &D) -> Vec<u64> {
    dim.slice().iter().map(|&d| d as u64).collect()
}

/// A tensor holding a copy of an array, in logical row-major order (any strides).
pub fn tensor_from_array<T: Element, D: Dimension>(a: ArrayView<'_, T, D>) -> Tensor {
    let shape = shape_of(&a.raw_dim());
    let bytes: Vec<u8> = match a.as_slice() {
        Some(s) => as_bytes(s).to_vec(),
        None => {
            let v: Vec<T> = a.iter().copied().collect();
            as_bytes(&v).to_vec()
        }
    };
    Tensor::from_bytes(T::DTYPE, &shape, &bytes).expect("length matches the shape")
}

fn check_dtype<T: Element>(dtype: DType) -> Result<(), Error> {
    if dtype != T::DTYPE {
        return Err(Error::Mismatch {
            what: "array element type".into(),
            expected: format!("{} (the tensor's dtype)", dtype),
            found: T::DTYPE.to_string(),
        });
    }
    Ok(())
}

/// A zero-copy view of a tensor as an array (its storage is 16-byte aligned).
pub fn view_of_tensor<T: Element>(t: &Tensor) -> Result<ArrayViewD<'_, T>, Error> {
    check_dtype::<T>(t.dtype())?;
    let bytes = t.bytes().expect("element types are byte-sized");
    if T::DTYPE == DType::Bool && bytes.iter().any(|&b| b > 1) {
        return Err(Error::Invalid { what: "bool tensor holds bytes other than 0 and 1".into() });
    }
    let n = bytes.len() / std::mem::size_of::<T>();
    assert_eq!(bytes.as_ptr().align_offset(std::mem::align_of::<T>()), 0, "tensor storage is aligned");
    // SAFETY: the storage is aligned for T (16-byte aligned), holds n elements of T's
    // layout, and every value is valid for T (checked for bool above).
    let s = unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), n) };
    let shape: Vec<usize> = t.shape().iter().map(|&d| d as usize).collect();
    Ok(ArrayViewD::from_shape(IxDyn(&shape), s).expect("length matches the shape"))
}

/// An owned array copied from a tensor of the same element type.
pub fn array_from_tensor<T: Element>(t: &Tensor) -> Result<ArrayD<T>, Error> {
    Ok(view_of_tensor::<T>(t)?.to_owned())
}

/// Run a kernel on an array and return a new array (the allocating convenience).
/// `input` is `None` for fill kernels.
pub fn run<K: Kernel + ?Sized, T: Element, D: Dimension>(
    kernel: &K,
    input: Option<ArrayView<'_, T, D>>,
) -> Result<ArrayD<T>, Error> {
    let out_shape = kernel.output_shape();
    // A kernel may describe an output no machine holds: refuse it, do not panic.
    let too_large = || Error::TooLarge { what: format!("an output array of shape {out_shape:?}") };
    let shape: Vec<usize> =
        out_shape.iter().map(|&d| usize::try_from(d).map_err(|_| too_large())).collect::<Result<_, _>>()?;
    let n = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).ok_or_else(too_large)?;
    let mut out = ArrayD::<T>::from_shape_vec(IxDyn(&shape), zeroed(n)?).map_err(|_| too_large())?;
    run_into(kernel, input, out.view_mut())?;
    Ok(out)
}

fn zeroed<T: Element>(n: usize) -> Result<Vec<T>, Error> {
    // Every Element type has an all-zero value (0, false, +0.0).
    let t = Tensor::zeros(T::DTYPE, &[n as u64])?;
    Ok(view_of_tensor::<T>(&t)?.iter().copied().collect())
}

/// Run a kernel from an array into a caller-owned array. Both are used in place when
/// they are contiguous row-major; otherwise they are copied through a buffer.
pub fn run_into<K: Kernel + ?Sized, T: Element, D: Dimension, E: Dimension>(
    kernel: &K,
    input: Option<ArrayView<'_, T, D>>,
    mut output: ArrayViewMut<'_, T, E>,
) -> Result<(), Error> {
    check_dtype::<T>(kernel.dtype())?;
    check_shape("output", &output.raw_dim(), kernel.output_shape())?;
    if let Some(a) = &input
        && Some(shape_of(&a.raw_dim()).as_slice()) != kernel.input_shape()
    {
        return Err(Error::Mismatch {
            what: "input array shape".into(),
            expected: format!("{:?}", kernel.input_shape()),
            found: format!("{:?}", a.shape()),
        });
    }
    let copied;
    let in_bytes = match &input {
        None => None,
        Some(a) => Some(match a.as_slice() {
            Some(s) => as_bytes(s),
            None => {
                copied = a.iter().copied().collect::<Vec<T>>();
                as_bytes(&copied)
            }
        }),
    };
    match output.as_slice_mut() {
        Some(s) => run_elements(kernel, in_bytes, s),
        None => {
            let mut buf: Vec<T> = output.iter().copied().collect();
            run_elements(kernel, in_bytes, &mut buf)?;
            for (o, v) in output.iter_mut().zip(buf) {
                *o = v;
            }
            Ok(())
        }
    }
}

/// Where an array view's elements are, from its element of lowest address: the view as a
/// [`Strided`] buffer, and that element's offset from the view's first element (`≤ 0`).
fn strided_of<T, D: Dimension>(a: &ArrayView<'_, T, D>) -> Result<(Strided, isize), Error> {
    let shape = shape_of(&a.raw_dim());
    let strides: Vec<i64> = a.strides().iter().map(|&s| s as i64).collect();
    let probe = Strided { offset: 0, strides, buffer_len: 0 };
    let (lo, hi) = probe.span(&shape).unwrap_or((0, -1));
    let lo_isize = isize::try_from(lo).map_err(|_| Error::TooLarge { what: "an array view's span".into() })?;
    let offset = i64::try_from(-lo).map_err(|_| Error::TooLarge { what: "an array view's span".into() })?;
    Ok((Strided { offset, buffer_len: (hi - lo + 1) as u64, ..probe }, lo_isize))
}

/// An output array view as a [`Strided`] buffer from its element of lowest address, with
/// `plan` turned to write it with positive strides: each axis of negative stride is
/// written in reverse (the plan's axis read backwards). Returns the plan, the view, and
/// that element's offset from the view's first element (`≤ 0`).
fn output_layout<T, D: Dimension>(
    plan: &Step,
    output: &ArrayViewMut<'_, T, D>,
) -> Result<(Step, Strided, isize), Error> {
    let (view, lo) = strided_of(&output.view())?;
    let mut plan = plan.clone();
    let core = plan.core_shape();
    // Output axes of extent 2 or more are the core axes of extent 2 or more, in order
    // (the schedule refuses other reshapes of a view).
    let mut core_axes = (0..core.len()).filter(|&k| core[k] != 1);
    let shape = output.shape();
    for (k, s) in view.strides.iter().enumerate() {
        if shape[k] == 1 {
            continue;
        }
        let Some(c) = core_axes.next() else { break };
        if *s < 0 {
            let a = &mut plan.axes[c];
            let last = a.x(a.extent - 1);
            a.start = i64::try_from(last).map_err(|_| Error::Overflow {
                op: "ndarray output".into(),
                what: format!("axis {c} read backwards"),
                value: last.to_string(),
            })?;
            a.step = a.step.checked_neg().ok_or_else(|| Error::Overflow {
                op: "ndarray output".into(),
                what: format!("axis {c} step reversed"),
                value: a.step.to_string(),
            })?;
        }
    }
    let strides = view.strides.iter().map(|s| s.abs()).collect();
    Ok((plan, Strided { offset: 0, strides, ..view }, lo))
}

/// Run a step on the JIT reading `input` and writing `output` where they lie,
/// whatever their layouts (transposed, sliced with steps, reversed; inputs broadcast
/// too: strides of any sign, zero included) — no copy of either. The kernel is compiled
/// for both views' strides ([`Jit::compile`] with [`crate::Options`]' views) once per
/// plan, pair of layouts and thread count, and kept (the 64 most recently used, shared by
/// every [`Jit`] of the same thread count): a later call on arrays of the same layouts, any
/// place in memory, runs it without compiling. Elements of the array that `output` views
/// into but does not include are left as they were.
///
/// ```
/// use kerfx::ndarray::run_strided;
/// use kerfx::{AxisRead, BoundaryMode, DType, Jit, Step};
/// use ndarray::{Array2, s};
/// let a = Array2::from_shape_fn((4, 6), |(i, j)| (10 * i + j) as f32);
/// // Columns 1..3 of the transposed array (a [6, 4] view): rows 1..3 of `a`, read in place.
/// let plan = Step {
///     dtype: DType::F32,
///     input_shape: vec![6, 4],
///     source_shape: vec![],
///     axes: vec![AxisRead { extent: 6, start: 0, step: 1 }, AxisRead { extent: 2, start: 1, step: 1 }],
///     order: vec![],
///     mode: BoundaryMode::StrictBounds,
///     fill_bits: 0,
///     output_shape: vec![6, 2],
///     windows: vec![],
///     gathered: None,
/// };
/// let mut out = Array2::<f32>::zeros((6, 2));
/// run_strided(&Jit::default(), &plan, a.t(), out.view_mut())?;
/// assert_eq!(out, a.slice(s![1..3, ..]).t());
/// // Written in place into columns 2..4 of a larger array (a view with gaps).
/// let mut big = Array2::<f32>::from_elem((6, 5), -1.0);
/// run_strided(&Jit::default(), &plan, a.t(), big.slice_mut(s![.., 2..4]))?;
/// assert_eq!(big.slice(s![.., 2..4]), out);
/// assert!(big.slice(s![.., ..2]).iter().all(|&v| v == -1.0));
/// # Ok::<(), kerfx::Error>(())
/// ```
pub fn run_strided<T: Element, D: Dimension, E: Dimension>(
    jit: &Jit,
    plan: &Step,
    input: ArrayView<'_, T, D>,
    output: ArrayViewMut<'_, T, E>,
) -> Result<(), Error> {
    StridedKernel::for_views(jit, plan, &input, &output)?.run(input, output)
}

/// A step compiled for one input layout and one output layout (shapes and
/// strides, any place in memory), to run on every pair of views of those layouts
/// without recompiling: see [`run_strided`].
pub struct StridedKernel {
    plan: Step,
    view: Strided,
    /// The offset of the view's element of lowest address from its first element (≤ 0).
    lo: isize,
    /// The output layout compiled for (`None`: contiguous row-major) and its `lo`.
    out: Option<(Strided, isize)>,
    kernel: std::sync::Arc<kerfx_jit::JitKernel>,
}

/// A mismatch naming the `what` array ("input" or "output") unless its shape is `expected`.
fn check_shape<D: Dimension>(what: &str, dim: &D, expected: &[u64]) -> Result<(), Error> {
    let found = shape_of(dim);
    if found != expected {
        return Err(Error::Mismatch {
            what: format!("{what} array shape"),
            expected: format!("{expected:?}"),
            found: format!("{found:?}"),
        });
    }
    Ok(())
}

impl StridedKernel {
    /// Compile `plan` for the layout of `input` (its shape must be the plan's input shape)
    /// and a contiguous row-major output.
    pub fn new<T: Element, D: Dimension>(jit: &Jit, plan: &Step, input: &ArrayView<'_, T, D>) -> Result<Self, Error> {
        check_dtype::<T>(plan.dtype)?;
        check_shape("input", &input.raw_dim(), &plan.input_shape)?;
        let (view, lo) = strided_of(input)?;
        let kernel = crate::strided::compile(jit, plan, &view, None)?;
        Ok(StridedKernel { plan: plan.clone(), view, lo, out: None, kernel })
    }

    /// Compile `plan` for the layouts of `input` and of `output` (any strides; an axis of
    /// negative stride is written in reverse order of memory, as ndarray lays it out).
    pub fn for_views<T: Element, D: Dimension, E: Dimension>(
        jit: &Jit,
        plan: &Step,
        input: &ArrayView<'_, T, D>,
        output: &ArrayViewMut<'_, T, E>,
    ) -> Result<Self, Error> {
        check_dtype::<T>(plan.dtype)?;
        check_shape("input", &input.raw_dim(), &plan.input_shape)?;
        check_shape("output", &output.raw_dim(), &plan.output_shape)?;
        if output.is_standard_layout() {
            return Self::new(jit, plan, input);
        }
        let (view, lo) = strided_of(input)?;
        let (turned, out_view, out_lo) = output_layout(plan, output)?;
        // Keyed by the plan compiled (`turned`: reversed output axes are read in reverse,
        // which the view's strides, made positive, no longer say).
        let kernel = crate::strided::compile(jit, &turned, &view, Some(&out_view))?;
        Ok(StridedKernel { plan: plan.clone(), view, lo, out: Some((out_view, out_lo)), kernel })
    }

    /// Run on `input` and into `output`, of the layouts compiled for (checked; a
    /// contiguous row-major output for a kernel from [`StridedKernel::new`]), in place.
    pub fn run<T: Element, D: Dimension, E: Dimension>(
        &self,
        input: ArrayView<'_, T, D>,
        mut output: ArrayViewMut<'_, T, E>,
    ) -> Result<(), Error> {
        check_dtype::<T>(self.plan.dtype)?;
        check_shape("output", &output.raw_dim(), &self.plan.output_shape)?;
        let layout = (shape_of(&input.raw_dim()), strided_of(&input)?);
        if layout != (self.plan.input_shape.clone(), (self.view.clone(), self.lo)) {
            return Err(Error::Mismatch {
                what: "input array layout".into(),
                expected: format!("shape {:?}, strides {:?}", self.plan.input_shape, self.view.strides),
                found: format!("shape {:?}, strides {:?}", input.shape(), input.strides()),
            });
        }
        let out_layout = match output.is_standard_layout() {
            true => None,
            false => Some(output_layout(&self.plan, &output).map(|(_, v, lo)| (v, lo))?),
        };
        if out_layout != self.out {
            let expected =
                self.out.as_ref().map_or("contiguous row-major".into(), |(v, _)| format!("strides {:?}", v.strides));
            return Err(Error::Mismatch {
                what: "output array layout".into(),
                expected,
                found: format!("strides {:?}", output.strides()),
            });
        }
        // `lo` (≤ 0) is the offset from the view's first element to its lowest-addressed one, computed from
        // its shape and strides (equal to the compiled ones, checked above); an empty view has lo = 0.
        // SAFETY: so the pointer is to an element of the array's allocation.
        let base = unsafe { input.as_ptr().offset(self.lo) }.cast::<u8>();
        match &self.out {
            None => {
                let out = output.as_slice_mut().expect("a standard-layout view is one slice");
                // The kernel was compiled for `self.view`, this view's layout (checked above), with offset =
                // -lo: it reads only `base + offset + Σ i_k·strides[k]` for indices inside the view's shape.
                // SAFETY: each such element belongs to the view, readable while `input` is borrowed.
                unsafe { self.kernel.run_from_ptr(base, as_bytes_mut(out)) }
            }
            Some((_, lo)) => {
                // `lo` (≤ 0): from the output view's first element to its lowest-addressed one, from its shape
                // and strides (equal to the compiled ones, checked above).
                // SAFETY: so the pointer is to an element of the output array's allocation.
                let out = unsafe { output.as_mut_ptr().offset(*lo) }.cast::<u8>();
                // The kernel writes only the output view's elements (`out + Σ i_k·|strides[k]|`, verified
                // distinct and inside the view's span by the schedule) and reads only the input view's (as above).
                // SAFETY: every written element belongs to `output`, borrowed mutably for this call; no Rust
                // reference to the bytes between them is made (no slice over the span is formed).
                unsafe { self.kernel.run_from_ptrs(base, out) }
            }
        }
    }
}

/// Run a fused chain ([`crate::chain::lower_chain`]) on the JIT as one kernel reading
/// `input` and writing `output` where they lie, no copy of either: what
/// [`run_strided`] does for one plan ([`Jit::compile`] with views), the kernel kept per
/// map and pair of layouts as `run_strided` keeps its own ([`crate::strided::compile_map`]).
/// Refused: output axes of negative stride (a chain is not turned around), a chain that
/// starts with a fill (it reads no input), one with fill levels (two fill values) written
/// into an output that is not in standard layout, and a chain of strings (run those step
/// by step, [`crate::chain::run_chain_jit`]).
pub fn run_chain_strided<T: Element, D: Dimension, E: Dimension>(
    jit: &Jit,
    fused: &crate::Map,
    input: ArrayView<'_, T, D>,
    mut output: ArrayViewMut<'_, T, E>,
) -> Result<(), Error> {
    check_dtype::<T>(fused.dtype)?;
    check_shape("input", &input.raw_dim(), fused.head_shape())?;
    check_shape("output", &output.raw_dim(), &fused.output_shape)?;
    let (in_view, lo) = strided_of(&input)?;
    let dense = output.is_standard_layout();
    let (out_view, out_lo) = strided_of(&output.view())?;
    if fused.dtype == DType::String {
        return Err(Error::Invalid { what: "a chain of strings is not one loop nest: run it step by step".into() });
    }
    let kernel = crate::strided::compile_map(jit, fused, &in_view, (!dense).then_some(&out_view))?;
    // `lo` (≤ 0): from the view's first element to its lowest-addressed one (from its shape and strides).
    // SAFETY: so the pointer is to an element of the input array's allocation.
    let base = unsafe { input.as_ptr().offset(lo) }.cast::<u8>();
    if dense {
        let out = output.as_slice_mut().expect("a standard-layout view is one slice");
        // The kernel was compiled for `in_view` (offset -lo): it reads only elements of `input`.
        // SAFETY: each such element is readable while `input` is borrowed.
        return unsafe { kernel.run_from_ptr(base, as_bytes_mut(out)) };
    }
    // As in `StridedKernel::run`: the kernel writes only `output`'s elements (verified distinct and inside
    // the view's span, negative strides having been refused by the schedule) and reads only `input`'s.
    // SAFETY: `out_lo` (≤ 0) leads to the output view's lowest element, inside its allocation.
    let out = unsafe { output.as_mut_ptr().offset(out_lo) }.cast::<u8>();
    // SAFETY: every written element belongs to `output`, borrowed mutably for this call; no reference to
    // the bytes between them is formed.
    unsafe { kernel.run_from_ptrs(base, out) }
}

/// `run_bytes` into elements of `T`. `Kernel` is a safe trait any code may implement, so
/// for `bool` (the one element type with invalid byte patterns) the bytes written are
/// checked before any of them is read as a `bool`: a byte other than 0 or 1 is zeroed
/// and the call fails.
fn run_elements<K: Kernel + ?Sized, T: Element>(kernel: &K, input: Option<&[u8]>, out: &mut [T]) -> Result<(), Error> {
    let bytes = as_bytes_mut(out);
    let ran = kernel.run_bytes(input, bytes);
    if T::DTYPE == DType::Bool && bytes.iter().any(|&b| b > 1) {
        bytes.iter_mut().filter(|b| **b > 1).for_each(|b| *b = 0);
        ran?;
        return Err(Error::Invalid { what: "the kernel wrote bool bytes other than 0 and 1".into() });
    }
    ran
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::ndarray::{arr1, arr2, s};

    /// A safe `Kernel` implementation that writes byte 2 into a bool output must not
    /// produce an invalid `bool`.
    #[test]
    fn invalid_bool_bytes_from_a_kernel_are_refused() {
        struct Twos;
        impl Kernel for Twos {
            fn dtype(&self) -> DType {
                DType::Bool
            }
            fn input_shape(&self) -> Option<&[u64]> {
                None
            }
            fn output_shape(&self) -> &[u64] {
                &[3]
            }
            fn run_bytes(&self, _: Option<&[u8]>, output: &mut [u8]) -> Result<(), Error> {
                output.fill(2);
                Ok(())
            }
        }
        let err = run::<_, bool, ::ndarray::Ix1>(&Twos, None).unwrap_err();
        assert!(err.to_string().contains("bool bytes other than 0 and 1"), "{err}");
        let mut a = ::ndarray::Array2::from_elem((3, 2), true);
        assert!(run_into::<_, bool, ::ndarray::Ix1, _>(&Twos, None, a.column_mut(0)).is_err());
        // A strided output is written through a copy, left untouched on error.
        assert_eq!(a.column(0).to_vec(), [true; 3]);
        // A contiguous output is written in place: the invalid bytes are zeroed.
        let mut c = ::ndarray::Array1::from_elem(3, true);
        assert!(run_into::<_, bool, ::ndarray::Ix1, _>(&Twos, None, c.view_mut()).is_err());
        assert_eq!(c.to_vec(), [false; 3]);
    }

    /// A plan of every mode on views of every layout, read in place, against the
    /// reference on a contiguous copy of the view.
    #[test]
    fn strided_views_read_in_place_match_the_reference() {
        use kerfx_ir::{AxisRead, BoundaryMode};
        let jit = Jit::default();
        let base = ::ndarray::Array2::from_shape_fn((6, 8), |(i, j)| (i * 8 + j) as i32);
        let wide = ::ndarray::Array2::from_shape_fn((5, 1), |(i, _)| i as i32);
        let broadcast = wide.broadcast((5, 7)).unwrap();
        let views = [
            base.slice(s![.., ..]),
            base.t(),
            base.slice(s![..;2, 1..;3]),
            base.slice(s![..;-1, ..;-2]),
            base.slice(s![1..5, 2..7]).reversed_axes(),
            broadcast.view(),
        ];
        for v in views {
            let shape = shape_of(&v.raw_dim());
            for mode in BoundaryMode::ALL {
                let axes: Vec<AxisRead> = shape
                    .iter()
                    .map(|&d| {
                        if mode == BoundaryMode::StrictBounds {
                            AxisRead { extent: d, start: d as i64 - 1, step: -1 }
                        } else {
                            AxisRead { extent: d + 5, start: -3, step: 1 }
                        }
                    })
                    .collect();
                let plan = Step {
                    source_shape: Vec::new(),
                    order: Vec::new(),
                    dtype: DType::I32,
                    input_shape: shape.clone(),
                    output_shape: axes.iter().map(|a| a.extent).collect(),
                    axes,
                    mode,
                    fill_bits: 7,
                    windows: Vec::new(),
                    gathered: None,
                };
                let expected = kerfx_ir::reference::slice(&plan, tensor_from_array(v).view()).unwrap();
                let out_shape: Vec<usize> = plan.output_shape.iter().map(|&d| d as usize).collect();
                let mut out = ArrayD::<i32>::zeros(IxDyn(&out_shape));
                run_strided(&jit, &plan, v, out.view_mut()).unwrap();
                assert_eq!(out, array_from_tensor::<i32>(&expected).unwrap(), "{mode} on {:?}", v.strides());
                // Into views of a larger array written in place (column blocks, steps,
                // reversed and transposed axes); the elements around them untouched.
                let (r, c) = (out_shape[0], out_shape[1]);
                let mut big = ::ndarray::Array2::<i32>::from_elem((2 * r + 3, 2 * c + 3), -7);
                let mut tbig = ::ndarray::Array2::<i32>::from_elem((c + 2, r + 1), -7);
                let check = |mut target: ::ndarray::ArrayViewMut2<'_, i32>, what: &str| {
                    run_strided(&jit, &plan, v, target.view_mut()).unwrap();
                    assert_eq!(target.into_dyn(), out, "{mode} on {:?} into {what}", v.strides());
                };
                check(big.slice_mut(s![1..r + 1, 1..c + 1]), "a block");
                check(big.slice_mut(s![..2 * r;2, 3..;2]), "every other row and column");
                check(big.slice_mut(s![1..r + 1;-1, ..c;-1]), "reversed axes");
                check(tbig.slice_mut(s![1..c + 1, ..r]).reversed_axes(), "a transposed block");
                assert!(big.row(2 * r + 2).iter().chain(tbig.column(r)).chain(tbig.row(0)).all(|&x| x == -7), "{mode}");
            }
        }
        // Wrong shapes are errors.
        let plan = Step {
            source_shape: Vec::new(),
            order: Vec::new(),
            dtype: DType::I32,
            input_shape: vec![2, 2],
            axes: vec![AxisRead { extent: 1, start: 0, step: 1 }; 2],
            mode: BoundaryMode::StrictBounds,
            fill_bits: 0,
            output_shape: vec![1, 1],
            windows: Vec::new(),
            gathered: None,
        };
        let mut out = ::ndarray::Array2::<i32>::zeros((1, 1));
        assert!(run_strided(&jit, &plan, base.view(), out.view_mut()).is_err());
        // A kernel compiled for one layout refuses another of the same shape.
        let square = ::ndarray::Array2::from_shape_fn((2, 2), |(i, j)| (2 * i + j) as i32);
        let k = StridedKernel::new(&jit, &plan, &square.t()).unwrap();
        k.run(square.t(), out.view_mut()).unwrap();
        assert_eq!(out[[0, 0]], 0);
        let e = k.run(square.view(), out.view_mut()).unwrap_err().to_string();
        assert!(e.contains("layout"), "{e}");
        // A kernel compiled for one output layout refuses another, with no copy behind it.
        let whole = Step {
            source_shape: Vec::new(),
            order: Vec::new(),
            axes: vec![AxisRead { extent: 2, start: 0, step: 1 }; 2],
            output_shape: vec![2, 2],
            ..plan.clone()
        };
        let mut wide = ::ndarray::Array2::<i32>::zeros((2, 4));
        let k = StridedKernel::for_views(&jit, &whole, &square.t(), &wide.slice_mut(s![.., 1..3])).unwrap();
        k.run(square.t(), wide.slice_mut(s![.., 1..3])).unwrap();
        assert_eq!(wide, ::ndarray::arr2(&[[0, 0, 2, 0], [0, 1, 3, 0]]));
        let mut dense = ::ndarray::Array2::<i32>::zeros((2, 2));
        let e = k.run(square.t(), dense.view_mut()).unwrap_err().to_string();
        assert!(e.contains("output array layout"), "{e}");
    }

    /// Every element of a view written in place, none around it, whatever the order of
    /// its axes in memory: a 3-d output permuted and stepped inside a larger array.
    #[test]
    fn output_views_are_written_in_place_and_alone() {
        use kerfx_ir::{AxisRead, BoundaryMode};
        let jit = Jit::default();
        let input = ::ndarray::Array3::from_shape_fn((3, 4, 5), |(i, j, k)| (100 * i + 10 * j + k) as i16);
        for mode in [BoundaryMode::StrictBounds, BoundaryMode::Fill, BoundaryMode::Reflect] {
            let axes: Vec<AxisRead> = [3u64, 4, 5]
                .iter()
                .map(|&d| match mode {
                    BoundaryMode::StrictBounds => AxisRead { extent: d, start: 0, step: 1 },
                    _ => AxisRead { extent: d + 4, start: -2, step: 1 },
                })
                .collect();
            let plan = Step {
                source_shape: Vec::new(),
                order: Vec::new(),
                dtype: DType::I16,
                input_shape: vec![3, 4, 5],
                output_shape: axes.iter().map(|a| a.extent).collect(),
                axes,
                mode,
                fill_bits: 9,
                windows: Vec::new(),
                gathered: None,
            };
            let expected =
                run::<_, i16, _>(&*jit.compile(&plan, &crate::Options::STATIC).unwrap(), Some(input.view())).unwrap();
            let [a, b, c] = [0, 1, 2].map(|k| plan.output_shape[k] as usize);
            // Memory order (c, a, b), every other element along b, reversed along a.
            let mut big = ::ndarray::Array3::<i16>::from_elem((c, a + 1, 2 * b), -1);
            let target = big.slice_mut(s![.., 1..;-1, ..;2]).permuted_axes([1, 2, 0]);
            run_strided(&jit, &plan, input.view(), target).unwrap();
            let got = big.slice(s![.., 1..;-1, ..;2]).permuted_axes([1, 2, 0]);
            assert_eq!(got.into_dyn(), expected, "{mode}");
            let outside = big.slice(s![.., 0, ..]).iter().chain(big.slice(s![.., .., 1..;2])).all(|&x| x == -1);
            assert!(outside, "{mode}: an element outside the view was written");
        }
    }

    /// A fused chain (reflect pad, then a crop) from a transposed view into a block of a
    /// larger array: the unfused reference's values, nothing around the block written;
    /// a reversed output axis is refused.
    #[test]
    fn chains_write_output_views_in_place() {
        use crate::chain::{ChainRequest, lower_chain};
        use kerfx_ir::{DType as D, Request};
        let pad = Request::new("onnx.pad")
            .input_meta("data", D::I32, &[5, 4])
            .input("pads", kerfx_ir::Tensor::from_i64s(&[2, 3, 2, 3]))
            .attr("mode", "reflect");
        let crop = Request::new("onnx.slice")
            .input("starts", kerfx_ir::Tensor::from_i64s(&[1, 2]))
            .input("ends", kerfx_ir::Tensor::from_i64s(&[-1, -1]));
        let lowered = lower_chain(&ChainRequest { steps: vec![pad, crop] }).unwrap();
        let base = ::ndarray::Array2::from_shape_fn((4, 5), |(i, j)| (10 * i + j) as i32);
        let input = base.t(); // [5, 4]
        let expected =
            kerfx_ir::chain::evaluate_unfused(&lowered.plans, Some(tensor_from_array(input).view())).unwrap();
        let expected = array_from_tensor::<i32>(&expected).unwrap();
        let [r, c] = [0, 1].map(|k| lowered.fused().unwrap().output_shape[k] as usize);
        let mut big = ::ndarray::Array2::<i32>::from_elem((r + 2, 2 * c + 1), -1);
        let jit = Jit::default();
        run_chain_strided(&jit, lowered.fused().unwrap(), input, big.slice_mut(s![1..r + 1, 1..;2])).unwrap();
        assert_eq!(big.slice(s![1..r + 1, 1..;2]).into_dyn(), expected);
        assert!(big.row(0).iter().chain(big.row(r + 1)).chain(big.slice(s![.., ..;2])).all(|&x| x == -1));
        let e =
            run_chain_strided(&jit, lowered.fused().unwrap(), input, big.slice_mut(s![1..r + 1, 1..;-2])).unwrap_err();
        assert!(e.to_string().contains("positive"), "{e}");
        // Dense outputs too.
        let mut dense = ::ndarray::Array2::<i32>::zeros((r, c));
        run_chain_strided(&jit, lowered.fused().unwrap(), input, dense.view_mut()).unwrap();
        assert_eq!(dense.into_dyn(), expected);
        // The chain's kernel is kept per map and layouts, as a plan's is: no recompile.
        let map = lowered.fused().unwrap();
        let (view, _) = strided_of(&input).unwrap();
        let first = crate::strided::compile_map(&jit, map, &view, None).unwrap();
        let again = crate::strided::compile_map(&Jit::default(), map, &view, None).unwrap();
        assert!(std::sync::Arc::ptr_eq(&first, &again), "recompiled for the same map and layout");
        let row_major = ::ndarray::Array2::<i32>::zeros((5, 4));
        let (other, _) = strided_of(&row_major.view()).unwrap();
        let other = crate::strided::compile_map(&jit, map, &other, None).unwrap();
        assert!(!std::sync::Arc::ptr_eq(&first, &other), "another layout is another kernel");
    }

    #[test]
    fn round_trip_every_layout() {
        let a = arr2(&[[1i16, 2, 3], [4, 5, 6]]);
        for v in [a.view(), a.t(), a.slice(s![.., ..;2])] {
            let t = tensor_from_array(v);
            assert_eq!(array_from_tensor::<i16>(&t).unwrap(), v.into_dyn());
        }
        let c = arr1(&[num_complex::Complex::new(1.0f64, -1.0)]);
        let t = tensor_from_array(c.view());
        assert_eq!(t.dtype(), DType::C128);
        assert_eq!(array_from_tensor::<num_complex::Complex<f64>>(&t).unwrap(), c.into_dyn());
        assert!(array_from_tensor::<f32>(&t).is_err());
    }

    /// A second call on arrays of the layouts of the first runs the kernel the first
    /// compiled (no compile per call), on other arrays of those layouts too; another
    /// layout is another kernel.
    #[test]
    fn run_strided_compiles_once_per_layout() {
        use crate::{AxisRead, BoundaryMode};
        let plan = Step {
            dtype: DType::I32,
            input_shape: vec![5, 7],
            source_shape: vec![],
            axes: vec![AxisRead { extent: 5, start: 0, step: 1 }, AxisRead { extent: 3, start: 2, step: 1 }],
            order: vec![],
            mode: BoundaryMode::StrictBounds,
            fill_bits: 0,
            output_shape: vec![5, 3],
            windows: vec![],
            gathered: None,
        };
        let jit = Jit::default();
        let a = ::ndarray::Array2::from_shape_fn((7, 5), |(i, j)| (10 * i + j) as i32);
        let b = a.mapv(|v| -v);
        let first = StridedKernel::new(&jit, &plan, &a.t()).unwrap();
        let again = StridedKernel::new(&Jit::default(), &plan, &b.t()).unwrap();
        assert!(std::sync::Arc::ptr_eq(&first.kernel, &again.kernel), "recompiled for the same layout");
        let mut out = ::ndarray::Array2::<i32>::zeros((5, 3));
        run_strided(&jit, &plan, b.t(), out.view_mut()).unwrap();
        assert_eq!(out, b.t().slice(s![.., 2..5]));
        // Another output layout (columns of a wider array) is another kernel, also kept.
        let mut wide = ::ndarray::Array2::<i32>::zeros((5, 4));
        let k = StridedKernel::for_views(&jit, &plan, &a.t(), &wide.slice_mut(s![.., 1..])).unwrap();
        assert!(!std::sync::Arc::ptr_eq(&k.kernel, &first.kernel));
        let k2 = StridedKernel::for_views(&jit, &plan, &b.t(), &wide.slice_mut(s![.., 1..])).unwrap();
        assert!(std::sync::Arc::ptr_eq(&k.kernel, &k2.kernel));
        k2.run(b.t(), wide.slice_mut(s![.., 1..])).unwrap();
        assert_eq!(wide.slice(s![.., 1..]), b.t().slice(s![.., 2..5]));
        assert!(crate::strided::cached_count() <= crate::strided::CAPACITY);
    }
}
