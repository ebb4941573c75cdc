//! The library file compiled for this crate's target by kerfx-build (Cranelift runs here,
//! in the build script, and only here).

fn main() {
    if let Err(e) = kerfx_build::compile("kernels/demo.toml") {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
