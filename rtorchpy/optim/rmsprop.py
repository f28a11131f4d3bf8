"""RMSprop, with momentum and the centered variant."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.graph import bump_version
from ..tensor import Tensor
from .optimizer import Closure, Optimizer, ParamsLike, check_flag, check_number

__all__ = ["optim_rmsprop"]


class optim_rmsprop(Optimizer):
    """RMSprop: ``optim_rmsprop(params, lr = 0.01, alpha = 0.99, eps = 1e-08,
    weight_decay = 0, momentum = 0, centered = FALSE)``.

    PyTorch's update, for each parameter ``p`` with gradient ``g``::

        g = g + weight_decay * p                              (if weight_decay != 0)
        v = alpha * v + (1 - alpha) * g * g                   (square_avg)
        c = c + (1 - alpha) * (g - c);  avg = sqrt(v - c * c) (centered; c is grad_avg)
        avg = sqrt(v)                                         (otherwise)
        avg = avg + eps
        buf = momentum * buf + g / avg;  p = p - lr * buf     (if momentum > 0)
        p = p - lr * g / avg                                  (otherwise)

    State per parameter: ``step``, ``square_avg``, and ``momentum_buffer`` (momentum > 0),
    ``grad_avg`` (centered). ``step(closure)`` calls ``closure()`` first (with grad mode on)
    and returns its loss.
    """

    def __init__(self, params: ParamsLike, lr: float = 0.01, alpha: float = 0.99,
                 eps: float = 1e-08, weight_decay: float = 0, momentum: float = 0,
                 centered: bool = False) -> None:
        defaults = dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay,
                        momentum=momentum, centered=centered)
        super().__init__(params, defaults)

    def _check_group(self, group: dict[str, Any]) -> None:
        super()._check_group(group)
        check_number("eps", group["eps"], low=0, message="Invalid epsilon value: {}")
        check_number("momentum", group["momentum"], low=0)
        check_number("weight_decay", group["weight_decay"], low=0)
        check_number("alpha", group["alpha"], low=0)
        check_flag("centered", group["centered"])

    def step(self, closure: Closure | None = None) -> Any:
        """One RMSprop step (see the class documentation); returns the closure's loss, if any."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr = group["lr"]
            alpha = group["alpha"]
            eps = group["eps"]
            wd = group["weight_decay"]
            momentum = group["momentum"]
            centered = group["centered"]
            for p, d, g in self._params_with_grad(group):
                st = self.state[p]
                if not st:
                    st["step"] = 0
                    st["square_avg"] = Tensor._make(np.zeros_like(d))
                    if momentum > 0:
                        st["momentum_buffer"] = Tensor._make(np.zeros_like(d))
                    if centered:
                        st["grad_avg"] = Tensor._make(np.zeros_like(d))
                st["step"] = int(st["step"]) + 1
                if wd != 0:
                    g = self._decayed(d, g, wd, 2)
                v = st["square_avg"]._data
                v *= alpha
                tmp = np.multiply(g, 1 - alpha, out=self._scratch(d, 0))
                tmp *= g
                v += tmp
                if centered:
                    if "grad_avg" not in st:
                        st["grad_avg"] = Tensor._make(np.zeros_like(d))
                    c = st["grad_avg"]._data
                    np.subtract(g, c, out=tmp)
                    tmp *= 1 - alpha
                    c += tmp
                    avg = np.multiply(c, -1.0, out=self._scratch(d, 1))
                    avg *= c
                    avg += v
                    np.sqrt(avg, out=avg)
                else:
                    avg = np.sqrt(v, out=self._scratch(d, 1))
                avg += eps
                if momentum > 0:
                    if "momentum_buffer" not in st:
                        st["momentum_buffer"] = Tensor._make(np.zeros_like(d))
                    buf = st["momentum_buffer"]._data
                    buf *= momentum
                    np.divide(g, avg, out=tmp)
                    buf += tmp
                    np.multiply(buf, lr, out=tmp)
                    d -= tmp
                else:
                    np.multiply(g, -lr, out=tmp)
                    tmp /= avg
                    d += tmp
                bump_version(p)
        return loss
