//! The workload rows (the performance table in crates/README.md): each JIT kernel against
//! memcpy/memset of the same output bytes (and the reference interpreter where it is
//! affordable), compile latency, cache-hit latency, and 2 threads against 1 on the random
//! fills (T1) and memory-bound rows (T2).
//!
//! `cargo bench -p kerfx-jit --bench workloads` runs the criterion groups and then prints a
//! table of ratios measured in one run of this process (medians, interleaved rounds).
//! `KERF_BENCH_REFERENCE=1` adds the reference interpreter on every row (slow: seconds
//! per call on the 64 MiB rows). `KERF_BENCH_TABLE_ONLY=1` skips the criterion groups;
//! `KERF_BENCH_ONLY=F2,F3` keeps the table rows whose id starts with one of the prefixes;
//! `KERF_BENCH_C1_DETAIL=1` prints every plan's compile time and Cranelift's pass times.

use criterion::{Criterion, black_box};
use kerfx_ir::tensor::{TensorView, ViewData};
use kerfx_ir::{BoundaryMode, DType, FillKind, FillPlan, Kernel, Linspace, Plan, Request, Tensor, reference};
use kerfx_jit::{Jit, JitSettings, Options};
use std::time::{Duration, Instant};

struct Workload {
    id: String,
    plan: Plan,
    /// memset baseline instead of memcpy.
    fill: bool,
}

fn slice(
    dtype: DType,
    shape: &[u64],
    axes: &[(u64, i64, i64)],
    mode: BoundaryMode,
    output_shape: Option<Vec<u64>>,
) -> Plan {
    let mut p = kerfx_testkit::plans::slice_plan(dtype, shape, axes, mode);
    if let Some(o) = output_shape {
        p.output_shape = o;
    }
    Plan::Step(p)
}

fn workloads() -> Vec<Workload> {
    use BoundaryMode::*;
    let f32_ = DType::F32;
    let sq = [4096u64, 4096];
    let mut w = vec![
        Workload {
            id: "W1 rows".into(),
            plan: slice(f32_, &sq, &[(2048, 0, 1), (4096, 0, 1)], StrictBounds, None),
            fill: false,
        },
        Workload {
            id: "W2 columns".into(),
            plan: slice(f32_, &sq, &[(4096, 0, 1), (2048, 1024, 1)], StrictBounds, None),
            fill: false,
        },
        Workload {
            id: "W3 stride 2".into(),
            plan: slice(f32_, &sq, &[(4096, 0, 1), (2048, 0, 2)], StrictBounds, None),
            fill: false,
        },
        Workload {
            id: "W4 reversed".into(),
            plan: slice(f32_, &sq, &[(4096, 0, 1), (4096, 4095, -1)], StrictBounds, None),
            fill: false,
        },
    ];
    for mode in [Fill, Clamp, Wrap, Reflect] {
        w.push(Workload {
            id: format!("W5 {mode}"),
            plan: slice(f32_, &[1, 3, 1024, 1024], &[(1, 0, 1), (3, 0, 1), (1056, -16, 1), (1056, -16, 1)], mode, None),
            fill: false,
        });
    }
    // P1/P2: the pad ops, lowered by their frontends from the requests a user writes.
    let image = [1u64, 3, 1024, 1024];
    let lower = |request: Request| kerfx_ir::lower(&request).expect("the P rows lower");
    for mode in ["constant", "reflect", "edge", "wrap"] {
        let request = Request::new("onnx.pad")
            .version(19)
            .input_meta("data", f32_, &image)
            .input("pads", Tensor::from_i64s(&[0, 0, 16, 16, 0, 0, 16, 16]))
            .attr("mode", mode);
        w.push(Workload { id: format!("P1 onnx.pad {mode}"), plan: lower(request), fill: false });
    }
    let request = Request::new("openvino.pad")
        .version(12)
        .input_meta("arg", f32_, &image)
        .input("pads_begin", Tensor::from_i64s(&[0, 0, 16, 16]))
        .input("pads_end", Tensor::from_i64s(&[0, 0, 16, 16]))
        .attr("pad_mode", "symmetric");
    w.push(Workload { id: "P2 openvino.pad symmetric".into(), plan: lower(request), fill: false });
    w.push(Workload {
        id: "W7 shrink".into(),
        plan: slice(
            f32_,
            &[1, 2, 384, 640, 8],
            &[(1, 0, 1), (1, 1, 1), (384, 0, 1), (640, 0, 1), (8, 0, 1)],
            StrictBounds,
            Some(vec![1, 384, 640, 8]),
        ),
        fill: false,
    });
    w.push(Workload {
        id: "W8 int4 columns".into(),
        plan: slice(DType::I4, &sq, &[(4096, 0, 1), (4095, 1, 1)], StrictBounds, None),
        fill: false,
    });
    let fill = |kind| Plan::Fill(FillPlan { dtype: DType::F32, shape: sq.to_vec(), kind });
    w.push(Workload {
        id: "F1 linspace".into(),
        plan: fill(FillKind::Linspace(Linspace::Float { alpha: 0.0, beta: vec![4096.0, 1.0] })),
        fill: true,
    });
    w.push(Workload {
        id: "F2 uniform".into(),
        plan: fill(FillKind::RandomUniform { alpha: 0.0, beta: 1.0, seed: 1 }),
        fill: true,
    });
    w.push(Workload {
        id: "F3 normal".into(),
        plan: fill(FillKind::RandomNormal { alpha: 0.0, beta: 1.0, seed: 1 }),
        fill: true,
    });
    w
}

/// The data-movement family's rows (`tests/data/bench/`: TR1–TR4, EX1, DS1, GA1), lowered
/// by their frontends, for C1 (compile time only: their run times are `kerf bench`'s).
fn family() -> Vec<(String, Plan)> {
    let f32_ = DType::F32;
    let lower = |request: Request| kerfx_ir::lower(&request).expect("the family rows lower");
    let transpose = |shape: &[u64], perm: &[i64]| {
        lower(Request::new("onnx.transpose").input_meta("data", f32_, shape).attr("perm", perm.to_vec()))
    };
    // GA1's indices: 4096 token ids spread over the table (the bench file draws them at random).
    let ids: Vec<i64> = (0..4096).map(|i| i * 7919 % 50_000).collect();
    vec![
        ("TR1".into(), transpose(&[4096, 4096], &[1, 0])),
        ("TR2".into(), transpose(&[1, 64, 256, 256], &[0, 2, 3, 1])),
        ("TR3".into(), transpose(&[8, 512, 16, 64], &[0, 2, 1, 3])),
        ("TR4".into(), transpose(&[64, 128, 256], &[2, 0, 1])),
        (
            "EX1".into(),
            lower(
                Request::new("onnx.expand")
                    .input_meta("input", f32_, &[1, 8, 1, 2048, 128])
                    .input("shape", Tensor::from_i64s(&[1, 8, 4, 2048, 128])),
            ),
        ),
        (
            "DS1".into(),
            lower(
                Request::new("onnx.depth_to_space")
                    .input_meta("input", f32_, &[1, 256, 128, 128])
                    .attr("blocksize", 2)
                    .attr("mode", "CRD"),
            ),
        ),
        (
            "GA1".into(),
            lower(
                Request::new("onnx.gather")
                    .input_meta("data", f32_, &[50_000, 768])
                    .input("indices", Tensor::from_i64s(&ids))
                    .attr("axis", 0),
            ),
        ),
    ]
}

fn w6() -> Plan {
    slice(DType::F32, &[3, 3], &[(2, 0, 1), (2, 0, 1)], BoundaryMode::StrictBounds, None)
}

struct Buffers {
    input: Vec<u8>,
    output: Vec<u8>,
    scratch: Vec<u8>,
}

fn buffers(plan: &Plan) -> Buffers {
    let out = plan.dtype().buffer_bytes(kerfx_ir::tensor::volume(plan.output_shape()).unwrap()).unwrap();
    let inp = plan
        .input_shape()
        .map(|s| plan.dtype().buffer_bytes(kerfx_ir::tensor::volume(s).unwrap()).unwrap())
        .unwrap_or(0);
    // Touch everything once so page faults are not timed.
    Buffers { input: (0..inp).map(|i| i as u8).collect(), output: vec![1u8; out], scratch: vec![2u8; out] }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Median times of `a` and `b`, interleaved over `rounds`.
fn paired(rounds: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (Duration, Duration) {
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    a();
    b();
    for _ in 0..rounds {
        let t = Instant::now();
        a();
        ta.push(t.elapsed());
        let t = Instant::now();
        b();
        tb.push(t.elapsed());
    }
    (median(ta), median(tb))
}

fn reference_run(plan: &Plan, input: &[u8]) {
    let view = plan.input_shape().map(|s| TensorView { dtype: plan.dtype(), shape: s, data: ViewData::Bytes(input) });
    black_box(reference::evaluate(plan, view).unwrap());
}

fn criterion_groups(c: &mut Criterion, jit: &Jit) {
    for w in workloads() {
        let k = jit.compile(&w.plan, &Options::STATIC).unwrap();
        let mut b = buffers(&w.plan);
        let mut g = c.benchmark_group(w.id.clone());
        g.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1));
        let input = w.plan.input_shape().map(|_| b.input.clone());
        g.bench_function("jit", |bn| bn.iter(|| k.run_bytes(input.as_deref(), &mut b.output).unwrap()));
        if w.fill {
            g.bench_function("memset", |bn| bn.iter(|| b.scratch.fill(black_box(0))));
        } else {
            let src = b.scratch.clone();
            g.bench_function("memcpy", |bn| bn.iter(|| b.output.copy_from_slice(black_box(&src))));
        }
        g.finish();
    }
    let k = jit.compile(&w6(), &Options::STATIC).unwrap();
    let input = vec![0u8; 36];
    let mut out = [0u8; 16];
    c.bench_function("W6 call", |bn| bn.iter(|| k.run_bytes(Some(black_box(&input)), &mut out).unwrap()));
    c.bench_function("W6 reference", |bn| bn.iter(|| reference_run(&w6(), &input)));
    // The plan built once: the hit is the lookup, not the plan's construction.
    let plan = w6();
    c.bench_function("C1 cache hit", |bn| bn.iter(|| jit.compile(black_box(&plan), &Options::STATIC).unwrap()));
    c.bench_function("C1 compile W6", |bn| {
        bn.iter(|| Jit::new(JitSettings::default()).unwrap().compile(&w6(), &Options::STATIC).unwrap())
    });
}

/// Whether the table keeps row `id` (see `KERF_BENCH_ONLY`).
fn wanted(id: &str) -> bool {
    match std::env::var("KERF_BENCH_ONLY") {
        Ok(only) => only.split(',').any(|p| id.starts_with(p.trim())),
        Err(_) => true,
    }
}

fn table(jit: &Jit) {
    let with_reference = std::env::var_os("KERF_BENCH_REFERENCE").is_some();
    println!("\n| id | kerf ms | baseline ms | ratio | reference ratio |");
    println!("|---|---|---|---|---|");
    for w in workloads().into_iter().filter(|w| wanted(&w.id)) {
        let k = jit.compile(&w.plan, &Options::STATIC).unwrap();
        let mut b = buffers(&w.plan);
        let input = w.plan.input_shape().map(|_| b.input.clone());
        let out = &mut b.output;
        let dst = &mut b.scratch;
        let (tk, tb) = if w.fill {
            paired(15, || k.run_bytes(input.as_deref(), out).unwrap(), || dst.fill(black_box(0)))
        } else {
            let src = dst.clone();
            let mut dst2 = vec![3u8; src.len()];
            paired(15, || k.run_bytes(input.as_deref(), out).unwrap(), || dst2.copy_from_slice(black_box(&src)))
        };
        let reference = if with_reference {
            let (tr, _) = paired(1, || reference_run(&w.plan, &b.input), || {});
            format!("{:.1}", tr.as_secs_f64() / tk.as_secs_f64())
        } else {
            "-".into()
        };
        println!(
            "| {} | {:.3} | {:.3} | {:.2} | {} |",
            w.id,
            tk.as_secs_f64() * 1e3,
            tb.as_secs_f64() * 1e3,
            tk.as_secs_f64() / tb.as_secs_f64(),
            reference
        );
    }
    // W6: one call on caller buffers.
    if wanted("W6") {
        w6_row(jit);
    }
    if wanted("C1") {
        c1_row(jit);
    }
    // T1: 2 threads against 1 on the random fills; T2 on the memory-bound rows.
    let two = Jit::new(JitSettings { threads: 2, cache_capacity: 16 }).unwrap();
    let row = |w: &Workload| {
        let t1 = ["F2", "F3"].iter().any(|p| w.id.starts_with(p)) && wanted("T1");
        let t2 = ["W1", "W2", "W5", "F1"].iter().any(|p| w.id.starts_with(p)) && wanted("T2");
        if t1 {
            Some("T1")
        } else if t2 {
            Some("T2")
        } else {
            None
        }
    };
    for (t, w) in workloads().into_iter().filter_map(|w| row(&w).map(|t| (t, w))) {
        let k1 = jit.compile(&w.plan, &Options::STATIC).unwrap();
        let k2 = two.compile(&w.plan, &Options::STATIC).unwrap();
        let mut b = buffers(&w.plan);
        let input = w.plan.input_shape().map(|_| b.input.clone());
        let (o1, o2) = (&mut b.output, &mut b.scratch);
        let (t1, t2) =
            paired(9, || k1.run_bytes(input.as_deref(), o1).unwrap(), || k2.run_bytes(input.as_deref(), o2).unwrap());
        println!(
            "| {t} {} | 1 thread {:.2} ms | 2 threads {:.2} ms | speedup {:.2} | |",
            w.id,
            t1.as_secs_f64() * 1e3,
            t2.as_secs_f64() * 1e3,
            t1.as_secs_f64() / t2.as_secs_f64()
        );
    }
}

fn w6_row(jit: &Jit) {
    let k = jit.compile(&w6(), &Options::STATIC).unwrap();
    let input = vec![0u8; 36];
    let mut out = [0u8; 16];
    let n = 200_000;
    let t = Instant::now();
    for _ in 0..n {
        k.run_bytes(Some(black_box(&input)), black_box(&mut out)).unwrap();
    }
    let call = t.elapsed() / n;
    let t = Instant::now();
    for _ in 0..2000 {
        reference_run(&w6(), &input);
    }
    let r = t.elapsed() / 2000;
    println!(
        "| W6 call | {:.1} ns | - | - | reference {:.0} ns ({:.0}x) |",
        call.as_nanos(),
        r.as_nanos(),
        r.as_secs_f64() / call.as_secs_f64()
    );
}

fn c1_row(jit: &Jit) {
    // C1: compile latency, median over the workload plans (each plan's own median over
    // a few fresh compiles, so that one preempted compile does not decide it), and
    // cache hits. `KERF_BENCH_C1_DETAIL=1` prints every plan's time.
    let detail = std::env::var_os("KERF_BENCH_C1_DETAIL").is_some();
    // Cranelift's own pass timings, summed over every compile below.
    let _ = cranelift_codegen::timing::take_current();
    let mut all_passes = Vec::new();
    let mut times = Vec::new();
    let plans: Vec<(String, Plan)> =
        workloads().into_iter().map(|w| (w.id, w.plan)).chain([("W6".to_string(), w6())]).chain(family()).collect();
    for (id, plan) in &plans {
        let mut each = Vec::new();
        for _ in 0..7 {
            let fresh = Jit::new(JitSettings::default()).unwrap();
            let t = Instant::now();
            fresh.compile(plan, &Options::STATIC).unwrap();
            each.push(t.elapsed());
        }
        let m = median(each);
        if detail {
            // Cranelift's passes (mean per compile) beside the whole compile's median.
            let passes = cranelift_codegen::timing::take_current();
            println!(
                "| C1 {id} | {:.0} us | Cranelift passes {:.0} us | | |",
                m.as_secs_f64() * 1e6,
                passes.total().as_secs_f64() * 1e6 / 7.0
            );
            all_passes.push(passes);
        }
        times.push(m);
    }
    let compile = median(times);
    if detail {
        // Summed over the plans but the random fills (whose kernels are many times larger).
        let mut sum = cranelift_codegen::timing::PassTimes::default();
        let mut n = 0;
        for (passes, (id, _)) in all_passes.iter().zip(&plans) {
            if !id.starts_with("F2") && !id.starts_with("F3") {
                sum.add(passes);
                n += 7;
            }
        }
        println!("\nCranelift passes, {n} compiles of the plans but F2/F3 (seconds):\n{sum}");
    }
    let plan = w6();
    jit.compile(&plan, &Options::STATIC).unwrap();
    let t = Instant::now();
    for _ in 0..100_000 {
        black_box(jit.compile(black_box(&plan), &Options::STATIC).unwrap());
    }
    let hit = t.elapsed() / 100_000;
    println!("| C1 compile (median) | {:.0} us | cache hit {} ns | | |", compile.as_secs_f64() * 1e6, hit.as_nanos());
}

fn main() {
    let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 64 }).unwrap();
    if std::env::var_os("KERF_BENCH_TABLE_ONLY").is_none() {
        let mut c = Criterion::default().configure_from_args();
        criterion_groups(&mut c, &jit);
        c.final_summary();
    }
    table(&jit);
}
