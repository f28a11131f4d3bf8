"""More loss layers: each applies the ``nnf_*`` loss of the same name with its ``reduction``
(``ops/nnf_margin_losses.py``, ``nnf_kl_div``)."""
from __future__ import annotations

from ..ops import nnf
from .loss import _loss

__all__ = ["nn_kl_div_loss", "nn_hinge_embedding_loss", "nn_soft_margin_loss",
           "nn_multilabel_soft_margin_loss", "nn_cosine_embedding_loss",
           "nn_margin_ranking_loss", "nn_triplet_margin_loss", "nn_multi_margin_loss"]


class nn_kl_div_loss(_loss):
    """Kullback-Leibler divergence (``nnf_kl_div``); ``reduction`` may also be
    ``"batchmean"``."""

    def __init__(self, reduction="mean", log_target=False):
        if reduction not in ("mean", "sum", "none", "batchmean"):
            raise ValueError(f"{reduction} is not a valid value for reduction")
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input, target):
        return nnf.nnf_kl_div(input, target, reduction=self.reduction,
                              log_target=self.log_target)


class nn_hinge_embedding_loss(_loss):
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1."""

    def __init__(self, margin=1.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def forward(self, input, target):
        return nnf.nnf_hinge_embedding_loss(input, target, self.margin, self.reduction)


class nn_soft_margin_loss(_loss):
    """``log(1 + exp(-target * input))``."""

    def forward(self, input, target):
        return nnf.nnf_soft_margin_loss(input, target, self.reduction)


class nn_multilabel_soft_margin_loss(_loss):
    """One-versus-all logistic loss averaged over the classes, optionally class-weighted."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.register_buffer("weight", weight)

    def forward(self, input, target):
        return nnf.nnf_multilabel_soft_margin_loss(input, target, self.weight, self.reduction)


class nn_cosine_embedding_loss(_loss):
    """``1 - cos`` for similar pairs (target 1), ``max(0, cos - margin)`` for dissimilar."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return nnf.nnf_cosine_embedding_loss(input1, input2, target, self.margin,
                                             self.reduction)


class nn_margin_ranking_loss(_loss):
    """``max(0, -target * (input1 - input2) + margin)``."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return nnf.nnf_margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class nn_triplet_margin_loss(_loss):
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))``."""

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction="mean"):
        super().__init__(reduction)
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return nnf.nnf_triplet_margin_loss(anchor, positive, negative, self.margin, self.p,
                                           self.eps, self.swap, self.reduction)


class nn_multi_margin_loss(_loss):
    """Multi-class hinge loss (``p`` 1 or 2), optionally class-weighted."""

    def __init__(self, p=1, margin=1.0, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.p, self.margin = p, margin
        self.register_buffer("weight", weight)

    def forward(self, input, target):
        return nnf.nnf_multi_margin_loss(input, target, self.p, self.margin, self.weight,
                                         self.reduction)
