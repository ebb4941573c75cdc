"""Python code runs in the middle of a call -- a later argument's `__len__` or
`__array__`, a numpy scalar's `item`, another thread while the GIL is released -- and
may change the arrays already converted. kerf checks an array's layout again when it
takes the buffer: a change is a KerfError naming the argument, never a panic
(`pyo3_runtime.PanicException`, which `except Exception` misses), a crash or a read of
the bytes as another dtype."""

import gc
import threading
import warnings

import ml_dtypes
import numpy as np
import pytest

import kerfx

X = np.arange(12, dtype=np.float32).reshape(3, 4)


class Sneaky:
    """A static value (`starts=[0]` as far as kerf is concerned) whose conversion runs
    `change()` first."""

    def __init__(self, change):
        self.change = change

    def __len__(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # numpy 2.4 deprecates setting strides
            self.change()
        return 1

    def __array__(self, dtype=None, copy=None):
        return np.array([0], dtype=dtype or np.int64)


def set_attr(x, name, value):
    return lambda: setattr(x, name, value)


CHANGES = {
    # the data array becomes a non-contiguous view of the same buffer (was: a panic)
    "strides": lambda x: set_attr(x, "strides", (4, 12)),
    # the same bytes as another dtype of the same width (was: read as f32 all the same)
    "dtype": lambda x: set_attr(x, "dtype", np.int32),
    "shape": lambda x: set_attr(x, "shape", (4, 3)),
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_data_changed_by_a_later_argument_is_refused(change):
    x = X.copy()
    with pytest.raises(kerfx.KerfError) as e:
        kerfx.run("onnx.slice", data=x, starts=Sneaky(change(x)), ends=[2])
    assert e.value.name == "data" and "`data` changed while the call ran" in str(e.value)


def test_data_unchanged_by_a_later_argument_runs():
    x = X.copy()
    y = kerfx.run("onnx.slice", data=x, starts=Sneaky(lambda: None), ends=[2])
    np.testing.assert_array_equal(y, X[0:2])


def test_raw_array_retyped_after_kerf_raw_is_refused():
    bits = np.zeros(4, np.uint16)
    r = kerfx.raw(bits, "bf16")
    bits.dtype = np.float16  # same width, no longer an integer array
    with pytest.raises(kerfx.KerfError) as e:
        kerfx.run("onnx.slice", data=r, starts=[0], ends=[2])
    assert e.value.name == "data" and "bf16 in raw form is an integer array of 2-byte elements" in str(e.value)


def test_keyword_dict_changed_by_a_conversion():
    """A conversion that adds keys to the call's own keyword dict (reachable through
    `gc.get_referrers`) made PyO3's dict iterator panic; the keywords are taken first."""

    class Grow(Sneaky):
        def __init__(self):
            super().__init__(self.grow)

        def grow(self):
            for d in gc.get_referrers(self):
                if isinstance(d, dict) and "data" in d:
                    d.update({f"extra{i}": i for i in range(16)})

    y = kerfx.run("onnx.slice", data=X, starts=Grow(), ends=[1])
    np.testing.assert_array_equal(y, X[0:1])


def test_numpy_scalar_whose_item_returns_itself():
    """A numpy scalar's value is its `item()`; a subclass returning itself recursed
    until the stack overflowed (SIGSEGV)."""

    class Selfish(np.int64):
        def item(self):
            return self

    with pytest.raises(kerfx.KerfError) as e:
        kerfx.run("tensorrt.slice", input=X, start=[Selfish(0), 0], size=[1, 1], stride=[1, 1])
    assert e.value.name == "start" and "is not an attribute value" in str(e.value)


def while_the_kernel_runs(change, out, dtype=ml_dtypes.int4):
    """Run a slice (for int4: packed, run with the GIL released, unpacked) into `out`
    while another thread applies `change` to it or the input: the thread gets the GIL as
    soon as the call releases it. Returns the output and what `change` raised."""
    x = np.ones(1 << 22, dtype)
    k = kerfx.compile("tensorrt.slice", input=kerfx.meta(x.dtype, x.shape), start=[0], size=[x.size], stride=[1])
    go = threading.Event()
    raised = []

    def other():
        go.wait()
        try:
            change(x, out)
        except ValueError as e:
            raised.append(e)

    t = threading.Thread(target=other)
    t.start()
    go.set()
    try:
        return k(x, out=out), raised
    finally:
        t.join()


def test_out_made_read_only_while_the_kernel_runs():
    out = np.empty(1 << 22, ml_dtypes.int4)
    with pytest.raises(kerfx.KerfError) as e:
        while_the_kernel_runs(lambda x, o: setattr(o.flags, "writeable", False), out)
    assert e.value.name == "out" and "read-only" in str(e.value)


@pytest.mark.parametrize("dtype", [ml_dtypes.int4, np.float32], ids=["i4", "f32"])
@pytest.mark.parametrize("which", ["input", "out"])
def test_arrays_cannot_be_resized_while_the_kernel_runs(which, dtype):
    """numpy's `resize` without its reference check frees the buffer: under a running
    kernel (f32: a read or write after free; i4: unpacking indexed past the packed
    output, a panic). kerf holds a weak reference to both arrays meanwhile, which makes
    numpy refuse."""
    out = np.zeros(1 << 22, dtype)

    def resize(x, o):
        (x if which == "input" else o).resize(1 << 23, refcheck=False)

    y, raised = while_the_kernel_runs(resize, out, dtype)
    assert len(raised) == 1 and "cannot resize" in str(raised[0])
    assert y is out and out.size == 1 << 22 and (out == 1).all()
