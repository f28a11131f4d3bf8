"""``nn_dropout``: zeroes elements with probability ``p`` in training mode only."""
from __future__ import annotations

from ..ops.nnf import nnf_dropout
from .module import nn_module

__all__ = ["nn_dropout"]


class nn_dropout(nn_module):
    """During training, zero each element with probability ``p`` and scale the rest by
    ``1 / (1 - p)``; in evaluation mode (``model.eval()``), the identity."""

    def __init__(self, p=0.5, inplace=False):
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return nnf_dropout(input, self.p, self.training, self.inplace)
