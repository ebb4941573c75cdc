"""Bad input raises kerfx.KerfError (a ValueError) naming the op, the rule and the
attribute or input -- never a crash, never a wrong answer."""

import ml_dtypes
import numpy as np
import pytest

import kerfx

X = np.arange(12, dtype=np.float32).reshape(3, 4)
SLICE = dict(input=X, start=[0, 0], size=[2, 2], stride=[1, 1])

class LyingLen:
    """A sequence whose `__len__` claims 2**62 elements."""

    def __len__(self):
        return 2**62

    def __getitem__(self, i):
        if i < 3:
            return [3, 4, "x"][i]
        raise IndexError(i)


# (call, fragment of the message, op, rule, name)
CASES = {
    "unknown_op": (lambda: kerfx.run("onnx.nope", data=X), "unknown op `onnx.nope`", "onnx.nope", None, None),
    "unknown_version": (
        lambda: kerfx.run("onnx.slice", version=12, data=X, starts=[0], ends=[1]),
        "unknown version 12",
        "onnx.slice",
        None,
        None,
    ),
    "unknown_attribute": (
        lambda: kerfx.run("tensorrt.slice", strid=[1, 1], **SLICE),
        "unknown attribute `strid`",
        "tensorrt.slice",
        None,
        "strid",
    ),
    "attribute_of_another_version": (
        lambda: kerfx.run("onnx.slice", version=13, data=X, starts=[0], ends=[1], axes=[0], steps=[1], foo=1),
        "unknown attribute `foo` in version 13",
        "onnx.slice",
        None,
        "foo",
    ),
    "attribute_type": (
        lambda: kerfx.run("tensorrt.slice", **{**SLICE, "start": "zero"}),
        "attribute `start` must be of type int_list",
        "tensorrt.slice",
        None,
        "start",
    ),
    "attribute_value": (
        lambda: kerfx.run("tensorrt.slice", mode="mirror", **SLICE),
        "attribute `mode` = \"mirror\" is not allowed",
        "tensorrt.slice",
        None,
        "mode",
    ),
    "bool_attribute": (
        lambda: kerfx.run("openvino.strided_slice", data=X, begin=[0], end=[1], begin_mask=[True], end_mask=[0]),
        "is a bool",
        "openvino.strided_slice",
        None,
        "begin_mask",
    ),
    "int_for_bool_attribute": (
        lambda: kerfx.run("openvino.reshape", data=X, shape=[4, 3], special_zero=1),
        "must be of type bool",
        "openvino.reshape",
        None,
        "special_zero",
    ),
    "bool_for_int_attribute": (
        lambda: kerfx.run("onnx.reshape", data=X, shape=[4, 3], allowzero=True),
        "must be of type int",
        "onnx.reshape",
        None,
        "allowzero",
    ),
    "dict_attribute": (
        lambda: kerfx.run("tensorrt.slice", **{**SLICE, "stride": {"a": 1}}),
        "a dict is not an attribute value",
        "tensorrt.slice",
        None,
        "stride",
    ),
    "huge_int": (
        lambda: kerfx.run("tensorrt.slice", **{**SLICE, "start": [2**70, 0]}),
        "does not fit a 64-bit integer",
        "tensorrt.slice",
        None,
        "start",
    ),
    # numpy keeps an int beyond 64 bits as an object, which read as a string array
    "huge_int_static_input": (
        lambda: kerfx.run("onnx.slice", data=X, starts=[2**70], ends=[1]),
        "input `starts`: element 0 = 1180591620717411303424 does not fit a 64-bit integer",
        "onnx.slice",
        None,
        "starts",
    ),
    "negative_version": (
        lambda: kerfx.run("onnx.slice", version=-1, data=X, starts=[0], ends=[1]),
        "version -1 is not an op version",
        "onnx.slice",
        None,
        "version",
    ),
    "huge_version": (
        lambda: kerfx.compile("onnx.slice", version=2**40, data=X, starts=[0], ends=[1]),
        "version 1099511627776 is not an op version",
        "onnx.slice",
        None,
        "version",
    ),
    "op_not_utf8": (lambda: kerfx.run("onnx.\ud800", data=X), "op id 'onnx.\\ud800' is not UTF-8 text", None, None, "op"),
    "spec_op_not_utf8": (lambda: kerfx.spec("\udcff"), "op id '\\udcff' is not UTF-8 text", None, None, "op"),
    "keyword_not_utf8": (
        lambda: kerfx.run("onnx.slice", data=X, starts=[0], ends=[1], **{"\ud800": 1}),
        "keyword '\\ud800' is not UTF-8 text",
        "onnx.slice",
        None,
        None,
    ),
    "missing_input": (lambda: kerfx.run("onnx.slice", data=X, starts=[0]), "missing input `ends`", "onnx.slice", None, "ends"),
    "input_dtype": (
        lambda: kerfx.run("onnx.slice", data=X, starts=np.array([0.5]), ends=[1]),
        "input `starts` has dtype f64",
        "onnx.slice",
        None,
        "starts",
    ),
    "input_rank": (
        lambda: kerfx.run("onnx.slice", data=X, starts=np.array([[0]]), ends=[1]),
        "input `starts` must be a 1-D tensor",
        "onnx.slice",
        None,
        "starts",
    ),
    "rule_step_nonzero": (
        lambda: kerfx.run("onnx.slice", data=X, starts=[0], ends=[1], steps=[0]),
        "rule `step_nonzero` broken",
        "onnx.slice",
        "step_nonzero",
        "steps",
    ),
    "rule_bf16_from_13": (
        lambda: kerfx.run("onnx.slice", version=11, data=X.astype(ml_dtypes.bfloat16), starts=[0], ends=[1]),
        "rule `bf16_from_13` broken",
        "onnx.slice",
        "bf16_from_13",
        "data",
    ),
    "strict_bounds": (
        lambda: kerfx.run("tensorrt.slice", **{**SLICE, "start": [2, 0]}),
        "rule `strict_bounds_in_range` broken",
        "tensorrt.slice",
        "strict_bounds_in_range",
        "start",
    ),
    "numpy_dtype_without_kerf_dtype": (
        lambda: kerfx.run("onnx.slice", data=np.zeros(3, np.longdouble), starts=[0], ends=[1]),
        "has no kerf dtype",
        "onnx.slice",
        None,
        "data",
    ),
    "datetime": (
        lambda: kerfx.run("onnx.slice", data=np.zeros(3, "datetime64[s]"), starts=[0], ends=[1]),
        "has no kerf dtype",
        "onnx.slice",
        None,
        "data",
    ),
    "string_element_not_str": (
        lambda: kerfx.run("onnx.slice", data=np.array(["a", 1], dtype=object), starts=[0], ends=[1]),
        "element 1 is int, not a str",
        "onnx.slice",
        None,
        "data",
    ),
    "ragged_static_value": (
        lambda: kerfx.run("onnx.slice", data=X, starts=[[0], [1, 2]], ends=[1]),
        "is not a tensor value",
        "onnx.slice",
        None,
        "starts",
    ),
    "raw_wrong_width": (lambda: kerfx.raw(np.zeros(3, np.float32), "bf16"), "integer array of 2-byte", None, None, "array"),
    "raw_not_an_array": (lambda: kerfx.raw([1, 2], "bf16"), "is not a numpy array", None, None, "array"),
    "raw_int4_out_of_range": (
        lambda: kerfx.run("tensorrt.slice", input=kerfx.raw(np.array([9], np.int8), "i4"), start=[0], size=[1], stride=[1]),
        "element 0 = 9 is outside the range of i4",
        "tensorrt.slice",
        None,
        "input",
    ),
    "meta_dtype_numpy_name": (lambda: kerfx.meta("float32", (3,)), "unknown dtype `float32`", None, None, "dtype"),
    # numpy's dtype converter gives no dtype and no error for None (was: a panic)
    "meta_dtype_none": (lambda: kerfx.meta(None, (3,)), "None is not a dtype", None, None, "dtype"),
    "raw_dtype_none": (lambda: kerfx.raw(np.zeros(3, np.uint16), None), "None is not a dtype", None, None, "dtype"),
    "meta_negative_shape": (lambda: kerfx.meta(np.float32, (3, -1)), "negative extent", None, None, "shape"),
    "meta_shape_not_ints": (lambda: kerfx.meta(np.float32, "3"), "not a sequence of ints", None, None, "shape"),
    "meta_shape_huge_int": (lambda: kerfx.meta(np.float32, (3, 2**64)), "shape [1] = 18446744073709551616 is not a 64-bit int", None, None, "shape"),
    # PyO3 sized a Vec by `__len__` (was: a capacity-overflow panic)
    "meta_shape_lying_len": (lambda: kerfx.meta(np.float32, LyingLen()), "shape [2] = x is not a 64-bit int", None, None, "shape"),
    "string_jit_compile": (
        lambda: kerfx.compile("onnx.slice", data=kerfx.meta("string", (3,)), starts=[0], ends=[1]),
        "cannot move strings",
        None,
        None,
        None,
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_bad_input_raises_kerf_error(case):
    call, fragment, op, rule, name = case
    with pytest.raises(kerfx.KerfError) as e:
        call()
    assert isinstance(e.value, ValueError)
    assert fragment in str(e.value)
    assert (e.value.op, e.value.rule, e.value.name) == (op, rule, name)


def test_arguments_of_the_wrong_type_are_type_errors_naming_them():
    for version in ("13", 13.0, True):
        with pytest.raises(TypeError, match="onnx.slice: `version` must be an int"):
            kerfx.run("onnx.slice", version=version, data=X, starts=[0], ends=[1])
    np.testing.assert_array_equal(kerfx.run("onnx.slice", version=np.int64(13), data=X, starts=[0], ends=[1]), X[:1])
    for call in (lambda: kerfx.run(3, data=X), lambda: kerfx.compile(None), lambda: kerfx.spec(b"onnx.slice")):
        with pytest.raises(TypeError, match="`op` must be a str"):
            call()
    with pytest.raises(TypeError, match="`dynamic` must be a bool, not int"):
        kerfx.compile("onnx.slice", dynamic=1, data=kerfx.meta("f32", (3,)), starts=[0], ends=[1])


def test_every_problem_of_a_request_is_reported_with_hints():
    with pytest.raises(kerfx.KerfError) as e:
        kerfx.run("tensorrt.slice", input=X, strat=[0, 0], size=[2, 2.5], stride=[1, 1], mode="refelct")
    lines = str(e.value).split("\n")
    assert len(lines) == 3 and len(e.value.errors) == 3
    assert "(did you mean `reflect`?)" in lines[0] and "(did you mean `start`?)" in lines[2]
    assert [(x.op, x.rule, x.name) for x in e.value.errors] == [
        ("tensorrt.slice", None, "mode"),
        ("tensorrt.slice", None, "size"),
        ("tensorrt.slice", None, "strat"),
    ]
    assert (e.value.op, e.value.name) == ("tensorrt.slice", "mode")


def test_a_rule_error_names_its_axis():
    with pytest.raises(kerfx.KerfError) as e:
        kerfx.run("onnx.slice", data=X, starts=[0, 0], ends=[1, 1], steps=[1, 0])
    assert (e.value.rule, e.value.name, e.value.axis) == ("step_nonzero", "steps", 1)


KERNEL = kerfx.compile("tensorrt.slice", input=kerfx.meta(np.float32, (3, 4)), start=[0, 0], size=[2, 2], stride=[1, 1])
OUT_CASES = {
    "wrong_shape": (np.empty((2, 3), np.float32), "of shape [2, 2], found float32 of shape [2, 3]"),
    "wrong_dtype": (np.empty((2, 2), np.float64), "found float64"),
    "not_contiguous": (np.empty((2, 4), np.float32)[:, ::2], "non-contiguous"),
    "byte_swapped": (np.empty((2, 2), ">f4"), "byte-swapped"),
    "read_only": (np.frombuffer(bytes(16), np.float32).reshape(2, 2), "read-only"),
    "not_an_array": ([[0.0, 0.0], [0.0, 0.0]], "must be a numpy array"),
    "raw_of_another_dtype": (kerfx.raw(np.empty((2, 2), np.uint32), "u32"), "found uint32"),
}


@pytest.mark.parametrize("out, fragment", OUT_CASES.values(), ids=OUT_CASES.keys())
def test_bad_out_is_refused_and_left_alone(out, fragment):
    with pytest.raises(kerfx.KerfError) as e:
        KERNEL(X, out=out)
    assert fragment in str(e.value) and e.value.name == "out"


def test_out_sharing_memory_with_the_input_is_refused():
    k = kerfx.compile("onnx.slice", data=kerfx.meta(np.float32, (8,)), starts=[2], ends=[6])
    x = np.arange(8, dtype=np.float32)
    with pytest.raises(kerfx.KerfError, match="shares memory with the input"):
        k(x, out=x[4:8])
    assert x.tolist() == list(range(8))


def test_kernel_input_must_match():
    with pytest.raises(kerfx.KerfError, match=r"input must be f32 \[3, 4\], found f32 \[4, 3\]"):
        KERNEL(X.reshape(4, 3).copy())
    with pytest.raises(kerfx.KerfError, match=r"found f64 \[3, 4\]"):
        KERNEL(X.astype(np.float64))
    with pytest.raises(kerfx.KerfError, match="reads an input"):
        KERNEL()
    fill = kerfx.compile("tensorrt.fill", dimensions=[2], operation="linspace", alpha=0.0, beta=1.0)
    with pytest.raises(kerfx.KerfError, match="reads no input"):
        fill(X)


def test_string_run_takes_no_out():
    with pytest.raises(kerfx.KerfError, match="`out` is not taken"):
        kerfx.run("onnx.slice", data=np.array(["a"], dtype=object), starts=[0], ends=[1], out=np.empty(1, object))


def test_huge_outputs_are_refused_before_allocating():
    with pytest.raises(kerfx.KerfError) as e:
        kerfx.run("tensorrt.fill", dimensions=[2**31, 2**31, 4], operation="linspace", alpha=0.0, beta=1.0)
    assert e.value.rule == "volume_limit"
    # A 4 TiB slice output is a plan kerf accepts; numpy refuses the allocation.
    with pytest.raises(MemoryError):
        kerfx.run("tensorrt.slice", input=X, start=[0, 0], size=[2**20, 2**20], stride=[1, 1], mode="fill")
