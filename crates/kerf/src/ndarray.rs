//! `ndarray` interop (feature `ndarray`): arrays ↔ [`Tensor`]s, and running a
//! [`Kernel`] on arrays.
//!
//! ```
//! use kerf::ndarray::{array_from_tensor, tensor_from_array};
//! let a = ndarray::arr2(&[[1.0f32, 2.0], [3.0, 4.0]]);
//! let t = tensor_from_array(a.t()); // any layout: copied in logical row-major order
//! assert_eq!(t.shape(), &[2, 2]);
//! let back = array_from_tensor::<f32>(&t).unwrap();
//! assert_eq!(back, a.t().into_dyn());
//! ```

use ::ndarray::{ArrayD, ArrayView, ArrayViewD, ArrayViewMut, Dimension, IxDyn};
use kerf_ir::schedule::Strided;
use kerf_ir::{DType, Error, Kernel, SlicePlan, Tensor};
use kerf_jit::Jit;

/// Rust element types that are kerf dtypes: plain little-endian values, no padding.
///
/// # Safety
/// Implementors are plain data whose in-memory layout on little-endian targets is the
/// dtype's element bytes, and every byte pattern kerf produces for the dtype is a valid
/// value of the type (`bool` relies on kerf storing only 0 and 1, which [`view_of_tensor`]
/// checks).
pub unsafe trait Element: Copy + 'static {
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
    if shape_of(&output.raw_dim()) != kernel.output_shape() {
        return Err(Error::Mismatch {
            what: "output array shape".into(),
            expected: format!("{:?}", kernel.output_shape()),
            found: format!("{:?}", output.shape()),
        });
    }
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

/// Run a slice plan on the JIT reading `input` where it lies, whatever its layout
/// (transposed, sliced with steps, reversed, broadcast: strides of any sign, zero
/// included) — no copy of the input. The kernel is compiled for the view's strides
/// ([`Jit::compile_strided`]; not cached). `output` is written in place when it is
/// contiguous row-major, else through a buffer copied into it.
///
/// ```
/// use kerf::ndarray::run_strided;
/// use kerf::{AxisRead, BoundaryMode, DType, Jit, SlicePlan};
/// use ndarray::{Array2, s};
/// let a = Array2::from_shape_fn((4, 6), |(i, j)| (10 * i + j) as f32);
/// // Columns 1..3 of the transposed array (a [6, 4] view): rows 1..3 of `a`, read in place.
/// let plan = SlicePlan {
///     dtype: DType::F32,
///     input_shape: vec![6, 4],
///     axes: vec![AxisRead { extent: 6, start: 0, step: 1 }, AxisRead { extent: 2, start: 1, step: 1 }],
///     mode: BoundaryMode::StrictBounds,
///     fill_bits: 0,
///     output_shape: vec![6, 2],
///     windows: vec![],
/// };
/// let mut out = Array2::<f32>::zeros((6, 2));
/// run_strided(&Jit::default(), &plan, a.t(), out.view_mut())?;
/// assert_eq!(out, a.slice(s![1..3, ..]).t());
/// # Ok::<(), kerf::Error>(())
/// ```
pub fn run_strided<T: Element, D: Dimension, E: Dimension>(
    jit: &Jit,
    plan: &SlicePlan,
    input: ArrayView<'_, T, D>,
    output: ArrayViewMut<'_, T, E>,
) -> Result<(), Error> {
    StridedKernel::new(jit, plan, &input)?.run(input, output)
}

/// A slice plan compiled for one input layout (shape and strides, any offset in memory),
/// to run on every view of that layout without recompiling: see [`run_strided`].
pub struct StridedKernel {
    plan: SlicePlan,
    view: Strided,
    /// The offset of the view's element of lowest address from its first element (≤ 0).
    lo: isize,
    kernel: std::sync::Arc<kerf_jit::JitKernel>,
}

impl StridedKernel {
    /// Compile `plan` for the layout of `input` (its shape must be the plan's input shape).
    pub fn new<T: Element, D: Dimension>(
        jit: &Jit,
        plan: &SlicePlan,
        input: &ArrayView<'_, T, D>,
    ) -> Result<Self, Error> {
        check_dtype::<T>(plan.dtype)?;
        let in_shape = shape_of(&input.raw_dim());
        if in_shape != plan.input_shape {
            return Err(Error::Mismatch {
                what: "input array shape".into(),
                expected: format!("{:?}", plan.input_shape),
                found: format!("{in_shape:?}"),
            });
        }
        let (view, lo) = strided_of(input)?;
        let kernel = jit.compile_strided(plan, &view)?;
        Ok(StridedKernel { plan: plan.clone(), view, lo, kernel })
    }

    /// Run on `input` (the layout compiled for, checked) into `output`: in place when it
    /// is contiguous row-major, else through a buffer copied into it.
    pub fn run<T: Element, D: Dimension, E: Dimension>(
        &self,
        input: ArrayView<'_, T, D>,
        mut output: ArrayViewMut<'_, T, E>,
    ) -> Result<(), Error> {
        check_dtype::<T>(self.plan.dtype)?;
        let out_shape = shape_of(&output.raw_dim());
        if out_shape != self.plan.output_shape {
            return Err(Error::Mismatch {
                what: "output array shape".into(),
                expected: format!("{:?}", self.plan.output_shape),
                found: format!("{out_shape:?}"),
            });
        }
        let layout = (shape_of(&input.raw_dim()), strided_of(&input)?);
        if layout != (self.plan.input_shape.clone(), (self.view.clone(), self.lo)) {
            return Err(Error::Mismatch {
                what: "input array layout".into(),
                expected: format!("shape {:?}, strides {:?}", self.plan.input_shape, self.view.strides),
                found: format!("shape {:?}, strides {:?}", input.shape(), input.strides()),
            });
        }
        // `lo` (≤ 0) is the offset from the view's first element to its lowest-addressed one, computed from
        // its shape and strides (equal to the compiled ones, checked above); an empty view has lo = 0.
        // SAFETY: so the pointer is to an element of the array's allocation.
        let base = unsafe { input.as_ptr().offset(self.lo) }.cast::<u8>();
        let run = |out: &mut [T]| {
            // The kernel was compiled for `self.view`, this view's layout (checked above), with offset = -lo:
            // it reads only `base + offset + Σ i_k·strides[k]` for indices inside the view's shape.
            // SAFETY: each such element belongs to the view, readable while `input` is borrowed.
            unsafe { self.kernel.run_from_ptr(base, as_bytes_mut(out)) }
        };
        match output.as_slice_mut() {
            Some(s) => run(s),
            None => {
                let mut buf = zeroed::<T>(output.len())?;
                run(&mut buf)?;
                for (o, v) in output.iter_mut().zip(buf) {
                    *o = v;
                }
                Ok(())
            }
        }
    }
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
        use kerf_ir::{AxisRead, BoundaryMode};
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
                let plan = SlicePlan {
                    dtype: DType::I32,
                    input_shape: shape.clone(),
                    output_shape: axes.iter().map(|a| a.extent).collect(),
                    axes,
                    mode,
                    fill_bits: 7,
                    windows: Vec::new(),
                };
                let expected = kerf_ir::reference::slice(&plan, tensor_from_array(v).view()).unwrap();
                let out_shape: Vec<usize> = plan.output_shape.iter().map(|&d| d as usize).collect();
                let mut out = ArrayD::<i32>::zeros(IxDyn(&out_shape));
                run_strided(&jit, &plan, v, out.view_mut()).unwrap();
                assert_eq!(out, array_from_tensor::<i32>(&expected).unwrap(), "{mode} on {:?}", v.strides());
                // Into a column block of a larger array (a non-contiguous output).
                let mut big = ArrayD::<i32>::zeros(IxDyn(&[out_shape[0], out_shape[1] + 3]));
                run_strided(&jit, &plan, v, big.slice_mut(s![.., 1..out_shape[1] + 1]).into_dyn()).unwrap();
                assert_eq!(big.slice(s![.., 1..out_shape[1] + 1]).into_dyn(), out);
            }
        }
        // Wrong shapes are errors.
        let plan = SlicePlan {
            dtype: DType::I32,
            input_shape: vec![2, 2],
            axes: vec![AxisRead { extent: 1, start: 0, step: 1 }; 2],
            mode: BoundaryMode::StrictBounds,
            fill_bits: 0,
            output_shape: vec![1, 1],
            windows: Vec::new(),
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
}
