"""``x.new_zeros()``, ``x.new_ones()``, ``x.new_full()``, ``x.new_empty()``, ``x.new_tensor()``:
new tensors with ``x``'s dtype (unless ``dtype=`` says otherwise), as PyTorch's methods make
them. Methods only, as in PyTorch; they record nothing (the result is a fresh leaf)."""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..numerics.warn import warn
from ..tensor import Tensor
from .creation import torch_empty, torch_full, torch_ones, torch_tensor, torch_zeros
from .registry import op


def _dtype(self, dtype):
    return self.dtype if dtype is None else _dt.as_dtype(dtype)


def _sized(make, name):
    def fn(self, *size, dtype=None, device=None, requires_grad=False):
        if not size:  # PyTorch's message (a size of () is a 0-dim tensor)
            raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
        return make(*size, dtype=_dtype(self, dtype), device=device,
                    requires_grad=requires_grad)
    fn.__name__ = name
    return fn


new_zeros = op("new_zeros", namespace=False)(_sized(torch_zeros, "new_zeros"))
new_zeros.__doc__ = """A tensor of zeros of ``size`` (numbers, or one sequence), ``self``'s dtype
unless ``dtype`` is given."""

new_ones = op("new_ones", namespace=False)(_sized(torch_ones, "new_ones"))
new_ones.__doc__ = """A tensor of ones of ``size``, ``self``'s dtype unless ``dtype`` is given."""

new_empty = op("new_empty", namespace=False)(_sized(torch_empty, "new_empty"))
new_empty.__doc__ = """A tensor of ``size`` whose values are not initialised, ``self``'s dtype
unless ``dtype`` is given."""


@op("new_full", namespace=False)
def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    """A tensor of ``size`` (a sequence, or one number) filled with ``fill_value``, converted
    to ``self``'s dtype unless ``dtype`` is given."""
    return torch_full(size, fill_value, dtype=_dtype(self, dtype), device=device,
                      requires_grad=requires_grad)


@op("new_tensor", namespace=False)
def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of ``data`` (numbers, nested lists, an array or a tensor),
    converted to ``self``'s dtype unless ``dtype`` is given. From a tensor the copy is
    detached, with PyTorch's warning that ``data.detach().clone()`` says it better."""
    if isinstance(data, Tensor):
        warn("To copy construct from a tensor, it is recommended to use "
             "sourceTensor.detach().clone() or "
             "sourceTensor.detach().clone().requires_grad_(True), rather than "
             "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
        data = np.array(data._data)  # (a copy: the result shares nothing with data)
    return torch_tensor(data, dtype=_dtype(self, dtype), device=device,
                        requires_grad=requires_grad)
