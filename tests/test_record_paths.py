"""The fast recording paths build exactly what the general one builds.

``record1`` (one input) and ``record2`` (two inputs) are written out for speed; ``record_any``
is the general path. Each program below runs twice: as the ops call it, and with every call of
the fast paths sent to ``record_any``. The two graphs must agree in every field of every node —
the fields are read from the node classes' slots and instance dicts, so a field added to Node
and forgotten in one path fails here — and so must the gradients.
"""
from __future__ import annotations

import sys

import numpy as np
import pytest

import rtorchpy as rt
from rtorchpy.autograd import record as rec
from rtorchpy.autograd.graph import Node, SavedOutput
from rtorchpy.tensor import Tensor

FAST = {"record1": rec.record1, "record2": rec.record2}


def _general_record1(node_cls, t, out, params=()):
    return rec.record_any(node_cls, (t,), (out,), params)


def _general_record2(node_cls, a, b, out, params=()):
    return rec.record_any(node_cls, (a, b), (out,), params)


GENERAL = {"record1": _general_record1, "record2": _general_record2}


def _route(paths):
    """Point every module of the package that holds a fast path at ``paths``."""
    for name, mod in list(sys.modules.items()):
        if not name.startswith("rtorchpy") or mod is None:
            continue
        for key in ("record1", "record2"):
            current = getattr(mod, key, None)
            if current is FAST[key] or current is GENERAL[key]:
                setattr(mod, key, paths[key])


@pytest.fixture
def general_paths():
    _route(GENERAL)
    try:
        yield
    finally:
        _route(FAST)


def _slots(cls):
    names = []
    for c in cls.__mro__:
        for s in getattr(c, "__slots__", ()):
            if s not in ("__dict__", "__weakref__") and s not in names:
                names.append(s)
    return names


def _fields(node):
    """Every field of ``node`` but its creation number (which differs run to run)."""
    out = {}
    for s in _slots(type(node)):
        if s == "seq":
            continue
        out[s] = getattr(node, s)  # an unset slot raises: a path forgot it
    out.update(getattr(node, "__dict__", {}))
    return out


def _same(a, b, where):
    if isinstance(a, Node) or isinstance(b, Node):
        assert type(a) is type(b), where
        return  # compared when the walk reaches it
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), where
        assert (a.dtype == b.dtype and a.shape == b.shape
                and np.array_equal(a, b, equal_nan=True)), where
        return
    if isinstance(a, (Tensor, SavedOutput)):
        assert type(a) is type(b), where
        _same(a._data, b._data, where + "._data")
        assert a._version[0] == b._version[0], where
        if isinstance(a, SavedOutput):
            assert a._output_nr == b._output_nr, where
        return
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
        return
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _same(a[k], b[k], f"{where}[{k!r}]")
        return
    assert a == b or (a != a and b != b), f"{where}: {a!r} != {b!r}"


def _compare_graphs(fa, fb):
    stack, seen = [(fa, fb, "grad_fn")], set()
    while stack:
        a, b, where = stack.pop()
        if a is None or b is None:
            assert a is None and b is None, where
            continue
        if id(a) in seen:
            continue
        seen.add(id(a))
        assert type(a) is type(b), where
        fa_, fb_ = _fields(a), _fields(b)
        assert fa_.keys() == fb_.keys(), f"{where} ({a.name}): fields {fa_.keys()} != {fb_.keys()}"
        for k in fa_:
            if k == "epoch":  # the global in-place count when recorded: set, or 0 (nothing saved)
                assert (fa_[k] == 0) == (fb_[k] == 0), f"{where} ({a.name}).epoch"
                continue
            _same(fa_[k], fb_[k], f"{where} ({a.name}).{k}")
        for i, (x, y) in enumerate(zip(a.edges, b.edges)):
            stack.append((x, y, f"{where}.edges[{i}]"))


def _leaves(seed):
    g = np.random.default_rng(seed)
    return [rt.torch_tensor(g.standard_normal(s), dtype=rt.torch_float64(), requires_grad=True)
            for s in ((3, 4), (4,), (3, 4))]


PROGRAMS = {
    "add, sub, mul, div": lambda x, v, y: ((x + v) * y - x / (y.abs() + 1)).sum(),
    "numbers": lambda x, v, y: (x * 2.5 + 1 - 3 * y / 2 + 2 ** x.tanh()).sum(),
    "x * x and powers": lambda x, v, y: (x * x + y ** 3 + x.pow(y.abs())).sum(),
    "unary saving input or output": lambda x, v, y: (x.exp() + y.sin() + x.abs().log()
                                                     + v.sigmoid()).sum(),
    "views and transposes": lambda x, v, y: ((x.t() @ y).sum() + x[1:, ::2].sum()
                                             + (x.unsqueeze(0).expand(2, 3, 4)[1] * y).sum()),
    "reductions": lambda x, v, y: (x.max(dim=1)[0].sum() + y.amax() + x.std() + x.norm()
                                   + x.logsumexp(dim=0).sum()),
    "maximum, where, clamp": lambda x, v, y: (rt.torch_maximum(x, y) + rt.torch_where(x > 0, x, y)
                                              + x.clamp(min=v)).sum(),
    "matmul, mv, addmm": lambda x, v, y: ((x @ v).sum() + (x.t().mm(y)).sum()
                                          + rt.nnf_linear(y, x, v[:3]).pow(2).sum()),
    "losses": lambda x, v, y: (rt.nnf_mse_loss(x, y)
                               + rt.nnf_binary_cross_entropy(x.sigmoid(), y.sigmoid().detach())),
    "in place and view writes": lambda x, v, y: _inplace(x, v, y),
    "split outputs": lambda x, v, y: sum(p.sum() * (i + 1)
                                         for i, p in enumerate((x * y).split(1, 0))),
}


def _inplace(x, v, y):
    z = x * 1
    z[0].mul_(y[1])
    z.add_(v)
    return (z * y).sum()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fast_and_general_paths_build_the_same_graph(name, general_paths):
    program = PROGRAMS[name]
    _route(FAST)
    la = _leaves(7)
    oa = program(*la)
    oa.backward(retain_graph=True)
    _route(GENERAL)
    lb = _leaves(7)
    ob = program(*lb)
    ob.backward(retain_graph=True)
    _compare_graphs(oa.grad_fn, ob.grad_fn)
    for a, b in zip(la, lb):
        assert (a.grad is None) == (b.grad is None)
        if a.grad is not None:
            _same(a.grad._data, b.grad._data, "grad")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_second_order_agrees_too(name, general_paths):
    program = PROGRAMS[name]
    grads = []
    for paths in (FAST, GENERAL):
        _route(paths)
        leaves = _leaves(11)
        out = program(*leaves)
        g = rt.autograd_grad([out], leaves, create_graph=True, allow_unused=True)
        total = sum((t * t).sum() for t in g if t is not None)
        if not total.requires_grad:  # first-order gradients that are constants
            grads.append([])
            continue
        grads.append([t._data for t in rt.autograd_grad([total], leaves, allow_unused=True)
                      if t is not None])
    for a, b in zip(*grads):
        _same(a, b, "second-order grad")


def test_a_field_a_fast_path_forgets_is_caught(general_paths):
    """The check itself: a slot the fast path leaves unset makes _fields raise."""
    _route(FAST)
    x = _leaves(1)[0]
    node = (x * 2.0).grad_fn
    del node.params
    with pytest.raises(AttributeError):
        _fields(node)
