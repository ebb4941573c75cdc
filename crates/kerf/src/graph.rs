//! Running a [`Graph`]: its nodes cut into kernels, each run on the reference
//! interpreter or the JIT (static or dynamic).
//!
//! **How a graph is cut into kernels.** In a topological order of the nodes, a *run* is
//! a maximal path `n0 → n1 → … → nk` where each `n(i+1)` reads `ni`'s one output as its
//! data input (the spec's data input), and that value has no other reader and is not a
//! graph output; every node of a run has one output, and each after the first reads
//! its data input from the one before. A run is one chain ([`crate::chain`]): lowered
//! step by step, composed, and run as one fused kernel (as many as its reshapes require:
//! [`kerf_ir::map::compose_segments`]), no intermediate tensor written. A node on no run
//! with another node is one kernel on its own. A run executes where its last node stands
//! in the order (its other inputs — Gather's indices — are ready then, and its
//! intermediate values have no other reader). Inputs other than a run's data input are
//! filled in from their values when the graph runs.
//!
//! Every result is byte-identical to [`run_unfused_reference`], the nodes one by one on
//! the reference interpreter (the oracle the tests compare with).

use crate::chain::{ChainRequest, run_chain_reference};
use crate::{Error, InputArg, Request, Tensor};
pub use kerf_ir::graph::{Graph, GraphError, GraphInput, Node, Producer};
use std::collections::BTreeMap;

/// One kernel of a graph run: a chain of nodes (indices into [`Graph::nodes`], in
/// order), fused; a single node is a chain of one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The nodes, each reading the one before's output as its data input.
    pub nodes: Vec<usize>,
}

/// The backend a graph runs on.
#[derive(Clone, Copy)]
pub enum Backend<'a> {
    /// The reference interpreter (each chain's composed maps, element by element).
    Reference,
    /// The Cranelift JIT.
    Jit {
        /// The JIT (its kernel cache is reused across runs).
        jit: &'a crate::Jit,
        /// Dynamic kernels instead of static ones.
        dynamic: bool,
    },
}

fn node_error(graph: &Graph, k: usize, e: Error) -> Error {
    Error::Invalid { what: format!("{}: {e}", graph.nodes[k].label(k)) }
}

fn data_name(request: &Request) -> Result<Option<&'static str>, Error> {
    Ok(crate::data_input_name(crate::op_spec(&request.op)?))
}

/// Cut a graph into kernels by the rule of the module's doc, in the order they run.
pub fn cut(graph: &Graph) -> Result<Vec<Group>, Error> {
    let order = graph.validate()?;
    let reads = graph.reads();
    let mut position = vec![0usize; graph.nodes.len()];
    for (p, &k) in order.iter().enumerate() {
        position[k] = p;
    }
    // For each value, the node reading it as its data input (when one does).
    let mut data_reader: BTreeMap<&str, usize> = BTreeMap::new();
    for (k, node) in graph.nodes.iter().enumerate() {
        let name = data_name(&node.request).map_err(|e| node_error(graph, k, e))?;
        if let Some((_, value)) = node.inputs.iter().find(|(input, _)| Some(input.as_str()) == name) {
            data_reader.insert(value.as_str(), k);
        }
    }
    let mut taken = vec![false; graph.nodes.len()];
    let mut groups = Vec::new();
    for &k in &order {
        if taken[k] {
            continue;
        }
        taken[k] = true;
        let mut nodes = vec![k];
        let mut last = k;
        while let [value] = graph.nodes[last].outputs.as_slice() {
            let Some(&next) = data_reader.get(value.as_str()) else { break };
            if reads.get(value.as_str()) != Some(&1) || taken[next] || graph.nodes[next].outputs.len() != 1 {
                break;
            }
            taken[next] = true;
            nodes.push(next);
            last = next;
        }
        groups.push(Group { nodes });
    }
    groups.sort_by_key(|g| g.nodes.last().map(|&k| position[k]));
    Ok(groups)
}

/// A node's request with its wired inputs filled in from `values`, leaving out `skip`
/// (a chain step's data input, which the step before gives).
fn filled(graph: &Graph, k: usize, values: &BTreeMap<String, Tensor>, skip: Option<&str>) -> Result<Request, Error> {
    let node = &graph.nodes[k];
    let mut request = node.request.clone();
    for (input, value) in &node.inputs {
        if Some(input.as_str()) == skip {
            request.inputs.remove(input);
            continue;
        }
        let t = values.get(value).ok_or_else(|| Error::Invalid {
            what: format!("{}: value `{value}` is not computed yet", node.label(k)),
        })?;
        request.inputs.insert(input.clone(), InputArg::Tensor(t.clone()));
    }
    Ok(request)
}

fn one_output(graph: &Graph, k: usize) -> Result<&str, Error> {
    match graph.nodes[k].outputs.as_slice() {
        [one] => Ok(one),
        outs => Err(Error::Invalid {
            what: format!("{}: {} outputs; kerf runs ops of one output", graph.nodes[k].label(k), outs.len()),
        }),
    }
}

/// The values a graph starts from: its inputs (checked) and constants.
fn start(graph: &Graph, inputs: &BTreeMap<String, Tensor>) -> Result<BTreeMap<String, Tensor>, Error> {
    graph.check_inputs(inputs)?;
    let mut values = graph.constants.clone();
    values.extend(inputs.iter().map(|(k, v)| (k.clone(), v.clone())));
    Ok(values)
}

fn finish(graph: &Graph, values: &BTreeMap<String, Tensor>) -> Result<Vec<(String, Tensor)>, Error> {
    graph
        .outputs
        .iter()
        .map(|name| {
            let t = values
                .get(name)
                .ok_or_else(|| Error::Invalid { what: format!("graph output `{name}` was not computed") })?;
            Ok((name.clone(), t.clone()))
        })
        .collect()
}

/// Run a graph on `inputs` (by name): cut into kernels ([`cut`]), each run on `backend`.
/// Returns the graph's outputs, in order.
pub fn run(
    graph: &Graph,
    inputs: &BTreeMap<String, Tensor>,
    backend: Backend<'_>,
) -> Result<Vec<(String, Tensor)>, Error> {
    let groups = cut(graph)?;
    let mut values = start(graph, inputs)?;
    // Each value is dropped after its last reader.
    let mut reads: BTreeMap<String, usize> = graph.reads().into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    for group in &groups {
        let mut steps = Vec::with_capacity(group.nodes.len());
        for (i, &k) in group.nodes.iter().enumerate() {
            let skip = if i == 0 { None } else { data_name(&graph.nodes[k].request)? };
            steps.push(filled(graph, k, &values, skip)?);
        }
        let first = group.nodes[0];
        let last = *group.nodes.last().unwrap_or(&first);
        let out_name = one_output(graph, last)?.to_string();
        let chain = ChainRequest { steps };
        let out = match backend {
            Backend::Reference if chain.steps.len() == 1 => crate::run_reference(&chain.steps[0]),
            Backend::Reference => run_chain_reference(&chain, true),
            Backend::Jit { jit, dynamic } if chain.steps.len() == 1 => crate::run_jit(jit, &chain.steps[0], dynamic),
            Backend::Jit { jit, dynamic } => crate::chain::run_chain_jit(jit, &chain, true, dynamic),
        }
        .map_err(|e| match group.nodes.as_slice() {
            [one] => node_error(graph, *one, e),
            _ => {
                let labels: Vec<String> = group.nodes.iter().map(|&k| graph.nodes[k].label(k)).collect();
                Error::Invalid { what: format!("the chain {}: {e}", labels.join(" → ")) }
            }
        })?;
        for &k in &group.nodes {
            for (_, value) in &graph.nodes[k].inputs {
                if let Some(r) = reads.get_mut(value) {
                    *r = r.saturating_sub(1);
                    if *r == 0 {
                        values.remove(value);
                    }
                }
            }
        }
        values.insert(out_name, out);
    }
    finish(graph, &values)
}

/// The oracle: every node on its own, in order, on the reference interpreter.
pub fn run_unfused_reference(graph: &Graph, inputs: &BTreeMap<String, Tensor>) -> Result<Vec<(String, Tensor)>, Error> {
    let order = graph.validate()?;
    let mut values = start(graph, inputs)?;
    for k in order {
        let out_name = one_output(graph, k)?.to_string();
        let request = filled(graph, k, &values, None)?;
        let out = crate::run_reference(&request).map_err(|e| node_error(graph, k, e))?;
        values.insert(out_name, out);
    }
    finish(graph, &values)
}

/// Read an `.onnx` file's bytes (a regular file: a FIFO or device is refused, not waited on).
pub fn read_model(path: &std::path::Path) -> Result<Vec<u8>, crate::FileError> {
    use std::io::Read;
    let (file, len) = crate::file::open_regular(path, "cannot open")?;
    let mut bytes = Vec::new();
    // At most the length the file had when opened: memory in proportion to the file.
    file.take(len).read_to_end(&mut bytes).map_err(|e| crate::FileError::io(path, "cannot read", e))?;
    Ok(bytes)
}

/// [`kerf_onnx::import`] for the tensors given (their dtypes and shapes), external data
/// from `base_dir` only. Run the graph with [`run`].
pub fn import_onnx(
    model: &[u8],
    inputs: &BTreeMap<String, Tensor>,
    base_dir: Option<&std::path::Path>,
) -> Result<Graph, kerf_onnx::OnnxError> {
    let metas = inputs.iter().map(|(k, t)| (k.clone(), (t.dtype(), t.shape().to_vec()))).collect();
    kerf_onnx::import_bytes(model, &metas, &kerf_onnx::Options { base_dir })
}
