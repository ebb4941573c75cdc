//! Graphs of requests over named values (ONNX-style): a linear chain is the special case
//! where each node reads the one before it.
//!
//! A value is defined once: by a graph input (dtype and shape, values given at run
//! time), a constant (a tensor), or one output of one node. A node is a [`Request`] whose
//! inputs named in [`Node::inputs`] are filled in from values when the graph runs (the
//! request may hold them as [`InputArg::Meta`] or not at all); its other inputs are the
//! request's own constants. [`Graph::validate`] checks the wiring and gives an order in
//! which every node comes after the nodes it reads.

use crate::dtype::DType;
use crate::request::{InputArg, Request};
use crate::tensor::Tensor;
use std::collections::{BTreeMap, BTreeSet};

/// A graph input: a value whose tensor is given when the graph runs.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphInput {
    /// The value's name.
    pub name: String,
    /// Its element type.
    pub dtype: DType,
    /// Its shape.
    pub shape: Vec<u64>,
}

/// One op of a graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// A label for messages (the model's node name, or empty).
    pub name: String,
    /// The op, its version, attributes and constant inputs. An op with a variadic output
    /// (Split) writes as many tensors as [`Node::outputs`] names: the request's
    /// `outputs` is set to that count where the op's attributes leave it open.
    pub request: Request,
    /// (the op's input name, the value wired to it); a variadic input (Concat's
    /// `inputs`) appears once per entry, in the entries' order.
    pub inputs: Vec<(String, String)>,
    /// The values the op's outputs define, in the op's output order.
    pub outputs: Vec<String>,
}

impl Node {
    /// `node 3 (onnx.transpose `t1`)`: how messages name the node at `index`.
    pub fn label(&self, index: usize) -> String {
        if self.name.is_empty() {
            format!("node {index} ({})", self.request.op)
        } else {
            format!("node {index} ({} `{}`)", self.request.op, self.name)
        }
    }
}

/// A graph: inputs, constants, nodes and the values it outputs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graph {
    /// Values given when the graph runs, in order.
    pub inputs: Vec<GraphInput>,
    /// Values known when the graph is built (ONNX initializers, folded shape paths).
    pub constants: BTreeMap<String, Tensor>,
    /// The ops, in any order that [`Graph::validate`] accepts.
    pub nodes: Vec<Node>,
    /// The values the graph returns, in order.
    pub outputs: Vec<String>,
}

/// Where a value comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Producer {
    /// Graph input `i`.
    Input(usize),
    /// A constant.
    Constant,
    /// Output `output` of node `node`.
    Node {
        /// The node's index in [`Graph::nodes`].
        node: usize,
        /// Which of its outputs.
        output: usize,
    },
}

/// A graph that cannot run, naming the node or value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GraphError {
    /// A value defined by two inputs, constants or node outputs.
    #[error("value `{value}` is defined twice: by {first} and by {second}")]
    DefinedTwice {
        /// The value.
        value: String,
        /// Its first definition.
        first: String,
        /// Its second.
        second: String,
    },
    /// A value read but never defined.
    #[error("{reader} reads value `{value}`, which no input, constant or node defines")]
    Undefined {
        /// The value.
        value: String,
        /// Who reads it (a node's label, or "the graph's outputs").
        reader: String,
    },
    /// Nodes that read each other's outputs.
    #[error("the graph has a cycle through {node}")]
    Cycle {
        /// A node on the cycle.
        node: String,
    },
    /// A node input wired to a name the op does not have, or set twice.
    #[error("{node}: {what}")]
    BadNode {
        /// The node's label.
        node: String,
        /// What is wrong.
        what: String,
    },
    /// A graph input given a tensor of another dtype or shape, or not given.
    #[error("graph input `{name}`: {what}")]
    Input {
        /// The input's name.
        name: String,
        /// What is wrong.
        what: String,
    },
    /// An empty name, or a graph without outputs.
    #[error("{0}")]
    Invalid(String),
}

impl From<GraphError> for crate::Error {
    fn from(e: GraphError) -> Self {
        crate::Error::Invalid { what: e.to_string() }
    }
}

impl Graph {
    /// Every value's producer, or the first value defined twice or with an empty name.
    pub fn producers(&self) -> Result<BTreeMap<&str, Producer>, GraphError> {
        let mut map: BTreeMap<&str, Producer> = BTreeMap::new();
        let describe = |p: Producer| match p {
            Producer::Input(i) => format!("graph input {i}"),
            Producer::Constant => "a constant".to_string(),
            Producer::Node { node, output } => format!("output {output} of {}", self.nodes[node].label(node)),
        };
        let all = self.inputs.iter().enumerate().map(|(i, v)| (v.name.as_str(), Producer::Input(i)));
        let constants = self.constants.keys().map(|k| (k.as_str(), Producer::Constant));
        let outputs = self.nodes.iter().enumerate().flat_map(|(node, n)| {
            n.outputs.iter().enumerate().map(move |(output, v)| (v.as_str(), Producer::Node { node, output }))
        });
        for (value, p) in all.chain(constants).chain(outputs) {
            if value.is_empty() {
                return Err(GraphError::Invalid(format!("{} defines a value with an empty name", describe(p))));
            }
            if let Some(first) = map.insert(value, p) {
                return Err(GraphError::DefinedTwice {
                    value: value.to_string(),
                    first: describe(first),
                    second: describe(p),
                });
            }
        }
        Ok(map)
    }

    /// Check the wiring — every value defined once, every read value defined, each
    /// node's inputs named once and not also given in its request, no cycle, at least one
    /// output — and return the nodes in an order where each comes after those it reads
    /// (the given order where it is one).
    pub fn validate(&self) -> Result<Vec<usize>, GraphError> {
        let producers = self.producers()?;
        if self.outputs.is_empty() {
            return Err(GraphError::Invalid("the graph has no outputs".into()));
        }
        for (k, node) in self.nodes.iter().enumerate() {
            let mut seen = BTreeSet::new();
            // A variadic input (Concat's `inputs`) is wired once per entry, in order.
            let variadic = |input: &str| {
                crate::frontend::spec(&node.request.op)
                    .is_ok_and(|spec| spec.inputs.iter().any(|i| i.name == input && i.variadic))
            };
            for (input, value) in &node.inputs {
                if !seen.insert(input.as_str()) && !variadic(input) {
                    return Err(GraphError::BadNode {
                        node: node.label(k),
                        what: format!("input `{input}` is wired twice"),
                    });
                }
                if let Some(InputArg::Tensor(_)) = node.request.inputs.get(input) {
                    return Err(GraphError::BadNode {
                        node: node.label(k),
                        what: format!("input `{input}` is both a tensor of the request and wired to value `{value}`"),
                    });
                }
                if !producers.contains_key(value.as_str()) {
                    return Err(GraphError::Undefined { value: value.clone(), reader: node.label(k) });
                }
            }
            if node.outputs.is_empty() {
                return Err(GraphError::BadNode { node: node.label(k), what: "it defines no output".into() });
            }
        }
        for out in &self.outputs {
            if !producers.contains_key(out.as_str()) {
                return Err(GraphError::Undefined { value: out.clone(), reader: "the graph's outputs".into() });
            }
        }
        // Kahn's algorithm, taking the lowest ready index first (the given order when valid).
        let n = self.nodes.len();
        let mut waiting = vec![0usize; n];
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (k, node) in self.nodes.iter().enumerate() {
            for (_, value) in &node.inputs {
                if let Some(Producer::Node { node: p, .. }) = producers.get(value.as_str()) {
                    waiting[k] += 1;
                    readers[*p].push(k);
                }
            }
        }
        let mut ready: BTreeSet<usize> = (0..n).filter(|&k| waiting[k] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(k) = ready.pop_first() {
            order.push(k);
            for &r in &readers[k] {
                waiting[r] -= 1;
                if waiting[r] == 0 {
                    ready.insert(r);
                }
            }
        }
        if order.len() < n {
            let stuck = (0..n).find(|&k| waiting[k] > 0).unwrap_or(0);
            return Err(GraphError::Cycle { node: self.nodes[stuck].label(stuck) });
        }
        Ok(order)
    }

    /// Check tensors given for the graph inputs (by name): each input given, of its
    /// dtype and shape, and no name that is not an input.
    pub fn check_inputs(&self, given: &BTreeMap<String, Tensor>) -> Result<(), GraphError> {
        for name in given.keys() {
            if !self.inputs.iter().any(|i| &i.name == name) {
                let names: Vec<&str> = self.inputs.iter().map(|i| i.name.as_str()).collect();
                return Err(GraphError::Input {
                    name: name.clone(),
                    what: format!("is not an input of the graph (its inputs: {names:?})"),
                });
            }
        }
        for input in &self.inputs {
            let Some(t) = given.get(&input.name) else {
                return Err(GraphError::Input { name: input.name.clone(), what: "is not given".into() });
            };
            if t.dtype() != input.dtype || t.shape() != input.shape.as_slice() {
                return Err(GraphError::Input {
                    name: input.name.clone(),
                    what: format!("is declared {}{:?}, given {}{:?}", input.dtype, input.shape, t.dtype(), t.shape()),
                });
            }
        }
        Ok(())
    }

    /// How many times each value is read: by node inputs, and once per graph output.
    pub fn reads(&self) -> BTreeMap<&str, usize> {
        let mut reads: BTreeMap<&str, usize> = BTreeMap::new();
        let node_reads = self.nodes.iter().flat_map(|n| n.inputs.iter().map(|(_, v)| v.as_str()));
        for v in node_reads.chain(self.outputs.iter().map(String::as_str)) {
            *reads.entry(v).or_default() += 1;
        }
        reads
    }
}
