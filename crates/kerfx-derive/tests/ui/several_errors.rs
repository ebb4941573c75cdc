// Every mistake is reported at once, each at its own span.
#[derive(kerfx::Kernel)]
#[kerf(
    op = "tensorrt.slice",
    dtype = "f32",
    input = [3, 3],
    start = [0, 0],
    size = [2, 2.5],
    stride = [1, 1],
    mode = "refelct",
    padding = 2,
)]
struct K;

#[derive(kerfx::Kernel)]
#[kerf(op = "openvino.strided_slice", dtype = "f32", input = [4], begin = [0], end = [2], begin_mask = [2], end_mask = [0, 1, 3])]
struct M;

fn main() {}
