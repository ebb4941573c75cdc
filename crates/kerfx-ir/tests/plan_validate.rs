//! `Step::validate` on input shapes with an empty axis: the volume is 0, and the
//! sizes are counted from the outermost axis up to the first empty one.

use kerfx_ir::{AxisRead, BoundaryMode, DType, Step};

fn fill_plan(input_shape: Vec<u64>) -> Step {
    let axes: Vec<AxisRead> = input_shape.iter().map(|_| AxisRead { extent: 1, start: 0, step: 1 }).collect();
    Step {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype: DType::F32,
        output_shape: vec![1; input_shape.len()],
        input_shape,
        axes,
        mode: BoundaryMode::Fill,
        fill_bits: 0,
        windows: Vec::new(),
        gathered: None,
    }
}

#[test]
fn sizes_outside_the_first_empty_axis_past_2_pow_63_are_refused_by_name() {
    for shape in [vec![1 << 40, 1 << 40, 0], vec![1 << 62, 4, 0, 3]] {
        let err = fill_plan(shape.clone()).validate().expect_err("must be refused");
        let text = err.to_string();
        assert!(text.contains("outside its first empty axis multiply to more than 2^63"), "{shape:?}: {text}");
    }
    let err = fill_plan(vec![1 << 40, 1 << 40]).validate().expect_err("2^80 elements");
    assert!(err.to_string().contains("has more than 2^63 elements"), "{err}");
}

#[test]
fn an_empty_axis_outside_huge_ones_is_valid() {
    for shape in [vec![0, 3], vec![3, 0], vec![0, 1 << 40, 1 << 40], vec![1 << 31, 0, 1 << 40]] {
        fill_plan(shape.clone()).validate().unwrap_or_else(|e| panic!("{shape:?}: {e}"));
    }
}
