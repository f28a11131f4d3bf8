"""Adagrad."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.graph import bump_version
from ..tensor import Tensor
from .optimizer import Closure, Optimizer, ParamsLike, check_number

__all__ = ["optim_adagrad"]


class optim_adagrad(Optimizer):
    """Adagrad: ``optim_adagrad(params, lr = 0.01, lr_decay = 0, weight_decay = 0,
    initial_accumulator_value = 0, eps = 1e-10)``.

    PyTorch's update, at step ``t`` for each parameter ``p`` with gradient ``g``::

        g = g + weight_decay * p                      (if weight_decay != 0)
        clr = lr / (1 + (t - 1) * lr_decay)
        s = s + g * g                                 (sum; starts at initial_accumulator_value)
        p = p - clr * g / (sqrt(s) + eps)

    State per parameter: ``step`` and ``sum`` (created with the optimizer, as in PyTorch).
    ``step(closure)`` calls ``closure()`` first (with grad mode on) and returns its loss.
    """

    def __init__(self, params: ParamsLike, lr: float = 0.01, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10) -> None:
        defaults = dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, eps=eps)
        super().__init__(params, defaults)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a parameter group (see :meth:`Optimizer.add_param_group`); its parameters'
        ``sum`` starts at the group's ``initial_accumulator_value``."""
        super().add_param_group(param_group)
        self._init_state(self.param_groups[-1])

    def _init_state(self, group: dict[str, Any]) -> None:
        for p in group["params"]:
            st = self.state[p]
            if not st:
                st["step"] = 0
                st["sum"] = Tensor._make(
                    np.full_like(p._data, group["initial_accumulator_value"]))

    def _check_group(self, group: dict[str, Any]) -> None:
        super()._check_group(group)
        check_number("lr_decay", group["lr_decay"], low=0)
        check_number("weight_decay", group["weight_decay"], low=0)
        check_number("initial_accumulator_value", group["initial_accumulator_value"], low=0)
        check_number("eps", group["eps"], low=0, message="Invalid epsilon value: {}")

    def step(self, closure: Closure | None = None) -> Any:
        """One Adagrad step (see the class documentation); returns the closure's loss, if any."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr = group["lr"]
            lr_decay = group["lr_decay"]
            wd = group["weight_decay"]
            eps = group["eps"]
            for p, d, g in self._params_with_grad(group):
                st = self.state[p]
                if not st:
                    self._init_state(group)
                step = st["step"] = int(st["step"]) + 1
                if wd != 0:
                    g = self._decayed(d, g, wd, 2)
                clr = lr / (1 + (float(step) - 1) * lr_decay)
                s = st["sum"]._data
                tmp = np.multiply(g, g, out=self._scratch(d, 0))
                s += tmp
                std = np.sqrt(s, out=self._scratch(d, 1))
                std += eps
                np.multiply(g, -clr, out=tmp)
                tmp /= std
                d += tmp
                bump_version(p)
        return loss
