"""The R session's view of Python (part of the R bridge, see ``rtorchpy/_r/__init__.py``): Python warnings
shown as R warnings, and counts of live objects for R's leak tests."""
from __future__ import annotations

import gc
import warnings

from ..tensor import Tensor
from . import handles
from .handles import guarded

_python_showwarning = warnings.showwarning


def _collect(message, category, filename, lineno, file=None, line=None):
    """``warnings.showwarning`` while R drives Python: keep the message for R (the next reply
    carries a flag, see ``handles._put``) instead of printing it on stderr."""
    handles._WARNINGS.append(str(message))


def collect_warnings(on):
    """Route Python warnings to R (``on``) or back to Python's own display. Python's warning
    filters still decide which warnings are shown (by default once per place in the code)."""
    warnings.showwarning = _collect if on else _python_showwarning
    return None


def take_warnings():
    """The messages of the warnings collected since the last call (and forget them)."""
    out = list(handles._WARNINGS)
    handles._WARNINGS.clear()
    return out


@guarded
def live_counts():
    """``[registry entries, live Tensor objects]`` after a full Python collection: what a leak
    test counts (a leak of one tensor per iteration shows in both)."""
    gc.collect()
    tensors = sum(1 for o in gc.get_objects() if type(o) is Tensor)
    return [len(handles._OBJECTS) - 1, tensors]
