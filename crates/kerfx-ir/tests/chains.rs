//! Chains: step-by-step validation naming the step, and the composed (fused) map against
//! the steps run one by one with the reference interpreter, byte for byte.

mod common;
use common::*;
use kerfx_ir::chain::{self, ChainRequest};
use kerfx_ir::map::{DigitMap, Map, Piece};
use kerfx_ir::plan::Window;
use kerfx_ir::schedule::{self, Indexing, LoopNest, Segment, Strided};
use kerfx_ir::{AxisRead, BoundaryMode, DType, Error, FillKind, FillPlan, Linspace, Plan, Request, Step, Tensor};
use kerfx_testkit::plans::slice_plan as slice;
// The testkit's seeded generator, seeded by proptest.
use kerfx_testkit::random::Rng as Gen;
use proptest::prelude::*;

/// Fused and unfused runs of lowered plans: equal bytes; and every chain but a string one
/// has a loop nest (what the JIT emits), which gives them too: its offsets index the input,
/// or the fill the chain starts with.
fn fused_equals_unfused(plans: &[Plan], input: Option<&Tensor>) -> Map {
    let segments = kerfx_ir::map::compose_segments(plans).unwrap_or_else(|e| panic!("compose: {e}\n{plans:#?}"));
    let a = chain::evaluate_unfused(plans, input.map(Tensor::view)).unwrap();
    let b = kerfx_ir::map::evaluate_segments(&segments, input.map(Tensor::view)).unwrap();
    assert_eq!(a, b, "fused segments differ from unfused\n{segments:#?}\n{plans:#?}");
    // The first segment's nest, on the chain's own input (later segments read
    // intermediates the test does not keep; evaluate_segments checked their values).
    let [first, ..] = segments.as_slice() else { panic!("no segment") };
    if segments.len() > 1 {
        let steps = &plans[first.steps.clone()];
        let a = chain::evaluate_unfused(steps, input.map(Tensor::view)).unwrap();
        return check_nest(&first.fused, &a, input);
    }
    let fused = first.fused.clone();
    check_nest(&fused, &a, input)
}

/// The fused map's loop nest (what the JIT emits) gives `a` too: its offsets index the
/// input, or the fill the chain starts with.
fn check_nest(fused: &Map, a: &Tensor, input: Option<&Tensor>) -> Map {
    let fused = fused.clone();
    let nest = schedule::map_nest(&fused).unwrap();
    // (A string nest's buffer would be the strings' indices: not run here.)
    if fused.dtype != DType::String {
        let buffer = match (&nest.head, input) {
            (Some(head), _) => elements(&kerfx_ir::reference::fill(&head.0).unwrap()),
            (None, Some(input)) => elements(input),
            (None, None) => panic!("a chain of slices without its input\n{fused}"),
        };
        let got = run_nest(&nest, &buffer);
        assert_eq!(got, elements(a), "the chain's nest differs from the unfused run\n{fused}\n{nest}");
    }
    fused
}

/// Every element's bits (strings: their index, which no nest test uses).
fn elements(t: &Tensor) -> Vec<u128> {
    (0..t.len()).map(|i| t.element_bits(i).unwrap_or(i as u128)).collect()
}

/// A loop nest run element by element on a buffer of element bits.
fn run_nest(nest: &LoopNest, buffer: &[u128]) -> Vec<u128> {
    nest.verify().unwrap();
    assert_eq!(nest.input_len as usize, buffer.len());
    let mut out = Vec::new();
    /// `acc`: the offset so far, or the highest fill level of the dims so far.
    fn walk(nest: &LoopNest, k: usize, acc: Result<i128, usize>, buffer: &[u128], out: &mut Vec<u128>) {
        if k == nest.dims.len() {
            out.push(match acc {
                Ok(o) => buffer[o as usize],
                Err(level) => nest.levels.get(level).copied().unwrap_or(nest.fill_bits),
            });
            return;
        }
        let dim = &nest.dims[k];
        let mut period: Vec<Result<i64, usize>> = Vec::new();
        match &dim.indexing {
            Indexing::Segments(segs) => {
                for s in segs {
                    match *s {
                        Segment::Fill { len } => period.extend((0..len).map(|_| Err(0))),
                        Segment::FillAt { len, level } => period.extend((0..len).map(|_| Err(level))),
                        Segment::Affine { len, offset, stride } => {
                            period.extend((0..len as i64).map(|j| Ok(offset + stride * j)))
                        }
                    }
                }
            }
            Indexing::Table(t) => period.extend(t.iter().map(|&o| Ok(o))),
        }
        for y in 0..dim.extent {
            let next = match (acc, period[(y % dim.period) as usize]) {
                (Ok(a), Ok(c)) => Ok(a + c as i128),
                (Err(l), Err(m)) => Err(l.max(m)),
                (Err(l), Ok(_)) | (Ok(_), Err(l)) => Err(l),
            };
            walk(nest, k + 1, next, buffer, out);
        }
    }
    if !nest.dims.is_empty() {
        walk(nest, 0, Ok(nest.base as i128), buffer, &mut out);
    }
    out
}

/// A loop nest run element by element into its output buffer by the dims' output strides
/// (from its output view's base): each place written at most once (else a panic), `None`
/// where nothing was written.
fn run_nest_into(nest: &LoopNest, buffer: &[u128]) -> Vec<Option<u128>> {
    let values = run_nest(nest, buffer);
    let mut out = vec![None; nest.output_buffer_len() as usize];
    let mut at = Vec::with_capacity(values.len());
    fn places(nest: &LoopNest, k: usize, acc: u64, at: &mut Vec<u64>) {
        if k == nest.dims.len() {
            return at.push(acc);
        }
        for y in 0..nest.dims[k].extent {
            places(nest, k + 1, acc + y * nest.dims[k].out_stride, at);
        }
    }
    if !nest.dims.is_empty() {
        places(nest, 0, nest.out_view.map_or(0, |v| v.base), &mut at);
    }
    for (v, a) in values.into_iter().zip(at) {
        assert!(out[a as usize].replace(v).is_none(), "place {a} written twice\n{nest}");
    }
    out
}

fn run_chain(steps: Vec<Request>) -> Result<(Tensor, Map), Error> {
    let chain = ChainRequest { steps };
    let plans = chain::lower_chain(&chain)?;
    let spec = kerfx_ir::frontend::spec(&chain.steps[0].op)?;
    let input = chain::data_input_name(spec).and_then(|n| chain.steps[0].inputs.get(n)).and_then(|i| i.tensor());
    let fused = fused_equals_unfused(&plans, input);
    Ok((kerfx_ir::map::evaluate(&fused, input.map(Tensor::view))?, fused))
}

fn trt_step(start: &[i64], size: &[i64], stride: &[i64], mode: &str) -> Request {
    Request::new("tensorrt.slice")
        .attr("start", start.to_vec())
        .attr("size", size.to_vec())
        .attr("stride", stride.to_vec())
        .attr("mode", mode)
}

/// A chain on an f32 iota of `shape`: fused segments equal the steps run one by one;
/// how many segments it took.
fn segments_of(shape: &[u64], steps: Vec<Request>) -> usize {
    let n: u64 = shape.iter().product();
    let bytes: Vec<u8> = (0..n).flat_map(|v| (v as f32).to_le_bytes()).collect();
    let input = Tensor::from_bytes(DType::F32, shape, &bytes).unwrap();
    let mut steps = steps;
    let spec = kerfx_ir::frontend::spec(&steps[0].op).unwrap();
    let name = chain::data_input_name(spec).unwrap().to_string();
    steps[0] = steps[0].clone().input(&name, input.clone());
    let plans = chain::lower_chain(&ChainRequest { steps }).unwrap();
    fused_equals_unfused(&plans, Some(&input));
    kerfx_ir::map::compose_segments(&plans).unwrap().len()
}

fn onnx13(op: &str) -> Request {
    Request::new(op).version(13)
}

#[test]
fn head_split_and_merge_fuse_into_one_map() {
    // [batch, seq, heads·dim] → [batch, seq, heads, dim] → [batch, heads, seq, dim], and back.
    let split = || onnx13("onnx.reshape").input("shape", Tensor::from_i64s(&[2, 6, 3, 4]));
    let to_heads = || onnx13("onnx.transpose").attr("perm", vec![0, 2, 1, 3]);
    assert_eq!(segments_of(&[2, 6, 12], vec![split(), to_heads()]), 1);
    let merge = onnx13("onnx.reshape").input("shape", Tensor::from_i64s(&[2, 6, 12]));
    assert_eq!(segments_of(&[2, 6, 12], vec![split(), to_heads(), to_heads(), merge]), 1);
}

#[test]
fn window_partition_fuses_into_one_map() {
    // Swin: [1, H, W, C] → [1, H/2, 2, W/2, 2, C] → [1, H/2, W/2, 2, 2, C] → [-1, 2, 2, C].
    let steps = vec![
        onnx13("onnx.reshape").input("shape", Tensor::from_i64s(&[1, 2, 2, 3, 2, 5])),
        onnx13("onnx.transpose").attr("perm", vec![0, 1, 3, 2, 4, 5]),
        onnx13("onnx.reshape").input("shape", Tensor::from_i64s(&[-1, 2, 2, 5])),
    ];
    assert_eq!(segments_of(&[1, 4, 6, 5], steps), 1);
}

#[test]
fn an_aligned_crop_splits_through_a_reshape() {
    // Rows 2..6 of 8 read as 2 blocks of 2 rows, then the blocks and rows swapped: the
    // crop's read splits (start and length multiples of the inner factor).
    let steps = vec![
        onnx13("onnx.slice").input("starts", Tensor::from_i64s(&[2])).input("ends", Tensor::from_i64s(&[6])),
        onnx13("onnx.reshape").input("shape", Tensor::from_i64s(&[2, 2, 3])),
        onnx13("onnx.transpose").attr("perm", vec![1, 0, 2]),
    ];
    assert_eq!(segments_of(&[8, 3], steps), 1);
    // A reversal splits too.
    let steps = vec![
        onnx13("onnx.slice")
            .input("starts", Tensor::from_i64s(&[-1]))
            .input("ends", Tensor::from_i64s(&[-9]))
            .input("steps", Tensor::from_i64s(&[-1])),
        onnx13("onnx.reshape").input("shape", Tensor::from_i64s(&[4, 2, 3])),
        onnx13("onnx.transpose").attr("perm", vec![1, 0, 2]),
    ];
    assert_eq!(segments_of(&[8, 3], steps), 1);
}

#[test]
fn reshapes_that_do_not_line_up_cut_the_chain() {
    // A crop from row 1 (not a multiple of 2) read as blocks of 2 rows: cut before the
    // reshape's step, and the two segments still give the steps' bytes.
    let steps = vec![
        onnx13("onnx.slice").input("starts", Tensor::from_i64s(&[1])).input("ends", Tensor::from_i64s(&[5])),
        onnx13("onnx.reshape").input("shape", Tensor::from_i64s(&[2, 2, 3])),
        onnx13("onnx.transpose").attr("perm", vec![1, 0, 2]),
    ];
    assert_eq!(segments_of(&[8, 3], steps), 2);
    // [2, 3] regrouped as [3, 2] after a pad: no common refinement.
    let steps = vec![
        onnx13("onnx.pad").input("pads", Tensor::from_i64s(&[0, 0, 0, 1])),
        onnx13("onnx.reshape").input("shape", Tensor::from_i64s(&[4, 2])),
        onnx13("onnx.transpose"),
    ];
    assert_eq!(segments_of(&[2, 3], steps), 2);
}

#[test]
fn pad_then_crop_is_one_read_per_axis() {
    let x = arange_i32(&[4, 5]);
    let pad = onnx_pad(19, x, &[2, 2, 2, 2], "reflect");
    let mut crop = onnx(13, Tensor::from_i64s(&[]), &[1, 1], &[-1, -1], None, None);
    crop.inputs.remove("data");
    let (out, fused) = run_chain(vec![pad, crop]).unwrap();
    assert_eq!(out.shape(), [6, 7]);
    for a in &fused.axes {
        let DigitMap::Pieces(p) = &a.map else { panic!("{fused}") };
        assert!(p.iter().all(|p| matches!(p, Piece::Read { .. })), "{fused}");
    }
    assert!(fused.const_steps().is_empty());
}

#[test]
fn two_fill_values_keep_each_steps_value() {
    // Pad with 7, then a tensorrt fill slice reaching past the padded tensor with 9: the
    // pad's border keeps 7, positions outside the padded tensor take 9.
    let x = arange_i32(&[3]);
    let pad = onnx_pad(19, x, &[1, 1], "constant").input("constant_value", scalar_bits(DType::I32, 7));
    let slice = trt_step(&[-2], &[9], &[1], "fill").input("fill", scalar_i64(9));
    let (out, fused) = run_chain(vec![pad, slice]).unwrap();
    assert_eq!(ints(&out), [9, 9, 7, 0, 1, 2, 7, 9, 9]);
    assert_eq!(fused.const_steps(), [1, 2], "{fused}");
}

#[test]
fn errors_name_the_step() {
    let x = arange_i32(&[4, 6]);
    // A later step naming a data input.
    let first = trt(x.clone(), &[0, 0], &[2, 2], &[1, 1], "strict_bounds");
    let second = trt(x.clone(), &[0, 0], &[1, 1], &[1, 1], "strict_bounds");
    let e = run_chain(vec![first.clone(), second]).unwrap_err().to_string();
    assert!(e.starts_with("step 2 (tensorrt.slice)") && e.contains("input `input` is given"), "{e}");
    // Rank mismatch after a shrink: step 1 shrinks axis 0, step 2 addresses two axes.
    let shrink = ov(x.clone(), &[1, 0], &[2, 6], &[1, 1], [&[], &[], &[], &[1, 0], &[]]);
    let e = run_chain(vec![shrink, trt_step(&[0, 0], &[1, 1], &[1, 1], "strict_bounds")]).unwrap_err().to_string();
    assert!(e.starts_with("step 2 (tensorrt.slice)"), "{e}");
    // Strict bounds broken by step 2 only (step 1's output is 2×2).
    let e = run_chain(vec![first, trt_step(&[1, 1], &[2, 2], &[1, 1], "strict_bounds")]).unwrap_err().to_string();
    assert!(e.starts_with("step 2 (tensorrt.slice)") && e.contains("strict"), "{e}");
    // A fill after the first step.
    let fill = Request::new("tensorrt.fill")
        .attr("dimensions", vec![2i64])
        .attr("operation", "linspace")
        .attr("alpha", 0.0)
        .attr("beta", vec![1.0]);
    let e = run_chain(vec![trt(x, &[0, 0], &[2, 2], &[1, 1], "wrap"), fill]).unwrap_err().to_string();
    assert!(e.starts_with("step 2 (tensorrt.fill)"), "{e}");
    let e = chain::lower_chain(&ChainRequest::default()).unwrap_err().to_string();
    assert!(e.contains("at least one step"), "{e}");
}

/// Wrap over wrap with coprime periods would take as many pieces as positions: a table
/// of one period, never more entries than the axis's extent.
#[test]
fn periodic_over_periodic_takes_a_table_of_the_output_extent() {
    let x = arange_i32(&[7]);
    let (out, fused) =
        run_chain(vec![trt(x, &[0], &[11], &[1], "wrap"), trt_step(&[0], &[60], &[3], "reflect")]).unwrap();
    assert_eq!(out.len(), 60);
    let a = &fused.axes[0];
    match &a.map {
        DigitMap::Table(t) => assert!(t.len() as u64 == a.period && a.period <= a.extent, "{fused}"),
        DigitMap::Pieces(p) => assert!(p.len() <= kerfx_ir::schedule::MAX_SEGMENTS_PER_AXIS, "{fused}"),
    }
    // Huge extents: the map stays one period of the last step.
    let x = arange_i32(&[3]);
    let chain =
        ChainRequest { steps: vec![trt(x, &[0], &[1000], &[1], "wrap"), trt_step(&[5], &[1 << 40], &[7], "reflect")] };
    let plans = chain::lower_chain(&chain).unwrap();
    let fused = kerfx_ir::map::compose(&plans).unwrap();
    let a = &fused.axes[0];
    assert!(a.period <= 2 * 1000, "{fused}");
}

#[test]
fn slices_of_a_linspace_and_a_random_fill_are_its_elements() {
    for kind in [
        FillKind::Linspace(Linspace::Float { alpha: 0.1, beta: vec![0.3, 0.7] }),
        FillKind::RandomNormal { alpha: 1.0, beta: 2.0, seed: 42 },
        FillKind::RandomUniform { alpha: -1.0, beta: 3.0, seed: 7 },
    ] {
        let fill = Plan::Fill(FillPlan { dtype: DType::F32, shape: vec![5, 6], kind });
        let s = slice(DType::F32, &[5, 6], &[(3, 4, -2), (9, -2, 1)], BoundaryMode::Reflect);
        let fused = fused_equals_unfused(&[fill, Plan::Step(s)], None);
        assert!(matches!(fused.head, kerfx_ir::map::Head::Fill(_)));
    }
}

#[test]
fn fused_chain_snapshots() {
    let x = arange_i32(&[1, 3, 64, 64]);
    let cases: Vec<(&str, Vec<Request>)> = vec![
        (
            "ch1_pad_reflect_then_crop",
            vec![onnx_pad(19, x.clone(), &[0, 0, 16, 16, 0, 0, 16, 16], "reflect"), {
                let mut r = onnx(13, x.clone(), &[8, 8], &[-8, -8], Some(&[2, 3]), None);
                r.inputs.remove("data");
                r
            }],
        ),
        (
            "crop_of_wrap_padded",
            vec![
                trt(arange_i32(&[4, 4]), &[-3, -3], &[10, 10], &[1, 1], "wrap"),
                trt_step(&[2, 2], &[5, 5], &[1, 2], "clamp"),
            ],
        ),
        (
            "two_fills",
            vec![
                trt(arange_i32(&[4]), &[-1], &[6], &[1], "fill").input("fill", scalar_i64(5)),
                trt_step(&[-2], &[10], &[1], "fill").input("fill", scalar_i64(6)),
            ],
        ),
        (
            "random_fill_then_wrap_crop",
            vec![
                Request::new("tensorrt.fill")
                    .attr("dimensions", [4, 6])
                    .attr("operation", "random_uniform")
                    .attr("alpha", 0.0)
                    .attr("beta", 1.0)
                    .attr("to_type", "f32")
                    .attr("seed", 3),
                trt_step(&[1, -2], &[2, 9], &[1, 1], "wrap"),
            ],
        ),
        (
            "fill_then_wrap",
            vec![
                trt(arange_i32(&[3]), &[-1], &[5], &[1], "fill").input("fill", scalar_i64(4)),
                trt_step(&[0], &[40], &[1], "wrap"),
            ],
        ),
        (
            "shrink_then_reverse",
            vec![
                ov(arange_i32(&[3, 4, 5]), &[1, 0, 0], &[2, 4, 5], &[1, 1, 1], [&[], &[], &[], &[1, 0, 0], &[]]),
                trt_step(&[3, 4], &[4, 5], &[-1, -1], "strict_bounds"),
            ],
        ),
    ];
    for (name, steps) in cases {
        let (_, fused) = run_chain(steps).unwrap();
        let nest = schedule::map_nest(&fused).unwrap().to_string();
        insta::assert_snapshot!(format!("fused_{name}"), format!("{fused}\n\nloop nest:\n{nest}"));
    }
}

/// A random step on `shape`: every mode, windows, negative and zero steps, fill values,
/// and reshapes by unit axes; strict-bounds reads kept inside.
fn random_step(g: &mut Gen, dtype: DType, shape: &[u64]) -> Step {
    let modes = BoundaryMode::ALL;
    let mut mode = modes[g.below(modes.len() as u64) as usize];
    let windows: Vec<Window> = if g.below(3) == 0 {
        shape
            .iter()
            .map(|&d| {
                let lo = g.below(d + 1);
                Window { lo, len: g.below(d - lo + 1) }
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut axes = Vec::new();
    for (k, &d) in shape.iter().enumerate() {
        let wlen = windows.get(k).map_or(d, |w| w.len) as i64;
        let extent = g.below(7);
        let step = g.range(-3, 3);
        let start = g.range(-6, wlen + 5);
        axes.push(AxisRead { extent, start, step });
    }
    let fill_bits = match dtype {
        DType::I4 => g.below(16) as u128,
        DType::Bool => g.below(2) as u128,
        DType::String => 0,
        _ => g.below(256) as u128,
    };
    let mut p = Step {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype,
        input_shape: shape.to_vec(),
        axes,
        mode,
        fill_bits,
        output_shape: Vec::new(),
        windows,
        gathered: None,
    };
    // Strict bounds or an empty window outside fill mode: read inside, or fall back.
    for k in 0..shape.len() {
        let d = p.window(k).len as i64;
        let a = &mut p.axes[k];
        if mode == BoundaryMode::StrictBounds && d > 0 && a.extent > 0 {
            a.start = a.start.rem_euclid(d);
            let room = if a.step > 0 {
                (d - 1 - a.start) / a.step
            } else if a.step < 0 {
                a.start / -a.step
            } else {
                i64::MAX
            };
            a.extent = a.extent.min(room as u64 + 1);
        }
    }
    if p.validate().is_err() {
        mode = BoundaryMode::Fill;
        p.mode = mode;
    }
    // Sometimes the core axes permuted (a transpose after the slice).
    if g.below(3) == 0 && shape.len() > 1 {
        let mut order: Vec<usize> = (0..shape.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, g.below(i as u64 + 1) as usize);
        }
        p.order = order;
    }
    // Reshape: drop some unit axes, insert some.
    let mut out = Vec::new();
    for e in p.core_shape() {
        if !(e == 1 && g.below(2) == 0) {
            out.push(e);
        }
        if g.below(5) == 0 {
            out.push(1);
        }
    }
    p.output_shape = out;
    p
}

/// A step that only moves axes: its input read as a random reshape of it (axes merged or
/// split), whole, in a random order, written as another reshape — the ops of the
/// Transpose/Reshape/DepthToSpace family, whose reshapes fold into the next step.
fn random_move_step(g: &mut Gen, dtype: DType, shape: &[u64]) -> Step {
    let mut source = shape.to_vec();
    if g.below(2) == 0 && source.len() >= 2 {
        let i = g.below(source.len() as u64 - 1) as usize;
        let merged = source[i] * source[i + 1];
        source.splice(i..i + 2, [merged]);
    }
    if let Some(i) = (0..source.len()).find(|&i| source[i].is_multiple_of(2) && source[i] > 2) {
        let d = source[i];
        source.splice(i..i + 1, [2, d / 2]);
    }
    let mut order: Vec<usize> = (0..source.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, g.below(i as u64 + 1) as usize);
    }
    let core: Vec<u64> = order.iter().map(|&k| source[k]).collect();
    let output_shape = if g.below(2) == 0 || core.len() < 2 {
        core
    } else {
        let mut c = core;
        let last = c.pop().unwrap_or(1);
        *c.last_mut().unwrap() *= last;
        c
    };
    Step {
        dtype,
        input_shape: shape.to_vec(),
        axes: source.iter().map(|&d| AxisRead { extent: d, start: 0, step: 1 }).collect(),
        source_shape: source,
        order,
        mode: BoundaryMode::StrictBounds,
        fill_bits: 0,
        output_shape,
        windows: Vec::new(),
        gathered: None,
    }
}

fn random_tensor(g: &mut Gen, dtype: DType, shape: &[u64]) -> Tensor {
    if dtype == DType::String {
        let n: u64 = shape.iter().product();
        let words: Vec<String> = (0..n).map(|i| format!("s{i}{}", "x".repeat(g.below(3) as usize))).collect();
        return Tensor::from_strings(shape, &words).unwrap();
    }
    let t = Tensor::zeros(dtype, shape).unwrap();
    let n = t.bytes().unwrap().len();
    let mut bytes: Vec<u8> = (0..n).map(|_| g.next_u64() as u8).collect();
    if dtype == DType::Bool {
        bytes.iter_mut().for_each(|b| *b &= 1);
    }
    Tensor::from_bytes(dtype, shape, &bytes).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// Random chains of 2–4 steps (every mode, windows, reshapes; dtypes of every layout;
    /// fill heads): the fused map gives the unfused run's bytes.
    #[test]
    fn random_chains_fuse_exactly(seed in any::<u64>()) {
        let mut g = Gen::new(seed);
        let dtypes = [DType::U8, DType::I16, DType::F32, DType::F64, DType::I4, DType::Bool, DType::C128, DType::String];
        let head_fill = g.below(4) == 0;
        let mut dtype = if head_fill { DType::F32 } else { dtypes[g.below(dtypes.len() as u64) as usize] };
        let rank = g.below(4) as usize;
        let shape: Vec<u64> = (0..rank).map(|_| g.below(6)).collect();
        let mut plans = Vec::new();
        let mut input = None;
        if head_fill {
            let half = g.below(2) == 0;
            let kind = match g.below(4) {
                0 => FillKind::Linspace(Linspace::Float {
                    alpha: g.range(-50, 50) as f64 / 7.0,
                    beta: (0..rank).map(|_| g.range(-20, 20) as f64 / 3.0).collect(),
                }),
                1 => {
                    dtype = if half { DType::I32 } else { DType::I64 };
                    FillKind::Linspace(Linspace::Int { alpha: g.range(-99, 99), beta: (0..rank).map(|_| g.range(-9, 9)).collect() })
                }
                2 => {
                    dtype = if half { DType::F16 } else { DType::F32 };
                    FillKind::RandomUniform { alpha: -2.0, beta: 5.0, seed: g.next_u64() }
                }
                _ => {
                    dtype = if half { DType::F16 } else { DType::F32 };
                    FillKind::RandomNormal { alpha: 0.5, beta: 3.0, seed: g.next_u64() }
                }
            };
            plans.push(Plan::Fill(FillPlan { dtype, shape: shape.clone(), kind }));
        } else {
            input = Some(random_tensor(&mut g, dtype, &shape));
        }
        let steps = 2 + g.below(3) as usize - usize::from(head_fill);
        let mut cur = shape;
        for _ in 0..steps {
            let p = if g.below(3) == 0 { random_move_step(&mut g, dtype, &cur) } else { random_step(&mut g, dtype, &cur) };
            cur = p.output_shape.clone();
            plans.push(Plan::Step(p));
        }
        fused_equals_unfused(&plans, input.as_ref());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// A slice read through a view of a larger buffer (any strides: zero, negative, with
    /// gaps; any offset): the strided nest gives the reference's elements of the view.
    #[test]
    fn strided_inputs_read_the_views_elements(seed in any::<u64>()) {
        let mut g = Gen::new(seed);
        let rank = g.below(4) as usize;
        let shape: Vec<u64> = (0..rank).map(|_| 1 + g.below(5)).collect();
        let strides: Vec<i64> = (0..rank).map(|_| g.range(-12, 12)).collect();
        let view = Strided { offset: 0, strides, buffer_len: 0 };
        let (lo, hi) = view.span(&shape).unwrap();
        let pad = g.below(4) as i128;
        let view = Strided { offset: (pad - lo) as i64, buffer_len: (hi - lo + 1 + 2 * pad) as u64, ..view };
        let buffer: Vec<u128> = (0..view.buffer_len).map(|_| g.below(256) as u128).collect();
        // The view's elements, gathered row-major: the reference's input.
        let n: u64 = shape.iter().product();
        let mut idx = vec![0u64; rank];
        let gathered: Vec<u8> = (0..n)
            .map(|i| {
                let mut r = i;
                for k in (0..rank).rev() {
                    idx[k] = r % shape[k];
                    r /= shape[k];
                }
                let at = view.offset as i128 + idx.iter().zip(&view.strides).map(|(&i, &s)| i as i128 * s as i128).sum::<i128>();
                buffer[at as usize] as u8
            })
            .collect();
        let input = Tensor::from_bytes(DType::U8, &shape, &gathered).unwrap();
        let p = random_step(&mut g, DType::U8, &shape);
        let expected = kerfx_ir::reference::slice(&p, input.view()).unwrap();
        let nest = kerfx_ir::Step::map(&p).and_then(|m| schedule::map_strided(&m, &view)).unwrap();
        prop_assert_eq!(run_nest(&nest, &buffer), elements(&expected), "{}", nest);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// A slice written through an output view (axes in any order of memory, gaps, an
    /// offset) and read through an input view: the nest writes the reference's elements
    /// at the view's places, each once, and nothing else.
    #[test]
    fn strided_outputs_write_the_views_places(seed in any::<u64>()) {
        let mut g = Gen::new(seed);
        let rank = g.below(4) as usize;
        let shape: Vec<u64> = (0..rank).map(|_| 1 + g.below(5)).collect();
        let input = Tensor::from_bytes(DType::U8, &shape, &(0..shape.iter().product::<u64>()).map(|_| g.below(256) as u8).collect::<Vec<_>>()).unwrap();
        let p = random_step(&mut g, DType::U8, &shape);
        let expected = elements(&kerfx_ir::reference::slice(&p, input.view()).unwrap());
        let out_shape = p.output_shape.clone();
        // Strides in a random order of the axes, each past the reach of those inside it.
        let mut order: Vec<usize> = (0..out_shape.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, g.below(i as u64 + 1) as usize);
        }
        let (mut strides, mut reach) = (vec![0i64; out_shape.len()], 0i64);
        for &k in &order {
            strides[k] = reach + 1 + g.below(3) as i64;
            reach += strides[k] * (out_shape[k] as i64 - 1);
        }
        let offset = g.below(3) as i64;
        let empty = out_shape.contains(&0);
        let view = Strided { offset, strides: strides.clone(), buffer_len: if empty { 0 } else { (offset + reach + 1) as u64 } + g.below(3) };
        let nest = kerfx_ir::Step::map(&p).and_then(|m| schedule::map_views(&m, None, Some(&view))).unwrap();
        let got = run_nest_into(&nest, &elements(&input));
        let mut want = vec![None; view.buffer_len as usize];
        let n = expected.len();
        let mut idx = vec![0u64; out_shape.len()];
        for (i, v) in expected.into_iter().enumerate().take(n) {
            let mut r = i as u64;
            for k in (0..out_shape.len()).rev() {
                idx[k] = r % out_shape[k];
                r /= out_shape[k];
            }
            let at = offset + idx.iter().zip(&strides).map(|(&i, &s)| i as i64 * s).sum::<i64>();
            want[at as usize] = Some(v);
        }
        prop_assert_eq!(got, want, "{}", nest);
    }
}

/// Output views merge axes only where their strides continue; a dense view in a larger
/// buffer keeps the dense nest's dims.
#[test]
fn output_views_merge_only_where_strides_continue() {
    let p = slice(DType::F32, &[4, 8], &[(4, 0, 1), (8, 0, 1)], BoundaryMode::StrictBounds);
    let dense = kerfx_ir::Step::map(&p)
        .and_then(|m| schedule::map_views(&m, None, Some(&Strided { offset: 5, strides: vec![8, 1], buffer_len: 40 })))
        .unwrap();
    assert_eq!(dense.dims.len(), 1, "{dense}");
    assert!(dense.dense_from(0));
    let rows = kerfx_ir::Step::map(&p)
        .and_then(|m| schedule::map_views(&m, None, Some(&Strided { offset: 0, strides: vec![10, 1], buffer_len: 40 })))
        .unwrap();
    assert_eq!(rows.dims.len(), 2, "{rows}");
    assert!(!rows.dense_from(0) && rows.dense_from(1), "{rows}");
    let transposed = kerfx_ir::Step::map(&p)
        .and_then(|m| schedule::map_views(&m, None, Some(&Strided { offset: 0, strides: vec![1, 4], buffer_len: 32 })))
        .unwrap();
    assert!(!transposed.dense_from(1), "{transposed}");
    // A fill border of a view with gaps keeps its rows apart.
    let pad = slice(DType::F32, &[2, 2], &[(4, -1, 1), (4, -1, 1)], BoundaryMode::Fill);
    let nest = kerfx_ir::Step::map(&pad)
        .and_then(|m| schedule::map_views(&m, None, Some(&Strided { offset: 0, strides: vec![6, 1], buffer_len: 24 })))
        .unwrap();
    assert_eq!(nest.dims.iter().map(|d| d.out_stride).collect::<Vec<_>>(), [6, 1], "{nest}");
    // The nest's writes are checked too: a view's stride edited into overlap is refused.
    let mut bad = rows.clone();
    bad.dims[0].out_stride = 7;
    let e = bad.verify().unwrap_err().to_string();
    assert!(e.contains("overlaps"), "{e}");
    let mut huge = rows.clone();
    huge.out_view.as_mut().unwrap().buffer_len = u64::MAX; // offsets beyond i64
    assert!(huge.verify().is_err());
    let mut bad = rows;
    bad.out_view.as_mut().unwrap().buffer_len = 37; // the last row ends at 37
    let e = bad.verify().unwrap_err().to_string();
    assert!(e.contains("outside its buffer"), "{e}");
}

#[test]
fn views_reaching_outside_their_buffer_are_errors() {
    let p = slice(DType::F32, &[3, 4], &[(3, 0, 1), (4, 0, 1)], BoundaryMode::StrictBounds);
    let bad = [
        Strided { offset: 0, strides: vec![4, 1], buffer_len: 11 },
        Strided { offset: 3, strides: vec![-4, 1], buffer_len: 100 },
        Strided { offset: 0, strides: vec![4], buffer_len: 100 },
        Strided { offset: -1, strides: vec![0, 0], buffer_len: 100 },
    ];
    for v in bad {
        let e = kerfx_ir::Step::map(&p).and_then(|m| schedule::map_strided(&m, &v)).unwrap_err().to_string();
        assert!(e.contains("input view"), "{e}");
    }
    // A transposed view and a broadcast (stride 0) are fine.
    for v in [
        Strided { offset: 0, strides: vec![1, 3], buffer_len: 12 },
        Strided { offset: 8, strides: vec![-4, 1], buffer_len: 12 },
        Strided { offset: 0, strides: vec![0, 1], buffer_len: 4 },
    ] {
        kerfx_ir::Step::map(&p).and_then(|m| schedule::map_strided(&m, &v)).unwrap();
    }
}

/// Axes merge only where the view's strides continue each other.
#[test]
fn strided_axes_merge_only_where_strides_continue() {
    let p = slice(DType::F32, &[4, 8], &[(4, 0, 1), (8, 0, 1)], BoundaryMode::StrictBounds);
    let dense = kerfx_ir::Step::map(&p)
        .and_then(|m| schedule::map_strided(&m, &Strided { offset: 0, strides: vec![8, 1], buffer_len: 32 }))
        .unwrap();
    assert_eq!(dense.dims.len(), 1, "{dense}");
    let padded = kerfx_ir::Step::map(&p)
        .and_then(|m| schedule::map_strided(&m, &Strided { offset: 0, strides: vec![10, 1], buffer_len: 40 }))
        .unwrap();
    assert_eq!(padded.dims.len(), 2, "{padded}");
    let transposed = kerfx_ir::Step::map(&p)
        .and_then(|m| schedule::map_strided(&m, &Strided { offset: 0, strides: vec![1, 4], buffer_len: 32 }))
        .unwrap();
    assert_eq!(transposed.dims.len(), 2, "{transposed}");
}

/// V1's stride-2 view (W2's crop of every other column of a [4096, 8192] buffer) reads
/// its rows with the run W3 (a stride-2 slice of a contiguous input) reads with: the
/// backends emit the same staged stride-2 gather for both.
#[test]
fn a_stride_2_view_reads_with_w3s_run() {
    use kerfx_ir::schedule::Run;
    let inner_run =
        |n: &LoopNest| n.dims.last().and_then(|d| d.segments()).map(|s| s.iter().map(|s| s.run()).collect::<Vec<_>>());
    let w2 = slice(DType::F32, &[4096, 4096], &[(4096, 0, 1), (2048, 1024, 1)], BoundaryMode::StrictBounds);
    let view = Strided { offset: 0, strides: vec![8192, 2], buffer_len: 4096 * 8192 };
    let v1 = kerfx_ir::Step::map(&w2).and_then(|m| schedule::map_strided(&m, &view)).unwrap();
    let w3 = kerfx_ir::Step::map(&slice(
        DType::F32,
        &[4096, 4096],
        &[(4096, 0, 1), (2048, 0, 2)],
        BoundaryMode::StrictBounds,
    ))
    .and_then(|m| schedule::map_nest(&m))
    .unwrap();
    assert_eq!(inner_run(&v1), Some(vec![Run::Strided(2)]), "{v1}");
    assert_eq!(inner_run(&v1), inner_run(&w3), "{w3}");
    // The rows do not merge (the view's rows are 8192 apart, not 4096): 2048-element runs.
    assert_eq!(v1.dims.iter().map(|d| d.extent).collect::<Vec<_>>(), [4096, 2048], "{v1}");
}
