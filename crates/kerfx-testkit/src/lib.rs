//! kerf's test kit, shared by every test crate of the workspace (not published):
//! - [`random`]: the one seeded random-request generator;
//! - [`render`]: the one renderer of a request as `#[kerf(...)]` derive attributes;
//! - [`conformance`]: the conformance suite and its one [`check_case`], instantiated per
//!   backend with `conformance_suite!` (and [`derive_suite`] for the derive);
//! - [`pattern`] and [`with_pattern_data`]: deterministic input data;
//! - [`npy_v1`]: hand-made .npy bytes, for files no writer would make;
//! - [`plans`]: steps (slices) written by hand, and the naive walk of a loop nest;
//! - [`native`]: for tests that build and run native code, whether a tool runs and kerf's
//!   runtime library.

mod cases;
pub mod conformance;
pub mod native;
pub mod plans;
pub mod random;
pub mod render;

pub use cases::{case_names, data_dir};
pub use conformance::{Backend, DynamicEntry, ProgramEntry, check_case, derive_suite};
pub use render::derive_attributes;

use kerfx::{BoundaryMode, DType, InputArg, Request, Tensor};

include!(concat!(env!("OUT_DIR"), "/conformance_suite.rs"));

/// A deterministic tensor of `dtype` and `shape` whose elements differ: LCG bytes
/// (finite values for fp8; 0/1 for bool), `s0`, `s1`, ... for strings.
pub fn pattern(dtype: DType, shape: &[u64]) -> Tensor {
    let mut x: u32 = 0x1234_5678 ^ shape.iter().map(|&d| d as u32).sum::<u32>();
    tensor_of(dtype, shape, &mut |bytes| {
        for b in bytes.iter_mut() {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            *b = (x >> 24) as u8;
        }
    })
}

/// A tensor of `dtype` and `shape` of random bytes (made valid as [`pattern`] makes them).
pub fn random_tensor(rng: &mut random::Rng, dtype: DType, shape: &[u64]) -> Tensor {
    tensor_of(dtype, shape, &mut |bytes| rng.fill_bytes(bytes))
}

/// A tensor whose bytes `fill` writes, then made valid for its dtype: 0/1 for bool, finite
/// fp8, an odd count of nibbles' last high nibble zero; strings `s0`, `s1`, ....
fn tensor_of(dtype: DType, shape: &[u64], fill: &mut dyn FnMut(&mut [u8])) -> Tensor {
    let mut t = Tensor::zeros(dtype, shape).expect("test tensor");
    if let Some(bytes) = t.bytes_mut() {
        fill(bytes);
        match dtype {
            DType::Bool => bytes.iter_mut().for_each(|b| *b &= 1),
            DType::F8E4M3FN => bytes.iter_mut().for_each(|b| *b &= 0xf7),
            _ => {}
        }
        if matches!(dtype, DType::I4 | DType::U4) && t.len() % 2 == 1 {
            let bytes = t.bytes_mut().expect("bytes");
            let last = bytes.len() - 1;
            bytes[last] &= 0x0f;
        }
    }
    if dtype == DType::String {
        let values: Vec<String> = (0..t.len()).map(|i| format!("s{i}")).collect();
        return Tensor::from_strings(shape, values).expect("test tensor");
    }
    t
}

/// The request with its data input, when given by dtype and shape only, replaced by a
/// [`pattern`] tensor of that dtype and shape, so it can run.
pub fn with_pattern_data(mut request: Request) -> Request {
    for input in request.inputs.values_mut() {
        if let InputArg::Meta { dtype, shape } = input {
            *input = InputArg::Tensor(pattern(*dtype, shape));
        }
    }
    request
}

/// The boundary modes an op's mode attribute allows (the names its spec lists), in
/// [`BoundaryMode::ALL`]'s order: tests take the modes from here, never from a list of
/// their own.
pub fn boundary_modes(op: &str, attribute: &str) -> Vec<BoundaryMode> {
    let spec = kerfx::op_spec(op).unwrap_or_else(|e| panic!("{e}"));
    let allowed = spec.attribute(attribute).and_then(|a| a.allowed.as_ref()).expect("a mode attribute");
    BoundaryMode::ALL.into_iter().filter(|m| allowed.iter().any(|a| a == m.name())).collect()
}

/// A .npy file, version 1: magic, version, header length, then the header text padded
/// with spaces to a multiple of 64 bytes, then `data` (the header need not be valid).
pub fn npy_v1(header: &str, data: &[u8]) -> Vec<u8> {
    let mut text = header.to_string();
    while !(10 + text.len() + 1).is_multiple_of(64) {
        text.push(' ');
    }
    text.push('\n');
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend((text.len() as u16).to_le_bytes());
    b.extend(text.as_bytes());
    b.extend(data);
    b
}
