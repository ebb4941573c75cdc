"""kerf as an ONNX backend (``onnx.backend.base.Backend``).

Runs models whose nodes are ONNX ops kerf has a spec of -- ``Slice`` (versions 1, 10,
11, 13) and any other ``onnx.*`` op of kerf's registry (``kerf.ops()``; ``Pad`` once it
is there) -- node by node with ``kerf.run``, inputs given as graph inputs or
initializers. Any other node, or an op version kerf's spec does not list, is refused
by ``prepare`` with an ``UnsupportedError`` naming the node, op and version.

    import onnx, kerf.onnx
    rep = kerf.onnx.prepare(model)            # checks every node first
    (y,) = rep.run([x])                       # or rep.run({"x": x})
    (y,) = kerf.onnx.run_node(node, [x, starts, ends])
    kerf.onnx.supports_device("CPU")          # True; kerf runs on the CPU only

An ONNX op maps to kerf's op ``onnx.<op_type in snake_case>``; its version is the one
the model's opset import selects (``onnx.defs.get_schema``); node inputs are passed by
the schema's input names, attributes by their own names (kerf's specs use ONNX's names).
Chains of nodes run one node at a time (each output is a new array).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import onnx
from onnx import defs, helper, numpy_helper
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

import kerf

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


class UnsupportedError(kerf.KerfError):
    """A model kerf cannot run: a node whose op or version kerf has no spec of, or a
    device other than the CPU. ``name`` is the node's label."""

    def __init__(self, message: str, name: str | None = None) -> None:
        super().__init__(message)
        self.op = None
        self.rule = None
        self.name = name


def kerf_op(op_type: str) -> str:
    """kerf's op id of an ONNX op type: ``Slice`` -> ``onnx.slice``,
    ``DepthToSpace`` -> ``onnx.depth_to_space``."""
    return "onnx." + re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", op_type).lower()


def _attribute(attr: onnx.AttributeProto, label: str) -> Any:
    if attr.type not in _ATTRIBUTE_TYPES:
        kind = onnx.AttributeProto.AttributeType.Name(attr.type)
        raise UnsupportedError(f"{label}: attribute `{attr.name}` is of type {kind}", label)
    value = helper.get_attribute_value(attr)
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, list) and value and isinstance(value[0], bytes):
        return [v.decode() for v in value]
    return value


class _Step:
    """One node as a kerf.run call."""

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
        if self.op not in kerf.ops():
            ours = ", ".join(op for op in kerf.ops() if op.startswith("onnx."))
            raise UnsupportedError(f"{label}: kerf has no op {self.op} (its ONNX ops: {ours})", label)
        self.version = schema.since_version
        versions = kerf.spec(self.op)["versions"]
        if self.version not in versions:
            raise UnsupportedError(
                f"{label}: opset {opset} selects {node.op_type}-{self.version}, "
                f"which kerf's {self.op} does not have (its versions: {versions})",
                label,
            )
        if len(node.output) != 1:
            raise UnsupportedError(f"{label}: {len(node.output)} outputs; kerf's ops have one", label)
        names = [p.name for p in schema.inputs]
        if len(node.input) > len(names):
            raise UnsupportedError(f"{label}: {len(node.input)} inputs, {node.op_type} has {len(names)}", label)
        # (kerf's input name, the graph value); "" marks an optional input left out.
        self.inputs = [(names[i], value) for i, value in enumerate(node.input) if value]
        self.attributes = {a.name: _attribute(a, label) for a in node.attribute}
        self.output = node.output[0]

    def run(self, values: dict[str, np.ndarray]) -> np.ndarray:
        args = dict(self.attributes)
        for name, value in self.inputs:
            args[name] = values[value]
        return kerf.run(self.op, version=self.version, **args)


def _onnx_opset(model: onnx.ModelProto) -> int | None:
    for imp in model.opset_import:
        if imp.domain in _ONNX_DOMAINS:
            return imp.version
    return None


def _steps(model: onnx.ModelProto) -> list[_Step]:
    opset = _onnx_opset(model)
    graph = model.graph
    known = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    steps = []
    for index, node in enumerate(graph.node):
        step = _Step(node, opset, index)
        for _, value in step.inputs:
            if value not in known:
                raise UnsupportedError(f"{step.label}: input `{value}` is computed by no earlier node", step.label)
        known.add(step.output)
        steps.append(step)
    return steps


def _check_device(device: str) -> None:
    if not KerfBackend.supports_device(device):
        raise UnsupportedError(f"kerf runs on the CPU only, not on {device}", device)


class KerfBackendRep(BackendRep):
    """A prepared model: ``run(inputs)`` with the graph inputs (those without an
    initializer, in order) as a list, or by name as a dict."""

    def __init__(self, model: onnx.ModelProto, steps: list[_Step]) -> None:
        graph = model.graph
        self._initializers = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
        self._inputs = [i.name for i in graph.input if i.name not in self._initializers]
        self._outputs = [o.name for o in graph.output]
        self._steps = steps

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        values = dict(self._initializers)
        if isinstance(inputs, dict):
            values.update(inputs)
        else:
            if isinstance(inputs, np.ndarray):
                inputs = [inputs]
            if len(inputs) > len(self._inputs):
                raise kerf.KerfError(f"{len(inputs)} inputs given, the graph has {len(self._inputs)}: {self._inputs}")
            values.update(zip(self._inputs, inputs))
        missing = [name for name in self._inputs if name not in values]
        if missing:
            raise kerf.KerfError(f"graph inputs not given: {missing}")
        for step in self._steps:
            values[step.output] = step.run(values)
        return namedtupledict("Outputs", self._outputs)(*[values[name] for name in self._outputs])


class KerfBackend(Backend):
    """kerf as an ONNX backend; the module-level functions are its class methods."""

    @classmethod
    def is_compatible(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> bool:
        """Whether kerf runs every node of the model on the device."""
        try:
            _check_device(device)
            _steps(model)
        except UnsupportedError:
            return False
        return True

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> KerfBackendRep:
        """Check the model (onnx.checker, then every node against kerf's registry) and
        return its runner; raises UnsupportedError naming the first node kerf lacks."""
        _check_device(device)
        onnx.checker.check_model(model)
        return KerfBackendRep(model, _steps(model))

    @classmethod
    def run_model(cls, model: onnx.ModelProto, inputs: Any, device: str = "CPU", **kwargs: Any) -> tuple[Any, ...]:
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
        super().run_node(node, inputs, device, outputs_info, **kwargs)
        step = _Step(node, kwargs.get("opset_version", defs.onnx_opset_version()), 0)
        if isinstance(inputs, dict):
            values = dict(inputs)
        else:
            values = {name: value for name, value in zip(node.input, inputs) if name}
        return namedtupledict("Outputs", [step.output])(step.run(values))

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
