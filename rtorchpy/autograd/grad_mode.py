"""Grad mode and anomaly mode, one flag each per thread (as in PyTorch and Chainer).

The flags live in a ``threading.local`` subclass with class-level defaults, so a new thread
starts with grad mode on and reading the flag is a plain attribute lookup (this sits on the
hot path of every op).
"""
from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from ..numerics.args import flag
from ..numerics.warn import warn

__all__ = [
    "is_grad_enabled", "autograd_set_grad_mode", "with_no_grad", "with_enable_grad",
    "set_grad_enabled", "with_detect_anomaly", "is_anomaly_enabled", "autograd_set_detect_anomaly",
]


class _ThreadState(threading.local):
    grad_enabled = True
    anomaly_enabled = False
    # Grad mode off while a dual level is open: forward AD still computes tangents (as in
    # PyTorch, no_grad does not stop them). Ops take their recording path only when
    # ``grad_enabled`` holds, so it stays True then and this flag says "tangents only, no
    # node": record_dual builds none, is_grad_enabled() answers False.
    fw_only = False


STATE = _ThreadState()

if TYPE_CHECKING:  # (ParamSpec is Python 3.10's; annotations are not evaluated at run time)
    from typing import ParamSpec
    P = ParamSpec("P")  # a decorated function keeps its signature
R = TypeVar("R")

# True once any thread has turned anomaly mode on: recording checks this plain flag before the
# thread's own (a thread-local lookup on every recorded op costs more than the flag)
ANOMALY_USED = [False]

# The forward-AD level in use (``autograd/forward_ad.py``): 0 when no dual level is open, or
# while a tangent rule runs (rules compute with plain ops). A list, read on every recorded op.
FORWARD_AD = [0]
# The open dual level (0: none), also while a rule runs.
DUAL_OPEN = [0]


def set_mode(enabled: bool) -> None:
    """Set this thread's grad mode; off while a dual level is open means "tangents only"."""
    if not enabled and DUAL_OPEN[0]:
        STATE.grad_enabled, STATE.fw_only = True, True
    else:
        STATE.grad_enabled, STATE.fw_only = bool(enabled), False


def get_mode() -> tuple[bool, bool]:
    """The state :func:`set_mode` changes, to restore later with :func:`restore_mode`."""
    return STATE.grad_enabled, STATE.fw_only


def restore_mode(saved: tuple[bool, bool]) -> None:
    STATE.grad_enabled, STATE.fw_only = saved


def _set_anomaly(enabled: bool) -> None:
    if enabled:
        ANOMALY_USED[0] = True
    STATE.anomaly_enabled = enabled


def is_grad_enabled() -> bool:
    """Whether ops record history in this thread."""
    return STATE.grad_enabled and not STATE.fw_only


def autograd_set_grad_mode(enabled: bool) -> None:
    """Set grad mode for this thread until changed again (nothing restores it)."""
    set_mode(flag(enabled, "enabled", "autograd_set_grad_mode"))


class _ModeSetter:
    """Sets a flag on enter and restores the previous value on exit, error or not.

    Usable as ``with with_no_grad():`` and as a decorator ``@with_no_grad()`` (or bare
    ``@with_no_grad``). Each ``with`` entry saves its own previous value, so one instance can be
    nested or reused.
    """

    _value = True
    _saved: list[tuple[bool, bool]]  # grad mode before each open `with` (set in __new__)

    def __new__(cls, func: Callable | None = None) -> Any:  # (an instance, or func wrapped)
        self = super().__new__(cls)
        self._saved = []
        if callable(func):  # bare decorator: @with_no_grad
            return self(func)
        return self

    def __init__(self, func: Callable | None = None) -> None:
        pass

    def __enter__(self) -> _ModeSetter:
        self._saved.append(get_mode())
        set_mode(self._value)
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        restore_mode(self._saved.pop())
        return False

    def __call__(self, func: Callable[P, R]) -> Callable[P, R]:
        cls = type(self)

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            with cls():
                return func(*args, **kwargs)

        return wrapper


class with_no_grad(_ModeSetter):
    """Disable gradient recording inside the block (``with with_no_grad(): ...``)."""

    _value = False


class with_enable_grad(_ModeSetter):
    """Enable gradient recording inside the block, even inside ``with_no_grad``."""

    _value = True


class set_grad_enabled(_ModeSetter):
    """``with set_grad_enabled(flag):`` sets grad mode to ``flag`` for the block."""

    def __new__(cls, mode: bool) -> set_grad_enabled:
        self = object.__new__(cls)
        self._saved = []
        self._value = flag(mode, "mode", "set_grad_enabled")
        return self

    def __init__(self, mode: bool) -> None:
        pass

    def __call__(self, func: Callable[P, R]) -> Callable[P, R]:
        mode = self._value

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            with set_grad_enabled(mode):
                return func(*args, **kwargs)

        return wrapper


ANOMALY_WARNING = ("This mode should be enabled only for debugging as the different tests will "
                   "slow down your program execution.")


def is_anomaly_enabled() -> bool:
    return STATE.anomaly_enabled


def autograd_set_detect_anomaly(enabled: bool) -> None:
    _set_anomaly(flag(enabled, "enabled", "autograd_set_detect_anomaly"))


class with_detect_anomaly:
    """Anomaly detection for the block: nodes remember the stack that created them, and a
    backward that fails or produces NaN names the forward op and shows where it was created.
    Warns on entry, as R torch does."""

    def __init__(self, enabled: bool = True) -> None:
        self._enabled = flag(enabled, "enabled", "with_detect_anomaly")
        self._saved: list[bool] = []

    def __enter__(self) -> with_detect_anomaly:
        warn(ANOMALY_WARNING, UserWarning, stacklevel=2)
        self._saved.append(STATE.anomaly_enabled)
        _set_anomaly(self._enabled)
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        _set_anomaly(self._saved.pop())
        return False
