//! Request files: the TOML form of a [`Request`] that the CLI and the conformance
//! suite read.
//!
//! ```toml
//! op = "onnx.slice"     # spec id
//! version = 13          # optional: the op set (default: the newest)
//! [attributes]          # static parameters: integers, floats, strings, lists
//! axes = [0, 1]
//! [inputs]              # by input name:
//! data = "x.npy"        # a .npy file, relative to this file
//! starts = [1, 0]       # a list of integers: a 1-D i64 tensor
//! ends = { dtype = "i32", shape = [2], values = [2, 3] }   # an inline tensor
//! steps = { path = "steps.npy" }                          # a .npy file as a table
//! ```
//!
//! Inputs in full:
//!
//! - `"x.npy"` or `{ path = "x.npy" }`: the array in the file, its own dtype;
//!   `{ path = "x.npy", dtype = "bf16" }` applies kerf's `.npy` convention for types
//!   numpy lacks ([`crate::npy`]): same-width bits reinterpreted, `i4`/`u4` packed.
//! - a number: a scalar (0-d tensor) — an integer is `i64`, a float `f64`; `true`/`false`
//!   is a `bool` scalar.
//! - a list of integers: a 1-D `i64` tensor (`[]` is an empty one); a list with a float
//!   in it is a 1-D `f64` tensor; a list of booleans a 1-D `bool` tensor.
//! - `{ dtype, shape, values }`: an inline tensor, `values` row-major (nested lists are
//!   flattened; complex elements are `[re, im]` or a real number; strings for `string`;
//!   which values suit which dtype is the one rule of `specs/SEMANTICS.md`, "Inline tensor
//!   values", in [`kerfx_spec::literal`]).
//!   `shape` may be left out for a 1-D tensor.
//! - `{ dtype, shape }` alone ("bench form"): dtype and shape only, contents unspecified
//!   ([`InputArg::Meta`]). Enough to compile a kernel or benchmark it; running the
//!   reference on it needs values.
//!
//! TOML syntax errors and keys of the wrong type report the file, line and column.
//!
//! A request file is a regular file of at most [`MAX_REQUEST_BYTES`] (64 MiB). Large lists
//! (inline `values` and `shape`, attributes, list inputs) are read element by element, not
//! as a tree of TOML values, so they take about their text and their own values in memory;
//! the rest may make at most [`MAX_TOML_NODES`] TOML values, keys and tables, counted
//! before it is parsed.

use crate::error::{FileError, line_column, line_columns};
use kerfx_ir::tensor::Strings;
use kerfx_ir::{AttrValue, DType, InputArg, Request, Tensor};
use kerfx_spec::literal::{self, describe, element_error};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use toml::{Spanned, Value};

mod values;

/// A request read from a file, with where each of its entries was written.
#[derive(Clone, Debug)]
pub struct RequestFile {
    /// The file it was read from.
    pub path: PathBuf,
    /// The request the file states (inputs read from their `.npy` files).
    pub request: Request,
    /// (line, column) of `op`, `version`, `attributes.NAME`, `inputs.NAME`.
    spans: BTreeMap<String, (usize, usize)>,
    /// The `.npy` files its inputs were read from.
    npy_paths: Vec<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRequest {
    op: Spanned<String>,
    #[serde(default)]
    version: Option<Spanned<i64>>,
    #[serde(default)]
    attributes: BTreeMap<Spanned<String>, Spanned<Value>>,
    #[serde(default)]
    inputs: BTreeMap<Spanned<String>, Spanned<Value>>,
    /// The output count, where the op's attributes and inputs do not fix it.
    #[serde(default)]
    outputs: Option<Spanned<i64>>,
}

/// The longest request file kerf reads. A request is a few lines; large tensors belong
/// in `.npy` files, which are read in proportion to their data.
pub const MAX_REQUEST_BYTES: u64 = 64 << 20;

/// Read and parse a request file. Relative `.npy` paths are resolved against its directory.
/// It must be a regular file of at most [`MAX_REQUEST_BYTES`].
pub fn load(path: &Path) -> Result<RequestFile, FileError> {
    let too_long = |len: u64| FileError::Request {
        path: path.to_path_buf(),
        line: None,
        column: None,
        detail: format!(
            "the file is {len} bytes; kerf reads request files of at most {} MiB (put large tensors in .npy files)",
            MAX_REQUEST_BYTES >> 20
        ),
    };
    let (file, len) = crate::file::open_regular(path, "cannot read")?;
    if len > MAX_REQUEST_BYTES {
        return Err(too_long(len));
    }
    let mut text = String::new();
    file.take(MAX_REQUEST_BYTES + 1).read_to_string(&mut text).map_err(|e| FileError::io(path, "cannot read", e))?;
    if text.len() as u64 > MAX_REQUEST_BYTES {
        return Err(too_long(text.len() as u64));
    }
    parse(&text, path)
}

/// The most values, keys and tables kerf lets the TOML parser build a tree of, outside the
/// large lists it reads itself, element by element. A node of that tree takes 100–400 bytes
/// (`[attributes.aN]` headers: 1.4 GB for 62 MB), so this bounds the tree to about 100 MB
/// whatever the file; a 10,000-step chain is about 110,000.
pub const MAX_TOML_NODES: usize = 250_000;

/// The text with its large lists cut out, for the TOML parser; a file whose tree would
/// hold more than [`MAX_TOML_NODES`] is refused here, before it is parsed.
fn cut<'a>(text: &'a str, path: &Path) -> Result<(std::borrow::Cow<'a, str>, values::Lists), FileError> {
    let (cut, lists) = values::cut_large_lists(text);
    if lists.nodes > MAX_TOML_NODES {
        return Err(FileError::Request {
            path: path.to_path_buf(),
            line: None,
            column: None,
            detail: format!(
                "the file holds about {} keys, tables and list elements; kerf reads at most {MAX_TOML_NODES} \
                 (lists of at least {} bytes not counted: put large tensors in .npy files or inline `values`)",
                lists.nodes,
                values::LARGE
            ),
        });
    }
    Ok((cut, lists))
}

/// Parse request text; `path` names it in errors and its directory resolves `.npy` paths.
pub fn parse(text: &str, path: &Path) -> Result<RequestFile, FileError> {
    // Large lists are read by `values`, not as a tree of TOML values; positions in the text
    // the TOML parser sees map back to this text's.
    let (cut, lists) = cut(text, path)?;
    let raw: RawRequest = toml::from_str(&cut).map_err(|e| syntax_error(text, &lists, path, e))?;
    let step = from_raw(&raw, text, &lists, path)?;
    Ok(locate_entries(text, vec![step]).remove(0))
}

/// A request read from its TOML, with the byte offset of each entry it will locate.
type Unlocated = (RequestFile, Vec<(String, usize)>);

/// The requests of one file with their entries' lines and columns, found in one pass
/// over the text for all of them.
fn locate_entries(text: &str, files: Vec<Unlocated>) -> Vec<RequestFile> {
    let offsets: Vec<usize> = files.iter().flat_map(|(_, o)| o.iter().map(|(_, at)| *at)).collect();
    let mut places = line_columns(text, &offsets).into_iter();
    files
        .into_iter()
        .map(|(mut file, offsets)| {
            file.spans = offsets.into_iter().zip(places.by_ref()).map(|((key, _), place)| (key, place)).collect();
            file
        })
        .collect()
}

fn syntax_error(text: &str, lists: &values::Lists, path: &Path, e: toml::de::Error) -> FileError {
    let (line, column) = e.span().map(|s| line_column(text, lists.original(s.start))).unwrap_or((1, 1));
    FileError::Syntax { path: path.to_path_buf(), line, column, message: one_line(e.message()) }
}

/// A request built from its parsed TOML (one request file, or one step of a chain file).
/// Entries are located by byte offset only: their lines and columns are found for the
/// whole file at once ([`locate_entries`]); an error is located when it is made.
fn from_raw(raw: &RawRequest, text: &str, lists: &values::Lists, path: &Path) -> Result<Unlocated, FileError> {
    let base = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let at = |span: std::ops::Range<usize>| lists.original(span.start);
    let err = |span: std::ops::Range<usize>, detail: String| {
        let (l, c) = line_column(text, at(span));
        FileError::Request { path: path.to_path_buf(), line: Some(l), column: Some(c), detail }
    };

    let mut spans = Vec::new();
    let mut request = Request::new(raw.op.get_ref());
    spans.push(("op".to_string(), at(raw.op.span())));
    if let Some(v) = &raw.version {
        let n = u32::try_from(*v.get_ref())
            .map_err(|_| err(v.span(), format!("version {} is not a version number", v.get_ref())))?;
        request.version = Some(n);
        spans.push(("version".to_string(), at(v.span())));
    }
    let cut_of =
        |span: std::ops::Range<usize>| Cut::of(text, lists, lists.original(span.start)..lists.original(span.end));
    for (name, value) in &raw.attributes {
        let not_attribute = |what: String| {
            format!(
                "attribute `{}`: {what} is not an attribute value (an integer, a float, a string, a boolean or a list of numbers)",
                name.get_ref()
            )
        };
        let a = match cut_of(value.span()).whole {
            Some(list) => attribute_from_list(list).map_err(|e| match e {
                ListError::Element(what) => err(value.span(), not_attribute(what)),
                ListError::Other(m) => err(value.span(), format!("attribute `{}`: {m}", name.get_ref())),
            })?,
            None => AttrValue::from_toml(value.get_ref())
                .ok_or_else(|| err(value.span(), not_attribute(describe(value.get_ref()))))?,
        };
        request.attributes.insert(name.get_ref().clone(), a);
        spans.push((format!("attributes.{}", name.get_ref()), at(name.span())));
    }
    if let Some(n) = &raw.outputs {
        let count = u32::try_from(*n.get_ref())
            .ok()
            .filter(|&c| c >= 1)
            .ok_or_else(|| err(n.span(), format!("outputs = {}: an output count is at least 1", n.get_ref())))?;
        request.outputs = Some(count);
        spans.push(("outputs".to_string(), at(n.span())));
    }
    // Whether an input takes a list of tensors is the spec's to say, never the value's
    // (an unknown op is the lowering's error).
    let spec = kerfx_ir::frontend::spec(raw.op.get_ref()).ok();
    let variadic = |name: &str| spec.and_then(|s| s.input(name)).is_some_and(|i| i.variadic);
    let mut npy_paths = Vec::new();
    for (name, value) in &raw.inputs {
        let message = |e: InputError| match e {
            InputError::Message(m) => err(value.span(), format!("input `{}`: {m}", name.get_ref())),
            InputError::File(f) => f,
        };
        let entries: Vec<&Value> = match value.get_ref() {
            Value::Array(items) if variadic(name.get_ref()) => items.iter().collect(),
            other => vec![other],
        };
        for v in &entries {
            if let Some(p) = npy_path(v) {
                npy_paths.push(base.join(p));
            }
        }
        let input = if variadic(name.get_ref()) {
            variadic_input(value.get_ref(), &base, cut_of(value.span())).map_err(message)?
        } else {
            input_from_value_with(value.get_ref(), &base, cut_of(value.span())).map_err(message)?
        };
        request.inputs.insert(name.get_ref().clone(), input);
        spans.push((format!("inputs.{}", name.get_ref()), at(name.span())));
    }
    Ok((RequestFile { path: path.to_path_buf(), request, spans: BTreeMap::new(), npy_paths }, spans))
}

/// A chain file: `[[steps]]`, each a request table (`op`, `version`, `attributes`,
/// `inputs`); every step after the first reads the previous step's output as its data
/// input and names none.
///
/// ```toml
/// [[steps]]
/// op = "onnx.pad"
/// version = 19
/// [steps.attributes]
/// mode = "reflect"
/// [steps.inputs]
/// data = "x.npy"
/// pads = [0, 2, 0, 2]
///
/// [[steps]]
/// op = "onnx.slice"
/// [steps.inputs]
/// starts = [1]
/// ends = [-1]
/// axes = [0]
/// ```
#[derive(Clone, Debug)]
pub struct ChainFile {
    /// The file it was read from.
    pub path: PathBuf,
    /// One per step, in order (each with its entries' positions in the file).
    pub steps: Vec<RequestFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChain {
    steps: Vec<RawRequest>,
}

impl ChainFile {
    /// The chain the steps make.
    pub fn chain(&self) -> kerfx_ir::chain::ChainRequest {
        kerfx_ir::chain::ChainRequest { steps: self.steps.iter().map(|s| s.request.clone()).collect() }
    }
    /// The `.npy` files the steps' inputs were read from.
    pub fn npy_paths(&self) -> Vec<PathBuf> {
        self.steps.iter().flat_map(|s| s.npy_paths.iter().cloned()).collect()
    }
    /// An error as one line naming this file, and for an error of one step the line and
    /// column of the entry it is about.
    pub fn describe_error(&self, e: &kerfx_ir::Error) -> String {
        if let kerfx_ir::Error::Step { step, source, .. } = e
            && let Some((l, c)) = self.steps.get(step.wrapping_sub(1)).and_then(|s| s.locate(source))
        {
            return format!("{}:{l}:{c}: {e}", self.path.display());
        }
        format!("{}: {e}", self.path.display())
    }
}

/// A graph file: named values and the nodes that read and write them (ONNX-style), for
/// any vendor's ops. `[inputs]` gives the graph inputs in any input form of a request
/// file (a `.npy` path, an inline tensor; the bench form, dtype and shape only, gives no
/// values to run on); each `[[nodes]]` is a request table (`op`, `version`,
/// `attributes`, `inputs` for its constant inputs) with `reads` (its input name → the
/// value it reads; a list of values for a variadic input, Concat's) and `writes` (the
/// values its outputs define, in order); `outputs` names the values the graph returns.
///
/// ```toml
/// outputs = ["y"]
/// [inputs]
/// x = "x.npy"
/// [[nodes]]
/// op = "onnx.slice"
/// version = 13
/// reads = { data = "x" }
/// writes = ["a"]
/// [nodes.inputs]
/// starts = [3]
/// ends = [8]
/// axes = [1]
/// [[nodes]]
/// op = "onnx.concat"
/// reads = { inputs = ["a", "x"] }
/// writes = ["y"]
/// [nodes.attributes]
/// axis = 1
/// ```
#[derive(Clone, Debug)]
pub struct GraphFile {
    /// The file it was read from.
    pub path: PathBuf,
    /// The graph (its inputs' dtypes and shapes those of the values given).
    pub graph: kerfx_ir::graph::Graph,
    /// The values of the graph inputs given with values, by name.
    pub inputs: BTreeMap<String, Tensor>,
    /// Each node's request as a request file (its entries' lines and columns), in order.
    pub nodes: Vec<RequestFile>,
    npy_paths: Vec<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGraph {
    #[serde(default)]
    inputs: BTreeMap<Spanned<String>, Spanned<Value>>,
    nodes: Vec<RawNode>,
    outputs: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNode {
    #[serde(default)]
    name: Option<String>,
    op: Spanned<String>,
    #[serde(default)]
    version: Option<Spanned<i64>>,
    #[serde(default)]
    attributes: BTreeMap<Spanned<String>, Spanned<Value>>,
    #[serde(default)]
    inputs: BTreeMap<Spanned<String>, Spanned<Value>>,
    #[serde(default)]
    reads: BTreeMap<Spanned<String>, Spanned<Value>>,
    writes: Vec<String>,
}

impl GraphFile {
    /// The `.npy` files its inputs and nodes read.
    pub fn npy_paths(&self) -> &[PathBuf] {
        &self.npy_paths
    }
}

/// Whether text is a graph file (its top level has `nodes`), told without building a
/// tree of its TOML values.
pub fn is_graph(text: &str) -> bool {
    let (cut, _) = values::cut_large_lists(text);
    probe(&cut).1
}

/// Read a graph file as [`load`] reads a request file.
pub fn load_graph(path: &Path) -> Result<GraphFile, FileError> {
    let text = read_text(path)?.ok_or_else(|| FileError::Request {
        path: path.to_path_buf(),
        line: None,
        column: None,
        detail: format!("the file is longer than {} MiB, the most kerf reads of a graph file", MAX_REQUEST_BYTES >> 20),
    })?;
    parse_graph(&text, path)
}

/// Parse a graph file; `path` names it in errors and its directory resolves `.npy` paths.
pub fn parse_graph(text: &str, path: &Path) -> Result<GraphFile, FileError> {
    use kerfx_ir::graph::{Graph, GraphInput, Node};
    let (cut, lists) = cut(text, path)?;
    let raw: RawGraph = toml::from_str(&cut).map_err(|e| syntax_error(text, &lists, path, e))?;
    let err = |span: std::ops::Range<usize>, detail: String| {
        let (l, c) = line_column(text, lists.original(span.start));
        FileError::Request { path: path.to_path_buf(), line: Some(l), column: Some(c), detail }
    };
    // The graph inputs, read as a request's inputs are.
    let inputs = RawRequest {
        op: Spanned::new(0..0, String::new()),
        version: None,
        attributes: BTreeMap::new(),
        inputs: raw.inputs,
        outputs: None,
    };
    let (given, _) = from_raw(&inputs, text, &lists, path)?;
    let mut graph = Graph { outputs: raw.outputs, ..Graph::default() };
    let mut values = BTreeMap::new();
    for (name, arg) in &given.request.inputs {
        let (dtype, shape) = match arg {
            InputArg::Tensor(t) => {
                values.insert(name.clone(), t.clone());
                (t.dtype(), t.shape().to_vec())
            }
            InputArg::Meta { dtype, shape } => (*dtype, shape.clone()),
            InputArg::List(_) => {
                return Err(FileError::Request {
                    path: path.to_path_buf(),
                    line: None,
                    column: None,
                    detail: format!("input `{name}`: a list of tensors is not a graph input"),
                });
            }
        };
        graph.inputs.push(GraphInput { name: name.clone(), dtype, shape });
    }
    let mut npy_paths = given.npy_paths;
    let mut nodes = Vec::with_capacity(raw.nodes.len());
    for node in raw.nodes {
        let mut wires = Vec::new();
        for (input, value) in &node.reads {
            let bad = || err(value.span(), format!("reads.{}: a value's name, or a list of names", input.get_ref()));
            match value.get_ref() {
                Value::String(v) => wires.push((input.get_ref().clone(), v.clone())),
                Value::Array(items) => {
                    for item in items {
                        wires.push((input.get_ref().clone(), item.as_str().ok_or_else(bad)?.to_string()));
                    }
                }
                _ => return Err(bad()),
            }
        }
        let request = RawRequest {
            op: node.op,
            version: node.version,
            attributes: node.attributes,
            inputs: node.inputs,
            outputs: None,
        };
        let unlocated = from_raw(&request, text, &lists, path)?;
        let mut file = locate_entries(text, vec![unlocated]).remove(0);
        // A variadic output (Split's) writes as many tensors as the node names.
        let variadic_output = kerfx_ir::frontend::spec(&file.request.op).is_ok_and(|s| s.variadic_output());
        if variadic_output {
            file.request.outputs = u32::try_from(node.writes.len()).ok();
        }
        npy_paths.extend(file.npy_paths.iter().cloned());
        graph.nodes.push(Node {
            name: node.name.unwrap_or_default(),
            request: file.request.clone(),
            inputs: wires,
            outputs: node.writes,
        });
        nodes.push(file);
    }
    graph.validate().map_err(|e| FileError::Request {
        path: path.to_path_buf(),
        line: None,
        column: None,
        detail: e.to_string(),
    })?;
    Ok(GraphFile { path: path.to_path_buf(), graph, inputs: values, nodes, npy_paths })
}

/// A request file or a chain file.
#[derive(Clone, Debug)]
pub enum AnyFile {
    /// A file of one request.
    Request(RequestFile),
    /// A file of `[[steps]]`.
    Chain(ChainFile),
}

impl AnyFile {
    /// The file it was read from.
    pub fn path(&self) -> &Path {
        match self {
            AnyFile::Request(f) => &f.path,
            AnyFile::Chain(f) => &f.path,
        }
    }
    /// An error as one line naming this file (and the entry's line and column, when
    /// known).
    pub fn describe_error(&self, e: &kerfx_ir::Error) -> String {
        match self {
            AnyFile::Request(f) => f.describe_error(e),
            AnyFile::Chain(f) => f.describe_error(e),
        }
    }
}

/// Read a request file or a chain file (one with `[[steps]]`), as [`load`] does.
pub fn load_any(path: &Path) -> Result<AnyFile, FileError> {
    match read_text(path)? {
        Some(text) => parse_any(&text, path),
        // `load` reports the size.
        None => load(path).map(AnyFile::Request),
    }
}

/// A file's text, or `None` when it is longer than [`MAX_REQUEST_BYTES`].
fn read_text(path: &Path) -> Result<Option<String>, FileError> {
    let (file, len) = crate::file::open_regular(path, "cannot read")?;
    if len > MAX_REQUEST_BYTES {
        return Ok(None);
    }
    let mut text = String::new();
    file.take(MAX_REQUEST_BYTES + 1).read_to_string(&mut text).map_err(|e| FileError::io(path, "cannot read", e))?;
    Ok((text.len() as u64 <= MAX_REQUEST_BYTES).then_some(text))
}

/// A request, chain or graph file.
#[derive(Clone, Debug)]
pub enum RunFile {
    /// A request or chain file.
    Any(AnyFile),
    /// A graph file.
    Graph(GraphFile),
}

/// Read a request, chain or graph file (`kerf run`'s), the text probed once.
pub fn load_run_file(path: &Path) -> Result<RunFile, FileError> {
    match read_text(path)? {
        Some(text) => parse_run_file(&text, path),
        None => load(path).map(|f| RunFile::Any(AnyFile::Request(f))),
    }
}

/// Parse a request, chain or graph file.
pub fn parse_run_file(text: &str, path: &Path) -> Result<RunFile, FileError> {
    let (cut, lists) = cut(text, path)?;
    match probe(&cut) {
        (_, true) => parse_graph(text, path).map(RunFile::Graph),
        (steps, false) => parse_probed(text, path, &cut, &lists, steps).map(RunFile::Any),
    }
}

/// Whether the top level has `steps`, and whether it has `nodes`, told without building a
/// tree of TOML values (one probe: a probe of a large file costs memory).
fn probe(cut: &str) -> (bool, bool) {
    #[derive(Deserialize)]
    struct Probe {
        steps: Option<serde::de::IgnoredAny>,
        nodes: Option<serde::de::IgnoredAny>,
    }
    toml::from_str::<Probe>(cut).map_or((false, false), |p| (p.steps.is_some(), p.nodes.is_some()))
}

/// Parse a request file or a chain file: a chain file is one whose top level has `steps`.
pub fn parse_any(text: &str, path: &Path) -> Result<AnyFile, FileError> {
    let (cut, lists) = cut(text, path)?;
    match probe(&cut) {
        (_, true) => Err(FileError::Request {
            path: path.to_path_buf(),
            line: None,
            column: None,
            detail: "a graph file ([[nodes]]): `kerf run`, `clif`, `expand` and `bench` take it; this takes a request or chain file".into(),
        }),
        (steps, false) => parse_probed(text, path, &cut, &lists, steps),
    }
}

/// [`parse_any`] once probed: `steps` says whether it is a chain file.
fn parse_probed(text: &str, path: &Path, cut: &str, lists: &values::Lists, steps: bool) -> Result<AnyFile, FileError> {
    if !steps {
        return parse(text, path).map(AnyFile::Request);
    }
    let raw: RawChain = toml::from_str(cut).map_err(|e| syntax_error(text, lists, path, e))?;
    if raw.steps.is_empty() {
        return Err(FileError::Request {
            path: path.to_path_buf(),
            line: None,
            column: None,
            detail: "`steps` is empty: a chain has at least one step".into(),
        });
    }
    let steps = raw.steps.iter().map(|r| from_raw(r, text, lists, path)).collect::<Result<Vec<_>, _>>()?;
    let steps = locate_entries(text, steps);
    Ok(AnyFile::Chain(ChainFile { path: path.to_path_buf(), steps }))
}

/// The `.npy` path an input value names, if it names one.
fn npy_path(v: &Value) -> Option<&str> {
    match v {
        Value::String(p) => Some(p),
        Value::Table(t) => t.get("path").and_then(Value::as_str),
        _ => None,
    }
}

impl RequestFile {
    /// The `.npy` files the inputs were read from (relative ones joined to the file's directory).
    pub fn npy_paths(&self) -> &[PathBuf] {
        &self.npy_paths
    }

    /// Where an entry was written: `op`, `version`, `attributes.NAME` or `inputs.NAME`.
    pub fn location_of(&self, key: &str) -> Option<(usize, usize)> {
        self.spans.get(key).copied()
    }

    /// Where the entry a lowering error is about was written, when it names one (a
    /// rule's attribute, or the input given in its place).
    pub fn locate(&self, e: &kerfx_ir::Error) -> Option<(usize, usize)> {
        use kerfx_ir::About;
        let entry = |table: &str, name: &str| self.location_of(&format!("{table}.{name}"));
        match e.about()? {
            About::Op => self.location_of("op"),
            About::Version => self.location_of("version"),
            About::Attribute(n) => entry("attributes", n),
            About::Input(n) => entry("inputs", n),
            About::Name(n) => entry("attributes", n).or_else(|| entry("inputs", n)),
        }
    }

    /// A lowering or run error as one line naming this file (and the entry's line and
    /// column when the error is about one entry).
    pub fn describe_error(&self, e: &kerfx_ir::Error) -> String {
        match self.locate(e) {
            Some((l, c)) => format!("{}:{l}:{c}: {e}", self.path.display()),
            None => format!("{}: {e}", self.path.display()),
        }
    }

    /// Every problem of a lowering error (a request's every error), one line each, as
    /// [`RequestFile::describe_error`] writes them.
    /// They come in the order of the file (errors about no entry last).
    pub fn describe_errors(&self, e: &kerfx_ir::Error) -> Vec<String> {
        let mut list: Vec<&kerfx_ir::Error> = e.list().iter().collect();
        // Each located once (a request may have 100,000 errors).
        list.sort_by_cached_key(|e| self.locate(e).unwrap_or((usize::MAX, 0)));
        list.into_iter().map(|e| self.describe_error(e)).collect()
    }
}

/// Why an input value could not be read.
pub enum InputError {
    /// Something about the TOML value itself.
    Message(String),
    /// A `.npy` file it names could not be read (the error names that file).
    File(FileError),
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputError::Message(m) => f.write_str(m),
            InputError::File(e) => write!(f, "{e}"),
        }
    }
}

impl From<String> for InputError {
    fn from(s: String) -> Self {
        InputError::Message(s)
    }
}

/// One input's TOML value → an input; `.npy` paths are resolved against `base`.
/// Shared by request files and spec examples.
pub fn input_from_value(v: &Value, base: &Path) -> Result<InputArg, InputError> {
    input_from_value_with(v, base, Cut::default())
}

/// The large lists of one entry that were cut from the text the TOML parser read (see
/// [`values`]), by where they were.
#[derive(Clone, Copy, Default)]
struct Cut<'a> {
    /// The entry's value itself (an attribute or a list input).
    whole: Option<&'a str>,
    /// An inline tensor's `values`.
    values: Option<&'a str>,
    /// An inline tensor's `shape`.
    shape: Option<&'a str>,
}

impl<'a> Cut<'a> {
    /// The cut lists of the value at `span` of `text`.
    fn of(text: &'a str, lists: &values::Lists, span: std::ops::Range<usize>) -> Cut<'a> {
        let mut cut = Cut::default();
        for (r, key) in lists.within(span.clone()) {
            let list = Some(&text[r.clone()]);
            match key {
                _ if r.start == span.start => cut.whole = list,
                "values" => cut.values = list,
                "shape" => cut.shape = list,
                _ => {}
            }
        }
        cut
    }
}

/// Why a cut list is not what its place takes.
enum ListError {
    /// An element that does not belong, described ("the string \"x\" (element 3)").
    Element(String),
    /// Anything else, in full.
    Other(String),
}

/// The elements of a cut list that holds no nested lists, each as a TOML value.
fn for_each_value(list: &str, f: &mut dyn FnMut(u64, Value) -> Result<(), ListError>) -> Result<(), ListError> {
    let mut i = 0u64;
    let mut failed = None;
    let walked = values::for_each_flat(list, &mut |raw| {
        let v = values::value(raw).map_err(|m| format!("value {i}: {m}"))?;
        if let Err(e) = f(i, v) {
            failed = Some(e);
            return Err(String::new());
        }
        i += 1;
        Ok(())
    });
    match (walked, failed) {
        (_, Some(e)) => Err(e),
        (Err(m), None) => Err(ListError::Other(m)),
        (Ok(()), None) => Ok(()),
    }
}

/// A vector of `n` elements, or the error that it cannot be allocated.
fn vec_of<T>(n: u64) -> Result<Vec<T>, ListError> {
    let too_large = || ListError::Other(format!("a list of {n} elements is too large to allocate"));
    let mut v = Vec::new();
    v.try_reserve_exact(usize::try_from(n).map_err(|_| too_large())?).map_err(|_| too_large())?;
    Ok(v)
}

/// A cut attribute list → an integer or float list (as [`AttrValue::from_toml`] reads a
/// list), one element at a time: a first pass finds the type and count, a second stores.
fn attribute_from_list(list: &str) -> Result<AttrValue, ListError> {
    let (mut n, mut ints) = (0u64, true);
    for_each_value(list, &mut |i, v| {
        match v {
            Value::Integer(_) => {}
            Value::Float(_) => ints = false,
            other => return Err(ListError::Element(format!("{} (element {i} of a list)", describe(&other)))),
        }
        n += 1;
        Ok(())
    })?;
    if ints {
        let mut out = vec_of(n)?;
        for_each_value(list, &mut |_, v| {
            out.extend(v.as_integer());
            Ok(())
        })?;
        return Ok(AttrValue::IntList(out));
    }
    let mut out = vec_of(n)?;
    for_each_value(list, &mut |_, v| {
        out.extend(v.as_float().or(v.as_integer().map(|i| i as f64)));
        Ok(())
    })?;
    Ok(AttrValue::FloatList(out))
}

/// A cut list input → a 1-D tensor by the rule of list inputs (integers: i64; with a float:
/// f64; booleans: bool).
fn list_input_from_list(list: &str) -> Result<Tensor, String> {
    let (mut ints, mut bools, mut numbers) = (true, true, true);
    for_each_value(list, &mut |i, v| {
        ints &= v.is_integer();
        bools &= v.is_bool();
        numbers &= v.is_integer() || v.is_float();
        if !(bools || numbers) {
            return Err(ListError::Element(format!(
                "a list input holds integers (a 1-D i64 tensor), floats or booleans, found {} (element {i})",
                describe(&v)
            )));
        }
        Ok(())
    })
    .map_err(|(ListError::Element(m) | ListError::Other(m))| m)?;
    let dtype = if ints {
        DType::I64
    } else if bools {
        DType::Bool
    } else {
        DType::F64
    };
    tensor_from_list(dtype, None, list)
}

/// A cut `shape` list → its dimensions.
fn shape_from_list(list: &str) -> Result<Vec<u64>, String> {
    let mut n = 0u64;
    for_each_value(list, &mut |_, _| {
        n += 1;
        Ok(())
    })
    .and_then(|()| {
        let mut dims = vec_of(n)?;
        for_each_value(list, &mut |_, d| match d {
            Value::Integer(i) if i >= 0 => {
                dims.push(i as u64);
                Ok(())
            }
            other => Err(ListError::Other(format!("`shape` entries are integers ≥ 0, found {}", describe(&other)))),
        })?;
        Ok(dims)
    })
    .map_err(|(ListError::Element(m) | ListError::Other(m))| m)
}

/// As [`input_from_value`]; `cut` holds the input's lists that were large enough to be cut
/// from the text the TOML parser reads (see [`values`]).
fn input_from_value_with(v: &Value, base: &Path, cut: Cut) -> Result<InputArg, InputError> {
    match v {
        Value::String(p) => read_npy(base, p, None),
        Value::Integer(i) => Ok(scalar_tensor(DType::I64, *i as u64 as u128).into()),
        Value::Float(f) => Ok(scalar_tensor(DType::F64, f.to_bits() as u128).into()),
        Value::Boolean(b) => Ok(scalar_tensor(DType::Bool, u128::from(*b)).into()),
        Value::Array(_) if cut.whole.is_some() => Ok(list_input_from_list(cut.whole.unwrap_or_default())?.into()),
        Value::Array(items) => {
            let dtype = if items.iter().all(Value::is_integer) {
                DType::I64
            } else if items.iter().all(Value::is_bool) {
                DType::Bool
            } else if items.iter().all(|x| x.is_integer() || x.is_float()) {
                DType::F64
            } else {
                return Err(format!(
                    "a list input holds integers (a 1-D i64 tensor), floats or booleans, found {}",
                    describe(v)
                )
                .into());
            };
            Ok(tensor_from_values(dtype, &[items.len() as u64], items)?.into())
        }
        Value::Table(t) => {
            let known = ["path", "dtype", "shape", "values"];
            if let Some(k) = t.keys().find(|k| !known.contains(&k.as_str())) {
                return Err(format!("unknown key `{k}` in an input table (known: path, dtype, shape, values)").into());
            }
            let dtype = match t.get("dtype") {
                None => None,
                Some(Value::String(s)) => Some(s.parse::<DType>().map_err(|e| e.to_string())?),
                Some(other) => return Err(format!("`dtype` must be a string, found {}", describe(other)).into()),
            };
            if let Some(p) = t.get("path") {
                if t.contains_key("shape") || t.contains_key("values") {
                    return Err("an input with `path` takes no `shape` or `values` (the file has them)"
                        .to_string()
                        .into());
                }
                let Value::String(p) = p else {
                    return Err(format!("`path` must be a string, found {}", describe(p)).into());
                };
                return read_npy(base, p, dtype);
            }
            let dtype = dtype.ok_or_else(|| {
                "an inline tensor needs `dtype` (and `shape`, and `values` unless only dtype and shape are meant)"
                    .to_string()
            })?;
            let shape = match t.get("shape") {
                None => None,
                Some(_) if cut.shape.is_some() => Some(shape_from_list(cut.shape.unwrap_or_default())?),
                Some(Value::Array(a)) => Some(
                    a.iter()
                        .map(|d| match d {
                            Value::Integer(i) if *i >= 0 => Ok(*i as u64),
                            other => Err(format!("`shape` entries are integers ≥ 0, found {}", describe(other))),
                        })
                        .collect::<Result<Vec<u64>, String>>()?,
                ),
                Some(other) => {
                    return Err(format!("`shape` must be a list of integers, found {}", describe(other)).into());
                }
            };
            match (shape, t.get("values")) {
                (shape, Some(Value::Array(a))) if a.is_empty() && cut.values.is_some() => {
                    Ok(tensor_from_list(dtype, shape.as_deref(), cut.values.unwrap_or_default())?.into())
                }
                (Some(shape), None) => Ok(InputArg::Meta { dtype, shape }),
                (None, None) => Err("an inline tensor needs `shape` (and `values`)".to_string().into()),
                (shape, Some(Value::Array(values))) => {
                    let shape = shape.unwrap_or_else(|| vec![literal::flatten(values, dtype).len() as u64]);
                    Ok(tensor_from_values(dtype, &shape, values)?.into())
                }
                (_, Some(other)) => Err(format!("`values` must be a list, found {}", describe(other)).into()),
            }
        }
        Value::Datetime(_) => Err("a date is not an input value".to_string().into()),
    }
}

/// A variadic input's value: a TOML array whose entries are each written as one input is
/// (paths, `{ path, dtype }` tables, inline tensors, integer lists, numbers).
fn variadic_input(v: &Value, base: &Path, cut: Cut) -> Result<InputArg, InputError> {
    let Value::Array(items) = v else {
        return Err(
            format!("a variadic input is a list of tensors (paths, tables or lists), found {}", describe(v)).into()
        );
    };
    let mut entries = Vec::new();
    if let Some(list) = cut.whole {
        // A long list of paths or numbers, cut from the text: its elements one by one.
        let mut failed = None;
        let read = for_each_value(list, &mut |k, item| {
            match input_from_value_with(&item, base, Cut::default()) {
                Ok(input) => entries.push(input),
                Err(e) => {
                    failed = Some((k, e));
                    return Err(ListError::Other(String::new()));
                }
            }
            Ok(())
        });
        if let Some((k, e)) = failed {
            return Err(match e {
                InputError::Message(m) => format!("entry {k}: {m}").into(),
                file => file,
            });
        }
        read.map_err(|e| match e {
            ListError::Element(what) | ListError::Other(what) => InputError::from(format!(
                "a long variadic list holds entries kerf reads one by one (paths, numbers): {what}"
            )),
        })?;
    } else {
        for (k, item) in items.iter().enumerate() {
            entries.push(input_from_value_with(item, base, Cut::default()).map_err(|e| match e {
                InputError::Message(m) => InputError::from(format!("entry {k}: {m}")),
                file => file,
            })?);
        }
    }
    Ok(InputArg::List(entries))
}

fn read_npy(base: &Path, p: &str, dtype: Option<DType>) -> Result<InputArg, InputError> {
    let path = base.join(p);
    crate::npy::read_as(&path, dtype).map(InputArg::Tensor).map_err(InputError::File)
}

fn scalar_tensor(dtype: DType, bits: u128) -> Tensor {
    Tensor::scalar_bits(dtype, bits)
}

/// A tensor of `dtype` and `shape` from row-major TOML values (nested lists flattened),
/// by the one rule of inline tensors ([`kerfx_spec::literal`], which the spec checks use
/// too). Shared by request files and spec examples.
pub fn tensor_from_values(dtype: DType, shape: &[u64], values: &[Value]) -> Result<Tensor, String> {
    literal::check_rectangular(values, dtype)?;
    let flat = literal::flatten(values, dtype);
    literal::check_count(shape, flat.len() as u64)?;
    if dtype == DType::String {
        let strings = flat
            .iter()
            .enumerate()
            .map(|(i, v)| literal::string_element(v).map_err(|m| element_error(i as u64, v, &m)))
            .collect::<Result<Vec<_>, _>>()?;
        return Tensor::from_strings(shape, strings).map_err(|e| e.to_string());
    }
    let mut t = Tensor::zeros(dtype, shape).map_err(|e| e.to_string())?;
    for (i, v) in flat.into_iter().enumerate() {
        let bits = literal::element_bits(dtype, v).map_err(|m| element_error(i as u64, v, &m))?;
        store(&mut t, i as u64, bits);
    }
    Ok(t)
}

/// As [`tensor_from_values`], from the text of a `values` list, one element at a time: a
/// first pass counts the elements (and finds the widest string), a second stores them.
fn tensor_from_list(dtype: DType, shape: Option<&[u64]>, list: &str) -> Result<Tensor, String> {
    let complex = dtype.is_complex();
    let string = |raw: &str, i: u64| {
        let v = values::value(raw).map_err(|m| format!("value {i}: {m}"))?;
        literal::string_element(&v).map(str::to_owned).map_err(|m| element_error(i, &v, &m))
    };
    let (mut n, mut width) = (0u64, 0usize);
    values::for_each_element(list, complex, &mut |raw| {
        if dtype == DType::String {
            width = width.max(string(raw, n)?.len());
        }
        n += 1;
        Ok(())
    })?;
    let shape = shape.map_or_else(|| vec![n], <[u64]>::to_vec);
    literal::check_count(&shape, n)?;
    let mut i = 0u64;
    if dtype == DType::String {
        let too_large = || format!("{n} strings of {width} bytes are too large to allocate");
        let size = (n as usize).checked_mul(width).ok_or_else(too_large)?;
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(size).map_err(|_| too_large())?;
        bytes.resize(size, 0);
        values::for_each_element(list, false, &mut |raw| {
            let s = string(raw, i)?;
            let at = i as usize * width;
            bytes[at..at + s.len()].copy_from_slice(s.as_bytes());
            i += 1;
            Ok(())
        })?;
        let strings = Strings::from_padded(width, n as usize, bytes).map_err(|e| e.to_string())?;
        return Tensor::from_string_storage(&shape, strings).map_err(|e| e.to_string());
    }
    let mut t = Tensor::zeros(dtype, &shape).map_err(|e| e.to_string())?;
    values::for_each_element(list, complex, &mut |raw| {
        let v = values::value(raw).map_err(|m| format!("value {i}: {m}"))?;
        let bits = literal::element_bits(dtype, &v).map_err(|m| element_error(i, &v, &m))?;
        store(&mut t, i, bits);
        i += 1;
        Ok(())
    })?;
    Ok(t)
}

fn store(t: &mut Tensor, i: u64, bits: u128) {
    let dtype = t.dtype();
    let bytes = t.bytes_mut().expect("byte tensor");
    match dtype.byte_width() {
        Some(w) => {
            let at = i as usize * w;
            bytes[at..at + w].copy_from_slice(&bits.to_le_bytes()[..w]);
        }
        None => {
            let at = (i / 2) as usize;
            let shift = (i % 2) * 4;
            bytes[at] = (bytes[at] & !(0xf << shift)) | (((bits as u8) & 0xf) << shift);
        }
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<RequestFile, FileError> {
        parse(text, Path::new("/nowhere/req.toml"))
    }

    #[test]
    fn scalars_lists_and_inline_tensors() {
        let r = parse_str(
            r#"
op = "tensorrt.slice"
[attributes]
start = [0, 0]
mode = "fill"
[inputs]
input = { dtype = "f32", shape = [2, 2], values = [[1, 2], [3, 4.5]] }
fill = 1.5
size = [3, 3]
stride = { dtype = "i32", values = [1, 1] }
"#,
        )
        .unwrap();
        let req = &r.request;
        assert_eq!(req.op, "tensorrt.slice");
        assert_eq!(req.attributes["start"], AttrValue::IntList(vec![0, 0]));
        let input = req.inputs["input"].tensor().unwrap();
        assert_eq!(input.dtype(), DType::F32);
        assert_eq!(input.element_f64(3), Some(4.5));
        let fill = req.inputs["fill"].tensor().unwrap();
        assert_eq!((fill.dtype(), fill.shape()), (DType::F64, &[][..]));
        assert_eq!(req.inputs["size"].tensor().unwrap(), &Tensor::from_i64s(&[3, 3]));
        assert_eq!(req.inputs["stride"].dtype(), DType::I32);
        assert_eq!(r.location_of("inputs.fill"), Some((8, 1)));
    }

    /// Entries are located in one pass over the file, however many there are: a scan
    /// per entry made a 10,000-step chain take 46 s and 100,000 attributes 145 s.
    #[test]
    fn parsing_scans_the_file_once_for_positions() {
        use crate::error::scanned;
        let step = "[[steps]]\nop = \"onnx.pad\"\nversion = 19\n[steps.attributes]\nmode = \"reflect\"\n\
                    [steps.inputs]\npads = [1, 1]\n";
        let chain = format!(
            "{}{}",
            step.replace("pads", "data = { dtype = \"f32\", shape = [4, 4] }\npads"),
            step.repeat(9_999)
        );
        let attributes: String = (0..100_000).map(|i| format!("a{i} = {i}\n")).collect();
        let request = format!("op = \"onnx.slice\"\n[attributes]\n{attributes}");
        scanned::take();
        let AnyFile::Chain(file) = parse_any(&chain, Path::new("/nowhere/c.toml")).unwrap() else { panic!("a chain") };
        assert!(scanned::take() <= chain.len(), "more than one pass over the chain");
        assert_eq!(file.steps[9_999].location_of("inputs.pads"), Some((10_000 * 7 + 1, 1)));
        let file = parse_str(&request).unwrap();
        assert!(scanned::take() <= request.len(), "more than one pass over the request");
        assert_eq!(file.location_of("attributes.a99999"), Some((100_002, 1)));
    }

    #[test]
    fn bench_form_is_meta() {
        let r = parse_str("op = \"x.y\"\n[inputs]\ninput = { dtype = \"bf16\", shape = [4, 4] }\n").unwrap();
        assert_eq!(r.request.inputs["input"], InputArg::Meta { dtype: DType::BF16, shape: vec![4, 4] });
    }

    #[test]
    fn syntax_errors_name_line_and_column() {
        let e = parse_str("op = \"a.b\"\n[inputs]\nx = [1, 2\n").unwrap_err();
        match &e {
            FileError::Syntax { line, .. } => assert_eq!(*line, 3, "{e}"),
            other => panic!("{other}"),
        }
        assert!(e.to_string().starts_with("/nowhere/req.toml:3:"), "{e}");
        let e = parse_str("op = \"a.b\"\nattribute = 1\n").unwrap_err();
        assert!(e.to_string().contains(":2:1:"), "{e}");
        assert!(e.to_string().contains("attribute"), "{e}");
        let e = parse_str("version = 1\n").unwrap_err();
        assert!(e.to_string().contains("op"), "{e}");
    }

    #[test]
    fn bad_inline_tensors_are_errors_at_their_line() {
        for (text, needle) in [
            ("x = { dtype = \"i8\", shape = [2], values = [1, 300] }", "not a i8"),
            ("x = { dtype = \"f32\", shape = [3], values = [1, 2] }", "holds 3 elements"),
            ("x = { dtype = \"q7\", shape = [1], values = [1] }", "unknown dtype"),
            ("x = { dtype = \"f16\", shape = [1], values = [1e9] }", "range"),
            ("x = { dtype = \"i32\", shape = [1], values = [\"a\"] }", "takes numbers"),
            ("x = { dtype = \"i32\", shape = [1], value = [1] }", "unknown key `value`"),
            ("x = [1, \"a\"]", "list input"),
            ("x = { path = \"missing.npy\" }", "missing.npy"),
        ] {
            let e = parse_str(&format!("op = \"a.b\"\n[inputs]\n{text}\n")).unwrap_err();
            let s = e.to_string();
            assert!(s.contains(needle), "{text}: {s}");
            if !needle.ends_with(".npy") {
                assert!(s.starts_with("/nowhere/req.toml:3:"), "{text}: {s}");
            }
        }
    }

    /// A list long enough to be read by `values` gives what the TOML parser's tree gives.
    #[test]
    fn large_lists_read_like_small_ones() {
        let n = values::LARGE;
        let join =
            |f: &dyn Fn(usize) -> String, count: usize, sep: &str| (0..count).map(f).collect::<Vec<_>>().join(sep);
        let cases: Vec<(&str, Option<String>, String)> = vec![
            ("i8", None, join(&|i| format!("{}", i as i64 % 256 - 128), n, ", ")),
            ("f32", None, join(&|i| ["1.5", "-2e3", "0x10", "+1_000", "-inf", "3"][i % 6].into(), n, ",\n")),
            ("bool", None, join(&|i| ["true", "false", "1"][i % 3].into(), n, " , ")),
            ("c64", None, join(&|i| format!("[{i}, -{i}.5]"), n, ", ")),
            ("c128", None, join(&|i| if i % 2 == 0 { "[inf, 1]".into() } else { "2.5".into() }, n, ", ")),
            (
                "string",
                None,
                join(&|i| [r#""a, ]b""#, "'日本'", r#""""#, "'''x\ny'''", r#""\u00e9\"""#][i % 5].into(), n, ", "),
            ),
            (
                "i32",
                Some(format!("[{}, 4]", n / 4)),
                join(&|i| format!("[{i}, {i}, {i}, {i}] # row {i}\n"), n / 4, ", "),
            ),
        ];
        for (dtype, shape, items) in cases {
            let list = format!("[{items}]");
            assert!(list.len() >= values::LARGE, "{dtype}");
            let shape_key = shape.map(|s| format!("shape = {s}, ")).unwrap_or_default();
            let text = format!("op = \"a.b\"\n[inputs]\nx = {{ dtype = \"{dtype}\", {shape_key}values = {list} }}\n");
            let got = parse_str(&text).unwrap_or_else(|e| panic!("{dtype}: {e}"));
            let got = got.request.inputs["x"].tensor().unwrap().clone();
            // The TOML parser's own reading of the same list.
            let d: DType = dtype.parse().unwrap();
            let v: toml::Table = toml::from_str(&format!("v = {list}")).unwrap();
            let want = tensor_from_values(d, got.shape(), v["v"].as_array().unwrap()).unwrap();
            assert_eq!(got, want, "{dtype}");
            if d == DType::String {
                assert_eq!(got.strings().unwrap().get(4), Some("é\""));
            }
        }
    }

    /// Long attribute lists, list inputs and shapes are read without the TOML parser's
    /// tree, to the same values and errors.
    #[test]
    fn large_attributes_list_inputs_and_shapes_read_like_small_ones() {
        let n = values::LARGE;
        let ints: Vec<String> = (0..n).map(|i| format!("{}", i as i64 - 7)).collect();
        let floats: Vec<String> = (0..n).map(|i| if i % 2 == 0 { format!("{i}") } else { format!("{i}.5") }).collect();
        let ones = vec!["1"; n].join(", ");
        let text = format!(
            "op = \"a.b\"\n[attributes]\ni = [{}]\nf = [{}]\n[inputs]\nl = [{}]\nb = [{}]\n\
             m = {{ dtype = \"u8\", shape = [{ones}] }}\n",
            ints.join(", "),
            floats.join(", "),
            floats.join(", "),
            vec!["true"; n].join(", ")
        );
        let r = parse_str(&text).unwrap().request;
        let tree: toml::Table = toml::from_str(&text).unwrap();
        for name in ["i", "f"] {
            assert_eq!(Some(&r.attributes[name]), AttrValue::from_toml(&tree["attributes"][name]).as_ref(), "{name}");
        }
        for name in ["l", "b"] {
            let want = input_from_value(&tree["inputs"][name], Path::new("")).map_err(|e| e.to_string()).unwrap();
            assert_eq!(r.inputs[name], want, "{name}");
        }
        assert_eq!(r.inputs["m"], InputArg::Meta { dtype: DType::U8, shape: vec![1; n] });
        for (bad, needle) in [
            (
                format!("[attributes]\ns = [{}, \"x\"]", ones),
                "attribute `s`: the string \"x\" (element 4096 of a list)",
            ),
            (format!("[attributes]\ns = [{}, [1]]", ones), "attribute `s`: the list: a nested list"),
            (format!("[inputs]\nx = [{}, \"x\"]", ones), "input `x`: a list input holds"),
            (format!("[inputs]\nx = {{ dtype = \"u8\", shape = [{ones}, -1] }}"), "`shape` entries are integers ≥ 0"),
        ] {
            let e = parse_str(&format!("op = \"a.b\"\n{bad}\n")).unwrap_err().to_string();
            assert!(e.starts_with("/nowhere/req.toml:3:5:") && e.contains(needle), "{needle}: {e}");
        }
    }

    #[test]
    fn large_lists_report_errors_at_their_input() {
        let n = values::LARGE;
        let ones = || vec!["1"; n];
        let mut out_of_range = ones();
        out_of_range[3000] = "300";
        let mut not_toml = ones();
        not_toml[7] = "01";
        let mut word = ones();
        word[9] = "\"w\"";
        for (dtype, items, shape, needles) in [
            ("i8", out_of_range, "", vec!["value 3000", "not a i8"]),
            ("f32", not_toml, "", vec!["value 7", "`01`"]),
            ("i32", word, "", vec!["value 9", "takes numbers"]),
            ("f32", ones(), "shape = [2], ", vec!["holds 2 elements", "4096 values"]),
            ("string", ones(), "", vec!["value 0", "takes strings"]),
        ] {
            let text = format!(
                "op = \"a.b\"\n[inputs]\n\nx = {{ dtype = \"{dtype}\", {shape}values = [{}] }}\n",
                items.join(", ")
            );
            let e = parse_str(&text).unwrap_err().to_string();
            assert!(e.starts_with("/nowhere/req.toml:4:5:") && e.contains("input `x`"), "{dtype}: {e}");
            for n in needles {
                assert!(e.contains(n), "{dtype}: `{n}` missing from {e}");
            }
        }
        // Broken list syntax; an error after a list keeps its line.
        let text = format!("op = \"a.b\"\n[inputs]\nx = {{ dtype = \"u8\", values = [{}, , 1] }}\n", ones().join(", "));
        assert!(parse_str(&text).unwrap_err().to_string().contains("unexpected `,`"));
        let text =
            format!("op = \"a.b\"\n[inputs]\nx = {{ dtype = \"u8\", values = [{}] }}\ny = [1,\n", ones().join(",\n"));
        let e = parse_str(&text).unwrap_err();
        match &e {
            FileError::Syntax { line, .. } => assert!(*line >= n + 3, "{e}"),
            other => panic!("{other}"),
        }
    }

    /// u64 values from 2^63 up, which TOML integers cannot write, as strings of digits: in
    /// a short list (the TOML parser's tree) and a long one (read from the text) alike.
    #[test]
    fn u64_values_beyond_i64_are_digit_strings() {
        let n = values::LARGE;
        for count in [2, n] {
            let items: Vec<&str> =
                (0..count).map(|i| if i % 2 == 0 { "\"18446744073709551615\"" } else { "3" }).collect();
            let text = format!("op = \"a.b\"\n[inputs]\nx = {{ dtype = \"u64\", values = [{}] }}\n", items.join(", "));
            let t = parse_str(&text).unwrap().request.inputs["x"].tensor().unwrap().clone();
            assert_eq!((t.element_bits(0), t.element_bits(1)), (Some(u64::MAX as u128), Some(3)), "{count}");
            let e = parse_str(&text.replace("\"18446744073709551615\"", "\"18446744073709551616\"")).unwrap_err();
            assert!(
                e.to_string().contains("value 0 (\"18446744073709551616\"): u64 takes numbers, or a string"),
                "{e}"
            );
        }
    }

    #[test]
    fn literal_dtypes() {
        let v = |s: &str| -> Vec<Value> {
            toml::from_str::<toml::Table>(&format!("v = {s}")).unwrap()["v"].as_array().unwrap().clone()
        };
        let t = tensor_from_values(DType::I4, &[3], &v("[-8, 7, -1]")).unwrap();
        assert_eq!(t.bytes().unwrap(), &[0x78, 0x0f]);
        let t = tensor_from_values(DType::BF16, &[1], &v("[1.0]")).unwrap();
        assert_eq!(t.bytes().unwrap(), &[0x80, 0x3f]);
        let t = tensor_from_values(DType::C64, &[2], &v("[[1.0, -2.0], 3]")).unwrap();
        assert_eq!(t.element_bits(0), Some((((-2f32).to_bits() as u128) << 32) | 1f32.to_bits() as u128));
        let t = tensor_from_values(DType::Bool, &[2], &v("[true, 0]")).unwrap();
        assert_eq!(t.bytes().unwrap(), &[1, 0]);
        let t = tensor_from_values(DType::String, &[2], &v("[\"a\", \"bc\"]")).unwrap();
        assert_eq!(t.strings().unwrap().to_vec(), ["a", "bc"]);
        let t = tensor_from_values(DType::U64, &[1], &v("[9223372036854775807]")).unwrap();
        assert_eq!(t.element_i128(0), Some(i64::MAX as i128));
        assert!(tensor_from_values(DType::U8, &[1], &v("[-1]")).is_err());
        assert!(tensor_from_values(DType::F8E4M3FN, &[1], &v("[1000.0]")).is_err());
        // Whole floats are integers; booleans are bools only (specs/SEMANTICS.md).
        let t = tensor_from_values(DType::I32, &[2], &v("[3.0, -2]")).unwrap();
        assert_eq!((t.element_i128(0), t.element_i128(1)), (Some(3), Some(-2)));
        let e = tensor_from_values(DType::I32, &[1], &v("[true]")).unwrap_err();
        assert_eq!(e, "value 0 (true): i32 takes numbers, found the boolean true");
        assert!(tensor_from_values(DType::C64, &[1], &v("[[1e300, 0]]")).unwrap_err().contains("range"));
    }

    /// A request file's inline tensor and a spec's tensor literal follow one rule: the
    /// same values are accepted or refused, with the same message.
    #[test]
    fn request_files_and_specs_accept_the_same_values() {
        let cases = [
            ("i8", "[1, 2]", "[2]"),
            ("i8", "[1.0, -0.0]", "[2]"),
            ("i8", "[1.5]", "[1]"),
            ("i8", "[300]", "[1]"),
            ("u8", "[true]", "[1]"),
            ("bool", "[true, 0, 1.0]", "[3]"),
            ("bool", "[2]", "[1]"),
            ("f16", "[1e9]", "[1]"),
            ("f32", "[[1, 2], [3, nan]]", "[2, 2]"),
            ("f32", "[false]", "[1]"),
            ("c64", "[[1, 2], 3]", "[2]"),
            ("c64", "[[1e300, 0]]", "[1]"),
            ("c128", "[[1]]", "[1]"),
            ("string", "[\"a\", 1]", "[2]"),
            ("i32", "[1, 2, 3]", "[2]"),
        ];
        for (dtype, values, shape) in cases {
            let t: toml::Table =
                toml::from_str(&format!("dtype = \"{dtype}\"\nshape = {shape}\nvalues = {values}")).unwrap();
            let lit: kerfx_spec::TensorLiteral = t.clone().try_into().unwrap();
            let spec = lit.check();
            let file = tensor_from_values(dtype.parse().unwrap(), &lit.shape, &lit.values).map(drop);
            assert_eq!(spec, file, "{dtype} {values}");
            let req = parse_str(&format!("op = \"a.b\"\n[inputs]\nx = {}\n", toml::Value::Table(t)));
            assert_eq!(req.is_ok(), spec.is_ok(), "{dtype} {values}");
        }
    }
}
