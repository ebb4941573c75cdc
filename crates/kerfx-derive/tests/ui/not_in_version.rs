// Slice-1 has no steps; Slice-13 has no version 12.
#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.slice", version = 1, dtype = "f32", input = [3], starts = [0], ends = [2], steps = [1])]
struct A;

#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.slice", version = 12, dtype = "f32", input = [3], starts = [0], ends = [2])]
struct B;

fn main() {}
