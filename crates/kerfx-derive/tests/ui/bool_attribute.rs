#[derive(kerfx::Kernel)]
#[kerf(op = "openvino.reshape", dtype = "f32", input = [6], shape = [2, 3], special_zero = 1)]
struct K;

// A bool attribute takes true or false; zero_is_placeholder = false is one.
#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.shuffle", dtype = "f32", input = [6], reshape_dims = [2, 3], zero_is_placeholder = "no")]
struct S;

#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.shuffle", dtype = "f32", input = [2, 0], reshape_dims = [0, 2], zero_is_placeholder = false)]
struct Fine;

fn main() {}
