"""Rprop and averaged SGD (R torch's ``optim_rprop`` and ``optim_asgd``)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.graph import bump_version
from ..dtypes import torch_get_default_dtype
from ..tensor import Tensor
from .optimizer import Closure, Optimizer, ParamsLike, check_number

__all__ = ["optim_rprop", "optim_asgd"]


def _pair(name: str, value: Any) -> tuple[float, float]:
    try:
        a, b = (float(v) for v in value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be two numbers, got {value!r}") from None
    return a, b


class optim_rprop(Optimizer):
    """Resilient backpropagation: ``optim_rprop(params, lr = 0.01, etas = c(0.5, 1.2),
    step_sizes = c(1e-6, 50))``.

    Each element has its own step size, started at ``lr``; at every step it is multiplied by
    ``etas[2]`` when the gradient kept its sign since the last step, by ``etas[1]`` when the
    sign flipped (and that element is not moved, its remembered gradient set to 0), and kept
    otherwise, then clamped to ``step_sizes``; the parameter moves by ``-sign(g) * step size``.
    State per parameter: ``step``, ``prev`` (the last gradient used) and ``step_size``.
    """

    def __init__(self, params: ParamsLike, lr: float = 0.01, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50)) -> None:
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes)
        super().__init__(params, defaults)

    def _check_group(self, group: dict[str, Any]) -> None:
        super()._check_group(group)
        minus, plus = group["etas"] = _pair("etas", group["etas"])
        if not 0.0 < minus < 1.0 < plus:
            raise ValueError(f"Invalid eta values: {minus}, {plus}")
        group["step_sizes"] = _pair("step_sizes", group["step_sizes"])

    def step(self, closure: Closure | None = None) -> Any:
        """One Rprop step (see the class documentation); returns the closure's loss, if any."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            minus, plus = group["etas"]
            lo, hi = group["step_sizes"]
            for p, d, g in self._params_with_grad(group):
                st = self.state[p]
                if not st:
                    st["step"] = 0
                    st["prev"] = Tensor._make(np.zeros_like(d))
                    st["step_size"] = Tensor._make(np.full_like(d, group["lr"]))
                st["step"] = int(st["step"]) + 1
                prev, size = st["prev"]._data, st["step_size"]._data
                s = np.sign(g * prev)
                factor = np.where(s > 0, plus, np.where(s < 0, minus, 1.0)).astype(d.dtype)
                size *= factor
                np.clip(size, lo, hi, out=size)
                g = np.where(s < 0, 0, g).astype(d.dtype, copy=False)
                d -= np.sign(g) * size
                prev[...] = g
                bump_version(p)
        return loss


def _scalar(v: Any) -> float:
    """``v`` as PyTorch's ASGD keeps it: in a tensor of the default dtype (float32 rounding)."""
    return float(np.asarray(v, dtype=torch_get_default_dtype().numpy))


class optim_asgd(Optimizer):
    """Averaged stochastic gradient descent: ``optim_asgd(params, lr = 0.01, lambda = 1e-4,
    alpha = 0.75, t0 = 1e6, weight_decay = 0)``.

    PyTorch's update at step ``t``: ``p = p * (1 - lambda * eta) - eta * g`` (``g`` with
    ``weight_decay * p`` added), then the average ``ax`` moves towards ``p`` by ``mu``
    (``ax = p`` while ``mu`` is 1); afterwards ``eta = lr / (1 + lambda * lr * t)^alpha`` and
    ``mu = 1 / max(1, t - t0)``. State per parameter: ``step``, ``eta``, ``mu``, ``ax``.
    """

    def __init__(self, params: ParamsLike, lr: float = 0.01, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0) -> None:
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay)
        super().__init__(params, defaults)

    def _check_group(self, group: dict[str, Any]) -> None:
        super()._check_group(group)
        check_number("lambd", group["lambd"])
        check_number("alpha", group["alpha"])
        check_number("t0", group["t0"])
        check_number("weight_decay", group["weight_decay"], low=0)

    def step(self, closure: Closure | None = None) -> Any:
        """One ASGD step (see the class documentation); returns the closure's loss, if any."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr, lambd, alpha = group["lr"], group["lambd"], group["alpha"]
            t0, wd = group["t0"], group["weight_decay"]
            for p, d, g in self._params_with_grad(group):
                st = self.state[p]
                if not st:
                    st.update(step=0, eta=_scalar(lr), mu=1.0, ax=Tensor._make(np.zeros_like(d)))
                step = st["step"] = int(st["step"]) + 1
                if wd != 0:
                    g = self._decayed(d, g, wd, 0)
                eta = st["eta"]
                d *= 1 - lambd * eta
                d -= eta * g
                ax = st["ax"]._data
                if st["mu"] != 1:
                    ax += (d - ax) * st["mu"]
                else:
                    ax[...] = d
                st["eta"] = _scalar(lr / ((1 + lambd * lr * step) ** alpha))
                st["mu"] = _scalar(1 / max(1, step - t0))
                bump_version(p)
        return loss
