"""rtorchpy against PyTorch itself (an optional test dependency: skipped when torch is not
installed; ``pip install torch==2.13.0``): forward values, result dtypes, gradients, second
derivatives, and grad_fn names where PyTorch's Python names are the ones rtorchpy records.

rtorchpy names a few nodes as R torch (libtorch called from R) does, which differs from
PyTorch's Python front end: a Python number operand uses the Scalar overload (``x * 2`` is
MulBackward1, PyTorch's Python gives MulBackward0 because it wraps the number in a tensor).
Those cases set ``name=False``.
"""
from __future__ import annotations

import numpy as np
import pytest

import rtorchpy as rt

torch = pytest.importorskip("torch")
F = torch.nn.functional

RNG = np.random.default_rng(2024)


def anyv(*s):
    return RNG.uniform(-2, 2, s)


def pos(*s):
    return RNG.uniform(0.5, 2, s)


def away0(*s):
    return RNG.choice([-1.0, 1.0], s) * RNG.uniform(0.3, 2, s)


def distinct(*s):
    n = int(np.prod(s, dtype=int))
    return ((RNG.permutation(n) - n / 2) * 0.3 + RNG.uniform(-0.05, 0.05, n)).reshape(s)


class RT:
    """The functions each case calls by a neutral name, in rtorchpy."""
    tensor = staticmethod(lambda a, **k: rt.torch_tensor(a, **k))
    cat = staticmethod(rt.torch_cat)
    stack = staticmethod(rt.torch_stack)
    where = staticmethod(rt.torch_where)
    maximum = staticmethod(rt.torch_maximum)
    minimum = staticmethod(rt.torch_minimum)
    fmod = staticmethod(rt.torch_fmod)
    remainder = staticmethod(rt.torch_remainder)
    addmm = staticmethod(rt.torch_addmm)
    relu = staticmethod(rt.nnf_relu)
    sigmoid = staticmethod(rt.nnf_sigmoid)
    tanh = staticmethod(rt.nnf_tanh)
    softmax = staticmethod(rt.nnf_softmax)
    log_softmax = staticmethod(rt.nnf_log_softmax)
    linear = staticmethod(rt.nnf_linear)
    mse_loss = staticmethod(rt.nnf_mse_loss)
    nll_loss = staticmethod(rt.nnf_nll_loss)
    cross_entropy = staticmethod(rt.nnf_cross_entropy)
    binary_cross_entropy = staticmethod(rt.nnf_binary_cross_entropy)
    float64 = rt.torch_float64()
    float32 = rt.torch_float32()


class TH:
    """The same names in PyTorch."""
    tensor = staticmethod(lambda a, **k: torch.tensor(a, **k))
    cat = staticmethod(torch.cat)
    stack = staticmethod(torch.stack)
    where = staticmethod(torch.where)
    maximum = staticmethod(torch.maximum)
    minimum = staticmethod(torch.minimum)
    fmod = staticmethod(torch.fmod)
    remainder = staticmethod(torch.remainder)
    addmm = staticmethod(torch.addmm)
    relu = staticmethod(F.relu)
    sigmoid = staticmethod(torch.sigmoid)
    tanh = staticmethod(torch.tanh)
    softmax = staticmethod(F.softmax)
    log_softmax = staticmethod(F.log_softmax)
    linear = staticmethod(F.linear)
    mse_loss = staticmethod(F.mse_loss)
    nll_loss = staticmethod(F.nll_loss)
    cross_entropy = staticmethod(F.cross_entropy)
    binary_cross_entropy = staticmethod(F.binary_cross_entropy)
    float64 = torch.float64
    float32 = torch.float32


class C:
    """``fn(L, *xs)``: L is RT or TH, xs float64 tensors requiring grad made from ``inputs``."""

    def __init__(self, label, fn, *inputs, name=True, second=False):
        self.label, self.fn, self.inputs = label, fn, [np.asarray(a, np.float64) for a in inputs]
        self.name, self.second = name, second


CASES = [
    # -- arithmetic
    C("x + y", lambda L, x, y: x + y, anyv(2, 3), anyv(3)),
    C("x.add(y, alpha)", lambda L, x, y: x.add(y, alpha=2.5), anyv(2, 3), anyv(2, 1)),
    C("x + 1", lambda L, x: x + 1, anyv(3), name=False),
    C("x - y", lambda L, x, y: x - y, anyv(2, 3), anyv(1, 3)),
    C("x - 1", lambda L, x: x - 1, anyv(3), name=False),
    C("1 - x", lambda L, x: 1 - x, anyv(3)),
    C("-x", lambda L, x: -x, anyv(3)),
    C("x * y", lambda L, x, y: x * y, anyv(2, 3), anyv(3), second=True),
    C("x * 2", lambda L, x: x * 2, anyv(3), name=False),
    C("x / y", lambda L, x, y: x / y, anyv(2, 3), away0(2, 1), second=True),
    C("x / 2", lambda L, x: x / 2, anyv(3), name=False),
    C("2 / x", lambda L, x: 2 / x, away0(3), name=False),
    C("x.div(y, floor)", lambda L, x, y: x.div(y, rounding_mode="floor"),
      np.array([1.3, -2.7, 3.5]), np.array([0.7, 1.1, -1.6])),
    C("x.div(2, trunc)", lambda L, x: x.div(2, rounding_mode="trunc"),
      np.array([1.3, -2.7, 3.5]), name=False),
    C("fmod", lambda L, x, y: L.fmod(x, y), np.array([1.3, -2.7, 3.5]),
      np.array([0.7, 1.1, -1.6])),
    C("remainder", lambda L, x, y: L.remainder(x, y), np.array([1.3, -2.7, 3.5]),
      np.array([0.7, 1.1, -1.6])),
    C("x % 1.5", lambda L, x: x % 1.5, np.array([1.3, -2.7, 3.2]), name=False),
    C("x ** 3", lambda L, x: x ** 3, anyv(4), second=True),
    C("x ** 0.5", lambda L, x: x ** 0.5, pos(4)),
    C("x.pow(-1.5)", lambda L, x: x.pow(-1.5), pos(4), second=True),
    C("x ** y", lambda L, x, y: x ** y, pos(2, 3), anyv(3), second=True),
    C("2 ** x", lambda L, x: 2 ** x, anyv(3), second=True),
    C("x.square()", lambda L, x: x.square(), anyv(3)),
    # -- unary
    *[C(f"x.{op}()", (lambda op: lambda L, x: getattr(x, op)())(op), dom(5), second=True)
      for op, dom in [("exp", anyv), ("expm1", anyv), ("log", pos), ("log1p", pos),
                      ("log2", pos), ("log10", pos), ("sqrt", pos), ("rsqrt", pos),
                      ("reciprocal", away0), ("sin", anyv), ("cos", anyv),
                      ("tan", lambda n: RNG.uniform(-1.2, 1.2, n)), ("tanh", anyv),
                      ("sigmoid", anyv), ("abs", away0), ("relu", away0), ("sign", away0),
                      ("floor", anyv), ("ceil", anyv), ("trunc", anyv), ("round", anyv),
                      ("neg", anyv), ("asin", lambda n: RNG.uniform(-0.9, 0.9, n)),
                      ("acos", lambda n: RNG.uniform(-0.9, 0.9, n)), ("atan", anyv),
                      ("sinh", anyv), ("cosh", anyv), ("asinh", anyv),
                      ("acosh", lambda n: RNG.uniform(1.1, 3, n)),
                      ("atanh", lambda n: RNG.uniform(-0.9, 0.9, n))]],
    C("clamp(min, max)", lambda L, x: x.clamp(min=-1, max=1), np.array([-1.5, -0.5, 0.3, 1.7])),
    C("clamp(min=0)", lambda L, x: x.clamp(min=0), np.array([-1.5, 0.3, 1.7])),
    C("clamp(max=0.5)", lambda L, x: x.clamp(max=0.5), np.array([-1.5, 0.3, 1.7])),
    C("clamp at the bounds", lambda L, x: x.clamp(min=0, max=1), np.array([0.0, 1.0, 0.5])),
    C("clamp tensor bounds", lambda L, x, lo, hi: x.clamp(min=lo, max=hi),
      np.array([[-2.0, 0.5, 3.0], [1.0, -1.0, 0.2]]), np.array([-1.0, 0.0, 0.0]),
      np.array([[1.0], [0.5]])),
    C("clamp tensor min only", lambda L, x, lo: x.clamp(min=lo), np.array([-2.0, 0.5, 3.0]),
      np.array([-1.0, 1.0, 0.0])),
    C("clamp crossed bounds", lambda L, x, lo, hi: x.clamp(lo, hi), np.array([-2.0, 0.5, 3.0]),
      np.array([1.0, 1.0, 1.0]), np.array([0.0, 0.0, 0.0])),
    C("maximum", lambda L, x, y: L.maximum(x, y), np.array([1.0, 2.0, 3.0]),
      np.array([1.0, 3.0, 2.0])),
    C("minimum", lambda L, x, y: L.minimum(x, y), np.array([1.0, 2.0, 3.0]),
      np.array([1.0, 3.0, 2.0])),
    C("where", lambda L, x, y: L.where(x > 0, x, y), anyv(2, 3), anyv(3)),
    C("relu at 0", lambda L, x: x.relu(), np.array([0.0, -1.0, 2.0])),
    C("abs at 0", lambda L, x: x.abs(), np.array([0.0, -1.0, 2.0])),
    # -- reductions
    C("sum", lambda L, x: x.sum(), anyv(2, 3)),
    C("sum(dim)", lambda L, x: x.sum(dim=1), anyv(2, 3)),
    C("sum(dims, keepdim)", lambda L, x: x.sum(dim=(0, -1), keepdim=True), anyv(2, 3, 2)),
    C("sum(keepdim) over all", lambda L, x: x.sum(dim=None, keepdim=True), anyv(2, 3)),
    C("sum(dim=())", lambda L, x: x.sum(dim=()), anyv(2, 3)),
    C("mean(dim=[], keepdim)", lambda L, x: x.mean(dim=[], keepdim=True), anyv(2, 3)),
    C("mean", lambda L, x: x.mean(), anyv(2, 3)),
    C("mean(dim)", lambda L, x: x.mean(dim=-1, keepdim=True), anyv(2, 3)),
    C("prod", lambda L, x: x.prod(), anyv(2, 3), second=True),
    C("prod(dim)", lambda L, x: x.prod(dim=1), anyv(2, 3), second=True),
    C("prod with a zero", lambda L, x: x.prod(), np.array([2.0, 0.0, 3.0]), second=True),
    C("prod with two zeros", lambda L, x: x.prod(dim=0),
      np.array([[2.0, 0.0], [0.0, 1.0], [0.0, 3.0]]), second=True),
    C("max", lambda L, x: x.max(), distinct(2, 3)),
    C("max with ties", lambda L, x: x.max(), np.array([1.0, 3.0, 3.0])),
    C("min", lambda L, x: x.min(), distinct(2, 3)),
    C("max(dim)", lambda L, x: x.max(dim=1), distinct(2, 3)),
    C("min(dim, keepdim)", lambda L, x: x.min(dim=0, keepdim=True), distinct(2, 3)),
    C("amax(dims)", lambda L, x: x.amax(dim=(0, 2)), distinct(2, 3, 2)),
    C("amax with ties", lambda L, x: x.amax(dim=1), np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])),
    C("amin", lambda L, x: x.amin(dim=-1), distinct(2, 3)),
    C("logsumexp", lambda L, x: x.logsumexp(1), anyv(2, 3), second=True),
    C("var", lambda L, x: x.var(), anyv(2, 3), second=True),
    C("var(dim, unbiased=False)", lambda L, x: x.var(dim=1, unbiased=False), anyv(2, 3)),
    C("var(correction=0)", lambda L, x: x.var(dim=0, correction=0, keepdim=True), anyv(2, 3)),
    C("std", lambda L, x: x.std(), anyv(2, 3), second=True),
    C("std(dim)", lambda L, x: x.std(dim=-1, keepdim=True), anyv(2, 3)),
    C("norm", lambda L, x: x.norm(), anyv(2, 3), second=True, name=False),
    C("norm(p=1, dim)", lambda L, x: x.norm(p=1, dim=1), away0(2, 3), name=False),
    C("norm(p=3)", lambda L, x: x.norm(p=3), away0(2, 3), name=False),
    C("norm(inf)", lambda L, x: x.norm(p=float("inf")), distinct(2, 3), name=False),
    C("norm(-inf, dim)", lambda L, x: x.norm(p=float("-inf"), dim=1), distinct(2, 3), name=False),
    C("cumsum", lambda L, x: x.cumsum(1), anyv(2, 3)),
    C("softmax", lambda L, x: x.softmax(1), anyv(2, 3), second=True),
    C("log_softmax", lambda L, x: x.log_softmax(0), anyv(2, 3), second=True),
    # -- linear algebra
    C("mm", lambda L, x, y: x.mm(y), anyv(2, 3), anyv(3, 4), second=True),
    C("x @ y 2-d", lambda L, x, y: x @ y, anyv(2, 3), anyv(3, 4)),
    C("matmul 1-d", lambda L, x, y: x.matmul(y), anyv(3), anyv(3)),
    C("matmul mv", lambda L, x, y: x.matmul(y), anyv(2, 3), anyv(3)),
    C("matmul batched", lambda L, x, y: x.matmul(y), anyv(2, 1, 2, 3), anyv(3, 3, 2),
      name=False),
    C("matmul vec @ batch", lambda L, x, y: x.matmul(y), anyv(3), anyv(2, 3, 2), name=False),
    C("dot", lambda L, x, y: x.dot(y), anyv(3), anyv(3)),
    C("mv", lambda L, x, y: x.mv(y), anyv(2, 3), anyv(3)),
    C("addmm", lambda L, b, x, y: L.addmm(b, x, y, beta=0.5, alpha=2), anyv(4), anyv(2, 3),
      anyv(3, 4)),
    C("outer", lambda L, x, y: x.outer(y), anyv(2), anyv(3), name=False),
    # -- shapes
    C("t", lambda L, x: x.t(), anyv(2, 3)),
    C("transpose", lambda L, x: x.transpose(0, 2), anyv(2, 3, 2)),
    C("permute", lambda L, x: x.permute(2, 0, 1), anyv(2, 3, 2)),
    C("view", lambda L, x: x.view(3, 2), anyv(2, 3)),
    C("reshape contiguous", lambda L, x: x.reshape(-1), anyv(2, 3)),
    C("reshape non-contiguous", lambda L, x: x.t().reshape(6), anyv(2, 3)),
    C("flatten", lambda L, x: x.flatten(), anyv(2, 3)),
    C("unsqueeze", lambda L, x: x.unsqueeze(1), anyv(2, 3)),
    C("squeeze", lambda L, x: x.squeeze(), anyv(2, 1, 3)),
    C("squeeze(dim)", lambda L, x: x.squeeze(1), anyv(2, 1, 3)),
    C("expand", lambda L, x: x.expand(2, 3), anyv(1, 3)),
    C("expand_as", lambda L, x, y: x.expand_as(y), anyv(3), anyv(2, 3)),
    C("repeat", lambda L, x: x.repeat(2, 1, 2), anyv(2, 3)),
    C("flip", lambda L, x: x.flip((0, 1)), anyv(2, 3)),
    C("roll", lambda L, x: x.roll((1, -2), (0, 1)), anyv(2, 3)),
    C("roll flat", lambda L, x: x.roll(4), anyv(2, 3)),
    C("movedim", lambda L, x: x.movedim((0, 1), (2, 0)), anyv(2, 3, 4)),
    C("clone", lambda L, x: x.clone(), anyv(3)),
    C("to(float32)", lambda L, x: x.to(L.float32), anyv(3)),
    C("cat", lambda L, x, y: L.cat([x, y], 1), anyv(2, 3), anyv(2, 2)),
    C("stack", lambda L, x, y: L.stack([x, y], -1), anyv(2, 3), anyv(2, 3)),
    C("split", lambda L, x: x.split(2, 1), anyv(2, 5)),
    C("split sizes", lambda L, x: x.split([1, 3], 1), anyv(2, 4)),
    C("chunk", lambda L, x: x.chunk(3), anyv(5, 2)),
    C("chunk one piece used", lambda L, x: x.chunk(2)[1], anyv(4, 2)),
    C("unbind", lambda L, x: x.unbind(1), anyv(2, 3)),
    C("unbind one slice used", lambda L, x: x.unbind()[0], anyv(2, 3)),
    C("narrow", lambda L, x: x.narrow(1, 1, 2), anyv(2, 4), name=False),
    C("select", lambda L, x: x.select(1, -1), anyv(2, 4)),
    # -- indexing
    C("x[0]", lambda L, x: x[0], anyv(3, 2)),
    C("x[1:3]", lambda L, x: x[1:3], anyv(4, 2)),
    C("x[::2]", lambda L, x: x[::2], anyv(5, 2)),
    C("x[:, 1]", lambda L, x: x[:, 1], anyv(3, 2)),
    C("x[..., None, 0]", lambda L, x: x[..., None, 0], anyv(3, 2)),
    C("x[[0, 2, 0]]", lambda L, x: x[[0, 2, 0]], anyv(3, 2)),
    C("x[x > 0]", lambda L, x: x[x > 0], anyv(3, 2)),
    C("x[[0, 1], [1, 0]]", lambda L, x: x[[0, 1], [1, 0]], anyv(3, 2)),
    C("x[:, [1, 0]]", lambda L, x: x[:, [1, 0]], anyv(3, 2)),
    C("gather", lambda L, x: x.gather(1, L.tensor([[0, 0], [1, 0], [2, 1]])), anyv(3, 3)),
    C("gather small index", lambda L, x: x.gather(0, L.tensor([[1]])), anyv(2, 3)),
    C("index_select", lambda L, x: x.index_select(0, L.tensor([2, 0, 2])), anyv(3, 2)),
    C("scatter_add", lambda L, x, s: x.scatter_add(0, L.tensor([[0, 1], [0, 0]]), s),
      anyv(2, 2), anyv(2, 2)),
    C("masked_fill", lambda L, x: x.masked_fill(x > 0, 0.5), anyv(3, 2)),
    C("masked_fill tensor value", lambda L, x, v: x.masked_fill(x > 0, v), anyv(3, 2),
      np.array(0.5)),
    # -- nn functions
    C("relu", lambda L, x: L.relu(x), away0(3, 2)),
    C("sigmoid", lambda L, x: L.sigmoid(x), anyv(3, 2)),
    C("tanh", lambda L, x: L.tanh(x), anyv(3, 2)),
    C("nnf_softmax", lambda L, x: L.softmax(x, 1), anyv(3, 2)),
    C("nnf_log_softmax", lambda L, x: L.log_softmax(x, dim=0), anyv(3, 2)),
    C("linear", lambda L, x, w, b: L.linear(x, w, b), anyv(4, 3), anyv(2, 3), anyv(2),
      second=True),
    C("linear 3-d", lambda L, x, w, b: L.linear(x, w, b), anyv(2, 4, 3), anyv(2, 3), anyv(2),
      name=False),
    C("linear no bias", lambda L, x, w: L.linear(x, w), anyv(4, 3), anyv(2, 3), name=False),
    C("mse_loss", lambda L, x, t: L.mse_loss(x, t), anyv(3, 2), anyv(3, 2), second=True),
    C("mse_loss sum", lambda L, x, t: L.mse_loss(x, t, reduction="sum"), anyv(3), anyv(3)),
    C("mse_loss none", lambda L, x, t: L.mse_loss(x, t, reduction="none"), anyv(3), anyv(3)),
    C("nll_loss", lambda L, x: L.nll_loss(x, L.tensor([0, 2, 1])), anyv(3, 4)),
    C("nll_loss weighted", lambda L, x: L.nll_loss(
        x, L.tensor([0, 2, 1]), weight=L.tensor([1.0, 2.0, 0.5, 1.0], dtype=L.float64)),
      anyv(3, 4)),
    C("nll_loss ignore_index", lambda L, x: L.nll_loss(x, L.tensor([0, 2, 1]), ignore_index=2),
      anyv(3, 4)),
    C("nll_loss 4-d", lambda L, x: L.nll_loss(x, L.tensor([[[0, 1], [2, 2]]]),
                                              reduction="none"), anyv(1, 3, 2, 2)),
    C("cross_entropy", lambda L, x: L.cross_entropy(x, L.tensor([0, 2, 1])), anyv(3, 4),
      second=True),
    C("cross_entropy sum", lambda L, x: L.cross_entropy(x, L.tensor([3, 2]), reduction="sum"),
      anyv(2, 4)),
    C("cross_entropy 1-d", lambda L, x: L.cross_entropy(x, L.tensor(2)), anyv(4)),
    C("cross_entropy probabilities", lambda L, x, p: L.cross_entropy(x, p), anyv(3, 4),
      RNG.dirichlet(np.ones(4), 3), name=False),
    C("binary_cross_entropy", lambda L, x, t: L.binary_cross_entropy(x, t),
      RNG.uniform(0.05, 0.95, (3, 2)), RNG.uniform(0, 1, (3, 2))),
    C("binary_cross_entropy weighted", lambda L, x, t: L.binary_cross_entropy(
        x, t, weight=L.tensor([[1.0, 2.0]], dtype=L.float64), reduction="sum"),
      RNG.uniform(0.05, 0.95, (3, 2)), RNG.uniform(0, 1, (3, 2)), name=False),
]


def _outputs(res):
    return list(res) if isinstance(res, (tuple, list)) else [res]


def _np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy(force=True)  # force: PyTorch may hand back a ZeroTensor
    return t.detach().numpy()


def _run(case, L, make):
    xs = [make(a) for a in case.inputs]
    return xs, _outputs(case.fn(L, *xs))


@pytest.mark.parametrize("case", CASES, ids=[c.label for c in CASES])
def test_matches_pytorch(case):
    rx, rout = _run(case, RT, lambda a: rt.torch_tensor(a, requires_grad=True))
    tx, tout = _run(case, TH, lambda a: torch.tensor(a, requires_grad=True))
    assert len(rout) == len(tout)
    # forward values and dtypes
    for r, t in zip(rout, tout):
        assert tuple(r.shape) == tuple(t.shape), case.label
        assert np.dtype(_np(r).dtype) == np.dtype(_np(t).dtype), case.label
        np.testing.assert_allclose(_np(r), _np(t), rtol=1e-10, atol=1e-12, err_msg=case.label)
    # gradients of sum(out * v) over the float outputs
    pairs = [(r, t) for r, t in zip(rout, tout) if t.requires_grad]
    vs = [RNG.standard_normal(tuple(t.shape)) for _, t in pairs]
    rg = rt.autograd_grad([r for r, _ in pairs], rx, [rt.torch_tensor(v) for v in vs],
                          create_graph=case.second, allow_unused=True)
    tg = torch.autograd.grad([t for _, t in pairs], tx, [torch.tensor(v) for v in vs],
                             create_graph=case.second, allow_unused=True)
    for i, (a, b) in enumerate(zip(rg, tg)):
        a = np.zeros(case.inputs[i].shape) if a is None else _np(a)
        b = np.zeros(case.inputs[i].shape) if b is None else _np(b)
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12,
                                   err_msg=f"{case.label}: gradient of input {i}")
    if case.second:
        ws = [RNG.standard_normal(a.shape) for a in case.inputs]
        # a gradient that does not require grad has a zero second derivative (PyTorch may
        # still connect it to the graph, e.g. relu's threshold_backward)
        rterms = [(g * rt.torch_tensor(w)).sum() for g, w in zip(rg, ws)
                  if g is not None and g.requires_grad]
        tterms = [(g * torch.tensor(w)).sum() for g, w in zip(tg, ws)
                  if g is not None and g.requires_grad]
        none = [None] * len(rx)
        r2 = rt.autograd_grad([sum(rterms[1:], rterms[0])], rx, allow_unused=True) \
            if rterms else none
        t2 = torch.autograd.grad([sum(tterms[1:], tterms[0])], tx, allow_unused=True) \
            if tterms else none
        for i, (a, b) in enumerate(zip(r2, t2)):
            a = np.zeros(case.inputs[i].shape) if a is None else _np(a)
            b = np.zeros(case.inputs[i].shape) if b is None else _np(b)
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12,
                                       err_msg=f"{case.label}: second derivative {i}")
    # grad_fn names
    if case.name:
        for r, t in zip(rout, tout):
            if t.grad_fn is not None:
                assert r.grad_fn is not None, case.label
                assert r.grad_fn.name == type(t.grad_fn).__name__, case.label


# ------------------------------------------------------------------------ result dtypes

DTYPE_CASES = [
    ("int * float", lambda L: L.tensor([1, 2]) * 2.5),
    ("float32 * float", lambda L: L.tensor([1.0, 2.0]) * 2.5),
    ("int / int", lambda L: L.tensor([1, 2]) / L.tensor([2, 2])),
    ("int / 2", lambda L: L.tensor([3, 4]) / 2),
    ("int // 2", lambda L: L.tensor([3, -4]) // 2),
    ("int % 3", lambda L: L.tensor([3, -4]) % 3),
    ("float32 {2} * float64 0-dim",
     lambda L: L.tensor([1.0, 2.0]) * L.tensor(2.0, dtype=L.float64)),
    ("int {2} * float64 0-dim", lambda L: L.tensor([1, 2]) * L.tensor(2.0, dtype=L.float64)),
    ("int64 * float32", lambda L: L.tensor([1, 2]) * L.tensor([1.5, 2.5])),
    ("bool + bool", lambda L: L.tensor([True, False]) + L.tensor([True, True])),
    ("bool * 2", lambda L: L.tensor([True, False]) * 2),
    ("bool * 2.5", lambda L: L.tensor([True, False]) * 2.5),
    ("sum int", lambda L: L.tensor([1, 2]).sum()),
    ("sum bool", lambda L: L.tensor([True, True]).sum()),
    ("prod int", lambda L: L.tensor([2, 3]).prod()),
    ("cumsum bool", lambda L: L.tensor([True, True]).cumsum(0)),
    ("comparison", lambda L: L.tensor([1.0, 2.0]) > 1),
    ("int ** 2", lambda L: L.tensor([1, 2]) ** 2),
    ("int ** 2.0", lambda L: L.tensor([1, 2]) ** 2.0),
    ("2 ** int", lambda L: 2 ** L.tensor([1, 2])),
    ("2.5 ** int", lambda L: 2.5 ** L.tensor([1, 2])),
    ("1 - int", lambda L: 1 - L.tensor([1, 2])),
    ("1.5 - int", lambda L: 1.5 - L.tensor([1, 2])),
    ("exp int", lambda L: L.tensor([1, 2]).exp()),
    ("sqrt int", lambda L: L.tensor([1, 4]).sqrt()),
    ("abs int", lambda L: L.tensor([-1, 2]).abs()),
    ("sign int", lambda L: L.tensor([-1, 2]).sign()),
    ("sign bool", lambda L: L.tensor([True, False]).sign()),
    ("round int", lambda L: L.tensor([-1, 2]).round()),
    ("clamp int, float min", lambda L: L.tensor([1, 5]).clamp(min=1.5)),
    ("clamp int, int bounds", lambda L: L.tensor([1, 5]).clamp(min=2, max=4)),
    ("maximum int float", lambda L: L.maximum(L.tensor([1, 5]), L.tensor([2.5, 0.5]))),
    ("where int float", lambda L: L.where(L.tensor([True, False]), L.tensor([1, 2]),
                                          L.tensor([0.5, 1.5]))),
    ("where scalar", lambda L: L.where(L.tensor([True, False]), L.tensor([1.0, 2.0]), 0)),
    ("cat int float", lambda L: L.cat([L.tensor([1]), L.tensor([1.5])])),
    ("stack int", lambda L: L.stack([L.tensor([1]), L.tensor([2])])),
    ("logsumexp int", lambda L: L.tensor([1, 2]).logsumexp(0)),
    ("max int", lambda L: L.tensor([1, 2]).max()),
    ("argmax", lambda L: L.tensor([1.0, 2.0]).argmax()),
    ("to long", lambda L: L.tensor([1.7, -1.7]).long()),
    ("float16 + float32 0-dim", lambda L: L.tensor([1.0]).half() + L.tensor(1.0)),
    ("int32 + int64 0-dim", lambda L: L.tensor([1]).int() + L.tensor(5)),
    ("masked_fill int with float", lambda L: L.tensor([1, 2]).masked_fill(
        L.tensor([True, False]), 3)),
    ("int div floor int", lambda L: L.tensor([7, -7]).div(L.tensor([2, 2]),
                                                          rounding_mode="floor")),
    ("int div trunc", lambda L: L.tensor([7, -7]).div(2, rounding_mode="trunc")),
    ("float32 matmul", lambda L: L.tensor([[1.0, 2.0]]) @ L.tensor([[1.0], [2.0]])),
    ("mean float32", lambda L: L.tensor([1.0, 2.0]).mean()),
    ("var float32", lambda L: L.tensor([1.0, 2.0]).var()),
    ("norm float32", lambda L: L.tensor([3.0, 4.0]).norm()),
    ("remainder int", lambda L: L.tensor([-7, 7]).remainder(3)),
    ("fmod int", lambda L: L.tensor([-7, 7]).fmod(3)),
    ("remainder float scalar", lambda L: L.tensor([-7.5, 7.5]).remainder(2)),
]


@pytest.mark.parametrize("label,fn", DTYPE_CASES, ids=[c[0] for c in DTYPE_CASES])
def test_values_and_dtypes_match_pytorch(label, fn):
    r, t = fn(RT), fn(TH)
    a, b = _np(r), _np(t)
    assert a.dtype == b.dtype, f"{label}: {a.dtype} vs {b.dtype}"
    assert a.shape == b.shape
    np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=1e-6)


# ------------------------------------------------------------------------ in-place and errors

def test_inplace_gradients_match_pytorch():
    def run(L, x, y):
        z = x * 2
        z.add_(y, alpha=3)
        z.mul_(x)
        z.clamp_(min=-1)
        z[0] = y[1] * 4
        z.masked_fill_(z > 5, 1.0)
        return z
    a, b = anyv(4), anyv(4)
    rx = [rt.torch_tensor(a, requires_grad=True), rt.torch_tensor(b, requires_grad=True)]
    tx = [torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)]
    r, t = run(RT, *rx), run(TH, *tx)
    np.testing.assert_allclose(_np(r), _np(t), rtol=1e-12)
    assert r.grad_fn.name == type(t.grad_fn).__name__

    def setitems(L, x, y):
        names = []
        for key in (0, slice(1, 3), (Ellipsis, 1), [0, 2], "mask"):
            z = x * 2
            z[z > 0 if key == "mask" else key] = y[0] * 3
            names.append(z.grad_fn)
        return names
    a = anyv(4, 2)
    ours = setitems(RT, rt.torch_tensor(a, requires_grad=True),
                    rt.torch_tensor(b, requires_grad=True))
    theirs = setitems(TH, torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True))
    assert [n.name for n in ours] == [type(n).__name__ for n in theirs]
    r.sum().backward()
    t.sum().backward()
    for u, v in zip(rx, tx):
        np.testing.assert_allclose(_np(u.grad), _np(v.grad), rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda L: L.tensor([[1.0, 2.0], [3.0, 4.0]]).sum(dim=2),
    lambda L: L.tensor([[1.0, 2.0], [3.0, 4.0]]).sum(dim=-3),
    lambda L: L.tensor([1.0]).unsqueeze(2),
])
def test_dimension_error_text_matches_pytorch(call):
    with pytest.raises(Exception) as ours:
        call(RT)
    with pytest.raises(Exception) as theirs:
        call(TH)
    assert str(ours.value) == str(theirs.value).splitlines()[0]


def test_leaf_inplace_and_version_errors_match_pytorch():
    for L in (RT, TH):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being "
                                               "used in an in-place operation."):
            x.add_(1)
    msgs = []
    for L in (RT, TH):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        z = (y * y).sum()
        y.add_(1)
        with pytest.raises(RuntimeError) as err:
            z.backward()
        msgs.append(str(err.value))
    prefix = "one of the variables needed for gradient computation has been modified by an " \
             "inplace operation: "
    assert msgs[0].startswith(prefix) and msgs[1].startswith(prefix)
    assert "is at version 1; expected version 0 instead." in msgs[0]
    assert "is at version 1; expected version 0 instead." in msgs[1]


# ------------------------------------------------------------------------ drawn shapes and dims

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

BINARY = {
    "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y, "pow": lambda x, y: x.abs() ** y,
    "maximum": lambda x, y: x.maximum(y), "minimum": lambda x, y: x.minimum(y),
    "where": lambda x, y: (x * y).where(x > y, y),
}


def _shaped(L, x, op, dims, d, keep, k):
    """One op of shape/reduction family with drawn dims (d a single dim, dims int or tuple)."""
    n = x.shape[d] if x.ndim else 1
    table = {
        "sum": lambda: x.sum(dim=dims, keepdim=keep),
        "mean": lambda: x.mean(dim=dims, keepdim=keep),
        "amax": lambda: x.amax(dim=dims, keepdim=keep),
        "amin": lambda: x.amin(dim=dims, keepdim=keep),
        "logsumexp": lambda: x.logsumexp(dims, keepdim=keep),
        "var": lambda: x.var(dim=dims, keepdim=keep, correction=k % 2),
        "std": lambda: x.std(dim=dims, keepdim=keep, correction=k % 2),
        "norm": lambda: x.norm(p=[1, 2, 3, float("inf")][k % 4], dim=dims, keepdim=keep),
        "prod": lambda: x.prod(dim=d, keepdim=keep),
        "softmax": lambda: x.softmax(d),
        "log_softmax": lambda: x.log_softmax(d),
        "cumsum": lambda: x.cumsum(d),
        "max": lambda: x.max(dim=d, keepdim=keep)[0],
        "min": lambda: x.min(dim=d, keepdim=keep)[0],
        "flip": lambda: x.flip(dims),
        "squeeze": lambda: x.squeeze(d),
        "transpose": lambda: x.transpose(d, 0),
        "select": lambda: x.select(d, k % n),
        "narrow": lambda: x.narrow(d, k % n, n - k % n),
        "unbind": lambda: x.unbind(d)[k % n],
        "split": lambda: x.split(1 + k % 2, d)[-1],
        "cat": lambda: L.cat([x, x * 2], d),
        "repeat": lambda: x.repeat(*([1 + k % 2] * (x.ndim + 1))),
        "index_select": lambda: x.index_select(d, L.tensor([k % n, 0])),
        "gather": lambda: x.gather(d, L.tensor(np.random.default_rng(k).integers(0, n, x.shape))),
        "masked_fill": lambda: x.masked_fill(x > 0.5, 0.25),
        "getitem": lambda: x[(slice(None),) * (d % x.ndim) + ([k % n, 0],)],
        "reshape": lambda: x.transpose(d, 0).reshape(-1),
    }
    return table[op]()


def _compare_with_torch(fn, arrays):
    tx = [torch.tensor(a, requires_grad=True) for a in arrays]
    rx = [rt.torch_tensor(a, requires_grad=True) for a in arrays]
    t, r = fn(TH, *tx), fn(RT, *rx)
    assert tuple(r.shape) == tuple(t.shape)
    np.testing.assert_allclose(_np(r), _np(t), rtol=1e-9, atol=1e-12)
    v = np.random.default_rng(0).standard_normal(tuple(t.shape))
    tg = torch.autograd.grad(t, tx, torch.tensor(v), allow_unused=True)
    rg = rt.autograd_grad(r, rx, rt.torch_tensor(v), allow_unused=True)
    for a, b, arr in zip(rg, tg, arrays):
        a = np.zeros(arr.shape) if a is None else _np(a)
        b = np.zeros(arr.shape) if b is None else _np(b)
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


ELEMENTS = st.floats(-3, 3).filter(lambda v: abs(v) > 1e-3)


@settings(max_examples=60)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=3),
       op=st.sampled_from(sorted(BINARY)), data=st.data())
def test_broadcasting_binary_ops_match_pytorch(shapes, op, data):
    a = data.draw(hnp.arrays(np.float64, shapes.input_shapes[0], elements=ELEMENTS))
    b = data.draw(hnp.arrays(np.float64, shapes.input_shapes[1], elements=ELEMENTS))
    if op in ("maximum", "minimum", "where"):  # no ties
        b = b + 0.01 * np.sign(b) + 1e-4 * np.arange(b.size).reshape(b.shape)
    _compare_with_torch(lambda L, x, y: BINARY[op](x, y), [a, b])


SHAPED = sorted([
    "sum", "mean", "amax", "amin", "logsumexp", "var", "std", "norm", "prod", "softmax",
    "log_softmax", "cumsum", "max", "min", "flip", "squeeze", "transpose", "select", "narrow",
    "unbind", "split", "cat", "repeat", "index_select", "gather", "masked_fill", "getitem",
    "reshape"])


@pytest.mark.filterwarnings("ignore")  # var/std with no degrees of freedom warn in both
@settings(max_examples=120)
@given(s=hnp.array_shapes(min_dims=1, max_dims=4, max_side=3), op=st.sampled_from(SHAPED),
       data=st.data())
def test_dim_ops_match_pytorch(s, op, data):
    n = len(s)
    a = data.draw(hnp.arrays(np.float64, s, elements=ELEMENTS, unique=True))
    dims = data.draw(st.one_of(
        st.integers(-n, n - 1),
        st.lists(st.integers(-n, n - 1), min_size=1, max_size=n,
                 unique_by=lambda v: v % n).map(tuple)))
    d = data.draw(st.integers(-n, n - 1))
    keep, k = data.draw(st.booleans()), data.draw(st.integers(0, 100))
    _compare_with_torch(lambda L, x: _shaped(L, x, op, dims, d, keep, k), [a])
