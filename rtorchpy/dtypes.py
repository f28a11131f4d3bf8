"""dtypes named as R torch names them (``torch_float32()``, ``torch_long()``, ...).

A :class:`dtype` is a thin, hashable wrapper around a NumPy dtype. It prints as R torch
prints its dtypes (``torch_Float``) and knows the word libtorch uses in tensor footers.
"""
from __future__ import annotations

from typing import Union

import numpy as np

__all__ = [
    "dtype", "torch_float32", "torch_float", "torch_float64", "torch_double", "torch_float16",
    "torch_half", "torch_int64", "torch_long", "torch_int32", "torch_int", "torch_int16",
    "torch_short", "torch_int8", "torch_uint8", "torch_bool", "as_dtype",
    "torch_get_default_dtype", "torch_set_default_dtype", "torch_finfo", "torch_iinfo",
    "torch_cfloat", "torch_cdouble", "torch_bfloat16",
]


class dtype:
    """A tensor element type. Compare with ``==``; ``x.dtype == torch_float32()``."""

    __slots__ = ("numpy", "word")

    def __init__(self, numpy_dtype, word):
        self.numpy = np.dtype(numpy_dtype)
        self.word = word  # libtorch's word: the footer says CPU<word>Type

    @property
    def name(self) -> str:
        """The dtype's name as ``as_dtype`` takes it (``"float32"``, ``"bfloat16"``, ...)."""
        return "bfloat16" if self.word == "BFloat16" else self.numpy.name

    @property
    def is_floating_point(self) -> bool:
        return self.numpy.kind == "f"

    def __repr__(self):
        return f"torch_{self.word}"

    def __eq__(self, other):
        if isinstance(other, dtype):
            # (bfloat16 is stored as float32: the word tells the two apart)
            return self.numpy == other.numpy and self.word == other.word
        return NotImplemented

    def __hash__(self):
        return hash(self.numpy)

    def __reduce__(self):
        return (as_dtype, (self.name,))


_BY_NUMPY = {}


def _make(np_type, word):
    d = dtype(np_type, word)
    _BY_NUMPY[d.numpy] = d
    return d


_FLOAT32 = _make(np.float32, "Float")
_FLOAT64 = _make(np.float64, "Double")
_FLOAT16 = _make(np.float16, "Half")
_INT64 = _make(np.int64, "Long")
_INT32 = _make(np.int32, "Int")
_INT16 = _make(np.int16, "Short")
_INT8 = _make(np.int8, "Char")
_UINT8 = _make(np.uint8, "Byte")
_BOOL = _make(np.bool_, "Bool")
# complex: the results of the Fourier transforms (and what torch_real/imag/abs read)
_CFLOAT = _make(np.complex64, "ComplexFloat")
_CDOUBLE = _make(np.complex128, "ComplexDouble")

# bfloat16: no NumPy dtype; its tensors keep float32 values rounded to the bfloat16 grid
# (numerics/bfloat16.py) and carry a tag that ``Tensor.dtype`` reads. Not in _BY_NUMPY: a
# float32 array is a float32 tensor unless tagged.
_BFLOAT16 = dtype(np.float32, "BFloat16")
# [whether bfloat16 has been asked for]: until then ops/bf16.py's wrapper only passes through
BF16_SEEN = [False]

_default_float = [_FLOAT32]


def torch_float32(): return _FLOAT32
def torch_float(): return _FLOAT32
def torch_float64(): return _FLOAT64
def torch_double(): return _FLOAT64
def torch_float16(): return _FLOAT16
def torch_half(): return _FLOAT16
def torch_int64(): return _INT64
def torch_long(): return _INT64
def torch_int32(): return _INT32
def torch_int(): return _INT32
def torch_int16(): return _INT16
def torch_short(): return _INT16
def torch_int8(): return _INT8
def torch_uint8(): return _UINT8
def torch_bool(): return _BOOL
def torch_cfloat(): return _CFLOAT
def torch_cdouble(): return _CDOUBLE
def torch_bfloat16():
    BF16_SEEN[0] = True
    return _BFLOAT16


def torch_get_default_dtype():
    """The dtype Python floats and float creation functions produce (float32 unless changed)."""
    return _default_float[0]


def torch_set_default_dtype(d):
    d = as_dtype(d)
    if not d.is_floating_point:
        raise TypeError(f"default dtype must be a floating point type, got {d!r}")
    if d is _BFLOAT16:  # (creation functions would make untagged float32 tensors)
        raise TypeError("bfloat16 cannot be the default dtype in rtorchpy; pass "
                        "dtype = torch_bfloat16() to the functions that make tensors")
    _default_float[0] = d


_NAMES = {
    "float32": _FLOAT32, "float": _FLOAT32, "float64": _FLOAT64, "double": _FLOAT64,
    "float16": _FLOAT16, "half": _FLOAT16, "int64": _INT64, "long": _INT64, "int32": _INT32,
    "int": _INT32, "int16": _INT16, "short": _INT16, "int8": _INT8, "uint8": _UINT8,
    "bool": _BOOL, "complex64": _CFLOAT, "cfloat": _CFLOAT, "complex128": _CDOUBLE,
    "cdouble": _CDOUBLE, "bfloat16": _BFLOAT16,
}


def as_dtype(d) -> dtype:
    """Accept a :class:`dtype`, a NumPy dtype/type, or a name such as ``"float64"``."""
    if isinstance(d, dtype):
        return d
    if isinstance(d, str) and d.lower() in _NAMES:
        if d.lower() == "bfloat16":
            BF16_SEEN[0] = True
        return _NAMES[d.lower()]
    if d is None or isinstance(d, (bool, int, float, complex, bytes, bytearray)):
        # np.dtype(None) is float64 and np.dtype(b"f4") a NumPy name: neither is a dtype here
        raise TypeError(f"expected a dtype such as torch_float32(), got {d!r}")
    try:
        return _BY_NUMPY[np.dtype(d)]
    except (TypeError, KeyError, ValueError, SyntaxError):
        what = repr(d) if isinstance(d, (str, np.dtype, type)) else f"a {type(d).__name__}"
        raise TypeError(f"unsupported dtype {what}; use one of torch_float32(), torch_float64(), "
                        "torch_int64(), torch_int32(), torch_int16(), torch_int8(), torch_uint8(), "
                        "torch_float16(), torch_bfloat16(), torch_bool(), torch_cfloat(), "
                        "torch_cdouble()") from None


def from_numpy_dtype(np_dtype) -> dtype:
    try:
        return _BY_NUMPY[np_dtype]
    except KeyError:
        raise TypeError(f"NumPy dtype {np_dtype} has no rtorchpy dtype") from None


# what a dtype argument accepts (see as_dtype): a dtype, its name, or a NumPy dtype or type
# (Union, not |: evaluated at run time, and Python 3.9 is supported)
DTypeLike = Union[dtype, str, np.dtype, type]
class TypeInfo:
    """The numerical limits of a dtype, as fields: ``bits``, ``max``, ``min`` and, for floating
    point dtypes, ``eps``, ``tiny`` (= ``smallest_normal``) and ``resolution``."""

    def __init__(self, dtype_, **fields):
        self.dtype = dtype_
        self.__dict__.update(fields)

    def __repr__(self):
        kind = "finfo" if self.dtype.is_floating_point else "iinfo"
        body = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items() if k != "dtype")
        return f"{kind}({body}, dtype={self.dtype!r})"


def torch_finfo(type=None):
    """The limits of a floating point dtype (the default dtype when none is given)."""
    d = torch_get_default_dtype() if type is None else as_dtype(type)
    if not d.is_floating_point:
        raise TypeError(f"torch_finfo() requires a floating point dtype, got {d!r}")
    if d is _BFLOAT16:  # (8 exponent bits as float32, 7 fraction bits)
        return TypeInfo(d, bits=16, eps=2.0 ** -7, max=float.fromhex("0x1.fep127"),
                        min=-float.fromhex("0x1.fep127"), tiny=2.0 ** -126,
                        smallest_normal=2.0 ** -126, resolution=0.01)
    info = np.finfo(d.numpy)
    return TypeInfo(d, bits=int(info.bits), eps=float(info.eps), max=float(info.max),
                    min=float(info.min), tiny=float(info.tiny),
                    smallest_normal=float(info.tiny), resolution=10.0 ** -int(info.precision))


def torch_iinfo(type):
    """The limits of an integer dtype (``bits``, ``max``, ``min``); bool is not one."""
    d = as_dtype(type)
    if d.numpy.kind not in "iu":
        raise TypeError(f"torch_iinfo() requires an integer dtype, got {d!r}")
    info = np.iinfo(d.numpy)
    return TypeInfo(d, bits=int(info.bits), max=int(info.max), min=int(info.min))
