// Rules only the op's frontend can check, reported at the attribute they are about.
#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i8", input = [3], start = [-1], size = [5], stride = [1], mode = "fill", fill = 300)]
struct FillTooBig;

#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.slice", dtype = "f32", input = [3, 3], starts = [0, 0], ends = [1, 1], axes = [0, -2])]
struct RepeatedAxes;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.fill", dimensions = [2, 3], operation = "linspace", beta = [1.0, 2.0, 3.0])]
struct BetaLength;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.fill", dimensions = [4], operation = "random_uniform", to_type = "i32")]
struct RandomTypes;

fn main() {}
