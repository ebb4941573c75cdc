"""P1/P2 peers (crates/README.md): numpy and ONNX Runtime padding f32 [1, 3, 1024, 1024] by 16
on each spatial side, timed with kerf bench's protocol: the median of N samples, each
interleaved with a memcpy of the output's bytes (np.copyto between two preallocated
buffers) in the same process, and the ratio of the two medians. Output buffers are
preallocated and touched before timing where the peer allows it.

    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install numpy onnx onnxruntime
    /tmp/peers/bin/python tests/data/bench/peers_pad.py [--iters 21] [--json]

Rows: `numpy.pad` (allocates its output, as users call it); `numpy slices` (the same
values written into a preallocated output by slice assignments: numpy's best case);
`onnxruntime` (a Pad-19 model, pads as an initializer, output bound to a preallocated
buffer with IO binding; ONNX Runtime has no symmetric mode, so no P2 row).
"""
import argparse
import json
import time

import numpy as np

SHAPE = (1, 3, 1024, 1024)
P = 16
MODES = {"P1 constant": "constant", "P1 reflect": "reflect", "P1 edge": "edge", "P1 wrap": "wrap",
         "P2 symmetric": "symmetric"}


def median_pair(iters, f, g):
    """Medians (ns) of f and g, sampled alternately; each sample repeats its call for 20 µs+."""
    return tuple(medians(iters, f, g))


def medians(iters, *fs):
    """Medians (ns) of each of fs, sampled in turn (so that each sees the same load on a
    shared machine); each sample repeats its call for 20 µs+."""
    def calibrate(h):
        t = time.perf_counter_ns()
        h()
        one = max(time.perf_counter_ns() - t, 1)
        reps = max(1, min(1_000_000, 20_000 // one))
        sample(h, reps)
        return reps

    def sample(h, reps):
        t = time.perf_counter_ns()
        for _ in range(reps):
            h()
        return (time.perf_counter_ns() - t) / reps

    reps = [calibrate(f) for f in fs]
    samples = [[] for _ in fs]
    for _ in range(iters):
        for f, r, s in zip(fs, reps, samples):
            s.append(sample(f, r))
    return [float(np.median(s)) for s in samples]


def slices_into(out, x, mode):
    """np.pad(x, 16 on the last two axes, mode) written into `out` by slice assignments
    (views and broadcasts only: no index arrays)."""
    n = x.shape[-1]
    assert x.shape[-2] == n and n > P + 1
    out[..., P:P + n, P:P + n] = x
    if mode == "constant":
        out[..., :P, :] = 0
        out[..., P + n:, :] = 0
        out[..., P:P + n, :P] = 0
        out[..., P:P + n, P + n:] = 0
        return
    # What the P pads before and after read, as slices of the data (edge: one element,
    # broadcast), and the same rows as slices of `out` (the data shifted by P).
    before = {"reflect": slice(P, 0, -1), "symmetric": slice(P - 1, None, -1), "edge": slice(0, 1),
              "wrap": slice(n - P, n)}[mode]
    after = {"reflect": slice(n - 2, n - 2 - P, -1), "symmetric": slice(n - 1, n - 1 - P, -1),
             "edge": slice(n - 1, n), "wrap": slice(0, P)}[mode]
    shift = lambda s: slice(s.start + P, None if s.stop is None else s.stop + P, s.step)  # noqa: E731
    before_out = slice(2 * P - 1, P - 1, -1) if mode == "symmetric" else shift(before)
    # Columns of the data rows, then whole padded rows (corners included).
    out[..., P:P + n, :P] = x[..., :, before]
    out[..., P:P + n, P + n:] = x[..., :, after]
    out[..., :P, :] = out[..., before_out, :]
    out[..., P + n:, :] = out[..., shift(after), :]


def one_thread_session(graph):
    """An ONNX Runtime session of an opset-19 graph on one thread (the protocol of every
    peer script)."""
    import onnxruntime as ort
    from onnx import helper

    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def onnx_session(mode):
    import onnx
    from onnx import TensorProto, helper

    pads = np.array([0, 0, P, P, 0, 0, P, P], dtype=np.int64)
    out_shape = [SHAPE[0], SHAPE[1], SHAPE[2] + 2 * P, SHAPE[3] + 2 * P]
    graph = helper.make_graph(
        [helper.make_node("Pad", ["x", "pads"], ["y"], mode=mode)],
        "pad",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(SHAPE))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        [onnx.numpy_helper.from_array(pads, "pads")],
    )
    return one_thread_session(graph), out_shape


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=21)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal(SHAPE).astype(np.float32)
    out_shape = SHAPE[:2] + (SHAPE[2] + 2 * P, SHAPE[3] + 2 * P)
    src = np.full(out_shape, 3.0, dtype=np.float32)
    dst = np.ones(out_shape, dtype=np.float32)
    out = np.ones(out_shape, dtype=np.float32)
    memcpy = lambda: np.copyto(dst, src)  # noqa: E731
    width = ((0, 0), (0, 0), (P, P), (P, P))
    rows = []
    for row, mode in MODES.items():
        want = np.pad(x, width, mode=mode)
        slices_into(out, x, mode)
        assert np.array_equal(out, want), f"{row}: the slice version disagrees with numpy.pad"
        peers = [
            ("numpy.pad", lambda m=mode: np.pad(x, width, mode=m)),
            ("numpy slices", lambda m=mode: slices_into(out, x, m)),
        ]
        if mode != "symmetric":
            import onnxruntime as ort

            sess, shape = onnx_session(mode)
            y = ort.OrtValue.ortvalue_from_numpy(np.ones(shape, dtype=np.float32))
            binding = sess.io_binding()
            binding.bind_cpu_input("x", x)
            binding.bind_ortvalue_output("y", y)
            sess.run_with_iobinding(binding)
            assert np.array_equal(y.numpy(), want), f"{row}: onnxruntime disagrees with numpy.pad"
            peers.append(("onnxruntime", lambda s=sess, b=binding: s.run_with_iobinding(b)))
        for name, f in peers:
            t, base = median_pair(args.iters, f, memcpy)
            rows.append({"row": row, "peer": name, "median_ns": t, "memcpy_median_ns": base, "ratio": t / base})
    if args.json:
        print(json.dumps(rows))
    else:
        import numpy
        import onnxruntime

        print(f"numpy {numpy.__version__}, onnxruntime {onnxruntime.__version__}; "
              f"{out.nbytes} output bytes, median of {args.iters} samples, ratio to memcpy of the output")
        for r in rows:
            print(f"{r['row']:<13} {r['peer']:<13} {r['median_ns'] / 1e6:8.3f} ms  "
                  f"memcpy {r['memcpy_median_ns'] / 1e6:8.3f} ms  ratio {r['ratio']:6.3f}")


if __name__ == "__main__":
    main()
