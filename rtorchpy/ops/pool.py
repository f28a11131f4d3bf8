"""Pooling: ``nnf_max_pool1d/2d/3d`` and ``nnf_avg_pool1d/2d/3d``.

Both take the windows of the padded input as a strided view (``numerics/conv.py``'s layout), no
loop over positions. Max pooling records the flat index of each window's maximum in its
(unpadded) input plane (``return_indices = TRUE`` returns them) and its gradient adds ``g`` back
at those indices (``MaxPool2DWithIndicesBackward0``); average pooling's gradient is the
transposed convolution of ``g / divisor`` with a kernel of ones (``AvgPool2DBackward0``), so
both gradients are recorded ops again under ``create_graph``. The 1-d forms pool an input with a
unit dim added and removed, as libtorch does (their node is ``SqueezeBackward1``).
"""
from __future__ import annotations


from ..autograd.record import record
from ..autograd.rows import NODES
from ..derivatives import pool as _derivatives_pool  # noqa: F401  (registers the rows)
from ..numerics import pool as pool_arrays
from ..numerics.format import type_word_for
from .conv import _tuple
from .registry import as_tensor, recording, wrap

__all__ = ["nnf_max_pool1d", "nnf_max_pool2d", "nnf_max_pool3d", "nnf_avg_pool1d",
           "nnf_avg_pool2d", "nnf_avg_pool3d"]


def _arguments(input, nd, kernel_size, stride, padding, dilation, ceil_mode, what):
    input = as_tensor(input)
    if input.ndim not in (nd + 1, nd + 2) or input.numel() == 0:
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for "
                           "input")
    dt = input._data.dtype
    if dt.kind != "f":
        raise RuntimeError(f'"{what}" not implemented for \'{type_word_for(dt)}\'')
    kernel = _tuple(kernel_size, nd, "kernel_size")
    stride = kernel if stride is None or (not isinstance(stride, (int, float)) and
                                          len(stride) == 0) else _tuple(stride, nd, "stride")
    padding, dilation = _tuple(padding, nd, "padding"), _tuple(dilation, nd, "dilation")
    if any(k <= 0 for k in kernel):
        raise RuntimeError("kernel size should be greater than zero")
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero, but got " + " ".join(
            f"dilation{n}: {d}" for n, d in zip("TDHW"[-nd:] if nd < 3 else "THW", dilation)))
    for k, p, d in zip(kernel, padding, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    sizes = input.shape[-nd:]
    out = pool_arrays.out_sizes(sizes, kernel, stride, padding, dilation, bool(ceil_mode))
    if any(o <= 0 for o in out) and what == "max_pool1d":
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {min(out)}")
    if any(o <= 0 for o in out):
        lead = input.shape[-nd - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (lead,) + sizes))}). "
                           f"Calculated output size: ({'x'.join(map(str, (lead,) + out))}). "
                           "Output size is too small")
    return input, kernel, stride, padding, dilation, out


def _batch_view(data, nd):
    """The array with a batch dim (libtorch pools an unbatched input without one in the
    graph: the node sees the input as it is)."""
    return data if data.ndim == nd + 2 else data[None]


def _unbatch(data, input, nd):
    return data if input.ndim == nd + 2 else data[0]


def _max_pool(input, nd, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
              name):
    input, kernel, stride, padding, dilation, out = _arguments(
        input, nd, kernel_size, stride, padding, dilation, ceil_mode, name)

    values, indices = pool_arrays.max_pool(_batch_view(input._data, nd), kernel, stride,
                                           padding, dilation, out)
    values, indices = _unbatch(values, input, nd), _unbatch(indices, input, nd)
    res = wrap(values)
    if recording(input):
        record(NODES[f"MaxPool{nd}DWithIndicesBackward0"], (input,), (res,),
               params=(indices, input.shape, nd))
    return (res, wrap(indices)) if return_indices else res


def _avg_pool(input, nd, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override, name):
    input, kernel, stride, padding, _, out = _arguments(
        input, nd, kernel_size, stride, padding, 1, ceil_mode, name)
    if divisor_override is not None and int(divisor_override) == 0:
        raise RuntimeError("divisor must be not zero")
    divisor = pool_arrays.avg_divisors(input.shape[-nd:], kernel, stride, padding, out,
                                       bool(count_include_pad), divisor_override)

    res = wrap(_unbatch(pool_arrays.avg_pool(_batch_view(input._data, nd), kernel, stride,
                                             padding, out, divisor), input, nd))
    if recording(input):
        record(NODES[f"AvgPool{nd}DBackward0"], (input,), (res,),
               params=(kernel, stride, padding, divisor, input.shape))
    return res


def _one_d(fn, input, *args):
    """A 1-d pooling as the 2-d one over ``input`` with a unit dim before its last."""
    input = as_tensor(input)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"max_pool1d() Expected 2D or 3D input tensor, but got "
                           f"{list(input.shape)}")
    res = fn(input.unsqueeze(-2), *args)
    if isinstance(res, tuple):
        return tuple(r.squeeze(-2) for r in res)
    return res.squeeze(-2)


def _pair(v, first):
    """A 1-d argument widened to 2-d (``first`` for the added unit dim)."""
    if v is None:
        return None
    v = _tuple(v, 1, "kernel_size") if not isinstance(v, tuple) or len(v) == 1 else v
    return (first,) + tuple(v)


def nnf_max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                   return_indices=False):
    """The maximum of each window of ``input`` (N, C, L) or (C, L); see ``nnf_max_pool2d``."""
    return _one_d(lambda x, *a: _max_pool(x, 2, *a, "max_pool1d"), input,
                  _pair(kernel_size, 1), _pair(stride, 1) if stride is not None else None,
                  _pair(padding, 0), _pair(dilation, 1), ceil_mode, return_indices)


def nnf_max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                   return_indices=False):
    """The maximum of each ``kernel_size`` window of ``input`` (N, C, H, W) or (C, H, W),
    windows ``stride`` apart (default: ``kernel_size``), the input padded by ``padding``
    (never chosen: -inf), window elements ``dilation`` apart; ``ceil_mode`` keeps a last,
    partial window. ``return_indices``: also the flat index of each maximum in its input
    plane (0-based in Python; R: 1-based), for ``nnf_max_unpool2d``."""
    return _max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices, "max_pool2d")


def nnf_max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                   return_indices=False):
    """3-d max pooling of ``input`` (N, C, D, H, W); see ``nnf_max_pool2d``."""
    return _max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices, "max_pool3d")


def nnf_avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
                   count_include_pad=True):
    """The mean of each window of ``input`` (N, C, L) or (C, L); see ``nnf_avg_pool2d``."""
    return _one_d(lambda x, *a: _avg_pool(x, 2, *a, None, "avg_pool1d"), input,
                  _pair(kernel_size, 1), _pair(stride, 1) if stride is not None else None,
                  _pair(padding, 0), ceil_mode, count_include_pad)


def nnf_avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
                   count_include_pad=True, divisor_override=None):
    """The mean of each ``kernel_size`` window of ``input`` (N, C, H, W) or (C, H, W).
    ``count_include_pad = FALSE`` divides by the number of input elements in the window (not
    the padding); ``divisor_override`` divides every window's sum by that number instead."""
    return _avg_pool(input, 2, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, "avg_pool2d")


def nnf_avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
                   count_include_pad=True, divisor_override=None):
    """3-d average pooling of ``input`` (N, C, D, H, W); see ``nnf_avg_pool2d``."""
    return _avg_pool(input, 3, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, "avg_pool3d")

