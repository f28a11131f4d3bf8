"""``nn_dropout``, ``nn_dropout2d``, ``nn_dropout3d``: zero elements (or whole channels) with
probability ``p`` in training mode only."""
from __future__ import annotations

from ..ops.nnf import nnf_alpha_dropout, nnf_dropout, nnf_dropout2d, nnf_dropout3d
from .module import nn_module

__all__ = ["nn_dropout", "nn_dropout2d", "nn_dropout3d", "nn_alpha_dropout"]


class nn_dropout(nn_module):
    """During training, zero each element with probability ``p`` and scale the rest by
    ``1 / (1 - p)``; in evaluation mode (``model.eval()``), the identity."""

    def __init__(self, p=0.5, inplace=False):
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return nnf_dropout(input, self.p, self.training, self.inplace)


class nn_dropout2d(nn_dropout):
    """During training, zero whole channels of (N, C, H, W) inputs with probability ``p`` and
    scale the rest by ``1 / (1 - p)``; the identity in evaluation mode."""

    def forward(self, input):
        return nnf_dropout2d(input, self.p, self.training, self.inplace)


class nn_dropout3d(nn_dropout):
    """As ``nn_dropout2d``, for (N, C, D, H, W) inputs."""

    def forward(self, input):
        return nnf_dropout3d(input, self.p, self.training, self.inplace)


class nn_alpha_dropout(nn_dropout):
    """Dropout for SELU networks (``nnf_alpha_dropout``), in training mode only."""

    def forward(self, input):
        return nnf_alpha_dropout(input, self.p, self.training, self.inplace)
