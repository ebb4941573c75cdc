//! Tests of the spec loader: every embedded spec parses and keeps the names the
//! frontends use; every kind of malformed spec is refused with a message naming the file
//! and the field.

use super::*;

// ------------------------------------------------------------ embedded specs

fn spec(id: &str) -> &'static OpSpec {
    registry().expect("the embedded specs parse").get(id).unwrap_or_else(|| panic!("no spec {id}"))
}

#[test]
fn every_embedded_spec_parses() {
    for (file, text) in SPEC_FILES {
        if let Err(e) = OpSpec::parse(file, text) {
            panic!("{e}");
        }
    }
    let reg = registry().unwrap_or_else(|e| panic!("{e}"));
    let ids: Vec<&str> = reg.ids().collect();
    assert_eq!(
        ids,
        [
            "tensorrt.slice",
            "tensorrt.fill",
            "onnx.slice",
            "openvino.strided_slice",
            "onnx.pad",
            "openvino.pad",
            "openvino.slice",
            "onnx.transpose",
            "onnx.reshape",
            "onnx.flatten",
            "onnx.squeeze",
            "onnx.unsqueeze",
            "onnx.identity",
            "onnx.expand",
            "onnx.tile",
            "onnx.depth_to_space",
            "onnx.space_to_depth",
            "openvino.transpose",
            "openvino.tile",
            "openvino.roll",
            "onnx.gather",
            "onnx.gather_elements",
            "openvino.gather",
            "tensorrt.gather",
            "openvino.broadcast",
            "openvino.depth_to_space",
            "openvino.space_to_depth",
            "openvino.reshape",
            "openvino.squeeze",
            "openvino.unsqueeze",
            "tensorrt.shuffle",
            "onnx.concat",
            "openvino.concat",
            "tensorrt.concatenation",
            "onnx.split",
            "openvino.split",
            "openvino.variadic_split",
        ]
    );
    assert_eq!(reg.ops().len(), SPEC_FILES.len());
    assert!(reg.get("tensorrt.nothing").is_none());
}

#[test]
fn each_file_is_named_after_its_id() {
    for (file, text) in SPEC_FILES {
        let spec = OpSpec::parse(file, text).unwrap();
        assert_eq!(*file, format!("specs/{}.toml", spec.id));
    }
}

#[test]
fn everything_is_documented() {
    for op in registry().unwrap().ops() {
        assert!(!op.summary.trim().is_empty(), "{}", op.id);
        for a in &op.attributes {
            assert!(!a.doc.trim().is_empty(), "{} attribute {}", op.id, a.name);
        }
        for i in &op.inputs {
            assert!(!i.doc.trim().is_empty(), "{} input {}", op.id, i.name);
        }
        for r in &op.rules {
            assert!(!r.doc.trim().is_empty(), "{} rule {}", op.id, r.id);
        }
        for e in &op.examples {
            assert!(!e.doc.trim().is_empty(), "{} example {}", op.id, e.name);
        }
    }
}

#[test]
fn inputs_are_numbered_in_order() {
    for op in registry().unwrap().ops() {
        let indexes: Vec<u32> = op.inputs.iter().map(|i| i.index).collect();
        let expected: Vec<u32> = (0..op.inputs.len() as u32).collect();
        assert_eq!(indexes, expected, "{}", op.id);
        for i in &op.inputs {
            if let Some(r) = &i.replaces {
                assert_eq!(r, &i.name, "{}: an input replaces the attribute of its own name", op.id);
            }
        }
    }
}

/// Error fragments that are not rule ids: errors of the generic request check, which
/// does not name a rule.
const GENERIC_ERRORS: &[(&str, &str)] = &[
    // Version 1 has no steps input: the generic "unknown input" error.
    ("onnx.slice", "unknown input `steps`"),
    // Versions before 18 have no axes input: the generic "unknown input" error.
    ("onnx.pad", "unknown input `axes`"),
    // Mask entries other than 0/1 are refused by the generic check of mask attributes,
    // whose message names the attribute rather than the rule `mask_values`.
    ("openvino.strided_slice", "begin_mask"),
];

#[test]
fn every_error_example_names_a_rule() {
    for op in registry().unwrap().ops() {
        for e in &op.examples {
            let Some(fragment) = &e.error else { continue };
            assert!(
                op.rule(fragment).is_some() || GENERIC_ERRORS.contains(&(op.id.as_str(), fragment.as_str())),
                "{} example {}: error `{fragment}` is no rule id",
                op.id,
                e.name
            );
        }
    }
}

#[test]
fn every_rule_has_an_error_example() {
    // `mask_values` is enforced by the generic mask check (see GENERIC_ERRORS).
    let exempt = [("openvino.strided_slice", "mask_values")];
    for op in registry().unwrap().ops() {
        for r in &op.rules {
            if exempt.contains(&(op.id.as_str(), r.id.as_str())) {
                continue;
            }
            assert!(
                op.examples.iter().any(|e| e.error.as_deref() == Some(r.id.as_str())),
                "{}: no example breaks rule {}",
                op.id,
                r.id
            );
        }
    }
}

/// The dtype an example input has: a list of integers is a 1-D i64 tensor, an integer
/// an i64 scalar, a float an f64 scalar.
fn example_input_dtype(v: &TomlValue) -> String {
    match v {
        TomlValue::Integer(_) | TomlValue::Array(_) => "i64".into(),
        TomlValue::Float(_) => "f64".into(),
        TomlValue::Table(_) => v.clone().try_into::<TensorLiteral>().unwrap().dtype,
        other => panic!("not an example input: {other}"),
    }
}

#[test]
fn successful_examples_use_their_inputs_type_sets() {
    for op in registry().unwrap().ops() {
        for e in op.examples.iter().filter(|e| e.expected.is_some()) {
            for (name, v) in &e.inputs {
                let set = op.type_set(&op.input(name).unwrap().types).unwrap();
                let dtype = example_input_dtype(v);
                assert!(
                    set.contains(&dtype.as_str()),
                    "{} example {}: input {name} of dtype {dtype} is not in {set:?}",
                    op.id,
                    e.name
                );
            }
        }
    }
}

#[test]
fn every_op_has_seed_examples() {
    let has = |id: &str, name: &str| spec(id).examples.iter().any(|e| e.name == name);
    assert!(has("tensorrt.slice", "seed_basic"));
    assert!(has("tensorrt.slice", "seed_fill"));
    assert!(has("tensorrt.fill", "seed_linspace"));
    assert!(has("onnx.slice", "onnx_example_1"));
    assert!(has("onnx.slice", "onnx_example_2"));
    assert!(has("openvino.strided_slice", "seed_begin_end_mask"));
    assert!(has("openvino.strided_slice", "seed_new_axis"));
    assert!(has("openvino.strided_slice", "seed_shrink_axis"));
}

#[test]
fn seed_examples_hold_the_vendor_values() {
    let ex =
        |id: &str, name: &str| spec(id).examples.iter().find(|e| e.name == name).unwrap().expected.clone().unwrap();
    let floats = |t: &TensorLiteral| t.values.iter().map(|v| v.as_float().unwrap()).collect::<Vec<_>>();
    let ints = |t: &TensorLiteral| t.values.iter().map(|v| v.as_integer().unwrap()).collect::<Vec<_>>();
    let t = ex("tensorrt.slice", "seed_basic");
    assert_eq!((t.dtype.as_str(), t.shape.as_slice()), ("f32", &[2, 2][..]));
    assert_eq!(floats(&t), [0.0, 1.0, 3.0, 4.0]);
    let t = ex("tensorrt.slice", "seed_fill");
    assert_eq!(floats(&t), [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
    let t = ex("tensorrt.fill", "seed_linspace");
    assert_eq!((t.dtype.as_str(), ints(&t)), ("i32", vec![0, 1, 2, 3, 4, 5]));
    let t = ex("onnx.slice", "onnx_example_1");
    assert_eq!((t.shape.as_slice(), floats(&t)), (&[1, 2][..], vec![5.0, 7.0]));
    let t = ex("onnx.slice", "onnx_example_2");
    assert_eq!((t.shape.as_slice(), floats(&t)), (&[1, 3][..], vec![2.0, 3.0, 4.0]));
    assert_eq!(ex("openvino.strided_slice", "seed_begin_end_mask").shape, [1, 3, 2]);
    assert_eq!(ex("openvino.strided_slice", "seed_new_axis").shape, [1, 2, 3, 4]);
    assert_eq!(ex("openvino.strided_slice", "reverse_end_mask").values.len(), 4);
}

// -------------------------------------------- the names the frontends rely on

fn attr_names(op: &OpSpec) -> Vec<(&str, AttrType)> {
    op.attributes.iter().map(|a| (a.name.as_str(), a.ty)).collect()
}

fn input_names(op: &OpSpec) -> Vec<&str> {
    op.inputs.iter().map(|i| i.name.as_str()).collect()
}

fn rule_ids(op: &OpSpec) -> Vec<&str> {
    op.rules.iter().map(|r| r.id.as_str()).collect()
}

const NUMERIC: [&str; 17] = [
    "bool", "i4", "u4", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f8e4m3fn", "f8e5m2", "f16", "bf16",
    "f32", "f64",
];

#[test]
fn tensorrt_slice_names() {
    let op = spec("tensorrt.slice");
    assert_eq!(op.vendor, "NVIDIA TensorRT");
    assert_eq!(op.versions, [1]);
    assert_eq!(op.type_set("T").unwrap(), ["bool", "i4", "i8", "i32", "i64", "f8e4m3fn", "f16", "f32", "bf16"]);
    assert_eq!(op.type_set("Tind").unwrap(), ["i32", "i64"]);
    assert_eq!(op.type_set("Tfill").unwrap(), NUMERIC);
    use AttrType::*;
    assert_eq!(
        attr_names(op),
        [("start", IntList), ("size", IntList), ("stride", IntList), ("axes", IntList), ("mode", String)]
    );
    assert!(op.attributes.iter().all(|a| !a.required));
    let mode = op.attribute("mode").unwrap();
    assert_eq!(mode.default.as_ref().and_then(|d| d.as_str()), Some("strict_bounds"));
    assert_eq!(mode.allowed.as_deref().unwrap(), ["strict_bounds", "wrap", "clamp", "fill", "reflect"]);
    assert_eq!(input_names(op), ["input", "start", "size", "stride", "fill", "axes"]);
    let fill = op.input("fill").unwrap();
    assert_eq!((fill.types.as_str(), fill.rank, fill.optional), ("Tfill", InputRank::Scalar, true));
    assert_eq!(fill.replaces, None);
    assert!(!op.input("input").unwrap().optional);
    for name in ["start", "size", "stride", "axes"] {
        let i = op.input(name).unwrap();
        assert_eq!((i.types.as_str(), i.rank, i.optional), ("Tind", InputRank::Vector, true));
        assert_eq!(i.replaces.as_deref(), Some(name));
    }
    assert_eq!(
        rule_ids(op),
        [
            "mode_dtype",
            "params_given",
            "param_lengths",
            "axes_unique",
            "axes_in_range",
            "size_non_negative",
            "strict_bounds_in_range",
            "empty_input_axis",
            "fill_only_in_fill_mode",
            "fill_value_representable",
        ]
    );
    let r = op.rule("mode_dtype").unwrap();
    assert_eq!((r.kind, r.subject.as_deref()), (RuleKind::Dtype, Some("input:input")));
    let when = r.when.as_ref().unwrap();
    assert_eq!(
        (when.attribute.as_str(), when.values.as_slice()),
        ("mode", &["clamp", "fill", "reflect"].map(str::to_string)[..])
    );
    assert_eq!(r.forbid.as_deref().unwrap(), ["i64", "bf16"]);
}

#[test]
fn tensorrt_fill_names() {
    let op = spec("tensorrt.fill");
    assert_eq!(op.versions, [1]);
    assert_eq!(op.type_set("Tind").unwrap(), ["i32", "i64"]);
    assert_eq!(op.type_set("Tnum").unwrap(), NUMERIC);
    use AttrType::*;
    assert_eq!(
        attr_names(op),
        [
            ("dimensions", IntList),
            ("operation", String),
            ("alpha", Float),
            ("beta", FloatOrList),
            ("to_type", Dtype),
            ("seed", U64),
        ]
    );
    assert!(op.attribute("operation").unwrap().required);
    let default = |n: &str| op.attribute(n).unwrap().default.clone().unwrap();
    assert_eq!(default("alpha").as_float(), Some(0.0));
    assert_eq!(default("beta").as_float(), Some(1.0));
    assert_eq!(default("to_type").as_str(), Some("f32"));
    assert_eq!(default("seed").as_integer(), Some(0));
    assert_eq!(op.attribute("to_type").unwrap().allowed.as_deref().unwrap(), ["i32", "i64", "f32", "f16"]);
    assert_eq!(input_names(op), ["dimensions", "alpha", "beta"]);
    let ranks: Vec<InputRank> = op.inputs.iter().map(|i| i.rank).collect();
    assert_eq!(ranks, [InputRank::Vector, InputRank::Scalar, InputRank::ScalarOrVector]);
    assert_eq!(
        rule_ids(op),
        [
            "linspace_types",
            "random_types",
            "dimensions_given",
            "volume_limit",
            "alpha_beta_together",
            "beta_length",
            "linspace_range",
            "uniform_range",
            "normal_std",
        ]
    );
    let r = op.rule("linspace_types").unwrap();
    assert_eq!(r.subject.as_deref(), Some("attribute:to_type"));
    assert_eq!(r.allow.as_deref().unwrap(), ["i32", "i64", "f32"]);
    assert_eq!(op.rule("random_types").unwrap().allow.as_deref().unwrap(), ["f16", "f32"]);
}

#[test]
fn onnx_slice_names() {
    let op = spec("onnx.slice");
    assert_eq!(op.vendor, "ONNX");
    assert_eq!(op.versions, [1, 10, 11, 13]);
    assert_eq!(op.latest_version(), 13);
    assert_eq!(op.type_set("T").unwrap().len(), 16);
    assert_eq!(op.type_set("Tind").unwrap(), ["i32", "i64"]);
    for a in &op.attributes {
        assert_eq!(a.versions.as_deref(), Some(&[1][..]), "{}", a.name);
    }
    use AttrType::*;
    assert_eq!(attr_names(op), [("starts", IntList), ("ends", IntList), ("axes", IntList)]);
    assert_eq!(input_names(op), ["data", "starts", "ends", "axes", "steps"]);
    let optional: Vec<bool> = op.inputs.iter().map(|i| i.optional).collect();
    assert_eq!(optional, [false, false, false, true, true]);
    assert!(in_version(&op.input("data").unwrap().versions, 1));
    for name in ["starts", "ends", "axes", "steps"] {
        let i = op.input(name).unwrap();
        assert_eq!(i.versions.as_deref(), Some(&[10, 11, 13][..]), "{name}");
        assert!(!in_version(&i.versions, 1));
    }
    assert_eq!(
        rule_ids(op),
        [
            "bf16_from_13",
            "starts_ends_given",
            "lengths_equal",
            "axes_unique",
            "axis_in_range",
            "negative_axes_from_11",
            "step_nonzero",
        ]
    );
    let r = op.rule("bf16_from_13").unwrap();
    assert_eq!(r.versions.as_deref(), Some(&[1, 10, 11][..]));
    assert_eq!(r.forbid.as_deref().unwrap(), ["bf16"]);
}

#[test]
fn openvino_strided_slice_names() {
    let op = spec("openvino.strided_slice");
    assert_eq!(op.vendor, "Intel OpenVINO");
    let t = op.type_set("T").unwrap();
    assert_eq!(t.len(), DType::ALL.len() - 1);
    assert!(!t.contains(&"string"));
    assert_eq!(op.type_set("Tind").unwrap().len(), 8);
    use AttrType::*;
    assert_eq!(
        attr_names(op),
        [
            ("begin", IntList),
            ("end", IntList),
            ("stride", IntList),
            ("begin_mask", Mask),
            ("end_mask", Mask),
            ("new_axis_mask", Mask),
            ("shrink_axis_mask", Mask),
            ("ellipsis_mask", Mask),
        ]
    );
    assert!(op.attribute("begin_mask").unwrap().required);
    assert!(op.attribute("end_mask").unwrap().required);
    for n in ["new_axis_mask", "shrink_axis_mask", "ellipsis_mask"] {
        let a = op.attribute(n).unwrap();
        assert_eq!(a.default, Some(TomlValue::Array(vec![])), "{n}");
    }
    assert_eq!(input_names(op), ["data", "begin", "end", "stride"]);
    assert_eq!(
        rule_ids(op),
        [
            "begin_end_given",
            "lengths_equal",
            "single_ellipsis",
            "stride_nonzero",
            "shrink_in_range",
            "entries_fit_rank",
            "mask_values"
        ]
    );
}

// ----------------------------------------------------------- malformed specs

const FILE: &str = "specs/test.op.toml";

/// A small valid spec that the malformed cases below each break in one place.
const BASE: &str = r#"id = "test.op"
vendor = "Test"
summary = "A test op"
versions = [1, 2]

[type_sets]
T = ["f32", "i32"]

[[attributes]]
name = "mode"
type = "string"
default = "a"
allowed = ["a", "b"]
doc = "d"

[[attributes]]
name = "to"
type = "dtype"
default = "f32"
doc = "d"

[[attributes]]
name = "start"
type = "int_list"
versions = [2]
doc = "d"

[[inputs]]
index = 0
name = "x"
types = "T"
rank = "any"
doc = "d"

[[inputs]]
index = 1
name = "start"
optional = true
types = "i64"
rank = "vector"
replaces = "start"
doc = "d"

[[rules]]
id = "r_dtype"
kind = "dtype"
subject = "input:x"
when = { attribute = "mode", in = ["b"] }
forbid = ["i32"]
doc = "d"

[[rules]]
id = "r_front"
kind = "frontend"
doc = "d"

[[examples]]
name = "ok"
doc = "d"
[examples.attributes]
mode = "a"
[examples.inputs]
x = { dtype = "f32", shape = [2], values = [1.0, 2.0] }
start = [0]
[examples.expected]
dtype = "f32"
shape = [1]
values = [1.0]

[[examples]]
name = "bad"
doc = "d"
error = "r_front"
"#;

/// BASE with `old` (which must occur exactly once) replaced by `new`.
fn mutate(old: &str, new: &str) -> String {
    assert_eq!(BASE.matches(old).count(), 1, "`{old}` must occur once in BASE");
    BASE.replacen(old, new, 1)
}

/// Parse `text`, expect a refusal, and check that it names the file and the field.
#[track_caller]
fn rejected(text: &str, field: &str, message: &str) -> SpecError {
    let e = match OpSpec::parse(FILE, text) {
        Ok(_) => panic!("accepted a spec that should be refused ({field}: {message})"),
        Err(e) => e,
    };
    assert_eq!(e.file, FILE);
    assert!(e.field.contains(field), "field `{}` does not contain `{field}` ({e})", e.field);
    assert!(e.message.contains(message), "message `{}` does not contain `{message}`", e.message);
    let shown = e.to_string();
    assert!(shown.contains(FILE) && shown.contains(&e.field), "{shown}");
    e
}

#[test]
fn base_spec_is_valid() {
    let spec = OpSpec::parse(FILE, BASE).unwrap();
    assert_eq!(spec.id, "test.op");
    assert_eq!(spec.latest_version(), 2);
    assert_eq!(spec.type_set("T").unwrap(), ["f32", "i32"]);
    assert_eq!(spec.type_set("i64").unwrap(), ["i64"]);
    assert_eq!(spec.type_set("nothing"), None);
    assert!(spec.rule("r_front").is_some());
}

#[test]
fn unknown_dtype_in_type_set() {
    rejected(&mutate(r#"T = ["f32", "i32"]"#, r#"T = ["f32", "float32"]"#), "type_sets.T", "unknown dtype `float32`");
    rejected(&mutate(r#"T = ["f32", "i32"]"#, "T = []"), "type_sets.T", "empty");
}

#[test]
fn duplicated_attribute() {
    rejected(&mutate(r#"name = "to""#, r#"name = "mode""#), "attributes[1] (mode)", "declared twice");
}

#[test]
fn dtype_rule_without_subject() {
    rejected(&mutate("subject = \"input:x\"\n", ""), "rules[0] (r_dtype)", "needs a subject");
}

#[test]
fn example_with_both_expected_and_error() {
    let text = format!("{BASE}expected = {{ dtype = \"f32\", shape = [0], values = [] }}\n");
    rejected(&text, "examples[1] (bad)", "exactly one of expected, expected_outputs and error");
}

#[test]
fn example_with_neither_expected_nor_error() {
    rejected(
        &mutate("error = \"r_front\"\n", ""),
        "examples[1] (bad)",
        "exactly one of expected, expected_outputs and error",
    );
}

#[test]
fn unknown_fields() {
    // Top level: the field is the line, the message names the key.
    let e = rejected(&mutate("vendor = \"Test\"\n", "vendor = \"Test\"\ncolour = \"red\"\n"), "line 3", "colour");
    assert_eq!(e.field, "line 3");
    rejected(&mutate("default = \"a\"\n", "defualt = \"a\"\n"), "line 12", "unknown field `defualt`");
    rejected(&mutate("error = \"r_front\"\n", "error = \"r_front\"\nexpect = 1\n"), "line", "expect");
    rejected(&mutate("shape = [2], values", "shape = [2], valuez"), "examples[0] (ok).inputs.x", "valuez");
}

#[test]
fn parse_errors_name_the_right_line() {
    // A syntax error at the start of line 4 (the old line count said 3).
    let text = "id = \"a.b\"\nvendor = \"v\"\nsummary = \"s\"\n= 1\n";
    assert_eq!(rejected(text, "line", "").field, "line 4");
    assert_eq!(line_of("a\nb\n", 0), 1);
    assert_eq!(line_of("a\nb\n", 2), 2);
    assert_eq!(line_of("a\nb\n", 4), 3);
    assert_eq!(line_of("a", 99), 1);
}

#[test]
fn unknown_enum_values() {
    rejected(&mutate(r#"type = "string""#, r#"type = "str""#), "line 11", "unknown variant `str`");
    rejected(&mutate(r#"rank = "any""#, r#"rank = "matrix""#), "line", "matrix");
    rejected(&mutate(r#"kind = "frontend""#, r#"kind = "backend""#), "line", "backend");
}

#[test]
fn malformed_header() {
    rejected(&mutate(r#"id = "test.op""#, r#"id = "testop""#), "id", "vendor.op");
    rejected(&mutate("versions = [1, 2]", "versions = []"), "versions", "at least one");
    rejected(&mutate("versions = [1, 2]", "versions = [1, 1]"), "versions", "twice");
    rejected(&mutate("vendor = \"Test\"\n", ""), "line", "missing field `vendor`");
}

#[test]
fn malformed_attributes() {
    rejected(&mutate("default = \"a\"\n", "default = \"a\"\nrequired = true\n"), "attributes[0] (mode)", "required");
    rejected(&mutate(r#"default = "a""#, r#"default = "z""#), "attributes[0] (mode)", "not an allowed value");
    rejected(&mutate(r#"default = "a""#, "default = 3"), "attributes[0] (mode)", "not of type string");
    rejected(&mutate(r#"default = "f32""#, r#"default = "f33""#), "attributes[1] (to)", "not a dtype");
    rejected(
        &mutate(r#"default = "f32""#, "default = \"f32\"\nallowed = [\"f32\", \"fp32\"]"),
        "attributes[1] (to)",
        "unknown dtype `fp32`",
    );
    rejected(&mutate("versions = [2]", "versions = [3]"), "attributes[2] (start)", "version 3");
    rejected(&mutate("versions = [2]", "versions = []"), "attributes[2] (start)", "empty");
    rejected(
        &mutate("versions = [2]\n", "versions = [2]\nallowed = [\"x\"]\n"),
        "attributes[2] (start)",
        "allowed applies only",
    );
}

#[test]
fn malformed_inputs() {
    rejected(&mutate(r#"types = "T""#, r#"types = "U""#), "inputs[0] (x)", "neither a type set nor a dtype");
    rejected(
        &mutate(r#"replaces = "start""#, r#"replaces = "begin""#),
        "inputs[1] (start)",
        "unknown attribute `begin`",
    );
    rejected(&mutate("name = \"start\"\noptional", "name = \"x\"\noptional"), "inputs[1] (x)", "declared twice");
    rejected(&mutate("index = 1", "index = 0"), "inputs[1] (start)", "index 0 used twice");
    rejected(&mutate("rank = \"vector\"\n", "rank = \"vector\"\nversions = [7]\n"), "inputs[1] (start)", "version 7");
}

#[test]
fn malformed_rules() {
    let r0 = "rules[0] (r_dtype)";
    rejected(&mutate(r#"subject = "input:x""#, r#"subject = "input:y""#), r0, "names no input");
    rejected(
        &mutate(r#"subject = "input:x""#, r#"subject = "attribute:mode""#),
        r0,
        "names no input or dtype attribute",
    );
    rejected(&mutate(r#"subject = "input:x""#, r#"subject = "x""#), r0, "names no input");
    rejected(
        &mutate(r#"forbid = ["i32"]"#, "forbid = [\"i32\"]\nallow = [\"f32\"]"),
        r0,
        "exactly one of allow and forbid",
    );
    rejected(&mutate("forbid = [\"i32\"]\n", ""), r0, "exactly one of allow and forbid");
    rejected(&mutate(r#"forbid = ["i32"]"#, r#"forbid = ["int32"]"#), r0, "unknown dtype `int32`");
    rejected(&mutate(r#"attribute = "mode""#, r#"attribute = "mood""#), r0, "unknown attribute `mood`");
    rejected(&mutate(r#"in = ["b"]"#, r#"in = ["c"]"#), r0, "`c` is not an allowed value");
    rejected(&mutate(r#"attribute = "mode""#, r#"attribute = "start""#), r0, "not a string");
    let r1 = "rules[1] (r_front)";
    rejected(&mutate("kind = \"frontend\"\n", "kind = \"frontend\"\nallow = [\"f32\"]\n"), r1, "only to dtype rules");
    rejected(&mutate("kind = \"frontend\"\n", "kind = \"frontend\"\nversions = [3]\n"), r1, "version 3");
    rejected(&mutate(r#"id = "r_front""#, r#"id = "r_dtype""#), "rules[1] (r_dtype)", "used twice");
}

#[test]
fn malformed_examples() {
    rejected(&mutate(r#"name = "bad""#, r#"name = "ok""#), "examples[1] (ok)", "used twice");
    rejected(&format!("{BASE}version = 3\n"), "examples[1] (bad)", "version 3");
    rejected(&mutate(r#"mode = "a""#, r#"mood = "a""#), "examples[0] (ok).attributes.mood", "no attribute `mood`");
    rejected(&mutate(r#"mode = "a""#, "mode = 3"), "examples[0] (ok).attributes.mode", "not of type string");
    rejected(&mutate("start = [0]", "begin = [0]"), "examples[0] (ok).inputs.begin", "no input `begin`");
    rejected(&mutate("start = [0]", "start = [0.5]"), "examples[0] (ok).inputs.start", "a number, a list of integers");
    rejected(&mutate("start = [0]", "start = \"0\""), "examples[0] (ok).inputs.start", "a number, a list of integers");
    // The attribute `start` exists only in version 2.
    rejected(
        &mutate("doc = \"d\"\n[examples.attributes]", "doc = \"d\"\nversion = 1\n[examples.attributes]\nstart = [0]"),
        "examples[0] (ok).attributes.start",
        "no attribute `start` in version 1",
    );
    // An example that must fail may use what its version lacks, or a wrong type.
    let text =
        format!("{BASE}version = 1\n[examples.attributes]\nstart = [0]\nmode = 3\n[examples.inputs]\nsteps = [1]\n");
    assert!(OpSpec::parse(FILE, &text).is_ok());
    // But its inputs still have one of the forms an example input has.
    rejected(&format!("{BASE}[examples.inputs]\nx = true\n"), "examples[1] (bad).inputs.x", "a number");
    // The usual TOML slip: `error` written after the inputs header lands in that table.
    let text = mutate("error = \"r_front\"\n", "[examples.inputs]\nx = 1.0\nerror = \"r_front\"\n");
    let e = OpSpec::parse(FILE, &text).unwrap_err();
    assert!(e.field.contains("examples[1] (bad)"), "{e}");
    assert!(
        e.message.contains("exactly one of expected, expected_outputs and error")
            || e.message.contains("write `error` before it"),
        "{e}"
    );
    let text = mutate(
        "error = \"r_front\"\n",
        "expected = { dtype = \"f32\", shape = [], values = [0.0] }\n[examples.inputs]\nx = 1.0\nerror = \"r_front\"\n",
    );
    rejected(&text, "examples[1] (bad).inputs.error", "write `error` before it");
}

#[test]
fn malformed_tensor_literals() {
    rejected(
        &mutate("values = [1.0]\n", "values = [1.0, 2.0]\n"),
        "examples[0] (ok).expected",
        "holds 1 elements, but 2 values are given",
    );
    rejected(
        &mutate("dtype = \"f32\"\nshape = [1]", "dtype = \"float\"\nshape = [1]"),
        "examples[0] (ok).expected",
        "unknown dtype `float`",
    );
    rejected(
        &mutate(
            "x = { dtype = \"f32\", shape = [2], values = [1.0, 2.0] }",
            "x = { dtype = \"i32\", shape = [2], values = [1, 2.5] }",
        ),
        "examples[0] (ok).inputs.x",
        "value 1 (2.5): not a i32: it is not a whole number",
    );
    rejected(
        &mutate(
            "x = { dtype = \"f32\", shape = [2], values = [1.0, 2.0] }",
            "x = { dtype = \"i32\", shape = [2], values = [1, 2147483648] }",
        ),
        "examples[0] (ok).inputs.x",
        "value 1 (2147483648): not a i32: it is outside the type's range",
    );
    rejected(
        &mutate(
            "x = { dtype = \"f32\", shape = [2], values = [1.0, 2.0] }",
            "x = { dtype = \"f32\", shape = [2], values = [1.0, \"2\"] }",
        ),
        "examples[0] (ok).inputs.x",
        "value 1 (\"2\"): f32 takes numbers, found the string \"2\"",
    );
    rejected(
        &mutate(
            "x = { dtype = \"f32\", shape = [2], values = [1.0, 2.0] }",
            "x = { dtype = \"f32\", values = [1.0, 2.0] }",
        ),
        "examples[0] (ok).inputs.x",
        "shape",
    );
}

#[test]
fn tensor_literal_value_kinds() {
    let lit = |dtype: &str, shape: &[u64], values: &str| TensorLiteral {
        dtype: dtype.into(),
        shape: shape.to_vec(),
        values: toml::from_str::<TomlTable>(&format!("v = {values}")).unwrap()["v"].as_array().unwrap().clone(),
    };
    assert_eq!(lit("bool", &[3], "[true, false, 1]").check(), Ok(()));
    assert!(lit("bool", &[1], "[2]").check().is_err());
    assert_eq!(lit("string", &[2], r#"["a", "b"]"#).check(), Ok(()));
    assert!(lit("string", &[1], "[1]").check().is_err());
    assert_eq!(lit("i4", &[2], "[-8, 7]").check(), Ok(()));
    assert!(lit("i4", &[1], "[8]").check().is_err());
    // The one rule (`literal`): whole floats are integers; booleans are bools only.
    assert_eq!(lit("i32", &[2], "[3.0, -1]").check(), Ok(()));
    assert!(lit("i32", &[1], "[true]").check().is_err());
    assert_eq!(lit("f32", &[2, 1], "[[1], [2.5]]").check(), Ok(()));
    assert!(lit("u8", &[1], "[-1]").check().is_err());
    assert_eq!(lit("c64", &[2], "[1.0, [0.0, -1.0]]").check(), Ok(()));
    assert!(lit("c64", &[1], "[[1.0, 2.0, 3.0]]").check().is_err());
    assert_eq!(lit("c64", &[1], "[[1.0]]").check(), Ok(()), "nested lists are flattened");
    assert_eq!(lit("f16", &[2, 0], "[]").check(), Ok(()));
    assert_eq!(lit("f64", &[], "[nan]").check(), Ok(()));
    assert!(lit("f32", &[u64::MAX, 2], "[]").check().unwrap_err().contains("more than 2^64"));
}

#[test]
fn attribute_value_types() {
    let v = |s: &str| toml::from_str::<TomlTable>(&format!("v = {s}")).unwrap()["v"].clone();
    use AttrType::*;
    assert!(value_has_type(Int, &v("-3")));
    assert!(!value_has_type(Int, &v("3.0")));
    assert!(value_has_type(U64, &v("0")));
    assert!(!value_has_type(U64, &v("-1")));
    assert!(value_has_type(Float, &v("3")));
    assert!(value_has_type(Dtype, &v("\"f32\"")));
    assert!(value_has_type(IntList, &v("[]")));
    assert!(!value_has_type(IntList, &v("[1.5]")));
    assert!(value_has_type(Mask, &v("[0, 1]")));
    assert!(value_has_type(Bool, &v("true")));
    assert!(!value_has_type(Bool, &v("1")));
    assert!(!value_has_type(Int, &v("false")));
    assert!(!value_has_type(Mask, &v("[2]")));
    assert!(value_has_type(FloatList, &v("[1, 2.5]")));
    assert!(value_has_type(FloatOrList, &v("1.0")));
    assert!(value_has_type(FloatOrList, &v("[1.0, 2]")));
    assert!(!value_has_type(FloatOrList, &v("\"x\"")));
}

#[test]
fn helpers() {
    assert_eq!(first_duplicate([1, 2, 3].iter()), None);
    assert_eq!(first_duplicate([1, 2, 1].iter()), Some(&1));
    assert!(in_version(&None, 7));
    assert!(in_version(&Some(vec![1, 10]), 10));
    assert!(!in_version(&Some(vec![1, 10]), 11));
    assert_eq!(unknown_example_key("input", "x", 1), "no input `x` in version 1");
    assert!(unknown_example_key("input", "error", 1).contains("write `error` before it"));
    assert_eq!(unknown_example_key("attribute", "seed", 2), "no attribute `seed` in version 2");
}
