"""Function transforms, as ``torch.func`` has them: ``grad``, ``grad_and_value``, ``jacrev``,
``jacfwd``, ``hessian``, ``jvp``, ``vjp`` and ``vmap``, under R torch-style names
(``autograd_grad_fn``, ``autograd_jacrev``, ...).

Each transform takes a function and returns a function; they compose. Reverse transforms run
backward with ``create_graph=True`` whenever an enclosing transform is watching (forward AD is
open, or an input already requires grad), so ``jacfwd(jacrev(f))`` is forward-over-reverse:
backward's formulas run on tensors that carry tangents. Forward transforms use the one dual
level PyTorch allows, so ``jacfwd`` cannot be nested in ``jacfwd`` (use ``jacrev`` inside);
``jacfwd`` pushes every basis direction at once (batched tangents, ``forward_ad.BATCH``).

``vmap`` here maps by calling the function once per example and stacking (the per-example
fallback of ``torch.func``); no op has a batching rule yet, which ``autograd_vmap_fallback_ops()``
reports.
"""
from __future__ import annotations

import numpy as np

from ..autograd.api import autograd_grad
from ..autograd.forward_ad import (_tangent_of, autograd_dual_level, autograd_make_dual,
                                   autograd_unpack_dual, batched_dual_level)
from ..autograd.grad_mode import FORWARD_AD, with_enable_grad
from ..tensor import Tensor
from .random_state import torch_get_rng_state, torch_set_rng_state
from .registry import OPS
from .shape import stack

__all__ = ["autograd_grad_fn", "autograd_grad_and_value", "autograd_jacrev", "autograd_jacfwd",
           "autograd_hessian_fn", "autograd_jvp_fn", "autograd_vjp_fn", "autograd_vmap",
           "autograd_vmap_fallback_ops"]


# ------------------------------------------------------------------------------ helpers

def _argnums(argnums, n, where):
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    out = []
    for a in nums:
        if not isinstance(a, int) or isinstance(a, bool):
            raise RuntimeError(f"{where}: argnums must be int or Tuple[int, ...], got: "
                               f"{type(a).__name__}")
        if not -n <= a < n:
            raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")
        out.append(a % n)
    return out


def _watched(ts):
    """Whether an enclosing transform (or the caller) differentiates through this call."""
    return bool(FORWARD_AD[0]) or any(t._requires_grad or _tangent_of(t) is not None
                                      for t in ts)


def _diff_input(t, where):
    """An input to differentiate with respect to, keeping its history and its tangent."""
    if not isinstance(t, Tensor):
        raise RuntimeError(f"{where}: Expected f(*args) to be called with Tensors as the "
                           f"differentiated arguments, got {type(t).__name__}")
    if not t.dtype.is_floating_point:
        raise RuntimeError(f"{where}: only floating-point Tensors can be differentiated, got "
                           f"{t.dtype}")
    if t._requires_grad:
        return t.expand(*t.shape)   # an alias: gradients reach the caller's graph too
    leaf = Tensor._make(t._data, version=t._version)
    leaf._requires_grad = True
    if t._fw is not None:
        leaf._fw = t._fw            # forward-over-reverse: the tangent goes along
    return leaf


def _split_aux(res, has_aux, where):
    if not has_aux:
        return res, None
    if not (isinstance(res, (tuple, list)) and len(res) == 2):
        raise RuntimeError(f"{where}(f, ...)(*args): output of function f should be a tuple: "
                           "(output, aux) if has_aux is True")
    return res[0], res[1]


def _zeros(like):
    return Tensor._make(np.zeros(like._data.shape, dtype=like._data.dtype))


def _stack_rows(rows, shape):
    return stack(rows, 0).reshape(*shape) if rows else Tensor._make(np.zeros(shape))


# ------------------------------------------------------------------------------ reverse mode

def autograd_grad_and_value(func, argnums=0, has_aux=False):
    """A function returning ``(gradient, value)`` of ``func`` (which returns one element, or
    ``(output, aux)`` with ``has_aux=True``: then ``((gradient, (value, aux)))``). The gradient
    is w.r.t. argument ``argnums`` (a tuple of them gives a tuple of gradients)."""
    def wrapper(*args, **kwargs):
        where = "grad_and_value"
        nums = _argnums(argnums, len(args), where)
        args = list(args)
        watched = _watched([args[i] for i in nums if isinstance(args[i], Tensor)])
        with with_enable_grad():
            xs = [_diff_input(args[i], where) for i in nums]
            for i, x in zip(nums, xs):
                args[i] = x
            out, aux = _split_aux(func(*args, **kwargs), has_aux, where)
            if not isinstance(out, Tensor):
                raise RuntimeError(f"{where}(f)(*args): Expected f(*args) to return a Tensor, "
                                   f"got {type(out).__name__}")
            if out._data.size != 1:
                raise RuntimeError(f"{where}(f)(*args): Expected f(*args) to return a scalar "
                                   f"Tensor, got tensor with {out.dim()} dims. Maybe you wanted "
                                   "to use the vjp or jacrev APIs instead?")
            if out._requires_grad:
                gs = autograd_grad([out], xs, create_graph=watched, allow_unused=True)
            else:
                gs = [None] * len(xs)
        gs = [_zeros(x) if g is None else g for g, x in zip(gs, xs)]
        if not watched:
            gs = [g.detach() for g in gs]
            out = out.detach()
        g = tuple(gs) if isinstance(argnums, tuple) else gs[0]
        return (g, (out, aux)) if has_aux else (g, out)
    return wrapper


def autograd_grad_fn(func, argnums=0, has_aux=False):
    """The gradient of ``func`` as a function (``torch.func.grad``)."""
    gv = autograd_grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def autograd_vjp_fn(func, *primals, has_aux=False):
    """``(output, vjp_fn)`` as ``torch.func.vjp``: ``vjp_fn(v)`` is the tuple of ``v^T J``."""
    watched = _watched(primals)
    with with_enable_grad():
        xs = [_diff_input(p, "vjp") for p in primals]
        out, aux = _split_aux(func(*xs), has_aux, "vjp")
    outs = out if isinstance(out, (tuple, list)) else (out,)

    def vjp_fn(*vs):
        vs = vs[0] if len(vs) == 1 and isinstance(vs[0], (tuple, list)) else vs
        with with_enable_grad():
            pairs = [(o, v) for o, v in zip(outs, vs) if o._requires_grad]
            gs = autograd_grad([o for o, _ in pairs], xs, [v for _, v in pairs],
                               retain_graph=True, create_graph=watched, allow_unused=True) \
                if pairs else [None] * len(xs)
        return tuple(_zeros(x) if g is None else g for g, x in zip(gs, xs))
    shown = out if watched else (tuple(o.detach() for o in outs)
                                 if isinstance(out, (tuple, list)) else out.detach())
    return (shown, vjp_fn, aux) if has_aux else (shown, vjp_fn)


def autograd_jacrev(func, argnums=0, has_aux=False):
    """The Jacobian by reverse mode, one backward pass per output element (``torch.func.jacrev``):
    shape ``output.shape + input.shape``."""
    def wrapper(*args, **kwargs):
        nums = _argnums(argnums, len(args), "jacrev")
        args = list(args)
        watched = _watched([args[i] for i in nums if isinstance(args[i], Tensor)])
        with with_enable_grad():
            xs = [_diff_input(args[i], "jacrev") for i in nums]
            for i, x in zip(nums, xs):
                args[i] = x
            out, aux = _split_aux(func(*args, **kwargs), has_aux, "jacrev")
            outs = out if isinstance(out, (tuple, list)) else (out,)
            jac = [[_jac_block_rev(o, x, watched) for x in xs] for o in outs]
        return _shape_result(jac, out, argnums, aux, has_aux)
    return wrapper


def _jac_block_rev(o, x, watched):
    shape = tuple(o.shape) + tuple(x.shape)
    if not o._requires_grad or o._data.size == 0:
        return Tensor._make(np.zeros(shape, dtype=x._data.dtype))
    rows = []
    for m in range(o._data.size):
        v = np.zeros(o._data.shape, dtype=o._data.dtype)
        v.reshape(-1)[m] = 1
        g = autograd_grad([o], [x], [Tensor._make(v)], retain_graph=True,
                          create_graph=watched, allow_unused=True)[0]
        rows.append(_zeros(x) if g is None else g)
    res = _stack_rows(rows, shape)
    return res if watched else res.detach()


def _shape_result(jac, out, argnums, aux, has_aux):
    per_out = [tuple(r) if isinstance(argnums, tuple) else r[0] for r in jac]
    res = tuple(per_out) if isinstance(out, (tuple, list)) else per_out[0]
    return (res, aux) if has_aux else res


# ------------------------------------------------------------------------------ forward mode

def autograd_jvp_fn(func, primals, tangents, has_aux=False):
    """``(output, jvp_out)`` as ``torch.func.jvp``: one forward pass with dual tensors."""
    primals = tuple(primals) if isinstance(primals, (tuple, list)) else (primals,)
    tangents = tuple(tangents) if isinstance(tangents, (tuple, list)) else (tangents,)
    if len(primals) != len(tangents):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have "
                           f"the same python structure. For example, if primals is a tuple "
                           f"of 3 tensors, tangents also must be. Got primals with "
                           f"{len(primals)} and tangents with {len(tangents)} elements")
    for what, xs in (("primals", primals), ("tangents", tangents)):
        for x in xs:
            if not isinstance(x, Tensor) or not x.dtype.is_floating_point:
                raise TypeError(f"jvp(f, primals, tangents): Expected {what} to be a tuple of "
                                f"floating-point Tensors, got {type(x).__name__}"
                                + (f" of dtype {x.dtype}" if isinstance(x, Tensor) else ""))
    if not callable(func):
        raise TypeError(f"jvp(f, primals, tangents): f must be a function, got "
                        f"{type(func).__name__}")
    for p, t in zip(primals, tangents):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have "
                               f"the same shape, got {list(p.shape)} and {list(t.shape)}")
    with with_enable_grad(), autograd_dual_level():
        duals = [autograd_make_dual(p, t.to(p.dtype)) for p, t in zip(primals, tangents)]
        out, aux = _split_aux(func(*duals), has_aux, "jvp")
        outs = out if isinstance(out, (tuple, list)) else (out,)
        pairs = [autograd_unpack_dual(o) for o in outs]
    prim = [p for p, _ in pairs]
    tans = [_zeros(o) if t is None else t for (_, t), o in zip(pairs, outs)]
    if not any(x._requires_grad for x in primals + tangents):  # nobody differentiates further
        prim = [p.detach() for p in prim]
        tans = [t.detach() for t in tans]
    many = isinstance(out, (tuple, list))
    res = ((tuple(prim) if many else prim[0]), (tuple(tans) if many else tans[0]))
    return res + (aux,) if has_aux else res


def autograd_jacfwd(func, argnums=0, has_aux=False):
    """The Jacobian by forward mode (``torch.func.jacfwd``): shape ``output.shape +
    input.shape``. One forward pass per differentiated argument, whose tangent holds every
    basis direction at once (a leading batch dimension of the input's size)."""
    def wrapper(*args, **kwargs):
        nums = _argnums(argnums, len(args), "jacfwd")
        args = list(args)
        blocks, out, aux = None, None, None
        for k, i in enumerate(nums):
            x = args[i]
            if not isinstance(x, Tensor) or not x.dtype.is_floating_point:
                raise RuntimeError("jacfwd: the differentiated arguments must be "
                                   "floating-point Tensors")
            n = x._data.size
            basis = Tensor._make(np.eye(n, dtype=x._data.dtype).reshape((n,) + tuple(x.shape)))
            with with_enable_grad(), batched_dual_level(n):
                call = list(args)
                call[i] = autograd_make_dual(x, basis)
                out, aux = _split_aux(func(*call, **kwargs), has_aux, "jacfwd")
                outs = out if isinstance(out, (tuple, list)) else (out,)
                tans = [autograd_unpack_dual(o).tangent for o in outs]
            if blocks is None:
                blocks = [[None] * len(nums) for _ in outs]
            for j, (o, t) in enumerate(zip(outs, tans)):
                o_shape = tuple(o.shape)
                if t is None:
                    blocks[j][k] = Tensor._make(np.zeros(o_shape + tuple(x.shape),
                                                         dtype=o._data.dtype))
                    continue
                # (n, *out) -> (*out, n) -> out.shape + x.shape
                perm = list(range(1, len(o_shape) + 1)) + [0]
                blocks[j][k] = t.permute(*perm).reshape(*(o_shape + tuple(x.shape)))
        if not any(isinstance(args[i], Tensor) and args[i]._requires_grad for i in nums):
            blocks = [[b.detach() for b in row] for row in blocks]
        return _shape_result(blocks, out, argnums, aux, has_aux)
    return wrapper


def autograd_hessian_fn(func, argnums=0):
    """The Hessian as a function, forward-over-reverse (``torch.func.hessian``)."""
    return autograd_jacfwd(autograd_jacrev(func, argnums), argnums)


# ------------------------------------------------------------------------------ vmap

RANDOMNESS = ("error", "different", "same")


def autograd_vmap_fallback_ops():
    """The ops ``autograd_vmap`` maps by its per-example loop (no batching rule): today all."""
    return sorted({info.name for info in OPS.values()})


def _name(func):
    return getattr(func, "__name__", repr(func))


def autograd_vmap(func, in_dims=0, out_dims=0, randomness="error", chunk_size=None):
    """Map ``func`` over a dimension of its inputs (``torch.func.vmap``): ``in_dims`` gives,
    per positional argument (or one int for all), the mapped dimension or None; ``out_dims``
    where the mapped dimension goes in each output. ``randomness``: "error" refuses random ops,
    "different" draws per example, "same" draws once for all."""
    if randomness not in RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")

    def wrapper(*args, **kwargs):
        head = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
        dims = _in_dims(in_dims, args, head)
        size = _batch_size(args, dims, head)
        results = []
        state = torch_get_rng_state()
        for b in range(size):
            if randomness == "same":
                torch_set_rng_state(state)
            call = [a if d is None else a.select(d, b) for a, d in zip(args, dims)]
            res = func(*call, **kwargs)
            if randomness == "error" and b == 0 and not _same_state(state):
                raise RuntimeError("vmap: called random operation while in randomness error "
                                   "mode. Please either use the 'same' or 'different' randomness "
                                   "flags on vmap or perform the randomness operation out of "
                                   "vmap")
            results.append(res)
        return _stack_outputs(results, out_dims, func)
    return wrapper


def _same_state(state):
    now = torch_get_rng_state()
    return bool(np.array_equal(np.asarray(now._data), np.asarray(state._data)))


def _in_dims(in_dims, args, head):
    if isinstance(in_dims, int) or in_dims is None:
        dims = [in_dims] * len(args)
    elif isinstance(in_dims, (tuple, list)):
        if len(in_dims) != len(args):
            raise ValueError(f"{head}: in_dims is not compatible with the structure of `inputs`. "
                             f"in_dims has {len(in_dims)} entries but inputs has {len(args)}.")
        dims = list(in_dims)
    else:
        raise ValueError(f"{head}: expected `in_dims` to be int or a (potentially nested) tuple "
                         f"matching the structure of inputs, got: {type(in_dims).__name__}.")
    for a, d in zip(args, dims):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError(f"{head}: in_dims must be int or None, got {type(d).__name__}.")
        if not isinstance(a, Tensor):
            raise ValueError(f"{head}: Got in_dim={d} for an input but the input is of type "
                             f"{type(a).__name__}. We cannot vmap over non-Tensor arguments, "
                             "please use None as the respective in_dim")
        if not -max(a.dim(), 1) <= d < max(a.dim(), 1) or a.dim() == 0:
            raise ValueError(f"{head}: Got in_dim={d} for some input, but that input is a Tensor "
                             f"of dimensionality {a.dim()} so expected in_dim to satisfy "
                             f"-{a.dim()} <= in_dim < {a.dim()}.")
    return [None if d is None else d % a.dim() for a, d in zip(args, dims)]


def _batch_size(args, dims, head):
    sizes = [a.shape[d] for a, d in zip(args, dims) if d is not None]
    if not sizes:
        raise ValueError(f"{head}: at least one input must be a Tensor mapped over a dimension "
                         "(all in_dims are None, or no input is a Tensor).")
    if len(set(sizes)) != 1:
        raise ValueError(f"{head}: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]


def _stack_outputs(results, out_dims, func):
    first = results[0]
    many = isinstance(first, (tuple, list))
    n = len(first) if many else 1
    odims = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * n
    if len(odims) != n:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is "
                         f"not compatible with the structure of `outputs`. out_dims has "
                         f"{len(odims)} entries but outputs has {n}.")
    outs = []
    for k in range(n):
        items = [r[k] if many else r for r in results]
        if not all(isinstance(t, Tensor) for t in items):
            raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return "
                             f"Tensors, got type {type(items[0]).__name__}. Did you mean to set "
                             "out_dims= to None for output?")
        d = odims[k]
        if d is None:
            outs.append(items[0])
            continue
        nd = items[0].dim() + 1
        if not -nd <= d < nd:
            raise ValueError(f"vmap: out_dim={d} is out of range for an output of "
                             f"dimensionality {nd - 1}")
        outs.append(stack(items, d % nd))
    return tuple(outs) if many else outs[0]
