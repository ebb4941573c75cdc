//! The facade's `ndarray` feature: arrays in any layout through compiled kernels.

use kerfx::ndarray::{array_from_tensor, run, run_into, tensor_from_array, view_of_tensor};
use kerfx::{DType, Jit, Kernel, Options, Request};
use ndarray::{Array2, ArrayD, IxDyn, s};

fn slice_request(shape: &[u64]) -> Request {
    Request::new("tensorrt.slice")
        .input_meta("input", DType::F32, shape)
        .attr("start", [1, -1])
        .attr("size", [3, 5])
        .attr("stride", [1, 1])
        .attr("mode", "wrap")
}

#[test]
fn jit_kernels_run_on_arrays_of_any_layout() {
    let jit = Jit::default();
    let kernel = jit.compile(&slice_request(&[2, 3]), &Options::STATIC).unwrap();
    let a = Array2::from_shape_fn((3, 2), |(i, j)| (i * 10 + j) as f32);
    // A transposed view (not contiguous): copied through a buffer, same answer.
    let input = a.t();
    let out = run(kernel.as_ref(), Some(input)).unwrap();
    // The reference on the same values.
    let request = slice_request(&[2, 3]).input("input", tensor_from_array(input));
    let want = kerfx::run_reference(&request).unwrap();
    assert_eq!(out, array_from_tensor::<f32>(&want).unwrap());
    assert_eq!(out.shape(), &[3, 5]);

    // Into a caller-owned, non-contiguous output (every other column of a wider array).
    let mut wide = ArrayD::<f32>::zeros(IxDyn(&[3, 10]));
    run_into(kernel.as_ref(), Some(input), wide.slice_mut(s![.., ..;2])).unwrap();
    assert_eq!(wide.slice(s![.., ..;2]).into_dyn(), out);
    assert!(wide.slice(s![.., 1..;2]).iter().all(|&v| v == 0.0));

    // Wrong element type or shape: errors, not panics.
    let ints = Array2::<i32>::zeros((2, 3));
    assert!(run(kernel.as_ref(), Some(ints.view())).is_err());
    let wrong = Array2::<f32>::zeros((3, 3));
    assert!(run(kernel.as_ref(), Some(wrong.view())).is_err());
}

#[test]
fn fill_kernels_and_zero_copy_views() {
    let jit = Jit::default();
    let request = Request::new("tensorrt.fill")
        .attr("dimensions", [2, 3])
        .attr("operation", "linspace")
        .attr("alpha", 1.0)
        .attr("beta", vec![10.0, 1.0]);
    let kernel = jit.compile(&request, &Options::STATIC).unwrap();
    assert_eq!(kernel.dtype(), DType::F32);
    let out = run::<_, f32, ndarray::Ix2>(kernel.as_ref(), None).unwrap();
    assert_eq!(out.as_slice().unwrap(), &[1.0, 2.0, 3.0, 11.0, 12.0, 13.0]);
    let t = kerfx::run_reference(&request).unwrap();
    assert_eq!(view_of_tensor::<f32>(&t).unwrap(), out);
    assert!(view_of_tensor::<i32>(&t).is_err());
}
