//! Graphs (`kerf::graph`): the cut into kernels, runs on every backend against the nodes
//! run one by one, the wiring errors, random chains as graphs, and `.npz` files.

use kerf::graph::{self, Backend, Group};
use kerf::{DType, InputArg, Jit, Request, Tensor};
use kerf_ir::graph::{Graph, GraphError, GraphInput, Node};
use kerf_testkit::random::{Rng, random_chain};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(rel)
}

fn same(a: &Tensor, b: &Tensor) -> bool {
    a.dtype() == b.dtype() && a.shape() == b.shape() && a.bytes() == b.bytes() && a.strings() == b.strings()
}

/// Run on every backend; each must equal the nodes one by one on the reference, byte for byte.
fn check_all_backends(g: &Graph, inputs: &BTreeMap<String, Tensor>, what: &str) -> Vec<(String, Tensor)> {
    let oracle = graph::run_unfused_reference(g, inputs).unwrap_or_else(|e| panic!("{what}: {e}"));
    let jit = Jit::default();
    for (which, backend) in [
        ("reference", Backend::Reference),
        ("jit static", Backend::Jit { jit: &jit, dynamic: false }),
        ("jit dynamic", Backend::Jit { jit: &jit, dynamic: true }),
    ] {
        let got = graph::run(g, inputs, backend).unwrap_or_else(|e| panic!("{what} on {which}: {e}"));
        assert_eq!(got.len(), oracle.len());
        for ((n, t), (m, o)) in got.iter().zip(&oracle) {
            assert_eq!(n, m);
            assert!(same(t, o), "{what} on {which}: `{n}` differs from the nodes run one by one");
        }
    }
    oracle
}

/// x → Transpose → Reshape (b) → Slice (c), b → Transpose (f), x → Unsqueeze (d): b has two
/// readers, so the chain stops there; x's two readers each start a kernel.
#[test]
fn a_value_with_two_readers_ends_a_fused_run() {
    let model = std::fs::read(data("graph/fanout.onnx")).unwrap();
    let x = kerf::npy::read(&data("graph/fanout_x.npy")).unwrap();
    let inputs = BTreeMap::from([("x".to_string(), x)]);
    let g = graph::import_onnx(&model, &inputs, None).unwrap();
    let names: Vec<&str> = g.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["t0", "r0", "s0", "t1", "u0"]);
    let mut groups = graph::cut(&g).unwrap();
    groups.sort_by_key(|g| g.nodes.clone());
    let expect = [vec![0, 1], vec![2], vec![3], vec![4]];
    assert_eq!(groups, expect.map(|nodes| Group { nodes }));
    let got = check_all_backends(&g, &inputs, "fanout");
    let expected = kerf::npz::read(&data("graph/fanout_expected.npz")).unwrap();
    let expected: BTreeMap<String, Tensor> = expected.into_iter().collect();
    let order: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(order, ["c", "f", "d"]);
    for (n, t) in &got {
        assert!(same(t, &expected[n]), "`{n}` differs from onnx's reference evaluator");
    }
}

/// A random chain as a graph: the first step's data input is the graph input `v0`, step i
/// reads `v{i}` and writes `v{i+1}`.
fn chain_graph(rng: &mut Rng, steps: &[Request]) -> (Graph, BTreeMap<String, Tensor>) {
    let mut g = Graph::default();
    let mut inputs = BTreeMap::new();
    for (i, step) in steps.iter().enumerate() {
        let mut request = step.clone();
        let mut wired = Vec::new();
        let data_name = kerf::data_input_name(kerf::op_spec(&step.op).unwrap());
        if let Some(name) = data_name {
            if i == 0 {
                let t = match request.inputs.remove(name) {
                    Some(InputArg::Tensor(t)) => t,
                    Some(InputArg::Meta { dtype, shape }) => random_tensor(rng, dtype, &shape),
                    Some(InputArg::List(_)) => panic!("random chains hold no variadic step"),
                    None => panic!("the first step names its data input"),
                };
                g.inputs.push(GraphInput { name: "v0".into(), dtype: t.dtype(), shape: t.shape().to_vec() });
                inputs.insert("v0".to_string(), t);
            }
            wired.push((name.to_string(), format!("v{i}")));
        }
        g.nodes.push(Node { name: format!("step{i}"), request, inputs: wired, outputs: vec![format!("v{}", i + 1)] });
    }
    g.outputs.push(format!("v{}", steps.len()));
    (g, inputs)
}

/// Random values of a dtype and shape (bools 0 or 1, strings of a few letters).
fn random_tensor(rng: &mut Rng, dtype: DType, shape: &[u64]) -> Tensor {
    let n = kerf::volume(shape).expect("a small shape");
    if dtype == DType::String {
        let values: Vec<String> = (0..n).map(|i| format!("s{}", i * rng.below(7))).collect();
        return Tensor::from_strings(shape, values).expect("strings");
    }
    let mut bytes = vec![0u8; dtype.buffer_bytes(n).expect("a small tensor")];
    rng.fill_bytes(&mut bytes);
    if dtype == DType::Bool {
        bytes.iter_mut().for_each(|b| *b &= 1);
    }
    Tensor::from_bytes(dtype, shape, &bytes).expect("a tensor")
}

#[test]
fn random_chains_as_graphs_run_as_one_chain_and_equal_the_nodes_one_by_one() {
    let cases: usize = std::env::var("KERF_GRAPH_RANDOM_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(40);
    let mut rng = Rng::new(20_261_126);
    let (mut multi, mut refused) = (0, 0);
    for k in 0..cases {
        let chain = random_chain(&mut rng, 4);
        let (g, inputs) = chain_graph(&mut rng, &chain.steps);
        let what = format!("case {k}: {chain:?}");
        if kerf::chain::lower_chain(&chain).is_err() {
            // The generator draws refused requests too: the graph is refused alike.
            assert!(graph::run(&g, &inputs, Backend::Reference).is_err(), "{what}: runs as a graph");
            refused += 1;
            continue;
        }
        // A linear graph is one run of every node.
        let groups = graph::cut(&g).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(groups, [Group { nodes: (0..chain.steps.len()).collect() }], "{what}");
        multi += usize::from(chain.steps.len() > 1);
        let got = check_all_backends(&g, &inputs, &what);
        // The same bytes as the chain run step by step.
        let mut chain = chain;
        if let Some(t) = inputs.get("v0") {
            let name = kerf::data_input_name(kerf::op_spec(&chain.steps[0].op).unwrap()).unwrap();
            chain.steps[0].inputs.insert(name.to_string(), InputArg::Tensor(t.clone()));
        }
        let unfused = kerf::chain::run_chain_reference(&chain, false).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(same(&got[0].1, &unfused), "{what}: differs from the chain run step by step");
    }
    assert!(multi * 2 >= cases, "{multi} of {cases} chains have several steps ({refused} refused)");
}

fn transpose(input: &str, output: &str) -> Node {
    Node {
        name: String::new(),
        request: Request::new("onnx.transpose").version(13),
        inputs: vec![("data".into(), input.into())],
        outputs: vec![output.into()],
    }
}

fn two_by_three() -> Graph {
    Graph {
        inputs: vec![GraphInput { name: "x".into(), dtype: DType::F32, shape: vec![2, 3] }],
        constants: BTreeMap::new(),
        nodes: vec![transpose("x", "y"), transpose("y", "z")],
        outputs: vec!["z".into()],
    }
}

#[test]
fn wiring_errors_name_the_node_and_value() {
    let mut g = two_by_three();
    assert_eq!(g.validate().unwrap(), [0, 1]);
    g.nodes.swap(0, 1);
    assert_eq!(g.validate().unwrap(), [1, 0], "any order of the nodes is run in a topological one");

    let mut g = two_by_three();
    g.nodes[1].inputs[0].1 = "w".into();
    let e = g.validate().unwrap_err();
    assert_eq!(e, GraphError::Undefined { value: "w".into(), reader: "node 1 (onnx.transpose)".into() });
    assert_eq!(e.to_string(), "node 1 (onnx.transpose) reads value `w`, which no input, constant or node defines");

    let mut g = two_by_three();
    g.nodes[1].outputs[0] = "y".into();
    assert!(matches!(g.validate(), Err(GraphError::DefinedTwice { value, .. }) if value == "y"));

    let mut g = two_by_three();
    g.nodes[0].inputs[0].1 = "z".into();
    assert!(matches!(g.validate(), Err(GraphError::Cycle { .. })));

    let mut g = two_by_three();
    g.outputs = vec!["nowhere".into()];
    assert!(g.validate().unwrap_err().to_string().contains("the graph's outputs reads value `nowhere`"));

    let g = two_by_three();
    let wrong = BTreeMap::from([("x".to_string(), Tensor::zeros(DType::F32, &[3, 2]).unwrap())]);
    let e = graph::run(&g, &wrong, Backend::Reference).unwrap_err().to_string();
    assert!(e.contains("graph input `x`: is declared f32[2, 3], given f32[3, 2]"), "{e}");
    let e = graph::run(&g, &BTreeMap::new(), Backend::Reference).unwrap_err().to_string();
    assert!(e.contains("graph input `x`: is not given"), "{e}");
}

#[test]
fn a_graph_output_read_by_another_node_ends_the_run_and_both_are_returned() {
    let mut g = two_by_three();
    g.outputs = vec!["y".into(), "z".into()];
    assert_eq!(graph::cut(&g).unwrap(), [Group { nodes: vec![0] }, Group { nodes: vec![1] }]);
    let x = Tensor::from_bytes(DType::F32, &[2, 3], &(0..6).flat_map(|v| (v as f32).to_le_bytes()).collect::<Vec<_>>())
        .unwrap();
    let inputs = BTreeMap::from([("x".to_string(), x.clone())]);
    let got = check_all_backends(&g, &inputs, "two outputs");
    assert_eq!(got[0].1.shape(), [3, 2]);
    assert!(same(&got[1].1, &x), "a transpose of a transpose is the input");
}

#[test]
fn npz_files_of_numpy_read_stored_and_compressed_and_round_trip() {
    let stored = kerf::npz::read(&data("npz/stored.npz")).unwrap();
    let compressed = kerf::npz::read(&data("npz/compressed.npz")).unwrap();
    let names: Vec<&str> = stored.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "b", "s"]);
    assert_eq!(stored.len(), compressed.len());
    for ((n, a), (m, b)) in stored.iter().zip(&compressed) {
        assert_eq!(n, m);
        assert!(same(a, b), "`{n}`");
    }
    assert_eq!(stored[0].1.dtype(), DType::I16);
    assert_eq!(stored[0].1.shape(), [2, 3]);
    assert_eq!(kerf::display::format_values(&stored[1].1), "[1.5, -0.0, inf]");
    let mut bytes = std::io::Cursor::new(Vec::new());
    kerf::npz::to_writer(&mut bytes, &stored).unwrap();
    let back = kerf::npz::from_reader(std::io::Cursor::new(bytes.into_inner()), Path::new("memory.npz")).unwrap();
    assert_eq!(back.len(), stored.len());
    for ((n, a), (m, b)) in stored.iter().zip(&back) {
        assert_eq!(n, m);
        assert!(same(a, b), "`{n}` after a round trip");
    }
    let twice = [stored[0].clone(), stored[0].clone()];
    let e = kerf::npz::to_writer(std::io::Cursor::new(Vec::new()), &twice).unwrap_err();
    assert!(e.to_string().contains("array name `a` is empty or given twice"), "{e}");
    let e = kerf::npz::read(&data("graph/fanout_x.npy")).unwrap_err().to_string();
    assert!(e.contains("not an .npz (zip) file"), "{e}");
}
