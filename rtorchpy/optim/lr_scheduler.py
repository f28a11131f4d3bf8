"""Learning-rate schedulers (R torch's ``lr_*``), with PyTorch's schedules.

A scheduler changes the ``lr`` of each of an optimizer's parameter groups. Call its ``step()``
once per epoch (or per batch, for :class:`lr_one_cycle`), after the optimizer's ``step()``;
``get_last_lr()`` gives the learning rates it set last, one per group. Creating a scheduler
records each group's starting ``lr`` as ``initial_lr`` in the group and takes the first step
(step 0), as in PyTorch.
"""
from __future__ import annotations

import copy
import math
import numbers
import types
from collections.abc import Callable

from .generator import make_class, super_initialize
from .optimizer import Optimizer, as_count

__all__ = ["LRScheduler", "lr_scheduler", "lr_step", "lr_multiplicative", "lr_lambda",
           "lr_one_cycle", "lr_cosine_annealing", "lr_reduce_on_plateau"]


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _format_param(name, optimizer, param):
    """One value per parameter group: a list/tuple must have one per group."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(param)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")
        return list(param)
    return [param] * len(optimizer.param_groups)


class LRScheduler:
    """Base class of the learning-rate schedulers.

    ``LRScheduler(optimizer, last_epoch = -1)``. A subclass sets its own attributes, calls this
    constructor, and implements ``get_lr()``: the list of learning rates (one per parameter
    group) for epoch ``self.last_epoch``, usually computed from ``self.base_lrs`` (each
    group's ``initial_lr``) or from the groups' current ``lr`` (a *chainable* form). During the
    constructor's first step ``self._is_initial`` is True.

    Attributes: ``optimizer``, ``base_lrs``, ``last_epoch`` (the number of ``step()`` calls;
    0 after creation).
    """
    # the generator's (set below the class): what an initialize() given to a generator calls
    super_initialize: Callable[..., None]

    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        _check_optimizer(optimizer)
        last_epoch = as_count("last_epoch", last_epoch, -1)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] "
                                   "when resuming scheduler with last_epoch >= 0")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self):
        """The learning rates for epoch ``last_epoch`` (one per group); subclasses define it."""
        raise NotImplementedError(f"{type(self).__name__} does not implement get_lr()")

    def get_last_lr(self):
        """The learning rates this scheduler set last, one per parameter group."""
        return list(self._last_lr)

    def step(self):
        """Advance one epoch and set each group's ``lr`` to the schedule's value."""
        self._step_count += 1
        self.last_epoch += 1
        values = list(self.get_lr())
        groups = self.optimizer.param_groups
        if len(values) != len(groups):
            raise ValueError(f"{type(self).__name__}.get_lr() gave {len(values)} learning "
                             f"rates for {len(groups)} parameter groups")
        for group, lr in zip(groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in groups]

    def state_dict(self):
        """The scheduler's state (all its attributes but the optimizer) as a dict."""
        return {k: copy.deepcopy(v) for k, v in self.__dict__.items()
                if k not in ("optimizer", "_init_classes")}

    def load_state_dict(self, state_dict):
        """Restore the state from :meth:`state_dict`."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"state_dict must be a dict, got {type(state_dict).__name__}")
        self.__dict__.update(copy.deepcopy(state_dict))


class _LambdaBase(LRScheduler):
    """Shared by lr_lambda and lr_multiplicative: one function per group."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                                 f"{len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        """The state (as :meth:`LRScheduler.state_dict`); the functions themselves are not
        saved (a callable object's attributes are)."""
        state = {k: copy.deepcopy(v) for k, v in self.__dict__.items()
                 if k not in ("optimizer", "lr_lambdas", "_init_classes")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType)
                               else copy.deepcopy(getattr(fn, "__dict__", None))
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        fns = state.pop("lr_lambdas", [None] * len(self.lr_lambdas))
        super().load_state_dict(state)
        for own, saved in zip(self.lr_lambdas, fns):
            if saved is not None:
                own.__dict__.update(saved)


class lr_lambda(_LambdaBase):
    """``lr_lambda(optimizer, lr_lambda, last_epoch = -1)``: each group's learning rate is its
    initial one times ``lr_lambda(epoch)`` (a function of the epoch count, or a list of
    functions, one per group)."""

    def get_lr(self):
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas,
                                                                      self.base_lrs)]


class lr_multiplicative(_LambdaBase):
    """``lr_multiplicative(optimizer, lr_lambda, last_epoch = -1)``: each step multiplies each
    group's learning rate by ``lr_lambda(epoch)`` (a function, or a list of them, one per
    group)."""

    def get_lr(self):
        if self._is_initial:
            return [group["lr"] for group in self.optimizer.param_groups]
        return [group["lr"] * fn(self.last_epoch)
                for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]


class lr_step(LRScheduler):
    """``lr_step(optimizer, step_size, gamma = 0.1, last_epoch = -1)``: every ``step_size``
    epochs each group's learning rate is multiplied by ``gamma``."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        step_size = as_count("step_size", step_size, 1,
                             "step_size must be a positive integer, got {}")
        if not isinstance(gamma, numbers.Real) or isinstance(gamma, bool):
            raise TypeError(f"gamma must be a number, got {type(gamma).__name__}")
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [group["lr"] for group in self.optimizer.param_groups]
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]


class lr_cosine_annealing(LRScheduler):
    """``lr_cosine_annealing(optimizer, T_max, eta_min = 0, last_epoch = -1)``: the learning
    rate follows a cosine from its initial value down to ``eta_min`` over ``T_max`` epochs
    (and back up over the next ``T_max``), computed in PyTorch's recursive form:

        lr_t = eta_min + (lr_{t-1} - eta_min) * (1 + cos(pi t / T_max))
                                              / (1 + cos(pi (t - 1) / T_max))

    which, from the initial rate, is ``eta_min + (lr_0 - eta_min) * (1 + cos(pi t / T_max)) / 2``.
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        if not isinstance(T_max, numbers.Real) or isinstance(T_max, bool) or T_max <= 0:
            raise ValueError(f"T_max must be a positive number, got {T_max!r}")
        if not isinstance(eta_min, numbers.Real) or isinstance(eta_min, bool):
            raise TypeError(f"eta_min must be a number, got {type(eta_min).__name__}")
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        if self._is_initial:
            return [group["lr"] for group in groups]
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (base_lr - self.eta_min) *
                    (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base_lr in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [group["lr"] + (base_lr - self.eta_min) *
                    (1 - math.cos(math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max)) /
                (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max)) *
                (group["lr"] - self.eta_min) + self.eta_min for group in groups]


class lr_one_cycle(LRScheduler):
    """The 1cycle policy: ``lr_one_cycle(optimizer, max_lr, total_steps = NULL, epochs = NULL,
    steps_per_epoch = NULL, pct_start = 0.3, anneal_strategy = "cos", cycle_momentum = TRUE,
    base_momentum = 0.85, max_momentum = 0.95, div_factor = 25, final_div_factor = 1e4,
    three_phase = FALSE, last_epoch = -1)``.

    The learning rate rises from ``max_lr / div_factor`` to ``max_lr`` over the first
    ``pct_start`` of ``total_steps`` (or ``epochs * steps_per_epoch``) steps, then falls to
    ``max_lr / div_factor / final_div_factor`` (with ``three_phase``, it first falls back to
    the initial rate symmetrically, then to the minimum). ``anneal_strategy`` is ``"cos"`` or
    ``"linear"``. With ``cycle_momentum`` the momentum (or Adam's ``beta1``) moves inversely
    between ``max_momentum`` and ``base_momentum``. ``max_lr``, ``base_momentum`` and
    ``max_momentum`` may be lists, one value per group. Step it after every batch; stepping
    past ``total_steps`` is an error.
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            self.total_steps = as_count("total_steps", total_steps, 1,
                                        "Expected positive integer total_steps, but got {}")
        elif epochs is not None and steps_per_epoch is not None:
            epochs = as_count("epochs", epochs, 1, "Expected positive integer epochs, but got {}")
            steps_per_epoch = as_count("steps_per_epoch", steps_per_epoch, 1,
                                       "Expected positive integer steps_per_epoch, but got {}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if not isinstance(pct_start, numbers.Real) or isinstance(pct_start, bool) or \
                not 0 <= pct_start <= 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self.anneal_strategy = anneal_strategy
        if three_phase:
            self._schedule_phases = [
                {"end_step": float(pct_start * self.total_steps) - 1, "start_lr": "initial_lr",
                 "end_lr": "max_lr", "start_momentum": "max_momentum",
                 "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * self.total_steps) - 2, "start_lr": "max_lr",
                 "end_lr": "initial_lr", "start_momentum": "base_momentum",
                 "end_momentum": "max_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"},
            ]
        else:
            self._schedule_phases = [
                {"end_step": float(pct_start * self.total_steps) - 1, "start_lr": "initial_lr",
                 "end_lr": "max_lr", "start_momentum": "max_momentum",
                 "end_momentum": "base_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
            ]
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        self.cycle_momentum = bool(cycle_momentum)
        if self.cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                                 "option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            base_momentums = _format_param("base_momentum", optimizer, base_momentum)
        # all checked: now write into the groups
        if last_epoch == -1:
            for idx, group in enumerate(optimizer.param_groups):
                group["initial_lr"] = max_lrs[idx] / div_factor
                group["max_lr"] = max_lrs[idx]
                group["min_lr"] = group["initial_lr"] / final_div_factor
            if self.cycle_momentum:
                for m_mom, b_mom, group in zip(max_momentums, base_momentums,
                                               optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (m_mom, *group["betas"][1:])
                    else:
                        group["momentum"] = m_mom
                    group["max_momentum"] = m_mom
                    group["base_momentum"] = b_mom
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        lrs = []
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total "
                             f"steps is {self.total_steps}")
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    computed_lr = self._anneal(group[phase["start_lr"]], group[phase["end_lr"]],
                                               pct)
                    if self.cycle_momentum:
                        computed_momentum = self._anneal(group[phase["start_momentum"]],
                                                         group[phase["end_momentum"]], pct)
                    break
                start_step = phase["end_step"]
            lrs.append(computed_lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    group["betas"] = (computed_momentum, *group["betas"][1:])
                else:
                    group["momentum"] = computed_momentum
        return lrs


class lr_reduce_on_plateau(LRScheduler):
    """``lr_reduce_on_plateau(optimizer, mode = "min", factor = 0.1, patience = 10,
    threshold = 1e-4, threshold_mode = "rel", cooldown = 0, min_lr = 0, eps = 1e-8)``.

    Multiplies the learning rates by ``factor`` when a metric has stopped improving for more
    than ``patience`` epochs. Call ``step(metrics)`` with the metric (e.g. the validation loss)
    each epoch. ``mode`` ``"min"``: lower is better (``"max"``: higher). An improvement must
    beat the best so far by ``threshold`` (``threshold_mode = "rel"``: relatively,
    ``best * (1 - threshold)`` in min mode; ``"abs"``: ``best - threshold``). After a reduction,
    ``cooldown`` epochs pass before bad epochs count again. Learning rates never go below
    ``min_lr`` (a number, or a list, one per group), and a reduction smaller than ``eps`` is
    skipped.
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if not isinstance(factor, numbers.Real) or isinstance(factor, bool):
            raise TypeError(f"factor must be a number, got {type(factor).__name__}")
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        _check_optimizer(optimizer)
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode} is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode} is unknown!")
        patience = as_count("patience", patience, 0,
                            "patience must be a non-negative integer, got {}")
        cooldown = as_count("cooldown", cooldown, 0,
                            "cooldown must be a non-negative integer, got {}")
        self.factor = factor
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got "
                                 f"{len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self._last_lr = [group["lr"] for group in optimizer.param_groups]
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def get_lr(self):
        return [group["lr"] for group in self.optimizer.param_groups]

    def step(self, metrics):
        """Record one epoch's metric (a number or one-element tensor) and reduce the
        learning rates if it has not improved for more than ``patience`` epochs."""
        current = float(metrics)
        self.last_epoch += 1
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs "
                    f"from when `lr_reduce_on_plateau` was initialized ({len(self.min_lrs)}), "
                    "usually due to a new param group being added to the optimizer. Please "
                    "modify the `min_lrs` field to match the length of the `optimizer` param "
                    "groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for i, group in enumerate(groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr


def lr_scheduler(classname=None, initialize=None, get_lr=None, inherit=None, **methods):
    """Define a scheduler class, as R torch's ``lr_scheduler()`` does.

    ``initialize(self, optimizer, ...)`` stores its settings and must call
    ``self.super_initialize(optimizer, last_epoch)`` (R torch's ``super$initialize``);
    ``get_lr(self)`` returns the learning rates for ``self.last_epoch``, one per parameter
    group. ``inherit`` is the parent class (default :class:`LRScheduler`); other keywords
    become methods or class attributes. Returns the class."""
    if classname is None:
        classname = "lr_scheduler"
    if get_lr is not None and not callable(get_lr):
        raise TypeError(f"get_lr must be a function, got {type(get_lr).__name__}")
    namespace = dict(methods)
    if get_lr is not None:
        namespace["get_lr"] = get_lr
    return make_class(LRScheduler, "a scheduler class", classname,
                      LRScheduler if inherit is None else inherit, initialize, namespace,
                      "optimizer", "optimizer, ...",
                      f"Scheduler {classname} (defined with lr_scheduler()).")


LRScheduler.super_initialize = super_initialize
