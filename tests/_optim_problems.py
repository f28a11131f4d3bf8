"""Small float64 problems run the same way on rtorchpy and on PyTorch (tests/test_optim.py).

``make(lib, problem)`` returns ``(params, loss_fn)`` for ``lib`` "rtorchpy" or "torch";
``run(lib, opt_name, kwargs, problem, n_steps, groups)`` runs the optimizer and returns the
parameters' values after every step (flattened, concatenated, as float lists).
"""
from __future__ import annotations

import numpy as np

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7], [-0.2, 0.8, 1.1], [1.0, 1.0, -1.0],
              [0.7, -0.4, 0.25], [-1.3, 0.6, 0.9], [0.1, -0.9, -0.5], [2.0, 0.2, 0.4]])
Y = np.array([[1.0, -0.5], [0.2, 0.8], [-0.6, 1.2], [0.9, 0.1], [0.3, -0.2], [-1.1, 0.4],
              [0.5, 0.7], [1.6, -0.9]])
A = np.array([1.0, 3.0, 0.5])
B = np.array([-1.0, 0.5, 2.0])

TORCH_NAMES = {"optim_sgd": "SGD", "optim_adam": "Adam", "optim_adamw": "AdamW",
               "optim_rmsprop": "RMSprop", "optim_adagrad": "Adagrad",
               "optim_adadelta": "Adadelta", "optim_lbfgs": "LBFGS"}


def _tensor(lib, values):
    if lib == "torch":
        import torch
        return torch.tensor(values, dtype=torch.float64, requires_grad=True)
    import rtorchpy
    return rtorchpy.torch_tensor(values, dtype=rtorchpy.torch_float64(), requires_grad=True)


def _const(lib, values):
    if lib == "torch":
        import torch
        return torch.tensor(values, dtype=torch.float64)
    import rtorchpy
    return rtorchpy.torch_tensor(values, dtype=rtorchpy.torch_float64())


def make(lib, problem):
    if problem == "quadratic":
        x = _tensor(lib, [1.0, -2.0, 0.5])
        a, b = _const(lib, A), _const(lib, B)

        def loss():
            return (a * x * x * 0.5 + b * x).sum()
        return [x], loss
    if problem == "rosenbrock":
        x = _tensor(lib, [-1.2, 1.0])

        def loss():
            return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        return [x], loss
    if problem == "linreg":
        w = _tensor(lib, [[0.1, -0.2], [0.3, 0.05], [-0.4, 0.2]])
        b = _tensor(lib, [0.0, 0.1])
        xs, ys = _const(lib, X), _const(lib, Y)

        def loss():
            return ((xs.matmul(w) + b - ys) ** 2).mean()
        return [w, b], loss
    raise ValueError(problem)


def make_optimizer(lib, opt_name, kwargs, params, groups):
    if groups is not None:  # one group per parameter, each with its own options
        spec = [dict(g, params=[p]) for g, p in zip(groups, params)]
    else:
        spec = params
    if lib == "torch":
        import torch
        kw = dict(kwargs)
        if opt_name != "optim_lbfgs":
            kw["foreach"] = False
        return getattr(torch.optim, TORCH_NAMES[opt_name])(spec, **kw)
    import rtorchpy
    return getattr(rtorchpy, opt_name)(spec, **kwargs)


def flat(lib, params):
    if lib == "torch":
        return np.concatenate([p.detach().numpy().ravel() for p in params]).tolist()
    return np.concatenate([p.detach().numpy().ravel() for p in params]).tolist()


def run(lib, opt_name, kwargs, problem, n_steps, groups=None):
    params, loss_fn = make(lib, problem)
    opt = make_optimizer(lib, opt_name, kwargs, params, groups)
    out = []

    def closure():
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss

    for _ in range(n_steps):
        opt.step(closure)
        out.append(flat(lib, params))
    return out
