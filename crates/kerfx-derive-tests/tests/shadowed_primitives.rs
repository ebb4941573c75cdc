//! Derived code names every primitive type by its full path (`::core::primitive::u64`):
//! a user crate that defines types named like primitives beside its kernels still
//! compiles them, and they still match the reference (issue 20: `struct u64;` broke the
//! derive's output). One kernel of each kind of generated code: computed index tables,
//! repeating and looped dims, packed 4-bit helpers, fill values of several types,
//! strings, the fill ops, and a program (several outputs).

#[allow(non_camel_case_types, dead_code)]
mod shadowed {
    use kerfx_derive_tests::derived;

    pub struct bool;
    pub struct char;
    pub struct str;
    pub struct f32;
    pub struct f64;
    pub struct i8;
    pub struct i16;
    pub struct i32;
    pub struct i64;
    pub struct i128;
    pub struct isize;
    pub struct u8;
    pub struct u16;
    pub struct u32;
    pub struct u64;
    pub struct u128;
    pub struct usize;

    derived!(reflect_table_f32, ReflectTable, op = "tensorrt.slice", dtype = "f32", input = [2, 40]; start = [-1, 3], size = [5, 300], stride = [1, 7], mode = "reflect");
    derived!(reflect_table_i4, ReflectTableI4, op = "tensorrt.slice", dtype = "i4", input = [2, 40]; start = [-1, 3], size = [5, 300], stride = [1, 7], mode = "reflect");
    derived!(wrap_u4_rows, WrapU4, op = "onnx.pad", version = 21, dtype = "u4", input = [3, 5]; pads = [1, 3, 1, 4], mode = "wrap");
    derived!(edge_looped, EdgeLooped, op = "onnx.pad", version = 19, dtype = "f64", input = [4, 4, 4, 4]; pads = [2, 2, 2, 2, 3, 3, 3, 3], mode = "edge");
    derived!(fill_tables_i32, FillTables, op = "tensorrt.slice", dtype = "i32", input = [2, 2, 2, 2]; start = [-1, -1, -1, -1], size = [4, 4, 4, 4], stride = [1, 1, 1, 1], mode = "fill", fill = 5);
    derived!(fill_f16, FillF16, op = "tensorrt.slice", dtype = "f16", input = [3]; start = [-1], size = [5], stride = [1], mode = "fill", fill = 2.5);
    derived!(fill_bool, FillBool, op = "tensorrt.slice", dtype = "bool", input = [3]; start = [-2], size = [6], stride = [1], mode = "fill", fill = 1);
    derived!(pad_u64, PadU64, op = "onnx.pad", version = 19, dtype = "u64", input = [2, 3]; pads = [1, 0, 1, 0], constant_value = 9);
    derived!(pad_c64_reflect, PadC64, op = "onnx.pad", version = 19, dtype = "c64", input = [2, 3]; pads = [1, 2, 0, 1], mode = "reflect");
    derived!(pad_i16_constant, PadI16, op = "onnx.pad", version = 19, dtype = "i16", input = [2, 3]; pads = [1, 1, 1, 1], constant_value = -3);
    derived!(split_f32, SplitF32, op = "openvino.variadic_split", dtype = "f32", input = [2, 5]; axis = 1, split_lengths = [2, -1]);
    derived!(linspace_i64, LinI64, op = "tensorrt.fill"; dimensions = [3, 1, 4], operation = "linspace", alpha = 10.0, beta = [-3.0, 7.0, 1.0], to_type = "i64");
    derived!(linspace_f32, LinF32, op = "tensorrt.fill"; dimensions = [3, 5, 7], operation = "linspace", alpha = 0.1, beta = [0.3, -0.7, 1e-3]);
    derived!(uniform_f32, UniF32, op = "tensorrt.fill"; dimensions = [7, 9], operation = "random_uniform", alpha = -2.0, beta = 3.0, seed = 42);
    derived!(normal_f16, NormF16, op = "tensorrt.fill"; dimensions = [5, 3], operation = "random_normal", alpha = 1.0, beta = 0.5, seed = 7, to_type = "f16");

    #[derive(kerfx::Kernel)]
    #[kerf(op = "onnx.slice", dtype = "string", input = [4], starts = [3], ends = [-5], steps = [-1])]
    pub struct StringReverse;
}

/// The string kernel through its typed `run` (the `Kernel` trait moves bytes).
#[test]
fn string_kernel_beside_shadowing_types() {
    let input: Vec<String> = ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
    let mut output = vec![String::new(); shadowed::StringReverse::OUTPUT_LEN];
    shadowed::StringReverse.run(&input, &mut output).unwrap();
    assert_eq!(output, ["d", "c", "b", "a"]);
}
