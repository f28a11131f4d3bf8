"""Creation functions: ``torch_tensor``, ``torch_ones``, ``torch_randn``, ``torch_arange``, ...

Values become tensors by PyTorch's rules on the Python side (design decision 9): a Python float
gives the default float dtype (float32), an int gives int64, a bool gives bool, nested lists are
inferred the same way, and a NumPy array keeps its dtype. Sizes may be given as
``torch_ones(2, 3)`` or ``torch_ones((2, 3))``.
"""
from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import dtypes as _dt
from ..dtypes import DTypeLike
from ..numerics import bfloat16, draws
from ..tensor import Number, Size, Tensor, _infer
from ..tensor import as_array  # noqa: F401  (part of this module's API)
from .random_state import Generator, engine, normal_array

__all__ = [
    "torch_tensor", "torch_scalar_tensor", "torch_ones", "torch_zeros", "torch_full",
    "torch_empty", "torch_eye", "torch_arange", "torch_linspace", "torch_logspace", "torch_rand",
    "torch_randn", "torch_randint", "torch_randperm", "torch_ones_like", "torch_zeros_like",
    "torch_full_like", "torch_empty_like", "torch_rand_like", "torch_randn_like",
    "torch_randint_like", "torch_from_numpy", "torch_empty_strided",
]


def _finish(data: np.ndarray, requires_grad: bool) -> Tensor:
    t = Tensor._make(data)
    if requires_grad:
        t.requires_grad_(True)
    return t


def torch_tensor(data: ArrayLike, dtype: DTypeLike | None = None, device: str | None = None,
                 requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (a number, nested list, ndarray or Tensor)."""
    _check_device(device)
    return _finish(as_array(data, dtype), requires_grad)


def torch_scalar_tensor(value: Number | Tensor, dtype: DTypeLike | None = None,
                        device: str | None = None, requires_grad: bool = False) -> Tensor:
    """A 0-dim tensor holding ``value``."""
    return torch_tensor(np.asarray(value).reshape(()) if not isinstance(value, Tensor) else
                        value.reshape(()), dtype, device, requires_grad)


def torch_from_numpy(array: np.ndarray) -> Tensor:
    """A tensor that shares memory with ``array`` (changes show through both)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected a NumPy array, got {type(array).__name__}")
    _dt.as_dtype(array.dtype)
    return Tensor._make(array)


def _check_device(device: Any) -> None:
    if device is not None and str(device).lower() != "cpu":
        raise RuntimeError(f"rtorchpy computes on the CPU only; got device {device!r}")


def _size(size: Any) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list, np.ndarray)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.item()
        if isinstance(s, bool) or not isinstance(s, (numbers.Integral, np.integer)) and not (
                isinstance(s, float) and s.is_integer()):
            raise TypeError(f"size must be a sequence of integers, got {size!r}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {int(s)}: "
                               f"{[int(x) for x in size]}")
        out.append(int(s))
    return tuple(out)


def _size_of(size_args: tuple, size: Any) -> tuple[int, ...]:
    """The size given positionally (``f(2, 3)``, ``f((2, 3))``) or as ``size=``."""
    if size is not None:
        if size_args:
            raise TypeError("give the size either positionally or as size=, not both")
        return _size(size if isinstance(size, (tuple, list, np.ndarray)) else (size,))
    return _size(size_args)


def _random_float_dtype(dtype: DTypeLike | None, what: str) -> np.dtype:
    target = _float_dtype(dtype)
    if target.kind != "f":
        raise RuntimeError(f"{what}: expected a floating point dtype, got "
                           f"{_dt.from_numpy_dtype(target)!r}")
    return target


def _float_dtype(dtype: DTypeLike | None) -> np.dtype:
    return _dt.as_dtype(dtype).numpy if dtype is not None else _dt.torch_get_default_dtype().numpy


def torch_ones(*size_args: Size, size: Size | None = None, dtype: DTypeLike | None = None,
               device: str | None = None, requires_grad: bool = False) -> Tensor:
    """A tensor of ones: ``torch_ones(2, 3)`` or ``torch_ones((2, 3))``."""
    _check_device(device)
    return _finish(np.ones(_size_of(size_args, size), _float_dtype(dtype)), requires_grad)


def torch_zeros(*size_args: Size, size: Size | None = None, dtype: DTypeLike | None = None,
                device: str | None = None, requires_grad: bool = False) -> Tensor:
    """A tensor of zeros."""
    _check_device(device)
    return _finish(np.zeros(_size_of(size_args, size), _float_dtype(dtype)), requires_grad)


def torch_empty(*size_args: Size, size: Size | None = None, dtype: DTypeLike | None = None,
                device: str | None = None, requires_grad: bool = False) -> Tensor:
    """A tensor whose values are not initialised."""
    _check_device(device)
    return _finish(np.empty(_size_of(size_args, size), _float_dtype(dtype)), requires_grad)


def torch_full(size: Size, fill_value: Number | Tensor, dtype: DTypeLike | None = None,
               device: str | None = None, requires_grad: bool = False) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value`` (its dtype inferred from the value)."""
    _check_device(device)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    target = _dt.as_dtype(dtype).numpy if dtype is not None else _infer([fill_value])
    size = _size(size if isinstance(size, (tuple, list)) else (size,))
    return _finish(np.full(size, fill_value, target), requires_grad)


def torch_eye(n: int, m: int | None = None, dtype: DTypeLike | None = None,
              device: str | None = None, requires_grad: bool = False) -> Tensor:
    """The n x m identity matrix."""
    _check_device(device)
    return _finish(np.eye(int(n), int(n if m is None else m), dtype=_float_dtype(dtype)),
                   requires_grad)


def torch_arange(start: Number | Tensor, end: Number | Tensor | None = None,
                 step: Number | Tensor = 1, dtype: DTypeLike | None = None,
                 device: str | None = None, requires_grad: bool = False) -> Tensor:
    """Values from ``start`` up to but **excluding** ``end`` in steps of ``step`` (PyTorch's and
    NumPy's convention; ``torch_arange(5)`` is 0..4). The R package keeps R torch's inclusive end.
    The dtype is int64 when all of start, end and step are integers, else the default float."""
    _check_device(device)
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = values
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is not None:
        target = _dt.as_dtype(dtype).numpy
    elif all(isinstance(v, (numbers.Integral, np.integer)) for v in values):
        target = np.dtype(np.int64)
    else:
        target = _dt.torch_get_default_dtype().numpy
    n = int(np.ceil((end - start) / step))
    return _finish((start + np.arange(max(n, 0), dtype=np.float64) * step).astype(target)
                   if target.kind == "f" else np.arange(start, end, step, dtype=target),
                   requires_grad)


def torch_linspace(start: float, end: float, steps: int = 100, dtype: DTypeLike | None = None,
                   device: str | None = None, requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    _check_device(device)
    if int(steps) < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype is not None and _dt.as_dtype(dtype) is _dt._BFLOAT16:
        return _finish(bfloat16.linspace(float(start), float(end), int(steps)), requires_grad)
    return _finish(np.linspace(start, end, int(steps)).astype(_float_dtype(dtype)), requires_grad)


def torch_logspace(start: float, end: float, steps: int = 100, base: float = 10.0,
                   dtype: DTypeLike | None = None, device: str | None = None,
                   requires_grad: bool = False) -> Tensor:
    """``base ** torch_linspace(start, end, steps)``."""
    _check_device(device)
    return _finish((float(base) ** np.linspace(start, end, int(steps))).astype(_float_dtype(dtype)),
                   requires_grad)


def torch_rand(*size_args: Size, size: Size | None = None, dtype: DTypeLike | None = None,
               device: str | None = None, requires_grad: bool = False,
               generator: Generator | None = None) -> Tensor:
    """Uniform random values in [0, 1) (libtorch's for the same seed)."""
    _check_device(device)
    target = _random_float_dtype(dtype, "torch_rand")
    shape = _size_of(size_args, size)
    flat = draws.uniform(engine(generator), int(np.prod(shape, dtype=np.int64)), target)
    return _finish(flat.astype(target, copy=False).reshape(shape), requires_grad)


def torch_randn(*size_args: Size, size: Size | None = None, dtype: DTypeLike | None = None,
                device: str | None = None, requires_grad: bool = False,
                generator: Generator | None = None) -> Tensor:
    """Standard normal random values (libtorch's for the same seed)."""
    _check_device(device)
    target = _random_float_dtype(dtype, "torch_randn")
    like = np.empty(_size_of(size_args, size), target)
    return _finish(normal_array(like, generator=generator), requires_grad)


def random_integers(n: int, low: Any, high: Any, dtype: Any,
                    generator: Generator | None = None) -> np.ndarray:
    """``n`` integers in [low, high) as libtorch's ``random_(low, high)`` draws them for
    ``dtype`` (int64 array)."""
    dt = np.dtype(dtype)
    wide = dt.kind == "f" or dt.itemsize == 8
    return draws.integers(engine(generator), n, int(high) - int(low), int(low), wide)


def torch_randint(low: int, high: int | Size | None = None, size: Size | None = None,
                  dtype: DTypeLike | None = None, device: str | None = None,
                  requires_grad: bool = False, generator: Generator | None = None) -> Tensor:
    """Random integers in [low, high); ``torch_randint(10, (2, 2))`` draws from [0, 10)."""
    _check_device(device)
    if size is None:
        if high is None:
            raise TypeError("torch_randint() needs a size")
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    size = _size(size if isinstance(size, (tuple, list)) else (size,))
    target = _dt.as_dtype(dtype).numpy if dtype is not None else np.dtype(np.int64)
    # (high is a number here: a size given in its place moved to size above)
    if not int(low) < int(high):  # type: ignore[arg-type]
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    n = int(np.prod(size, dtype=np.int64))
    values = random_integers(n, low, high, target, generator)
    return _finish(values.astype(target).reshape(size), requires_grad)


def torch_randperm(n: int, dtype: DTypeLike | None = None, device: str | None = None,
                   requires_grad: bool = False, generator: Generator | None = None) -> Tensor:
    """A random permutation of 0..n-1 (libtorch's for the same seed)."""
    _check_device(device)
    target = _dt.as_dtype(dtype).numpy if dtype is not None else np.dtype(np.int64)
    n = int(n)
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    return _finish(draws.permutation(engine(generator), n).astype(target), requires_grad)


def _like(fn: Callable[..., Tensor], input: Tensor | ArrayLike, dtype: DTypeLike | None,
          requires_grad: bool, **kw: Any) -> Tensor:
    shape = input.shape if isinstance(input, Tensor) else np.shape(input)
    d = dtype if dtype is not None else (input.dtype if isinstance(input, Tensor) else None)
    return fn(shape, dtype=d, requires_grad=requires_grad, **kw)


def torch_ones_like(input: Tensor, dtype: DTypeLike | None = None, device: str | None = None,
                         requires_grad: bool = False) -> Tensor:
    return _like(torch_ones, input, dtype, requires_grad)


def torch_zeros_like(input: Tensor, dtype: DTypeLike | None = None, device: str | None = None,
                          requires_grad: bool = False) -> Tensor:
    return _like(torch_zeros, input, dtype, requires_grad)


def torch_empty_like(input: Tensor, dtype: DTypeLike | None = None, device: str | None = None,
                          requires_grad: bool = False) -> Tensor:
    return _like(torch_empty, input, dtype, requires_grad)


def torch_rand_like(input: Tensor, dtype: DTypeLike | None = None, device: str | None = None,
                         requires_grad: bool = False) -> Tensor:
    return _like(torch_rand, input, dtype, requires_grad)


def torch_randn_like(input: Tensor, dtype: DTypeLike | None = None, device: str | None = None,
                          requires_grad: bool = False) -> Tensor:
    return _like(torch_randn, input, dtype, requires_grad)


def torch_full_like(input: Tensor, fill_value: Number | Tensor, dtype: DTypeLike | None = None,
                    device: str | None = None, requires_grad: bool = False) -> Tensor:
    d = dtype if dtype is not None else input.dtype
    return torch_full(input.shape, fill_value, dtype=d, requires_grad=requires_grad)


def torch_randint_like(input: Tensor, low: int, high: int | None = None,
                       dtype: DTypeLike | None = None, device: str | None = None,
                       requires_grad: bool = False) -> Tensor:
    d = dtype if dtype is not None else input.dtype
    return torch_randint(low, high, input.shape, dtype=d, requires_grad=requires_grad)


def torch_empty_strided(size: Sequence[int], stride: Sequence[int], dtype: DTypeLike | None = None,
                        device: str | None = None, requires_grad: bool = False) -> Tensor:
    """An uninitialised tensor of shape ``size`` whose elements lie ``stride`` elements apart
    along each dim (in a buffer just large enough; here filled with zeros)."""
    _check_device(device)
    shape = _size((size,))
    if any(isinstance(v, (numbers.Integral, np.integer)) and v < 0 for v in stride):
        raise RuntimeError(f"empty_strided: negative strides are not supported, got stride "
                           f"{[int(v) for v in stride]}")
    steps = _size((stride,)) if len(stride) else ()
    if len(steps) != len(shape):
        raise RuntimeError(f"mismatch in length of strides and shape: size has {len(shape)} "
                           f"dims, stride {len(steps)}")
    dt = _float_dtype(dtype)
    count = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, steps))
    buffer = np.zeros(count, dt)
    data = np.lib.stride_tricks.as_strided(buffer, shape, tuple(s * dt.itemsize for s in steps))
    return _finish(data, requires_grad)
