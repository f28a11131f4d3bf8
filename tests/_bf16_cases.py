"""bfloat16 cases run the same way on PyTorch (``record_bf16.py`` records them into
``fixtures/bf16_torch.json``) and on rtorchpy (``test_bf16.py`` compares). Each case is a
function of a namespace ``N`` (``N.t(values, dtype_name)`` makes a tensor, ``N.dt(name)`` gives a
dtype) returning a tensor or a tuple of tensors; the autograd cases return gradients."""
from __future__ import annotations

import numpy as np

_rng = np.random.default_rng(33)
A = np.round(_rng.normal(size=(3, 4)) * 3, 6).tolist()
B = np.round(_rng.normal(size=(3, 4)) * 3, 6).tolist()
W = np.round(_rng.normal(size=(4, 2)), 6).tolist()
POS = np.round(_rng.uniform(0.1, 9.0, size=(2, 5)), 6).tolist()
V = [1.5, 2.123, 0.1, -3.3e38, 3.39e38, 1e-40, -7.0, 1.00390625, 1.01171875]


def _bf(N, v):
    return N.t(v, "bfloat16")


CASES = {
    # creation and conversion
    "tensor": lambda N: _bf(N, V),
    "from_float64": lambda N: N.t(V, "float64").to(dtype=N.dt("bfloat16")),
    "back_to_float32": lambda N: _bf(N, A).to(dtype=N.dt("float32")),
    "back_to_float64": lambda N: _bf(N, A).to(dtype=N.dt("float64")),
    "method": lambda N: N.t(A, "float32").bfloat16(),
    "to_int": lambda N: _bf(N, A).to(dtype=N.dt("int64")),
    "ones": lambda N: N.ones((2, 3)),
    "full": lambda N: N.full((2, 2), 0.1),
    "arange": lambda N: N.arange(0, 1, 0.1),
    "linspace": lambda N: N.linspace(0, 1, 7),
    # arithmetic
    "add": lambda N: _bf(N, A) + _bf(N, B),
    "sub": lambda N: _bf(N, A) - _bf(N, B),
    "mul": lambda N: _bf(N, A) * _bf(N, B),
    "div": lambda N: _bf(N, A) / _bf(N, B),
    "mul_scalar": lambda N: _bf(N, A) * 0.1,
    "add_scalar": lambda N: _bf(N, A) + 1.7,
    "int_scalar": lambda N: _bf(N, A) * 3,
    "rdiv_scalar": lambda N: 1.0 / _bf(N, A),
    "pow2": lambda N: _bf(N, A) ** 2,
    "neg_abs": lambda N: (-_bf(N, A)).abs(),
    # math
    "exp": lambda N: _bf(N, A).exp(),
    "log": lambda N: _bf(N, POS).log(),
    "sqrt": lambda N: _bf(N, POS).sqrt(),
    "sin": lambda N: _bf(N, A).sin(),
    "cos": lambda N: _bf(N, A).cos(),
    "tanh": lambda N: _bf(N, A).tanh(),
    "sigmoid": lambda N: _bf(N, A).sigmoid(),
    "matmul": lambda N: _bf(N, A).matmul(_bf(N, W)),
    # reductions
    "sum": lambda N: _bf(N, A).sum(),
    "mean": lambda N: _bf(N, A).mean(),
    "sum_dim": lambda N: _bf(N, A).sum(dim=1),
    "mean_dim": lambda N: _bf(N, A).mean(dim=0),
    "max": lambda N: _bf(N, A).max(),
    "var": lambda N: _bf(N, A).var(1),
    "cumsum": lambda N: _bf(N, A).cumsum(1),
    "logsumexp": lambda N: _bf(N, A).logsumexp(1),
    "softmax": lambda N: _bf(N, A).softmax(1),
    "relu": lambda N: _bf(N, A).relu(),
    # comparisons
    "gt": lambda N: _bf(N, A) > _bf(N, B),
    "eq_scalar": lambda N: _bf(N, V) == 2.125,
    # promotion
    "with_float16": lambda N: _bf(N, A) + N.t(B, "float16"),
    "with_float32": lambda N: _bf(N, A) + N.t(B, "float32"),
    "with_float64": lambda N: _bf(N, A) + N.t(B, "float64"),
    "with_int64": lambda N: _bf(N, A) + N.t([[1, 2, 3, 4]], "int64"),
    "with_bool": lambda N: _bf(N, A) * N.t([[True, False, True, True]], "bool"),
    "zero_dim_bf16_float32": lambda N: _bf(N, 1.1) + N.t(B, "float32"),
    "bf16_zero_dim_float32": lambda N: _bf(N, A) + N.t(1.1, "float32"),
    "zero_dim_both": lambda N: _bf(N, 1.1) + N.t(2.3, "float32"),
    "zero_dim_bf16_int": lambda N: _bf(N, 1.1) * N.t([1, 2, 3], "int64"),
    "zero_dim_bf16_float16": lambda N: _bf(N, 1.1) + N.t(B, "float16"),
}


def _grads(N, f, *values):
    xs = [_bf(N, v).requires_grad_(True) for v in values]
    f(*xs).backward()
    return tuple(x.grad for x in xs)


GRAD_CASES = {
    "grad_mul": lambda N: _grads(N, lambda x, y: (x * y).sum(), A, B),
    "grad_exp_mul": lambda N: _grads(N, lambda x, y: (x.exp() * y).sum(), A, B),
    "grad_matmul_tanh": lambda N: _grads(N, lambda x, w: x.matmul(w).tanh().mean(), A, W),
    "grad_reuse": lambda N: _grads(N, lambda x: (x * x).sum() + x.sin().sum() * 0.3, A),
    "grad_div_log": lambda N: _grads(N, lambda x, y: (x.log() / (y * y + 1.0)).sum(), POS,
                                     POS[::-1]),
}
