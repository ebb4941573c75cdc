//! The wrappers kerfx-build generated (`build.rs` compiled `kernels/demo.toml`) against the
//! reference interpreter, byte for byte: every kernel through its entry point, every
//! single kernel again split into ranges; every error the C entry points report comes
//! back as the module's `Error`, with nothing written.

use kerfx::request_file::{AnyFile, load_any};
use kerfx::{DType, InputArg, Tensor};
use kerfx_build_tests::demo;
use std::path::{Path, PathBuf};

fn kernel_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels").join(name)
}

/// `n` bytes of a pattern (any bytes: kernels move them, never read them as numbers).
fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
}

/// `input` given by dtype and shape, now with values.
fn with_values(input: &InputArg, bytes: &[u8]) -> InputArg {
    let InputArg::Meta { dtype, shape } = input else { panic!("the kernel files give inputs by dtype and shape") };
    InputArg::Tensor(Tensor::from_bytes(*dtype, shape, bytes).unwrap())
}

/// The reference's outputs of the request or chain file `name` on `inputs` (the data
/// input, or a Concat's inputs in order).
fn reference(name: &str, inputs: &[&[u8]]) -> Vec<Vec<u8>> {
    let bytes = |t: &Tensor| t.bytes().unwrap().to_vec();
    match load_any(&kernel_file(name)).unwrap() {
        AnyFile::Request(f) => {
            let mut request = f.request.clone();
            let spec = kerfx::op_spec(&request.op).unwrap();
            if let Some(data) = kerfx::data_input_name(spec) {
                let arg = request.inputs.get_mut(data).unwrap();
                let valued = match &*arg {
                    InputArg::List(items) => {
                        InputArg::List(items.iter().zip(inputs).map(|(i, b)| with_values(i, b)).collect())
                    }
                    meta => with_values(meta, inputs[0]),
                };
                *arg = valued;
            }
            kerfx::run_reference_outputs(&request).unwrap().iter().map(bytes).collect()
        }
        AnyFile::Chain(f) => {
            let mut chain = f.chain();
            let first = &mut chain.steps[0];
            let data = kerfx::data_input_name(kerfx::op_spec(&first.op).unwrap()).unwrap().to_string();
            let arg = first.inputs.get_mut(&data).unwrap();
            let valued = with_values(arg, inputs[0]);
            *arg = valued;
            vec![bytes(&kerfx::chain::run_chain_reference(&chain, false).unwrap())]
        }
    }
}

/// Call a single kernel whole and in ranges of every aligned width; both match `want`.
fn check_single(
    whole: impl Fn(&mut [u8]) -> Result<(), demo::Error>,
    range: impl Fn(&mut [u8], usize, usize) -> Result<(), demo::Error>,
    extent: usize,
    align: usize,
    want: &[u8],
) {
    let mut out = vec![0xA5; want.len()];
    whole(&mut out).unwrap();
    assert_eq!(out, want, "whole");
    for width in [align, 2 * align, 3 * align, extent] {
        let mut out = vec![0x5A; want.len()];
        let mut lo = 0;
        while lo < extent {
            let hi = (lo + width).min(extent);
            range(&mut out, lo, hi).unwrap();
            lo = hi;
        }
        assert_eq!(out, want, "ranges of {width}");
    }
}

#[test]
fn every_single_kernel_matches_the_reference_whole_and_in_ranges() {
    let input = pattern(demo::crop::INPUT_BYTES, 3);
    let want = reference("crop.toml", &[&input]);
    let (extent, align) = (demo::crop::RANGE_EXTENT, demo::crop::RANGE_ALIGN);
    check_single(|o| demo::crop(&input, o), |o, lo, hi| demo::crop_range(&input, o, lo, hi), extent, align, &want[0]);
    // A kernel named after a Rust keyword: a raw identifier, the same kernel.
    let (extent, align) = (demo::r#move::RANGE_EXTENT, demo::r#move::RANGE_ALIGN);
    let (whole, range) =
        (|o: &mut [u8]| demo::r#move(&input, o), |o: &mut [u8], lo, hi| demo::move_range(&input, o, lo, hi));
    check_single(whole, range, extent, align, &want[0]);

    let input = pattern(demo::pad::INPUT_BYTES, 11);
    let want = reference("pad.toml", &[&input]);
    let (extent, align) = (demo::pad::RANGE_EXTENT, demo::pad::RANGE_ALIGN);
    check_single(|o| demo::pad(&input, o), |o, lo, hi| demo::pad_range(&input, o, lo, hi), extent, align, &want[0]);

    let want = reference("ramp.toml", &[]);
    let (extent, align) = (demo::ramp::RANGE_EXTENT, demo::ramp::RANGE_ALIGN);
    check_single(demo::ramp, demo::ramp_range, extent, align, &want[0]);

    let input = pattern(demo::chain::INPUT_BYTES, 5);
    let want = reference("chain.toml", &[&input]);
    let (extent, align) = (demo::chain::RANGE_EXTENT, demo::chain::RANGE_ALIGN);
    check_single(|o| demo::chain(&input, o), |o, lo, hi| demo::chain_range(&input, o, lo, hi), extent, align, &want[0]);

    // Through the runtime library (kerfx-rt's tiled copies).
    let input = pattern(demo::tr::INPUT_BYTES, 17);
    let want = reference("tr.toml", &[&input]);
    let (extent, align) = (demo::tr::RANGE_EXTENT, demo::tr::RANGE_ALIGN);
    check_single(|o| demo::tr(&input, o), |o, lo, hi| demo::tr_range(&input, o, lo, hi), extent, align, &want[0]);

    // Through the runtime library's Philox block fill, in ranges of its 64-element blocks.
    let want = reference("rnd.toml", &[]);
    let (extent, align) = (demo::rnd::RANGE_EXTENT, demo::rnd::RANGE_ALIGN);
    assert_eq!((extent, align), (200, 64));
    check_single(demo::rnd, demo::rnd_range, extent, align, &want[0]);
    assert_eq!(demo::rnd_range(&mut vec![0; demo::rnd::OUTPUT_BYTES], 1, 64), Err(demo::Error::Range));
}

#[test]
fn the_program_kernel_matches_the_reference_whole_and_in_ranges() {
    let ins = [pattern(demo::cat::IN0_BYTES, 1), pattern(demo::cat::IN1_BYTES, 2), pattern(demo::cat::IN2_BYTES, 3)];
    let want = reference("cat.toml", &[&ins[0], &ins[1], &ins[2]]);
    let mut out = vec![0; demo::cat::OUT0_BYTES];
    demo::cat(&ins[0], &ins[1], &ins[2], &mut out).unwrap();
    assert_eq!(want, [out]);
    assert_eq!(demo::cat::OUT0_SHAPE, [2, 6]);
    assert_eq!(demo::cat::DTYPE, DType::F32.to_string());
    // Split into ranges at every point, and every position alone: the same bytes.
    let (e, run) =
        (demo::cat::RANGE_EXTENT, |o: &mut [u8], lo, hi| demo::cat_range(&ins[0], &ins[1], &ins[2], o, lo, hi));
    assert!(e > 1 && demo::cat::RANGE_ALIGN == 1);
    for m in 0..=e {
        let mut out = vec![0xA5; demo::cat::OUT0_BYTES];
        run(&mut out, 0, m).unwrap();
        run(&mut out, m, e).unwrap();
        assert_eq!(want, [out], "split at {m}");
    }
    let mut out = vec![0x5A; demo::cat::OUT0_BYTES];
    for k in (0..e).rev() {
        run(&mut out, k, k + 1).unwrap();
    }
    assert_eq!(want, [out]);
    let mut out = vec![0xEE; demo::cat::OUT0_BYTES];
    assert_eq!(run(&mut out, 1, 0), Err(demo::Error::Range));
    assert_eq!(run(&mut out, 0, e + 1), Err(demo::Error::Range));
    assert!(out.iter().all(|&b| b == 0xEE));
}

#[test]
fn the_constants_are_the_requests_shapes() {
    assert_eq!((demo::crop::INPUT_SHAPE, demo::crop::OUTPUT_SHAPE), ([5, 7], [3, 3]));
    assert_eq!((demo::crop::INPUT_BYTES, demo::crop::OUTPUT_BYTES), (140, 36));
    assert_eq!(demo::ramp::OUTPUT_SHAPE, [4, 5]);
    assert_eq!(demo::tr::OUTPUT_SHAPE, [48, 64]);
    assert_eq!(demo::pad::DTYPE, "i16");
}

#[test]
fn every_error_comes_back_as_the_modules_error_with_nothing_written() {
    let input = pattern(demo::crop::INPUT_BYTES, 3);
    let mut out = vec![0xEE; demo::crop::OUTPUT_BYTES];
    let untouched = out.clone();
    let short = &input[..input.len() - 1];
    assert_eq!(demo::crop(short, &mut out), Err(demo::Error::InputBytes));
    let long = [input.clone(), vec![0]].concat();
    assert_eq!(demo::crop(&long, &mut out), Err(demo::Error::InputBytes));
    assert_eq!(demo::crop(&input, &mut out[1..]), Err(demo::Error::OutputBytes));
    assert_eq!(demo::crop(&[], &mut out), Err(demo::Error::InputBytes));
    let extent = demo::crop::RANGE_EXTENT;
    assert_eq!(demo::crop_range(&input, &mut out, 1, 0), Err(demo::Error::Range));
    assert_eq!(demo::crop_range(&input, &mut out, 0, extent + 1), Err(demo::Error::Range));
    assert_eq!(demo::ramp(&mut []), Err(demo::Error::OutputBytes));
    assert_eq!(out, untouched);

    let ins = [pattern(demo::cat::IN0_BYTES, 1), pattern(demo::cat::IN1_BYTES, 2), pattern(demo::cat::IN2_BYTES, 3)];
    let mut out = vec![0xEE; demo::cat::OUT0_BYTES];
    assert_eq!(demo::cat(&ins[0], &ins[2], &ins[1], &mut out), Err(demo::Error::InputBytes));
    assert_eq!(demo::cat(&ins[0], &ins[1], &ins[2], &mut out[..8]), Err(demo::Error::OutputBytes));
    assert!(out.iter().all(|&b| b == 0xEE));

    // The error's code, text and Error trait.
    let e = demo::Error::Range;
    assert_eq!(e.code(), 5);
    assert_eq!(demo::Error::check(4), Err(demo::Error::Overlap));
    assert_eq!(demo::Error::check(99), Err(demo::Error::Unknown(99)));
    assert_eq!(demo::Error::check(0), Ok(()));
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert!(boxed.to_string().contains("KERF_ERR_RANGE"), "{boxed}");
}

/// The README's `build.rs` block is this crate's build script (its code lines), and its
/// `include!` line is this crate's.
#[test]
fn the_readmes_build_script_is_this_crates() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("../../README.md")).unwrap();
    let block = readme.split("```rust,ignore\n// build.rs\n").nth(1).expect("README.md shows a build.rs");
    let block = block.split("```").next().unwrap();
    let code = |text: &str| -> Vec<String> {
        text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("//")).map(str::to_string).collect()
    };
    let script = code(&std::fs::read_to_string(root.join("build.rs")).unwrap());
    let lib = code(&std::fs::read_to_string(root.join("src/lib.rs")).unwrap());
    assert_eq!(code(block), [script, lib].concat());
}

/// The dynamic pad: plans of several shapes and pads, each run against the reference
/// (the request file's mode, its numbers replaced); bad numbers and buffers come back as
/// the module's `Error`, with nothing written.
#[test]
fn the_dynamic_kernel_runs_plans_of_any_numbers() {
    assert_eq!((demo::dpad::DTYPE, demo::dpad::INPUT_RANK, demo::dpad::PARAMS), ("i16", 2, ["pads"]));
    let AnyFile::Request(file) = load_any(&kernel_file("pad.toml")).unwrap() else { panic!("a request file") };
    for (shape, pads) in
        [([3u64, 4u64], [1i64, 2, 1, 2]), ([5, 2], [0, 1, 4, 1]), ([2, 9], [1, 0, 0, 8]), ([1, 1], [0, 0, 0, 0])]
    {
        let plan = demo::dpad::Plan::new(&shape, &pads).unwrap();
        let input = pattern(plan.input_bytes(), 7);
        let mut request = file.request.clone();
        request.inputs.insert("data".into(), InputArg::Tensor(Tensor::from_bytes(DType::I16, &shape, &input).unwrap()));
        request.inputs.insert("pads".into(), InputArg::Tensor(Tensor::from_i64s(&pads)));
        let want = kerfx::run_reference(&request).unwrap();
        assert_eq!(plan.output_shape(), want.shape());
        let mut out = vec![0u8; plan.output_bytes()];
        plan.run(&input, &mut out).unwrap();
        assert_eq!(out, want.bytes().unwrap(), "shape {shape:?}, pads {pads:?}");
        let mut sent = vec![0xABu8; plan.output_bytes()];
        assert_eq!(plan.run(&input[1..], &mut sent), Err(demo::Error::InputBytes));
        assert_eq!(plan.run(&input, &mut sent[1..]), Err(demo::Error::OutputBytes));
        assert!(sent.iter().all(|&b| b == 0xAB));
    }
    assert_eq!(demo::dpad::Plan::new(&[3], &[1, 1]).unwrap_err(), demo::Error::Rank);
    assert_eq!(demo::dpad::Plan::new(&[3, 4], &[1, 1, 1]).unwrap_err(), demo::Error::Invalid);
    assert!(kerfx_rt::capi::last_message().contains("pads"), "{}", kerfx_rt::capi::last_message());
}
