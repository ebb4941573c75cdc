//! Programs over strided buffers (`Jit::compile_program_views`): the programs of random
//! graphs (2–6 nodes of Split, Concat, Slice and the axis moves), each input read through
//! a random view (axes in any order, padded, strides negative or zero) and each output
//! written through a random view (axes in any order, padded), every buffer flush against
//! a PROT_NONE page at either end, on static and dynamic kernels: the output views'
//! elements equal the program on the reference (its inputs gathered from the views),
//! byte for byte, every other byte of the output buffers is left as it was, and nothing
//! outside the buffers is touched. Packed 4-bit programs refuse views, naming why.
//!
//! `KERF_PROGRAM_VIEW_CASES=N` sets the number of graphs (default 60).

use kerfx::graph::Prepared;
use kerfx_ir::schedule::Strided;
use kerfx_ir::{DType, Tensor};
use kerfx_jit::{Jit, ProgramViews};
use kerfx_reliability::*;
use kerfx_testkit::random::{Rng, random_graph};
use std::collections::BTreeMap;

/// A random view of a tensor of `shape` (axes laid out in a random order, each padded by
/// up to one element; for inputs, strides may be negated or zeroed), placed at a random
/// offset of a buffer with a little slack at both ends.
fn random_view(rng: &mut Rng, shape: &[u64], input: bool) -> Strided {
    let r = shape.len();
    let mut order: Vec<usize> = (0..r).collect();
    for k in (1..r).rev() {
        order.swap(k, rng.below(k as u64 + 1) as usize);
    }
    let mut strides = vec![0i64; r];
    let mut next = 1 + rng.below(2) as i64;
    for &a in order.iter().rev() {
        strides[a] = next;
        next *= shape[a].max(1) as i64 + rng.below(2) as i64;
    }
    if input {
        for s in &mut strides {
            if rng.chance(25) {
                *s = -*s;
            } else if rng.chance(10) {
                *s = 0;
            }
        }
    }
    if shape.contains(&0) {
        return Strided { offset: 0, strides, buffer_len: rng.below(3) };
    }
    let (mut lo, mut hi) = (0i64, 0i64);
    for (&e, &s) in shape.iter().zip(&strides) {
        let reach = (e as i64 - 1) * s;
        lo += reach.min(0);
        hi += reach.max(0);
    }
    let offset = -lo + rng.below(3) as i64;
    let buffer_len = (offset + hi + 1) as u64 + rng.below(3);
    Strided { offset, strides, buffer_len }
}

/// The buffer offsets of a view's elements, in row-major order of its shape.
fn offsets(view: &Strided, shape: &[u64]) -> Vec<usize> {
    let n = shape.iter().product::<u64>();
    (0..n)
        .map(|mut i| {
            let mut at = view.offset;
            for (&e, &s) in shape.iter().zip(&view.strides).rev() {
                at += (i % e) as i64 * s;
                i /= e;
            }
            at as usize
        })
        .collect()
}

#[test]
fn programs_read_and_write_random_strided_views_inside_their_buffers() {
    let cases: usize = std::env::var("KERF_PROGRAM_VIEW_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(60);
    let jit = Jit::default();
    let mut rng = Rng::new(0x7669_6577);
    let (mut runs, mut refused) = (0, 0);
    for case in 0..cases {
        let nodes = 2 + rng.below(5) as usize;
        let (graph, inputs) = random_graph(&mut rng, nodes);
        let what = format!("case {case}");
        let prepared = Prepared::new(graph.clone()).unwrap_or_else(|e| panic!("{what}: {e}"));
        let mut values: BTreeMap<String, Tensor> = prepared.graph().constants.clone();
        values.extend(inputs.clone());
        for (k, program) in prepared.programs().iter().enumerate() {
            let Some(gp) = program else { continue };
            let ins: Vec<&Tensor> = gp.reads.iter().map(|v| &values[v]).collect();
            let dense: Vec<_> = ins.iter().map(|t| t.view()).collect();
            let want = kerfx_ir::program::evaluate(&gp.program, &dense).unwrap_or_else(|e| panic!("{what}: {e}"));
            let p = &gp.program;
            let views = ProgramViews {
                inputs: p.inputs.iter().map(|s| Some(random_view(&mut rng, s, true))).collect(),
                outputs: p.outputs.iter().map(|s| Some(random_view(&mut rng, s, false))).collect(),
            };
            match p.dtype {
                DType::String => {}
                DType::I4 | DType::U4 => {
                    let err = jit.compile_program_views(p, false, &views).unwrap_err();
                    assert!(err.to_string().contains("takes dense buffers"), "{what}: {err}");
                    refused += 1;
                }
                dtype => {
                    let w = byte_len(dtype, &[1]);
                    // Each input's buffer: random bytes, the view's elements the tensor's.
                    let in_bufs: Vec<Vec<u8>> = ins
                        .iter()
                        .zip(views.inputs.iter().flatten())
                        .map(|(t, v)| {
                            let mut buf = vec![0u8; v.buffer_len as usize * w];
                            rng.fill_bytes(&mut buf);
                            let bytes = t.bytes().unwrap();
                            for (i, at) in offsets(v, t.shape()).into_iter().enumerate() {
                                buf[at * w..(at + 1) * w].copy_from_slice(&bytes[i * w..(i + 1) * w]);
                            }
                            buf
                        })
                        .collect();
                    // A zero stride reads one element for several positions: the tensor
                    // the view shows is what the buffer holds, gathered.
                    let shown: Vec<Tensor> = ins
                        .iter()
                        .zip(views.inputs.iter().flatten())
                        .zip(&in_bufs)
                        .map(|((t, v), buf)| {
                            let bytes: Vec<u8> = offsets(v, t.shape())
                                .iter()
                                .flat_map(|&at| buf[at * w..(at + 1) * w].to_vec())
                                .collect();
                            Tensor::from_bytes(dtype, t.shape(), &bytes).unwrap()
                        })
                        .collect();
                    let shown_views: Vec<_> = shown.iter().map(Tensor::view).collect();
                    let want = kerfx_ir::program::evaluate(p, &shown_views).unwrap_or_else(|e| panic!("{what}: {e}"));
                    for dynamic in [false, true] {
                        let kernel = jit
                            .compile_program_views(p, dynamic, &views)
                            .unwrap_or_else(|e| panic!("{what}, program {k}: {e}\n{views:?}"));
                        for flush in Flush::BOTH {
                            let guarded_in: Vec<GuardedBuf> =
                                in_bufs.iter().map(|b| GuardedBuf::from_bytes(b, flush)).collect();
                            let sentinels: Vec<Vec<u8>> = views
                                .outputs
                                .iter()
                                .flatten()
                                .map(|v| {
                                    let mut b = vec![0u8; v.buffer_len as usize * w];
                                    rng.fill_bytes(&mut b);
                                    b
                                })
                                .collect();
                            let mut guarded_out: Vec<GuardedBuf> =
                                sentinels.iter().map(|b| GuardedBuf::from_bytes(b, flush)).collect();
                            let in_slices: Vec<&[u8]> = guarded_in.iter().map(GuardedBuf::as_slice).collect();
                            let mut out_slices: Vec<&mut [u8]> =
                                guarded_out.iter_mut().map(GuardedBuf::as_mut_slice).collect();
                            kernel
                                .run_buffers(&in_slices, &mut out_slices)
                                .unwrap_or_else(|e| panic!("{what}, program {k}: {e}"));
                            drop(out_slices);
                            for (o, ((got, v), (w_t, sentinel))) in guarded_out
                                .iter()
                                .zip(views.outputs.iter().flatten())
                                .zip(want.iter().zip(&sentinels))
                                .enumerate()
                            {
                                let mut expected = sentinel.clone();
                                let bytes = w_t.bytes().unwrap();
                                for (i, at) in offsets(v, w_t.shape()).into_iter().enumerate() {
                                    expected[at * w..(at + 1) * w].copy_from_slice(&bytes[i * w..(i + 1) * w]);
                                }
                                assert!(
                                    got.as_slice() == expected.as_slice(),
                                    "{what}, program {k}, output {o}, dynamic {dynamic}, {flush:?}: {v:?}"
                                );
                                assert!(got.canary_intact(), "{what}, program {k}: bytes around output {o} written");
                            }
                            for (i, g) in guarded_in.iter().enumerate() {
                                assert!(g.canary_intact(), "{what}, program {k}: bytes around input {i} written");
                            }
                            runs += 1;
                        }
                    }
                }
            }
            values.extend(gp.writes.iter().cloned().zip(want));
        }
    }
    assert!(runs >= cases, "only {runs} program runs ({refused} refused) in {cases} graphs");
}

/// An output view with a negative stride, views of the wrong count or rank, and views
/// outside their buffers are refused when compiling, naming the buffer and the axis.
#[test]
fn views_a_program_cannot_run_are_refused_naming_them() {
    let request = kerfx::Request::new("onnx.concat").version(13).attr("axis", 0i64).input_list(
        "inputs",
        vec![
            kerfx::InputArg::Meta { dtype: DType::F32, shape: vec![2, 3] },
            kerfx::InputArg::Meta { dtype: DType::F32, shape: vec![1, 3] },
        ],
    );
    let program = kerfx::lower_program(&request).unwrap();
    let jit = Jit::default();
    let dense_in = |len: u64| Some(Strided { offset: 0, strides: vec![3, 1], buffer_len: len });
    let bad = |views: ProgramViews| jit.compile_program_views(&program, false, &views).unwrap_err().to_string();
    let e = bad(ProgramViews {
        inputs: vec![dense_in(6), dense_in(3)],
        outputs: vec![Some(Strided { offset: 6, strides: vec![-3, 1], buffer_len: 9 })],
    });
    assert!(e.contains("output 0") && e.contains("axis 0 is negative"), "{e}");
    let e = bad(ProgramViews { inputs: vec![dense_in(6)], outputs: vec![] });
    assert!(e.contains("program input views"), "{e}");
    let e = bad(ProgramViews { inputs: vec![dense_in(5), dense_in(3)], outputs: vec![] });
    assert!(e.contains("program input 0 view"), "{e}");
    let e = bad(ProgramViews {
        inputs: vec![Some(Strided { offset: 0, strides: vec![1], buffer_len: 6 }), None],
        outputs: vec![],
    });
    assert!(e.contains("program input 0 view"), "{e}");
    // Good views run: input 0 transposed in its buffer, the output's rows padded.
    let views = ProgramViews {
        inputs: vec![Some(Strided { offset: 0, strides: vec![1, 2], buffer_len: 6 }), None],
        outputs: vec![Some(Strided { offset: 0, strides: vec![4, 1], buffer_len: 12 })],
    };
    let kernel = jit.compile_program_views(&program, false, &views).unwrap();
    let a: Vec<u8> = [0.0f32, 3.0, 1.0, 4.0, 2.0, 5.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let b: Vec<u8> = [6.0f32, 7.0, 8.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut out = vec![0xFFu8; 48];
    kernel.run_buffers(&[&a, &b], &mut [&mut out]).unwrap();
    let got: Vec<u32> = out.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let f = |v: f32| v.to_bits();
    assert_eq!(
        got,
        [f(0.0), f(1.0), f(2.0), u32::MAX, f(3.0), f(4.0), f(5.0), u32::MAX, f(6.0), f(7.0), f(8.0), u32::MAX]
    );
}

/// The facade: random graphs that run as one program, through
/// `Prepared::run_into_views` with random input and output views of guarded buffers,
/// equal to the graph on the reference in the views' elements, the rest of each output
/// buffer untouched.
#[test]
fn graphs_run_into_random_strided_views() {
    let jit = Jit::default();
    let mut rng = Rng::new(0x6661_6361);
    let mut ran = 0;
    for case in 0..400 {
        let nodes = 2 + rng.below(2) as usize;
        let (graph, inputs) = random_graph(&mut rng, nodes);
        let what = format!("case {case}");
        let prepared = Prepared::new(graph.clone()).unwrap_or_else(|e| panic!("{what}: {e}"));
        let Some((dtype, _)) = prepared.single_program() else { continue };
        if matches!(dtype, DType::String | DType::I4 | DType::U4) {
            continue;
        }
        let w = byte_len(dtype, &[1]);
        let in_views: BTreeMap<String, Strided> =
            inputs.iter().map(|(n, t)| (n.clone(), random_view(&mut rng, t.shape(), true))).collect();
        let flush = *rng.pick(&Flush::BOTH);
        let in_bufs: BTreeMap<String, GuardedBuf> = inputs
            .iter()
            .map(|(n, t)| {
                let v = &in_views[n];
                let mut buf = vec![0u8; v.buffer_len as usize * w];
                rng.fill_bytes(&mut buf);
                let bytes = t.bytes().unwrap();
                for (i, at) in offsets(v, t.shape()).into_iter().enumerate() {
                    buf[at * w..(at + 1) * w].copy_from_slice(&bytes[i * w..(i + 1) * w]);
                }
                (n.clone(), GuardedBuf::from_bytes(&buf, flush))
            })
            .collect();
        // What the views show (a zero stride repeats one element), on the reference.
        let shown: BTreeMap<String, Tensor> = inputs
            .iter()
            .map(|(n, t)| {
                let buf = in_bufs[n].as_slice();
                let bytes: Vec<u8> = offsets(&in_views[n], t.shape())
                    .iter()
                    .flat_map(|&at| buf[at * w..(at + 1) * w].to_vec())
                    .collect();
                (n.clone(), Tensor::from_bytes(dtype, t.shape(), &bytes).unwrap())
            })
            .collect();
        let want = prepared.run(&shown, kerfx::graph::Backend::Reference).unwrap_or_else(|e| panic!("{what}: {e}"));
        let given: BTreeMap<String, kerfx::graph::InputView<'_>> = inputs
            .iter()
            .map(|(n, t)| {
                let view = kerfx::graph::InputView {
                    dtype,
                    shape: t.shape(),
                    view: &in_views[n],
                    buffer: in_bufs[n].as_slice(),
                };
                (n.clone(), view)
            })
            .collect();
        let out_views: Vec<Strided> = want.iter().map(|(_, t)| random_view(&mut rng, t.shape(), false)).collect();
        let sentinels: Vec<Vec<u8>> = out_views
            .iter()
            .map(|v| {
                let mut b = vec![0u8; v.buffer_len as usize * w];
                rng.fill_bytes(&mut b);
                b
            })
            .collect();
        let mut out_bufs: Vec<GuardedBuf> = sentinels.iter().map(|b| GuardedBuf::from_bytes(b, flush)).collect();
        let mut outs: Vec<kerfx::graph::OutputView<'_>> = out_bufs
            .iter_mut()
            .zip(&out_views)
            .map(|(b, view)| kerfx::graph::OutputView { view, buffer: b.as_mut_slice() })
            .collect();
        prepared.run_into_views(&given, &mut outs, &jit, rng.chance(50)).unwrap_or_else(|e| panic!("{what}: {e}"));
        drop(outs);
        for (o, (((name, t), v), (got, sentinel))) in
            want.iter().zip(&out_views).zip(out_bufs.iter().zip(&sentinels)).enumerate()
        {
            let mut expected = sentinel.clone();
            let bytes = t.bytes().unwrap();
            for (i, at) in offsets(v, t.shape()).into_iter().enumerate() {
                expected[at * w..(at + 1) * w].copy_from_slice(&bytes[i * w..(i + 1) * w]);
            }
            assert!(got.as_slice() == expected.as_slice(), "{what}: output {o} `{name}` through {v:?}");
            assert!(got.canary_intact(), "{what}: bytes around output {o} written");
        }
        ran += 1;
    }
    assert!(ran >= 40, "only {ran} of 400 random graphs ran as one program");
}
