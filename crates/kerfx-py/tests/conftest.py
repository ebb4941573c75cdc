"""Shared helpers: kerf dtype names as numpy dtypes, sample arrays, bitwise comparison."""

import ml_dtypes
import numpy as np

# kerf's dtype names → numpy dtypes (ml_dtypes' for the types numpy lacks).
NUMPY = {
    "bool": np.dtype(np.bool_),
    "i4": np.dtype(ml_dtypes.int4),
    "u4": np.dtype(ml_dtypes.uint4),
    "i8": np.dtype(np.int8),
    "u8": np.dtype(np.uint8),
    "i16": np.dtype(np.int16),
    "u16": np.dtype(np.uint16),
    "i32": np.dtype(np.int32),
    "u32": np.dtype(np.uint32),
    "i64": np.dtype(np.int64),
    "u64": np.dtype(np.uint64),
    "f8e4m3fn": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8e5m2": np.dtype(ml_dtypes.float8_e5m2),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "c64": np.dtype(np.complex64),
    "c128": np.dtype(np.complex128),
    "string": np.dtype(object),
}

# The raw-bits convention (kerfx.raw) of the types numpy lacks.
RAW = {"bf16": np.uint16, "f8e4m3fn": np.uint8, "f8e5m2": np.uint8, "i4": np.int8, "u4": np.uint8}


def sample(name, shape):
    """A deterministic array of kerf dtype `name`: distinct values where the type has
    enough of them, each exactly representable."""
    n = int(np.prod(shape, dtype=np.int64))
    i = np.arange(n)
    if name == "string":
        values = np.array([f"s{k}" for k in i], dtype=object)
    elif name == "bool":
        values = i % 3 == 0
    elif name == "i4":
        values = ((i % 16) - 8).astype(NUMPY[name])
    elif name == "u4":
        values = (i % 16).astype(NUMPY[name])
    elif name in ("c64", "c128"):
        values = (i + 1j * (n - i)).astype(NUMPY[name])
    elif name in ("f8e4m3fn", "f8e5m2"):
        values = ((i % 32) * 0.25 - 2).astype(NUMPY[name])
    elif NUMPY[name].kind == "f" or name == "bf16":
        values = ((i % 256) * 0.5 - 17).astype(NUMPY[name])
    else:
        offset = 125 if NUMPY[name].kind == "i" else 0
        values = ((i * 37 + 3) % 251 - offset).astype(NUMPY[name])
    return values.reshape(shape)


def same(got, want):
    """Bitwise equal, dtype and shape included (NaNs compare by bits)."""
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if got.dtype == object:
        assert got.tolist() == want.tolist()
    else:
        assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes(), (got, want)
