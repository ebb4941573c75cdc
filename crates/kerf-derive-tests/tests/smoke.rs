use kerf::Kernel;

#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [3, 3], start = [0, 0], size = [2, 2], stride = [1, 1])]
struct Seed;

#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.slice", dtype = "f32", input = [2, 2], start = [0, 0], size = [3, 3], stride = [1, 1], mode = "fill")]
struct SeedFill;

#[derive(kerf::Kernel)]
#[kerf(op = "tensorrt.fill", dimensions = [2, 3], operation = "linspace", beta = [3.0, 1.0], to_type = "i32")]
struct Lin;

#[test]
fn smoke() {
    let input: Vec<f32> = (0..9).map(|v| v as f32).collect();
    let mut out = [0f32; 4];
    Seed.run(&input, &mut out).unwrap();
    assert_eq!(out, [0.0, 1.0, 3.0, 4.0]);
    let mut out = [0f32; 9];
    SeedFill.run(&[0.0; 4], &mut out, 1.0).unwrap();
    assert_eq!(out, [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
    let mut out = [0i32; 6];
    Lin.run(&mut out).unwrap();
    assert_eq!(out, [0, 1, 2, 3, 4, 5]);
    assert_eq!(Seed.output_shape(), &[2, 2]);
}
