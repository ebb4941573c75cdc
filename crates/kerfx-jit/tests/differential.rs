//! Differential tests: the JIT (static and dynamic kernels) against the reference
//! interpreter on random plans of every op, mode, element width and rank 0..6, with empty
//! tensors, zero and negative strides and starts far outside the input.

use kerfx_ir::plan::{AxisRead, Window};
use kerfx_ir::schedule::Run;
use kerfx_ir::tensor::{TensorView, ViewData};
use kerfx_ir::{BoundaryMode, DType, FillKind, FillPlan, Kernel, Linspace, Plan, Request, Step, Tensor, reference};
use kerfx_jit::{Jit, JitSettings, Options, Views};
use proptest::prelude::*;
use std::sync::{Arc, OnceLock};

fn jit() -> &'static Jit {
    static JIT: OnceLock<Jit> = OnceLock::new();
    JIT.get_or_init(|| Jit::new(JitSettings { threads: 1, cache_capacity: 64 }).unwrap())
}

fn jit_threads() -> &'static Jit {
    static JIT: OnceLock<Jit> = OnceLock::new();
    JIT.get_or_init(|| Jit::new(JitSettings { threads: 3, cache_capacity: 64 }).unwrap())
}

const DTYPES: [DType; 10] = [
    DType::Bool,
    DType::I4,
    DType::U4,
    DType::U8,
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::I64,
    DType::C64,
    DType::C128,
];

fn bytes_of(dtype: DType, n: u64, seed: u64) -> Vec<u8> {
    let len = dtype.buffer_bytes(n).unwrap();
    let mut v = vec![0u8; len];
    kerfx_testkit::random::Rng::new(seed).fill_bytes(&mut v);
    if dtype.layout() == kerfx_ir::dtype::Layout::Nibbles
        && n % 2 == 1
        && let Some(b) = v.last_mut()
    {
        *b &= 0x0f;
    }
    v
}

/// Reference output bytes of a plan.
fn expected(plan: &Plan, input: Option<(&Step, &[u8])>) -> Vec<u8> {
    let t = match input {
        Some((p, bytes)) => {
            let view = TensorView { dtype: p.dtype, shape: &p.input_shape, data: ViewData::Bytes(bytes) };
            reference::evaluate(plan, Some(view)).unwrap()
        }
        None => reference::evaluate(plan, None).unwrap(),
    };
    t.bytes().unwrap().to_vec()
}

fn run(kernel: &Arc<kerfx_jit::JitKernel>, plan: &Plan, input: Option<&[u8]>, out_len: usize) -> Vec<u8> {
    let mut out = vec![0xa5u8; out_len];
    if kernel.is_dynamic() {
        kernel.run(plan, Views::DENSE, input, &mut out).unwrap();
    } else {
        kernel.run_bytes(input, &mut out).unwrap();
    }
    out
}

/// Check a slice plan through static, dynamic and threaded kernels.
fn check_slice(plan: &Step, seed: u64) -> Result<(), TestCaseError> {
    let input = bytes_of(plan.dtype, plan.input_len(), seed);
    let p = Plan::Step(plan.clone());
    let want = expected(&p, Some((plan, &input)));
    let k = jit().compile(&p, &Options::STATIC).unwrap();
    prop_assert_eq!(&run(&k, &p, Some(&input), want.len()), &want, "static\n{}\n{}", p, k.clif());
    let d = jit().compile(&p, &Options::DYNAMIC).unwrap();
    prop_assert_eq!(&run(&d, &p, Some(&input), want.len()), &want, "dynamic\n{}", p);
    let mut out = vec![0x5au8; want.len()];
    d.run_bytes(Some(&input), &mut out).unwrap();
    prop_assert_eq!(&out, &want, "dynamic run_bytes\n{}", p);
    let t = jit_threads().compile(&p, &Options::STATIC).unwrap();
    prop_assert_eq!(&run(&t, &p, Some(&input), want.len()), &want, "threads\n{}", p);
    Ok(())
}

fn check_fill(plan: &FillPlan) -> Result<(), TestCaseError> {
    let p = Plan::Fill(plan.clone());
    let want = expected(&p, None);
    for (what, k) in [
        ("static", jit().compile(&p, &Options::STATIC).unwrap()),
        ("dynamic", jit().compile(&p, &Options::DYNAMIC).unwrap()),
        ("threads", jit_threads().compile(&p, &Options::STATIC).unwrap()),
    ] {
        let got = run(&k, &p, None, want.len());
        prop_assert_eq!(&got, &want, "{}\n{}", what, p);
    }
    Ok(())
}

/// An axis: (input extent, output extent, start, step), in bounds for strict_bounds.
fn axis(mode: BoundaryMode) -> impl Strategy<Value = (u64, AxisRead)> {
    let far = prop_oneof![4 => -12i64..12, 1 => -100_000i64..100_000, 1 => Just(i64::MIN / 4), 1 => Just(i64::MAX / 4)];
    let step = prop_oneof![6 => -3i64..4, 1 => -40i64..40, 1 => Just(1i64)];
    // Long axes over short inputs repeat (wrap, reflect): one period of segments or a table.
    let n = prop_oneof![6 => 0u64..7, 1 => 7u64..60];
    (0u64..6, n, far, step).prop_map(move |(d, n, start, step)| {
        if mode == BoundaryMode::StrictBounds {
            if d == 0 {
                return (0, AxisRead { extent: 0, start: 0, step: 1 });
            }
            let start = start.rem_euclid(d as i64);
            let step = step.clamp(-(d as i64), d as i64);
            let room = if step > 0 {
                (d as i64 - 1 - start) / step + 1
            } else if step < 0 {
                start / -step + 1
            } else {
                i64::MAX
            };
            (d, AxisRead { extent: n.min(room as u64), start, step })
        } else {
            // Keep start + step·(n−1) within i64 (the frontends guarantee it).
            let start = start.clamp(i64::MIN / 2, i64::MAX / 2);
            let n = if d == 0 && mode != BoundaryMode::Fill { 0 } else { n };
            (d, AxisRead { extent: n, start, step })
        }
    })
}

/// A window of an axis of extent d (a pad that crops first): inside the axis, and not
/// empty where a mode other than fill reads it.
fn window(d: u64, n: u64, mode: BoundaryMode, (a, b): (u64, u64)) -> Window {
    let lo = a % (d + 1);
    let len = b % (d - lo + 1);
    if len == 0 && n > 0 && mode != BoundaryMode::Fill && d > 0 {
        return Window { lo: lo.min(d - 1), len: 1 };
    }
    Window { lo, len }
}

fn slice_plan() -> impl Strategy<Value = Step> {
    let mode = prop::sample::select(BoundaryMode::ALL.to_vec());
    (mode, prop::sample::select(DTYPES.to_vec()), any::<u128>(), 0usize..7).prop_flat_map(plan_of_rank)
}

/// Ranks up to 70 whose axes are mostly of extent 1 (dropped by the schedule, but still
/// the dynamic kernel's depth), among them a few real ones.
fn high_rank_plan() -> impl Strategy<Value = Step> {
    let mode = prop::sample::select(BoundaryMode::ALL.to_vec());
    (mode, prop::sample::select(DTYPES.to_vec()), any::<u128>(), 7usize..70).prop_flat_map(
        |(mode, dtype, fill, rank)| {
            let unit = (1u64..4, 0u64..3).prop_map(move |(d, start)| {
                let start = if mode == BoundaryMode::StrictBounds { start.min(d - 1) } else { start };
                (d, AxisRead { extent: 1, start: start as i64, step: 1 })
            });
            let axes = prop::collection::vec(prop_oneof![6 => unit.boxed(), 1 => axis(mode).boxed()], rank);
            axes.prop_map(move |mut axes| {
                // Keep inputs small: unit axes over inputs of extent 1 from the outermost on,
                // then whole axes made unit ones.
                // (sizes other than 0: an empty axis leaves the others' strides to fit)
                let volume = |axes: &[(u64, AxisRead)]| axes.iter().map(|a| a.0.max(1) as u128).product::<u128>();
                for unit_only in [true, false] {
                    for k in 0..axes.len() {
                        if volume(&axes) <= 1 << 16 {
                            break;
                        }
                        if !unit_only || axes[k].1.extent <= 1 {
                            axes[k] = (1, AxisRead { extent: axes[k].1.extent.min(1), start: 0, step: 1 });
                        }
                    }
                }
                finish_plan(mode, dtype, fill, axes)
            })
        },
    )
}

fn plan_of_rank((mode, dtype, fill, rank): (BoundaryMode, DType, u128, usize)) -> impl Strategy<Value = Step> {
    let windows = prop::option::weighted(0.3, prop::collection::vec(any::<(u64, u64)>(), rank));
    (prop::collection::vec(axis(mode), rank), windows).prop_map(move |(axes, windows)| {
        let mut plan = finish_plan(mode, dtype, fill, axes);
        // Windows (what onnx.pad's crops give) for the modes that read around them.
        if let Some(w) = windows.filter(|_| mode != BoundaryMode::StrictBounds) {
            plan.windows = plan
                .input_shape
                .iter()
                .zip(&plan.axes)
                .zip(w)
                .map(|((&d, a), r)| window(d, a.extent, mode, r))
                .collect();
        }
        plan
    })
}

fn finish_plan(mode: BoundaryMode, dtype: DType, fill: u128, axes: Vec<(u64, AxisRead)>) -> Step {
    let fill_bits = if mode != BoundaryMode::Fill {
        0
    } else {
        match dtype.layout() {
            kerfx_ir::dtype::Layout::Bytes(16) => fill,
            _ if dtype == DType::Bool => fill & 1,
            kerfx_ir::dtype::Layout::Bytes(w) => fill & ((1u128 << (8 * w)) - 1),
            _ => fill & 15,
        }
    };
    let mut plan = Step {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype,
        input_shape: axes.iter().map(|a| a.0).collect(),
        axes: axes.iter().map(|a| a.1).collect(),
        mode,
        fill_bits,
        output_shape: axes.iter().map(|a| a.1.extent).collect(),
        windows: Vec::new(),
        gathered: None,
    };
    // Keep outputs small.
    while plan.output_len() > 4096 {
        let k = plan.axes.iter().enumerate().max_by_key(|a| a.1.extent).unwrap().0;
        plan.axes[k].extent /= 2;
        plan.output_shape[k] = plan.axes[k].extent;
    }
    plan
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn random_slice_plans(plan in slice_plan(), seed in any::<u64>()) {
        check_slice(&plan, seed)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn high_rank_slice_plans(plan in high_rank_plan(), seed in any::<u64>()) {
        check_slice(&plan, seed)?;
    }
}

/// Rows wide enough to take the vector, memcpy and threaded paths.
fn wide_plan() -> impl Strategy<Value = Step> {
    let mode = prop::sample::select(BoundaryMode::ALL.to_vec());
    (
        mode,
        prop::sample::select(DTYPES.to_vec()),
        1u64..5,
        1u64..700,
        -40i64..40,
        prop::sample::select(vec![1i64, -1, 2, -2, 0, 3]),
        1u64..800,
    )
        .prop_map(|(mode, dtype, rows, d, start, step, n)| {
            let (start, n) = if mode == BoundaryMode::StrictBounds {
                let start = start.rem_euclid(d as i64);
                let room = if step > 0 {
                    (d as i64 - 1 - start) / step + 1
                } else if step < 0 {
                    start / -step + 1
                } else {
                    n as i64
                };
                (start, n.min(room as u64))
            } else {
                (start, n)
            };
            Step {
                source_shape: Vec::new(),
                order: Vec::new(),
                dtype,
                input_shape: vec![rows, d],
                axes: vec![AxisRead { extent: rows, start: 0, step: 1 }, AxisRead { extent: n, start, step }],
                mode,
                fill_bits: if mode == BoundaryMode::Fill { if dtype == DType::Bool { 1 } else { 0x0b } } else { 0 },
                output_shape: vec![rows, n],
                windows: Vec::new(),
                gathered: None,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn wide_slice_plans(plan in wide_plan(), seed in any::<u64>()) {
        check_slice(&plan, seed)?;
    }
}

fn fill_plan() -> impl Strategy<Value = FillPlan> {
    let shape = prop::collection::vec(0u64..9, 0..4);
    let alpha = prop_oneof![Just(0.0f64), -50.0f64..50.0, (-100i64..100).prop_map(|v| v as f64 * 0.25)];
    let coef = prop_oneof![
        (-20i64..20).prop_map(|v| v as f64),
        -3.0f64..3.0,
        Just(0.1f64),
        (-8i64..8).prop_map(|v| v as f64 * 0.125)
    ];
    (shape, alpha, prop::collection::vec(coef, 4), 0u8..6, any::<u64>(), -10.0f32..10.0, 0.0f32..5.0).prop_map(
        |(shape, alpha, coefs, which, seed, a, b)| {
            let rank = shape.len();
            let (dtype, kind) = match which {
                0 => (DType::F32, FillKind::Linspace(Linspace::Float { alpha, beta: coefs[..rank].to_vec() })),
                1 => (
                    DType::I32,
                    FillKind::Linspace(Linspace::Int {
                        alpha: alpha as i64,
                        beta: coefs[..rank].iter().map(|&c| c as i64).collect(),
                    }),
                ),
                2 => (
                    DType::I64,
                    FillKind::Linspace(Linspace::Int {
                        alpha: alpha as i64 - (1 << 40),
                        beta: coefs[..rank].iter().map(|&c| c as i64 * 1000).collect(),
                    }),
                ),
                3 => (DType::F32, FillKind::RandomUniform { alpha: a, beta: a + b + 1e-3, seed }),
                4 => (
                    if seed % 2 == 0 { DType::F16 } else { DType::F32 },
                    FillKind::RandomNormal { alpha: a, beta: b, seed },
                ),
                _ => (DType::F16, FillKind::RandomUniform { alpha: a, beta: a + b + 1e-3, seed }),
            };
            FillPlan { dtype, shape, kind }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_fill_plans(plan in fill_plan()) {
        check_fill(&plan)?;
    }
}

#[test]
fn large_random_fills_match_bit_for_bit() {
    for (dtype, normal) in [(DType::F32, false), (DType::F32, true), (DType::F16, false), (DType::F16, true)] {
        let kind = if normal {
            FillKind::RandomNormal { alpha: 0.5, beta: 3.0, seed: 0xDEAD_BEEF_1234 }
        } else {
            FillKind::RandomUniform { alpha: -2.0, beta: 7.0, seed: 99 }
        };
        check_fill(&FillPlan { dtype, shape: vec![517, 1031], kind }).unwrap();
    }
    // A tiny range: rounding up to beta must be nudged below it.
    let beta = 1.0f32.next_up();
    check_fill(&FillPlan {
        dtype: DType::F32,
        shape: vec![300_001],
        kind: FillKind::RandomUniform { alpha: 1.0, beta, seed: 5 },
    })
    .unwrap();
    check_fill(&FillPlan {
        dtype: DType::F16,
        shape: vec![100_003],
        kind: FillKind::RandomUniform { alpha: 60000.0, beta: 65504.0, seed: 5 },
    })
    .unwrap();
    check_fill(&FillPlan {
        dtype: DType::F16,
        shape: vec![100_003],
        kind: FillKind::RandomNormal { alpha: 0.0, beta: 1e-6, seed: 5 },
    })
    .unwrap();
}

/// Numbers a static kernel folds (a power-of-two range, alpha ±0, beta 1, a range that
/// can never reach beta) and their near misses, against the reference.
#[test]
fn random_fills_with_foldable_numbers() {
    let uniform = [
        (0.0f32, 1.0f32),
        (-0.0, 1.0),
        (-1.0, 1.0),
        (0.0, 0.5),
        (0.0, 2f32.powi(-90)),
        (-0.0, -4.0),
        (0.0, -4.0),
        (3.0, 7.0),
        (1.0, 1.0f32.next_up()),
        (0.0, 1.0f32.next_up()),
        (0.0, 1.0f32.next_down()),
        (1e-30, 1.0),
        (-3.0e38, 3.0e38),
        (5.0, 5.0),
    ];
    for (alpha, beta) in uniform {
        for dtype in [DType::F32, DType::F16] {
            let kind = FillKind::RandomUniform { alpha, beta, seed: 3 };
            check_fill(&FillPlan { dtype, shape: vec![4099], kind }).unwrap();
        }
    }
    for (alpha, beta) in [(0.0f32, 1.0f32), (-0.0, 1.0), (-0.0, 2.0), (2.0, 1.0), (0.0, -1.0)] {
        for dtype in [DType::F32, DType::F16] {
            let kind = FillKind::RandomNormal { alpha, beta, seed: 11 };
            check_fill(&FillPlan { dtype, shape: vec![4099], kind }).unwrap();
        }
    }
}

#[test]
fn large_linspaces_match() {
    for (alpha, beta) in [(0.0, vec![4096.0, 1.0]), (0.5, vec![0.1, 0.3]), (-3.0, vec![-0.25, 2.0])] {
        check_fill(&FillPlan {
            dtype: DType::F32,
            shape: vec![257, 1029],
            kind: FillKind::Linspace(Linspace::Float { alpha, beta }),
        })
        .unwrap();
    }
    // 8 MiB and more: written through non-temporal stores, in chunks; odd row lengths
    // leave the chunks unaligned.
    check_fill(&FillPlan {
        dtype: DType::F32,
        shape: vec![1025, 2049],
        kind: FillKind::Linspace(Linspace::Float { alpha: -3.0, beta: vec![2049.0, 1.0] }),
    })
    .unwrap();
    check_fill(&FillPlan {
        dtype: DType::F32,
        shape: vec![2_100_003],
        kind: FillKind::Linspace(Linspace::Float { alpha: 0.5, beta: vec![0.25] }),
    })
    .unwrap();
    check_fill(&FillPlan {
        dtype: DType::I64,
        shape: vec![3, 350_001],
        kind: FillKind::Linspace(Linspace::Int { alpha: 1 << 40, beta: vec![-7, 3] }),
    })
    .unwrap();
    check_fill(&FillPlan {
        dtype: DType::I32,
        shape: vec![300, 1001],
        kind: FillKind::Linspace(Linspace::Int { alpha: -7, beta: vec![1001, 1] }),
    })
    .unwrap();
}

// ----- through requests and the frontends -----------------------------------------------

fn i64s(v: &[i64]) -> Tensor {
    Tensor::from_i64s(v)
}

fn check_request(request: &Request, seed: u64) -> Result<(), TestCaseError> {
    let plan = match kerfx_ir::lower(request) {
        Ok(p) => p,
        Err(_) => return Ok(()), // invalid requests are the frontends' business
    };
    match &plan {
        Plan::Step(p) => {
            check_slice(p, seed)?;
            let input = bytes_of(p.dtype, p.input_len(), seed);
            let k = jit().compile(request, &Options::STATIC).unwrap();
            let want = expected(&plan, Some((p, &input)));
            prop_assert_eq!(run(&k, &plan, Some(&input), want.len()), want);
        }
        Plan::Fill(p) => check_fill(p)?,
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 800, ..ProptestConfig::default() })]

    /// The test kit's random requests (every op, mode and version form; static and runtime
    /// parameters) through the frontends, then the JIT against the reference.
    #[test]
    fn random_requests(request_seed in any::<u64>(), seed in any::<u64>()) {
        let request = kerfx_testkit::random::random_request(&mut kerfx_testkit::random::Rng::new(request_seed));
        check_request(&request, seed)?;
    }
}

#[test]
fn one_dynamic_kernel_runs_many_shapes() {
    let first = Step {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype: DType::F32,
        input_shape: vec![4, 5],
        axes: vec![AxisRead { extent: 6, start: -1, step: 1 }, AxisRead { extent: 7, start: -2, step: 1 }],
        mode: BoundaryMode::Reflect,
        fill_bits: 0,
        output_shape: vec![6, 7],
        windows: Vec::new(),
        gathered: None,
    };
    let k = jit().compile(&Plan::Step(first), &Options::DYNAMIC).unwrap();
    let clif = k.clif().to_string();
    for (d0, d1, n0, n1, s0, s1) in
        [(3u64, 9u64, 10u64, 2u64, -7i64, 4i64), (1, 1, 3, 3, 0, -1), (9, 2, 0, 5, 3, 3), (5, 5, 12, 40, -20, -3)]
    {
        let p = Step {
            source_shape: Vec::new(),
            order: Vec::new(),
            dtype: DType::F32,
            input_shape: vec![d0, d1],
            axes: vec![AxisRead { extent: n0, start: s0, step: 1 }, AxisRead { extent: n1, start: s1, step: -1 }],
            mode: BoundaryMode::Reflect,
            fill_bits: 0,
            output_shape: vec![n0, n1],
            windows: Vec::new(),
            gathered: None,
        };
        let input = bytes_of(DType::F32, p.input_len(), 3);
        let want = expected(&Plan::Step(p.clone()), Some((&p, &input)));
        let mut out = vec![0u8; want.len()];
        k.run(&p, Views::DENSE, Some(&input), &mut out).unwrap();
        assert_eq!(out, want);
    }
    // Same code: no recompilation.
    assert_eq!(k.clif(), clif);
    // The kernel is specialized on the map's kind, not the mode: a wrap plan (whose axes
    // repeat as reflect's do) runs on it too, exactly.
    let wrap = kerfx_testkit::plans::slice_plan(DType::F32, &[2, 3], &[(5, -1, 1), (7, 2, -1)], BoundaryMode::Wrap);
    let input = bytes_of(DType::F32, wrap.input_len(), 5);
    let want = expected(&Plan::Step(wrap.clone()), Some((&wrap, &input)));
    let mut out = vec![0u8; want.len()];
    k.run(&wrap, Views::DENSE, Some(&input), &mut out).unwrap();
    assert_eq!(out, want);
    // A map of another kind (one that fills) is refused.
    let other = kerfx_testkit::plans::slice_plan(DType::F32, &[2, 2], &[(2, 0, 1), (2, 0, 1)], BoundaryMode::Fill);
    let mut out = vec![0u8; 16];
    assert!(k.run(&other, Views::DENSE, Some(&[0u8; 16]), &mut out).is_err());
}

/// Pads given at run time need no recompilation: one dynamic kernel (op, mode, dtype,
/// rank) runs plans of other pads, crops and shapes.
#[test]
fn one_dynamic_kernel_runs_many_pads() {
    let onnx = |shape: &[u64], pads: &[i64], mode: &str| {
        let r =
            Request::new("onnx.pad").input_meta("data", DType::F32, shape).input("pads", i64s(pads)).attr("mode", mode);
        kerfx_ir::lower(&r).unwrap()
    };
    let ov = |shape: &[u64], begin: &[i64], end: &[i64]| {
        let r = Request::new("openvino.pad")
            .input_meta("arg", DType::F32, shape)
            .input("pads_begin", i64s(begin))
            .input("pads_end", i64s(end))
            .attr("pad_mode", "symmetric");
        kerfx_ir::lower(&r).unwrap()
    };
    for (first, others) in [
        (
            onnx(&[3, 4], &[1, 2, 1, 2], "reflect"),
            vec![onnx(&[3, 4], &[5, -1, 0, 7], "reflect"), onnx(&[6, 2], &[-2, 3, 9, -1], "reflect")],
        ),
        (onnx(&[3, 4], &[1, 2, 1, 2], "wrap"), vec![onnx(&[2, 9], &[4, -3, 0, 11], "wrap")]),
        (onnx(&[3, 4], &[1, 2, 1, 2], "constant"), vec![onnx(&[5, 1], &[-2, 4, 0, 3], "constant")]),
        (ov(&[3, 4], &[1, 2], &[3, 4]), vec![ov(&[4, 4], &[-1, 4], &[4, -2]), ov(&[7, 3], &[7, 0], &[2, 3])]),
    ] {
        // Its own JIT: the shared one compiles other tests' kernels meanwhile.
        let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 8 }).unwrap();
        let k = jit.compile(&first, &Options::DYNAMIC).unwrap();
        let clif = k.clif().to_string();
        let compiled = jit.cached().1;
        for p in others {
            let Plan::Step(s) = &p else { unreachable!() };
            let input = bytes_of(DType::F32, s.input_len(), 5);
            let want = expected(&p, Some((s, &input)));
            let mut out = vec![0u8; want.len()];
            k.run(&p, Views::DENSE, Some(&input), &mut out).unwrap();
            assert_eq!(out, want, "{p}");
        }
        assert_eq!((k.clif(), jit.cached().1), (clif.as_str(), compiled), "no recompilation");
    }
}

#[test]
fn checks_happen_before_machine_code() {
    let p = Step {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype: DType::U8,
        input_shape: vec![4],
        axes: vec![AxisRead { extent: 3, start: 2, step: 1 }],
        mode: BoundaryMode::StrictBounds,
        fill_bits: 0,
        output_shape: vec![3],
        windows: Vec::new(),
        gathered: None,
    };
    // A strict plan reading past the input is refused at compile time...
    assert!(jit().compile(&Plan::Step(p.clone()), &Options::STATIC).is_err());
    // ...and per call by a dynamic kernel.
    let ok = Step { axes: vec![AxisRead { extent: 2, start: 2, step: 1 }], output_shape: vec![2], ..p.clone() };
    let k = jit().compile(&Plan::Step(ok.clone()), &Options::DYNAMIC).unwrap();
    let mut out = [0u8; 3];
    assert!(k.run(&p, Views::DENSE, Some(&[1, 2, 3, 4]), &mut out).is_err());
    // Wrong buffer lengths.
    let mut out2 = [0u8; 2];
    assert!(k.run(&ok, Views::DENSE, Some(&[1, 2, 3]), &mut out2).is_err());
    let mut out3 = [0u8; 3];
    assert!(k.run_bytes(Some(&[1, 2, 3, 4]), &mut out3).is_err());
    k.run_bytes(Some(&[1, 2, 3, 4]), &mut out2).unwrap();
    assert_eq!(out2, [3, 4]);
}

#[test]
fn strings_are_refused_with_a_clear_error() {
    let r = Request::new("onnx.slice")
        .input("data", Tensor::from_strings(&[2], ["a", "b"]).unwrap())
        .input("starts", i64s(&[0]))
        .input("ends", i64s(&[1]));
    let e = jit().compile(&r, &Options::STATIC).unwrap_err().to_string();
    assert!(e.contains("string"), "{e}");
}

#[test]
fn the_cache_compiles_once_and_evicts() {
    let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 4 }).unwrap();
    let plan = |n: u64| {
        Plan::Step(Step {
            source_shape: Vec::new(),
            order: Vec::new(),
            dtype: DType::F32,
            input_shape: vec![16],
            axes: vec![AxisRead { extent: n, start: 0, step: 1 }],
            mode: BoundaryMode::StrictBounds,
            fill_bits: 0,
            output_shape: vec![n],
            windows: Vec::new(),
            gathered: None,
        })
    };
    let kernels: Vec<_> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..8).map(|_| s.spawn(|| jit.compile(&plan(5), &Options::STATIC).unwrap())).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for k in &kernels {
        assert!(Arc::ptr_eq(k, &kernels[0]), "one plan compiles once");
    }
    for n in 6..12 {
        jit.compile(&plan(n), &Options::STATIC).unwrap();
    }
    assert_eq!(jit.cached().0, 4);
    // The evicted kernel still runs: its code lives while it is referenced.
    let input: Vec<u8> = (0..64).collect();
    let mut out = vec![0u8; 20];
    kernels[0].run_bytes(Some(&input), &mut out).unwrap();
    assert_eq!(out, input[..20]);
    assert!(!Arc::ptr_eq(&jit.compile(&plan(5), &Options::STATIC).unwrap(), &kernels[0]));
}

/// A cache hit skips validation and the plan's clone: only a plan that one kernel serves
/// hits (the fill value counts in fill mode only, floats by their bits), and a plan that
/// is not cached is validated however many are.
#[test]
fn cache_hits_are_the_plans_one_kernel_serves() {
    let jit = Jit::default();
    let slice = |mode, fill_bits| Step {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype: DType::I8,
        input_shape: vec![2],
        axes: vec![AxisRead { extent: 4, start: -1, step: 1 }],
        mode,
        fill_bits,
        output_shape: vec![4],
        windows: Vec::new(),
        gathered: None,
    };
    let run = |plan: &Step| {
        let k = jit.compile(&Plan::Step(plan.clone()), &Options::STATIC).unwrap();
        let mut out = vec![0u8; 4];
        k.run_bytes(Some(&[10, 20]), &mut out).unwrap();
        (k, out)
    };
    let (clamp, out) = run(&slice(BoundaryMode::Clamp, 0));
    assert_eq!(out, [10, 10, 20, 20]);
    assert!(Arc::ptr_eq(&run(&slice(BoundaryMode::Clamp, 3)).0, &clamp), "an unread fill value is no new kernel");
    assert_eq!(run(&slice(BoundaryMode::Fill, 3)).1, [3, 10, 20, 3]);
    assert_eq!(run(&slice(BoundaryMode::Fill, 4)).1, [4, 10, 20, 4]);
    // Invalid plans are refused with a kernel of their shape cached: reading outside the
    // input in strict mode, a fill value wider than the dtype.
    for bad in [slice(BoundaryMode::StrictBounds, 0), slice(BoundaryMode::Fill, 0x100)] {
        let e = jit.compile(&Plan::Step(bad), &Options::STATIC).unwrap_err().to_string();
        assert!(e.contains("step:"), "{e}");
    }
    // 0.0 and -0.0 compare equal as floats but give other bits (-0.0 + -0.0·i is -0.0).
    let linspace = |alpha: f64| {
        Plan::Fill(FillPlan {
            dtype: DType::F32,
            shape: vec![2],
            kind: FillKind::Linspace(Linspace::Float { alpha, beta: vec![-0.0] }),
        })
    };
    for alpha in [0.0, -0.0, 0.0] {
        let mut out = vec![0u8; 8];
        jit.compile(&linspace(alpha), &Options::STATIC).unwrap().run_bytes(None, &mut out).unwrap();
        assert_eq!(out, [(alpha as f32).to_le_bytes(); 2].concat(), "alpha {alpha:?}");
    }
    assert_eq!(jit.cached().0, 5);
}

#[test]
fn large_slices_split_over_threads() {
    let big = |dtype, mode, rows: u64, cols: u64, n1: u64, start1: i64| Step {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype,
        input_shape: vec![rows, cols],
        axes: vec![AxisRead { extent: rows + 7, start: -3, step: 1 }, AxisRead { extent: n1, start: start1, step: 1 }],
        mode,
        fill_bits: 0x7,
        output_shape: vec![rows + 7, n1],
        windows: Vec::new(),
        gathered: None,
    };
    // Every mode that reads outside the input (strict_bounds cannot: these starts are negative).
    for mode in BoundaryMode::ALL.into_iter().filter(|&m| m != BoundaryMode::StrictBounds) {
        check_slice(&big(DType::F32, mode, 600, 900, 917, -5), 1).unwrap();
        // Packed nibbles with an odd row length: threads must split at even elements.
        check_slice(&big(DType::I4, mode, 1500, 900, 901, 1), 2).unwrap();
    }
    // Outputs of 8 MiB and more stream their reversed and strided runs through a stack
    // buffer in chunks; odd lengths leave chunks and rows unaligned.
    let plan = |dtype, rows: u64, cols: u64, n1: u64, start1: i64, step1: i64| Step {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype,
        input_shape: vec![rows, cols],
        axes: vec![AxisRead { extent: rows, start: 0, step: 1 }, AxisRead { extent: n1, start: start1, step: step1 }],
        mode: BoundaryMode::StrictBounds,
        fill_bits: 0,
        output_shape: vec![rows, n1],
        windows: Vec::new(),
        gathered: None,
    };
    check_slice(&plan(DType::F32, 1025, 2049, 2049, 2048, -1), 3).unwrap();
    check_slice(&plan(DType::F32, 1023, 4099, 2049, 1, 2), 4).unwrap();
    check_slice(&plan(DType::U8, 3, 3_000_001, 2_900_001, 2_950_000, -1), 5).unwrap();
    check_slice(&plan(DType::I16, 2, 9_000_001, 4_300_001, 7, 2), 6).unwrap();
}

/// Outputs of 8 MiB and more write their long copies and fills (borders) with
/// non-temporal stores (`stream_copy`, `stream_fill`): every element width, fill values
/// that are not one repeated byte, odd row lengths that leave runs unaligned, and every
/// mode that pads.
#[test]
fn large_outputs_stream_copies_and_fills() {
    let pad = |dtype, mode, rows: u64, cols: u64, fill_bits: u128| Step {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype,
        input_shape: vec![rows, cols],
        axes: vec![
            AxisRead { extent: rows + 5, start: -2, step: 1 },
            AxisRead { extent: cols + 37, start: -17, step: 1 },
        ],
        mode,
        fill_bits,
        output_shape: vec![rows + 5, cols + 37],
        windows: Vec::new(),
        gathered: None,
    };
    let fill = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3211u128;
    for (k, (dtype, rows, cols)) in [
        (DType::U8, 2049, 4099),
        (DType::I16, 1025, 4097),
        (DType::F32, 1031, 2053),
        (DType::F64, 515, 2051),
        (DType::C128, 259, 2049),
    ]
    .into_iter()
    .enumerate()
    {
        // Wrap and reflect repeat through the host's copies; one width covers them.
        let modes: &[BoundaryMode] = match dtype {
            DType::F32 => &[BoundaryMode::Fill, BoundaryMode::Clamp, BoundaryMode::Wrap, BoundaryMode::Reflect],
            _ => &[BoundaryMode::Fill, BoundaryMode::Clamp],
        };
        let bits = match dtype.layout() {
            kerfx_ir::dtype::Layout::Bytes(16) => fill,
            kerfx_ir::dtype::Layout::Bytes(w) => fill & ((1u128 << (8 * w)) - 1),
            _ => unreachable!("whole-byte dtypes only"),
        };
        for &mode in modes {
            let plan = pad(dtype, mode, rows, cols, bits);
            // The static kernel calls the streaming copy (host function 0) and, where it
            // has borders to fill, the streaming fill (host function 3).
            let clif = jit().compile(&Plan::Step(plan.clone()), &Options::STATIC).unwrap().clif().to_string();
            assert!(clif.contains("= u0:0 "), "{mode} {dtype}: no streaming copy\n{clif}");
            if mode == BoundaryMode::Fill {
                assert!(clif.contains("= u0:3 "), "{mode} {dtype}: no streaming fill\n{clif}");
            }
            check_slice(&plan, 40 + k as u64).unwrap();
        }
    }
}

/// Outputs of 8 MiB and more of 2-, 4- and 8-byte elements read every other column
/// (W3's slice) through the host's stride-2 streaming copy (host function 8); other widths
/// stage their runs. Odd row lengths leave runs unaligned to the output's lines, and rows
/// that end at the input row's last element leave nothing to read past.
#[test]
fn large_stride2_slices_stream_through_the_host() {
    let plan = |dtype: DType, n1: u64, start1: i64| {
        let w = dtype.buffer_bytes(1).unwrap() as u64;
        let rows = (8 << 20) / (n1 * w) + 3;
        let cols = start1 as u64 + 2 * n1 - 1;
        Step {
            source_shape: Vec::new(),
            order: Vec::new(),
            dtype,
            input_shape: vec![rows, cols],
            axes: vec![AxisRead { extent: rows, start: 0, step: 1 }, AxisRead { extent: n1, start: start1, step: 2 }],
            mode: BoundaryMode::StrictBounds,
            fill_bits: 0,
            output_shape: vec![rows, n1],
            windows: Vec::new(),
            gathered: None,
        }
    };
    for (k, (dtype, host)) in
        [(DType::F16, true), (DType::F32, true), (DType::I64, true), (DType::C64, true), (DType::U8, false)]
            .into_iter()
            .enumerate()
    {
        for (n1, start1) in [(2048, 0), (2053, 1), (1031, 0)] {
            let p = plan(dtype, n1, start1);
            let clif = jit().compile(&Plan::Step(p.clone()), &Options::STATIC).unwrap().clif().to_string();
            assert_eq!(clif.contains("= u0:8 "), host, "{dtype} {n1} +{start1}\n{clif}");
            check_slice(&p, 60 + k as u64).unwrap();
        }
    }
}

// ----- cost: code linear in the rank, memory independent of the output ------------------

/// Lines of a kernel's IR (one instruction or block header a line).
fn clif_lines(k: &kerfx_jit::JitKernel) -> usize {
    k.clif().lines().count()
}

/// Dynamic kernels have one walk per dim whose code does not depend on the others: the
/// IR grows by the same number of lines per dim (it once doubled per dim: 39 MB of IR at
/// rank 12). Ranks above 63 share the depth-63 kernel (a nest never has more dims).
#[test]
fn dynamic_kernel_code_grows_linearly_with_rank() {
    let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 64 }).unwrap();
    // Rank r: r−2 unit axes (extent 1, offsets into the base) and two real ones.
    let plan = |mode: BoundaryMode, rank: usize| {
        let mut shape = vec![1u64; rank];
        let mut axes = vec![AxisRead { extent: 1, start: 0, step: 1 }; rank];
        // One unit axis reads index 1 of 2 (an offset into the base).
        shape[rank / 2] = 2;
        axes[rank / 2].start = 1;
        for k in [0, rank - 1] {
            shape[k] = 3;
            axes[k] = if mode == BoundaryMode::StrictBounds {
                AxisRead { extent: 2, start: 2, step: -1 }
            } else {
                AxisRead { extent: 9, start: -4, step: 1 }
            };
        }
        Step {
            source_shape: Vec::new(),
            order: Vec::new(),
            dtype: DType::F32,
            output_shape: axes.iter().map(|a| a.extent).collect(),
            windows: Vec::new(),
            input_shape: shape,
            axes,
            mode,
            fill_bits: 0x4040_0000,
            gathered: None,
        }
    };
    for mode in BoundaryMode::ALL {
        let lines = |rank: usize| {
            let p = Plan::Step(plan(mode, rank));
            let k = jit.compile(&p, &Options::DYNAMIC).unwrap();
            let input = bytes_of(DType::F32, plan(mode, rank).input_len(), rank as u64);
            let want = expected(&p, Some((&plan(mode, rank), &input)));
            assert_eq!(run(&k, &p, Some(&input), want.len()), want, "{mode} rank {rank}");
            clif_lines(&k)
        };
        let (l2, l3) = (lines(2), lines(3));
        let per_dim = l3 - l2;
        for rank in [4, 8, 12, 14, 16, 32, 63] {
            assert_eq!(lines(rank), l2 + (rank - 2) * per_dim, "{mode} rank {rank}");
        }
        assert_eq!(lines(64), lines(63), "{mode}: rank 64 runs on the depth-63 kernel");
        assert!(lines(200) < 50 * l2, "{mode}");
    }
}

/// An ONNX slice of an input with 1,000 unit axes (48 s dynamic before; static 10 ms):
/// the dynamic kernel has the depth of a nest (63 at most), not of the rank.
#[test]
fn onnx_slice_of_a_thousand_unit_axes() {
    let mut shape = vec![1u64; 1000];
    shape[3] = 5;
    shape[997] = 4;
    let r = Request::new("onnx.slice")
        .input_meta("data", DType::F32, &shape)
        .input("starts", i64s(&[1, -3]))
        .input("ends", i64s(&[4, 100]))
        .input("axes", i64s(&[3, 997]));
    let plan = kerfx_ir::lower(&r).unwrap();
    let Plan::Step(p) = &plan else { panic!("a slice") };
    let input = bytes_of(DType::F32, p.input_len(), 9);
    let want = expected(&plan, Some((p, &input)));
    let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 8 }).unwrap();
    for k in [jit.compile(&plan, &Options::STATIC).unwrap(), jit.compile(&plan, &Options::DYNAMIC).unwrap()] {
        assert_eq!(run(&k, &plan, Some(&input), want.len()), want);
        assert!(clif_lines(&k) < 20_000, "{} lines", clif_lines(&k));
        assert!(k.argument_words() < 1000, "{} words", k.argument_words());
    }
}

/// Wrap and reflect of a 3-element input to 10^7 elements (and i4 to 10^6 + 1), static,
/// dynamic and threaded, against the formula; the argument blocks are a few words (they
/// once held 16–32 bytes per output element).
#[test]
fn tiny_inputs_repeated_to_ten_million_elements() {
    for (dtype, n) in [(DType::I8, 10_000_000u64), (DType::F32, 3_000_001), (DType::I4, 1_000_001)] {
        for (mode, start, step) in [
            (BoundaryMode::Wrap, 0i64, 1i64),
            (BoundaryMode::Wrap, -7, 2),
            (BoundaryMode::Reflect, -1, 1),
            (BoundaryMode::Reflect, 5, -1),
        ] {
            let p = Step {
                source_shape: Vec::new(),
                order: Vec::new(),
                dtype,
                input_shape: vec![3],
                axes: vec![AxisRead { extent: n, start, step }],
                mode,
                fill_bits: 0,
                output_shape: vec![n],
                windows: Vec::new(),
                gathered: None,
            };
            let input = bytes_of(dtype, 3, 17);
            // The formula, element by element (the reference would be slow here).
            let elem = |i: u64| -> u64 {
                let z = mode.source_index((start as i128 + step as i128 * i as i128) as i64, 3).unwrap();
                match dtype {
                    DType::I4 => (input[0] as u64 | (input[1] as u64) << 8) >> (4 * z) & 15,
                    _ => z,
                }
            };
            let plan = Plan::Step(p.clone());
            for k in [
                jit().compile(&plan, &Options::STATIC).unwrap(),
                jit().compile(&plan, &Options::DYNAMIC).unwrap(),
                jit_threads().compile(&plan, &Options::STATIC).unwrap(),
            ] {
                let out = run(&k, &plan, Some(&input), dtype.buffer_bytes(n).unwrap());
                assert!(k.argument_words() < 64, "{} words", k.argument_words());
                let what = format!("{mode} {dtype} start {start} step {step} dynamic {}", k.is_dynamic());
                match dtype {
                    DType::I8 => {
                        assert!(out.iter().enumerate().all(|(i, &b)| b == input[elem(i as u64) as usize]), "{what}")
                    }
                    DType::F32 => assert!(
                        out.chunks(4).enumerate().all(|(i, c)| c == &input[4 * elem(i as u64) as usize..][..4]),
                        "{what}"
                    ),
                    _ => {
                        assert!((0..n).all(|i| (out[i as usize / 2] >> (4 * (i % 2))) as u64 & 15 == elem(i)), "{what}")
                    }
                }
            }
        }
    }
}

/// Wrap and reflect of rows: repeating outer dims (whole rows copied from earlier rows)
/// and repeating tables (periods with many segments), through every kernel kind.
#[test]
fn repeating_rows_and_tables() {
    // Every mode whose reads repeat with a period.
    for mode in BoundaryMode::ALL.into_iter().filter(|m| m.period(1).is_some()) {
        for dtype in [DType::U8, DType::I4, DType::F64] {
            for (d0, d1, n0, n1, s1, st1) in
                [(3u64, 5u64, 1001u64, 7u64, -2i64, 1i64), (2, 100, 9, 3001, 5, 33), (5, 97, 20, 1000, -40, 31)]
            {
                let p = Step {
                    source_shape: Vec::new(),
                    order: Vec::new(),
                    dtype,
                    input_shape: vec![d0, d1],
                    axes: vec![
                        AxisRead { extent: n0, start: -1, step: 1 },
                        AxisRead { extent: n1, start: s1, step: st1 },
                    ],
                    mode,
                    fill_bits: 0,
                    output_shape: vec![n0, n1],
                    windows: Vec::new(),
                    gathered: None,
                };
                let nest = kerfx_ir::Step::map(&p).and_then(|m| kerfx_ir::schedule::map_nest(&m)).unwrap();
                assert!(nest.dims.iter().any(|d| d.repeats()), "{nest}");
                check_slice(&p, 5).unwrap();
            }
        }
    }
}

/// An outer dim with several segments that read (a pad's border rows and its middle)
/// whose positions write long rows is walked from segment descriptors, so the row's code
/// is emitted once instead of once per segment: the kernel calls memcpy from one place.
/// Every padding mode and a few element widths, split over threads along the outer dim.
#[test]
fn padded_rows_are_walked() {
    for (dtype, cols) in [(DType::U8, 1100u64), (DType::F32, 300), (DType::C128, 70)] {
        for mode in BoundaryMode::ALL.into_iter().filter(|&m| m != BoundaryMode::StrictBounds) {
            let plan = Step {
                source_shape: Vec::new(),
                order: Vec::new(),
                dtype,
                input_shape: vec![4, 9, cols],
                axes: vec![
                    AxisRead { extent: 4, start: 0, step: 1 },
                    AxisRead { extent: 13, start: -2, step: 1 },
                    AxisRead { extent: cols + 9, start: -4, step: 1 },
                ],
                mode,
                fill_bits: 0x3,
                output_shape: vec![4, 13, cols + 9],
                windows: Vec::new(),
                gathered: None,
            };
            let nest = kerfx_ir::Step::map(&plan).and_then(|m| kerfx_ir::schedule::map_nest(&m)).unwrap();
            let reading = nest.dims[1].segments().unwrap().iter().filter(|s| s.run() != Run::Fill).count();
            assert_eq!(reading, if mode == BoundaryMode::Fill { 1 } else { 3 }, "{nest}");
            let clif = jit().compile(&Plan::Step(plan.clone()), &Options::STATIC).unwrap().clif().to_string();
            // (Every call of memcpy imports it anew.)
            let calls = clif.lines().filter(|l| l.contains(" = %Memcpy ")).count();
            assert_eq!(calls, 1, "{mode} {dtype}\n{nest}\n{clif}");
            check_slice(&plan, 60).unwrap();
        }
    }
}
