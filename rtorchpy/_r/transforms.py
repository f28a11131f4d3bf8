"""The R face of forward-mode AD and the function transforms (``r-shim/R/transforms.R``).

R passes its closure as an R function handle, the arguments as handles and plain values, and
the transform's options with R's conventions already undone (0-based ``argnums`` and dims; R's
``NULL`` in ``in_dims`` as None). One call of a transformed R function is one bridge call:
the transform is built here around the R function and applied at once, so Python keeps no R
function after the call (a composed transform is an R closure calling the bridge again, from
inside the callback)."""
from __future__ import annotations

from ..autograd.forward_ad import (autograd_enter_dual_level, autograd_exit_dual_level,
                                   autograd_make_dual, autograd_unpack_dual)
from ..autograd.grad_mode import FORWARD_AD
from ..ops import transforms as T
from .callbacks import _r_callable, r_callable
from .handles import _dec, guarded

_BUILD = {
    "grad": lambda f, o: T.autograd_grad_fn(f, o["argnums"], o["has_aux"]),
    "grad_and_value": lambda f, o: T.autograd_grad_and_value(f, o["argnums"], o["has_aux"]),
    "jacrev": lambda f, o: T.autograd_jacrev(f, o["argnums"], o["has_aux"]),
    "jacfwd": lambda f, o: T.autograd_jacfwd(f, o["argnums"], o["has_aux"]),
    "hessian": lambda f, o: T.autograd_hessian_fn(f, o["argnums"]),
    "vmap": lambda f, o: T.autograd_vmap(f, o["in_dims"], o["out_dims"], o["randomness"],
                                         o.get("chunk_size")),
}


def _nums(x):
    """R sends one number as a scalar and several as a list: Python's int or tuple."""
    if isinstance(x, (list, tuple)):
        return tuple(None if v is None else int(v) for v in x)
    return None if x is None else int(x)


@guarded
def transform(what, r_fn, args, opts):
    """Apply transform ``what`` of the R function ``r_fn`` to ``args`` (a list)."""
    if what not in _BUILD:
        raise ValueError(f"unknown transform {what!r}")
    opts = {k: _dec(v) for k, v in (opts or {}).items()}
    for k in ("argnums", "in_dims", "out_dims"):
        if k in opts:
            opts[k] = _nums(opts[k])
    fn = _BUILD[what](_r_callable(r_callable(r_fn)), opts)
    res = fn(*[_dec(a) for a in args])
    return list(res) if isinstance(res, tuple) else res


@guarded
def jvp_fn(r_fn, primals, tangents, has_aux):
    res = T.autograd_jvp_fn(_r_callable(r_callable(r_fn)), tuple(_dec(p) for p in primals),
                            tuple(_dec(t) for t in tangents), has_aux=bool(has_aux))
    return [list(r) if isinstance(r, tuple) else r for r in res]


@guarded
def dual_level(enter):
    if enter:
        return autograd_enter_dual_level()
    if FORWARD_AD[0]:
        autograd_exit_dual_level()
    return None


@guarded
def make_dual(tensor, tangent):
    return autograd_make_dual(_dec(tensor), _dec(tangent))


@guarded
def unpack_dual(tensor):
    primal, tangent = autograd_unpack_dual(_dec(tensor))
    return [primal, tangent]


@guarded
def vmap_fallback_ops():
    return T.autograd_vmap_fallback_ops()
