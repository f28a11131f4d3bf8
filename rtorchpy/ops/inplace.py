"""In-place ops (``x.add_(y)``, ``x[0] = v``, ``x.zero_()``, ...), all through :func:`inplace`.

One mechanism for all of them:
* refuse what libtorch refuses (a leaf that requires grad, in grad mode) before touching data;
* when the op must be recorded, compute the out-of-place op on a snapshot of ``self`` (so values
  saved for backward stay intact), write the result into ``self``'s storage and make ``self`` an
  output of the new node — its history is rebased, as libtorch does;
* on a view, the op's node is wrapped in a CopySlices that becomes the base's grad_fn (see
  ``autograd/views.py``);
* otherwise write straight into the storage (the SGD update under ``with_no_grad``);
* bump the version counter, shared with views, so stale saved values are detected.
"""
from __future__ import annotations

import weakref

import numpy as np

from ..autograd.grad_mode import FORWARD_AD, STATE, with_no_grad
from ..autograd.graph import bump_version
from ..autograd.record import edge_of, record
from ..autograd.rows import NODES
from ..autograd.views import (
    OVERLAP_ERROR,
    CopySlices,
    gained_grad,
    make_node,
    overlaps,
    regenerate,
    view_positions,
)
from ..numerics.args import INT64_MAX, INT64_MIN
from ..numerics import draws
from ..numerics.format import type_word_for
from ..numerics.shape_errors import shape_error
from ..tensor import Tensor
from . import arith, elementwise
from . import index as index_ops
from .boundary import VMAP, inplace_error
from .creation import random_integers
from .random_state import engine, lay_out, normal_array, uniform_array
from .bf16 import bf16_aware
from .registry import as_tensor, op, recording


def _write(self, data, uniform=False):
    """Store ``data`` (broadcast) in ``self``'s memory. ``uniform``: every element gets the same
    value (fill_, zero_), which libtorch writes even into memory that several elements share."""
    target = self._data
    if not np.can_cast(data.dtype, target.dtype, casting="same_kind"):
        raise RuntimeError(f"result type {_word(data.dtype)} can't be cast to the desired output "
                           f"type {_word(target.dtype)}")
    if data.shape != target.shape:
        try:
            data = np.broadcast_to(data, target.shape)
        except ValueError:
            raise RuntimeError(f"output with shape {list(target.shape)} doesn't match the "
                               f"broadcast shape {list(data.shape)}") from None
    if not target.flags.writeable:  # a view of NumPy's read-only broadcast (expanded) memory
        base = self._base._data if self._base is not None else None
        if base is None or not base.flags.writeable or (overlaps(target) and not uniform):
            raise RuntimeError(OVERLAP_ERROR)
        # libtorch writes where no two elements of the view share memory (x.expand(3)[0]), or
        # the same value everywhere: so do we, through the base's memory at the view's positions
        base.flat[view_positions(base, target)] = data.astype(target.dtype, copy=False)
        return
    np.copyto(target, data, casting="unsafe")


def _write_uniform(self, data):
    return _write(self, data, uniform=True)


def _word(dt):
    return type_word_for(dt)


def inplace(self, compute, *others, write=_write):
    """Apply ``compute(t) -> Tensor`` to ``self`` in place; ``others`` are the op's tensor args,
    ``write(self, array)`` stores the result."""
    self._check_inplace(others)
    tensors = [o for o in others if isinstance(o, Tensor)]
    record = STATE.grad_enabled and (self._requires_grad or any(o._requires_grad for o in tensors)
                                     or any(gained_grad(t) for t in (self, *tensors)))
    if record and self._base is not None:
        # writing through a view rewrites its base's history (CopySlices, see autograd/views.py)
        inplace_on_view(self, compute, write)
    elif record:
        old_fn, old_nr = self._grad_fn, self._output_nr
        snapshot = Tensor._make(self._data.copy(), self._grad_fn, self._output_nr)
        snapshot._requires_grad = self._requires_grad
        snapshot._fw = self._fw  # forward AD: the op's tangent rule sees self's tangent
        result = compute(snapshot)
        write(self, result._data)
        if FORWARD_AD[0]:
            self._fw = result._fw
        if result._grad_fn is not None:
            node = result._grad_fn
            self._grad_fn, self._output_nr, self._requires_grad = node, 0, True
            if self._retains_grad:
                # the gradient is retained where the tensor now sits in the graph, only there
                if old_fn is not None and old_fn.extras is not None and old_fn.extras.retained:
                    old_fn.extras.retained.pop(old_nr, None)
                extras = node.extras_()
                if extras.retained is None:
                    extras.retained = {}
                extras.retained[0] = weakref.ref(self)
    else:
        with with_no_grad():
            result = compute(self)
        write(self, result._data)
    bump_version(self)
    return self


def _direct(self, ufunc, other, alpha):
    """The no-graph fast path of add_/sub_/mul_/div_: the ufunc writes into ``self``'s storage
    (the SGD update ``p.sub_(lr * p.grad)`` then costs what NumPy's ``p -= lr * g`` costs).
    Returns None when the general path is needed (recording, casting, broadcasting ``self``)."""
    data = self._data
    if data.dtype.kind != "f" or not data.flags.writeable:
        return None
    if type(other) is Tensor:
        y = other._data
        if y.dtype != data.dtype or (y.shape != data.shape and y.ndim) or \
                (STATE.grad_enabled and (self._requires_grad or other._requires_grad
                                         or gained_grad(self, other))):
            return None
    elif type(other) is float or type(other) is int:
        if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
            return None
        y = other
    else:
        return None
    self._check_inplace()
    ufunc(data, y if alpha == 1 else y * alpha, out=data)
    bump_version(self)
    return self


def _direct_operands(ufunc, args, kwargs):
    """``(other, alpha)`` of an add_/sub_/mul_/div_ call that :func:`_direct` may take, or None.
    ``alpha`` (add_ and sub_ only) may come by position too: the R package passes its default,
    1, that way."""
    if len(args) == 1 and not kwargs:
        return args[0], 1
    if ufunc is not np.add and ufunc is not np.subtract:
        return None
    if len(args) == 2 and not kwargs:
        other, alpha = args
    elif len(args) == 1 and kwargs.keys() == {"alpha"}:
        other, alpha = args[0], kwargs["alpha"]
    else:
        return None
    ok = isinstance(alpha, (int, float)) and not isinstance(alpha, bool)
    return (other, alpha) if ok else None


def _inplace_op(name, fn, doc, ufunc=None):
    def method(self, *args, **kwargs):
        operands = None if ufunc is None else _direct_operands(ufunc, args, kwargs)
        if operands is not None:
            done = _direct(self, ufunc, *operands)
            if done is not None:
                return done
        tensors = [a for a in args if isinstance(a, Tensor)] + \
                  [v for v in kwargs.values() if isinstance(v, Tensor)]
        return inplace(self, lambda t: fn(t, *args, **kwargs), *tensors)
    method.__name__ = name
    method.__doc__ = doc
    return op(name, namespace=False)(method)


add_ = _inplace_op("add_", arith.add, "In-place ``self += alpha * other``; returns self.",
                     np.add)
sub_ = _inplace_op("sub_", arith.sub, "In-place ``self -= alpha * other``; returns self.",
                     np.subtract)
mul_ = _inplace_op("mul_", arith.mul, "In-place ``self *= other``; returns self.",
                     np.multiply)
div_ = _inplace_op("div_", arith.div, "In-place ``self /= other``; returns self.",
                     np.true_divide)
pow_ = _inplace_op("pow_", arith.pow, "In-place ``self **= exponent``; returns self.")
clamp_ = _inplace_op("clamp_", elementwise.clamp, "In-place clamp to [min, max]; returns self.")
relu_ = _inplace_op("relu_", elementwise.relu, "In-place relu; returns self.")
exp_ = _inplace_op("exp_", elementwise.exp, "In-place exp; returns self.")
neg_ = _inplace_op("neg_", arith.neg, "In-place negation; returns self.")
masked_fill_ = _inplace_op("masked_fill_", index_ops.masked_fill,
                           "In-place masked_fill; returns self.")


def _copy_from(t, src, data=None):
    """``data``: ``src``'s values already fitted to ``t`` (``x[...] = v``), else ``src``'s."""
    try:
        data = np.broadcast_to(src._data if data is None else data, t._data.shape).astype(
            t._data.dtype)
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, t._data.shape, src._data.shape) from None
    out = Tensor._make(np.array(data))
    if recording(t, src):
        record(NODES["CopyBackwards"], (t, src), (out,))
    return out


@op("copy_", namespace=False)
def copy_(self, src):
    """Copy ``src``'s values into ``self`` (broadcasting, casting); returns self."""
    src = as_tensor(src)
    data = _unrecorded(self, src)
    if data is not None and src._data.shape == data.shape:
        # (NumPy copies src first when the two share memory, as the general path does; other
        # shapes take the general path, which broadcasts or names the mismatch)
        np.copyto(data, src._data, casting="unsafe")
        bump_version(self)
        return self
    return inplace(self, lambda t: _copy_from(t, src), src)


def _filled(t, value, node_name):
    out = Tensor._make(np.full(t._data.shape, value, dtype=t._data.dtype))
    if recording(t):
        record(NODES[node_name], (t,), (out,))
    return out


def _unrecorded(self, *others):
    """``self``'s array when an in-place write needs no node and may go straight into its memory
    (``x.grad.zero_()`` between steps, ``copy_()`` under ``with_no_grad``); else None, and the op
    takes the general path of :func:`inplace`, which also gives the errors."""
    data = self._data
    if not data.flags.writeable:  # (expanded memory: the general path decides)
        return None
    if STATE.grad_enabled and (self._requires_grad or any(o._requires_grad for o in others)
                               or any(gained_grad(t) for t in (self, *others))):
        return None
    self._check_inplace()
    return data


@op("fill_", namespace=False)
def fill_(self, value):
    """Set every element to ``value``; returns self."""
    if isinstance(value, Tensor):
        value = value.item()
    if self._data.dtype.kind in "iu" and type(value) is int and \
            not INT64_MIN <= value <= INT64_MAX:  # (NumPy 1 would wrap it around)
        raise RuntimeError(f"value cannot be converted to type int64 without overflow: {value}")
    data = _unrecorded(self)
    if data is None:
        return inplace(self, lambda t: _filled(t, value, "FillBackward0"), write=_write_uniform)
    np.copyto(data, value, casting="unsafe")  # (what np.full, the general path, does)
    bump_version(self)
    return self


@op("zero_", namespace=False)
def zero_(self):
    """Set every element to 0; returns self."""
    data = _unrecorded(self)
    if data is None:
        return inplace(self, lambda t: _filled(t, 0, "ZeroBackward0"), write=_write_uniform)
    np.copyto(data, 0, casting="unsafe")
    bump_version(self)
    return self


def _float_kernel(self, kernel):
    if self._data.dtype.kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{type_word_for(self._data.dtype)}'")


def _number(v, name):
    if isinstance(v, Tensor):
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, not {type(v).__name__}")
    return v


@op("uniform_", namespace=False)
def uniform_(self, from_=0.0, to=1.0, generator=None):
    """Fill with values drawn uniformly from [from, to) (libtorch's for the same seed); returns
    self. (``from_``: PyTorch's and R torch's ``from``, a Python keyword; R's partial matching
    takes ``from =``.)"""
    self._check_inplace()
    a, b = float(_number(from_, "from")), float(_number(to, "to"))
    _float_kernel(self, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a:g}"
                           f" > to={b:g}")
    values = uniform_array(self._data, a, b, generator)
    return inplace(self, lambda t: _filled_values(t, values))


@op("normal_", namespace=False)
def normal_(self, mean=0.0, std=1.0, generator=None):
    """Fill with normal draws of the given mean and std (libtorch's for the same seed);
    returns self."""
    self._check_inplace()
    mean, std = float(_number(mean, "mean")), float(_number(std, "std"))
    _float_kernel(self, "normal_kernel_cpu")
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    values = normal_array(self._data, mean, std, generator)
    return inplace(self, lambda t: _filled_values(t, values))


@op("exponential_", namespace=False)
def exponential_(self, lambd=1.0, generator=None):
    """Fill with exponential draws of rate ``lambd`` (libtorch's for the same seed); returns
    self."""
    self._check_inplace()
    lambd = float(_number(lambd, "lambd"))
    _float_kernel(self, "exponential_cpu")
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    flat = draws.exponential(engine(generator), self._data.size, lambd)
    values = lay_out(flat.astype(self._data.dtype), self._data)
    return inplace(self, lambda t: _filled_values(t, values))


@op("bernoulli_", namespace=False)
def bernoulli_(self, p=0.5, generator=None):
    """Fill with 0/1 draws, 1 with probability ``p``: a number, or a tensor of probabilities
    broadcast to ``self``'s shape (float32 probabilities draw float32 uniforms, others float64
    ones, as libtorch); returns self."""
    self._check_inplace()
    gen = engine(generator)
    shape = self._data.shape
    if isinstance(p, Tensor):
        probs = p._data
        if probs.dtype.kind != "f":
            raise NotImplementedError(f'"bernoulli_tensor_cpu_p_" not implemented for '
                                      f"'{type_word_for(probs.dtype)}'")
        if not np.all((probs >= 0) & (probs <= 1)):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        try:
            probs = np.broadcast_to(probs, shape)
        except ValueError:
            raise shape_error(ValueError("bernoulli_"), shape, probs.shape) from None
        draw = draws.unit_float32 if probs.dtype == np.float32 else draws.unit_float64
        flat = draw(gen, self._data.size)
        values = lay_out(flat, self._data) < probs
    else:
        p = float(_number(p, "p"))
        if not 0.0 <= p <= 1.0:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
        values = lay_out(draws.unit_float64(gen, self._data.size), self._data) < p
    values = values.astype(self._data.dtype)
    return inplace(self, lambda t: _filled_values(t, values))


_INT_MAX = {"i": lambda dt: np.iinfo(dt).max, "u": lambda dt: np.iinfo(dt).max,
            "b": lambda dt: 1, "f": lambda dt: 1 << np.finfo(dt).nmant + 1}


@op("random_", namespace=False)
def random_(self, from_=None, to=None, generator=None):
    """Fill with integers drawn uniformly: ``random_()`` from [0, 2^m] (m: the dtype's
    significand bits or its largest integer, as libtorch), ``random_(to)`` from [0, to),
    ``random_(from_, to)`` from [from_, to); returns self."""
    self._check_inplace()
    dt = self._data.dtype
    if from_ is not None and to is None:
        from_, to = 0, from_
    if from_ is None:
        from_ = 0
        top = _INT_MAX[dt.kind](dt)
        to = top + 1
    from_, to = int(_number(from_, "from")), int(_number(to, "to"))
    if not from_ < to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} "
                           f">= to={to}")
    flat = random_integers(self._data.size, from_, to, dt, generator)
    values = lay_out(flat.astype(dt), self._data)
    return inplace(self, lambda t: _filled_values(t, values))


def _filled_values(t, values):
    out = Tensor._make(values.astype(t._data.dtype))
    if recording(t):
        record(NODES["FillBackward0"], (t,), (out,))
    return out


def setitem(self, key, value):
    """``x[key] = value``: write ``value`` (a number or tensor, broadcast) at ``key``."""
    if VMAP[0] and isinstance(value, VMAP[2]):
        # a tensor captured by a vmapped function cannot hold every example's value
        raise inplace_error("fill_" if value.dim() == 0 else "inplace arithmetic")
    values = value if isinstance(value, Tensor) else Tensor._make(
        np.asarray(value, dtype=self._data.dtype))
    if key is Ellipsis:  # x[...] is x itself: libtorch copies into it (CopyBackwards)
        data = index_ops.fit_value(values._data, self._data.shape)
        inplace(self, lambda t: _copy_from(t, values, data), values)
        return
    inplace(self, lambda t: index_ops._index_put(t, key, values, False, "CopySlices"), values)


@op("index_put_", index_args=("indices",))
def index_put_(self, indices, values, accumulate=False):
    """In-place ``index_put`` (IndexPutBackward0, as libtorch records it); returns self."""
    values = values if isinstance(values, Tensor) else Tensor._make(
        np.asarray(values, dtype=self._data.dtype))
    return inplace(self, lambda t: index_ops.index_put(t, indices, values, accumulate), values)


Tensor.__setitem__ = bf16_aware(setitem, "[<-", inplace=True)  # type: ignore[method-assign]  # (declared in tensor.py)  # noqa: E501
Tensor.__getitem__ = index_ops.getitem  # type: ignore[method-assign]  # (declared in tensor.py)


def _augmented(fn):
    def method(self, other):
        return fn(self, other)
    return method


Tensor.__iadd__ = _augmented(add_)  # type: ignore[method-assign]  # (declared in tensor.py)
Tensor.__isub__ = _augmented(sub_)  # type: ignore[method-assign]  # (declared in tensor.py)
Tensor.__imul__ = _augmented(mul_)  # type: ignore[method-assign]  # (declared in tensor.py)
Tensor.__itruediv__ = _augmented(div_)  # type: ignore[method-assign]  # (declared in tensor.py)


def inplace_on_view(view, compute, write):
    """Run the in-place op ``compute`` on ``view`` while recording: the op's node is wrapped in
    a CopySlices that becomes the base's grad_fn (``write(view, data)`` stores the values)."""
    base = view._base
    if base._grad_fn is not view._view_fn:
        regenerate(view)
    # the op sees a copy of the view's values with the view's history (kept intact for its
    # saved tensors, which stay connected to the graph under create_graph); CopySlices routes
    # the gradient for them to the base itself, not along that edge
    snapshot = Tensor._make(view._data.copy(), view._grad_fn, view._output_nr)
    snapshot._requires_grad = view._requires_grad
    result = compute(snapshot)
    fn = result._grad_fn
    base_edge = edge_of(base)
    write(view, result._data)
    if fn is None:
        return
    positions = view_positions(base._data, view._data)
    node = make_node(CopySlices,
                 (base_edge[0] if base_edge else None,) + tuple(fn.edges[1:]),
                 (base_edge[1] if base_edge else 0,) + tuple(fn.edge_nrs[1:]),
                 ((base._data.shape, base._data.dtype),) + tuple(fn.in_meta[1:]),
                 (base._data.shape, positions, view._data.shape, overlaps(view._data)))
    node.fn = fn
    old_fn, old_nr = base._grad_fn, base._output_nr
    base._grad_fn, base._output_nr, base._requires_grad = node, 0, True
    if base._retains_grad:  # the gradient is retained where the base now sits in the graph
        if old_fn is not None and old_fn.extras is not None and old_fn.extras.retained:
            ref = old_fn.extras.retained.pop(old_nr, None)
            if ref is not None:
                extras = node.extras_()
                extras.retained = {0: ref}
    regenerate(view, positions)
