"""kerfx.run / kerfx.compile on every slice op and every dtype of its type set, against
numpy slicing and np.pad; kernels, out arrays, meta, raw bits, strings, docs."""

import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from conftest import NUMPY, RAW, same, sample

import kerfx


def data_types(op):
    """The dtype names the op's data input accepts (from its spec)."""
    spec = kerfx.spec(op)
    data = min((i for i in spec["inputs"] if i["rank"] == "any"), key=lambda i: i["index"])
    return data["types"]


def padded_reference(x, starts, sizes, strides, mode, fill=0):
    """TensorRT Slice as numpy: index the input padded by np.pad in the mode's numpy
    equivalent (wrap = 'wrap', clamp = 'edge', reflect = 'reflect', fill = 'constant')."""
    index, pads = [], []
    for d, start, size, stride in zip(x.shape, starts, sizes, strides):
        i = start + np.arange(size) * stride
        lo, hi = (int(i.min()), int(i.max())) if size else (0, 0)
        pads.append((max(0, -lo), max(0, hi - (d - 1))))
        index.append(i + pads[-1][0])
    np_mode = {"wrap": "wrap", "clamp": "edge", "reflect": "reflect", "fill": "constant"}[mode]
    kwargs = {"constant_values": fill} if mode == "fill" else {}
    return np.pad(x, pads, mode=np_mode, **kwargs)[np.ix_(*index)]


@pytest.mark.parametrize("dtype", data_types("tensorrt.slice"))
def test_tensorrt_slice_every_dtype_against_numpy(dtype):
    x = sample(dtype, (3, 4))
    got = kerfx.run("tensorrt.slice", input=x, start=[1, 3], size=[2, 2], stride=[1, -2])
    same(got, x[1:3, 3::-2])


def broken_dtype_rule(op, version, dtype, attributes):
    """The spec's dtype rule the data dtype breaks with these attributes, if any."""
    for rule in kerfx.spec(op)["rules"]:
        if rule["kind"] != "dtype" or (rule["versions"] and version not in rule["versions"]):
            continue
        when = rule["when"]
        if when and attributes.get(when["attribute"]) not in when["in"]:
            continue
        if (rule["allow"] and dtype not in rule["allow"]) or (rule["forbid"] and dtype in rule["forbid"]):
            return rule["id"]
    return None


@pytest.mark.parametrize("dtype", data_types("tensorrt.slice"))
@pytest.mark.parametrize("mode", ["wrap", "clamp", "reflect", "fill"])
def test_tensorrt_slice_modes_against_np_pad(dtype, mode):
    x = sample(dtype, (3, 4))
    starts, sizes, strides = [-4, -2], [9, 6], [1, 2]
    args = dict(input=x, start=starts, size=sizes, stride=strides, mode=mode)
    rule = broken_dtype_rule("tensorrt.slice", 1, dtype, args)
    if rule:
        with pytest.raises(kerfx.KerfError) as e:
            kerfx.run("tensorrt.slice", **args)
        assert e.value.rule == rule and e.value.op == "tensorrt.slice"
        return
    same(kerfx.run("tensorrt.slice", **args), padded_reference(x, starts, sizes, strides, mode))


@pytest.mark.parametrize("dtype", ["f32", "i32", "f16", "f8e4m3fn", "i4", "bool"])
def test_tensorrt_fill_value_is_converted_to_the_data_type(dtype):
    x = sample(dtype, (2, 2))
    value = 1 if dtype in ("i4", "bool") else 3.0
    got = kerfx.run("tensorrt.slice", input=x, start=[-1, 0], size=[3, 3], stride=[1, 1], mode="fill", fill=value)
    same(got, padded_reference(x, [-1, 0], [3, 3], [1, 1], "fill", fill=np.array(value).astype(x.dtype)))


@pytest.mark.parametrize("dtype", data_types("onnx.slice"))
def test_onnx_slice_every_dtype_against_numpy(dtype):
    x = sample(dtype, (4, 5))
    got = kerfx.run(
        "onnx.slice", data=x, starts=[3, -1], ends=[0, -6], axes=[0, -1], steps=[-2, -2]
    )
    same(got, x[3:0:-2, -1:-6:-2])


@pytest.mark.parametrize("version", [1, 10, 11, 13])
def test_onnx_slice_every_version(version):
    x = sample("f32", (4, 5, 6))
    if version == 1:  # starts, ends, axes are attributes
        got = kerfx.run("onnx.slice", version=1, data=x, starts=[1, 2], ends=[3, 1000], axes=[0, 2])
        same(got, x[1:3, :, 2:])
        return
    axes = [0, 2] if version == 10 else [0, -1]
    got = kerfx.run(
        "onnx.slice",
        version=version,
        data=x,
        starts=np.array([1, -1], np.int32),
        ends=np.array([3, 0], np.int64),
        axes=np.array(axes),
        steps=np.array([1, -2]),
    )
    same(got, x[1:3, :, -1:0:-2])


@pytest.mark.parametrize("dtype", data_types("openvino.strided_slice"))
def test_openvino_strided_slice_every_dtype_against_numpy(dtype):
    x = sample(dtype, (3, 4, 5))
    got = kerfx.run(
        "openvino.strided_slice",
        data=x,
        begin=[1, 0, 0, 4],
        end=[0, 0, 3, 0],
        stride=[1, 1, 1, -2],
        begin_mask=[0, 0, 1, 0],
        end_mask=[0, 0, 0, 1],
        new_axis_mask=[0, 1, 0, 0],
        shrink_axis_mask=[1, 0, 0, 0],
    )
    same(got, x[1, np.newaxis, 0:3, 4::-2])


def test_openvino_strided_slice_inputs_replace_attributes():
    x = sample("f32", (6,))
    got = kerfx.run(
        "openvino.strided_slice",
        data=x,
        begin=np.array([1], np.int8),
        end=np.array([5], np.uint16),
        stride=np.array([3], np.int64),
        begin_mask=[0],
        end_mask=[0],
    )
    same(got, x[1:5:3])


def test_tensorrt_fill_linspace_and_random():
    got = kerfx.run("tensorrt.fill", dimensions=[2, 3], operation="linspace", alpha=1.0, beta=[2.0, 0.5])
    same(got, (1.0 + 2.0 * np.arange(2)[:, None] + 0.5 * np.arange(3)).astype(np.float32))
    got = kerfx.run("tensorrt.fill", dimensions=[5], operation="linspace", alpha=-3, beta=4.0, to_type="i64")
    same(got, np.array([-3, 1, 5, 9, 13], np.int64))
    uniform = kerfx.run("tensorrt.fill", dimensions=[64, 64], operation="random_uniform", alpha=-2.0, beta=5.0, seed=7)
    assert uniform.dtype == np.float32 and uniform.shape == (64, 64)
    assert ((uniform >= -2.0) & (uniform <= 5.0)).all()
    same(kerfx.run("tensorrt.fill", dimensions=[64, 64], operation="random_uniform", alpha=-2.0, beta=5.0, seed=7), uniform)
    other = kerfx.run("tensorrt.fill", dimensions=[64, 64], operation="random_uniform", alpha=-2.0, beta=5.0, seed=8)
    assert not np.array_equal(uniform, other)


def test_tensorrt_fill_seeds_take_all_of_u64():
    # Issue 20: seeds past 2**63 - 1 were refused; the decimal string is the same seed.
    top = kerfx.run("tensorrt.fill", dimensions=[16], operation="random_normal", seed=2**64 - 1)
    same(kerfx.run("tensorrt.fill", dimensions=[16], operation="random_normal", seed=str(2**64 - 1)), top)
    assert not np.array_equal(kerfx.run("tensorrt.fill", dimensions=[16], operation="random_normal", seed=2**63), top)
    for bad in (-1, 2**64, "-1", "12x"):
        with pytest.raises(kerfx.KerfError, match="seed"):
            kerfx.run("tensorrt.fill", dimensions=[16], operation="random_normal", seed=bad)


def test_tensorrt_fill_inputs_are_arrays():
    got = kerfx.run(
        "tensorrt.fill",
        operation="linspace",
        dimensions=np.array([3], np.int32),
        alpha=np.array(2.0, np.float32),  # alpha and beta: both inputs (a numpy scalar would be a value)
        beta=np.array(0.5, np.float32),
    )
    same(got, np.array([2.0, 2.5, 3.0], np.float32))


def test_python_values_for_input_only_names_are_static_values():
    x = sample("f32", (5,))
    # onnx.slice v13 has starts/ends only as inputs: lists become 1-D i64 tensors.
    same(kerfx.run("onnx.slice", data=x, starts=[1], ends=[4]), x[1:4])
    # TensorRT's fill value is only an input: a float is an f64 scalar, converted to T.
    got = kerfx.run("tensorrt.slice", input=x, start=[4], size=[2], stride=[1], mode="fill", fill=9.5)
    same(got, np.array([x[4], 9.5], np.float32))
    # [] is an empty i64 tensor, as in request files (numpy alone would make it f64).
    same(kerfx.run("onnx.slice", data=x, starts=[], ends=[]), x)
    # The data input itself may be a list: an i64 tensor.
    same(kerfx.run("onnx.slice", data=[[1, 2], [3, 4]], starts=[1], ends=[2]), np.array([[3, 4]], np.int64))


def test_where_a_name_is_both_the_type_decides():
    x = sample("f32", (6,))
    as_attribute = kerfx.compile("tensorrt.slice", input=x, start=[1], size=[2], stride=[2])
    as_input = kerfx.compile("tensorrt.slice", input=x, start=np.array([1]), size=[2], stride=[2])
    same(as_attribute(x), x[1:5:2])
    same(as_input(x), x[1:5:2])


def test_numpy_scalars_are_values_like_python_numbers():
    x = sample("f32", (6,))
    got = kerfx.run("onnx.slice", version=1, data=x, starts=[np.int64(1)], ends=[np.int32(3)])
    same(got, x[1:3])


def test_bool_attributes_take_python_and_numpy_bools():
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    for special_zero in (True, np.True_):
        out = kerfx.run("openvino.reshape", data=x, shape=[0, 3, -1], special_zero=special_zero)
        np.testing.assert_array_equal(out, x.reshape(2, 3, 2))
    out = kerfx.run("openvino.reshape", data=x, shape=[3, 4], special_zero=False)
    np.testing.assert_array_equal(out, x.reshape(3, 4))
    out = kerfx.run("tensorrt.shuffle", input=x, first_transpose=[1, 0], reshape_dims=[0, -1], zero_is_placeholder=True)
    np.testing.assert_array_equal(out, x.T.reshape(2, 6))


def test_a_shuffle_of_two_kernels_runs():
    # [4, 6] transposed, read as [4, 6] and transposed again: no single kernel says it.
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    want = x.T.reshape(4, 6).T
    args = dict(input=x, first_transpose=[1, 0], reshape_dims=[4, 6], second_transpose=[1, 0])
    np.testing.assert_array_equal(kerfx.run("tensorrt.shuffle", **args), want)
    out = np.empty((6, 4), np.float32)
    assert kerfx.run("tensorrt.shuffle", out=out, **args) is out
    np.testing.assert_array_equal(out, want)
    # One kernel: the input read flat through the list of every element's position.
    k = kerfx.compile("tensorrt.shuffle", **args)
    np.testing.assert_array_equal(k(x), want)


def test_strings_slice_on_onnx():
    x = np.array([["a", "bb", "ccc"], ["d", "", "f"]], dtype=object)
    same(kerfx.run("onnx.slice", data=x, starts=[2], ends=[-4], axes=[1], steps=[-1]), x[:, ::-1])
    unicode = np.array(["x", "yy", "zzz"])
    same(kerfx.run("onnx.slice", data=unicode, starts=[1], ends=[3]), np.array(["yy", "zzz"], dtype=object))


def test_compiled_kernel_with_out_writes_in_place():
    x = sample("f32", (3, 3))
    k = kerfx.compile("tensorrt.slice", input=kerfx.meta(np.float32, (3, 3)), start=[0, 0], size=[2, 2], stride=[1, 1])
    assert k.output_shape == (2, 2) and k.input_shape == (3, 3)
    assert k.dtype == np.float32 and k.kerfx_dtype == "f32" and not k.dynamic
    out = np.full(k.output_shape, -1, k.dtype)
    assert k(x, out=out) is out
    same(out, x[:2, :2])
    same(k(x), x[:2, :2])
    assert "function" in k.clif and "strict_bounds" in k.plan
    assert kerfx.run("tensorrt.slice", input=x, out=out, start=[1, 1], size=[2, 2], stride=[1, 1]) is out
    same(out, x[1:, 1:])


def test_dynamic_kernel():
    x = sample("i16", (4, 4))
    k = kerfx.compile("onnx.slice", dynamic=True, data=kerfx.meta("i16", (4, 4)), starts=[1], ends=[3], axes=[1])
    assert k.dynamic
    same(k(x), x[:, 1:3])


def test_fill_kernel_reads_no_input():
    k = kerfx.compile("tensorrt.fill", dimensions=[4], operation="linspace", alpha=0.0, beta=1.0)
    assert k.input_shape is None
    out = np.empty(4, np.float32)
    assert k(out=out) is out
    same(out, np.arange(4, dtype=np.float32))


@pytest.mark.parametrize(
    "view",
    [
        lambda a: a[:, ::2],
        lambda a: a.T,
        lambda a: np.asfortranarray(a),
        lambda a: a.astype(a.dtype.newbyteorder(">")),
    ],
    ids=["strided", "transposed", "fortran", "big_endian"],
)
def test_non_contiguous_inputs_are_copied_and_correct(view):
    x = view(sample("f32", (6, 6)))
    got = kerfx.run("onnx.slice", data=x, starts=[1, 0], ends=[3, 2])
    same(got, np.ascontiguousarray(x[1:3, 0:2]).astype(np.float32))


@pytest.mark.parametrize("dtype", ["bf16", "f8e4m3fn", "f8e5m2", "i4", "u4"])
def test_raw_bits_convention(dtype):
    natural = sample(dtype, (2, 5))
    bits = natural.view(RAW[dtype]) if dtype not in ("i4", "u4") else natural.astype(RAW[dtype])
    got = kerfx.run("openvino.strided_slice", data=kerfx.raw(bits, dtype), begin=[0, 4], end=[2, 0], stride=[1, -2],
                   begin_mask=[0, 0], end_mask=[0, 0])
    assert got.dtype == RAW[dtype]
    same(got, bits[:, 4:0:-2])
    k = kerfx.compile("openvino.strided_slice", data=kerfx.raw(bits, dtype), begin=[0], end=[1], begin_mask=[0],
                     end_mask=[0])
    out = np.empty(k.output_shape, RAW[dtype])
    assert k(kerfx.raw(bits, dtype), out=kerfx.raw(out, dtype)) is out
    same(out, bits[0:1])
    same(k(natural), natural[0:1])  # ml_dtypes arrays run on the same kernel


def test_without_ml_dtypes_the_natural_form_is_raw():
    script = (
        "import sys; sys.modules['ml_dtypes'] = None\n"
        "import numpy as np, kerfx\n"
        "k = kerfx.compile('onnx.slice', data=kerfx.meta('bf16', (4,)), starts=[1], ends=[3])\n"
        "assert k.dtype == np.uint16, k.dtype\n"
        "y = kerfx.run('onnx.slice', data=kerfx.raw(np.arange(4, dtype=np.uint16), 'bf16'), starts=[1], ends=[3])\n"
        "assert y.dtype == np.uint16 and y.tolist() == [1, 2], y\n"
        "k = kerfx.compile('tensorrt.slice', input=kerfx.meta('i4', (3,)), start=[0], size=[3], stride=[1])\n"
        "assert k.dtype == np.int8, k.dtype\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)


def test_int4_round_trips_through_packing():
    x = np.array([-8, -1, 0, 7, 3], dtype=ml_dtypes.int4)
    got = kerfx.run("tensorrt.slice", input=x, start=[-1], size=[7], stride=[1], mode="wrap")
    same(got, np.array([3, -8, -1, 0, 7, 3, -8], dtype=ml_dtypes.int4))
    u = np.arange(16, dtype=np.uint8).astype(ml_dtypes.uint4)
    got = kerfx.run("openvino.strided_slice", data=u, begin=[15], end=[0], stride=[-3], begin_mask=[0], end_mask=[1])
    same(got, u[15::-3])


def test_ops_and_spec():
    ops = kerfx.ops()
    assert {"tensorrt.slice", "tensorrt.fill", "onnx.slice", "openvino.strided_slice"} <= set(ops)
    spec = kerfx.spec("onnx.slice")
    assert spec["id"] == "onnx.slice" and spec["versions"] == [1, 10, 11, 13]
    assert [i["name"] for i in spec["inputs"]] == ["data", "starts", "ends", "axes", "steps"]
    assert any(r["id"] == "step_nonzero" for r in spec["rules"])
    assert spec["examples"] and all("name" in e for e in spec["examples"])
    mode = next(a for a in kerfx.spec("tensorrt.slice")["attributes"] if a["name"] == "mode")
    assert mode["default"] == "strict_bounds" and "reflect" in mode["allowed"]


def test_docstrings_are_visible_from_help():
    for f in (kerfx.run, kerfx.compile, kerfx.meta, kerfx.raw, kerfx.ops, kerfx.spec, kerfx.Kernel):
        assert f.__doc__ and len(f.__doc__) > 40, f
    assert kerfx.run.__text_signature__ == "(op, /, *, version=None, out=None, **params)"
    assert issubclass(kerfx.KerfError, ValueError) and "rule" in kerfx.KerfError.__doc__
