"""Loss layers: each applies the ``nnf_*`` loss of the same name with its ``reduction``
("mean", "sum" or "none"). Class weights are registered as buffers (as PyTorch does), so they
follow ``to()`` and appear in ``state_dict()``."""
from __future__ import annotations

from ..ops import nnf
from .module import nn_module

__all__ = ["nn_mse_loss", "nn_l1_loss", "nn_smooth_l1_loss", "nn_huber_loss",
           "nn_cross_entropy_loss", "nn_nll_loss", "nn_bce_loss", "nn_bce_with_logits_loss"]

_REDUCTIONS = ("mean", "sum", "none")


class _loss(nn_module):
    def __init__(self, reduction="mean"):
        if reduction not in _REDUCTIONS:
            raise ValueError(f"{reduction} is not a valid value for reduction; use 'mean', "
                             "'sum' or 'none'")
        self.reduction = reduction


class nn_mse_loss(_loss):
    """Mean squared error."""

    def forward(self, input, target):
        return nnf.nnf_mse_loss(input, target, reduction=self.reduction)


class nn_l1_loss(_loss):
    """Mean absolute error."""

    def forward(self, input, target):
        return nnf.nnf_l1_loss(input, target, reduction=self.reduction)


class nn_smooth_l1_loss(_loss):
    """Smooth L1 loss (quadratic below ``beta``, linear above)."""

    def __init__(self, reduction="mean", beta=1.0):
        super().__init__(reduction)
        self.beta = beta

    def forward(self, input, target):
        return nnf.nnf_smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class nn_huber_loss(_loss):
    """Huber loss (quadratic below ``delta``, linear above, scaled by delta)."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = delta

    def forward(self, input, target):
        return nnf.nnf_huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class nn_cross_entropy_loss(_loss):
    """Cross-entropy of raw scores (N, C) against class indices (0-based in Python) or class
    probabilities; ``weight`` per class, ``ignore_index`` a target skipped."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return nnf.nnf_cross_entropy(input, target, weight=self.weight,
                                     ignore_index=self.ignore_index, reduction=self.reduction)


class nn_nll_loss(_loss):
    """Negative log-likelihood of class indices given log-probabilities."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return nnf.nnf_nll_loss(input, target, weight=self.weight,
                                ignore_index=self.ignore_index, reduction=self.reduction)


class nn_bce_loss(_loss):
    """Binary cross-entropy of probabilities."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.register_buffer("weight", weight)

    def forward(self, input, target):
        return nnf.nnf_binary_cross_entropy(input, target, weight=self.weight,
                                            reduction=self.reduction)


class nn_bce_with_logits_loss(_loss):
    """Binary cross-entropy of logits (sigmoid included, numerically stable); ``pos_weight``
    weighs the positive class."""

    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__(reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return nnf.nnf_binary_cross_entropy_with_logits(
            input, target, weight=self.weight, reduction=self.reduction,
            pos_weight=self.pos_weight)
