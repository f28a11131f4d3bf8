"""The R face of forward-mode AD and the function transforms (``r-shim/R/transforms.R``).

R passes its closure as an R function handle, the arguments as handles and plain values, and
the transform's options with R's conventions already undone (0-based ``argnums`` and dims; R's
``NULL`` in ``in_dims`` as None). One call of a transformed R function is one bridge call:
the transform is built here around the R function and applied at once, so Python keeps no R
function after the call (a composed transform is an R closure calling the bridge again, from
inside the callback)."""
from __future__ import annotations

import re

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
                                         chunk_size=o.get("chunk_size")),
}


def _r_dim(m):
    """A 0-based dim of a vmap message as R's (1-based; negative ones are the same)."""
    d = int(m.group(2))
    return f"{m.group(1)} = {d + 1 if d >= 0 else d}"


# vmap's errors speak of 0-based dims and Python's values; from R they must speak of what the
# user wrote (1-based, NULL, list(...)). The rewritten forms have spaces around "=", which the
# patterns do not match, so a message that comes back through a nested transform is left alone.
_VMAP_R_WORDS = [
    (re.compile(r"\b(in_dim|out_dim)=(-?\d+)"), _r_dim),
    (re.compile(r"expected in_dim to satisfy -(\d+) <= in_dim < \1"),
     lambda m: f"expected in_dim to satisfy 1 <= in_dim <= {m.group(1)} or "
               f"-{m.group(1)} <= in_dim <= -1"),
    (re.compile(r"in_dims must be int or None"), lambda m: "in_dims must be whole numbers or NULL"),
    (re.compile(r"please use None as the respective in_dim"),
     lambda m: "please use NULL as the respective in_dim"),
    (re.compile(r"set out_dims= to None"), lambda m: "set out_dims = NULL"),
    (re.compile(r"the input is of type (float|int|bool|str|list|dict)\b"),
     lambda m: "the input is of type " + {"float": "double", "int": "integer", "bool": "logical",
                                          "str": "character", "list": "list",
                                          "dict": "list"}[m.group(1)]),
]


def _r_vmap_message(msg, opts):
    head = re.compile(r"\bvmap\((.*?), in_dims=.*?, \.\.\.\)\(<inputs>\)")
    msg = head.sub(lambda m: f"autograd_vmap({m.group(1)}, in_dims = {opts['r_in_dims']})"
                             "(<inputs>)", msg)
    tail = re.compile(r"\bvmap\((.*?), \.\.\., out_dims=.*?\)\(<inputs>\)")
    msg = tail.sub(lambda m: f"autograd_vmap({m.group(1)}, out_dims = {opts['r_out_dims']})"
                             "(<inputs>)", msg)
    for pattern, repl in _VMAP_R_WORDS:
        msg = pattern.sub(repl, msg)
    return msg


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
    try:
        res = fn(*[_dec(a) for a in args])
    except (ValueError, RuntimeError, IndexError) as exc:
        if what != "vmap" or "r_in_dims" not in opts:
            raise
        msg = str(exc.args[0]) if len(exc.args) == 1 and isinstance(exc.args[0], str) else None
        new = None if msg is None else _r_vmap_message(msg, opts)
        if new is None or new == msg:
            raise
        try:
            again = type(exc)(new)
        except Exception:  # noqa: BLE001  (an exception class with another constructor)
            raise exc from None
        raise again from exc
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
