// start/size/stride have one entry for a rank-2 input.
#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [3, 3], start = [0], size = [2], stride = [1])]
struct K;

fn main() {}
