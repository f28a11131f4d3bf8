"""The optimizer base class (``Optimizer``) and R torch's ``optimizer()`` factory.

An optimizer holds *parameter groups*: a list of dicts, each with the key ``params`` (the
tensors it updates) and the group's options (``lr``, ``momentum``, ...). Options not given for a
group take the optimizer's ``defaults``. Per-parameter state (momentum buffers, running averages)
lives in ``state``, a dict keyed by the parameter tensor.

Updates run under no-grad and write into the parameters' arrays in place; every write to a
parameter (or its ``.grad``) bumps the tensor's version counter, so a graph that saved the old
value notices, as in libtorch.
"""
from __future__ import annotations

import copy
import functools
import numbers
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Union

import numpy as np

from ..autograd.grad_mode import with_enable_grad
from ..dtypes import BF16_SEEN
from ..numerics import bfloat16
from ..numerics.fpquiet import quiet_fp
from ..autograd.graph import bump_version
from ..tensor import Tensor
from .generator import make_class, super_initialize

# What an optimizer optimizes: a tensor, tensors, a module's ``parameters`` (name -> tensor) or
# parameter groups (dicts with ``params``); and what ``step(closure)`` calls. (Union: evaluated
# at run time, and Python 3.9 is supported.)
ParamsLike = Union[Tensor, Iterable[Tensor], Mapping[str, Any], Iterable[Mapping[str, Any]]]
Closure = Callable[[], Any]

__all__ = ["Optimizer", "optimizer", "optim_required", "is_optimizer"]


class _Required:
    """The marker of an option without a default (R torch's ``optim_required()``)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return "optim_required()"

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def optim_required():
    """The default of an option every parameter group must give (``lr`` of :func:`optim_sgd`).

    A group that leaves it out is refused with "parameter group didn't specify a value of
    required optimization parameter <name>"."""
    return _Required()


def is_optimizer(x):
    """Whether ``x`` is an optimizer (an instance of :class:`Optimizer`)."""
    return isinstance(x, Optimizer)


def _copy_state_value(value):
    """A deep copy of a state value whose tensors own fresh arrays (no aliasing of buffers)."""
    if isinstance(value, Tensor):
        return Tensor._make(np.array(value._data, copy=True))
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, dict):
        return {k: _copy_state_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_state_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_copy_state_value(v) for v in value)
    return copy.deepcopy(value)


def _cast_state_value(value, param, key=None):
    """A loaded state value fitted to its parameter: floating tensors take the parameter's
    dtype (PyTorch's rule), except the step counter."""
    if isinstance(value, Tensor):
        data = value._data
        if key != "step" and data.dtype.kind == "f" and data.dtype != param._data.dtype:
            data = data.astype(param._data.dtype)
        else:
            data = np.array(data, copy=True)
        return Tensor._make(data)
    if isinstance(value, dict):
        return {k: _cast_state_value(v, param, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_cast_state_value(v, param, key) for v in value]
    if isinstance(value, tuple):
        return tuple(_cast_state_value(v, param, key) for v in value)
    return copy.deepcopy(value)


def check_number(name, value, low=None, low_open=False, high=None, high_open=False,
                 message=None):
    """Refuse an option that is not a real number, or is outside [low, high] (open ends when
    asked), with PyTorch's message ``Invalid <what> value: <value>`` (``message`` overrides)."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    bad = value != value  # NaN
    if low is not None:
        bad = bad or (value <= low if low_open else value < low)
    if high is not None:
        bad = bad or (value >= high if high_open else value > high)
    if bad:
        raise ValueError(message.format(value) if message else f"Invalid {name} value: {value}")


def as_count(name, value, minimum=0, message=None):
    """``value`` as an int: an integer, or a float with an integral value (R's ``20``), at least
    ``minimum``; else TypeError (not a whole number) or ValueError (too small; ``message``,
    formatted with the value, overrides the text)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or \
            not float(value).is_integer():
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(message.format(value) if message else
                         f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_flag(name, value):
    """Refuse an option that must be TRUE or FALSE but is something else."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be TRUE or FALSE (a bool), got {type(value).__name__}")


class Optimizer:
    """Base class of all optimizers; subclass it to write your own (or use :func:`optimizer`).

    ``Optimizer(params, defaults)``:

    * ``params``: a tensor, a list of tensors, or a list of dicts (parameter groups), each with
      a ``params`` entry and any options that differ from ``defaults`` for that group (R torch's
      ``list(list(params = ..., lr = ...), ...)``).
    * ``defaults``: a dict of every option the optimizer knows and its default value
      (:func:`optim_required` when a group must give it).

    Attributes: ``defaults``; ``param_groups`` (a list of dicts: ``params`` plus the group's
    options, which you may change between steps, e.g. ``opt.param_groups[0]["lr"] = 0.01``);
    ``state`` (a dict from parameter tensor to a dict of that parameter's state; a missing
    entry reads as an empty dict).

    A subclass implements ``step(closure=None)``, usually as::

        def step(self, closure=None):
            loss = self._eval_closure(closure)     # runs the closure with grad mode on
            with with_no_grad():
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is None:
                            continue
                        ...  # update p in place (p.add_(...), or p._data plus bump_version(p))
            return loss

    and may override ``_check_group(group)`` to validate a group's options (it runs, on the
    group merged with the defaults, before the group is added).
    """
    # the generator's (set below the class): what an initialize() given to a generator calls
    super_initialize: Callable[..., None]

    def __init__(self, params: ParamsLike, defaults: dict[str, Any]) -> None:
        if not isinstance(defaults, dict):
            raise TypeError(f"defaults must be a dict, got {type(defaults).__name__}")
        self.defaults = dict(defaults)
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, (set, frozenset)):
            raise TypeError(_SET_ERROR)
        elif isinstance(params, Mapping):
            # a module's ``parameters`` (names -> tensors, R torch's named list) is a list of
            # tensors; any other mapping is one parameter group
            if "params" not in params and all(isinstance(v, Tensor) for v in params.values()):
                params = list(params.values())
            else:
                params = [params]
        try:
            groups = list(params)
        except TypeError:
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {type(params).__name__}") from None
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    # -- groups ----------------------------------------------------------------------------------
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a parameter group (a dict with ``params`` and options; options left out take the
        optimizer's defaults). Useful to start training layers that were frozen. Nothing is
        added when the group is refused (unknown option, missing required option, invalid
        value, a tensor that is not a leaf requiring grad, or one already optimized)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, got {type(param_group).__name__}")
        if "params" not in param_group:
            raise ValueError("param group has no 'params' entry")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, (set, frozenset)):
            raise TypeError(_SET_ERROR)
        else:
            try:
                params = list(params)
            except TypeError:
                raise TypeError("params must be a Tensor or a list of Tensors, got "
                                f"{type(params).__name__}") from None
        if len(params) == 0:
            raise ValueError("optimizer got an empty parameter list")
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                f"{type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
            # a frozen parameter (requires_grad FALSE) is accepted, as in PyTorch and R torch:
            # it never gets a gradient, so every step leaves it alone
        unknown = [k for k in param_group if k != "params" and k not in self.defaults and
                   k not in _SCHEDULER_KEYS]
        if unknown:
            known = ", ".join(self.defaults)
            raise ValueError(f"unknown optimizer option{'s' if len(unknown) > 1 else ''} "
                             f"{', '.join(repr(k) for k in unknown)} in parameter group; "
                             f"{type(self).__name__} knows: {known}")
        group = {"params": params}
        group.update((k, param_group[k]) for k in _SCHEDULER_KEYS if k in param_group)
        for name, default in self.defaults.items():
            if name in param_group:
                group[name] = param_group[name]
            elif isinstance(default, _Required):
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            else:
                group[name] = copy.deepcopy(default)
        seen = set()
        for p in params:
            if id(p) in seen:
                raise ValueError("optimizer contains a parameter group with duplicate parameters")
            seen.add(id(p))
        for other in self.param_groups:
            if any(id(q) in seen for q in other["params"]):
                raise ValueError("some parameters appear in more than one parameter group")
        self._check_group(group)
        self.param_groups.append(group)

    def _check_group(self, group):
        """Validate a group's options (merged with the defaults). The base checks ``lr``."""
        if "lr" in group:
            check_number("lr", group["lr"], low=0, message="Invalid learning rate: {}")

    # -- gradients -------------------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = False) -> None:
        """Reset the gradients of all optimized tensors.

        As in R torch (and unlike PyTorch, whose default is ``set_to_none=True``), the default
        sets each existing gradient to zero in place (detaching it first when it has history);
        gradients that were never computed stay ``None``. ``set_to_none=True`` drops them
        instead (PyTorch's default): the next backward then allocates fresh gradients, and a
        parameter that receives none is skipped by ``step()`` rather than updated with zero."""
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if set_to_none:
                    p._grad = None
                    continue
                if g._grad_fn is not None:
                    g.detach_()
                else:
                    g._requires_grad = False
                if g._data.flags.writeable:
                    g._data.fill(0)
                else:
                    g._data = np.zeros(g._data.shape, g._data.dtype)
                bump_version(g)

    def __init_subclass__(cls, **kwargs):
        # every optimizer's step updates arrays in place: a bfloat16 parameter (and its state)
        # is rounded back to bfloat16 after each step (libtorch's update ops round each result)
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is None or getattr(step, "rounds_bfloat16", False):
            return

        @functools.wraps(step)
        def rounded_step(self, *args, **kwargs):
            out = step(self, *args, **kwargs)
            if BF16_SEEN[0]:
                self._round_bfloat16()
            return out
        rounded_step.rounds_bfloat16 = True
        # (NumPy's inf/nan warnings off during the step's array arithmetic, as in the ops:
        # numerics/fpquiet.py; a closure's own NumPy code runs under the same setting)
        cls.step = quiet_fp(rounded_step)

    def _round_bfloat16(self):
        for group in self.param_groups:
            for p in group["params"]:
                if not p._bf16:
                    continue
                state = self.state.get(p, {}) if isinstance(self.state, Mapping) else {}
                for t in [p] + [v for v in state.values() if isinstance(v, Tensor)]:
                    if t._data.dtype == np.float32 and not bfloat16.on_grid(t._data):
                        if t._data.flags.writeable:
                            bfloat16.round_in_place(t._data)
                        else:
                            t._data = bfloat16.to_grid(t._data)
                    t._bf16 = True

    # -- stepping --------------------------------------------------------------------------------
    def step(self, closure: Closure | None = None) -> Any:
        """Perform one optimization step; returns the closure's loss when one is given."""
        raise NotImplementedError(f"{type(self).__name__} does not implement step()")

    @staticmethod
    def _params_with_grad(group):
        """(parameter, its array, its gradient's array) for each parameter of ``group`` that
        has a gradient: the loop every built-in ``step`` runs."""
        for p in group["params"]:
            grad = p._grad
            if grad is not None:
                yield p, p._data, grad._data

    def _decayed(self, d, g, wd, k):
        """``g + wd * d`` (L2 weight decay added to the gradient ``g`` of the parameter array
        ``d``) in scratch buffer ``k``: the gradient itself is left alone."""
        out = np.multiply(d, wd, out=self._scratch(d, k))
        out += g
        return out

    def _scratch(self, like, k=0):
        """A scratch array shaped like ``like`` (its dtype), the ``k``-th of this optimizer's
        reusable buffers: one flat buffer per (dtype, k), grown to the largest parameter, so
        a step allocates nothing per parameter. Not part of the state."""
        buffers = self.__dict__.setdefault("_buffers", {})
        key = (like.dtype, k)
        buf = buffers.get(key)
        if buf is None or buf.size < like.size:
            buf = buffers[key] = np.empty(like.size, like.dtype)
        return buf[:like.size].reshape(like.shape)

    @staticmethod
    def _eval_closure(closure):
        """Call ``closure()`` with grad mode on (the step itself runs under no-grad) and return
        its result; None without a closure."""
        if closure is None:
            return None
        if not callable(closure):
            raise TypeError(f"closure must be a function, got {type(closure).__name__}")
        with with_enable_grad():
            return closure()

    # -- saving and loading ----------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state as a dict of two entries:

        * ``state``: ``{index: {name: value}}`` for each parameter that has state, where the
          index is the parameter's position (0-based) counting through all groups in order;
        * ``param_groups``: a list of dicts, each group's options with ``params`` replaced by
          the parameters' indices.

        The values are copies: later steps do not change a state dict already taken (PyTorch
        returns references to the live buffers)."""
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: copy.deepcopy(v) for k, v in group.items() if k != "params"}
            ids = []
            for p in group["params"]:
                if id(p) not in index:
                    index[id(p)] = len(index)
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {}
        for group in self.param_groups:
            for p in group["params"]:
                if p in self.state and self.state[p]:
                    state[index[id(p)]] = _copy_state_value(self.state[p])
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Load a state dict from :meth:`state_dict` (of an optimizer of the same kind over
        parameters of the same shapes, in the same groups). The groups' options (``lr``, ...)
        and the per-parameter state are replaced; the parameters themselves are kept. The
        state dict is copied, not aliased. A state dict whose groups do not match this
        optimizer's is refused and the optimizer is left unchanged."""
        if not isinstance(state_dict, dict) or "param_groups" not in state_dict or \
                "state" not in state_dict:
            raise ValueError("state_dict must be a dict with entries 'state' and 'param_groups'")
        saved_groups = list(state_dict["param_groups"])
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups "
                             f"({len(saved_groups)}) than the optimizer "
                             f"({len(self.param_groups)})")
        by_index = {}
        for i, (group, saved) in enumerate(zip(self.param_groups, saved_groups)):
            if not isinstance(saved, dict) or "params" not in saved:
                raise ValueError(f"loaded parameter group {i} is not a dict with 'params'")
            if len(saved["params"]) != len(group["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size of "
                    f"optimizer's group (group {i}: {len(saved['params'])} parameters saved, "
                    f"{len(group['params'])} in the optimizer)")
            unknown = [k for k in saved if k != "params" and k not in group and
                       k not in _SCHEDULER_KEYS]
            if unknown:
                raise ValueError(f"loaded parameter group {i} has options unknown to "
                                 f"{type(self).__name__}: {', '.join(map(repr, unknown))}")
            for idx, p in zip(saved["params"], group["params"]):
                by_index[idx] = p
        saved_state = state_dict["state"]
        if not isinstance(saved_state, dict):
            raise ValueError("the state dict's 'state' entry must be a dict")
        for key, value in saved_state.items():
            if key not in by_index:
                raise ValueError(f"loaded state refers to parameter {key!r}, which no loaded "
                                 "parameter group contains")
            if not isinstance(value, dict):
                raise ValueError(f"loaded state of parameter {key!r} is not a dict")
        # everything checked: build the new state and groups, then swap them in
        new_state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        for key, value in saved_state.items():
            p = by_index[key]
            new_state[p] = _cast_state_value(value, p)
        new_groups = []
        for group, saved in zip(self.param_groups, saved_groups):
            new = {k: copy.deepcopy(v) for k, v in saved.items() if k != "params"}
            new["params"] = group["params"]
            new_groups.append(new)
        for group in new_groups:
            self._check_group(group)
        self.state = new_state
        self.param_groups = new_groups

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(group):
                if k != "params":
                    lines.append(f"    {k}: {group[k]}")
        lines.append(")")
        return "\n".join(lines)


_SET_ERROR = ("optimizer parameters need to be organized in ordered collections, but the "
              "ordering of tensors in sets will change between runs. Please use a list instead.")
# keys the learning-rate schedulers add to the groups (a saved optimizer may carry them)
_SCHEDULER_KEYS = frozenset({"initial_lr", "max_lr", "min_lr", "max_momentum", "base_momentum"})


def optimizer(classname=None, initialize=None, step=None, inherit=None, **methods):
    """Define an optimizer class, as R torch's ``optimizer()`` does.

    * ``initialize(self, params, ...)``: sets the optimizer up; it must call
      ``self.super_initialize(params, defaults)`` (R torch's ``super$initialize(params,
      defaults)``), which runs the parent class's constructor (``Optimizer``'s takes the
      parameters and a dict of option defaults).
    * ``step(self, closure=None)``: one update; it reads ``self.param_groups`` and
      ``self.state`` and should change the parameters under :func:`with_no_grad`.
    * ``inherit``: the parent class (default :class:`Optimizer`), e.g. to reuse another
      optimizer's methods.
    * any other keyword: a method (a function taking ``self``) or a class attribute.

    Returns the class; calling it creates an optimizer::

        def initialize(self, params, learning_rate):
            self.super_initialize(params, {"learning_rate": learning_rate})

        def step(self, closure=None):
            with with_no_grad():
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            p.add_(p.grad, alpha=-group["learning_rate"])

        optim_sgd2 = optimizer("optim_sgd2", initialize, step)
        opt = optim_sgd2([x], learning_rate=0.1)
    """
    if classname is None:
        classname = "optimizer"
    if not isinstance(classname, str):
        raise TypeError(f"classname must be a string, got {type(classname).__name__}")
    if step is not None and not callable(step):
        raise TypeError(f"step must be a function, got {type(step).__name__}")
    namespace = dict(methods)
    if step is not None:
        namespace["step"] = step
    if initialize is not None:
        namespace["initialize"] = initialize
    return make_class(Optimizer, "an optimizer class", classname,
                      Optimizer if inherit is None else inherit, initialize, namespace,
                      "param_groups", "params, defaults",
                      f"Optimizer {classname} (defined with optimizer()).")


Optimizer.super_initialize = super_initialize
