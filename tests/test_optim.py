"""Optimizers (rtorchpy/optim): trajectories against PyTorch 2.13 and against values recorded
from it (so the comparison runs without PyTorch too), state dicts, parameter groups, custom
optimizers and every refusal.

The recorded block at the end is written by ``scripts/record_optim_expected.py``.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import rtorchpy as r
from rtorchpy import (Optimizer, optim_adadelta, optim_adagrad, optim_adam, optim_adamw,
                     optim_lbfgs, optim_rmsprop, optim_sgd, optimizer, torch_tensor, with_no_grad)
from _optim_problems import make, run

RTOL, ATOL = 1e-12, 1e-14

# (id, optimizer, options, problem, steps, per-group options or None)
CASES = [
    ("sgd", "optim_sgd", dict(lr=0.05), "quadratic", 5, None),
    ("sgd_rosenbrock", "optim_sgd", dict(lr=1e-3), "rosenbrock", 5, None),
    ("sgd_momentum", "optim_sgd", dict(lr=0.05, momentum=0.9), "linreg", 5, None),
    ("sgd_dampening", "optim_sgd", dict(lr=0.05, momentum=0.9, dampening=0.5), "linreg", 5,
     None),
    ("sgd_nesterov", "optim_sgd", dict(lr=0.05, momentum=0.9, nesterov=True), "linreg", 5, None),
    ("sgd_weight_decay", "optim_sgd", dict(lr=0.05, weight_decay=0.1), "linreg", 5, None),
    ("sgd_all", "optim_sgd", dict(lr=0.05, momentum=0.8, weight_decay=0.05, nesterov=True),
     "linreg", 5, None),
    ("sgd_groups", "optim_sgd", dict(lr=0.05),
     "linreg", 5, [dict(lr=0.1, momentum=0.9), dict(weight_decay=0.2)]),
    ("adam", "optim_adam", dict(lr=0.1), "quadratic", 5, None),
    ("adam_rosenbrock", "optim_adam", dict(lr=0.05), "rosenbrock", 5, None),
    ("adam_betas", "optim_adam", dict(lr=0.1, betas=(0.8, 0.99)), "linreg", 5, None),
    ("adam_eps", "optim_adam", dict(lr=0.1, eps=1e-3), "linreg", 5, None),
    ("adam_weight_decay", "optim_adam", dict(lr=0.1, weight_decay=0.1), "linreg", 5, None),
    ("adam_amsgrad", "optim_adam", dict(lr=0.1, amsgrad=True), "linreg", 5, None),
    ("adam_all", "optim_adam", dict(lr=0.05, betas=(0.7, 0.95), eps=1e-4, weight_decay=0.2,
                                    amsgrad=True), "rosenbrock", 5, None),
    ("adam_groups", "optim_adam", dict(lr=0.1),
     "linreg", 5, [dict(lr=0.01, amsgrad=True), dict(betas=(0.5, 0.9))]),
    ("adamw", "optim_adamw", dict(lr=0.1), "quadratic", 5, None),
    ("adamw_options", "optim_adamw", dict(lr=0.1, betas=(0.8, 0.99), eps=1e-3, weight_decay=0.3),
     "linreg", 5, None),
    ("adamw_amsgrad", "optim_adamw", dict(lr=0.1, weight_decay=0.1, amsgrad=True), "rosenbrock",
     5, None),
    ("rmsprop", "optim_rmsprop", dict(), "quadratic", 5, None),
    ("rmsprop_alpha_eps", "optim_rmsprop", dict(lr=0.05, alpha=0.9, eps=1e-3), "linreg", 5,
     None),
    ("rmsprop_weight_decay", "optim_rmsprop", dict(lr=0.05, weight_decay=0.1), "linreg", 5, None),
    ("rmsprop_momentum", "optim_rmsprop", dict(lr=0.01, momentum=0.9), "linreg", 5, None),
    ("rmsprop_centered", "optim_rmsprop", dict(lr=0.01, centered=True), "linreg", 5, None),
    ("rmsprop_all", "optim_rmsprop", dict(lr=0.01, alpha=0.95, eps=1e-6, weight_decay=0.05,
                                          momentum=0.5, centered=True), "rosenbrock", 5, None),
    ("adagrad", "optim_adagrad", dict(lr=0.1), "quadratic", 5, None),
    ("adagrad_lr_decay", "optim_adagrad", dict(lr=0.1, lr_decay=0.1), "linreg", 5, None),
    ("adagrad_weight_decay", "optim_adagrad", dict(lr=0.1, weight_decay=0.1), "linreg", 5, None),
    ("adagrad_initial_acc", "optim_adagrad", dict(lr=0.1, initial_accumulator_value=0.5),
     "linreg", 5, None),
    ("adagrad_eps", "optim_adagrad", dict(lr=0.1, eps=1e-2), "rosenbrock", 5, None),
    ("adagrad_groups", "optim_adagrad", dict(lr=0.1),
     "linreg", 5, [dict(lr=0.3, weight_decay=0.1), dict(lr_decay=0.5)]),
    ("adadelta", "optim_adadelta", dict(), "quadratic", 5, None),
    ("adadelta_lr_rho", "optim_adadelta", dict(lr=0.5, rho=0.5), "linreg", 5, None),
    ("adadelta_eps", "optim_adadelta", dict(eps=1e-3), "linreg", 5, None),
    ("adadelta_weight_decay", "optim_adadelta", dict(weight_decay=0.1), "rosenbrock", 5, None),
    ("lbfgs", "optim_lbfgs", dict(max_iter=5), "rosenbrock", 3, None),
    ("lbfgs_quadratic", "optim_lbfgs", dict(), "quadratic", 2, None),
    ("lbfgs_lr_history", "optim_lbfgs", dict(lr=0.5, history_size=3, max_iter=7), "linreg", 3,
     None),
    ("lbfgs_max_eval", "optim_lbfgs", dict(max_iter=10, max_eval=4), "rosenbrock", 3, None),
    ("lbfgs_tolerances", "optim_lbfgs", dict(tolerance_grad=1e-3, tolerance_change=1e-4),
     "linreg", 3, None),
    ("lbfgs_wolfe", "optim_lbfgs", dict(line_search_fn="strong_wolfe", max_iter=5), "rosenbrock",
     3, None),
    ("lbfgs_wolfe_history", "optim_lbfgs", dict(line_search_fn="strong_wolfe", history_size=2,
                                                max_iter=3), "linreg", 3, None),
    ("lbfgs_wolfe_max_eval", "optim_lbfgs", dict(line_search_fn="strong_wolfe", max_iter=20,
                                                 max_eval=9), "rosenbrock", 2, None),
]
CASE_IDS = [c[0] for c in CASES]


def _close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_trajectory_matches_recorded(case):
    name, opt, kwargs, problem, steps, groups = case
    _close(run("rtorchpy", opt, kwargs, problem, steps, groups), EXPECTED[name])


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_trajectory_matches_torch(case):
    pytest.importorskip("torch")
    name, opt, kwargs, problem, steps, groups = case
    theirs = run("torch", opt, kwargs, problem, steps, groups)
    _close(run("rtorchpy", opt, kwargs, problem, steps, groups), theirs)
    _close(theirs, EXPECTED[name])  # the recorded values are still PyTorch's


def test_every_case_is_recorded():
    assert set(EXPECTED) == set(CASE_IDS)


# -- state dicts ---------------------------------------------------------------------------------
ROUND_TRIP = [
    ("optim_sgd", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("optim_adam", dict(lr=0.1, amsgrad=True)),
    ("optim_adamw", dict(lr=0.1)),
    ("optim_rmsprop", dict(lr=0.01, momentum=0.9, centered=True)),
    ("optim_adagrad", dict(lr=0.1, lr_decay=0.1)),
    ("optim_adadelta", dict()),
    ("optim_lbfgs", dict(max_iter=4)),
    ("optim_lbfgs", dict(max_iter=4, line_search_fn="strong_wolfe")),
]


def _steps(opt, params, loss_fn, n):
    def closure():
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss
    for _ in range(n):
        opt.step(closure)
    return np.concatenate([p.detach().numpy().ravel() for p in params])


@pytest.mark.parametrize("opt_name,kwargs", ROUND_TRIP, ids=[f"{o}-{i}" for i, (o, _) in
                                                               enumerate(ROUND_TRIP)])
def test_state_dict_round_trip_continues_the_trajectory(opt_name, kwargs):
    cls = getattr(r, opt_name)
    params, loss_fn = make("rtorchpy", "linreg")
    opt = cls(params, **kwargs)
    _steps(opt, params, loss_fn, 3)
    saved = opt.state_dict()
    values = [p.detach().numpy() for p in params]
    straight = _steps(opt, params, loss_fn, 3)
    # a fresh optimizer over fresh parameters holding the same values
    params2, loss_fn2 = make("rtorchpy", "linreg")
    with with_no_grad():
        for p, v in zip(params2, values):
            p.copy_(torch_tensor(v, dtype=r.torch_float64()))
    opt2 = cls(params2, **kwargs)
    opt2.load_state_dict(saved)
    resumed = _steps(opt2, params2, loss_fn2, 3)
    np.testing.assert_array_equal(resumed, straight)


def test_state_dict_is_a_copy_and_load_copies():
    params, loss_fn = make("rtorchpy", "linreg")
    opt = optim_adam(params, lr=0.1)
    _steps(opt, params, loss_fn, 2)
    sd = opt.state_dict()
    before = sd["state"][0]["exp_avg"].numpy().copy()
    _steps(opt, params, loss_fn, 1)
    np.testing.assert_array_equal(sd["state"][0]["exp_avg"].numpy(), before)
    assert sd["state"][0]["step"] == 2
    opt.load_state_dict(sd)
    _steps(opt, params, loss_fn, 1)
    np.testing.assert_array_equal(sd["state"][0]["exp_avg"].numpy(), before)


def test_state_dict_layout():
    w = torch_tensor([1.0, 2.0], requires_grad=True)
    b = torch_tensor([3.0], requires_grad=True)
    opt = optim_sgd([{"params": [w], "lr": 0.5}, {"params": b, "momentum": 0.9}], lr=0.1)
    (w.sum() + b.sum()).backward()
    opt.step()
    sd = opt.state_dict()
    assert sd["param_groups"] == [
        {"lr": 0.5, "momentum": 0, "dampening": 0, "weight_decay": 0, "nesterov": False,
         "params": [0]},
        {"lr": 0.1, "momentum": 0.9, "dampening": 0, "weight_decay": 0, "nesterov": False,
         "params": [1]}]
    assert list(sd["state"]) == [1]
    assert sd["state"][1]["momentum_buffer"].tolist() == [1.0]


def test_load_state_dict_restores_group_options():
    params, _ = make("rtorchpy", "linreg")
    opt = optim_adam(params, lr=0.1)
    sd = opt.state_dict()
    opt.param_groups[0]["lr"] = 5.0
    opt.load_state_dict(sd)
    assert opt.param_groups[0]["lr"] == 0.1
    assert opt.param_groups[0]["params"][0] is params[0]


def test_state_dict_carries_scheduler_keys():
    params, loss_fn = make("rtorchpy", "linreg")
    opt = optim_sgd(params, lr=0.1, momentum=0.9)
    r.lr_one_cycle(opt, max_lr=0.5, total_steps=10)
    sd = opt.state_dict()
    assert {"initial_lr", "max_lr", "min_lr", "max_momentum", "base_momentum"} <= \
        set(sd["param_groups"][0])
    params2, _ = make("rtorchpy", "linreg")
    opt2 = optim_sgd(params2, lr=0.1)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["max_lr"] == 0.5
    opt2.add_param_group(dict(opt2.param_groups[0], params=[torch_tensor([1.0],
                                                                         requires_grad=True)]))
    assert opt2.param_groups[1]["initial_lr"] == opt2.param_groups[0]["initial_lr"]


def _snapshot(opt):
    sd = opt.state_dict()
    return repr(sd["param_groups"]), {k: {n: np.asarray(v) if not isinstance(v, r.Tensor) else
                                          v.numpy() for n, v in s.items()}
                                      for k, s in sd["state"].items()}


@pytest.mark.parametrize("mutate,message", [
    (lambda sd: sd["param_groups"].append(dict(sd["param_groups"][0])),
     "different number of parameter groups"),
    (lambda sd: sd["param_groups"][0].__setitem__("params", [0]),
     "doesn't match the size of optimizer's group"),
    (lambda sd: sd["state"].__setitem__(7, {"step": 1}), "parameter 7"),
    (lambda sd: sd["param_groups"][0].__setitem__("bogus", 1), "unknown"),
    (lambda sd: sd["param_groups"][0].__setitem__("lr", -1.0), "Invalid learning rate"),
    (lambda sd: sd.pop("state"), "'state' and 'param_groups'"),
])
def test_load_state_dict_refuses_mismatch_and_changes_nothing(mutate, message):
    params, loss_fn = make("rtorchpy", "linreg")
    opt = optim_adam(params, lr=0.1)
    _steps(opt, params, loss_fn, 2)
    bad = opt.state_dict()
    mutate(bad)
    groups_before, state_before = _snapshot(opt)
    with pytest.raises(ValueError, match=message):
        opt.load_state_dict(bad)
    groups_after, state_after = _snapshot(opt)
    assert groups_after == groups_before
    assert state_after.keys() == state_before.keys()
    for k in state_before:
        for n in state_before[k]:
            np.testing.assert_array_equal(state_after[k][n], state_before[k][n])


# -- behaviour -----------------------------------------------------------------------------------
def test_zero_grad_zeroes_in_place_like_r_torch():
    w = torch_tensor([1.0, 2.0], requires_grad=True)
    other = torch_tensor([1.0], requires_grad=True)
    opt = optim_sgd([w, other], lr=0.1)
    (w * w).sum().backward()
    g = w.grad
    opt.zero_grad()
    assert w.grad is g and g.tolist() == [0.0, 0.0]
    assert other.grad is None  # never computed: stays None
    (w * w).sum().backward()
    assert w.grad.tolist() == [2.0, 4.0]
    opt.zero_grad(set_to_none=True)
    assert w.grad is None


def test_zero_grad_detaches_a_grad_with_history():
    w = torch_tensor([1.0, 2.0], requires_grad=True)
    opt = optim_sgd([w], lr=0.1)
    (w * w).sum().backward(create_graph=True)
    assert w.grad.grad_fn is not None
    opt.zero_grad()
    assert w.grad.grad_fn is None and not w.grad.requires_grad
    assert w.grad.tolist() == [0.0, 0.0]


def test_step_returns_the_closure_loss_and_runs_it_with_grad():
    w = torch_tensor([1.0, 2.0], requires_grad=True)
    opt = optim_adam([w], lr=0.1)
    seen = []

    def closure():
        seen.append(r.is_grad_enabled())
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with with_no_grad():
        loss = opt.step(closure)
    assert seen == [True] and loss.item() == 5.0
    assert opt.step() is None


def test_step_changes_parameters_in_place_and_bumps_versions():
    w = torch_tensor([1.0, 2.0], requires_grad=True)
    data = w._data
    opt = optim_sgd([w], lr=0.1)
    y = w * w          # saves w
    (w * 3).sum().backward()
    v0 = w._version[0]
    opt.step()
    assert w._data is data and w.tolist() == pytest.approx([0.7, 1.7])
    assert w._version[0] > v0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_parameters_without_grad_are_skipped():
    w = torch_tensor([1.0], requires_grad=True)
    b = torch_tensor([2.0], requires_grad=True)
    for cls in (optim_sgd, optim_adam, optim_adamw, optim_rmsprop, optim_adagrad,
                optim_adadelta):
        opt = cls([w, b], lr=0.1)
        w.grad = None
        (w * 2).sum().backward()
        opt.step()
        assert b.item() == 2.0
        assert b not in opt.state or cls is optim_adagrad


def test_changing_lr_in_param_groups_takes_effect():
    w = torch_tensor([1.0], requires_grad=True)
    opt = optim_sgd([w], lr=0.1)
    opt.param_groups[0]["lr"] = 0.5
    w.sum().backward()
    opt.step()
    assert w.item() == 0.5


@pytest.mark.parametrize("cls", [optim_sgd, optim_adam, optim_adamw, optim_rmsprop,
                                 optim_adagrad, optim_adadelta])
def test_float32_parameters_stay_float32(cls):
    w = torch_tensor([1.0, -2.0, 3.0], requires_grad=True)
    opt = cls([w], lr=0.1, **({"momentum": 0.9} if cls is optim_sgd else {}))
    for _ in range(3):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    assert w._data.dtype == np.float32
    for value in opt.state[w].values():
        if isinstance(value, r.Tensor):
            assert value._data.dtype == np.float32


def test_float32_adam_close_to_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    init = rng.standard_normal((64, 32)).astype(np.float32)
    grads = [rng.standard_normal((64, 32)).astype(np.float32) for _ in range(20)]
    for ours_cls, theirs_cls, kw in [(optim_adam, torch.optim.Adam, dict(lr=1e-2)),
                                     (optim_adamw, torch.optim.AdamW, dict(lr=1e-2,
                                                                           amsgrad=True))]:
        p = torch_tensor(init, requires_grad=True)
        q = torch.tensor(init, requires_grad=True)
        ours, theirs = ours_cls([p], **kw), theirs_cls([q], foreach=False, **kw)
        for g in grads:
            p.grad = torch_tensor(g)
            q.grad = torch.tensor(g)
            ours.step()
            theirs.step()
        # float32 results: equal to a few float32 ulps (PyTorch's sqrt on CPU comes from MKL
        # and its lerp/addcmul use fused multiply-adds, so single bits differ)
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=2e-6, atol=2e-7)


def test_add_param_group():
    w = torch_tensor([1.0], requires_grad=True)
    b = torch_tensor([2.0], requires_grad=True)
    opt = optim_sgd([w], lr=0.1, momentum=0.5)
    opt.add_param_group({"params": b, "lr": 1.0})
    assert opt.param_groups[1] == {"params": [b], "lr": 1.0, "momentum": 0.5, "dampening": 0,
                                   "weight_decay": 0, "nesterov": False}
    (w + b).sum().backward()
    opt.step()
    assert b.item() == 1.0 and w.item() == pytest.approx(0.9)


def test_adagrad_add_param_group_initializes_sum():
    w = torch_tensor([1.0], requires_grad=True)
    b = torch_tensor([2.0], requires_grad=True)
    opt = optim_adagrad([w], lr=0.1)
    opt.add_param_group({"params": [b], "initial_accumulator_value": 0.5})
    assert opt.state[b]["sum"].tolist() == [0.5]


def test_adagrad_initial_accumulator_value_per_group():
    # PyTorch fills every group's sum with the constructor's value; rtorchpy uses the group's
    w = torch_tensor([1.0], requires_grad=True)
    b = torch_tensor([2.0], requires_grad=True)
    opt = optim_adagrad([{"params": [w], "initial_accumulator_value": 3.0}, {"params": [b]}],
                        lr=0.1, initial_accumulator_value=1.0)
    assert opt.state[w]["sum"].tolist() == [3.0] and opt.state[b]["sum"].tolist() == [1.0]


def test_params_as_single_tensor_and_generator():
    w = torch_tensor([1.0], requires_grad=True)
    assert optim_sgd(w, lr=0.1).param_groups[0]["params"] == [w]
    assert optim_sgd((p for p in [w]), lr=0.1).param_groups[0]["params"] == [w]


def test_repr():
    w = torch_tensor([1.0], requires_grad=True)
    text = repr(optim_sgd([w], lr=0.1))
    assert text.startswith("optim_sgd (") and "lr: 0.1" in text


# -- refusals --------------------------------------------------------------------------------------
def _leaf():
    return torch_tensor([1.0, 2.0], requires_grad=True)


ALL = [optim_sgd, optim_adam, optim_adamw, optim_rmsprop, optim_adagrad, optim_adadelta,
       optim_lbfgs]


@pytest.mark.parametrize("cls", ALL)
def test_negative_lr_refused(cls):
    with pytest.raises(ValueError, match="Invalid learning rate: -0.1"):
        cls([_leaf()], lr=-0.1)


@pytest.mark.parametrize("cls", ALL)
def test_unknown_option_refused(cls):
    with pytest.raises(TypeError, match="learning_rate"):
        cls([_leaf()], learning_rate=0.1)
    with pytest.raises(ValueError, match="unknown optimizer option 'learning_rate'"):
        cls([{"params": [_leaf()], "lr": 0.1, "learning_rate": 0.1}], lr=0.1)


@pytest.mark.parametrize("cls", ALL)
def test_a_frozen_parameter_is_accepted_and_left_alone(cls):
    """model$parameters may hold parameters with requires_grad FALSE (PyTorch and R torch
    accept them); they never get a gradient, so steps leave them unchanged."""
    frozen = torch_tensor([1.0, 2.0], dtype=r.torch_float64())
    w = torch_tensor([3.0], dtype=r.torch_float64(), requires_grad=True)
    opt = cls([frozen, w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss
    for _ in range(3):
        opt.step(closure)
    assert frozen.tolist() == [1.0, 2.0] and frozen.grad is None
    assert w.item() != 3.0


@pytest.mark.parametrize("cls", ALL)
def test_bad_params_refused(cls):
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        cls([], lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        cls([_leaf() * 2], lr=0.1)
    with pytest.raises(TypeError, match="can only optimize Tensors, but one of the params is "
                                        "ndarray"):
        cls([np.ones(2)], lr=0.1)
    with pytest.raises(TypeError, match="ordered collections"):
        cls({_leaf()}, lr=0.1)
    w = _leaf()
    with pytest.raises(ValueError, match="duplicate parameters"):
        cls([w, w], lr=0.1)
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        cls(3, lr=0.1)


def test_lr_required_for_sgd():
    with pytest.raises(ValueError, match="didn't specify a value of required optimization "
                                         "parameter lr"):
        optim_sgd([_leaf()])
    # a group may give it
    opt = optim_sgd([{"params": [_leaf()], "lr": 0.1}])
    assert opt.param_groups[0]["lr"] == 0.1


@pytest.mark.parametrize("make_opt,message", [
    (lambda p: optim_sgd(p, lr=0.1, momentum=-1), "Invalid momentum value: -1"),
    (lambda p: optim_sgd(p, lr=0.1, weight_decay=-1), "Invalid weight_decay value: -1"),
    (lambda p: optim_sgd(p, lr=0.1, nesterov=True), "Nesterov momentum requires a momentum"),
    (lambda p: optim_sgd(p, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
     "zero dampening"),
    (lambda p: optim_adam(p, betas=(1.0, 0.999)), "Invalid beta parameter at index 0: 1.0"),
    (lambda p: optim_adam(p, betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
    (lambda p: optim_adam(p, eps=-1e-8), "Invalid epsilon value"),
    (lambda p: optim_adamw(p, weight_decay=-0.1), "Invalid weight_decay value"),
    (lambda p: optim_rmsprop(p, alpha=-0.5), "Invalid alpha value"),
    (lambda p: optim_rmsprop(p, momentum=-0.5), "Invalid momentum value"),
    (lambda p: optim_adagrad(p, lr_decay=-1), "Invalid lr_decay value"),
    (lambda p: optim_adagrad(p, initial_accumulator_value=-1),
     "Invalid initial_accumulator_value value"),
    (lambda p: optim_adadelta(p, rho=1.5), "Invalid rho value: 1.5"),
    (lambda p: optim_lbfgs(p, line_search_fn="backtracking"), "only 'strong_wolfe'"),
    (lambda p: optim_lbfgs(p, history_size=0), "Invalid history_size value"),
    (lambda p: optim_sgd([{"params": p, "lr": 0.1, "momentum": -2}], lr=0.1),
     "Invalid momentum value: -2"),
])
def test_invalid_option_values_refused(make_opt, message):
    with pytest.raises(ValueError, match=message):
        make_opt([_leaf()])


@pytest.mark.parametrize("make_opt,message", [
    (lambda p: optim_sgd(p, lr="0.1"), "lr must be a number, got str"),
    (lambda p: optim_adam(p, betas=0.9), "betas must be a pair"),
    (lambda p: optim_adam(p, amsgrad="yes"), "amsgrad must be TRUE or FALSE"),
    (lambda p: optim_rmsprop(p, centered=1), "centered must be TRUE or FALSE"),
    (lambda p: optim_lbfgs(p, max_iter=2.5), "max_iter must be an integer"),
])
def test_option_types_refused(make_opt, message):
    with pytest.raises(TypeError, match=message):
        make_opt([_leaf()])


def test_refused_param_group_leaves_optimizer_unchanged():
    w = _leaf()
    opt = optim_sgd([w], lr=0.1)
    for bad, err in [({"params": [w]}, ValueError), ({"params": [_leaf()], "lr": -1}, ValueError),
                     ({"params": [_leaf()], "foo": 1}, ValueError), ([_leaf()], TypeError),
                     ({"lr": 0.1}, ValueError)]:
        with pytest.raises(err):
            opt.add_param_group(bad)
        assert len(opt.param_groups) == 1
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim_sgd([{"params": [w]}, {"params": [w]}], lr=0.1)


def test_lbfgs_refusals():
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        optim_lbfgs([{"params": [_leaf()]}, {"params": [_leaf()]}])
    opt = optim_lbfgs([_leaf()])
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        opt.add_param_group({"params": [_leaf()]})
    with pytest.raises(ValueError, match="needs a closure"):
        opt.step()


def test_whole_number_floats_count_as_integers():
    # R passes max_iter = 20 as a double
    opt = optim_lbfgs([_leaf()], max_iter=4.0, history_size=10.0)
    group = opt.param_groups[0]
    assert (group["max_iter"], group["max_eval"], group["history_size"]) == (4, 5, 10)
    assert all(type(group[k]) is int for k in ("max_iter", "max_eval", "history_size"))


def test_closure_must_be_callable():
    opt = optim_adam([_leaf()])
    with pytest.raises(TypeError, match="closure must be a function"):
        opt.step(3)


# -- your own optimizer ----------------------------------------------------------------------------
def _sgd2_initialize(self, params, learning_rate):
    self.super_initialize(params, {"learning_rate": learning_rate})


def _sgd2_step(self, closure=None):
    loss = self._eval_closure(closure)
    with with_no_grad():
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.add_(p.grad, alpha=-group["learning_rate"])
    return loss


def test_optimizer_factory_like_r_torch():
    optim_sgd2 = optimizer("optim_sgd2", initialize=_sgd2_initialize, step=_sgd2_step)
    assert issubclass(optim_sgd2, Optimizer) and optim_sgd2.__name__ == "optim_sgd2"
    x = torch_tensor([1.0], requires_grad=True)
    opt = optim_sgd2(x, learning_rate=0.1)
    assert r.is_optimizer(opt)
    for _ in range(100):
        opt.zero_grad()
        y = x ** 2
        y.backward()
        opt.step()
    assert abs(x.item()) < 1e-9
    assert opt.param_groups[0]["learning_rate"] == 0.1
    assert opt.state_dict()["param_groups"][0]["params"] == [0]
    with pytest.raises(ValueError, match="unknown optimizer option 'lr'"):
        optim_sgd2([{"params": [x], "lr": 1}], learning_rate=0.1)


def test_optimizer_factory_inherit_and_extra_methods():
    base = optimizer("base_opt", initialize=_sgd2_initialize, step=_sgd2_step)

    def init_child(self, params, learning_rate, scale=2.0):
        self.scale = scale
        self.super_initialize(params, learning_rate * scale)

    child = optimizer("child_opt", initialize=init_child, inherit=base,
                      describe=lambda self: f"scaled by {self.scale}")
    x = torch_tensor([1.0], requires_grad=True)
    opt = child([x], 0.1)
    assert opt.param_groups[0]["learning_rate"] == pytest.approx(0.2)
    assert opt.describe() == "scaled by 2.0"
    x.backward()
    opt.step()
    assert x.item() == pytest.approx(0.8)


def test_optimizer_factory_refusals():
    with pytest.raises(RuntimeError, match="must call self.super_initialize"):
        optimizer("broken", initialize=lambda self, params: None, step=_sgd2_step)([_leaf()])
    with pytest.raises(TypeError, match="inherit must be an optimizer class"):
        optimizer("x", inherit=dict)
    with pytest.raises(TypeError, match="step must be a function"):
        optimizer("x", step=3)
    with pytest.raises(RuntimeError, match="only be called from initialize"):
        optim_sgd([_leaf()], lr=0.1).super_initialize([_leaf()], {})


def test_subclassing_optimizer_directly():
    class SignSGD(Optimizer):
        def __init__(self, params, lr=0.01):
            super().__init__(params, {"lr": lr})

        def step(self, closure=None):
            loss = self._eval_closure(closure)
            with with_no_grad():
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            p.sub_(p.grad.sign() * group["lr"])
                            self.state[p]["n"] = self.state[p].get("n", 0) + 1
            return loss

    w = torch_tensor([1.0, -1.0], requires_grad=True)
    opt = SignSGD([w], lr=0.25)
    (w * 3).sum().backward()
    opt.step()
    assert w.tolist() == [0.75, -1.25]
    assert opt.state_dict()["state"] == {0: {"n": 1}}
    with pytest.raises(ValueError, match="Invalid learning rate"):
        SignSGD([w], lr=-1)
    with pytest.raises(NotImplementedError):
        Optimizer([w], {"lr": 0.1}).step()


def test_exports():
    for name in ["Optimizer", "optimizer", "optim_required", "is_optimizer", "optim_sgd",
                 "optim_adam", "optim_adamw", "optim_rmsprop", "optim_adagrad", "optim_adadelta",
                 "optim_lbfgs"]:
        assert name in r.__all__ and hasattr(r, name)


def test_lbfgs_converges_on_rosenbrock():
    params, loss_fn = make("rtorchpy", "rosenbrock")
    opt = optim_lbfgs(params, line_search_fn="strong_wolfe", max_iter=100)
    _steps(opt, params, loss_fn, 1)
    assert params[0].tolist() == pytest.approx([1.0, 1.0], abs=1e-4)
    assert math.isfinite(opt.state[params[0]]["prev_loss"])


# BEGIN RECORDED (scripts/record_optim_expected.py; PyTorch 2.13.0+cpu, float64)
EXPECTED = {
    'sgd': [
        [1.0, -1.725, 0.3875],
        [1.0, -1.49125, 0.2778125],
        [1.0, -1.2925625, 0.17086718750000002],
        [1.0, -1.123678125, 0.0665955078125],
        [1.0, -0.98012640625, -0.03506937988281249],
    ],
    'sgd_rosenbrock': [
        [-0.9843999999999999, 1.088],
        [-1.0272715665664, 1.0642086720000001],
        [-1.0268830682337082, 1.0624243118951573],
        [-1.0260888245031374, 1.0608372166811408],
        [-1.0253114876941536, 1.0592414284989586],
    ],
    'sgd_momentum': [
        [0.13199375, -0.19851875000000002, 0.27995, 0.05828125000000001,
         -0.377953125, 0.182396875, 0.0198125, 0.10712500000000001],
        [0.19051756298828126, -0.19615468779296877, 0.24247388437499998, 0.07362670234375002,
         -0.3373348579589844, 0.14980448305664065, 0.0553433876953125, 0.12050493457031251],
        [0.26879853392680514, -0.19381189044845124, 0.19047197363813473, 0.09460890847885745,
         -0.28233727515656204, 0.1052957464793938, 0.10119002067710876, 0.1392233049089203],
        [0.3594021160538073, -0.1925604466975592, 0.1270053806006272, 0.11967742014496192,
         -0.21754499181359874, 0.052196775486141794, 0.15127754835227894, 0.16235024299926198],
        [0.4548694841872344, -0.19349790907471806, 0.05518716022322924, 0.14724284604530066,
         -0.1476185341353859, -0.006113464914134845, 0.19948840148326544, 0.18897398368542814],
    ],
    'sgd_dampening': [
        [0.13199375, -0.19851875000000002, 0.27995, 0.05828125000000001,
         -0.377953125, 0.182396875, 0.0198125, 0.10712500000000001],
        [0.17565284399414063, -0.19667015639648439, 0.2521894421875, 0.06968053867187501,
         -0.34772289772949216, 0.15817927277832033, 0.04649356884765626, 0.11702121728515626],
        [0.2282713026955685, -0.19479622289043313, 0.2179180585657837, 0.08361829747127687,
         -0.31099731666267566, 0.12859418771115705, 0.07792325472982407, 0.12930332656902696],
        [0.2871090798154389, -0.19326331271323496, 0.17831660956959317, 0.09951310204270461,
         -0.2694792196731502, 0.09489044975503355, 0.11191697187144557, 0.1436008824479529],
        [0.34949992919882517, -0.19243760997416054, 0.13453085427206452, 0.11679535520802556,
         -0.22483355071104316, 0.058286019103430176, 0.1463342213747784, 0.1595625443701045],
    ],
    'sgd_nesterov': [
        [0.160788125, -0.197185625, 0.261905, 0.06573437500000001,
         -0.3581109375, 0.16655406250000002, 0.037643750000000004, 0.1135375],
        [0.23931702113769532, -0.19479706668261718, 0.20980367259375, 0.08677255171093752,
         -0.3029514778569336, 0.12193089320947267, 0.08370819208007814, 0.1322774387988281],
        [0.32727599740669067, -0.19406739145256763, 0.14710035651646633, 0.11136959066210808,
         -0.23967312626842938, 0.06985610335227906, 0.1313446742453828, 0.15521510777887798],
        [0.41722508264892905, -0.19606580903288762, 0.07709845302983907, 0.13785759686667845,
         -0.17306127756277523, 0.013827477624335715, 0.17454151993361833, 0.18141130463723223],
        [0.5030110657946841, -0.2016027704915399, 0.0029117058466693146, 0.16471049800040558,
         -0.10730472091709149, -0.04303535670523009, 0.20853832290300284, 0.21001014130024645],
    ],
    'sgd_weight_decay': [
        [0.13149375, -0.19751875000000002, 0.27845, 0.058031250000000006,
         -0.375953125, 0.181396875, 0.0198125, 0.10662500000000001],
        [0.16061543798828123, -0.19555700029296877, 0.257682196875, 0.06563295234375001,
         -0.3534145454589844, 0.16380520180664063, 0.03740151269531251, 0.11307368457031251],
        [0.18756645429545746, -0.19406613821749422, 0.23766874642719726, 0.07282765032651368,
         -0.33228323473590776, 0.1471635908546379, 0.05297324159019471, 0.11935583557786561],
        [0.21253035708888876, -0.1930016002388873, 0.21838269230307203, 0.079636626208666,
         -0.31246519885734064, 0.13141452442462495, 0.06671569407633518, 0.12548024591199208],
        [0.23567446815991855, -0.1923225419104568, 0.19979795171894457, 0.08607997746652467,
         -0.2938729731635943, 0.11650411019986384, 0.07880026581673936, 0.13145482813971804],
    ],
    'sgd_all': [
        [0.15713875, -0.19643375000000002, 0.26256, 0.06468125000000001,
         -0.358515625, 0.167414375, 0.03566250000000001, 0.112375],
        [0.22708054908203126, -0.19316654719921877, 0.214071676625, 0.08325556559375001,
         -0.30677527728710935, 0.12625999572851562, 0.07698011363281251, 0.1286070880078125],
        [0.30153806418603957, -0.19130946598622503, 0.1586745970392582, 0.10385305872239962,
         -0.2504006999561684, 0.08068307700162229, 0.11755724372067568, 0.14748309833681142],
        [0.3741748817807966, -0.19166138414119402, 0.09980523872255435, 0.12494789176103205,
         -0.1938573653748817, 0.034015601561944345, 0.1526531146278393, 0.16802138234403258],
        [0.44057527155559645, -0.1946895572225457, 0.04024068948517147, 0.14535054946693096,
         -0.14046871172626832, -0.011205905813724564, 0.1792019782197842, 0.18944571856956993],
    ],
    'sgd_groups': [
        [0.1639875, -0.1970375, 0.2599, 0.06656250000000001,
         -0.35590625000000004, 0.16479375000000002, 0.0198125, 0.10612500000000001],
        [0.27757142382812505, -0.192773282421875, 0.18633413125, 0.09653649687500003,
         -0.2766045490234375, 0.10156488535156252, 0.03619177539062501, 0.112279869140625],
        [0.4226356572103394, -0.18939936232540283, 0.0875877237876953, 0.1359214892712891,
         -0.17312975453862914, 0.01982654137006228, 0.04759729101654053, 0.11880663478704834],
        [0.5797846124655166, -0.1891554890329947, -0.027159417110884237, 0.1803177072263466,
         -0.057504849156813954, -0.06988082359114822, 0.053205715670189134, 0.12595504506282423],
        [0.7306421431144333, -0.19386357733868675, -0.14858144140209806, 0.22536996179604388,
         0.05837150738202919, -0.15726876043304686, 0.05291405208684656, 0.13387515483595716],
    ],
    'adam': [
        [1.0, -1.9000000001818182, 0.40000000044444445],
        [1.0, -1.8001853902811997, 0.30006488385816715],
        [1.0, -1.7006957659250588, 0.2002398356323991],
        [1.0, -1.6016835582357802, 0.10057139985923252],
        [1.0, -1.5033146266148225, 0.0011073996541233894],
    ],
    'adam_rosenbrock': [
        [-1.1500000000023192, 1.0499999999943181],
        [-1.102111023624808, 1.0980762212585684],
        [-1.0590684779884367, 1.1413537305608294],
        [-1.0242940566754497, 1.1756983137196004],
        [-1.0003784578983996, 1.1975998279636784],
    ],
    'adam_betas': [
        [0.1999999984371948, -0.10000003375526285, 0.2000000024937655, 0.14999999396226452,
         -0.3000000022678951, 0.10000000284040468, 0.09999999747634078, 0.19999999298245663],
        [0.2975906608243012, -0.16608281419346868, 0.10118775269530896, 0.24275327329017854,
         -0.20320990810972844, 0.0033416169335124674, 0.19316791609705705, 0.26933350660447053],
        [0.39013253114567464, -0.24822750126603313, 0.004657348387214308, 0.3172909258811606,
         -0.11357216806865622, -0.08775419063776645, 0.2682927178803268, 0.31992606543971647],
        [0.4742974317437819, -0.33139992464312834, -0.088210398883772, 0.36037367245747565,
         -0.03644059430069649, -0.1698356619596032, 0.3108937356631377, 0.3662459402109305],
        [0.5468380268989717, -0.4036225858565229, -0.17571175734138733, 0.36744624283289806,
         0.02287283772191151, -0.2394612637462581, 0.3154822923807327, 0.41818077101240975],
    ],
    'adam_eps': [
        [0.19984396333138288, -0.103265306122449, 0.20024875621890548, 0.14939984996249062,
         -0.3002262763399802, 0.10028323597096835, 0.09974826935179358, 0.19930313588850174],
        [0.29801054449021114, -0.16378918566947492, 0.1012622953124385, 0.24307667821492873,
         -0.20277023519457874, 0.0029748486314659928, 0.1941489040716599, 0.2726759796335311],
        [0.39252817998282036, -0.24090387553962467, 0.003766681373971098, 0.32166889765113443,
         -0.11069385442615057, -0.09025479346798117, 0.273637978060978, 0.3275818213257643],
        [0.48068582451644437, -0.32222217526291647, -0.0912744866181194, 0.3727493339312158,
         -0.02853526856785396, -0.17656803079411754, 0.3246408707171969, 0.374612156901165],
        [0.5594749825902084, -0.3992277144720079, -0.18259847543511987, 0.3908800081621957,
         0.03860138887225446, -0.2526535180892201, 0.340745181865162, 0.4228680750385172],
    ],
    'adam_weight_decay': [
        [0.19999999841238345, -0.10000002015112947, 0.20000000232018555, 0.14999999377431944,
         -0.30000000207927224, 0.10000000268772041, 0.09999999747634077, 0.19999999245283073],
        [0.29808661470436576, -0.15048189419549454, 0.10085211721121053, 0.24207834391608324,
         -0.20224952004637312, 0.0025716580039353287, 0.19401583178353987, 0.2623232536967004],
        [0.3918820519782905, -0.22181052015491223, 0.003415226502237939, 0.3121586103900344,
         -0.10974132454796522, -0.0899508482625815, 0.2708944498685708, 0.2969876564452102],
        [0.47807755261826657, -0.29732911819748614, -0.09113635187649181, 0.34638973196429235,
         -0.026887456819609384, -0.17367482137622314, 0.31591846161882675, 0.32394403967551383],
        [0.5531120867722923, -0.3645346300514492, -0.18122613517079797, 0.3461103850935444,
         0.041350127981830784, -0.24426793083544945, 0.32481351603636266, 0.35823908774982083],
    ],
    'adam_amsgrad': [
        [0.1999999984371948, -0.10000003375526288, 0.2000000024937655, 0.14999999396226452,
         -0.3000000022678951, 0.10000000284040471, 0.09999999747634077, 0.19999999298245663],
        [0.29833432009252436, -0.1614237719896909, 0.10075037125255489, 0.2443135592120635,
         -0.20229944768000852, 0.0024054842760909134, 0.19467099187713216, 0.2729569290038047],
        [0.39302037405574164, -0.23932735698236085, 0.0029811428477531654, 0.32335493052840114,
         -0.10998674099921307, -0.0910871222870572, 0.27434884399427195, 0.3269678020511132],
        [0.48132692462743054, -0.3213903080988763, -0.09233644281786196, 0.3743817705958145,
         -0.02765334256385707, -0.1775719967456117, 0.3253023961730196, 0.37333973135412],
        [0.5602226136754725, -0.3990832905160318, -0.18392663555184008, 0.39197666786944263,
         0.03953474822662116, -0.25366676092289164, 0.3411277933941689, 0.42157425187689146],
    ],
    'adam_all': [
        [-1.150000023165297, 1.0499999430524567],
        [-1.1033254111137576, 1.0969089934529248],
        [-1.0637552108039017, 1.136709329268895],
        [-1.0361131361931641, 1.163710204831747],
        [-1.0217179325797232, 1.1758809905573973],
    ],
    'adam_groups': [
        [0.10999999984371948, -0.1900000033755263, 0.29000000024937655, 0.05999999939622645,
         -0.39000000022678954, 0.1900000002840405, 0.09999999747634075, 0.19999999298245663],
        [0.11995879385082542, -0.19178025034640964, 0.27999953374118347, 0.0699660987372978,
         -0.3800365185668394, 0.17999047154837036, 0.1943733194221271, 0.27222913210594263],
        [0.12984513714096138, -0.19792025371508917, 0.2699986523755231, 0.07988010118782032,
         -0.37013695211462583, 0.16996913109869347, 0.27745272795661335, 0.28998645987988586],
        [0.13962981365887414, -0.2055414715017564, 0.25999810894047504, 0.08973846177964363,
         -0.36032721099571496, 0.1599461569857713, 0.34263244786230695, 0.2691376703055325],
        [0.14929219014853284, -0.21376302042789894, 0.24999980802405888, 0.09954462772263817,
         -0.3506267157308341, 0.14994245748071997, 0.3842623625727757, 0.24606734856047421],
    ],
    'adamw': [
        [0.999, -1.8980000001818182, 0.39950000044444445],
        [1.07241363026631, -1.7962920255647572, 0.2991657439711565],
        [1.008259836235881, -1.6950189434256189, 0.1990424132853012],
        [0.9493237730039119, -1.5943366944353756, 0.09917643909699635],
        [0.939345861287068, -1.494414886040507, -0.000384587082003951],
    ],
    'adamw_options': [
        [0.19684396333138288, -0.09726530612244896, 0.19124875621890547, 0.14789984996249061,
         -0.2882262763399802, 0.09428323597096831, 0.0997482693517936, 0.19630313588850173],
        [0.28850631705337243, -0.16007374280220427, 0.08714802921868006, 0.235590400504122,
         -0.18364185984771753, -0.004502424821851786, 0.18955962609393578, 0.26112313962424816],
        [0.3729011323553184, -0.23707145430875504, -0.011223823978083233, 0.30337818777067593,
         -0.09068775460759929, -0.09413029888965904, 0.2591506508761625, 0.30855241384384446],
        [0.4476656466420853, -0.31364923128440825, -0.10256719700601574, 0.34037385726296515,
         -0.01509372042376296, -0.17139769740789357, 0.2961884872434961, 0.35240099536485625],
        [0.5108168100741143, -0.3798313740200211, -0.18538853401624117, 0.343345888882597,
         0.038262127511506316, -0.23359202338534235, 0.29674096288141233, 0.40057102414855544],
    ],
    'adamw_amsgrad': [
        [-1.0880000000046381, 1.0899999999886363],
        [-0.9963247851290958, 1.1601470898936668],
        [-0.9438230043333913, 1.1849443577129515],
        [-0.9274903465776567, 1.1681162134725138],
        [-0.9347291412296976, 1.1265414600158958],
    ],
    'rmsprop': [
        [1.0, -1.9000000018181817, 0.4000000044444443],
        [1.0, -1.831116766724775, 0.32990884877031756],
        [1.0, -1.7757549769632865, 0.27293712277198423],
        [1.0, -1.7283833301622595, 0.22374221520801404],
        [1.0, -1.6864365063633462, 0.1798323603066096],
    ],
    'rmsprop_alpha_eps': [
        [0.25733632311046195, -0.05713593447207971, 0.14312324382809494, 0.20515157443320348,
         -0.24301199010647956, 0.04329367646221666, 0.15686204367356155, 0.2546812853034284],
        [0.34315327550379937, -0.21242386841720734, 0.04456915978448224, 0.2497404496588348,
         -0.16499186679539907, -0.03413780878557547, 0.20402289624088144, 0.1985563396068187],
        [0.4026288968252567, -0.24566012298312767, -0.02927288015208465, 0.2657127095709562,
         -0.11703708765390279, -0.08208771958231827, 0.2076775025922214, 0.294071402249972],
        [0.4487036208051858, -0.29167855098807605, -0.08815850333146644, 0.25820169452388764,
         -0.08454509821396981, -0.12449860050172126, 0.19183530278001198, 0.3332478011305202],
        [0.48683530508295203, -0.32186371326151425, -0.13646401898381438, 0.24369940338739518,
         -0.06083675609472669, -0.15938817570999644, 0.1687047636300089, 0.372371778848705],
    ],
    'rmsprop_weight_decay': [
        [0.5999999206191831, 0.299998992445355, -0.19999988399074603, 0.5499996887161469,
         0.09999989603640863, -0.29999986561401193, 0.49999987381706634, 0.5999996226417941],
        [0.448120552608663, -0.1993602864906065, -0.2914161177847097, 0.11947054357373765,
         -0.10205322707372588, -0.059224745454488886, 0.09666841583544317, 0.11283281074395185],
        [0.5800784971496098, -0.20325012152178434, -0.32257325564251943, 0.23319305867726595,
         -0.01720785348874386, -0.15213517954216765, 0.13863613699322141, 0.2694625439467292],
        [0.5793815384765821, -0.25717250426835847, -0.31956561952566503, 0.1955299396330772,
         -0.014045813838989119, -0.16018734554865716, 0.0751579173769551, 0.3037291260227195],
        [0.6051591005341566, -0.2848331807989445, -0.3125253644071519, 0.18810082012902277,
         0.004750757813067313, -0.189796271689045, 0.06326166520660222, 0.3352975008139302],
    ],
    'rmsprop_momentum': [
        [0.19999998437195007, -0.10000033755160324, 0.20000002493764968, 0.1499999396226779,
         -0.30000002267894604, 0.10000002840403956, 0.09999997476341327, 0.19999992982461062],
        [0.35051385061863266, -0.10844552423221553, 0.045057415529957054, 0.2876740269092772,
         -0.15198789501946777, -0.04762149808507105, 0.23862174181039975, 0.29834612756221096],
        [0.5165130445298066, -0.1977315589304111, -0.13720461104524237, 0.40430243838923263,
         0.003849668058768769, -0.2050272834640018, 0.3558611284168437, 0.35532034202699125],
        [0.6683989170286987, -0.33292555114235717, -0.3244337581458625, 0.4604934550023022,
         0.1320519753918339, -0.3388240863724672, 0.40914394874204935, 0.39550107700824283],
        [0.7852600603670915, -0.4750622825024404, -0.4970282385627945, 0.4513613516723003,
         0.21113284932161783, -0.4287837781000438, 0.393169964512608, 0.4650722656619092],
    ],
    'rmsprop_centered': [
        [0.20050376574001222, -0.0994965594352884, 0.1994962436636239, 0.15050372053872735,
         -0.29949624138210507, 0.0994962471650278, 0.10050375603441948, 0.20050371064168976],
        [0.2615540965977061, -0.19828462044369197, 0.13393584660626917, 0.1984587199569412,
         -0.24099572027055244, 0.04139393839135021, 0.1494257141356182, 0.20843603119512694],
        [0.30659770722004165, -0.232898314897244, 0.0832407616501341, 0.22685075532075172,
         -0.19967882948847304, -0.0019570540181485796, 0.17635591662279068, 0.25351141142983846],
        [0.34253962424865897, -0.26120368920163417, 0.04133819043280525, 0.2420715798352649,
         -0.16824936751461522, -0.03734485341584069, 0.19019636098875942, 0.2871032288088352],
        [0.3725335742011479, -0.2838744236987774, 0.005461250507568606, 0.24890726265452037,
         -0.14333524324993405, -0.06713599691900199, 0.19545433041986607, 0.31460046939099423],
    ],
    'rmsprop_all': [
        [-1.154116854202083, 1.045883144380408],
        [-1.105611503101536, 1.094882335186117],
        [-1.0698900044810622, 1.1310767611261108],
        [-1.0500890260721871, 1.150426970535339],
        [-1.0433158407542906, 1.155536709030871],
    ],
    'adagrad': [
        [1.0, -1.9000000000018182, 0.40000000000444447],
        [1.0, -1.8312988617622519, 0.33008823681424215],
        [1.0, -1.7762273457343571, 0.2734068647652468],
        [1.0, -1.7292260944673463, 0.22458679051742342],
        [1.0, -1.687714492263303, 0.18112175604875286],
    ],
    'adagrad_lr_decay': [
        [0.19999999998437196, -0.10000000033755274, 0.20000000002493762, 0.14999999993962265,
         -0.30000000002267896, 0.10000000002840406, 0.09999999997476341, 0.19999999992982456],
        [0.25483736645778704, -0.189481464279306, 0.14113290101198017, 0.19317197971239525,
         -0.2474375098028739, 0.047792601689064754, 0.14403214594150546, 0.20754958915838365],
        [0.2923045599203632, -0.2217627297401756, 0.09932185671733074, 0.2178133211486065,
         -0.21280699613221968, 0.011679068598980588, 0.16770391328130504, 0.24211009241711973],
        [0.32039329531396615, -0.24467254567349284, 0.06717197761635994, 0.23203279291091006,
         -0.18770744611779613, -0.01589998855042246, 0.18100104623351312, 0.26841055630479266],
        [0.3426199623323697, -0.2622310299075182, 0.041295654501603704, 0.2402524106597486,
         -0.16846482824025968, -0.037928906895141445, 0.18829542997952303, 0.28908571615299694],
    ],
    'adagrad_weight_decay': [
        [0.19999999998412385, -0.10000000020151135, 0.20000000002320184, 0.14999999993774318,
         -0.30000000002079275, 0.10000000002687721, 0.09999999997476341, 0.1999999999245283],
        [0.2593049137678229, -0.19524864848994256, 0.13581545711689702, 0.1920177412757042,
         -0.2419949039691637, 0.04317067763765982, 0.14671827454165423, 0.1938794212083127],
        [0.30225611498553195, -0.21767771495516963, 0.08688098008606748, 0.21401433673123152,
         -0.20107196318263798, 0.002113798051193397, 0.17119921254065426, 0.2373382429256722],
        [0.33598538700294733, -0.24051672063958146, 0.04697412948249111, 0.22296876005102642,
         -0.16991180629355693, -0.030714254149927796, 0.1828622278921411, 0.2630590624375346],
        [0.36373705766397374, -0.2573051949494321, 0.013248805717848713, 0.22485297788248695,
         -0.14515336087348493, -0.057675184857918546, 0.1864635868263196, 0.2839579783497707],
    ],
    'adagrad_initial_acc': [
        [0.16709777405263015, -0.19581406445844507, 0.25067023724350473, 0.072805668198022,
         -0.34708679270085907, 0.15542969883259372, 0.04888571174266948, 0.11975537795511759],
        [0.21652725653233762, -0.19505661750223358, 0.20917618674936503, 0.09236645707038725,
         -0.30582370804154274, 0.11900230792544553, 0.08347310912142977, 0.13781341923766127],
        [0.2560191440124755, -0.19678901973334237, 0.17312785216778237, 0.1093055406919272,
         -0.2720711084832838, 0.0881926130208123, 0.10900369935489695, 0.15444006630204915],
        [0.2889453146095833, -0.20032030660617398, 0.14115763009886315, 0.1240640420087114,
         -0.24366926854400867, 0.06154576291344922, 0.12808946256391798, 0.16986726550961653],
        [0.31713939033829674, -0.20513321698347825, 0.11239677583390088, 0.13697183549145642,
         -0.21931691319994598, 0.03813105528765462, 0.14229631962473735, 0.18428208536335708],
    ],
    'adagrad_eps': [
        [-1.100004638003803, 1.099988637654812],
        [-1.0762997379168393, 1.1242440014253654],
        [-1.0678294006225406, 1.1317573936593721],
        [-1.0643443339810086, 1.13362617203104],
        [-1.0626443905635001, 1.1334509246081088],
    ],
    'adagrad_groups': [
        [0.39999999995237145, 0.099999999395466, 6.960559906232788e-11, 0.34999999981322955,
         -0.10000000006237819, -0.09999999991936837, 0.09999999997476341, 0.19999999992982456],
        [0.506647014081237, -0.19824914136867228, -0.12898617250052957, 0.21211672078617377,
         -0.02352861809059907, -0.07232579523539333, 0.11089263631396472, 0.1781736516786935],
        [0.5543172504575432, -0.22879423461588827, -0.19901284788138496, 0.22729360886638944,
         -0.0008163989223776633, -0.12691715840210788, 0.10886071653116784, 0.211470732846684],
        [0.5768698539665088, -0.2515570375572503, -0.24013110659834058, 0.20785336221280643,
         0.005542031671652674, -0.14474322200100553, 0.10474022994843071, 0.23349319028456783],
        [0.5879932084613576, -0.2647031410191704, -0.26514423991653485, 0.20054743219004245,
         0.006826798126672539, -0.1584492685062078, 0.1007687506402727, 0.24930215300644115],
    ],
    'adadelta': [
        [1.0, -1.996837722862522, 0.4968377254630642],
        [1.0, -1.9935959494562472, 0.4935943809048254],
        [1.0, -1.990301503109597, 0.4902961667187198],
        [1.0, -1.9869675940030658, 0.486955943565298],
        [1.0, -1.9836020600963404, 0.4835813188455682],
    ],
    'adadelta_lr_rho': [
        [0.10070710505418341, -0.1992936975349717, 0.2992928976161753, 0.050707081005545655,
         -0.3992928968556818, 0.19929289892361066, 0.000707102277768097, 0.10070707196163335],
        [0.10152312949845504, -0.19849156164974477, 0.29847669642265134, 0.051522653960711685,
         -0.398476967042502, 0.1984769856120805, 0.0015227310261349606, 0.10152174679110111],
        [0.10242162709395985, -0.1976289344919684, 0.2975777290007975, 0.05242000853680305,
         -0.3975787149033516, 0.19757877070152488, 0.0024201917420060117, 0.10241676666257576],
        [0.10339041986636939, -0.19672514896648388, 0.2966080917353656, 0.05338677539958793,
         -0.39661036044579856, 0.1966104754637621, 0.003387126504812838, 0.10337938941901906],
        [0.10442237850447679, -0.19579376409317556, 0.29557484892002167, 0.05441567157603228,
         -0.3955790667334075, 0.1955792604709089, 0.004416261150477913, 0.10440205837338766],
    ],
    'adadelta_eps': [
        [0.19880074335055953, -0.17159524774314258, 0.2029715333823495, 0.1356064445274926,
         -0.3024765405484581, 0.10380518903891744, 0.0969600331252558, 0.1818556692462413],
        [0.2860011777332833, -0.22827731431285198, 0.11147831314661136, 0.19744904137407635,
         -0.21974753337244055, 0.02060606035197181, 0.16637406670025057, 0.2305580857794399],
        [0.3565858914411216, -0.26585166010745576, 0.029362842020836014, 0.2316241399285215,
         -0.15797879090925204, -0.04656359461599316, 0.19746439164559132, 0.28154549773891113],
        [0.41244749166290795, -0.29902132349508914, -0.041988688348122985, 0.2439751112816926,
         -0.11452176766655567, -0.09911233671783587, 0.20003680966467205, 0.3248137907745295],
        [0.4573227820864346, -0.3260313643359694, -0.10257401480482241, 0.24324920825521035,
         -0.0840177950376096, -0.14029309645308802, 0.18760034554759653, 0.3613749691874439],
    ],
    'adadelta_weight_decay': [
        [-1.1968377223401714, 1.003162277658122],
        [-1.193634803251172, 1.006368404361487],
        [-1.1904333263370033, 1.0095773774579193],
        [-1.1872543903128945, 1.0127684903476633],
        [-1.184110346716097, 1.0159294669762855],
    ],
    'lbfgs': [
        [-0.9679198110961271, 1.0040193895843792],
        [-0.9332903533099829, 0.9043545252941079],
        [-0.42994396920955674, 0.09319904493949177],
    ],
    'lbfgs_quadratic': [
        [1.0, -0.16666837377610527, -4.0000146719680805],
        [1.0, -0.16666837377610527, -4.0000146719680805],
    ],
    'lbfgs_lr_history': [
        [0.6954607747138021, -0.42455469045232147, -0.33553781086213674, 0.16351697757075903,
         0.05171634095090542, -0.2937335755365422, -0.021538181472376832, 0.4966962508598388],
        [0.7108872832155628, -0.4427867518243035, -0.33295785799740857, 0.14357445396306812,
         0.05754326104125623, -0.312725414004536, -0.024762839697657812, 0.5229848647005131],
        [0.7109085280292199, -0.442837987677227, -0.3329736771812503, 0.14352394494339119,
         0.057602114133997566, -0.3128221225005831, -0.024783197936349532, 0.5230594669371788],
    ],
    'lbfgs_max_eval': [
        [-1.3655416389879744, 0.9379760551938527],
        [-0.9946555285640573, 0.9922511630431959],
        [-0.9727911269661612, 0.9669300109443745],
    ],
    'lbfgs_tolerances': [
        [0.719289438440143, -0.4474448766251677, -0.33080791710338925, 0.13896873329328618,
         0.052872945023127726, -0.3108374387932027, -0.02425751782455389, 0.529603145729588],
        [0.7110436351128782, -0.4433301785876893, -0.3332364632777444, 0.1432986684761545,
         0.057542415317433995, -0.3130368917285273, -0.025358260044170827, 0.5236117813000317],
        [0.7110436351128782, -0.4433301785876893, -0.3332364632777444, 0.1432986684761545,
         0.057542415317433995, -0.3130368917285273, -0.025358260044170827, 0.5236117813000317],
    ],
    'lbfgs_wolfe': [
        [-1.0276177663827242, 1.0584120782656612],
        [-0.7745797354515831, 0.5476256792320806],
        [-0.2560895768966468, 0.03726198161622369],
    ],
    'lbfgs_wolfe_history': [
        [0.6137279453154675, -0.2506521583080251, -0.19434015577795916, 0.22545548751417357,
         0.016393891134322297, -0.16717841683562218, 0.16501341622125626, 0.2891060518795867],
        [0.7073979932544481, -0.4144713934242552, -0.36103993211409086, 0.19091729338334187,
         0.049331368056896474, -0.2780267473575648, -0.02060383792692537, 0.48335215533044795],
        [0.7092861746794763, -0.4422496099830269, -0.3387508224485399, 0.14834532655340968,
         0.057364672997029985, -0.310996843957002, -0.02900096646974787, 0.5211155231949042],
    ],
    'lbfgs_wolfe_max_eval': [
        [-0.9431278012083242, 0.8529662725410918],
        [-0.2560895768966468, 0.03726198161622369],
    ],
}
# END RECORDED


def test_a_modules_named_parameters_are_a_list_of_tensors():
    """optim_adam(model.parameters): a mapping of names to tensors (R torch's named list) is the
    list of its tensors, not a parameter group."""
    import rtorchpy as rt
    model = rt.nn_linear(3, 2)
    opt = optim_adam(model.parameters, lr=0.1)
    assert len(opt.param_groups) == 1
    assert [id(p) for p in opt.param_groups[0]["params"]] == \
        [id(p) for p in model.parameters.values()]
    with pytest.raises(ValueError, match="param group has no 'params' entry"):
        optim_adam({"lr": 0.1}, lr=0.1)
