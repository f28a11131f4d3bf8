"""Generators for R (``torch_generator()``, ``torch_get_rng_state()``... in
``r-shim/R/generator.R``): R holds a generator as an object handle inside an R6-like
environment, whose methods call these functions. Seeds cross as doubles (R has no 64-bit
integer): exact up to 2^53, which covers the seeds R code sets."""
from __future__ import annotations

from ..ops import random_state as _rs
from .handles import _dec, _get, guarded


def _seed(v):
    v = _dec(v)
    if isinstance(v, list) and len(v) == 1:
        v = v[0]
    return v


@guarded
def generator_new(seed=None):
    return _rs.torch_generator(None if seed is None else _seed(seed))


@guarded
def generator_current_seed(h):
    return float(_get(h).current_seed())


@guarded
def generator_set_current_seed(h, seed):
    _get(h).set_current_seed(_seed(seed))
    return None


@guarded
def generator_get_state(h=None):
    return (_rs._DEFAULT if h is None else _get(h)).get_state()


@guarded
def generator_set_state(h, state):
    (_rs._DEFAULT if h is None else _get(h)).set_state(_dec(state))
    return None


@guarded
def rng_manual_seed(seed):
    _rs.torch_manual_seed(_seed(seed))
    return None


@guarded
def rng_initial_seed():
    return float(_rs.torch_initial_seed())
