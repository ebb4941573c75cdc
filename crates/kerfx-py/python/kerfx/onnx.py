"""kerf as an ONNX backend (``onnx.backend.base.Backend``).

Runs models whose nodes are ONNX ops kerf has a spec of (every ``onnx.*`` op of
``kerfx.ops()``: Slice, Pad, Transpose, Reshape, Concat, Split, Gather, Expand, ...) and
the shape path exporters emit around them (``Shape``, ``Gather``/``Concat`` of shapes,
``ConstantOfShape``, ``Range``, arithmetic on shapes: ``kerfx._kerf.onnx_host_ops()``),
as whole graphs: per set of input shapes the model is imported once, its shape path
evaluated on the host, and its nodes cut into fused programs -- a chain of data
movement, or a Concat with the slices and reshapes that feed it, or a Split with the
transposes that follow it, runs as one kernel that writes no intermediate tensor.
Any other node, or an op version kerf's spec does not list, is refused by ``prepare``
with an ``UnsupportedError`` naming the node, op and version (a shape-path op on
values known only when the graph runs is refused by ``run``, the same way).

    import onnx, kerfx.onnx
    rep = kerfx.onnx.prepare(model)            # checks every node first
    (y,) = rep.run([x])                       # or rep.run({"x": x})
    (y,) = kerfx.onnx.run_node(node, [x, starts, ends])
    kerfx.onnx.supports_device("CPU")          # True; kerf runs on the CPU only
    rep = kerfx.onnx.prepare("model.onnx")     # external data from the model's directory only
    rep = kerfx.onnx.prepare(model, base_dir="weights/")  # a proto's external data, from there only

An ONNX op maps to kerf's op ``onnx.<op_type in snake_case>``; its version is the one
the model's opset import selects (``onnx.defs.get_schema``); node inputs are passed by
the schema's input names, attributes by their own names (kerf's specs use ONNX's names).
``run_node`` runs one node with ``kerfx.run``; each output is a new array.

External data: a model given as a path reads the external data of its tensors from the
model's own directory; a model given as a proto reads none unless ``base_dir`` names
the directory to read it from. Either way a location must be a relative path that stays
inside that directory: absolute paths, ``..`` and symbolic links that lead out of it are
refused (an untrusted model reads no other file).

Graph inputs are checked against their declared element type and fixed dims: a FLOAT
input given a float64 array is an error naming the input, never a float64 output.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from typing import Any

import numpy as np
import onnx
from onnx import defs, helper, numpy_helper
from onnx.external_data_helper import ExternalDataInfo, uses_external_data
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

import kerfx

__all__ = [
    "KerfBackend",
    "KerfBackendRep",
    "UnsupportedError",
    "is_compatible",
    "prepare",
    "run_model",
    "run_node",
    "supports_device",
]

_ONNX_DOMAINS = ("", "ai.onnx")

_ATTRIBUTE_TYPES = (
    onnx.AttributeProto.INT,
    onnx.AttributeProto.FLOAT,
    onnx.AttributeProto.STRING,
    onnx.AttributeProto.INTS,
    onnx.AttributeProto.FLOATS,
    onnx.AttributeProto.STRINGS,
)


class UnsupportedError(kerfx.KerfError):
    """A model kerf cannot run: a node whose op or version kerf has no spec of, or a
    device other than the CPU. ``name`` is the node's label."""

    def __init__(self, message: str, name: str | None = None) -> None:
        super().__init__(message)
        self.op = None
        self.rule = None
        self.name = name


def _error(message: str, name: str | None = None, op: str | None = None) -> kerfx.KerfError:
    """A KerfError raised here, with the attributes the ones kerf raises carry."""
    error = kerfx.KerfError(message)
    error.op, error.rule, error.name, error.axis = op, None, name, None
    error.errors = [error]
    return error


def kerf_op(op_type: str) -> str:
    """kerf's op id of an ONNX op type: ``Slice`` -> ``onnx.slice``,
    ``DepthToSpace`` -> ``onnx.depth_to_space``."""
    return "onnx." + re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", op_type).lower()


def _attribute(attr: onnx.AttributeProto, label: str, op: str) -> Any:
    if attr.type not in _ATTRIBUTE_TYPES:
        kind = onnx.AttributeProto.AttributeType.Name(attr.type)
        raise UnsupportedError(f"{label}: attribute `{attr.name}` is of type {kind}", label)
    value = helper.get_attribute_value(attr)
    try:
        if isinstance(value, bytes):
            return value.decode()
        if isinstance(value, list) and value and isinstance(value[0], bytes):
            return [v.decode() for v in value]
    except UnicodeDecodeError as e:
        raise _error(
            f"{label}: attribute `{attr.name}` is not UTF-8 text ({e.reason} at byte {e.start})", attr.name, op
        ) from None
    return value


class _Step:
    """One node as a kerfx.run call."""

    def __init__(self, node: onnx.NodeProto, opset: int | None, index: int) -> None:
        label = f"node {index} ({node.op_type}" + (f" `{node.name}`)" if node.name else ")")
        self.label = label
        if node.domain not in _ONNX_DOMAINS:
            raise UnsupportedError(f"{label}: domain `{node.domain}`: kerf runs ops of the ONNX domain only", label)
        if opset is None:
            raise UnsupportedError(f"{label}: the model imports no opset of the ONNX domain", label)
        try:
            schema = defs.get_schema(node.op_type, opset, "")
        except defs.SchemaError:
            raise UnsupportedError(f"{label}: ONNX has no op {node.op_type} in opset {opset}", label) from None
        self.op = kerf_op(node.op_type)
        if self.op not in kerfx.ops():
            ours = ", ".join(op for op in kerfx.ops() if op.startswith("onnx."))
            raise UnsupportedError(f"{label}: kerf has no op {self.op} (its ONNX ops: {ours})", label)
        self.version = schema.since_version
        versions = kerfx.spec(self.op)["versions"]
        if self.version not in versions:
            raise UnsupportedError(
                f"{label}: opset {opset} selects {node.op_type}-{self.version}, "
                f"which kerf's {self.op} does not have (its versions: {versions})",
                label,
            )
        variadic_output = any(o.option == defs.OpSchema.FormalParameterOption.Variadic for o in schema.outputs)
        if len(node.output) != 1 and not variadic_output:
            raise UnsupportedError(f"{label}: {len(node.output)} outputs; {node.op_type} has one", label)
        formals = list(schema.inputs)
        variadic = bool(formals) and formals[-1].option == defs.OpSchema.FormalParameterOption.Variadic
        if len(node.input) > len(formals) and not variadic:
            raise UnsupportedError(f"{label}: {len(node.input)} inputs, {node.op_type} has {len(formals)}", label)
        # (kerf's input name, the graph value); "" marks an optional input left out. The
        # values of a variadic input (Concat's) are one list.
        self.inputs = [(formals[i].name, value) for i, value in enumerate(node.input[: len(formals) - variadic]) if value]
        self.variadic = (formals[-1].name, list(node.input[len(formals) - 1 :])) if variadic else None
        self.attributes = {a.name: _attribute(a, label, self.op) for a in node.attribute}
        if variadic_output:
            # The node's output count is the Split's, where its attributes do not say it.
            self.attributes["outputs"] = len(node.output)
        self.outputs = list(node.output)

    def values(self) -> list[str]:
        """The graph values the node reads."""
        return [v for _, v in self.inputs] + (self.variadic[1] if self.variadic else [])

    def run(self, values: dict[str, Any]) -> list[np.ndarray]:
        """The node's outputs, in order."""
        args = dict(self.attributes)
        for name, value in self.inputs:
            if value not in values:
                raise _error(f"{self.label}: input `{name}` (value `{value}`) is not given", name, self.op)
            args[name] = values[value]
        if self.variadic:
            name, names = self.variadic
            missing = [v for v in names if v not in values]
            if missing:
                raise _error(f"{self.label}: input `{name}` (value `{missing[0]}`) is not given", name, self.op)
            args[name] = [values[v] for v in names]
        out = kerfx.run(self.op, version=self.version, **args)
        return list(out) if isinstance(out, tuple) else [out]


def _onnx_opset(model: onnx.ModelProto) -> int | None:
    for imp in model.opset_import:
        if imp.domain in _ONNX_DOMAINS:
            return imp.version
    return None


_HOST_OPS = frozenset(kerfx._kerf.onnx_host_ops())


def _check_nodes(model: onnx.ModelProto) -> None:
    """Refuse, naming it, the first node that is neither one of kerf's ops at a version
    kerf has nor a shape-path op kerf evaluates on the host, or that reads a value no
    earlier node, input or initializer defines."""
    opset = _onnx_opset(model)
    graph = model.graph
    known = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    for index, node in enumerate(graph.node):
        if node.domain in _ONNX_DOMAINS and node.op_type in _HOST_OPS and kerf_op(node.op_type) not in kerfx.ops():
            label = f"node {index} ({node.op_type}" + (f" `{node.name}`)" if node.name else ")")
            values = [v for v in node.input if v]
        else:
            step = _Step(node, opset, index)
            label, values = step.label, step.values()
        for value in values:
            if value not in known:
                raise UnsupportedError(f"{label}: input `{value}` is computed by no earlier node", label)
        known.update(node.output)


# ONNX element types -> kerf dtype names (the types kerf has; getattr: older onnx lacks some).
_KERF_DTYPES = {
    getattr(onnx.TensorProto, onnx_name): kerf_name
    for onnx_name, kerf_name in [
        ("BOOL", "bool"),
        ("INT4", "i4"),
        ("UINT4", "u4"),
        ("INT8", "i8"),
        ("UINT8", "u8"),
        ("INT16", "i16"),
        ("UINT16", "u16"),
        ("INT32", "i32"),
        ("UINT32", "u32"),
        ("INT64", "i64"),
        ("UINT64", "u64"),
        ("FLOAT8E4M3FN", "f8e4m3fn"),
        ("FLOAT8E5M2", "f8e5m2"),
        ("FLOAT16", "f16"),
        ("BFLOAT16", "bf16"),
        ("FLOAT", "f32"),
        ("DOUBLE", "f64"),
        ("COMPLEX64", "c64"),
        ("COMPLEX128", "c128"),
        ("STRING", "string"),
    ]
    if hasattr(onnx.TensorProto, onnx_name)
}


def _graph_tensors(graph: onnx.GraphProto) -> Iterator[onnx.TensorProto]:
    """Every tensor of a graph and of its subgraphs: initializers (sparse ones too) and
    attribute values."""
    yield from graph.initializer
    for sparse in graph.sparse_initializer:
        yield from (sparse.values, sparse.indices)
    for node in graph.node:
        yield from _attribute_tensors(node.attribute)


def _attribute_tensors(attributes: Any) -> Iterator[onnx.TensorProto]:
    for attr in attributes:
        if attr.HasField("t"):
            yield attr.t
        yield from attr.tensors
        sparse = ([attr.sparse_tensor] if attr.HasField("sparse_tensor") else []) + list(attr.sparse_tensors)
        for s in sparse:
            yield from (s.values, s.indices)
        for graph in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
            yield from _graph_tensors(graph)


def _model_tensors(model: onnx.ModelProto) -> Iterator[onnx.TensorProto]:
    yield from _graph_tensors(model.graph)
    for function in model.functions:
        for node in function.node:
            yield from _attribute_tensors(node.attribute)


def _read_external_data(tensor: onnx.TensorProto, base_dir: str | None) -> None:
    """Read a tensor's external data into it -- from a regular file inside ``base_dir``
    only (a model names files: an untrusted one must reach no other)."""
    name = tensor.name
    try:
        info = ExternalDataInfo(tensor)
    except ValueError as e:
        raise _error(f"tensor `{name}`: {e}", name) from None
    where = f"tensor `{name}` keeps its data in the external file `{info.location}`"
    if base_dir is None:
        raise _error(
            f"{where}; a model given as a proto reads external data only from a directory the caller "
            "names: prepare(model, base_dir=...)",
            name,
        )
    location = info.location
    if not location or "\0" in location or os.path.isabs(location) or os.path.splitdrive(location)[0]:
        raise _error(f"{where}: a location must be a relative path inside `{base_dir}`", name)
    if ".." in re.split(r"[\\/]", location):
        raise _error(f"{where}: a location may not contain `..`", name)
    # Symbolic links are resolved before the containment check; O_NOFOLLOW refuses a
    # last component made a link after it.
    base = os.path.realpath(base_dir)
    path = os.path.realpath(os.path.join(base, location))
    if os.path.commonpath([base, path]) != base:
        raise _error(f"{where}, which a symbolic link leads out of `{base_dir}`", name)
    # O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below).
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        file = open(path, "rb", opener=lambda p, _: os.open(p, flags))
    except OSError as e:
        raise _error(f"{where}, which cannot be opened: {e.strerror}", name) from None
    with file:
        st = os.fstat(file.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise _error(f"{where}, which is not a regular file", name)
        offset = info.offset or 0
        length = st.st_size - offset if info.length is None else info.length
        if offset + length > st.st_size or length < 0:
            raise _error(f"{where}: offset {offset} and length {length} reach past its end ({st.st_size} bytes)", name)
        file.seek(offset)
        tensor.raw_data = file.read(length)
    tensor.data_location = onnx.TensorProto.DEFAULT
    del tensor.external_data[:]


def _proto(model: Any) -> tuple[onnx.ModelProto, str | None]:
    """The model as a proto (external data not read), and the directory its external
    data may come from by default: a path's own directory, none for a proto."""
    if isinstance(model, onnx.ModelProto):
        return model, None
    if not isinstance(model, (str, os.PathLike)):
        raise TypeError(f"model must be an onnx.ModelProto or the path of a .onnx file, not {type(model).__name__}")
    path = os.fspath(model)
    try:
        proto = onnx.load(path, load_external_data=False)
    except OSError as e:
        raise _error(f"model `{path}` cannot be read: {e.strerror or e}", "model") from None
    except Exception as e:  # protobuf's DecodeError, onnx's own
        raise _error(f"model `{path}` is not an ONNX model: {e}", "model") from None
    return proto, os.path.dirname(os.path.abspath(path))


def _load(model: Any, base_dir: Any) -> onnx.ModelProto:
    """The model as a proto whose tensors hold their data, external data read under the
    rule of the module's doc (from a copy: the caller's proto is left as it was)."""
    proto, default_dir = _proto(model)
    if base_dir is not None and not isinstance(base_dir, (str, os.PathLike)):
        raise TypeError(f"base_dir must be a directory's path, not {type(base_dir).__name__}")
    base_dir = default_dir if base_dir is None else os.fspath(base_dir)
    if any(uses_external_data(t) for t in _model_tensors(proto)):
        copy = onnx.ModelProto()
        copy.CopyFrom(proto)
        proto = copy
        for tensor in _model_tensors(proto):
            if uses_external_data(tensor):
                _read_external_data(tensor, base_dir)
    return proto


def _check_initializer(tensor: onnx.TensorProto) -> None:
    """Refuse, naming it, an initializer whose data does not fit its dims or type."""
    # External data was read into the model (`_load`): to_array reads no file here.
    try:
        numpy_helper.to_array(tensor)
    except (ValueError, TypeError) as e:
        raise _error(f"initializer `{tensor.name}`: {e}", tensor.name) from None


class _Declared:
    """A graph input's declared element type and dims, read from the proto once."""

    __slots__ = ("dtype", "elem", "fixed", "want")

    def __init__(self, declared: onnx.TypeProto) -> None:
        self.dtype = self.elem = self.fixed = self.want = None
        if not declared.HasField("tensor_type"):
            return
        tensor_type = declared.tensor_type
        if tensor_type.elem_type != onnx.TensorProto.UNDEFINED:
            self.elem = onnx.TensorProto.DataType.Name(tensor_type.elem_type)
            # A type kerf lacks matches no array: "" is no kerf dtype.
            self.dtype = _KERF_DTYPES.get(tensor_type.elem_type, "")
        if tensor_type.HasField("shape"):
            dims = tensor_type.shape.dim
            self.fixed = [d.dim_value if d.HasField("dim_value") else None for d in dims]
            self.want = [d.dim_value if d.HasField("dim_value") else d.dim_param or "?" for d in dims]


def _checked_input(name: str, value: Any, declared: _Declared | None) -> Any:
    """A graph input's value, checked against its declared element type and fixed dims
    (kerf would otherwise run on whatever it is given)."""
    raw = isinstance(value, kerfx.Raw)
    if raw:
        dtype, shape = value.dtype, value.array.shape
    else:
        if not isinstance(value, np.ndarray):
            try:
                value = np.asarray(value)
            except (TypeError, ValueError) as e:
                raise _error(f"input `{name}`: {e}", name) from None
        dtype = _kerf_dtype(value.dtype)
        shape = value.shape
    if declared is None:
        return value
    found = lambda: f"kerfx.raw(..., \"{dtype}\")" if raw else f"a {value.dtype} array"  # noqa: E731
    if declared.dtype is not None and declared.dtype != dtype:
        raise _error(f"input `{name}` is declared {declared.elem}, given {found()}", name)
    fixed = declared.fixed
    if fixed is not None and (len(fixed) != len(shape) or any(f is not None and f != n for f, n in zip(fixed, shape))):
        raise _error(f"input `{name}` is declared of shape {declared.want}, given {found()} of shape {list(shape)}", name)
    return value


_DTYPE_NAMES: dict[Any, Any] = {}


def _kerf_dtype(dtype: np.dtype) -> str | None:
    """kerf's name of a numpy dtype (None for one kerf lacks), looked up once per dtype."""
    try:
        return _DTYPE_NAMES[dtype]
    except KeyError:
        pass
    try:
        name = kerfx.meta(dtype, ()).dtype
    except kerfx.KerfError:
        name = None
    _DTYPE_NAMES[dtype] = name
    return name


def _check_device(device: str) -> None:
    if not KerfBackend.supports_device(device):
        raise UnsupportedError(f"kerf runs on the CPU only, not on {device}", device)


class KerfBackendRep(BackendRep):
    """A prepared model: ``run(inputs)`` with the graph inputs (those without an
    initializer, in order) as a list, or by name as a dict. ``backend`` (a keyword of
    ``run``): ``"jit"`` (the default), ``"jit-dynamic"`` or ``"reference"``;
    ``groups(inputs)`` lists the programs the graph runs as for those inputs' shapes,
    each by its nodes' labels."""

    def __init__(self, model: onnx.ModelProto) -> None:
        graph = model.graph
        for t in graph.initializer:
            _check_initializer(t)
        initializers = {t.name for t in graph.initializer}
        self._declared = {i.name: _Declared(i.type) for i in graph.input}
        self._inputs = [i.name for i in graph.input if i.name not in initializers]
        self._outputs = [o.name for o in graph.output]
        # Made once: a namedtuple class costs more to make than a small graph to run.
        self._tuple = namedtupledict("Outputs", self._outputs)
        # External data is inline by now (`_load`): the native side reads no file. The
        # declarations let `run_fast` take plain arrays that match them with no Python
        # code run per input (anything else goes through `_given`).
        declared = [(name, self._declared[name].dtype, self._declared[name].fixed) for name in self._inputs]
        self._model = kerfx._kerf.OnnxModel(model.SerializeToString(), declared, self._tuple)

    def _given(self, inputs: Any) -> dict[str, Any]:
        """The graph inputs by name, each checked against its declaration."""
        values = {}
        if isinstance(inputs, dict):
            unknown = [name for name in inputs if name not in self._declared]
            if unknown:
                raise _error(f"{unknown} are not inputs of the graph (its inputs: {list(self._declared)})", unknown[0])
            given = dict(inputs)
        else:
            if isinstance(inputs, (np.ndarray, kerfx.Raw)):
                inputs = [inputs]
            try:
                inputs = list(inputs)
            except TypeError:
                raise TypeError(f"inputs must be a list or a dict of arrays, not {type(inputs).__name__}") from None
            if len(inputs) > len(self._inputs):
                raise _error(f"{len(inputs)} inputs given, the graph has {len(self._inputs)}: {self._inputs}")
            given = dict(zip(self._inputs, inputs))
        for name, value in given.items():
            values[name] = _checked_input(name, value, self._declared.get(name))
        missing = [name for name in self._inputs if name not in values]
        if missing:
            raise _error(f"graph inputs not given: {missing}", missing[0])
        return values

    def run(self, inputs: Any, backend: str = "jit", **kwargs: Any) -> tuple[Any, ...]:
        try:
            if backend == "jit":
                # Plain arrays matching the declarations, a graph of one program: the
                # whole call in Rust. None: anything else, run (or refused) below.
                outputs = self._model.run_fast(inputs)
                if outputs is not None:
                    return outputs
            values = self._given(inputs)
            outputs = self._model.run(values, backend=backend, raw=any(isinstance(v, kerfx.Raw) for v in values.values()))
        except kerfx.KerfError as e:
            if getattr(e, "unsupported", False):
                raise UnsupportedError(str(e), e.name) from None
            raise
        return self._tuple(*outputs)

    def groups(self, inputs: Any) -> list[list[str]]:
        return self._model.groups(self._given(inputs))


class KerfBackend(Backend):
    """kerf as an ONNX backend; the module-level functions are its class methods."""

    @classmethod
    def is_compatible(cls, model: Any, device: str = "CPU", **kwargs: Any) -> bool:
        """Whether kerf runs every node of the model (a proto or a path) on the device."""
        try:
            _check_device(device)
            _check_nodes(_proto(model)[0])
        except UnsupportedError:
            return False
        return True

    @classmethod
    def prepare(cls, model: Any, device: str = "CPU", base_dir: Any = None, **kwargs: Any) -> KerfBackendRep:
        """Read the model (a proto, or a path) and its external data, check it
        (onnx.checker, then every node against kerf's registry) and return its runner;
        raises UnsupportedError naming the first node kerf lacks.

        External data is read from ``base_dir`` -- by default a path's own directory;
        a proto's only when ``base_dir`` is given -- and from files inside it only."""
        _check_device(device)
        model = _load(model, base_dir)
        try:
            onnx.checker.check_model(model)
        except onnx.checker.ValidationError as e:
            raise _error(f"the model is not valid ONNX: {e}", "model") from None
        _check_nodes(model)
        return KerfBackendRep(model)

    @classmethod
    def run_model(cls, model: Any, inputs: Any, device: str = "CPU", **kwargs: Any) -> tuple[Any, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(
        cls,
        node: onnx.NodeProto,
        inputs: Any,
        device: str = "CPU",
        outputs_info: Any = None,
        **kwargs: Any,
    ) -> tuple[Any, ...]:
        """Run one node; ``inputs`` follow ``node.input`` (a list, or a dict by value
        name). The opset is ``opset_version`` when given, else onnx's newest."""
        _check_device(device)
        if not isinstance(node, onnx.NodeProto):
            raise TypeError(f"node must be an onnx.NodeProto, not {type(node).__name__}")
        opset = kwargs.get("opset_version")
        if opset is None:
            opset = kwargs["opset_version"] = defs.onnx_opset_version()
        if not isinstance(opset, int) or isinstance(opset, bool):
            raise TypeError(f"opset_version must be an int, not {type(opset).__name__}")
        if not 1 <= opset < 2**31:
            raise _error(f"opset_version {opset} is not an opset (ONNX's run from 1)", "opset_version")
        try:
            super().run_node(node, inputs, device, outputs_info, **kwargs)
        except onnx.checker.ValidationError as e:
            raise _error(f"the node is not valid ONNX: {e}", "node") from None
        step = _Step(node, opset, 0)
        if isinstance(inputs, dict):
            values = dict(inputs)
        else:
            try:
                values = {name: value for name, value in zip(node.input, inputs) if name}
            except TypeError:
                raise TypeError(f"inputs must be a list or a dict of arrays, not {type(inputs).__name__}") from None
        return namedtupledict("Outputs", step.outputs)(*step.run(values))

    @classmethod
    def supports_device(cls, device: str) -> bool:
        try:
            return Device(device).type == DeviceType.CPU
        except Exception:
            return False


is_compatible = KerfBackend.is_compatible
prepare = KerfBackend.prepare
run_model = KerfBackend.run_model
run_node = KerfBackend.run_node
supports_device = KerfBackend.supports_device
