//! Gathers on dynamic kernels: the indices are per-call values — one kernel, compiled for
//! one gather, runs every gather of its kind (op, dtype, rank), each call's indices
//! checked and planned on the host, its output the reference's bit for bit.

use kerfx_ir::reference::evaluate;
use kerfx_ir::{DType, Plan, Request, Tensor};
use kerfx_jit::{Jit, JitSettings, Options, Views};

fn data() -> Tensor {
    let values: Vec<u8> = (0..50 * 8).flat_map(|i| (i as f32).to_le_bytes()).collect();
    Tensor::from_bytes(DType::F32, &[50, 8], &values).unwrap()
}

fn lowered(request: &Request) -> Plan {
    kerfx_ir::lower(request).unwrap()
}

fn onnx(indices: &[i64]) -> Plan {
    lowered(
        &Request::new("onnx.gather")
            .input_meta("data", DType::F32, &[50, 8])
            .input("indices", Tensor::from_i64s(indices)),
    )
}

fn openvino_8(indices: &[i64]) -> Plan {
    lowered(
        &Request::new("openvino.gather")
            .version(8)
            .input_meta("data", DType::F32, &[50, 8])
            .input("indices", Tensor::from_i64s(indices))
            .input("axis", Tensor::from_i64s(&[0]).reshaped(&[]).unwrap()),
    )
}

fn check(kernel: &kerfx_jit::JitKernel, plan: &Plan) {
    let data = data();
    let want = evaluate(plan, Some(data.view())).unwrap();
    let mut got = vec![0xa5u8; want.bytes().unwrap().len()];
    kernel.run(plan, Views::DENSE, Some(data.bytes().unwrap()), &mut got).unwrap();
    assert_eq!(got, want.bytes().unwrap(), "{plan}");
}

#[test]
fn one_dynamic_kernel_runs_every_gather_of_its_kind() {
    let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 16 }).unwrap();
    let kernel = jit.compile(&onnx(&[3, 1, 4]), &Options::DYNAMIC).unwrap();
    // Runs (segments), many runs (a table), one index, none, negative ones.
    let many: Vec<i64> = (0..40).map(|i| (i * 37 + 11) % 50).collect();
    for indices in [&[7][..], &many, &[], &[-1, -50, 0, 49], &[5, 6, 7, 8]] {
        check(&kernel, &onnx(indices));
    }
    // OpenVINO Gather-8 plans in fill mode whatever the indices: in range or not, one kernel.
    let kernel = jit.compile(&openvino_8(&[0, 1]), &Options::DYNAMIC).unwrap();
    let wild: Vec<i64> = (0..40).map(|i| (i * 37 + 11) % 130 - 65).collect();
    for indices in [&[2, 3][..], &many, &wild, &[50, -51, i64::MAX, i64::MIN]] {
        check(&kernel, &openvino_8(indices));
    }
    // A gather of another kind is refused, not run.
    let transpose = lowered(&Request::new("onnx.transpose").input_meta("data", DType::F32, &[50, 8]));
    let mut out = vec![0u8; 50 * 8 * 4];
    assert!(kernel.run(&transpose, Views::DENSE, Some(data().bytes().unwrap()), &mut out).is_err());
}
