//! Every example of every spec file runs as a test, on every backend: its expected
//! output must match bit for bit, or its error must contain the example's fragment.

use kerfx::{Request, Tensor};
use kerfx_spec::{ExampleSpec, OpSpec};

/// An example as a request.
fn request_of(spec: &OpSpec, ex: &ExampleSpec) -> Request {
    kerfx::examples::request(spec, ex).unwrap_or_else(|e| panic!("{} {}: {e}", spec.id, ex.name))
}

/// Check every example of `op` with `run`; collect every failure, then fail once naming all.
fn check_examples(op: &str, run: impl Fn(&Request) -> Result<Vec<Tensor>, kerfx::Error>) {
    let spec = kerfx::op_spec(op).unwrap();
    assert!(!spec.examples.is_empty(), "{op} has no examples");
    let mut failures = Vec::new();
    for ex in &spec.examples {
        let req = request_of(spec, ex);
        let got = run(&req);
        let describe = |outs: &[Tensor]| outs.iter().map(kerfx::display::describe).collect::<Vec<_>>().join("; ");
        match (kerfx::examples::expected(ex), &ex.error, got) {
            (Some(want), _, Ok(out)) => {
                let want = want.unwrap();
                if out != want {
                    failures.push(format!("{}: got {}, expected {}", ex.name, describe(&out), describe(&want)));
                }
            }
            (Some(_), _, Err(e)) => failures.push(format!("{}: failed: {e}", ex.name)),
            (None, Some(fragment), Err(e)) => {
                if !e.to_string().contains(fragment.as_str()) {
                    failures.push(format!("{}: error `{e}` lacks `{fragment}`", ex.name));
                }
            }
            (None, _, Ok(out)) => failures.push(format!("{}: must fail, gave {}", ex.name, describe(&out))),
            (None, None, Err(_)) => unreachable!("kerfx-spec guarantees expected or error"),
        }
    }
    assert!(
        failures.is_empty(),
        "{op}: {} of {} examples failed:\n{}",
        failures.len(),
        spec.examples.len(),
        failures.join("\n")
    );
}

fn jit() -> &'static kerfx::Jit {
    static JIT: std::sync::OnceLock<kerfx::Jit> = std::sync::OnceLock::new();
    JIT.get_or_init(kerfx::Jit::default)
}

/// One test per op and backend: the reference, the JIT's static kernels and its dynamic ones.
macro_rules! examples_on_every_backend {
    ($($name:ident: $op:literal),* $(,)?) => {
        mod reference {
            $(#[test] fn $name() { super::check_examples($op, kerfx::run_reference_outputs); })*
        }
        mod jit_static {
            $(#[test] fn $name() { super::check_examples($op, |r| kerfx::run_jit_outputs(super::jit(), r, false)); })*
        }
        mod jit_dynamic {
            $(#[test] fn $name() { super::check_examples($op, |r| kerfx::run_jit_outputs(super::jit(), r, true)); })*
        }
        /// Every op with a spec is listed here, so that no op's examples go unrun.
        #[test]
        fn every_op_is_listed() {
            let listed = [$($op),*];
            let registry = kerfx::spec::registry().expect("the embedded specs parse");
            let missing: Vec<&str> = registry.ids().filter(|id| !listed.contains(id)).collect();
            assert!(missing.is_empty(), "ops whose examples no test runs: {missing:?}");
        }
    };
}

examples_on_every_backend! {
    tensorrt_slice: "tensorrt.slice",
    onnx_concat: "onnx.concat",
    openvino_concat: "openvino.concat",
    tensorrt_concatenation: "tensorrt.concatenation",
    onnx_split: "onnx.split",
    openvino_split: "openvino.split",
    openvino_variadic_split: "openvino.variadic_split",
    tensorrt_fill: "tensorrt.fill",
    onnx_slice: "onnx.slice",
    openvino_strided_slice: "openvino.strided_slice",
    onnx_pad: "onnx.pad",
    openvino_pad: "openvino.pad",
    openvino_slice: "openvino.slice",
    onnx_transpose: "onnx.transpose",
    onnx_reshape: "onnx.reshape",
    onnx_flatten: "onnx.flatten",
    onnx_squeeze: "onnx.squeeze",
    onnx_unsqueeze: "onnx.unsqueeze",
    onnx_identity: "onnx.identity",
    onnx_expand: "onnx.expand",
    onnx_tile: "onnx.tile",
    onnx_depth_to_space: "onnx.depth_to_space",
    onnx_space_to_depth: "onnx.space_to_depth",
    openvino_transpose: "openvino.transpose",
    openvino_tile: "openvino.tile",
    openvino_roll: "openvino.roll",
    onnx_gather: "onnx.gather",
    onnx_gather_elements: "onnx.gather_elements",
    openvino_gather: "openvino.gather",
    tensorrt_gather: "tensorrt.gather",
    openvino_broadcast: "openvino.broadcast",
    openvino_depth_to_space: "openvino.depth_to_space",
    openvino_space_to_depth: "openvino.space_to_depth",
    openvino_reshape: "openvino.reshape",
    openvino_squeeze: "openvino.squeeze",
    openvino_unsqueeze: "openvino.unsqueeze",
    tensorrt_shuffle: "tensorrt.shuffle",
}
