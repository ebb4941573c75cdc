// The Pad family's frontend rules, reported at the attribute they are about.
#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.pad", version = 18, dtype = "f32", input = [3], pads = [1, 1], mode = "wrap")]
struct WrapBefore19;

#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.pad", dtype = "f32", input = [3, 3], pads = [1, 1, 1])]
struct PadsLength;

#[derive(kerfx::Kernel)]
#[kerf(op = "openvino.pad", version = 1, dtype = "f32", input = [3], pads_begin = [-1], pads_end = [0], pad_mode = "edge")]
struct NegativePad1;

#[derive(kerfx::Kernel)]
#[kerf(op = "openvino.pad", dtype = "f32", input = [3], pads_begin = [3], pads_end = [0], pad_mode = "reflect")]
struct ReflectTooFar;

// symmetric is no TensorRT mode.
#[derive(kerfx::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [3], start = [-1], size = [5], stride = [1], mode = "symmetric")]
struct NoSymmetricSlice;

fn main() {}
