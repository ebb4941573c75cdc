"""Kernels compiled ahead of time by `kerf aot --shared`, called from Python with ctypes
alone (no kerf, no compiler at run time). The library describes itself through
`<lib>_info()` (ABI 1.x), so nothing here parses the C header:

    kerf aot mykernels.toml -o build --shared
    python3 kerf_ctypes.py build/libmykernels.so mykernels

Buffers are raw little-endian bytes (bytes, bytearray, or anything with the buffer
protocol, such as numpy arrays); every length is checked by the C entry point, whose
status comes back as a KerfStatusError.
"""

import ctypes
import sys

ABI_MAJOR = 1
READS_INPUT = 1  # kerf_kernel_info.flags: the entry point takes an input pair
PROGRAM = 2  # kerf_kernel_info.flags: a program kernel (ABI 1.1)
STATUS = {
    1: "KERF_ERR_NULL",
    2: "KERF_ERR_INPUT_BYTES",
    3: "KERF_ERR_OUTPUT_BYTES",
    4: "KERF_ERR_OVERLAP",
    5: "KERF_ERR_RANGE",
    6: "KERF_ERR_NOMEM",
}


class KernelInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("dtype", ctypes.c_char_p),
        ("input_shape", ctypes.POINTER(ctypes.c_uint64)),
        ("output_shape", ctypes.POINTER(ctypes.c_uint64)),
        ("input_rank", ctypes.c_uint32),
        ("output_rank", ctypes.c_uint32),
        ("input_bytes", ctypes.c_uint64),
        ("output_bytes", ctypes.c_uint64),
        ("range_extent", ctypes.c_uint64),
        ("range_align", ctypes.c_uint64),
        ("flags", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
        ("entry", ctypes.c_void_p),
        ("range_entry", ctypes.c_void_p),
    ]


class TensorInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("shape", ctypes.POINTER(ctypes.c_uint64)),
        ("rank", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
        ("bytes", ctypes.c_uint64),
    ]


class LibraryInfo(ctypes.Structure):
    _fields_ = [
        ("abi_major", ctypes.c_uint32),
        ("abi_minor", ctypes.c_uint32),
        ("kernel_count", ctypes.c_uint64),
        ("name", ctypes.c_char_p),
        ("target", ctypes.c_char_p),
        ("cpu", ctypes.c_char_p),
        ("kernels", ctypes.POINTER(KernelInfo)),
    ]


assert ctypes.sizeof(KernelInfo) == 96 and ctypes.sizeof(LibraryInfo) == 48 and ctypes.sizeof(TensorInfo) == 32


class KerfStatusError(RuntimeError):
    """A status other than KERF_OK: `code` and its name."""

    def __init__(self, kernel, code):
        self.code = code
        super().__init__(f"{kernel}: {STATUS.get(code, 'unknown status')} ({code})")


def _buffer(data, writable):
    """(pointer, length, keep-alive) of a buffer; a read-only one for inputs."""
    view = memoryview(data).cast("B")
    if writable and view.readonly:
        raise TypeError("an output must be writable (a bytearray, or a writable array)")
    if len(view) == 0:
        return None, 0, view
    if view.readonly:
        # ctypes cannot point into read-only memory: copy the input once.
        copy = (ctypes.c_char * len(view)).from_buffer_copy(view)
        return ctypes.addressof(copy), len(view), copy
    holder = (ctypes.c_char * len(view)).from_buffer(view)
    return ctypes.addressof(holder), len(view), holder


class Kernel:
    """One kernel of the library: its dtype, shapes, byte counts, and a call."""

    def __init__(self, info):
        self.name = info.name.decode()
        self.dtype = info.dtype.decode()
        self.program = bool(info.flags & PROGRAM)
        size = ctypes.c_size_t
        if self.program:
            tensors = ctypes.POINTER(TensorInfo)
            ins = ctypes.cast(info.input_shape, tensors)
            outs = ctypes.cast(info.output_shape, tensors)
            self.inputs = [_tensor(ins[i]) for i in range(info.input_rank)]
            self.outputs = [_tensor(outs[i]) for i in range(info.output_rank)]
            params = [ctypes.c_void_p, size] * (len(self.inputs) + len(self.outputs))
            self._entry = ctypes.CFUNCTYPE(ctypes.c_int32, *params)(info.entry)
            # ABI 1.2: a range over the moves' positions (NULL in objects of ABI 1.1).
            self._range = ctypes.CFUNCTYPE(ctypes.c_int32, *params, size, size)(info.range_entry) if info.range_entry else None
            self.range_extent, self.range_align = info.range_extent, info.range_align
        else:
            reads = bool(info.flags & READS_INPUT)
            shape = [info.input_shape[i] for i in range(info.input_rank)] if reads else None
            self.inputs = [("input", shape, info.input_bytes)] if reads else []
            self.outputs = [("output", [info.output_shape[i] for i in range(info.output_rank)], info.output_bytes)]
            params = [ctypes.c_void_p, size] * (1 + reads)
            self._entry = ctypes.CFUNCTYPE(ctypes.c_int32, *params)(info.entry)
            self._range = ctypes.CFUNCTYPE(ctypes.c_int32, *params, size, size)(info.range_entry)
            self.range_extent, self.range_align = info.range_extent, info.range_align

    def __call__(self, *buffers, lo=None, hi=None):
        """Run on the inputs then the outputs, in order (`lo`, `hi`: a range of the
        kernel's positions). Raises KerfStatusError on any status but KERF_OK."""
        if len(buffers) != len(self.inputs) + len(self.outputs):
            raise TypeError(f"{self.name} takes {len(self.inputs)} input(s) and {len(self.outputs)} output(s)")
        args, alive = [], []
        for k, b in enumerate(buffers):
            pointer, length, keep = _buffer(b, writable=k >= len(self.inputs))
            args += [pointer, length]
            alive.append(keep)
        if lo is None and hi is None:
            status = self._entry(*args)
        elif self._range is None:
            raise TypeError(f"{self.name} is a program kernel of ABI 1.1: it has no range entry point")
        else:
            status = self._range(*args, lo, hi)
        if status != 0:
            raise KerfStatusError(self.name, status)


def _tensor(t):
    return (t.name.decode(), [t.shape[i] for i in range(t.rank)], t.bytes)


def load(path, name):
    """The kernels of the library `name` in the shared library at `path`, by name."""
    lib = ctypes.CDLL(path)
    info_fn = getattr(lib, f"{name}_info")
    info_fn.restype = ctypes.POINTER(LibraryInfo)
    info = info_fn().contents
    if info.abi_major != ABI_MAJOR:
        raise RuntimeError(f"{path}: ABI {info.abi_major}.{info.abi_minor}; this loader reads ABI {ABI_MAJOR}.x")
    kernels = {}
    for i in range(info.kernel_count):
        record = info.kernels[i]
        if record.flags & ~(READS_INPUT | PROGRAM):
            continue  # a kind of a later minor version
        k = Kernel(record)
        k._library = lib  # the library stays loaded while a kernel is referenced
        kernels[k.name] = k
    return kernels


def main(argv):
    path, name = argv[1], argv[2]
    for k in load(path, name).values():
        print(k.name, k.dtype, "inputs", k.inputs, "outputs", k.outputs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
