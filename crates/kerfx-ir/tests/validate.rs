//! The one validator: every error of a request at once, each naming what it is about
//! (attribute or input, rule, axis) as data, unknown names and values with a hint.

use kerfx_ir::request::validate;
use kerfx_ir::{About, DType, Error, Request, lower};

fn spec(op: &str) -> &'static kerfx_spec::OpSpec {
    kerfx_ir::frontend::spec(op).unwrap()
}

fn errors(r: &Request) -> Vec<Error> {
    validate(spec(&r.op), r).expect_err("the request must be refused")
}

#[test]
fn every_error_of_a_request_is_reported_with_what_it_is_about() {
    let r = Request::new("tensorrt.slice")
        .input_meta("input", DType::F32, &[3, 3])
        .attr("strat", [0, 0])
        .attr("size", vec![2.0, 2.5])
        .attr("stride", [1, 1])
        .attr("mode", "refelct")
        .input_meta("fil", DType::F32, &[]);
    let e = errors(&r);
    let about: Vec<_> = e.iter().map(Error::about).collect();
    assert_eq!(
        about,
        [
            Some(About::Attribute("mode")),
            Some(About::Attribute("size")),
            Some(About::Attribute("strat")),
            Some(About::Input("fil")),
        ],
        "{e:?}"
    );
    let text: Vec<String> = e.iter().map(ToString::to_string).collect();
    assert!(text[0].contains("(did you mean `reflect`?)"), "{}", text[0]);
    assert!(text[1].contains("must be of type int_list (a list of integers"), "{}", text[1]);
    assert!(text[2].contains("unknown attribute `strat` (did you mean `start`?); known: start, size"), "{}", text[2]);
    assert!(text[3].contains("unknown input `fil` (did you mean `fill`?); known: input, start"), "{}", text[3]);

    // `lower` returns them all as one error that lists them, one a line.
    let all = lower(&r).unwrap_err();
    assert_eq!(all.list(), e.as_slice());
    assert_eq!(all.to_string().lines().count(), 4);
}

#[test]
fn a_name_of_another_version_says_which_versions_have_it() {
    let r = Request::new("onnx.slice")
        .version(1)
        .input_meta("data", DType::F32, &[3])
        .attr("starts", [0])
        .attr("ends", [2])
        .input("steps", kerfx_ir::Tensor::from_i64s(&[1]));
    let e = errors(&r);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].about(), Some(About::Input("steps")));
    assert!(
        e[0].to_string().ends_with("unknown input `steps` in version 1; it exists in versions [10, 11, 13]"),
        "{}",
        e[0]
    );
}

#[test]
fn an_unknown_version_is_reported_alone() {
    let r = Request::new("onnx.slice").version(12).attr("nope", 1);
    let e = errors(&r);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].about(), Some(About::Version));
}

#[test]
fn missing_attributes_and_inputs_are_all_named() {
    let r = Request::new("openvino.strided_slice").attr("begin", [0]).attr("end", [2]);
    let e = errors(&r);
    let about: Vec<_> = e.iter().map(Error::about).collect();
    assert_eq!(
        about,
        [Some(About::Attribute("begin_mask")), Some(About::Attribute("end_mask")), Some(About::Input("data"))]
    );
}

#[test]
fn rule_errors_name_their_attribute_and_axis() {
    // A frontend rule: steps[1] = 0 is about `steps`, input axis 1.
    let r = Request::new("onnx.slice")
        .input_meta("data", DType::F32, &[3, 3])
        .input("starts", kerfx_ir::Tensor::from_i64s(&[0, 0]))
        .input("ends", kerfx_ir::Tensor::from_i64s(&[1, 1]))
        .input("steps", kerfx_ir::Tensor::from_i64s(&[1, 0]));
    let e = lower(&r).unwrap_err();
    assert_eq!((e.rule_id(), e.about(), e.axis()), (Some("step_nonzero"), Some(About::Name("steps")), Some(1)), "{e}");

    // A dtype rule is about the attribute of its condition when the request gives it...
    let clamp = Request::new("tensorrt.slice")
        .input_meta("input", DType::I64, &[4])
        .attr("start", [-1])
        .attr("size", [6])
        .attr("stride", [1])
        .attr("mode", "clamp");
    let e = errors(&clamp);
    assert_eq!((e[0].rule_id(), e[0].about()), (Some("mode_dtype"), Some(About::Name("mode"))));
    // ... else about its subject.
    let bf16 = Request::new("onnx.slice")
        .version(11)
        .input_meta("data", DType::BF16, &[3])
        .input("starts", kerfx_ir::Tensor::from_i64s(&[0]))
        .input("ends", kerfx_ir::Tensor::from_i64s(&[1]));
    let e = errors(&bf16);
    assert_eq!((e[0].rule_id(), e[0].about()), (Some("bf16_from_13"), Some(About::Name("data"))));
}

#[test]
fn an_unknown_op_gets_a_hint() {
    let e = lower(&Request::new("tensorrt.slise")).unwrap_err();
    assert_eq!(e.about(), Some(About::Op));
    assert!(e.to_string().starts_with("unknown op `tensorrt.slise` (did you mean `tensorrt.slice`?); known: "), "{e}");
}

#[test]
fn the_fill_dtypes_of_the_ir_are_the_specs() {
    use kerfx_ir::{FillKind, FillPlan, Linspace};
    let fill = spec("tensorrt.fill");
    let allow = |id: &str| -> Vec<DType> {
        let mut v: Vec<DType> =
            fill.rule(id).unwrap().allow.as_ref().unwrap().iter().map(|d| d.parse().unwrap()).collect();
        v.sort();
        v
    };
    let int = FillKind::Linspace(Linspace::Int { alpha: 0, beta: vec![1] });
    let float = FillKind::Linspace(Linspace::Float { alpha: 0.0, beta: vec![1.0] });
    let random = FillKind::RandomUniform { alpha: 0.0, beta: 1.0, seed: 0 };
    let mut linspace = [int.dtypes(), float.dtypes()].concat();
    linspace.sort();
    let mut rand = random.dtypes().to_vec();
    rand.sort();
    assert_eq!(allow("linspace_types"), linspace);
    assert_eq!(allow("random_types"), rand);
    // A plan of another dtype is refused by the IR itself, for every backend.
    let e = FillPlan { dtype: DType::I8, shape: vec![3], kind: int }.validate().unwrap_err();
    assert!(e.to_string().contains("integer linspace fills have dtype i32 or i64, not i8"), "{e}");
}
