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
* ``forward`` is called with ``ctx`` first and every argument by name (R torch's way; a plain
  Python function, which binds the same either way, gets them by position, which is cheaper);
  ``backward`` gets one gradient per output, positionally (fitting them to an R backward's
  formals, R's list-for-the-last-formal rule, is the shim's job);
* an exception raised by ``forward`` or ``backward`` propagates as the same object (its str()
  untouched); the function's name is added as a note.
"""
from __future__ import annotations

import inspect
import numbers
import sys
import traceback
import types
import weakref
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..numerics.broadcast import check_grad_shape
from ..tensor import Tensor
# NamedValues is part of this module's __all__
from .context import AutogradContext, NamedValues, _new, _nv_class  # noqa: F401
from .grad_mode import ANOMALY_USED, FORWARD_AD, STATE
from .forward_ad import custom_tangents
from .graph import INPLACE_EPOCH, Node, SavedOutput
from .record import set_edges
from .views import gained_history

__all__ = ["autograd_function", "AutogradContext", "NamedValues", "FunctionNode"]

LEAF_DIRTY_ERROR = "a leaf Variable that requires grad has been used in an in-place operation."

class FunctionNode(Node):
    """The node a custom function records; ``autograd_function`` makes one subclass per
    function so that ``name`` (what ``grad_fn`` prints) is a class attribute like every node's."""

    # ``fresh`` (a class attribute on other nodes) is per call here: set after each backward,
    # True when every gradient it returned is an array nobody else holds (see _unshared)
    __slots__ = ("ctx", "spec", "var_index", "out_info", "fresh")

    def apply(self, grads, as_tensors):
        """Call the user's backward with one Tensor per output (materializing undefined
        gradients unless told not to) and map its result to the recorded inputs."""
        ctx, spec = self.ctx, self.spec
        if len(grads) == 1 and grads[0] is not None:  # the usual case: one output, used
            args = (grads[0] if as_tensors else Tensor._make(grads[0]),)
        else:
            args = []
            for g, info in zip(grads, self.out_info):
                if g is None:  # no gradient arrived (out_meta entries are None: engine leaves it)
                    if info is not None and ctx._materialize:
                        g = Tensor._make(np.zeros(info[0], dtype=info[1]))
                elif not as_tensors:
                    g = Tensor._make(g)
                args.append(g)
        try:
            result = spec.backward(ctx, *args)
        except Exception as exc:
            _add_note(exc, "backward", spec.name)
            raise
        args = None
        outs = spec.input_grads(result, self, as_tensors)
        if not as_tensors:
            result = None  # drop the user's tensors, so that only ``outs`` holds fresh arrays
            self.fresh = _unshared(outs)
        return outs

    def release(self):
        # libtorch frees a custom node's saved state as a whole: afterwards even saved
        # non-tensor values are unreachable (ctx.saved_variables raises the freed error)
        if self.saved is not None and self.ctx._layout:
            self.saved = self.sources = None
            # the node can never run again: what a caller attached to keep its backward alive
            # goes too (the R bridge's RValue of the R closures, which often reach this node's
            # output through the frame they were defined in: a cycle R and Python cannot see)
            self.ctx._r_owner = None


def _add_note(exc, where, name):
    """User code raised: the same exception propagates (type and str() intact, which the R shim
    relies on for R errors), with a note naming the custom function. Callers call user code in
    their own ``try`` rather than through a helper: one Python frame less per call."""
    if hasattr(exc, "add_note"):
        exc.add_note(f"(raised in the {where} of custom autograd function {name})")


_refcount = getattr(sys, "getrefcount", None)


def _most_refs(outs):
    """The highest reference count among the arrays in ``outs`` as seen from here, or -1 for a
    view (its memory belongs to another array)."""
    most = 0
    for g in outs:
        if g is not None:
            if g.base is not None:
                return -1
            n = _refcount(g)
            if n > most:
                most = n
    return most


# What _most_refs reports for an array held by nothing but the tuple: measured rather than
# assumed, since what the interpreter's own frames add to the count is its business.
_SOLE_REFS = _most_refs((np.empty(1),)) if _refcount is not None else 0


def _unshared(outs):
    """Whether every array in ``outs`` is one nobody else can see: it owns its memory (not a
    view, so no other array shares it) and ``outs`` holds the only reference to it (a view of
    it, a tensor wrapping it, a container keeping it or a second entry in ``outs`` would each
    add one). The engine may then add later gradients into such an array in place, or make it
    a leaf's ``.grad`` without a copy, as it does for the derivative table's fresh rows. Called
    with the user's result already dropped. Without reference counts nothing is claimed."""
    if _refcount is None:
        return False
    most = _most_refs(outs)
    return 0 <= most <= _SOLE_REFS


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

    def __init__(self, forward, backward, name, strict_names, jvp=None):
        self.forward, self.backward = forward, backward
        self.jvp = jvp
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
        self.n_args = len(self.arg_names)
        self.patterns = {}  # which-args-require-grad flags -> (needs_input_grad, var_index)
        self.var_names = {}  # var_index -> the names of those arguments (see input_grads)
        self.saved_names_memo = None  # (names, NamedValues class, index) last saved (_pack_saved)
        self.any_positional_only = any(self.positional_only)
        # A plain Python function whose signature is its own code's (no __signature__ or
        # __wrapped__ standing in for it) binds positional-or-keyword parameters the same way
        # by position as by name, and by position is cheaper. Anything else (the R shim's
        # *args/**kwargs wrappers carry the R formals as __signature__) is called by name.
        self.by_position = (self.plain and isinstance(forward, types.FunctionType)
                            and "__signature__" not in forward.__dict__
                            and "__wrapped__" not in forward.__dict__)
        self.node_class = type(name.replace("::", "_").replace(" ", "_"), (FunctionNode,),
                               {"__slots__": (), "name": name})

    # -- backward's result -> one gradient per recorded input ------------------------------
    def input_grads(self, result, node, as_tensors):
        if type(result) is dict:
            # fast path: a plain dict of Tensors of their inputs' exact shapes, naming only
            # arguments of forward (when it names exactly the recorded inputs, that is given)
            out = []
            names = self.var_names.get(node.var_index)
            if names is None:
                names = [self.arg_names[i] for i in node.var_index]
            for name, meta in zip(names, node.in_meta):
                g = result.get(name)
                if type(g) is not Tensor:
                    break
                data = g._data
                if data.shape != meta[0]:
                    break
                out.append(g if as_tensors else data)
            else:
                if len(result) == len(out):
                    return tuple(out)
                position_of = self.position_of
                for key in result:
                    if key not in position_of:
                        break
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
            return Tensor(g)
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
        if kwargs or len(args) != self.n_args or not self.plain:
            values = self._bind_plain(args, kwargs)
            if values is None:
                try:
                    bound = self.signature.bind(*args, **kwargs)
                except TypeError as exc:
                    raise TypeError(f"{self.name}: {exc}") from None
                bound.apply_defaults()
                values = [bound.arguments[n] for n in self.arg_names]
        else:  # every argument given by position: nothing to bind
            values = args
        flags = tuple([isinstance(v, Tensor) and (v._requires_grad or gained_history(v))
                       for v in values])
        pattern = self.patterns.get(flags)
        if pattern is None:
            pattern = self._pattern(flags)
        needs, var_index = pattern
        ctx = _new(AutogradContext)  # __init__ written out: the rest are class defaults
        ctx._fn_name = self.name
        ctx._needs = needs
        node = None
        if var_index and STATE.grad_enabled and not STATE.fw_only:
            node = self._new_node(ctx, values, var_index)
        previous = STATE.grad_enabled
        STATE.grad_enabled = False
        level = FORWARD_AD[0]
        FORWARD_AD[0] = 0  # forward computes primals; the tangents are jvp's business
        ctx._in_forward = True
        try:
            # by name, as R torch calls forward (the R shim's wrappers rely on it); only
            # positional-only parameters go by position, and every one where that is the same
            # thing (see by_position)
            if self.by_position:
                pos, kw = values, {}
            elif self.any_positional_only:
                pos = [v for v, p in zip(values, self.positional_only) if p]
                kw = {n: v for n, v, p in zip(self.arg_names, values, self.positional_only)
                      if not p}
            else:
                pos, kw = (), dict(zip(self.arg_names, values))
            try:
                result = self.forward(ctx, *pos, **kw)
            except Exception as exc:
                _add_note(exc, "forward", self.name)
                raise
        finally:
            STATE.grad_enabled = previous
            FORWARD_AD[0] = level
            ctx._in_forward = False
        out = self._wrap_outputs(result, ctx, node, values)
        if level:
            self._set_tangents(ctx, values, out, level)
        return out

    def _set_tangents(self, ctx, values, out, level):
        """Forward AD through a custom function: its ``jvp`` gives the outputs' tangents."""
        outs = list(out.values()) if isinstance(out, dict) else \
            list(out) if isinstance(out, (tuple, list)) else [out]
        try:
            custom_tangents(self.name, self.jvp, ctx, values, outs, level)
        except Exception as exc:
            _add_note(exc, "jvp", self.name)
            raise

    def _pattern(self, flags):
        """``needs_input_grad`` and the recorded inputs' positions for one pattern of which
        arguments require grad. Calls with the same pattern share them (the NamedValues has no
        mutators), so a call builds neither; the cache is small since patterns rarely vary."""
        var_index = tuple([i for i, f in enumerate(flags) if f])
        pattern = (NamedValues._of(self.arg_name_list, list(flags), self.position_of), var_index)
        if len(self.patterns) < 64:
            self.patterns[flags] = pattern
            self.var_names[var_index] = tuple([self.arg_names[i] for i in var_index])
        return pattern

    def _new_node(self, ctx, values, var_index):
        # edges are taken before forward runs: a dirty input's old history is what it feeds
        node = self.node_class()
        inputs = [values[i] for i in var_index]
        set_edges(node, inputs)
        node.in_meta = tuple([(v._data.shape, v._data.dtype) for v in inputs])
        if any(v._bf16 for v in inputs):
            node.extras_().bf16 = tuple([v._bf16 for v in inputs])
        node.var_index = var_index
        node.ctx = ctx
        node.spec = self
        node.out_info = ()
        node.fresh = False
        if ANOMALY_USED[0] and STATE.anomaly_enabled:
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
    names, values = pending
    saved, versions, slots = [], [], None
    for j, v in enumerate(values):
        if type(v) is Tensor or isinstance(v, Tensor):
            if slots is not None:
                slots.append(len(saved))
            saved.append(SavedOutput(v) if v._grad_fn is node else v)
            versions.append(v._version[0])
        else:
            if slots is None:  # the values so far were all tensors, in order
                slots = list(range(j))
            slots.append(-1)
    node.saved = node.sources = tuple(saved)
    node.versions = tuple(versions)
    node.epoch = INPLACE_EPOCH[0]
    if not names:
        ctx._layout = ()
    else:
        consts = None if slots is None else [v if i < 0 else None for i, v in zip(slots, values)]
        # the NamedValues class for these names; a function saves the same names call after
        # call, so the last one is kept on the spec and compared first
        memo = node.spec.saved_names_memo
        if memo is not None and memo[0] == names:
            names, cls, index = memo
        else:
            cls, index = _nv_class(names)
            node.spec.saved_names_memo = (names, cls, index)
        ctx._layout = (names, slots, consts, cls, index)
    ctx._pending = None


def autograd_function(forward: Callable[..., Any], backward: Callable[..., Any],
                      name: str | None = None, strict_names: bool = True,
                      jvp: Callable[..., Any] | None = None) -> Callable[..., Any]:
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
        jvp: optional ``jvp(ctx, *tangents)`` for forward-mode AD (``autograd_make_dual``,
            ``autograd_jacfwd``): one tangent per forward argument (None where it has none),
            returning one tangent per output; forward's ``ctx`` is passed on.

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
    if jvp is not None and not callable(jvp):
        raise TypeError("autograd_function: jvp must be callable or None")
    spec = _Spec(forward, backward, name or _default_name(forward), bool(strict_names), jvp)

    def custom_function(*args, **kwargs):
        return spec.call(args, kwargs)

    custom_function.__name__ = getattr(forward, "__name__", "custom_function")
    custom_function.__qualname__ = getattr(forward, "__qualname__", custom_function.__name__)
    custom_function.__doc__ = getattr(forward, "__doc__", None) or (
        f"Custom autograd function {spec.name} (see autograd_function).")
    custom_function.__module__ = getattr(forward, "__module__", __name__)
    # (attributes of the function object: what R's bridge and introspection read)
    vars(custom_function).update(__signature__=spec.signature, forward=forward,
                                 backward=backward, jvp=jvp, node_name=spec.name,
                                 strict_names=spec.strict_names)
    return custom_function
