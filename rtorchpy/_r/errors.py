"""Errors of the R bridge (see ``rtorchpy/_r/__init__.py``): the exceptions it raises for R, and
error messages in R's terms (1-based dims and indices, R type names)."""
from __future__ import annotations

import re

from .protocol import ERROR_CLASS, ERROR_IN_R, ERROR_MESSAGE


class RCallbackError(Exception):
    """An R error raised inside an R function that Python called (a hook, or a custom function's
    forward or backward). The R side keeps the original condition and re-raises it."""


class RIndexError(IndexError):
    """An R-convention error raised before Python is reached (its text is R torch's)."""


class RNAError(ValueError):
    """An R ``NA`` where the bridge needs a value (a number, a dim, a flag, a string)."""


def na_message(name=None):
    what = f"'{name}'" if name else "an argument"
    return (f"{what} is NA: rtorchpy needs a value here (R's NA is not a number, a dim, a "
            "flag or a string; use NaN for a missing number in tensor data)")


ZERO_DIM = "Indexing starts at 1 but found a 0."
ZERO_INDEX = "Indexing in R is 1-based and found a 0."


def _shift(m, *groups, always=False):
    """Rebuild match ``m`` with the numbers in ``groups`` shifted by +1 (non-negative ones only,
    unless ``always``)."""
    s, out, last = m.string, [], m.start()
    for g in groups:
        v = int(m.group(g))
        out.append(s[last:m.start(g)])
        out.append(str(v + 1 if (always or v >= 0) else v))
        last = m.end(g)
    out.append(s[last:m.end()])
    return "".join(out)


_TRANSLATIONS = [
    (re.compile(r"Dimension out of range \(expected to be in range of \[-?\d+, (-?\d+)\], "
                r"but got (-?\d+)\)"), (1, 2), False),
    (re.compile(r"dimension (\d+) does not have size"), (1,), False),
    (re.compile(r"inputs dimension (\d+) must have length"), (1,), False),
    (re.compile(r"for tensor number (\d+) in the list"), (1,), False),
    (re.compile(r"Sizes of tensors must match except in dimension (\d+)"), (1,), False),
    (re.compile(r"Found an invalid max index: (\d+)"), (1,), False),
    (re.compile(r"index (-?\d+) out of range for tensor of size \[[^\]]*\] at dimension (\d+)"),
     (1, 2), False),
    (re.compile(r"Target (-?\d+) is out of bounds"), (1,), True),
    (re.compile(r"contracted dimensions.*?dim (\d+).*?dim (\d+)"), (1, 2), False),
    (re.compile(r"index (-?\d+) is out of bounds for dimension (\d+) with size"), (1, 2), False),
    (re.compile(r"Expected reduction dim (\d+) to have non-zero size"), (1,), False),
    (re.compile(r"selected number k out of range for dimension (\d+)"), (1,), False),
    (re.compile(r"don't multiply up to the size of dim (\d+) \("), (1,), False),
]


# Python type names in messages about an argument, as the R type of the value they came from
# (an R user never sees Python's types).
_R_TYPES = {"NoneType": "NULL", "str": "character", "float": "double", "int": "integer",
            "bool": "logical", "list": "list", "dict": "named list", "complex": "complex",
            "tuple": "list", "function": "function"}
_PY_NAMES = "NoneType|str|float|int|bool|list|dict|complex|tuple|function"
_TYPE_RULES = [
    # "can't convert an element of type str" -> "... an element of R type 'character'"
    (re.compile(rf"(element|value|argument|object) of (?:Python )?type '?({_PY_NAMES})\b'?"),
     lambda m: f"{m.group(1)} of R type '{_R_TYPES[m.group(2)]}'"),
    # an argument used as a tensor that is not one: "'str' object has no attribute '_data'"
    (re.compile(rf"'({_PY_NAMES})' object has no attribute '\w+'"),
     lambda m: f"expected a tensor, got an R value of type '{_R_TYPES[m.group(1)]}'"),
    (re.compile(rf"\bgot ({_PY_NAMES})\b"), lambda m: f"got R type '{_R_TYPES[m.group(1)]}'"),
    # "argument 'n' must be int, not NoneType"
    (re.compile(rf"must be ({_PY_NAMES}), not ({_PY_NAMES})\b"),
     lambda m: f"must be R type '{_R_TYPES[m.group(1)]}', not R type '{_R_TYPES[m.group(2)]}'"),
    # a flag given something else (the boundary's check, rtorchpy/ops/boundary.py)
    (re.compile(rf"must be bool, not ({_PY_NAMES})\b"),
     lambda m: f"must be TRUE or FALSE, not R type '{_R_TYPES[m.group(1)]}'"),
    # "has a value of type NoneType it cannot use" (the boundary's translation of an internal
    # error)
    (re.compile(rf"of type (None|{_PY_NAMES}) it cannot use"),
     lambda m: f"of R type '{_R_TYPES.get(m.group(1), 'NULL')}' it cannot use"),
    # the op's own check: "argument 'self' must be a Tensor, not NoneType"
    (re.compile(rf"must be a Tensor, not ({_PY_NAMES})\b"),
     lambda m: f"must be a tensor, not R type '{_R_TYPES[m.group(1)]}'"),
    # a required argument given as NULL (dropped on the way): R's own words
    (re.compile(r"\w+\(\) missing \d+ required (?:positional |keyword-only )?arguments?: "
                r"'(\w+)'(?:,? (?:and )?'\w+')*"),
     lambda m: f'argument "{m.group(1)}" is missing, with no default'),
    (re.compile(r"\w+\(\) got multiple values for argument '(\w+)'"),
     lambda m: f'formal argument "{m.group(1)}" matched by multiple actual arguments'),
    # any other "..., not NoneType" (the checks of nn_init_*, normal(), ...)
    (re.compile(rf", not ({_PY_NAMES})\b"), lambda m: f", not R type '{_R_TYPES[m.group(1)]}'"),
]
# R's NULL and the undefined tensor (what x$grad is before a backward computes it) both arrive
# in Python as None: a message about a NULL argument says so, since most such values in real
# programs are an undefined gradient rather than a NULL the user typed.
_UNDEFINED_NOTE = " (an undefined tensor, such as x$grad before any backward, counts as NULL)"


def translate_error(msg: str) -> str:
    """Dimension and index numbers in an error message, 1-based as R torch reports them; Python
    type names as the R types they came from."""
    for rx, groups, always in _TRANSLATIONS:
        def shifted(m: re.Match, g: tuple = groups, a: bool = always) -> str:
            return _shift(m, *g, always=a)
        msg = rx.sub(shifted, msg)
    translated = msg
    for rx, repl in _TYPE_RULES:
        translated = rx.sub(repl, translated)
    if ("NoneType" in msg or "type None " in msg) and "'NULL'" in translated and \
            _UNDEFINED_NOTE not in translated:
        translated += _UNDEFINED_NOTE
    return translated


# The R condition class each Python exception becomes (R torch's classes: code that catches
# `value_error` or tests `expect_error(..., class = "type_error")` behaves as with R torch). The
# R side adds the parents (an index_error is also a value_error) and "rtorchpy_error", "error".
_CONDITION_CLASSES = ((NotImplementedError, "not_implemented_error"),
                      (StopIteration, "stop_iteration_error"),
                      (TypeError, "type_error"),
                      (IndexError, "index_error"),
                      (KeyError, "index_error"),
                      (ValueError, "value_error"))


def condition_class(exc):
    """The R condition class of a Python exception (runtime_error when no other fits)."""
    for kind, name in _CONDITION_CLASSES:
        if isinstance(exc, kind):
            return name
    return "runtime_error"


def error_reply(message, cls, in_r=False):
    """The reply for an error: a dict whose fields C (``r-shim/src/pycall.c``) and R
    (``r-shim/R/bridge.R``) read by name (``protocol.ERROR_*``): the message, the R condition
    class, and whether it is an R error raised in an R callback (R then re-raises the condition
    it kept). A dict because reticulate, and C's conversion of replies, make it a named list:
    the only reply with names, which is how R tells it from the tagged lists."""
    return {ERROR_MESSAGE: message, ERROR_CLASS: cls, ERROR_IN_R: in_r}


def _err(exc):
    """The reply for an exception (:func:`error_reply`): its message in R's dims and types, and
    its condition class."""
    if isinstance(exc, RCallbackError):
        return error_reply(str(exc), "runtime_error", in_r=True)
    if isinstance(exc, RIndexError):
        return error_reply(str(exc.args[0]) if exc.args else "", "index_error")
    if isinstance(exc, KeyError) and exc.args:
        return error_reply(translate_error(str(exc.args[0])), "index_error")
    return error_reply(translate_error(str(exc)), condition_class(exc))
