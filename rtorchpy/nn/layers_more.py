"""Modules for ``ops/nnf_more.py`` and ``ops/ctc.py``: ``nn_mish``, ``nn_contrib_sparsemax``,
``nn_multilabel_margin_loss`` and ``nn_ctc_loss``."""
from __future__ import annotations

from ..ops import nnf
from .loss import _loss
from .module import nn_module

__all__ = ["nn_mish", "nn_contrib_sparsemax", "nn_multilabel_margin_loss", "nn_ctc_loss"]


class nn_mish(nn_module):
    """``x * tanh(softplus(x))``."""

    def __init__(self, inplace=False):
        self.inplace = inplace

    def forward(self, input):
        return nnf.nnf_mish(input, self.inplace)


class nn_contrib_sparsemax(nn_module):
    """Sparsemax along ``dim`` (``nnf_contrib_sparsemax``)."""

    def __init__(self, dim=-1):
        self.dim = dim

    def forward(self, input):
        return nnf.nnf_contrib_sparsemax(input, self.dim)


class nn_multilabel_margin_loss(_loss):
    """Multi-label hinge loss over class-index targets ended by -1."""

    def forward(self, input, target):
        return nnf.nnf_multilabel_margin_loss(input, target, self.reduction)


class nn_ctc_loss(_loss):
    """The connectionist temporal classification loss (``nnf_ctc_loss``)."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return nnf.nnf_ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                                self.reduction, self.zero_infinity)
