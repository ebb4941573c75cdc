"""kerfx.run against numpy slicing and np.pad, one run: per-call overhead on a 3x3 array
and throughput on a 64 MiB one (output bytes per second; np.copyto of the same bytes is
the memcpy line). With onnxruntime installed, its Slice (and Pad) run alongside.

    python crates/kerfx-py/bench/compare.py [--json]

Times are the median of repeated calls (small) or of a few calls (large), on whatever
else the machine is doing: figures for a note, not for a test. kerfx.run and numpy
allocate a new output per call (fresh pages, faulted in as they are written);
onnxruntime reuses its arena; the "out=out" rows write into one array allocated once.
"""

import argparse
import json
import statistics
import time

import numpy as np

import kerfx


def median_ns(f, calls, rounds=7):
    """Median over rounds of the mean time of `calls` calls, in ns."""
    f()  # compile, allocate, warm the caches
    means = []
    for _ in range(rounds):
        t = time.perf_counter_ns()
        for _ in range(calls):
            f()
        means.append((time.perf_counter_ns() - t) / calls)
    return statistics.median(means)


def onnxruntime_session(op_type, inputs, attrs=None, opset=13):
    """An onnxruntime session of one node over float32 `x` and int64 initializers."""
    try:
        import onnxruntime
        from onnx import TensorProto, helper
    except ImportError:
        return None
    inits = [helper.make_tensor(k, TensorProto.INT64, [len(v)], v) for k, v in inputs.items()]
    node = helper.make_node(op_type, ["x", *inputs], ["y"], **(attrs or {}))
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return lambda x: session.run(None, {"x": x})[0]


def small(rows):
    x = np.arange(9, dtype=np.float32).reshape(3, 3)
    out = np.empty((2, 3), np.float32)
    k = kerfx.compile("onnx.slice", data=kerfx.meta(np.float32, (3, 3)), starts=[1], ends=[3])
    calls = 20000
    rows.append(("3x3 crop x[1:3]", "numpy view x[1:3]", median_ns(lambda: x[1:3], calls)))
    rows.append(("3x3 crop x[1:3]", "numpy copy x[1:3].copy()", median_ns(lambda: x[1:3].copy(), calls)))
    rows.append(("3x3 crop x[1:3]", "kerfx.run onnx.slice", median_ns(lambda: kerfx.run("onnx.slice", data=x, starts=[1], ends=[3]), calls)))
    rows.append(("3x3 crop x[1:3]", "kerf kernel k(x, out=out)", median_ns(lambda: k(x, out=out), calls)))
    ort = onnxruntime_session("Slice", {"starts": [1], "ends": [3]})
    if ort:
        rows.append(("3x3 crop x[1:3]", "onnxruntime Slice", median_ns(lambda: ort(x), calls)))
    args = dict(start=[-1, -1], size=[5, 5], stride=[1, 1], mode="wrap")
    rows.append(("3x3 wrap pad 1", "np.pad mode=wrap", median_ns(lambda: np.pad(x, 1, mode="wrap"), calls)))
    rows.append(("3x3 wrap pad 1", "kerfx.run tensorrt.slice", median_ns(lambda: kerfx.run("tensorrt.slice", input=x, **args), calls)))


def large(rows):
    n = 4096
    x = np.random.default_rng(0).random((n, n), dtype=np.float32)  # 64 MiB
    calls, p = 3, 16

    def case(label, numpy_label, numpy_f, kerf_f, ort_f=None, kerf_label="kerfx.run"):
        out = kerf_f()
        out_bytes = out.nbytes
        rows.append((label, numpy_label, median_ns(numpy_f, calls, 5), out_bytes))
        rows.append((label, kerf_label, median_ns(kerf_f, calls, 5), out_bytes))
        # The same call into an `out` allocated once: no fresh pages to fault in.
        rows.append((label, "  ... out=out (reused)", median_ns(lambda: kerf_f(out=out), calls, 5), out_bytes))
        if ort_f:
            rows.append((label, "onnxruntime", median_ns(ort_f, calls, 5), out_bytes))

    same = np.empty_like(x)
    rows.append(("64 MiB copy", "np.copyto (memcpy)", median_ns(lambda: np.copyto(same, x), calls, 5), x.nbytes))
    ort = onnxruntime_session("Slice", {"starts": [p, p], "ends": [-p, -p]})
    case(
        "64 MiB crop 16 each side",
        "numpy x[16:-16, 16:-16].copy()",
        lambda: x[p:-p, p:-p].copy(),
        lambda **o: kerfx.run("onnx.slice", data=x, starts=[p, p], ends=[-p, -p], **o),
        ort and (lambda: ort(x)),
    )
    ort = onnxruntime_session("Slice", {"starts": [-1], "ends": [-(2**62)], "axes": [1], "steps": [-1]})
    case(
        "64 MiB reverse columns",
        "numpy x[:, ::-1].copy()",
        lambda: x[:, ::-1].copy(),
        lambda **o: kerfx.run("onnx.slice", data=x, starts=[-1], ends=[-(2**62)], axes=[1], steps=[-1], **o),
        ort and (lambda: ort(x)),
    )
    for mode, np_mode in [("fill", "constant"), ("clamp", "edge"), ("reflect", "reflect"), ("wrap", "wrap")]:
        args = dict(start=[-p, -p], size=[n + 2 * p, n + 2 * p], stride=[1, 1], mode=mode)
        ort = onnxruntime_session("Pad", {"pads": [p, p, p, p]}, {"mode": np_mode}, opset=19)
        case(
            f"64 MiB pad 16 {np_mode}",
            f"np.pad mode={np_mode}",
            lambda np_mode=np_mode: np.pad(x, p, mode=np_mode),
            lambda args=args, **o: kerfx.run("tensorrt.slice", input=x, **args, **o),
            ort and (lambda ort=ort: ort(x)),
            kerf_label=f"kerfx.run tensorrt.slice {mode}",
        )
    if "onnx.pad" in kerfx.ops():
        case(
            "64 MiB pad 16 reflect",
            "np.pad mode=reflect",
            lambda: np.pad(x, p, mode="reflect"),
            lambda **o: kerfx.run("onnx.pad", data=x, pads=[p, p, p, p], mode="reflect", **o),
            kerf_label="kerfx.run onnx.pad reflect",
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    a = parser.parse_args()
    small_rows, large_rows = [], []
    small(small_rows)
    large(large_rows)
    if a.json:
        print(json.dumps({"small": small_rows, "large": large_rows}, indent=1))
        return
    print(f"kerf {kerfx.__version__}, numpy {np.__version__}")
    print(f"\n{'case':<26} {'implementation':<34} {'per call':>10}")
    for case, impl, ns in small_rows:
        print(f"{case:<26} {impl:<34} {ns / 1000:>8.2f} us")
    print(f"\n{'case':<26} {'implementation':<34} {'per call':>10} {'GB/s':>7}")
    for case, impl, ns, out_bytes in large_rows:
        print(f"{case:<26} {impl:<34} {ns / 1e6:>7.2f} ms {out_bytes / ns:>7.2f}")


if __name__ == "__main__":
    main()
