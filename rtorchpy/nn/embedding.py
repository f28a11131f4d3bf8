"""``nn_embedding``: a lookup table of ``num_embeddings`` vectors of size ``embedding_dim``."""
from __future__ import annotations

from ..autograd.grad_mode import with_no_grad
from ..numerics.args import int64, size
from ..ops.creation import torch_empty
from ..ops.nnf import nnf_embedding, nnf_embedding_bag
from ..tensor import Tensor
from .init import nn_init_normal_
from .module import nn_module, nn_parameter

__all__ = ["nn_embedding", "nn_embedding_bag"]


class nn_embedding(nn_module):
    """Rows of ``weight`` (num_embeddings, embedding_dim), initialized N(0, 1), picked by
    integer indices (0-based in Python). The ``padding_idx`` row starts at zero and gets no
    gradient; ``max_norm`` renormalizes the rows used; ``weight`` may be given (``.weight`` in
    R torch) instead of drawn."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, weight=None,
                 dtype=None):
        self.num_embeddings = size(num_embeddings, "num_embeddings", "nn_embedding")
        self.embedding_dim = size(embedding_dim, "embedding_dim", "nn_embedding")
        if padding_idx is not None:
            padding_idx = int64(padding_idx, "padding_idx", "nn_embedding")
            if not -self.num_embeddings <= padding_idx < self.num_embeddings:
                raise ValueError("Padding_idx must be within num_embeddings")
            padding_idx %= self.num_embeddings
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if weight is None:
            self.weight = nn_parameter(torch_empty(self.num_embeddings, self.embedding_dim,
                                                   dtype=dtype))
            self.reset_parameters()
        else:
            if not isinstance(weight, Tensor) or \
                    tuple(weight.shape) != (self.num_embeddings, self.embedding_dim):
                raise ValueError("Shape of weight does not match num_embeddings and "
                                 "embedding_dim")
            self.weight = nn_parameter(weight)

    def reset_parameters(self):
        nn_init_normal_(self.weight)
        if self.padding_idx is not None:
            with with_no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return nnf_embedding(input, self.weight, self.padding_idx, self.max_norm,
                             self.norm_type, self.scale_grad_by_freq, self.sparse)


class nn_embedding_bag(nn_module):
    """Sums, means or maxima (``mode``) of bags of rows of ``weight`` (num_embeddings,
    embedding_dim), initialized N(0, 1) (the ``padding_idx`` row zero).
    ``forward(input, offsets=None, per_sample_weights=None)``: see ``nnf_embedding_bag``."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, weight=None,
                 include_last_offset=False, padding_idx=None, dtype=None):
        self.num_embeddings = size(num_embeddings, "num_embeddings", "nn_embedding_bag")
        self.embedding_dim = size(embedding_dim, "embedding_dim", "nn_embedding_bag")
        if padding_idx is not None:
            padding_idx = int64(padding_idx, "padding_idx", "nn_embedding_bag")
            if not -self.num_embeddings <= padding_idx < self.num_embeddings:
                raise ValueError("padding_idx must be within num_embeddings")
            padding_idx %= self.num_embeddings
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.mode, self.sparse = scale_grad_by_freq, mode, sparse
        self.include_last_offset = include_last_offset
        if weight is None:
            self.weight = nn_parameter(torch_empty(self.num_embeddings, self.embedding_dim,
                                                   dtype=dtype))
            nn_init_normal_(self.weight)
            if padding_idx is not None:
                with with_no_grad():
                    self.weight[padding_idx].fill_(0)
        else:
            if not isinstance(weight, Tensor) or \
                    tuple(weight.shape) != (self.num_embeddings, self.embedding_dim):
                raise ValueError("Shape of weight does not match num_embeddings and "
                                 "embedding_dim")
            self.weight = nn_parameter(weight)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return nnf_embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                                 self.scale_grad_by_freq, self.mode, self.sparse,
                                 per_sample_weights, self.include_last_offset,
                                 self.padding_idx)
