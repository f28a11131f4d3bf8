"""The package's own warnings, in one place so that the R bridge can take them without
touching Python's global warning machinery.

Python code sees ordinary ``warnings.warn`` warnings (filters, ``catch_warnings``, pytest's
capture all apply). While R drives Python, the bridge gives a list (:func:`route_to`) and the
messages go there instead; each reply then tells R to raise them as R warnings. Replacing
``warnings.showwarning`` would have done the same for every warning of the process, including
other packages' in a Python that R shares with them; the R package does that only when its user
asks for every Python warning (``options(rtorchpy.python_warnings = "all")``)."""
from __future__ import annotations

import warnings

_sink: list | None = None


def warn(message, category=UserWarning, stacklevel=1):
    """``warnings.warn(message, category, stacklevel)`` from the caller's point of view, or the
    message kept for R while the bridge collects."""
    if _sink is not None:
        _sink.append(str(message))
        return
    warnings.warn(message, category, stacklevel=stacklevel + 1)


def route_to(sink):
    """Send the package's warnings to the list ``sink`` (None: back to Python's warnings)."""
    global _sink
    _sink = sink
