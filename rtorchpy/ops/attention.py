"""Attention: ``nnf_scaled_dot_product_attention`` and ``nnf_multi_head_attention_forward``,
made of recorded ops (batched products, softmax, masks), as libtorch's math path is; the
heads are a batch dimension, so nothing loops over batch elements or heads.

Masks follow libtorch: for scaled dot-product attention a bool mask says which positions
*take part* (``TRUE`` = attend); for multi-head attention a bool ``attn_mask`` or
``key_padding_mask`` says which positions are *left out* (``TRUE`` = ignore). A float mask is
added to the scores in both.
"""
from __future__ import annotations

import math

import numpy as np

from ..tensor import Tensor
from .arith import add, mul
from .creation import torch_zeros
from .index import masked_fill
from .linalg import matmul
from .nnf_layers import nnf_dropout
from .reduce import softmax
from .shape import cat

__all__ = ["nnf_scaled_dot_product_attention", "nnf_multi_head_attention_forward"]


def _bool(mask):
    return mask._data.dtype == np.bool_


def _float_mask(mask, dtype, name):
    """A mask as scores to add: bool ``True`` (left out) becomes -inf, floats stay."""
    if mask is None:
        return None
    if not isinstance(mask, Tensor):
        raise TypeError(f"'{name}' must be a tensor")
    if _bool(mask):
        return Tensor._make(np.where(mask._data, -np.inf, 0.0).astype(dtype))
    if mask._data.dtype.kind != "f":
        raise RuntimeError(f"only bool and floating types of {name} are supported")
    return mask


def nnf_scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                     is_causal=False, scale=None):
    """``softmax(query key^T * scale + mask) value`` over the last two dims (any leading
    batch dims broadcast); ``scale`` defaults to ``1/sqrt(E)``. A bool ``attn_mask`` marks the
    positions that take part; ``is_causal`` lets position i see positions up to i only."""
    for n, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor) or t.dim() < 2:
            raise RuntimeError(f"scaled_dot_product_attention: '{n}' must be a tensor of at "
                               "least 2 dimensions")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(f"scaled_dot_product_attention: the last dims of query and key must "
                           f"match, got {query.shape[-1]} and {key.shape[-1]}")
    L, S = query.shape[-2], key.shape[-2]
    s = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    scores = mul(matmul(query, key.transpose(-2, -1)), s)
    if is_causal:
        scores = masked_fill(scores, Tensor._make(~np.tril(np.ones((L, S), bool))),
                             float("-inf"))
    elif attn_mask is not None:
        if _bool(attn_mask):
            scores = masked_fill(scores, Tensor._make(~attn_mask._data), float("-inf"))
        else:
            scores = add(scores, attn_mask)
    w = softmax(scores, -1)
    if dropout_p > 0:
        w = nnf_dropout(w, dropout_p, True)
    return matmul(w, value)


def _check_mha(query, key, value, embed_dim, num_heads):
    for n, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor) or t.dim() not in (2, 3):
            raise RuntimeError(f"multi_head_attention_forward: '{n}' must be a 2-D (unbatched) "
                               f"or 3-D tensor")
    if query.shape[-1] != embed_dim:
        raise RuntimeError(f"was expecting embedding dimension of {embed_dim}, but got "
                           f"{query.shape[-1]}")
    if embed_dim % num_heads:
        raise RuntimeError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if key.shape[:-1] != value.shape[:-1]:
        raise RuntimeError(f"key shape {list(key.shape)} does not match value shape "
                           f"{list(value.shape)}")


def nnf_multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                     in_proj_weight, in_proj_bias, bias_k, bias_v,
                                     add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                     training=True, key_padding_mask=None, need_weights=True,
                                     attn_mask=None, avg_weights=True,
                                     use_separate_proj_weight=False, q_proj_weight=None,
                                     k_proj_weight=None, v_proj_weight=None, static_k=None,
                                     static_v=None, batch_first=False):
    """Multi-head attention on ``(L, N, E)`` query and ``(S, N, E_k)`` key/value (``(N, L, E)``
    with ``batch_first``; 2-d without a batch). Returns ``(output, weights)``: weights
    ``(N, L, S)`` averaged over heads (``avg_weights``), ``(N, H, L, S)`` otherwise, None
    unless ``need_weights``."""
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k and static_v are "
                                  "not supported")
    _check_mha(query, key, value, int(embed_dim_to_check), int(num_heads))
    unbatched = query.dim() == 2
    if unbatched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    elif batch_first:
        query, key, value = (t.transpose(0, 1) for t in (query, key, value))
    L, N, E = query.shape
    H = int(num_heads)
    hd = E // H
    if use_separate_proj_weight:
        wq, wk, wv = q_proj_weight, k_proj_weight, v_proj_weight
    else:
        wq, wk, wv = in_proj_weight[:E], in_proj_weight[E:2 * E], in_proj_weight[2 * E:]
    bq = bk = bv = None
    if in_proj_bias is not None:
        bq, bk, bv = in_proj_bias[:E], in_proj_bias[E:2 * E], in_proj_bias[2 * E:]
    q, k, v = _project(query, wq, bq), _project(key, wk, bk), _project(value, wv, bv)
    dt = q._data.dtype
    attn_mask = _float_mask(attn_mask, dt, "attn_mask")
    kpm = _float_mask(key_padding_mask, dt, "key_padding_mask")
    if attn_mask is not None and attn_mask.dim() == 2:
        attn_mask = attn_mask.unsqueeze(0)
    if bias_k is not None and bias_v is not None:
        k = cat([k, bias_k.expand(1, N, E)], 0)
        v = cat([v, bias_v.expand(1, N, E)], 0)
        attn_mask = None if attn_mask is None else _pad_last(attn_mask)
        kpm = None if kpm is None else _pad_last(kpm)
    S = k.shape[0]
    q = q.reshape(L, N * H, hd).transpose(0, 1)
    k = k.reshape(S, N * H, hd).transpose(0, 1)
    v = v.reshape(S, N * H, hd).transpose(0, 1)
    if add_zero_attn:
        z = torch_zeros(N * H, 1, hd, dtype=q.dtype)
        k, v = cat([k, z], 1), cat([v, z], 1)
        attn_mask = None if attn_mask is None else _pad_last(attn_mask)
        kpm = None if kpm is None else _pad_last(kpm)
        S += 1
    if attn_mask is not None and attn_mask.shape[-2:] != (L, S):
        raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape[-2:])}, "
                           f"but should be {(L, S)}.")
    if kpm is not None:
        if tuple(kpm.shape) != (N, S):
            raise RuntimeError(f"expecting key_padding_mask shape of {(N, S)}, but got "
                               f"{tuple(kpm.shape)}")
        kpm = kpm.reshape(N, 1, 1, S).expand(N, H, 1, S).reshape(N * H, 1, S)
        attn_mask = kpm if attn_mask is None else add(attn_mask, kpm)
    scores = matmul(mul(q, 1.0 / math.sqrt(hd)), k.transpose(1, 2))
    if attn_mask is not None:
        scores = add(scores, attn_mask)
    w = softmax(scores, -1)
    if training and dropout_p > 0:
        w = nnf_dropout(w, dropout_p, True)
    out = matmul(w, v).transpose(0, 1).reshape(L * N, E)
    out = _project(out, out_proj_weight, out_proj_bias).reshape(L, N, E)
    if unbatched:
        out = out.squeeze(1)
    elif batch_first:
        out = out.transpose(0, 1)
    if not need_weights:
        return out, None
    w = w.reshape(N, H, L, S)
    if avg_weights:
        w = w.mean(1)
    if unbatched:
        w = w.squeeze(0)
    return out, w


def _project(x, w, b):
    """``x w^T + b`` (the projections; ``nnf.nnf_linear`` sits above this module)."""
    out = matmul(x, w.t())
    return out if b is None else add(out, b)


def _pad_last(m):
    """A mask with one more column (the added key), which takes part."""
    return cat([m, torch_zeros(*m.shape[:-1], 1, dtype=m.dtype)], -1)
