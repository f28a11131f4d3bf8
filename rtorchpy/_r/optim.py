"""The built-in optimizers for R (``optim_adam(...)`` and friends in ``r-shim/R/optim.R``): one
crossing per call. R holds the optimizer as an object handle; parameter groups, options and
state dicts cross as plain lists whose tensors are handles. Parameter indices in state dicts
are 1-based, as R torch's. Optimizers written in R (``optimizer()``) and the learning-rate
schedulers are pure R and use none of this."""
from __future__ import annotations

import copy

from .. import optim as _optim
from ..optim.optimizer import _Required
from ..tensor import Tensor
from .errors import RCallbackError
from .handles import Raw, _dec, _get, _put, guarded
from .callbacks import _check_r, r_callable

_BUILTIN = ("optim_sgd", "optim_adam", "optim_adamw", "optim_rmsprop", "optim_adagrad",
            "optim_adadelta", "optim_lbfgs", "optim_rprop", "optim_asgd")


def _option(value):
    """An option value from R: a vector (a Python list) of numbers becomes a tuple (betas)."""
    if isinstance(value, list) and value and all(isinstance(v, (int, float)) and
                                                 not isinstance(v, bool) for v in value):
        return tuple(value)
    return value


def _group(g):
    """One R parameter group (a named list, not yet decoded) as a dict of Python values."""
    if not isinstance(g, dict):
        raise TypeError("a parameter group must be a named list with an entry 'params'")
    return {k: (_dec(v) if k == "params" else _option(_dec(v))) for k, v in g.items()}


def _params(params):
    """R's params (a tensor, a list of tensors, or a list of named lists) as Python's."""
    if isinstance(params, list) and params and isinstance(params[0], dict):
        return [_group(g) for g in params]
    if isinstance(params, list) and any(isinstance(p, dict) for p in params):
        raise TypeError("params must be a list of tensors or a list of parameter groups (named "
                        "lists), not a mix of both")
    return _dec(params)


@guarded
def optim_new(name, params, kwargs):
    """``optim_<name>(params, ...)``: a new optimizer (its handle)."""
    if name not in _BUILTIN:
        raise ValueError(f"unknown optimizer {name!r}")
    kwargs = {k: _option(_dec(v)) for k, v in (kwargs or {}).items()}
    return getattr(_optim, name)(_params(params), **kwargs)


@guarded
def optim_zero_grad(h, set_to_none=False):
    _get(h).zero_grad(set_to_none=bool(set_to_none))
    return None


def _r_closure(r_fn):
    """An R closure (no arguments, returns the loss tensor's handle) as a Python function."""
    def closure():
        r = _check_r(r_fn())
        if not isinstance(r, Tensor):
            raise TypeError("the closure must return the loss (a tensor)")
        return r
    return closure


# The R function that runs the closure of the opt$step(closure) in progress (R keeps a stack
# of them): set once, so a step with a closure crosses like one without (no R function is
# converted per step) and Python never holds the user's closure.
_DISPATCH = [None]


@guarded
def optim_set_dispatch(r_fn):
    _DISPATCH[0] = r_callable(r_fn)
    return None


@guarded
def optim_step(h, r_fn=None):
    """``opt$step(closure)``: the closure's loss (a tensor) or NULL. ``r_fn`` is None (no
    closure), True (R's closure stack, through the dispatcher) or an R function."""
    opt = _get(h)
    if r_fn is True:
        if _DISPATCH[0] is None:
            raise RuntimeError("the R closure dispatcher is not set")
        r_fn = _DISPATCH[0]
    loss = opt.step() if r_fn is None else opt.step(_r_closure(r_callable(r_fn)))
    return loss


def _enc_tree(v):
    """A Python value for R: tensors as handles, dicts as ["__dict__", keys, values], lists as
    ["__list__", items] (R lists), tuples as plain lists (R vectors)."""
    if isinstance(v, Tensor):
        return _put(v)
    if isinstance(v, _Required):
        return ["__required__"]
    if isinstance(v, dict):
        return ["__dict__", [str(k) for k in v], [_enc_tree(x) for x in v.values()]]
    if isinstance(v, list):  # stays a list in R
        return ["__list__", [_enc_tree(x) for x in v]]
    if isinstance(v, tuple):  # a vector in R (betas)
        return [_enc_tree(x) for x in v]
    if hasattr(v, "item") and not isinstance(v, (int, float, str, bool)):
        return v.item()
    return v


@guarded
def optim_groups(h):
    """The parameter groups: a list of [names, values]; ``params`` a list of handles."""
    out = []
    for g in _get(h).param_groups:
        names = list(g)
        out.append([names, [_enc_tree(g[k]) for k in names]])
    return Raw(["v", out])


@guarded
def optim_defaults(h):
    d = _get(h).defaults
    names = list(d)
    return Raw(["v", [names, [_enc_tree(d[k]) for k in names]]])


@guarded
def optim_set_groups(h, groups):
    """``opt$param_groups <- value``: replace the groups; all are checked (as
    ``add_param_group`` does) before any is changed."""
    opt = _get(h)
    if not isinstance(groups, list) or not groups:
        raise ValueError("param_groups must be a non-empty list of parameter groups")
    trial = copy.copy(opt)
    trial.param_groups = []
    for g in groups:
        g = _group(g)
        if "params" not in g:
            raise ValueError("param group has no 'params' entry")
        trial.add_param_group(g)
    opt.param_groups = trial.param_groups
    if hasattr(opt, "_params"):  # L-BFGS keeps its single group's parameters
        opt._params = opt.param_groups[0]["params"]
    return None


@guarded
def optim_add_param_group(h, group):
    _get(h).add_param_group(_group(group))
    return None


@guarded
def optim_state_dict(h):
    """R torch's layout: ``state`` as [names "1", "2", ... (1-based indices), values] and
    ``param_groups`` as a list of [names, values] with ``params`` 1-based indices."""
    sd = _get(h).state_dict()
    keys = list(sd["state"])
    state = [[str(k + 1) for k in keys], [_enc_tree(sd["state"][k]) for k in keys]]
    groups = []
    for g in sd["param_groups"]:
        g = dict(g)
        g["params"] = [i + 1 for i in g["params"]]
        names = list(g)
        groups.append([names, [_enc_tree(g[k]) for k in names]])
    return Raw(["v", [state, groups]])


_COUNTS = ("step", "func_evals", "n_iter")


def _dec_state(v):
    """A parameter's state from R: handles become tensors; counts (R doubles) ints again."""
    v = _dec(v)
    if isinstance(v, dict):
        return {k: int(x) if k in _COUNTS and isinstance(x, float) and x.is_integer() else x
                for k, x in v.items()}
    return v


@guarded
def optim_load_state_dict(h, state, groups):
    """Load R's state dict (see :func:`optim_state_dict`); the optimizer is unchanged on error."""
    if state is None:
        state = {}
    if not isinstance(state, dict):
        if isinstance(state, list) and not state:
            state = {}
        else:
            raise ValueError("the state dict's 'state' entry must be a named list (names are "
                             "the parameters' indices)")
    py_state = {}
    for k, v in state.items():
        try:
            idx = int(k) - 1
        except ValueError:
            raise ValueError(f"the state dict's 'state' has a name that is not a parameter "
                             f"index: {k!r}") from None
        py_state[idx] = _dec_state(v)
    if not isinstance(groups, list):
        raise ValueError("the state dict's 'param_groups' entry must be a list")
    py_groups = []
    for i, g in enumerate(groups):
        if not isinstance(g, dict) or "params" not in g:
            raise ValueError(f"loaded parameter group {i + 1} is not a named list with 'params'")
        g = {k: _option(_dec(v)) for k, v in g.items()}
        p = g["params"]
        p = list(p) if isinstance(p, (list, tuple)) else [p]
        g["params"] = [int(x) - 1 for x in p]
        py_groups.append(g)
    _get(h).load_state_dict({"state": py_state, "param_groups": py_groups})
    return None


@guarded
def optim_repr(h):
    return repr(_get(h))


__all__ = ["optim_new", "optim_zero_grad", "optim_step", "optim_set_dispatch", "optim_groups",
           "optim_defaults", "optim_set_groups", "optim_add_param_group", "optim_state_dict",
           "optim_load_state_dict", "optim_repr", "RCallbackError"]
