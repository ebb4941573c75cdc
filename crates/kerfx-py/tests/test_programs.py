"""Ops over several inputs or outputs (Concat, Split) through kerfx.run: new arrays, or
written into `out` -- one array, or a tuple or list of arrays for a variadic output --
every `out` checked before anything runs."""

import numpy as np
import pytest

import kerfx

A = np.arange(6, dtype=np.float32).reshape(2, 3)
B = np.arange(6, 10, dtype=np.float32).reshape(2, 2)


def test_concat_into_a_new_array_and_into_out():
    want = np.concatenate([A, B], axis=1)
    np.testing.assert_array_equal(kerfx.run("onnx.concat", inputs=[A, B], axis=1), want)
    out = np.full((2, 5), -1, np.float32)
    got = kerfx.run("onnx.concat", inputs=[A, B], axis=1, out=out)
    assert got is out
    np.testing.assert_array_equal(out, want)


def test_split_into_a_tuple_and_into_out():
    x = np.arange(20, dtype=np.int16).reshape(4, 5)
    parts = kerfx.run("onnx.split", input=x, split=np.array([1, 4]), axis=1)
    assert isinstance(parts, tuple) and len(parts) == 2
    for got, want in zip(parts, np.split(x, [1], axis=1)):
        np.testing.assert_array_equal(got, want)
    outs = [np.zeros((4, 1), np.int16), np.zeros((4, 4), np.int16)]
    got = kerfx.run("onnx.split", input=x, split=np.array([1, 4]), axis=1, out=outs)
    assert got is outs
    for o, want in zip(outs, np.split(x, [1], axis=1)):
        np.testing.assert_array_equal(o, want)
    # A tuple works as well, and equal parts from `outputs`.
    outs = (np.zeros((2, 5), np.int16), np.zeros((2, 5), np.int16))
    kerfx.run("onnx.split", version=11, input=x, axis=0, outputs=2, out=outs)
    np.testing.assert_array_equal(np.concatenate(outs), x)


def test_out_of_a_program_is_checked_before_anything_runs():
    x = np.arange(20, dtype=np.int16).reshape(4, 5)
    split = dict(op="onnx.split", input=x, split=np.array([1, 4]), axis=1)
    kerf_run = lambda **k: kerfx.run(k.pop("op"), **k)  # noqa: E731
    with pytest.raises(kerfx.KerfError, match="tuple or list of arrays"):
        kerf_run(**split, out=np.zeros((4, 1), np.int16))
    with pytest.raises(kerfx.KerfError, match="holds 1 arrays; the request has 2 outputs"):
        kerf_run(**split, out=[np.zeros((4, 1), np.int16)])
    with pytest.raises(kerfx.KerfError, match="shape"):
        kerf_run(**split, out=[np.zeros((4, 1), np.int16), np.zeros((4, 3), np.int16)])
    with pytest.raises(kerfx.KerfError, match="i16"):
        kerf_run(**split, out=[np.zeros((4, 1), np.int16), np.zeros((4, 4), np.int32)])
    shared = np.zeros((2, 5), np.int16)
    with pytest.raises(kerfx.KerfError, match="shares memory with another output"):
        kerf_run(op="onnx.split", version=11, input=x, axis=0, outputs=2, out=[shared, shared])
    assert not shared.any(), "nothing ran"
    ro = np.zeros((2, 5), np.float32)
    ro.flags.writeable = False
    with pytest.raises(kerfx.KerfError, match="read-only"):
        kerfx.run("onnx.concat", inputs=[A, B], axis=1, out=ro)


def test_string_programs_return_new_arrays():
    s = np.array([["a", "bb"], ["ccc", "d"]], dtype=object)
    got = kerfx.run("onnx.concat", inputs=[s, s], axis=0)
    assert got.tolist() == [["a", "bb"], ["ccc", "d"], ["a", "bb"], ["ccc", "d"]]
    with pytest.raises(kerfx.KerfError, match="string outputs are new object arrays"):
        kerfx.run("onnx.concat", inputs=[s, s], axis=0, out=np.empty((4, 2), object))


def test_a_compiled_program_runs_many_times_on_caller_arrays():
    p = kerfx.compile("onnx.concat", inputs=[kerfx.meta(np.float32, (2, 3)), kerfx.meta(np.float32, (2, 2))], axis=1)
    assert isinstance(p, kerfx.Program)
    assert p.input_shapes == ((2, 3), (2, 2)) and p.output_shapes == ((2, 5),)
    assert p.dtype == np.float32 and p.kerfx_dtype == "f32"
    assert p.clif.count("; move ") == 2
    assert "onnx.concat" in repr(p)
    want = np.concatenate([A, B], axis=1)
    np.testing.assert_array_equal(p(A, B), want)
    out = np.zeros((2, 5), np.float32)
    assert p(A, B, out=out) is out
    np.testing.assert_array_equal(out, want)
    # A strided input is read as its values (copied once).
    wide = np.zeros((2, 6), np.float32)
    wide[:, ::2] = A
    np.testing.assert_array_equal(p(wide[:, ::2], B), want)
    with pytest.raises(kerfx.KerfError, match="reads 2 inputs, given 1"):
        p(A)
    with pytest.raises(kerfx.KerfError, match=r"input 1: must be f32 \[2, 2\]"):
        p(A, A)
    # `out` may not share memory with an input: a Split writing over its own input.
    x = np.arange(8, dtype=np.int32).reshape(2, 4)
    s = kerfx.compile("onnx.split", input=kerfx.meta(np.int32, (2, 4)), axis=0, num_outputs=2)
    with pytest.raises(kerfx.KerfError, match="shares memory with an input"):
        s(x, out=(x[:1], x[1:]))
    np.testing.assert_array_equal(x, np.arange(8).reshape(2, 4))


def test_a_compiled_split_returns_a_tuple_and_takes_a_tuple_out():
    x = np.arange(24, dtype=np.int8).reshape(4, 6)
    p = kerfx.compile("onnx.split", input=kerfx.meta(np.int8, (4, 6)), axis=1, num_outputs=3)
    parts = p(x)
    assert isinstance(parts, tuple) and len(parts) == 3
    for got, want in zip(parts, np.split(x, 3, axis=1)):
        np.testing.assert_array_equal(got, want)
    outs = [np.empty((4, 2), np.int8) for _ in range(3)]
    assert p(x, out=outs) is outs
    for got, want in zip(outs, np.split(x, 3, axis=1)):
        np.testing.assert_array_equal(got, want)


def test_a_4_bit_program_packs_and_unpacks():
    a = kerfx.raw(np.array([[1, -2, 3]], np.int8), "i4")
    b = kerfx.raw(np.array([[-8, 7, 0]], np.int8), "i4")
    p = kerfx.compile("openvino.concat", inputs=[a, b], axis=0)
    got = p(a, b)
    assert got.dtype == np.int8 and got.tolist() == [[1, -2, 3], [-8, 7, 0]]
