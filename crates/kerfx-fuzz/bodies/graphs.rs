//! Any bytes as a graph: as graph-file TOML (kerfx::request_file::parse_graph), or as an
//! ONNX model (kerfx_onnx, its inputs given the declared shapes with every symbolic dim
//! 2); then cut into programs, prepared, and on small graphs run on the reference,
//! fused against the nodes one by one. Nothing may panic; every failure must be an error
//! value; fused must equal unfused wherever both run. Graph files naming `.npy` files
//! are skipped (the fuzzer opens no file).

use std::collections::BTreeMap;
use std::path::Path;

/// Largest tensor (elements) a graph's inputs or any value the reference makes may have.
const LIMIT: u64 = 1 << 12;

fn small(shape: &[u64]) -> bool {
    kerfx_ir::tensor::volume(shape).is_some_and(|n| n <= LIMIT)
}

/// Whether a graph file names any `.npy` file (a string value anywhere in an `inputs` table).
fn names_files(text: &str) -> bool {
    text.contains(".npy") || text.contains("path")
}

/// The target on one input: returns quietly, or panics with what went wrong.
pub fn run(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data)
        && !names_files(text)
        && kerfx::request_file::is_graph(text)
    {
        match kerfx::request_file::parse_graph(text, Path::new("fuzz.toml")) {
            Ok(file) => check(&file.graph, &file.inputs),
            Err(e) => {
                let _ = e.to_string();
            }
        }
        return;
    }
    let Ok(model) = kerfx::onnx::parse(data) else { return };
    let mut inputs = BTreeMap::new();
    for (name, dtype, dims) in kerfx::onnx::declared_inputs(&model) {
        let (Some(dtype), Some(dims)) = (dtype, dims) else { return };
        let shape: Vec<u64> = dims.iter().map(|d| d.map_or(2, |d| u64::try_from(d).unwrap_or(0))).collect();
        if !small(&shape) {
            return;
        }
        let Ok(t) = kerfx::Tensor::zeros(dtype, &shape) else { return };
        inputs.insert(name, t);
    }
    let metas = inputs.iter().map(|(k, t)| (k.clone(), (t.dtype(), t.shape().to_vec()))).collect();
    match kerfx::onnx::import(&model, &metas, &kerfx::onnx::Options::default()) {
        Ok(graph) => check(&graph, &inputs),
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

/// Cut, prepare and (when small) run a graph: fused on the reference equals unfused.
fn check(graph: &kerfx::graph::Graph, inputs: &BTreeMap<String, kerfx::Tensor>) {
    let prepared = match kerfx::graph::Prepared::new(graph.clone()) {
        Ok(p) => p,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let nodes: usize = prepared.groups().iter().map(|g| g.nodes.len()).sum();
    assert_eq!(nodes, graph.nodes.len(), "every node in one group");
    let values_small = prepared
        .programs()
        .iter()
        .flatten()
        .all(|gp| gp.program.outputs.iter().chain(&gp.program.inputs).all(|s| small(s)));
    if !values_small || !inputs.values().all(|t| small(t.shape())) || graph.nodes.len() > 64 {
        return;
    }
    let fused = prepared.run(inputs, kerfx::graph::Backend::Reference);
    let unfused = kerfx::graph::run_unfused_reference(graph, inputs);
    if let (Ok(f), Ok(u)) = (&fused, &unfused) {
        assert_eq!(f, u, "fused equals unfused");
    }
}
