"""Ops over several inputs or outputs (Concat, Split) through kerf.run: new arrays, or
written into `out` -- one array, or a tuple or list of arrays for a variadic output --
every `out` checked before anything runs."""

import numpy as np
import pytest

import kerf

A = np.arange(6, dtype=np.float32).reshape(2, 3)
B = np.arange(6, 10, dtype=np.float32).reshape(2, 2)


def test_concat_into_a_new_array_and_into_out():
    want = np.concatenate([A, B], axis=1)
    np.testing.assert_array_equal(kerf.run("onnx.concat", inputs=[A, B], axis=1), want)
    out = np.full((2, 5), -1, np.float32)
    got = kerf.run("onnx.concat", inputs=[A, B], axis=1, out=out)
    assert got is out
    np.testing.assert_array_equal(out, want)


def test_split_into_a_tuple_and_into_out():
    x = np.arange(20, dtype=np.int16).reshape(4, 5)
    parts = kerf.run("onnx.split", input=x, split=np.array([1, 4]), axis=1)
    assert isinstance(parts, tuple) and len(parts) == 2
    for got, want in zip(parts, np.split(x, [1], axis=1)):
        np.testing.assert_array_equal(got, want)
    outs = [np.zeros((4, 1), np.int16), np.zeros((4, 4), np.int16)]
    got = kerf.run("onnx.split", input=x, split=np.array([1, 4]), axis=1, out=outs)
    assert got is outs
    for o, want in zip(outs, np.split(x, [1], axis=1)):
        np.testing.assert_array_equal(o, want)
    # A tuple works as well, and equal parts from `outputs`.
    outs = (np.zeros((2, 5), np.int16), np.zeros((2, 5), np.int16))
    kerf.run("onnx.split", version=11, input=x, axis=0, outputs=2, out=outs)
    np.testing.assert_array_equal(np.concatenate(outs), x)


def test_out_of_a_program_is_checked_before_anything_runs():
    x = np.arange(20, dtype=np.int16).reshape(4, 5)
    split = dict(op="onnx.split", input=x, split=np.array([1, 4]), axis=1)
    kerf_run = lambda **k: kerf.run(k.pop("op"), **k)  # noqa: E731
    with pytest.raises(kerf.KerfError, match="tuple or list of arrays"):
        kerf_run(**split, out=np.zeros((4, 1), np.int16))
    with pytest.raises(kerf.KerfError, match="holds 1 arrays; the request has 2 outputs"):
        kerf_run(**split, out=[np.zeros((4, 1), np.int16)])
    with pytest.raises(kerf.KerfError, match="shape"):
        kerf_run(**split, out=[np.zeros((4, 1), np.int16), np.zeros((4, 3), np.int16)])
    with pytest.raises(kerf.KerfError, match="i16"):
        kerf_run(**split, out=[np.zeros((4, 1), np.int16), np.zeros((4, 4), np.int32)])
    shared = np.zeros((2, 5), np.int16)
    with pytest.raises(kerf.KerfError, match="shares memory with another output"):
        kerf_run(op="onnx.split", version=11, input=x, axis=0, outputs=2, out=[shared, shared])
    assert not shared.any(), "nothing ran"
    ro = np.zeros((2, 5), np.float32)
    ro.flags.writeable = False
    with pytest.raises(kerf.KerfError, match="read-only"):
        kerf.run("onnx.concat", inputs=[A, B], axis=1, out=ro)


def test_string_programs_return_new_arrays():
    s = np.array([["a", "bb"], ["ccc", "d"]], dtype=object)
    got = kerf.run("onnx.concat", inputs=[s, s], axis=0)
    assert got.tolist() == [["a", "bb"], ["ccc", "d"], ["a", "bb"], ["ccc", "d"]]
    with pytest.raises(kerf.KerfError, match="string outputs are new object arrays"):
        kerf.run("onnx.concat", inputs=[s, s], axis=0, out=np.empty((4, 2), object))
