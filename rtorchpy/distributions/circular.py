"""The von Mises distribution on the circle, with PyTorch's semantics: angles in radians, any
real ``value`` (read modulo 2 pi), the circular mean and variance, and Best and Fisher's
rejection sampler drawing its uniforms from the (libtorch) generator in float64."""
from __future__ import annotations

import math

import numpy as np

from ..autograd.grad_mode import with_no_grad
from ..dtypes import torch_float64
from ..ops.arith import where as torch_where
from ..ops.creation import torch_rand
from ..tensor import Tensor
from . import constraints
from .base import Distribution, broadcast_all

_LOG_2PI = math.log(2 * math.pi)
# polynomial approximations of I0 and I1 (Abramowitz and Stegun 9.8.1-9.8.4), as PyTorch uses:
# below 3.75 in (x / 3.75)^2, above it in 3.75 / x with the exp(x) / sqrt(x) factor taken out
_SMALL = ([1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2],
          [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3])
_LARGE = ([0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1,
           0.2635537e-1, -0.1647633e-1, 0.392377e-2],
          [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1,
           -0.2895312e-1, 0.1787654e-1, -0.420059e-2])


def _horner(y, coef):
    out = coef[-1] + 0 * y
    for c in reversed(coef[:-1]):
        out = c + y * out
    return out


def log_bessel_i(x, order):
    """log I_order(x) for x > 0, order 0 or 1 (differentiable in ``x``)."""
    y = (x / 3.75) ** 2
    small = _horner(y, _SMALL[order])
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _horner(3.75 / x, _LARGE[order]).log()
    return torch_where(x < 3.75, small.log(), large)


class VonMises(Distribution):
    """Von Mises with mean direction ``loc`` and ``concentration`` (kappa > 0)."""
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, (), validate_args)

    @property
    def mean(self):
        """The circular mean: ``loc``."""
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        """The circular variance, 1 - I1(kappa) / I0(kappa)."""
        k = self.concentration
        return 1 - (log_bessel_i(k, 1) - log_bessel_i(k, 0)).exp()

    def log_prob(self, value):
        value = self._value(value, self.loc)
        k = self.concentration
        return k * (value - self.loc).cos() - _LOG_2PI - log_bessel_i(k, 0)

    def sample(self, sample_shape=()):
        """Best and Fisher's (1979) rejection sampler, in float64 whatever the dtype: each
        round draws three uniforms per still-open element as ``torch_rand((3, *shape))``."""
        shape = self._extended_shape(sample_shape)
        with with_no_grad():
            loc = np.broadcast_to(self.loc._data.astype(np.float64), shape)
            kappa = np.broadcast_to(self.concentration._data.astype(np.float64), shape)
            with np.errstate(all="ignore"):
                tau = 1 + np.sqrt(1 + 4 * kappa ** 2)
                rho = (tau - np.sqrt(2 * tau)) / (2 * kappa)
                r = np.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))
            x = np.zeros(shape)
            done = np.zeros(shape, bool)
            while not done.all():
                u1, u2, u3 = torch_rand((3,) + tuple(shape), dtype=torch_float64())._data
                with np.errstate(all="ignore"):
                    z = np.cos(math.pi * u1)
                    f = (1 + r * z) / (r + z)
                    c = kappa * (r - f)
                    accept = ((c * (2 - c) - u2) > 0) | (np.log(c / u2) + 1 - c >= 0)
                    x = np.where(accept, np.sign(u3 - 0.5) * np.arccos(f), x)
                done |= accept
            out = np.mod(x + math.pi + loc, 2 * math.pi) - math.pi
        return Tensor._make(out.astype(self.loc._data.dtype))

    def entropy(self):
        raise NotImplementedError("entropy is not implemented for VonMises")
