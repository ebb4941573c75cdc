"""Regenerate the ONNX backend node tests of kerf's ONNX ops as kerf conformance case
folders (tests/data/conformance/onnx_node_<test name>), run on every backend by
tests/conformance.rs.

Uses the onnx package's own case generator (onnx.backend.test.case.node), so the data is
exactly what ONNX's backend test suite feeds every runtime. Each request.toml names the
onnx version that produced it. Run (all ops, or the ones named):
    python3 -m venv /tmp/onnxenv && /tmp/onnxenv/bin/pip install onnx numpy
    /tmp/onnxenv/bin/python tests/data/generate_onnx_node_tests.py [Slice] [Pad]
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx.backend.test.case.node import collect_testcases

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "conformance")

# Per ONNX op: kerf's spec id, its versions, and its input names in ONNX's order.
OPS = {
    "Slice": ("onnx.slice", (1, 10, 11, 13), ["data", "starts", "ends", "axes", "steps"]),
    "Pad": ("onnx.pad", (1, 2, 11, 13, 18, 19, 21), ["data", "pads", "constant_value", "axes"]),
    "Transpose": ("onnx.transpose", (1, 13, 21, 23, 24, 25), ["data"]),
    "Reshape": ("onnx.reshape", (5, 13, 14, 19, 21, 23, 24, 25), ["data", "shape"]),
    "Flatten": ("onnx.flatten", (1, 9, 11, 13, 21, 23, 24, 25), ["input"]),
    "Squeeze": ("onnx.squeeze", (1, 11, 13, 21, 23, 24, 25), ["data", "axes"]),
    "Unsqueeze": ("onnx.unsqueeze", (1, 11, 13, 21, 23, 24, 25), ["data", "axes"]),
    "Identity": ("onnx.identity", (1, 13, 14, 16, 19, 21, 23, 24, 25), ["input"]),
    "Expand": ("onnx.expand", (8, 13), ["input", "shape"]),
    "Tile": ("onnx.tile", (6, 13), ["input", "repeats"]),
    "DepthToSpace": ("onnx.depth_to_space", (1, 11, 13, 28), ["input"]),
    "SpaceToDepth": ("onnx.space_to_depth", (1, 13, 28), ["input"]),
    "Gather": ("onnx.gather", (1, 11, 13), ["data", "indices"]),
    "GatherElements": ("onnx.gather_elements", (11, 13), ["data", "indices"]),
}


def toml_value(attr: onnx.AttributeProto) -> str:
    value = onnx.helper.get_attribute_value(attr)
    if isinstance(value, bytes):
        return f'"{value.decode()}"'
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return repr(value)


def generate(op_type: str, all_cases: list) -> None:
    op, versions, names = OPS[op_type]
    # Single-node models of tensors only (no expanded function bodies, sequences or optionals).
    def plain(c) -> bool:
        nodes = c.model.graph.node
        data = [v for d in c.data_sets[:1] for part in d for v in part]
        return len(nodes) == 1 and nodes[0].op_type == op_type and all(isinstance(v, np.ndarray) for v in data)

    for case in filter(plain, all_cases):
        out_dir = os.path.join(HERE, f"onnx_node_{case.name}")
        shutil.rmtree(out_dir, ignore_errors=True)
        os.makedirs(out_dir)
        opset = max(o.version for o in case.model.opset_import if o.domain in ("", "ai.onnx"))
        # The op's newest version the model's opset runs.
        version = max(v for v in versions if v <= opset)
        node = case.model.graph.node[0]
        (inputs, outputs) = case.data_sets[0]
        lines = [
            f"# onnx backend node test {case.name} (opset {opset}), from onnx {onnx.__version__}",
            f'op = "{op}"',
            f"version = {version}",
            "",
            "[attributes]",
        ]
        lines += [f"{a.name} = {toml_value(a)}" for a in node.attribute]
        lines += ["", "[inputs]"]
        # Inputs by position; an empty name skips an optional input.
        given = [name for name, used in zip(names, node.input) if used]
        for name, value in zip(given, inputs):
            np.save(os.path.join(out_dir, f"{name}.npy"), value)
            lines.append(f'{name} = "{name}.npy"')
        np.save(os.path.join(out_dir, "expected.npy"), outputs[0])
        with open(os.path.join(out_dir, "request.toml"), "w") as f:
            f.write("\n".join(lines) + "\n")
        print(case.name, [i.shape for i in inputs], "->", outputs[0].shape)


def main() -> None:
    # Every exporter runs (and draws its random data) whichever op is asked for, so one
    # collection with one seed gives each op the data of its own collection.
    np.random.seed(0)
    all_cases = collect_testcases()
    for op_type in sys.argv[1:] or list(OPS):
        generate(op_type, all_cases)


if __name__ == "__main__":
    main()
