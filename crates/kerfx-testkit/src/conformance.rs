//! The conformance suite (tests/data/conformance, copied from the shared cases): every
//! case runs on every backend — one suite, instantiated per backend (`conformance_suite!`
//! for the run-time backends, [`derive_suite`] for the derive, whose kernels must be
//! written out at build time), one `#[test]` per case so a failure names both.
//!
//! A case folder holds `request.toml` and its `.npy` inputs, and one of:
//! - `expected.npy`: dtype, shape and every value must match exactly (bit for bit);
//! - `expected_error`: the request must fail (loading or lowering or running);
//! - `expected_stats.json`: a random fill, checked for dtype, shape, range, mean and
//!   standard deviation within tolerance, closeness to the named distribution
//!   (Kolmogorov–Smirnov), and identical bits on a second run with the same seed.

use crate::cases::{case_names, data_dir, ident};
use crate::render::derive_attributes;
use kerfx::chain::ChainRequest;
use kerfx::request_file::AnyFile;
use kerfx::{DType, Kernel, Request, Tensor};
use std::fmt::Write;
use std::path::Path;

/// A backend the suite runs on.
#[derive(Clone, Copy)]
pub enum Backend {
    /// `kerfx_ir::lower` + `kerfx_ir::reference::evaluate`: the oracle.
    Reference,
    /// The Cranelift JIT, a static kernel per plan (every number baked in).
    JitStatic,
    /// The Cranelift JIT, a dynamic kernel per op, mode, dtype and rank: the cases share
    /// one JIT, so most of them run on a kernel compiled for another case's plan.
    JitDynamic,
    /// A kernel derived at build time from the case's request (`#[derive(kerfx::Kernel)]`).
    Derive(&'static dyn Kernel),
    /// A kernel compiled ahead of time (`kerfx-aot`) from the case's request or chain,
    /// linked into a shared object and loaded: its entry point behind [`Kernel`].
    Aot(&'static dyn Kernel),
    /// A program kernel (an op over several inputs or outputs: Concat, Split) compiled
    /// ahead of time, linked and loaded: its one entry point behind [`ProgramEntry`].
    AotProgram(&'static dyn ProgramEntry),
    /// A dynamic kernel compiled ahead of time (`kerfx-aot`, `dynamic = true`), linked and
    /// loaded, shared by the cases of its op, mode, dtype and rank: each case runs through
    /// a plan the runtime library builds from the case's own numbers ([`DynamicEntry`]).
    AotDynamic(&'static dyn DynamicEntry),
}

/// A dynamic kernel written ahead of time, run on a request's numbers: its input's shape
/// and its parameters given to the kernel's plan constructor, the plan run on the
/// request's data input (the suite's view of a dynamic kernel's two entry points).
pub trait DynamicEntry: Sync {
    /// The output of `request` (its data input given with values).
    fn run_request(&self, request: &Request) -> Result<Tensor, kerfx::Error>;
}

/// A compiled kernel over several inputs and outputs, run on caller-owned dense buffers
/// (the suite's view of a program entry point).
pub trait ProgramEntry: Sync {
    /// The element type of every buffer.
    fn dtype(&self) -> DType;
    /// The shape of each output, in order.
    fn output_shapes(&self) -> &[Vec<u64>];
    /// Run on `inputs` (each its input's raw bytes, in order) into `outputs` (each its
    /// output's bytes).
    fn run_buffers(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<(), kerfx::Error>;
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Backend::Reference => "Reference",
            Backend::JitStatic => "JitStatic",
            Backend::JitDynamic => "JitDynamic",
            Backend::Derive(_) => "Derive",
            Backend::Aot(_) => "Aot",
            Backend::AotProgram(_) => "AotProgram",
            Backend::AotDynamic(_) => "AotDynamic",
        })
    }
}

/// One JIT for the whole suite, as an application would keep one.
fn jit() -> &'static kerfx::Jit {
    static JIT: std::sync::OnceLock<kerfx::Jit> = std::sync::OnceLock::new();
    JIT.get_or_init(kerfx::Jit::default)
}

impl Backend {
    /// Every output of a request (one for most ops; Split's parts).
    fn run(self, request: &Request) -> Result<Vec<Tensor>, kerfx::Error> {
        match self {
            Backend::Reference => kerfx::run_reference_outputs(request),
            Backend::JitStatic => kerfx::run_jit_outputs(jit(), request, false),
            Backend::JitDynamic => kerfx::run_jit_outputs(jit(), request, true),
            // A derived program (Concat, Split): every buffer through `run_buffers`.
            Backend::Derive(kernel) if kerfx::is_program_op(&request.op)? => {
                let shapes: Vec<Vec<u64>> = kernel.output_shapes().iter().map(|s| s.to_vec()).collect();
                run_on_buffers(request, kernel.dtype(), &shapes, &|i, o| kernel.run_buffers(i, o))
            }
            Backend::Derive(kernel) | Backend::Aot(kernel) => {
                Ok(vec![kernel.run_tensor(kerfx::data_input(request)?.map(Tensor::view))?])
            }
            Backend::AotProgram(kernel) => {
                run_on_buffers(request, kernel.dtype(), kernel.output_shapes(), &|i, o| kernel.run_buffers(i, o))
            }
            Backend::AotDynamic(kernel) => Ok(vec![kernel.run_request(request)?]),
        }
    }

    /// A chain (`chain_*` cases): fused on every run-time backend (the static JIT compiles
    /// the chain's nest, the dynamic JIT runs it as a dynamic kernel's arguments; chains no
    /// single nest can say run their steps' kernels), and compared with the reference
    /// running the steps one by one. The derive compiles one op: [`derive_suite`] leaves
    /// chains out.
    fn run_chain(self, chain: &ChainRequest) -> Result<Tensor, kerfx::Error> {
        let out = match self {
            Backend::Reference => kerfx::chain::run_chain_reference(chain, true),
            Backend::JitStatic => kerfx::chain::run_chain_jit(jit(), chain, true, false),
            Backend::JitDynamic => kerfx::chain::run_chain_jit(jit(), chain, true, true),
            Backend::Derive(_) => unreachable!("derive_suite holds no chain case"),
            Backend::AotProgram(_) => {
                return Err(kerfx::Error::Invalid { what: "a chain is one kernel, not a program".into() });
            }
            Backend::AotDynamic(_) => {
                return Err(kerfx::Error::Invalid { what: "a dynamic kernel written ahead of time is one op".into() });
            }
            Backend::Aot(kernel) => kernel.run_tensor(kerfx::chain::chain_input(chain)?.map(Tensor::view)),
        }?;
        let unfused = kerfx::chain::run_chain_reference(chain, false)?;
        assert!(out == unfused, "{self:?}: the chain differs from its steps run one by one");
        Ok(out)
    }
}

/// A kernel's `run_buffers`: input buffers, output buffers.
type RunBuffers<'a> = dyn Fn(&[&[u8]], &mut [&mut [u8]]) -> Result<(), kerfx::Error> + 'a;

/// Run a program kernel's `run_buffers` on a request's inputs (raw bytes, in order) into
/// fresh outputs of `shapes`.
fn run_on_buffers(
    request: &Request,
    dtype: DType,
    shapes: &[Vec<u64>],
    run: &RunBuffers<'_>,
) -> Result<Vec<Tensor>, kerfx::Error> {
    let inputs = kerfx::program_inputs(request)?;
    let bytes: Vec<&[u8]> = inputs
        .iter()
        .map(|t| t.bytes().ok_or_else(|| kerfx::Error::Invalid { what: "a program of strings".into() }))
        .collect::<Result<_, _>>()?;
    let mut outputs: Vec<Tensor> = shapes.iter().map(|s| Tensor::zeros(dtype, s)).collect::<Result<_, _>>()?;
    let mut buffers: Vec<&mut [u8]> = outputs
        .iter_mut()
        .map(|t| t.bytes_mut().ok_or_else(|| kerfx::Error::Invalid { what: "a program of strings".into() }))
        .collect::<Result<_, _>>()?;
    run(&bytes, &mut buffers)?;
    Ok(outputs)
}

/// Load and run a case's request (or chain) on a backend: its outputs, by name, or any
/// failure (file or lowering) as text.
fn run_case(backend: Backend, dir: &Path) -> Result<Vec<(String, Tensor)>, String> {
    match kerfx::request_file::load_any(&dir.join("request.toml")).map_err(|e| e.to_string())? {
        AnyFile::Request(file) => {
            let outs = backend.run(&file.request).map_err(|e| file.describe_error(&e))?;
            let names = kerfx::output_names(&file.request, outs.len()).map_err(|e| e.to_string())?;
            Ok(names.into_iter().zip(outs).collect())
        }
        AnyFile::Chain(file) => {
            let out = backend.run_chain(&file.chain()).map_err(|e| file.describe_error(&e))?;
            Ok(vec![("output".into(), out)])
        }
    }
}

/// The suite's check of one case on one backend (called by the generated tests).
pub fn check_case(backend: Backend, case: &str) {
    let dir = data_dir().join(case);
    let what = format!("{backend:?} {case}");
    let result = run_case(backend, &dir);
    if dir.join("expected_error").exists() {
        if let Ok(t) = result {
            let shown: Vec<String> = t.iter().map(|(n, t)| format!("{n}: {}", kerfx::display::describe(t))).collect();
            panic!("{what}: must fail, but gave {}", shown.join("; "));
        }
        return;
    }
    let outs = result.unwrap_or_else(|e| panic!("{what}: failed: {e}"));
    if dir.join("expected.npz").exists() {
        let dtype_of = |name: &str| outs.iter().find(|(n, _)| n == name).map(|(_, t)| t.dtype());
        let expected =
            kerfx::npz::read_as(&dir.join("expected.npz"), &|name| dtype_of(name).filter(|d| lacks_numpy_type(*d)))
                .unwrap_or_else(|e| panic!("{e}"));
        let names = |v: &[(String, Tensor)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(&outs), names(&expected), "{what}: output names (got, expected)");
        for ((name, out), (_, exp)) in outs.iter().zip(&expected) {
            assert_same(&format!("{what} {name}"), out, exp);
        }
        return;
    }
    let [(_, out)] = &outs[..] else { panic!("{what}: {} outputs, expected.npy holds one", outs.len()) };
    if dir.join("expected.npy").exists() {
        let expected = read_expected(&dir.join("expected.npy"), out.dtype());
        assert_same(&what, out, &expected);
    } else if dir.join("expected_stats.json").exists() {
        check_stats(&what, out, &dir.join("expected_stats.json"));
        let again = run_case(backend, &dir).unwrap_or_else(|e| panic!("{what}: second run failed: {e}"));
        assert!(again[0].1 == *out, "{what}: a second run with the same seed gave different bits");
    } else {
        panic!("{what}: the case folder has no expected.npy, expected.npz, expected_error or expected_stats.json");
    }
}

/// Whether kerf stores `dtype` in `.npy` files by its own convention (numpy lacks it).
fn lacks_numpy_type(dtype: DType) -> bool {
    matches!(dtype, DType::BF16 | DType::F8E4M3FN | DType::F8E5M2 | DType::I4 | DType::U4)
}

/// The suite on the derive backend, as Rust source for a build script to write: per case
/// with expected outputs (one, or several: Split's) that the derive can express (programs
/// over several inputs or outputs included) (see [`derive_attributes`]), a
/// derived kernel and a `#[test]` running it through [`check_case`]. Also returns how many
/// cases it holds.
pub fn derive_suite() -> (String, usize) {
    let mut out = String::from("// Generated at build time by kerfx_testkit::derive_suite; do not edit.\n\n");
    let mut count = 0;
    for case in case_names() {
        let dir = data_dir().join(&case);
        // One output (expected.npy) or several (expected.npz: Split's parts).
        if !dir.join("expected.npy").exists() && !dir.join("expected.npz").exists() {
            continue;
        }
        let file = match kerfx::request_file::load_any(&dir.join("request.toml")) {
            Ok(AnyFile::Request(file)) => file,
            // A chain has no derive form: the derive compiles one op.
            Ok(AnyFile::Chain(_)) => continue,
            Err(e) => panic!("{case}: {e}"),
        };
        let Some(attrs) = derive_attributes(&file.request) else { continue };
        let id = ident(&case);
        writeln!(
            out,
            "#[allow(non_camel_case_types)]\n#[derive(kerfx::Kernel)]\n#[kerf({attrs})]\nstruct Case_{id};\n\n\
             #[test]\nfn {id}() {{\n    kerfx_testkit::check_case(kerfx_testkit::Backend::Derive(&Case_{id}), {case:?});\n}}\n"
        )
        .unwrap();
        count += 1;
    }
    (out, count)
}

/// expected.npy; for the dtypes numpy lacks, read by kerf's storage convention.
fn read_expected(path: &Path, out_dtype: DType) -> Tensor {
    let dtype = lacks_numpy_type(out_dtype).then_some(out_dtype);
    kerfx::npy::read_as(path, dtype).unwrap_or_else(|e| panic!("{e}"))
}

/// dtype, shape and every element's bits equal; the message shows the first difference.
fn assert_same(what: &str, out: &Tensor, expected: &Tensor) {
    assert_eq!((out.dtype(), out.shape()), (expected.dtype(), expected.shape()), "{what}: dtype/shape (got, expected)");
    if out == expected {
        return;
    }
    let first = (0..out.len())
        .find(|&i| match (out.strings(), expected.strings()) {
            (Some(a), Some(b)) => a.get(i as usize) != b.get(i as usize),
            _ => out.element_bits(i) != expected.element_bits(i),
        })
        .unwrap_or(0);
    panic!(
        "{what}: values differ, first at flat index {first}\n got:      {}\n expected: {}",
        kerfx::display::describe(out),
        kerfx::display::describe(expected)
    );
}

fn numpy_dtype_name(d: DType) -> &'static str {
    match d {
        DType::F16 => "float16",
        DType::F32 => "float32",
        DType::F64 => "float64",
        DType::I32 => "int32",
        DType::I64 => "int64",
        other => other.name(),
    }
}

fn check_stats(what: &str, out: &Tensor, path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let stats: serde_json::Value = serde_json::from_str(&text).unwrap();
    let num = |k: &str| stats.get(k).and_then(serde_json::Value::as_f64);
    assert_eq!(numpy_dtype_name(out.dtype()), stats["dtype"].as_str().unwrap(), "{what}: dtype");
    let shape: Vec<u64> = stats["shape"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(out.shape(), shape.as_slice(), "{what}: shape");

    let values: Vec<f64> = (0..out.len()).map(|i| out.element_f64(i).unwrap()).collect();
    assert!(values.iter().all(|v| v.is_finite()), "{what}: non-finite values");
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let std = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt();
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if let Some(lo) = num("min_ge") {
        assert!(min >= lo, "{what}: min {min} < {lo}");
    }
    if let Some(hi) = num("max_le") {
        assert!(max <= hi, "{what}: max {max} > {hi}");
    }
    if let Some(hi) = num("max_lt") {
        assert!(max < hi, "{what}: max {max} ≥ {hi}");
    }
    let (m, mt) = (num("mean").unwrap(), num("mean_tol").unwrap());
    assert!((mean - m).abs() <= mt, "{what}: mean {mean}, expected {m} ± {mt}");
    let (s, st) = (num("std").unwrap(), num("std_tol").unwrap());
    assert!((std - s).abs() <= st, "{what}: std {std}, expected {s} ± {st}");

    // Kolmogorov–Smirnov distance to the named distribution. The bound is the α = 0.001
    // critical value plus an allowance for the output type's rounding (f16 steps).
    let cdf: Box<dyn Fn(f64) -> f64> = match stats["distribution"].as_str().unwrap() {
        "random_uniform" => {
            let (lo, hi) = (num("min_ge").unwrap(), num("max_le").unwrap());
            Box::new(move |x| ((x - lo) / (hi - lo)).clamp(0.0, 1.0))
        }
        "random_normal" => Box::new(move |x| 0.5 * (1.0 + erf((x - m) / (s * std::f64::consts::SQRT_2)))),
        other => panic!("{what}: unknown distribution {other}"),
    };
    let mut sorted = values.clone();
    sorted.sort_by(f64::total_cmp);
    let mut d: f64 = 0.0;
    let mut i = 0;
    while i < sorted.len() {
        // Step over ties: the empirical CDF jumps once per distinct value.
        let mut j = i;
        while j < sorted.len() && sorted[j] == sorted[i] {
            j += 1;
        }
        let f = cdf(sorted[i]);
        d = d.max((f - i as f64 / n).abs()).max((j as f64 / n - f).abs());
        i = j;
    }
    let allowance = if out.dtype() == DType::F16 { 0.003 } else { 0.0 };
    let bound = 1.95 / n.sqrt() + allowance;
    assert!(d <= bound, "{what}: Kolmogorov–Smirnov distance {d:.5} > {bound:.5}");
}

/// erf by Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7), enough for a KS check.
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.3275911 * x.abs());
    let poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x < 0.0 { -y } else { y }
}
