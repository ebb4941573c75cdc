// Shapes and types that the derive itself refuses.
#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.fill", dtype = "f32", input = [2], dimensions = [2], operation = "linspace")]
struct FillWithInput;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [3, -1], start = [0], size = [1], stride = [N])]
struct NotLiterals;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [3], start = [0], size = [1], stride = [1])]
struct Generic<T>(T);

#[derive(kerfx::Kernel)]
struct NoAttribute;

#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.slice", data = [3], dtype = "f32", input = [3], starts = [0], ends = [1], starts = [1])]
struct DataAndTwice;

fn main() {}
