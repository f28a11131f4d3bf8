"""Function transforms, as ``torch.func`` has them: ``grad``, ``grad_and_value``, ``jacrev``,
``jacfwd``, ``hessian``, ``jvp``, ``vjp`` and ``vmap``, under R torch-style names
(``autograd_grad_fn``, ``autograd_jacrev``, ...).

Each transform takes a function and returns a function; they compose. Reverse transforms run
backward with ``create_graph=True`` whenever an enclosing transform is watching (forward AD is
open, or an input already requires grad), so ``jacfwd(jacrev(f))`` is forward-over-reverse:
backward's formulas run on tensors that carry tangents. Forward transforms use the one dual
level PyTorch allows, so ``jacfwd`` cannot be nested in ``jacfwd`` (use ``jacrev`` inside);
``jacfwd`` pushes every basis direction at once (batched tangents, ``forward_ad.BATCH``).

``vmap`` (``ops/vmap.py``) runs the function once on batched tensors: each op applies its
batching rule to the whole batch (``ops/batch_rules.py``), and only ops without one run per
example (``autograd_vmap_fallback_ops()``). ``grad`` under vmap differentiates with respect to
batched leaves (the inputs expanded to the batch, a view), so per-sample gradients are one
batched forward and one backward pass (``jacrev`` and ``vjp`` likewise). ``jacfwd``, ``jvp``
and ``hessian`` under vmap make the *physical* tensor (every example) the dual, with a tangent
batched like it (``jacfwd``: and over the basis directions in front), so they are one forward
pass for the whole batch too.
"""
from __future__ import annotations

import numpy as np

from ..autograd.api import autograd_grad
from ..autograd.forward_ad import (_tangent_of, autograd_dual_level, autograd_make_dual,
                                   autograd_unpack_dual, batched_dual_level)
from ..autograd.grad_mode import FORWARD_AD, with_enable_grad
from ..tensor import Tensor
from .batching import BatchedTensor, frames, peel, wrap
from .boundary import VMAP_LOCAL
from .shape import stack
from .vmap import autograd_vmap, autograd_vmap_fallback_ops

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
        if VMAP_LOCAL.depth:
            levels = _levels_in(args, kwargs)
            if levels:
                return _grad_batched(func, args, kwargs, nums, argnums, has_aux, levels)
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
    if VMAP_LOCAL.depth:
        levels = _levels_in(primals, {})
        if levels:
            return _vjp_batched(func, primals, has_aux, levels)
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
        if VMAP_LOCAL.depth:
            levels = _levels_in(args, kwargs)
            if levels:
                return _jacrev_batched(func, args, kwargs, nums, argnums, has_aux, levels)
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
    levels = _levels_in(primals + tangents, {}) if VMAP_LOCAL.depth else []
    with with_enable_grad(), autograd_dual_level():
        if levels:   # under vmap: one pass on the physical tensors (see _jacfwd_batched)
            duals = [_rewrap(autograd_make_dual(_to_levels(p, levels),
                                                _to_levels(t.to(p.dtype), levels)), levels)
                     for p, t in zip(primals, tangents)]
        else:
            duals = [autograd_make_dual(p, t.to(p.dtype)) for p, t in zip(primals, tangents)]
        out, aux = _split_aux(func(*duals), has_aux, "jvp")
        outs = out if isinstance(out, (tuple, list)) else (out,)
        pairs = [_unpack_batched(o) for o in outs]
    prim = [p for p, _ in pairs]
    tans = [_zeros_batched(o) if t is None else t for (_, t), o in zip(pairs, outs)]
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
        if VMAP_LOCAL.depth:
            levels = _levels_in(args, kwargs)
            if levels:
                return _jacfwd_batched(func, args, kwargs, nums, argnums, has_aux, levels)
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


# ------------------------------------------------------------------------------ under vmap

def _levels_in(args, kwargs):
    """The vmap levels (with their sizes) a transform called inside vmap works at: every open
    one, outermost first, whether or not an argument is batched there. A differentiated input
    is made batched at each (an expanded view), so that an output batched at a level only
    through a tensor the function captured (``vmap(lambda x: hessian(lambda w: f(w, x))(w))``)
    still has one derivative per example."""
    return [(f.level, f.size) for f in frames()]


def _to_levels(x, levels):
    """``x`` as a plain tensor batched at each of ``levels`` (leading dims, outermost first):
    a broadcast view (no copy) where ``x`` is not batched."""
    p, have = peel(x)
    for i, (lvl, size) in enumerate(levels):
        if lvl not in have:
            p = p.unsqueeze(i)
            shape = list(p.shape)
            shape[i] = size
            p = p.expand(*shape)
    return p


def _rewrap(p, levels):
    for lvl, _ in levels:
        p = wrap(p, lvl)
    return p


def _batched_leaves(args, nums, levels, where):
    """Replace the differentiated arguments by leaves batched at every level of the call
    (expanded: a view); the plain leaves, to differentiate with respect to."""
    leaves = []
    for i in nums:
        x = args[i]
        if not isinstance(x, Tensor) or not x.dtype.is_floating_point:
            _diff_input(x, where)   # (raises the error)
        leaf = _diff_input(_to_levels(x, levels), where)
        leaves.append(leaf)
        args[i] = _rewrap(leaf, levels)
    return leaves


def _physical(out, levels, where):
    """An output's plain tensor when it is batched at exactly ``levels``; None when it misses
    some (it then depends on no differentiated input, all of which are batched at all).
    (``levels`` are all open levels, so the error is for a batched tensor that escaped its
    vmap.)"""
    po, have = peel(out)
    if not set(have) <= {lvl for lvl, _ in levels}:
        raise RuntimeError(f"{where} inside vmap: the function uses a batched tensor that is "
                           "not one of its arguments (captured from an enclosing vmap); pass "
                           "it as an argument instead")
    return po if len(have) == len(levels) and po._requires_grad else None


def _grad_batched(func, args, kwargs, nums, argnums, has_aux, levels):
    """grad under vmap (per-sample gradients): each differentiated input becomes a leaf batched
    at every level of the call, the examples' outputs are summed and backpropagated once; each
    example's output depends only on its own slice of the leaf, so the leaf's gradient holds
    every example's gradient."""
    where = "grad_and_value"
    args = list(args)
    watched = _watched([args[i] for i in nums if isinstance(args[i], Tensor)])
    with with_enable_grad():
        leaves = _batched_leaves(args, nums, levels, where)
        out, aux = _split_aux(func(*args, **kwargs), has_aux, where)
        if not isinstance(out, Tensor):
            raise RuntimeError(f"{where}(f)(*args): Expected f(*args) to return a Tensor, "
                               f"got {type(out).__name__}")
        if out.numel() != 1:
            raise RuntimeError(f"{where}(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {out.dim()} dims. Maybe you wanted "
                               "to use the vjp or jacrev APIs instead?")
        po = _physical(out, levels, where)
        gs = autograd_grad([po.sum()], leaves, create_graph=watched, allow_unused=True) \
            if po is not None else [None] * len(leaves)
    gs = [_zeros(x) if g is None else g for g, x in zip(gs, leaves)]
    if not watched:
        gs = [g.detach() for g in gs]
        out = out.detach()
    gs = [_rewrap(g, levels) for g in gs]
    g = tuple(gs) if isinstance(argnums, tuple) else gs[0]
    return (g, (out, aux)) if has_aux else (g, out)


def _jacrev_batched(func, args, kwargs, nums, argnums, has_aux, levels):
    """jacrev under vmap: batched leaves as for grad; one backward pass per element of an
    example's output, with that element's one-hot gradient in every example at once."""
    where = "jacrev"
    args = list(args)
    watched = _watched([args[i] for i in nums if isinstance(args[i], Tensor)])
    nb = len(levels)
    with with_enable_grad():
        leaves = _batched_leaves(args, nums, levels, where)
        out, aux = _split_aux(func(*args, **kwargs), has_aux, where)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        jac = []
        for o in outs:
            po = _physical(o, levels, where)
            row = []
            for leaf in leaves:
                bshape, xshape = tuple(leaf.shape[:nb]), tuple(leaf.shape[nb:])
                shape = bshape + tuple(o.shape) + xshape
                if po is None or o.numel() == 0:
                    row.append(_rewrap(Tensor._make(np.zeros(shape, leaf._data.dtype)), levels))
                    continue
                rows = []
                for m in range(o.numel()):
                    v = np.zeros(tuple(o.shape), dtype=po._data.dtype)
                    v.reshape(-1)[m] = 1
                    g = autograd_grad([po], [leaf], [Tensor._make(np.broadcast_to(v, po.shape))],
                                      retain_graph=True, create_graph=watched,
                                      allow_unused=True)[0]
                    rows.append(_zeros(leaf) if g is None else g)
                block = stack(rows, nb).reshape(*shape)
                row.append(_rewrap(block if watched else block.detach(), levels))
            jac.append(row)
    return _shape_result(jac, out, argnums, aux, has_aux)


def _vjp_batched(func, primals, has_aux, levels):
    """vjp under vmap: batched leaves as for grad; ``vjp_fn(v)`` backpropagates every
    example's ``v`` (batched, or the same for all) at once."""
    watched = _watched(primals)
    args = list(primals)
    with with_enable_grad():
        leaves = _batched_leaves(args, range(len(args)), levels, "vjp")
        out, aux = _split_aux(func(*args), has_aux, "vjp")
    outs = out if isinstance(out, (tuple, list)) else (out,)
    phys = [_physical(o, levels, "vjp") for o in outs]

    def vjp_fn(*vs):
        vs = vs[0] if len(vs) == 1 and isinstance(vs[0], (tuple, list)) else vs
        with with_enable_grad():
            pairs = [(p, _to_levels(v, levels)) for p, v in zip(phys, vs) if p is not None]
            gs = autograd_grad([p for p, _ in pairs], leaves, [v for _, v in pairs],
                               retain_graph=True, create_graph=watched, allow_unused=True) \
                if pairs else [None] * len(leaves)
        gs = [_zeros(x) if g is None else g for g, x in zip(gs, leaves)]
        return tuple(_rewrap(g if watched else g.detach(), levels) for g in gs)
    shown = out if watched else (type(out)(o.detach() for o in outs)
                                 if isinstance(out, (tuple, list)) else out.detach())
    return (shown, vjp_fn, aux) if has_aux else (shown, vjp_fn)


def _unpack_batched(o):
    """``(primal, tangent)`` of an output of a function run on batched duals: the tangent is
    the physical tensor's, batched like the output (None when it has none)."""
    if not isinstance(o, BatchedTensor):
        return autograd_unpack_dual(o)
    po, have = peel(o)
    prim, tan = autograd_unpack_dual(po)
    lv = [(lvl, None) for lvl in have]
    return _rewrap(prim, lv), (None if tan is None else _rewrap(tan, lv))


def _zeros_batched(o):
    po, have = peel(o)
    return _rewrap(_zeros(po), [(lvl, None) for lvl in have])


def _jacfwd_batched(func, args, kwargs, nums, argnums, has_aux, levels):
    """jacfwd under vmap: each differentiated argument, as its physical tensor batched at every
    level of the call (shape ``B + x``), becomes a dual whose tangents run over the ``n`` basis
    directions of one example (shape ``(n,) + B + x``: the same direction in every example, a
    broadcast view). Every example's output depends only on its own slice, so one forward pass
    gives each example's Jacobian. An output may carry more levels than the inputs (a batched
    tensor captured from an enclosing vmap): its tangent is batched at those too."""
    args = list(args)
    nb = len(levels)
    blocks, out, aux = None, None, None
    for k, i in enumerate(nums):
        x = args[i]
        if not isinstance(x, Tensor) or not x.dtype.is_floating_point:
            raise RuntimeError("jacfwd: the differentiated arguments must be "
                               "floating-point Tensors")
        px = _to_levels(x, levels)
        xshape = tuple(px.shape[nb:])
        n = int(np.prod(xshape, dtype=np.int64))
        eye = np.eye(n, dtype=px._data.dtype).reshape((n,) + (1,) * nb + xshape)
        basis = Tensor._make(np.broadcast_to(eye, (n,) + tuple(px.shape)))
        with with_enable_grad(), batched_dual_level(n):
            call = list(args)
            call[i] = _rewrap(autograd_make_dual(px, basis), levels)
            out, aux = _split_aux(func(*call, **kwargs), has_aux, "jacfwd")
            outs = out if isinstance(out, (tuple, list)) else (out,)
            pairs = [_physical_dual(o) for o in outs]
        if blocks is None:
            blocks = [[None] * len(nums) for _ in outs]
        for j, (o, (po, have, t)) in enumerate(zip(outs, pairs)):
            o_shape = tuple(o.shape)
            lv = [(lvl, None) for lvl in have]
            bshape = tuple(po.shape[:len(have)])
            if t is None:
                z = np.zeros(bshape + o_shape + xshape, dtype=po._data.dtype)
                blocks[j][k] = _rewrap(Tensor._make(z), lv)
                continue
            # (n, *batch, *out) -> (*batch, *out, n) -> batch + out.shape + x.shape
            perm = list(range(1, t.dim())) + [0]
            blocks[j][k] = _rewrap(t.permute(*perm).reshape(*(bshape + o_shape + xshape)), lv)
    if not any(isinstance(args[i], Tensor) and args[i]._requires_grad for i in nums):
        blocks = [[b.detach() for b in row] for row in blocks]
    return _shape_result(blocks, out, argnums, aux, has_aux)


def _physical_dual(o):
    """An output's physical tensor, its levels and its (batched) tangent, or None."""
    if not isinstance(o, Tensor):
        raise RuntimeError(f"jacfwd(f)(*args): Expected f(*args) to return a Tensor, got "
                           f"{type(o).__name__}")
    po, have = peel(o)
    return po, have, autograd_unpack_dual(po).tangent
