//! Writing into a sub-view of a larger array: two crops written straight into their
//! places in a concatenated output (the columns of one array), with no temporary and no
//! copy. The first crop reads an image as it lies; the second reads a transposed view of
//! another and pads it by reflection where the crop runs past its edge. The kernel
//! writes only the view's elements: the separator column between the crops is left as
//! it was.
//!
//! `cargo run -p kerfx --example crop_into_concat --features ndarray`

use kerfx::ndarray::run_strided;
use kerfx::{AxisRead, BoundaryMode, DType, Jit, Step};
use ndarray::{Array2, s};

/// A crop of `size` from `start` (per axis, step 1) of an f32 image of `shape`.
fn crop(shape: [u64; 2], start: [i64; 2], size: [u64; 2], mode: BoundaryMode) -> Step {
    Step {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype: DType::F32,
        input_shape: shape.to_vec(),
        axes: (0..2).map(|k| AxisRead { extent: size[k], start: start[k], step: 1 }).collect(),
        mode,
        fill_bits: 0,
        output_shape: size.to_vec(),
        windows: vec![],
        gathered: None,
    }
}

fn main() -> Result<(), kerfx::Error> {
    let jit = Jit::default();
    let a = Array2::from_shape_fn((6, 8), |(i, j)| (10 * i + j) as f32);
    let b = Array2::from_shape_fn((5, 6), |(i, j)| (100 + 10 * i + j) as f32);
    // The concatenated output: two 4x3 crops side by side, a separator column between.
    let mut out = Array2::<f32>::from_elem((4, 7), -1.0);
    // Rows 1..5, columns 2..5 of `a`, into columns 0..3.
    run_strided(
        &jit,
        &crop([6, 8], [1, 2], [4, 3], BoundaryMode::StrictBounds),
        a.view(),
        out.slice_mut(s![.., 0..3]),
    )?;
    // Rows 3..7, columns 2..5 of `b`'s transpose (a [6, 5] view), reflected past its
    // last row, into columns 4..7.
    let bt = b.t();
    run_strided(&jit, &crop([6, 5], [3, 2], [4, 3], BoundaryMode::Reflect), bt, out.slice_mut(s![.., 4..7]))?;
    println!("{out}");
    assert_eq!(out.slice(s![.., 0..3]), a.slice(s![1..5, 2..5]));
    assert_eq!(out.slice(s![..3, 4..7]), bt.slice(s![3..6, 2..5]));
    assert_eq!(out.slice(s![3, 4..7]), bt.slice(s![4, 2..5])); // row 6 reflects to row 4
    assert!(out.column(3).iter().all(|&v| v == -1.0), "the separator is untouched");
    Ok(())
}

// `cargo test` runs the example (`test = true` in Cargo.toml), so it stays true.
#[test]
fn runs() {
    main().unwrap();
}
