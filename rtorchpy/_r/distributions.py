"""Distributions for R (``distr_*`` in ``r-shim/R/distributions.R``): R holds the Python
distribution object by handle, inside an R6-like environment whose methods and fields call
these three functions. Categorical values are 1-based in R: the R side shifts them."""
from __future__ import annotations

import numpy as np

from .. import distributions as _d
from ..distributions.base import Distribution
from ..distributions.constraints import Constraint
from ..tensor import Tensor
from .handles import Raw, _dec, _get, guarded

_METHODS = ("sample", "rsample", "log_prob", "cdf", "icdf", "entropy", "expand",
            "perplexity")
_SHAPE_ARG = ("sample", "rsample", "expand")


def _shape(v):
    v = _dec(v)
    if v is None:
        return ()
    if isinstance(v, Tensor):
        return tuple(int(s) for s in v.tolist())
    if isinstance(v, (list, tuple)):
        return tuple(int(s) for s in v)
    return (int(v),)


@guarded
def distr_new(name, kwargs):
    fn = getattr(_d, name, None)
    if fn is None or not name.startswith("distr_"):
        raise ValueError(f"unknown distribution {name!r}")
    kw = {k: _dec(v) for k, v in (kwargs or {}).items() if v is not None}
    if "validate_args" in kw:
        kw["validate_args"] = None if kw["validate_args"] is None else bool(kw["validate_args"])
    return fn(**kw)


@guarded
def distr_call(h, method, arg=None):
    d = _get(h)
    if not isinstance(d, Distribution) or method not in _METHODS:
        raise ValueError(f"not a distribution method: {method!r}")
    if method in _SHAPE_ARG:
        return getattr(d, method)(_shape(arg))
    if method in ("entropy", "perplexity"):
        return getattr(d, method)()
    return getattr(d, method)(_dec(arg))


@guarded
def distr_get(h, name):
    d = _get(h)
    if name in ("batch_shape", "event_shape"):
        return Raw(["v", [int(s) for s in getattr(d, name)]])
    if name == "class":
        return type(d).__name__
    if name == "params":
        return Raw(["v", [p for p in d.arg_constraints if p in d.__dict__ or
                          p in ("probs", "logits")]])
    if name == "has_rsample":
        return bool(d.has_rsample)
    v = getattr(d, name)
    return v


@guarded
def constraint_get(h, name):
    """A support's (constraint's) class name, printed form, ``event_dim``, ``is_discrete`` and
    bounds (``lower_bound``/``upper_bound``: None where it has none)."""
    c = _get(h)
    if not isinstance(c, Constraint):
        raise ValueError("not a constraint")
    if name == "class":
        return c.name.split("(", 1)[0]
    if name == "repr":
        return c.name
    if name in ("event_dim", "is_discrete"):
        return getattr(c, name)
    bound = {"lower_bound": "low", "upper_bound": "high"}.get(name)
    if bound is None:
        raise ValueError(f"a constraint has no field {name!r}")
    return getattr(c, bound, None)


@guarded
def constraint_check(h, value):
    """Which elements (events) of ``value`` satisfy the constraint: a bool tensor."""
    c = _get(h)
    if not isinstance(c, Constraint):
        raise ValueError("not a constraint")
    v = _dec(value)
    if not isinstance(v, Tensor):
        raise TypeError(f"value must be a tensor, not {type(v).__name__}")
    return Tensor._make(np.asarray(c.check(v), dtype=bool))
