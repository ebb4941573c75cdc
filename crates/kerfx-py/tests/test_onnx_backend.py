"""kerfx.onnx as an ONNX backend: onnx's own backend test suite, and models of our own
(every Slice version, initializers, chains, unsupported nodes).

The suite's tests are chosen by op, not by name: every node test -- and every PyTorch
model test shipped with onnx -- whose graph has only ONNX ops kerf's registry lists, on
tensors. So every op's node tests run as soon as the op is in the registry; a version
kerf's spec lacks then fails (prepare names it), loudly.
"""

import os
import re

import numpy as np
import onnx
import onnx.backend.test
import pytest
from onnx import TensorProto, helper
from onnx.backend.test.loader import load_model_tests
from onnx.reference import ReferenceEvaluator

import kerfx
import kerfx.onnx

KERF_ONNX_OPS = {op for op in kerfx.ops() if op.startswith("onnx.")}


def only_kerf_ops(model):
    """Whether a model's nodes are kerf's ONNX ops on tensors (Identity's node tests also
    pass sequences and optionals, which kerf does not have)."""
    values = list(model.graph.input) + list(model.graph.output)
    return all(v.type.HasField("tensor_type") for v in values) and all(
        node.domain in ("", "ai.onnx") and kerfx.onnx.kerf_op(node.op_type) in KERF_ONNX_OPS for node in model.graph.node
    )


NODE_TESTS = load_model_tests(kind="node")


def selected_tests():
    """Names of onnx's backend tests (node tests, and the model tests shipped with onnx)
    whose graphs use only kerf's ONNX ops."""
    names = [case.name for case in NODE_TESTS if only_kerf_ops(case.model)]
    for kind in ("pytorch-converted", "pytorch-operator", "simple"):
        for case in load_model_tests(kind=kind):
            path = os.path.join(case.model_dir or "", "model.onnx")
            if case.model_dir and os.path.exists(path) and only_kerf_ops(onnx.load(path)):
                names.append(case.name)
    return names


SELECTED = selected_tests()
assert SELECTED, "no onnx backend test uses only kerf's ops (an empty include list would select all)"

backend_test = onnx.backend.test.BackendTest(kerfx.onnx, __name__)
PATTERNS = [re.compile(f"^{re.escape(name)}_cpu$") for name in SELECTED]
for pattern in PATTERNS:
    backend_test.include(pattern.pattern)



def included_test_cases():
    """The suite's test classes with only the included tests (the others would be
    thousands of skips)."""
    kept = {}
    for name, case in backend_test.test_cases.items():
        for attr in [a for a in vars(case) if a.startswith("test_")]:
            if not any(p.search(attr) for p in PATTERNS):
                delattr(case, attr)
        if any(a.startswith("test_") for a in vars(case)):
            kept[name] = case
    return kept


globals().update(included_test_cases())


def test_every_slice_node_test_is_selected():
    slice_tests = {case.name for case in NODE_TESTS if {n.op_type for n in case.model.graph.node} == {"Slice"}}
    assert slice_tests and slice_tests <= set(SELECTED)
    if "onnx.pad" in KERF_ONNX_OPS:
        pad_tests = {case.name for case in NODE_TESTS if {n.op_type for n in case.model.graph.node} == {"Pad"}}
        assert pad_tests and pad_tests <= set(SELECTED)


# ------------------------------------------------------------------- our models


def model(nodes, inputs, outputs, opset, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def tensor_info(name, elem=TensorProto.FLOAT, shape=("d0", "d1", "d2")):
    return helper.make_tensor_value_info(name, elem, shape)


def reference(m, feeds):
    return ReferenceEvaluator(m).run(None, feeds)


def assert_same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


X = np.arange(60, dtype=np.float32).reshape(3, 4, 5)


def test_slice_1_attributes():
    node = helper.make_node("Slice", ["x"], ["y"], starts=[1, 0], ends=[3, -1], axes=[0, 2])
    m = model([node], [tensor_info("x")], [tensor_info("y")], opset=1)
    assert_same(kerfx.onnx.run_model(m, [X]), reference(m, {"x": X}))


@pytest.mark.parametrize("opset", [10, 11, 13])
def test_slice_10_11_13_inputs_and_initializers(opset):
    axes = [0, 2] if opset == 10 else [0, -1]
    inits = [
        helper.make_tensor("starts", TensorProto.INT64, [2], [2, -1]),
        helper.make_tensor("ends", TensorProto.INT32, [2], [0, -6]),
        helper.make_tensor("axes", TensorProto.INT64, [2], axes),
    ]
    node = helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])
    ins = [tensor_info("x"), tensor_info("steps", TensorProto.INT64, [2])]
    m = model([node], ins, [tensor_info("y")], opset=opset, initializers=inits)
    steps = np.array([-1, -2], np.int64)
    assert_same(kerfx.onnx.run_model(m, [X, steps]), reference(m, {"x": X, "steps": steps}))
    assert_same(kerfx.onnx.prepare(m).run({"x": X, "steps": steps}), reference(m, {"x": X, "steps": steps}))


def test_chain_of_slices_runs_as_one_program():
    nodes = [
        helper.make_node("Slice", ["x", "s0", "e0"], ["t"]),
        helper.make_node("Slice", ["t", "s1", "e1", "a1", ""], ["y"]),
    ]
    inits = [
        helper.make_tensor("s0", TensorProto.INT64, [1], [1]),
        helper.make_tensor("e0", TensorProto.INT64, [1], [3]),
        helper.make_tensor("s1", TensorProto.INT64, [1], [-1]),
        helper.make_tensor("e1", TensorProto.INT64, [1], [-100]),
        helper.make_tensor("a1", TensorProto.INT64, [1], [1]),
    ]
    m = model(nodes, [tensor_info("x")], [tensor_info("y")], opset=13, initializers=inits)
    (y,) = kerfx.onnx.run_model(m, [X])
    np.testing.assert_array_equal(y, X[1:3, -1:-100:1])
    assert_same([y], reference(m, {"x": X}))
    assert kerfx.onnx.prepare(m).groups([X]) == [["node 0 (onnx.slice)", "node 1 (onnx.slice)"]]


def test_every_concat_and_split_node_test_is_selected():
    for op in ("Concat", "Split"):
        tests = {case.name for case in NODE_TESTS if {n.op_type for n in case.model.graph.node} == {op}}
        assert tests and tests <= set(SELECTED), op


def test_swin_roll_is_one_program_reading_its_input_once():
    """Swin's roll (two slices joined by a Concat) and the shape path of its bounds."""
    i64 = lambda name, v: helper.make_tensor(name, TensorProto.INT64, [len(v)], v)  # noqa: E731
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "one"], ["n"], axis=0),
        helper.make_node("Slice", ["x", "three", "n", "one"], ["a"]),
        helper.make_node("Slice", ["x", "zero", "three", "one"], ["b"]),
        helper.make_node("Concat", ["a", "b"], ["y"], axis=1),
    ]
    inits = [i64("one", [1]), i64("three", [3]), i64("zero", [0])]
    m = model(nodes, [tensor_info("x")], [tensor_info("y")], opset=13, initializers=inits)
    x = np.arange(2 * 8 * 3, dtype=np.float32).reshape(2, 8, 3)
    rep = kerfx.onnx.prepare(m)
    assert_same(rep.run([x]), reference(m, {"x": x}))
    assert len(rep.groups([x])) == 1
    for backend in ("jit-dynamic", "reference"):
        assert_same(rep.run([x], backend=backend), reference(m, {"x": x}))
    with pytest.raises(kerfx.KerfError, match="backend `gpu`"):
        rep.run([x], backend="gpu")


def test_a_shape_op_on_a_run_time_value_is_unsupported():
    nodes = [helper.make_node("Add", ["x", "x"], ["y"])]
    m = model(nodes, [tensor_info("x")], [tensor_info("y")], opset=13)
    rep = kerfx.onnx.prepare(m)  # Add is a shape-path op: checked when the graph runs
    with pytest.raises(kerfx.onnx.UnsupportedError) as e:
        rep.run([X])
    assert "known only when the graph runs" in str(e.value) and e.value.name == "node 0 (Add)"


GRAPH_CASES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "data", "conformance-graph")


@pytest.mark.parametrize("case", sorted(c for c in os.listdir(GRAPH_CASES) if not c.endswith(".md")))
def test_real_subgraphs_run_fused_bit_for_bit(case):
    """The committed real data-movement subgraphs (cut from exported models) through
    kerfx.onnx: the expected bits, and a fusion group as one program."""
    folder = os.path.join(GRAPH_CASES, case)
    m = onnx.load(os.path.join(folder, "model.onnx"))
    inputs = {i.name: np.load(os.path.join(folder, "inputs", f"{i.name}.npy")) for i in m.graph.input}
    rep = kerfx.onnx.prepare(m)
    got = rep.run(inputs)
    for o, g in zip(m.graph.output, got):
        want = np.load(os.path.join(folder, "expected", f"{o.name}.npy"))
        assert g.dtype == want.dtype and g.shape == want.shape and g.tobytes() == want.tobytes(), o.name
    assert len(rep.groups(inputs)) == 1


def test_run_node_with_an_opset():
    node = helper.make_node("Slice", ["x"], ["y"], starts=[1], ends=[2])
    (y,) = kerfx.onnx.run_node(node, [X], opset_version=9)
    np.testing.assert_array_equal(y, X[1:2])
    node = helper.make_node("Slice", ["x", "s", "e", "", "st"], ["y"])
    out = kerfx.onnx.run_node(node, [X, np.array([3]), np.array([0]), None, np.array([-1])])
    np.testing.assert_array_equal(out["y"], X[3:0:-1])


def test_devices():
    assert kerfx.onnx.supports_device("CPU")
    assert not kerfx.onnx.supports_device("CUDA")
    assert not kerfx.onnx.supports_device("TPU")
    node = helper.make_node("Slice", ["x"], ["y"], starts=[0], ends=[1])
    m = model([node], [tensor_info("x")], [tensor_info("y")], opset=1)
    with pytest.raises(kerfx.onnx.UnsupportedError, match="CPU only"):
        kerfx.onnx.prepare(m, "CUDA")


def test_unsupported_node_is_named():
    nodes = [
        helper.make_node("Slice", ["x"], ["t"], starts=[0], ends=[1]),
        helper.make_node("Relu", ["t"], ["y"], name="act"),
    ]
    m = model(nodes, [tensor_info("x")], [tensor_info("y")], opset=6)
    assert not kerfx.onnx.is_compatible(m)
    with pytest.raises(kerfx.onnx.UnsupportedError) as e:
        kerfx.onnx.prepare(m)
    assert "node 1 (Relu `act`): kerf has no op onnx.relu" in str(e.value)
    assert isinstance(e.value, kerfx.KerfError) and e.value.name == "node 1 (Relu `act`)"


def test_other_domains_are_unsupported():
    node = helper.make_node("Slice", ["x"], ["y"], domain="com.example")
    graph = helper.make_graph([node], "g", [tensor_info("x")], [tensor_info("y")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)])
    with pytest.raises(kerfx.onnx.UnsupportedError, match="domain `com.example`"):
        kerfx.onnx.prepare(m)


def test_kerf_errors_pass_through():
    node = helper.make_node("Slice", ["x", "s", "e", "a"], ["y"])
    with pytest.raises(kerfx.KerfError) as e:
        kerfx.onnx.run_node(node, [X, np.array([0]), np.array([1]), np.array([5])], opset_version=13)
    assert e.value.rule == "axis_in_range"


def test_op_names():
    assert kerfx.onnx.kerf_op("Slice") == "onnx.slice"
    assert kerfx.onnx.kerf_op("DepthToSpace") == "onnx.depth_to_space"


PAD_CASES = {
    "constant": ("constant", 2.5, [1, 0, 2, 0, 3, 1]),
    "reflect": ("reflect", None, [2, 1, 0, 1, 3, 4]),
    "edge": ("edge", None, [0, 2, 1, 3, 0, 0]),
    "wrap": ("wrap", None, [3, 0, 4, 2, 1, 5]),
}


PAD_OPSETS = [11, 13, 18, 19, 21, onnx.defs.onnx_opset_version()]


@pytest.mark.parametrize(
    "opset, case",
    # wrap exists from Pad-19 on (before, the checker refuses the model itself)
    [(o, c) for c in PAD_CASES.values() for o in PAD_OPSETS if c[0] != "wrap" or o >= 19],
    ids=[f"{m}-{o}" for m, c in PAD_CASES.items() for o in PAD_OPSETS if c[0] != "wrap" or o >= 19],
)
def test_pad_models(opset, case):
    """Pad after a Slice, pads as an initializer: the onnx reference's answer when kerf
    has onnx.pad at the version the opset selects, else a refusal naming why."""
    mode, value, pads = case
    inputs = ["t", "pads"] + (["value"] if value is not None else [])
    nodes = [
        helper.make_node("Slice", ["x", "s", "e"], ["t"]),
        helper.make_node("Pad", inputs, ["y"], mode=mode),
    ]
    inits = [
        helper.make_tensor("s", TensorProto.INT64, [1], [1]),
        helper.make_tensor("e", TensorProto.INT64, [1], [3]),
        helper.make_tensor("pads", TensorProto.INT64, [6], pads),
    ]
    if value is not None:
        inits.append(helper.make_tensor("value", TensorProto.FLOAT, [], [value]))
    m = model(nodes, [tensor_info("x")], [tensor_info("y")], opset=opset, initializers=inits)
    version = onnx.defs.get_schema("Pad", opset, "").since_version
    if "onnx.pad" not in KERF_ONNX_OPS:
        with pytest.raises(kerfx.onnx.UnsupportedError, match="kerf has no op onnx.pad"):
            kerfx.onnx.prepare(m)
    elif version not in kerfx.spec("onnx.pad")["versions"]:
        with pytest.raises(kerfx.onnx.UnsupportedError, match=f"selects Pad-{version}, which kerf's onnx.pad"):
            kerfx.onnx.prepare(m)
    else:
        assert_same(kerfx.onnx.run_model(m, [X]), reference(m, {"x": X}))


def test_an_input_with_an_initializer_takes_the_callers_value():
    """ONNX's rule: an initializer of a graph input's name is a default the caller may replace."""
    node = helper.make_node("Concat", ["x", "w"], ["y"], axis=0)
    w = helper.make_tensor("w", TensorProto.FLOAT, [2], [7.0, 8.0])
    m = model([node], [tensor_info("x", shape=[2]), tensor_info("w", shape=[2])], [tensor_info("y", shape=[4])], 13, [w])
    x = np.array([1.0, 2.0], np.float32)
    rep = kerfx.onnx.prepare(m)
    assert rep.run([x])[0].tolist() == [1.0, 2.0, 7.0, 8.0]
    (y,) = rep.run({"x": x, "w": np.array([5.0, 6.0], np.float32)})
    assert y.tolist() == [1.0, 2.0, 5.0, 6.0]
    assert_same([y], reference(m, {"x": x, "w": np.array([5.0, 6.0], np.float32)}))


# ----------------------------------------------------- rep.run's fast path (run_fast)


def transpose_model(shape=("d0", "d1", "d2")):
    node = helper.make_node("Transpose", ["x"], ["y"], perm=[2, 0, 1])
    return model([node], [tensor_info("x", shape=shape)], [tensor_info("y", shape=("a", "b", "c"))], opset=13)


def test_run_takes_plain_arrays_by_position_or_name_in_rust():
    """Plain arrays matching the declarations run in Rust (`run_fast`): as a list, a tuple,
    a dict or the one array, the bits of the checked path (the dynamic backend never takes
    the fast one), the outputs a namedtuple of new, writeable, C-contiguous arrays."""
    m = transpose_model()
    rep = kerfx.onnx.prepare(m)
    want = reference(m, {"x": X})
    for given in ([X], (X,), {"x": X}, X):
        assert rep._model.run_fast(given) is not None
        got = rep.run(given)
        assert_same(got, want)
        assert_same(got, rep.run(given, backend="jit-dynamic"))
        assert type(got) is rep._tuple and got.y is got[0] and got["y"] is got[0]
        (y,) = got
        assert y.flags.c_contiguous and y.flags.writeable and y.flags.owndata
        assert not np.shares_memory(y, X)
    (a,), (b,) = rep.run([X]), rep.run([X])
    assert a is not b and not np.shares_memory(a, b)


@pytest.mark.parametrize(
    "given",
    [
        pytest.param(lambda: [X.astype(np.float64)], id="dtype"),
        pytest.param(lambda: [X[:, ::2]], id="strided"),
        pytest.param(lambda: [X.astype(">f4")], id="byte_swapped"),
        pytest.param(lambda: [X.tolist()], id="list_of_lists"),
        pytest.param(lambda: [kerfx.raw(X.view(np.uint32), "f32")], id="raw"),
        pytest.param(lambda: [X, X], id="count"),
        pytest.param(lambda: {"x": X, "z": X}, id="unknown_name"),
        pytest.param(lambda: {"z": X}, id="missing_name"),
    ],
)
def test_anything_else_takes_the_checked_path(given):
    """run_fast declines what it does not take plainly; `run` then converts, copies or
    refuses it as it always has."""
    m = transpose_model()
    rep = kerfx.onnx.prepare(m)
    assert rep._model.run_fast(given()) is None
    try:
        got = rep.run(given())
    except kerfx.KerfError as e:
        assert "x" in str(e) or "z" in str(e)
        return
    x = given()[0]
    x = np.asarray(x.array.view(np.float32) if isinstance(x, kerfx.Raw) else x, np.float32)
    assert_same(got, reference(m, {"x": np.ascontiguousarray(x)}))


def test_fixed_dims_and_types_are_checked_before_the_fast_path():
    m = transpose_model(shape=[3, "n", 5])
    rep = kerfx.onnx.prepare(m)
    assert rep._model.run_fast([X]) is not None
    assert rep._model.run_fast([X[:2]]) is None
    with pytest.raises(kerfx.KerfError, match=r"declared of shape \[3, 'n', 5\]"):
        rep.run([X[:2]])
    with pytest.raises(kerfx.KerfError, match="declared FLOAT, given a int32 array"):
        rep.run([X.astype(np.int32)])


def test_every_shape_gets_its_own_runner():
    """More shapes than run_fast keeps runners for (16), then the first again: each the
    reference's bits."""
    m = transpose_model()
    rep = kerfx.onnx.prepare(m)
    shapes = [(1 + k % 3, 2 + k, 3) for k in range(20)] + [(1, 2, 3)]
    for shape in shapes:
        x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        assert_same(rep.run([x]), reference(m, {"x": x}))


def test_a_graph_of_several_programs_takes_the_checked_path():
    """A value that is a graph output and read by another node is written: two programs."""
    nodes = [
        helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0, 2]),
        helper.make_node("Slice", ["t", "s", "e"], ["y"]),
    ]
    inits = [helper.make_tensor("s", TensorProto.INT64, [1], [1]), helper.make_tensor("e", TensorProto.INT64, [1], [3])]
    m = model(nodes, [tensor_info("x")], [tensor_info("t"), tensor_info("y")], 13, inits)
    rep = kerfx.onnx.prepare(m)
    assert len(rep.groups([X])) == 2
    assert rep._model.run_fast([X]) is None
    assert_same(rep.run([X]), reference(m, {"x": X}))
