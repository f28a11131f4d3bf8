"""R closures called back by the engine: tensor hooks and custom functions' ``forward`` and
``backward`` written in R (part of the R bridge, see ``rtorchpy/_r/__init__.py`` for the
protocol). An R error inside them travels back to R as the original condition."""
from __future__ import annotations

import inspect

from ..autograd import gradcheck as checks
from ..autograd.function import autograd_function
from ..tensor import Tensor
from .errors import RCallbackError
from .handles import Raw, _dec, _enc_item, _get, _put, guarded

_R_ERROR = "__rerror__"
_R_INTERRUPT = "__rinterrupt__"


def _check_r(r):
    """An R callback's result: R's error (or interrupt) marker raises, so Python unwinds (grad
    mode and the graph restored by the engine's ``finally``) before R re-raises the original
    condition; handles become objects."""
    if type(r) is list and r and (r[0] == _R_ERROR or r[0] == _R_INTERRUPT):
        raise RCallbackError(r[1] if len(r) > 1 else "error in an R function")
    return _dec(r)


def r_function(fn):
    """An R function made a Python callable by the R package's C code (r-shim/src/callback.c),
    kept as a handle for R to pass back to the entry points below."""
    return _put(fn)


def r_callable(f):
    """An R function as the entry points receive it: a handle (r_function above) or, when the
    R package fell back to reticulate, a callable reticulate made."""
    return _get(f) if type(f) is complex else f


@guarded
def register_hook(h, r_fn):
    """``x$register_hook(f)``: ``r_fn`` receives the gradient's handle and returns a handle (the
    new gradient) or NULL (keep it)."""
    r_fn = r_callable(r_fn)

    def hook(g):
        r = _check_r(r_fn(_put(g)))
        return r if isinstance(r, Tensor) else None
    return _get(h).register_hook(hook)


@guarded
def remove_hook(h):
    _get(h).remove()
    return None


class RValue:
    """An R object saved with ``ctx$save_for_backward`` (it stays in R: this is its key)."""

    __slots__ = ("key",)
    dead: list = []

    def __init__(self, key):
        self.key = key

    def __del__(self):
        RValue.dead.append(self.key)


@guarded
def dead_rvalues():
    out, RValue.dead[:] = list(RValue.dead), []
    return out


@guarded
def make_function(n_args, r_forward, r_backward, r_jvp=None):
    """A custom autograd function whose forward and backward are R functions.

    Parameters are named ``a0, a1, ...`` (R's names need not be Python identifiers); the R side
    maps them. ``r_forward(ctx, needs)`` gets the context's handle (the arguments stay in R) and
    its ``needs_input_grad`` (so that R's ``ctx$needs_input_grad`` costs no crossing), and
    returns a handle or a list of handles; ``r_backward(ctx, grads, needs)`` gets the context,
    the list of output gradients' handles and the same flags, and returns a dict
    ``{"a<i>": handle}``. ``r_jvp(ctx, tangents, needs)`` (optional, for forward-mode AD) gets
    one tangent per argument (the undefined tensor where there is none) and returns what
    ``r_forward`` returns, one tangent per output.
    """
    r_forward, r_backward = r_callable(r_forward), r_callable(r_backward)
    params = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD)] + [
        inspect.Parameter(f"a{i}", inspect.Parameter.POSITIONAL_OR_KEYWORD)
        for i in range(int(n_args))]

    def forward(ctx, *args, **kwargs):
        owner, _OWNER[0] = _OWNER[0], None
        if owner is not None:
            ctx._r_owner = RValue(owner)  # keeps the R function's state while the node lives
        r = _check_r(r_forward(_put(ctx), [bool(b) for b in ctx.needs_input_grad]))
        return list(r[1]) if type(r) is list and r and r[0] == "__list__" else r

    def backward(ctx, *grads):
        r = _check_r(r_backward(_put(ctx), [_enc_item(g) for g in grads],
                                [bool(b) for b in ctx.needs_input_grad]))
        return r if isinstance(r, dict) else {}

    jvp = None
    if r_jvp is not None:
        r_jvp = r_callable(r_jvp)

        def jvp(ctx, *tangents):
            r = _check_r(r_jvp(_put(ctx), [_enc_item(t) for t in tangents],
                               [bool(b) for b in ctx.needs_input_grad]))
            return list(r[1]) if type(r) is list and r and r[0] == "__list__" else r

    forward.__signature__ = inspect.Signature(params)
    return autograd_function(forward, backward, name="torch::autograd::LanternNode",
                             strict_names=False, jvp=jvp)


# The key of the R state (see R's autograd_function) of the call in progress, for forward.
_OWNER = [None]


@guarded
def call_function(f, args, owner=None):
    """Call a custom function with its arguments (tensors, or None for R-side values).
    ``owner`` is the key of an R value (the function's R state) that the call's context keeps
    alive: R's forward and backward closures reach that state only weakly (no cycle through
    Python), so whatever may call them later (the recorded node) must hold it."""
    _OWNER[0] = owner
    try:
        return _get(f)(*[_dec(a) for a in args])
    finally:
        if _OWNER[0] is not None:  # forward never ran: nothing holds the R state's key
            RValue.dead.append(_OWNER[0])
            _OWNER[0] = None


@guarded
def ctx_save(ctx, names, values):
    """``ctx$save_for_backward(...)``: tensors as handles, R values as ["r", key] pairs."""
    pairs = []
    for n, v in zip(names, values):
        v = RValue(v[1]) if type(v) is list and v and v[0] == "r" else _dec(v)
        pairs.append((n or None, v))
    _get(ctx).save_for_backward_pairs(pairs)
    return None


@guarded
def ctx_saved(ctx):
    """``ctx$saved_variables``: ["SV", names ("" for none), values, whether any name is set];
    values are tensors, ["r", key] for R values, ["v", value] for plain ones."""
    pairs = _get(ctx).saved_variables.pairs()
    names = [n or "" for n, _ in pairs]
    values = [_put(v) if isinstance(v, Tensor) else
              ["r", v.key] if isinstance(v, RValue) else ["v", v] for _, v in pairs]
    return Raw(["SV", names, values, any(names)])


@guarded
def ctx_mark(ctx, what, tensors):
    tensors = [_dec(t) for t in tensors]
    getattr(_get(ctx), what)(*tensors)
    return None


# ----------------------------------------------------------------------------- gradcheck family

def _r_callable(r_fn):
    """An R function of tensors as a Python function (results decoded)."""
    def fn(*args):
        r = _check_r(r_fn([_enc_item(a) for a in args]))
        return tuple(r[1]) if type(r) is list and r and r[0] == "__list__" else r
    return fn


_CHECKS = ("autograd_gradcheck", "autograd_gradgradcheck", "autograd_jacobian", "autograd_hessian",
           "autograd_vjp", "autograd_jvp")


@guarded
def gradcheck(what, r_fn, inputs, kwargs):
    """autograd_gradcheck / gradgradcheck / jacobian / hessian / vjp / jvp with an R function."""
    if what not in _CHECKS:
        raise ValueError(f"unknown check {what!r}")
    fn = getattr(checks, what)
    inputs = _dec(inputs)
    kwargs = {k: _dec(v) for k, v in (kwargs or {}).items()}
    if isinstance(inputs, list) and what not in ("autograd_gradcheck", "autograd_gradgradcheck"):
        inputs = tuple(inputs)
    return fn(_r_callable(r_callable(r_fn)), inputs, **kwargs)
