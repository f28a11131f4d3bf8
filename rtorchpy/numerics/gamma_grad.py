"""d x / d alpha for a standard gamma draw x of shape alpha, at fixed CDF value (the implicit
reparameterisation gradient of ``Gamma.rsample``), by the same three approximations PyTorch's
``_standard_gamma_grad`` uses, so the gradients agree with PyTorch's for the same draws:

* small x (< 0.8): the incomplete gamma function's power series (six terms) and its derivative
  in alpha, divided by the density;
* large alpha (> 8): Rice's saddle-point expansion (a polynomial form near x = alpha);
* otherwise: a bivariate rational approximation in u = log(x / alpha) and v = log(alpha),
  with PyTorch's published coefficients.

All in float64 here (PyTorch works in the tensor's accumulate type: float64 for float64,
float32 for float32, so float32 results may differ in the last bits)."""
from __future__ import annotations

import numpy as np

from .special import digamma64

# rows: constant, u and u^2 parts; columns: the numerator's (p) and the denominator's (q)
# coefficients in powers of v
_COEF = np.array([
    [0.16009398, -0.094634809, 0.025146376, -0.0030648343,
     1.0, 0.32668115, 0.10406089, 0.0014179084],
    [0.53487893, 0.1298071, 0.065735949, -0.0015649758,
     0.16639465, 0.020070113, -0.0035938915, -0.00058392623],
    [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
     0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07],
])


def _series(alpha, x):
    numer = np.ones_like(x)
    denom = alpha.copy()
    s1 = numer / denom
    s2 = numer / (denom * denom)
    for i in range(1, 6):
        numer = numer * (-x / i)
        denom = denom + 1
        s1 = s1 + numer / denom
        s2 = s2 + numer / (denom * denom)
    with np.errstate(all="ignore"):
        px = np.power(x, alpha)
        pdf = np.power(x, alpha - 1) * np.exp(-x)
        cdf = px * s1
        dcdf = (np.log(x) - digamma64(alpha)) * cdf - px * s2
        r = -dcdf / pdf
    return np.where(np.isnan(r), 0.0, r)


def _saddle(alpha, x):
    with np.errstate(all="ignore"):
        near = (0.9 * alpha <= x) & (x <= 1.1 * alpha)
        n1 = 1 + 24 * alpha * (1 + 12 * alpha)
        n2 = (1440 * alpha * alpha + 6 * x * (53 - 120 * x) - 65 * x * x / alpha +
              alpha * (107 + 3600 * x))
        poly = n1 * n2 / (1244160 * alpha ** 4)
        denom = np.sqrt(8 * alpha)
        t2 = denom / (alpha - x)
        t3 = np.power(x - alpha - alpha * np.log(x / alpha), -1.5)
        t23 = np.where(x < alpha, t2 - t3, t2 + t3)
        t1 = np.log(x / alpha) * t23 - np.sqrt(2 / alpha) * (alpha + x) / (alpha - x) ** 2
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        far = -stirling * (x * t1) / denom
    return np.where(near, poly, far)


def _rational(alpha, x):
    with np.errstate(all="ignore"):
        u = np.log(x / alpha)[..., None]
        v = np.log(alpha)
        c = _COEF[0] + u * (_COEF[1] + u * _COEF[2])
        p = c[..., 0] + v * (c[..., 1] + v * (c[..., 2] + v * c[..., 3]))
        q = c[..., 4] + v * (c[..., 5] + v * (c[..., 6] + v * c[..., 7]))
        return np.exp(p / q)


def standard_gamma_grad(alpha, x):
    """d x / d alpha (float64 arrays of one shape)."""
    alpha = np.asarray(alpha, np.float64)
    x = np.asarray(x, np.float64)
    out = np.empty(np.broadcast_shapes(alpha.shape, x.shape))
    alpha, x = np.broadcast_to(alpha, out.shape), np.broadcast_to(x, out.shape)
    small = x < 0.8
    big = ~small & (alpha > 8.0)
    rest = ~small & ~big
    for mask, fn in ((small, _series), (big, _saddle), (rest, _rational)):
        if mask.any():
            out[mask] = fn(alpha[mask], x[mask])
    return out
