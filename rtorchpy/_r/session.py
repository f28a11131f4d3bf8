"""The R session's view of Python (part of the R bridge, see ``rtorchpy/_r/__init__.py``): Python
warnings shown as R warnings, and counts of live objects for R's leak tests."""
from __future__ import annotations

import gc
import warnings

from ..numerics.warn import route_to
from ..tensor import Tensor
from . import handles
from .handles import guarded

# what warnings.showwarning was when the collecting hook replaced it (None: the hook is not in)
_replaced = None


def _collect(message, category, filename, lineno, file=None, line=None):
    """``warnings.showwarning`` while R drives Python and its user asked for every Python
    warning: keep the message for R (the next reply carries a flag, see ``handles._put``)
    instead of printing it on stderr."""
    handles._WARNINGS.append(str(message))


def collect_warnings(on, everything=False):
    """Route warnings to R (``on``) or back to Python's own display. By default only this
    package's warnings (``numerics.warn``), so Python's global warning hook stays as it was;
    with ``everything``, every Python warning that passes Python's filters (R's
    ``options(rtorchpy.python_warnings = "all")``), by replacing ``warnings.showwarning``."""
    global _replaced
    route_to(handles._WARNINGS if on else None)
    # Python's hook is touched only when the collecting hook goes in or out, and what was there
    # before comes back (a hook the user set since Python started included)
    if on and everything:
        if warnings.showwarning is not _collect:
            _replaced = warnings.showwarning
            warnings.showwarning = _collect
    elif _replaced is not None:
        if warnings.showwarning is _collect:  # (a hook set over ours since stays)
            warnings.showwarning = _replaced
        _replaced = None
    return None


def take_warnings():
    """The messages of the warnings collected since the last call (and forget them)."""
    out = list(handles._WARNINGS)
    handles._WARNINGS.clear()
    return out


def tune_gc():
    """Python's cyclic collector, set for an R session: only when the R user asks for it
    (``options(rtorchpy.tune_python_gc = TRUE)``), since it changes a collector other packages
    in the same Python share.

    R frees its handles only when R's collector runs (every ~20,000 ops or more), so the tensors
    and graph nodes of intermediate results stay alive that long instead of dying young; with
    Python's default thresholds they are traversed again and again by the young generations'
    collections and pushed into the old ones (~17 % of Python's work in W6's chain, counted
    with callgrind). Two changes: the objects alive now (modules, the package's tables: never
    garbage) are frozen out of every later collection, and the youngest generation is collected
    every 50,000 allocations instead of 700 (larger thresholds set by the user are kept): about
    one collection per R collection's worth of ops. Cycles are still collected; only later.
    (Callgrind, W6's chain: Python's collector 123M instructions over 200 chains with the
    defaults, 69M frozen with 10,000, and the chain 6 % cheaper again with 50,000.)"""
    gc.collect()
    gc.freeze()
    t0, t1, t2 = gc.get_threshold()
    if t0 and t0 < 50000:
        gc.set_threshold(50000, t1, t2)
    return None


@guarded
def live_counts():
    """``[registry entries, live Tensor objects]`` after a full Python collection: what a leak
    test counts (a leak of one tensor per iteration shows in both)."""
    gc.collect()
    tensors = sum(1 for o in gc.get_objects() if type(o) is Tensor)
    return [len(handles._OBJECTS) - 1, tensors]
