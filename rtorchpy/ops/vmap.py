"""``autograd_vmap`` (``torch.func.vmap``): map a function over a dimension of its inputs by
running it once on batched tensors (``ops/batching.py``, rules in ``ops/batch_rules.py``)."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from . import batch_rules  # noqa: F401  (installs the rules)
from .batching import (RULES, frames, op_name, close_frame, is_batched, open_frame, public, wrap)
from .random_state import torch_get_rng_state
from .nnf import __all__ as _NNF_NAMES
from .registry import OPS

# autograd's functional forms: called with batched tensors, they run once per example
FUNCTIONAL = ("autograd_grad", "autograd_jacobian", "autograd_hessian", "autograd_vjp",
              "autograd_jvp")

RANDOMNESS = ("error", "different", "same")


def autograd_vmap_fallback_ops():
    """The functions that ``autograd_vmap`` maps by its per-example loop (no batching rule):
    correct, but they run once per example. They are the registry's ops, the ``nnf_*``
    functions and the ``autograd_*`` functional forms (``autograd_jacobian``, ...) without a
    rule, by the names the loop reports (``torch_`` dropped). The function transforms
    (``grad``, ``jacrev``, ``vjp``, ``jacfwd``, ``jvp``, ``hessian``) are not here: they run on
    the whole batch, and a listed op inside them loops alone, with its gradients and tangents.
    (An op with a rule still loops for a form its rule does not take, such as indexing with
    separated index tensors; random ops loop under ``randomness="same"``; rtorchpy's layers
    without a rule of their own loop as modules.)"""
    names = {name for name in OPS if not name.startswith("_")}
    names.update(op_name(n) for n in _NNF_NAMES)
    names.update(FUNCTIONAL)
    return sorted(n for n in names if n not in RULES)


def _name(func):
    return getattr(func, "__name__", repr(func))


def autograd_vmap(func, in_dims=0, out_dims=0, randomness="error", chunk_size=None):
    """Map ``func`` over a dimension of its inputs (``torch.func.vmap``): ``in_dims`` gives, per
    positional argument (or one int for all; nested like the argument when it is a tuple, list
    or dict), the mapped dimension or None; ``out_dims`` where the mapped dimension goes in each
    output. ``func`` runs once, on batched tensors; ops without a batching rule run once per
    example (``autograd_vmap_fallback_ops()``). ``randomness``: "error" refuses random ops,
    "different" draws per example, "same" draws once for all. ``chunk_size``: run the batch in
    chunks of that many examples (less memory)."""
    if randomness not in RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or
                                   isinstance(chunk_size, bool) or chunk_size < 1):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got "
                         f"{chunk_size})")

    def wrapper(*args, **kwargs):
        head = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
        if not isinstance(in_dims, (int, tuple, list)) and in_dims is not None or \
                isinstance(in_dims, bool):
            raise ValueError(f"{head}: expected `in_dims` to be int or a (potentially nested) "
                             f"tuple matching the structure of inputs, got: "
                             f"{type(in_dims).__name__}.")
        dims = [in_dims] * len(args) if not isinstance(in_dims, (tuple, list)) else in_dims
        if len(dims) != len(args):
            raise ValueError(f"{head}: in_dims is not compatible with the structure of `inputs`. "
                             f"in_dims has {len(dims)} entries but inputs has {len(args)}.")
        found = []
        for a, d in zip(args, dims):
            _collect(a, d, head, found)
        if not found:
            raise ValueError(f"{head}: at least one input must be a Tensor mapped over a "
                             "dimension (all in_dims are None, or no input is a Tensor).")
        sizes = [t.shape[d] for t, d in found]
        if len(set(sizes)) != 1:
            raise ValueError(f"{head}: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sizes} for the mapped dimension")
        size = sizes[0]
        if chunk_size is None or chunk_size >= size:
            return _run(func, args, dims, kwargs, size, 0, size, randomness, out_dims)
        parts = [_run(func, args, dims, kwargs, size, s, min(chunk_size, size - s), randomness,
                      out_dims) for s in range(0, size, chunk_size)]
        return _join(parts, out_dims, func)
    return wrapper


def _collect(a, d, head, found):
    if d is None:
        return
    if isinstance(d, (tuple, list, dict)):
        keys = list(d) if isinstance(d, dict) else range(len(d))
        if not isinstance(a, type(d) if isinstance(d, dict) else (tuple, list)) or \
                len(a) != len(d):
            raise ValueError(f"{head}: in_dims is not compatible with the structure of `inputs`"
                             f". An in_dims entry is a {type(d).__name__} of {len(d)} but its "
                             f"input is a {type(a).__name__}.")
        for k in keys:
            _collect(a[k], d[k], head, found)
        return
    if not isinstance(d, int) or isinstance(d, bool):
        raise ValueError(f"{head}: in_dims must be int or None, got {type(d).__name__}.")
    if isinstance(a, (tuple, list)):
        for v in a:
            _collect(v, d, head, found)
        return
    if isinstance(a, dict):
        for v in a.values():
            _collect(v, d, head, found)
        return
    if not isinstance(a, Tensor):
        raise ValueError(f"{head}: Got in_dim={d} for an input but the input is of type "
                         f"{type(a).__name__}. We cannot vmap over non-Tensor arguments, "
                         "please use None as the respective in_dim")
    n = a.dim()
    if n == 0 or not -n <= d < n:
        raise ValueError(f"{head}: Got in_dim={d} for some input, but that input is a Tensor "
                         f"of dimensionality {n} so expected in_dim to satisfy "
                         f"-{n} <= in_dim < {n}.")
    found.append((a, d % n))


def _enter(a, d, f, start, length, whole):
    """``a`` batched at frame ``f`` along ``d`` (examples ``start`` to ``start + length``)."""
    if d is None:
        return a
    if isinstance(d, (tuple, list, dict)):
        keys = list(d) if isinstance(d, dict) else range(len(d))
        out = {k: _enter(a[k], d[k], f, start, length, whole) for k in keys}
        return out if isinstance(a, dict) else type(a)(out[k] for k in keys)
    if isinstance(a, (tuple, list)):
        return type(a)(_enter(v, d, f, start, length, whole) for v in a)
    if isinstance(a, dict):
        return {k: _enter(v, d, f, start, length, whole) for k, v in a.items()}
    d = d % a.dim()
    if length != whole:
        a = a.narrow(d, start, length)
    return _wrap_value(a.movedim(d, 0), f.level)


def _wrap_value(v, level):
    return wrap(v, level)


def _run(func, args, dims, kwargs, whole, start, length, randomness, out_dims):
    state = torch_get_rng_state() if randomness == "error" else None
    f = open_frame(length, randomness)
    try:
        call = [_enter(a, d, f, start, length, whole) for a, d in zip(args, dims)]
        res = func(*call, **kwargs)
    finally:
        close_frame(f)
    if state is not None and not _same_state(state):
        raise RuntimeError("vmap: called random operation while in randomness error mode. "
                           "Please either use the 'same' or 'different' randomness flags on "
                           "vmap or perform the randomness operation out of vmap")
    return _exit(res, out_dims, f, func)


def _same_state(state):
    now = torch_get_rng_state()
    return bool(np.array_equal(np.asarray(now._data), np.asarray(state._data)))


def _exit(res, od, f, func):
    if isinstance(od, (tuple, list)) and not isinstance(res, (tuple, list)):
        if len(od) == 1:
            od = od[0]
        else:
            raise ValueError(f"vmap({_name(func)}, ..., out_dims={od})(<inputs>): out_dims is "
                             f"not compatible with the structure of `outputs`. out_dims has "
                             f"{len(od)} entries but outputs has 1.")
    if isinstance(res, (tuple, list)):
        if isinstance(od, (tuple, list)) and len(od) != len(res):
            raise ValueError(f"vmap({_name(func)}, ..., out_dims={od})(<inputs>): out_dims is "
                             f"not compatible with the structure of `outputs`. out_dims has "
                             f"{len(od)} entries but outputs has {len(res)}.")
        ods = od if isinstance(od, (tuple, list)) else [od] * len(res)
        return type(res)(_exit(r, d, f, func) for r, d in zip(res, ods))
    if isinstance(res, dict):
        return {k: _exit(v, od[k] if isinstance(od, dict) else od, f, func)
                for k, v in res.items()}
    if not isinstance(res, Tensor):
        raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return "
                         f"Tensors, got type {type(res).__name__}. Did you mean to set "
                         "out_dims= to None for output?")
    if od is None:
        if is_batched(res, f.level):
            raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` can not return a "
                             "BatchedTensor when out_dim is None")
        return res
    if is_batched(res, f.level):
        v = res._value
    else:
        v = res.unsqueeze(0).expand(f.size, *res.shape)
    n = v.dim()
    if not -n <= od < n:
        raise ValueError(f"vmap: out_dim={od} is out of range for an output of "
                         f"dimensionality {n - 1}")
    return v.movedim(0, od % n) if od % n else v


def _join(parts, od, func):
    first = parts[0]
    if isinstance(first, (tuple, list)):
        ods = od if isinstance(od, (tuple, list)) else [od] * len(first)
        return type(first)(_join([p[k] for p in parts], ods[k], func)
                           for k in range(len(first)))
    if isinstance(first, dict):
        return {k: _join([p[k] for p in parts], od[k] if isinstance(od, dict) else od, func)
                for k in first}
    if od is None:
        return first
    return public("cat")(list(parts), od % first.dim())


def in_vmap():
    return bool(frames())


__all__ = ["autograd_vmap", "autograd_vmap_fallback_ops"]
