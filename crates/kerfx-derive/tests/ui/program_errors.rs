// Programs (ops over several inputs or outputs): the variadic data input's shapes, the
// output count, and the family's rules, each reported at the attribute it is about.
#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.concat", dtype = "f32", input = [2, 3], axis = 0)]
struct ShapeNotAList;

#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.concat", dtype = "f32", input = [[2, 3], [2, 3, 1]], axis = 0)]
struct MixedRanks;

#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.concat", dtype = "f32", input = [[2, 3], [4, 3]], axis = 1)]
struct OtherAxisDiffers;

#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.split", version = 11, dtype = "f32", input = [6], outputs = 0)]
struct NoOutputs;

#[derive(kerfx::Kernel)]
#[kerf(op = "onnx.slice", version = 1, dtype = "f32", input = [6], starts = [0], ends = [1], outputs = 2)]
struct OutputsOnAOneOutputOp;

#[derive(kerfx::Kernel)]
#[kerf(op = "openvino.variadic_split", dtype = "f32", input = [2, 5], axis = 1, split_lengths = [1, 1])]
struct LengthsNotSumming;

fn main() {}
