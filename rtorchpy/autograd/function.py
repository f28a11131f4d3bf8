"""Custom autograd functions: ``autograd_function(forward, backward)`` and ``AutogradContext``.

One call of a custom function records one node (a :class:`FunctionNode`) whose inputs are the
arguments that are tensors requiring grad, in forward's parameter order; everything else is
passed to ``forward`` unchanged. ``forward`` runs with grad mode off, so the function itself is
the only thing recorded; ``backward`` runs later, inside the engine, with grad mode equal to
``create_graph``, which is what makes double backward through a custom function work.

Names for the R shim (see also the docstrings):
* ``autograd_function(..., name="torch::autograd::LanternNode", strict_names=False)`` gives R
  torch's node name and its silent dropping of unknown names in backward's result;
* ``ctx.save_for_backward_pairs([(name or None, value), ...])`` saves with R's interleaving of
  named and unnamed values, ``ctx.saved_variables.pairs()`` reads them back;
* ``forward`` is called with ``ctx`` first and every argument by name (R torch's way);
  ``backward`` gets one gradient per output, positionally (fitting them to an R backward's
  formals, R's list-for-the-last-formal rule, is the shim's job);
* an exception raised by ``forward`` or ``backward`` propagates as the same object (its str()
  untouched); the function's name is added as a note.
"""
from __future__ import annotations

import inspect
import numbers
import traceback
import weakref
from collections.abc import Mapping

import numpy as np

from .._tensor import Tensor
from .engine import check_grad_shape
from .grad_mode import STATE
from .graph import FREED_MESSAGE, INPLACE_EPOCH, Node, SavedOutput, edge_of

__all__ = ["autograd_function", "AutogradContext", "NamedValues", "FunctionNode"]

LEAF_DIRTY_ERROR = "a leaf Variable that requires grad has been used in an in-place operation."

class NamedValues:
    """An ordered sequence of (name, value) pairs, read like an R named list.

    ``s.weight`` and ``s["weight"]`` look a value up by name, ``s[0]`` by position; iterating
    gives the values in order (so ``a, b = ctx.saved_variables`` works), ``len(s)`` counts them
    and ``"weight" in s`` tests a name. Unnamed entries have the name None. A name that collides
    with a method (``names``, ``pairs``, ``to_dict``) is still reachable as ``s["names"]``.
    """

    __slots__ = ("_names", "_values", "_index")

    def __init__(self, pairs=()):
        pairs = list(pairs)
        self._names = [n for n, _ in pairs]
        self._values = [v for _, v in pairs]
        self._index = _first_index(self._names)

    @classmethod
    def _of(cls, names, values, index=None):
        """From parallel lists (taken over, not copied) and optionally their prebuilt index.
        The instance is of a cached subclass with one property per name, so ``s.weight`` is a
        plain attribute read instead of a failed lookup falling back to ``__getattr__``."""
        if index is None:
            index = _first_index(names)
        key = tuple(names)
        sub = _NV_CLASSES.get(key)
        if sub is None:
            if len(_NV_CLASSES) > 256:
                _NV_CLASSES.clear()
            body = {"__slots__": (), "__module__": cls.__module__, "__qualname__": cls.__qualname__}
            for n, i in index.items():
                if type(n) is str and not hasattr(cls, n):
                    body[n] = property(_value_at(i))
            sub = _NV_CLASSES[key] = type(cls.__name__, (cls,), body)
        self = object.__new__(sub)
        self._names, self._values, self._index = names, values, index
        return self

    def __reduce__(self):  # pickles/copies as the base class (the subclasses are a cache)
        return NamedValues, (self.pairs(),)

    def names(self):
        """The names in order (None for an unnamed entry)."""
        return list(self._names)

    def pairs(self):
        """The ``(name, value)`` pairs in order; the R shim rebuilds an R list from these."""
        return list(zip(self._names, self._values))

    def to_dict(self):
        """The named entries as a dict."""
        return {n: v for n, v in zip(self._names, self._values) if n is not None}

    def _lookup(self, name):
        i = self._index.get(name)
        if i is not None:
            return self._values[i]
        named = [n for n in self._names if n is not None]
        raise KeyError(f"no entry named '{name}'; names: {', '.join(named) or '(none)'}")

    def __getattr__(self, name):
        if name.startswith("__") or name in _NV_SLOTS:  # (an unset slot: no recursion)
            raise AttributeError(name)
        i = self._index.get(name)
        if i is not None:
            return self._values[i]
        try:
            return self._lookup(name)
        except KeyError as exc:
            raise AttributeError(exc.args[0]) from None

    def __getitem__(self, key):
        if isinstance(key, str):
            return self._lookup(key)
        if isinstance(key, slice):
            return NamedValues(self.pairs()[key])
        return self._values[key]

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)

    def __contains__(self, name):
        return name in self._names

    def __repr__(self):
        items = [repr(v) if n is None else f"{n}={v!r}" for n, v in self.pairs()]
        return "NamedValues(" + ", ".join(items) + ")"


_NV_SLOTS = frozenset(NamedValues.__slots__)


_NV_CLASSES = {}  # names tuple -> NamedValues subclass with a property per name


def _value_at(i):
    def get(self):
        return self._values[i]
    return get


def _first_index(names):
    """name -> position of its first occurrence (a later duplicate does not shadow it)."""
    index = {}
    for i, n in enumerate(names):
        if n is not None and n not in index:
            index[n] = i
    return index


class AutogradContext:
    """The ``ctx`` a custom function's ``forward`` and ``backward`` receive (the same object).

    * ``save_for_backward(*tensors_or_values, **named)``: keep values for backward. Tensors are
      version-checked (modifying one in place afterwards makes backward fail) and released after
      a backward without ``retain_graph``; other values are kept as they are. A second call
      replaces the first.
    * ``saved_variables``: the saved values as :class:`NamedValues` in saving order
      (``s.weight``, ``s["weight"]``, ``s[0]``); ``saved_tensors`` is the same as a tuple.
    * ``needs_input_grad``: per forward argument (by name or position), whether it was a tensor
      requiring grad at call time.
    * ``mark_dirty(*tensors)``, ``mark_non_differentiable(*outputs)``,
      ``set_materialize_grads(flag)``: see their docstrings.
    * Any other attribute can be set in forward and read in backward (``ctx.constant = 2``).
    """

    def __init__(self, fn_name, needs_input_grad):
        self._fn_name = fn_name
        self._needs = needs_input_grad
        self._node_ref = None      # weakref to the recorded node (the node holds this ctx)
        self._pending = None       # [(name, value)] as saved, until packed into the node
        self._layout = None        # after packing: [(name, index into node.saved or -1, value)]
        self._dirty = ()
        self._non_differentiable = ()
        self._materialize = True
        self._in_forward = False

    @property
    def needs_input_grad(self):
        """:class:`NamedValues` of booleans, one per forward argument (after ctx)."""
        return self._needs

    def save_for_backward(self, *args, **kwargs):
        """Save tensors and other values for backward: positional ones unnamed, then the named
        ones. Read them back with :attr:`saved_variables`."""
        self.save_for_backward_pairs([(None, a) for a in args] + list(kwargs.items()))

    def save_for_backward_pairs(self, pairs):
        """Save ``[(name or None, value), ...]`` in that order (R's ``list2(...)`` interleaves
        named and unnamed values, which keyword arguments cannot express)."""
        if not self._in_forward:
            raise RuntimeError("save_for_backward can only be called from forward")
        self._pending = [(None if n is None else str(n), v) for n, v in pairs]
        self._layout = None

    @property
    def saved_variables(self):
        """The values given to :meth:`save_for_backward`, as :class:`NamedValues`.

        Raises the libtorch errors when the graph was freed by a backward without
        ``retain_graph``, or a saved tensor was modified in place after being saved.
        """
        if self._layout is None:
            return NamedValues(self._pending or ())
        node = self._node_ref() if self._node_ref is not None else None
        if node is None or node.saved is None:
            raise RuntimeError(FREED_MESSAGE)
        tensors = node.unpack(True)
        layout = self._layout
        return NamedValues._of([n for n, _, _ in layout],
                               [tensors[i] if i >= 0 else v for _, i, v in layout])

    @property
    def saved_tensors(self):
        """The saved values as a tuple (PyTorch's name)."""
        return tuple(self.saved_variables)

    def mark_dirty(self, *tensors):
        """Declare the inputs forward modified in place; forward must return them. Their history
        is moved onto this function's node. A leaf that requires grad cannot be dirty. A second
        call replaces the first (as in libtorch); the in-place op itself bumped the version."""
        self._dirty = self._forward_only_tensors(tensors, "mark_dirty")

    def mark_non_differentiable(self, *outputs):
        """Declare outputs that have no gradient: they are returned with ``requires_grad=False``
        and backward receives zeros (or None, see :meth:`set_materialize_grads`) for them.
        A second call replaces the first."""
        self._non_differentiable = self._forward_only_tensors(outputs, "mark_non_differentiable")

    def set_materialize_grads(self, value):
        """With True (default) backward receives zeros for outputs that got no gradient; with
        False it receives None for them."""
        self._materialize = bool(value)

    def _forward_only_tensors(self, items, what):
        if not self._in_forward:
            raise RuntimeError(f"{what} can only be called from forward")
        for t in items:
            if not isinstance(t, Tensor):
                raise TypeError(f"{what} only accepts Tensors, got {type(t).__name__}")
        return tuple(items)

    def __repr__(self):
        return f"<AutogradContext of {self._fn_name}>"


class FunctionNode(Node):
    """The node a custom function records; ``autograd_function`` makes one subclass per
    function so that ``name`` (what ``grad_fn`` prints) is a class attribute like every node's."""

    __slots__ = ("ctx", "spec", "var_index", "out_info")

    def apply(self, grads, as_tensors):
        """Call the user's backward with one Tensor per output (materializing undefined
        gradients unless told not to) and map its result to the recorded inputs."""
        ctx, spec = self.ctx, self.spec
        args = []
        for g, info in zip(grads, self.out_info):
            if g is None:  # no gradient arrived (out_meta entries are None: engine leaves it)
                if info is not None and ctx._materialize:
                    g = Tensor._make(np.zeros(info[0], dtype=info[1]))
            elif not as_tensors:
                g = Tensor._make(g)
            args.append(g)
        result = _call_user(spec.backward, "backward", spec.name, ctx, *args)
        return spec.input_grads(result, self, as_tensors)

    def release(self):
        # libtorch frees a custom node's saved state as a whole: afterwards even saved
        # non-tensor values are unreachable (ctx.saved_variables raises the freed error)
        if self.saved is not None and self.ctx._layout:
            self.saved = self.sources = None


def _call_user(fn, where, name, *args, **kwargs):
    """Call user code; on error re-raise the same exception (type and str() intact, which the
    R shim relies on for R errors) with a note naming the custom function."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:
        if hasattr(exc, "add_note"):
            exc.add_note(f"(raised in the {where} of custom autograd function {name})")
        raise


def _default_name(forward):
    """``Linear.forward`` -> ``LinearBackward``; ``mul_constant`` -> ``MulConstantBackward``."""
    qual = getattr(forward, "__qualname__", None) or getattr(forward, "__name__", "") or ""
    parts = [p for p in qual.split(".") if p != "<locals>"]
    base = parts[-2] if len(parts) >= 2 and parts[-1] == "forward" else (parts[-1] if parts else "")
    if not base.isidentifier() or base == "forward":
        base = "CustomFunction"
    return "".join(w[:1].upper() + w[1:] for w in base.split("_") if w) + "Backward"


class _Spec:
    """What one ``autograd_function`` knows: user functions, names, and the backward-result
    mapping (shared by all calls)."""

    def __init__(self, forward, backward, name, strict_names):
        self.forward, self.backward = forward, backward
        self.name = name
        self.strict_names = strict_names
        params = list(inspect.signature(forward).parameters.values())
        if not params or params[0].kind not in (params[0].POSITIONAL_ONLY,
                                                params[0].POSITIONAL_OR_KEYWORD):
            raise TypeError("forward must take the context (ctx) as its first argument")
        for p in params[1:]:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(f"forward of {name}: *{p.name} / **{p.name} parameters are not "
                                "supported; give every argument a name")
        self.signature = inspect.signature(forward).replace(parameters=params[1:])
        self.arg_names = tuple(p.name for p in params[1:])
        self.positional_only = tuple(p.kind is p.POSITIONAL_ONLY for p in params[1:])
        # plain parameters (the usual case) are bound without inspect's general machinery
        self.defaults = tuple(p.default for p in params[1:])
        self.plain = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params[1:])
        self.position_of = {n: i for i, n in enumerate(self.arg_names)}
        self.arg_name_list = list(self.arg_names)  # shared by every call's needs_input_grad
        self.any_positional_only = any(self.positional_only)
        self.node_class = type(name.replace("::", "_").replace(" ", "_"), (FunctionNode,),
                               {"__slots__": (), "name": name})

    # -- backward's result -> one gradient per recorded input ------------------------------
    def input_grads(self, result, node, as_tensors):
        if type(result) is dict:
            # fast path: a plain dict whose entries are Tensors of their input's exact shape
            position_of = self.position_of
            for key in result:
                if key not in position_of:
                    break
            else:
                arg_names, in_meta, out = self.arg_names, node.in_meta, []
                for k, i in enumerate(node.var_index):
                    g = result.get(arg_names[i])
                    if type(g) is not Tensor or g._data.shape != in_meta[k][0]:
                        break
                    out.append(g if as_tensors else g._data)
                else:
                    return tuple(out)
        by_name = self._by_name(result)
        out = []
        for k, i in enumerate(node.var_index):
            arg = self.arg_names[i]
            g = by_name.get(arg)
            if g is None:
                # as in R torch (and PyTorch's Python functions) an input that requires grad
                # then gets zeros: its .grad is defined, and autograd_grad finds it "used"
                shape, dtype = node.in_meta[k]
                z = Tensor._make(np.zeros(shape, dtype=dtype))
                out.append(z if as_tensors else z._data)
                continue
            g = self._as_tensor(g, arg)
            check_grad_shape(tuple(g.shape), node.in_meta[k][0], k, fn_name=self.name)
            out.append(g if as_tensors else g._data)
        return tuple(out)

    def _by_name(self, result):
        names = self.arg_names
        listed = ", ".join(names)
        if result is None:
            return {}
        if isinstance(result, Tensor):
            if len(names) == 1:
                return {names[0]: result}
            raise TypeError(f"backward of {self.name} returned a single Tensor, but forward has "
                            f"{len(names)} arguments ({listed}); return a dict keyed by argument "
                            "name or a tuple with one entry per argument")
        if isinstance(result, Mapping):
            unknown = [k for k in result if k not in names]
            if unknown and self.strict_names:
                raise RuntimeError(
                    f"backward of {self.name} returned a gradient for "
                    f"{', '.join(repr(k) for k in unknown)}, which is not an argument of forward; "
                    f"valid names: {listed}")
            return result
        if isinstance(result, (tuple, list)):
            n, got = len(names), len(result)
            if got != n and not (got > n and all(r is None for r in result[n:])):
                raise RuntimeError(
                    f"backward of {self.name} returned {got} gradients but forward has {n} "
                    f"arguments ({listed}); expected {n}, one per argument (None where there is "
                    "no gradient)")
            return dict(zip(names, result))
        raise TypeError(f"backward of {self.name} must return a dict keyed by argument name, a "
                        "tuple/list with one entry per argument, a Tensor or None; got "
                        f"{type(result).__name__}")

    def _as_tensor(self, g, arg):
        if isinstance(g, Tensor):
            return g
        if isinstance(g, (numbers.Number, np.generic)):
            # as R torch converts a length-one vector: shape (1,), not 0-d
            return Tensor._make(np.asarray([g]))
        if isinstance(g, (np.ndarray, list)):
            from ..creation import torch_tensor
            return torch_tensor(g)
        raise TypeError(f"backward of {self.name} returned a {type(g).__name__} as the gradient "
                        f"of argument '{arg}'; expected a Tensor, a number, a NumPy array or None")

    # -- one call --------------------------------------------------------------------------
    def _bind_plain(self, args, kwargs):
        """forward's argument values in order, or None when the general binder is needed (to
        report a missing or unknown argument, or for positional-only/keyword-only ones)."""
        n_args = len(args)
        if not self.plain or n_args > len(self.arg_names):
            return None
        for key in kwargs:
            i = self.position_of.get(key)
            if i is None or i < n_args:
                return None
        values = list(args)
        empty = inspect.Parameter.empty
        for i in range(n_args, len(self.arg_names)):
            v = kwargs.get(self.arg_names[i], self.defaults[i]) if kwargs else self.defaults[i]
            if v is empty:
                return None
            values.append(v)
        return values

    def call(self, args, kwargs):
        values = self._bind_plain(args, kwargs)
        if values is None:
            try:
                bound = self.signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"{self.name}: {exc}") from None
            bound.apply_defaults()
            values = [bound.arguments[n] for n in self.arg_names]
        is_var = [isinstance(v, Tensor) and v._requires_grad for v in values]
        ctx = AutogradContext(self.name,
                              NamedValues._of(self.arg_name_list, is_var, self.position_of))
        node = None
        if STATE.grad_enabled and True in is_var:
            node = self._new_node(ctx, values, is_var)
        previous = STATE.grad_enabled
        STATE.grad_enabled = False
        ctx._in_forward = True
        try:
            # by name, as R torch calls forward (the R shim's wrappers rely on it); only
            # positional-only parameters go by position
            if self.any_positional_only:
                pos = [v for v, p in zip(values, self.positional_only) if p]
                kw = {n: v for n, v, p in zip(self.arg_names, values, self.positional_only)
                      if not p}
                result = _call_user(self.forward, "forward", self.name, ctx, *pos, **kw)
            else:
                result = _call_user(self.forward, "forward", self.name, ctx,
                                    **dict(zip(self.arg_names, values)))
        finally:
            STATE.grad_enabled = previous
            ctx._in_forward = False
        return self._wrap_outputs(result, ctx, node, values)

    def _new_node(self, ctx, values, is_var):
        # edges are taken before forward runs: a dirty input's old history is what it feeds
        node = self.node_class()
        edges, in_meta, var_index = [], [], []
        for i, v in enumerate(values):
            if is_var[i]:
                edges.append(edge_of(v))
                data = v._data
                in_meta.append((data.shape, data.dtype))
                var_index.append(i)
        node.edges, node.in_meta, node.var_index = tuple(edges), tuple(in_meta), tuple(var_index)
        node.ctx = ctx
        node.spec = self
        node.out_info = ()
        if STATE.anomaly_enabled:
            node.extras_().trace = traceback.format_stack()[:-3]
        ctx._node_ref = weakref.ref(node)
        return node

    def _wrap_outputs(self, result, ctx, node, values):
        if type(result) is Tensor and not ctx._dirty and not ctx._non_differentiable:
            # the usual case: one fresh Tensor, nothing marked; the general path below gives
            # the same result
            for v in values:
                if v is result:
                    break
            else:
                data = result._data
                if node is None or data.dtype.kind not in "fc":
                    if result._requires_grad:
                        result = _alias(result)
                else:
                    result._grad_fn, result._output_nr, result._requires_grad = node, 0, True
                if node is not None:
                    node.out_info = ((data.shape, data.dtype),)
                    node.out_meta = None
                    _pack_saved(ctx, node)
                return result
        rebuild, flat = _flatten(result, self.name)
        inputs = {id(v) for v in values if isinstance(v, Tensor)}
        dirty = {id(t) for t in ctx._dirty}
        non_diff = {id(t) for t in ctx._non_differentiable}
        returned = {id(o) for o in flat if isinstance(o, Tensor)}
        if not dirty <= returned:
            raise RuntimeError(f"forward of {self.name} marked tensors dirty that it did not "
                               "return; mark_dirty() is for inputs modified in place, and forward "
                               "must return them")

        def differentiable(o):
            return node is not None and id(o) not in non_diff and o._data.dtype.kind in "fc"

        for o in flat:  # refuse before changing anything
            if isinstance(o, Tensor) and id(o) in dirty and differentiable(o) \
                    and o._grad_fn is None and o._requires_grad:
                raise RuntimeError(LEAF_DIRTY_ERROR)
        seen, info = set(), []
        for nr, o in enumerate(flat):
            if not isinstance(o, Tensor):
                info.append(None)  # passed through; its gradient is always None
                continue
            first = id(o) not in seen
            seen.add(id(o))
            is_input = id(o) in inputs or not first
            is_dirty = id(o) in dirty and first
            if not differentiable(o):
                if o._requires_grad or (is_input and not is_dirty):
                    o = _alias(o)
            else:
                if is_input and not is_dirty:
                    o = _alias(o)  # an input returned unchanged gets a new alias, not new history
                o._grad_fn, o._output_nr, o._requires_grad = node, nr, True
            flat[nr] = o
            info.append((o._data.shape, o._data.dtype))
        ctx._dirty = ctx._non_differentiable = ()  # they may be outputs: no cycles via ctx
        if node is not None:
            node.out_info = tuple(info)
            node.out_meta = None if len(flat) == 1 else (None,) * len(flat)
            _pack_saved(ctx, node)
        return rebuild(flat)


def _alias(t):
    """A new tensor sharing ``t``'s storage and version counter, without history."""
    a = Tensor._make(t._data, version=t._version)
    a._base = t._base if t._base is not None else t
    a._view_fn = a._base._grad_fn
    return a


def _flatten(result, name):
    """forward's result as a list, and how to rebuild the same kind of container."""
    if isinstance(result, Tensor):
        return (lambda flat: flat[0]), [result]
    if isinstance(result, Mapping):
        keys = list(result)
        return (lambda flat: dict(zip(keys, flat))), list(result.values())
    if isinstance(result, tuple) and hasattr(result, "_fields"):  # a namedtuple
        return (lambda flat: type(result)(*flat)), list(result)
    if isinstance(result, (tuple, list)):
        kind = type(result) if type(result) in (tuple, list) else tuple
        return (lambda flat: kind(flat)), list(result)
    raise TypeError(f"forward of {name} must return a Tensor, or a tuple, list or dict of "
                    f"Tensors; got {type(result).__name__}")


def _pack_saved(ctx, node):
    """Move what forward saved into the node's saved-value machinery (version-checked,
    released after backward). Outputs of this node are kept as SavedOutput: holding the output
    tensor itself would make a reference cycle through its grad_fn."""
    pending = ctx._pending
    if pending is None:
        return
    saved, versions, layout = [], [], []
    for name, v in pending:
        if type(v) is Tensor or isinstance(v, Tensor):
            layout.append((name, len(saved), None))
            saved.append(SavedOutput(v) if v._grad_fn is node else v)
            versions.append(v._version[0])
        else:
            layout.append((name, -1, v))
    node.saved = node.sources = tuple(saved)
    node.versions = tuple(versions)
    node.epoch = INPLACE_EPOCH[0]
    ctx._layout, ctx._pending = layout, None


def autograd_function(forward, backward, name=None, strict_names=True):
    """Define a differentiable function from a ``forward`` and a ``backward``.

    Args:
        forward: ``forward(ctx, *args)``: computes the result (grad mode is off inside) from any
            mix of tensor and non-tensor arguments, with defaults if you like; returns a Tensor,
            or a tuple, list or dict of Tensors (the caller gets the same kind of container).
            Inputs arrive unchanged (tensors still ``requires_grad``). Use ``ctx`` to save what
            backward needs (:class:`AutogradContext`).
        backward: ``backward(ctx, *grad_outputs)``: receives one gradient per output (zeros
            for outputs that got none, or None after ``ctx.set_materialize_grads(False)``);
            returns the gradients w.r.t. the inputs as a dict keyed by argument name (R torch
            style), a tuple/list with one entry per forward argument (PyTorch style), or a
            single Tensor when forward has one argument. Missing entries and None give a zero
            gradient (as in R torch). A gradient is summed down to its input's shape when
            broadcastable and cast to its dtype; NumPy arrays become tensors, and a number a
            shape ``(1,)`` tensor (as R torch converts a length-one vector).
        name: the node's name, shown as ``grad_fn``. Default: forward's name in CamelCase plus
            ``Backward`` (``Linear.forward`` or ``linear`` -> ``LinearBackward``). The R shim
            passes ``"torch::autograd::LanternNode"``, R torch's name for every custom function.
        strict_names: with True (default) a dict from backward naming something that is not a
            forward argument is an error; False ignores such names, as R torch does.

    Returns:
        A function with forward's signature minus ``ctx`` (``__signature__`` is set). Tensors
        requiring grad among its arguments become the inputs of one recorded node, in parameter
        order; under ``with_no_grad`` nothing is recorded. Outputs that are not floating point,
        or marked non-differentiable, do not require grad.

    Errors raised by ``forward`` or ``backward`` propagate unchanged (same type and message)
    with a note naming the function.

    Examples:
        >>> from rtorchpy import autograd_function, torch_tensor
        >>> def mul_constant(ctx, tensor, constant):
        ...     ctx.save_for_backward(constant=constant)
        ...     return tensor * constant
        >>> def mul_constant_backward(ctx, grad_output):
        ...     return {"tensor": grad_output * ctx.saved_variables.constant}
        >>> f = autograd_function(mul_constant, mul_constant_backward)
        >>> x = torch_tensor([1.0], requires_grad=True)
        >>> y = f(x, 2)
        >>> y.grad_fn
        MulConstantBackward
        >>> y.backward()
        >>> x.grad.tolist()
        [2.0]
    """
    if not callable(forward) or not callable(backward):
        raise TypeError("autograd_function needs callable forward and backward")
    spec = _Spec(forward, backward, name or _default_name(forward), bool(strict_names))

    def custom_function(*args, **kwargs):
        return spec.call(args, kwargs)

    custom_function.__signature__ = spec.signature
    custom_function.__name__ = getattr(forward, "__name__", "custom_function")
    custom_function.__qualname__ = getattr(forward, "__qualname__", custom_function.__name__)
    custom_function.__doc__ = getattr(forward, "__doc__", None) or (
        f"Custom autograd function {spec.name} (see autograd_function).")
    custom_function.__module__ = getattr(forward, "__module__", __name__)
    custom_function.forward = forward
    custom_function.backward = backward
    custom_function.node_name = spec.name
    custom_function.strict_names = spec.strict_names
    return custom_function
