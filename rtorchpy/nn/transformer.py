"""Attention modules: ``nn_multihead_attention``, ``nn_transformer_encoder_layer`` and
``nn_transformer_encoder``, on the functions of ``ops/attention.py``.

Parameters are created and initialized in PyTorch's order (the output projection is an
``nn_linear`` drawn when it is made; then the input projections xavier-uniform, their biases
zero, ``bias_k``/``bias_v`` xavier-normal), so a seed gives PyTorch's weights.
"""
from __future__ import annotations

import copy

from ..numerics.args import size
from ..ops.attention import nnf_multi_head_attention_forward
from ..ops.creation import torch_empty, torch_ones
from ..ops.nnf import nnf_relu
from ..ops.nnf_layers import nnf_gelu
from ..tensor import Tensor
from .containers import nn_module_list
from .dropout import nn_dropout
from .init import nn_init_constant_, nn_init_xavier_normal_, nn_init_xavier_uniform_
from .linear import nn_linear
from .module import nn_module, nn_parameter
from .normalization import nn_layer_norm

__all__ = ["nn_multihead_attention", "nn_transformer_encoder_layer", "nn_transformer_encoder"]


class nn_multihead_attention(nn_module):
    """Attention from ``num_heads`` heads of size ``embed_dim / num_heads``.
    ``forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True)`` returns ``(output, weights)`` (weights None unless
    ``need_weights``); bool masks mark what is left out. ``kdim``/``vdim`` give keys and
    values their own sizes (separate projection weights)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, dtype=None):
        name = "nn_multihead_attention"
        self.embed_dim = size(embed_dim, "embed_dim", name)
        self.num_heads = size(num_heads, "num_heads", name)
        if self.num_heads <= 0 or self.embed_dim % self.num_heads:
            raise ValueError("embed_dim must be divisible by num_heads")
        self.kdim = self.embed_dim if kdim is None else size(kdim, "kdim", name)
        self.vdim = self.embed_dim if vdim is None else size(vdim, "vdim", name)
        self.same_dims = self.kdim == self.embed_dim and self.vdim == self.embed_dim
        self.dropout, self.batch_first = float(dropout), bool(batch_first)
        self.head_dim = self.embed_dim // self.num_heads
        E = self.embed_dim
        if self.same_dims:
            self.in_proj_weight = nn_parameter(torch_empty(3 * E, E, dtype=dtype))
        else:
            self.q_proj_weight = nn_parameter(torch_empty(E, E, dtype=dtype))
            self.k_proj_weight = nn_parameter(torch_empty(E, self.kdim, dtype=dtype))
            self.v_proj_weight = nn_parameter(torch_empty(E, self.vdim, dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = nn_parameter(torch_empty(3 * E, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = nn_linear(E, E, bias=bias, dtype=dtype)
        if add_bias_kv:
            self.bias_k = nn_parameter(torch_empty(1, 1, E, dtype=dtype))
            self.bias_v = nn_parameter(torch_empty(1, 1, E, dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = bool(add_zero_attn)
        self.reset_parameters()

    def reset_parameters(self):
        if self.same_dims:
            nn_init_xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                nn_init_xavier_uniform_(w)
        if self.in_proj_bias is not None:
            nn_init_constant_(self.in_proj_bias, 0.0)
            nn_init_constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            nn_init_xavier_normal_(self.bias_k)
            nn_init_xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint.")
        sep = not self.same_dims
        return nnf_multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            avg_weights=average_attn_weights, use_separate_proj_weight=sep,
            q_proj_weight=self.q_proj_weight if sep else None,
            k_proj_weight=self.k_proj_weight if sep else None,
            v_proj_weight=self.v_proj_weight if sep else None, batch_first=self.batch_first)


def _causal_mask(n):
    """A bool mask leaving out the positions after each one (``TRUE`` = left out)."""
    return torch_ones(n, n, dtype=None).triu(1).bool()


class nn_transformer_encoder_layer(nn_module):
    """Self-attention then a feed-forward network (``linear1``, activation, ``linear2``),
    each with dropout, a residual connection and a layer norm (after each part, or before
    with ``norm_first``). ``forward(src, src_mask=None, src_key_padding_mask=None,
    is_causal=False)``."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 dtype=None):
        self.self_attn = nn_multihead_attention(d_model, nhead, dropout=dropout, bias=bias,
                                                batch_first=batch_first, dtype=dtype)
        self.linear1 = nn_linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = nn_dropout(dropout)
        self.linear2 = nn_linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = bool(norm_first)
        self.norm1 = nn_layer_norm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = nn_layer_norm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = nn_dropout(dropout)
        self.dropout2 = nn_dropout(dropout)
        self.batch_first = bool(batch_first)
        if isinstance(activation, str):
            if activation not in ("relu", "gelu"):
                raise RuntimeError(f"activation should be relu/gelu, not {activation}")
            self.activation = nnf_relu if activation == "relu" else nnf_gelu
        elif callable(activation):
            self.activation = activation
        else:
            raise TypeError("activation must be 'relu', 'gelu' or a function")

    def _sa(self, x, mask, kpm):
        return self.dropout1(self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=kpm,
                                            need_weights=False)[0])

    def _ff(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        if is_causal:
            if src_mask is not None:
                raise RuntimeError("Explicit src_mask should not be set when is_causal=TRUE. "
                                   "Use one or the other.")
            if not isinstance(src, Tensor):
                raise TypeError("nn_transformer_encoder_layer(): 'src' must be a tensor")
            n = src.shape[1] if (self.batch_first and src.dim() == 3) else src.shape[0]
            src_mask = _causal_mask(n)
        x = src
        if self.norm_first:
            x = x + self._sa(self.norm1(x), src_mask, src_key_padding_mask)
            return x + self._ff(self.norm2(x))
        x = self.norm1(x + self._sa(x, src_mask, src_key_padding_mask))
        return self.norm2(x + self._ff(x))


class nn_transformer_encoder(nn_module):
    """``num_layers`` copies of ``encoder_layer`` (each with its own copy of the layer's
    initial weights) applied in turn, then ``norm`` if given. ``enable_nested_tensor`` and
    ``mask_check`` are accepted (they only choose PyTorch's inference fast path)."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        if not isinstance(encoder_layer, nn_module):
            raise TypeError("encoder_layer must be an nn_module")
        self.num_layers = size(num_layers, "num_layers", "nn_transformer_encoder")
        self.layers = nn_module_list([copy.deepcopy(encoder_layer)
                                      for _ in range(self.num_layers)])
        self.norm = norm
        self.enable_nested_tensor, self.mask_check = enable_nested_tensor, mask_check

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                        is_causal=bool(is_causal) and mask is None)
        if self.norm is not None:
            out = self.norm(out)
        return out
