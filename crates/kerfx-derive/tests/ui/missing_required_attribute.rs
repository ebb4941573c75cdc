// openvino.strided_slice requires begin_mask and end_mask; tensorrt.fill requires operation.
#[derive(kerfx::Kernel)]
#[kerf(op = "openvino.strided_slice", dtype = "f32", input = [4], begin = [0], end = [2])]
struct A;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.fill", dimensions = [2, 2])]
struct B;

fn main() {}
