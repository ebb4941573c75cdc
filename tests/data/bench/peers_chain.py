"""CH1 peer (crates/README.md): ONNX Runtime running the two-node graph Pad (reflect, 16 on
each spatial side) -> Slice (8 off each spatial side) on f32 [1, 3, 1024, 1024], timed
with kerf bench's protocol: the median of N samples, each interleaved with a memcpy of
the output's bytes (np.copyto between two preallocated buffers), and the ratio of the
two medians. The output is bound to a preallocated buffer with IO binding; one thread.

    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install numpy onnx onnxruntime
    /tmp/peers/bin/python tests/data/bench/peers_chain.py [--iters 21] [--json]

Compare with `kerf bench tests/data/bench/ch1_pad_crop.toml --json` (median_ns, and
unfused_median_ns for kerf running the two ops one after another).
"""
import argparse
import json

import numpy as np

from peers_pad import median_pair, one_thread_session

SHAPE = (1, 3, 1024, 1024)
P, C = 16, 8


def session():
    import onnx
    from onnx import TensorProto, helper

    n = SHAPE[2] + 2 * P - 2 * C
    out_shape = [SHAPE[0], SHAPE[1], n, n]
    init = [
        onnx.numpy_helper.from_array(np.array([0, 0, P, P, 0, 0, P, P], dtype=np.int64), "pads"),
        onnx.numpy_helper.from_array(np.array([C, C], dtype=np.int64), "starts"),
        onnx.numpy_helper.from_array(np.array([-C, -C], dtype=np.int64), "ends"),
        onnx.numpy_helper.from_array(np.array([2, 3], dtype=np.int64), "axes"),
    ]
    graph = helper.make_graph(
        [
            helper.make_node("Pad", ["x", "pads"], ["padded"], mode="reflect"),
            helper.make_node("Slice", ["padded", "starts", "ends", "axes"], ["y"]),
        ],
        "pad_crop",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(SHAPE))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        init,
    )
    return one_thread_session(graph), out_shape


def main():
    import onnxruntime as ort

    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=21)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    x = np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32)
    width = ((0, 0), (0, 0), (P, P), (P, P))
    want = np.pad(x, width, mode="reflect")[..., C:-C, C:-C]
    sess, shape = session()
    y = ort.OrtValue.ortvalue_from_numpy(np.ones(shape, dtype=np.float32))
    binding = sess.io_binding()
    binding.bind_cpu_input("x", x)
    binding.bind_ortvalue_output("y", y)
    sess.run_with_iobinding(binding)
    assert np.array_equal(y.numpy(), want), "onnxruntime disagrees with numpy"
    src = np.full(shape, 3.0, dtype=np.float32)
    dst = np.ones(shape, dtype=np.float32)
    t, base = median_pair(args.iters, lambda: sess.run_with_iobinding(binding), lambda: np.copyto(dst, src))
    row = {"row": "CH1", "peer": "onnxruntime", "median_ns": t, "memcpy_median_ns": base, "ratio": t / base,
           "onnxruntime": ort.__version__}
    if args.json:
        print(json.dumps([row]))
    else:
        print(f"CH1 onnxruntime {ort.__version__}: {t / 1e6:.3f} ms, memcpy {base / 1e6:.3f} ms, "
              f"ratio {t / base:.3f} (median of {args.iters} samples)")


if __name__ == "__main__":
    main()
