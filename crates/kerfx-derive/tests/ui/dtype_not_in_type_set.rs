// tensorrt.slice's T has no u8 (onnx.slice's has); and `f31` is no dtype at all.
#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "u8", input = [3], start = [0], size = [2], stride = [1])]
struct A;

#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.slice", dtype = "f31", input = [3], starts = [0], ends = [2])]
struct B;

fn main() {}
