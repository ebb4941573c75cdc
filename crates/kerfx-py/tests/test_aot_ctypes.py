"""The ctypes example (crates/kerfx-aot/examples/ctypes): `kerf aot --shared` builds its library, the
loader reads `<lib>_info()` and calls every kernel, whole and in ranges; outputs match
kerfx.run's (the JIT, itself checked against the reference) and numpy's own slicing and
concatenation byte for byte; every length error comes back as a KerfStatusError with
nothing written."""

import importlib.util
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

import kerfx

REPO = pathlib.Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "crates" / "kerfx-aot" / "examples" / "ctypes"


def kerfx_cli():
    """The kerf binary cargo built (tests/run builds it with the workspace's tests), or
    one built now; skips, saying why, without cargo or a C compiler."""
    if shutil.which("cc") is None:
        pytest.skip("no `cc` on this system: kerf aot --shared links through it (CI installs it)")
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    if not target.is_absolute():
        target = REPO / target
    binary = target / "debug" / "kerf"
    if not binary.is_file():
        if shutil.which("cargo") is None:
            pytest.skip(f"no kerf binary at {binary} and no cargo to build it")
        subprocess.run(["cargo", "build", "-q", "-p", "kerfx-cli"], cwd=REPO, check=True)
    return binary


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    out = tmp_path_factory.mktemp("aot_ctypes")
    subprocess.run(
        [str(kerfx_cli()), "aot", str(EXAMPLE / "mykernels.toml"), "-o", str(out), "--shared"],
        check=True,
        capture_output=True,
    )
    spec = importlib.util.spec_from_file_location("kerf_ctypes", EXAMPLE / "kerf_ctypes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, module.load(str(out / "libmykernels.so"), "mykernels")


def test_the_info_table_describes_every_kernel(example):
    _, kernels = example
    assert sorted(kernels) == ["cat", "crop"]
    crop = kernels["crop"]
    assert (crop.dtype, crop.inputs, crop.outputs) == ("f32", [("input", [3, 4], 48)], [("output", [2, 2], 16)])
    assert kernels["cat"].program and [i[1] for i in kernels["cat"].inputs] == [[2, 3], [2, 1], [2, 2]]


def test_the_crop_matches_kerf_run_whole_and_in_ranges(example):
    _, kernels = example
    crop = kernels["crop"]
    x = np.arange(12, dtype=np.float32).reshape(3, 4) * 1.5 - 4
    want = kerfx.run("tensorrt.slice", input=x, start=[1, 1], size=[2, 2], stride=[1, 1])
    assert want.tobytes() == x[1:3, 1:3].tobytes()
    out = np.zeros((2, 2), np.float32)
    crop(x, out)
    assert out.tobytes() == want.tobytes()
    ranged = bytearray(16)
    for lo in range(0, crop.range_extent, crop.range_align):
        crop(x.tobytes(), ranged, lo=lo, hi=min(lo + crop.range_align, crop.range_extent))
    assert bytes(ranged) == want.tobytes()


def test_the_program_kernel_matches_kerf_run(example):
    _, kernels = example
    a, b, c = (np.arange(n, dtype=np.float32).reshape(2, -1) + k for k, n in [(0, 6), (10, 2), (20, 4)])
    want = kerfx.run("onnx.concat", version=13, inputs=[a, b, c], axis=1)
    assert want.tobytes() == np.concatenate([a, b, c], axis=1).tobytes()
    out = bytearray(48)
    cat = kernels["cat"]
    cat(a, b, c, out)
    assert bytes(out) == want.tobytes()
    # Its range: every position alone, in reverse order, writes the same bytes.
    assert cat.range_extent > 1 and cat.range_align == 1
    ranged = bytearray(48)
    for lo in reversed(range(cat.range_extent)):
        cat(a, b, c, ranged, lo=lo, hi=lo + 1)
    assert bytes(ranged) == want.tobytes()


def test_every_length_error_is_a_status_with_nothing_written(example):
    module, kernels = example
    crop, cat = kernels["crop"], kernels["cat"]
    x = np.zeros((3, 4), np.float32)
    out = bytearray(b"\xee" * 16)
    for args, code in [
        ((x[:2], out), 2),
        ((x, bytearray(15)), 3),
        # An empty buffer is passed as NULL: the NULL check comes first.
        ((b"", out), 1),
        ((x, bytearray()), 1),
    ]:
        with pytest.raises(module.KerfStatusError) as e:
            crop(*args)
        assert e.value.code == code
    with pytest.raises(module.KerfStatusError, match="KERF_ERR_RANGE"):
        crop(x, out, lo=0, hi=crop.range_extent + 1)
    with pytest.raises(module.KerfStatusError, match="KERF_ERR_INPUT_BYTES"):
        cat(bytes(24), bytes(16), bytes(8), out + bytearray(32))
    with pytest.raises(module.KerfStatusError, match="KERF_ERR_RANGE"):
        cat(bytes(24), bytes(8), bytes(16), bytearray(48), lo=1, hi=0)
    assert out == b"\xee" * 16
    with pytest.raises(TypeError, match="writable"):
        crop(x, bytes(16))
