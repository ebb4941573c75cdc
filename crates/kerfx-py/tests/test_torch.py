"""torch tensors through DLPack: f32 and bf16 inputs read in place, `out=` written in place.
CI does not install torch (PyPI's Linux wheel pulls some 3 GB of CUDA packages and does not
import without them; the CPU-only wheels are not on PyPI): these tests run where torch is
installed, and say why they skip where it is not. tests/test_zero_copy.py proves the same
paths with numpy's DLPack and a bf16 DLPack producer of its own."""

import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

import kerfx

torch = pytest.importorskip(
    "torch",
    reason="torch is not installed (CI skips it: PyPI's wheel needs ~3 GB of CUDA packages to import)",
)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_torch_inputs(dtype):
    t = torch.arange(24, dtype=torch.float32).reshape(4, 6).to(dtype)
    for view in [t, t.T, t[:, ::2]]:
        got = kerfx.run("onnx.slice", data=view, starts=[1], ends=[3])
        want = view[1:3].to(torch.float32).numpy()
        assert np.asarray(got, np.float32).tolist() == want.tolist()
    if dtype == torch.bfloat16:
        assert got.dtype == np.dtype(ml_dtypes.bfloat16)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_torch_out(dtype):
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4).to(dtype)
    out = torch.empty((4, 3), dtype=dtype)
    assert kerfx.run("onnx.transpose", data=t, out=out) is out
    assert torch.equal(out, t.T)
    k = kerfx.compile("onnx.transpose", data=kerfx.meta("bf16" if dtype == torch.bfloat16 else "f32", (3, 4)))
    out.zero_()
    assert k(t, out=out) is out and torch.equal(out, t.T)


@pytest.mark.parametrize("dtype", ["torch.float32", "torch.bfloat16"])
def test_torch_input_is_not_copied(dtype):
    script = textwrap.dedent(
        f"""
        import torch, kerfx
        def peak_kib():
            with open("/proc/self/status") as status:
                return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
        x = torch.ones((8192, 8192), dtype={dtype}).T      # 128 or 256 MiB, transposed
        before = peak_kib()
        out = kerfx.run("onnx.slice", data=x, starts=[0], ends=[1])
        print(peak_kib() - before)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True)
    assert int(done.stdout.split()[-1]) < 16 * 1024
