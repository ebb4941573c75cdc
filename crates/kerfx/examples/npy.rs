//! Reading and writing `.npy` files: a request file's inputs are `.npy` paths; the output
//! is written as `.npy` (types numpy lacks are stored raw and named, as `kerf run` does).
//!
//! `cargo run -p kerfx --example npy`

use kerfx::{DType, Request, Tensor};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let input_path = dir.path().join("x.npy");
    let data: Vec<u8> = [1.5f32, 2.5, 3.5, 4.5, 5.5, 6.5].iter().flat_map(|v| v.to_le_bytes()).collect();
    kerfx::npy::write(&input_path, &Tensor::from_bytes(DType::F32, &[2, 3], &data)?)?;

    // ONNX Pad-21, edge mode, one column on each side: read back from the file.
    let x = kerfx::npy::read(&input_path)?;
    let request = Request::new("onnx.pad")
        .version(21)
        .input("data", x)
        .input("pads", Tensor::from_i64s(&[0, 1, 0, 1]))
        .attr("mode", "edge");
    let y = kerfx::run_reference(&request)?;

    let output_path = dir.path().join("y.npy");
    kerfx::npy::write(&output_path, &y)?;
    let back = kerfx::npy::read(&output_path)?;
    println!("{}", kerfx::display::describe(&back));
    assert_eq!(back, y);
    assert_eq!(back.shape(), [2, 5]);
    let first_row: Vec<f64> = (0..5).map(|i| back.element_f64(i).unwrap()).collect();
    assert_eq!(first_row, [1.5, 1.5, 2.5, 3.5, 3.5]);
    Ok(())
}

// `cargo test` runs the example (`test = true` in Cargo.toml), so it stays true.
#[test]
fn runs() {
    main().unwrap();
}
