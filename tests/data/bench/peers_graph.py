"""The GR rows of the workload table in one run: each real data-movement subgraph of the
graph sample (`../shared/conformance-graph`, or --cases DIR) through `kerfx.onnx` (the
model prepared once, `rep.run` per call: its fused programs on the JIT, the output a
new array) against ONNX Runtime running the same model on one thread (IO binding to
preallocated outputs), each timed with the peer scripts' protocol: the median of N
samples, kerf, ONNX Runtime and a memcpy of the output bytes sampled in turn (so that
each sees the same load on a shared machine), and the ratios of the medians. Every row also checks kerf's outputs against the case's expected bits.

    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install numpy onnx onnxruntime
    /tmp/peers/bin/pip install ./crates/kerfx-py
    /tmp/peers/bin/python tests/data/bench/peers_graph.py [--cases DIR] [--iters 21] [--json]

With --overhead, instead: per case whose output is under 64 KB (the shape-path and
tiny cases), `rep.run` against one call of a single compiled kernel moving the same
bytes (`kerfx.compile` of a Reshape of the output's shape, called on an array of it),
sampled in turn: the per-call cost of a prepared graph against a kernel call's.
"""
import argparse
import json
import os

import numpy as np

from peers_pad import medians

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "shared", "conformance-graph"))


def load_case(folder):
    import onnx

    model = onnx.load(os.path.join(folder, "model.onnx"))
    inputs = {
        i.name: np.load(os.path.join(folder, "inputs", f"{i.name}.npy"), allow_pickle=False)
        for i in model.graph.input
    }
    expected = [np.load(os.path.join(folder, "expected", f"{o.name}.npy")) for o in model.graph.output]
    return model, inputs, expected


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def ort_runner(model, inputs, expected):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    binding = sess.io_binding()
    for name, a in inputs.items():
        binding.bind_cpu_input(name, a)
    for o, e in zip(model.graph.output, expected):
        binding.bind_ortvalue_output(o.name, ort.OrtValue.ortvalue_from_numpy(np.empty_like(e)))
    return lambda: sess.run_with_iobinding(binding)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=SHARED)
    ap.add_argument("--iters", type=int, default=21)
    ap.add_argument("--only", default="", help="run the cases whose name contains this")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--overhead", action="store_true", help="rep.run against one kernel call, on the small cases")
    args = ap.parse_args()
    import kerfx.onnx

    if args.overhead:
        overhead(args)
        return

    rows = []
    for case in sorted(os.listdir(args.cases)):
        folder = os.path.join(args.cases, case)
        if not os.path.isdir(folder) or args.only not in case:
            continue
        model, inputs, expected = load_case(folder)
        rep = kerfx.onnx.prepare(model)
        got = rep.run(inputs)
        assert all(same_bits(g, e) for g, e in zip(got, expected)), f"{case}: kerf differs from expected"
        programs = len(rep.groups(inputs))
        out_bytes = sum(e.nbytes for e in expected)
        src = np.frombuffer(np.random.default_rng(0).bytes(max(out_bytes, 1)), np.uint8)
        dst = np.empty_like(src)
        copy = lambda: np.copyto(dst, src)  # noqa: E731
        kerf_ns, ort_ns, copy_ns = medians(args.iters, lambda: rep.run(inputs), ort_runner(model, inputs, expected), copy)
        rows.append(
            {
                "case": case,
                "programs": programs,
                "out_mb": out_bytes / 1e6,
                "kerf_us": kerf_ns / 1e3,
                "ort_us": ort_ns / 1e3,
                "kerf_x_memcpy": kerf_ns / copy_ns,
                "ort_x_memcpy": ort_ns / copy_ns,
                "kerf_over_ort": kerf_ns / ort_ns,
            }
        )
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"| case | programs | MB out | kerf µs | ort µs | kerf × memcpy | ort × memcpy | kerf ÷ ort |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['case']} | {r['programs']} | {r['out_mb']:.2f} | {r['kerf_us']:.1f} | {r['ort_us']:.1f} | "
            f"{r['kerf_x_memcpy']:.2f} | {r['ort_x_memcpy']:.2f} | {r['kerf_over_ort']:.2f} |"
        )


def overhead(args):
    import kerfx.onnx

    print("| case | nodes | KB out | rep.run µs | one kernel call µs | ratio |")
    print("|---|---|---|---|---|---|")
    for case in sorted(os.listdir(args.cases)):
        folder = os.path.join(args.cases, case)
        if not os.path.isdir(folder) or args.only not in case:
            continue
        model, inputs, expected = load_case(folder)
        if len(expected) != 1 or expected[0].nbytes >= 64_000:
            continue
        rep = kerfx.onnx.prepare(model)
        (y,) = expected
        kernel = kerfx.compile("onnx.reshape", data=kerfx.meta(y.dtype, y.shape), shape=np.array(y.shape, np.int64))
        x = y.copy()
        assert same_bits(kernel(x), y) and all(same_bits(g, e) for g, e in zip(rep.run(inputs), expected))
        graph_ns, kernel_ns = medians(args.iters, lambda: rep.run(inputs), lambda: kernel(x))
        nodes = len(model.graph.node)
        print(f"| {case} | {nodes} | {y.nbytes / 1e3:.1f} | {graph_ns / 1e3:.2f} | {kernel_ns / 1e3:.2f} | {graph_ns / kernel_ns:.2f} |")


if __name__ == "__main__":
    main()
