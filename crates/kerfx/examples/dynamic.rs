//! A dynamic kernel: compiled once for an op, mode, dtype and rank, then run on plans of
//! other shapes, starts and steps (TensorRT's runtime start/size/stride) without
//! compiling again.
//!
//! `cargo run -p kerfx --example dynamic`

use kerfx::{DType, Jit, Options, Request, Tensor, Views};

/// A wrap slice of a 1-D i32 input of `n` elements: `size` elements from `start`.
fn request(n: u64, start: i64, size: i64) -> Request {
    Request::new("tensorrt.slice")
        .input_meta("input", DType::I32, &[n])
        .attr("start", [start])
        .attr("size", [size])
        .attr("stride", [1])
        .attr("mode", "wrap")
}

fn main() -> Result<(), kerfx::Error> {
    let jit = Jit::default();
    let kernel = jit.compile(&request(4, 0, 4), &Options::DYNAMIC)?;
    for (n, start, size) in [(4, -1, 6), (3, 2, 5), (5, -7, 3)] {
        let plan = kerfx::lower(&request(n, start, size))?;
        let input: Vec<u8> = (0..n as i32).flat_map(i32::to_le_bytes).collect();
        let mut output = vec![0u8; size as usize * 4];
        kernel.run(&plan, Views::DENSE, Some(&input), &mut output)?;
        let got = Tensor::from_bytes(DType::I32, &[size as u64], &output)?;
        // Wrap reads index (start + i) mod n.
        let want: Vec<i64> = (0..size).map(|i| (start + i).rem_euclid(n as i64)).collect();
        println!("n = {n}, start = {start}: {}", kerfx::display::describe(&got));
        let values: Vec<i64> = (0..got.len()).map(|i| got.element_i128(i).unwrap() as i64).collect();
        assert_eq!(values, want);
    }
    Ok(())
}

// `cargo test` runs the example (`test = true` in Cargo.toml), so it stays true.
#[test]
fn runs() {
    main().unwrap();
}
