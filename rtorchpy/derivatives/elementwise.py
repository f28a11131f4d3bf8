"""Rows of the derivative table: arithmetic, elementwise functions, reductions.

What a row is: see ``rtorchpy/derivatives/__init__.py``.
"""
from __future__ import annotations

import math

from ..autograd.forward_ad import BATCH, diagonal, tangent
from ..autograd.rows import row


# ---------------------------------------------------------------- arithmetic
@row("AddBackward0")
def _add(F, g, needs, alpha):
    """self: g;  other: alpha * g"""
    return g, (g if alpha == 1 else g * alpha) if needs[1] else None


@row("AddBackward1")
def _add_scalar(F, g, needs):
    """self: g"""
    return g


@row("SubBackward0")
def _sub(F, g, needs, alpha):
    """self: g;  other: -alpha * g"""
    return g, (-g if alpha == 1 else g * -alpha) if needs[1] else None


@row("SubBackward1")
def _sub_scalar(F, g, needs):
    """self: g"""
    return g


@row("RsubBackward1")
def _rsub_scalar(F, g, needs, alpha):
    """self: -alpha * g   (scalar - self)"""
    return -g if alpha == 1 else g * -alpha


@row("MulBackward0", fresh=True, inputs=("self", "other"), saves=("self", "other"))
def _mul(F, g, needs, self, other, same=False):
    """self: g * other;  other: g * self   (x * x: one product, 2 g x, sent along one edge;
    complex: the factors conjugated)"""
    if F.is_complex(self) or F.is_complex(other):
        self, other = F.conj(self), F.conj(other)
    if same:  # decided when recording, on tensor identity: x * x.detach() shares the array
        return F.scale(g, 2) * self, None
    return (g * other if needs[0] else None), (g * self if needs[1] else None)


@row("MulBackward1", fresh=True)
def _mul_scalar(F, g, needs, other):
    """self: g * other"""
    return F.scale(g, other)


@row("DivBackward0", fresh=True, inputs=("self", "other"), saves=("self", "other"))
def _div(F, g, needs, self, other):
    """self: g / other;  other: -g * ((self / other) / other)   (complex: conjugated; the
    order of libtorch's ops, which bfloat16 rounds one by one)"""
    if F.is_complex(self) or F.is_complex(other):
        self, other = F.conj(self), F.conj(other)
    return ((g / other if needs[0] else None),
            (-g * ((self / other) / other) if needs[1] else None))


@row("DivBackward1", fresh=True)
def _div_scalar(F, g, needs, other):
    """self: g / other"""
    return g / other


@row("DivBackward3")
def _div_rounded(F, g, needs):
    """self: 0 (a rounded quotient is piecewise constant)"""
    return F.zeros_like(g)


@row("DivBackward2")
def _div_rounded_tensor(F, g, needs):
    """self, other: 0 (a rounded quotient is piecewise constant)"""
    return (F.zeros_like(g) if needs[0] else None), (F.zeros_like(g) if needs[1] else None)


@row("FmodBackward0")
def _fmod_scalar(F, g, needs):
    """self: g   (fmod.Scalar comes first in libtorch's table)"""
    return g


@row("FmodBackward1", inputs=("self", "other"), saves=("self", "other"))
def _fmod(F, g, needs, self, other):
    """self: g;  other: -g * trunc(self / other)"""
    return (g if needs[0] else None), (-g * F.trunc(self / other) if needs[1] else None)


@row("RemainderBackward0")
def _remainder_scalar(F, g, needs):
    """self: g   (remainder.Scalar comes first in libtorch's table)"""
    return g


@row("RemainderBackward1", inputs=("self", "other"), saves=("self", "other"))
def _remainder(F, g, needs, self, other):
    """self: g;  other: -g * floor(self / other)"""
    return (g if needs[0] else None), (-g * F.floor(self / other) if needs[1] else None)


@row("NegBackward0", fresh=True)
def _neg(F, g, needs):
    """self: -g"""
    return -g


@row("PowBackward0", saves=("self",))
def _pow_scalar(F, g, needs, self, exponent):
    """self: g * exponent * self^(exponent - 1)   (0 when exponent == 0; complex: the local
    derivative conjugated, as for MulBackward0)"""
    if exponent == 0:
        return F.zeros_like(g)
    if F.is_complex(self):
        self = F.conj(self)
        if isinstance(exponent, complex):
            exponent = exponent.conjugate()
    if exponent == 2:
        return g * 2 * self
    return g * exponent * F.pow(self, exponent - 1)


@row("PowBackward1", inputs=("self", "exponent"), saves=("self", "exponent", "result"))
def _pow(F, g, needs, self, exponent, result):
    """self: g * exponent * self^(exponent - 1), 0 where exponent == 0;  exponent:
    g * (result * log(self), 0 where self == 0 and exponent >= 0: the limit that keeps 0^y
    finite). Both select, as libtorch: 0 * 0^-1 must not leak a NaN."""
    gs = ge = None
    if needs[0]:
        gs = F.where(exponent == 0, 0.0, g * exponent * F.pow(self, exponent - 1))
    if needs[1]:
        safe = (self == 0) & (exponent >= 0)
        ge = g * F.where(safe, 0.0, result * F.log(F.where(safe, 1.0, self)))
    return gs, ge


@row("PowBackward2", saves=("result",))
def _rpow(F, g, needs, result, base):
    """exponent: g * result * log(base)   (scalar base; for base 0: 0 where exponent >= 0,
    i.e. where result <= 1, else g * result * log(0); NaN for a negative base)"""
    if base == 0:
        return g * F.where(result <= 1, 0.0, result * -math.inf)
    # a negative base: log is NaN, so is the gradient, as in libtorch (math.log would raise)
    return g * result * (math.log(base) if not base < 0 else math.nan)


# ---------------------------------------------------------------- unary elementwise
@row("AbsBackward0", saves=("self",))
def _abs(F, g, needs, self):
    """self: g * sgn(self)   (sgn(NaN) = 0)"""
    return g * F.sgn(self)


@row("ExpBackward0", fresh=True, saves=("result",))
def _exp(F, g, needs, result):
    """self: g * result"""
    return g * result


@row("Expm1Backward0", saves=("result",))
def _expm1(F, g, needs, result):
    """self: g * (result + 1)"""
    return g * (result + 1)


@row("LogBackward0", fresh=True, saves=("self",))
def _log(F, g, needs, self):
    """self: g / self"""
    return g / self


@row("Log1PBackward0", saves=("self",))  # libtorch spells it with a capital P
def _log1p(F, g, needs, self):
    """self: g / (self + 1)"""
    return g / (self + 1)


@row("Log2Backward0", saves=("self",))
def _log2(F, g, needs, self):
    """self: g / (self * ln 2)"""
    return g / (self * 0.6931471805599453)


@row("Log10Backward0", saves=("self",))
def _log10(F, g, needs, self):
    """self: g / (self * ln 10)"""
    return g / (self * 2.302585092994046)


@row("SqrtBackward0", fresh=True, saves=("result",))
def _sqrt(F, g, needs, result):
    """self: g / (2 * result)"""
    return g / (result * 2)


@row("RsqrtBackward0", saves=("result",))
def _rsqrt(F, g, needs, result):
    """self: -g * result^3 / 2"""
    return g * (result * result * result) * -0.5


@row("ReciprocalBackward0", saves=("result",))
def _reciprocal(F, g, needs, result):
    """self: -g * result^2"""
    return -g * (result * result)


@row("SinBackward0", fresh=True, saves=("self",))
def _sin(F, g, needs, self):
    """self: g * cos(self)"""
    return g * F.cos(self)


@row("CosBackward0", fresh=True, saves=("self",))
def _cos(F, g, needs, self):
    """self: -g * sin(self)"""
    return -g * F.sin(self)


@row("TanBackward0", saves=("result",))
def _tan(F, g, needs, result):
    """self: g * (1 + result^2)"""
    return g * (result * result + 1)


@row("TanhBackward0", fresh=True, saves=("result",))
def _tanh(F, g, needs, result):
    """self: g * (1 - result^2)"""
    return g * (1 - result * result)


@row("AsinBackward0", fresh=True, saves=("self",))
def _asin(F, g, needs, self):
    """self: g / sqrt(1 - self^2)"""
    return g / F.sqrt(1 - self * self)


@row("AcosBackward0", fresh=True, saves=("self",))
def _acos(F, g, needs, self):
    """self: -g / sqrt(1 - self^2)"""
    return -g / F.sqrt(1 - self * self)


@row("AtanBackward0", fresh=True, saves=("self",))
def _atan(F, g, needs, self):
    """self: g / (1 + self^2)"""
    return g / (self * self + 1)


@row("SinhBackward0", fresh=True, saves=("self",))
def _sinh(F, g, needs, self):
    """self: g * cosh(self)"""
    return g * ((F.exp(self) + F.exp(-self)) * 0.5)


@row("CoshBackward0", fresh=True, saves=("self",))
def _cosh(F, g, needs, self):
    """self: g * sinh(self)"""
    return g * ((F.exp(self) - F.exp(-self)) * 0.5)


@row("AsinhBackward0", fresh=True, saves=("self",))
def _asinh(F, g, needs, self):
    """self: g / sqrt(self^2 + 1)"""
    return g / F.sqrt(self * self + 1)


@row("AcoshBackward0", fresh=True, saves=("self",))
def _acosh(F, g, needs, self):
    """self: g / sqrt(self^2 - 1)"""
    return g / F.sqrt(self * self - 1)


@row("AtanhBackward0", fresh=True, saves=("self",))
def _atanh(F, g, needs, self):
    """self: g / (1 - self^2)"""
    return g / (1 - self * self)


@row("SigmoidBackward0", fresh=True, saves=("result",))
def _sigmoid(F, g, needs, result):
    """self: g * result * (1 - result)"""
    return g * (result * (1 - result))


@row("ReluBackward0", fresh=True, saves=("result",))
def _relu(F, g, needs, result):
    """self: 0 where result <= 0, else g   (libtorch's threshold_backward: a selection, so an
    inf or NaN g below the kink never leaks, and a NaN result lets g through)"""
    return F.zero_where(result <= 0, g)


@row("ClampBackward1", saves=("self",))
def _clamp(F, g, needs, self, lo, hi):
    """self: g where min <= self <= max, else 0 (selected: also 0 where self is NaN)"""
    if lo is None:
        keep = self <= hi
    else:
        keep = self >= lo
        if hi is not None:
            keep = keep & (self <= hi)
    return F.keep_where(keep, g)


@row("ClampBackward0", saves=("*inputs",))
def _clamp_tensor(F, g, needs, *inputs_and_flags):
    """self: g where min <= self <= max;  min: g where self < min (and min < max);
    max: g where self > max (or max < min)   (tensor bounds, either may be absent)"""
    self, *bounds, has_lo, has_hi = inputs_and_flags
    lo = bounds[0] if has_lo else None
    hi = bounds[-1] if has_hi else None
    keep = None
    if lo is not None:
        keep = self >= lo
    if hi is not None:
        keep = (self <= hi) if keep is None else keep & (self <= hi)
    out = [F.where(keep, g, 0.0) if needs[0] else None]
    i = 1
    if lo is not None:
        below = (self < lo) if hi is None else (self < lo) & (lo < hi)
        out.append(F.where(below, g, 0.0) if needs[i] else None)
        i += 1
    if hi is not None:
        above = (self > hi) if lo is None else (self > hi) | (hi < lo)
        out.append(F.where(above, g, 0.0) if needs[i] else None)
    return tuple(out)


# clamp_min(x, min): the same formula with max = None
row("ClampMinBackward0", saves=("self",))(_clamp)
row("ClampMaxBackward0", saves=("self",))(_clamp)


@row("MaximumBackward0", inputs=("self", "other"), saves=("self", "other"))
def _maximum(F, g, needs, self, other):
    """self: g/2 on ties, 0 where self < other, else g;  other: g/2 on ties, 0 where
    self > other, else g   (as libtorch: where self or other is NaN both get g)"""
    shared = F.where(self == other, g / 2, g)
    gs = F.zero_where(self < other, shared) if needs[0] else None
    go = F.zero_where(self > other, shared) if needs[1] else None
    return gs, go


@row("MinimumBackward0", inputs=("self", "other"), saves=("self", "other"))
def _minimum(F, g, needs, self, other):
    """self: g/2 on ties, 0 where self > other, else g;  other: g/2 on ties, 0 where
    self < other, else g   (as libtorch: where self or other is NaN both get g)"""
    shared = F.where(self == other, g / 2, g)
    gs = F.zero_where(self > other, shared) if needs[0] else None
    go = F.zero_where(self < other, shared) if needs[1] else None
    return gs, go


@row("WhereBackward0")
def _where(F, g, needs, condition):
    """self: g where condition;  other: g where not condition"""
    return ((F.where(condition, g, 0.0) if needs[0] else None),
            (F.where(condition, 0.0, g) if needs[1] else None))


@row("SignBackward0")
def _sign(F, g, needs):
    """self: 0"""
    return F.zeros_like(g)


def _piecewise_constant(F, g, needs):
    """self: 0 (piecewise constant)"""
    return F.zeros_like(g)


for _name in ("RoundBackward0", "FloorBackward0", "CeilBackward0", "TruncBackward0"):
    row(_name)(_piecewise_constant)


@row("RoundBackward1")
def _round_decimals(F, g, needs, decimals):
    """self: 0 (piecewise constant; round with decimals)"""
    return F.zeros_like(g)


# ---------------------------------------------------------------- reductions
@row("SumBackward0")
def _sum_all(F, g, needs, shape):
    """self: g expanded to self's shape"""
    return F.expand(g, shape)


@row("SumBackward1")
def _sum_dim(F, g, needs, shape, dims, keepdim):
    """self: g (with the reduced dims restored) expanded to self's shape"""
    return F.expand(F.restore_dims(g, dims, keepdim), shape)


@row("MeanBackward0")
def _mean_all(F, g, needs, shape, count):
    """self: g / numel expanded to self's shape"""
    return F.expand(g / count, shape)


@row("MeanBackward1")
def _mean_dim(F, g, needs, shape, dims, keepdim, count):
    """self: g / (size of the reduced dims), expanded to self's shape"""
    return F.expand(F.restore_dims(g, dims, keepdim) / count, shape)


@tangent("SumBackward0", "SumBackward1", "MeanBackward0", "MeanBackward1", batched=True)
def _sum_mean_tangent(F, tans, inputs, outputs, params):
    """linear: the same reduction of the tangent (params: shape[, dims, keepdim][, count])"""
    t, k, nd = tans[0], 1 if BATCH[0] else 0, max(inputs[0].ndim, 1)
    if len(params) > 2 and inputs[0].ndim == 0:  # a 0-dim input: nothing to reduce
        out = t
    elif len(params) > 2:
        dims = params[1] if isinstance(params[1], (tuple, list)) else (params[1],)
        out = t.sum(dim=tuple(d % nd + k for d in dims), keepdim=params[2])
    else:
        out = t.reshape(t.shape[0], -1).sum(1) if k else t.sum()
    return out / params[-1] if len(params) in (2, 4) else out


@row("ProdBackward0", saves=("self", "result"))
def _prod_all(F, g, needs, self, result, dims, keepdim):
    """self: g * (product of all other elements), exact when self has zeros; 0 (whatever g)
    when self has two zeros or more, as libtorch outside create_graph"""
    if not self.ndim:
        return g
    if not F.records and F.count_nonzero(self == 0) > 1:
        return F.zeros_like(self)
    return _prod(F, g, needs, self, result, dims, keepdim)


@row("ProdBackward1", saves=("self", "result"))
def _prod(F, g, needs, self, result, dims, keepdim):
    """self: g * (product of the other elements of its slice), exact when self has zeros"""
    if not self.ndim:
        return g
    return F.restore_dims(g, dims, keepdim) * F.prod_others(self, dims)


@row("MaxBackward1", saves=("self", "result"))
def _max_all(F, g, needs, self, result):
    """self: g shared evenly among the elements equal to the maximum (the NaNs when the
    maximum is NaN), 0 elsewhere whatever g is (libtorch's evenly_distribute_backward)"""
    return _evenly_distribute(F, g, self, result)


@row("MinBackward1", saves=("self", "result"))
def _min_all(F, g, needs, self, result):
    """self: g shared evenly among the elements equal to the minimum (the NaNs when the
    minimum is NaN), 0 elsewhere"""
    return _evenly_distribute(F, g, self, result)


def _evenly_distribute(F, g, self, result):
    mask = F.isnan(self) if F.count_nonzero(F.isnan(result)) else self == result
    return F.keep_where(mask, g / F.count_nonzero(mask))


def _value_selecting(F, g, needs, shape, dim, keepdim, indices):
    """self: g placed at the index each value was selected from along dim, 0 elsewhere
    (libtorch's value_selecting_reduction_backward; indices: no gradient)"""
    if not shape:  # a 0-dim input: the value is the input itself
        return g
    return F.scatter_zeros(shape, dim, F.restore_dims(indices, (dim,), keepdim),
                           F.restore_dims(g, (dim,), keepdim))


# max(dim) and min(dim); median(dim) and kthvalue are in matops.py
row("MaxBackward0")(_value_selecting)
row("MinBackward0")(_value_selecting)


@row("AmaxBackward0", saves=("self", "result"))
def _amax(F, g, needs, self, result, dims, keepdim):
    """self: g shared evenly among the maxima of each reduced slice"""
    mask = self == F.restore_dims(result, dims, keepdim)
    return mask * (F.restore_dims(g, dims, keepdim) / F.sum(mask * 1.0, dims, True))


@row("AminBackward0", saves=("self", "result"))
def _amin(F, g, needs, self, result, dims, keepdim):
    """self: g shared evenly among the minima of each reduced slice"""
    mask = self == F.restore_dims(result, dims, keepdim)
    return mask * (F.restore_dims(g, dims, keepdim) / F.sum(mask * 1.0, dims, True))


@row("LogsumexpBackward0", saves=("self", "result"))
def _logsumexp(F, g, needs, self, result, dims, keepdim):
    """self: g * exp(self - result)"""
    return F.restore_dims(g, dims, keepdim) * F.exp(self - F.restore_dims(result, dims, keepdim))


@row("VarBackward0", saves=("self",))
def _var(F, g, needs, self, dims, correction, keepdim, count):
    """self: g * 2 (self - mean) / (N - correction)"""
    centered = self - F.mean(self, dims, True)
    return F.restore_dims(g, dims, keepdim) * centered * (2.0 * _inverse(count - correction))


@row("StdBackward0", saves=("self", "result"))
def _std(F, g, needs, self, result, dims, correction, keepdim, count):
    """self: g * (self - mean) / (std * (N - correction))   (0 where std == 0, as libtorch)"""
    centered = self - F.mean(self, dims, True)
    std = F.restore_dims(result, dims, keepdim)
    zero = std == 0
    scaled = F.where(zero, 0.0, F.restore_dims(g, dims, keepdim) / F.where(zero, 1.0, std))
    return scaled * centered * _inverse(count - correction)


def _inverse(dof):
    """1 / max(dof, 0), infinite (not an error) for no degrees of freedom, as libtorch."""
    return 1.0 / dof if dof > 0 else float("inf")


@row("NormBackward0", saves=("self", "result"))
def _norm(F, g, needs, self, result, p, dims, keepdim):
    """self: g * sgn(self) |self|^(p-1) / norm^(p-1), split as libtorch's norm_backward:
    p = 1: g sgn(self);  p = 2: g * (self / norm, 0 where norm == 0);  p = inf: g shared among
    the elements whose |self| is the norm or NaN (p = -inf too);  p = 0: no gradient;
    p < 1: 0 where self == 0;  else the
    g / norm^(p-1) factor is 0 where norm == 0. Denominators are made safe before they divide,
    so the second order stays NaN-free where the first is finite."""
    g = F.restore_dims(g, dims, keepdim)
    norm = F.restore_dims(result, dims, keepdim)
    if p == 0:
        return None
    if p == 1:
        return F.sgn(self) * g
    if math.isinf(p):
        size = F.abs(self)
        mask = (size == norm) | F.isnan(size)
        return F.sgn(self) * ((g / F.sum(mask * 1.0, dims, True)) * mask)
    zero = norm == 0
    safe = F.where(zero, 1.0, norm)
    if p == 2:
        return g * F.where(zero, 0.0, self / safe)
    if p < 1:
        at_zero = self == 0
        size = F.abs(F.where(at_zero, 1.0, self))
        scaled = F.where(at_zero, 0.0, F.sgn(self) * F.pow(size, p - 1))
        return scaled * g * F.pow(norm, 1 - p)
    scale = F.where(zero, 0.0, g / F.pow(safe, p - 1))
    if p < 2:
        return F.sgn(self) * F.pow(F.abs(self), p - 1) * scale
    return self * F.pow(F.abs(self), p - 2) * scale


@row("CumsumBackward0")
def _cumsum(F, g, needs, dim):
    """self: reversed cumulative sum of g along dim"""
    if not g.ndim:  # a 0-dim input: cumsum is the identity
        return g
    return F.flip(F.cumsum(F.flip(g, (dim,)), dim), (dim,))


@row("SoftmaxBackward0", saves=("result",))
def _softmax(F, g, needs, result, dim):
    """self: result * (g - sum(g * result, dim))"""
    return result * (g - F.sum(g * result, (dim,) if g.ndim else (), True))


@row("LogSoftmaxBackward0", saves=("result",))
def _log_softmax(F, g, needs, result, dim):
    """self: g - exp(result) * sum(g, dim)"""
    return g - F.exp(result) * F.sum(g, (dim,) if g.ndim else (), True)


# linear algebra, shape and views, indexing and losses: the rest of the same table


# Forward mode: these rows' Jacobians are diagonal (after broadcasting), so each formula applied
# to an input's tangent is that input's share of the output tangent (autograd/forward_ad.py).
diagonal("AddBackward0", "AddBackward1", "SubBackward0", "SubBackward1", "RsubBackward1",
         "MulBackward0", "MulBackward1", "DivBackward0", "DivBackward1", "NegBackward0",
         "PowBackward0", "PowBackward1", "PowBackward2", "AbsBackward0", "ExpBackward0",
         "Expm1Backward0", "LogBackward0", "Log1PBackward0", "Log2Backward0", "Log10Backward0",
         "SqrtBackward0", "RsqrtBackward0", "ReciprocalBackward0", "SinBackward0", "CosBackward0",
         "TanBackward0", "TanhBackward0", "AsinBackward0", "AcosBackward0", "AtanBackward0",
         "SinhBackward0", "CoshBackward0", "AsinhBackward0", "AcoshBackward0", "AtanhBackward0",
         "SigmoidBackward0", "ReluBackward0", "ClampBackward1", "MaximumBackward0",
         "MinimumBackward0", "WhereBackward0")
