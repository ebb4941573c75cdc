"""Zero copy: the output is written into the caller's `out`; the data input is read where
it lies -- C-contiguous, or any strided view (Fortran order, steps, negative strides,
broadcast) through a view kernel, or a DLPack tensor (torch's, bf16 included) -- so a
copy of it would raise the process's peak memory by its size, which is what these tests
measure."""

import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

import kerfx
from dlpack_producer import Only, bf16

# Peak resident memory (KiB) grown by one call on a 128 MiB input, in a fresh process (the
# peak is process-wide). The peak is the memory map's own (VmHWM, new at exec) where Linux
# says it: getrusage's ru_maxrss carries over exec, so a child spawned by a large pytest
# starts from the parent's peak and would hide the copy.
PEAK_GROWTH = textwrap.dedent(
    """
    import resource, sys
    sys.path.insert(0, {tests!r})
    import numpy as np, kerfx
    from dlpack_producer import Only, bf16

    def peak_kib():
        try:
            with open("/proc/self/status") as status:
                return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
        except OSError:
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    x = np.ones((4096, 8192), np.float32)           # 128 MiB
    view = {view}
    shape = np.shape(view.array if hasattr(view, "array") else view)
    dtype = {dtype}
    before = peak_kib()
    {call}
    after = peak_kib()
    print(after - before)
    """
)

KERNEL_CALL = """k = kerfx.compile("onnx.slice", data=kerfx.meta(dtype, shape), starts=[0], ends=[1])
out = np.zeros(k.output_shape, k.dtype)
assert k(view, out=out) is out"""
RUN_CALL = """out = kerfx.run("onnx.slice", data=view, starts=[0], ends=[1])
assert out.shape == (1,) + shape[1:]"""


def peak_growth_kib(view, call=KERNEL_CALL, dtype="np.float32"):
    import pathlib

    tests = str(pathlib.Path(__file__).parent)
    script = PEAK_GROWTH.format(view=view, call=call, dtype=dtype, tests=tests)
    done = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True)
    return int(done.stdout.split()[-1])


# A copy of the input adds 128 MiB; a call in place, only its small output and code.
IN_PLACE_KIB = 16 * 1024
COPIED_KIB = 100 * 1024


def test_contiguous_input_is_not_copied():
    assert peak_growth_kib("x") < IN_PLACE_KIB


def test_the_check_sees_a_copy():
    # A byte-swapped view of the same bytes is copied (kernels read native bytes): +128 MiB.
    assert peak_growth_kib("x.view(x.dtype.newbyteorder())") > COPIED_KIB


@pytest.mark.parametrize(
    "view",
    ["x.T", "np.asfortranarray(x[:1024]).T.T", "x[:, ::2]", "x[::-1, ::-3]", "np.broadcast_to(x[0], (4096, 8192))"],
)
@pytest.mark.parametrize("call", [KERNEL_CALL, RUN_CALL], ids=["kernel", "run"])
def test_strided_input_is_read_in_place(view, call):
    assert peak_growth_kib(view, call) < IN_PLACE_KIB


def test_fortran_order_input_is_read_in_place():
    # x.T of a C array is Fortran-ordered: numpy's own copy to C order would be +128 MiB.
    assert peak_growth_kib("x.T", RUN_CALL) < IN_PLACE_KIB


def test_dlpack_input_is_read_in_place():
    assert peak_growth_kib("Only(x[:, ::2])", RUN_CALL) < IN_PLACE_KIB


def test_dlpack_bf16_input_is_read_in_place():
    # bf16 (numpy has no dtype of it) offered through DLPack alone: 128 MiB of 16-bit patterns.
    view = "bf16(np.ones((8192, 8192), np.uint16).T)"
    assert peak_growth_kib(view, RUN_CALL, "'bf16'") < IN_PLACE_KIB


# Strided views give what their contiguous copies give, for each kind of layout and dtype.
LAYOUTS = {
    "transposed": lambda a: a.T,
    "fortran": np.asfortranarray,
    "stepped": lambda a: a[::2, 1::3],
    "reversed": lambda a: a[::-1, ::-2],
    "broadcast": lambda a: np.broadcast_to(a[1:2], a.shape),
    "column": lambda a: a[:, 3],
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float16, np.float32, np.complex128, ml_dtypes.bfloat16])
def test_strided_views_match_their_copies(layout, dtype):
    base = (np.arange(12 * 10) % 7).astype(dtype).reshape(12, 10)
    view = LAYOUTS[layout](base)
    assert not view.flags.c_contiguous
    dense = np.ascontiguousarray(view)
    for kwargs in [dict(starts=[1], ends=[-1]), dict(starts=[-1], ends=[-100], steps=[-2])]:
        got = kerfx.run("onnx.slice", data=view, **kwargs)
        want = kerfx.run("onnx.slice", data=dense, **kwargs)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (layout, kwargs)
    if view.ndim == 2:
        got = kerfx.run("onnx.transpose", data=view)
        assert got.tobytes() == np.ascontiguousarray(dense.T).tobytes()
        got = kerfx.run("onnx.pad", data=view, pads=[1, 0, 0, 2], mode="reflect")
        assert got.tobytes() == kerfx.run("onnx.pad", data=dense, pads=[1, 0, 0, 2], mode="reflect").tobytes()


def test_kernel_reads_views_of_any_layout_in_place():
    x = np.arange(8 * 6, dtype=np.int32).reshape(8, 6)
    k = kerfx.compile("onnx.slice", data=kerfx.meta(np.int32, (6, 8)), starts=[1], ends=[4])
    for view in [x.T, x[::-1].T, np.asfortranarray(x.T)]:
        out = np.empty(k.output_shape, np.int32)
        assert k(view, out=out) is out
        assert (out == view[1:4]).all()
    dynamic = kerfx.compile("onnx.slice", data=kerfx.meta(np.int32, (6, 8)), starts=[1], ends=[4], dynamic=True)
    assert (dynamic(x.T[:, ::-1]) == x.T[1:4, ::-1]).all()
    with pytest.raises(kerfx.KerfError, match="input"):
        k(x[:, ::2])  # another shape


def test_dlpack_inputs_of_numpy_and_of_bf16():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    got = kerfx.run("onnx.slice", data=Only(x[:, ::-2]), starts=[1], ends=[3])
    assert (got == x[:, ::-2][1:3]).all()
    values = (np.arange(24, dtype=np.float32) - 7).reshape(4, 6).astype(ml_dtypes.bfloat16)
    bits = values.view(np.uint16)
    got = kerfx.run("onnx.transpose", data=bf16(bits.T))
    assert got.dtype == np.dtype(ml_dtypes.bfloat16)
    assert got.tobytes() == np.ascontiguousarray(values).tobytes()
    k = kerfx.compile("onnx.slice", data=kerfx.meta("bf16", (6, 4)), starts=[2], ends=[5])
    assert k(bf16(bits.T)).tobytes() == np.ascontiguousarray(values.T[2:5]).tobytes()


def test_dlpack_out_is_written_in_place_and_returned():
    x = np.arange(10, dtype=np.int64)
    buffer = np.full(4, -1, np.int64)
    out = Only(buffer)
    assert kerfx.run("onnx.slice", data=x, starts=[8], ends=[0], steps=[-2], out=out) is out
    assert buffer.tolist() == [8, 6, 4, 2]
    # A read-only DLPack tensor (an unversioned capsule cannot say it is writeable) is refused.
    data = np.zeros(6, ml_dtypes.bfloat16)
    with pytest.raises(kerfx.KerfError, match="read-only"):
        kerfx.run("onnx.slice", data=data, starts=[0], ends=[4], out=bf16(np.zeros(4, np.uint16)))


def test_output_written_into_out():
    x = np.arange(10, dtype=np.int64)
    out = np.full(4, -1, np.int64)
    assert kerfx.run("onnx.slice", data=x, starts=[8], ends=[0], steps=[-2], out=out) is out
    assert out.tolist() == [8, 6, 4, 2]
