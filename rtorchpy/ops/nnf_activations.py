"""More activation functions, as compositions of recorded ops: ``nnf_celu``, ``nnf_softmin``,
``nnf_glu``, ``nnf_hardswish``, ``nnf_prelu``,
``nnf_softsign``, ``nnf_tanhshrink``, ``nnf_threshold``. Their values and gradients are
libtorch's; their graphs show the ops they are made of (``docs/differences.md``)."""
from __future__ import annotations

from ..tensor import Tensor
from .arith import add, div, mul, sub, where
from .elementwise import sigmoid, tanh
from .nnf_layers import _float_input, nnf_elu, nnf_relu6
from .reduce import softmax

__all__ = ["nnf_celu", "nnf_softmin", "nnf_glu", "nnf_hardswish", "nnf_prelu",
           "nnf_softsign", "nnf_tanhshrink", "nnf_threshold"]


def _inplace(input, inplace, out):
    return input.copy_(out) if inplace else out


def nnf_celu(input, alpha=1.0, inplace=False):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    input = _float_input(input, "celu")
    alpha = float(alpha)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _inplace(input, inplace, mul(nnf_elu(div(input, alpha)), alpha))


def nnf_softmin(input, dim, dtype=None):
    """``softmax(-x)`` along ``dim``."""
    input = _float_input(input, "softmin")
    return softmax(-input, dim, dtype)


def nnf_glu(input, dim=-1):
    """Gated linear unit: the first half of ``dim`` times the sigmoid of the second half."""
    input = _float_input(input, "glu")
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.dim() if -input.dim() <= dim < input.dim() else None
    if d is None:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-input.dim()}, {input.dim() - 1}], but got {dim})")
    n = input.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    a, b = input.narrow(d, 0, n // 2), input.narrow(d, n // 2, n // 2)
    return mul(a, sigmoid(b))


def nnf_hardswish(input, inplace=False):
    """``x * relu6(x + 3) / 6``."""
    input = _float_input(input, "hardswish")
    return _inplace(input, inplace, div(mul(input, nnf_relu6(add(input, 3.0))), 6.0))


def nnf_prelu(input, weight):
    """``x`` where positive, ``weight * x`` elsewhere; a weight of several values is one per
    channel (dim 1 in Python, 2 in R)."""
    input = _float_input(input, "prelu")
    if not isinstance(weight, Tensor):
        raise TypeError("prelu(): argument 'weight' must be a Tensor")
    w = weight
    if w.numel() > 1:
        if input.dim() < 2 or input.shape[1] != w.numel():
            c = input.shape[1] if input.dim() >= 2 else 1
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {w.numel()} and channel size = {c}.")
        w = w.reshape((-1,) + (1,) * (input.dim() - 2))
    return where(input > 0, input, mul(w, input))


def nnf_softsign(input):
    """``x / (1 + |x|)``."""
    input = _float_input(input, "softsign")
    return div(input, add(input.abs(), 1.0))


def nnf_tanhshrink(input):
    """``x - tanh(x)``."""
    input = _float_input(input, "tanhshrink")
    return sub(input, tanh(input))


def nnf_threshold(input, threshold, value, inplace=False):
    """``x`` where ``x > threshold``, ``value`` elsewhere."""
    input = _float_input(input, "threshold")
    return _inplace(input, inplace, where(input > float(threshold), input, float(value)))
