//! A user crate of `#[derive(kerf::Kernel)]`: the kernels its tests and benchmarks use
//! are derived in the tests themselves, as a user would write them. This library holds
//! only the shared test helpers.

use kerf::{DType, Kernel, Request, Tensor};

/// A deterministic input tensor of `dtype` and `shape` whose elements differ (bit
/// patterns from a simple LCG; valid values for every byte-sized dtype).
pub fn pattern(dtype: DType, shape: &[u64]) -> Tensor {
    let mut t = Tensor::zeros(dtype, shape).expect("test tensor");
    if let Some(bytes) = t.bytes_mut() {
        let mut x: u32 = 0x1234_5678;
        for b in bytes.iter_mut() {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            *b = (x >> 24) as u8;
        }
        if dtype == DType::Bool {
            bytes.iter_mut().for_each(|b| *b &= 1);
        }
        if matches!(dtype, DType::F8E4M3FN) {
            // 0x7f/0xff are NaN: keep values finite so comparisons are by value too.
            bytes.iter_mut().for_each(|b| *b &= 0xf7);
        }
    }
    if let Some(s) = t.strings_mut() {
        for (i, v) in s.iter_mut().enumerate() {
            *v = format!("s{i}");
        }
    }
    t
}

/// Run a derived kernel through the `Kernel` trait and compare with the reference
/// interpreter on the same request (whose data input is `input`). Returns the output.
pub fn check_against_reference(kernel: &dyn Kernel, request: &Request) -> Tensor {
    let expected = kerf::run_reference(request).expect("reference");
    let data = kerf::data_input(request).expect("data input");
    let got = kernel.run_tensor(data.map(Tensor::view)).expect("derived kernel");
    assert_eq!(got.shape(), expected.shape(), "shape of {request:?}");
    assert_eq!(got.bytes(), expected.bytes(), "bits of {request:?}");
    got
}
