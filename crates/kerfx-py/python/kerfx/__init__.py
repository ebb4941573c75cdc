"""kerf: the exact semantics of TensorRT, ONNX and OpenVINO data-movement ops (slices,
pads, transposes, reshapes, gathers, concats, splits, fills: ``kerfx.ops()``) on numpy
arrays, compiled by a Cranelift JIT.

    import numpy as np, kerfx
    x = np.arange(9, dtype=np.float32).reshape(3, 3)
    y = kerfx.run("tensorrt.slice", input=x, start=[0, -1], size=[2, 5], stride=[1, 1], mode="wrap")
    y = kerfx.run("onnx.slice", version=13, data=x, starts=np.array([1]), ends=np.array([3]))
    k = kerfx.compile("tensorrt.slice", input=kerfx.meta(np.float32, (3, 3)),
                     start=[0, 0], size=[2, 2], stride=[1, 1])
    out = np.empty(k.output_shape, k.dtype); k(x, out=out)   # no allocation, no copy
    print(k.clif)                                              # the Cranelift IR
    kerfx.ops(); kerfx.spec("onnx.slice")                        # what kerf accepts

Functions: run, compile (-> Kernel; Program for Concat and Split), meta, raw, ops, spec. Errors: KerfError (a
ValueError). The ONNX backend is the submodule kerfx.onnx (needs the onnx package).

dtypes: numpy's bool, int8..uint64, float16/32/64, complex64/128 and str/object (ONNX
string slices); bf16, fp8 (e4m3fn, e5m2) and int4/uint4 as ml_dtypes' dtypes when
ml_dtypes is importable, else in the raw-bits convention of kerf's .npy files through
kerfx.raw(array, "bf16") (bf16 as uint16, fp8 as uint8, int4 as one int8/uint8 value per
element). int4 arrays are packed and unpacked through a copy (kerf packs two per byte).
"""

from ._kerf import KerfError, Kernel, Meta, Program, Raw, __version__, compile, meta, ops, raw, run, spec

__all__ = [
    "KerfError",
    "Kernel",
    "Meta",
    "Program",
    "Raw",
    "__version__",
    "compile",
    "meta",
    "ops",
    "raw",
    "run",
    "spec",
]
