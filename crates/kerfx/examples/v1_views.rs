//! V1 (the README's performance table): W2's crop (tensorrt.slice f32 [4096, 4096] → columns 1024..3072)
//! read in place from a transposed ndarray view and from a stride-2 view, against the
//! same crop of a contiguous array and against copying the view to a contiguous array
//! first. Medians of interleaved samples, each sample at least 20 µs of calls. An
//! optional element width in bytes (1, 2, 4, 8 or 16: u8, u16, f32, u64, complex f64)
//! runs the same crop for that width (f16 and f64 transposes move the same bytes).
//!
//!     cargo run --release -p kerfx --features ndarray --example v1_views [-- ITERS [WIDTH]]
//!
//! ITERS (default 21) is the number of samples, WIDTH (default 4) the element width in
//! bytes; anything else is an error naming the argument.

use kerfx::ndarray::{Element, StridedKernel, run_into};
use kerfx::{AxisRead, BoundaryMode, Jit, Options, Step};
use ndarray::{Array2, ArrayView2, s};
use std::cell::RefCell;
use std::hint::black_box;
use std::time::Instant;

const N: usize = 4096;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median ns per call of each closure, sampled round-robin.
fn measure(iters: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let reps: Vec<u32> = fs
        .iter_mut()
        .map(|f| {
            let t = Instant::now();
            f();
            (20_000 / t.elapsed().as_nanos().max(1)).clamp(1, 100_000) as u32
        })
        .collect();
    let mut samples = vec![Vec::new(); fs.len()];
    for _ in 0..iters {
        for (k, f) in fs.iter_mut().enumerate() {
            let t = Instant::now();
            for _ in 0..reps[k] {
                f();
            }
            samples[k].push(t.elapsed().as_nanos() as f64 / reps[k] as f64);
        }
    }
    samples.into_iter().map(median).collect()
}

/// The example's arguments, checked: `(iters, width)`.
fn args(args: &[String]) -> Result<(usize, usize), String> {
    const USAGE: &str = "usage: v1_views [ITERS [WIDTH]] (ITERS samples, WIDTH bytes per element: 1, 2, 4, 8 or 16)";
    if args.len() > 2 {
        return Err(format!("{} arguments given, at most 2 expected; {USAGE}", args.len()));
    }
    let number = |k: usize, name: &str, default: usize| match args.get(k) {
        None => Ok(default),
        Some(a) => a.parse::<usize>().map_err(|_| format!("{name} `{a}` is not a non-negative integer; {USAGE}")),
    };
    let iters = number(0, "ITERS", 21)?;
    if iters == 0 {
        return Err(format!("ITERS must be at least 1; {USAGE}"));
    }
    let width = number(1, "WIDTH", 4)?;
    if ![1, 2, 4, 8, 16].contains(&width) {
        return Err(format!("WIDTH {width}: an element width in bytes, one of 1, 2, 4, 8 or 16; {USAGE}"));
    }
    Ok((iters, width))
}

fn main() -> std::process::ExitCode {
    let run = || -> Result<(), String> {
        let (iters, width) = args(&std::env::args().skip(1).collect::<Vec<_>>())?;
        match width {
            1 => v1(iters, |k| k as u8),
            2 => v1(iters, |k| k as u16),
            4 => v1(iters, |k| k as f32),
            8 => v1(iters, |k| k as u64),
            _ => v1(iters, |k| kerfx::num_complex::Complex::new(k as f64, -(k as f64))),
        }
        .map_err(|e| e.to_string())
    };
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[test]
fn arguments_are_checked_by_name() {
    let a = |v: &[&str]| args(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(a(&[]), Ok((21, 4)));
    assert_eq!(a(&["3", "16"]), Ok((3, 16)));
    let e = a(&["3", "1024"]).unwrap_err();
    assert!(e.starts_with("WIDTH 1024: an element width in bytes"), "{e}");
    assert!(a(&["x"]).unwrap_err().starts_with("ITERS `x`"));
    assert!(a(&["0"]).unwrap_err().starts_with("ITERS must be"));
    assert!(a(&["1", "4", "9"]).unwrap_err().starts_with("3 arguments"));
}

/// V1 for elements of type `T`, element k of the contiguous array being `of(k)`.
fn v1<T: Element + Default + PartialEq + std::fmt::Debug>(
    iters: usize,
    of: fn(usize) -> T,
) -> Result<(), kerfx::Error> {
    let w = std::mem::size_of::<T>();
    let plan = Step {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype: T::DTYPE,
        input_shape: vec![N as u64, N as u64],
        axes: vec![AxisRead { extent: N as u64, start: 0, step: 1 }, AxisRead { extent: 2048, start: 1024, step: 1 }],
        mode: BoundaryMode::StrictBounds,
        fill_bits: 0,
        output_shape: vec![N as u64, 2048],
        windows: vec![],
        gathered: None,
    };
    let jit = Jit::default();
    let contiguous = Array2::from_shape_fn((N, N), |(i, j)| of(i * N + j));
    let wide = Array2::from_shape_fn((N, 2 * N), |(i, j)| of(i * 2 * N + j));
    let transposed = contiguous.t();
    let stride2 = wide.slice(s![.., ..;2]);
    let w2 = jit.compile(&kerfx::Plan::Step(plan.clone()), &Options::STATIC)?;
    let k_t = StridedKernel::new(&jit, &plan, &transposed)?;
    let k_s = StridedKernel::new(&jit, &plan, &stride2)?;
    let mut out = Array2::<T>::default((N, 2048));
    let staging = Array2::<T>::default((N, N));
    let (src, mut dst) = (vec![3u8; N * 2048 * w], vec![1u8; N * 2048 * w]);
    // Every variant gives the same crop of the same logical array.
    k_t.run(transposed, out.view_mut())?;
    assert_eq!(out, transposed.slice(s![.., 1024..3072]));
    k_s.run(stride2, out.view_mut())?;
    assert_eq!(out, stride2.slice(s![.., 1024..3072]));
    let w2 = w2.as_ref();
    // One output and one staging array, shared by the timed closures.
    let (out, staging) = (RefCell::new(out), RefCell::new(staging));
    let o = || out.borrow_mut();
    let copied_first = |v: ArrayView2<'_, T>| {
        let mut st = staging.borrow_mut();
        st.assign(&v);
        run_into(w2, Some(st.view()), o().view_mut()).unwrap()
    };
    let r = measure(
        iters,
        &mut [
            &mut || run_into(w2, Some(black_box(contiguous.view())), o().view_mut()).unwrap(),
            &mut || k_t.run(black_box(transposed), o().view_mut()).unwrap(),
            &mut || copied_first(black_box(transposed)),
            &mut || k_s.run(black_box(stride2), o().view_mut()).unwrap(),
            &mut || copied_first(black_box(stride2)),
            &mut || black_box(&mut dst).copy_from_slice(black_box(&src)),
        ],
    );
    let names = [
        "W2 contiguous",
        "V1 transposed, in place",
        "V1 transposed, copied first",
        "V1 stride-2, in place",
        "V1 stride-2, copied first",
        "memcpy of the output",
    ];
    println!("V1: W2's crop, {w}-byte elements, {} output bytes, median of {iters} samples", N * 2048 * w);
    for (name, ns) in names.iter().zip(&r) {
        println!("  {name:<30} {:>10.3} ms  {:>6.3} x W2 contiguous", ns / 1e6, ns / r[0]);
    }
    println!("  in place vs copied first: transposed {:.2}x faster, stride-2 {:.2}x faster", r[2] / r[1], r[4] / r[3]);
    Ok(())
}
