"""Tensor attributes, grad mode, autograd entry points and R torch's ``torch_arange`` for the
R package (part of the R bridge, see ``rtorchpy/_r/__init__.py`` for the protocol): what ``x$grad``,
``x$requires_grad <- v``, ``with_no_grad()`` and friends call."""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd import api
from ..autograd import grad_mode as _gm
from ..ops.creation import torch_arange
from ..tensor import Tensor
from . import handles
from .errors import _err
from .handles import MAGIC, Raw, _dec, _enc, _get, _put, guarded, r_dim


def _node(n):
    return ["N", _put(n), n.name]


def get_attr(h, name):
    """``x$name`` for the attributes R torch exposes as active bindings."""
    try:
        t = _get(h)
        if name == "grad":
            g = t.grad
            return complex(0, MAGIC) if g is None else _put(g)
        if name == "requires_grad":
            return ["v", t.requires_grad]
        if name == "grad_fn":
            return ["v", None] if t.grad_fn is None else _node(t.grad_fn)
        if name == "is_leaf":
            return ["v", t.is_leaf]
        if name == "shape":
            return ["v", list(t.shape)]
        if name == "dtype":
            return _enc(t.dtype)
        if name == "ndim":
            return ["v", t.ndim]
        if name == "retains_grad":
            return ["v", t.retains_grad]
        if name == "version":
            return ["v", t._version[0]]
        raise AttributeError(f"no attribute '{name}'")
    except Exception as exc:  # noqa: BLE001
        return _err(exc)


@guarded
def set_requires_grad(h, flag):
    _get(h).requires_grad_(bool(flag))
    return None


@guarded
def set_grad(h, g):
    _get(h).grad = _dec(g) if g is not None else None
    return None


@guarded
def tensor_method(h, name, args, kwargs):
    """The Tensor methods that are not registered ops (size, numel, detach, backward, ...)."""
    t = _get(h)
    args = [_dec(a) for a in (args or [])]
    kwargs = {k: _dec(v) for k, v in (kwargs or {}).items()}
    if name in ("size", "stride"):
        dim = args[0] if args else kwargs.get("dim")
        method = t.size if name == "size" else t.stride
        return list(method()) if dim is None else method(r_dim(dim))
    if name == "backward":  # (libtorch's C++ backward(): the engine's shape rule)
        names = ("gradient", "retain_graph", "create_graph", "inputs")
        kw = dict(zip(names, args), **kwargs)
        g, inputs = kw.get("gradient"), kw.get("inputs")
        api.autograd_backward([t], None if g is None else [g], kw.get("retain_graph"),
                              kw.get("create_graph", False),
                              inputs=None if inputs is None else list(inputs) if isinstance(
                                  inputs, (list, tuple)) else [inputs],
                              engine_shapes=True)
        return None
    return getattr(t, name)(*args, **kwargs)


@guarded
def node_next_functions(h):
    return Raw(["L", [_node(n) if n is not None else ["N", complex(0, MAGIC), None]
                      for n, _ in _get(h).next_functions]])


# ----------------------------------------------------------------------------- grad mode

def grad_mode(flag):
    """``set_grad_mode`` with a bare bool as reply (R's with_no_grad() calls it twice); a
    ``flag`` that is not a bool or None is an error reply."""
    try:
        old = _gm.is_grad_enabled()
        if flag is not None:
            _gm.autograd_set_grad_mode(bool(flag))
        return old
    except Exception as exc:  # noqa: BLE001
        return _err(exc)


def backward(h, retain_graph, create_graph):
    """``x$backward()`` without gradient or inputs: a bare None (R's NULL: nothing to decode)
    unless warnings wait for R or it failed."""
    try:
        _get(h).backward(None, retain_graph, create_graph, None)
        return _enc(None) if handles._WARNINGS else None
    except Exception as exc:  # noqa: BLE001
        return _err(exc)


@guarded
def set_grad_mode(flag):
    old = _gm.is_grad_enabled()
    if flag is not None:
        _gm.autograd_set_grad_mode(bool(flag))
    return old


@guarded
def set_anomaly_mode(flag):
    old = _gm.is_anomaly_enabled()
    if flag is not None:
        _gm.autograd_set_detect_anomaly(bool(flag))
    return old


def _tensor_list(x):
    """R's tensors / list of tensors (NULL entries meaning undefined) as a Python list."""
    if x is None:
        return None
    x = _dec(x)
    return [x] if isinstance(x, Tensor) else list(x)


@guarded
def autograd_backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
                      inputs=None):
    api.autograd_backward(_tensor_list(tensors), _tensor_list(grad_tensors), retain_graph,
                          bool(create_graph), inputs=_tensor_list(inputs), engine_shapes=True)
    return None


@guarded
def autograd_grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
                  allow_unused=False):
    # R torch goes through libtorch's C++ grad(): the engine sums or refuses grad_outputs' shapes
    return list(api.autograd_grad(
        _tensor_list(outputs), _tensor_list(inputs), _tensor_list(grad_outputs), retain_graph,
        bool(create_graph), bool(allow_unused), check_grad_shapes=False))


# ----------------------------------------------------------------------------- creation

@guarded
def arange(start, end, step, dtype=None, all_integer=False, requires_grad=False):
    """R torch's torch_arange: the end is inclusive (``torch_arange(1, 3)`` is 1, 2, 3)."""
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dtype is None and all_integer:
        target = np.dtype(np.int64)
    else:
        target = _dt.as_dtype(dtype).numpy if dtype is not None else \
            _dt.torch_get_default_dtype().numpy
    if target.kind in "iub":
        stop = end + (1 if step > 0 else -1)
        if all_integer or (float(start).is_integer() and float(step).is_integer()):
            start, stop, step = int(start), int(stop), int(step)
    else:
        # one representable float beyond end, as R torch does with torch_nextafter
        f = np.dtype(np.float32) if target.itemsize <= 4 else np.dtype(np.float64)
        stop = float(np.nextafter(f.type(end), f.type(np.inf if step > 0 else -np.inf)))
    return torch_arange(start, stop, step, dtype=_dt.from_numpy_dtype(target),
                                 requires_grad=bool(requires_grad))
