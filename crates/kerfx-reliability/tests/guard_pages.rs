//! Guard pages: JIT kernels (static and dynamic) run over thousands of random plans with
//! their input and output buffers flush against PROT_NONE pages, at both ends in turn, and
//! are compared with the reference. Any read or write outside the buffers kills the test
//! with SIGSEGV; a stray write inside the buffers' pages breaks a canary.
//!
//! `KERF_GUARD_PLANS=N` sets the number of random plans (default 3000), `KERF_GUARD_SEED`
//! the first seed.

use kerfx_ir::{Kernel, Plan};
use kerfx_jit::{Jit, JitKernel, JitSettings, Options, Views};
use kerfx_reliability::*;
use std::sync::Arc;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[derive(Default, Debug)]
struct Tally {
    requests: u64,
    refused_by_frontend: u64,
    plans: u64,
    static_runs: u64,
    dynamic_runs: u64,
    dynamic_other_plan_runs: u64,
    empty_outputs: u64,
    jit_refused: Vec<String>,
}

fn describe(plan: &Plan) -> String {
    plan.to_string().replace('\n', "; ")
}

#[test]
fn jit_kernels_stay_inside_guarded_buffers_on_random_plans() {
    let count = env_u64("KERF_GUARD_PLANS", 3000);
    let seed = env_u64("KERF_GUARD_SEED", 0x6b65_7266);
    let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 512 }).unwrap();
    let mut tally = Tally::default();
    let mut failures: Vec<String> = Vec::new();
    let mut dynamic_pool: Vec<Arc<JitKernel>> = Vec::new();
    let mut rng = Rng::new(seed);
    while tally.plans < count {
        tally.requests += 1;
        let request = random_request(&mut rng);
        let plan = match kerfx_ir::lower(&request) {
            Ok(p) => p,
            Err(_) => {
                tally.refused_by_frontend += 1;
                continue;
            }
        };
        tally.plans += 1;
        let input = plan.input_shape().map(|s| random_input(&mut rng, plan.dtype(), s));
        let expected = reference_bytes(&plan, input.as_deref()).expect("the reference runs every lowered plan");
        if expected.is_empty() {
            tally.empty_outputs += 1;
        }
        let what = describe(&plan);

        match jit.compile(&plan, &Options::STATIC) {
            Ok(k) => {
                tally.static_runs += 1;
                if let Err(f) = run_guarded(k.as_ref(), input.as_deref(), &expected, &run_bytes) {
                    failures.push(format!("static: {what}: {f:?}"));
                }
            }
            Err(e) => tally.jit_refused.push(format!("static: {what}: {e}")),
        }
        match jit.compile(&plan, &Options::DYNAMIC) {
            Ok(k) => {
                tally.dynamic_runs += 1;
                if let Err(f) = run_guarded(k.as_ref(), input.as_deref(), &expected, &run_bytes) {
                    failures.push(format!("dynamic: {what}: {f:?}"));
                }
                // The same code run with this plan's arguments by a kernel made for another plan.
                if let Some(other) = dynamic_pool.iter().find(|o| {
                    !Arc::ptr_eq(o, &k) && o.source() != kerfx_jit::Source::Plan(std::borrow::Cow::Borrowed(&plan)) && {
                        let mut probe = vec![0u8; expected.len()];
                        !matches!(
                            o.run(&plan, Views::DENSE, input.as_deref(), &mut probe),
                            Err(kerfx_ir::Error::Mismatch { .. })
                        )
                    }
                }) {
                    tally.dynamic_other_plan_runs += 1;
                    let run = |_: &dyn Kernel, i: Option<&[u8]>, o: &mut [u8]| other.run(&plan, Views::DENSE, i, o);
                    if let Err(f) = run_guarded(other.as_ref(), input.as_deref(), &expected, &run) {
                        failures.push(format!("dynamic (other plan's kernel): {what}: {f:?}"));
                    }
                }
                if dynamic_pool.len() < 64 {
                    dynamic_pool.push(k);
                } else {
                    let at = rng.below(64) as usize;
                    dynamic_pool[at] = k;
                }
            }
            Err(e) => tally.jit_refused.push(format!("dynamic: {what}: {e}")),
        }
        if failures.len() > 20 {
            break;
        }
    }
    eprintln!(
        "guard pages: {} requests, {} refused by their frontend, {} plans; JIT runs: {} static, {} dynamic, \
         {} dynamic with another plan's kernel ({} empty outputs), each in 2 flush variants; {} JIT refusals",
        tally.requests,
        tally.refused_by_frontend,
        tally.plans,
        tally.static_runs,
        tally.dynamic_runs,
        tally.dynamic_other_plan_runs,
        tally.empty_outputs,
        tally.jit_refused.len()
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(
        tally.jit_refused.is_empty(),
        "the JIT refused {} lowered plans:\n{}",
        tally.jit_refused.len(),
        tally.jit_refused.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
    assert!(tally.dynamic_other_plan_runs > count / 4, "too few cross-plan dynamic runs: {tally:?}");
}

/// Large random slices on a JIT allowed 2 threads: each call splits its outermost loop
/// (packed nibbles on even boundaries), and both halves must stay inside the buffers.
#[test]
fn threaded_jit_kernels_stay_inside_guarded_buffers() {
    let count = env_u64("KERF_GUARD_THREADED_PLANS", 10);
    let jit = Jit::new(JitSettings { threads: 2, cache_capacity: 64 }).unwrap();
    let mut rng = Rng::new(env_u64("KERF_GUARD_SEED", 0x6b65_7266) ^ 0x7468);
    let mut failures = Vec::new();
    let mut plans = 0;
    while plans < count {
        let dtype = *rng.pick(&[kerfx_ir::DType::I4, kerfx_ir::DType::I8, kerfx_ir::DType::F32, kerfx_ir::DType::F16]);
        let shape = [1 + rng.below(40), 1 + rng.below(40)];
        let mode = *rng.pick(&["wrap", "reflect", "clamp", "fill"]);
        // 1 to 3 MiB of output, rows of odd length (odd nibble counts per row for i4).
        let cols = 2 * rng.below(300) as i64 + 801;
        let rows = (1i64 << 21) / cols + rng.range(0, 400);
        let req = kerfx_ir::Request::new("tensorrt.slice")
            .input_meta("input", dtype, &shape)
            .attr("start", [rng.range(-500, 500), rng.range(-500, 500)])
            .attr("size", [rows, cols])
            .attr("stride", [rng.range(-3, 3), *rng.pick(&[1, -1, 2, -3])])
            .attr("mode", mode);
        let Ok(plan) = kerfx_ir::lower(&req) else { continue };
        plans += 1;
        let input = plan.input_shape().map(|s| random_input(&mut rng, plan.dtype(), s));
        let expected = reference_bytes(&plan, input.as_deref()).unwrap();
        for k in [jit.compile(&plan, &Options::STATIC).unwrap(), jit.compile(&plan, &Options::DYNAMIC).unwrap()] {
            if let Err(f) = run_guarded(k.as_ref(), input.as_deref(), &expected, &run_bytes) {
                let f = match f {
                    GuardFailure::Wrong { flush, first_diff, .. } => {
                        format!("wrong output from byte {first_diff} ({flush:?})")
                    }
                    other => format!("{other:?}"),
                };
                failures.push(format!(
                    "{}: {}: {f}",
                    if k.is_dynamic() { "dynamic" } else { "static" },
                    describe(&plan)
                ));
            }
        }
    }
    eprintln!("guard pages (2 threads): {plans} large plans, static and dynamic");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Large moves of whole rows (outputs of 8 MiB and more, whose rows of a line or more go
/// out through the host's `stream_rows`, `stream_row_blocks` and `stream_table_rows`:
/// lines straight from the rows, or staged): head-split transposes with rows of whole
/// lines, of odd lengths and of 3 KiB (in bands of rows across the heads, the last band
/// short), a reversal, gathers of short and long rows, on one and two threads, against the reference, each buffer flush against a guard page (both
/// flush variants).
#[test]
fn large_row_moves_stay_inside_guarded_buffers() {
    let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 16 }).unwrap();
    let jit2 = Jit::new(JitSettings { threads: 2, cache_capacity: 16 }).unwrap();
    let mut rng = Rng::new(env_u64("KERF_GUARD_SEED", 0x6b65_7266) ^ 0x5257);
    let mut failures = Vec::new();
    let (mut streamed, mut banded) = (0, 0);
    // (dtype, heads, row elements): rows of 256 bytes (whole lines), of 3,072 (GA1's), and
    // of 100 (the reversal's rows 700).
    for (dtype, w, h, d) in
        [(kerfx_ir::DType::F32, 4, 16, 64), (kerfx_ir::DType::F32, 4, 3, 768), (kerfx_ir::DType::U8, 1, 7, 100)]
    {
        let s = (8u64 << 20) / (h * d * w) + 3;
        let transpose = kerfx_ir::Request::new("onnx.transpose")
            .version(13)
            .input_meta("data", dtype, &[2, s, h, d])
            .attr("perm", [0, 2, 1, 3]);
        let reversed = kerfx_ir::Request::new("onnx.slice")
            .version(13)
            .input_meta("data", dtype, &[2, s, h, d])
            .input("starts", kerfx_ir::Tensor::from_i64s(&[-1]))
            .input("ends", kerfx_ir::Tensor::from_i64s(&[i64::MIN]))
            .input("axes", kerfx_ir::Tensor::from_i64s(&[1]))
            .input("steps", kerfx_ir::Tensor::from_i64s(&[-1]));
        for req in if w == 1 { vec![transpose, reversed] } else { vec![transpose] } {
            let plan = kerfx_ir::lower(&req).unwrap();
            let input = plan.input_shape().map(|s| random_input(&mut rng, plan.dtype(), s));
            let expected = reference_bytes(&plan, input.as_deref()).unwrap();
            for k in [jit.compile(&plan, &Options::STATIC).unwrap(), jit2.compile(&plan, &Options::STATIC).unwrap()] {
                streamed += usize::from(k.clif().contains("sig0 = (i64, i64, i64, i64, i64)"));
                banded += usize::from(k.clif().contains("sig0 = (i64, i64, i64, i64, i64, i64, i64)"));
                if let Err(f) = run_guarded(k.as_ref(), input.as_deref(), &expected, &run_bytes) {
                    failures.push(format!("{}: {f:?}", describe(&plan)));
                }
            }
        }
    }
    // Rows gathered through a table (embedding lookups of 256- and 3,076-byte rows,
    // indices repeated and out of order): `stream_table_rows`, six arguments.
    let mut tabled = 0;
    for d in [64, 769] {
        let rows = (8u64 << 20) / (4 * d) + 5;
        let indices: Vec<i64> = (0..rows).map(|_| rng.range(-3000, 2999)).collect();
        let gather = kerfx_ir::Request::new("onnx.gather")
            .version(13)
            .input_meta("data", kerfx_ir::DType::F32, &[3000, d])
            .input("indices", kerfx_ir::Tensor::from_i64s(&indices));
        let plan = kerfx_ir::lower(&gather).unwrap();
        let input = plan.input_shape().map(|s| random_input(&mut rng, plan.dtype(), s));
        let expected = reference_bytes(&plan, input.as_deref()).unwrap();
        for k in [jit.compile(&plan, &Options::STATIC).unwrap(), jit2.compile(&plan, &Options::STATIC).unwrap()] {
            tabled += usize::from(k.clif().contains("sig0 = (i64, i64, i64, i64, i64, i64)"));
            if let Err(f) = run_guarded(k.as_ref(), input.as_deref(), &expected, &run_bytes) {
                failures.push(format!("{}: {f:?}", describe(&plan)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The transposes' rows went out in bands through the seven-argument host function
    // (their heads side by side in the input), the reversal's through the five-argument
    // one, the gathers' through the six-argument one.
    assert_eq!(
        (banded, streamed, tabled),
        (6, 2, 4),
        "kernels calling stream_row_blocks, stream_rows, stream_table_rows"
    );
}

/// Large stride-2 slices (outputs of 8 MiB and more, which stream their every-other-column
/// runs through the host's AVX2 loop with 32-byte loads): each row's last element read is
/// the input row's last, so with the input flush against its trailing guard a load past
/// the last kept element faults.
#[test]
fn large_stride2_slices_stay_inside_guarded_buffers() {
    let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 16 }).unwrap();
    let jit2 = Jit::new(JitSettings { threads: 2, cache_capacity: 16 }).unwrap();
    let mut rng = Rng::new(env_u64("KERF_GUARD_SEED", 0x6b65_7266) ^ 0x5354);
    let mut failures = Vec::new();
    for (dtype, w) in [(kerfx_ir::DType::F16, 2), (kerfx_ir::DType::F32, 4), (kerfx_ir::DType::I64, 8)] {
        for cols in [2048i64, 2053] {
            let rows = (8 << 20) / (cols * w) + 1;
            let req = kerfx_ir::Request::new("tensorrt.slice")
                .input_meta("input", dtype, &[rows as u64, (2 * cols - 1) as u64])
                .attr("start", [0, 0])
                .attr("size", [rows, cols])
                .attr("stride", [1, 2]);
            let plan = kerfx_ir::lower(&req).unwrap();
            let input = plan.input_shape().map(|s| random_input(&mut rng, plan.dtype(), s));
            let expected = reference_bytes(&plan, input.as_deref()).unwrap();
            for k in [jit.compile(&plan, &Options::STATIC).unwrap(), jit2.compile(&plan, &Options::STATIC).unwrap()] {
                if let Err(f) = run_guarded(k.as_ref(), input.as_deref(), &expected, &run_bytes) {
                    let f = match f {
                        GuardFailure::Wrong { flush, first_diff, .. } => {
                            format!("wrong output from byte {first_diff} ({flush:?})")
                        }
                        other => format!("{other:?}"),
                    };
                    failures.push(format!("{}: {f}", describe(&plan)));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Large transposes (outputs of 8 MiB and more, streamed: the tile copy's taller streamed
/// tiles) of every width with a vector path, sides that are no multiple of a tile's nor
/// of a square's, a 2-D swap and a 3-D rotation — output rows a whole number of lines
/// apart and not (each row's runs then cut at its own lines, a tile reaching a line of
/// columns past its own) — on one and two threads: every buffer flush against a guard
/// page (both ends), equal to the reference, and every kernel a streamed call of the tile
/// copy.
#[test]
fn large_streamed_transposes_stay_inside_guarded_buffers() {
    let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 16 }).unwrap();
    let jit2 = Jit::new(JitSettings { threads: 2, cache_capacity: 16 }).unwrap();
    let mut rng = Rng::new(env_u64("KERF_GUARD_SEED", 0x6b65_7266) ^ 0x5452);
    let (mut failures, mut tiled) = (Vec::new(), 0);
    for (dtype, shape, perm) in [
        (kerfx_ir::DType::U8, vec![2891u64, 2903], vec![1i64, 0]),
        (kerfx_ir::DType::F16, vec![2049, 2051], vec![1, 0]),
        (kerfx_ir::DType::F32, vec![1447, 1451], vec![1, 0]),
        (kerfx_ir::DType::F64, vec![1025, 1031], vec![1, 0]),
        (kerfx_ir::DType::F32, vec![33, 131, 487], vec![2, 0, 1]),
        (kerfx_ir::DType::F32, vec![2056, 1024], vec![1, 0]),
    ] {
        let req =
            kerfx_ir::Request::new("onnx.transpose").version(13).input_meta("data", dtype, &shape).attr("perm", perm);
        let plan = kerfx_ir::lower(&req).unwrap();
        let input = plan.input_shape().map(|s| random_input(&mut rng, plan.dtype(), s));
        let expected = reference_bytes(&plan, input.as_deref()).unwrap();
        assert!(
            expected.len() >= 8 << 20,
            "{}: {} bytes out, under the streaming size",
            describe(&plan),
            expected.len()
        );
        for k in [jit.compile(&plan, &Options::STATIC).unwrap(), jit2.compile(&plan, &Options::STATIC).unwrap()] {
            // The tile copy is the host function of nine arguments; its last, `stream`, is 1.
            let clif = k.clif();
            tiled += usize::from(
                clif.contains("sig0 = (i64, i64, i64, i64, i64, i64, i64, i64, i64)")
                    && clif.lines().any(|l| l.contains("call fn0(") && l.trim_end().ends_with("= 1")),
            );
            if let Err(f) = run_guarded(k.as_ref(), input.as_deref(), &expected, &run_bytes) {
                failures.push(format!("{}: {f:?}", describe(&plan)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(tiled, 12, "kernels calling the tile copy, streamed");
}

/// DepthToSpace of block size 2 (CRD and DCR): the width interleaves two input rows,
/// which the host's narrow tile copy moves 32 bytes of each row at a time with AVX2 and
/// the last few elements one by one. Row lengths that leave a remainder, every width
/// with a vector path and one without; each buffer flush against a guard page, so a load
/// past a row's last element of the last channel faults.
#[test]
fn depth_to_space_interleaves_stay_inside_guarded_buffers() {
    let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 16 }).unwrap();
    let mut rng = Rng::new(env_u64("KERF_GUARD_SEED", 0x6b65_7266) ^ 0x4432);
    let (mut failures, mut tiled) = (Vec::new(), 0);
    for dtype in
        [kerfx_ir::DType::U8, kerfx_ir::DType::F16, kerfx_ir::DType::F32, kerfx_ir::DType::F64, kerfx_ir::DType::C128]
    {
        for (mode, h, w) in [("CRD", 5, 37), ("DCR", 3, 64), ("CRD", 2, 131)] {
            let req = kerfx_ir::Request::new("onnx.depth_to_space")
                .version(13)
                .input_meta("input", dtype, &[1, 8, h, w])
                .attr("blocksize", 2)
                .attr("mode", mode);
            let plan = kerfx_ir::lower(&req).unwrap();
            let input = plan.input_shape().map(|s| random_input(&mut rng, plan.dtype(), s));
            let expected = reference_bytes(&plan, input.as_deref()).unwrap();
            let k = jit.compile(&plan, &Options::STATIC).unwrap();
            // The tile copy is the host function of nine arguments.
            tiled += usize::from(k.clif().contains("(i64, i64, i64, i64, i64, i64, i64, i64, i64)"));
            if let Err(f) = run_guarded(k.as_ref(), input.as_deref(), &expected, &run_bytes) {
                failures.push(format!("{}: {f:?}", describe(&plan)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(tiled, 15, "kernels calling the tile copy");
}

/// Large concats on an inner axis (outputs of 8 MiB and more: one interleaving pass,
/// streamed): pieces of one length go out straight from the inputs (whole lines of
/// 256-byte pieces, pieces of 100 bytes that straddle lines, pieces of 40 under a line),
/// pieces of different lengths through the staging buffer; one and two threads, every
/// buffer flush against a guard page (both ends), equal to the program on the reference.
#[test]
fn large_interleaving_concats_stay_inside_guarded_buffers() {
    let mut rng = Rng::new(env_u64("KERF_GUARD_SEED", 0x6b65_7266) ^ 0x4343);
    let mut runs = 0;
    for threads in [1, 2] {
        let jit = Jit::new(JitSettings { threads, cache_capacity: 16 }).unwrap();
        for (dtype, pieces) in [
            (kerfx_ir::DType::F32, vec![64u64, 64]),
            (kerfx_ir::DType::U8, vec![100, 100, 100]),
            (kerfx_ir::DType::U8, vec![40, 40]),
            (kerfx_ir::DType::F32, vec![64, 40, 24]),
        ] {
            let w = dtype.buffer_bytes(1).unwrap() as u64;
            let rows = (8u64 << 20) / (pieces.iter().sum::<u64>() * w) + 3;
            let shapes: Vec<Vec<u64>> = pieces.iter().map(|&p| vec![rows, p]).collect();
            let inputs: Vec<kerfx_ir::Tensor> = shapes
                .iter()
                .map(|s| kerfx_ir::Tensor::from_bytes(dtype, s, &random_input(&mut rng, dtype, s)).unwrap())
                .collect();
            let metas = shapes.iter().map(|s| kerfx_ir::InputArg::Meta { dtype, shape: s.clone() }).collect();
            let request =
                kerfx_ir::Request::new("onnx.concat").version(13).attr("axis", 1i64).input_list("inputs", metas);
            let program = kerfx_ir::lower_program(&request).unwrap();
            let views: Vec<_> = inputs.iter().map(|t| t.view()).collect();
            let want = kerfx_ir::program::evaluate(&program, &views).unwrap();
            let kernel = jit.compile_program(&program, false).unwrap();
            for flush in Flush::BOTH {
                let guarded_in: Vec<GuardedBuf> =
                    inputs.iter().map(|t| GuardedBuf::from_bytes(t.bytes().unwrap(), flush)).collect();
                let mut out = GuardedBuf::new(want[0].bytes().unwrap().len(), flush);
                let in_slices: Vec<&[u8]> = guarded_in.iter().map(GuardedBuf::as_slice).collect();
                kernel.run_buffers(&in_slices, &mut [out.as_mut_slice()]).unwrap();
                let what = format!("{dtype} pieces {pieces:?}, {threads} thread(s), {flush:?}");
                assert!(out.as_slice() == want[0].bytes().unwrap(), "{what}");
                assert!(out.canary_intact(), "{what}: bytes around the output written");
                runs += 1;
            }
        }
    }
    assert_eq!(runs, 16);
}
