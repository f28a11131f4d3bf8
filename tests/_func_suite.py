"""A suite of small functions of one vector written twice, with rtorchpy and with PyTorch, for
the function-transform tests (``test_func_transforms.py``) and the recorder
(``record_func_transforms.py``). Each maps a float64 vector of length N to a vector or a
scalar; the constants are fixed so that recorded values stay valid."""
from __future__ import annotations

import numpy as np

N = 6
_rng = np.random.default_rng(35)
W = _rng.standard_normal((N, N)) / 2
B = _rng.standard_normal(N) / 2
A = _rng.standard_normal((N, N)) + N * np.eye(N)   # well conditioned
TARGET = _rng.standard_normal(N)
LABEL = 2
POINT = _rng.uniform(0.2, 1.2, N)                  # where every function is evaluated
TANGENT = _rng.standard_normal(N)
BATCH = _rng.uniform(0.2, 1.2, (3, N))


def suite(ns, nnf, linalg, const):
    """name -> f(x). ``ns`` provides tensor functions, ``nnf`` nn functional, ``linalg`` the
    linear algebra, ``const`` turns an array into a constant tensor."""
    w, b, a, tgt = const(W), const(B), const(A), const(TARGET)
    return {
        "elementwise_chain": lambda x: (x.sin() * x.exp() + x.log()).tanh() / (1 + x * x),
        "pow_sqrt_sigmoid": lambda x: x.pow(3).sqrt().sigmoid() - x.abs().pow(1.5),
        "matmul_tanh_mlp": lambda x: w.matmul(w.matmul(x).tanh() + b).tanh(),
        "reductions": lambda x: ns.stack([x.sum(), (x * x).mean(), x.prod(), x.exp().logsumexp(0),
                                          x.norm(), x.std()]),
        "indexing": lambda x: x[1:4] * x[[0, 2, 5]] + x.flip(0)[:3].cumsum(0),
        "reshape_permute": lambda x: (x.reshape(2, 3).t().matmul(x.reshape(2, 3)) ** 2).reshape(-1),
        "linalg_solve_det": lambda x: ns.cat([linalg.solve(a + x.diag(), x),
                                              linalg.det(a + x.outer(x)).reshape(1)]),
        "linalg_inv_cholesky": lambda x: linalg.cholesky(a.matmul(a.t()) + x.diag()).sum(0)
        + linalg.inv(a + x.diag()).diagonal(),
        "nn_layers": lambda x: nnf.layer_norm(nnf.linear(x, w, b).reshape(2, 3), [3]).reshape(-1)
        + nnf.softplus(x) + nnf.gelu(x),
        "losses": lambda x: ns.stack([nnf.mse_loss(x, tgt), nnf.cross_entropy(x.reshape(1, -1),
                                                                              ns.label),
                                      nnf.binary_cross_entropy_with_logits(x, x.sigmoid()
                                                                           .detach())]),
        "softmax_logsoftmax": lambda x: nnf.softmax(x, 0) * nnf.log_softmax(x * x, 0),
        "scalar_logistic": lambda x: (nnf.softplus(w.matmul(x)) - b * w.matmul(x)).sum(),
    }


def rtorchpy_suite():
    import rtorchpy as rt

    class NS:
        stack = staticmethod(lambda ts: rt.torch_stack(ts))
        cat = staticmethod(lambda ts: rt.torch_cat(ts))
        label = rt.torch_tensor([LABEL], dtype=rt.torch_long())

    class NNF:
        layer_norm = staticmethod(rt.nnf_layer_norm)
        linear = staticmethod(rt.nnf_linear)
        softplus = staticmethod(rt.nnf_softplus)
        gelu = staticmethod(rt.nnf_gelu)
        mse_loss = staticmethod(rt.nnf_mse_loss)
        cross_entropy = staticmethod(rt.nnf_cross_entropy)
        binary_cross_entropy_with_logits = staticmethod(rt.nnf_binary_cross_entropy_with_logits)
        softmax = staticmethod(lambda x, d: rt.nnf_softmax(x, dim=d))
        log_softmax = staticmethod(lambda x, d: rt.nnf_log_softmax(x, dim=d))

    class LA:
        solve = staticmethod(rt.linalg_solve)
        det = staticmethod(rt.linalg_det)
        cholesky = staticmethod(rt.linalg_cholesky)
        inv = staticmethod(rt.linalg_inv)

    return suite(NS, NNF, LA, lambda arr: rt.torch_tensor(arr, dtype=rt.torch_float64()))


def torch_suite():
    import torch
    import torch.nn.functional as tnf

    class NS:
        stack = staticmethod(torch.stack)
        cat = staticmethod(torch.cat)
        label = torch.tensor([LABEL])

    class NNF:
        layer_norm = staticmethod(tnf.layer_norm)
        linear = staticmethod(tnf.linear)
        softplus = staticmethod(tnf.softplus)
        gelu = staticmethod(tnf.gelu)
        mse_loss = staticmethod(tnf.mse_loss)
        cross_entropy = staticmethod(tnf.cross_entropy)
        binary_cross_entropy_with_logits = staticmethod(tnf.binary_cross_entropy_with_logits)
        softmax = staticmethod(lambda x, d: tnf.softmax(x, dim=d))
        log_softmax = staticmethod(lambda x, d: tnf.log_softmax(x, dim=d))

    return suite(NS, NNF, torch.linalg, lambda arr: torch.tensor(arr, dtype=torch.float64))
