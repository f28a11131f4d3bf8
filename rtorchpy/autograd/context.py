"""The context a custom function's ``forward`` and ``backward`` share: ``AutogradContext``
(``ctx``), and ``NamedValues``, the attribute dict ``ctx.saved_variables`` reads as."""
from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .graph import FREED_MESSAGE, INPLACE_EPOCH, SavedOutput


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
        sub, first = _nv_class(names)
        self = object.__new__(sub)
        self._names, self._values = names, values
        self._index = first if index is None else index
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
_new = object.__new__


# names tuple -> (NamedValues subclass with a property per name, its index)
_NV_CLASSES: dict[tuple, tuple] = {}


def _nv_class(names):
    """The cached NamedValues subclass for ``names`` and its name -> position index."""
    key = tuple(names)
    hit = _NV_CLASSES.get(key)
    if hit is None:
        if len(_NV_CLASSES) > 256:
            _NV_CLASSES.clear()
        index = _first_index(names)
        body = {"__slots__": (), "__module__": NamedValues.__module__,
                "__qualname__": NamedValues.__qualname__}
        for n, i in index.items():
            if type(n) is str and not hasattr(NamedValues, n):
                body[n] = property(_value_at(i))
        hit = _NV_CLASSES[key] = (type(NamedValues.__name__, (NamedValues,), body), index)
    return hit


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

    # Defaults live on the class: a context made for a call (``_Spec.call``) sets only what
    # differs, and the attributes forward or backward set shadow them per instance.
    _node_ref = None      # weakref to the recorded node (the node holds this ctx)
    _pending = None       # ([name], [value]) as saved, until packed into the node
    # after packing: () when nothing was saved, else (names, slots, consts, cls, index): slots[j]
    # is the index into node.sources of value j, or -1 for a non-tensor kept in consts[j] (slots
    # is None when every value is a tensor, in order); cls and index are the NamedValues
    # subclass and name index for ``names`` (see _nv_class)
    _layout = None
    _dirty = ()
    _non_differentiable = ()
    _materialize = True
    _in_forward = False

    def __init__(self, fn_name, needs_input_grad):
        self._fn_name = fn_name
        self._needs = needs_input_grad

    @property
    def needs_input_grad(self) -> Any:  # (one flag per input, by name)
        """:class:`NamedValues` of booleans, one per forward argument (after ctx)."""
        return self._needs

    def save_for_backward(self, *args: Any, **kwargs: Any) -> None:
        """Save tensors and other values for backward: positional ones unnamed, then the named
        ones. Read them back with :attr:`saved_variables`."""
        if not self._in_forward:
            raise RuntimeError("save_for_backward can only be called from forward")
        # keyword names are already str: no conversion needed
        if args:
            self._pending = ([None] * len(args) + list(kwargs), list(args) + list(kwargs.values()))
        else:
            self._pending = (list(kwargs), list(kwargs.values()))
        self._layout = None

    def save_for_backward_pairs(self, pairs):
        """Save ``[(name or None, value), ...]`` in that order (R's ``list2(...)`` interleaves
        named and unnamed values, which keyword arguments cannot express)."""
        if not self._in_forward:
            raise RuntimeError("save_for_backward can only be called from forward")
        pairs = list(pairs)
        self._pending = ([None if n is None else str(n) for n, _ in pairs], [v for _, v in pairs])
        self._layout = None

    @property
    def saved_variables(self) -> NamedValues:
        """The values given to :meth:`save_for_backward`, as :class:`NamedValues`.

        Raises the libtorch errors when the graph was freed by a backward without
        ``retain_graph``, or a saved tensor was modified in place after being saved.
        """
        layout = self._layout
        if layout is None:
            pending = self._pending
            return NamedValues(zip(*pending) if pending is not None else ())
        ref = self._node_ref
        node = ref() if ref is not None else None
        if node is None or node.saved is None:
            raise RuntimeError(FREED_MESSAGE)
        if not layout:
            return NamedValues._of([], [])
        # Node.unpack(True) written out (version check, outputs rebuilt with this node as their
        # grad_fn); this runs once per backward of every custom function
        if node.epoch != INPLACE_EPOCH[0]:
            node.check_versions()
        values = [src if type(src) is not SavedOutput else
                  Tensor._make(src._data, node, src._output_nr, src._version)
                  for src in node.sources]
        names, slots, consts, cls, index = layout
        if slots is not None:
            values = [values[i] if i >= 0 else c for i, c in zip(slots, consts)]
        nv = _new(cls)
        nv._names, nv._values, nv._index = names, values, index
        return nv

    @property
    def saved_tensors(self) -> tuple:
        """The saved values as a tuple (PyTorch's name)."""
        return tuple(self.saved_variables)

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Declare the inputs forward modified in place; forward must return them. Their history
        is moved onto this function's node. A leaf that requires grad cannot be dirty. A second
        call replaces the first (as in libtorch); the in-place op itself bumped the version."""
        self._dirty = self._forward_only_tensors(tensors, "mark_dirty")

    def mark_non_differentiable(self, *outputs: Tensor) -> None:
        """Declare outputs that have no gradient: they are returned with ``requires_grad=False``
        and backward receives zeros (or None, see :meth:`set_materialize_grads`) for them.
        A second call replaces the first."""
        self._non_differentiable = self._forward_only_tensors(outputs, "mark_non_differentiable")

    def set_materialize_grads(self, value: bool) -> None:
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
