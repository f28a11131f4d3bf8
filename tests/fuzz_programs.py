"""Random tensor programs for the fuzz tests (tests/test_fuzz.py).

A program is a float64 leaf ``x`` of random shape followed by a few random steps: views (ints,
slices with steps, None, Ellipsis, select/narrow/transpose/diagonal/unsqueeze/squeeze/expand/
reshape), in-place ops through views of tensors in the graph, advanced indexing with long and bool
tensors (reading and assignment), reductions over random dims, broadcasting arithmetic and
matmul. The same program runs on any library through a small adapter, so it can be compared
with PyTorch and checked against finite differences.

Each step is drawn from its own seed and resolved against the current tensor's shape: two
libraries that agree on every shape so far get the very same step, and a library that disagrees
fails the comparison at that step's result.
"""
from __future__ import annotations

import numpy as np


class RtorchpyLib:
    """The adapter for rtorchpy (Python face, 0-based)."""

    name = "rtorchpy"

    def __init__(self):
        import rtorchpy
        self.rt = rtorchpy

    def tensor(self, a, requires_grad=False):
        return self.rt.torch_tensor(np.asarray(a), requires_grad=requires_grad)

    def grad(self, outputs, inputs, grad_outputs=None, create_graph=False):
        return self.rt.autograd_grad(outputs, inputs, grad_outputs, create_graph=create_graph)

    def values(self, t):
        return np.array(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


class TorchLib:
    """The adapter for PyTorch."""

    name = "torch"

    def __init__(self):
        import torch
        self.torch = torch

    def tensor(self, a, requires_grad=False):
        return self.torch.tensor(np.asarray(a), requires_grad=requires_grad)

    def grad(self, outputs, inputs, grad_outputs=None, create_graph=False):
        return list(self.torch.autograd.grad(outputs, inputs, grad_outputs,
                                             create_graph=create_graph))

    def values(self, t):
        return np.array(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


# ----------------------------------------------------------------------------- drawing steps

STEP_KINDS = ("view", "view", "view", "inplace_view", "inplace_view", "inplace_direct",
              "elementwise", "reduce", "matmul", "advanced", "advanced", "assign_advanced",
              "assign_basic")


def draw_program(seed):
    """The leaf's values and the list of (kind, step seed) for program number ``seed``."""
    rng = np.random.default_rng(seed)
    ndim = int(rng.integers(1, 4))
    shape = tuple(int(s) for s in rng.integers(1, 4, ndim))
    x = rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
    n_steps = int(rng.integers(2, 6))
    steps = [(str(rng.choice(STEP_KINDS)), int(rng.integers(2**31))) for _ in range(n_steps)]
    return x, steps


def _basic_key(rng, shape):
    """A random basic index: ints (some negative), slices with steps, None and Ellipsis."""
    key, d = [], 0
    use_ellipsis = len(shape) > 1 and rng.random() < 0.25
    n_index = int(rng.integers(1, len(shape) + 1)) if shape else 0
    if use_ellipsis:
        key.append(Ellipsis)
        d = len(shape) - n_index
    for _ in range(n_index):
        if d >= len(shape):
            break
        size = shape[d]
        r = rng.random()
        if r < 0.35:
            i = int(rng.integers(0, size))
            key.append(i - size if rng.random() < 0.3 else i)
        elif r < 0.85:
            start = int(rng.integers(0, size))
            stop = int(rng.integers(start + 1, size + 1))
            step = int(rng.integers(1, 3))
            key.append(slice(start, stop, step))
        else:
            key.append(slice(None))
        d += 1
        if rng.random() < 0.15:
            key.insert(int(rng.integers(0, len(key) + 1)), None)
    return tuple(key)


def _view(rng, shape):
    nd = len(shape)
    choices = ["index"]
    if nd:
        choices += ["select", "narrow", "unsqueeze", "transpose" if nd > 1 else "unsqueeze"]
        if 1 in shape:
            choices += ["squeeze", "expand"]
        choices += ["reshape"]
    else:
        choices += ["unsqueeze"]
    what = str(rng.choice(choices))
    if what == "index":
        return ("index", _basic_key(rng, shape))
    if what == "unsqueeze":
        return ("unsqueeze", int(rng.integers(0, nd + 1)))
    d = int(rng.integers(0, nd))
    if what == "select":
        return ("select", d, int(rng.integers(-shape[d], shape[d])))
    if what == "narrow":
        start = int(rng.integers(0, shape[d]))
        return ("narrow", d, start, int(rng.integers(1, shape[d] - start + 1)))
    if what == "transpose":
        other = int(rng.integers(0, nd))
        # half the time the diagonal of the same two dims instead (decided after the transpose
        # is drawn, so the programs that keep their transpose stay as they were)
        if rng.random() < 0.5:
            return ("transpose", d, other)
        if other == d:
            other = (d + 1) % nd
        offset = int(rng.integers(-shape[d], shape[other] + 1))  # empty diagonals too
        return ("diagonal", offset, d, other - nd if rng.random() < 0.3 else other)
    if what == "squeeze":
        return ("squeeze", int(rng.choice([i for i, s in enumerate(shape) if s == 1])))
    if what == "expand":
        return ("expand", tuple(3 if s == 1 and rng.random() < 0.7 else s for s in shape))
    return ("reshape", (-1,) if rng.random() < 0.5 else (1,) + tuple(shape))


def resolve(kind, step_seed, shape):
    """The concrete step (plain data) for ``kind`` on a tensor of ``shape``."""
    rng = np.random.default_rng(step_seed)
    nd = len(shape)
    numel = int(np.prod(shape, dtype=np.int64))
    if numel == 0:  # a mask that selected nothing: nothing left to index
        return ("reduce", "sum", None, False)
    if kind == "view":
        return ("view", _view(rng, shape))
    if kind == "inplace_view":
        view = _view(rng, shape)
        op = str(rng.choice(["mul_", "add_", "zero_", "setitem", "mul_tensor_"]))
        return ("inplace_view", view, op, float(rng.choice([-2.0, 0.5, 3.0])),
                int(rng.integers(2**31)))
    if kind == "inplace_direct":
        # straight on a view of the current tensor: an error when that is the leaf (a view of
        # a leaf that requires grad) or when the view is one output of unbind
        if nd and rng.random() < 0.15:
            return ("inplace_direct", ("unbind", int(rng.integers(0, nd))), "mul_", 2.0, 0)
        return ("inplace_direct", _view(rng, shape), str(rng.choice(["mul_", "add_"])),
                float(rng.choice([-2.0, 0.5, 3.0])), 0)
    if kind == "elementwise":
        op = str(rng.choice(["sin", "tanh", "exp", "square", "mul_other", "add_other"]))
        other_shape = tuple(s if rng.random() < 0.6 else 1 for s in shape[nd - int(
            rng.integers(0, nd + 1)):]) if nd else ()
        return ("elementwise", op, other_shape, int(rng.integers(2**31)))
    if kind == "reduce":
        if nd == 0 or rng.random() < 0.15:
            return ("reduce", str(rng.choice(["sum", "mean"])), None, False)
        op = str(rng.choice(["sum", "mean", "amax", "prod"]))
        return ("reduce", op, int(rng.integers(-nd, nd)), bool(rng.random() < 0.5))
    if kind == "matmul":
        if nd == 0:
            return ("elementwise", "sin", (), 0)
        k = int(rng.integers(1, 4))
        seed = int(rng.integers(2**31))
        if nd >= 2 and rng.random() < 0.3:  # multiply from the left: (k, m) @ (..., m, n)
            return ("matmul", (k, shape[-2]), seed, True)
        if nd == 1 or rng.random() < 0.3:
            other = (shape[-1],) if rng.random() < 0.5 else (shape[-1], k)
        else:
            batch = tuple(s if rng.random() < 0.7 else 1 for s in shape[:-2])
            other = batch + (shape[-1], k)
        return ("matmul", other, seed, False)
    if kind in ("advanced", "assign_advanced"):
        if nd == 0 or numel > 40:
            return ("reduce", "sum", None, False) if numel > 40 else ("view", ("unsqueeze", 0))
        key = _advanced_key(rng, shape, unique=(kind == "assign_advanced"))
        if kind == "advanced":
            return ("advanced", key)
        return ("assign_advanced", key, int(rng.integers(2**31)))
    if kind == "assign_basic":
        return ("assign_basic", _basic_key(rng, shape), int(rng.integers(2**31)))
    raise ValueError(kind)


def _advanced_key(rng, shape, unique):
    """A key mixing ints, slices and long/bool index arrays (as ("long", values) /
    ("bool", values) entries the adapters turn into tensors)."""
    nd = len(shape)
    if rng.random() < 0.2:  # one bool mask over leading dims
        k = int(rng.integers(1, nd + 1))
        mask = rng.random(shape[:k]) < 0.6
        return (("bool", mask),)
    key = []
    n_adv = 0
    n_index = int(rng.integers(1, nd + 1))
    n = int(rng.integers(1, 4))  # one length for all index arrays of the key: they broadcast
    if unique:
        n = min(n, min(shape))
    for d in range(n_index):
        r = rng.random()
        if r < 0.45 or (d == n_index - 1 and n_adv == 0):
            if unique:  # assignment: no repeated position (which write wins is unspecified)
                vals = rng.permutation(shape[d])[:n] if n_adv == 0 else \
                    rng.integers(0, shape[d], n)
            else:
                vals = rng.integers(-shape[d], shape[d], n)
            if rng.random() < 0.2 and not unique:
                vals = rng.integers(0, shape[d], (2, n))
            key.append(("long", np.asarray(vals, dtype=np.int64)))
            n_adv += 1
        elif r < 0.7:
            key.append(int(rng.integers(0, shape[d])))
        else:
            key.append(slice(None))
    return tuple(key)


# ----------------------------------------------------------------------------- running steps

def _key_for(lib, key):
    out = []
    for k in key:
        if isinstance(k, tuple) and k and k[0] in ("long", "bool"):
            out.append(lib.tensor(k[1]))
        else:
            out.append(k)
    return tuple(out)


def _apply_view(lib, h, view):
    what = view[0]
    if what == "index":
        return h[view[1]]
    if what == "select":
        return h.select(view[1], view[2])
    if what == "narrow":
        return h.narrow(view[1], view[2], view[3])
    if what == "transpose":
        return h.transpose(view[1], view[2])
    if what == "unsqueeze":
        return h.unsqueeze(view[1])
    if what == "squeeze":
        return h.squeeze(view[1])
    if what == "expand":
        return h.expand(*view[1])
    if what == "reshape":
        return h.reshape(*view[1])
    if what == "diagonal":
        return h.diagonal(view[1], view[2], view[3])
    raise ValueError(what)


def _const(lib, shape, seed):
    return lib.tensor(np.random.default_rng(seed).uniform(-1, 1, shape))


def apply_step(lib, h, step):
    kind = step[0]
    if kind == "view":
        return _apply_view(lib, h, step[1])
    if kind in ("inplace_view", "inplace_direct"):
        _, view, op, c, seed = step
        # on a fresh non-leaf (its history is rewritten), or straight on the current tensor
        base = h * 1.0 if kind == "inplace_view" else h
        v = h.unbind(view[1])[0] if view[0] == "unbind" else _apply_view(lib, base, view)
        if view[0] == "expand" and tuple(v.shape) != tuple(base.shape):
            return base  # several elements share memory: libtorch refuses any write, skip it
        if op == "mul_":
            v.mul_(c)
        elif op == "add_":
            v.add_(c)
        elif op == "zero_":
            v.zero_()
        elif op == "mul_tensor_":
            v.mul_(_const(lib, tuple(v.shape), seed) + 2.0)
        else:
            v[...] = _const(lib, tuple(v.shape), seed)
        return base
    if kind == "elementwise":
        _, op, other_shape, seed = step
        if op == "sin":
            return h.sin()
        if op == "tanh":
            return h.tanh()
        if op == "exp":
            return (h * 0.5).exp()
        if op == "square":
            return h * h
        other = _const(lib, other_shape, seed)
        return h * other if op == "mul_other" else h + other
    if kind == "reduce":
        _, op, dim, keepdim = step
        if dim is None:
            return getattr(h, op)()
        return getattr(h, op)(dim=dim, keepdim=keepdim)
    if kind == "matmul":
        _, other_shape, seed, left = step
        w = _const(lib, other_shape, seed)
        return w.matmul(h) if left else h.matmul(w)
    if kind == "advanced":
        return h[_key_for(lib, step[1])]
    if kind == "assign_advanced":
        _, key, seed = step
        base = h * 1.0
        lib_key = _key_for(lib, key)
        target = tuple(base[lib_key].shape)
        base[lib_key] = _const(lib, target, seed)
        return base
    if kind == "assign_basic":
        _, key, seed = step
        base = h * 1.0
        target = tuple(base[key].shape)
        base[key] = _const(lib, target, seed) * h.sum() if target else h.sum() * 0.5
        return base
    raise ValueError(kind)


def run_program(lib, x_values, steps):
    """Run a program; returns (leaf, result, trace) where trace lists each step's concrete form
    and the shape it produced, or ("error", type name) where a step raised."""
    x = lib.tensor(x_values, requires_grad=True)
    h, trace = x, []
    for kind, seed in steps:
        step = resolve(kind, seed, tuple(h.shape))
        try:
            h = apply_step(lib, h, step)
        except Exception as e:  # noqa: BLE001 - compared between libraries by the caller
            trace.append((step, "error", type(e).__name__, str(e)))
            return x, None, trace
        trace.append((step, tuple(h.shape)))
    return x, h, trace


def program_function(lib, steps):
    """The program as a function of its leaf (for finite-difference checks)."""
    def fn(x):
        h = x
        for kind, seed in steps:
            h = apply_step(lib, h, resolve(kind, seed, tuple(h.shape)))
        return h
    return fn
