"""``torch_save`` / ``torch_load`` from R (part of the R bridge): R's (named) lists of tensors
cross as a tagged tree of unnamed lists, so that names survive the crossing and no R object
is kept by Python.

From R, a node is a tensor handle, ``["__named__", [names...], [nodes...]]`` (a named list:
a dict in the file), ``["__list__", [nodes...]]`` (an unnamed list) or a plain value. Back to
R, :func:`load` returns ``["v", node]`` where a node is ``["T", handle]``, ``["D", keys,
nodes]``, ``["L", nodes]`` or ``["V", value]``; the R side rebuilds named lists from it.

An R vector of several values (``betas = c(0.9, 0.999)``) is saved as a tuple and comes back as
a vector (``["U", values]``); a named list whose names repeat is saved as a dict of two entries,
its names and its values (``["N", names, nodes]`` back)."""
from __future__ import annotations

from .. import serialization
from ..tensor import Tensor
from .handles import Raw, _dec, _put, guarded

# the keys of the dict a named list with repeated names is saved as
DUP_NAMES, DUP_VALUES = "__r_names__", "__r_values__"


def _from_r(node):
    if type(node) is list and node and node[0] == "__named__":
        keys = node[1] if type(node[1]) is list else [node[1]]
        values = node[2]
        if len(keys) != len(values):
            raise ValueError("torch_save(): malformed named list")
        return {str(k): _from_r(v) for k, v in zip(keys, values)}
    if type(node) is list and node and node[0] == "__list__":
        return [_from_r(v) for v in node[1]]
    if type(node) is list and node and node[0] == "__vector__":  # an R vector: a tuple
        return tuple(node[1]) if type(node[1]) is list else (node[1],)
    if type(node) is list and node and node[0] == "__dupnamed__":
        # a named list whose names repeat: a dict of its names and values
        keys = node[1] if type(node[1]) is list else [node[1]]
        return {DUP_NAMES: [str(k) for k in keys], DUP_VALUES: [_from_r(v) for v in node[2]]}
    return _dec(node)


def _to_r(obj):
    if isinstance(obj, Tensor):
        return ["T", _put(obj)]
    if isinstance(obj, dict):
        if set(obj) == {DUP_NAMES, DUP_VALUES}:
            return ["N", list(obj[DUP_NAMES]), [_to_r(v) for v in obj[DUP_VALUES]]]
        return ["D", list(obj.keys()), [_to_r(v) for v in obj.values()]]
    if isinstance(obj, tuple) and obj and all(type(v) in (int, float, bool, str) for v in obj) \
            and len({type(v) for v in obj}) == 1:
        return ["U", list(obj)]  # (a vector in R)
    if isinstance(obj, (list, tuple)):
        return ["L", [_to_r(v) for v in obj]]
    if type(obj) is int and not -2147483647 <= obj <= 2147483647:
        return ["V", float(obj)]  # beyond R's 32-bit integers: a double (exact up to 2^53)
    return ["V", obj]


@guarded
def save(obj, path):
    serialization.torch_save(_from_r(obj), path)
    return None


@guarded
def load(path):
    return Raw(["v", _to_r(serialization.torch_load(path))])
