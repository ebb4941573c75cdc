//! The importer on models built here as protobuf bytes: the shape path folded as onnx's
//! reference evaluates it, refusals naming the node, tensors checked before they are
//! built, and external data only from inside the base directory.

use kerfx_ir::DType;
use kerfx_ir::tensor::Tensor;
use kerfx_onnx::proto::*;
use kerfx_onnx::{OnnxError, Options, import_bytes, shape};
use prost::Message;
use std::collections::BTreeMap;

fn ints_tensor(name: &str, v: &[i64]) -> TensorProto {
    TensorProto {
        dims: vec![v.len() as i64],
        data_type: Some(7),
        int64_data: v.to_vec(),
        name: Some(name.into()),
        ..Default::default()
    }
}

fn node(op: &str, inputs: &[&str], outputs: &[&str], attrs: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        name: Some(format!("{op}_0")),
        op_type: Some(op.into()),
        attribute: attrs,
        domain: None,
    }
}

fn int_attr(name: &str, v: i64) -> AttributeProto {
    AttributeProto { name: Some(name.into()), i: Some(v), r#type: Some(attribute_type::INT), ..Default::default() }
}

fn value(name: &str, elem: i32, dims: &[i64]) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            tensor_type: Some(TypeTensor {
                elem_type: Some(elem),
                shape: Some(TensorShapeProto {
                    dim: dims.iter().map(|&d| Dimension { dim_value: Some(d), dim_param: None }).collect(),
                }),
            }),
        }),
    }
}

fn model(nodes: Vec<NodeProto>, init: Vec<TensorProto>, inputs: Vec<ValueInfoProto>, outputs: &[&str]) -> Vec<u8> {
    ModelProto {
        ir_version: Some(8),
        graph: Some(GraphProto {
            node: nodes,
            name: Some("g".into()),
            initializer: init,
            input: inputs,
            output: outputs.iter().map(|o| value(o, 1, &[])).collect(),
            sparse_initializer: vec![],
        }),
        opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(18) }],
    }
    .encode_to_vec()
}

fn f32_input(shape: &[u64]) -> BTreeMap<String, (DType, Vec<u64>)> {
    BTreeMap::from([("x".to_string(), (DType::F32, shape.to_vec()))])
}

fn i64s(t: &Tensor) -> Vec<i64> {
    (0..t.len()).map(|i| t.element_i128(i).unwrap() as i64).collect()
}

/// Reshape x[2,3,5] to [Shape(x)[0], -1] computed the exporters' way: Shape, Gather,
/// Unsqueeze, Concat: the path folds, one node remains with a constant shape.
#[test]
fn a_shape_path_folds_into_the_node_s_constant_input() {
    let nodes = vec![
        node("Shape", &["x"], &["s"], vec![]),
        node("Gather", &["s", "zero"], &["d0"], vec![int_attr("axis", 0)]),
        node("Unsqueeze", &["d0", "axes"], &["d0v"], vec![]),
        node("Concat", &["d0v", "minus1"], &["target"], vec![int_attr("axis", 0)]),
        node("Reshape", &["x", "target"], &["y"], vec![]),
    ];
    let zero = TensorProto {
        dims: vec![],
        data_type: Some(7),
        int64_data: vec![0],
        name: Some("zero".into()),
        ..Default::default()
    };
    let init = vec![zero, ints_tensor("axes", &[0]), ints_tensor("minus1", &[-1])];
    let bytes = model(nodes, init, vec![value("x", 1, &[2, 3, 5])], &["y"]);
    let g = import_bytes(&bytes, &f32_input(&[2, 3, 5]), &Options::default()).unwrap();
    assert_eq!(g.nodes.len(), 1);
    let reshape = &g.nodes[0];
    assert_eq!(reshape.request.op, "onnx.reshape");
    assert_eq!(reshape.request.version, Some(14), "opset 18 selects Reshape-14");
    assert_eq!(reshape.inputs, [("data".to_string(), "x".to_string())]);
    let target = reshape.request.inputs["shape"].tensor().unwrap();
    assert_eq!(i64s(target), [2, -1]);
}

fn host(op: &str, attrs: &[AttributeProto], values: &[&Tensor]) -> Result<Tensor, String> {
    let attrs: Vec<(&str, &AttributeProto)> = attrs.iter().map(|a| (a.name.as_deref().unwrap(), a)).collect();
    let values: Vec<Option<&Tensor>> = values.iter().map(|t| Some(*t)).collect();
    let metas: Vec<Option<(DType, Vec<u64>)>> =
        values.iter().map(|t| t.map(|t| (t.dtype(), t.shape().to_vec()))).collect();
    shape::evaluate(op, &attrs, &values, &metas, &Options::default())
}

#[test]
fn host_arithmetic_is_the_reference_evaluator_s() {
    let a = Tensor::from_i64s(&[7, -7, 7, -7, 6]);
    let b = Tensor::from_i64s(&[2, 2, -2, -2, 3]);
    // Integer Div truncates toward zero (onnx 1.23's integer path), not floor.
    assert_eq!(i64s(&host("Div", &[], &[&a, &b]).unwrap()), [3, -3, -3, 3, 2]);
    assert_eq!(i64s(&host("Sub", &[], &[&a, &b]).unwrap()), [5, -9, 9, -5, 3]);
    // Broadcasting a scalar.
    let two = Tensor::from_i64s(&[2]).reshaped(&[]).unwrap();
    assert_eq!(i64s(&host("Mul", &[], &[&a, &two]).unwrap()), [14, -14, 14, -14, 12]);
    let e = host("Div", &[], &[&a, &Tensor::from_i64s(&[0])]).unwrap_err();
    assert!(e.contains("division of 7 by zero"), "{e}");
    // Shape with start and end (negative from the back).
    let x = Tensor::zeros(DType::F32, &[2, 3, 5, 7]).unwrap();
    let s = host("Shape", &[int_attr("start", 1), int_attr("end", -1)], &[&x]).unwrap();
    assert_eq!(i64s(&s), [3, 5]);
    // Range's count is ceil((limit - start) / delta), at least 0.
    let (st, li, de) = (Tensor::from_i64s(&[10]), Tensor::from_i64s(&[1]), Tensor::from_i64s(&[-4]));
    let r = host("Range", &[], &[&st.reshaped(&[]).unwrap(), &li.reshaped(&[]).unwrap(), &de.reshaped(&[]).unwrap()]);
    assert_eq!(i64s(&r.unwrap()), [10, 6, 2]);
    // Cast to float, Div, Ceil, Cast back: the pads of the encodec exports.
    let f = host("Cast", &[int_attr("to", 1)], &[&Tensor::from_i64s(&[7, -7])]).unwrap();
    let half = host("Cast", &[int_attr("to", 1)], &[&Tensor::from_i64s(&[2])]).unwrap();
    let q = host("Ceil", &[], &[&host("Div", &[], &[&f, &half]).unwrap()]).unwrap();
    assert_eq!(i64s(&host("Cast", &[int_attr("to", 7)], &[&q]).unwrap()), [4, -3]);
    // Equal and Where.
    let eq = host("Equal", &[], &[&a, &Tensor::from_i64s(&[7])]).unwrap();
    assert_eq!(eq.dtype(), DType::Bool);
    let w = host("Where", &[], &[&eq, &Tensor::from_i64s(&[1]), &b]).unwrap();
    assert_eq!(i64s(&w), [1, 2, 1, -2, 3]);
    // ConstantOfShape's default is f32 0.
    let c = host("ConstantOfShape", &[], &[&Tensor::from_i64s(&[2, 2])]).unwrap();
    assert_eq!((c.dtype(), c.shape()), (DType::F32, &[2u64, 2][..]));
    let big = host("ConstantOfShape", &[], &[&Tensor::from_i64s(&[1 << 20, 1 << 20])]).unwrap_err();
    assert!(big.contains("more than"), "{big}");
}

#[test]
fn nodes_kerf_does_not_run_are_refused_naming_node_op_and_version() {
    // An Add of activations (known only when the graph runs): shape path only.
    let nodes = vec![node("Add", &["x", "x"], &["y"], vec![])];
    let bytes = model(nodes, vec![], vec![value("x", 1, &[2])], &["y"]);
    match import_bytes(&bytes, &f32_input(&[2]), &Options::default()) {
        Err(e @ OnnxError::UnsupportedNode { .. }) => {
            let m = e.to_string();
            assert!(m.starts_with("node 0 (Add `Add_0`): Add-18 is not an op kerf runs"), "{m}");
            assert!(m.contains("known only when the graph runs"), "{m}");
        }
        other => panic!("{other:?}"),
    }
    let nodes = vec![node("Relu", &["x"], &["y"], vec![])];
    let bytes = model(nodes, vec![], vec![value("x", 1, &[2])], &["y"]);
    let e = import_bytes(&bytes, &f32_input(&[2]), &Options::default()).unwrap_err().to_string();
    assert!(e.contains("Relu-18 is not an op kerf runs: kerf has no op onnx.relu"), "{e}");
    let mut other_domain = node("Transpose", &["x"], &["y"], vec![]);
    other_domain.domain = Some("com.microsoft".into());
    let bytes = model(vec![other_domain], vec![], vec![value("x", 1, &[2])], &["y"]);
    let e = import_bytes(&bytes, &f32_input(&[2]), &Options::default()).unwrap_err().to_string();
    assert!(e.contains("domain `com.microsoft`"), "{e}");
}

/// A Concat of activations is kerf's onnx.concat, each entry wired (a known one as a
/// graph constant); a Split writes as many outputs as the node names.
#[test]
fn concat_and_split_of_activations_are_wired() {
    let init = TensorProto {
        dims: vec![1],
        data_type: Some(1),
        float_data: vec![7.0],
        name: Some("c".into()),
        ..Default::default()
    };
    let nodes = vec![
        node("Concat", &["x", "c", "x"], &["y"], vec![int_attr("axis", 0)]),
        node("Split", &["y"], &["a", "b", "d"], vec![int_attr("axis", 0), int_attr("num_outputs", 3)]),
    ];
    let bytes = model(nodes, vec![init], vec![value("x", 1, &[2])], &["a", "b", "d"]);
    let g = import_bytes(&bytes, &f32_input(&[2]), &Options::default()).unwrap();
    assert_eq!(g.nodes.len(), 2);
    let wired: Vec<(&str, &str)> = g.nodes[0].inputs.iter().map(|(i, v)| (i.as_str(), v.as_str())).collect();
    assert_eq!(wired, [("inputs", "x"), ("inputs", "c"), ("inputs", "x")]);
    assert!(g.constants.contains_key("c"), "the known entry is a graph constant");
    assert_eq!(g.nodes[1].outputs, ["a", "b", "d"]);
    assert_eq!(g.nodes[1].request.outputs, Some(3));
}

/// A graph input with an initializer is a default: left out, the initializer is a
/// constant; given, the caller's tensor replaces it (ONNX's rule).
#[test]
fn an_input_with_an_initializer_is_a_default_the_caller_may_replace() {
    let init = TensorProto {
        dims: vec![2],
        data_type: Some(1),
        float_data: vec![7.0, 8.0],
        name: Some("w".into()),
        ..Default::default()
    };
    let nodes = vec![node("Concat", &["x", "w"], &["y"], vec![int_attr("axis", 0)])];
    let bytes = model(nodes, vec![init], vec![value("x", 1, &[2]), value("w", 1, &[2])], &["y"]);
    let g = import_bytes(&bytes, &f32_input(&[2]), &Options::default()).unwrap();
    assert_eq!(g.inputs.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(), ["x"]);
    assert!(g.constants.contains_key("w"), "the initializer is the default");
    let mut both = f32_input(&[2]);
    both.insert("w".into(), (DType::F32, vec![2]));
    let g = import_bytes(&bytes, &both, &Options::default()).unwrap();
    assert_eq!(g.inputs.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(), ["x", "w"]);
    assert!(!g.constants.contains_key("w"), "the caller's tensor replaces it");
    both.insert("w".into(), (DType::F32, vec![3]));
    let e = import_bytes(&bytes, &both, &Options::default()).unwrap_err().to_string();
    assert!(e.contains("input `w` is declared of shape [2]"), "{e}");
}

#[test]
fn inputs_are_checked_against_the_declaration() {
    let nodes = vec![node("Transpose", &["x"], &["y"], vec![])];
    let bytes = model(nodes, vec![], vec![value("x", 1, &[2, 3])], &["y"]);
    let e = import_bytes(&bytes, &f32_input(&[3, 2]), &Options::default()).unwrap_err().to_string();
    assert_eq!(e, "input `x` is declared of shape [2, 3], given f32[3, 2]");
    let f64s = BTreeMap::from([("x".to_string(), (DType::F64, vec![2, 3]))]);
    let e = import_bytes(&bytes, &f64s, &Options::default()).unwrap_err().to_string();
    assert_eq!(e, "input `x` is declared f32, given f64[2, 3]");
    let e = import_bytes(&bytes, &BTreeMap::new(), &Options::default()).unwrap_err().to_string();
    assert_eq!(e, "graph input `x` is not given");
    let e = import_bytes(b"\xff\xff\xff", &BTreeMap::new(), &Options::default()).unwrap_err().to_string();
    assert!(e.starts_with("not an ONNX model"), "{e}");
}

#[test]
fn a_tensor_s_dims_are_checked_against_its_data_before_it_is_built() {
    let huge = TensorProto {
        dims: vec![1 << 40, 1 << 20],
        data_type: Some(1),
        raw_data: Some(vec![0; 8]),
        name: Some("w".into()),
        ..Default::default()
    };
    let e = kerfx_onnx::tensor_of(&huge, &Options::default()).unwrap_err().to_string();
    assert!(e.starts_with("tensor `w`:"), "{e}");
    let short = TensorProto {
        dims: vec![3],
        data_type: Some(1),
        raw_data: Some(vec![0; 8]),
        name: Some("w".into()),
        ..Default::default()
    };
    let e = kerfx_onnx::tensor_of(&short, &Options::default()).unwrap_err().to_string();
    assert_eq!(e, "tensor `w`: raw_data holds 8 bytes, f32[3] takes 12");
    let few = TensorProto { dims: vec![3], data_type: Some(7), int64_data: vec![1, 2], ..Default::default() };
    let e = kerfx_onnx::tensor_of(&few, &Options::default()).unwrap_err().to_string();
    assert!(e.contains("2 int64_data values for 3 elements"), "{e}");
}

fn external(location: &str, length: Option<u64>) -> TensorProto {
    let mut entries = vec![StringStringEntryProto { key: Some("location".into()), value: Some(location.into()) }];
    if let Some(l) = length {
        entries.push(StringStringEntryProto { key: Some("length".into()), value: Some(l.to_string()) });
    }
    TensorProto {
        dims: vec![2],
        data_type: Some(7),
        name: Some("w".into()),
        external_data: entries,
        data_location: Some(1),
        ..Default::default()
    }
}

#[test]
fn external_data_is_read_only_from_inside_the_base_directory() {
    let dir = tempfile::tempdir().unwrap();
    let bytes: Vec<u8> = [5i64, -6].iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.path().join("w.bin"), &bytes).unwrap();
    let inside = Options { base_dir: Some(dir.path()) };
    let t = kerfx_onnx::tensor_of(&external("w.bin", None), &inside).unwrap();
    assert_eq!(i64s(&t), [5, -6]);
    let e = kerfx_onnx::tensor_of(&external("w.bin", None), &Options::default()).unwrap_err().to_string();
    assert!(e.contains("kerf reads external data only from a directory the caller names"), "{e}");
    let e = kerfx_onnx::tensor_of(&external("../w.bin", None), &inside).unwrap_err().to_string();
    assert!(e.contains("may not contain `..`"), "{e}");
    let e = kerfx_onnx::tensor_of(&external("/etc/passwd", None), &inside).unwrap_err().to_string();
    assert!(e.contains("must be a relative path"), "{e}");
    let e = kerfx_onnx::tensor_of(&external("w.bin", Some(64)), &inside).unwrap_err().to_string();
    assert!(e.contains("reach past its end"), "{e}");
    #[cfg(unix)]
    {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), &bytes).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("link")).unwrap();
        let e = kerfx_onnx::tensor_of(&external("link", None), &inside).unwrap_err().to_string();
        assert!(e.contains("a symbolic link leads out of"), "{e}");
    }
}
