//! A kernel derived at compile time: the attributes are checked against the spec when
//! this file compiles (a wrong one is a compile error), and the kernel is plain Rust loops.
//!
//! `cargo run -p kerfx --example derive`

use kerfx::Kernel;

/// OpenVINO Pad-12 in symmetric mode: one element of each side of a 2x3 input, mirrored
/// with the edge repeated.
#[derive(kerfx::Kernel)]
#[kerf(op = "openvino.pad", version = 12, dtype = "i32", input = [2, 3], pads_begin = [1, 1], pads_end = [0, 1], pad_mode = "symmetric")]
struct Symmetric;

fn main() -> Result<(), kerfx::Error> {
    let mut out = [0i32; 3 * 5];
    Symmetric.run(&[1, 2, 3, 4, 5, 6], &mut out)?;
    for row in out.chunks(5) {
        println!("{row:?}");
    }
    assert_eq!(Symmetric::OUTPUT_SHAPE, [3, 5]);
    assert_eq!(out, [1, 1, 2, 3, 3, 1, 1, 2, 3, 3, 4, 4, 5, 6, 6]);
    assert_eq!(Symmetric.output_shape(), [3, 5]);
    Ok(())
}

// `cargo test` runs the example (`test = true` in Cargo.toml), so it stays true.
#[test]
fn runs() {
    main().unwrap();
}
