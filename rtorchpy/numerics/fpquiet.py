"""Floating-point exceptions switched off around the package's own NumPy work, and nowhere else.

libtorch gives inf and nan results silently (``log(0)``, ``0 / 0``, an overflowing ``exp``);
NumPy warns about each (``RuntimeWarning: divide by zero encountered in log``). The package used
to silence those with an entry in ``warnings.filters`` added on import, which changed the whole
process's warning filters (and reset every module's once-per-location warning registry).
Instead, :func:`quiet_fp` sets NumPy's error state to "ignore" for the duration of one call of a
function of ours (an op, a public function, a backward pass) and puts back whatever the caller
had: the user's own NumPy code keeps its settings, even in the same thread.

``np.errstate`` does this but costs ~2.5 us a call with NumPy 2 and ~9 us with NumPy 1, more
than many ops; :func:`fp_off` and :func:`fp_restore` set NumPy's per-context (NumPy 2) or
per-thread (NumPy 1) error state directly, for ~0.2 us (~0.5 us with NumPy 1); the ops'
generated fronts (``ops/bf16.py``) and the public wrapper (``ops/boundary.py``) call them
inline. If neither is available (a NumPy that moved them), ``np.errstate`` is the fallback:
slower, same behaviour.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

_VAR: Any = None
try:  # NumPy >= 2: the error state is a context variable (what np.errstate sets)
    from numpy._core import _ufunc_config
    _VAR = _ufunc_config._extobj_contextvar  # type: ignore[attr-defined]
    with np.errstate(all="ignore"):
        _IGNORE = _VAR.get()
except (ImportError, AttributeError):  # pragma: no cover (NumPy 1, or a NumPy that moved it)
    _VAR = None
# NumPy 1: [buffer size, error mask, callback] per thread; mask 0 ignores every kind
_GETERROBJ = getattr(np, "geterrobj", None) if _VAR is None else None
_SETERROBJ = getattr(np, "seterrobj", None) if _VAR is None else None


def _off_numpy1():  # pragma: no cover (NumPy 1)
    old = _GETERROBJ()
    _SETERROBJ([old[0], 0, old[2]])
    return old


def _off_errstate():  # pragma: no cover
    state = np.errstate(all="ignore")
    state.__enter__()
    return state


def _restore_errstate(state):  # pragma: no cover
    state.__exit__(None, None, None)


# fp_off(): NumPy's floating-point errors ignored from now on; returns the token fp_restore takes
# to put the caller's state back (call it in a `finally`).
fp_off: Callable[[], Any]
fp_restore: Callable[[Any], Any]
if _VAR is not None:
    fp_off = functools.partial(_VAR.set, _IGNORE)
    fp_restore = _VAR.reset
elif _GETERROBJ is not None and _SETERROBJ is not None:  # pragma: no cover (NumPy 1)
    fp_off, fp_restore = _off_numpy1, _SETERROBJ
else:  # pragma: no cover
    fp_off, fp_restore = _off_errstate, _restore_errstate


def quiet_fp(fn):
    """``fn`` run with NumPy's floating-point errors ignored (the caller's state restored)."""
    if getattr(fn, "__fp_quiet__", False):
        return fn
    off, restore = fp_off, fp_restore

    @functools.wraps(fn)
    def call(*args, **kwargs):
        token = off()
        try:
            return fn(*args, **kwargs)
        finally:
            restore(token)
    call.__fp_quiet__ = True  # (a marker attribute)
    return call
