"""One JIT and one kernel cache per process, used from many Python threads at once."""

import threading

import numpy as np
from conftest import same

import kerfx

THREADS = 8
ROUNDS = 40


def test_run_from_many_threads():
    failures = []

    def work(t):
        try:
            for r in range(ROUNDS):
                n = 3 + (t + r) % 5  # kernels shared between threads and new ones
                x = np.arange(n * 7, dtype=np.float32).reshape(n, 7) + t
                start = (t * r) % n
                got = kerfx.run("onnx.slice", data=x, starts=[start, -1], ends=[n, -8], steps=[1, -2])
                same(got, x[start:n, -1:-8:-2])
                got = kerfx.run("tensorrt.slice", input=x, start=[-1, 2], size=[n + 2, 3], stride=[1, 1], mode="wrap")
                same(got, np.take(np.take(x, np.arange(-1, n + 1), axis=0, mode="wrap"), [2, 3, 4], axis=1))
        except Exception as e:  # reported below, with the thread
            failures.append((t, repr(e)))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert failures == []


def test_one_kernel_from_many_threads():
    k = kerfx.compile("tensorrt.slice", input=kerfx.meta(np.int32, (64, 64)), start=[-3, -3], size=[70, 70],
                     stride=[1, 1], mode="reflect")
    outs = [np.empty(k.output_shape, np.int32) for _ in range(THREADS)]
    inputs = [np.arange(64 * 64, dtype=np.int32).reshape(64, 64) * (t + 1) for t in range(THREADS)]

    def work(t):
        for _ in range(ROUNDS):
            k(inputs[t], out=outs[t])

    threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for t in range(THREADS):
        same(outs[t], np.pad(inputs[t], 3, mode="reflect"))
