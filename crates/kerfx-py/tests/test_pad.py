"""The Pad family (onnx.pad, openvino.pad, openvino.slice) through the Python API, against
np.pad and numpy slicing. These ops come with the Pad issue: each op's tests are defined
when kerf's registry lists it, so they run -- and fail loudly if wrong -- from then on.
Until then, the one test below checks that kerf refuses them as unknown ops."""

import numpy as np
import pytest
from conftest import same, sample

import kerfx

PAD_OPS = ["onnx.pad", "openvino.pad", "openvino.slice"]
OPS = set(kerfx.ops())


@pytest.mark.parametrize("op", PAD_OPS)
def test_pad_family_is_known_or_refused(op):
    if op not in OPS:
        with pytest.raises(kerfx.KerfError, match=f"unknown op `{op}`") as e:
            kerfx.run(op, data=np.zeros(2, np.float32))
        assert e.value.op == op
        return
    spec = kerfx.spec(op)
    names = {i["name"] for i in spec["inputs"]} | {a["name"] for a in spec["attributes"]}
    expected = {
        "onnx.pad": {"data", "pads", "constant_value", "axes", "mode", "paddings", "value"},
        "openvino.pad": {"arg", "pads_begin", "pads_end", "pad_value", "pad_mode"},
        "openvino.slice": {"data", "start", "stop", "step", "axes"},
    }[op]
    assert expected <= names, expected - names


def np_pairs(pads, rank):
    """ONNX's [x1_begin, x2_begin, ..., x1_end, x2_end, ...] as np.pad's pairs."""
    return list(zip(pads[:rank], pads[rank:]))


X = sample("f32", (3, 4, 5))
ONNX_MODES = {"constant": 0, "reflect": 0, "edge": 0, "wrap": 19}  # mode: first version

if "onnx.pad" in OPS:

    @pytest.mark.parametrize("version", kerfx.spec("onnx.pad")["versions"])
    @pytest.mark.parametrize("mode", ONNX_MODES)
    def test_onnx_pad_against_np_pad(version, mode):
        if version < ONNX_MODES[mode]:
            with pytest.raises(kerfx.KerfError):
                kerfx.run("onnx.pad", version=version, data=X, pads=np.array([0, 1, 2, 0, 2, 1]), mode=mode)
            return
        pads = [1, 0, 2, 2, 3, 1]
        kwargs = {"constant_values": 2.5} if mode == "constant" else {}
        want = np.pad(X, np_pairs(pads, 3), mode=mode, **kwargs)
        if version == 1:
            got = kerfx.run("onnx.pad", version=1, data=X, paddings=pads, mode=mode, **({"value": 2.5} if kwargs else {}))
        elif version == 2:
            got = kerfx.run("onnx.pad", version=2, data=X, pads=pads, mode=mode, **({"value": 2.5} if kwargs else {}))
        else:
            extra = {"constant_value": np.array(2.5, np.float32)} if kwargs else {}
            got = kerfx.run("onnx.pad", version=version, data=X, pads=np.array(pads), mode=mode, **extra)
        same(got, want)

    def test_onnx_pad_axes():
        version = max(kerfx.spec("onnx.pad")["versions"])
        got = kerfx.run("onnx.pad", version=version, data=X, pads=np.array([1, 2, 3, 0]), axes=np.array([0, -1]),
                       mode="edge")
        same(got, np.pad(X, [(1, 3), (0, 0), (2, 0)], mode="edge"))

    @pytest.mark.parametrize("dtype", ["i8", "u16", "f16", "bf16", "c64", "bool"])
    def test_onnx_pad_dtypes(dtype):
        x = sample(dtype, (2, 3))
        got = kerfx.run("onnx.pad", data=x, pads=np.array([1, 1, 0, 2]), mode="reflect")
        same(got, np.pad(x, [(1, 0), (1, 2)], mode="reflect"))


if "openvino.pad" in OPS:

    @pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric"])
    def test_openvino_pad_against_np_pad(mode):
        begin, end = [1, 0, 3], [2, 2, 1]
        kwargs = {"constant_values": -1.0} if mode == "constant" else {}
        extra = {"pad_value": np.array(-1.0, np.float32)} if kwargs else {}
        got = kerfx.run("openvino.pad", arg=X, pads_begin=np.array(begin), pads_end=np.array(end), pad_mode=mode, **extra)
        same(got, np.pad(X, list(zip(begin, end)), mode=mode, **kwargs))


if "openvino.slice" in OPS:

    def test_openvino_slice_against_numpy():
        got = kerfx.run("openvino.slice", data=X, start=np.array([2, -1]), stop=np.array([0, -6]),
                       step=np.array([-1, -2]), axes=np.array([0, 2]))
        same(got, X[2:0:-1, :, -1:-6:-2])
