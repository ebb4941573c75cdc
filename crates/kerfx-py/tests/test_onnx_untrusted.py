"""kerfx.onnx on models nobody vouches for: external data is read from the directory the
caller allows (a path's own directory; for a proto, only `base_dir` when given) and from
files inside it only; graph inputs must be what the graph declares; a bad node or a
missing value is a KerfError naming it, never a bare KeyError or UnicodeDecodeError."""

import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import kerfx
import kerfx.onnx

SECRET = b"not for the model's eyes"


def external(name, location, n, offset=None, length=None):
    """A u8 initializer of `n` elements whose data is in the file `location`."""
    t = TensorProto(name=name, data_type=TensorProto.UINT8, dims=[n], data_location=TensorProto.EXTERNAL)
    for key, value in [("location", location), ("offset", offset), ("length", length)]:
        if value is not None:
            entry = t.external_data.add()
            entry.key, entry.value = key, str(value)
    return t


def leak_model(location, n=len(SECRET), **where):
    """A model that outputs its initializer `w` whole: whatever file `w` reads."""
    node = helper.make_node("Slice", ["w", "s", "e"], ["y"])
    inits = [
        external("w", location, n, **where),
        helper.make_tensor("s", TensorProto.INT64, [1], [0]),
        helper.make_tensor("e", TensorProto.INT64, [1], [n]),
    ]
    out = helper.make_tensor_value_info("y", TensorProto.UINT8, [None])
    graph = helper.make_graph([node], "g", [], [out], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.fixture
def dirs(tmp_path, monkeypatch):
    """A secret in the working directory (and beside the model folder); a model folder
    holding `weights.bin`."""
    (tmp_path / "secret.txt").write_bytes(SECRET)
    models = tmp_path / "models"
    models.mkdir()
    (models / "weights.bin").write_bytes(bytes(range(32)))
    monkeypatch.chdir(tmp_path)
    return tmp_path, models


def refused(call, fragment, name="w"):
    with pytest.raises(kerfx.KerfError) as e:
        call()
    assert fragment in str(e.value) and e.value.name == name, str(e.value)


def test_a_proto_reads_no_external_data_without_base_dir(dirs):
    # was: the working directory's secret.txt, returned as the output
    refused(lambda: kerfx.onnx.prepare(leak_model("secret.txt")), "reads external data only from a directory the caller names")


def test_a_proto_reads_external_data_from_base_dir(dirs):
    _, models = dirs
    m = leak_model("weights.bin", 8, offset=4, length=8)
    (y,) = kerfx.onnx.prepare(m, base_dir=models).run([])
    assert y.tolist() == list(range(4, 12))
    (y,) = kerfx.onnx.run_model(m, [], base_dir=str(models))
    assert y.tolist() == list(range(4, 12))
    # the caller's proto is left as it was
    assert m.graph.initializer[0].data_location == TensorProto.EXTERNAL


LOCATIONS = {
    "parent": ("../secret.txt", "may not contain `..`"),
    "parent_inside": ("sub/../../secret.txt", "may not contain `..`"),
    "absolute": (None, "must be a relative path inside"),
    "empty": ("", "must be a relative path inside"),
    "nul": ("weights.bin\0x", "must be a relative path inside"),
    "missing": ("nope.bin", "cannot be opened"),
    "directory": (".", "cannot be opened: Is a directory"),
}


@pytest.mark.parametrize("location, fragment", LOCATIONS.values(), ids=LOCATIONS.keys())
def test_locations_outside_base_dir_are_refused(dirs, location, fragment):
    root, models = dirs
    location = str(root / "secret.txt") if location is None else location
    refused(lambda: kerfx.onnx.prepare(leak_model(location), base_dir=models), fragment)


def test_symbolic_links_out_of_base_dir_are_refused(dirs):
    root, models = dirs
    os.symlink(root / "secret.txt", models / "link.bin")
    os.symlink(root, models / "up")
    refused(lambda: kerfx.onnx.prepare(leak_model("link.bin"), base_dir=models), "a symbolic link leads out")
    refused(lambda: kerfx.onnx.prepare(leak_model("up/secret.txt"), base_dir=models), "a symbolic link leads out")
    # a link that stays inside is followed
    os.symlink("weights.bin", models / "inside.bin")
    (y,) = kerfx.onnx.prepare(leak_model("inside.bin", 3, length=3), base_dir=models).run([])
    assert y.tolist() == [0, 1, 2]


def test_a_fifo_is_refused_without_blocking(dirs):
    _, models = dirs
    os.mkfifo(models / "pipe")
    refused(lambda: kerfx.onnx.prepare(leak_model("pipe"), base_dir=models), "not a regular file")


def test_data_past_the_end_of_the_file_is_refused(dirs):
    _, models = dirs
    refused(
        lambda: kerfx.onnx.prepare(leak_model("weights.bin", 8, offset=30, length=8), base_dir=models),
        "reach past its end (32 bytes)",
    )


def test_a_model_path_reads_external_data_from_its_own_directory(dirs):
    root, models = dirs
    path = models / "m.onnx"
    onnx.save(leak_model("weights.bin", 5, length=5), path)
    assert kerfx.onnx.is_compatible(str(path))
    (y,) = kerfx.onnx.prepare(str(path)).run([])  # the working directory is elsewhere
    assert y.tolist() == [0, 1, 2, 3, 4]
    # ... and from nowhere else
    onnx.save(leak_model("../secret.txt"), path)
    refused(lambda: kerfx.onnx.prepare(path), "may not contain `..`")
    os.symlink(root / "secret.txt", models / "link.bin")
    onnx.save(leak_model("link.bin"), path)
    refused(lambda: kerfx.onnx.prepare(path), "a symbolic link leads out")


def test_data_of_another_size_than_the_dims_is_a_kerf_error(dirs):
    _, models = dirs
    # no length: the rest of the file, 32 bytes for 3 elements
    refused(lambda: kerfx.onnx.prepare(leak_model("weights.bin", 3), base_dir=models), "initializer `w`: cannot reshape")


def test_bad_model_arguments():
    with pytest.raises(kerfx.KerfError) as e:
        kerfx.onnx.prepare("/nonexistent/m.onnx")
    assert e.value.name == "model" and "cannot be read" in str(e.value)
    with pytest.raises(TypeError, match="model must be an onnx.ModelProto"):
        kerfx.onnx.prepare(42)
    with pytest.raises(TypeError, match="base_dir must be"):
        kerfx.onnx.prepare(leak_model("w.bin"), base_dir=3)


def test_external_data_of_attribute_tensors_is_read_under_the_same_rule(dirs):
    node = helper.make_node("Constant", [], ["y"], value=external("c", "secret.txt", len(SECRET)))
    graph = helper.make_graph([node], "g", [], [helper.make_tensor_value_info("y", TensorProto.UINT8, [None])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    refused(lambda: kerfx.onnx.prepare(m), "keeps its data in the external file `secret.txt`", "c")


# ----------------------------------------------------------- declared graph inputs


def slice_model(elem=TensorProto.FLOAT, shape=(2, "n")):
    node = helper.make_node("Slice", ["x", "s", "e"], ["y"])
    inits = [helper.make_tensor("s", TensorProto.INT64, [1], [0]), helper.make_tensor("e", TensorProto.INT64, [1], [1])]
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", elem, shape)], [helper.make_tensor_value_info("y", elem, [None] * len(shape))], initializer=inits
    )
    return kerfx.onnx.prepare(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))


INPUT_CASES = {
    # was: a float64 output from a FLOAT graph
    "dtype": (np.zeros((2, 3)), "input `x` is declared FLOAT, given a float64 array"),
    "fixed_dim": (np.zeros((3, 3), np.float32), "input `x` is declared of shape [2, 'n'], given a float32 array of shape [3, 3]"),
    "rank": (np.zeros(2, np.float32), "declared of shape [2, 'n']"),
    "list": ([[1.0, 2.0], [3.0, 4.0]], "given a float64 array"),
}


@pytest.mark.parametrize("value, fragment", INPUT_CASES.values(), ids=INPUT_CASES.keys())
def test_graph_inputs_must_be_as_declared(value, fragment):
    rep = slice_model()
    refused(lambda: rep.run([value]), fragment, "x")
    refused(lambda: rep.run({"x": value}), fragment, "x")


def test_graph_inputs_as_declared_run():
    rep = slice_model()
    for n in (1, 5):  # a symbolic dim takes any extent
        x = np.arange(2 * n, dtype=np.float32).reshape(2, n)
        (y,) = rep.run([x])
        assert y.dtype == np.float32 and y.tolist() == x[:1].tolist()
    (y,) = slice_model(TensorProto.STRING, ["k"]).run([np.array(["a", "b"], dtype=object)])
    assert y.tolist() == ["a"]
    bits = np.array([0x3F80, 0x4000], np.uint16)
    (y,) = slice_model(TensorProto.BFLOAT16, [2]).run([kerfx.raw(bits, "bf16")])
    assert y.tolist() == [0x3F80]


def test_unknown_and_missing_graph_inputs():
    rep = slice_model()
    refused(lambda: rep.run({"x": np.zeros((2, 1), np.float32), "z": 1}), "['z'] are not inputs of the graph", "z")
    refused(lambda: rep.run([]), "graph inputs not given: ['x']", "x")
    with pytest.raises(TypeError, match="inputs must be a list or a dict"):
        rep.run(3)


# --------------------------------------------------------------------- run_node


def test_run_node_with_a_missing_input_names_it():
    node = helper.make_node("Slice", ["x", "s", "e"], ["y"])
    # was: KeyError('s')
    refused(lambda: kerfx.onnx.run_node(node, [np.arange(3)]), "node 0 (Slice): input `starts` (value `s`) is not given", "starts")
    refused(lambda: kerfx.onnx.run_node(node, {"x": np.arange(3), "s": np.array([0])}), "input `ends` (value `e`)", "ends")


def test_a_non_utf8_attribute_is_named():
    node = helper.make_node("Pad", ["x", "p"], ["y"], mode=b"\xffdge")
    # was: UnicodeDecodeError
    refused(
        lambda: kerfx.onnx.run_node(node, [np.zeros(3, np.float32), np.array([1, 1])]),
        "node 0 (Pad): attribute `mode` is not UTF-8 text (invalid start byte at byte 0)",
        "mode",
    )


def test_an_invalid_node_is_a_kerf_error():
    node = helper.make_node("Slice", ["x"], ["y"], starts=[0], ends=[1], bogus=1)
    # was: onnx's ValidationError, not a ValueError
    refused(lambda: kerfx.onnx.run_node(node, [np.arange(3)], opset_version=9), "Unrecognized attribute: bogus", "node")


def test_run_node_arguments_of_the_wrong_kind_are_named():
    node = helper.make_node("Slice", ["x"], ["y"], starts=[0], ends=[1])
    with pytest.raises(TypeError, match="node must be an onnx.NodeProto, not str"):
        kerfx.onnx.run_node("Slice", [np.arange(3)])
    with pytest.raises(TypeError, match="inputs must be a list or a dict of arrays, not int"):
        kerfx.onnx.run_node(node, 3, opset_version=9)
    with pytest.raises(TypeError, match="opset_version must be an int, not str"):
        kerfx.onnx.run_node(node, [np.arange(3)], opset_version="9")
    refused(lambda: kerfx.onnx.run_node(node, [np.arange(3)], opset_version=2**70), "is not an opset", "opset_version")
    (y,) = kerfx.onnx.run_node(node, [np.arange(3)], opset_version=9)
    assert y.tolist() == [0]
