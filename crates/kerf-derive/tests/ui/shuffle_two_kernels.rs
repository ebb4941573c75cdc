// [2, 3] transposed is [3, 2]; read as [2, 3] and transposed again, no single kernel
// expresses it (kerf's run functions run it as two).
#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.shuffle", dtype = "f32", input = [2, 3], first_transpose = [1, 0], reshape_dims = [2, 3], second_transpose = [1, 0])]
struct K;

fn main() {}
