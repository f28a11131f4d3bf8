"""Every row of the derivative table (``rtorchpy.derivatives.ROWS``) against numerical
differences, in float64, over Hypothesis-drawn shapes (broadcasting included).

Each row name maps to one or more *sample builders*: ``builder(draw, rng) -> Case``, where a
Case is a function of float64 tensors plus the arrays to call it with. For every row we check
* that the sample really records that row (its name is in the output's graph),
* first order: the vector-Jacobian product backward computes, for a random cotangent ``v``,
  equals the central difference of ``sum(f(x) * v)``,
* second order (``create_graph=True``): the gradient of ``sum(grad * w)`` equals the central
  difference of the (first-order) gradient.
Inputs are drawn away from points where an op is not differentiable (abs at 0, max ties, ...).
The checker is self-contained so these tests do not depend on ``autograd_gradcheck``.
"""
from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import rtorchpy as rt
from rtorchpy import Tensor, autograd_grad, torch_tensor
from rtorchpy.autograd.rows import ROWS

F64 = np.float64
EPS = 1e-6


# ============================================================================ the checker

class Case:
    """``fn(*tensors)`` returns a Tensor or a tuple (non-float outputs are ignored)."""

    def __init__(self, fn, *inputs, second=True, atol=1e-5, rtol=1e-4):
        self.fn = fn
        self.inputs = [np.array(a, dtype=F64) for a in inputs]
        self.second = second
        self.atol, self.rtol = atol, rtol


def _outputs(res):
    outs = res if isinstance(res, (tuple, list)) else (res,)
    return [o for o in outs if isinstance(o, Tensor) and o.dtype.is_floating_point]


def _leaves(arrays):
    return [torch_tensor(a.copy(), requires_grad=True) for a in arrays]


def _cotangents(case, rng):
    return [rng.standard_normal(o.shape) for o in _outputs(case.fn(*_leaves(case.inputs)))]


def _vjp(case, arrays, vs, create_graph=False):
    """Backward's gradient of sum(f(x) * v) w.r.t. each input (None where unused)."""
    xs = _leaves(arrays)
    outs = _outputs(case.fn(*xs))
    pairs = [(o, v) for o, v in zip(outs, vs) if o.requires_grad]
    assert pairs, "the sample's output does not require grad"
    grads = autograd_grad([o for o, _ in pairs], xs, [torch_tensor(v) for _, v in pairs],
                          create_graph=create_graph, allow_unused=True)
    return xs, grads


def _value(case, arrays, vs):
    outs = _outputs(case.fn(*_leaves(arrays)))
    return sum(float(np.sum(o.detach().numpy() * v)) for o, v in zip(outs, vs))


def _central(f, arrays):
    """Central-difference gradient of the scalar function ``f(arrays)``."""
    out = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        for j in np.ndindex(a.shape):
            plus = [b.copy() for b in arrays]
            minus = [b.copy() for b in arrays]
            plus[i][j] += EPS
            minus[i][j] -= EPS
            g[j] = (f(plus) - f(minus)) / (2 * EPS)
        out.append(g)
    return out


def _arrays(grads, like):
    return [np.zeros_like(a) if g is None else np.asarray(g.numpy(), dtype=F64)
            for g, a in zip(grads, like)]


def _assert_close(analytic, numeric, case, what):
    for i, (a, n) in enumerate(zip(analytic, numeric)):
        assert a.shape == n.shape, f"{what}: input {i} gradient shape {a.shape} != {n.shape}"
        np.testing.assert_allclose(a, n, rtol=case.rtol, atol=case.atol,
                                   err_msg=f"{what} of input {i}")


def check_first_order(case, rng):
    vs = _cotangents(case, rng)
    _, grads = _vjp(case, case.inputs, vs)
    for g, a in zip(grads, case.inputs):
        if g is not None:
            assert g.shape == a.shape and g.dtype == rt.torch_float64()
    numeric = _central(lambda arrs: _value(case, arrs, vs), case.inputs)
    _assert_close(_arrays(grads, case.inputs), numeric, case, "first-order gradient")


def check_second_order(case, rng):
    vs = _cotangents(case, rng)
    ws = [rng.standard_normal(a.shape) for a in case.inputs]

    def grad_dot_w(arrays):
        _, grads = _vjp(case, arrays, vs)
        return sum(float(np.sum(g * w)) for g, w in zip(_arrays(grads, arrays), ws))

    xs, grads = _vjp(case, case.inputs, vs, create_graph=True)
    terms = [(g * torch_tensor(w)).sum() for g, w in zip(grads, ws)
             if g is not None and g.requires_grad]
    if terms:
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        analytic = _arrays(autograd_grad(total, xs, allow_unused=True), case.inputs)
    else:  # the gradient does not depend on the inputs: second derivative 0
        analytic = [np.zeros_like(a) for a in case.inputs]
    numeric = _central(grad_dot_w, case.inputs)
    _assert_close(analytic, numeric, case, "second-order gradient")


def graph_names(res):
    """Names of every node reachable from the outputs' grad_fns."""
    names, seen = set(), set()
    stack = [o.grad_fn for o in _outputs(res) if o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.add(node.name)
        stack.extend(n for n, _ in node.next_functions)
    return names


# ============================================================================ drawing helpers

def shape(draw, min_dims=0, max_dims=3, min_side=1, max_side=3):
    return draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                                 max_side=max_side))


def bshapes(draw, n=2, min_dims=0, max_dims=3):
    return draw(hnp.mutually_broadcastable_shapes(num_shapes=n, min_dims=min_dims,
                                                  max_dims=max_dims, min_side=1,
                                                  max_side=3)).input_shapes


def smaller_shape(draw, s):
    """A shape that broadcasts to ``s`` (leading dims dropped, some sizes made 1)."""
    lead = draw(st.integers(0, len(s)))
    return tuple(1 if draw(st.booleans()) else n for n in s[lead:])


def anyv(rng, s):
    return rng.uniform(-2, 2, s)


def pos(rng, s, lo=0.5, hi=2.0):
    return rng.uniform(lo, hi, s)


def away0(rng, s):
    return rng.choice([-1.0, 1.0], s) * rng.uniform(0.3, 2.0, s)


def distinct(rng, s):
    """All values different by at least 0.2 (no ties for max/min/sort)."""
    n = int(np.prod(s, dtype=int))
    v = (rng.permutation(n) - n / 2) * 0.3 + rng.uniform(-0.05, 0.05, n)
    return v.reshape(s)


def distinct_abs(rng, s):
    """Distinct magnitudes away from 0, random signs (for norms)."""
    n = int(np.prod(s, dtype=int))
    v = (rng.permutation(n) + 1) * 0.3 + rng.uniform(-0.05, 0.05, n)
    return (v * rng.choice([-1.0, 1.0], n)).reshape(s)


def off_grid(rng, s):
    """Values at least 0.1 away from every integer and every half-integer."""
    frac = rng.choice([0.2, 0.3, 0.7, 0.8], s) + rng.uniform(-0.05, 0.05, s)
    return rng.integers(-3, 3, s) + frac


def non_integer_quotient(rng, q_shape, y):
    """x with x / y at least 0.1 from any integer (rounded division, fmod, remainder)."""
    q = off_grid(rng, q_shape)
    return q * y


def dim_arg(draw, ndim, allow_tuple=True):
    """An int dim (possibly negative) or a tuple of distinct dims."""
    if ndim == 0:
        return draw(st.sampled_from([0, -1]))
    if allow_tuple and draw(st.booleans()):
        ds = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
        return tuple(d - ndim if draw(st.booleans()) else d for d in ds)
    return draw(st.integers(-ndim, ndim - 1))


def one_dim(draw, ndim):
    return draw(st.integers(-max(ndim, 1), max(ndim, 1) - 1))


def norm_dims(dim, ndim):
    dims = dim if isinstance(dim, tuple) else (dim,)
    return tuple(sorted({d % max(ndim, 1) for d in dims}))


def const(a):
    return torch_tensor(np.asarray(a))


# ============================================================================ sample builders

BUILDERS = {}


def builder(*names):
    def register(fn):
        for n in names:
            BUILDERS.setdefault(n, []).append(fn)
        return fn
    return register


# ---------------------------------------------------------------- arithmetic
@builder("AddBackward0")
def _add(draw, rng, name):
    s1, s2 = bshapes(draw)
    alpha = draw(st.sampled_from([1, 2.5, -0.5]))
    return Case(lambda x, y: x.add(y, alpha=alpha), anyv(rng, s1), anyv(rng, s2))


@builder("AddBackward0")
def _add_const(draw, rng, name):
    s1, s2 = bshapes(draw)
    c = const(anyv(rng, s2))
    if draw(st.booleans()):
        return Case(lambda x: x + c, anyv(rng, s1))
    return Case(lambda x: c + x, anyv(rng, s1))


@builder("AddBackward1")
def _add_scalar(draw, rng, name):
    s = shape(draw)
    right = draw(st.booleans())
    return Case(lambda x: x + 1.5 if right else 1.5 + x, anyv(rng, s))


@builder("SubBackward0")
def _sub(draw, rng, name):
    s1, s2 = bshapes(draw)
    alpha = draw(st.sampled_from([1, 2.5]))
    return Case(lambda x, y: x.sub(y, alpha=alpha) if alpha != 1 else x - y,
                anyv(rng, s1), anyv(rng, s2))


@builder("SubBackward1")
def _sub_scalar(draw, rng, name):
    return Case(lambda x: x - 2.0, anyv(rng, shape(draw)))


@builder("RsubBackward1")
def _rsub(draw, rng, name):
    return Case(lambda x: 2.0 - x, anyv(rng, shape(draw)))


@builder("MulBackward0")
def _mul(draw, rng, name):
    s1, s2 = bshapes(draw)
    return Case(lambda x, y: x * y, anyv(rng, s1), anyv(rng, s2))


@builder("MulBackward0")
def _mul_self(draw, rng, name):
    return Case(lambda x: x.mul(x), anyv(rng, shape(draw)))


@builder("MulBackward1")
def _mul_scalar(draw, rng, name):
    c = draw(st.sampled_from([2.5, -3, 0.5]))
    right = draw(st.booleans())
    return Case(lambda x: x * c if right else c * x, anyv(rng, shape(draw)))


@builder("DivBackward0")
def _div(draw, rng, name):
    s1, s2 = bshapes(draw)
    return Case(lambda x, y: x / y, anyv(rng, s1), away0(rng, s2))


@builder("DivBackward0")
def _rdiv(draw, rng, name):
    return Case(lambda x: 2.0 / x, away0(rng, shape(draw)))


@builder("DivBackward1")
def _div_scalar(draw, rng, name):
    return Case(lambda x: x / 2.5, anyv(rng, shape(draw)))


@builder("DivBackward3")
def _div_rounded_scalar(draw, rng, name):
    mode = draw(st.sampled_from(["trunc", "floor"]))
    return Case(lambda x: x.div(2.0, rounding_mode=mode),
                non_integer_quotient(rng, shape(draw), 2.0))


@builder("DivBackward2")
def _div_rounded(draw, rng, name):
    s1, s2 = bshapes(draw)
    y = away0(rng, s2)
    x = non_integer_quotient(rng, np.broadcast_shapes(s1, s2), y)
    mode = draw(st.sampled_from(["trunc", "floor", "//"]))
    if mode == "//":
        return Case(lambda a, b: a // b, x, y)
    return Case(lambda a, b: a.div(b, rounding_mode=mode), x, y)


@builder("FmodBackward1", "RemainderBackward1")
def _fmod(draw, rng, name):
    s1, s2 = bshapes(draw)
    y = away0(rng, s2)
    x = non_integer_quotient(rng, np.broadcast_shapes(s1, s2), y)
    which = "fmod" if name.startswith("Fmod") else draw(st.sampled_from(["remainder", "%"]))
    if which == "fmod":
        return Case(lambda a, b: rt.torch_fmod(a, b), x, y)
    if which == "%":
        return Case(lambda a, b: a % b, x, y)
    return Case(lambda a, b: a.remainder(b), x, y)


@builder("FmodBackward0", "RemainderBackward0")
def _fmod_scalar(draw, rng, name):
    c = draw(st.sampled_from([1.5, -1.5]))
    x = non_integer_quotient(rng, shape(draw), c)
    which = "fmod" if name.startswith("Fmod") else draw(st.sampled_from(["remainder", "%"]))
    if which == "fmod":
        return Case(lambda a: a.fmod(c), x)
    if which == "%":
        return Case(lambda a: a % c, x)
    return Case(lambda a: rt.torch_remainder(a, c), x)


@builder("NegBackward0")
def _neg(draw, rng, name):
    form = draw(st.sampled_from(["-", "neg", "torch_neg", "negative"]))
    fn = {"-": lambda x: -x, "neg": lambda x: x.neg(), "torch_neg": lambda x: rt.torch_neg(x),
          "negative": lambda x: x.negative()}[form]
    return Case(fn, anyv(rng, shape(draw)))


@builder("PowBackward0")
def _pow_scalar(draw, rng, name):
    e = draw(st.sampled_from([2, 3, 0, 1, -1.5, 0.5, 2.5, -2]))
    s = shape(draw)
    x = anyv(rng, s) if float(e).is_integer() and e >= 0 else pos(rng, s)
    form = draw(st.sampled_from(["**", "pow", "torch_pow"]))
    if form == "**":
        return Case(lambda a: a ** e, x)
    if form == "pow":
        return Case(lambda a: a.pow(e), x)
    return Case(lambda a: rt.torch_pow(a, e), x)


@builder("PowBackward0")
def _square(draw, rng, name):
    return Case(lambda a: a.square(), anyv(rng, shape(draw)))


@builder("PowBackward1")
def _pow(draw, rng, name):
    s1, s2 = bshapes(draw)
    return Case(lambda x, y: x ** y, pos(rng, s1), anyv(rng, s2))


@builder("PowBackward1")
def _pow_const_exponent(draw, rng, name):
    s1, s2 = bshapes(draw)
    e = const(anyv(rng, s2))
    return Case(lambda x: x.pow(e), pos(rng, s1))


@builder("PowBackward2")
def _rpow(draw, rng, name):
    base = draw(st.sampled_from([2.0, 0.5, 3]))
    return Case(lambda x: base ** x, anyv(rng, shape(draw)))


# ---------------------------------------------------------------- unary elementwise
UNARY = {
    "AbsBackward0": ("abs", away0),
    "ExpBackward0": ("exp", anyv),
    "Expm1Backward0": ("expm1", anyv),
    "LogBackward0": ("log", pos),
    "Log1PBackward0": ("log1p", lambda rng, s: rng.uniform(-0.5, 2, s)),
    "Log2Backward0": ("log2", pos),
    "Log10Backward0": ("log10", pos),
    "SqrtBackward0": ("sqrt", pos),
    "RsqrtBackward0": ("rsqrt", pos),
    "ReciprocalBackward0": ("reciprocal", away0),
    "SinBackward0": ("sin", anyv),
    "CosBackward0": ("cos", anyv),
    "TanBackward0": ("tan", lambda rng, s: rng.uniform(-1.2, 1.2, s)),
    "TanhBackward0": ("tanh", anyv),
    "AsinBackward0": ("asin", lambda rng, s: rng.uniform(-0.9, 0.9, s)),
    "AcosBackward0": ("acos", lambda rng, s: rng.uniform(-0.9, 0.9, s)),
    "AtanBackward0": ("atan", anyv),
    "SinhBackward0": ("sinh", anyv),
    "CoshBackward0": ("cosh", anyv),
    "AsinhBackward0": ("asinh", anyv),
    "AcoshBackward0": ("acosh", lambda rng, s: rng.uniform(1.1, 3, s)),
    "AtanhBackward0": ("atanh", lambda rng, s: rng.uniform(-0.9, 0.9, s)),
    "SigmoidBackward0": ("sigmoid", lambda rng, s: rng.uniform(-4, 4, s)),
    "ReluBackward0": ("relu", away0),
    "SignBackward0": ("sign", away0),
    "RoundBackward0": ("round", off_grid),
    "FloorBackward0": ("floor", off_grid),
    "CeilBackward0": ("ceil", off_grid),
    "TruncBackward0": ("trunc", off_grid),
}


def _unary_builder(name, op, values):
    def build(draw, rng, name):
        x = values(rng, shape(draw))
        if draw(st.booleans()):
            return Case(lambda a: getattr(a, op)(), x)
        return Case(lambda a: getattr(rt, "torch_" + op)(a), x)
    return build


for _name, (_op, _values) in UNARY.items():
    builder(_name)(_unary_builder(_name, _op, _values))


@builder("AbsBackward0")
def _abs_operator(draw, rng, name):
    return Case(lambda a: abs(a), away0(rng, shape(draw)))


@builder("ReluBackward0")
def _nnf_relu(draw, rng, name):
    return Case(lambda a: rt.nnf_relu(a), away0(rng, shape(draw)))


@builder("ClampBackward1", "ClampMinBackward0", "ClampMaxBackward0")
def _clamp(draw, rng, name):
    x = off_grid(rng, shape(draw))  # bounds are integers: never within 0.1 of a value
    kind = {"ClampMinBackward0": "clamp_min", "ClampMaxBackward0": "clamp_max"}.get(name) or \
        draw(st.sampled_from(["min", "max", "both", "clip"]))
    fn = {"min": lambda a: a.clamp(min=0),
          "max": lambda a: a.clamp(max=1),
          "both": lambda a: rt.torch_clamp(a, -1, 1),
          "clamp_min": lambda a: a.clamp_min(-1),
          "clamp_max": lambda a: a.clamp_max(0.0),
          "clip": lambda a: a.clip(min=-2, max=2)}[kind]
    return Case(fn, x)


@builder("ClampBackward0")
def _clamp_tensor_bounds(draw, rng, name):
    s1, s2, s3 = bshapes(draw, 3)
    x = off_grid(rng, s1)                       # never within 0.1 of an integer bound
    lo = rng.integers(-3, 0, s2).astype(float)
    hi = rng.integers(0, 3, s3).astype(float)   # lo < hi
    kind = draw(st.sampled_from(["both", "min", "max", "min-const"]))
    if kind == "both":
        return Case(lambda a, b, c: a.clamp(min=b, max=c), x, lo, hi)
    if kind == "min":
        return Case(lambda a, b: rt.torch_clamp(a, min=b), x, lo)
    if kind == "max":
        return Case(lambda a, c: a.clamp(max=c), x, hi)
    return Case(lambda a: a.clamp(const(lo), const(hi)), x)


def _two_grids(rng, s1, s2):
    """x on multiples of 0.4, y on multiples of 0.4 shifted by 0.2: never closer than 0.1."""
    x = rng.integers(-5, 5, s1) * 0.4 + rng.uniform(-0.05, 0.05, s1)
    y = rng.integers(-5, 5, s2) * 0.4 + 0.2 + rng.uniform(-0.05, 0.05, s2)
    return x, y


@builder("MaximumBackward0", "MinimumBackward0")
def _maximum(draw, rng, name):
    s1, s2 = bshapes(draw)
    x, y = _two_grids(rng, s1, s2)
    kind = draw(st.sampled_from(["maximum", "max"] if name.startswith("Max") else
                                ["minimum", "min"]))
    fn = {"maximum": lambda a, b: rt.torch_maximum(a, b),
          "minimum": lambda a, b: a.minimum(b),
          "max": lambda a, b: rt.torch_max(a, b),
          "min": lambda a, b: a.min(b)}[kind]
    return Case(fn, x, y)


@builder("WhereBackward0")
def _where(draw, rng, name):
    s1, s2, s3 = bshapes(draw, 3)
    cond = const(rng.random(s3) > 0.5)
    return Case(lambda x, y: rt.torch_where(cond, x, y), anyv(rng, s1), anyv(rng, s2))


@builder("WhereBackward0")
def _where_scalar(draw, rng, name):
    s1, s2 = bshapes(draw)
    cond = const(rng.random(s2) > 0.5)
    if draw(st.booleans()):
        return Case(lambda x: rt.torch_where(cond, x, 0.5), anyv(rng, s1))
    return Case(lambda x: rt.torch_where(cond, 2.0, x), anyv(rng, s1))


# ---------------------------------------------------------------- reductions
@builder("SumBackward0", "MeanBackward0")
def _reduce_all(draw, rng, name):
    kind = "sum" if name.startswith("Sum") else "mean"
    if draw(st.booleans()):
        return Case(lambda a: getattr(a, kind)(), anyv(rng, shape(draw)))
    return Case(lambda a: getattr(rt, "torch_" + kind)(a), anyv(rng, shape(draw)))


@builder("SumBackward1", "MeanBackward1")
def _reduce_dim(draw, rng, name):
    s = shape(draw)
    # an empty dim list, or None with keepdim, reduces every dim through the dim overload
    dim = draw(st.sampled_from([(), [], None, "d"]))
    dim = dim_arg(draw, len(s)) if dim == "d" else dim
    keepdim = True if dim is None else draw(st.booleans())
    kind = "sum" if name.startswith("Sum") else "mean"
    return Case(lambda a: getattr(a, kind)(dim=dim, keepdim=keepdim), anyv(rng, s))


@builder("ProdBackward0", "ProdBackward1")
def _prod(draw, rng, name):
    s = shape(draw)
    x = anyv(rng, s)
    zeros = draw(st.integers(0, min(2, x.size)))
    flat = x.reshape(-1)
    flat[rng.choice(x.size, zeros, replace=False)] = 0.0
    if name == "ProdBackward0":
        return Case(lambda a: a.prod(), x)
    dim = one_dim(draw, len(s))
    keepdim = draw(st.booleans())
    return Case(lambda a: rt.torch_prod(a, dim=dim, keepdim=keepdim), x)


@builder("MaxBackward1", "MinBackward1")
def _max_all(draw, rng, name):
    kind = "max" if name.startswith("Max") else "min"
    if draw(st.booleans()):
        return Case(lambda a: getattr(a, kind)(), distinct(rng, shape(draw)))
    return Case(lambda a: getattr(rt, "torch_" + kind)(a), distinct(rng, shape(draw)))


@builder("MaxBackward0", "MinBackward0")
def _max_dim(draw, rng, name):
    s = shape(draw)
    dim = one_dim(draw, len(s))
    keepdim = draw(st.booleans())
    kind = "max" if name.startswith("Max") else "min"
    return Case(lambda a: getattr(a, kind)(dim=dim, keepdim=keepdim), distinct(rng, s))


@builder("MedianBackward0")
def _median_all(draw, rng, name):
    return Case(lambda a: a.median(), distinct(rng, shape(draw)))


@builder("MedianBackward1", "KthvalueBackward0")
def _rank_dim(draw, rng, name):
    s = shape(draw)
    dim = one_dim(draw, len(s))
    keepdim = draw(st.booleans())
    if name == "MedianBackward1":
        return Case(lambda a: a.median(dim, keepdim), distinct(rng, s))
    k = draw(st.integers(1, s[dim] if s else 1))
    return Case(lambda a: rt.torch_kthvalue(a, k, dim, keepdim), distinct(rng, s))


@builder("AmaxBackward0", "AminBackward0")
def _amax(draw, rng, name):
    s = shape(draw)
    dim = draw(st.one_of(st.just(()), st.just(None), st.just("all")))
    kind = "amax" if name.startswith("Amax") else "amin"
    keepdim = draw(st.booleans())
    if dim == "all":
        return Case(lambda a: getattr(a, kind)(), distinct(rng, s))
    dim = dim_arg(draw, len(s))
    return Case(lambda a: getattr(rt, "torch_" + kind)(a, dim, keepdim), distinct(rng, s))


@builder("LogsumexpBackward0")
def _logsumexp(draw, rng, name):
    s = shape(draw)
    dim = dim_arg(draw, len(s))
    keepdim = draw(st.booleans())
    return Case(lambda a: a.logsumexp(dim, keepdim=keepdim), anyv(rng, s))


@builder("VarBackward0", "StdBackward0")
def _var(draw, rng, name):
    s = shape(draw, min_dims=1, min_side=2)
    kind = "var" if name.startswith("Var") else "std"
    dim = draw(st.one_of(st.none(), st.just("d")))
    dim = None if dim is None else dim_arg(draw, len(s))
    keepdim = draw(st.booleans())
    corr = draw(st.sampled_from([{}, {"unbiased": False}, {"correction": 0},
                                 {"correction": 1}]))
    return Case(lambda a: getattr(a, kind)(dim=dim, keepdim=keepdim, **corr), anyv(rng, s))


@builder("NormBackward0")
def _norm(draw, rng, name):
    s = shape(draw)
    p = draw(st.sampled_from([2, 1, 3, 1.5, float("inf"), float("-inf"), "fro"]))
    dim = draw(st.one_of(st.none(), st.just("d")))
    dim = None if dim is None else dim_arg(draw, len(s))
    keepdim = draw(st.booleans())
    return Case(lambda a: a.norm(p=p, dim=dim, keepdim=keepdim), distinct_abs(rng, s))


@builder("RoundBackward1")
def _round_decimals(draw, rng, name):
    d = draw(st.sampled_from([1, 2]))
    # off_grid's distance from the (half-)integers, scaled to the decimal places rounded to
    return Case(lambda a: a.round(decimals=d), off_grid(rng, shape(draw)) / 10 ** d)


@builder("CumsumBackward0")
def _cumsum(draw, rng, name):
    s = shape(draw)
    dim = one_dim(draw, len(s))
    return Case(lambda a: a.cumsum(dim), anyv(rng, s))


@builder("SoftmaxBackward0", "LogSoftmaxBackward0")
def _softmax(draw, rng, name):
    s = shape(draw)
    dim = one_dim(draw, len(s))
    kind = draw(st.sampled_from(["softmax", "nnf_softmax"] if name.startswith("Softmax") else
                                ["log_softmax", "nnf_log_softmax"]))
    if kind.startswith("nnf"):
        return Case(lambda a: getattr(rt, kind)(a, dim), anyv(rng, s))
    return Case(lambda a: getattr(a, kind)(dim), anyv(rng, s))


# ---------------------------------------------------------------- linear algebra
def _side(draw):
    return draw(st.integers(1, 3))


@builder("MmBackward0")
def _mm(draw, rng, name):
    n, k, m = _side(draw), _side(draw), _side(draw)
    form = draw(st.sampled_from(["mm", "torch_mm", "matmul", "@"]))
    fn = {"mm": lambda a, b: a.mm(b), "torch_mm": lambda a, b: rt.torch_mm(a, b),
          "matmul": lambda a, b: a.matmul(b), "@": lambda a, b: a @ b}[form]
    return Case(fn, anyv(rng, (n, k)), anyv(rng, (k, m)))


@builder("MatmulBackward0")
def _matmul_batched(draw, rng, name):
    b1, b2 = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2,
                                                    min_side=1, max_side=2)).input_shapes
    if not b1 and not b2:
        b1 = (2,)
    n, k, m = _side(draw), _side(draw), _side(draw)
    return Case(lambda a, b: a.matmul(b), anyv(rng, b1 + (n, k)), anyv(rng, b2 + (k, m)))


@builder("MatmulBackward0")
def _matmul_vector_batch(draw, rng, name):
    bs = (draw(st.integers(1, 2)),)
    n, k = _side(draw), _side(draw)
    if draw(st.booleans()):
        return Case(lambda a, b: rt.torch_matmul(a, b), anyv(rng, (k,)), anyv(rng, bs + (k, n)))
    return Case(lambda a, b: rt.torch_matmul(a, b), anyv(rng, bs + (n, k)), anyv(rng, (k,)))


@builder("MvBackward0")
def _mv(draw, rng, name):
    n, k = _side(draw), _side(draw)
    if draw(st.booleans()):
        return Case(lambda a, b: a.mv(b), anyv(rng, (n, k)), anyv(rng, (k,)))
    return Case(lambda a, b: a.matmul(b), anyv(rng, (n, k)), anyv(rng, (k,)))


@builder("DotBackward0")
def _dot(draw, rng, name):
    k = _side(draw)
    if draw(st.booleans()):
        return Case(lambda a, b: a.dot(b), anyv(rng, (k,)), anyv(rng, (k,)))
    return Case(lambda a, b: rt.torch_matmul(a, b), anyv(rng, (k,)), anyv(rng, (k,)))


@builder("AddmmBackward0")
def _addmm(draw, rng, name):
    n, k, m = _side(draw), _side(draw), _side(draw)
    bias_shape = draw(st.sampled_from([(n, m), (m,), (1, m), ()]))
    beta = draw(st.sampled_from([1, 0.5]))
    alpha = draw(st.sampled_from([1, 2.0]))
    return Case(lambda c, a, b: rt.torch_addmm(c, a, b, beta=beta, alpha=alpha),
                anyv(rng, bias_shape), anyv(rng, (n, k)), anyv(rng, (k, m)))


@builder("AddmmBackward0")
def _linear(draw, rng, name):
    n, k, m = _side(draw), _side(draw), _side(draw)
    return Case(lambda x, w, b: rt.nnf_linear(x, w, b),
                anyv(rng, (n, k)), anyv(rng, (m, k)), anyv(rng, (m,)))


# ---------------------------------------------------------------- shape and views
@builder("TBackward0")
def _t(draw, rng, name):
    return Case(lambda a: a.t(), anyv(rng, shape(draw, max_dims=2)))


@builder("TransposeBackward0")
def _transpose(draw, rng, name):
    s = shape(draw)
    d0, d1 = one_dim(draw, len(s)), one_dim(draw, len(s))
    return Case(lambda a: a.transpose(d0, d1), anyv(rng, s))


@builder("PermuteBackward0")
def _permute(draw, rng, name):
    s = shape(draw)
    perm = list(draw(st.permutations(range(len(s)))))
    perm = [p - len(s) if draw(st.booleans()) else p for p in perm]
    if draw(st.booleans()):
        return Case(lambda a: a.permute(*perm), anyv(rng, s))
    return Case(lambda a: rt.torch_permute(a, perm), anyv(rng, s))


@builder("ViewBackward0")
def _view(draw, rng, name):
    s = shape(draw)
    n = int(np.prod(s, dtype=int))
    kind = draw(st.sampled_from(["view", "reshape", "flatten", "view-1"]))
    target = tuple(draw(st.permutations(s))) if s else ()
    fn = {"view": lambda a: a.view(target), "reshape": lambda a: a.reshape(*target),
          "flatten": lambda a: a.flatten(), "view-1": lambda a: a.view(-1, 1) if n else a}[kind]
    if len(s) == 0 and kind in ("view", "reshape"):
        fn = lambda a: a.reshape(1)  # noqa: E731
    return Case(fn, anyv(rng, s))


@builder("UnsafeViewBackward0")
def _unsafe_view(draw, rng, name):
    n, m = draw(st.integers(2, 3)), draw(st.integers(2, 3))
    if draw(st.booleans()):
        return Case(lambda a: a.t().reshape(-1), anyv(rng, (n, m)))
    return Case(lambda a: a.transpose(0, 2).reshape(m, -1), anyv(rng, (n, 2, m)))


@builder("UnsqueezeBackward0")
def _unsqueeze(draw, rng, name):
    s = shape(draw)
    d = draw(st.integers(-len(s) - 1, len(s)))
    return Case(lambda a: a.unsqueeze(d), anyv(rng, s))


@builder("SqueezeBackward0")
def _squeeze_all(draw, rng, name):
    s = shape(draw, max_side=2)
    return Case(lambda a: a.squeeze(), anyv(rng, s))


@builder("SqueezeBackward1")
def _squeeze_dim(draw, rng, name):
    s = shape(draw, max_side=2)
    dim = dim_arg(draw, len(s))
    return Case(lambda a: rt.torch_squeeze(a, dim), anyv(rng, s))


@builder("ExpandBackward0")
def _expand(draw, rng, name):
    small, target = draw(hnp.mutually_broadcastable_shapes(
        num_shapes=1, min_dims=0, max_dims=3, max_side=3)).input_shapes[0], None
    result = draw(hnp.broadcastable_shapes(small, min_dims=len(small), max_dims=4, max_side=3))
    target = np.broadcast_shapes(small, result)
    kind = draw(st.sampled_from(["expand", "tuple", "-1", "expand_as", "broadcast_to"]))
    if kind == "expand":
        return Case(lambda a: a.expand(*target), anyv(rng, small))
    if kind == "tuple":
        return Case(lambda a: a.expand(target), anyv(rng, small))
    if kind == "-1":
        lead = len(target) - len(small)
        t2 = tuple(-1 if i >= lead and draw(st.booleans()) else s for i, s in enumerate(target))
        return Case(lambda a: a.expand(*t2), anyv(rng, small))
    if kind == "expand_as":
        other = const(np.zeros(target))
        return Case(lambda a: a.expand_as(other), anyv(rng, small))
    return Case(lambda a: rt.torch_broadcast_to(a, target), anyv(rng, small))


@builder("RepeatBackward0")
def _repeat(draw, rng, name):
    s = shape(draw)
    reps = draw(st.lists(st.integers(1, 3), min_size=len(s), max_size=len(s) + 2))
    return Case(lambda a: a.repeat(*reps), anyv(rng, s))


@builder("CatBackward0")
def _cat(draw, rng, name):
    s = shape(draw, min_dims=1)
    d = one_dim(draw, len(s))
    sizes = draw(st.lists(st.integers(1, 3), min_size=2, max_size=3))
    shapes = [tuple(k if i == d % len(s) else n for i, n in enumerate(s)) for k in sizes]
    c = const(anyv(rng, shapes[0]))
    if draw(st.booleans()):
        return Case(lambda *xs: rt.torch_cat(list(xs), dim=d), *[anyv(rng, sh) for sh in shapes])
    return Case(lambda a, b: rt.torch_cat([a, c, b], d), anyv(rng, shapes[1]),
                anyv(rng, shapes[-1]))


@builder("StackBackward0")
def _stack(draw, rng, name):
    s = shape(draw)
    d = draw(st.integers(-len(s) - 1, len(s)))
    k = draw(st.integers(1, 3))
    return Case(lambda *xs: rt.torch_stack(list(xs), d), *[anyv(rng, s) for _ in range(k)])


@builder("SplitBackward0", "SplitWithSizesBackward0")
def _split(draw, rng, name):
    s = shape(draw, min_dims=1)
    d = one_dim(draw, len(s))
    n = s[d]
    kind = "sizes" if name == "SplitWithSizesBackward0" else draw(st.sampled_from(["split",
                                                                                  "chunk"]))
    if kind == "split":
        arg = draw(st.integers(1, 3))
        fn0 = lambda a: a.split(arg, d)  # noqa: E731
    elif kind == "sizes":
        cuts = sorted(draw(st.lists(st.integers(0, n), max_size=2)))
        arg = [b - a for a, b in zip([0] + cuts, cuts + [n])]
        fn0 = lambda a: rt.torch_split(a, arg, dim=d)  # noqa: E731
    else:
        arg = draw(st.integers(1, 3))
        fn0 = lambda a: a.chunk(arg, d)  # noqa: E731
    pieces = len(fn0(rt.torch_zeros(s)))
    keep = draw(st.lists(st.booleans(), min_size=pieces, max_size=pieces).filter(any))
    return Case(lambda a: tuple(p for p, k in zip(fn0(a), keep) if k), anyv(rng, s))


@builder("UnbindBackward0")
def _unbind(draw, rng, name):
    s = shape(draw, min_dims=1)
    d = one_dim(draw, len(s))
    keep = draw(st.lists(st.booleans(), min_size=s[d], max_size=s[d]).filter(any))
    return Case(lambda a: tuple(p for p, k in zip(a.unbind(d), keep) if k), anyv(rng, s))


@builder("SelectBackward0")
def _select(draw, rng, name):
    s = shape(draw, min_dims=1)
    d = one_dim(draw, len(s))
    i = draw(st.integers(-s[d], s[d] - 1))
    kind = draw(st.sampled_from(["select", "getitem", "ellipsis"]))
    if kind == "select":
        return Case(lambda a: a.select(d, i), anyv(rng, s))
    if kind == "ellipsis":
        j = draw(st.integers(-s[-1], s[-1] - 1))
        return Case(lambda a: a[..., j], anyv(rng, s))
    k = draw(st.integers(-s[0], s[0] - 1))
    return Case(lambda a: a[k], anyv(rng, s))


@builder("SliceBackward0")
def _slice(draw, rng, name):
    s = shape(draw, min_dims=1)
    n = s[0]
    start = draw(st.integers(-n, n))
    stop = draw(st.one_of(st.none(), st.integers(-n, n)))
    step = draw(st.sampled_from([None, 1, 2]))
    if slice(start, stop, step) == slice(None):
        start = 1
    kind = draw(st.sampled_from(["getitem", "narrow", "second-dim"]))
    if kind == "narrow":
        st0 = draw(st.integers(0, n - 1))
        ln = draw(st.integers(0, n - st0))
        return Case(lambda a: a.narrow(0, st0, ln), anyv(rng, s))
    if kind == "second-dim" and len(s) >= 2:
        return Case(lambda a: a[:, start:stop:step], anyv(rng, (s[1],) + s))
    return Case(lambda a: a[start:stop:step], anyv(rng, s))


def _diagonal_args(draw, s):
    d1 = one_dim(draw, len(s))
    d2 = draw(st.integers(-len(s), len(s) - 1).filter(lambda d: d % len(s) != d1 % len(s)))
    return draw(st.integers(-s[d1 % len(s)], s[d2 % len(s)])), d1, d2


@builder("DiagonalBackward0")
def _diagonal(draw, rng, name):
    s = shape(draw, min_dims=2, max_dims=4)
    offset, d1, d2 = _diagonal_args(draw, s)
    return Case(lambda a: a.diagonal(offset, d1, d2), anyv(rng, s))


@builder("DiagonalBackwardBackward0")
def _diagonal_backward(draw, rng, name):
    """The backward of diagonal, differentiated: the gradient of sum(x.diagonal() * y) w.r.t.
    x is y on the diagonal of zeros (DiagonalBackwardBackward0), a function of y."""
    s = shape(draw, min_dims=2, max_dims=4)
    offset, d1, d2 = _diagonal_args(draw, s)
    x0 = anyv(rng, s)
    out_shape = tuple(x0.diagonal(offset, d1, d2).shape)

    def fn(y):
        x = torch_tensor(x0, requires_grad=True)
        return autograd_grad((x.diagonal(offset, d1, d2) * y).sum(), [x], create_graph=True)[0]
    return Case(fn, anyv(rng, out_shape))


@builder("IndexBackward0")
def _index(draw, rng, name):
    s = shape(draw, min_dims=1)
    kind = draw(st.sampled_from(["list", "tensor", "mask", "mask-tensor", "second", "pair"]))
    n = s[0]
    idx = draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=4))  # repeats accumulate
    if kind == "list":
        return Case(lambda a: a[idx], anyv(rng, s))
    if kind == "tensor":
        t = rt.torch_tensor(idx)
        return Case(lambda a: a[t], anyv(rng, s))
    if kind in ("mask", "mask-tensor"):
        m = rng.random(s) > 0.4
        key = m if kind == "mask" else rt.torch_tensor(m)
        return Case(lambda a: a[key], anyv(rng, s))
    if kind == "second" and len(s) >= 2:
        j = draw(st.lists(st.integers(0, s[1] - 1), min_size=1, max_size=3))
        return Case(lambda a: a[:, j], anyv(rng, s))
    if len(s) >= 2:
        j = draw(st.lists(st.integers(0, s[1] - 1), min_size=len(idx), max_size=len(idx)))
        return Case(lambda a: a[idx, j], anyv(rng, s))
    return Case(lambda a: a[idx], anyv(rng, s))


@builder("IndexBackwardBackward0")
def _index_backward(draw, rng, name):
    """The backward of indexing, differentiated: the gradient of sum(x[idx] * y) w.r.t. x is
    y scattered into zeros (IndexBackwardBackward0), a function of y."""
    s = shape(draw, min_dims=1)
    idx = draw(st.lists(st.integers(0, s[0] - 1), min_size=1, max_size=4))
    x0 = anyv(rng, s)

    def fn(y):
        x = torch_tensor(x0, requires_grad=True)
        return autograd_grad((x[idx] * y).sum(), [x], create_graph=True)[0]
    return Case(fn, anyv(rng, (len(idx),) + s[1:]))


@builder("IndexSelectBackward0")
def _index_select(draw, rng, name):
    s = shape(draw, min_dims=1)
    d = one_dim(draw, len(s))
    idx = draw(st.lists(st.integers(0, s[d] - 1), min_size=1, max_size=4))
    return Case(lambda a: a.index_select(d, rt.torch_tensor(idx)), anyv(rng, s))


@builder("GatherBackward0")
def _gather(draw, rng, name):
    s = shape(draw, min_dims=1)
    d = one_dim(draw, len(s))
    ishape = tuple(draw(st.integers(1, 3)) if i == d % len(s) else draw(st.integers(1, n))
                   for i, n in enumerate(s))
    idx = rt.torch_tensor(rng.integers(0, s[d], ishape))
    return Case(lambda a: a.gather(d, idx), anyv(rng, s))


@builder("ScatterAddBackward0")
def _scatter_add(draw, rng, name):
    s = shape(draw, min_dims=1)
    d = one_dim(draw, len(s))
    ishape = tuple(draw(st.integers(1, 3)) if i == d % len(s) else draw(st.integers(1, n))
                   for i, n in enumerate(s))
    idx = rt.torch_tensor(rng.integers(0, s[d], ishape))
    src_shape = tuple(k + draw(st.integers(0, 1)) for k in ishape)
    return Case(lambda a, b: a.scatter_add(d, idx, b), anyv(rng, s), anyv(rng, src_shape))


@builder("MaskedFillBackward0")
def _masked_fill(draw, rng, name):
    s1 = shape(draw)
    s2 = smaller_shape(draw, s1)
    mask = const(rng.random(s2) > 0.5)
    return Case(lambda a: a.masked_fill(mask, 0.5), anyv(rng, s1))


@builder("MaskedFillBackward1")
def _masked_fill_tensor(draw, rng, name):
    s = shape(draw)
    mask = const(rng.random(s) > 0.5)
    return Case(lambda a, v: rt.torch_masked_fill(a, mask, v), anyv(rng, s), anyv(rng, ()))


@builder("FlipBackward0")
def _flip(draw, rng, name):
    s = shape(draw)
    dims = dim_arg(draw, len(s))
    return Case(lambda a: a.flip(dims), anyv(rng, s))


@builder("RollBackward0")
def _roll(draw, rng, name):
    s = shape(draw)
    if not s or draw(st.booleans()):
        shift = draw(st.integers(-7, 7))
        return Case(lambda a: a.roll(shift), anyv(rng, s))  # over the flattened tensor
    dims = tuple(sorted(set(draw(st.lists(st.integers(0, len(s) - 1), min_size=1,
                                          max_size=len(s))))))
    shifts = tuple(draw(st.integers(-5, 5)) for _ in dims)
    return Case(lambda a: a.roll(shifts, dims), anyv(rng, s))


@builder("CloneBackward0")
def _clone(draw, rng, name):
    return Case(lambda a: a.clone(), anyv(rng, shape(draw)))


@builder("ToCopyBackward0")
def _to_copy(draw, rng, name):
    return Case(lambda a: a.to(rt.torch_float64(), copy=True), anyv(rng, shape(draw)))


@builder("torch::autograd::CopyBackwards")
def _leaf_grad_copy(draw, rng, name):
    """A leaf's first .grad under create_graph is a graph-connected copy."""
    def fn(x):
        y = (x * x * x).sum()
        y.backward(create_graph=True)
        return x.grad
    return Case(fn, anyv(rng, shape(draw)))


@builder("CopyBackwards")
def _copy_(draw, rng, name):
    s1 = shape(draw)
    s2 = smaller_shape(draw, s1)

    def fn(x, src):
        y = x * 2.0
        y.copy_(src)
        return y * y
    return Case(fn, anyv(rng, s1), anyv(rng, s2))


@builder("FillBackward0", "ZeroBackward0")
def _fill(draw, rng, name):
    kind = "zero" if name.startswith("Zero") else draw(st.sampled_from(["fill", "fill-tensor"]))

    def fn(x):
        y = x * 2.0
        if kind == "zero":
            y.zero_()
        else:
            y.fill_(1.5 if kind == "fill" else rt.torch_tensor(1.5))
        return y + x * x
    return Case(fn, anyv(rng, shape(draw)))


# ---------------------------------------------------------------- losses
@builder("MseLossBackward0")
def _mse(draw, rng, name):
    s = shape(draw)
    reduction = draw(st.sampled_from(["mean", "sum", "none"]))
    if draw(st.booleans()):
        return Case(lambda a, b: rt.nnf_mse_loss(a, b, reduction=reduction),
                    anyv(rng, s), anyv(rng, s))
    t = const(anyv(rng, s))
    return Case(lambda a: rt.nnf_mse_loss(a, t, reduction), anyv(rng, s))


@builder("NllLossBackward0", "NllLoss2DBackward0")
def _nll(draw, rng, name):
    c = draw(st.integers(2, 4))
    layout = draw(st.sampled_from(["NC", "C"] if name == "NllLossBackward0" else
                                  ["NCd", "NCdd"]))
    n, extra = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    in_shape = {"NC": (n, c), "C": (c,), "NCd": (n, c, extra), "NCdd": (n, c, extra, 2)}[layout]
    t_shape = {"NC": (n,), "C": (), "NCd": (n, extra), "NCdd": (n, extra, 2)}[layout]
    target = rng.integers(0, c, t_shape)
    ignore = draw(st.sampled_from([-100, 1]))
    if ignore == 1 and not np.any(target != 1):
        ignore = -100
    weight = const(pos(rng, (c,))) if draw(st.booleans()) else None
    reduction = draw(st.sampled_from(["mean", "sum", "none"]))
    tt = rt.torch_tensor(target)
    if draw(st.booleans()):
        return Case(lambda a: rt.nnf_nll_loss(a, tt, weight=weight, ignore_index=ignore,
                                               reduction=reduction), anyv(rng, in_shape))
    return Case(lambda a: rt.nnf_cross_entropy(a, tt, weight=weight, ignore_index=ignore,
                                               reduction=reduction), anyv(rng, in_shape))


@builder("BinaryCrossEntropyBackward0")
def _bce(draw, rng, name):
    s = shape(draw)
    weight = const(pos(rng, s)) if draw(st.booleans()) else None
    reduction = draw(st.sampled_from(["mean", "sum", "none"]))
    x = rng.uniform(0.05, 0.95, s)
    if draw(st.booleans()):
        t = const(rng.uniform(0, 1, s))
        return Case(lambda a: rt.nnf_binary_cross_entropy(a, t, weight, reduction), x)
    return Case(lambda a, b: rt.nnf_binary_cross_entropy(a, b, weight=weight,
                                                         reduction=reduction),
                x, rng.uniform(0, 1, s))


@builder("IndexPutBackward0", "CopySlices")
def _index_put(draw, rng, name):
    s = shape(draw, min_dims=1)
    n = s[0]
    kind = draw(st.sampled_from(["int", "slice"] if name == "CopySlices" else
                                ["int", "slice", "list", "mask"]))
    if kind == "int":
        key, vshape = draw(st.integers(-n, n - 1)), s[1:]
    elif kind == "slice":
        a = draw(st.integers(0, n - 1))
        key, vshape = slice(a, None), (n - a,) + s[1:]
    elif kind == "list":
        key = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
        vshape = (len(key),) + s[1:]
    else:
        m = rng.random(s[:1]) > 0.5
        key, vshape = m, (int(m.sum()),) + s[1:]
    if draw(st.booleans()) and vshape:  # a broadcast value
        vshape = vshape[1:]
    accumulate = draw(st.booleans())
    setitem = name == "CopySlices" or (kind in ("list", "mask") and draw(st.booleans()))

    def fn(x, v):
        if setitem:
            y = x * 1.0
            y[key] = v
            return y
        return rt.torch_index_put(x, (rt.torch_tensor(key) if kind == "list" else key,), v,
                                  accumulate=accumulate)
    return Case(fn, anyv(rng, s), anyv(rng, vshape))


# the nn functions' rows (rtorchpy/derivatives/nn.py)
from _nn_derivative_samples import add_samples  # noqa: E402

add_samples(builder, Case, shape, anyv, away0, const)

# convolution, padding and pooling rows: samples in their own file
from _conv_derivative_samples import add_adaptive_samples, add_interpolate_samples  # noqa: E402
from _conv_derivative_samples import add_samples as add_conv_samples  # noqa: E402

add_conv_samples(builder, Case, anyv)
add_adaptive_samples(builder, Case, anyv)
add_interpolate_samples(builder, Case, anyv)

# matrix, shape and sorting rows (derivatives/matops.py): samples in their own file
from _matops_builders import add_builders  # noqa: E402

add_builders(builder, Case, shape, anyv, distinct)

# recurrent layers (derivatives/rnn.py): samples in their own file
from _rnn_derivative_samples import add_rnn_samples  # noqa: E402

add_rnn_samples(builder, Case, anyv)

# mish, rrelu's random slopes, CTC (derivatives/nn_more.py): samples in their own file
from _nn_more_derivative_samples import add_more_samples  # noqa: E402

add_more_samples(builder, Case, shape, anyv, away0)
# issue 33's ops around sequences (derivatives/seq_extras.py): samples in their own file
from _seq_extras_samples import add_fft_samples, add_seq_samples  # noqa: E402

add_seq_samples(builder, Case, shape, anyv, distinct)
add_fft_samples(builder, Case, shape, anyv)

# ---------------------------------------------------------------- special functions, sampling
# (rtorchpy/derivatives/special.py; values and PyTorch comparisons in tests/test_special.py)
@builder("ErfBackward0", "ErfcBackward0")
def _erf_like(draw, rng, name):
    fn = rt.torch_erf if name == "ErfBackward0" else rt.torch_erfc
    return Case(fn, anyv(rng, shape(draw)))


@builder("ErfinvBackward0")
def _erfinv(draw, rng, name):
    return Case(rt.torch_erfinv, rng.uniform(-0.9, 0.9, shape(draw)))


@builder("LgammaBackward0", "DigammaBackward0")
def _gamma_like(draw, rng, name):
    fn = rt.torch_lgamma if name == "LgammaBackward0" else rt.torch_digamma
    s = shape(draw)
    # positive, and negative values at least 0.2 from the poles (0, -1, -2, ...)
    return Case(fn, rng.integers(-2, 4, s) + rng.uniform(0.2, 0.8, s))


@builder("PolygammaBackward0")
def _polygamma(draw, rng, name):
    n = draw(st.sampled_from([0, 1, 2, 3]))
    return Case(lambda x: x.polygamma(n), pos(rng, shape(draw), 0.5, 6.0))


@builder("LogitBackward0")
def _logit(draw, rng, name):
    eps = draw(st.sampled_from([None, 0.25]))
    s = shape(draw)
    # with eps, values on both sides of the clamp (away from its edges)
    x = rng.uniform(0.05, 0.95, s) if eps is None else \
        rng.choice([0.1, 0.4, 0.6, 0.9], s) + rng.uniform(-0.05, 0.05, s)
    return Case(lambda t: t.logit(eps), x)


@builder("Atan2Backward0", "HypotBackward0")
def _atan2_like(draw, rng, name):
    s1, s2 = bshapes(draw)
    fn = rt.torch_atan2 if name == "Atan2Backward0" else rt.torch_hypot
    return Case(fn, away0(rng, s1), away0(rng, s2))


@builder("XlogyBackward0")
def _xlogy(draw, rng, name):
    s1, s2 = bshapes(draw)
    return Case(rt.torch_xlogy, anyv(rng, s1), pos(rng, s2))


@builder("XlogyBackward1")
def _xlogy_scalar_self(draw, rng, name):
    return Case(lambda y: rt.torch_xlogy(1.5, y), pos(rng, shape(draw)))


@builder("XlogyBackward2")
def _xlogy_scalar_other(draw, rng, name):
    return Case(lambda x: rt.torch_xlogy(x, 2.5), anyv(rng, shape(draw)))


def _seeded(fn):
    """A sampler made deterministic (one seed per call) and multiplied by 0: its gradient is
    libtorch's 0, which the numerical gradient of a 0 output confirms."""
    def run(*xs):
        rt.torch_manual_seed(7)
        return fn(*xs) * 0.0
    return run


@builder("NormalBackward1", "NormalBackward2", "NormalBackward3")
def _normal(draw, rng, name):
    s1, s2 = bshapes(draw)
    if name == "NormalBackward1":
        return Case(_seeded(lambda m: rt.torch_normal(m, 0.5)), anyv(rng, s1))
    if name == "NormalBackward2":
        return Case(_seeded(lambda sd: rt.torch_normal(1.0, sd)), pos(rng, s1))
    return Case(_seeded(rt.torch_normal), anyv(rng, s1), pos(rng, s2))


@builder("PoissonBackward0")
def _poisson(draw, rng, name):
    return Case(_seeded(rt.torch_poisson), pos(rng, shape(draw), 0.5, 5.0))


@builder("BernoulliBackward0")
def _bernoulli(draw, rng, name):
    return Case(_seeded(rt.torch_bernoulli), rng.uniform(0.1, 0.9, shape(draw)))

# ---------------------------------------------------------------- linalg_*
# Decompositions are checked through outputs that do not depend on the sign (or rotation) of
# their vectors, which no finite difference could follow; inputs are well conditioned, with
# distinct eigen/singular values. Ops that read one triangle of a matrix get a matrix that is
# symmetric (or masked) through recorded ops, so the numerical derivative sees the same thing.
def _batch(draw):
    return draw(st.sampled_from([(), (2,)]))


def _wellcond(rng, b, n):
    return rng.uniform(-1, 1, b + (n, n)) + n * np.eye(n) * rng.choice([-1.0, 1.0])


def _spd(rng, b, n):
    x = rng.uniform(-1, 1, b + (n, n))
    return x @ np.swapaxes(x, -1, -2) + n * np.eye(n)


def _sym(a):
    return (a + a.mT) * 0.5


def _lower(a):
    return a * const(np.tril(np.ones(a.shape[-2:])))


@builder("LinalgDetBackward0")
def _l_det(draw, rng, name):
    return Case(rt.linalg_det, _wellcond(rng, _batch(draw), draw(st.integers(1, 3))))


@builder("LinalgSlogdetBackward0")
def _l_slogdet(draw, rng, name):
    return Case(rt.linalg_slogdet, _wellcond(rng, _batch(draw), draw(st.integers(1, 3))))


@builder("LinalgInvExBackward0")
def _l_inv(draw, rng, name):
    fn = draw(st.sampled_from([rt.linalg_inv, rt.linalg_inv_ex,
                               lambda a: rt.linalg_matrix_power(a, -2)]))
    return Case(fn, _wellcond(rng, _batch(draw), draw(st.integers(1, 3))))


@builder("LinalgSolveExBackward0")
def _l_solve(draw, rng, name):
    b, n = _batch(draw), draw(st.integers(1, 3))
    kind = draw(st.sampled_from(["matrix", "vector", "batched vector", "broadcast", "right"]))
    rhs = {"matrix": b + (n, 2), "vector": (n,), "batched vector": b + (n,),
           "broadcast": (3,) + b + (n, 2), "right": b + (2, n)}[kind]
    left = kind != "right"
    return Case(lambda a, y: rt.linalg_solve(a, y, left), _wellcond(rng, b, n), anyv(rng, rhs))


@builder("LinalgSolveTriangularBackward0")
def _l_solve_triangular(draw, rng, name):
    b, n = _batch(draw), draw(st.integers(1, 3))
    upper, left, unit = draw(st.booleans()), draw(st.booleans()), draw(st.booleans())
    rhs = b + ((n, 2) if left else (2, n))
    return Case(lambda a, y: rt.linalg_solve_triangular(a, y, upper, left, unit),
                _wellcond(rng, b, n), anyv(rng, rhs))


@builder("CholeskySolveBackward0")
def _l_cholesky_solve(draw, rng, name):
    b, n = _batch(draw), draw(st.integers(1, 3))
    L = np.linalg.cholesky(_spd(rng, b, n))
    return Case(lambda y, l: rt.torch_cholesky_solve(y, _lower(l)), anyv(rng, b + (n, 2)), L)


@builder("LinalgCholeskyExBackward0")
def _l_cholesky(draw, rng, name):
    upper = draw(st.booleans())
    fn = draw(st.sampled_from([rt.linalg_cholesky, rt.linalg_cholesky_ex]))
    return Case(lambda a: fn(_sym(a), upper=upper),
                _spd(rng, _batch(draw), draw(st.integers(1, 3))))


@builder("LinalgQrBackward0")
def _l_qr(draw, rng, name):
    m, n = draw(st.sampled_from([(3, 3), (4, 2), (2, 3), (3, 1)]))
    mode = "complete" if m <= n and draw(st.booleans()) else "reduced"
    return Case(lambda a: rt.linalg_qr(a, mode), anyv(rng, _batch(draw) + (m, n)) + np.eye(m, n))


@builder("LinalgEighBackward0")
def _l_eigh(draw, rng, name):
    b, n = _batch(draw), draw(st.integers(1, 3))
    a = _spd(rng, b, n) + np.diag(np.arange(n) * 1.5)  # distinct eigenvalues
    uplo = draw(st.sampled_from(["L", "U"]))

    def fn(x):
        w, v = rt.linalg_eigh(_sym(x), uplo)
        return w, v * v, rt.torch_matmul(v * w.unsqueeze(-2), v.mT)
    return Case(draw(st.sampled_from([fn, lambda x: rt.linalg_eigvalsh(_sym(x), uplo)])), a)


@builder("LinalgSvdBackward0")
def _l_svd(draw, rng, name):
    m, n = draw(st.sampled_from([(3, 3), (4, 2), (2, 3), (1, 2)]))
    full = draw(st.booleans())
    a = anyv(rng, _batch(draw) + (m, n)) * 0.2 + np.eye(m, n) * np.array([3.0, 1.5, 0.5])[:n]

    def fn(x):
        u, s, vh = rt.linalg_svd(x, full)
        k = s.shape[-1]
        u, vh = u[..., :, :k], vh[..., :k, :]
        return s, u * u, vh * vh, rt.torch_matmul(u, vh)
    return Case(draw(st.sampled_from([fn, rt.linalg_svdvals])), a)


@builder("LinalgPinvBackward0")
def _l_pinv(draw, rng, name):
    m, n = draw(st.sampled_from([(3, 3), (4, 2), (2, 3)]))
    # singular values kept away from 0: near a rank drop, central differences of the second
    # derivative lose digits (a draw once missed rtol 1e-4 by 2e-4)
    return Case(rt.linalg_pinv, 0.4 * anyv(rng, _batch(draw) + (m, n)) + 2 * np.eye(m, n))


@builder("LinalgLstsqBackward0")
def _l_lstsq(draw, rng, name):
    b = _batch(draw)
    m, n = draw(st.sampled_from([(3, 3), (4, 2), (2, 3)]))
    driver = draw(st.sampled_from(["gelsy", "gelsd", "gels"]))
    rhs = b + draw(st.sampled_from([(m, 2), (m,)]))
    return Case(lambda a, y: rt.linalg_lstsq(a, y, driver=driver)[:2],
                0.4 * anyv(rng, b + (m, n)) + 2 * np.eye(m, n), anyv(rng, rhs))


@builder("LinalgHouseholderProductBackward0")
def _l_householder(draw, rng, name):
    m, n = draw(st.sampled_from([(3, 3), (4, 2), (3, 2)]))
    k = draw(st.integers(1, n))
    b = _batch(draw)
    return Case(rt.linalg_householder_product, anyv(rng, b + (m, n)), anyv(rng, b + (k,)))


@builder("LinalgLuFactorExBackward0")
def _l_lu_factor(draw, rng, name):
    m, n = draw(st.sampled_from([(3, 3), (4, 2), (2, 4)]))
    # a dominant diagonal keeps the pivot order fixed under finite differences
    return Case(lambda a: rt.torch_lu(a)[0], anyv(rng, _batch(draw) + (m, n)) + 3 * np.eye(m, n))


@builder("LinalgVectorNormBackward0")
def _l_vector_norm(draw, rng, name):
    s = shape(draw, min_dims=1)
    ord_ = draw(st.sampled_from([2, 1, 3, 1.5, 0.5, float("inf"), -float("inf")]))
    dim = draw(st.sampled_from([None, 0, -1]))
    keepdim = draw(st.booleans())
    return Case(lambda x: rt.linalg_vector_norm(x, ord_, dim, keepdim), distinct_abs(rng, s))


@builder("LinalgVectorNormBackward0")
def _l_matrix_norm(draw, rng, name):
    ord_ = draw(st.sampled_from(["fro", 1, -1, float("inf"), -float("inf")]))
    return Case(lambda x: rt.linalg_matrix_norm(x, ord_), distinct_abs(rng, _batch(draw) + (3, 2)))


@builder("NanToNumBackward0")
def _l_nan_to_num(draw, rng, name):
    return Case(lambda x: rt.torch_nan_to_num(x * x), anyv(rng, shape(draw)))


@builder("ReshapeAliasBackward0")
def _l_tensorinv(draw, rng, name):
    return Case(lambda a: rt.linalg_tensorinv(a.reshape(2, 2, 2, 2), 2),
                _wellcond(rng, (), 4))


# ============================================================================ the tests

ROW_NAMES = [name for name, _ in ROWS]
# RTORCHPY_EXAMPLES=500 for a deep hunt; the default keeps the file well under a minute
EXAMPLES = int(os.environ.get("RTORCHPY_EXAMPLES", "25"))


def test_every_row_has_a_sample():
    missing = [n for n in ROW_NAMES if n not in BUILDERS]
    assert not missing, f"derivative table rows without a gradient-check sample: {missing}"
    unknown = [n for n in BUILDERS if n not in ROW_NAMES]
    assert not unknown, f"samples for rows that no longer exist: {unknown}"


def _draw_case(data, name):
    build = data.draw(st.sampled_from(BUILDERS[name]), label="builder")
    seed = data.draw(st.integers(0, 2 ** 32 - 1), label="seed")
    rng = np.random.default_rng(seed)
    case = build(data.draw, rng, name)
    return case, rng


@pytest.mark.parametrize("name", ROW_NAMES)
@settings(max_examples=EXAMPLES)
@given(data=st.data())
def test_first_order(name, data):
    case, rng = _draw_case(data, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = case.fn(*_leaves(case.inputs))
        assert name in graph_names(res), f"the sample does not record {name}"
        check_first_order(case, rng)


@pytest.mark.parametrize("name", ROW_NAMES)
@settings(max_examples=max(EXAMPLES // 2, 1))
@given(data=st.data())
def test_second_order(name, data):
    case, rng = _draw_case(data, name)
    if not case.second:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check_second_order(case, rng)


# ============================================================================ fixed examples

def test_second_derivative_of_cube_at_two_is_twelve():
    x = torch_tensor(2.0, requires_grad=True)
    (g,) = autograd_grad(x ** 3, [x], create_graph=True)
    assert g.item() == pytest.approx(12.0)
    (h,) = autograd_grad(g, [x], create_graph=True)
    assert h.item() == pytest.approx(12.0)
    (k,) = autograd_grad(h, [x])
    assert k.item() == pytest.approx(6.0)


def test_third_order_through_exp_and_sin():
    x = torch_tensor([0.3, -1.2], dtype=rt.torch_float64(), requires_grad=True)
    y = (x.exp() * x.sin()).sum()
    g1 = autograd_grad(y, [x], create_graph=True)[0]
    g2 = autograd_grad(g1.sum(), [x], create_graph=True)[0]
    g3 = autograd_grad(g2.sum(), [x])[0]
    xv = x.detach().numpy()
    # d^n/dx^n e^x sin x = 2^(n/2) e^x sin(x + n pi / 4)
    for n, g in ((1, g1), (2, g2), (3, g3)):
        expected = 2 ** (n / 2) * np.exp(xv) * np.sin(xv + n * np.pi / 4)
        np.testing.assert_allclose(g.detach().numpy(), expected, rtol=1e-12)


def test_max_ties_share_the_gradient():
    x = torch_tensor([1.0, 3.0, 3.0, 2.0], requires_grad=True)
    x.max().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5, 0.0]
    x = torch_tensor([[1.0, 3.0, 3.0]], requires_grad=True)
    x.amax(dim=1).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.5, 0.5]]
    # max(dim) sends the whole gradient to the one index it returns
    x = torch_tensor([[1.0, 3.0, 3.0]], requires_grad=True)
    values, indices = x.max(dim=1)
    values.sum().backward()
    assert x.grad.numpy()[0, indices.item()] == 1.0 and x.grad.sum().item() == 1.0


def test_maximum_ties_split_the_gradient():
    x = torch_tensor([1.0, 2.0], requires_grad=True)
    y = torch_tensor([1.0, 1.0], requires_grad=True)
    rt.torch_maximum(x, y).sum().backward()
    assert x.grad.tolist() == [0.5, 1.0]
    assert y.grad.tolist() == [0.5, 0.0]


def test_prod_gradient_with_zeros():
    x = torch_tensor([2.0, 0.0, 3.0], requires_grad=True)
    x.prod().backward()
    assert x.grad.tolist() == [0.0, 6.0, 0.0]
    x = torch_tensor([0.0, 0.0, 3.0], requires_grad=True)
    x.prod().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_relu_and_abs_at_zero_follow_libtorch():
    x = torch_tensor([0.0, -1.0, 2.0], requires_grad=True)
    x.relu().sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0]
    x = torch_tensor([0.0, -1.0, 2.0], requires_grad=True)
    x.abs().sum().backward()
    assert x.grad.tolist() == [0.0, -1.0, 1.0]


def test_clamp_gradient_at_the_bounds_is_one():
    # libtorch: the gradient passes where min <= x <= max (bounds included)
    x = torch_tensor([0.0, 1.0, 2.0, -1.0], requires_grad=True)
    x.clamp(min=0, max=1).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 0.0, 0.0]


def test_float32_gradients_stay_float32():
    x = rt.torch_randn(3, 2, requires_grad=True)
    y = rt.torch_randn(2, dtype=rt.torch_float64(), requires_grad=True)
    (x * y).sum().backward()
    assert x.grad.dtype == rt.torch_float32()
    assert y.grad.dtype == rt.torch_float64()


# ============================================================================ grad_fn names
# spec §2.4 in Python form: each op records the node its row in the table is named after

def _x(*shape):
    return rt.torch_randn(*shape, requires_grad=True)


def _xpos(*shape):
    return (rt.torch_rand(*shape) + 0.5).requires_grad_()


NAME_CASES = [
    ("x + y", lambda: _x(3) + _x(3), "AddBackward0"),
    ("x.add(y)", lambda: _x(3).add(_x(3)), "AddBackward0"),
    ("x + [1, 2]", lambda: _x(2) + [1.0, 2.0], "AddBackward0"),
    ("x + 1", lambda: _x(3) + 1, "AddBackward1"),
    ("1 + x", lambda: 1 + _x(3), "AddBackward1"),
    ("x.add(1)", lambda: _x(3).add(1), "AddBackward1"),
    ("x - y", lambda: _x(3) - _x(3), "SubBackward0"),
    ("x - 1", lambda: _x(3) - 1, "SubBackward1"),
    ("1 - x", lambda: 1 - _x(3), "RsubBackward1"),
    ("-x", lambda: -_x(3), "NegBackward0"),
    ("x * y", lambda: _x(3) * _x(3), "MulBackward0"),
    ("x * 2", lambda: _x(3) * 2, "MulBackward1"),
    ("2 * x", lambda: 2 * _x(3), "MulBackward1"),
    ("x.mul(2)", lambda: _x(3).mul(2), "MulBackward1"),
    ("x / y", lambda: _x(3) / _xpos(3), "DivBackward0"),
    ("2 / x", lambda: 2 / _xpos(3), "DivBackward0"),
    ("x / 2", lambda: _x(3) / 2, "DivBackward1"),
    ("x.div(2, trunc)", lambda: _x(3).div(2, rounding_mode="trunc"), "DivBackward3"),
    ("x.div(y, floor)", lambda: _x(3).div(_xpos(3), rounding_mode="floor"), "DivBackward2"),
    ("x ** 2", lambda: _x(3) ** 2, "PowBackward0"),
    ("x.pow(2)", lambda: _x(3).pow(2), "PowBackward0"),
    ("x.square()", lambda: _x(3).square(), "PowBackward0"),
    ("x ** y", lambda: _xpos(3) ** _x(3), "PowBackward1"),
    ("2 ** x", lambda: 2 ** _x(3), "PowBackward2"),
    ("x.sum()", lambda: _x(2, 2).sum(), "SumBackward0"),
    ("torch_sum(x)", lambda: rt.torch_sum(_x(2, 2)), "SumBackward0"),
    ("x.sum(dim=0)", lambda: _x(2, 2).sum(dim=0), "SumBackward1"),
    ("x.mean()", lambda: _x(2, 2).mean(), "MeanBackward0"),
    ("x.mean(dim=0)", lambda: _x(2, 2).mean(dim=0), "MeanBackward1"),
    ("x.exp()", lambda: _x(3).exp(), "ExpBackward0"),
    ("torch_log(x)", lambda: rt.torch_log(_xpos(3)), "LogBackward0"),
    ("x.sqrt()", lambda: _xpos(3).sqrt(), "SqrtBackward0"),
    ("abs(x)", lambda: abs(_x(3)), "AbsBackward0"),
    ("x.sin()", lambda: _x(3).sin(), "SinBackward0"),
    ("x.cos()", lambda: _x(3).cos(), "CosBackward0"),
    ("x.tanh()", lambda: _x(3).tanh(), "TanhBackward0"),
    ("torch_sigmoid(x)", lambda: rt.torch_sigmoid(_x(3)), "SigmoidBackward0"),
    ("x.mm(y)", lambda: _x(2, 3).mm(_x(3, 2)), "MmBackward0"),
    ("x @ y (2-d)", lambda: _x(2, 3) @ _x(3, 2), "MmBackward0"),
    ("x @ y (1-d)", lambda: _x(3) @ _x(3), "DotBackward0"),
    ("x.t()", lambda: _x(2, 3).t(), "TBackward0"),
    ("x.transpose(0, 1)", lambda: _x(2, 3).transpose(0, 1), "TransposeBackward0"),
    ("x.permute(1, 0)", lambda: _x(2, 3).permute(1, 0), "PermuteBackward0"),
    ("x.unsqueeze(0)", lambda: _x(3).unsqueeze(0), "UnsqueezeBackward0"),
    ("x.squeeze()", lambda: _x(1, 3).squeeze(), "SqueezeBackward0"),
    ("x.squeeze(0)", lambda: _x(1, 3).squeeze(0), "SqueezeBackward1"),
    ("x.expand(2, 3)", lambda: _x(1, 3).expand(2, 3), "ExpandBackward0"),
    ("x.expand_as(y)", lambda: _x(3).expand_as(_x(2, 3)), "ExpandBackward0"),
    ("x.view(6)", lambda: _x(2, 3).view(6), "ViewBackward0"),
    ("x.reshape(6) contiguous", lambda: _x(2, 3).reshape(6), "ViewBackward0"),
    ("x.flatten()", lambda: _x(2, 3).flatten(), "ViewBackward0"),
    ("x.clone()", lambda: _x(3).clone(), "CloneBackward0"),
    ("x.relu()", lambda: _x(3).relu(), "ReluBackward0"),
    ("nnf_relu(x)", lambda: rt.nnf_relu(_x(3)), "ReluBackward0"),
    ("x.clamp(min=0)", lambda: _x(3).clamp(min=0), "ClampBackward1"),
    ("x.clamp_min(0)", lambda: _x(3).clamp_min(0), "ClampMinBackward0"),
    ("x.clamp_max(0)", lambda: _x(3).clamp_max(0), "ClampMaxBackward0"),
    ("x.log1p()", lambda: _xpos(3).log1p(), "Log1PBackward0"),
    ("torch_fmod(x, 2)", lambda: rt.torch_fmod(_x(3), 2), "FmodBackward0"),
    ("torch_fmod(x, y)", lambda: rt.torch_fmod(_x(3), _xpos(3)), "FmodBackward1"),
    ("x % 2", lambda: _x(3) % 2, "RemainderBackward0"),
    ("x % y", lambda: _x(3) % _xpos(3), "RemainderBackward1"),
    ("torch_where", lambda: rt.torch_where(rt.torch_tensor([True, False]), _x(2), _x(2)),
     "WhereBackward0"),
    ("x.masked_fill(mask, 0)", lambda: _x(2).masked_fill(rt.torch_tensor([True, False]), 0),
     "MaskedFillBackward0"),
    ("x.masked_fill(mask, tensor)",
     lambda: _x(2).masked_fill(rt.torch_tensor([True, False]), _x(1).squeeze()),
     "MaskedFillBackward1"),
    ("x[0]", lambda: _x(3)[0], "SelectBackward0"),
    ("x[..., 1]", lambda: _x(2, 3)[..., 1], "SelectBackward0"),
    ("x[1:3]", lambda: _x(4)[1:3], "SliceBackward0"),
    ("x[[0, 2]]", lambda: _x(3)[[0, 2]], "IndexBackward0"),
    ("x[x > 0]", lambda: (lambda x: x[x > 0])(_x(5)), "IndexBackward0"),
    ("x.unbind()[0]", lambda: _x(2, 3).unbind()[0], "UnbindBackward0"),
    ("x.chunk(2)[0]", lambda: _x(4).chunk(2)[0], "SplitBackward0"),
    ("x.split(2)[0]", lambda: _x(4).split(2)[0], "SplitBackward0"),
    ("x.split([1, 3])[0]", lambda: _x(4).split([1, 3])[0], "SplitWithSizesBackward0"),
    ("torch_cat", lambda: rt.torch_cat([_x(2), _x(3)]), "CatBackward0"),
    ("torch_stack", lambda: rt.torch_stack([_x(2), _x(2)]), "StackBackward0"),
    ("x.max()", lambda: _x(3).max(), "MaxBackward1"),
    ("x.max(dim=0)[0]", lambda: _x(2, 3).max(dim=0)[0], "MaxBackward0"),
    ("x.min()", lambda: _x(3).min(), "MinBackward1"),
    ("x.median()", lambda: _x(3).median(), "MedianBackward0"),
    ("x.median(0)[0]", lambda: _x(2, 3).median(0)[0], "MedianBackward1"),
    ("x.kthvalue(2)[0]", lambda: _x(2, 3).kthvalue(2)[0], "KthvalueBackward0"),
    ("x.unflatten(1, (3, 1))", lambda: _x(2, 3).unflatten(1, (3, 1)), "ViewBackward0"),
    ("x.to(float64)", lambda: _x(3).to(rt.torch_float64()), "ToCopyBackward0"),
    ("x.to(dtype=double)", lambda: _x(3).to(dtype=rt.torch_double()), "ToCopyBackward0"),
    ("x.cumsum(0)", lambda: _x(3).cumsum(0), "CumsumBackward0"),
    ("x.prod()", lambda: _x(3).prod(), "ProdBackward0"),
    ("x.prod(dim=0)", lambda: _x(3).prod(dim=0), "ProdBackward1"),
    ("x.std()", lambda: _x(3).std(), "StdBackward0"),
    ("x.var()", lambda: _x(3).var(), "VarBackward0"),
    ("x.norm()", lambda: _x(3).norm(), "NormBackward0"),
    ("torch_softmax(x, 0)", lambda: rt.torch_softmax(_x(3), 0), "SoftmaxBackward0"),
    ("nnf_log_softmax(x, 0)", lambda: rt.nnf_log_softmax(_x(3), 0), "LogSoftmaxBackward0"),
    ("nnf_linear(x2d, w, b)", lambda: rt.nnf_linear(_x(4, 3), _x(2, 3), _x(2)),
     "AddmmBackward0"),
    ("nnf_mse_loss", lambda: rt.nnf_mse_loss(_x(3), rt.torch_randn(3)), "MseLossBackward0"),
    ("nnf_nll_loss", lambda: rt.nnf_nll_loss(_x(2, 3), rt.torch_tensor([0, 2])),
     "NllLossBackward0"),
    ("nnf_cross_entropy", lambda: rt.nnf_cross_entropy(_x(2, 3), rt.torch_tensor([0, 2])),
     "NllLossBackward0"),
    ("nnf_nll_loss (N, C, d)", lambda: rt.nnf_nll_loss(_x(2, 3, 2), rt.torch_tensor([[0, 2],
                                                                                      [1, 1]])),
     "NllLoss2DBackward0"),
    ("nnf_binary_cross_entropy",
     lambda: rt.nnf_binary_cross_entropy(_x(3).sigmoid(), rt.torch_rand(3)),
     "BinaryCrossEntropyBackward0"),
]


@pytest.mark.parametrize("label,make,expected", NAME_CASES, ids=[c[0] for c in NAME_CASES])
def test_grad_fn_name(label, make, expected):
    out = make()
    assert out.grad_fn is not None and out.grad_fn.name == expected
    assert repr(out.grad_fn) == expected


def _next_names(t):
    return [None if n is None else n.name for n, _ in t.grad_fn.next_functions]


def test_grad_fn_chains():
    x = _x(2, 3)
    # reshape of a non-contiguous tensor copies first: UnsafeView <- Clone <- Transpose
    y = x.transpose(0, 1).reshape(6)
    assert y.grad_fn.name == "UnsafeViewBackward0"
    assert _next_names(y) == ["CloneBackward0"]
    clone = y.grad_fn.next_functions[0][0]
    assert [n.name for n, _ in clone.next_functions] == ["TransposeBackward0"]
    # x[0, 1]: Select of a Select; a leaf shows as AccumulateGrad with libtorch's C++ name
    z = x[0, 1]
    assert z.grad_fn.name == "SelectBackward0"
    assert _next_names(z) == ["SelectBackward0"]
    inner = z.grad_fn.next_functions[0][0]
    assert [n.name for n, _ in inner.next_functions] == ["torch::autograd::AccumulateGrad"]
    # an input that needs no gradient is a null edge
    w = x * rt.torch_ones(2, 3)
    assert _next_names(w) == ["torch::autograd::AccumulateGrad", None]
    # the using-autograd vignette chain
    x1 = rt.torch_ones(2, 2, requires_grad=True)
    x2 = rt.torch_tensor(1.1, requires_grad=True)
    y = x1 * (x2 + 2)
    out = (y.pow(2) * 3).mean()
    assert out.grad_fn.name == "MeanBackward0"
    node = out.grad_fn
    for expected in (["MulBackward1"], ["PowBackward0"], ["MulBackward0"]):
        assert [n.name for n, _ in node.next_functions] == expected
        node = node.next_functions[0][0]
    assert [n.name for n, _ in node.next_functions] == ["torch::autograd::AccumulateGrad",
                                                        "AddBackward1"]


def test_grad_fn_of_inplace_on_non_leaf_and_of_non_differentiable_results():
    x = _x(3)
    y = x * 1
    y.add_(_x(3))
    assert y.grad_fn.name == "AddBackward0"
    y.mul_(2)
    assert y.grad_fn.name == "MulBackward1"
    assert (x > 0).grad_fn is None
    assert x.eq(x).grad_fn is None
    assert x.detach().grad_fn is None
    assert x.argmax().grad_fn is None
    assert x.max(dim=0)[1].grad_fn is None and not x.max(dim=0)[1].requires_grad
    assert x.grad_fn is None


def test_leaf_grad_under_create_graph_is_copy_backwards():
    x = _x(3)
    (x * x).sum().backward(create_graph=True)
    assert x.grad.grad_fn.name == "torch::autograd::CopyBackwards"


def test_norm_minus_inf_is_the_smallest_size_and_p0_output_requires_grad():
    # p = -inf had no branch of its own and fell into sum(|x|^p)^(1/p), which is always 1
    x = torch_tensor([[1.0, -3.0, 1.0], [2.0, -2.0, 5.0]], requires_grad=True)
    y = x.norm(p=float("-inf"), dim=1)
    np.testing.assert_array_equal(y._data, [1.0, 2.0])
    y.sum().backward()
    # each row's gradient is shared by the elements of smallest size, with their sign
    np.testing.assert_array_equal(x.grad._data, [[0.5, 0.0, 0.5], [0.5, -0.5, 0.0]])
    z = torch_tensor([2.0, 0.0, 4.0], requires_grad=True)
    n0 = z.norm(p=0)
    assert n0.item() == 2.0 and n0.requires_grad  # as libtorch; no gradient reaches z
    n0.backward()
    assert z.grad is None
