"""Forward values and dtypes of every registered op (``rtorchpy.ops.registry.OPS``) against NumPy,
in both the namespace form (``torch_exp(x)``) and the method form (``x.exp()``); libtorch's type
promotion; dims as int or tuple, negative, keepdim; indexing and assignment; in-place ops and
their autograd rules; error messages, after which grad mode must be unchanged."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import rtorchpy as rt
from rtorchpy import Tensor, torch_tensor
from rtorchpy.ops.registry import OPS

from rtorchpy.ops.registry import namespace_name
from rtorchpy.ops.everyday import _SAME_SHAPE
from _surface_cases import composite_cases, inplace_cases, surface_cases

RNG = np.random.default_rng(1234)
A = RNG.uniform(-2, 2, (2, 3, 4)).astype(np.float32)       # any float32
P = RNG.uniform(0.5, 2, (2, 3, 4)).astype(np.float32)      # positive
D = RNG.uniform(-2, 2, (3, 4))                             # float64
M = RNG.uniform(-2, 2, (3, 4)).astype(np.float32)          # a matrix
N = RNG.uniform(-2, 2, (4, 2)).astype(np.float32)
V3 = RNG.uniform(-2, 2, 3).astype(np.float32)
V4 = RNG.uniform(-2, 2, 4).astype(np.float32)
I = RNG.integers(-5, 6, (3, 4)).astype(np.int64)           # int64
IP = RNG.integers(1, 6, (3, 4)).astype(np.int64)           # positive ints
B = RNG.random((3, 4)) > 0.5                               # bool
B2 = RNG.random((3, 4)) > 0.5
U = RNG.uniform(0.1, 0.9, (3, 4)).astype(np.float32)       # in (0, 1)
f32, f64, i64, boo = np.float32, np.float64, np.int64, np.bool_


class Raw:
    """An argument passed as it is (not turned into a fresh tensor)."""

    def __init__(self, value):
        self.value = value


class Case:
    """``op(*args, **kwargs)`` must give ``expected``: an ndarray (values and dtype), a tuple of
    them, a Python value, or a callable ``check(result, args)``."""

    def __init__(self, *args, expected, method=True, namespace=True, raises=None, **kwargs):
        self.args, self.kwargs, self.expected = args, kwargs, expected
        self.method, self.namespace = method, namespace
        self.raises = raises  # a RuntimeError whose message matches this is expected instead

    def make_args(self):
        return [torch_tensor(a) if isinstance(a, np.ndarray) else
                a.value if isinstance(a, Raw) else a for a in self.args]


def _compare(result, expected, label):
    if callable(expected) and not isinstance(expected, np.ndarray):
        return
    if isinstance(expected, tuple):
        assert isinstance(result, tuple) and len(result) == len(expected), label
        for r, e in zip(result, expected):
            _compare(r, e, label)
        return
    if isinstance(expected, np.ndarray):
        assert isinstance(result, Tensor), f"{label}: got {type(result).__name__}"
        got = result.numpy()
        assert got.shape == expected.shape, f"{label}: shape {got.shape} != {expected.shape}"
        assert got.dtype == expected.dtype, f"{label}: dtype {got.dtype} != {expected.dtype}"
        if expected.dtype.kind == "f":
            tol = 1e-5 if expected.dtype == np.float32 else 1e-12
            np.testing.assert_allclose(got, expected, rtol=tol, atol=tol, err_msg=label)
        else:
            np.testing.assert_array_equal(got, expected, err_msg=label)
        return
    assert result == expected and type(result) is type(expected), label


def run_case(name, case):
    info = OPS[name]
    forms = []
    if info.namespace and case.namespace:
        fname = namespace_name(name)
        forms.append((fname, lambda args: getattr(rt, fname)(*args, **case.kwargs)))
    if info.method and case.method and isinstance(getattr(Tensor, name), property):
        forms.append(("x." + name, lambda args: getattr(args[0], name)))  # x.mT, as PyTorch
    elif info.method and case.method:
        forms.append(("x." + name, lambda args: getattr(args[0], name)(*args[1:], **case.kwargs)))
    assert forms, f"{name}: no form to call"
    for label, call in forms:
        args = case.make_args()
        if case.raises is not None:
            with pytest.raises(RuntimeError, match=case.raises):
                call(args)
            continue
        result = call(args)
        if callable(case.expected) and not isinstance(case.expected, np.ndarray):
            case.expected(result, args)
        else:
            _compare(result, case.expected, f"{label}{case.args!r:.80}")


# ------------------------------------------------------------------------ reference helpers

def _is_bfloat16_of(result, values):
    """A bfloat16 tensor holding ``values`` rounded to bfloat16 (test_bf16.py has the rest)."""
    assert result.dtype == rt.torch_bfloat16()
    bits = values.astype(np.float32).view(np.uint32)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).view(np.float32)
    np.testing.assert_array_equal(result.numpy(), rounded)


def softmax(a, d):
    e = np.exp(a - a.max(axis=d, keepdims=True))
    return e / e.sum(axis=d, keepdims=True)


def pnorm(a, p, axis=None, keepdims=False):
    if p == np.inf:
        return np.abs(a).max(axis=axis, keepdims=keepdims)
    return (np.abs(a) ** p).sum(axis=axis, keepdims=keepdims) ** (1 / p)


def lse(a, axis, keepdims=False):
    return np.log(np.exp(a).sum(axis=axis, keepdims=keepdims))


def _put(a, key, values):
    out = a.copy()
    out[key] = values
    return out


def inplace(expected_values, dtype=None):
    """Check an in-place op: it returns self and self now holds the values."""
    def check(result, args):
        assert result is args[0]
        got = result.numpy()
        exp = np.asarray(expected_values)
        assert got.dtype == (dtype or exp.dtype)
        np.testing.assert_allclose(got, exp, rtol=1e-6, atol=1e-6)
    return check


def same_values(expected):
    def check(result, args):
        _compare(result, expected, "view")
    return check


def unary_cases(npf, x=A, int_dtype=f32, int_in_domain=True):
    """Float32 and float64 inputs keep their dtype; an int64 input gives ``int_dtype`` (that
    case is left to the caller when ``IP`` is outside ``npf``'s domain)."""
    cases = [Case(x, expected=npf(x).astype(f32)),
             Case(x.astype(f64), expected=npf(x.astype(f64)))]
    if int_in_domain:
        cases.append(Case(IP, expected=npf(IP).astype(int_dtype)))
    return cases


def bins(a, b, npf, dtype):
    return Case(a, b, expected=np.asarray(npf(a, b)).astype(dtype))


# ------------------------------------------------------------------------ the forward table
FORWARD = {
    # -- unary math: float-only ops turn ints into the default float
    "exp": unary_cases(np.exp),
    "expm1": unary_cases(np.expm1),
    "log": unary_cases(np.log, P),
    "log1p": unary_cases(np.log1p, P),
    "log2": unary_cases(np.log2, P),
    "log10": unary_cases(np.log10, P),
    "sqrt": unary_cases(np.sqrt, P),
    "rsqrt": unary_cases(lambda a: 1 / np.sqrt(a), P),
    "reciprocal": unary_cases(lambda a: 1 / a, P),
    "sin": unary_cases(np.sin),
    "cos": unary_cases(np.cos),
    "tan": unary_cases(np.tan),
    "tanh": unary_cases(np.tanh),
    "erf": unary_cases(lambda a: np.vectorize(__import__("math").erf,
                                              otypes=[f64])(a)),  # (ops/special.py)
    # inverse trigonometric and hyperbolic functions: inputs inside their domains
    "asin": unary_cases(np.arcsin, np.tanh(A) * 0.9, int_in_domain=False) + [
        Case(np.array([-1, 0, 1]), expected=np.arcsin(np.array([-1.0, 0, 1], f32)))],
    "acos": unary_cases(np.arccos, np.tanh(A) * 0.9, int_in_domain=False) + [
        Case(np.array([-1, 0, 1]), expected=np.arccos(np.array([-1.0, 0, 1], f32)))],
    "atan": unary_cases(np.arctan),
    "sinh": unary_cases(np.sinh),
    "cosh": unary_cases(np.cosh),
    "asinh": unary_cases(np.arcsinh),
    "acosh": unary_cases(np.arccosh, P + 1),
    "atanh": unary_cases(np.arctanh, np.tanh(A) * 0.9, int_in_domain=False) + [
        Case(np.array([0, 0]), expected=np.zeros(2, f32))],
    "sigmoid": unary_cases(lambda a: 1 / (1 + np.exp(-a))) + [
        Case(np.array([-1000.0, 0.0, 1000.0]), expected=np.array([0.0, 0.5, 1.0]))],
    # -- unary ops that keep integer dtypes
    "abs": [Case(A, expected=np.abs(A)), Case(I, expected=np.abs(I))],
    "neg": [Case(A, expected=-A), Case(I, expected=-I)],
    "negative": [Case(A, expected=-A)],
    "sign": [Case(A, expected=np.sign(A)), Case(I, expected=np.sign(I)),
             Case(np.array([0.0, -0.0, 2.0]), expected=np.array([0.0, 0.0, 1.0])),
             Case(B, expected=B.copy())],
    "floor": [Case(A, expected=np.floor(A)), Case(I, expected=I)],
    "ceil": [Case(A, expected=np.ceil(A)), Case(I, expected=I)],
    "trunc": [Case(A, expected=np.trunc(A)), Case(I, expected=I)],
    "round": [Case(A, expected=np.round(A)),
              Case(np.array([0.5, 1.5, 2.5, -0.5], dtype=f32),  # half to even, as libtorch
                   expected=np.array([0.0, 2.0, 2.0, -0.0], dtype=f32))],
    "relu": [Case(A, expected=np.maximum(A, 0)), Case(I, expected=np.maximum(I, 0))],
    "square": [Case(A, expected=A * A), Case(I, expected=I * I)],
    # -- clamp
    "clamp": [Case(A, expected=np.clip(A, -1, 1), min=-1, max=1),
              Case(A, expected=np.maximum(A, 0), min=0),
              Case(A, expected=np.minimum(A, 0.5), max=0.5),
              Case(A, -1, 1, expected=np.clip(A, -1, 1)),
              Case(I, expected=np.clip(I, -1, 2), min=-1, max=2),
              Case(I, expected=np.maximum(I, 1.5).astype(f32), min=1.5)],
    "clip": [Case(A, expected=np.clip(A, -1, 1), min=-1, max=1),
             Case(M, min=torch_tensor(V4), max=torch_tensor(np.ones(4, f32)),
                  expected=np.clip(M, V4, 1))],
    "clamp_min": [Case(A, 0.5, expected=np.maximum(A, 0.5))],
    "clamp_max": [Case(A, 0.5, expected=np.minimum(A, 0.5))],
    # -- arithmetic (broadcasting, promotion, alpha)
    "add": [bins(A, V4, np.add, f32),
            Case(A, V4, alpha=2, expected=A + 2 * V4),
            Case(A, 2.5, expected=A + f32(2.5)),
            Case(I, 2, expected=I + 2),
            Case(I, 2.5, expected=(I + 2.5).astype(f32)),
            Case(I, M, expected=(I + M).astype(f32)),
            Case(M, D, expected=M + D),
            Case(B, B2, expected=B | B2),
            Case(B, 1, expected=B.astype(i64) + 1)],
    "sub": [bins(A, V4, np.subtract, f32), Case(A, V4, alpha=0.5, expected=A - 0.5 * V4),
            Case(I, 1, expected=I - 1), Case(M, 1.5, expected=M - f32(1.5))],
    "subtract": [bins(M, D, np.subtract, f64)],
    "mul": [bins(A, V4, np.multiply, f32), Case(I, 2.5, expected=(I * 2.5).astype(f32)),
            Case(I, I, expected=I * I), Case(B, B2, expected=B & B2),
            Case(M, np.array(2.0), expected=M * 2)],
    "multiply": [bins(A, A, np.multiply, f32)],
    "div": [bins(A, P, np.divide, f32), Case(I, IP, expected=(I / IP).astype(f32)),
            Case(I, 2, expected=(I / 2).astype(f32)),
            Case(A, 2.0, rounding_mode="floor", expected=np.floor(A / 2)),
            Case(A, 2.0, rounding_mode="trunc", expected=np.trunc(A / 2)),
            Case(I, IP, rounding_mode="floor", expected=np.floor_divide(I, IP)),
            Case(I, 3, rounding_mode="trunc", expected=np.trunc(I / 3).astype(i64)),
            Case(np.array([1.0, -1.0, 0.0]), 0.0,
                 expected=np.array([np.inf, -np.inf, np.nan]))],
    "divide": [bins(A, P, np.divide, f32)],
    "true_divide": [bins(I, IP, np.true_divide, f32)],
    "pow": [Case(A, 2, expected=A ** 2), Case(P, 0.5, expected=np.sqrt(P)),
            Case(P, A, expected=P ** A), Case(I, 2, expected=I ** 2),
            Case(IP, 0.5, expected=np.sqrt(IP).astype(f32)),
            Case(P, np.array(2.0), expected=P ** 2)],
    "fmod": [bins(A, P, np.fmod, f32), Case(I, 3, expected=np.fmod(I, 3)),
             Case(A, -1.5, expected=np.fmod(A, f32(-1.5)))],
    "remainder": [bins(A, P, np.remainder, f32), Case(I, 3, expected=np.remainder(I, 3)),
                  Case(A, -1.5, expected=np.remainder(A, f32(-1.5)))],
    "maximum": [bins(A, V4, np.maximum, f32), bins(I, M, np.maximum, f32)],
    "minimum": [bins(A, V4, np.minimum, f32), bins(I, I.T.copy().T, np.minimum, i64)],
    "where": [Case(B, M, D, expected=np.where(B, M, D), method=False),
              Case(B, M, 0.0, expected=np.where(B, M, 0).astype(f32), method=False),
              Case(B, 1.0, M, expected=np.where(B, 1, M).astype(f32), method=False),
              Case(B, I, 0, expected=np.where(B, I, 0), method=False),
              Case(B, expected=tuple(i.astype(i64) for i in np.nonzero(B)), method=False),
              # the method form is x.where(condition, other), as in PyTorch and R torch
              Case(M, B, D, expected=np.where(B, M, D), namespace=False),
              Case(I, B, 0.5, expected=np.where(B, I, 0.5).astype(f32), namespace=False)],
    # -- comparisons and logic: bool results
    "eq": [bins(I, I[::-1].copy(), np.equal, boo), Case(M, 0.5, expected=M == f32(0.5))],
    "ne": [bins(I, I[::-1].copy(), np.not_equal, boo)],
    "lt": [bins(A, V4, np.less, boo), Case(I, 0, expected=I < 0)],
    "le": [bins(A, V4, np.less_equal, boo)],
    "gt": [bins(A, V4, np.greater, boo), Case(M, 0.0, expected=M > 0)],
    "ge": [bins(A, V4, np.greater_equal, boo)],
    "logical_and": [bins(B, B2, np.logical_and, boo), bins(I, B, np.logical_and, boo)],
    "logical_or": [bins(B, B2, np.logical_or, boo)],
    "logical_xor": [bins(B, B2, np.logical_xor, boo)],
    "logical_not": [Case(B, expected=~B), Case(I, expected=I == 0)],
    "isnan": [Case(np.array([1.0, np.nan, np.inf]), expected=np.array([False, True, False]))],
    "isinf": [Case(np.array([1.0, np.nan, -np.inf]), expected=np.array([False, False, True]))],
    "isfinite": [Case(np.array([1.0, np.nan, np.inf]), expected=np.array([True, False, False]))],
    "isclose": [Case(M, M + 1e-7, expected=np.ones(M.shape, bool))],
    "allclose": [Case(M, M + 1e-7, expected=True), Case(M, M + 1, expected=False)],
    "equal": [Case(I, I.copy(), expected=True), Case(I, I[:, :2], expected=False)],
    # -- reductions: dim None / int / negative / tuple, keepdim
    "sum": [Case(A, expected=np.asarray(A.sum(), f32)),
            Case(A, dim=1, expected=A.sum(axis=1)),
            Case(A, dim=-1, keepdim=True, expected=A.sum(axis=-1, keepdims=True)),
            Case(A, dim=(0, 2), expected=A.sum(axis=(0, 2))),
            Case(A, dim=(-1, 0), keepdim=True, expected=A.sum(axis=(0, 2), keepdims=True)),
            Case(I, expected=np.asarray(I.sum(), i64)),
            Case(B, dim=0, expected=B.sum(axis=0).astype(i64)),
            Case(I, dtype=rt.torch_float64(), expected=np.asarray(I.sum(), f64)),
            Case(A, keepdim=True, expected=A.sum(keepdims=True)),
            Case(A, dim=(), expected=np.asarray(A.sum(), f32)),
            Case(A, dim=[], keepdim=True, expected=A.sum(keepdims=True))],
    "mean": [Case(A, expected=np.asarray(A.mean(), f32)),
             Case(A, dim=(0, -1), keepdim=True, expected=A.mean(axis=(0, 2), keepdims=True)),
             Case(D, dim=0, expected=D.mean(axis=0)),
             Case(A, dim=None, keepdim=True, expected=A.mean(keepdims=True))],
    "prod": [Case(A, expected=np.asarray(A.prod(), f32)),
             Case(A, dim=1, keepdim=True, expected=A.prod(axis=1, keepdims=True)),
             Case(I, dim=-1, expected=I.prod(axis=-1))],
    "max": [Case(A, expected=np.asarray(A.max())),
            Case(A, dim=1, expected=(A.max(axis=1), A.argmax(axis=1).astype(i64))),
            Case(A, dim=-1, keepdim=True,
                 expected=(A.max(axis=-1, keepdims=True), A.argmax(axis=-1)[..., None])),
            Case(A, V4, expected=np.maximum(A, V4)),
            Case(I, expected=np.asarray(I.max()))],
    "min": [Case(A, expected=np.asarray(A.min())),
            Case(A, dim=0, expected=(A.min(axis=0), A.argmin(axis=0).astype(i64))),
            Case(A, V4, expected=np.minimum(A, V4))],
    "amax": [Case(A, expected=np.asarray(A.max())),
             Case(A, dim=(0, 2), expected=A.max(axis=(0, 2))),
             Case(A, dim=-1, keepdim=True, expected=A.max(axis=-1, keepdims=True))],
    "amin": [Case(A, dim=(1, 2), expected=A.min(axis=(1, 2)))],
    "argmax": [Case(A, expected=np.asarray(A.argmax(), i64)),
               Case(A, keepdim=True, expected=np.argmax(A, keepdims=True)),
               Case(A, dim=1, expected=A.argmax(axis=1).astype(i64)),
               Case(A, dim=-1, keepdim=True, expected=A.argmax(axis=-1)[..., None])],
    "argmin": [Case(A, expected=np.asarray(A.argmin(), i64)),
               Case(A, dim=0, expected=A.argmin(axis=0).astype(i64))],
    "logsumexp": [Case(A, 1, expected=lse(A, 1)),
                  Case(A, (0, 2), keepdim=True, expected=lse(A, (0, 2), True)),
                  Case(np.array([1000.0, 1000.0]), 0, expected=np.asarray(1000 + np.log(2)))],
    "var": [Case(A, expected=np.asarray(A.var(ddof=1), f32)),
            Case(A, dim=1, expected=A.var(axis=1, ddof=1)),
            Case(A, dim=(0, 2), unbiased=False, keepdim=True,
                 expected=A.var(axis=(0, 2), keepdims=True)),
            Case(D, dim=-1, correction=0, expected=D.var(axis=-1))],
    "std": [Case(A, expected=np.asarray(A.std(ddof=1), f32)),
            Case(A, dim=-1, unbiased=False, expected=A.std(axis=-1))],
    "norm": [Case(A, expected=np.asarray(pnorm(A, 2), f32)),
             Case(A, p=1, dim=1, expected=pnorm(A, 1, 1)),
             Case(A, p=3, dim=(0, 1), keepdim=True, expected=pnorm(A, 3, (0, 1), True)),
             Case(A, p=float("inf"), expected=np.asarray(pnorm(A, np.inf))),
             Case(A, p="fro", dim=(1, 2), expected=pnorm(A, 2, (1, 2)))],
    "cumsum": [Case(A, 1, expected=A.cumsum(axis=1)), Case(A, -1, expected=A.cumsum(axis=-1)),
               Case(I, 0, expected=I.cumsum(axis=0)),
               Case(B, 0, expected=B.cumsum(axis=0).astype(i64))],
    "softmax": [Case(A, 1, expected=softmax(A, 1)), Case(A, -1, expected=softmax(A, -1)),
                Case(np.array([1000.0, 0.0]), 0, expected=np.array([1.0, 0.0]))],
    "log_softmax": [Case(A, 0, expected=np.log(softmax(A, 0))),
                    Case(np.array([1000.0, 0.0]), 0, expected=np.array([0.0, -1000.0]))],
    "all": [Case(B, expected=np.asarray(B.all())), Case(B, dim=1, expected=B.all(axis=1)),
            Case(I, dim=-1, keepdim=True, expected=(I != 0).all(axis=-1, keepdims=True))],
    "any": [Case(B, expected=np.asarray(B.any())), Case(B, dim=0, expected=B.any(axis=0))],
    # -- linear algebra
    "mm": [Case(M, N, expected=M @ N)],
    "matmul": [Case(M, N, expected=M @ N), Case(V4, N, expected=V4 @ N),
               Case(M, V4, expected=M @ V4), Case(V4, V4, expected=np.asarray(V4 @ V4)),
               Case(A, N, expected=A @ N), Case(A[:1], A.transpose(0, 2, 1),
                                                expected=A[:1] @ A.transpose(0, 2, 1))],
    "dot": [Case(V4, V4, expected=np.asarray(V4 @ V4))],
    "mv": [Case(M, V4, expected=M @ V4)],
    "addmm": [Case(V3[:, None], M, N, expected=V3[:, None] + M @ N),
              Case(N[0], M, N, beta=0.5, alpha=2,
                   expected=(0.5 * N[0] + 2 * (M @ N)).astype(f32))],
    "outer": [Case(V3, V4, expected=np.outer(V3, V4))],
    "ger": [Case(V3, V4, expected=np.outer(V3, V4))],
    # -- shape and views
    "reshape": [Case(A, 4, 6, expected=A.reshape(4, 6)),
                Case(A, (-1, 2), expected=A.reshape(-1, 2)),
                Case(A, [24], expected=A.reshape(24))],
    "view": [Case(A, 6, -1, expected=A.reshape(6, 4)), Case(A, (24,), expected=A.reshape(24))],
    "flatten": [Case(A, expected=A.reshape(-1)), Case(A, 1, expected=A.reshape(2, 12)),
                Case(A, 0, 1, expected=A.reshape(6, 4)),
                Case(np.array(2.0), expected=np.array([2.0]))],
    "squeeze": [Case(A[:, :1], expected=A[:, 0]), Case(A[:1, :1], 1, expected=A[:1, 0]),
                Case(A[:1, :1], (0, 1), expected=A[0, 0]), Case(A, 1, expected=A)],
    "unsqueeze": [Case(A, 0, expected=A[None]), Case(A, -1, expected=A[..., None]),
                  Case(A, 2, expected=A[:, :, None])],
    "t": [Case(M, expected=M.T), Case(V4, expected=V4)],
    "mT": [Case(A, expected=A.transpose(0, 2, 1))],
    "transpose": [Case(A, 0, 2, expected=A.transpose(2, 1, 0)),
                  Case(A, -1, -2, expected=A.transpose(0, 2, 1))],
    "swapaxes": [Case(A, 0, 1, expected=A.transpose(1, 0, 2))],
    "permute": [Case(A, 2, 0, 1, expected=A.transpose(2, 0, 1)),
                Case(A, (1, -1, 0), expected=A.transpose(1, 2, 0))],
    "expand": [Case(V4, 3, 4, expected=np.broadcast_to(V4, (3, 4))),
               Case(M[:1], (-1, 4), expected=M[:1]),
               Case(M[:1], 2, 3, -1, expected=np.broadcast_to(M[:1], (2, 3, 4)))],
    "expand_as": [Case(V4, M, expected=np.broadcast_to(V4, (3, 4)))],
    "broadcast_to": [Case(V4, (2, 4), expected=np.broadcast_to(V4, (2, 4)))],
    "repeat": [Case(M, 2, 1, expected=np.tile(M, (2, 1))),
               Case(V3, 2, 2, expected=np.tile(V3, (2, 2)))],
    "flip": [Case(A, 0, expected=A[::-1]), Case(A, (1, -1), expected=A[:, ::-1, ::-1])],
    "roll": [Case(A, 1, 0, expected=np.roll(A, 1, 0)), Case(A, 3, expected=np.roll(A, 3)),
             Case(A, (1, -2), (2, 0), expected=np.roll(A, (1, -2), (2, 0)))],
    "movedim": [Case(A, 0, 2, expected=np.moveaxis(A, 0, 2)),
                Case(A, (0, -1), (1, 0), expected=np.moveaxis(A, (0, 2), (1, 0)))],
    "clone": [Case(A, expected=A)],
    "contiguous": [Case(A, expected=A)],
    "to": [Case(A, rt.torch_float64(), expected=A.astype(f64)),
           Case(A, dtype=rt.torch_long(), expected=A.astype(i64)),
           Case(I, "float32", expected=I.astype(f32)), Case(A, "cpu", expected=A)],
    "float": [Case(I, expected=I.astype(f32))],
    "double": [Case(M, expected=M.astype(f64))],
    "long": [Case(M, expected=M.astype(i64))],
    "int": [Case(M, expected=M.astype(np.int32))],
    "bool": [Case(I, expected=I != 0)],
    "half": [Case(M, expected=M.astype(np.float16))],
    "bfloat16": [Case(M, expected=lambda r, args: _is_bfloat16_of(r, M))],
    "type_as": [Case(I, M, expected=I.astype(f32))],
    "cat": [Case([M, M[:1]], expected=np.concatenate([M, M[:1]])),
            Case([M, M[:, :2]], 1, expected=np.concatenate([M, M[:, :2]], 1)),
            Case([M, D], dim=-1, expected=np.concatenate([M, D], -1))],
    "concat": [Case([M, M], expected=np.concatenate([M, M]))],
    "concatenate": [Case([M, M], expected=np.concatenate([M, M]))],
    "stack": [Case([M, M], expected=np.stack([M, M])),
              Case([M, M], 2, expected=np.stack([M, M], 2)),
              Case([M, M], dim=-1, expected=np.stack([M, M], -1))],
    "split": [Case(A, 2, 2, expected=(A[:, :, :2], A[:, :, 2:])),
              Case(M, 2, expected=(M[:2], M[2:])),
              Case(M, [1, 3], 1, expected=(M[:, :1], M[:, 1:]))],
    "chunk": [Case(M, 2, expected=(M[:2], M[2:])), Case(M, 3, -1, expected=(M[:, :2], M[:, 2:]))],
    "unbind": [Case(M, expected=tuple(M)), Case(M, 1, expected=tuple(M.T))],
    "narrow": [Case(A, 1, 1, 2, expected=A[:, 1:3]), Case(A, -1, 0, 1, expected=A[..., :1]),
               Case(A, 2, -2, 2, expected=A[..., 2:])],
    "select": [Case(A, 1, 2, expected=A[:, 2]), Case(A, -1, -1, expected=A[..., -1])],
    "diagonal": [Case(M, expected=np.diagonal(M)), Case(M, -1, expected=np.diagonal(M, -1)),
                 Case(A, 1, 2, 0, expected=np.diagonal(A, 1, 2, 0)),
                 Case(A, offset=-1, dim1=-1, dim2=1, expected=np.diagonal(A, -1, -1, 1))],
    "gather": [Case(M, 1, np.array([[0, 0], [1, 0], [3, 2]]),
                    expected=np.take_along_axis(M, np.array([[0, 0], [1, 0], [3, 2]]), 1)),
               Case(M, 0, np.array([[2, 1]]), expected=np.array([[M[2, 0], M[1, 1]]]))],
    "scatter_add": [Case(np.zeros((3, 4), f32), 0, np.array([[0, 1, 2, 0]]),
                         np.ones((1, 4), f32),
                         expected=np.array([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0]], f32))],
    "index_select": [Case(M, 0, np.array([2, 0, 2]), expected=M[[2, 0, 2]]),
                     Case(M, -1, np.array([1]), expected=M[:, [1]])],
    "masked_fill": [Case(M, B, 0.5, expected=np.where(B, f32(0.5), M)),
                    Case(M, B[0], -1, expected=np.where(B[0], f32(-1), M)),
                    Case(M, B, np.array(2.0), expected=np.where(B, f32(2), M))],
    "index_put": [Case(M, Raw((np.array([0, 2]),)), np.array([1.0, 2.0], f32)[:, None],
                       expected=np.array([np.full(4, 1), M[1], np.full(4, 2)], f32)),
                  Case(M, Raw((np.array([0, 0]), np.array([1, 1]))), np.array([1.0], f32),
                       accumulate=True,
                       expected=M + np.array([[0, 2, 0, 0], [0] * 4, [0] * 4], f32))],
    "__getitem__": [Case(A, Raw((0, slice(1, None), None)), expected=A[0, 1:, None]),
                    Case(A, Raw((Ellipsis, [0, 3])), expected=A[..., [0, 3]])],
    # -- in-place (method form only): return self, values changed
    "add_": [Case(M.copy(), 1.0, expected=inplace(M + 1)),
             Case(M.copy(), V4, alpha=2, expected=inplace(M + 2 * V4)),
             Case(M.copy(), I, expected=inplace((M + I).astype(f32)))],
    "sub_": [Case(M.copy(), V4, expected=inplace(M - V4)),
             Case(M.copy(), 1, alpha=3, expected=inplace(M - 3))],
    "mul_": [Case(M.copy(), 2, expected=inplace(M * 2)),
             Case(I.copy(), 3, expected=inplace(I * 3))],
    "div_": [Case(M.copy(), 2, expected=inplace(M / 2)),
             Case(M.copy(), 2, rounding_mode="floor", expected=inplace(np.floor(M / 2)))],
    "pow_": [Case(P.copy(), 2, expected=inplace(P ** 2))],
    "clamp_": [Case(M.copy(), min=-1, max=1, expected=inplace(np.clip(M, -1, 1)))],
    "relu_": [Case(M.copy(), expected=inplace(np.maximum(M, 0)))],
    "exp_": [Case(M.copy(), expected=inplace(np.exp(M)))],
    "neg_": [Case(M.copy(), expected=inplace(-M))],
    "masked_fill_": [Case(M.copy(), B, 0.0, expected=inplace(np.where(B, 0, M).astype(f32)))],
    "index_put_": [Case(M.copy(), Raw((np.array([0, 2]), np.array([1, 3]))),
                        np.array([5.0, 6.0], f32), expected=inplace(_put(M, ([0, 2], [1, 3]),
                                                                         [5.0, 6.0])))],
    "copy_": [Case(M.copy(), V4, expected=inplace(np.broadcast_to(V4, M.shape))),
              Case(M.copy(), I, expected=inplace(I.astype(f32)))],
    "fill_": [Case(M.copy(), 2.5, expected=inplace(np.full(M.shape, 2.5, f32))),
              Case(I.copy(), 7, expected=inplace(np.full(I.shape, 7)))],
    "zero_": [Case(M.copy(), expected=inplace(np.zeros(M.shape, f32)))],
    "uniform_": [Case(np.zeros((50, 4), f32), 2, 3, expected=lambda r, args: (
        r is args[0] and r.dtype == rt.torch_float32()
        and bool(((r.numpy() >= 2) & (r.numpy() < 3)).all()) and r.numpy().std() > 0.1) or
        pytest.fail("uniform_"))],
    "normal_": [Case(np.zeros((2000,)), 5, 0.5, expected=lambda r, args: (
        r is args[0] and r.dtype == rt.torch_float64()
        and abs(r.numpy().mean() - 5) < 0.1 and abs(r.numpy().std() - 0.5) < 0.05) or
        pytest.fail("normal_"))],
    "exponential_": [Case(np.zeros((4000,)), 2.0, expected=lambda r, args: (
        r is args[0] and r.dtype == rt.torch_float64() and bool((r.numpy() >= 0).all())
        and abs(r.numpy().mean() - 0.5) < 0.05) or pytest.fail("exponential_"))],
    "random_": [Case(np.zeros((500,), np.int64), 3, 9, expected=lambda r, args: (
        r is args[0] and r.dtype == rt.torch_int64()
        and set(r.numpy().tolist()) == set(range(3, 9))) or pytest.fail("random_"))],
    "bernoulli_": [Case(np.zeros((2000,), f32), 0.25, expected=lambda r, args: (
        r is args[0] and set(r.numpy().tolist()) <= {0.0, 1.0}
        and abs(r.numpy().mean() - 0.25) < 0.05) or pytest.fail("bernoulli_"))],
}


# matrix, shape and sorting ops (ops/matrix.py, ops/sorting.py): their cases in their own file
from _matops_forward import forward_cases  # noqa: E402

FORWARD.update(forward_cases(Case, Raw, inplace, M=M, A=A, D=D, I=I, B=B, N=N))


# -- selection, unflatten and the new_* methods (ops/selection.py, unflatten.py, new_tensors.py)
def _lower_median(a, axis):
    """(values, indices): the element at rank (n - 1) // 2 of a stable sort along ``axis``."""
    order = np.argsort(a, axis=axis, kind="stable")
    idx = np.take(order, [(a.shape[axis] - 1) // 2], axis=axis)
    return np.take_along_axis(a, idx, axis).squeeze(axis), idx.squeeze(axis).astype(i64)


def _kth(a, k, axis):
    idx = np.take(np.argsort(a, axis=axis), [k - 1], axis=axis)
    return np.take_along_axis(a, idx, axis).squeeze(axis), idx.squeeze(axis).astype(i64)


def _empty_of(shape, dtype):
    def check(r, args):
        assert tuple(r.shape) == shape and r.numpy().dtype == dtype and not r.requires_grad
    return check


FORWARD.update({
    "nonzero": [Case(I, expected=np.argwhere(I)), Case(B, expected=np.argwhere(B)),
                Case(I, as_tuple=True, expected=tuple(np.nonzero(I))),
                Case(np.array(0.0), expected=np.zeros((0, 0), i64))],
    "median": [Case(A, expected=np.asarray(np.sort(A, axis=None)[(A.size - 1) // 2])),
               Case(I, expected=np.asarray(np.sort(I, axis=None)[(I.size - 1) // 2])),
               Case(A, 1, expected=_lower_median(A, 1)),
               Case(I, dim=-1, expected=_lower_median(I, 1)),
               Case(A, 0, True, expected=tuple(v[None] for v in _lower_median(A, 0)))],
    "kthvalue": [Case(A, 2, expected=_kth(A, 2, -1)), Case(A, 3, 1, expected=_kth(A, 3, 1)),
                 Case(D, 1, 0, keepdim=True, expected=tuple(v[None] for v in _kth(D, 1, 0)))],
    "unflatten": [Case(A, 2, (2, 2), expected=A.reshape(2, 3, 2, 2)),
                  Case(A, -1, [-1, 1], expected=A.reshape(2, 3, 4, 1)),
                  Case(A, 0, (1, 2, 1), expected=A.reshape(1, 2, 1, 3, 4))],
    "new_zeros": [Case(I, 2, 3, expected=np.zeros((2, 3), i64)),
                  Case(A, (4,), dtype=rt.torch_float64(), expected=np.zeros(4))],
    "new_ones": [Case(M, [2], expected=np.ones(2, f32)),
                 Case(B, 1, 2, expected=np.ones((1, 2), boo))],
    "new_empty": [Case(D, 3, expected=_empty_of((3,), f64)),
                  Case(A, (2, 0), dtype="int64", expected=_empty_of((2, 0), i64))],
    "new_full": [Case(I, (2,), 7.9, expected=np.full(2, 7, i64)),
                 Case(M, [1, 2], True, expected=np.ones((1, 2), f32))],
    "new_tensor": [Case(I, [1.5, 2.7], expected=np.array([1, 2], i64)),
                   Case(M, [[1, 2]], dtype=rt.torch_float64(), expected=np.array([[1.0, 2.0]]))],
})

# -- special functions and sampling (rtorchpy/ops/special.py, ops/sampling.py): references
# from Python's math here; tests/test_special.py compares them with PyTorch at edge values
def _vec(f):
    return lambda a: np.vectorize(f, otypes=[f64])(np.asarray(a, f64))


def _sampled(dtype, shape, check=None):
    def expected(result, args):
        assert result.dtype == rt.dtypes.as_dtype(dtype) and tuple(result.shape) == shape
        if check is not None:
            assert check(result.numpy()), result.numpy()
    return expected


_ERF, _ERFC, _LGAMMA = _vec(math.erf), _vec(math.erfc), _vec(math.lgamma)
_PI2_6 = math.pi ** 2 / 6
FORWARD.update({
    "erf": unary_cases(_ERF, int_in_domain=False) + [
        Case(np.array([0, 1]), expected=_ERF([0, 1]).astype(f32)),
        Case(B, expected=_ERF(B).astype(f32))],
    "erfc": unary_cases(_ERFC, int_in_domain=False) + [
        Case(IP, expected=_ERFC(IP).astype(f32))],
    "erfinv": [Case(np.array([-1.0, 0.0, 0.5, 1.0, 1.5]),
                    expected=np.array([-np.inf, 0.0, 0.4769362762044699, np.inf, np.nan])),
               Case(np.array([0.5], f32), expected=np.array([0.4769362762044699], f32)),
               Case(np.array([0, 1]), expected=np.array([0.0, np.inf], f32))],
    "lgamma": unary_cases(_LGAMMA, P) + [
        Case(np.array([0.0, -1.0, 1.0, 2.0]), expected=np.array([np.inf, np.inf, 0.0, 0.0]))],
    "digamma": [Case(np.array([1.0, 0.5, -0.0, 0.0, -2.0]),
                     expected=np.array([-0.5772156649015329, -1.9635100260214235, np.inf,
                                        -np.inf, np.nan])),
                Case(np.array([1], np.int64), expected=np.array([-0.5772157], f32))],
    "polygamma": [Case(1, np.array([1.0, 2.0]), expected=np.array([_PI2_6, _PI2_6 - 1]),
                       method=False),
                  Case(np.array([1.0, 2.0], f32), 1, expected=np.array([_PI2_6, _PI2_6 - 1], f32),
                       namespace=False),
                  Case(2, np.array([1.0]), expected=np.array([-2.404113806319188]),
                       method=False)],
    "logit": [Case(U, expected=np.log(U.astype(f64) / (1 - U.astype(f64))).astype(f32)),
              Case(np.array([0.0, 0.5, 1.0, 2.0]), expected=np.array([-np.inf, 0, np.inf, np.nan])),
              Case(np.array([0.0, 0.5, 1.0]), eps=0.25,
                   expected=np.array([-math.log(3), 0, math.log(3)]))],
    "atan2": [Case(A, P, expected=np.arctan2(A.astype(f64), P.astype(f64)).astype(f32)),
              Case(D, 1.0, expected=np.arctan2(D, 1.0)),
              Case(I, IP, expected=np.arctan2(I, IP).astype(f32))],
    "arctan2": [Case(D, D[::-1], expected=np.arctan2(D, D[::-1]))],
    "hypot": [Case(A, P, expected=np.hypot(A.astype(f64), P.astype(f64)).astype(f32)),
              Case(D, np.array(2.0), expected=np.hypot(D, 2.0))],
    "xlogy": [Case(A, P, expected=(A.astype(f64) * np.log(P.astype(f64))).astype(f32)),
              Case(np.array([0.0, 0.0, 2.0, 0.0]), np.array([0.0, np.inf, 3.0, np.nan]),
                   expected=np.array([0.0, 0.0, 2 * math.log(3), np.nan])),
              Case(IP, 2.0, expected=(IP * math.log(2)).astype(f32)),
              Case(2.0, IP, expected=(2 * np.log(IP)).astype(f32), method=False)],
    "normal": [Case(0.0, 1.0, size=(2, 3), expected=_sampled(f32, (2, 3)), method=False),
               Case(D, 0.0, expected=lambda r, args: np.testing.assert_array_equal(
                   r.numpy(), D), method=False),
               Case(2.0, np.zeros((3, 1)), expected=_sampled(f64, (3, 1),
                                                            lambda v: (v == 2).all()),
                    method=False)],
    "poisson": [Case(np.zeros((2, 2)), expected=np.zeros((2, 2))),
                Case(P, expected=_sampled(f32, P.shape,
                                          lambda v: (v >= 0).all() and (v == np.round(v)).all()))],
    "bernoulli": [Case(np.array([0.0, 1.0, 1.0]), expected=np.array([0.0, 1.0, 1.0])),
                  Case(U, p=1.0, expected=np.ones(U.shape, f32)),
                  Case(I, p=0.0, expected=np.zeros(I.shape, np.int64))],
    "multinomial": [Case(np.array([0.0, 0.0, 3.0]), 4, True, expected=np.full(4, 2)),
                    Case(np.array([[1.0, 0.0], [0.0, 1.0]]), 1,
                         expected=np.array([[0], [1]])),
                    Case(np.array([1.0, 2.0, 3.0], f32), 3, expected=_sampled(
                        i64, (3,), lambda v: sorted(v.tolist()) == [0, 1, 2]))],
})


# R torch's older names and everyday composites (tests/_surface_cases.py)
FORWARD.update(surface_cases(Case, inplace, same_values))
FORWARD.update(composite_cases(Case, inplace))
FORWARD.update(inplace_cases(Case, inplace,
                             [n + "_" for n in _SAME_SHAPE if n + "_" not in FORWARD],
                             OPS, torch_tensor))

# issue 33's ops around sequences (rtorchpy/ops/seq_extras.py; tests/_seq_extras_samples.py)
from _seq_extras_samples import fft_forward_cases, seq_forward_cases  # noqa: E402

FORWARD.update(seq_forward_cases(Case, inplace))
FORWARD.update(fft_forward_cases(Case))


def test_every_registered_op_has_forward_cases():
    missing = sorted(set(OPS) - set(FORWARD))
    assert not missing, f"registered ops without a forward test: {missing}"
    unknown = sorted(set(FORWARD) - set(OPS))
    assert not unknown, f"forward tests of ops that are not registered: {unknown}"


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_matches_numpy(name):
    for case in FORWARD[name]:
        run_case(name, case)


def test_namespace_and_method_forms_exist():
    for name, info in OPS.items():
        if info.namespace and not name.startswith("_"):
            # (Python's forms wrap the registered function: rtorchpy/ops/boundary.py)
            assert getattr(rt, namespace_name(name)).__wrapped__ is info.fn, name
        if info.method:
            form = getattr(Tensor, name)
            if name == "mT":  # a property in Python, as in PyTorch (x.mT)
                form = form.fget
            if form is not (info.method_fn or info.fn):  # (the boundary's wrapper)
                form = getattr(form, "__wrapped__", form)
            assert form is (info.method_fn or info.fn), name
    assert not hasattr(rt, "torch_add_")  # in-place ops are methods only
    assert not hasattr(Tensor, "cat")     # cat/stack take a list: namespace only


@settings(max_examples=30)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=4),
       data=st.data())
def test_binary_ops_broadcast_like_numpy(shapes, data):
    s1, s2 = shapes.input_shapes
    a = data.draw(hnp.arrays(np.float32, s1, elements=st.floats(-3, 3, width=32)))
    b = data.draw(hnp.arrays(np.float32, s2, elements=st.floats(0.5, 3, width=32)))
    x, y = torch_tensor(a), torch_tensor(b)
    for got, want in ((x + y, a + b), (x - y, a - b), (x * y, a * b), (x / y, a / b),
                      (rt.torch_maximum(x, y), np.maximum(a, b)), (x > y, a > b),
                      (rt.torch_where(x > 0, x, y), np.where(a > 0, a, b))):
        assert got.shape == shapes.result_shape
        assert got.numpy().dtype == want.dtype
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


@settings(max_examples=30)
@given(data=st.data())
def test_reductions_with_drawn_dims(data):
    s = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, max_side=3))
    a = data.draw(hnp.arrays(np.float64, s, elements=st.floats(-3, 3)))
    dims = data.draw(st.lists(st.integers(-len(s), len(s) - 1), min_size=1, max_size=len(s),
                              unique_by=lambda d: d % len(s)))
    keepdim = data.draw(st.booleans())
    axis = tuple(d % len(s) for d in dims)
    x = torch_tensor(a)
    for name, npf in (("sum", np.sum), ("mean", np.mean), ("amax", np.max), ("amin", np.min)):
        got = getattr(x, name)(dim=tuple(dims), keepdim=keepdim)
        want = npf(a, axis=axis, keepdims=keepdim)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    got = x.logsumexp(tuple(dims), keepdim=keepdim)
    np.testing.assert_allclose(got.numpy(), lse(a, axis, keepdim), rtol=1e-12, atol=1e-12)
    d = dims[0]
    v, i = x.max(dim=d, keepdim=keepdim)
    np.testing.assert_array_equal(v.numpy(), a.max(axis=d, keepdims=keepdim))
    np.testing.assert_array_equal(i.numpy(), np.argmax(a, axis=d, keepdims=keepdim))


# -- linear algebra (linalg_*: namespace forms only, named linalg_<name>; tests/test_linalg.py
# compares them with PyTorch, values and gradients)
SQ = RNG.uniform(-1, 1, (2, 3, 3)) + 3 * np.eye(3)            # well-conditioned, float64
SPD = SQ @ SQ.transpose(0, 2, 1) + np.eye(3)
R43 = RNG.uniform(-1, 1, (4, 3)) + np.eye(4, 3)
LOW = np.linalg.cholesky(SPD)


def _reconstructs(expected, combine):
    """A check for a decomposition: ``combine(*results)`` gives back ``expected``."""
    def check(result, args):
        got = combine(*[r.numpy() for r in result])
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-10)
    return check


FORWARD.update({
    "linalg_det": [Case(SQ, expected=np.linalg.det(SQ)),
                   Case(SQ[0].astype(f32), expected=np.asarray(np.linalg.det(SQ[0]), f32))],
    "linalg_slogdet": [Case(SQ, expected=tuple(np.asarray(v) for v in np.linalg.slogdet(SQ)))],
    "logdet": [Case(SPD, expected=np.linalg.slogdet(SPD)[1])],
    "linalg_inv": [Case(SQ, expected=np.linalg.inv(SQ))],
    "linalg_inv_ex": [Case(SQ, expected=(np.linalg.inv(SQ), np.zeros(2, np.int32)))],
    # B broadcast to A's batch first: NumPy 1 and 2 read a (3, 3) B beside a (2, 3, 3) A differently
    "linalg_solve": [Case(SQ, SQ[0],
                          expected=np.linalg.solve(SQ, np.broadcast_to(SQ[0], SQ.shape))),
                     Case(SQ, SQ[0, 0], expected=np.linalg.solve(
                         SQ, np.broadcast_to(SQ[0, 0][:, None], (2, 3, 1)))[..., 0])],
    "linalg_solve_triangular": [Case(SQ, SQ[0], True,
                                     expected=np.linalg.solve(
                                         np.triu(SQ), np.broadcast_to(SQ[0], SQ.shape)))],
    "cholesky_solve": [Case(SQ[0], LOW,
                            expected=np.linalg.solve(SPD, np.broadcast_to(SQ[0], SPD.shape)))],
    "linalg_cholesky": [Case(SPD, expected=LOW)],
    "linalg_cholesky_ex": [Case(SPD, expected=(LOW, np.zeros(2, np.int32)))],
    "linalg_qr": [Case(R43, expected=_reconstructs(R43, lambda q, r: q @ r))],
    "linalg_eigh": [Case(SPD, expected=_reconstructs(
        SPD, lambda w, v: v @ (w[..., None] * np.swapaxes(v, -1, -2))))],
    "linalg_eigvalsh": [Case(SPD, expected=np.linalg.eigvalsh(SPD))],
    "linalg_svd": [Case(R43, expected=_reconstructs(R43, lambda u, s, vh: u[:, :3] * s @ vh))],
    "linalg_svdvals": [Case(R43, expected=np.linalg.svd(R43, compute_uv=False))],
    "linalg_vector_norm": [Case(D, expected=np.asarray(np.linalg.norm(D))),
                           Case(D, 1, -1, expected=np.abs(D).sum(-1))],
    "linalg_matrix_norm": [Case(D, expected=np.asarray(np.linalg.norm(D))),
                           Case(D, "nuc", expected=np.asarray(np.linalg.norm(D, "nuc"))),
                           Case(D, -1, expected=np.asarray(np.linalg.norm(D, -1)))],
    "linalg_norm": [Case(D, 2, expected=np.asarray(np.linalg.norm(D, 2))),
                    Case(D, expected=np.asarray(np.linalg.norm(D)))],
    "linalg_cond": [Case(SQ, expected=np.linalg.cond(SQ)),
                    Case(SQ, "fro", expected=np.linalg.cond(SQ, "fro"))],
    "linalg_matrix_rank": [Case(R43, expected=np.asarray(3, i64))],
    "linalg_pinv": [Case(R43, expected=np.linalg.pinv(R43))],
    "linalg_lstsq": [Case(R43, R43[:, :1], expected=lambda r, a: np.testing.assert_allclose(
        r[0].numpy(), np.linalg.lstsq(R43, R43[:, :1], rcond=None)[0], atol=1e-12))],
    "linalg_matrix_power": [Case(SQ, 3, expected=SQ @ SQ @ SQ),
                            Case(SQ, -1, expected=np.linalg.inv(SQ))],
    "linalg_multi_dot": [Case([torch_tensor(SQ[0]), torch_tensor(R43.T)], expected=SQ[0] @ R43.T)],
    "linalg_tensorinv": [Case(SQ[0].reshape(3, 1, 3), 2,
                              expected=np.linalg.inv(SQ[0]).reshape(3, 3, 1))],
    "linalg_tensorsolve": [Case(SQ[0], SQ[0, 0], expected=np.linalg.solve(SQ[0], SQ[0, 0]))],
    "linalg_householder_product": [Case(R43, np.array([0.0, 0.0]), expected=np.eye(4, 3))],
    "linalg_eig": [Case(SQ, expected=None, raises="no complex results yet")],
    "linalg_eigvals": [Case(SQ, expected=None, raises="no complex results yet")],
    "nan_to_num": [Case(np.array([np.nan, np.inf, -np.inf, 1.0]), expected=np.array(
        [0.0, np.finfo(f64).max, np.finfo(f64).min, 1.0]))],
})


# ------------------------------------------------------------------------ dtype promotion

def _t(values, dtype=None):
    return torch_tensor(values, dtype=dtype)


@pytest.mark.parametrize("label,make,dtype", [
    ("int tensor * float scalar", lambda: _t([1, 2]) * 2.5, rt.torch_float32()),
    ("int tensor + int scalar", lambda: _t([1, 2]) + 3, rt.torch_long()),
    ("float32 tensor * Python float", lambda: _t([1.0, 2.0]) * 2.5, rt.torch_float32()),
    ("float32 tensor * huge Python float", lambda: _t([1.0]) * 1e300, rt.torch_float32()),
    ("int / int (true division)", lambda: _t([1, 2]) / _t([2, 2]), rt.torch_float32()),
    ("int / Python int", lambda: _t([1, 2]) / 2, rt.torch_float32()),
    ("float32 {2} * float64 0-dim", lambda: _t([1.0, 2.0]) * _t(np.float64(2.0)),
     rt.torch_float32()),
    ("int {2} * float64 0-dim", lambda: _t([1, 2]) * _t(np.float64(2.0)), rt.torch_float64()),
    ("float32 0-dim * float64 {2}", lambda: _t(np.float32(2)) * _t(np.ones(2)),
     rt.torch_float64()),
    ("int64 tensor * float32 tensor", lambda: _t([1, 2]) * _t([1.0, 2.0]), rt.torch_float32()),
    ("float32 + float64 tensors", lambda: _t([1.0]) + _t(np.ones(1)), rt.torch_float64()),
    ("bool + bool", lambda: _t([True]) + _t([True]), rt.torch_bool()),
    ("bool + int scalar", lambda: _t([True]) + 1, rt.torch_long()),
    ("bool * float scalar", lambda: _t([True]) * 1.5, rt.torch_float32()),
    ("int32 + int64 0-dim", lambda: _t([1], rt.torch_int32()) + _t(5), rt.torch_int32()),
    ("uint8 + int8", lambda: _t([1], rt.torch_uint8()) + _t([1], rt.torch_int8()),
     rt.torch_int16()),
    ("sum of int", lambda: _t([1, 2]).sum(), rt.torch_long()),
    ("sum of int32", lambda: _t([1, 2], rt.torch_int32()).sum(), rt.torch_long()),
    ("sum of bool", lambda: _t([True, True]).sum(), rt.torch_long()),
    ("cumsum of int32", lambda: _t([1, 2], rt.torch_int32()).cumsum(0), rt.torch_long()),
    ("mean of float64", lambda: _t(np.ones(2)).mean(), rt.torch_float64()),
    ("comparison", lambda: _t([1.0]) > 0, rt.torch_bool()),
    ("comparison of tensors", lambda: _t([1]).eq(_t([1.0])), rt.torch_bool()),
    ("exp of int", lambda: _t([1, 2]).exp(), rt.torch_float32()),
    ("sqrt of float64", lambda: _t(np.ones(2)).sqrt(), rt.torch_float64()),
    ("int ** float scalar", lambda: _t([1, 2]) ** 2.0, rt.torch_float32()),
    ("2 ** int tensor", lambda: 2 ** _t([1, 2]), rt.torch_long()),
    ("2.5 ** int tensor", lambda: 2.5 ** _t([1, 2]), rt.torch_float32()),
    ("float scalar - int tensor", lambda: 2.5 - _t([1, 2]), rt.torch_float32()),
    ("int // int", lambda: _t([3, 4]) // 2, rt.torch_long()),
    ("where int/float", lambda: rt.torch_where(_t([True]), _t([1]), _t([2.5])),
     rt.torch_float32()),
    ("cat int and float", lambda: rt.torch_cat([_t([1]), _t([2.5])]), rt.torch_float32()),
    ("softmax of int", lambda: _t([1, 2]).softmax(0), rt.torch_float32()),
    ("matmul float64", lambda: _t(np.ones((2, 2))) @ _t(np.ones(2)), rt.torch_float64()),
])
def test_result_dtype(label, make, dtype):
    assert make().dtype == dtype


def test_float32_arithmetic_with_python_floats_never_upcasts():
    x = rt.torch_randn(3, requires_grad=True)
    for y in (x * 0.1, x + 0.1, x - 0.1, 0.1 - x, x / 0.1, 0.1 / x, x ** 1.5, 1.5 ** x,
              x.clamp(min=0.1), rt.torch_where(x > 0, x, 0.1), x.masked_fill(x > 0, 0.1)):
        assert y.dtype == rt.torch_float32()
    y = x * 0.1
    y.sum().backward()
    assert x.grad.dtype == rt.torch_float32()


# ------------------------------------------------------------------------ indexing

X = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
INDEX_KEYS = [
    0, -1, (1, 2), (0, -1, 3), slice(1, None), slice(None, 2), slice(0, 3, 2), slice(-2, None),
    (slice(None), 1), (Ellipsis, 2), (0, Ellipsis), (None,), (None, 0), (Ellipsis, None),
    (0, None, slice(1, 3)), (slice(None), None, 2), slice(5, 10), [0, 2], [2, 2, 0],
    ([0, 1], [1, 3]), (slice(None), [0, 3]), (1, [0, 2], slice(None)), ([0], slice(None), [1, 2]),
    [[0, 1], [2, 2]], X[:, 0, 0] > 10, X > 30, (X[:, :, 0] > 20), (0, X[0, :, 0] > 5),
    np.array([1, 0]), (True,), (False,), (slice(None), Ellipsis, -1),
]


@pytest.mark.parametrize("key", INDEX_KEYS, ids=[str(i) for i in range(len(INDEX_KEYS))])
def test_getitem_matches_numpy(key):
    want = X[key]
    x = torch_tensor(X)
    got = x[key]
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want)
    # index arrays given as tensors behave the same
    tkey = tuple(torch_tensor(k) if isinstance(k, (list, np.ndarray)) else k
                 for k in (key if isinstance(key, tuple) else (key,)))
    np.testing.assert_array_equal(x[tkey].numpy(), want)


def test_getitem_with_integer_and_zero_dim_tensors():
    x = torch_tensor(X)
    np.testing.assert_array_equal(x[torch_tensor(1)].numpy(), X[1])
    np.testing.assert_array_equal(x[torch_tensor([1, 0])].numpy(), X[[1, 0]])
    np.testing.assert_array_equal(x[torch_tensor(X > 30)].numpy(), X[X > 30])


def test_basic_indexing_gives_views_advanced_gives_copies():
    x = rt.torch_zeros(3, 4)
    v = x[1:, ::2]
    v.fill_(1.0)
    assert x.numpy()[1:, ::2].sum() == 4 and x.sum().item() == 4
    c = x[[0, 1]]
    c.fill_(5.0)
    assert x.sum().item() == 4


def test_getitem_gradients():
    x = torch_tensor(X.astype(np.float64), requires_grad=True)
    (x[0, 1:3].sum() + x[[0, 0, 2]].sum() * 2 + x[x > 50].sum()).backward()
    want = np.zeros_like(X, dtype=np.float64)
    want[0, 1:3] += 1
    want[0] += 4
    want[2] += 2
    want[X > 50] += 1
    np.testing.assert_array_equal(x.grad.numpy(), want)


@pytest.mark.parametrize("key,value", [
    (0, 7.0), ((1, 2), -1.0), (slice(1, None), 3.0), ((Ellipsis, 0), 2.0), ([0, 2], 9.0),
    (X[:, :, 0] > 20, 0.0), (X > 30, -5.0), ((slice(None), [1, 3]), np.ones((3, 2, 5), np.float32)),
    (1, np.arange(5, dtype=np.float32)), ((None, 0), 1.0),
])
def test_setitem_matches_numpy(key, value):
    want = X.copy()
    want[key] = value
    x = torch_tensor(X)
    x[key] = torch_tensor(value) if isinstance(value, np.ndarray) else value
    np.testing.assert_array_equal(x.numpy(), want)


def test_setitem_gradients_flow_to_both_sides():
    x = torch_tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    v = torch_tensor([10.0, 20.0], requires_grad=True)
    y = x * 2
    y[1:3] = v * v
    assert y.grad_fn.name == "CopySlices"   # a basic key: libtorch copies into a slice
    (y * torch_tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 0.0, 8.0]
    assert v.grad.tolist() == [2 * 10.0 * 2, 2 * 20.0 * 3]
    y = x * 2
    y[[0, 3]] = 0.0
    assert y.grad_fn.name == "IndexPutBackward0"
    y = x * 2
    y[y > 4] = 0.0
    assert y.grad_fn.name == "IndexPutBackward0"


def test_setitem_on_a_leaf_requiring_grad_is_refused_but_allowed_under_no_grad():
    x = rt.torch_ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation."):
        x[0] = 2.0
    assert rt.is_grad_enabled()
    with rt.with_no_grad():
        x[0] = 2.0
    assert x.tolist() == [2.0, 1.0, 1.0] and x.requires_grad and x.is_leaf


def test_index_errors():
    x = torch_tensor(X)
    with pytest.raises(IndexError, match="out of bounds"):
        x[3]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0, 0]
    with pytest.raises(IndexError):
        x[[0, 7]]
    with pytest.raises(IndexError):
        x[torch_tensor([0.5])]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]
    assert rt.is_grad_enabled()


# ------------------------------------------------------------------------ in-place and autograd

def test_inplace_ops_return_self_and_bump_the_version():
    x = rt.torch_zeros(3)
    for call in (lambda t: t.add_(1), lambda t: t.sub_(0.5), lambda t: t.mul_(2),
                 lambda t: t.div_(3), lambda t: t.clamp_(min=0), lambda t: t.fill_(2),
                 lambda t: t.zero_(), lambda t: t.copy_(rt.torch_ones(3)),
                 lambda t: t.uniform_(), lambda t: t.normal_(),
                 lambda t: t.masked_fill_(t > 0, 1.0)):
        before = x._version[0]
        assert call(x) is x
        assert x._version[0] == before + 1


def test_augmented_assignment_is_in_place():
    x = rt.torch_ones(2)
    y = x
    x += 1
    x *= 3
    x -= 1
    x /= 5
    assert x is y and x.tolist() == [1.0, 1.0]


def test_inplace_on_a_leaf_requiring_grad_is_an_error():
    for call in (lambda t: t.add_(1), lambda t: t.sub_(1), lambda t: t.mul_(2),
                 lambda t: t.div_(2), lambda t: t.copy_(rt.torch_zeros(2)),
                 lambda t: t.clamp_(min=0), lambda t: t.zero_(), lambda t: t.fill_(1),
                 lambda t: t.uniform_(), lambda t: t.normal_(),
                 lambda t: t.masked_fill_(t > 0, 0.0)):
        x = rt.torch_ones(2, requires_grad=True)
        with pytest.raises(RuntimeError) as err:
            call(x)
        assert str(err.value) == ("a leaf Variable that requires grad is being used in an "
                                  "in-place operation.")
        assert x.tolist() == [1.0, 1.0] and x._version[0] == 0
        assert rt.is_grad_enabled()


def test_inplace_on_a_leaf_is_allowed_under_no_grad():
    w = rt.torch_ones(2, requires_grad=True)
    (w * 3).sum().backward()
    with rt.with_no_grad():
        w.sub_(w.grad * 0.1)   # the SGD update
        w.grad.zero_()
    assert w.tolist() == pytest.approx([0.7, 0.7])
    assert w.is_leaf and w.requires_grad and w.grad_fn is None
    assert w.grad.tolist() == [0.0, 0.0]


def test_gradients_after_inplace_ops_on_non_leaves():
    x = torch_tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y.mul_(x)          # x^2
    y.add_(x, alpha=2)  # x^2 + 2x
    y.sub_(1)
    y.div_(2)          # (x^2 + 2x - 1) / 2
    y.clamp_(max=6)    # the last element (7) is clamped
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 3.0, 0.0]

    x = torch_tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.masked_fill_(torch_tensor([True, False]), 0.0)
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 3.0]

    x = torch_tensor([1.0, 2.0], requires_grad=True)
    src = torch_tensor([5.0, 6.0], requires_grad=True)
    y = x * 3
    y.copy_(src * 2)
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0] and src.grad.tolist() == [2.0, 2.0]

    x = torch_tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.zero_()
    (y + x).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]

    for refill in (lambda t: t.uniform_(), lambda t: t.normal_(), lambda t: t.fill_(3.0)):
        x = torch_tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        refill(y)
        assert y.grad_fn.name == "FillBackward0"
        (y * x).sum().backward()   # y no longer depends on x: only the product rule's y term
        np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy())

    x = torch_tensor([-1.0, 2.0], requires_grad=True)
    y = rt.nnf_relu(x * 2, inplace=True)
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0]


def test_inplace_with_a_tensor_argument_requiring_grad_on_a_plain_tensor():
    acc = rt.torch_zeros(2)
    x = torch_tensor([1.0, 2.0], requires_grad=True)
    acc.add_(x * x)
    assert acc.requires_grad and acc.grad_fn.name == "AddBackward0"
    acc.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


VERSION_ERROR = "one of the variables needed for gradient computation has been modified by an " \
                "inplace operation"


@pytest.mark.parametrize("modify", [
    lambda t: t.add_(1), lambda t: t.mul_(2), lambda t: t.zero_(), lambda t: t.fill_(1.0),
    lambda t: t.copy_(rt.torch_ones(3)), lambda t: t.clamp_(min=0),
    lambda t: t.__setitem__(0, 5.0), lambda t: t.masked_fill_(t > 100, 0.0),
])
def test_modifying_a_saved_tensor_is_detected(modify):
    x = torch_tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    z = (y * y).sum()      # MulBackward0 saves y
    modify(y)
    with pytest.raises(RuntimeError) as err:
        z.backward()
    msg = str(err.value)
    assert msg.startswith(VERSION_ERROR)
    assert "[CPUFloatType [3]] is at version 1; expected version 0 instead." in msg
    assert rt.is_grad_enabled()


def test_saved_output_modified_in_place_is_detected():
    x = torch_tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()   # saves its result
    y.add_(1)
    with pytest.raises(RuntimeError, match=VERSION_ERROR):
        y.sum().backward()


def test_modifying_a_tensor_not_saved_is_fine():
    x = torch_tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y + 1     # AddBackward1 saves nothing
    y.add_(1)
    z.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_views_share_the_version_counter():
    base = rt.torch_zeros(4)
    view = base[1:3]
    view.add_(1)
    assert base.tolist() == [0.0, 1.0, 1.0, 0.0]
    assert base._version[0] == view._version[0] == 1
    r = base.view(2, 2)
    r.mul_(2)
    assert base.tolist() == [0.0, 2.0, 2.0, 0.0]


def test_inplace_dtype_and_shape_rules():
    x = torch_tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        x.add_(1.5)
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        x.div_(2)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        rt.torch_zeros(2).add_(rt.torch_ones(2, 2))
    f = rt.torch_zeros(2)
    f.add_(torch_tensor([1, 2]))
    assert f.dtype == rt.torch_float32() and f.tolist() == [1.0, 2.0]
    assert rt.is_grad_enabled()


# ------------------------------------------------------------------------ errors

def _raises(exc, message, call):
    with pytest.raises(exc) as err:
        call()
    assert message in str(err.value), str(err.value)
    assert rt.is_grad_enabled()


def test_dimension_out_of_range():
    x = rt.torch_ones(2, 2)
    msg = "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    for call in (lambda: x.sum(dim=2), lambda: x.mean(2), lambda: x.max(dim=2),
                 lambda: x.softmax(2), lambda: x.cumsum(2), lambda: x.transpose(0, 2),
                 lambda: x.select(2, 0), lambda: rt.torch_cat([x, x], 2),
                 lambda: x.squeeze(2), lambda: x.unbind(2), lambda: x.sum(dim=(0, 2)),
                 lambda: x.amax(2), lambda: x.var(2), lambda: x.norm(dim=2), lambda: x.flip(2),
                 lambda: x.logsumexp(2), lambda: x.gather(2, torch_tensor([[0]])),
                 lambda: x.index_select(2, torch_tensor([0]))):
        _raises(IndexError, msg, call)
    _raises(IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got -3)",
            lambda: x.sum(dim=-3))
    _raises(IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 3)",
            lambda: x.unsqueeze(3))
    _raises(IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 3)",
            lambda: rt.torch_stack([x, x], 3))
    _raises(IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
            lambda: rt.torch_tensor(2.0).sum(dim=1))
    _raises(RuntimeError, "appears multiple times", lambda: x.sum(dim=(0, -2)))


def test_shape_mismatch_errors():
    _raises(RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)",
            lambda: rt.torch_ones(2, 3).mm(rt.torch_ones(2, 3)))
    _raises(RuntimeError, "mm: expected 2-D", lambda: rt.torch_ones(3).mm(rt.torch_ones(3, 2)))
    _raises(RuntimeError, "expected m1 and m2 to have the same dtype",
            lambda: rt.torch_ones(2, 3).mm(rt.torch_ones(3, 2, dtype=rt.torch_float64())))
    _raises(RuntimeError, "both arguments to matmul need to be at least 1D",
            lambda: rt.torch_ones(2).matmul(rt.torch_tensor(1.0)))
    _raises(RuntimeError, "Sizes of tensors must match except in dimension 0. Expected size 3 "
                          "but got size 2 for tensor number 1 in the list.",
            lambda: rt.torch_cat([rt.torch_ones(2, 3), rt.torch_ones(2, 2)]))
    _raises(RuntimeError, "Tensors must have same number of dimensions",
            lambda: rt.torch_cat([rt.torch_ones(2, 3), rt.torch_ones(3)]))
    _raises(RuntimeError, "stack expects each tensor to be equal size, but got [2, 3] at entry 0 "
                          "and [2, 2] at entry 1",
            lambda: rt.torch_stack([rt.torch_ones(2, 3), rt.torch_ones(2, 2)]))
    _raises(RuntimeError, "The expanded size of the tensor (3) must match the existing size (2) "
                          "at non-singleton dimension 0.  Target sizes: [3, 3].  Tensor sizes: "
                          "[2, 3]",
            lambda: rt.torch_ones(2, 3).expand(3, 3))
    _raises(RuntimeError, "expand: the number of sizes provided (1) must be greater or equal",
            lambda: rt.torch_ones(2, 3).expand(3))
    _raises(RuntimeError, "shape '[4, 2]' is invalid for input of size 6",
            lambda: rt.torch_ones(2, 3).reshape(4, 2))
    _raises(RuntimeError, "only one dimension can be inferred",
            lambda: rt.torch_ones(2, 3).reshape(-1, -1))
    _raises(RuntimeError, "view size is not compatible with input tensor's size and stride",
            lambda: rt.torch_ones(2, 3).t().view(6))
    _raises(RuntimeError, "permute", lambda: rt.torch_ones(2, 3).permute(0))
    _raises(RuntimeError, "1D tensors expected", lambda: rt.torch_ones(2, 2).dot(rt.torch_ones(2)))
    _raises(RuntimeError, "inconsistent tensor size",
            lambda: rt.torch_ones(2).dot(rt.torch_ones(3)))
    _raises(RuntimeError, "split_with_sizes expects split_sizes to sum exactly to 3",
            lambda: rt.torch_ones(3).split([1, 1]))
    _raises(RuntimeError, "start (4) + length (2) exceeds dimension size (5).",
            lambda: rt.torch_ones(5).narrow(0, 4, 2))
    _raises(IndexError, "start out of range (expected to be in range of [-5, 5], but got -6)",
            lambda: rt.torch_ones(5).narrow(0, -6, 2))


def test_requires_grad_on_integer_tensors():
    msg = "Only Tensors of floating point and complex dtype can require gradients"
    _raises(RuntimeError, msg, lambda: torch_tensor([1, 2], requires_grad=True))
    _raises(RuntimeError, msg, lambda: torch_tensor([1, 2]).requires_grad_())
    _raises(RuntimeError, msg, lambda: torch_tensor([True]).requires_grad_())

    def set_attr():
        torch_tensor([1, 2]).requires_grad = True
    _raises(RuntimeError, msg, set_attr)
    _raises(RuntimeError, msg, lambda: rt.torch_arange(3, requires_grad=True))


def test_other_errors():
    _raises(RuntimeError, "Integers to negative integer powers are not allowed.",
            lambda: torch_tensor([1, 2]) ** -1)
    _raises(RuntimeError, "Subtraction, the `-` operator, with a bool tensor is not supported",
            lambda: torch_tensor([True]) - torch_tensor([False]))
    _raises(RuntimeError, "Negation, the `-` operator, on a bool tensor is not supported",
            lambda: -torch_tensor([True]))
    _raises(RuntimeError, "mean(): could not infer output dtype. Input dtype must be either a "
                          "floating point or complex dtype. Got: Long",
            lambda: torch_tensor([1, 2]).mean())
    _raises(RuntimeError, "At least one of 'min' or 'max' must not be None",
            lambda: rt.torch_ones(2).clamp())
    _raises(RuntimeError, "masked_fill_ only supports boolean masks",
            lambda: rt.torch_ones(2).masked_fill(torch_tensor([1, 0]), 0.0))
    _raises(ValueError, "a Tensor with 4 elements cannot be converted to Scalar",
            lambda: rt.torch_ones(2, 2).item())
    _raises(RuntimeError, "Boolean value of Tensor with 2 values is ambiguous",
            lambda: bool(rt.torch_ones(2)))
    _raises(RuntimeError, "t() expects a tensor with <= 2 dimensions",
            lambda: rt.torch_ones(2, 2, 2).t())
    _raises(ValueError, "rounding_mode", lambda: rt.torch_ones(2).div(2, rounding_mode="x"))
    for op in ("abs", "floor", "ceil", "round", "trunc"):
        _raises(RuntimeError, f'"{op}" not implemented for \'Bool\'',
                lambda: getattr(torch_tensor([True]), op)())
    _raises(RuntimeError, "Boolean inputs not supported for relu",
            lambda: torch_tensor([True]).relu())


def test_grad_mode_is_restored_after_errors_inside_no_grad():
    assert rt.is_grad_enabled()
    with pytest.raises(IndexError):
        with rt.with_no_grad():
            assert not rt.is_grad_enabled()
            rt.torch_ones(2, 2).sum(dim=5)
    assert rt.is_grad_enabled()
    x = rt.torch_ones(2, requires_grad=True)
    y = (x * x).sum()
    with pytest.raises(RuntimeError):
        rt.torch_ones(2, 2).mm(rt.torch_ones(3, 3))
    y.backward()
    assert rt.is_grad_enabled() and x.grad.tolist() == [2.0, 2.0]
    # an error raised inside backward (version check) restores grad mode too
    y = x * 2
    z = (y * y).sum()
    with rt.with_no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError):
        z.backward()
    assert rt.is_grad_enabled()


# ---------------------------------------------------------------- Python numbers as operands
# add/sub/mul/div turn a Python number into a cached 0-d array of the tensor's dtype (faster in
# NumPy); the results must be exactly those of the number itself

@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("value", [0.1, -2.5, 3, 1e-45, 1e40, -0.0, 0.0, float("inf")])
def test_number_operands_give_numpys_results_exactly(dtype, value):
    from rtorchpy import torch_tensor
    a = np.array([1.5, -0.0, 0.0, 3.25, 1e-3], dtype=dtype)
    x = torch_tensor(a)
    with np.errstate(all="ignore"):
        v = np.asarray(value, dtype=dtype)  # the number in the tensor's dtype, as libtorch takes it
        for got, want in [((x + value).numpy(), a + v), ((x - value).numpy(), a - v),
                          ((x * value).numpy(), a * v), ((x / value).numpy(), a / v)]:
            assert got.dtype == want.dtype == dtype
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # -0.0 kept


def test_number_cache_keeps_zeros_and_nan_out():
    from rtorchpy.numerics.arrays import _SCALARS, scalar_array
    _SCALARS.clear()
    for v in [0.0, -0.0, 0, float("nan"), float("nan")]:
        scalar_array(v, np.dtype(np.float32))
    assert not _SCALARS
    assert np.signbit(scalar_array(-0.0, np.dtype(np.float32)))
    c = scalar_array(0.5, np.dtype(np.float32))
    assert scalar_array(0.5, np.dtype(np.float32)) is c and not c.flags.writeable


@pytest.mark.parametrize("dtype, wide", [("float16", np.float32), ("float32", np.float64)])
def test_cumsum_accumulates_as_libtorch_in_both_directions(dtype, wide):
    # libtorch's CPU cumsum adds float16 in float32 and float32 in float64: NumPy's float32
    # cumsum of 10^6 times 0.1 ends at 100958, and float16 stalls at 2048 counting ones
    n = 3000 if dtype == "float16" else 10**6
    x = rt.torch_full([n], 0.1 if dtype == "float32" else 1.0,
                      dtype=getattr(rt, f"torch_{dtype}")(), requires_grad=True)
    y = x.cumsum(0)
    expected = np.cumsum(x._data, dtype=wide).astype(x._data.dtype)
    np.testing.assert_array_equal(y._data, expected)
    assert y._data[-1] == (3000.0 if dtype == "float16" else np.float32(100000.0))
    y.backward(rt.torch_ones_like(y))  # the gradient is a reversed cumsum: the same rule
    # each reversed partial sum of ones is exact in the wide type, rounded once
    np.testing.assert_array_equal(x.grad._data, np.arange(n, 0, -1).astype(x._data.dtype))


def test_gradient_of_a_negative_scalar_base_power_is_nan_not_an_error():
    # d/dx b^x = b^x log(b): NaN for b < 0, as libtorch (math.log raised a ValueError)
    x = rt.torch_tensor([1.0, 2.0, 0.5], requires_grad=True)
    y = (-2.0) ** x
    np.testing.assert_array_equal(y._data, np.array([-2.0, 4.0, np.nan], np.float32))
    y.sum().backward()
    assert np.isnan(x.grad._data).all()


def test_integer_remainder_and_fmod_by_zero_are_errors_and_numbers_take_a_tensor_modulo():
    # libtorch raises for an integer division by zero (NumPy gives 0 and a warning)
    for call in (lambda: rt.torch_fmod(rt.torch_tensor([5]), 0),
                 lambda: rt.torch_tensor([5]) % 0,
                 lambda: rt.torch_remainder(rt.torch_tensor([5, 2]), rt.torch_tensor([1, 0]))):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            call()
    r = 7 % rt.torch_tensor([3.0, -2.0])  # __rmod__: the sign follows the divisor
    np.testing.assert_array_equal(r._data, np.array([1.0, -1.0], np.float32))
    assert (7 % rt.torch_tensor([3, -2])).dtype == rt.torch_long()


def test_where_between_two_numbers_takes_the_higher_category_dtype():
    m = rt.torch_tensor([True, False])
    assert rt.torch_where(m, 1, 0.0).dtype == rt.torch_float()  # not float64
    assert rt.torch_where(m, 1.0, 0).dtype == rt.torch_float()
    assert rt.torch_where(m, 1, 0).dtype == rt.torch_long()
    assert rt.torch_where(m, False, True).dtype == rt.torch_bool()


def test_rounded_division_gives_zero_gradients_to_both_operands():
    x = rt.torch_tensor([5.0, 7.0], requires_grad=True)
    y = rt.torch_tensor([[2.0], [3.0]], requires_grad=True)
    x.div(y, rounding_mode="floor").sum().backward()
    np.testing.assert_array_equal(x.grad._data, [0.0, 0.0])
    np.testing.assert_array_equal(y.grad._data, [[0.0], [0.0]])  # None before, as if unused


@pytest.mark.parametrize("x_shape, mask_shape", [((3,), (2, 3)), ((2, 1), (2, 3)),
                                                 ((1, 3), (2, 1)), ((2, 3), (3,))])
def test_masked_fill_broadcasts_self_with_the_mask(x_shape, mask_shape):
    # libtorch broadcasts both (a mask with more dims gives a larger result); the gradient
    # sums back to self's shape
    xa = np.arange(np.prod(x_shape), dtype=np.float32).reshape(x_shape) + 1
    ma = np.arange(np.prod(mask_shape)).reshape(mask_shape) % 2 == 0
    x = rt.torch_tensor(xa, requires_grad=True)
    y = x.masked_fill(rt.torch_tensor(ma), -1.0)
    expected = np.where(ma, np.float32(-1), xa)
    np.testing.assert_array_equal(y._data, expected)
    y.sum().backward()
    kept = np.broadcast_to(~ma, expected.shape).astype(np.float32)  # where self shows through
    lead = kept.ndim - len(x_shape)
    kept = kept.sum(axis=tuple(range(lead)))
    kept = kept.sum(axis=tuple(i for i, n in enumerate(x_shape) if n == 1), keepdims=True)
    np.testing.assert_array_equal(x.grad._data, kept)


def test_in_place_masked_fill_keeps_its_shape():
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the "
                                           r"broadcast shape \[2, 3\]"):
        rt.torch_zeros(3).masked_fill_(rt.torch_tensor([[True, False, True],
                                                        [False, False, True]]), 1.0)


def test_round_with_decimals_is_libtorchs_rint_of_the_scaled_value():
    a = np.array([1.2345, -2.5, 2.5, 1234.5678, 0.125, -0.0051], dtype=np.float32)
    x = rt.torch_tensor(a, requires_grad=True)
    for d in (1, 2, -1, -2):
        scale = np.float32(10.0 ** abs(d))
        expected = np.rint(a * scale) / scale if d > 0 else np.rint(a / scale) * scale
        y = x.round(decimals=d)
        np.testing.assert_array_equal(y._data, expected.astype(np.float32))
        assert y.grad_fn.name == "RoundBackward1"
    x.round(decimals=2).sum().backward()
    np.testing.assert_array_equal(x.grad._data, np.zeros(6, np.float32))
    assert x.round().grad_fn.name == "RoundBackward0"
    with pytest.raises(NotImplementedError, match="\"round_cpu\" not implemented for 'Long'"):
        rt.torch_tensor([3]).round(decimals=1)
