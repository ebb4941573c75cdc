"""Zero copy: the output is written into the caller's `out`, and a C-contiguous input
is read in place -- a copy of it would raise the process's peak memory by its size."""

import subprocess
import sys
import textwrap

import numpy as np

import kerfx

# Peak resident memory (KiB) grown by one kernel call on a 128 MiB input, in a fresh
# process (the peak is process-wide). The peak is the memory map's own (VmHWM, new at
# exec) where Linux says it: getrusage's ru_maxrss carries over exec, so a child
# spawned by a large pytest starts from the parent's peak and would hide the copy.
PEAK_GROWTH = textwrap.dedent(
    """
    import resource, sys
    import numpy as np, kerfx

    def peak_kib():
        try:
            with open("/proc/self/status") as status:
                return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
        except OSError:
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    x = np.ones((4096, 8192), np.float32)           # 128 MiB
    view = {view}
    k = kerfx.compile("onnx.slice", data=kerfx.meta(np.float32, view.shape), starts=[0], ends=[1])
    out = np.zeros(k.output_shape, np.float32)
    before = peak_kib()
    assert k(view, out=out) is out
    after = peak_kib()
    assert out.min() == 1.0
    print(after - before)
    """
)


def peak_growth_kib(view):
    script = PEAK_GROWTH.format(view=view)
    done = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True)
    return int(done.stdout.split()[-1])


def test_contiguous_input_is_not_copied():
    assert peak_growth_kib("x") < 16 * 1024


def test_the_check_sees_a_copy():
    # The same call on a Fortran-ordered view of the same bytes copies it: +128 MiB.
    assert peak_growth_kib("x.T") > 100 * 1024


def test_output_written_into_out():
    x = np.arange(10, dtype=np.int64)
    out = np.full(4, -1, np.int64)
    assert kerfx.run("onnx.slice", data=x, starts=[8], ends=[0], steps=[-2], out=out) is out
    assert out.tolist() == [8, 6, 4, 2]
