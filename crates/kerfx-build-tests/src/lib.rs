//! The kernels of `kernels/demo.toml`, compiled ahead of time by `build.rs` through
//! kerfx-build: the generated module `demo` of safe wrappers.

include!(concat!(env!("OUT_DIR"), "/demo.rs"));
