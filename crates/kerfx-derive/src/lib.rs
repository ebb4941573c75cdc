//! `#[derive(kerfx::Kernel)]`: a kernel specialized at the user's compile time.
//!
//! The macro is thin. `attr` parses the `#[kerf(...)]` attributes into spanned values;
//! `check` maps them to a `kerfx_ir::Request`, which `kerfx_ir::lower` validates (kerf's
//! one validator: every mistake at once, each naming its attribute, rule and axis) and
//! turns into a Plan with the same frontends the JIT uses; `check` puts each error at
//! the span of the attribute it names, and `kerfx_codegen` emits the loops.
//! Users reach it as `kerfx::Kernel`; the attribute reference is on [`macro@Kernel`].

mod attr;
mod check;
mod ctxt;

use proc_macro::TokenStream;

/// Derive a kernel specialized at compile time for one op, dtype, shape and mode.
///
/// ```
/// use kerfx::Kernel;
///
/// // The top-left 2x2 of a 3x3 input, read with wrap-around from row -1.
/// #[derive(kerfx::Kernel)]
/// #[kerf(op = "tensorrt.slice", dtype = "f32", input = [3, 3],
///        start = [-1, 0], size = [2, 2], stride = [1, 1], mode = "wrap")]
/// struct Window;
///
/// let input: Vec<f32> = (0..9).map(|v| v as f32).collect();
/// let mut output = [0.0f32; Window::OUTPUT_LEN];
/// Window.run(&input, &mut output).unwrap();
/// assert_eq!(output, [6.0, 7.0, 0.0, 1.0]);
/// assert_eq!(Window.output_shape(), &[2, 2]); // the runtime `Kernel` trait
/// ```
///
/// # Attributes
///
/// `#[kerf(name = literal, ...)]`, in one or several attributes:
/// - `op = "..."`: the spec id (`tensorrt.slice`, `tensorrt.fill`, `onnx.slice`,
///   `openvino.strided_slice`, `onnx.pad`, `openvino.pad`, `openvino.slice`);
///   `version = N` picks an op set (default: the newest).
/// - `dtype = "..."` and `input = [d0, d1, ...]`: the data input's element type and
///   shape. Fill ops read no input and take neither (their output type is `to_type`).
/// - every attribute of the op by its spec name, with the spec's types, allowed values
///   and defaults (`mode = "fill"`, `begin_mask = [1, 0]`, `seed = 7`, ...);
/// - inputs of the spec written as attributes (`starts = [...]` of onnx.slice 10+,
///   `pads = [...]` of onnx.pad 11+, `pads_begin = [...]` of openvino.pad, `fill = 1.5`
///   of tensorrt.slice, ...): baked in as constants. A fill or pad value (tensorrt.slice's
///   `fill`, onnx.pad's `constant_value` or `value`, openvino.pad's `pad_value`) is the
///   default (`FILL`, used by `Kernel::run_bytes`); `run` takes its own:
///   `#[kerf(op = "onnx.pad", version = 19, dtype = "f32", input = [2, 3],
///   pads = [1, 2, 0, 1], mode = "wrap")]`.
///
/// - ops over several tensors (Concat, Split, VariadicSplit, TensorRT Concatenation): a
///   variadic data input is `input = [[d0, ...], [d0, ...], ...]`, one shape per entry, of
///   the one `dtype`; `outputs = N` says how many outputs where the node's output count
///   decides (ONNX Split 2–13 without `split`).
///
/// Values are literals and flat lists: brackets and parentheses nest at most 16 deep in
/// a `#[kerf(...)]` attribute (deeper nesting is an error at the group that goes past it).
///
/// Every mistake is a compile error at its attribute, all reported at once: unknown
/// names, wrong types, values the spec does not allow, missing required attributes, the
/// spec's dtype rules, and (once those pass) the op frontend's rules, by rule id.
///
/// # Generated items
///
/// - `INPUT_SHAPE`, `OUTPUT_SHAPE` (`[u64; R]`), `INPUT_LEN`, `OUTPUT_LEN` (slice lengths
///   `run` takes: elements, or bytes for packed 4-bit types), `DTYPE`, and `FILL` in mode
///   fill. Fill ops have no `INPUT_*`.
/// - `fn run(&self, input: &[T], output: &mut [T]) -> Result<(), kerfx::Error>` (with a
///   trailing `fill: T` in mode fill and the pads' mode constant; only `output` for fill
///   ops): checks the lengths once,
///   then runs loops specialized by the shared schedule — no per-element bounds checks,
///   no boundary arithmetic. `T` is the Rust type of the dtype: `bool`, `i8`..`u64`,
///   `f32`, `f64`, `kerfx::half::f16`/`bf16`, `kerfx::num_complex::Complex<f32/f64>`,
///   `String`; raw `u8` bytes for fp8 and for packed i4/u4 (two a byte, low nibble first).
/// - `impl kerfx::Kernel`, so a derived kernel and a JIT kernel are interchangeable.
/// - For an op over several tensors (a *program*): `INPUT_SHAPES`, `OUTPUT_SHAPES`
///   (`[&[u64]; N]`), `INPUT_LENS`, `OUTPUT_LENS` (`[usize; N]`), `DTYPE`, and
///   `fn run(&self, inputs: [&[T]; N], outputs: [&mut [T]; M]) -> Result<(), kerfx::Error>`,
///   which checks every length before it writes anything, then runs one loop nest per
///   move, each writing its box of its output (Concat: each input into its place, through
///   the output's strides; Split: each output whole); `Kernel::run_buffers` takes the
///   same buffers as bytes. A move no single nest writes (a chain that does not fuse, one
///   that fills with several values) is a compile error naming it.
///
/// ```
/// #[derive(kerfx::Kernel)]
/// #[kerf(op = "onnx.concat", dtype = "i32", input = [[2, 2], [2, 1]], axis = 1)]
/// struct Join;
///
/// let mut out = [0i32; Join::OUTPUT_LENS[0]];
/// Join.run([&[1, 2, 3, 4], &[5, 6]], [&mut out]).unwrap();
/// assert_eq!(out, [1, 2, 5, 3, 4, 6]);
/// ```
#[proc_macro_derive(Kernel, attributes(kerf))]
pub fn derive_kernel(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    check::expand(&input).unwrap_or_else(ctxt::to_compile_errors).into()
}
