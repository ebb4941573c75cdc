//! Programs over several inputs and outputs (Concat, Split) on random shapes, dtypes and
//! axes: the JIT's static and dynamic kernels against the reference, byte for byte; and a
//! program kernel's buffer checks.

use kerfx::{DType, InputArg, Request, Tensor};
use kerfx_testkit::random::Rng;
use kerfx_testkit::random_tensor;

fn jit() -> &'static kerfx::Jit {
    static JIT: std::sync::OnceLock<kerfx::Jit> = std::sync::OnceLock::new();
    JIT.get_or_init(kerfx::Jit::default)
}

fn random_shape(rng: &mut Rng, rank: u64) -> Vec<u64> {
    (0..rank).map(|_| rng.below(5)).collect()
}

const DTYPES: [DType; 7] = [DType::U8, DType::I16, DType::F32, DType::F64, DType::C128, DType::String, DType::I4];

fn check(request: &Request) {
    let reference = kerfx::run_reference_outputs(request).unwrap_or_else(|e| panic!("{request:?}: {e}"));
    for dynamic in [false, true] {
        let got = kerfx::run_jit_outputs(jit(), request, dynamic).unwrap_or_else(|e| panic!("{request:?}: {e}"));
        assert!(got == reference, "dynamic {dynamic}: {request:?}");
    }
}

#[test]
fn random_concats_equal_the_reference() {
    let mut rng = Rng::new(0x636f_6e63);
    for _ in 0..150 {
        let dtype = *rng.pick(&DTYPES);
        let rank = 1 + rng.below(4);
        let axis = rng.below(rank) as usize;
        let base = random_shape(&mut rng, rank);
        let n = 1 + rng.below(4);
        let inputs: Vec<InputArg> = (0..n)
            .map(|_| {
                let mut shape = base.clone();
                shape[axis] = rng.below(4);
                random_tensor(&mut rng, dtype, &shape).into()
            })
            .collect();
        let op = if dtype == DType::I4 { "openvino.concat" } else { *rng.pick(&["onnx.concat", "openvino.concat"]) };
        let axis = if rng.chance(50) { axis as i64 - rank as i64 } else { axis as i64 };
        check(&Request::new(op).input_list("inputs", inputs).attr("axis", axis));
    }
}

#[test]
fn random_splits_equal_the_reference() {
    let mut rng = Rng::new(0x7370_6c74);
    for _ in 0..150 {
        let dtype = *rng.pick(&DTYPES[..DTYPES.len() - 1]);
        let rank = 1 + rng.below(4);
        let axis = rng.below(rank) as usize;
        let mut shape = random_shape(&mut rng, rank);
        shape[axis] = rng.below(9);
        let mut sizes = Vec::new();
        let mut left = shape[axis] as i64;
        while left > 0 || sizes.is_empty() {
            let s = rng.range(0, left);
            sizes.push(s);
            left -= s;
        }
        let input = random_tensor(&mut rng, dtype, &shape);
        let request = Request::new("onnx.split").input("input", input).input("split", Tensor::from_i64s(&sizes));
        check(&request.attr("axis", axis as i64));
    }
}

#[test]
fn a_program_kernel_checks_every_buffer_before_running() {
    let request = Request::new("onnx.split")
        .input("input", Tensor::from_i64s(&[1, 2, 3]))
        .input("split", Tensor::from_i64s(&[1, 2]));
    let program = kerfx::lower_program(&request).unwrap();
    let kernel = jit().compile_program(&program, false).unwrap();
    let input = [0u8; 24];
    let (mut a, mut b) = ([7u8; 8], [7u8; 16]);
    let mut short = [7u8; 8];
    let e = kernel.run_buffers(&[&input], &mut [&mut a, &mut short]).unwrap_err().to_string();
    assert!(e.contains("program output 1"), "{e}");
    assert_eq!((a, short), ([7; 8], [7; 8]), "nothing is written before every buffer is checked");
    let e = kernel.run_buffers(&[&input[..16]], &mut [&mut a, &mut b]).unwrap_err().to_string();
    assert!(e.contains("program input 0"), "{e}");
    let e = kernel.run_buffers(&[], &mut [&mut a, &mut b]).unwrap_err().to_string();
    assert!(e.contains("program inputs"), "{e}");
    kernel.run_buffers(&[&input], &mut [&mut a, &mut b]).unwrap();
    assert_eq!((a, b), ([0; 8], [0; 16]));
}

#[test]
fn a_program_compiles_once_and_is_cached() {
    let jit = kerfx::Jit::default();
    let request = Request::new("onnx.concat")
        .input_list("inputs", vec![Tensor::from_i64s(&[1, 2]).into(), Tensor::from_i64s(&[3]).into()])
        .attr("axis", 0);
    let program = kerfx::lower_program(&request).unwrap();
    for dynamic in [false, true] {
        let a = jit.compile_program(&program, dynamic).unwrap();
        let b = jit.compile_program(&program.clone(), dynamic).unwrap();
        assert!(std::sync::Arc::ptr_eq(&a, &b), "dynamic {dynamic}: compiled twice");
    }
    let other = kerfx::lower_program(&request.attr("axis", -1)).unwrap();
    assert_eq!(other, program, "axis -1 of vectors is axis 0: the same program");
}

/// A concat on an inner axis whose pieces of each output row are 32 bytes to 16 KiB runs
/// as one interleaving pass over its output (kerfx-jit's `interleave`): cached and
/// streamed (8 MiB and more, rows shorter and longer than the staging buffer), on one
/// thread and two, equal to the reference byte for byte.
#[test]
fn interleaved_concats_equal_the_reference() {
    let mut rng = Rng::new(0x696c_7663);
    let two = kerfx::Jit::new(kerfx::JitSettings { threads: 2, ..Default::default() }).unwrap();
    let cases: [(DType, &[u64], usize, &[u64]); 6] = [
        // (dtype, shape of input 0, axis, each input's extent on the axis)
        (DType::F32, &[3, 5, 16], 2, &[16, 24, 8]),
        (DType::U8, &[7, 40], 1, &[40, 32]),
        (DType::F64, &[2, 3, 4, 5], 2, &[4, 1, 7]),
        (DType::C128, &[9, 2, 3], 1, &[2, 5]),
        // Streamed: 8 MiB of 512-byte rows (staged), and of 16 KiB rows (piece by piece).
        (DType::U8, &[16384, 256], 1, &[256, 256]),
        (DType::U8, &[512, 8192], 1, &[8192, 8192]),
    ];
    for (dtype, shape, axis, extents) in cases {
        let inputs: Vec<InputArg> = extents
            .iter()
            .map(|&e| {
                let mut s = shape.to_vec();
                s[axis] = e;
                random_tensor(&mut rng, dtype, &s).into()
            })
            .collect();
        let request = Request::new("onnx.concat").input_list("inputs", inputs).attr("axis", axis as i64);
        check(&request);
        let reference = kerfx::run_reference_outputs(&request).unwrap();
        assert!(kerfx::run_jit_outputs(&two, &request, false).unwrap() == reference, "two threads: {request:?}");
    }
}
