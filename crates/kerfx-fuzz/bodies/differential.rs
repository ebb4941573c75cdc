//! A random plan (tensorrt.slice in every mode, onnx.slice, openvino.strided_slice,
//! tensorrt.fill from the fuzzer's bytes; any op, the pads and openvino.slice included,
//! from kerfx-testkit's generator on a seed) → the JIT's static kernel, its dynamic kernel
//! (run directly, and through a kernel compiled for an earlier plan of the same kind),
//! and the reference must agree byte for byte. A chain (kerfx-testkit's `random_chain`)
//! → its fused reference, its static and dynamic chain kernels and the steps run one by
//! one on the reference must agree too. Buffers sit flush against guard pages
//! (kerfx-reliability), so an out-of-bounds access by JIT code faults even though ASan
//! does not see inside it.

use arbitrary::{Arbitrary, Unstructured};
use kerfx_ir::{DType, Kernel, Plan, Request, Tensor};
use kerfx_jit::{Jit, JitKernel, JitSettings, Options, Views};
use kerfx_reliability::{Flush, GuardedBuf};
use kerfx_testkit::random::{Rng, random_chain, random_request};
use std::fmt::Display;
use std::sync::{Arc, Mutex, OnceLock};

/// The dtype a fuzzer byte picks: any but `string` (the JIT moves bytes; the frontends
/// refuse the ones an op does not take, and the case is skipped).
fn slice_dtype(b: u8) -> DType {
    let bytes: Vec<DType> = DType::ALL.into_iter().filter(|d| *d != DType::String).collect();
    bytes[b as usize % bytes.len()]
}
const MODES: [&str; 5] = ["strict_bounds", "wrap", "clamp", "fill", "reflect"];
/// Largest input and output (elements) a case may have.
const LIMIT: u64 = 1 << 13;

/// A coordinate or step: mostly small, sometimes far out, sometimes extreme.
#[derive(Debug)]
struct Num(i64);

impl<'a> Arbitrary<'a> for Num {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Num(match u.int_in_range(0u8..=9)? {
            0..=5 => u.int_in_range(-12i64..=12)?,
            6 | 7 => u.int_in_range(-5000i64..=5000)?,
            8 => *u.choose(&[i64::MIN, i64::MAX, i64::MIN + 1, i32::MIN as i64, i32::MAX as i64, 1 << 40])?,
            _ => i64::arbitrary(u)?,
        }))
    }
}

#[derive(Debug, Arbitrary)]
struct Axis {
    extent: u8,
    start: Num,
    size: u8,
    step: Num,
    end: Num,
}

#[derive(Debug, Arbitrary)]
enum Case {
    Trt {
        dtype: u8,
        mode: u8,
        axes: Vec<Axis>,
        fill: Option<i8>,
        list_axes: bool,
    },
    Onnx {
        dtype: u8,
        axes: Vec<Axis>,
        version: bool,
    },
    Ov {
        dtype: u8,
        axes: Vec<Axis>,
        masks: [u8; 5],
        extra: u8,
    },
    Fill {
        dims: Vec<u8>,
        op: u8,
        to: u8,
        alpha: i16,
        beta: Vec<i16>,
        seed: u64,
    },
    /// kerfx-testkit's request of this seed (every op, pads included).
    Testkit {
        seed: u64,
    },
    /// kerfx-testkit's chain of this seed, of 2 to 4 steps.
    Chain {
        seed: u64,
        steps: u8,
    },
}

fn extent(e: u8) -> u64 {
    // Mostly 1..=8; 0 at times; a few larger.
    match e {
        0..=9 => 0,
        10..=239 => 1 + (e as u64 % 8),
        _ => 9 + (e as u64 % 40),
    }
}

/// The case's plans: one for a request, one per step for a chain.
fn plans(case: &Case) -> Option<Vec<Plan>> {
    match case {
        Case::Chain { seed, steps } => {
            let chain = random_chain(&mut Rng::new(*seed), 2 + *steps as usize % 3);
            kerfx_ir::chain::lower_chain(&chain).ok()
        }
        _ => Some(vec![kerfx_ir::lower(&request(case)?).ok()?]),
    }
}

fn request(case: &Case) -> Option<Request> {
    Some(match case {
        Case::Testkit { seed } => random_request(&mut Rng::new(*seed)),
        Case::Chain { .. } => return None,
        Case::Trt { dtype, mode, axes, fill, list_axes } => {
            let axes = &axes[..axes.len().min(4)];
            let dtype = slice_dtype(*dtype);
            let shape: Vec<u64> = axes.iter().map(|a| extent(a.extent)).collect();
            let mode = MODES[*mode as usize % MODES.len()];
            let mut r = Request::new("tensorrt.slice")
                .input_meta("input", dtype, &shape)
                .attr("start", axes.iter().map(|a| a.start.0).collect::<Vec<_>>())
                .attr("size", axes.iter().map(|a| (a.size % 12) as i64).collect::<Vec<_>>())
                .attr("stride", axes.iter().map(|a| a.step.0).collect::<Vec<_>>())
                .attr("mode", mode);
            if *list_axes {
                r = r.attr("axes", (0..axes.len() as i64).rev().collect::<Vec<_>>());
                let rev = |v: Vec<i64>| v.into_iter().rev().collect::<Vec<_>>();
                for name in ["start", "size", "stride"] {
                    if let Some(kerfx_ir::AttrValue::IntList(l)) = r.attributes.get(name).cloned() {
                        r = r.attr(name, rev(l));
                    }
                }
            }
            if let Some(f) = fill {
                r = r.input("fill", Tensor::scalar_bits(DType::I64, *f as i64 as u64 as u128));
            }
            r
        }
        Case::Onnx { dtype, axes, version } => {
            let axes = &axes[..axes.len().min(4)];
            if axes.is_empty() {
                return None;
            }
            let dtype = slice_dtype(*dtype);
            let shape: Vec<u64> = axes.iter().map(|a| extent(a.extent)).collect();
            let ints = |f: &dyn Fn(&Axis) -> i64| Tensor::from_i64s(&axes.iter().map(f).collect::<Vec<_>>());
            Request::new("onnx.slice")
                .version(if *version { 13 } else { 11 })
                .input_meta("data", dtype, &shape)
                .input("starts", ints(&|a| a.start.0))
                .input("ends", ints(&|a| a.end.0))
                .input("steps", ints(&|a| a.step.0))
        }
        Case::Ov { dtype, axes, masks, extra } => {
            let axes = &axes[..axes.len().min(5)];
            let dtype = slice_dtype(*dtype);
            let rank = axes.len().saturating_sub((*extra % 3) as usize);
            let shape: Vec<u64> = axes.iter().take(rank).map(|a| extent(a.extent)).collect();
            let ints = |f: &dyn Fn(&Axis) -> i64| Tensor::from_i64s(&axes.iter().map(f).collect::<Vec<_>>());
            let mask = |bits: u8| (0..axes.len()).map(|i| ((bits >> i) & 1) as i64).collect::<Vec<_>>();
            Request::new("openvino.strided_slice")
                .input_meta("data", dtype, &shape)
                .input("begin", ints(&|a| a.start.0))
                .input("end", ints(&|a| a.end.0))
                .input("stride", ints(&|a| a.step.0))
                .attr("begin_mask", mask(masks[0]))
                .attr("end_mask", mask(masks[1]))
                .attr("new_axis_mask", mask(masks[2]))
                .attr("shrink_axis_mask", mask(masks[3]))
                .attr("ellipsis_mask", mask(masks[4]))
        }
        Case::Fill { dims, op, to, alpha, beta, seed } => {
            let dims: Vec<i64> = dims.iter().take(3).map(|&d| extent(d) as i64).collect();
            let (operation, types): (&str, &[&str]) = match op % 3 {
                0 => ("linspace", &["i32", "i64", "f32"]),
                1 => ("random_uniform", &["f16", "f32"]),
                _ => ("random_normal", &["f16", "f32"]),
            };
            let to_type = types[*to as usize % types.len()];
            let scale = if to_type == "f32" { 1.0 / 16.0 } else { 1.0 };
            let mut r = Request::new("tensorrt.fill")
                .attr("dimensions", dims.clone())
                .attr("operation", operation)
                .attr("to_type", to_type)
                .attr("alpha", *alpha as f64 * scale);
            if operation == "linspace" {
                let b: Vec<f64> = beta.iter().take(dims.len()).map(|&b| b as f64 * scale).collect();
                if !b.is_empty() {
                    r = r.attr("beta", b);
                }
            } else {
                let b = *alpha as f64 * scale + beta.first().map(|&b| (b as f64).abs() * scale + 0.5).unwrap_or(1.0);
                r = r.attr("beta", b).attr("seed", (*seed >> 1) as i64);
            }
            r
        }
    })
}

fn skip_random() -> bool {
    static S: OnceLock<bool> = OnceLock::new();
    *S.get_or_init(|| std::env::var_os("KERF_FUZZ_SKIP_RANDOM").is_some())
}

fn jit() -> &'static Jit {
    static J: OnceLock<Jit> = OnceLock::new();
    J.get_or_init(|| Jit::new(JitSettings { threads: 1, cache_capacity: 64 }).expect("a JIT for the host"))
}

/// Dynamic kernels of earlier plans, to run later plans of the same kind through.
fn pool() -> &'static Mutex<Vec<Arc<JitKernel>>> {
    static P: OnceLock<Mutex<Vec<Arc<JitKernel>>>> = OnceLock::new();
    P.get_or_init(|| Mutex::new(Vec::new()))
}

fn agree(
    plan: &dyn Display,
    what: &str,
    flush: Flush,
    input: Option<&[u8]>,
    expected: &[u8],
    f: impl Fn(Option<&[u8]>, &mut [u8]) -> Result<(), kerfx_ir::Error>,
) {
    let inp = input.map(|b| GuardedBuf::from_bytes(b, flush));
    let mut out = GuardedBuf::new(expected.len(), flush);
    out.as_mut_slice().fill(0x5a);
    match f(inp.as_ref().map(GuardedBuf::as_slice), out.as_mut_slice()) {
        Ok(()) => {}
        Err(kerfx_ir::Error::Mismatch { .. }) if what == "dynamic via another kernel" => return,
        Err(e) => panic!("{what}: refused a plan the reference ran: {e}\n{plan}"),
    }
    assert!(out.canary_intact(), "{what}: wrote beside its output\n{plan}");
    assert!(
        inp.as_ref().is_none_or(|i| i.canary_intact() && Some(i.as_slice()) == input),
        "{what}: wrote to its input\n{plan}"
    );
    assert_eq!(out.as_slice(), expected, "{what} differs from the reference\n{plan}\ninput {input:?}");
}

/// The target on one input: returns quietly, or panics with what went wrong.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(case) = Case::arbitrary(&mut u) else { return };
    let Some(plans) = plans(&case) else { return };
    // KERF_FUZZ_SKIP_RANDOM=1 leaves random fills out (to fuzz the rest while a known
    // random-fill disagreement is being fixed).
    let random = |p: &Plan| matches!(p, Plan::Fill(f) if !matches!(f.kind, kerfx_ir::FillKind::Linspace(_)));
    if plans.iter().any(random) && skip_random() {
        return;
    }
    let small = |s: &[u64]| kerfx_ir::tensor::volume(s).is_some_and(|n| n <= LIMIT);
    if !plans.iter().all(|p| small(p.output_shape())) || !plans[0].input_shape().is_none_or(small) {
        return;
    }
    let plan = &plans[0];
    // Input bytes from the rest of the fuzzer's data (zero when it runs out).
    let input: Option<Vec<u8>> = plan.input_shape().map(|shape| {
        let n = kerfx_ir::tensor::volume(shape).unwrap_or(0);
        let mut b = vec![0u8; plan.dtype().buffer_bytes(n).unwrap_or(0)];
        let _ = u.fill_buffer(&mut b);
        if plan.dtype() == DType::Bool {
            b.iter_mut().for_each(|x| *x &= 1);
        }
        if plan.dtype().layout() == kerfx_ir::dtype::Layout::Nibbles
            && n % 2 == 1
            && let Some(l) = b.last_mut()
        {
            *l &= 0xf;
        }
        b
    });
    let tensor = match (plan, &input) {
        (Plan::Step(p), Some(b)) => Some(Tensor::from_bytes(p.dtype, &p.input_shape, b).expect("sized to the plan")),
        _ => None,
    };
    let view = || tensor.as_ref().map(Tensor::view);
    let flush = if data.first().is_some_and(|b| b & 1 == 1) { Flush::Start } else { Flush::End };
    if plans.len() > 1 {
        return chain(&plans, view(), input.as_deref(), flush);
    }
    let expected =
        kerfx_ir::reference::evaluate(plan, view()).expect("the reference runs every plan the frontends lower");
    let expected = expected.bytes().expect("byte dtypes only").to_vec();

    let stat = jit().compile(plan, &Options::STATIC).unwrap_or_else(|e| panic!("static compile refused {plan}: {e}"));
    agree(plan, "static", flush, input.as_deref(), &expected, |i, o| stat.run_bytes(i, o));
    let dynk = jit().compile(plan, &Options::DYNAMIC).unwrap_or_else(|e| panic!("dynamic compile refused {plan}: {e}"));
    agree(plan, "dynamic", flush, input.as_deref(), &expected, |i, o| dynk.run_bytes(i, o));
    let others: Vec<Arc<JitKernel>> = pool().lock().unwrap().clone();
    for other in others.iter().filter(|o| o.source() != kerfx_jit::Source::Plan(std::borrow::Cow::Borrowed(plan))) {
        agree(plan, "dynamic via another kernel", flush, input.as_deref(), &expected, |i, o| {
            other.run(plan, Views::DENSE, i, o)
        });
    }
    let mut p = pool().lock().unwrap();
    if p.len() < 16 {
        p.push(dynk);
    } else {
        let at = data.len() % 16;
        p[at] = dynk;
    }
}

/// A lowered chain: the steps one by one on the reference (the oracle), the fused map on
/// the reference, and the static and dynamic chain kernels where one loop nest says it.
fn chain(plans: &[Plan], view: Option<kerfx_ir::TensorView<'_>>, input: Option<&[u8]>, flush: Flush) {
    use kerfx_ir::chain;
    let Ok(fused) = kerfx_ir::map::compose(plans) else { return };
    let unfused = chain::evaluate_unfused(plans, view).expect("the reference runs every chain that lowers");
    let f = kerfx_ir::map::evaluate(&fused, view).unwrap_or_else(|e| panic!("fused reference refused {fused}: {e}"));
    assert_eq!(f, unfused, "the fused reference differs from the steps\n{fused}");
    let expected = unfused.bytes().expect("byte dtypes only");
    // (A chain of bytes is always one loop nest: strings have no bytes above.)
    let stat =
        jit().compile(&fused, &Options::STATIC).unwrap_or_else(|e| panic!("static chain compile refused {fused}: {e}"));
    agree(&fused, "static chain", flush, input, expected, |i, o| stat.run_bytes(i, o));
    let dynk =
        jit().compile(&fused, &Options::DYNAMIC).unwrap_or_else(|e| panic!("dynamic chain refused {fused}: {e}"));
    agree(&fused, "dynamic chain", flush, input, expected, |i, o| dynk.run_bytes(i, o));
}
