"""The workload table (crates/README.md) in one run: kerf (`kerf bench --json` on each
tests/data/bench/*.toml row), ndarray doing the same job into a preallocated array (the
same `kerf bench` call with `--peer ndarray`: slices and linspaces; ndarray has no random
fill), numpy writing into a preallocated output, and ONNX Runtime (IO binding to a
preallocated output, one thread), each timed with kerf bench's protocol:
the median of N samples, each interleaved with a memcpy (slices) or memset (fills) of the
output's bytes in the same process, and the ratio of the two medians. Every row shows
kerf ÷ the best peer.

    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install numpy onnx onnxruntime
    cargo build --release -p kerfx-cli
    /tmp/peers/bin/python tests/data/bench/peers.py --kerf target/release/kerf [--iters 21]

The pad rows (P1, P2) have their own script, peers_pad.py, with the same protocol.
"""
import argparse
import json
import os
import subprocess

import numpy as np

from peers_pad import median_pair, one_thread_session, slices_into

HERE = os.path.dirname(os.path.abspath(__file__))
SQ = (4096, 4096)
IMAGE = (1, 3, 1024, 1024)
P = 16


def ort_session(node, inputs, out_shape, initializers):
    """A one-node ONNX Runtime session on one thread, its output bound to a preallocated
    buffer: (run, output array)."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape)) for n, a in inputs.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(out_shape))],
        [onnx.numpy_helper.from_array(v, k) for k, v in initializers.items()],
    )
    sess = one_thread_session(graph)
    y = ort.OrtValue.ortvalue_from_numpy(np.ones(out_shape, dtype=np.float32))
    binding = sess.io_binding()
    for n, a in inputs.items():
        binding.bind_cpu_input(n, a)
    binding.bind_ortvalue_output("y", y)
    return (lambda: sess.run_with_iobinding(binding)), y


def ort_outputs(node, inputs, out_shapes):
    """A one-node ONNX Runtime session on one thread whose outputs y0, y1, ... are bound to
    preallocated buffers (Split): (run, [output arrays])."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape)) for n, a in inputs.items()],
        [helper.make_tensor_value_info(f"y{k}", TensorProto.FLOAT, list(s)) for k, s in enumerate(out_shapes)],
    )
    sess = one_thread_session(graph)
    ys = [ort.OrtValue.ortvalue_from_numpy(np.ones(s, dtype=np.float32)) for s in out_shapes]
    binding = sess.io_binding()
    for n, a in inputs.items():
        binding.bind_cpu_input(n, a)
    for k, y in enumerate(ys):
        binding.bind_ortvalue_output(f"y{k}", y)
    return (lambda: sess.run_with_iobinding(binding)), ys


def ort_slice(x, starts, ends, axes, steps, out_shape):
    from onnx import helper
    i64 = lambda v: np.array(v, dtype=np.int64)  # noqa: E731
    node = helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])
    init = {"starts": i64(starts), "ends": i64(ends), "axes": i64(axes), "steps": i64(steps)}
    return ort_session(node, {"x": x}, out_shape, init)


def ort_pad(x, mode):
    from onnx import helper
    pads = np.array([0, 0, P, P, 0, 0, P, P], dtype=np.int64)
    out_shape = IMAGE[:2] + (IMAGE[2] + 2 * P, IMAGE[3] + 2 * P)
    node = helper.make_node("Pad", ["x", "pads"], ["y"], mode=mode)
    return ort_session(node, {"x": x}, out_shape, {"pads": pads})


def rows(rng):
    """(id, request file, baseline, expected output or None, {peer: (call, output)})."""
    sq = rng.standard_normal(SQ).astype(np.float32)
    img = rng.standard_normal(IMAGE).astype(np.float32)
    out = lambda shape: np.ones(shape, dtype=np.float32)  # noqa: E731
    r = []

    def slice_row(rid, file, view, starts, ends, axes, steps):
        o = out(view.shape)
        peers = {"numpy": (lambda: np.copyto(o, view), o)}
        peers["onnxruntime"] = ort_slice(sq, starts, ends, axes, steps, view.shape)
        r.append((rid, file, "memcpy", view, peers))

    big = np.iinfo(np.int64).max
    slice_row("W1 rows", "w1_rows", sq[:2048], [0], [2048], [0], [1])
    slice_row("W2 columns", "w2_columns", sq[:, 1024:3072], [1024], [3072], [1], [1])
    slice_row("W3 stride 2", "w3_stride2", sq[:, ::2], [0], [big], [1], [2])
    slice_row("W4 reversed", "w4_reverse", sq[:, ::-1], [-1], [-big], [1], [-1])
    width = ((0, 0), (0, 0), (P, P), (P, P))
    for mode, np_mode, ort_mode in [("fill", "constant", "constant"), ("clamp", "edge", "edge"),
                                    ("wrap", "wrap", "wrap"), ("reflect", "reflect", "reflect")]:
        want = np.pad(img, width, mode=np_mode)
        o = out(want.shape)
        peers = {"numpy": (lambda o=o, m=np_mode: slices_into(o, img, m), o),
                 "onnxruntime": ort_pad(img, ort_mode)}
        r.append((f"W5 {mode}", f"w5_{mode}", "memcpy", want, peers))
    # F1: alpha 0, deltas [4096, 1]: the broadcast sum of a column and a row.
    col = (np.arange(SQ[0], dtype=np.float32) * 4096)[:, None]
    row = np.arange(SQ[1], dtype=np.float32)[None, :]
    o = out(SQ)
    r.append(("F1 linspace", "f1_linspace", "memset", col + row, {"numpy": (lambda: np.add(col, row, out=o), o)}))
    gen = np.random.default_rng(1)
    o2, o3 = out(SQ), out(SQ)
    r.append(("F2 uniform", "f2_uniform", "memset", None,
              {"numpy": (lambda: gen.random(out=o2, dtype=np.float32), o2)}))
    r.append(("F3 normal", "f3_normal", "memset", None,
              {"numpy": (lambda: gen.standard_normal(out=o3, dtype=np.float32), o3)}))
    # The axis ops (TR, EX, DS rows): numpy writing the moved view into a preallocated
    # output; onnxruntime the one node.
    from onnx import helper

    def move_row(rid, file, x, view, node, init=None):
        want = view(x)
        o = out(want.shape)
        peers = {"numpy": (lambda o=o, x=x, view=view: np.copyto(o, view(x)), o),
                 "onnxruntime": ort_session(node, {"x": x}, want.shape, init or {})}
        r.append((rid, file, "memcpy", want, peers))

    for rid, file, shape, perm in [("TR1 transpose", "tr1_transpose", (4096, 4096), (1, 0)),
                                   ("TR2 NHWC", "tr2_nhwc", (1, 64, 256, 256), (0, 2, 3, 1)),
                                   ("TR3 head split", "tr3_head_split", (8, 512, 16, 64), (0, 2, 1, 3)),
                                   ("TR4 perm 2,0,1", "tr4_perm201", (64, 128, 256), (2, 0, 1))]:
        x = rng.standard_normal(shape).astype(np.float32)
        move_row(rid, file, x, lambda x, perm=perm: x.transpose(perm),
                 helper.make_node("Transpose", ["x"], ["y"], perm=list(perm)))
    target = (1, 8, 4, 2048, 128)
    move_row("EX1 expand", "ex1_gqa", rng.standard_normal((1, 8, 1, 2048, 128)).astype(np.float32),
             lambda x: np.broadcast_to(x, target),
             helper.make_node("Expand", ["x", "shape"], ["y"]), {"shape": np.array(target, dtype=np.int64)})
    # CRD: [N, C/4, 2, 2, H, W] permuted by [0, 1, 4, 2, 5, 3].
    move_row("DS1 depth to space", "ds1_crd", rng.standard_normal((1, 256, 128, 128)).astype(np.float32),
             lambda x: x.reshape(1, 64, 2, 2, 128, 128).transpose(0, 1, 4, 2, 5, 3).reshape(1, 64, 256, 256),
             helper.make_node("DepthToSpace", ["x"], ["y"], blocksize=2, mode="CRD"))
    # GA1: an embedding lookup, the indices those of the request file.
    import tomllib
    with open(os.path.join(HERE, "ga1_embedding.toml"), "rb") as f:
        idx = np.array(tomllib.load(f)["inputs"]["indices"]["values"], dtype=np.int64)
    table = rng.standard_normal((50000, 768)).astype(np.float32)
    want = table[idx]
    ga = out(want.shape)  # (not `o`: the F1 row's lambda reads that name when it runs)
    peers = {"numpy": (lambda: np.take(table, idx, axis=0, out=ga), ga),
             "onnxruntime": ort_session(helper.make_node("Gather", ["x", "indices"], ["y"], axis=0),
                                        {"x": table}, want.shape, {"indices": idx})}
    r.append(("GA1 gather", "ga1_embedding", "memcpy", want, peers))
    # Programs: Concat (one input per move) and Split (one output per move); kerf bench
    # feeds its own inputs (a byte pattern), so the peers' outputs are checked against
    # numpy's on theirs.
    for rid, file, shape, n, axis in [("CC1 concat channels", "cc1_concat_channels", (1, 64, 256, 256), 4, 1),
                                      ("CC2 concat innermost", "cc2_concat_innermost", (1, 256, 128, 64), 2, 3)]:
        xs = [rng.standard_normal(shape).astype(np.float32) for _ in range(n)]
        want = np.concatenate(xs, axis=axis)
        o = out(want.shape)
        names = {f"x{k}": x for k, x in enumerate(xs)}
        peers = {"numpy": (lambda o=o, xs=xs, axis=axis: np.concatenate(xs, axis=axis, out=o), o),
                 "onnxruntime": ort_session(helper.make_node("Concat", list(names), ["y"], axis=axis),
                                            names, want.shape, {})}
        r.append((rid, file, "memcpy", want, peers))
    for rid, file, shape, n, axis in [("SP1 split channels", "sp1_split_channels", (1, 256, 256, 256), 4, 1),
                                      ("SP2 split q/k/v", "sp2_split_qkv", (1, 2048, 2304), 3, 2)]:
        x = rng.standard_normal(shape).astype(np.float32)
        want = np.split(x, n, axis=axis)
        os_ = [out(w.shape) for w in want]

        def np_split(x=x, os_=os_, n=n, axis=axis):
            for o, part in zip(os_, np.split(x, n, axis=axis)):
                np.copyto(o, part)

        node = helper.make_node("Split", ["x"], [f"y{k}" for k in range(n)], axis=axis, num_outputs=n)
        peers = {"numpy": (np_split, os_), "onnxruntime": ort_outputs(node, {"x": x}, [w.shape for w in want])}
        r.append((rid, file, "memcpy", want, peers))
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kerf", required=True, help="the kerf binary (a release build)")
    ap.add_argument("--iters", type=int, default=21)
    ap.add_argument("--only", default="", help="comma-separated row id prefixes")
    args = ap.parse_args()
    only = [p for p in args.only.split(",") if p]
    print("| id | kerf | ndarray | numpy | onnxruntime | kerf ÷ best peer |")
    print("|---|---|---|---|---|---|")
    for rid, file, baseline, want, peers in rows(np.random.default_rng(0)):
        if only and not any(rid.startswith(p) for p in only):
            continue
        req = os.path.join(HERE, f"{file}.toml")
        # ndarray's job (checked equal to kerf's output by kerf bench itself): every row
        # but the random fills.
        peer = [] if rid.startswith(("F2", "F3", "CC", "SP")) else ["--peer", "ndarray"]
        k = json.loads(subprocess.run([args.kerf, "bench", req, "--json", "--iters", str(args.iters)] + peer,
                                      check=True, capture_output=True, text=True).stdout)
        ratios = {name: v["ratio"] for name, v in k.get("peers", {}).items()}
        for name, (f, o) in peers.items():
            f()
            # Several outputs (Split) are a list; their baseline copies their bytes in one.
            outs = o if isinstance(o, list) else [o]
            gots = [x.numpy() if hasattr(x, "numpy") else x for x in outs]
            wants = want if isinstance(want, list) else [want]
            if want is not None:
                assert all(np.array_equal(g, w) for g, w in zip(gots, wants)), f"{rid}: {name} computes something else"
            dst = np.ones(sum(g.size for g in gots), dtype=np.float32)
            if baseline == "memcpy":
                src = np.full(dst.shape, 3.0, dtype=np.float32)
                base = lambda d=dst, s=src: np.copyto(d, s)  # noqa: E731
            else:
                base = lambda d=dst: d.fill(0x5a)  # noqa: E731
            t, b = median_pair(args.iters, f, base)
            ratios[name] = t / b
        best = min(ratios.values())
        cell = lambda n: f"{ratios[n]:.2f}" if n in ratios else "-"  # noqa: E731
        print(f"| {rid} | {k['ratio']:.2f} | {cell('ndarray')} | {cell('numpy')} | {cell('onnxruntime')} "
              f"| {k['ratio'] / best:.2f} |")


if __name__ == "__main__":
    main()
