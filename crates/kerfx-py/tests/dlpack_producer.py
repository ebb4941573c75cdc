"""A test-only DLPack producer: a tensor offered through `__dlpack__` alone, over a numpy
array's memory (any strides), labelled with any DLPack dtype -- bf16 included, which
numpy has no dtype of (torch's bf16 tensors are offered so). The unversioned capsule
(`DLManagedTensor`), built with ctypes as dlpack.h declares it."""

import ctypes

import numpy as np

KDL_CPU = 1
KDL_UINT, KDL_FLOAT, KDL_BFLOAT = 1, 2, 4


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


# The memory stays the producer's (it holds every struct); the consumer's deleter call is counted.
deleted = []
_DELETE = DELETER(lambda ptr: deleted.append(ptr))
_NAME = b"dltensor"
_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class Tensor:
    """`bits` (a numpy array) offered through DLPack as `code`/`bits` elements."""

    def __init__(self, array, code, bits):
        self.array = array
        self.code, self.bits = code, bits
        self._kept = []

    def __dlpack_device__(self):
        return (KDL_CPU, 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        a = self.array
        width = a.dtype.itemsize
        shape = (ctypes.c_int64 * a.ndim)(*a.shape)
        strides = (ctypes.c_int64 * a.ndim)(*(s // width for s in a.strides))
        managed = DLManagedTensor()
        managed.dl_tensor = DLTensor(
            a.ctypes.data, DLDevice(KDL_CPU, 0), a.ndim, DLDataType(self.code, self.bits, 1), shape, strides, 0
        )
        managed.manager_ctx = None
        managed.deleter = _DELETE
        self._kept.append((managed, shape, strides))
        return _new_capsule(ctypes.addressof(managed), _NAME, None)


def bf16(bits):
    """A bf16 tensor of the 16-bit patterns `bits` (a uint16 array, any strides)."""
    assert bits.dtype == np.uint16
    return Tensor(bits, KDL_BFLOAT, 16)


class Only:
    """A numpy array offered through DLPack alone (numpy's own capsules: writeable ones
    when the consumer asks for DLPack 1.0), as another library's tensor would be."""

    def __init__(self, array):
        self.array = array

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, *args, **kwargs):
        return self.array.__dlpack__(*args, **kwargs)
