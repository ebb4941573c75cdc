//! Hand-written plans and the naive reading of a loop nest, for tests of the schedule
//! and of the backends that follow it.

use kerfx_ir::schedule::{Indexing, LoopNest, Segment};
use kerfx_ir::{AxisRead, BoundaryMode, DType, Step};

/// A step (a slice) from `(extent, start, step)` per axis: the output shape is the extents,
/// no windows, fill bits 0.
pub fn slice_plan(dtype: DType, input_shape: &[u64], axes: &[(u64, i64, i64)], mode: BoundaryMode) -> Step {
    Step {
        source_shape: Vec::new(),
        order: Vec::new(),
        dtype,
        input_shape: input_shape.to_vec(),
        axes: axes.iter().map(|&(extent, start, step)| AxisRead { extent, start, step }).collect(),
        mode,
        fill_bits: 0,
        output_shape: axes.iter().map(|a| a.0).collect(),
        windows: Vec::new(),
        gathered: None,
    }
}

/// The input offset each output element of `nest` reads, in row-major order (`None`:
/// the fill value), found by walking the nest element by element — the slow reading of
/// what backends emit, checked against the dims' periods as it goes. Empty when the nest
/// has no dims (an empty output). For nests with one fill value (no fill levels).
pub fn nest_offsets(nest: &LoopNest) -> Vec<Option<i128>> {
    fn walk(nest: &LoopNest, k: usize, acc: Option<i128>, out: &mut Vec<Option<i128>>) {
        if k == nest.dims.len() {
            out.push(acc);
            return;
        }
        let dim = &nest.dims[k];
        // The contributions of one period; position y takes entry y mod period.
        let period: Vec<Option<i64>> = match &dim.indexing {
            Indexing::Segments(segs) => segs
                .iter()
                .flat_map(|s| match *s {
                    Segment::Fill { len } => (0..len).map(|_| None).collect::<Vec<_>>(),
                    Segment::FillAt { .. } => panic!("a nest with fill levels (one fill value expected):\n{nest}"),
                    Segment::Affine { len, offset, stride } => {
                        (0..len as i64).map(|j| Some(offset + stride * j)).collect()
                    }
                })
                .collect(),
            Indexing::Table(t) => t.iter().map(|&o| Some(o)).collect(),
        };
        assert_eq!(period.len() as u64, dim.period, "dim {k} of\n{nest}");
        for y in 0..dim.extent {
            let c = period[(y % dim.period) as usize];
            walk(nest, k + 1, acc.zip(c).map(|(a, c)| a + c as i128), out);
        }
    }
    let mut out = Vec::new();
    if !nest.dims.is_empty() {
        walk(nest, 0, Some(nest.base as i128), &mut out);
    }
    out
}

/// Chains whose fused axes take index tables (a periodic mode over a periodic mode with
/// steps that share no period): wrap, reflect and symmetric under tables, on i32 and i8.
/// Each with its data input (a pattern of the input's size); the derive's tests expand them
/// (`kerf expand`'s code) and check the kernels' bytes against the reference.
pub fn table_chains() -> Vec<kerfx::chain::ChainRequest> {
    use kerfx::{DType, Request, Tensor};
    let data = |dtype: DType, n: u64| {
        let bytes: Vec<u8> = (0..n * dtype.byte_width().unwrap_or(1) as u64).map(|i| (i * 37 % 251) as u8).collect();
        Tensor::from_bytes(dtype, &[n], &bytes).expect("sized to its shape")
    };
    let trt = |start: i64, size: i64, stride: i64, mode: &str| {
        Request::new("tensorrt.slice")
            .attr("start", [start])
            .attr("size", [size])
            .attr("stride", [stride])
            .attr("mode", mode)
    };
    let chain = |steps: Vec<Request>| kerfx::chain::ChainRequest { steps };
    vec![
        // wrap over reflect, coprime periods
        chain(vec![trt(0, 11, 1, "wrap").input("input", data(DType::I32, 7)), trt(0, 60, 3, "reflect")]),
        // reflect over wrap with a long negative step
        chain(vec![trt(-3, 43, 1, "reflect").input("input", data(DType::I8, 23)), trt(4, 200, -5, "wrap")]),
        // a symmetric pad, then a strided wrap over it
        chain(vec![
            Request::new("openvino.pad")
                .attr("pad_mode", "symmetric")
                .input("arg", data(DType::I32, 29))
                .input("pads_begin", Tensor::from_i64s(&[10]))
                .input("pads_end", Tensor::from_i64s(&[9])),
            trt(2, 300, 7, "wrap"),
        ]),
        // three periodic steps
        chain(vec![
            trt(-2, 17, 1, "wrap").input("input", data(DType::I32, 6)),
            trt(1, 31, 3, "reflect"),
            trt(0, 500, 11, "wrap"),
        ]),
    ]
}
