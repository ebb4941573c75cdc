// Modes clamp, fill and reflect do not support int64 or bfloat16 (spec rule mode_dtype).
#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "i64", input = [4], start = [-1], size = [6], stride = [1], mode = "clamp")]
struct K;

fn main() {}
