//! Random chains (2–4 steps over every slice and pad op and mode, random dtypes and
//! shapes, fill heads) on every JIT backend with their buffers flush against PROT_NONE
//! pages: the fused kernel (where one loop nest says the chain; static, and as the
//! arguments of a dynamic kernel), the steps' static kernels and the steps' dynamic
//! kernels, each equal byte for byte to the reference
//! running the steps one by one. Any access outside the buffers faults.
//!
//! `KERF_CHAIN_CASES=N` sets the number of chains (default 1500), `KERF_CHAIN_SEED` the
//! first seed.

use kerfx::chain::ChainRequest;
use kerfx_ir::chain;
use kerfx_ir::schedule::Strided;
use kerfx_ir::{AxisRead, BoundaryMode, DType, Kernel, Plan, Request, Step, Tensor};
use kerfx_jit::{Jit, JitSettings, Options, Views};
use kerfx_reliability::*;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A random slice or pad request of any op and mode.
fn random_step(rng: &mut Rng) -> Request {
    match rng.below(7) {
        0 | 1 => random_trt_slice(rng),
        2 => random_onnx_slice(rng),
        3 => random_ov_slice(rng),
        4 => random_onnx_pad(rng),
        5 => random_ov_pad(rng),
        _ => random_ov_slice8(rng),
    }
}

/// A chain of 2–4 steps that lowers: a random head (a fill sometimes), then steps drawn
/// until one of the previous output's rank lowers on it (its data input removed: it
/// reads the previous output).
fn random_chain(rng: &mut Rng) -> Option<(ChainRequest, Vec<Plan>)> {
    let head = if rng.chance(15) { random_fill(rng) } else { random_step(rng) };
    let mut chain = ChainRequest { steps: vec![head] };
    let mut plans = chain::lower_chain(&chain).ok()?;
    let want = 2 + rng.below(3) as usize;
    while chain.steps.len() < want {
        let rank = plans.last()?.output_shape().len();
        let mut found = false;
        for _ in 0..200 {
            let mut step = random_step(rng);
            let spec = kerfx::op_spec(&step.op).ok()?;
            let name = kerfx::data_input_name(spec)?.to_string();
            if step.inputs.get(&name).is_none_or(|d| d.shape().len() != rank) {
                continue;
            }
            step.inputs.remove(&name);
            chain.steps.push(step);
            match chain::lower_chain(&chain) {
                Ok(p) => {
                    plans = p;
                    found = true;
                    break;
                }
                Err(_) => {
                    chain.steps.pop();
                }
            }
        }
        if !found {
            break;
        }
    }
    (chain.steps.len() >= 2).then_some((chain, plans))
}

#[test]
fn random_chains_fused_and_unfused_on_every_jit_backend_under_guard_pages() {
    let count = env_u64("KERF_CHAIN_CASES", 1500);
    let mut rng = Rng::new(env_u64("KERF_CHAIN_SEED", 0x6368_6169));
    let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 256 }).unwrap();
    let (mut chains, mut fused_runs, mut fill_heads, mut steps_total) = (0u64, 0u64, 0u64, 0u64);
    // Fused kernels of chains that start with a fill, and of nests with fill levels (two
    // or more fill values, or fills on axes that repeat or have tables).
    let (mut fused_fill_heads, mut fused_levels) = (0u64, 0u64);
    let mut failures: Vec<String> = Vec::new();
    while chains < count {
        let Some((chain, plans)) = random_chain(&mut rng) else { continue };
        chains += 1;
        steps_total += plans.len() as u64;
        let fused = kerfx_ir::map::compose(&plans).expect("a lowered chain composes");
        let input = plans[0].input_shape().map(|s| random_input(&mut rng, plans[0].dtype(), s));
        fill_heads += u64::from(input.is_none());
        let input_tensor = match (plans[0].input_shape(), &input) {
            (Some(shape), Some(bytes)) => Some(Tensor::from_bytes(plans[0].dtype(), shape, bytes).unwrap()),
            _ => None,
        };
        let expected = chain::evaluate_unfused(&plans, input_tensor.as_ref().map(Tensor::view)).unwrap();
        let expected = expected.bytes().unwrap().to_vec();
        let fused_ref = kerfx_ir::map::evaluate(&fused, input_tensor.as_ref().map(Tensor::view)).unwrap();
        let what = || format!("{:?}\n{fused}", chain.steps.iter().map(|s| &s.op).collect::<Vec<_>>());
        if fused_ref.bytes() != Some(expected.as_slice()) {
            failures.push(format!("fused reference: {}", what()));
        }
        let kernel = jit.compile(&fused, &Options::STATIC);
        // Every chain fuses into one kernel but strings (the JIT moves bytes: it refuses them).
        if kernel.is_err() != (fused.dtype == kerfx_ir::DType::String) {
            failures.push(format!("fuses: {:?}: {}", kernel.as_ref().err(), what()));
        }
        if let Ok(k) = kernel {
            fused_runs += 1;
            fused_fill_heads += u64::from(input.is_none());
            let nest = kerfx_ir::schedule::map_nest(&fused).unwrap();
            fused_levels += u64::from(!nest.levels.is_empty());
            if let Err(f) = run_guarded(k.as_ref(), input.as_deref(), &expected, &run_bytes) {
                failures.push(format!("fused jit: {}: {f:?}", what()));
            }
            let d = jit.compile(&fused, &Options::DYNAMIC).expect("fuses as the static kernel does");
            if let Err(f) = run_guarded(d.as_ref(), input.as_deref(), &expected, &run_bytes) {
                failures.push(format!("fused dynamic jit: {}: {f:?}", what()));
            }
        }
        // Step by step, static and dynamic kernels, each step guarded.
        for dynamic in [false, true] {
            let mut data = input.clone();
            for (k, plan) in plans.iter().enumerate() {
                let step_expected = reference_bytes(plan, data.as_deref()).unwrap();
                let kernel = jit.compile(plan, &Options::dynamic(dynamic));
                let kernel = kernel.unwrap_or_else(|e| panic!("step {}: {e}: {}", k + 1, what()));
                if let Err(f) = run_guarded(kernel.as_ref(), data.as_deref(), &step_expected, &run_bytes) {
                    failures.push(format!("step {} (dynamic {dynamic}): {}: {f:?}", k + 1, what()));
                }
                let mut out = vec![0u8; step_expected.len()];
                kernel.run_bytes(data.as_deref(), &mut out).unwrap();
                data = Some(out);
            }
            if data.as_deref() != Some(expected.as_slice()) {
                failures.push(format!("unfused (dynamic {dynamic}): {}", what()));
            }
        }
    }
    eprintln!(
        "{chains} chains, {steps_total} steps, {fill_heads} fill heads, {fused_runs} fused JIT kernels \
         ({fused_fill_heads} from fill heads, {fused_levels} with fill levels)"
    );
    assert!(failures.is_empty(), "{} failures, first:\n{}", failures.len(), failures[0]);
    // The generator must reach the fused kernels of every kind.
    assert!(fused_runs * 2 > chains, "only {fused_runs} of {chains} chains fused");
    assert!(fill_heads * 40 > chains, "only {fill_heads} fill heads");
    assert!(fused_fill_heads * 40 > chains, "only {fused_fill_heads} fused fill heads");
    assert!(fused_levels * 100 > chains, "only {fused_levels} fused chains with fill levels");
}

/// The elements of `plan`'s input read through `view` of `buffer`, gathered row-major:
/// the reference's input.
fn gather(plan: &Step, view: &Strided, buffer: &[u8]) -> Vec<u8> {
    scatter_gather(buffer, &plan.input_shape, view, plan.dtype.byte_width().unwrap())
}

/// `plan` reading `buffer` through `view` on a static kernel baking the strides and on
/// the dynamic kernel taking them as arguments, the buffer flush against guard pages,
/// each against the reference on the view's elements gathered; failures are pushed.
/// Returns whether the static kernel copies in tiles.
fn check_input_view(jit: &Jit, plan: &Step, view: &Strided, buffer: &[u8], failures: &mut Vec<String>) -> bool {
    let expected = reference_bytes(&Plan::Step(plan.clone()), Some(&gather(plan, view, buffer))).unwrap();
    let what = format!("{} through {view:?}", Plan::Step(plan.clone()));
    let k = jit.compile(plan, &Options::STATIC.input(view)).unwrap_or_else(|e| panic!("{what}: {e}"));
    if let Err(f) = run_guarded(k.as_ref(), Some(buffer), &expected, &run_bytes) {
        failures.push(format!("static: {what}: {f:?}"));
    }
    let d = jit.compile(plan, &Options::DYNAMIC.input(view)).unwrap();
    let run_dyn = |_: &dyn Kernel, input: Option<&[u8]>, out: &mut [u8]| {
        d.run(plan, Views::DENSE.input(view), Some(input.unwrap_or_default()), out)
    };
    if let Err(f) = run_guarded(d.as_ref(), Some(buffer), &expected, &run_dyn) {
        failures.push(format!("dynamic: {what}: {f:?}"));
    }
    k.is_tiled()
}

/// Random slice plans read through random views of a larger buffer (strides of any sign,
/// zero included, gaps, offsets), on a static kernel baking the strides and on a dynamic
/// kernel taking them as arguments, the buffer flush against guard pages: equal to the
/// reference on the view's elements gathered.
#[test]
fn strided_inputs_stay_inside_guarded_buffers() {
    let count = env_u64("KERF_STRIDED_CASES", 1500);
    let mut rng = Rng::new(env_u64("KERF_STRIDED_SEED", 0x7374_7269));
    let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 256 }).unwrap();
    let (mut runs, mut failures) = (0u64, Vec::<String>::new());
    while runs < count {
        let request = random_trt_slice(&mut rng);
        let Ok(Plan::Step(plan)) = kerfx_ir::lower(&request) else { continue };
        if plan.dtype.layout() != kerfx_ir::dtype::Layout::Bytes(plan.dtype.byte_width().unwrap_or(0)) {
            continue; // nibbles have no element address of their own
        }
        let shape = plan.input_shape.clone();
        let strides: Vec<i64> = shape.iter().map(|_| rng.range(-9, 9)).collect();
        let probe = Strided { offset: 0, strides, buffer_len: 0 };
        let (lo, hi) = probe.span(&shape).unwrap_or((0, -1));
        let pad = rng.below(3) as i128;
        let view = Strided { offset: (pad - lo) as i64, buffer_len: (hi - lo + 1 + 2 * pad) as u64, ..probe };
        let buffer = random_input(&mut rng, plan.dtype, &[view.buffer_len]);
        runs += 1;
        check_input_view(&jit, &plan, &view, &buffer, &mut failures);
    }
    assert!(failures.is_empty(), "{} failures, first:\n{}", failures.len(), failures[0]);
    // A view reaching outside its buffer is refused by both before any code runs.
    let request = Request::new("tensorrt.slice")
        .input_meta("input", kerfx_ir::DType::F32, &[3, 4])
        .attr("start", [0, 0])
        .attr("size", [2, 2])
        .attr("stride", [1, 1]);
    let Ok(Plan::Step(plan)) = kerfx_ir::lower(&request) else { panic!("the plan lowers") };
    let outside = Strided { offset: 1, strides: vec![4, 1], buffer_len: 12 };
    let e = jit.compile(&plan, &Options::STATIC.input(&outside)).unwrap_err().to_string();
    assert!(e.contains("input view") && e.contains("outside its buffer"), "{e}");
    let e = jit.compile(&plan, &Options::DYNAMIC.input(&outside)).unwrap_err().to_string();
    assert!(e.contains("input view") && e.contains("outside its buffer"), "{e}");
    let inside = Strided::contiguous(&plan.input_shape).unwrap();
    let d = jit.compile(&plan, &Options::DYNAMIC.input(&inside)).unwrap();
    let e = d.run(&plan, Views::DENSE.input(&outside), Some(&[0u8; 48]), &mut [0u8; 16]).unwrap_err().to_string();
    assert!(e.contains("input view"), "{e}");
    // A view passed to a kernel compiled for another layout is refused, naming the side.
    let dense = jit.compile(&plan, &Options::DYNAMIC).unwrap();
    let e = dense.run(&plan, Views::DENSE.input(&inside), Some(&[0u8; 48]), &mut [0u8; 16]).unwrap_err().to_string();
    assert!(e.contains("input layout"), "{e}");
}

/// A random output view of `shape`: the axes in a random order of memory, each stride
/// past the reach of the axes inside it by a random gap, at a random offset in a buffer
/// with a random tail; extent-1 axes get any stride.
fn random_output_view(rng: &mut Rng, shape: &[u64]) -> Strided {
    let mut order: Vec<usize> = (0..shape.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut strides = vec![0i64; shape.len()];
    let mut reach = 0i64;
    for &k in &order {
        strides[k] = if shape[k] == 1 { rng.range(-3, 9) } else { reach + 1 + rng.below(3) as i64 };
        if shape[k] > 1 {
            reach += strides[k] * (shape[k] as i64 - 1);
        }
    }
    let offset = rng.below(4) as i64;
    let empty = shape.contains(&0);
    let used = if empty { 0 } else { offset + reach + 1 };
    Strided { offset, strides, buffer_len: (used + rng.below(3) as i64) as u64 }
}

/// `dense` (row-major elements of `shape`, `w` bytes each) placed at the view's places
/// in a buffer of `fill` bytes: what a kernel writing the view must leave.
fn scatter_into(dense: &[u8], shape: &[u64], view: &Strided, w: usize, fill: u8) -> Vec<u8> {
    let mut buffer = vec![fill; view.buffer_len as usize * w];
    let n: u64 = shape.iter().product();
    let mut idx = vec![0u64; shape.len()];
    for i in 0..n {
        let mut r = i;
        for k in (0..shape.len()).rev() {
            idx[k] = r % shape[k];
            r /= shape[k];
        }
        let at =
            view.offset as i128 + idx.iter().zip(&view.strides).map(|(&i, &s)| i as i128 * s as i128).sum::<i128>();
        let at = at as usize * w;
        buffer[at..at + w].copy_from_slice(&dense[i as usize * w..(i as usize + 1) * w]);
    }
    buffer
}

/// Random slice plans and random fused chains writing random output views (axes in any
/// order of memory, gaps between rows and elements, offsets) of a buffer flush against
/// guard pages, read through random input views, on static kernels baking both views and
/// on the dynamic kernels that write views (both views' offsets and strides arguments):
/// the view's elements equal to the reference byte for byte, and every other byte of the
/// output buffer left as it was (the harness's pattern).
#[test]
fn strided_outputs_stay_inside_guarded_buffers() {
    let count = env_u64("KERF_STRIDED_OUT_CASES", 1500);
    let mut rng = Rng::new(env_u64("KERF_STRIDED_OUT_SEED", 0x6f75_7476));
    let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 256 }).unwrap();
    let (mut runs, mut chains, mut refused, mut failures) = (0u64, 0u64, 0u64, Vec::<String>::new());
    while runs < count {
        // A fused chain every third case, else one plan.
        let (plans, fused) = if rng.below(3) == 0 {
            let Some((_, plans)) = random_chain(&mut rng) else { continue };
            let fused = kerfx_ir::map::compose(&plans).expect("a lowered chain composes");
            (plans, Some(fused))
        } else {
            let Ok(plan) = kerfx_ir::lower(&random_step(&mut rng)) else { continue };
            (vec![plan], None)
        };
        let dtype = plans[0].dtype();
        let Some(w) = dtype.byte_width().filter(|&w| dtype.layout() == kerfx_ir::dtype::Layout::Bytes(w)) else {
            continue; // packed nibbles are written dense only
        };
        let Some(in_shape) = plans[0].input_shape().map(<[u64]>::to_vec) else { continue };
        let out_shape = plans.last().unwrap().output_shape().to_vec();
        // An input view as in the test above, and an output view.
        let strides: Vec<i64> = in_shape.iter().map(|_| rng.range(-9, 9)).collect();
        let probe = Strided { offset: 0, strides, buffer_len: 0 };
        let (lo, hi) = probe.span(&in_shape).unwrap_or((0, -1));
        let in_view = Strided { offset: -lo as i64, buffer_len: (hi - lo + 1) as u64, ..probe };
        let out_view = random_output_view(&mut rng, &out_shape);
        let buffer = random_input(&mut rng, dtype, &[in_view.buffer_len]);
        let gathered = scatter_gather(&buffer, &in_shape, &in_view, w);
        let data = Tensor::from_bytes(dtype, &in_shape, &gathered).unwrap();
        let expected = chain::evaluate_unfused(&plans, Some(data.view())).unwrap();
        let expected = scatter_into(expected.bytes().unwrap(), &out_shape, &out_view, w, 0x5A);
        let what = format!("{plans:?}\ninput {in_view:?}\noutput {out_view:?}");
        let views = Views { input: Some(&in_view), output: Some(&out_view) };
        match (&fused, &plans[0]) {
            (Some(f), _) if kerfx_ir::schedule::map_nest(f).is_ok_and(|n| !n.levels.is_empty()) => {
                // Nests with fill levels write no output view: both kernels refuse, saying why.
                for r in [jit.compile(f, &Options::STATIC.views(views)), jit.compile(f, &Options::DYNAMIC.views(views))]
                {
                    match r {
                        Err(e) if e.to_string().contains("fill levels") && e.to_string().contains("no output view") => {
                        }
                        other => {
                            failures.push(format!("fill levels into a view: {what}: {:?}", other.map(|_| "compiled")))
                        }
                    }
                }
                refused += 1;
                continue;
            }
            (Some(f), _) => {
                if f.dtype == DType::String {
                    continue; // a chain of strings: no nest
                }
                let k = must(jit.compile(f, &Options::STATIC.views(views)), &what);
                if let Err(f) = run_guarded(k.as_ref(), Some(&buffer), &expected, &run_bytes) {
                    failures.push(format!("static chain: {what}: {f:?}"));
                }
                let d = must(jit.compile(f, &Options::DYNAMIC.views(views)), &what);
                if let Err(f) = run_guarded(d.as_ref(), Some(&buffer), &expected, &run_bytes) {
                    failures.push(format!("dynamic chain: {what}: {f:?}"));
                }
                chains += 1;
            }
            (None, Plan::Step(p)) => {
                let k = must(jit.compile(p, &Options::STATIC.views(views)), &what);
                if let Err(f) = run_guarded(k.as_ref(), Some(&buffer), &expected, &run_bytes) {
                    failures.push(format!("static: {what}: {f:?}"));
                }
                let d = must(jit.compile(p, &Options::DYNAMIC.views(views)), &what);
                let run_dyn = |_: &dyn Kernel, input: Option<&[u8]>, out: &mut [u8]| {
                    d.run(p, views, Some(input.unwrap_or_default()), out)
                };
                if let Err(f) = run_guarded(d.as_ref(), Some(&buffer), &expected, &run_dyn) {
                    failures.push(format!("dynamic: {what}: {f:?}"));
                }
            }
            (None, Plan::Fill(_)) => continue,
        }
        runs += 1;
    }
    eprintln!("{runs} output views, {chains} of them fused chains; {refused} chains with fill levels refused");
    assert!(failures.is_empty(), "{} failures, first:\n{}", failures.len(), failures[0]);
    assert!(chains * 6 > runs, "only {chains} chains");
    assert!(refused > 0, "no chain with fill levels was tried");
}

fn must<T>(r: Result<T, kerfx_ir::Error>, what: &str) -> T {
    r.unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// The view's elements of `buffer` gathered row-major.
fn scatter_gather(buffer: &[u8], shape: &[u64], view: &Strided, w: usize) -> Vec<u8> {
    let n: u64 = shape.iter().product();
    let mut out = Vec::with_capacity(n as usize * w);
    let mut idx = vec![0u64; shape.len()];
    for i in 0..n {
        let mut r = i;
        for k in (0..shape.len()).rev() {
            idx[k] = r % shape[k];
            r /= shape[k];
        }
        let at =
            view.offset as i128 + idx.iter().zip(&view.strides).map(|(&i, &s)| i as i128 * s as i128).sum::<i128>();
        out.extend_from_slice(&buffer[at as usize * w..(at as usize + 1) * w]);
    }
    out
}

/// Output views that overlap, reach outside their buffer or step backwards are refused
/// before any code runs, naming the axis.
#[test]
fn bad_output_views_are_refused() {
    let request = Request::new("tensorrt.slice")
        .input_meta("input", kerfx_ir::DType::F32, &[3, 4])
        .attr("start", [0, 0])
        .attr("size", [2, 3])
        .attr("stride", [1, 1]);
    let Ok(Plan::Step(plan)) = kerfx_ir::lower(&request) else { panic!("the plan lowers") };
    let jit = Jit::default();
    for (view, words) in [
        (Strided { offset: 0, strides: vec![2, 1], buffer_len: 100 }, ["output axis 0", "overlaps"]),
        (Strided { offset: 0, strides: vec![1, 1], buffer_len: 100 }, ["output axis", "overlaps"]),
        (Strided { offset: 0, strides: vec![4, -1], buffer_len: 100 }, ["axis 1", "output view"]),
        (Strided { offset: 0, strides: vec![0, 1], buffer_len: 100 }, ["output axis 0", "positive"]),
        (Strided { offset: 2, strides: vec![4, 1], buffer_len: 8 }, ["output view", "outside its buffer"]),
        (Strided { offset: 0, strides: vec![4], buffer_len: 100 }, ["output view", "strides"]),
    ] {
        let e = jit.compile(&plan, &Options::STATIC.output(&view)).unwrap_err().to_string();
        assert!(words.iter().all(|w| e.contains(w)), "{view:?}: {e}");
    }
}

/// A call large enough to split over threads writes an output view as one thread does:
/// each thread takes positions of the outer dim, whose elements are apart from every
/// other position's (the view's strides proven so), and nothing between them.
#[test]
fn threaded_calls_write_output_views() {
    let request = Request::new("tensorrt.slice")
        .input_meta("input", kerfx_ir::DType::F16, &[700, 500])
        .attr("start", [-5, -50])
        .attr("size", [1000, 600])
        .attr("stride", [1, 1])
        .attr("mode", "reflect");
    let Plan::Step(plan) = kerfx_ir::lower(&request).unwrap() else { panic!("a slice plan") };
    let mut rng = Rng::new(7);
    let input = random_input(&mut rng, plan.dtype, &plan.input_shape);
    let dense = reference_bytes(&Plan::Step(plan.clone()), Some(&input)).unwrap();
    // Every other element of every row, rows 1201 elements apart, from element 1.
    let view = Strided { offset: 1, strides: vec![1201, 2], buffer_len: 1201 * 1000 };
    let expected = scatter_into(&dense, &plan.output_shape, &view, 2, 0x5A);
    for threads in [1, 4] {
        let jit = Jit::new(JitSettings { threads, cache_capacity: 8 }).unwrap();
        let k = jit.compile(&plan, &Options::STATIC.output(&view)).unwrap();
        if let Err(f) = run_guarded(k.as_ref(), Some(&input), &expected, &run_bytes) {
            panic!("static, {threads} threads: {f:?}");
        }
        let d = jit.compile(&plan, &Options::DYNAMIC.output(&view)).unwrap();
        let run_dyn = |_: &dyn Kernel, input: Option<&[u8]>, out: &mut [u8]| {
            d.run(&plan, Views::DENSE.output(&view), Some(input.unwrap_or_default()), out)
        };
        if let Err(f) = run_guarded(d.as_ref(), Some(&input), &expected, &run_dyn) {
            panic!("dynamic, {threads} threads: {f:?}");
        }
    }
}

/// A fused chain that starts with a fill, or whose nest has fill levels (two fill values),
/// writes no output view: static and dynamic kernels refuse one, saying why, before any
/// code runs; written dense, the same chains equal the steps run one by one.
#[test]
fn fill_heads_and_fill_levels_write_no_output_views() {
    let random = Request::new("tensorrt.fill")
        .attr("dimensions", [6, 8])
        .attr("operation", "random_uniform")
        .attr("alpha", -2.0)
        .attr("beta", 3.0)
        .attr("to_type", "f32")
        .attr("seed", 7);
    let crop = Request::new("tensorrt.slice").attr("start", [1, 2]).attr("size", [4, 4]).attr("stride", [1, 1]);
    let pad = Request::new("onnx.pad")
        .version(19)
        .attr("mode", "constant")
        .input_meta("data", kerfx_ir::DType::I8, &[4, 4])
        .input("pads", Tensor::from_i64s(&[1, 1, 1, 1]))
        .input("constant_value", Tensor::from_bytes(kerfx_ir::DType::I8, &[], &[7]).unwrap());
    let wide = Request::new("tensorrt.slice")
        .attr("start", [-1, -1])
        .attr("size", [8, 8])
        .attr("stride", [1, 1])
        .attr("mode", "fill")
        .input("fill", Tensor::scalar_bits(kerfx_ir::DType::I64, 9));
    let x = Tensor::from_bytes(kerfx_ir::DType::I8, &[4, 4], &(0..16).collect::<Vec<u8>>()).unwrap();
    let jit = Jit::default();
    for (steps, input, why) in
        [(vec![random, crop], None, "starts with a fill"), (vec![pad, wide], Some(x), "fill levels")]
    {
        let plans = chain::lower_chain(&ChainRequest { steps }).unwrap();
        let fused = kerfx_ir::map::compose(&plans).unwrap();
        let shape = &fused.output_shape;
        // Rows apart: every element of the output in a buffer twice as wide.
        let view = Strided { offset: 0, strides: vec![2 * shape[1] as i64, 1], buffer_len: 2 * shape[0] * shape[1] };
        let static_err = jit.compile(&fused, &Options::STATIC.output(&view));
        let dynamic_err = jit.compile(&fused, &Options::DYNAMIC.output(&view));
        for e in [static_err, dynamic_err] {
            let e = e.unwrap_err().to_string();
            assert!(e.contains(why) && e.contains("writes no output view"), "{fused}: {e}");
        }
        let expected = chain::evaluate_unfused(&plans, input.as_ref().map(Tensor::view)).unwrap();
        for k in [jit.compile(&fused, &Options::STATIC), jit.compile(&fused, &Options::DYNAMIC)] {
            let k = k.expect("a chain of bytes fuses");
            assert_eq!(k.run_tensor(input.as_ref().map(Tensor::view)).unwrap(), expected, "{fused}");
        }
    }
}

/// Random transposed and permuted views (2 or 3 axes of a dense buffer in a random order,
/// some with gaps between elements or rows, some reversed) of random byte-wide dtypes and
/// shapes — extents around the tile's side and edges smaller than a tile — read by crops
/// of random modes and steps on static kernels (the tiled block copies where the JIT's
/// policy takes them) and on dynamic kernels, the buffer flush against guard pages: equal
/// byte for byte to the reference on the view's elements gathered.
#[test]
fn tiled_views_stay_inside_guarded_buffers() {
    let count = env_u64("KERF_TILED_CASES", 300);
    let mut rng = Rng::new(env_u64("KERF_TILED_SEED", 0x7469_6c65));
    let jit = Jit::new(JitSettings { threads: 1, cache_capacity: 16 }).unwrap();
    let dtypes = [DType::Bool, DType::U8, DType::I16, DType::F16, DType::F32, DType::I64, DType::C64, DType::C128];
    let modes = [BoundaryMode::StrictBounds, BoundaryMode::Fill, BoundaryMode::Clamp, BoundaryMode::Wrap];
    let (mut tiled, mut failures) = (0u64, Vec::<String>::new());
    for _ in 0..count {
        let dtype = *rng.pick(&dtypes);
        let rank = 2 + rng.below(2) as usize;
        let shape: Vec<u64> = (0..rank)
            .map(|k| if k == 0 && rank == 3 || rng.chance(25) { rng.range(1, 9) } else { rng.range(56, 150) } as u64)
            .collect();
        // The buffer: the axes in a random order, innermost in memory first, each with a
        // gap of 0–2 elements after it sometimes; some axes reversed.
        let mut order: Vec<usize> = (0..rank).collect();
        for k in (1..rank).rev() {
            order.swap(k, rng.below(k as u64 + 1) as usize);
        }
        if rng.chance(60) {
            // Mostly the last two axes transposed (the tiled path's case).
            order.retain(|&a| a + 2 < rank);
            order.insert(0, rank - 2);
            order.push(rank - 1);
        }
        let mut strides = vec![0i64; rank];
        let mut stride = if rng.chance(20) { 2 } else { 1 };
        for &ax in &order {
            strides[ax] = stride;
            stride *= shape[ax] as i64 + if rng.chance(30) { rng.range(1, 2) } else { 0 };
        }
        for s in &mut strides {
            if rng.chance(20) {
                *s = -*s;
            }
        }
        let probe = Strided { offset: 0, strides, buffer_len: 0 };
        let (lo, hi) = probe.span(&shape).unwrap();
        let view = Strided { offset: -lo as i64, buffer_len: (hi - lo + 1) as u64, ..probe };
        // A crop of every axis (steps ±1, 2 sometimes; mostly long), past the edges in the
        // modes that allow it half of the time.
        let mode = *rng.pick(&modes);
        let axes: Vec<AxisRead> = shape
            .iter()
            .map(|&d| {
                let d = d as i64;
                let step: i64 = *rng.pick(&[1, 1, 1, -1, 2]);
                if mode == BoundaryMode::StrictBounds || rng.chance(50) {
                    let most = (d - 1) / step.abs() + 1;
                    let extent = if rng.chance(25) { rng.range(1, most) } else { rng.range((most - 9).max(1), most) };
                    let reach = (extent - 1) * step.abs();
                    let first = rng.range(0, d - 1 - reach);
                    let start = if step < 0 { first + reach } else { first };
                    AxisRead { extent: extent as u64, start, step }
                } else {
                    AxisRead { extent: rng.range(1, d + 6) as u64, start: rng.range(-3, d), step }
                }
            })
            .collect();
        let plan = Step {
            source_shape: Vec::new(),
            order: Vec::new(),
            dtype,
            input_shape: shape.clone(),
            output_shape: axes.iter().map(|a| a.extent).collect(),
            axes,
            mode,
            // A random element of the dtype's width (bool: true).
            fill_bits: match dtype.byte_width().unwrap() {
                _ if dtype == DType::Bool => 1,
                w @ 1..8 => rng.next_u64() as u128 & ((1 << (8 * w)) - 1),
                _ => rng.next_u64() as u128,
            },
            windows: Vec::new(),
            gathered: None,
        };
        let buffer = random_input(&mut rng, dtype, &[view.buffer_len]);
        tiled += u64::from(check_input_view(&jit, &plan, &view, &buffer, &mut failures));
    }
    assert!(failures.is_empty(), "{} failures, first:\n{}", failures.len(), failures[0]);
    // The generator must reach the tiled path often (over a third of the kernels).
    eprintln!("{tiled} of {count} static kernels tiled");
    assert!(tiled * 4 > count, "only {tiled} of {count} kernels tiled");
}
