//! Plans that lie about themselves, through every public API that takes a plan.
//!
//! `Plan`'s fields are public, so safe code can build a plan whose parts disagree (an
//! output shape smaller than the axes' extents, a linspace with too few coefficients, a
//! strict-bounds read outside the input). Every API that takes a plan must refuse such a
//! plan with an error naming what is wrong, and must never read or write outside the
//! buffers it is given: here the buffers sit against `PROT_NONE` guard pages (an access
//! outside faults and kills the test) and are sized as the plan claims — the exact-size
//! `Vec` a caller would allocate from `output_shape` and `input_shape`.
//!
//! The first two tests are the audit's reproductions (issue "Soundness and no data loss",
//! findings 1 and 2); the property test breaks each invariant at random.
//! `KERF_MALFORMED_CASES=N` runs N random cases (default 600).

use kerfx_ir::schedule;
use kerfx_ir::{AxisRead, BoundaryMode, DType, Error, FillKind, FillPlan, Kernel, Linspace, Plan, Step};
use kerfx_jit::{Jit, JitKernel, Options, Views};
use kerfx_reliability::{Flush, GuardedBuf, Rng, claimed_bytes};
use std::sync::Arc;

fn jit() -> &'static Jit {
    static JIT: std::sync::OnceLock<Jit> = std::sync::OnceLock::new();
    JIT.get_or_init(Jit::default)
}

/// What one API call did with a plan.
#[derive(Debug)]
enum Outcome {
    Refused(Error),
    /// It ran; the output bytes (one per flush variant, which must agree).
    Ran(Vec<u8>),
}

/// Run `kernel` (through `run`) on guarded buffers of the plan's claimed sizes, in both
/// flush variants. Any access outside the buffers faults.
/// A call of a kernel on (input, output) buffers.
type Call<'a> = dyn Fn(Option<&[u8]>, &mut [u8]) -> Result<(), Error> + 'a;

fn guarded(plan: &Plan, input: Option<&[u8]>, run: &Call<'_>) -> Outcome {
    let out_len = claimed_bytes(plan.dtype(), plan.output_shape());
    if out_len > 1 << 24 {
        // Not allocatable as a test buffer: the run must refuse before touching it, which
        // an empty buffer shows just as well (a wrong length is refused).
        let mut empty = [];
        return match run(input, &mut empty) {
            Err(e) => Outcome::Refused(e),
            Ok(()) => Outcome::Ran(Vec::new()),
        };
    }
    let mut results = Vec::new();
    for flush in Flush::BOTH {
        let inp = input.map(|b| GuardedBuf::from_bytes(b, flush));
        let mut out = GuardedBuf::new(out_len, flush);
        out.as_mut_slice().fill(0x5a);
        if let Err(e) = run(inp.as_ref().map(GuardedBuf::as_slice), out.as_mut_slice()) {
            return Outcome::Refused(e);
        }
        assert!(out.canary_intact(), "a stray write beside the output buffer for {plan:?}");
        if let Some(i) = &inp {
            assert!(i.canary_intact() && Some(i.as_slice()) == input, "the input buffer changed for {plan:?}");
        }
        results.push(out.as_slice().to_vec());
    }
    assert_eq!(results[0], results[1], "the flush variants disagree for {plan:?}");
    Outcome::Ran(results.pop().unwrap())
}

/// Every public path from a plan to machine code or the reference.
fn every_api(plan: &Plan, input: Option<&[u8]>, donor: Option<&Arc<JitKernel>>) -> Vec<(&'static str, Outcome)> {
    let mut outcomes = vec![(
        "schedule",
        match schedule::schedule(plan) {
            Ok(_) => Outcome::Ran(Vec::new()),
            Err(e) => Outcome::Refused(e),
        },
    )];
    outcomes.push((
        "reference",
        match kerfx_reliability::reference_bytes(plan, input) {
            Ok(bytes) => Outcome::Ran(bytes),
            Err(e) => Outcome::Refused(e),
        },
    ));
    outcomes.push((
        "static + run_bytes",
        match jit().compile(plan, &Options::STATIC) {
            Ok(k) => guarded(plan, input, &|i, o| k.run_bytes(i, o)),
            Err(e) => Outcome::Refused(e),
        },
    ));
    outcomes.push((
        "dynamic + run_bytes",
        match jit().compile(plan, &Options::DYNAMIC) {
            Ok(k) => guarded(plan, input, &|i, o| k.run_bytes(i, o)),
            Err(e) => Outcome::Refused(e),
        },
    ));
    if let Some(k) = donor {
        outcomes.push((
            "run on another plan's dynamic kernel",
            guarded(plan, input, &|i, o| k.run(plan, Views::DENSE, i, o)),
        ));
    }
    // A threaded JIT splits the call over its outermost loop.
    static THREADED: std::sync::OnceLock<Jit> = std::sync::OnceLock::new();
    let threaded =
        THREADED.get_or_init(|| Jit::new(kerfx_jit::JitSettings { threads: 2, cache_capacity: 64 }).unwrap());
    outcomes.push((
        "threaded static + run_bytes",
        match threaded.compile(plan, &Options::STATIC) {
            Ok(k) => guarded(plan, input, &|i, o| k.run_bytes(i, o)),
            Err(e) => Outcome::Refused(e),
        },
    ));
    outcomes
}

/// The plan is refused by every API (with an error that says what is wrong), or — if it is
/// valid after all — every API gives the reference's bytes.
fn check(plan: &Plan, input: Option<&[u8]>, donor: Option<&Arc<JitKernel>>) -> bool {
    let valid = plan.validate();
    let outcomes = every_api(plan, input, donor);
    match valid {
        Err(why) => {
            let text = why.to_string();
            assert!(
                text.contains("step:") || text.contains("fill plan:"),
                "the error should name the plan's broken part: {text}"
            );
            for (api, outcome) in &outcomes {
                assert!(matches!(outcome, Outcome::Refused(_)), "{api} accepted the malformed plan {plan:?} ({text})");
            }
            false
        }
        Ok(()) => {
            let want = match &outcomes[1].1 {
                Outcome::Ran(b) => b.clone(),
                Outcome::Refused(e) => panic!("the reference refused the valid plan {plan:?}: {e}"),
            };
            for (api, outcome) in &outcomes[2..] {
                match outcome {
                    Outcome::Ran(got) => assert_eq!(got, &want, "{api} on {plan:?}"),
                    // Backend limits (e.g. strings on the JIT) are refusals, not escapes.
                    Outcome::Refused(_) => {}
                }
            }
            true
        }
    }
}

/// A slice plan whose output shape is given (it may disagree with the axes: malformed).
fn slice(dtype: DType, input: &[u64], axes: &[(u64, i64, i64)], mode: BoundaryMode, output: &[u64]) -> Step {
    Step { output_shape: output.to_vec(), ..kerfx_testkit::plans::slice_plan(dtype, input, axes, mode) }
}

/// Finding 1: an output shape of 1 element over an axis of 1,000 wrote 3,996 bytes past
/// a 4-byte output through static and dynamic kernels and a dynamic kernel's run.
#[test]
fn an_output_shape_smaller_than_the_axes_is_refused_everywhere() {
    let lying = Plan::Step(slice(DType::F32, &[1000], &[(1000, 0, 1)], BoundaryMode::StrictBounds, &[1]));
    let honest = Plan::Step(slice(DType::F32, &[1000], &[(10, 0, 1)], BoundaryMode::StrictBounds, &[10]));
    let donor = jit().compile(&honest, &Options::DYNAMIC).unwrap();
    let input = vec![1u8; 4000];
    assert!(!check(&lying, Some(&input), Some(&donor)));
    let err = jit().compile(&lying, &Options::STATIC).unwrap_err().to_string();
    assert!(err.contains("output_shape [1]") && err.contains("[1000]"), "{err}");
}

/// Finding 2: a linspace with shape [3, 3, 3] and no beta read past the dynamic kernel's
/// argument block and left the output unwritten; the static kernel wrote 4 of 16 elements.
#[test]
fn a_linspace_without_its_coefficients_is_refused_everywhere() {
    for beta in [vec![], vec![1.0], vec![1.0, 2.0, 3.0, 4.0]] {
        let lying = Plan::Fill(FillPlan {
            dtype: DType::F32,
            shape: vec![3, 3, 3],
            kind: FillKind::Linspace(Linspace::Float { alpha: 0.0, beta: beta.clone() }),
        });
        assert!(!check(&lying, None, None), "beta {beta:?}");
        let err = jit().compile(&lying, &Options::DYNAMIC).unwrap_err().to_string();
        assert!(err.contains(&format!("beta has {} entries for an output of rank 3", beta.len())), "{err}");
    }
}

const DTYPES: [DType; 8] =
    [DType::Bool, DType::I4, DType::U8, DType::I16, DType::F16, DType::F32, DType::I64, DType::C128];

/// A valid slice plan: small shapes, any mode, starts and steps inside or outside.
fn random_slice(rng: &mut Rng) -> Step {
    let dtype = *rng.pick(&DTYPES);
    let mode = *rng.pick(&BoundaryMode::ALL);
    let rank = rng.below(4) as usize;
    let input: Vec<u64> = (0..rank).map(|_| 1 + rng.below(5)).collect();
    let axes: Vec<(u64, i64, i64)> = input
        .iter()
        .map(|&d| {
            let extent = rng.below(6);
            if mode == BoundaryMode::StrictBounds {
                // In bounds: start in [0, d), a step that stays inside.
                let start = rng.below(d) as i64;
                let step = if extent > 1 {
                    rng.range(-(start / (extent as i64 - 1)), (d as i64 - 1 - start) / (extent as i64 - 1))
                } else {
                    1
                };
                (extent, start, step)
            } else {
                (extent, rng.range(-8, 8), rng.range(-3, 3))
            }
        })
        .collect();
    let output: Vec<u64> = axes.iter().map(|a| a.0).collect();
    let mut p = slice(dtype, &input, &axes, mode, &output);
    if mode == BoundaryMode::Fill {
        p.fill_bits = match dtype.layout() {
            kerfx_ir::dtype::Layout::Nibbles => 0x7,
            _ => 1,
        };
    }
    p
}

/// Break one invariant of a valid slice plan (or leave it valid, 1 time in 10).
fn break_slice(rng: &mut Rng, p: &mut Step) -> &'static str {
    let rank = p.axes.len();
    match rng.below(18) {
        0 => {
            // An output shape whose volume is not the axes' (findings: heap overflow).
            let grow = 1 + rng.below(1000);
            if rank > 0 && rng.chance(50) {
                let k = rng.below(rank as u64) as usize;
                p.axes[k].extent += grow;
            } else {
                p.output_shape.push(grow + 1);
            }
            "output shape vs extents"
        }
        1 => {
            p.axes.push(AxisRead { extent: 1 + rng.below(4), start: 0, step: 1 });
            p.output_shape = p.core_shape();
            "more axes than the input's rank"
        }
        2 if rank > 0 => {
            p.axes.pop();
            p.output_shape = p.core_shape();
            "fewer axes than the input's rank"
        }
        3 if rank > 0 => {
            // Strict bounds read outside the input.
            p.mode = BoundaryMode::StrictBounds;
            let k = rng.below(rank as u64) as usize;
            let d = p.input_shape[k] as i64;
            p.axes[k] = AxisRead {
                extent: 1 + rng.below(8),
                start: if rng.chance(50) { d } else { -1 - rng.range(0, 5) },
                step: rng.range(-2, 3),
            };
            p.output_shape = p.core_shape();
            "strict read outside the input"
        }
        4 => {
            // A fill value wider than the element.
            p.mode = BoundaryMode::Fill;
            p.fill_bits = u128::MAX << rng.below(64);
            "fill bits vs dtype"
        }
        5 if rank > 0 => {
            // Coordinates that overflow i64.
            let k = rng.below(rank as u64) as usize;
            p.axes[k] = AxisRead { extent: 3, start: i64::MAX - 1, step: i64::MAX };
            p.output_shape = p.core_shape();
            "coordinates overflow"
        }
        6 if rank > 0 => {
            // An empty input axis read outside fill mode.
            let k = rng.below(rank as u64) as usize;
            p.input_shape[k] = 0;
            p.axes[k].extent = p.axes[k].extent.max(1);
            p.output_shape = p.core_shape();
            let modes: Vec<BoundaryMode> = BoundaryMode::ALL.into_iter().filter(|&m| m != BoundaryMode::Fill).collect();
            p.mode = *rng.pick(&modes);
            "empty axis read"
        }
        7 => {
            // A volume beyond 2^63.
            p.input_shape.push(1 << 62);
            p.input_shape.push(4);
            p.axes.extend([AxisRead { extent: 1, start: 0, step: 1 }; 2]);
            p.output_shape = p.core_shape();
            "input volume overflow"
        }
        8 if rank > 0 => {
            // The output shape a reshape of the extents (valid: shrunk/new axes).
            p.output_shape = vec![kerfx_ir::tensor::volume(&p.core_shape()).unwrap(), 1];
            "valid reshape"
        }
        9 if rank > 0 => {
            // Windows: too few, or one reaching past its axis.
            p.windows = p.input_shape.iter().map(|&d| kerfx_ir::plan::Window { lo: 0, len: d }).collect();
            if rng.chance(50) {
                p.windows.pop();
            } else {
                let k = rng.below(rank as u64) as usize;
                p.windows[k].lo = 1 + rng.below(3);
            }
            "windows vs the input"
        }
        10 if rank > 0 => {
            // An order that is no permutation: too short, out of range, or repeating.
            p.order = (0..rank).collect();
            match rng.below(3) {
                0 => drop(p.order.pop()),
                1 => p.order[rng.below(rank as u64) as usize] = rank + rng.below(3) as usize,
                _ if rank > 1 => p.order[0] = p.order[1],
                _ => p.order.push(0),
            }
            "order vs the source axes"
        }
        11 if rank > 1 => {
            // A valid permutation (a transpose): the core and output shapes follow it.
            p.order = (0..rank).rev().collect();
            p.output_shape = p.core_shape();
            "valid order"
        }
        12 => {
            // A source shape that is not a reshape of the input.
            let n = kerfx_ir::tensor::volume(&p.input_shape).unwrap_or(0);
            p.source_shape = vec![n + 1 + rng.below(3)];
            p.axes = vec![AxisRead { extent: 1, start: 0, step: 1 }];
            p.output_shape = p.core_shape();
            "source shape vs the input"
        }
        13 => {
            // A valid reshape of the input read whole (a flatten), windows cleared.
            let n = kerfx_ir::tensor::volume(&p.input_shape).unwrap_or(0);
            p.source_shape = vec![n];
            p.axes = vec![AxisRead { extent: n, start: 0, step: 1 }];
            p.windows.clear();
            p.mode = BoundaryMode::StrictBounds;
            p.output_shape = p.core_shape();
            "valid source reshape"
        }
        14 | 15 if rank > 0 => {
            // A gathered axis (valid: coordinates in range in strict mode, any in the
            // others, whose modes map them), its positions an affine run of the list.
            let k = rng.below(rank as u64) as usize;
            let d = p.input_shape[k] as i64;
            let n = 1 + rng.below(12) as usize;
            let strict = p.mode == BoundaryMode::StrictBounds;
            let coords: Vec<i64> = (0..n)
                .map(|_| if strict || d == 0 { rng.range(0, (d - 1).max(0)) } else { rng.range(-2 * d, 2 * d) })
                .collect();
            let extent = rng.below(n as u64 + 1);
            let reversed = extent > 0 && rng.chance(30);
            p.axes[k] = AxisRead {
                extent,
                start: if reversed { extent as i64 - 1 } else { 0 },
                step: if reversed { -1 } else { 1 },
            };
            p.gathered = Some(kerfx_ir::Gathered { axis: k, coords: coords.into() });
            p.output_shape = p.core_shape();
            "valid gathered axis"
        }
        16 if rank > 0 => {
            // Positions past the list, or a gathered axis past the rank.
            let k = rng.below(rank as u64) as usize;
            let n = rng.below(4) as usize;
            if rng.chance(50) {
                p.axes[k] = AxisRead { extent: n as u64 + 1 + rng.below(3), start: 0, step: 1 };
                p.gathered = Some(kerfx_ir::Gathered { axis: k, coords: vec![0; n].into() });
            } else {
                p.gathered = Some(kerfx_ir::Gathered { axis: rank + rng.below(2) as usize, coords: vec![0].into() });
            }
            p.output_shape = p.core_shape();
            "gathered positions vs the list"
        }
        17 if rank > 0 => {
            // A strict gather whose coordinates leave the axis.
            let k = rng.below(rank as u64) as usize;
            let d = p.input_shape[k] as i64;
            p.mode = BoundaryMode::StrictBounds;
            p.axes[k] = AxisRead { extent: 2, start: 0, step: 1 };
            let out = if rng.chance(50) { d } else { -1 - rng.range(0, 3) };
            p.gathered = Some(kerfx_ir::Gathered { axis: k, coords: vec![0, out].into() });
            p.output_shape = p.core_shape();
            "strict gather outside the input"
        }
        _ => "unchanged",
    }
}

/// A valid fill plan, then one of its invariants broken (or not).
fn random_fill(rng: &mut Rng) -> (FillPlan, &'static str) {
    let rank = rng.below(4) as usize;
    let shape: Vec<u64> = (0..rank).map(|_| rng.below(5)).collect();
    let (dtype, kind) = match rng.below(3) {
        0 => (
            DType::I32,
            FillKind::Linspace(Linspace::Int { alpha: 3, beta: (0..rank).map(|k| k as i64 - 1).collect() }),
        ),
        1 => (
            DType::F32,
            FillKind::Linspace(Linspace::Float { alpha: 0.5, beta: (0..rank).map(|k| k as f64 * 0.25).collect() }),
        ),
        _ => (
            *rng.pick(&[DType::F32, DType::F16]),
            FillKind::RandomUniform { alpha: -1.0, beta: 2.0, seed: rng.next_u64() },
        ),
    };
    let mut p = FillPlan { dtype, shape, kind };
    let what = match rng.below(6) {
        0 => {
            match &mut p.kind {
                FillKind::Linspace(Linspace::Int { beta, .. }) => {
                    if rng.chance(50) {
                        beta.pop();
                    } else {
                        beta.push(7);
                    }
                }
                FillKind::Linspace(Linspace::Float { beta, .. }) => {
                    if rng.chance(50) {
                        beta.clear();
                    } else {
                        beta.extend([1.0, 2.0]);
                    }
                }
                _ => p.dtype = DType::I8,
            }
            "beta length or random dtype"
        }
        1 => {
            p.dtype = *rng.pick(&[DType::U8, DType::C64, DType::String, DType::F64]);
            "dtype vs kind"
        }
        2 => {
            if let FillKind::Linspace(Linspace::Int { alpha, .. }) = &mut p.kind {
                *alpha = i64::MAX;
                p.shape = vec![3];
                p.kind = FillKind::Linspace(Linspace::Int { alpha: i64::MAX - 1, beta: vec![1] });
            }
            "integer linspace out of range"
        }
        3 => {
            p.shape.extend([1 << 40, 1 << 40]);
            "volume overflow"
        }
        _ => "unchanged",
    };
    (p, what)
}

/// The property: random malformed plans through every public API, under guard pages —
/// never an access outside a buffer, always an error naming what is wrong; the valid
/// ones agree with the reference.
#[test]
fn malformed_plans_are_refused_through_every_api() {
    let cases: u64 = std::env::var("KERF_MALFORMED_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(600);
    let mut rng = Rng::new(0x6d61_6c66);
    let (mut refused, mut valid) = (0u64, 0u64);
    let mut kinds = std::collections::BTreeMap::<&str, u64>::new();
    for case in 0..cases {
        let (plan, what, donor) = if rng.chance(70) {
            let mut p = random_slice(&mut rng);
            // A dynamic kernel compiled for the valid plan, before it is broken: run
            // on it must refuse the broken one (or run it, if it stays valid).
            let donor = jit().compile(&Plan::Step(p.clone()), &Options::DYNAMIC).ok();
            let what = break_slice(&mut rng, &mut p);
            (Plan::Step(p), what, donor)
        } else {
            let (p, what) = random_fill(&mut rng);
            (Plan::Fill(p), what, None)
        };
        let input = plan.input_shape().map(|shape| {
            let n = claimed_bytes(plan.dtype(), shape);
            let mut bytes = vec![0u8; if n > 1 << 20 { 0 } else { n }];
            rng.fill_bytes(&mut bytes);
            if plan.dtype() == DType::Bool {
                bytes.iter_mut().for_each(|b| *b &= 1);
            }
            bytes
        });
        // An odd int4 input's last high nibble is zero (the layout's rule).
        let input = input.map(|mut b| {
            let n = plan.input_shape().and_then(kerfx_ir::tensor::volume).unwrap_or(0);
            if plan.dtype().layout() == kerfx_ir::dtype::Layout::Nibbles
                && n % 2 == 1
                && let Some(l) = b.last_mut()
            {
                *l &= 0x0f;
            }
            b
        });
        let ok =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&plan, input.as_deref(), donor.as_ref())));
        match ok {
            Ok(true) => valid += 1,
            Ok(false) => {
                refused += 1;
                *kinds.entry(what).or_default() += 1;
            }
            Err(e) => {
                std::panic::resume_unwind(Box::new(format!("case {case} ({what}): {:?}", e.downcast_ref::<String>())))
            }
        }
    }
    eprintln!("{cases} cases: {refused} malformed plans refused by every API, {valid} valid plans agreed; 0 escapes");
    eprintln!("malformed kinds: {kinds:?}");
    assert!(refused > cases / 2 && valid > cases / 20, "the generator should produce both kinds: {refused} / {valid}");
}

/// Issue 20, finding 4: the dynamic kernel writing output views panicked for every i4/u4
/// plan (`unreachable!` in the dynamic kernel's emitter, inside the kernel cache's
/// initializer, so every later call panicked again) where the static one refuses. Packed
/// 4-bit plans at every compile entry: dense outputs run (guarded, the reference's bytes),
/// output views are refused with an error naming the rule — every time, never a panic.
#[test]
fn packed_4bit_plans_at_every_compile_entry() {
    use kerfx_reliability::{random_input, run_bytes, run_guarded};
    let mut rng = Rng::new(0x6934);
    for dtype in [DType::I4, DType::U4] {
        for mode in [BoundaryMode::Wrap, BoundaryMode::Fill, BoundaryMode::Reflect] {
            let p = kerfx_testkit::plans::slice_plan(dtype, &[5, 3], &[(4, -1, 1), (5, -1, 1)], mode);
            let plan = Plan::Step(p.clone());
            let input = random_input(&mut rng, dtype, &p.input_shape);
            let want = kerfx_reliability::reference_bytes(&plan, Some(&input)).unwrap();
            let dense = schedule::Strided::contiguous(&p.input_shape).unwrap();
            // Writing [4, 5] into a [4, 6] buffer.
            let out_view = schedule::Strided { offset: 0, strides: vec![6, 1], buffer_len: 24 };
            let runs: Vec<(&str, Result<Arc<JitKernel>, Error>)> = vec![
                ("static", jit().compile(&plan, &Options::STATIC)),
                ("dynamic", jit().compile(&plan, &Options::DYNAMIC)),
                ("static, input view", jit().compile(&p, &Options::STATIC.input(&dense))),
                ("dynamic, input view", jit().compile(&p, &Options::DYNAMIC.input(&dense))),
            ];
            for (entry, k) in runs {
                let k = k.unwrap_or_else(|e| panic!("{entry} refused {dtype} {mode}: {e}"));
                let r = run_guarded(k.as_ref(), Some(&input), &want, &run_bytes);
                assert!(r.is_ok(), "{entry} {dtype} {mode}: {r:?}");
            }
            let dynamic = jit().compile(&plan, &Options::DYNAMIC.input(&dense)).unwrap();
            let r = run_guarded(dynamic.as_ref(), Some(&input), &want, &|_, i, o| {
                dynamic.run(&p, Views::DENSE.input(&dense), Some(i.unwrap_or_default()), o)
            });
            assert!(r.is_ok(), "run through an input view {dtype} {mode}: {r:?}");
            let mut out = vec![0u8; 12];
            let refusals = [
                ("static, output view", jit().compile(&p, &Options::STATIC.output(&out_view)).err()),
                ("dynamic, output view", jit().compile(&p, &Options::DYNAMIC.output(&out_view)).err()),
                // The same key again: an error again, not a panic from the cache.
                ("dynamic, output view again", jit().compile(&p, &Options::DYNAMIC.output(&out_view)).err()),
                // No kernel writes 4-bit views: a dense one refuses the layout.
                (
                    "run into an output view",
                    dynamic.run(&p, Views::DENSE.input(&dense).output(&out_view), Some(&input), &mut out).err(),
                ),
            ];
            for (entry, e) in refusals {
                let e = e.unwrap_or_else(|| panic!("{entry} accepted an output view of {dtype}")).to_string();
                assert!(e.contains("4-bit") || e.contains("output layout"), "{entry}: {e}");
            }
        }
    }
    // A fused chain of packed 4-bit elements writing an output view, static and dynamic.
    let chain = kerfx::chain::ChainRequest {
        steps: vec![
            kerfx_ir::Request::new("tensorrt.slice")
                .input_meta("input", DType::I4, &[4, 5])
                .attr("start", [0, 0])
                .attr("size", [4, 5])
                .attr("stride", [1, 1]),
            kerfx_ir::Request::new("tensorrt.slice").attr("start", [1, 1]).attr("size", [2, 3]).attr("stride", [1, 1]),
        ],
    };
    let f = kerfx::chain::lower_chain(&chain).unwrap().fused().unwrap().clone();
    let view = schedule::Strided { offset: 0, strides: vec![4, 1], buffer_len: 8 };
    for e in [
        jit().compile(&f, &Options::STATIC.output(&view)).err(),
        jit().compile(&f, &Options::DYNAMIC.output(&view)).err(),
        jit().compile(&f, &Options::DYNAMIC.output(&view)).err(),
    ] {
        assert!(e.expect("an output view of i4 is refused").to_string().contains("4-bit"));
    }
}
