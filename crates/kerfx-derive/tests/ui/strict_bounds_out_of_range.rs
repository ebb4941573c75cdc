// Rows 1..3 of a 3-row input read row 3, which does not exist.
#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [3, 3], start = [1, 1], size = [3, 2], stride = [1, 1])]
struct K;

fn main() {}
