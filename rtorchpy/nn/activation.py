"""Activation layers: each applies the ``nnf_*`` function of the same name."""
from __future__ import annotations

from ..ops import nnf
from .module import nn_module

__all__ = ["nn_relu", "nn_relu6", "nn_leaky_relu", "nn_elu", "nn_gelu", "nn_silu", "nn_sigmoid",
           "nn_tanh", "nn_softmax", "nn_log_softmax", "nn_softplus", "nn_hardtanh",
           "nn_log_sigmoid"]


class nn_relu(nn_module):
    """max(x, 0)."""

    def __init__(self, inplace=False):
        self.inplace = inplace

    def forward(self, input):
        return nnf.nnf_relu(input, self.inplace)


class nn_relu6(nn_module):
    """min(max(x, 0), 6)."""

    def __init__(self, inplace=False):
        self.inplace = inplace

    def forward(self, input):
        return nnf.nnf_relu6(input, self.inplace)


class nn_hardtanh(nn_module):
    """x clamped to [min_val, max_val]."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        if min_val > max_val:
            raise ValueError("min_val cannot be greater than max_val")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return nnf.nnf_hardtanh(input, self.min_val, self.max_val, self.inplace)


class nn_leaky_relu(nn_module):
    """x where positive, else negative_slope * x."""

    def __init__(self, negative_slope=0.01, inplace=False):
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return nnf.nnf_leaky_relu(input, self.negative_slope, self.inplace)


class nn_elu(nn_module):
    """x where positive, else alpha * (exp(x) - 1)."""

    def __init__(self, alpha=1.0, inplace=False):
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return nnf.nnf_elu(input, self.alpha, self.inplace)


class nn_gelu(nn_module):
    """Gaussian error linear unit (``approximate = "none"`` or ``"tanh"``)."""

    def __init__(self, approximate="none"):
        if approximate not in ("none", "tanh"):
            raise ValueError(f"approximate argument must be either none or tanh, got "
                             f"{approximate!r}")
        self.approximate = approximate

    def forward(self, input):
        return nnf.nnf_gelu(input, approximate=self.approximate)


class nn_silu(nn_module):
    """x * sigmoid(x)."""

    def __init__(self, inplace=False):
        self.inplace = inplace

    def forward(self, input):
        return nnf.nnf_silu(input, self.inplace)


class nn_sigmoid(nn_module):
    """1 / (1 + exp(-x))."""

    def forward(self, input):
        return nnf.nnf_sigmoid(input)


class nn_tanh(nn_module):
    """tanh(x)."""

    def forward(self, input):
        return nnf.nnf_tanh(input)


class nn_log_sigmoid(nn_module):
    """log(sigmoid(x))."""

    def forward(self, input):
        return nnf.nnf_logsigmoid(input)


class nn_softplus(nn_module):
    """log(1 + exp(beta x)) / beta (x itself where beta x > threshold)."""

    def __init__(self, beta=1, threshold=20):
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return nnf.nnf_softplus(input, self.beta, self.threshold)


class nn_softmax(nn_module):
    """softmax over ``dim`` (0-based in Python)."""

    def __init__(self, dim):
        self.dim = dim

    def forward(self, input):
        return nnf.nnf_softmax(input, self.dim)


class nn_log_softmax(nn_module):
    """log(softmax) over ``dim`` (0-based in Python)."""

    def __init__(self, dim):
        self.dim = dim

    def forward(self, input):
        return nnf.nnf_log_softmax(input, self.dim)
