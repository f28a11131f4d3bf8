"""Stochastic gradient descent, with momentum, dampening, Nesterov momentum and weight decay."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.graph import bump_version
from ..tensor import Tensor
from .optimizer import Closure, Optimizer, ParamsLike, check_flag, check_number, optim_required

__all__ = ["optim_sgd"]


class optim_sgd(Optimizer):
    """SGD: ``optim_sgd(params, lr, momentum = 0, dampening = 0, weight_decay = 0,
    nesterov = FALSE)``.

    ``lr`` has no default (as in R torch). The update is PyTorch's, for each parameter ``p``
    with gradient ``g``::

        g = g + weight_decay * p                       (if weight_decay != 0)
        buf = g  (first step),  buf = momentum * buf + (1 - dampening) * g  (later)
        g = g + momentum * buf  (nesterov)   or   g = buf                   (if momentum != 0)
        p = p - lr * g

    State per parameter: ``momentum_buffer`` (when ``momentum != 0``). Parameters whose
    ``grad`` is ``None`` are skipped. ``step(closure)`` calls ``closure()`` first (with grad
    mode on) and returns its loss.
    """

    def __init__(self, params: ParamsLike, lr: float = optim_required(), momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False) -> None:
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov)
        super().__init__(params, defaults)

    def _check_group(self, group: dict[str, Any]) -> None:
        super()._check_group(group)
        check_number("momentum", group["momentum"], low=0)
        check_number("dampening", group["dampening"])
        check_number("weight_decay", group["weight_decay"], low=0)
        check_flag("nesterov", group["nesterov"])
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")

    def step(self, closure: Closure | None = None) -> Any:
        """One SGD step (see the class documentation); returns the closure's loss, if any."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr = group["lr"]
            momentum = group["momentum"]
            dampening = group["dampening"]
            wd = group["weight_decay"]
            nesterov = group["nesterov"]
            for p, d, g in self._params_with_grad(group):
                fresh = False  # whether g is a temporary this step may scale in place
                if wd != 0:
                    g = self._decayed(d, g, wd, 0)
                    fresh = True
                if momentum != 0:
                    st = self.state[p]
                    buf = st.get("momentum_buffer")
                    if buf is None:
                        b = np.array(g, dtype=d.dtype)
                        st["momentum_buffer"] = Tensor._make(b)
                    else:
                        b = buf._data
                        b *= momentum
                        if dampening == 0:
                            b += g
                        else:
                            b += g * (1 - dampening)
                    if nesterov:
                        nudged = np.multiply(b, momentum, out=self._scratch(d, 1))
                        nudged += g
                        g = nudged
                        fresh = True
                    else:
                        g = b
                        fresh = False
                if fresh:
                    g *= lr
                    d -= g
                else:
                    d -= np.multiply(g, lr, out=self._scratch(d, 1))
                bump_version(p)
        return loss

