//! The workload rows (the performance table in crates/README.md): a derive-generated
//! kernel against the JIT kernel of the same request, and both against memcpy/memset of
//! the output bytes, all in one run of one process (medians of interleaved rounds, so the
//! machine's drift cancels). Both kernels are called through the `Kernel` trait
//! (`run_bytes`) on the same preallocated buffers.
//!
//! `cargo bench -p kerfx-derive-tests --bench derive_vs_jit` runs criterion groups and then
//! prints the table; `KERF_BENCH_TABLE_ONLY=1` prints only the table.

use criterion::{Criterion, black_box};
use kerfx::{DType, Kernel, Request, Tensor};
use kerfx_jit::{Jit, Options};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------- derived kernels

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [4096, 4096], start = [0, 0], size = [2048, 4096], stride = [1, 1])]
struct W1;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [4096, 4096], start = [0, 1024], size = [4096, 2048], stride = [1, 1])]
struct W2;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [4096, 4096], start = [0, 0], size = [4096, 2048], stride = [1, 2])]
struct W3;

#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.slice", dtype = "f32", input = [4096, 4096], starts = [-1], ends = [-5000], axes = [1], steps = [-1])]
struct W4;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [1, 3, 1024, 1024], start = [0, 0, -16, -16], size = [1, 3, 1056, 1056], stride = [1, 1, 1, 1], mode = "fill")]
struct W5Fill;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [1, 3, 1024, 1024], start = [0, 0, -16, -16], size = [1, 3, 1056, 1056], stride = [1, 1, 1, 1], mode = "clamp")]
struct W5Clamp;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [1, 3, 1024, 1024], start = [0, 0, -16, -16], size = [1, 3, 1056, 1056], stride = [1, 1, 1, 1], mode = "wrap")]
struct W5Wrap;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [1, 3, 1024, 1024], start = [0, 0, -16, -16], size = [1, 3, 1056, 1056], stride = [1, 1, 1, 1], mode = "reflect")]
struct W5Reflect;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [3, 3], start = [0, 0], size = [2, 2], stride = [1, 1])]
struct W6;

#[derive(kerfx::Kernel)]
#[kerf(op = "openvino.strided_slice", dtype = "f32", input = [1, 2, 384, 640, 8], begin = [0, 1, 0, 0, 0], end = [0, 0, 0, 0, 0], begin_mask = [1, 0, 1, 1, 1], end_mask = [1, 0, 1, 1, 1], shrink_axis_mask = [0, 1, 0, 0, 0])]
struct W7;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i4", input = [4096, 4096], start = [0, 1], size = [4096, 4095], stride = [1, 1])]
struct W8;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.fill", dimensions = [4096, 4096], operation = "linspace", beta = [4096.0, 1.0])]
struct F1;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.fill", dimensions = [4096, 4096], operation = "random_uniform", seed = 1)]
struct F2;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.fill", dimensions = [4096, 4096], operation = "random_normal", seed = 1)]
struct F3;

// ------------------------------------------------- the same requests, for the JIT

fn trt(dtype: DType, shape: &[u64], start: &[i64], size: &[i64], stride: &[i64], mode: &str) -> Request {
    Request::new("tensorrt.slice")
        .input_meta("input", dtype, shape)
        .attr("start", start.to_vec())
        .attr("size", size.to_vec())
        .attr("stride", stride.to_vec())
        .attr("mode", mode)
}

fn fill(operation: &str) -> Request {
    Request::new("tensorrt.fill").attr("dimensions", [4096, 4096]).attr("operation", operation)
}

struct Row {
    id: &'static str,
    derived: Box<dyn Kernel>,
    request: Request,
    /// memset baseline instead of memcpy.
    fill: bool,
}

fn rows() -> Vec<Row> {
    let sq = [4096u64, 4096];
    let pad = [1u64, 3, 1024, 1024];
    let w5 = |mode| trt(DType::F32, &pad, &[0, 0, -16, -16], &[1, 3, 1056, 1056], &[1, 1, 1, 1], mode);
    let row = |id, derived: Box<dyn Kernel>, request, fill| Row { id, derived, request, fill };
    vec![
        row("W1 rows", Box::new(W1), trt(DType::F32, &sq, &[0, 0], &[2048, 4096], &[1, 1], "strict_bounds"), false),
        row(
            "W2 columns",
            Box::new(W2),
            trt(DType::F32, &sq, &[0, 1024], &[4096, 2048], &[1, 1], "strict_bounds"),
            false,
        ),
        row("W3 stride 2", Box::new(W3), trt(DType::F32, &sq, &[0, 0], &[4096, 2048], &[1, 2], "strict_bounds"), false),
        row(
            "W4 reversed",
            Box::new(W4),
            Request::new("onnx.slice")
                .input_meta("data", DType::F32, &sq)
                .input("starts", Tensor::from_i64s(&[-1]))
                .input("ends", Tensor::from_i64s(&[-5000]))
                .input("axes", Tensor::from_i64s(&[1]))
                .input("steps", Tensor::from_i64s(&[-1])),
            false,
        ),
        row("W5 fill", Box::new(W5Fill), w5("fill"), false),
        row("W5 clamp", Box::new(W5Clamp), w5("clamp"), false),
        row("W5 wrap", Box::new(W5Wrap), w5("wrap"), false),
        row("W5 reflect", Box::new(W5Reflect), w5("reflect"), false),
        row(
            "W7 shrink",
            Box::new(W7),
            Request::new("openvino.strided_slice")
                .input_meta("data", DType::F32, &[1, 2, 384, 640, 8])
                .attr("begin", [0, 1, 0, 0, 0])
                .attr("end", [0, 0, 0, 0, 0])
                .attr("begin_mask", [1, 0, 1, 1, 1])
                .attr("end_mask", [1, 0, 1, 1, 1])
                .attr("shrink_axis_mask", [0, 1, 0, 0, 0]),
            false,
        ),
        row(
            "W8 int4 columns",
            Box::new(W8),
            trt(DType::I4, &sq, &[0, 1], &[4096, 4095], &[1, 1], "strict_bounds"),
            false,
        ),
        row("F1 linspace", Box::new(F1), fill("linspace").attr("beta", vec![4096.0, 1.0]), true),
        row("F2 uniform", Box::new(F2), fill("random_uniform").attr("seed", 1i64), true),
        row("F3 normal", Box::new(F3), fill("random_normal").attr("seed", 1i64), true),
    ]
}

fn w6_request() -> Request {
    trt(DType::F32, &[3, 3], &[0, 0], &[2, 2], &[1, 1], "strict_bounds")
}

// ------------------------------------------------------------------- measuring

struct Buffers {
    input: Option<Tensor>,
    output: Tensor,
    scratch: Vec<u8>,
    scratch_src: Vec<u8>,
}

/// Preallocated, touched buffers for a kernel (16-byte aligned tensors).
fn buffers(k: &dyn Kernel) -> Buffers {
    let input = k.input_shape().map(|s| kerfx_derive_tests::pattern(k.dtype(), s));
    let mut output = Tensor::zeros(k.dtype(), k.output_shape()).unwrap();
    output.bytes_mut().unwrap().fill(1);
    let n = output.bytes().unwrap().len();
    Buffers { input, output, scratch: vec![2u8; n], scratch_src: vec![3u8; n] }
}

fn run(k: &dyn Kernel, input: Option<&Tensor>, output: &mut Tensor) {
    k.run_bytes(input.map(|t| t.bytes().unwrap()), output.bytes_mut().unwrap()).unwrap();
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Medians of three closures, interleaved over `rounds`.
fn interleaved<const N: usize>(rounds: usize, fs: &mut [&mut dyn FnMut(); N]) -> [Duration; N] {
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(rounds); N];
    for f in fs.iter_mut() {
        f();
    }
    for _ in 0..rounds {
        for (f, t) in fs.iter_mut().zip(&mut times) {
            let start = Instant::now();
            f();
            t.push(start.elapsed());
        }
    }
    let mut out = [Duration::ZERO; N];
    for (o, t) in out.iter_mut().zip(times) {
        *o = median(t);
    }
    out
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn table(jit: &Jit) {
    println!("\n| id | derive ms | JIT ms | JIT / derive | derive / baseline | JIT / baseline | baseline |");
    println!("|---|---|---|---|---|---|---|");
    for r in rows() {
        let jk = jit.compile(&r.request, &Options::STATIC).unwrap();
        let mut b = buffers(r.derived.as_ref());
        let mut out2 = b.output.clone();
        // Same bits from both before timing anything (a disagreement is flagged in the row).
        run(r.derived.as_ref(), b.input.as_ref(), &mut b.output);
        run(jk.as_ref(), b.input.as_ref(), &mut out2);
        let agree = b.output.bytes() == out2.bytes();
        let note = if agree { "" } else { " (outputs differ: derive and JIT disagree)" };
        let input = b.input.as_ref();
        let (out, scratch, src) = (&mut b.output, &mut b.scratch, &b.scratch_src);
        let derived = r.derived.as_ref();
        let [td, tj, tb] = if r.fill {
            interleaved(
                15,
                &mut [&mut || run(derived, input, out), &mut || run(jk.as_ref(), input, &mut out2), &mut || {
                    scratch.fill(black_box(0))
                }],
            )
        } else {
            interleaved(
                15,
                &mut [&mut || run(derived, input, out), &mut || run(jk.as_ref(), input, &mut out2), &mut || {
                    scratch.copy_from_slice(black_box(src))
                }],
            )
        };
        let base = if r.fill { "memset" } else { "memcpy" };
        println!(
            "| {}{note} | {:.3} | {:.3} | {:.2} | {:.2} | {:.2} | {base} {:.3} ms |",
            r.id,
            ms(td),
            ms(tj),
            tj.as_secs_f64() / td.as_secs_f64(),
            td.as_secs_f64() / tb.as_secs_f64(),
            tj.as_secs_f64() / tb.as_secs_f64(),
            ms(tb)
        );
    }
    // W6: one call on caller buffers, in ns (batches of 1000 calls, medians).
    let jk = jit.compile(&w6_request(), &Options::STATIC).unwrap();
    let input = [0u8; 36];
    let (mut o1, mut o2) = ([0u8; 16], [0u8; 16]);
    let typed_in = [0f32; 9];
    let mut typed_out = [0f32; 4];
    let batch = |f: &mut dyn FnMut()| {
        for _ in 0..1000 {
            f();
        }
    };
    let [td, tj, tt] = interleaved(
        101,
        &mut [
            &mut || batch(&mut || W6.run_bytes(Some(black_box(&input)), black_box(&mut o1)).unwrap()),
            &mut || batch(&mut || jk.run_bytes(Some(black_box(&input)), black_box(&mut o2)).unwrap()),
            &mut || batch(&mut || W6.run(black_box(&typed_in), black_box(&mut typed_out)).unwrap()),
        ],
    );
    let ns = |d: Duration| d.as_secs_f64() * 1e9 / 1000.0;
    println!(
        "| W6 call (ns) | {:.1} | {:.1} | {:.2} | typed `run`: {:.1} ns | | |",
        ns(td),
        ns(tj),
        tj.as_secs_f64() / td.as_secs_f64(),
        ns(tt)
    );
}

fn criterion_groups(c: &mut Criterion, jit: &Jit) {
    for r in rows() {
        let jk = jit.compile(&r.request, &Options::STATIC).unwrap();
        let mut b = buffers(r.derived.as_ref());
        let mut g = c.benchmark_group(r.id);
        g.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1));
        let input = b.input.as_ref();
        g.bench_function("derive", |bn| bn.iter(|| run(r.derived.as_ref(), input, &mut b.output)));
        g.bench_function("jit", |bn| bn.iter(|| run(jk.as_ref(), input, &mut b.output)));
        g.finish();
    }
    let jk = jit.compile(&w6_request(), &Options::STATIC).unwrap();
    let input = [0u8; 36];
    let mut out = [0u8; 16];
    c.bench_function("W6 derive", |bn| bn.iter(|| W6.run_bytes(Some(black_box(&input)), &mut out).unwrap()));
    c.bench_function("W6 jit", |bn| bn.iter(|| jk.run_bytes(Some(black_box(&input)), &mut out).unwrap()));
}

fn main() {
    let jit = Jit::default();
    if std::env::var_os("KERF_BENCH_TABLE_ONLY").is_none() {
        let mut c = Criterion::default().configure_from_args();
        criterion_groups(&mut c, &jit);
        c.final_summary();
    }
    table(&jit);
}
