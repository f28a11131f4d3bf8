"""More activation layers, each applying the ``nnf_*`` function of the same name
(``ops/nnf_activations.py``); ``nn_prelu`` learns its slopes."""
from __future__ import annotations

from ..ops import nnf
from ..ops.creation import torch_full
from .module import nn_module, nn_parameter

__all__ = ["nn_celu", "nn_softmin", "nn_glu", "nn_hardswish", "nn_prelu", "nn_rrelu",
           "nn_softsign", "nn_tanhshrink", "nn_threshold"]


class nn_celu(nn_module):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""

    def __init__(self, alpha=1.0, inplace=False):
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return nnf.nnf_celu(input, self.alpha, self.inplace)


class nn_softmin(nn_module):
    """``softmax(-x)`` along ``dim``."""

    def __init__(self, dim):
        self.dim = dim

    def forward(self, input):
        return nnf.nnf_softmin(input, self.dim)


class nn_glu(nn_module):
    """First half of ``dim`` times the sigmoid of the second half."""

    def __init__(self, dim=-1):
        self.dim = dim

    def forward(self, input):
        return nnf.nnf_glu(input, self.dim)


class nn_hardswish(nn_module):
    """``x * relu6(x + 3) / 6``."""

    def __init__(self, inplace=False):
        self.inplace = inplace

    def forward(self, input):
        return nnf.nnf_hardswish(input, self.inplace)


class nn_prelu(nn_module):
    """``x`` where positive, ``a * x`` elsewhere, with ``num_parameters`` learnt slopes ``a``
    (one, or one per channel) starting at ``init``."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        self.num_parameters = num_parameters
        self.weight = nn_parameter(torch_full((num_parameters,), float(init), dtype=dtype))

    def forward(self, input):
        return nnf.nnf_prelu(input, self.weight)


class nn_rrelu(nn_module):
    """Randomized leaky ReLU; in evaluation mode the slope is ``(lower + upper) / 2``."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return nnf.nnf_rrelu(input, self.lower, self.upper, self.training, self.inplace)


class nn_softsign(nn_module):
    """``x / (1 + |x|)``."""

    def forward(self, input):
        return nnf.nnf_softsign(input)


class nn_tanhshrink(nn_module):
    """``x - tanh(x)``."""

    def forward(self, input):
        return nnf.nnf_tanhshrink(input)


class nn_threshold(nn_module):
    """``x`` where ``x > threshold``, ``value`` elsewhere."""

    def __init__(self, threshold, value, inplace=False):
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return nnf.nnf_threshold(input, self.threshold, self.value, self.inplace)
