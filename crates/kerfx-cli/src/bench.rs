//! `kerf bench`: a kernel's time on preallocated buffers against the same run's
//! baseline — memcpy of the output bytes for slices, memset for fills — so that the
//! machine's drift cancels in the ratio of the medians (the performance table in
//! crates/README.md). Every timed figure is reported as min / median / max of its samples (JSON: also the 10th and 90th
//! percentiles).

use crate::backend::{self, Backend};
use crate::{CliError, outln};
use kerfx::{DType, Kernel};
use std::hint::black_box;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// The most timed samples `--iters` takes (the samples are kept to take the median).
pub const MAX_ITERS: u32 = 100_000;

/// A sample of a fast call repeats it until the sample lasts at least this long.
const MIN_SAMPLE_NS: u128 = 20_000;

/// A peer library timed beside kerf (see [`crate::peer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Peer {
    /// ndarray: slices assigned from sliced views, linspaces row by row
    Ndarray,
}

/// `kerf bench`'s options.
pub struct Options {
    pub json: bool,
    pub threads: u32,
    pub iters: u32,
    pub backend: Backend,
    pub dynamic: bool,
    pub peers: Vec<Peer>,
}

pub fn bench(path: &Path, opts: &Options, w: &mut dyn Write) -> Result<(), CliError> {
    let &Options { json, threads, iters, backend, dynamic, .. } = opts;
    use kerfx::request_file::{AnyFile, RunFile};
    let file = match kerfx::request_file::load_run_file(path)? {
        RunFile::Graph(g) => {
            if !opts.peers.is_empty() {
                return Err(CliError::new(format!("{}: --peer times single requests, not graphs", path.display())));
            }
            return bench_graph(&g, json, iters, backend, dynamic, w);
        }
        RunFile::Any(AnyFile::Request(f)) => f,
        RunFile::Any(AnyFile::Chain(f)) => {
            if !opts.peers.is_empty() {
                return Err(CliError::new(format!("{}: --peer times single requests, not chains", path.display())));
            }
            return bench_chain(&f, json, threads, iters, backend, dynamic, w);
        }
    };
    // An output that cannot be allocated is refused before compiling and timing compiles.
    if let Ok(plan) = kerfx::lower(&file.request) {
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
    let buffer = |shape: &[u64], what: &str| {
        kernel.dtype().buffer_bytes(volume(shape)).ok_or_else(|| here(format!("the {what} is too large")))
    };
    // The inputs: the request's values when it has them, else arbitrary (a byte pattern).
    let given = kerfx::program_inputs(&file.request).unwrap_or_default();
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for (i, shape) in kernel.input_shapes().into_iter().enumerate() {
        let values = given.get(i).filter(|t| t.shape() == shape).and_then(|t| t.bytes().map(<[u8]>::to_vec));
        inputs.push(match values {
            Some(b) => b,
            None => pattern_input(buffer(shape, "input")?, kernel.dtype()).map_err(here)?,
        });
    }
    let mut outs: Vec<Vec<u8>> = Vec::new();
    for shape in kernel.output_shapes() {
        let mut out = try_alloc(buffer(shape, "output")?).map_err(here)?;
        out.fill(1); // touch every page before timing
        outs.push(out);
    }
    let out_bytes: usize = outs.iter().map(Vec::len).sum();
    let input_refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let mut out_refs: Vec<&mut [u8]> = outs.iter_mut().map(Vec::as_mut_slice).collect();
    kernel.run_buffers(&input_refs, &mut out_refs).map_err(|e| here(e.to_string()))?;

    let mut base = Baseline::new(out_bytes, inputs.is_empty()).map_err(here)?;
    let (kernel_ns, baseline_ns) = measure_pair(
        iters,
        || {
            let r = kernel.run_buffers(black_box(&input_refs), black_box(&mut out_refs));
            black_box(r).ok();
        },
        || base.run(),
    );
    drop(out_refs);
    let (median_ns, baseline_median_ns) = (kernel_ns.median, baseline_ns.median);
    // Each peer: its job's output equals the kernel's, then the same protocol.
    let mut peers = Vec::new();
    for &peer in &opts.peers {
        let name = match peer {
            Peer::Ndarray => "ndarray",
        };
        let plan = kerfx::lower(&file.request).map_err(|e| here(format!("--peer {name}: {e}")))?;
        let mut job = crate::peer::ndarray_job(&plan, inputs.first().map(Vec::as_slice))
            .map_err(|e| here(format!("--peer {name}: {e}")))?;
        job.run();
        if outs.len() != 1 || job.output_bytes() != outs[0] {
            return Err(here(format!(
                "the {name} peer's output differs from the kernel's (a bug in kerf or in the peer)"
            )));
        }
        let (peer_ns, base_ns) = measure_pair(iters, || job.run(), || base.run());
        peers.push((name, peer_ns, base_ns));
    }
    let baseline = base.name();
    let ratio = if baseline_median_ns > 0.0 { median_ns / baseline_median_ns } else { f64::INFINITY };
    let compile_us = Stats::of(&mut compiled.compile_us.clone());
    let cache_hit_ns = compiled.cache_hit_ns.clone().map(|mut v| Stats::of(&mut v));
    if json {
        let mut obj = serde_json::json!({
            "median_ns": median_ns,
            "baseline": baseline,
            "baseline_median_ns": baseline_median_ns,
            "ratio": finite(ratio),
            "compile_us": compile_us.median,
            "cache_hit_ns": cache_hit_ns.map(|s| s.median),
            "threads": compiled.threads,
            "bytes": out_bytes,
        });
        kernel_ns.add_to(&mut obj, "", "ns");
        baseline_ns.add_to(&mut obj, "baseline_", "ns");
        compile_us.add_to(&mut obj, "compile_", "us");
        match cache_hit_ns {
            Some(hit) => hit.add_to(&mut obj, "cache_hit_", "ns"),
            None => Stats::add_nulls(&mut obj, "cache_hit_", "ns"),
        }
        if !peers.is_empty() {
            let each = peers.iter().map(|&(name, ns, base)| {
                let mut o = serde_json::json!({
                    "median_ns": ns.median,
                    "baseline_median_ns": base.median,
                    "ratio": finite(ns.median / base.median),
                });
                ns.add_to(&mut o, "", "ns");
                base.add_to(&mut o, "baseline_", "ns");
                (name.to_string(), o)
            });
            obj["peers"] = serde_json::Value::Object(each.collect());
        }
        outln!(w, "{obj}");
    } else {
        let kind = if dynamic { "dynamic" } else { "static" };
        outln!(
            w,
            "{} on {} ({kind}), {out_bytes} output bytes, {} thread(s), {iters} samples each:",
            file.request.op,
            backend.name(),
            compiled.threads
        );
        outln!(w, "{}", Stats::header());
        outln!(w, "{}", kernel_ns.row("kernel", ""));
        outln!(w, "{}", baseline_ns.row(baseline, ""));
        outln!(w, "  {:<10} {ratio:>10.3}   (kernel median / {baseline} median)", "ratio");
        for &(name, ns, base) in &peers {
            outln!(w, "{}", ns.row(name, ""));
            outln!(w, "{}", base.row(baseline, &format!("   (timed beside {name})")));
            outln!(w, "  {:<10} {:>10.3}   ({name} median / its {baseline} median)", "ratio", ns.median / base.median);
        }
        let n = match compiled.compile_us.len() {
            1 => "1 sample".to_string(),
            n => format!("{n} samples"),
        };
        outln!(w, "{}", compile_us.scaled(1e3).row("compile", &format!("   ({n}, nothing cached)")));
        match (cache_hit_ns, &compiled.cache_hit_ns) {
            (Some(hit), Some(v)) => outln!(w, "{}", hit.row("cache hit", &format!("   ({} samples)", v.len()))),
            _ => outln!(w, "  {:<10} {:>10}   (the reference has no kernel cache)", "cache hit", "n/a"),
        }
    }
    Ok(())
}

/// A number for JSON; an infinite or NaN ratio is `null`.
fn finite(v: f64) -> serde_json::Value {
    if v.is_finite() { serde_json::json!(v) } else { serde_json::Value::Null }
}

/// A timed figure's samples summarized: nanoseconds (microseconds for compile times).
#[derive(Clone, Copy, Debug)]
struct Stats {
    min: f64,
    p10: f64,
    median: f64,
    p90: f64,
    max: f64,
}

impl Stats {
    /// The text form's column header, aligned with [`Stats::row`].
    fn header() -> String {
        format!("  {:<10} {:>10}   {:>10}   {:>10}", "", "min", "median", "max")
    }

    /// The summary of `samples` (sorted in place); percentiles by nearest rank, the median
    /// as [`backend::median`] takes it. No samples: every figure NaN.
    fn of(samples: &mut [f64]) -> Stats {
        let median = backend::median(samples);
        let n = samples.len();
        if n == 0 {
            return Stats { min: f64::NAN, p10: f64::NAN, median, p90: f64::NAN, max: f64::NAN };
        }
        let rank = |p: usize| samples[(p * n).div_ceil(100).clamp(1, n) - 1];
        Stats { min: samples[0], p10: rank(10), median, p90: rank(90), max: samples[n - 1] }
    }

    /// Every figure times `k` (µs → ns).
    fn scaled(self, k: f64) -> Stats {
        Stats { min: self.min * k, p10: self.p10 * k, median: self.median * k, p90: self.p90 * k, max: self.max * k }
    }

    /// `{prefix}min_{unit}`, `{prefix}p10_{unit}`, `{prefix}p90_{unit}` and
    /// `{prefix}max_{unit}` beside the median the object already holds.
    fn add_to(&self, obj: &mut serde_json::Value, prefix: &str, unit: &str) {
        for (name, v) in [("min", self.min), ("p10", self.p10), ("p90", self.p90), ("max", self.max)] {
            obj[format!("{prefix}{name}_{unit}")] = finite(v);
        }
    }

    /// The same keys as [`Stats::add_to`], each `null` (a figure that was not measured).
    fn add_nulls(obj: &mut serde_json::Value, prefix: &str, unit: &str) {
        for name in ["min", "p10", "p90", "max"] {
            obj[format!("{prefix}{name}_{unit}")] = serde_json::Value::Null;
        }
    }

    /// `  label   min / median / max`, each in ns, µs, ms or s as its size calls for, then
    /// `note`.
    fn row(&self, label: &str, note: &str) -> String {
        format!("  {label:<10} {:>10} / {:>10} / {:>10}{note}", time(self.min), time(self.median), time(self.max))
    }
}

/// A time in nanoseconds with its unit: `812.4 ns`, `12.35 µs`, `3.456 ms`, `1.234 s`.
fn time(ns: f64) -> String {
    if !ns.is_finite() {
        "n/a".into()
    } else if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.3} ms", ns / 1e6)
    } else {
        format!("{:.3} s", ns / 1e9)
    }
}

/// The baseline a kernel is timed against: a memset (fills) or a memcpy (everything
/// else) of as many bytes as its output, between preallocated buffers touched once.
struct Baseline {
    src: Vec<u8>,
    dst: Vec<u8>,
    is_fill: bool,
}

impl Baseline {
    fn new(bytes: usize, is_fill: bool) -> Result<Baseline, String> {
        let mut src = try_alloc(bytes)?;
        src.fill(3);
        let mut dst = try_alloc(bytes)?;
        dst.fill(1);
        Ok(Baseline { src, dst, is_fill })
    }

    fn name(&self) -> &'static str {
        if self.is_fill { "memset" } else { "memcpy" }
    }

    fn run(&mut self) {
        if self.is_fill {
            black_box(&mut self.dst).fill(black_box(0x5a));
        } else {
            black_box(&mut self.dst).copy_from_slice(black_box(&self.src));
        }
    }
}

fn volume(shape: &[u64]) -> u64 {
    kerfx::volume(shape).unwrap_or(u64::MAX)
}

/// `n` arbitrary input bytes (a byte pattern) that are still valid elements of `dtype`:
/// bool takes 0/1.
fn pattern_input(n: usize, dtype: DType) -> Result<Vec<u8>, String> {
    let mask = if dtype == DType::Bool { 1 } else { 0xff };
    let mut v = try_alloc(n)?;
    for (i, b) in v.iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(31).wrapping_add(7) & mask;
    }
    Ok(v)
}

fn try_alloc(n: usize) -> Result<Vec<u8>, String> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| format!("cannot allocate {n} bytes for the benchmark"))?;
    v.resize(n, 0);
    Ok(v)
}

/// Ns per call of `f` and of `g`, sampled alternately so drift hits both alike.
fn measure_pair(iters: u32, mut f: impl FnMut(), mut g: impl FnMut()) -> (Stats, Stats) {
    let reps_f = calibrate(&mut f);
    let reps_g = calibrate(&mut g);
    let mut sf = Vec::with_capacity(iters as usize);
    let mut sg = Vec::with_capacity(iters as usize);
    for _ in 0..iters {
        sf.push(sample(&mut f, reps_f));
        sg.push(sample(&mut g, reps_g));
    }
    (Stats::of(&mut sf), Stats::of(&mut sg))
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

/// `kerf bench GRAPH.toml`: the graph as `kerf run` runs it — cut into programs,
/// prepared once — against memcpy of its output bytes. A graph of one program runs into
/// preallocated outputs (`Prepared::run_into`); others allocate theirs as a run does.
/// Inputs given by dtype and shape only get arbitrary bytes.
fn bench_graph(
    file: &kerfx::request_file::GraphFile,
    json: bool,
    iters: u32,
    backend: Backend,
    dynamic: bool,
    w: &mut dyn Write,
) -> Result<(), CliError> {
    use kerfx::graph::{Backend as GraphBackend, Prepared};
    let here = |m: String| CliError::new(format!("{}: {m}", file.path.display()));
    let prepared = Prepared::new(file.graph.clone()).map_err(|e| here(e.to_string()))?;
    let jit = backend::jit().map_err(|e| here(e.to_string()))?;
    let graph_backend = match backend {
        Backend::Jit => GraphBackend::Jit { jit, dynamic },
        Backend::Reference => GraphBackend::Reference,
    };
    let mut inputs = file.inputs.clone();
    for input in &file.graph.inputs {
        if !inputs.contains_key(&input.name) {
            let n =
                input.dtype.buffer_bytes(volume(&input.shape)).ok_or_else(|| here("an input is too large".into()))?;
            let bytes = pattern_input(n, input.dtype).map_err(here)?;
            let t = kerfx::Tensor::from_bytes(input.dtype, &input.shape, &bytes).map_err(|e| here(e.to_string()))?;
            inputs.insert(input.name.clone(), t);
        }
    }
    let views = inputs.iter().map(|(k, t)| (k.clone(), t.view())).collect();
    let results = prepared.run_views(&views, graph_backend).map_err(|e| here(e.to_string()))?;
    if results.iter().any(|(_, t)| t.dtype() == DType::String) {
        return Err(here("string tensors are not plain memory; kerf bench times byte-moving kernels only".into()));
    }
    let out_bytes: usize = results.iter().filter_map(|(_, t)| t.bytes().map(<[u8]>::len)).sum();
    let direct = matches!(backend, Backend::Jit) && prepared.single_program().is_some();
    let mut outs: Vec<Vec<u8>> =
        results.iter().map(|(_, t)| t.bytes().map(<[u8]>::to_vec).unwrap_or_default()).collect();
    let mut base = Baseline::new(out_bytes, false).map_err(here)?;
    let (graph_ns, baseline_ns) = if direct {
        let mut refs: Vec<&mut [u8]> = outs.iter_mut().map(Vec::as_mut_slice).collect();
        measure_pair(
            iters,
            || {
                black_box(prepared.run_into(black_box(&views), black_box(&mut refs), jit, dynamic)).ok();
            },
            || base.run(),
        )
    } else {
        measure_pair(
            iters,
            || {
                black_box(prepared.run_views(black_box(&views), graph_backend)).ok();
            },
            || base.run(),
        )
    };
    let ratio = graph_ns.median / baseline_ns.median;
    let programs = prepared.groups().len();
    if json {
        let mut obj = serde_json::json!({
            "median_ns": graph_ns.median,
            "baseline": "memcpy",
            "baseline_median_ns": baseline_ns.median,
            "ratio": finite(ratio),
            "programs": programs,
            "nodes": file.graph.nodes.len(),
            "into_buffers": direct,
            "bytes": out_bytes,
        });
        graph_ns.add_to(&mut obj, "", "ns");
        baseline_ns.add_to(&mut obj, "baseline_", "ns");
        outln!(w, "{obj}");
    } else {
        let kind = if dynamic { "dynamic" } else { "static" };
        let how = if direct { "into preallocated outputs" } else { "allocating its outputs" };
        outln!(
            w,
            "a graph of {} nodes in {programs} program(s) on {} ({kind}), {how}, {out_bytes} output bytes, {iters} samples each:",
            file.graph.nodes.len(),
            backend.name()
        );
        outln!(w, "{}", Stats::header());
        outln!(w, "{}", graph_ns.row("graph", ""));
        outln!(w, "{}", baseline_ns.row("memcpy", ""));
        outln!(w, "  {:<10} {ratio:>10.3}   (graph median / memcpy median)", "ratio");
    }
    Ok(())
}

/// `kerf bench CHAIN.toml`: the fused kernel against memcpy of the output, and against
/// the steps' static kernels run one after another on preallocated intermediates (what a
/// runtime that runs one op at a time does).
fn bench_chain(
    file: &kerfx::request_file::ChainFile,
    json: bool,
    threads: u32,
    iters: u32,
    backend: Backend,
    dynamic: bool,
    w: &mut dyn Write,
) -> Result<(), CliError> {
    let here = |m: String| CliError::new(format!("{}: {m}", file.path.display()));
    if backend != Backend::Jit || dynamic {
        return Err(here("kerf bench times a chain's static JIT kernels (--backend jit, no --dynamic)".into()));
    }
    let chain = file.chain();
    let lowered = kerfx::chain::lower_chain(&chain).map_err(|e| CliError::new(file.describe_error(&e)))?;
    let fused = lowered.fused().map_err(|e| CliError::new(file.describe_error(&e)))?;
    if fused.dtype == DType::String {
        return Err(here("string tensors are not plain memory; kerf bench times byte-moving kernels only".into()));
    }
    let settings = kerfx::JitSettings { threads: threads as usize, ..kerfx::JitSettings::default() };
    let jit = kerfx::Jit::new(settings).map_err(|e| here(e.to_string()))?;
    let t = Instant::now();
    // (Strings were refused above: every other chain is one loop nest.)
    let kernel = jit.compile(fused, &kerfx::Options::STATIC).map_err(|e| CliError::new(file.describe_error(&e)))?;
    let compile_us = t.elapsed().as_secs_f64() * 1e6;
    let steps = lowered
        .plans
        .iter()
        .map(|p| jit.compile(p, &kerfx::Options::STATIC))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| here(e.to_string()))?;
    let bytes_of = |shape: &[u64]| {
        fused.dtype.buffer_bytes(volume(shape)).ok_or_else(|| here(format!("a tensor of shape {shape:?} is too large")))
    };
    let input: Option<Vec<u8>> = match &fused.head {
        kerfx::chain::Head::Fill(_) => None,
        kerfx::chain::Head::Input { shape } => Some(match kerfx::chain::chain_input(&chain).ok().flatten() {
            Some(t) => t.bytes().map(<[u8]>::to_vec).unwrap_or_default(),
            None => pattern_input(bytes_of(shape)?, fused.dtype).map_err(here)?,
        }),
    };
    let out_bytes = bytes_of(&fused.output_shape)?;
    let mut out = try_alloc(out_bytes).map_err(here)?;
    out.fill(1);
    // One buffer per step's output (the last one is the chain's output).
    let mut inter: Vec<Vec<u8>> = Vec::new();
    for p in &lowered.plans {
        let mut b = try_alloc(bytes_of(p.output_shape())?).map_err(here)?;
        b.fill(1);
        inter.push(b);
    }
    let run_unfused = |inter: &mut Vec<Vec<u8>>| -> Result<(), kerfx::Error> {
        for (k, step) in steps.iter().enumerate() {
            let (done, rest) = inter.split_at_mut(k);
            let src = match done.last() {
                Some(prev) => Some(prev.as_slice()),
                None => input.as_deref(),
            };
            step.run_bytes(src, &mut rest[0])?;
        }
        Ok(())
    };
    kernel.run_bytes(input.as_deref(), &mut out).map_err(|e| here(e.to_string()))?;
    run_unfused(&mut inter).map_err(|e| here(e.to_string()))?;
    if inter.last().map(Vec::as_slice) != Some(out.as_slice()) {
        return Err(here("the fused kernel's output differs from the steps' (a bug in kerf)".into()));
    }
    let mut base = Baseline::new(out_bytes, false).map_err(here)?;
    let (fused_ns, baseline_ns) = measure_pair(
        iters,
        || {
            black_box(kernel.run_bytes(black_box(input.as_deref()), black_box(&mut out))).ok();
        },
        || base.run(),
    );
    let (_, unfused_ns) = measure_pair(
        iters,
        || {
            black_box(kernel.run_bytes(black_box(input.as_deref()), black_box(&mut out))).ok();
        },
        || {
            black_box(run_unfused(black_box(&mut inter))).ok();
        },
    );
    let (median_ns, baseline_median_ns, unfused_median_ns) = (fused_ns.median, baseline_ns.median, unfused_ns.median);
    let ratio = if baseline_median_ns > 0.0 { median_ns / baseline_median_ns } else { f64::INFINITY };
    let speedup = unfused_median_ns / median_ns;
    let compile = Stats::of(&mut [compile_us]);
    if json {
        let mut obj = serde_json::json!({
            "median_ns": median_ns,
            "baseline": base.name(),
            "baseline_median_ns": baseline_median_ns,
            "ratio": finite(ratio),
            "unfused_median_ns": unfused_median_ns,
            "speedup_vs_unfused": finite(speedup),
            "steps": lowered.plans.len(),
            "compile_us": compile_us,
            "cache_hit_ns": serde_json::Value::Null,
            "threads": threads,
            "bytes": out_bytes,
        });
        fused_ns.add_to(&mut obj, "", "ns");
        baseline_ns.add_to(&mut obj, "baseline_", "ns");
        unfused_ns.add_to(&mut obj, "unfused_", "ns");
        compile.add_to(&mut obj, "compile_", "us");
        Stats::add_nulls(&mut obj, "cache_hit_", "ns");
        outln!(w, "{obj}");
    } else {
        outln!(
            w,
            "chain of {} steps, fused on jit, {out_bytes} output bytes, {threads} thread(s), {iters} samples each:",
            lowered.plans.len()
        );
        outln!(w, "{}", Stats::header());
        outln!(w, "{}", fused_ns.row("fused", ""));
        outln!(w, "{}", baseline_ns.row(base.name(), ""));
        outln!(w, "  {:<10} {ratio:>10.3}   (fused median / {} median)", "ratio", base.name());
        outln!(w, "{}", unfused_ns.row("unfused", "   (the steps' kernels one after another)"));
        outln!(w, "  {:<10} {speedup:>10.3}   (unfused median / fused median)", "speedup");
        outln!(w, "{}", compile.scaled(1e3).row("compile", "   (1 sample, nothing cached)"));
    }
    Ok(())
}
