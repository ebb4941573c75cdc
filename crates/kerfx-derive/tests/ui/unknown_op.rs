#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slise", dtype = "f32", input = [3])]
struct K;

fn main() {}
