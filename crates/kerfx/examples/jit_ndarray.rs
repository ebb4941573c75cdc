//! The JIT on ndarray arrays: TensorRT Slice in reflect mode compiled once for its plan,
//! then run on an array (any layout; the kernel reads it in logical order).
//!
//! `cargo run -p kerfx --example jit_ndarray --features ndarray`

use kerfx::{DType, Jit, Kernel, Options, Request};
use ndarray::{arr2, array};

fn main() -> Result<(), kerfx::Error> {
    let jit = Jit::default();
    let request = Request::new("tensorrt.slice")
        .input_meta("input", DType::F32, &[2, 3])
        .attr("start", [0, -2])
        .attr("size", [2, 7])
        .attr("stride", [1, 1])
        .attr("mode", "reflect");
    let kernel = jit.compile(&request, &Options::STATIC)?;
    let x = arr2(&[[0f32, 1., 2.], [3., 4., 5.]]);
    let y = kerfx::ndarray::run(kernel.as_ref(), Some(x.view()))?;
    println!("{x}\n→ reflect →\n{y}");
    let want = array![[2f32, 1., 0., 1., 2., 1., 0.], [5., 4., 3., 4., 5., 4., 3.]].into_dyn();
    assert_eq!(y, want);
    assert_eq!(kernel.output_shape(), [2, 7]);
    Ok(())
}

// `cargo test` runs the example (`test = true` in Cargo.toml), so it stays true.
#[test]
fn runs() {
    main().unwrap();
}
