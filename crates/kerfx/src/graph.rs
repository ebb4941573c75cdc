//! Running a [`Graph`]: its nodes cut into programs ([`kerfx_ir::Program`]), each run on
//! the reference interpreter or the JIT (static or dynamic).
//!
//! **How a graph is cut into programs.** A value is *fused* — computed inside the
//! program that reads it, never written to memory — when it has exactly one reader and
//! is not a graph output, that reader reads it as its data (the spec's data input, or an
//! entry of Concat's `inputs`), and its producer writes it in one move (every op but the
//! joins, Concat, whose output is one move per input). The nodes that fused values join
//! form a *group*, run as one program: each move of a reader continues the move of its
//! producer (the producer's chain of plans, then the reader's), so Slice, Slice → Concat
//! reads each half of its input once straight into its box of the output, Split →
//! Transpose per output writes each transposed part straight from the split's input, and
//! a Reshape anywhere between them is free. Values a group's nodes read from outside it
//! are its program's inputs; values read outside it (or returned by the graph) are its
//! outputs; a value nothing reads is not written. A fusion is not taken where it would
//! make two groups wait on each other (a group reading a value of another that reads one
//! of its own). A move whose chain does not compose into one map (a reshape whose axes
//! do not line up with the step before) still runs inside its program, its segments
//! through scratch ([`kerfx_ir::map::compose_segments`]). Groups run in an order where
//! each comes after the groups whose values it reads.
//!
//! Every result is byte-identical to [`run_unfused_reference`], the nodes one by one on
//! the reference interpreter (the oracle the tests compare with).

use crate::{Error, InputArg, Request, Tensor};
pub use kerfx_ir::graph::{Graph, GraphError, GraphInput, Node, Producer};
use kerfx_ir::program::{Move, Program};
use kerfx_ir::schedule::Strided;
use kerfx_ir::tensor::ViewData;
use kerfx_ir::{DType, Plan, TensorView};
use std::collections::{BTreeMap, BTreeSet};

/// One program of a graph run: nodes joined by fused values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The nodes (indices into [`Graph::nodes`]), each after the nodes it reads.
    pub nodes: Vec<usize>,
    /// The values computed inside the program, never written to memory.
    pub fused: Vec<String>,
}

/// A graph input read in place through a strided view of a buffer
/// ([`Prepared::run_into_views`]).
#[derive(Clone, Copy, Debug)]
pub struct InputView<'a> {
    /// Its element type (the graph input's).
    pub dtype: DType,
    /// Its shape (the graph input's).
    pub shape: &'a [u64],
    /// Where its elements lie in `buffer`, in elements (any strides).
    pub view: &'a Strided,
    /// The whole buffer the view lies in (little-endian element bytes).
    pub buffer: &'a [u8],
}

/// A graph output written in place through a strided view of a buffer
/// ([`Prepared::run_into_views`]); the buffer's other elements are left as they are.
#[derive(Debug)]
pub struct OutputView<'a> {
    /// Where its elements go in `buffer`, in elements (positive strides, elements apart).
    pub view: &'a Strided,
    /// The whole buffer the view lies in.
    pub buffer: &'a mut [u8],
}

/// The backend a graph runs on.
#[derive(Clone, Copy)]
pub enum Backend<'a> {
    /// The reference interpreter (each move's chain composed into maps, element by element).
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

/// The name of a node's data input (`None` for ops that read none) and whether it is
/// variadic (an entry per wired value).
fn data_input(graph: &Graph, k: usize) -> Result<(Option<&'static str>, bool), Error> {
    let spec = crate::op_spec(&graph.nodes[k].request.op).map_err(|e| node_error(graph, k, e))?;
    let data = spec.data_input();
    Ok((data.map(|i| i.name.as_str()), data.is_some_and(|i| i.variadic)))
}

/// The values a node reads as its data, in the order its program reads them.
fn data_values(graph: &Graph, k: usize) -> Result<Vec<&str>, Error> {
    let (name, _) = data_input(graph, k)?;
    let node = &graph.nodes[k];
    Ok(node.inputs.iter().filter(|(input, _)| Some(input.as_str()) == name).map(|(_, v)| v.as_str()).collect())
}

/// Whether an op writes each of its outputs in one move (all but the joins).
fn one_move_per_output(graph: &Graph, k: usize) -> Result<bool, Error> {
    Ok(!data_input(graph, k)?.1)
}

/// Union-find over nodes, with the components' dependency edges.
struct Components {
    parent: Vec<usize>,
}

impl Components {
    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }
}

/// A dependency: `reader` reads `value`, which node `producer` writes.
struct Edge<'g> {
    producer: usize,
    reader: usize,
    value: &'g str,
}

/// Cut a graph into programs by the rule of the module's doc, in the order they run.
pub fn cut(graph: &Graph) -> Result<Vec<Group>, Error> {
    let order = graph.validate()?;
    let producers = graph.producers()?;
    let reads = graph.reads();
    let n = graph.nodes.len();
    let mut edges: Vec<Edge<'_>> = Vec::new();
    for (reader, node) in graph.nodes.iter().enumerate() {
        for (_, value) in &node.inputs {
            if let Some(&Producer::Node { node: producer, .. }) = producers.get(value.as_str()) {
                edges.push(Edge { producer, reader, value });
            }
        }
    }
    // The values that may be fused (the module doc's rule, before the wait check).
    let mut fusable: BTreeSet<&str> = BTreeSet::new();
    for e in &edges {
        if reads.get(e.value) == Some(&1)
            && data_values(graph, e.reader)?.contains(&e.value)
            && one_move_per_output(graph, e.producer)?
        {
            fusable.insert(e.value);
        }
    }
    let mut comps = Components { parent: (0..n).collect() };
    let mut fused: BTreeSet<&str> = BTreeSet::new();
    for &reader in &order {
        for value in data_values(graph, reader)? {
            if !fusable.contains(value) {
                continue;
            }
            let Some(&Producer::Node { node: producer, .. }) = producers.get(value) else { continue };
            let (a, b) = (comps.find(producer), comps.find(reader));
            if a != b && waits(&mut comps, &edges, &fusable, a, b) {
                // Written, for good: no later merge may join its producer and reader.
                fusable.remove(value);
                continue;
            }
            comps.parent[b] = a;
            fused.insert(value);
        }
    }
    // Each component's nodes in the graph's order; components in an order of their
    // dependencies (ties: where their last node stands).
    let mut position = vec![0usize; n];
    for (p, &k) in order.iter().enumerate() {
        position[k] = p;
    }
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &k in &order {
        let root = comps.find(k);
        members.entry(root).or_default().push(k);
    }
    let mut waiting: BTreeMap<usize, BTreeSet<usize>> = members.keys().map(|&r| (r, BTreeSet::new())).collect();
    for e in &edges {
        let (a, b) = (comps.find(e.producer), comps.find(e.reader));
        if a != b {
            waiting.entry(b).or_default().insert(a);
        }
    }
    let last = |r: usize| members[&r].last().map_or(0, |&k| position[k]);
    let mut groups = Vec::with_capacity(members.len());
    let mut done: BTreeSet<usize> = BTreeSet::new();
    while done.len() < members.len() {
        let next = members
            .keys()
            .copied()
            .filter(|r| !done.contains(r) && waiting[r].iter().all(|w| done.contains(w)))
            .min_by_key(|&r| last(r))
            .ok_or_else(|| Error::Invalid { what: "graph: the cut left groups waiting on each other".into() })?;
        done.insert(next);
        let nodes = members[&next].clone();
        let fused_here = nodes
            .iter()
            .flat_map(|&k| graph.nodes[k].outputs.iter())
            .filter(|v| fused.contains(v.as_str()))
            .cloned()
            .collect();
        groups.push(Group { nodes, fused: fused_here });
    }
    Ok(groups)
}

/// Whether joining components `a` (the producer's) and `b` (the reader's) would make a
/// group wait on itself: `b` depends on `a` through a value that is not fusable, or
/// through another component.
fn waits(comps: &mut Components, edges: &[Edge<'_>], fusable: &BTreeSet<&str>, a: usize, b: usize) -> bool {
    let mut next: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for e in edges {
        let (p, r) = (comps.find(e.producer), comps.find(e.reader));
        if p == a && r == b {
            if !fusable.contains(e.value) {
                return true;
            }
            continue;
        }
        if p != r {
            next.entry(p).or_default().insert(r);
        }
    }
    // Is `b` reachable from `a` through some other component?
    let mut stack: Vec<usize> = next.get(&a).map(|s| s.iter().copied().collect()).unwrap_or_default();
    let mut seen: BTreeSet<usize> = stack.iter().copied().collect();
    while let Some(c) = stack.pop() {
        if c == b {
            return true;
        }
        for &d in next.get(&c).into_iter().flatten() {
            if seen.insert(d) {
                stack.push(d);
            }
        }
    }
    false
}

/// A group's program, with the values it reads and writes (in its inputs' and outputs'
/// order).
#[derive(Clone, Debug, PartialEq)]
pub struct GroupProgram {
    /// The program.
    pub program: Program,
    /// The value each program input is.
    pub reads: Vec<String>,
    /// The value each program output is.
    pub writes: Vec<String>,
}

/// A node's request with its wired inputs filled in: each data value as `data` gives it
/// (dtype and shape, or its tensor), the others with their tensors as `tensor` gives them.
fn wired_request(
    graph: &Graph,
    k: usize,
    tensor: &dyn Fn(&str) -> Option<Tensor>,
    data: &dyn Fn(&str) -> Option<InputArg>,
) -> Result<Request, Error> {
    let node = &graph.nodes[k];
    let (data_name, variadic) = data_input(graph, k)?;
    let missing =
        |value: &str| Error::Invalid { what: format!("{}: value `{value}` is not computed yet", node.label(k)) };
    let mut request = node.request.clone();
    let mut entries = Vec::new();
    for (input, value) in &node.inputs {
        let is_data = Some(input.as_str()) == data_name;
        let arg = if is_data {
            data(value).ok_or_else(|| missing(value))?
        } else {
            InputArg::Tensor(tensor(value).ok_or_else(|| missing(value))?)
        };
        if variadic && is_data {
            entries.push(arg);
        } else {
            request.inputs.insert(input.clone(), arg);
        }
    }
    // A list of the wired entries; a list the request holds itself stays.
    if let (Some(name), true, false) = (data_name, variadic, entries.is_empty()) {
        request.inputs.insert(name.to_string(), InputArg::List(entries));
    }
    Ok(request)
}

/// The index of `value` in `list`, appended (with its shape) when new.
fn slot(list: &mut Vec<String>, shapes: &mut Vec<Vec<u64>>, value: &str, shape: &[u64]) -> usize {
    list.iter().position(|v| v == value).unwrap_or_else(|| {
        list.push(value.to_string());
        shapes.push(shape.to_vec());
        list.len() - 1
    })
}

/// A fused value, as the move that computes it.
struct Computed {
    /// The program input it starts from (`None`: a fill).
    input: Option<usize>,
    /// The chain from there.
    steps: Vec<Plan>,
    dtype: DType,
    shape: Vec<u64>,
}

/// Build a group's program: each node lowered ([`kerfx_ir::lower_program`]) with its data
/// as dtype and shape and its other inputs from `values`; each move reading a fused value
/// continues the move that computes it.
pub fn group_program(graph: &Graph, group: &Group, values: &BTreeMap<String, Tensor>) -> Result<GroupProgram, Error> {
    let meta = |v: &str| values.get(v).map(|t| (t.dtype(), t.shape().to_vec()));
    build_group(graph, group, &meta, &|v| values.get(v).cloned())
}

/// A value's dtype and shape, where known.
type MetaOf<'a> = dyn Fn(&str) -> Option<(DType, Vec<u64>)> + 'a;

/// [`group_program`] with the values outside the group as `meta` (dtype and shape) and
/// `tensor` (the values of parameters) give them.
fn build_group(
    graph: &Graph,
    group: &Group,
    meta: &MetaOf<'_>,
    tensor: &dyn Fn(&str) -> Option<Tensor>,
) -> Result<GroupProgram, Error> {
    let reads = graph.reads();
    let mut fused: BTreeMap<&str, Computed> = BTreeMap::new();
    let (mut read_values, mut read_shapes) = (Vec::new(), Vec::new());
    let (mut write_values, mut write_shapes) = (Vec::new(), Vec::new());
    let mut moves = Vec::new();
    let mut dtype: Option<DType> = None;
    for &k in &group.nodes {
        let node = &graph.nodes[k];
        let in_node = |e: Error| node_error(graph, k, e);
        let request = {
            let fused = &fused;
            let data = |v: &str| {
                let (dtype, shape) = match fused.get(v) {
                    Some(c) => (c.dtype, c.shape.clone()),
                    None => meta(v)?,
                };
                Some(InputArg::Meta { dtype, shape })
            };
            wired_request(graph, k, tensor, &data)?
        };
        let program = kerfx_ir::lower_program(&request).map_err(in_node)?;
        if program.outputs.len() != node.outputs.len() {
            return Err(in_node(Error::Invalid {
                what: format!("it writes {} outputs, the graph names {}", program.outputs.len(), node.outputs.len()),
            }));
        }
        if *dtype.get_or_insert(program.dtype) != program.dtype {
            return Err(in_node(Error::Invalid {
                what: format!("it moves {}, the nodes fused with it {}", program.dtype, dtype.unwrap_or(program.dtype)),
            }));
        }
        let data = data_values(graph, k)?;
        for mv in program.moves {
            let (input, mut steps) = match mv.input {
                None => (None, Vec::new()),
                Some(j) => {
                    let value = *data.get(j).ok_or_else(|| {
                        in_node(Error::Invalid { what: format!("its program reads input {j} of {}", data.len()) })
                    })?;
                    match fused.get(value) {
                        Some(c) => (c.input, c.steps.clone()),
                        None => {
                            let shape = &program.inputs[j];
                            (Some(slot(&mut read_values, &mut read_shapes, value, shape)), Vec::new())
                        }
                    }
                }
            };
            steps.extend(mv.steps.iter().cloned());
            let value = node.outputs[mv.output].as_str();
            let shape = &program.outputs[mv.output];
            if group.fused.iter().any(|f| f == value) {
                // Fused values' producers write them in one move (the cut's rule).
                if mv.at.iter().any(|&a| a != 0) || mv.shape() != shape.as_slice() {
                    return Err(in_node(Error::Invalid {
                        what: format!("value `{value}` is fused but written in parts"),
                    }));
                }
                fused.insert(value, Computed { input, steps, dtype: program.dtype, shape: shape.clone() });
            } else if reads.contains_key(value) {
                let output = slot(&mut write_values, &mut write_shapes, value, shape);
                moves.push(Move { input, steps, output, at: mv.at });
            }
        }
        // An output read outside the group is one of its program's, even where no move
        // writes it (an empty part).
        for (o, value) in node.outputs.iter().enumerate() {
            if reads.contains_key(value.as_str()) && !group.fused.contains(value) {
                slot(&mut write_values, &mut write_shapes, value, &program.outputs[o]);
            }
        }
    }
    let program = Program { dtype: dtype.unwrap_or(DType::F32), inputs: read_shapes, outputs: write_shapes, moves };
    Ok(GroupProgram { program, reads: read_values, writes: write_values })
}

/// Check tensors given for the graph inputs (by name) as [`Graph::check_inputs`] does.
fn check_views(graph: &Graph, given: &BTreeMap<String, TensorView<'_>>) -> Result<(), Error> {
    for name in given.keys() {
        if !graph.inputs.iter().any(|i| &i.name == name) {
            let names: Vec<&str> = graph.inputs.iter().map(|i| i.name.as_str()).collect();
            let what = format!("is not an input of the graph (its inputs: {names:?})");
            return Err(GraphError::Input { name: name.clone(), what }.into());
        }
    }
    for input in &graph.inputs {
        let Some(t) = given.get(&input.name) else {
            return Err(GraphError::Input { name: input.name.clone(), what: "is not given".into() }.into());
        };
        if t.dtype != input.dtype || t.shape != input.shape.as_slice() {
            let what = format!("is declared {}{:?}, given {}{:?}", input.dtype, input.shape, t.dtype, t.shape);
            return Err(GraphError::Input { name: input.name.clone(), what }.into());
        }
        t.check(&format!("graph input `{}`", input.name))?;
    }
    Ok(())
}

/// Run one group's program on `backend`.
fn run_group(program: &Program, inputs: &[TensorView<'_>], backend: Backend<'_>) -> Result<Vec<Tensor>, Error> {
    match backend {
        Backend::Reference => kerfx_ir::program::evaluate_composed(program, inputs),
        Backend::Jit { jit, dynamic } => crate::run_program_views(jit, program, inputs, dynamic),
    }
}

/// A graph cut into programs once ([`cut`]), to run many times. The program of a group
/// whose parameters are all constants (every exported model's, its shape path folded)
/// is built once here; one that reads a parameter given at run time (Slice's `starts`
/// as a graph input) is built per run.
#[derive(Debug)]
pub struct Prepared {
    graph: Graph,
    groups: Vec<Group>,
    programs: Vec<Option<GroupProgram>>,
    /// The kernel of each prebuilt program, per JIT settings and static/dynamic, kept so
    /// that a call hashes no plan (the JIT's own cache would).
    kernels: std::sync::Mutex<Vec<KernelSlot>>,
}

/// A compiled group program and what it was compiled for.
#[derive(Debug)]
struct KernelSlot {
    group: usize,
    settings: crate::JitSettings,
    dynamic: bool,
    kernel: std::sync::Arc<crate::ProgramKernel>,
}

impl Prepared {
    /// Check and cut a graph, and build the programs that need no run-time value. A
    /// node whose data is a tensor of its request (an embedding's table, a constant the
    /// importer kept) reads it as a graph constant, so that its program reads it as an
    /// input like any other value.
    pub fn new(mut graph: Graph) -> Result<Prepared, Error> {
        wire_constant_data(&mut graph)?;
        let groups = cut(&graph)?;
        // The dtypes and shapes known before any run: inputs, constants, and the outputs
        // of programs built so far.
        let mut metas: BTreeMap<String, (DType, Vec<u64>)> =
            graph.inputs.iter().map(|i| (i.name.clone(), (i.dtype, i.shape.clone()))).collect();
        metas.extend(graph.constants.iter().map(|(k, t)| (k.clone(), (t.dtype(), t.shape().to_vec()))));
        let mut programs = Vec::with_capacity(groups.len());
        for group in &groups {
            let known = group.nodes.iter().all(|&k| {
                graph.nodes[k].inputs.iter().all(|(_, v)| {
                    graph.constants.contains_key(v)
                        || (metas.contains_key(v) && !is_parameter(&graph, k, v))
                        || group.fused.contains(v)
                })
            });
            let program = if known {
                let meta = |v: &str| metas.get(v).cloned();
                let gp = build_group(&graph, group, &meta, &|v| graph.constants.get(v).cloned())
                    .map_err(|e| group_error(&graph, group, e))?;
                for (w, shape) in gp.writes.iter().zip(&gp.program.outputs) {
                    metas.insert(w.clone(), (gp.program.dtype, shape.clone()));
                }
                Some(gp)
            } else {
                None
            };
            programs.push(program);
        }
        Ok(Prepared { graph, groups, programs, kernels: std::sync::Mutex::new(Vec::new()) })
    }

    /// The kernel of prebuilt program `group`, compiled once per JIT settings and kind.
    /// [`Prepared::run_into`] on strided buffers, read and written in place: each graph
    /// input through its [`InputView`] (any strides, zero and negative included), each
    /// graph output, in order, through its [`OutputView`] (positive strides; the buffer's
    /// other elements are left as they are). The program is compiled for these layouts
    /// ([`crate::Jit::compile_program_views`], cached by the JIT per layout); no input is
    /// copied, except where a move's chain starts with a reshape the input view's strides
    /// cannot say (see there). For a graph [`Prepared::single_program`] describes; packed
    /// 4-bit dtypes take dense buffers ([`Prepared::run_into`]).
    pub fn run_into_views(
        &self,
        inputs: &BTreeMap<String, InputView<'_>>,
        outputs: &mut [OutputView<'_>],
        jit: &crate::Jit,
        dynamic: bool,
    ) -> Result<(), Error> {
        let (gp, order) = self.single().ok_or_else(|| Error::Invalid {
            what: "run_into_views takes a graph that runs as one program writing each of its outputs once (see \
                   single_program)"
                .into(),
        })?;
        for name in inputs.keys() {
            if !self.graph.inputs.iter().any(|i| &i.name == name) {
                let names: Vec<&str> = self.graph.inputs.iter().map(|i| i.name.as_str()).collect();
                let what = format!("is not an input of the graph (its inputs: {names:?})");
                return Err(GraphError::Input { name: name.clone(), what }.into());
            }
        }
        for input in &self.graph.inputs {
            let Some(t) = inputs.get(&input.name) else {
                return Err(GraphError::Input { name: input.name.clone(), what: "is not given".into() }.into());
            };
            if t.dtype != input.dtype || t.shape != input.shape.as_slice() {
                let what = format!("is declared {}{:?}, given {}{:?}", input.dtype, input.shape, t.dtype, t.shape);
                return Err(GraphError::Input { name: input.name.clone(), what }.into());
            }
        }
        if outputs.len() != order.len() {
            return Err(Error::Mismatch {
                what: "graph outputs".into(),
                expected: format!("{} buffers", order.len()),
                found: outputs.len().to_string(),
            });
        }
        let mut ins = Vec::with_capacity(gp.reads.len());
        let mut in_views = Vec::with_capacity(gp.reads.len());
        for v in &gp.reads {
            match (inputs.get(v), self.graph.constants.get(v).and_then(Tensor::bytes)) {
                (Some(given), _) => {
                    ins.push(given.buffer);
                    in_views.push(Some(given.view.clone()));
                }
                // A constant: dense, as the graph holds it.
                (None, Some(bytes)) => {
                    ins.push(bytes);
                    in_views.push(None);
                }
                (None, None) => {
                    return Err(Error::Invalid {
                        what: format!("value `{v}`: run_into_views moves bytes, not strings"),
                    });
                }
            }
        }
        // The caller's buffers and views in the program's output order.
        let mut out_views: Vec<Option<Strided>> = vec![None; order.len()];
        let mut slots: Vec<Option<&mut [u8]>> = (0..order.len()).map(|_| None).collect();
        for (given, &o) in outputs.iter_mut().zip(&order) {
            out_views[o] = Some(given.view.clone());
            slots[o] = Some(&mut *given.buffer);
        }
        let mut outs: Vec<&mut [u8]> = slots.into_iter().flatten().collect();
        let views = crate::ProgramViews { inputs: in_views, outputs: out_views };
        let kernel = jit.compile_program_views(&gp.program, dynamic, &views)?;
        kernel.run_buffers(&ins, &mut outs).map_err(|e| group_error(&self.graph, &self.groups[0], e))
    }

    fn kernel(
        &self,
        group: usize,
        program: &Program,
        jit: &crate::Jit,
        dynamic: bool,
    ) -> Result<std::sync::Arc<crate::ProgramKernel>, Error> {
        // A poisoned lock only means a thread panicked holding it; the list is whole.
        let lock = || self.kernels.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let found = lock()
            .iter()
            .find(|s| s.group == group && s.dynamic == dynamic && &s.settings == jit.settings())
            .map(|s| s.kernel.clone());
        if let Some(kernel) = found {
            return Ok(kernel);
        }
        let kernel = jit.compile_program(program, dynamic)?;
        let settings = jit.settings().clone();
        lock().push(KernelSlot { group, settings, dynamic, kernel: kernel.clone() });
        Ok(kernel)
    }

    /// The graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Its groups, in the order they run.
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// Each group's program where it was built when prepared (`None`: it reads a
    /// parameter given at run time, and is built then).
    pub fn programs(&self) -> &[Option<GroupProgram>] {
        &self.programs
    }

    /// Run on `inputs` (by name; each checked against the graph's input of that name):
    /// each group's program run on `backend`. Returns the graph's outputs, in order.
    pub fn run(&self, inputs: &BTreeMap<String, Tensor>, backend: Backend<'_>) -> Result<Vec<(String, Tensor)>, Error> {
        let views = inputs.iter().map(|(k, t)| (k.clone(), t.view())).collect();
        self.run_views(&views, backend)
    }

    /// [`Prepared::run`] on views of the inputs (read in place, never copied).
    pub fn run_views(
        &self,
        inputs: &BTreeMap<String, TensorView<'_>>,
        backend: Backend<'_>,
    ) -> Result<Vec<(String, Tensor)>, Error> {
        let graph = &self.graph;
        check_views(graph, inputs)?;
        let mut computed: BTreeMap<String, Tensor> = BTreeMap::new();
        // Each computed value is dropped after its last reader.
        let mut reads: BTreeMap<&str, usize> = graph.reads();
        for (index, (group, prebuilt)) in self.groups.iter().zip(&self.programs).enumerate() {
            let outs = {
                let view = |v: &str| {
                    computed
                        .get(v)
                        .map(Tensor::view)
                        .or_else(|| inputs.get(v).copied())
                        .or_else(|| graph.constants.get(v).map(Tensor::view))
                };
                let built;
                let gp = match prebuilt {
                    Some(gp) => gp,
                    None => {
                        let meta = |v: &str| view(v).map(|t| (t.dtype, t.shape.to_vec()));
                        let tensor = |v: &str| view(v).and_then(|t| t.to_tensor().ok());
                        built = build_group(graph, group, &meta, &tensor)?;
                        &built
                    }
                };
                let views = gp
                    .reads
                    .iter()
                    .map(|v| view(v).ok_or_else(|| Error::Invalid { what: format!("value `{v}` is not computed yet") }))
                    .collect::<Result<Vec<_>, _>>()?;
                let outs = match (backend, prebuilt) {
                    (Backend::Jit { jit, dynamic }, Some(_)) if gp.program.dtype != DType::String => {
                        kerfx_ir::program::check_inputs(&gp.program, &views)
                            .and_then(|()| self.kernel(index, &gp.program, jit, dynamic)?.run_tensors(&views))
                    }
                    _ => run_group(&gp.program, &views, backend),
                }
                .map_err(|e| group_error(graph, group, e))?;
                gp.writes.iter().cloned().zip(outs).collect::<Vec<_>>()
            };
            for &k in &group.nodes {
                for (_, value) in &graph.nodes[k].inputs {
                    if let Some(r) = reads.get_mut(value.as_str()) {
                        *r = r.saturating_sub(1);
                        if *r == 0 {
                            computed.remove(value);
                        }
                    }
                }
            }
            computed.extend(outs);
        }
        let mut outputs = Vec::with_capacity(graph.outputs.len());
        for (i, name) in graph.outputs.iter().enumerate() {
            // The last mention of a computed value moves it out; others copy.
            let last = !graph.outputs[i + 1..].contains(name);
            let t = match computed.get(name) {
                Some(_) if last => computed.remove(name),
                Some(t) => Some(t.clone()),
                None => {
                    inputs.get(name).and_then(|v| v.to_tensor().ok()).or_else(|| graph.constants.get(name).cloned())
                }
            };
            let t = t.ok_or_else(|| Error::Invalid { what: format!("graph output `{name}` was not computed") })?;
            outputs.push((name.clone(), t));
        }
        Ok(outputs)
    }
}

impl Prepared {
    /// The one program a graph runs as, when it runs as one built when prepared (no
    /// run-time parameter) that writes each graph output once and nothing else: its
    /// dtype and the graph outputs' shapes, in order. [`Prepared::run_into`] takes such
    /// a graph.
    pub fn single_program(&self) -> Option<(DType, Vec<Vec<u64>>)> {
        let (gp, order) = self.single()?;
        Some((gp.program.dtype, order.iter().map(|&o| gp.program.outputs[o].clone()).collect()))
    }

    /// The single program and, per graph output, its program output.
    fn single(&self) -> Option<(&GroupProgram, Vec<usize>)> {
        let [Some(gp)] = self.programs.as_slice() else { return None };
        let order: Vec<usize> =
            self.graph.outputs.iter().map(|name| gp.writes.iter().position(|w| w == name)).collect::<Option<_>>()?;
        let mut sorted = order.clone();
        sorted.sort_unstable();
        sorted.dedup();
        (sorted.len() == gp.writes.len() && sorted.len() == order.len()).then_some((gp, order))
    }

    /// Run on the JIT straight into caller-owned dense output buffers (the graph's
    /// outputs in order, each exactly its bytes): no allocation, no copy. For a graph
    /// [`Prepared::single_program`] describes; others are refused (run them with
    /// [`Prepared::run_views`]).
    pub fn run_into(
        &self,
        inputs: &BTreeMap<String, TensorView<'_>>,
        outputs: &mut [&mut [u8]],
        jit: &crate::Jit,
        dynamic: bool,
    ) -> Result<(), Error> {
        let (gp, order) = self.single().ok_or_else(|| Error::Invalid {
            what:
                "run_into takes a graph that runs as one program writing each of its outputs once (see single_program)"
                    .into(),
        })?;
        check_views(&self.graph, inputs)?;
        if outputs.len() != order.len() {
            return Err(Error::Mismatch {
                what: "graph outputs".into(),
                expected: format!("{} buffers", order.len()),
                found: outputs.len().to_string(),
            });
        }
        let mut ins = Vec::with_capacity(gp.reads.len());
        for v in &gp.reads {
            let view = inputs.get(v).copied().or_else(|| self.graph.constants.get(v).map(Tensor::view));
            match view.map(|t| t.data) {
                Some(ViewData::Bytes(b)) => ins.push(b),
                _ => return Err(Error::Invalid { what: format!("value `{v}`: run_into moves bytes, not strings") }),
            }
        }
        // The caller's buffers in the program's output order.
        let mut slots: Vec<Option<&mut [u8]>> = (0..order.len()).map(|_| None).collect();
        for (buffer, &o) in outputs.iter_mut().zip(&order) {
            slots[o] = Some(&mut **buffer);
        }
        let mut outs: Vec<&mut [u8]> = slots.into_iter().flatten().collect();
        let kernel = self.kernel(0, &gp.program, jit, dynamic)?;
        kernel.run_buffers(&ins, &mut outs).map_err(|e| group_error(&self.graph, &self.groups[0], e))
    }
}

impl Prepared {
    /// A [`Runner`]: this graph, one program on the JIT ([`Prepared::single_program`]),
    /// its graph inputs given by position in the order of `inputs` (every graph input
    /// named once), its kernel compiled now. Refused, naming why, for other graphs and
    /// for strings (which are not bytes).
    pub fn runner(
        self: &std::sync::Arc<Self>,
        inputs: &[&str],
        jit: &crate::Jit,
        dynamic: bool,
    ) -> Result<Runner, Error> {
        let (gp, order) = self.single().ok_or_else(|| Error::Invalid {
            what: "a runner takes a graph that runs as one program writing each of its outputs once (see \
                   single_program)"
                .into(),
        })?;
        if gp.program.dtype == DType::String {
            return Err(Error::Invalid { what: "a runner moves bytes, not strings".into() });
        }
        let mut declared = Vec::with_capacity(inputs.len());
        for (k, name) in inputs.iter().enumerate() {
            let input = self.graph.inputs.iter().find(|i| i.name == *name).ok_or_else(|| {
                let names: Vec<&str> = self.graph.inputs.iter().map(|i| i.name.as_str()).collect();
                GraphError::Input {
                    name: name.to_string(),
                    what: format!("is not an input of the graph (its inputs: {names:?})"),
                }
            })?;
            if inputs[..k].contains(name) {
                return Err(GraphError::Input { name: name.to_string(), what: "is given twice".into() }.into());
            }
            declared.push((input.dtype, input.shape.clone()));
        }
        if let Some(input) = self.graph.inputs.iter().find(|i| !inputs.contains(&i.name.as_str())) {
            return Err(GraphError::Input { name: input.name.clone(), what: "is not given".into() }.into());
        }
        let mut reads = Vec::with_capacity(gp.reads.len());
        for v in &gp.reads {
            let read = match inputs.iter().position(|name| name == v) {
                Some(k) => Read::Input(k),
                None if self.graph.constants.get(v).and_then(Tensor::bytes).is_some() => Read::Constant(v.clone()),
                None => {
                    return Err(Error::Invalid {
                        what: format!("value `{v}` is neither a graph input nor a constant"),
                    });
                }
            };
            reads.push(read);
        }
        let kernel = self.kernel(0, &gp.program, jit, dynamic)?;
        Ok(Runner { prepared: self.clone(), kernel, reads, order, inputs: declared })
    }
}

/// A graph that runs as one program on the JIT, bound to its inputs by position and to
/// its compiled kernel ([`Prepared::runner`]): a call looks nothing up by name and
/// allocates nothing but the slice lists it hands the kernel. Buffers are dense
/// little-endian element bytes; every length is checked each call.
#[derive(Clone, Debug)]
pub struct Runner {
    /// Holds the graph's constants, which the program may read.
    prepared: std::sync::Arc<Prepared>,
    kernel: std::sync::Arc<crate::ProgramKernel>,
    /// Where each program input comes from.
    reads: Vec<Read>,
    /// Per graph output, in order: its program output.
    order: Vec<usize>,
    /// Each graph input's dtype and shape, in the runner's order.
    inputs: Vec<(DType, Vec<u64>)>,
}

/// Where a program input of a [`Runner`] comes from.
#[derive(Clone, Debug)]
enum Read {
    /// The graph input at this position of the runner's order.
    Input(usize),
    /// A graph constant, by name.
    Constant(String),
}

impl Runner {
    /// The graph inputs' dtypes and shapes, in the runner's order.
    pub fn inputs(&self) -> &[(DType, Vec<u64>)] {
        &self.inputs
    }

    /// The element type every input and output holds.
    pub fn dtype(&self) -> DType {
        self.kernel.dtype()
    }

    /// The graph outputs' shapes, in order.
    pub fn output_shapes(&self) -> impl ExactSizeIterator<Item = &[u64]> {
        self.order.iter().map(|&o| self.kernel.output_shapes()[o].as_slice())
    }

    /// Run: `inputs` the graph inputs' bytes in the runner's order (each of its dtype and
    /// shape: [`Runner::inputs`]), `outputs` the graph outputs' buffers in order, each
    /// exactly its bytes. Counts and lengths are checked.
    pub fn run(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<(), Error> {
        if inputs.len() != self.inputs.len() {
            return Err(Error::Mismatch {
                what: "graph inputs".into(),
                expected: format!("{} buffers", self.inputs.len()),
                found: inputs.len().to_string(),
            });
        }
        if outputs.len() != self.order.len() {
            return Err(Error::Mismatch {
                what: "graph outputs".into(),
                expected: format!("{} buffers", self.order.len()),
                found: outputs.len().to_string(),
            });
        }
        let prepared = &self.prepared;
        let failed = |e| group_error(&prepared.graph, &prepared.groups[0], e);
        // The common case, the program reading the graph inputs in their order and writing
        // the outputs in theirs, hands the caller's lists on as they are.
        let in_order = self.reads.iter().enumerate().all(|(i, r)| matches!(r, Read::Input(k) if *k == i))
            && self.reads.len() == inputs.len();
        let mut ins = Vec::new();
        if !in_order {
            let constants = &prepared.graph.constants;
            ins.reserve(self.reads.len());
            for read in &self.reads {
                ins.push(match read {
                    Read::Input(k) => inputs[*k],
                    // Checked to be bytes when the runner was made; the graph is not changed since.
                    Read::Constant(name) => constants.get(name).and_then(Tensor::bytes).unwrap_or_default(),
                });
            }
        }
        let ins = if in_order { inputs } else { ins.as_slice() };
        if self.order.iter().enumerate().all(|(i, &o)| i == o) {
            return self.kernel.run_buffers(ins, outputs).map_err(failed);
        }
        // The caller's buffers in the program's output order (`order` is a permutation).
        let mut slots: Vec<Option<&mut [u8]>> = (0..self.order.len()).map(|_| None).collect();
        for (buffer, &o) in outputs.iter_mut().zip(&self.order) {
            slots[o] = Some(&mut **buffer);
        }
        let mut outs: Vec<&mut [u8]> = slots.into_iter().flatten().collect();
        self.kernel.run_buffers(ins, &mut outs).map_err(failed)
    }
}

/// Whether node `k` reads `value` as a parameter (an input other than its data).
fn is_parameter(graph: &Graph, k: usize, value: &str) -> bool {
    let data = data_input(graph, k).ok().and_then(|(name, _)| name);
    graph.nodes[k].inputs.iter().any(|(input, v)| v == value && Some(input.as_str()) != data)
}

/// An error of a group's program, naming its nodes.
fn group_error(graph: &Graph, group: &Group, e: Error) -> Error {
    match group.nodes.as_slice() {
        [one] => node_error(graph, *one, e),
        nodes => {
            let labels: Vec<String> = nodes.iter().map(|&k| graph.nodes[k].label(k)).collect();
            Error::Invalid { what: format!("the program of {}: {e}", labels.join(", ")) }
        }
    }
}

/// Move each node's data given as a tensor of its request into the graph's constants
/// (named `<node's label>: <input>`), wired to the node.
fn wire_constant_data(graph: &mut Graph) -> Result<(), Error> {
    for k in 0..graph.nodes.len() {
        let (Some(name), variadic) = data_input(graph, k)? else { continue };
        let label = graph.nodes[k].label(k);
        let node = &mut graph.nodes[k];
        let tensors: Vec<Tensor> = match node.request.inputs.get(name) {
            Some(InputArg::Tensor(t)) if !variadic => vec![t.clone()],
            Some(InputArg::List(entries)) if entries.iter().all(|e| e.tensor().is_some()) && !entries.is_empty() => {
                entries.iter().filter_map(InputArg::tensor).cloned().collect()
            }
            _ => continue,
        };
        if node.inputs.iter().any(|(input, _)| input == name) {
            continue;
        }
        node.request.inputs.remove(name);
        for (i, t) in tensors.into_iter().enumerate() {
            let value = if variadic { format!("{label}: {name}[{i}]") } else { format!("{label}: {name}") };
            node.inputs.push((name.to_string(), value.clone()));
            graph.constants.insert(value, t);
        }
    }
    Ok(())
}

/// Run a graph on `inputs` (by name): [`Prepared::new`] then [`Prepared::run`].
pub fn run(
    graph: &Graph,
    inputs: &BTreeMap<String, Tensor>,
    backend: Backend<'_>,
) -> Result<Vec<(String, Tensor)>, Error> {
    Prepared::new(graph.clone())?.run(inputs, backend)
}

/// The oracle: every node on its own, in order, on the reference interpreter.
pub fn run_unfused_reference(graph: &Graph, inputs: &BTreeMap<String, Tensor>) -> Result<Vec<(String, Tensor)>, Error> {
    let order = graph.validate()?;
    graph.check_inputs(inputs)?;
    let mut values = graph.constants.clone();
    values.extend(inputs.iter().map(|(k, v)| (k.clone(), v.clone())));
    for k in order {
        let tensor = |v: &str| values.get(v).cloned();
        let data = |v: &str| values.get(v).cloned().map(InputArg::Tensor);
        let request = wired_request(graph, k, &tensor, &data)?;
        let outs = crate::run_reference_outputs(&request).map_err(|e| node_error(graph, k, e))?;
        if outs.len() != graph.nodes[k].outputs.len() {
            let what = format!("it writes {} outputs, the graph names {}", outs.len(), graph.nodes[k].outputs.len());
            return Err(node_error(graph, k, Error::Invalid { what }));
        }
        values.extend(graph.nodes[k].outputs.iter().cloned().zip(outs));
    }
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

/// Read an `.onnx` file's bytes (a regular file: a FIFO or device is refused, not waited on).
pub fn read_model(path: &std::path::Path) -> Result<Vec<u8>, crate::FileError> {
    use std::io::Read;
    let (file, len) = crate::file::open_regular(path, "cannot open")?;
    let mut bytes = Vec::new();
    // At most the length the file had when opened: memory in proportion to the file.
    file.take(len).read_to_end(&mut bytes).map_err(|e| crate::FileError::io(path, "cannot read", e))?;
    Ok(bytes)
}

/// [`kerfx_onnx::import`] for the tensors given (their dtypes and shapes), external data
/// from `base_dir` only. Run the graph with [`run`].
pub fn import_onnx(
    model: &[u8],
    inputs: &BTreeMap<String, Tensor>,
    base_dir: Option<&std::path::Path>,
) -> Result<Graph, kerfx_onnx::OnnxError> {
    let metas = inputs.iter().map(|(k, t)| (k.clone(), (t.dtype(), t.shape().to_vec()))).collect();
    kerfx_onnx::import_bytes(model, &metas, &kerfx_onnx::Options { base_dir })
}

/// An ONNX model to run on tensors of any shapes its inputs accept: imported
/// ([`kerfx_onnx::import`], the shape path folded) and cut into programs once per distinct
/// set of input dtypes and shapes, then reused.
pub struct OnnxModel {
    proto: kerfx_onnx::proto::ModelProto,
    base_dir: Option<std::path::PathBuf>,
    prepared: std::sync::Mutex<BTreeMap<Signature, std::sync::Arc<Prepared>>>,
}

/// The graph inputs' names, dtypes and shapes.
pub type Signature = Vec<(String, kerfx_ir::DType, Vec<u64>)>;

/// How many input signatures an [`OnnxModel`] keeps prepared; past that, one is dropped
/// to make room.
const PREPARED_SIGNATURES: usize = 64;

impl OnnxModel {
    /// Parse a model's bytes; external data is read from `base_dir` only (see
    /// [`kerfx_onnx::Options`]).
    pub fn new(bytes: &[u8], base_dir: Option<&std::path::Path>) -> Result<OnnxModel, kerfx_onnx::OnnxError> {
        Ok(OnnxModel {
            proto: kerfx_onnx::parse(bytes)?,
            base_dir: base_dir.map(std::path::Path::to_path_buf),
            prepared: std::sync::Mutex::new(BTreeMap::new()),
        })
    }

    /// The graph prepared for these inputs' dtypes and shapes.
    pub fn prepare(&self, inputs: &BTreeMap<String, Tensor>) -> Result<std::sync::Arc<Prepared>, ModelError> {
        self.prepare_for(inputs.iter().map(|(k, t)| (k.clone(), t.dtype(), t.shape().to_vec())).collect())
    }

    /// The graph prepared for inputs of these names, dtypes and shapes.
    pub fn prepare_for(&self, signature: Signature) -> Result<std::sync::Arc<Prepared>, ModelError> {
        // A poisoned lock only means another thread panicked while holding it: the map
        // is still whole (inserts are single calls).
        let lock = || self.prepared.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(hit) = lock().get(&signature) {
            return Ok(hit.clone());
        }
        let metas = signature.iter().map(|(k, d, s)| (k.clone(), (*d, s.clone()))).collect();
        let options = kerfx_onnx::Options { base_dir: self.base_dir.as_deref() };
        let graph = kerfx_onnx::import(&self.proto, &metas, &options)?;
        let prepared = std::sync::Arc::new(Prepared::new(graph)?);
        let mut map = lock();
        if map.len() >= PREPARED_SIGNATURES {
            map.pop_first();
        }
        map.insert(signature, prepared.clone());
        Ok(prepared)
    }

    /// Run on `inputs` (by name): prepared for their shapes, then [`Prepared::run`].
    pub fn run(
        &self,
        inputs: &BTreeMap<String, Tensor>,
        backend: Backend<'_>,
    ) -> Result<Vec<(String, Tensor)>, ModelError> {
        Ok(self.prepare(inputs)?.run(inputs, backend)?)
    }

    /// [`OnnxModel::prepare`] for inputs of these dtypes and shapes.
    pub fn prepare_views(
        &self,
        inputs: &BTreeMap<String, TensorView<'_>>,
    ) -> Result<std::sync::Arc<Prepared>, ModelError> {
        self.prepare_for(inputs.iter().map(|(k, t)| (k.clone(), t.dtype, t.shape.to_vec())).collect())
    }

    /// [`OnnxModel::run`] on views of the inputs (read in place, never copied).
    pub fn run_views(
        &self,
        inputs: &BTreeMap<String, TensorView<'_>>,
        backend: Backend<'_>,
    ) -> Result<Vec<(String, Tensor)>, ModelError> {
        Ok(self.prepare_views(inputs)?.run_views(inputs, backend)?)
    }
}

/// Why a model did not run: its import (a node kerf does not run, a bad model), or the
/// graph's run.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The model could not be imported.
    #[error(transparent)]
    Import(#[from] kerfx_onnx::OnnxError),
    /// The graph could not run.
    #[error(transparent)]
    Run(#[from] Error),
}

/// The Rust `#[derive(kerfx::Kernel)]` would generate for each program `graph` is cut into
/// (what `kerf expand` prints for a graph file). One program is one struct, `name`;
/// several are `name0`, `name1`, ... in the order they run, each headed by a comment
/// naming its nodes and the values it reads and writes (a caller passes each program's
/// outputs on as the next ones' inputs). A program built only when the graph runs (it
/// reads a parameter given at run time) has no code: an error naming it, as is a move
/// the derive cannot write ([`kerfx_codegen::expand_program`]).
pub fn expand(graph: &Graph, name: &str) -> Result<String, Error> {
    let prepared = Prepared::new(graph.clone())?;
    let graph = prepared.graph();
    let count = prepared.programs().len();
    let mut text = String::new();
    for (k, (group, program)) in prepared.groups().iter().zip(prepared.programs()).enumerate() {
        let labels: Vec<String> = group.nodes.iter().map(|&n| graph.nodes[n].label(n)).collect();
        let what = |e: String| Error::Invalid { what: format!("program {k} ({}): {e}", labels.join(", ")) };
        let Some(gp) = program else {
            return Err(what(
                "it reads a parameter given at run time, so it is built when the graph runs: the derive has no code \
                 for it"
                    .into(),
            ));
        };
        let struct_name = if count > 1 { format!("{name}{k}") } else { name.to_string() };
        let code = kerfx_codegen::expand_program(&gp.program, &struct_name).map_err(|e| what(e.to_string()))?;
        let quoted = |v: &[String]| v.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ");
        let head = if count > 1 { format!("Program {k} of {count}: ") } else { String::new() };
        text.push_str(&format!(
            "// {head}{}; reads {}, writes {}.\n{code}",
            labels.join(", "),
            quoted(&gp.reads),
            quoted(&gp.writes)
        ));
        if k + 1 < count {
            text.push('\n');
        }
    }
    Ok(text)
}
