#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [3, 3], strat = [0, 0], size = [2, 2], stride = [1, 1])]
struct K;

fn main() {}
