"""The implicit reparameterisation gradient of a Beta draw, as PyTorch's ``_dirichlet_grad``
computes it, so that ``distr_beta``/``distr_dirichlet`` ``rsample`` gradients agree with
PyTorch's for the same draws.

For ``x ~ Beta(alpha, total - alpha)`` this is ``-(d/d alpha CDF(x)) / pdf(x) / (1 - x)``, by
one of four approximations chosen as PyTorch chooses them:

* ``x <= 1/2`` and ``total x (1 - x) < 2.5``: a series in ``x`` (ten terms);
* ``x >= 1/2`` and ``total x (1 - x) < 0.75``: the mirrored series in ``1 - x`` for the other
  parameter (eight terms);
* both parameters above 6: Rice's saddle-point expansion (a polynomial near the mean);
* otherwise: ``x (psi(total) - psi(alpha)) / beta`` times a rational correction in
  ``log x``, ``log(alpha / x)`` and ``log(total x / alpha)`` with PyTorch's fitted coefficients.

All in float64 (PyTorch evaluates the two series in the tensor's dtype, so float32 gradients
may differ from its in the last bits).
"""
from __future__ import annotations

import numpy as np

from .special import digamma64

# [numerator / denominator][power of u][power of a][power of b]
_C = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1.0, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]],
])


def _small_alpha(x, a, b):
    """d x / d alpha for x near 0 (series in x)."""
    factor = digamma64(a) - digamma64(a + b) - np.log(x)
    numer = np.ones_like(x)
    series = numer / a * (factor + 1 / a)
    for i in range(1, 11):
        numer = numer * ((i - b) * x / i)
        d = a + i
        series = series + numer / d * (factor + 1 / d)
    r = x * np.power(1 - x, -b) * series
    return np.where(np.isnan(r), 0.0, r)


def _small_beta(x, a, b):
    """d x / d beta for x near 0 (series in x); used mirrored for x near 1."""
    factor = digamma64(a + b) - digamma64(b)
    numer, betas, dbetas = np.ones_like(x), np.ones_like(x), np.zeros_like(x)
    series = factor / a
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (b - i) + betas
        betas = betas * (b - i)
        series = series + numer / (a + i) * (dbetas + factor * betas)
    r = -np.power(1 - x, 1 - b) * series
    return np.where(np.isnan(r), 0.0, r)


def _saddle(x, a, b):
    total = a + b
    mean = a / total
    std = np.sqrt(a * b / (total + 1)) / total
    near = (mean - 0.1 * std <= x) & (x <= mean + 0.1 * std)
    b2 = b * b
    poly = 47 * x * b2 * b2 + a * (
        (43 + 20 * (16 + 27 * b) * x) * b2 * b + a * (
            3 * (59 + 180 * b - 90 * x) * b2 + a * (
                (453 + 1620 * b * (1 - x) - 455 * x) * b + a * (
                    8 * (1 - x) * (135 * b - 11)))))
    pre_num = (1 + 12 * a) * (1 + 12 * b) / (total * total)
    pre_den = 12960 * a * a * a * b * b * (1 + 12 * total)
    at_mean = pre_num / (1 - x) * poly / pre_den
    prefactor = -x / np.sqrt(2 * a * b / total)
    stirling = ((1 + 1 / (12 * a) + 1 / (288 * a * a)) * (1 + 1 / (12 * b) + 1 / (288 * b * b))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    axbx = a * (x - 1) + b * x
    term1 = ((2 * a * a * (x - 1) + a * b * (x - 1) - x * b2)
             / (np.sqrt(2 * a / b) * np.power(total, 1.5) * axbx * axbx))
    term2 = 0.5 * np.log(a / (total * x))
    term3 = np.sqrt(8 * a * b / total) / axbx
    term4 = np.power(b * np.log(b / (total * (1 - x))) + a * np.log(a / (total * x)), -1.5)
    away = stirling * prefactor * (term1 + term2 * (term3 + np.where(x < mean, term4, -term4)))
    return np.where(near, at_mean, away)


def _rational(x, a, total):
    u = np.log(x)
    la = np.log(a) - u
    lb = np.log(total) - la
    powers = np.stack([np.ones_like(u), u, u * u])[:, None] * \
        np.stack([np.ones_like(la), la, la * la])[None]            # (3, 3, n)
    c = _C[..., None]                                              # (2, 3, 3, 4, 1)
    poly_b = c[..., 0, :] + lb * (c[..., 1, :] + lb * (c[..., 2, :] + lb * c[..., 3, :]))
    p, q = (powers * poly_b).sum(axis=(1, 2))
    approx = x * (digamma64(total) - digamma64(a)) / (total - a)
    return p / q * approx


def dirichlet_grad(x, alpha, total):
    """d x / d alpha for Beta(alpha, total - alpha) draws ``x`` (broadcast float64 arrays)."""
    x, alpha, total = (np.asarray(v, np.float64) for v in (x, alpha, total))
    shape = np.broadcast_shapes(x.shape, alpha.shape, total.shape)
    x, alpha, total = (np.broadcast_to(v, shape).reshape(-1) for v in (x, alpha, total))
    beta = total - alpha
    boundary = total * x * (1 - x)
    out = np.empty(x.size)
    near0 = (x <= 0.5) & (boundary < 2.5)
    near1 = ~near0 & (x >= 0.5) & (boundary < 0.75)
    mid = ~near0 & ~near1 & (alpha > 6) & (beta > 6)
    rest = ~(near0 | near1 | mid)
    with np.errstate(all="ignore"):
        if near0.any():
            out[near0] = _small_alpha(x[near0], alpha[near0], beta[near0])
        if near1.any():
            out[near1] = -_small_beta(1 - x[near1], beta[near1], alpha[near1])
        if mid.any():
            out[mid] = _saddle(x[mid], alpha[mid], beta[mid])
        if rest.any():
            out[rest] = _rational(x[rest], alpha[rest], total[rest])
    return out.reshape(shape)
