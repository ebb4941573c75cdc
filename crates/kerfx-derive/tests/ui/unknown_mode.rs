#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [3, 3], start = [0, 0], size = [2, 2], stride = [1, 1], mode = "mirror")]
struct K;

fn main() {}
