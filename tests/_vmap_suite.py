"""Functions to vmap, one per batching-rule family, written once for rtorchpy and PyTorch: the
few functions whose names differ come from a namespace ``T`` (``rtorchpy_ns()``/``torch_ns()``);
the rest are tensor methods both share. Inputs are float64, fixed by a seed; integer inputs
(indices, class targets) are marked by their spec. ``record_vmap.py`` records PyTorch 2.13's
``torch.func.vmap`` values into ``fixtures/vmap_torch.json``."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

B = 3


def rtorchpy_ns():
    import rtorchpy as rt
    return SimpleNamespace(
        cat=rt.torch_cat, stack=rt.torch_stack, einsum=rt.torch_einsum, linear=rt.nnf_linear,
        relu=rt.nnf_relu, mse=rt.nnf_mse_loss, ce=rt.nnf_cross_entropy, nll=rt.nnf_nll_loss,
        bcel=rt.nnf_binary_cross_entropy_with_logits, det=rt.linalg_det, where=rt.torch_where,
        softplus=rt.nnf_softplus, log_softmax=rt.nnf_log_softmax, l1=rt.nnf_l1_loss,
        inv=rt.linalg_inv, conv2d=rt.nnf_conv2d, max_pool2d=rt.nnf_max_pool2d,
        layer_norm=rt.nnf_layer_norm)


def torch_ns():
    import torch
    fn = torch.nn.functional
    return SimpleNamespace(
        cat=torch.cat, stack=torch.stack, einsum=torch.einsum, linear=fn.linear, relu=fn.relu,
        mse=fn.mse_loss, ce=fn.cross_entropy, nll=fn.nll_loss,
        bcel=fn.binary_cross_entropy_with_logits, det=torch.linalg.det, where=torch.where,
        softplus=fn.softplus, log_softmax=fn.log_softmax, l1=fn.l1_loss, inv=torch.linalg.inv,
        conv2d=fn.conv2d, max_pool2d=fn.max_pool2d, layer_norm=fn.layer_norm)


# name: (function of (T, *inputs), input specs, in_dims). A spec is a shape (float) or
# ("int", shape, high) for integer inputs in [0, high).
CASES = {
    "elementwise_chain": (lambda T, x, y: (x.exp() * y).tanh() + x.sigmoid() - y / 3,
                          [(B, 4), (4,)], (0, None)),
    "elementwise_ranks": (lambda T, x, y: x * y + 1, [(B, 4), (2, B, 4)], (0, 1)),
    "where_clamp": (lambda T, x, y: T.where(x > 0, x, y).clamp(min=-0.5, max=0.7),
                    [(B, 2, 3), (3,)], (0, None)),
    "sum_all_mean_dim": (lambda T, x: (x.sum(), x.mean(1), x.sum(-1, keepdim=True)),
                         [(B, 2, 3)], 0),
    "softmax_logsumexp": (lambda T, x: (x.softmax(-1), x.log_softmax(0), x.logsumexp(1)),
                          [(B, 2, 3)], 0),
    "cumsum_var_norm": (lambda T, x: (x.cumsum(1), x.var(0), x.norm(), x.amax(-1)),
                        [(4, B, 3)], 1),
    "max_sort_topk": (lambda T, x: (x.max(1)[0], x.max(), x.sort(-1)[0], x.topk(2)[0],
                                    x.argmax()), [(B, 2, 4)], 0),
    "views": (lambda T, x: (x.transpose(0, 1), x.permute(1, 0).reshape(-1), x.view(3, 2),
                            x.flatten(), x.unsqueeze(1).squeeze(), x.expand(2, 2, 3), x.t()),
              [(B, 2, 3)], 0),
    "select_narrow_index": (lambda T, x, i: (x.select(1, 0), x.narrow(0, 1, 2),
                                             x.index_select(1, i), x[1:, ::2], x[:, i],
                                             x[..., 0]),
                            [(B, 3, 4), ("int", (2,), 3)], (0, None)),
    "gather_batched_index": (lambda T, x, i: x.gather(1, i), [(B, 2, 4), ("int", (B, 2, 3), 4)],
                             0),
    "cat_stack": (lambda T, x, y: (T.cat([x, y], 0), T.stack([x, y], -1)),
                  [(B, 2, 3), (2, 3)], (0, None)),
    "matmul_shapes": (lambda T, x, w, v: (x.matmul(w), w.t().matmul(x.t()), v.matmul(w),
                                          x.matmul(x.t()), v.matmul(v)),
                      [(B, 2, 3), (3, 4), (B, 3)], (0, None, 0)),
    "matmul_both_batched": (lambda T, a, b: (a.matmul(b), a.matmul(b[:, 0]), b.t().mv(a[0])),
                            [(B, 2, 3), (B, 3, 2)], 0),
    "einsum": (lambda T, a, b: T.einsum("ij,jk->ik", a, b), [(B, 2, 3), (3, 2)], (0, None)),
    "linear_layer": (lambda T, x, w, b: T.relu(T.linear(x, w, b)), [(B, 5), (4, 5), (4,)],
                     (0, None, None)),
    "linear_batched_weight": (lambda T, x, w, b: T.linear(x, w, b), [(B, 5), (B, 4, 5), (4,)],
                              (0, 0, None)),
    "mse_l1_bce": (lambda T, x, y: (T.mse(x, y), T.l1(x, y, reduction="sum"),
                                    T.bcel(x, y.sigmoid())), [(B, 2, 3), (2, 3)], (0, None)),
    "cross_entropy_nll": (lambda T, x, y: (T.ce(x, y), T.nll(T.log_softmax(x, 1), y),
                                           T.ce(x, y, reduction="none")),
                          [(B, 4, 5), ("int", (B, 4), 5)], 0),
    "cross_entropy_1d": (lambda T, x, y: T.ce(x, y), [(B, 5), ("int", (B,), 5)], 0),
    "conv_pool": (lambda T, x, w, y: (T.max_pool2d(T.conv2d(x, w, padding=1), 2),
                                      T.conv2d(y, w)), [(B, 2, 1, 4, 4), (3, 1, 3, 3),
                                                        (1, B, 5, 5)], (0, None, 1)),
    "layer_norm": (lambda T, x, w, b: (T.layer_norm(x, (3,), w, b), T.layer_norm(x, (2, 3))),
                   [(B, 2, 3), (B, 3), (3,)], (0, 0, None)),
    "linalg_fallback": (lambda T, x: (T.det(x), T.inv(x) + 1), [(B, 3, 3)], 0),
}


def inputs(name):
    """The inputs of case ``name`` as NumPy arrays (float64, or int64 for index specs)."""
    rng = np.random.default_rng(sum(map(ord, name)))
    out = []
    for spec in CASES[name][1]:
        if spec and spec[0] == "int":
            out.append(rng.integers(0, spec[2], spec[1]).astype(np.int64))
        else:
            out.append(rng.standard_normal(spec))
    return out


def mlp_loss(T, w1, b1, w2, x, y):
    """A per-example loss for vmap(grad): a tanh layer and a squared error."""
    h = T.linear(x, w1, b1).tanh()
    return ((h.matmul(w2) - y) ** 2).sum()


def mlp_inputs():
    rng = np.random.default_rng(7)
    return [rng.standard_normal(s) for s in ((4, 3), (4,), (4,), (B, 3), (B,))]
