//! A user crate of `#[derive(kerfx::Kernel)]`. Its tests derive kernels as a user would
//! and check them against the reference interpreter on the same request; this library
//! holds the helpers they share: the request a derive's attributes stand for (its data
//! input the test kit's deterministic [`pattern`]).

use kerfx::spec::InputRank;
use kerfx::{AttrValue, DType, InputArg, Kernel, Request, Tensor};
pub use kerfx_testkit::pattern;

/// An attribute value as a test writes it (the same literal the derive reads).
#[derive(Clone, Debug)]
pub enum V {
    Int(i64),
    Float(f64),
    Str(&'static str),
    Ints(Vec<i64>),
    Floats(Vec<f64>),
}

impl From<i32> for V {
    fn from(v: i32) -> V {
        V::Int(v.into())
    }
}
impl From<i64> for V {
    fn from(v: i64) -> V {
        V::Int(v)
    }
}
impl From<f64> for V {
    fn from(v: f64) -> V {
        V::Float(v)
    }
}
impl From<bool> for V {
    fn from(v: bool) -> V {
        V::Int(v.into())
    }
}
impl From<&'static str> for V {
    fn from(v: &'static str) -> V {
        V::Str(v)
    }
}
impl<const N: usize> From<[i32; N]> for V {
    fn from(v: [i32; N]) -> V {
        V::Ints(v.iter().map(|&x| x.into()).collect())
    }
}
impl<const N: usize> From<[i64; N]> for V {
    fn from(v: [i64; N]) -> V {
        V::Ints(v.to_vec())
    }
}
impl<const N: usize> From<[f64; N]> for V {
    fn from(v: [f64; N]) -> V {
        V::Floats(v.to_vec())
    }
}

/// The request a `#[kerf(...)]` attribute list stands for, with a deterministic data
/// input ([`pattern`]) of `dtype` and `shape`: names the spec lists as attributes (in
/// the version) are attributes; other names are inputs written as constants.
pub fn request(op: &str, version: Option<u32>, data: Option<(&str, &[u64])>, attrs: &[(&str, V)]) -> Request {
    let spec = kerfx::op_spec(op).expect("known op");
    let mut req = Request::new(op);
    req.version = version;
    let v = version.unwrap_or_else(|| spec.latest_version());
    if let Some((dtype, shape)) = data {
        let name = kerfx::data_input_name(spec).expect("a data input");
        let dtype: DType = dtype.parse().expect("dtype");
        req = req.input(name, pattern(dtype, shape));
    }
    for (name, value) in attrs {
        if spec.attribute(name).is_some_and(|a| kerfx::spec::in_version(&a.versions, v)) {
            let value = match value {
                V::Int(i) => AttrValue::Int(*i),
                V::Float(f) => AttrValue::Float(*f),
                V::Str(s) => AttrValue::Str(s.to_string()),
                V::Ints(l) => AttrValue::IntList(l.clone()),
                V::Floats(l) => AttrValue::FloatList(l.clone()),
            };
            req.attributes.insert(name.to_string(), value);
        } else {
            let input = spec.input(name).expect("an attribute or an input");
            let t = match (value, input.rank) {
                (V::Ints(l), _) => Tensor::from_i64s(l),
                (V::Int(i), InputRank::Scalar) => Tensor::scalar_bits(DType::I64, *i as u64 as u128),
                (V::Float(f), InputRank::Scalar) => Tensor::scalar_bits(DType::F64, f.to_bits() as u128),
                other => panic!("no input form for {other:?}"),
            };
            req.inputs.insert(name.to_string(), InputArg::Tensor(t));
        }
    }
    req
}

/// Run a kernel through the `Kernel` trait on the request's data input and compare its
/// bits with the reference interpreter's. Returns the output.
pub fn check_against_reference(kernel: &dyn Kernel, request: &Request) -> Tensor {
    if kerfx::is_program_op(&request.op).expect("known op") {
        return check_program_against_reference(kernel, request).remove(0);
    }
    let expected = kerfx::run_reference(request).expect("reference");
    let data = kerfx::data_input(request).expect("data input");
    let got = kernel.run_tensor(data.map(Tensor::view)).expect("derived kernel");
    assert_eq!(got.shape(), expected.shape(), "shape of {request:?}");
    assert_eq!(got.dtype(), expected.dtype(), "dtype of {request:?}");
    assert_eq!(got.bytes(), expected.bytes(), "bits of {request:?}");
    got
}

/// A derived program (an op over several inputs or outputs: Concat, Split) run through
/// `Kernel::run_buffers` on the request's inputs: every output equal to the reference's,
/// bit for bit. Returns the outputs.
pub fn check_program_against_reference(kernel: &dyn Kernel, request: &Request) -> Vec<Tensor> {
    let expected = kerfx::run_reference_outputs(request).expect("reference");
    let inputs = kerfx::program_inputs(request).expect("program inputs");
    let bytes: Vec<&[u8]> = inputs.iter().map(|t| t.bytes().expect("byte data")).collect();
    assert_eq!(kernel.input_shapes(), inputs.iter().map(|t| t.shape()).collect::<Vec<_>>(), "input shapes");
    let mut got: Vec<Tensor> =
        kernel.output_shapes().iter().map(|s| Tensor::zeros(kernel.dtype(), s).expect("output")).collect();
    let mut buffers: Vec<&mut [u8]> = got.iter_mut().map(|t| t.bytes_mut().expect("byte data")).collect();
    kernel.run_buffers(&bytes, &mut buffers).expect("derived program");
    assert_eq!(got.len(), expected.len(), "outputs of {request:?}");
    for (k, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert_eq!((g.dtype(), g.shape()), (e.dtype(), e.shape()), "output {k} of {request:?}");
        assert_eq!(g.bytes(), e.bytes(), "bits of output {k} of {request:?}");
    }
    got
}

/// Derive a kernel and a test that checks it against the reference on the request its
/// attributes stand for:
/// `derived!(test_name, Kernel, op = "..." [, version = N] [, dtype = "...", input = [..]]; name = value, ...)`.
#[macro_export]
macro_rules! derived {
    ($test:ident, $name:ident, op = $op:literal $(, version = $ver:literal)?
        $(, dtype = $dt:literal, input = [$($d:literal),*])?; $($k:ident = $v:expr),* $(,)?) => {
        #[derive(kerfx::Kernel)]
        #[kerf(op = $op $(, version = $ver)? $(, dtype = $dt, input = [$($d),*])? $(, $k = $v)*)]
        struct $name;

        #[test]
        fn $test() {
            // Full paths: the macro also runs beside types named like primitives
            // (tests/shadowed_primitives.rs).
            #[allow(unused_mut, unused_assignments)]
            let mut version: ::core::option::Option<::core::primitive::u32> = ::core::option::Option::None;
            $(version = ::core::option::Option::Some($ver);)?
            #[allow(unused_mut, unused_assignments)]
            let mut data: ::core::option::Option<(&::core::primitive::str, &[::core::primitive::u64])> =
                ::core::option::Option::None;
            $(data = ::core::option::Option::Some(($dt, &[$($d),*]));)?
            let request = $crate::request($op, version, data, &[$((stringify!($k), $crate::V::from($v))),*]);
            $crate::check_against_reference(&$name, &request);
        }
    };
}
