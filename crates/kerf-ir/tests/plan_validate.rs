//! `SlicePlan::validate` on shapes with an empty axis: the volume is 0, but the other
//! axes' strides must still fit i64, wherever the empty axis stands.

use kerf_ir::{AxisRead, BoundaryMode, DType, SlicePlan};

fn fill_plan(input_shape: Vec<u64>) -> SlicePlan {
    let axes: Vec<AxisRead> = input_shape.iter().map(|_| AxisRead { extent: 1, start: 0, step: 1 }).collect();
    SlicePlan {
        dtype: DType::F32,
        output_shape: vec![1; input_shape.len()],
        input_shape,
        axes,
        mode: BoundaryMode::Fill,
        fill_bits: 0,
        windows: Vec::new(),
    }
}

#[test]
fn an_empty_axis_does_not_excuse_strides_past_i64() {
    for shape in [vec![0, 1 << 40, 1 << 40], vec![1 << 40, 1 << 40, 0], vec![1 << 40, 0, 1 << 40]] {
        let err = fill_plan(shape.clone()).validate().expect_err("strides past 2^63 must be refused");
        assert!(err.to_string().contains("strides must fit i64"), "{shape:?}: {err}");
    }
}

#[test]
fn an_empty_axis_with_small_neighbours_is_valid() {
    for shape in [vec![0, 3], vec![3, 0], vec![1 << 31, 0, 1 << 31]] {
        fill_plan(shape.clone()).validate().unwrap_or_else(|e| panic!("{shape:?}: {e}"));
    }
}
