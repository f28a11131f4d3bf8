"""Adadelta."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.graph import bump_version
from ..tensor import Tensor
from .optimizer import Closure, Optimizer, ParamsLike, check_number

__all__ = ["optim_adadelta"]


class optim_adadelta(Optimizer):
    """Adadelta: ``optim_adadelta(params, lr = 1, rho = 0.9, eps = 1e-06, weight_decay = 0)``.

    PyTorch's update, for each parameter ``p`` with gradient ``g``::

        g = g + weight_decay * p                       (if weight_decay != 0)
        v = rho * v + (1 - rho) * g * g                (square_avg)
        delta = sqrt(u + eps) / sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta * delta        (acc_delta)
        p = p - lr * delta

    State per parameter: ``step``, ``square_avg``, ``acc_delta``. ``step(closure)`` calls
    ``closure()`` first (with grad mode on) and returns its loss.
    """

    def __init__(self, params: ParamsLike, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-06,
                 weight_decay: float = 0) -> None:
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay)
        super().__init__(params, defaults)

    def _check_group(self, group: dict[str, Any]) -> None:
        super()._check_group(group)
        check_number("rho", group["rho"], low=0, high=1, message="Invalid rho value: {}")
        check_number("eps", group["eps"], low=0, message="Invalid epsilon value: {}")
        check_number("weight_decay", group["weight_decay"], low=0)

    def step(self, closure: Closure | None = None) -> Any:
        """One Adadelta step (see the class documentation); returns the closure's loss, if
        any."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr = group["lr"]
            rho = group["rho"]
            eps = group["eps"]
            wd = group["weight_decay"]
            for p, d, g in self._params_with_grad(group):
                st = self.state[p]
                if not st:
                    st["step"] = 0
                    st["square_avg"] = Tensor._make(np.zeros_like(d))
                    st["acc_delta"] = Tensor._make(np.zeros_like(d))
                st["step"] = int(st["step"]) + 1
                if wd != 0:
                    g = self._decayed(d, g, wd, 3)
                v = st["square_avg"]._data
                u = st["acc_delta"]._data
                v *= rho
                tmp = np.multiply(g, 1 - rho, out=self._scratch(d, 0))
                tmp *= g
                v += tmp
                std = np.add(v, eps, out=self._scratch(d, 1))
                np.sqrt(std, out=std)
                delta = np.add(u, eps, out=self._scratch(d, 2))
                np.sqrt(delta, out=delta)
                delta /= std
                delta *= g
                u *= rho
                np.multiply(delta, 1 - rho, out=tmp)
                tmp *= delta
                u += tmp
                delta *= lr
                d -= delta
                bump_version(p)
        return loss
