"""Derivative rows of the special functions (erf, erfinv, lgamma, digamma, polygamma, ...),
the binary atan2, hypot and xlogy, logit, and the sampling ops: part of the one derivative
table (``rtorchpy/derivatives/``: same registry, same conventions). The forwards are in
``ops/special.py`` and ``ops/sampling.py``."""
from __future__ import annotations

import math

from ..autograd.rows import NODES, formula_node_class, row

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = math.sqrt(math.pi) / 2.0


@row("ErfBackward0", fresh=True, saves=("self",))
def _erf(F, g, needs, self):
    """self: g * 2/sqrt(pi) * exp(-self^2)"""
    return g * (F.exp(-(self * self)) * _TWO_OVER_SQRT_PI)


@row("ErfcBackward0", fresh=True, saves=("self",))
def _erfc(F, g, needs, self):
    """self: -g * 2/sqrt(pi) * exp(-self^2)"""
    return g * (F.exp(-(self * self)) * -_TWO_OVER_SQRT_PI)


@row("ErfinvBackward0", fresh=True, saves=("result",))
def _erfinv(F, g, needs, result):
    """self: g * sqrt(pi)/2 * exp(erfinv(self)^2)   (the saved result is erfinv(self))"""
    return g * (F.exp(result * result) * _HALF_SQRT_PI)


@row("LgammaBackward0", fresh=True, saves=("self",))
def _lgamma(F, g, needs, self):
    """self: g * digamma(self)"""
    return g * F.digamma(self)


@row("DigammaBackward0", fresh=True, saves=("self",))
def _digamma(F, g, needs, self):
    """self: g * polygamma(1, self)"""
    return g * F.polygamma(1, self)


@row("PolygammaBackward0", fresh=True, saves=("self",))
def _polygamma(F, g, needs, self, n):
    """self: g * polygamma(n + 1, self)"""
    return g * F.polygamma(n + 1, self)


@row("Atan2Backward0", inputs=("self", "other"), saves=("self", "other"))
def _atan2(F, g, needs, self, other):
    """self: g * other / (self^2 + other^2);  other: -g * self / (self^2 + other^2), both 0
    where self^2 + other^2 == 0 (libtorch masks the reciprocal there)"""
    denom = self * self + other * other
    zero = denom == 0
    recip = F.where(zero, 0.0, 1.0 / F.where(zero, 1.0, denom))
    return ((g * other * recip if needs[0] else None),
            (g * -self * recip if needs[1] else None))


@row("HypotBackward0", inputs=("self", "other"), saves=("self", "other", "result"))
def _hypot(F, g, needs, self, other, result):
    """self: g * self / result;  other: g * other / result   (NaN at (0, 0), as libtorch)"""
    return ((g * self / result if needs[0] else None),
            (g * other / result if needs[1] else None))


@row("LogitBackward0", saves=("self",))
def _logit(F, g, needs, self, lo, hi):
    """self: g / (self (1 - self)) where lo <= self <= hi, else NaN (no eps: lo, hi = 0, 1)
    or 0 (with eps: lo, hi = eps, 1 - eps)"""
    if lo is None:
        inside = (self >= 0) & (self <= 1)
        outside = math.nan
    else:
        inside = (self >= lo) & (self <= hi)
        outside = 0.0
    return F.where(inside, g / (self * (1 - self)), outside)


@row("XlogyBackward0", inputs=("self", "other"), saves=("self", "other"))
def _xlogy(F, g, needs, self, other):
    """self: g * xlogy(self != 0, other);  other: g * self / other"""
    return ((g * F.xlogy(self != 0, other) if needs[0] else None),
            (g * self / other if needs[1] else None))


@row("XlogyBackward1", inputs=("other",), saves=("other",))
def _xlogy_scalar_self(F, g, needs, other, self):
    """other: g * self / other   (self a number)"""
    return g * self / other


@row("XlogyBackward2", saves=("self",))
def _xlogy_scalar_other(F, g, needs, self, other):
    """self: g * xlogy(self != 0, other)   (other a number)"""
    return g * F.xlogy(self != 0, other)


# ---------------------------------------------------------------- sampling (ops_sampling.py)
# libtorch's samplers are not reparameterised: the gradient of a draw with respect to its
# parameters is 0 (bernoulli with a number p has no derivative at all).

@row("NormalBackward1", saves=())
def _normal_mean(F, g, needs):
    """mean: 0   (normal with a tensor mean and a number std)"""
    return F.zeros_like(g)


@row("NormalBackward2", inputs=("std",), saves=())
def _normal_std(F, g, needs):
    """std: 0   (normal with a number mean and a tensor std)"""
    return F.zeros_like(g)


@row("NormalBackward3", inputs=("mean", "std"), saves=())
def _normal_both(F, g, needs):
    """mean: 0;  std: 0"""
    return ((F.zeros_like(g) if needs[0] else None), (F.zeros_like(g) if needs[1] else None))


@row("PoissonBackward0", saves=())
def _poisson(F, g, needs):
    """self: 0"""
    return F.zeros_like(g)


@row("BernoulliBackward0", saves=())
def _bernoulli(F, g, needs):
    """self: 0   (bernoulli with probabilities from self)"""
    return F.zeros_like(g)


def _not_implemented(F, g, needs, what):
    raise RuntimeError(f"derivative for aten::{what} is not implemented")


# Not a derivative, so not a row of the table: the node libtorch records where an op has no
# derivative (bernoulli(self, p) with a number p). Its backward refuses with libtorch's text.
_NAME = "torch::autograd::NotImplemented"
NODES[_NAME] = formula_node_class(_NAME, _not_implemented)
