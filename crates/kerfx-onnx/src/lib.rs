//! kerf's ONNX importer: the bytes of an `.onnx` model as a [`kerfx_ir::graph::Graph`].
//!
//! - A node of the ONNX domain whose op kerf has (`onnx.<op_type in snake_case>`) becomes a
//!   graph node at the newest version kerf's spec lists that is at most the model's opset
//!   (the version the opset selects, as kerf's specs list every version ONNX defines);
//!   its inputs are matched to the spec's inputs by position.
//! - The shape path is folded when the graph is imported, since the input shapes are
//!   known then: `Constant`, `Shape`, `Size`, `ConstantOfShape`, `Range`, `Cast`, `Ceil`,
//!   `Floor`, `Neg`, `Add`, `Sub`, `Mul`, `Div`, `Equal`, `Where` and `Concat` whose inputs
//!   are all known are evaluated on the host as onnx's reference evaluator does
//!   ([`shape`]), and a kerf op whose inputs are all known runs on kerf's reference
//!   interpreter; their outputs become constants.
//! - A `Concat` of values known only when the graph runs is kerf's `onnx.concat`, its
//!   known entries graph constants; a `Split` writes as many outputs as the node names.
//! - Any other node — another domain, an op kerf does not have, one of the host ops on a
//!   value known only when the graph runs — is refused with
//!   [`OnnxError::UnsupportedNode`] naming the node, op type and version: kerf runs whole
//!   data-movement graphs, and a partial run would hide what it left out.
//! - Initializers are constants. External data is read only when the caller names a base
//!   directory, and only from regular files inside it (a relative location without `..`,
//!   symbolic links resolved and kept inside): an untrusted model reads no other file.
//! - Graph inputs are checked against the tensors' dtypes and shapes the caller gives
//!   ([`InputMeta`]), each fixed dim of the declaration included.
//!
//! Parsing allocates in proportion to the bytes given (prost bounds every length by the
//! input), and a tensor's dims times its dtype's width are checked against its data
//! before any tensor is built.

#![warn(missing_docs)]

pub mod proto;
pub mod shape;

use kerfx_ir::DType;
use kerfx_ir::graph::{Graph, GraphInput, Node};
use kerfx_ir::request::{AttrValue, InputArg, Request};
use kerfx_ir::tensor::Tensor;
use prost::Message;
use std::collections::BTreeMap;
use std::path::Path;

/// Why a model cannot be imported.
#[derive(Debug, thiserror::Error)]
pub enum OnnxError {
    /// The bytes are not an ONNX model.
    #[error("not an ONNX model: {0}")]
    Decode(String),
    /// A node kerf does not run.
    #[error("{node}: {op_type}-{version} is not an op kerf runs: {why}")]
    UnsupportedNode {
        /// The node's label (`node 3 (Concat `/m/Concat`)`).
        node: String,
        /// Its ONNX op type.
        op_type: String,
        /// The op version the model's opset selects (the opset itself where kerf has no
        /// spec of the op).
        version: u32,
        /// Why.
        why: String,
    },
    /// Anything else wrong with the model or the inputs given, naming what.
    #[error("{0}")]
    Invalid(String),
    /// A node that kerf refuses as it would refuse the request alone.
    #[error("{node}: {source}")]
    Node {
        /// The node's label.
        node: String,
        /// kerf's error.
        source: Box<kerfx_ir::Error>,
    },
    /// The imported graph's wiring.
    #[error(transparent)]
    Graph(#[from] kerfx_ir::graph::GraphError),
}

fn invalid(s: impl Into<String>) -> OnnxError {
    OnnxError::Invalid(s.into())
}

/// A graph input's dtype and shape as given by the caller (the arrays it will run on).
pub type InputMeta = (DType, Vec<u64>);

/// Where a model's external data may be read from.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options<'a> {
    /// The directory external data is read from; `None`: a tensor with external data is
    /// an error naming it.
    pub base_dir: Option<&'a Path>,
}

/// Decode a model's bytes.
pub fn parse(bytes: &[u8]) -> Result<proto::ModelProto, OnnxError> {
    proto::ModelProto::decode(bytes).map_err(|e| OnnxError::Decode(e.to_string()))
}

/// The ONNX element type `t` as a kerf dtype.
pub fn dtype_of(t: i32) -> Option<DType> {
    Some(match t {
        1 => DType::F32,
        2 => DType::U8,
        3 => DType::I8,
        4 => DType::U16,
        5 => DType::I16,
        6 => DType::I32,
        7 => DType::I64,
        8 => DType::String,
        9 => DType::Bool,
        10 => DType::F16,
        11 => DType::F64,
        12 => DType::U32,
        13 => DType::U64,
        14 => DType::C64,
        15 => DType::C128,
        16 => DType::BF16,
        17 => DType::F8E4M3FN,
        19 => DType::F8E5M2,
        21 => DType::U4,
        22 => DType::I4,
        _ => return None,
    })
}

/// The ONNX element type of a kerf dtype (the inverse of [`dtype_of`]).
pub fn onnx_type(d: DType) -> i32 {
    (1..=22).find(|&t| dtype_of(t) == Some(d)).unwrap_or(0)
}

/// A graph input as declared: its name, element type (when known) and dims (when
/// declared; `None` for a symbolic dim).
pub type Declared = (String, Option<DType>, Option<Vec<Option<i64>>>);

/// The graph inputs a model declares that no initializer gives, in order.
pub fn declared_inputs(model: &proto::ModelProto) -> Vec<Declared> {
    graph_inputs(model, false)
}

/// The graph inputs an initializer gives a default value, in order: a caller may give
/// them, and what it gives replaces the initializer (ONNX's rule for such inputs).
pub fn defaulted_inputs(model: &proto::ModelProto) -> Vec<Declared> {
    graph_inputs(model, true)
}

/// The graph inputs with (`defaulted`) or without an initializer of their name.
fn graph_inputs(model: &proto::ModelProto, defaulted: bool) -> Vec<Declared> {
    let Some(graph) = &model.graph else { return Vec::new() };
    let init: Vec<&str> = graph.initializer.iter().filter_map(|t| t.name.as_deref()).collect();
    graph
        .input
        .iter()
        .filter(|i| init.contains(&i.name.as_deref().unwrap_or("")) == defaulted)
        .map(|i| {
            let tt = i.r#type.as_ref().and_then(|t| t.tensor_type.as_ref());
            let dtype = tt.and_then(|t| t.elem_type).and_then(dtype_of);
            let dims = tt.and_then(|t| t.shape.as_ref()).map(|s| s.dim.iter().map(|d| d.dim_value).collect());
            (i.name.clone().unwrap_or_default(), dtype, dims)
        })
        .collect()
}

/// kerf's op id of an ONNX op type: `DepthToSpace` → `onnx.depth_to_space`.
pub fn kerf_op(op_type: &str) -> String {
    let mut out = String::from("onnx.");
    let chars: Vec<char> = op_type.chars().collect();
    for (k, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && k > 0 && (chars[k - 1].is_ascii_lowercase() || chars[k - 1].is_ascii_digit()) {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// A tensor of a model (an initializer, a `Constant`'s value) as a kerf tensor.
pub fn tensor_of(t: &proto::TensorProto, options: &Options<'_>) -> Result<Tensor, OnnxError> {
    let name = t.name.as_deref().unwrap_or("");
    let err = |what: String| invalid(format!("tensor `{name}`: {what}"));
    let code = t.data_type.unwrap_or(0);
    let dtype = dtype_of(code).ok_or_else(|| err(format!("element type {code} is not one kerf has")))?;
    let mut shape = Vec::with_capacity(t.dims.len());
    for &d in &t.dims {
        shape.push(u64::try_from(d).map_err(|_| err(format!("negative dim {d}")))?);
    }
    let count = kerfx_ir::tensor::volume(&shape).ok_or_else(|| err(format!("{shape:?} has too many elements")))?;
    let external = t.data_location == Some(1);
    if dtype == DType::String {
        if external || t.raw_data.is_some() {
            return Err(err("string tensors are read from string_data only".into()));
        }
        if t.string_data.len() as u64 != count {
            return Err(err(format!("{} strings for {count} elements", t.string_data.len())));
        }
        let strings = t
            .string_data
            .iter()
            .map(|s| String::from_utf8(s.clone()).map_err(|_| err("a string is not UTF-8".into())))
            .collect::<Result<Vec<_>, _>>()?;
        return Tensor::from_strings(&shape, strings).map_err(|e| err(e.to_string()));
    }
    let bytes_len = dtype.buffer_bytes(count).ok_or_else(|| err(format!("{shape:?} is too large")))?;
    let check = |have: usize, what: &str| -> Result<(), OnnxError> {
        if have as u64 == count {
            Ok(())
        } else {
            Err(err(format!("{have} {what} values for {count} elements of shape {shape:?}")))
        }
    };
    let bytes: Vec<u8> = if external {
        read_external(t, name, options, bytes_len)?
    } else if let Some(raw) = &t.raw_data {
        if raw.len() != bytes_len {
            return Err(err(format!("raw_data holds {} bytes, {dtype}{shape:?} takes {bytes_len}", raw.len())));
        }
        raw.clone()
    } else {
        match dtype {
            DType::F32 => {
                check(t.float_data.len(), "float_data")?;
                t.float_data.iter().flat_map(|v| v.to_le_bytes()).collect()
            }
            DType::F64 => {
                check(t.double_data.len(), "double_data")?;
                t.double_data.iter().flat_map(|v| v.to_le_bytes()).collect()
            }
            DType::I64 => {
                check(t.int64_data.len(), "int64_data")?;
                t.int64_data.iter().flat_map(|v| v.to_le_bytes()).collect()
            }
            DType::U32 => {
                check(t.uint64_data.len(), "uint64_data")?;
                t.uint64_data.iter().flat_map(|&v| (v as u32).to_le_bytes()).collect()
            }
            DType::U64 => {
                check(t.uint64_data.len(), "uint64_data")?;
                t.uint64_data.iter().flat_map(|v| v.to_le_bytes()).collect()
            }
            DType::C64 | DType::C128 => return Err(err("complex tensors are read from raw_data only".into())),
            DType::I4 | DType::U4 => {
                // int32_data holds the packed bytes, one per int32 (onnx's helper packs them).
                if t.int32_data.len() != bytes_len {
                    return Err(err(format!("{} int32_data values for {bytes_len} packed bytes", t.int32_data.len())));
                }
                t.int32_data.iter().map(|&v| v as u8).collect()
            }
            _ => {
                // bool, 8- and 16-bit integers, f16, bf16, fp8: one int32 per element,
                // holding the element's bits.
                check(t.int32_data.len(), "int32_data")?;
                let width = dtype.byte_width().unwrap_or(1);
                t.int32_data.iter().flat_map(|&v| v.to_le_bytes().into_iter().take(width)).collect()
            }
        }
    };
    Tensor::from_bytes(dtype, &shape, &bytes).map_err(|e| err(e.to_string()))
}

/// A tensor's external data, read under the module's rule.
fn read_external(t: &proto::TensorProto, name: &str, options: &Options<'_>, len: usize) -> Result<Vec<u8>, OnnxError> {
    use std::io::{Read, Seek, SeekFrom};
    let entry =
        |key: &str| t.external_data.iter().find(|e| e.key.as_deref() == Some(key)).and_then(|e| e.value.clone());
    let location = entry("location").unwrap_or_default();
    let where_ = format!("tensor `{name}` keeps its data in the external file `{location}`");
    let err = |what: String| invalid(format!("{where_}{what}"));
    let Some(base) = options.base_dir else {
        return Err(err("; kerf reads external data only from a directory the caller names (a base directory)".into()));
    };
    if location.is_empty() || location.contains('\0') || Path::new(&location).is_absolute() {
        return Err(err(format!(": a location must be a relative path inside `{}`", base.display())));
    }
    if location.split(['/', '\\']).any(|c| c == "..") {
        return Err(err(": a location may not contain `..`".into()));
    }
    let base_real = std::fs::canonicalize(base).map_err(|e| err(format!(": the base directory: {e}")))?;
    let path =
        std::fs::canonicalize(base_real.join(&location)).map_err(|e| err(format!(", which cannot be opened: {e}")))?;
    if !path.starts_with(&base_real) {
        return Err(err(format!(", which a symbolic link leads out of `{}`", base.display())));
    }
    let number = |key: &str| -> Result<u64, OnnxError> {
        match entry(key) {
            None => Ok(0),
            Some(v) => v.parse().map_err(|_| err(format!(": {key} `{v}` is not a number"))),
        }
    };
    let offset = number("offset")?;
    let mut file = std::fs::File::open(&path).map_err(|e| err(format!(", which cannot be opened: {e}")))?;
    let meta = file.metadata().map_err(|e| err(format!(": {e}")))?;
    if !meta.is_file() {
        return Err(err(", which is not a regular file".into()));
    }
    let length = match entry("length") {
        None => meta.len().saturating_sub(offset),
        Some(_) => number("length")?,
    };
    if offset.checked_add(length).is_none_or(|end| end > meta.len()) {
        return Err(err(format!(": offset {offset} and length {length} reach past its end ({} bytes)", meta.len())));
    }
    if length != len as u64 {
        return Err(err(format!(": {length} bytes, the tensor takes {len}")));
    }
    file.seek(SeekFrom::Start(offset)).map_err(|e| err(format!(": {e}")))?;
    let mut bytes = vec![0u8; len];
    file.read_exact(&mut bytes).map_err(|e| err(format!(": {e}")))?;
    Ok(bytes)
}

/// A node's attribute as a kerf attribute value.
fn attribute(a: &proto::AttributeProto, label: &str) -> Result<AttrValue, OnnxError> {
    use proto::attribute_type as ty;
    let name = a.name.as_deref().unwrap_or("");
    let text = |s: &[u8]| {
        String::from_utf8(s.to_vec()).map_err(|_| invalid(format!("{label}: attribute `{name}` is not UTF-8 text")))
    };
    Ok(match a.r#type.unwrap_or(0) {
        ty::INT => AttrValue::Int(a.i.unwrap_or(0)),
        ty::FLOAT => AttrValue::Float(f64::from(a.f.unwrap_or(0.0))),
        ty::STRING => AttrValue::Str(text(a.s.as_deref().unwrap_or(&[]))?),
        ty::INTS => AttrValue::IntList(a.ints.clone()),
        ty::FLOATS => AttrValue::FloatList(a.floats.iter().map(|&f| f64::from(f)).collect()),
        other => {
            return Err(invalid(format!(
                "{label}: attribute `{name}` is of type {other}, which kerf's ops do not take"
            )));
        }
    })
}

/// What the importer knows of a value while it walks the nodes.
#[derive(Clone)]
enum Known {
    /// A constant (an initializer or a folded node's output).
    Value(Tensor),
    /// Known when the graph runs: its dtype and shape.
    Meta(DType, Vec<u64>),
    /// Known when the graph runs, shape and all: computed by a node that reads a
    /// parameter given at run time (Slice's `starts` as a graph input).
    Runtime,
}

impl Known {
    /// Its dtype and shape, where the import knows them.
    fn meta(&self) -> Option<(DType, &[u64])> {
        match self {
            Known::Value(t) => Some((t.dtype(), t.shape())),
            Known::Meta(d, s) => Some((*d, s)),
            Known::Runtime => None,
        }
    }
}

fn node_label(index: usize, node: &proto::NodeProto) -> String {
    let op = node.op_type.as_deref().unwrap_or("");
    match node.name.as_deref() {
        Some(n) if !n.is_empty() => format!("node {index} ({op} `{n}`)"),
        _ => format!("node {index} ({op})"),
    }
}

/// Import a model: its graph with initializers as constants, the shape path folded on
/// the input shapes given (`inputs`: every graph input without an initializer, by name,
/// checked against its declaration), every other node a kerf request.
pub fn import(
    model: &proto::ModelProto,
    inputs: &BTreeMap<String, InputMeta>,
    options: &Options<'_>,
) -> Result<Graph, OnnxError> {
    let graph = model.graph.as_ref().ok_or_else(|| invalid("the model has no graph"))?;
    if !graph.sparse_initializer.is_empty() {
        return Err(invalid("the model has sparse initializers, which kerf does not read"));
    }
    let opset = model
        .opset_import
        .iter()
        .find(|o| matches!(o.domain.as_deref(), None | Some("") | Some("ai.onnx")))
        .and_then(|o| o.version)
        .ok_or_else(|| invalid("the model imports no opset of the ONNX domain"))?;
    let opset = u32::try_from(opset).map_err(|_| invalid(format!("opset {opset} is not a version")))?;

    let mut known: BTreeMap<String, Known> = BTreeMap::new();
    for t in &graph.initializer {
        let name = t.name.clone().unwrap_or_default();
        known.insert(name, Known::Value(tensor_of(t, options)?));
    }
    let mut out = Graph::default();
    let declared = declared_inputs(model);
    let defaulted = defaulted_inputs(model);
    for name in inputs.keys() {
        if !declared.iter().chain(&defaulted).any(|(n, _, _)| n == name) {
            let names: Vec<&str> = declared.iter().chain(&defaulted).map(|(n, _, _)| n.as_str()).collect();
            return Err(invalid(format!("`{name}` is not an input of the graph (its inputs: {names:?})")));
        }
    }
    // Every input without an initializer, and those with one that the caller gives.
    let given_defaults = defaulted.iter().filter(|(n, _, _)| inputs.contains_key(n));
    for (name, dtype, dims) in declared.iter().chain(given_defaults) {
        let Some((given_dtype, shape)) = inputs.get(name) else {
            return Err(invalid(format!("graph input `{name}` is not given")));
        };
        if let Some(d) = dtype
            && d != given_dtype
        {
            return Err(invalid(format!("input `{name}` is declared {d}, given {given_dtype}{shape:?}")));
        }
        if let Some(dims) = dims {
            let fits = dims.len() == shape.len()
                && dims.iter().zip(shape).all(|(d, &s)| d.is_none_or(|d| u64::try_from(d).ok() == Some(s)));
            if !fits {
                let want: Vec<String> = dims.iter().map(|d| d.map_or("?".into(), |d| d.to_string())).collect();
                return Err(invalid(format!(
                    "input `{name}` is declared of shape [{}], given {given_dtype}{shape:?}",
                    want.join(", ")
                )));
            }
        }
        out.inputs.push(GraphInput { name: name.clone(), dtype: *given_dtype, shape: shape.clone() });
        known.insert(name.clone(), Known::Meta(*given_dtype, shape.clone()));
    }

    for (index, node) in graph.node.iter().enumerate() {
        let label = node_label(index, node);
        let op_type = node.op_type.clone().unwrap_or_default();
        let unsupported = |version: u32, why: String| OnnxError::UnsupportedNode {
            node: label.clone(),
            op_type: op_type.clone(),
            version,
            why,
        };
        if !matches!(node.domain.as_deref(), None | Some("") | Some("ai.onnx")) {
            let domain = node.domain.clone().unwrap_or_default();
            return Err(unsupported(opset, format!("domain `{domain}`: kerf runs ops of the ONNX domain only")));
        }
        let mut args: Vec<Option<&Known>> = Vec::with_capacity(node.input.len());
        for value in &node.input {
            if value.is_empty() {
                args.push(None);
                continue;
            }
            let k = known.get(value).ok_or_else(|| {
                invalid(format!("{label}: input `{value}` is defined by no input, initializer or earlier node"))
            })?;
            args.push(Some(k));
        }
        let all_constant = args.iter().all(|a| !matches!(a, Some(Known::Meta(..) | Known::Runtime)));
        let attrs: Vec<(&str, &proto::AttributeProto)> =
            node.attribute.iter().map(|a| (a.name.as_deref().unwrap_or(""), a)).collect();
        let op = kerf_op(&op_type);
        let spec = kerfx_ir::frontend::spec(&op).ok();
        // A Concat of values known when the graph is prepared is shape path, evaluated on
        // the host even though kerf has the op.
        let shape_path = shape::is_host_op(&op_type) && (spec.is_none() || (all_constant && op_type == "Concat"));
        if shape_path {
            if !all_constant && op_type != "Shape" && op_type != "Size" {
                return Err(unsupported(
                    opset,
                    "kerf evaluates it on the host only on values known when the graph is prepared (a shape path), and an input of this one is known only when the graph runs".into(),
                ));
            }
            if args.iter().any(|a| matches!(a, Some(Known::Runtime))) {
                return Err(unsupported(
                    opset,
                    "it reads the shape of a value whose shape depends on the values of graph inputs (a slice bound given at run time), which kerf knows only when the graph runs".into(),
                ));
            }
            let metas: Vec<Option<(DType, Vec<u64>)>> =
                args.iter().map(|a| a.and_then(Known::meta).map(|(d, s)| (d, s.to_vec()))).collect();
            let values: Vec<Option<&Tensor>> = args
                .iter()
                .map(|a| match a {
                    Some(Known::Value(t)) => Some(t),
                    _ => None,
                })
                .collect();
            let [output] = node.output.as_slice() else {
                return Err(invalid(format!("{label}: {} outputs, {op_type} has one", node.output.len())));
            };
            let value = shape::evaluate(&op_type, &attrs, &values, &metas, options)
                .map_err(|e| invalid(format!("{label}: {e}")))?;
            known.insert(output.clone(), Known::Value(value));
            continue;
        }
        let Some(spec) = spec else {
            let ours: Vec<&str> = kerfx_spec::registry()
                .map(|r| r.ids().filter(|id| id.starts_with("onnx.")).collect())
                .unwrap_or_default();
            return Err(unsupported(opset, format!("kerf has no op {op} (its ONNX ops: {})", ours.join(", "))));
        };
        let Some(version) = spec.versions.iter().copied().filter(|&v| v <= opset).max() else {
            return Err(unsupported(
                opset,
                format!("opset {opset} is older than every version of kerf's {op} ({:?})", spec.versions),
            ));
        };
        let mut request = Request::new(&op).version(version);
        for (name, a) in &attrs {
            request.attributes.insert(name.to_string(), attribute(a, &label)?);
        }
        let mut wired: Vec<(String, String)> = Vec::new();
        // Whether a parameter (not the data) is given only when the graph runs: the node
        // is lowered then, and its outputs' shapes are known then.
        let mut runtime_parameter = false;
        // A variadic input's entries (Concat's): every entry wired, known ones as graph
        // constants, so the node reads them in order.
        let mut entries: Vec<Option<InputArg>> = Vec::new();
        for (position, (value, arg)) in node.input.iter().zip(&args).enumerate() {
            let Some(arg) = arg else { continue };
            let input = spec
                .inputs
                .iter()
                .find(|i| {
                    kerfx_spec::in_version(&i.versions, version)
                        && (i.index as usize == position || (i.variadic && position >= i.index as usize))
                })
                .ok_or_else(|| invalid(format!("{label}: {} inputs, {op}-{version} takes fewer", node.input.len())))?;
            let meta = arg.meta().map(|(dtype, shape)| InputArg::Meta { dtype, shape: shape.to_vec() });
            let is_data = spec.data_input().is_some_and(|d| d.name == input.name);
            if !is_data && !matches!(arg, Known::Value(_)) {
                runtime_parameter = true;
            }
            if input.variadic {
                if let Known::Value(t) = arg {
                    out.constants.insert(value.clone(), t.clone());
                }
                entries.push(meta);
                wired.push((input.name.clone(), value.clone()));
                continue;
            }
            match (arg, meta) {
                (Known::Value(t), _) => {
                    request.inputs.insert(input.name.clone(), InputArg::Tensor(t.clone()));
                }
                // Filled in when the graph runs; its dtype and shape where known now.
                (_, meta) => {
                    if let Some(meta) = meta {
                        request.inputs.insert(input.name.clone(), meta);
                    }
                    wired.push((input.name.clone(), value.clone()));
                }
            }
        }
        if let Some(variadic) = spec.inputs.iter().find(|i| i.variadic)
            && let Some(entries) = entries.into_iter().collect::<Option<Vec<_>>>()
        {
            request.inputs.insert(variadic.name.clone(), InputArg::List(entries));
        }
        if spec.variadic_output() {
            let n = u32::try_from(node.output.len()).map_err(|_| invalid(format!("{label}: too many outputs")))?;
            request.outputs = Some(n);
        } else if node.output.len() != spec.outputs.len().max(1) {
            return Err(unsupported(
                version,
                format!("{} outputs; kerf's {op} has {}", node.output.len(), spec.outputs.len().max(1)),
            ));
        }
        let node_err = |source: kerfx_ir::Error| OnnxError::Node { node: label.clone(), source: Box::new(source) };
        if wired.is_empty() {
            // Every input known: a constant (the shape path's Reshape, Slice, Gather, ...).
            let values = run_constant(&request).map_err(node_err)?;
            for (name, value) in node.output.iter().zip(values) {
                known.insert(name.clone(), Known::Value(value));
            }
            continue;
        }
        let runtime_data = args.iter().any(|a| matches!(a, Some(Known::Runtime)));
        if runtime_parameter || runtime_data {
            for value in &node.output {
                known.insert(value.clone(), Known::Runtime);
            }
        } else {
            let program = kerfx_ir::lower_program(&request).map_err(node_err)?;
            for (value, shape) in node.output.iter().zip(&program.outputs) {
                known.insert(value.clone(), Known::Meta(program.dtype, shape.clone()));
            }
        }
        out.nodes.push(Node {
            name: node.name.clone().unwrap_or_default(),
            request,
            inputs: wired,
            outputs: node.output.clone(),
        });
    }
    for o in &graph.output {
        let name = o.name.clone().unwrap_or_default();
        match known.get(&name) {
            Some(Known::Value(t)) => {
                out.constants.insert(name.clone(), t.clone());
            }
            Some(Known::Meta(..) | Known::Runtime) => {}
            None => return Err(invalid(format!("graph output `{name}` is defined by no input, initializer or node"))),
        }
        out.outputs.push(name);
    }
    // Constants the kept nodes read are in their requests; only outputs need the map.
    out.validate()?;
    Ok(out)
}

/// A request whose inputs are all known, run on kerf's reference interpreter: its
/// outputs, in order.
fn run_constant(request: &Request) -> Result<Vec<Tensor>, kerfx_ir::Error> {
    let program = kerfx_ir::lower_program(request)?;
    let data =
        kerfx_ir::chain::data_input_name(kerfx_ir::frontend::spec(&request.op)?).and_then(|n| request.inputs.get(n));
    let tensors: Vec<&Tensor> = match data {
        _ if program.inputs.is_empty() => Vec::new(),
        Some(InputArg::List(entries)) => entries.iter().filter_map(InputArg::tensor).collect(),
        Some(arg) => arg.tensor().into_iter().collect(),
        None => Vec::new(),
    };
    let views: Vec<kerfx_ir::TensorView<'_>> = tensors.iter().map(|t| t.view()).collect();
    kerfx_ir::program::evaluate(&program, &views)
}

/// Parse and import in one call (see [`import`]).
pub fn import_bytes(
    bytes: &[u8],
    inputs: &BTreeMap<String, InputMeta>,
    options: &Options<'_>,
) -> Result<Graph, OnnxError> {
    import(&parse(bytes)?, inputs, options)
}
