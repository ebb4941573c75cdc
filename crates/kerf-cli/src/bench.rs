//! `kerf bench`: a kernel's median time on preallocated buffers against the same run's
//! baseline — memcpy of the output bytes for slices, memset for fills — so that the
//! machine's drift cancels in the ratio (see WORKLOADS.md).

use crate::backend::{self, Backend};
use crate::{CliError, outln};
use kerf::{DType, InputArg};
use std::hint::black_box;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// The most timed samples `--iters` takes (the samples are kept to take the median).
pub const MAX_ITERS: u32 = 100_000;

/// A sample of a fast call repeats it until the sample lasts at least this long.
const MIN_SAMPLE_NS: u128 = 20_000;

pub fn bench(
    path: &Path,
    json: bool,
    threads: u32,
    iters: u32,
    backend: Backend,
    dynamic: bool,
    w: &mut dyn Write,
) -> Result<(), CliError> {
    let file = kerf::request_file::load(path)?;
    // An output that cannot be allocated is refused before compiling and timing compiles.
    if let Ok(plan) = kerf::lower(&file.request) {
        let bytes = plan.dtype().buffer_bytes(volume(plan.output_shape()));
        if bytes.is_none_or(|n| Vec::<u8>::new().try_reserve_exact(n).is_err()) {
            return Err(CliError::new(format!(
                "{}: the output ({} {:?}) is too large to allocate",
                path.display(),
                plan.dtype(),
                plan.output_shape()
            )));
        }
    }
    let compiled = backend::compile(&file, backend, dynamic, threads)?;
    let kernel = compiled.kernel.as_ref();
    let here = |m: String| CliError::new(format!("{}: {m}", path.display()));
    if kernel.dtype() == DType::String {
        return Err(here("string tensors are not plain memory; kerf bench times byte-moving kernels only".into()));
    }
    let out_bytes = kernel
        .dtype()
        .buffer_bytes(volume(kernel.output_shape()))
        .ok_or_else(|| here("the output is too large".into()))?;
    // The input: the request's values when it has them, else arbitrary (a byte pattern).
    let input: Option<Vec<u8>> = match kernel.input_shape() {
        None => None,
        Some(shape) => {
            let given = kerf::op_spec(&file.request.op)
                .ok()
                .and_then(kerf::data_input_name)
                .and_then(|n| file.request.inputs.get(n))
                .and_then(InputArg::tensor)
                .and_then(|t| t.bytes().map(<[u8]>::to_vec));
            Some(match given {
                Some(b) => b,
                None => {
                    let n = kernel
                        .dtype()
                        .buffer_bytes(volume(shape))
                        .ok_or_else(|| here("the input is too large".into()))?;
                    let mut v = try_alloc(n).map_err(here)?;
                    for (i, b) in v.iter_mut().enumerate() {
                        *b = (i as u8).wrapping_mul(31).wrapping_add(7) & pattern_mask(kernel.dtype());
                    }
                    v
                }
            })
        }
    };
    let mut out = try_alloc(out_bytes).map_err(here)?;
    out.fill(1); // touch every page before timing
    kernel.run_bytes(input.as_deref(), &mut out).map_err(|e| here(e.to_string()))?;

    let is_fill = input.is_none();
    let mut src = try_alloc(out_bytes).map_err(here)?;
    src.fill(3);
    let mut dst = try_alloc(out_bytes).map_err(here)?;
    dst.fill(1);
    let (median_ns, baseline_median_ns) = measure_pair(
        iters,
        || {
            let r = kernel.run_bytes(black_box(input.as_deref()), black_box(&mut out));
            black_box(r).ok();
        },
        || {
            if is_fill {
                black_box(&mut dst).fill(black_box(0x5a));
            } else {
                black_box(&mut dst).copy_from_slice(black_box(&src));
            }
        },
    );
    let baseline = if is_fill { "memset" } else { "memcpy" };
    let ratio = if baseline_median_ns > 0.0 { median_ns / baseline_median_ns } else { f64::INFINITY };
    if json {
        let obj = serde_json::json!({
            "median_ns": median_ns,
            "baseline": baseline,
            "baseline_median_ns": baseline_median_ns,
            "ratio": if ratio.is_finite() { serde_json::json!(ratio) } else { serde_json::Value::Null },
            "compile_us": compiled.compile_us,
            "cache_hit_ns": compiled.cache_hit_ns,
            "threads": compiled.threads,
            "bytes": out_bytes,
        });
        outln!(w, "{obj}");
    } else {
        let kind = if dynamic { "dynamic" } else { "static" };
        outln!(
            w,
            "{} on {} ({kind}), {out_bytes} output bytes, {} thread(s), median of {iters} samples:",
            file.request.op,
            backend.name(),
            compiled.threads
        );
        outln!(w, "  kernel    {:>14.1} ns", median_ns);
        outln!(w, "  {baseline:<9} {:>14.1} ns", baseline_median_ns);
        outln!(w, "  ratio     {:>14.3}", ratio);
        outln!(w, "  compile   {:>14.1} µs", compiled.compile_us);
        match compiled.cache_hit_ns {
            Some(ns) => outln!(w, "  cache hit {:>14.1} ns", ns),
            None => outln!(w, "  cache hit {:>14}", "n/a"),
        }
    }
    Ok(())
}

fn volume(shape: &[u64]) -> u64 {
    kerf::volume(shape).unwrap_or(u64::MAX)
}

/// Arbitrary input bytes must still be valid elements: bool takes 0/1.
fn pattern_mask(dtype: DType) -> u8 {
    if dtype == DType::Bool { 1 } else { 0xff }
}

fn try_alloc(n: usize) -> Result<Vec<u8>, String> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| format!("cannot allocate {n} bytes for the benchmark"))?;
    v.resize(n, 0);
    Ok(v)
}

/// Median ns per call of `f` and of `g`, sampled alternately so drift hits both alike.
fn measure_pair(iters: u32, mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, f64) {
    let reps_f = calibrate(&mut f);
    let reps_g = calibrate(&mut g);
    let mut sf = Vec::with_capacity(iters as usize);
    let mut sg = Vec::with_capacity(iters as usize);
    for _ in 0..iters {
        sf.push(sample(&mut f, reps_f));
        sg.push(sample(&mut g, reps_g));
    }
    (backend::median(&mut sf), backend::median(&mut sg))
}

/// How many calls one sample makes (and a warm-up).
fn calibrate(f: &mut impl FnMut()) -> u32 {
    let t = Instant::now();
    f();
    let one = t.elapsed().as_nanos().max(1);
    let reps = (MIN_SAMPLE_NS / one).clamp(1, 1_000_000) as u32;
    sample(f, reps);
    reps
}

fn sample(f: &mut impl FnMut(), reps: u32) -> f64 {
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    t.elapsed().as_nanos() as f64 / reps as f64
}
