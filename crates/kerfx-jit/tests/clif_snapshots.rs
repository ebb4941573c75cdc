//! The Cranelift IR of a fixed matrix of kernels, pinned: every boundary mode × element
//! width class (1, 2, 4, 8, 16 bytes, packed nibbles) × static/dynamic, plus the fill ops.
//! Function names are stable and the calling convention explicit (system_v), so the text
//! is the same on every x86-64 host. With CI=true a changed snapshot fails.

use kerfx_ir::{BoundaryMode, DType, FillKind, FillPlan, Linspace, Plan, Step};
use kerfx_jit::{Jit, JitSettings, Options};
use kerfx_testkit::plans::slice_plan;

fn jit() -> Jit {
    Jit::new(JitSettings { threads: 1, cache_capacity: 16 }).unwrap()
}

fn plan(dtype: DType, mode: BoundaryMode) -> Step {
    // A 2-D slice with borders on both axes (in bounds for strict_bounds).
    let axes: &[(u64, i64, i64)] =
        if mode == BoundaryMode::StrictBounds { &[(3, 1, 1), (4, 5, -1)] } else { &[(4, -1, 1), (9, -2, 1)] };
    let fill_bits =
        if mode == BoundaryMode::Fill { 0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10 & mask(dtype) } else { 0 };
    Step { fill_bits, ..slice_plan(dtype, &[5, 7], axes, mode) }
}

fn mask(dtype: DType) -> u128 {
    match dtype.byte_width() {
        Some(16) => u128::MAX,
        Some(w) => (1u128 << (8 * w)) - 1,
        None => 15,
    }
}

#[test]
fn slice_kernels() {
    let jit = jit();
    for mode in BoundaryMode::ALL {
        for dtype in [DType::U8, DType::F16, DType::F32, DType::F64, DType::C128, DType::I4] {
            let p = Plan::Step(plan(dtype, mode));
            let k = jit.compile(&p, &Options::STATIC).unwrap();
            insta::assert_snapshot!(format!("static_{mode}_{dtype}"), k.clif());
            let d = jit.compile(&p, &Options::DYNAMIC).unwrap();
            insta::assert_snapshot!(format!("dynamic_{mode}_{dtype}"), d.clif());
        }
    }
}

#[test]
fn slice_special_runs() {
    let jit = jit();
    let one = |dtype, d: u64, n: u64, start: i64, step: i64| {
        Plan::Step(slice_plan(dtype, &[d], &[(n, start, step)], BoundaryMode::StrictBounds))
    };
    for (name, p) in [
        ("copy_memcpy_f32", one(DType::F32, 4096, 2048, 1024, 1)),
        ("reverse_f32", one(DType::F32, 4096, 4096, 4095, -1)),
        ("stride2_f32", one(DType::F32, 4096, 2048, 0, 2)),
        // 8 MiB out: streamed, a call of the host's stride-2 copy.
        ("stride2_f32_streamed", one(DType::F32, 1 << 22, 1 << 21, 0, 2)),
        ("stride3_u16", one(DType::U16, 100, 30, 2, 3)),
        ("broadcast_f64", one(DType::F64, 10, 40, 3, 0)),
        ("nibble_shift", one(DType::I4, 4096, 4095, 1, 1)),
    ] {
        insta::assert_snapshot!(format!("static_{name}"), jit.compile(&p, &Options::STATIC).unwrap().clif());
    }
}

/// Repeating dims (one period, then copies of it; nibbles: a loop over repetitions) and
/// a dim looped over its segment descriptors.
#[test]
fn slice_repeating_and_looped_dims() {
    let jit = jit();
    let plan = |dtype, mode, shape: &[u64], axes: &[(u64, i64, i64)]| Plan::Step(slice_plan(dtype, shape, axes, mode));
    for (name, p) in [
        ("wrap_repeat_u8", plan(DType::U8, BoundaryMode::Wrap, &[3], &[(1000, 0, 1)])),
        ("reflect_repeat_rows_f32", plan(DType::F32, BoundaryMode::Reflect, &[3, 50], &[(100, -1, 1), (20, 3, 1)])),
        ("wrap_repeat_i4", plan(DType::I4, BoundaryMode::Wrap, &[3], &[(1001, 0, 1)])),
        ("wrap_repeat_table_u16", plan(DType::U16, BoundaryMode::Wrap, &[100], &[(1000, 0, 33)])),
        (
            "clamp_looped_u8",
            plan(DType::U8, BoundaryMode::Clamp, &[4, 4, 4, 4], &[(9, -2, 1), (9, -2, 1), (9, -2, 1), (9, -2, 1)]),
        ),
    ] {
        insta::assert_snapshot!(format!("static_{name}"), jit.compile(&p, &Options::STATIC).unwrap().clif());
    }
}

#[test]
fn fill_kernels() {
    let jit = jit();
    let fill = |dtype, shape: &[u64], kind| Plan::Fill(FillPlan { dtype, shape: shape.to_vec(), kind });
    for (name, p) in [
        (
            "linspace_f32_exact",
            fill(DType::F32, &[64, 64], FillKind::Linspace(Linspace::Float { alpha: 0.0, beta: vec![64.0, 1.0] })),
        ),
        (
            "linspace_f32_f64",
            fill(DType::F32, &[3, 5], FillKind::Linspace(Linspace::Float { alpha: 0.1, beta: vec![0.3, 0.7] })),
        ),
        ("linspace_i32", fill(DType::I32, &[3, 5], FillKind::Linspace(Linspace::Int { alpha: -4, beta: vec![7, 2] }))),
        (
            "linspace_i64",
            fill(DType::I64, &[3, 5], FillKind::Linspace(Linspace::Int { alpha: 1 << 40, beta: vec![5, 1] })),
        ),
        ("random_uniform_f32", fill(DType::F32, &[100], FillKind::RandomUniform { alpha: -1.0, beta: 1.0, seed: 7 })),
        ("random_uniform_f16", fill(DType::F16, &[100], FillKind::RandomUniform { alpha: -1.0, beta: 1.0, seed: 7 })),
        ("random_normal_f32", fill(DType::F32, &[100], FillKind::RandomNormal { alpha: 0.0, beta: 1.0, seed: 7 })),
        ("random_normal_f16", fill(DType::F16, &[100], FillKind::RandomNormal { alpha: 0.0, beta: 1.0, seed: 7 })),
    ] {
        insta::assert_snapshot!(format!("static_{name}"), jit.compile(&p, &Options::STATIC).unwrap().clif());
        insta::assert_snapshot!(format!("dynamic_{name}"), jit.compile(&p, &Options::DYNAMIC).unwrap().clif());
    }
}

/// The axis ops' kernels, from their requests: a transpose that moves the innermost axis,
/// the attention head split (rows stay whole), DepthToSpace CRD, an expand (a broadcast
/// dim) and a tile (a repeating dim); and the Swin window partition fused from its
/// Reshape → Transpose → Reshape chain into one kernel. Each with its loop nest.
#[test]
fn axis_op_kernels() {
    use kerfx_ir::chain::{ChainRequest, lower_chain};
    use kerfx_ir::map::compose;
    use kerfx_ir::{Request, Tensor};
    let jit = jit();
    let ints = |v: &[i64]| Tensor::from_i64s(v);
    let op = |op: &str, name: &str, shape: &[u64]| Request::new(op).version(13).input_meta(name, DType::F32, shape);
    for (name, request) in [
        ("transpose_2d", op("onnx.transpose", "data", &[64, 48])),
        ("head_split", op("onnx.transpose", "data", &[2, 16, 4, 32]).attr("perm", [0, 2, 1, 3])),
        (
            "depth_to_space_crd",
            op("onnx.depth_to_space", "input", &[1, 8, 4, 6]).attr("blocksize", 2).attr("mode", "CRD"),
        ),
        ("expand", op("onnx.expand", "input", &[4, 1, 32]).input("shape", ints(&[4, 3, 32]))),
        ("tile", op("onnx.tile", "input", &[3, 5]).input("repeats", ints(&[2, 3]))),
        // Rows by constant indices: more runs than segments, so a table of row offsets.
        (
            "gather_rows",
            op("onnx.gather", "data", &[16, 32])
                .input("indices", ints(&[3, 11, 0, 14, 9, 9, 1, 15, 4, 2, 12, 7, 5, 13, 8, 6, 10, 0])),
        ),
        // Consecutive columns: one run, a row copy.
        ("gather_columns", op("onnx.gather", "data", &[16, 32]).attr("axis", 1).input("indices", ints(&[4, 5, 6, 7]))),
        (
            "gather_elements",
            op("onnx.gather_elements", "data", &[4, 3])
                .input("indices", ints(&[3, 0, 1, 2, 2, 0]).reshaped(&[2, 3]).unwrap()),
        ),
    ] {
        let plan = kerfx_ir::lower(&request).unwrap();
        let nest = kerfx_ir::schedule::schedule(&plan).unwrap();
        insta::assert_snapshot!(format!("nest_{name}"), nest.to_string());
        insta::assert_snapshot!(format!("static_{name}"), jit.compile(&plan, &Options::STATIC).unwrap().clif());
    }
    let window = ChainRequest {
        steps: vec![
            op("onnx.reshape", "data", &[2, 8, 8, 3]).input("shape", ints(&[2, 2, 4, 2, 4, 3])),
            Request::new("onnx.transpose").version(13).attr("perm", [0, 1, 3, 2, 4, 5]),
            Request::new("onnx.reshape").version(13).input("shape", ints(&[-1, 4, 4, 3])),
        ],
    };
    let fused = compose(&lower_chain(&window).unwrap()).unwrap();
    let nest = kerfx_ir::schedule::map_nest(&fused).unwrap();
    insta::assert_snapshot!("nest_window_partition", nest.to_string());
    insta::assert_snapshot!("chain_window_partition", jit.compile(&fused, &Options::STATIC).unwrap().clif());
}
