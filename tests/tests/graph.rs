//! Graphs (`kerfx::graph`): the cut into kernels, runs on every backend against the nodes
//! run one by one, the wiring errors, random chains as graphs, and `.npz` files.

use kerfx::graph::{self, Backend, Group};
use kerfx::{DType, InputArg, Jit, Request, Tensor};
use kerfx_ir::graph::{Graph, GraphError, GraphInput, Node};
use kerfx_testkit::random::{Rng, random_chain};
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
    let x = kerfx::npy::read(&data("graph/fanout_x.npy")).unwrap();
    let inputs = BTreeMap::from([("x".to_string(), x)]);
    let g = graph::import_onnx(&model, &inputs, None).unwrap();
    let names: Vec<&str> = g.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["t0", "r0", "s0", "t1", "u0"]);
    let mut groups: Vec<Vec<usize>> = graph::cut(&g).unwrap().into_iter().map(|g| g.nodes).collect();
    groups.sort();
    assert_eq!(groups, [vec![0, 1], vec![2], vec![3], vec![4]]);
    let got = check_all_backends(&g, &inputs, "fanout");
    let expected = kerfx::npz::read(&data("graph/fanout_expected.npz")).unwrap();
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
        let data_name = kerfx::data_input_name(kerfx::op_spec(&step.op).unwrap());
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
    let n = kerfx::volume(shape).expect("a small shape");
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
        if kerfx::chain::lower_chain(&chain).is_err() {
            // The generator draws refused requests too: the graph is refused alike.
            assert!(graph::run(&g, &inputs, Backend::Reference).is_err(), "{what}: runs as a graph");
            refused += 1;
            continue;
        }
        // A linear graph is one run of every node.
        let groups = graph::cut(&g).unwrap_or_else(|e| panic!("{what}: {e}"));
        let fused: Vec<String> = (1..chain.steps.len()).map(|i| format!("v{i}")).collect();
        assert_eq!(groups, [Group { nodes: (0..chain.steps.len()).collect(), fused }], "{what}");
        multi += usize::from(chain.steps.len() > 1);
        let got = check_all_backends(&g, &inputs, &what);
        // The same bytes as the chain run step by step.
        let mut chain = chain;
        if let Some(t) = inputs.get("v0") {
            let name = kerfx::data_input_name(kerfx::op_spec(&chain.steps[0].op).unwrap()).unwrap();
            chain.steps[0].inputs.insert(name.to_string(), InputArg::Tensor(t.clone()));
        }
        let unfused = kerfx::chain::run_chain_reference(&chain, false).unwrap_or_else(|e| panic!("{what}: {e}"));
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
    let groups: Vec<Vec<usize>> = graph::cut(&g).unwrap().into_iter().map(|g| g.nodes).collect();
    assert_eq!(groups, [vec![0], vec![1]]);
    let x = Tensor::from_bytes(DType::F32, &[2, 3], &(0..6).flat_map(|v| (v as f32).to_le_bytes()).collect::<Vec<_>>())
        .unwrap();
    let inputs = BTreeMap::from([("x".to_string(), x.clone())]);
    let got = check_all_backends(&g, &inputs, "two outputs");
    assert_eq!(got[0].1.shape(), [3, 2]);
    assert!(same(&got[1].1, &x), "a transpose of a transpose is the input");
}

#[test]
fn npz_files_of_numpy_read_stored_and_compressed_and_round_trip() {
    let stored = kerfx::npz::read(&data("npz/stored.npz")).unwrap();
    let compressed = kerfx::npz::read(&data("npz/compressed.npz")).unwrap();
    let names: Vec<&str> = stored.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "b", "s"]);
    assert_eq!(stored.len(), compressed.len());
    for ((n, a), (m, b)) in stored.iter().zip(&compressed) {
        assert_eq!(n, m);
        assert!(same(a, b), "`{n}`");
    }
    assert_eq!(stored[0].1.dtype(), DType::I16);
    assert_eq!(stored[0].1.shape(), [2, 3]);
    assert_eq!(kerfx::display::format_values(&stored[1].1), "[1.5, -0.0, inf]");
    let mut bytes = std::io::Cursor::new(Vec::new());
    kerfx::npz::to_writer(&mut bytes, &stored).unwrap();
    let back = kerfx::npz::from_reader(std::io::Cursor::new(bytes.into_inner()), Path::new("memory.npz")).unwrap();
    assert_eq!(back.len(), stored.len());
    for ((n, a), (m, b)) in stored.iter().zip(&back) {
        assert_eq!(n, m);
        assert!(same(a, b), "`{n}` after a round trip");
    }
    let twice = [stored[0].clone(), stored[0].clone()];
    let e = kerfx::npz::to_writer(std::io::Cursor::new(Vec::new()), &twice).unwrap_err();
    assert!(e.to_string().contains("array name `a` is empty or given twice"), "{e}");
    let e = kerfx::npz::read(&data("graph/fanout_x.npy")).unwrap_err().to_string();
    assert!(e.contains("not an .npz (zip) file"), "{e}");
}

/// Random graphs of 2–6 nodes (Split, Concat, Slice and the axis moves; fan-in, fan-out,
/// graph outputs between fusable nodes): fused on every backend equals the nodes one by
/// one on the reference, byte for byte; enough of them fuse a Concat or a Split with
/// their neighbours for the rule to be exercised.
#[test]
fn random_graphs_fused_equal_the_nodes_one_by_one() {
    let cases: usize = std::env::var("KERF_GRAPH_RANDOM_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(60);
    let mut rng = Rng::new(20_261_127);
    let (mut joins_fused, mut several) = (0, 0);
    for k in 0..cases {
        let nodes = 2 + rng.below(5) as usize;
        let (g, inputs) = kerfx_testkit::random::random_graph(&mut rng, nodes);
        let what = format!("case {k}: {g:#?}");
        let groups = graph::cut(&g).unwrap_or_else(|e| panic!("{what}: {e}"));
        // Every node in exactly one group.
        let mut all: Vec<usize> = groups.iter().flat_map(|g| g.nodes.clone()).collect();
        all.sort_unstable();
        assert_eq!(all, (0..g.nodes.len()).collect::<Vec<_>>(), "{what}");
        several += usize::from(groups.len() < g.nodes.len());
        let join = |n: &usize| kerfx::is_program_op(&g.nodes[*n].request.op).unwrap_or(false);
        joins_fused += usize::from(groups.iter().any(|gr| gr.nodes.len() > 1 && gr.nodes.iter().any(join)));
        check_all_backends(&g, &inputs, &what);
    }
    eprintln!("{several} of {cases} graphs fuse nodes, {joins_fused} a Concat or Split");
    assert!(several * 3 >= cases, "only {several} of {cases} graphs fuse any node");
    assert!(joins_fused * 5 >= cases, "only {joins_fused} of {cases} graphs fuse a Concat or Split");
}

fn node(op: &str, version: u32, inputs: &[(&str, &str)], outputs: &[&str]) -> Node {
    Node {
        name: String::new(),
        request: Request::new(op).version(version),
        inputs: inputs.iter().map(|(i, v)| (i.to_string(), v.to_string())).collect(),
        outputs: outputs.iter().map(|o| o.to_string()).collect(),
    }
}

fn arange(shape: &[u64]) -> Tensor {
    let n = kerfx::volume(shape).unwrap();
    Tensor::from_bytes(DType::F32, shape, &(0..n).flat_map(|v| (v as f32).to_le_bytes()).collect::<Vec<_>>()).unwrap()
}

/// Swin's roll and Llama's rotate-half: two slices of one input joined by a Concat run as
/// one program reading the input once into the two boxes of the output.
#[test]
fn slices_into_a_concat_are_one_program() {
    let mut a = node("onnx.slice", 13, &[("data", "x")], &["a"]);
    a.request = a.request.input("starts", Tensor::from_i64s(&[3])).input("ends", Tensor::from_i64s(&[8]));
    a.request = a.request.input("axes", Tensor::from_i64s(&[1]));
    let mut b = node("onnx.slice", 13, &[("data", "x")], &["b"]);
    b.request = b.request.input("starts", Tensor::from_i64s(&[0])).input("ends", Tensor::from_i64s(&[3]));
    b.request = b.request.input("axes", Tensor::from_i64s(&[1]));
    let mut c = node("onnx.concat", 13, &[("inputs", "a"), ("inputs", "b")], &["y"]);
    c.request = c.request.attr("axis", 1i64);
    let g = Graph {
        inputs: vec![GraphInput { name: "x".into(), dtype: DType::F32, shape: vec![2, 8] }],
        constants: BTreeMap::new(),
        nodes: vec![a, b, c],
        outputs: vec!["y".into()],
    };
    let groups = graph::cut(&g).unwrap();
    assert_eq!(groups, [Group { nodes: vec![0, 1, 2], fused: vec!["a".into(), "b".into()] }]);
    let inputs = BTreeMap::from([("x".to_string(), arange(&[2, 8]))]);
    let gp = graph::group_program(&g, &groups[0], &inputs).unwrap();
    assert_eq!((gp.reads.as_slice(), gp.writes.as_slice()), (&["x".to_string()][..], &["y".to_string()][..]));
    assert_eq!(gp.program.moves.len(), 2, "one move per half, each reading x");
    let got = check_all_backends(&g, &inputs, "roll");
    let rolled: Vec<f32> = (0..2).flat_map(|r| (0..8).map(move |c| (r * 8 + (c + 3) % 8) as f32)).collect();
    let want =
        Tensor::from_bytes(DType::F32, &[2, 8], &rolled.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
    assert!(same(&got[0].1, &want.unwrap()), "a roll by 3");
    // One program: run straight into a caller's buffer, checked.
    let prepared = graph::Prepared::new(g).unwrap();
    assert_eq!(prepared.single_program(), Some((DType::F32, vec![vec![2, 8]])));
    let views = inputs.iter().map(|(k, t)| (k.clone(), t.view())).collect();
    let jit = Jit::default();
    let mut out = vec![0u8; 64];
    prepared.run_into(&views, &mut [&mut out], &jit, false).unwrap();
    assert_eq!(Some(out.as_slice()), got[0].1.bytes());
    let e = prepared.run_into(&views, &mut [&mut [0u8; 60]], &jit, false).unwrap_err().to_string();
    assert!(e.contains("program output 0"), "{e}");
    let e = prepared.run_into(&BTreeMap::new(), &mut [&mut out], &jit, false).unwrap_err().to_string();
    assert!(e.contains("graph input `x`: is not given"), "{e}");
}

/// GPT-2's q/k/v: a Split followed by a Transpose per output is one program whose moves
/// write each transposed part straight from the input.
#[test]
fn a_split_and_a_transpose_per_output_are_one_program() {
    let mut s = node("onnx.split", 13, &[("input", "x")], &["q", "k", "v"]);
    s.request = s.request.attr("axis", 1i64).outputs(3);
    let g = Graph {
        inputs: vec![GraphInput { name: "x".into(), dtype: DType::F32, shape: vec![4, 6] }],
        constants: BTreeMap::new(),
        nodes: vec![s, transpose("q", "qt"), transpose("k", "kt"), transpose("v", "vt")],
        outputs: vec!["qt".into(), "kt".into(), "vt".into()],
    };
    let groups = graph::cut(&g).unwrap();
    assert_eq!(groups.len(), 1, "{groups:?}");
    let inputs = BTreeMap::from([("x".to_string(), arange(&[4, 6]))]);
    let gp = graph::group_program(&g, &groups[0], &inputs).unwrap();
    assert!(gp.program.moves.iter().all(|m| m.steps.len() == 2), "each move: the split's slice, then its transpose");
    let got = check_all_backends(&g, &inputs, "split-transpose");
    assert_eq!(got.iter().map(|(_, t)| t.shape().to_vec()).collect::<Vec<_>>(), [[2, 4], [2, 4], [2, 4]]);
}

/// x → Split → (a, b); b is a graph output and feeds an Identity (y), y is a graph output
/// and Concat reads a and y. Fusing a into the Concat would put the Split and the Concat
/// in one program that waits on the Identity, which waits on the Split's b: the cut
/// leaves that fusion out, and the graph runs.
#[test]
fn a_fusion_that_would_make_programs_wait_on_each_other_is_left_out() {
    let mut s = node("onnx.split", 13, &[("input", "x")], &["a", "b"]);
    s.request = s.request.attr("axis", 0i64).outputs(2);
    let id = node("onnx.identity", 16, &[("input", "b")], &["y"]);
    let mut c = node("onnx.concat", 13, &[("inputs", "a"), ("inputs", "y")], &["c"]);
    c.request = c.request.attr("axis", 0i64);
    let g = Graph {
        inputs: vec![GraphInput { name: "x".into(), dtype: DType::F32, shape: vec![4, 3] }],
        constants: BTreeMap::new(),
        nodes: vec![s, id, c],
        outputs: vec!["c".into(), "b".into(), "y".into()],
    };
    let groups: Vec<Vec<usize>> = graph::cut(&g).unwrap().into_iter().map(|g| g.nodes).collect();
    assert_eq!(groups, [vec![0], vec![1], vec![2]]);
    let inputs = BTreeMap::from([("x".to_string(), arange(&[4, 3]))]);
    let got = check_all_backends(&g, &inputs, "wait");
    assert!(same(&got[0].1, &inputs["x"]), "the split joined again is the input");
    let prepared = graph::Prepared::new(g).unwrap();
    assert_eq!(prepared.single_program(), None, "three programs");
    let views = inputs.iter().map(|(k, t)| (k.clone(), t.view())).collect();
    let e = prepared.run_into(&views, &mut [], &Jit::default(), false).unwrap_err().to_string();
    assert!(e.contains("runs as one program"), "{e}");
}
