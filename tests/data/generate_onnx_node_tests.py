"""Regenerate the ONNX backend node tests for Slice as kerf conformance case folders
(tests/data/conformance/onnx_node_<test name>), run on every backend by tests/conformance.rs.

Uses the onnx package's own case generator (onnx.backend.test.case.node), so the data is
exactly what ONNX's backend test suite feeds every runtime. Run:
    python3 -m venv /tmp/onnxenv && /tmp/onnxenv/bin/pip install onnx numpy
    /tmp/onnxenv/bin/python tests/data/generate_onnx_node_tests.py
"""
import os
import shutil

import numpy as np
from onnx import numpy_helper
from onnx.backend.test.case.node import collect_testcases

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "conformance")
NAMES = ["data", "starts", "ends", "axes", "steps"]


def main() -> None:
    np.random.seed(0)
    cases = [c for c in collect_testcases("Slice") if c.name.startswith("test_slice")]
    for case in cases:
        out_dir = os.path.join(HERE, f"onnx_node_{case.name}")
        shutil.rmtree(out_dir, ignore_errors=True)
        os.makedirs(out_dir)
        opset = max(o.version for o in case.model.opset_import if o.domain in ("", "ai.onnx"))
        (inputs, outputs) = case.data_sets[0]
        lines = [
            f"# onnx backend node test {case.name} (opset {opset}), from onnx {__import__('onnx').__version__}",
            'op = "onnx.slice"',
            f"version = {opset if opset in (1, 10, 11, 13) else 13}",
            "",
            "[attributes]",
            "",
            "[inputs]",
        ]
        for name, value in zip(NAMES, inputs):
            np.save(os.path.join(out_dir, f"{name}.npy"), value)
            lines.append(f'{name} = "{name}.npy"')
        np.save(os.path.join(out_dir, "expected.npy"), outputs[0])
        with open(os.path.join(out_dir, "request.toml"), "w") as f:
            f.write("\n".join(lines) + "\n")
        print(case.name, [i.shape for i in inputs], "->", outputs[0].shape)


if __name__ == "__main__":
    main()
