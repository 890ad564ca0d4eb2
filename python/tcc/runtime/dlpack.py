"""Reading a DLPack capsule (``__dlpack__()``) without a framework: the data
pointer, shape, strides, dtype and device of a GPU array that offers nothing
else (no ``__cuda_array_interface__``), through ctypes.

The structs are DLPack's ``DLManagedTensor`` (``dlpack.h``, ABI stable since
v0.6): the capsule named ``"dltensor"`` holds a pointer to it. The consumer
renames it ``"used_dltensor"`` and calls its deleter once done; tcc only
reads the fields (the producer's object stays alive through the call), so it
calls the deleter right away.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

# DLDeviceType
KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_ROCM, KDL_CUDA_MANAGED = 1, 2, 3, 10, 13
# DLDataTypeCode
_INT, _UINT, _FLOAT, _BFLOAT, _BOOL = 0, 1, 2, 4, 6


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                             ("deleter", _DELETER)]

_api = ctypes.pythonapi
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

# numpy typestrs of DLPack dtypes (bf16: tcc's raw 2-byte records).
_TYPESTRS = {(_FLOAT, 16): "<f2", (_FLOAT, 32): "<f4", (_FLOAT, 64): "<f8",
             (_BFLOAT, 16): "<V2", (_INT, 8): "|i1", (_INT, 16): "<i2", (_INT, 32): "<i4",
             (_INT, 64): "<i8", (_UINT, 8): "|u1", (_BOOL, 8): "|b1"}


@dataclass(frozen=True)
class DLPackView:
    """What one DLPack tensor says about its memory."""

    ptr: int
    shape: tuple[int, ...]
    strides: tuple[int, ...] | None  # in elements; None: compact row-major
    typestr: str
    device_type: int
    device_id: int


def read_capsule(capsule: Any) -> DLPackView:
    """The fields of a ``"dltensor"`` capsule, which is then consumed (renamed
    and its deleter called). Raises ValueError for a capsule that is not an
    unused DLPack tensor or holds a dtype tcc has no name for."""
    if not _api.PyCapsule_IsValid(capsule, b"dltensor"):
        raise ValueError("not an unused DLPack capsule (named 'dltensor')")
    managed = ctypes.cast(_api.PyCapsule_GetPointer(capsule, b"dltensor"),
                          ctypes.POINTER(_DLManagedTensor))
    t = managed.contents.dl_tensor
    dtype = (t.dtype.code, t.dtype.bits)
    if t.dtype.lanes != 1 or dtype not in _TYPESTRS:
        raise ValueError(f"DLPack dtype code {t.dtype.code} bits {t.dtype.bits} lanes "
                         f"{t.dtype.lanes} is not one tcc reads")
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = tuple(t.strides[i] for i in range(t.ndim)) if t.strides else None
    view = DLPackView(int(t.data or 0) + int(t.byte_offset), shape, strides, _TYPESTRS[dtype],
                      t.device.device_type, t.device.device_id)
    _api.PyCapsule_SetName(capsule, b"used_dltensor")
    if managed.contents.deleter:
        managed.contents.deleter(managed)
    return view

