"""Adam and AdamW (Adam with decoupled weight decay), with the AMSGrad variant."""
from __future__ import annotations

from typing import Any

import math

import numpy as np

from ..autograd.graph import bump_version
from ..tensor import Tensor
from .optimizer import Closure, Optimizer, ParamsLike, check_flag, check_number

__all__ = ["optim_adam", "optim_adamw"]


def _check_betas(betas: Any) -> None:
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        raise TypeError(f"betas must be a pair of numbers, got {betas!r}")
    check_number("beta1", betas[0], low=0, high=1, high_open=True,
                 message="Invalid beta parameter at index 0: {}")
    check_number("beta2", betas[1], low=0, high=1, high_open=True,
                 message="Invalid beta parameter at index 1: {}")


class optim_adam(Optimizer):
    """Adam: ``optim_adam(params, lr = 0.001, betas = c(0.9, 0.999), eps = 1e-08,
    weight_decay = 0, amsgrad = FALSE)``.

    PyTorch's update, computed in the parameter's dtype (float32 parameters stay float32): at
    step ``t``, for each parameter ``p`` with gradient ``g``::

        g = g + weight_decay * p                                (if weight_decay != 0)
        m = m + (1 - beta1) * (g - m)                           (exp_avg)
        v = beta2 * v + (1 - beta2) * g * g                     (exp_avg_sq)
        vmax = max(vmax, v); use vmax for v below               (amsgrad)
        denom = sqrt(v) / sqrt(1 - beta2^t) + eps
        p = p - (lr / (1 - beta1^t)) * m / denom

    State per parameter: ``step`` (a count), ``exp_avg``, ``exp_avg_sq`` and, with
    ``amsgrad``, ``max_exp_avg_sq``. ``step(closure)`` calls ``closure()`` first (with grad
    mode on) and returns its loss.
    """

    _decoupled = False

    def __init__(self, params: ParamsLike, lr: float = 0.001,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-08,
                 weight_decay: float = 0, amsgrad: bool = False) -> None:
        defaults = dict(lr=lr, betas=tuple(betas) if isinstance(betas, list) else betas,
                        eps=eps, weight_decay=weight_decay, amsgrad=amsgrad)
        super().__init__(params, defaults)

    def _check_group(self, group: dict[str, Any]) -> None:
        super()._check_group(group)
        _check_betas(group["betas"])
        check_number("eps", group["eps"], low=0, message="Invalid epsilon value: {}")
        check_number("weight_decay", group["weight_decay"], low=0)
        check_flag("amsgrad", group["amsgrad"])

    def step(self, closure: Closure | None = None) -> Any:
        """One Adam step (see the class documentation); returns the closure's loss, if any."""
        loss = self._eval_closure(closure)
        decoupled = self._decoupled
        state = self.state
        for group in self.param_groups:
            lr = group["lr"]
            beta1, beta2 = group["betas"]
            eps = group["eps"]
            wd = group["weight_decay"]
            amsgrad = group["amsgrad"]
            for p, d, g in self._params_with_grad(group):
                st = state[p]
                if not st:
                    st["step"] = 0
                    st["exp_avg"] = Tensor._make(np.zeros_like(d))
                    st["exp_avg_sq"] = Tensor._make(np.zeros_like(d))
                    if amsgrad:
                        st["max_exp_avg_sq"] = Tensor._make(np.zeros_like(d))
                step = st["step"] = int(st["step"]) + 1
                m = st["exp_avg"]._data
                v = st["exp_avg_sq"]._data
                if wd != 0:
                    if decoupled:
                        d *= 1 - lr * wd
                    else:
                        g = self._decayed(d, g, wd, 2)
                # m.lerp_(g, 1 - beta1)
                tmp = np.subtract(g, m, out=self._scratch(d, 0))
                tmp *= 1 - beta1
                m += tmp
                # v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
                v *= beta2
                np.multiply(g, 1 - beta2, out=tmp)
                tmp *= g
                v += tmp
                bias_correction1 = 1 - beta1 ** float(step)
                bias_correction2 = 1 - beta2 ** float(step)
                step_size = lr / bias_correction1
                bias_correction2_sqrt = math.sqrt(bias_correction2)
                if amsgrad:
                    if "max_exp_avg_sq" not in st:
                        st["max_exp_avg_sq"] = Tensor._make(np.zeros_like(d))
                    vmax = st["max_exp_avg_sq"]._data
                    np.maximum(vmax, v, out=vmax)
                    denom = np.sqrt(vmax, out=self._scratch(d, 1))
                else:
                    denom = np.sqrt(v, out=self._scratch(d, 1))
                denom /= bias_correction2_sqrt
                denom += eps
                # p.addcdiv_(m, denom, value=-step_size)
                np.multiply(m, -step_size, out=tmp)
                tmp /= denom
                d += tmp
                bump_version(p)
        return loss


class optim_adamw(optim_adam):
    """AdamW: ``optim_adamw(params, lr = 0.001, betas = c(0.9, 0.999), eps = 1e-08,
    weight_decay = 0.01, amsgrad = FALSE)``.

    Adam (see :class:`optim_adam`) with decoupled weight decay: each step first shrinks the
    parameter, ``p = p * (1 - lr * weight_decay)``, instead of adding ``weight_decay * p`` to
    the gradient.
    """

    _decoupled = True

    def __init__(self, params: ParamsLike, lr: float = 0.001,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-08,
                 weight_decay: float = 0.01, amsgrad: bool = False) -> None:
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                         amsgrad=amsgrad)
