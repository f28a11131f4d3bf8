"""Learning-rate schedulers (rtorchpy/optim/lr_scheduler.py): schedules against PyTorch 2.13's
and against values recorded from it (written by ``scripts/record_optim_expected.py``), state
dicts, custom schedulers and refusals."""
from __future__ import annotations

import math

import numpy as np
import pytest

import rtorchpy as r
from rtorchpy import (LRScheduler, lr_cosine_annealing, lr_lambda, lr_multiplicative, lr_one_cycle,
                     lr_reduce_on_plateau, lr_scheduler, lr_step, optim_adam, optim_sgd,
                     torch_tensor)

LAMBDAS = {
    "exp95": lambda epoch: 0.95 ** epoch,
    "inv": lambda epoch: 1.0 / (1 + epoch),
    "times09": lambda epoch: 0.9,
    "alternate": lambda epoch: 0.5 if epoch % 2 else 1.1,
}
METRICS = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.5, 0.6, 0.6, 0.6, 0.7, 0.8, 0.9, 0.9, 0.9, 0.9,
           0.9, 0.9, 0.9, 0.9]
TORCH_NAMES = {"lr_step": "StepLR", "lr_multiplicative": "MultiplicativeLR",
               "lr_lambda": "LambdaLR", "lr_one_cycle": "OneCycleLR",
               "lr_cosine_annealing": "CosineAnnealingLR",
               "lr_reduce_on_plateau": "ReduceLROnPlateau"}

# (id, scheduler, options, optimizer, optimizer options, steps, group lrs or None)
SCHEDULES = [
    ("step", "lr_step", dict(step_size=3), "sgd", dict(lr=0.1), 10, None),
    ("step_gamma", "lr_step", dict(step_size=2, gamma=0.5), "sgd", dict(lr=1.0), 9, [1.0, 0.3]),
    ("multiplicative", "lr_multiplicative", dict(lr_lambda="times09"), "sgd", dict(lr=0.1), 8,
     None),
    ("multiplicative_list", "lr_multiplicative", dict(lr_lambda=["times09", "alternate"]), "sgd",
     dict(lr=0.1), 8, [0.1, 0.2]),
    ("lambda", "lr_lambda", dict(lr_lambda="exp95"), "sgd", dict(lr=0.1), 8, None),
    ("lambda_list", "lr_lambda", dict(lr_lambda=["exp95", "inv"]), "adam", dict(lr=0.01), 8,
     [0.01, 0.02]),
    ("cosine", "lr_cosine_annealing", dict(T_max=5), "sgd", dict(lr=0.1), 16, None),
    ("cosine_eta_min", "lr_cosine_annealing", dict(T_max=4, eta_min=0.01), "sgd", dict(lr=0.1),
     13, [0.1, 0.05]),
    ("one_cycle", "lr_one_cycle", dict(max_lr=0.1, total_steps=10), "sgd",
     dict(lr=0.1, momentum=0.9), 10, None),
    ("one_cycle_epochs_linear", "lr_one_cycle",
     dict(max_lr=1.0, epochs=3, steps_per_epoch=4, pct_start=0.25, anneal_strategy="linear",
          div_factor=10.0, final_div_factor=100.0), "sgd", dict(lr=0.1, momentum=0.9), 12, None),
    ("one_cycle_adam_three_phase", "lr_one_cycle",
     dict(max_lr=[0.01, 0.02], total_steps=12, three_phase=True, base_momentum=0.8,
          max_momentum=0.9), "adam", dict(lr=0.001), 12, [0.001, 0.001]),
    ("one_cycle_no_momentum", "lr_one_cycle",
     dict(max_lr=0.5, total_steps=8, cycle_momentum=False, pct_start=0.5), "sgd", dict(lr=0.1),
     8, None),
    ("plateau", "lr_reduce_on_plateau", dict(patience=2), "sgd", dict(lr=0.1), 20, None),
    ("plateau_max_abs", "lr_reduce_on_plateau",
     dict(mode="max", factor=0.5, patience=1, threshold=0.05, threshold_mode="abs"), "sgd",
     dict(lr=0.1), 20, None),
    ("plateau_cooldown_min_lr", "lr_reduce_on_plateau",
     dict(patience=0, cooldown=2, min_lr=[0.02, 0.001], factor=0.5, threshold=0.0), "sgd",
     dict(lr=0.1), 20, [0.1, 0.1]),
    ("plateau_eps", "lr_reduce_on_plateau", dict(patience=0, factor=0.5, eps=0.02), "sgd",
     dict(lr=0.1), 20, None),
]
SCHEDULE_IDS = [s[0] for s in SCHEDULES]


def _options(options):
    out = dict(options)
    if "lr_lambda" in out:
        fn = out["lr_lambda"]
        out["lr_lambda"] = [LAMBDAS[f] for f in fn] if isinstance(fn, list) else LAMBDAS[fn]
    return out


def _params(lib, n):
    if lib == "torch":
        import torch
        return [torch.zeros(2, requires_grad=True) for _ in range(n)]
    return [r.torch_zeros(2, requires_grad=True) for _ in range(n)]


def _row(sched, opt, adam):
    row = [float(v) for v in sched.get_last_lr()]
    assert row == [float(g["lr"]) for g in opt.param_groups]
    row += [float(g["betas"][0] if adam else g.get("momentum", 0.0)) for g in opt.param_groups]
    return row


def schedule(lib, case):
    """The learning rates (and momentum, or Adam's beta1) after creation and every step."""
    _, name, options, opt_name, opt_options, steps, groups = case
    params = _params(lib, 1 if groups is None else len(groups))
    spec = params if groups is None else [{"params": [p], "lr": lr}
                                          for p, lr in zip(params, groups)]
    if lib == "torch":
        import torch
        opt_cls = torch.optim.SGD if opt_name == "sgd" else torch.optim.Adam
        sched_cls = getattr(torch.optim.lr_scheduler, TORCH_NAMES[name])
    else:
        opt_cls = optim_sgd if opt_name == "sgd" else optim_adam
        sched_cls = getattr(r, name)
    opt = opt_cls(spec, **opt_options)
    sched = sched_cls(opt, **_options(options))
    adam = opt_name == "adam"
    rows = [_row(sched, opt, adam)]
    for i in range(steps):
        opt.step()
        if name == "lr_reduce_on_plateau":
            sched.step(METRICS[i])
        else:
            sched.step()
        rows.append(_row(sched, opt, adam))
    return rows


def torch_schedule(case):
    return schedule("torch", case)


@pytest.mark.parametrize("case", SCHEDULES, ids=SCHEDULE_IDS)
def test_schedule_matches_recorded(case):
    np.testing.assert_allclose(schedule("rtorchpy", case), EXPECTED[case[0]], rtol=1e-14,
                               atol=1e-16)


@pytest.mark.parametrize("case", SCHEDULES, ids=SCHEDULE_IDS)
def test_schedule_matches_torch(case):
    pytest.importorskip("torch")
    theirs = schedule("torch", case)
    np.testing.assert_allclose(schedule("rtorchpy", case), theirs, rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(theirs, EXPECTED[case[0]], rtol=1e-14, atol=1e-16)


def test_every_schedule_is_recorded():
    assert set(EXPECTED) == set(SCHEDULE_IDS)


def _opt(lr=0.1, **kw):
    return optim_sgd([torch_tensor([1.0], requires_grad=True)], lr=lr, **kw)


def test_creation_records_initial_lr_and_base_lrs():
    opt = _opt(0.3)
    sched = lr_step(opt, step_size=2)
    assert opt.param_groups[0]["initial_lr"] == 0.3
    assert sched.base_lrs == [0.3] and sched.last_epoch == 0
    assert sched.get_last_lr() == [0.3]


def test_scheduler_state_dict_round_trip():
    opt = _opt()
    sched = lr_cosine_annealing(opt, T_max=6)
    for _ in range(3):
        sched.step()
    sd = sched.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 3
    expected = []
    for _ in range(4):
        sched.step()
        expected.append(sched.get_last_lr()[0])
    opt2 = _opt()
    sched2 = lr_cosine_annealing(opt2, T_max=6)
    opt2.param_groups[0]["lr"] = sd["_last_lr"][0]
    sched2.load_state_dict(sd)
    got = []
    for _ in range(4):
        sched2.step()
        got.append(sched2.get_last_lr()[0])
    assert got == expected


def test_plateau_state_dict_round_trip():
    opt = _opt()
    sched = lr_reduce_on_plateau(opt, patience=1)
    for m in [1.0, 1.0]:
        sched.step(m)
    sd = sched.state_dict()
    sched2 = lr_reduce_on_plateau(_opt(), patience=5)
    sched2.load_state_dict(sd)
    assert sched2.patience == 1 and sched2.num_bad_epochs == 1 and sched2.best == 1.0


def test_plateau_accepts_a_tensor_metric():
    opt = _opt()
    sched = lr_reduce_on_plateau(opt, patience=0)
    sched.step(torch_tensor(1.0))
    sched.step(torch_tensor(2.0))
    assert sched.get_last_lr() == [pytest.approx(0.01)]


def test_lambda_state_dict_keeps_callable_object_attributes():
    class Decay:
        def __init__(self):
            self.rate = 0.5

        def __call__(self, epoch):
            return self.rate ** epoch

    fn = Decay()
    sched = lr_lambda(_opt(), lr_lambda=fn)
    fn.rate = 0.25
    sd = sched.state_dict()
    assert sd["lr_lambdas"] == [{"rate": 0.25}]
    fn2 = Decay()
    sched2 = lr_lambda(_opt(), lr_lambda=fn2)
    sched2.load_state_dict(sd)
    assert fn2.rate == 0.25


def test_one_cycle_refuses_stepping_past_total_steps():
    opt = _opt(momentum=0.9)
    sched = lr_one_cycle(opt, max_lr=0.1, total_steps=3)
    for _ in range(3):
        sched.step()
    with pytest.raises(ValueError, match="Tried to step 4 times. The specified number of total "
                                         "steps is 3"):
        sched.step()


@pytest.mark.parametrize("make,err,message", [
    (lambda o: lr_step(o, step_size=0), ValueError, "step_size must be a positive integer"),
    (lambda o: lr_step(o, step_size=2, gamma="x"), TypeError, "gamma must be a number"),
    (lambda o: lr_step("opt", step_size=2), TypeError, "str is not an Optimizer"),
    (lambda o: lr_lambda(o, lr_lambda=3), TypeError, "lr_lambda should be a function"),
    (lambda o: lr_lambda(o, lr_lambda=[LAMBDAS["inv"]] * 2), ValueError,
     "Expected 1 lr_lambdas, but got 2"),
    (lambda o: lr_multiplicative(o, lr_lambda=None), TypeError, "lr_lambda should be a function"),
    (lambda o: lr_cosine_annealing(o, T_max=0), ValueError, "T_max must be a positive number"),
    (lambda o: lr_one_cycle(o, max_lr=0.1), ValueError,
     "You must define either total_steps OR"),
    (lambda o: lr_one_cycle(o, max_lr=0.1, total_steps=0), ValueError,
     "Expected positive integer total_steps"),
    (lambda o: lr_one_cycle(o, max_lr=0.1, epochs=2, steps_per_epoch=-1), ValueError,
     "Expected positive integer steps_per_epoch"),
    (lambda o: lr_one_cycle(o, max_lr=0.1, total_steps=5, pct_start=1.5), ValueError,
     "Expected float between 0 and 1 pct_start"),
    (lambda o: lr_one_cycle(o, max_lr=0.1, total_steps=5, anneal_strategy="exp"), ValueError,
     "anneal_strategy must be one of 'cos' or 'linear'"),
    (lambda o: lr_one_cycle(o, max_lr=[0.1, 0.2], total_steps=5), ValueError,
     "max_lr must have the same length as optimizer.param_groups"),
    (lambda o: lr_one_cycle(r.optim_adagrad(o.param_groups[0]["params"]), max_lr=0.1,
                            total_steps=5), ValueError, "optimizer must support momentum or beta1"),
    (lambda o: lr_reduce_on_plateau(o, factor=1.0), ValueError, "Factor should be < 1.0."),
    (lambda o: lr_reduce_on_plateau(o, mode="up"), ValueError, "mode up is unknown!"),
    (lambda o: lr_reduce_on_plateau(o, threshold_mode="x"), ValueError,
     "threshold mode x is unknown!"),
    (lambda o: lr_reduce_on_plateau(o, min_lr=[0.1, 0.1]), ValueError,
     "expected 1 min_lrs, got 2"),
    (lambda o: lr_reduce_on_plateau(o, patience=-1), ValueError,
     "patience must be a non-negative integer"),
    (lambda o: lr_step(o, step_size=2, last_epoch=3), KeyError, "initial_lr"),
])
def test_refusals(make, err, message):
    opt = optim_sgd([torch_tensor([1.0], requires_grad=True)], lr=0.1)
    groups_before = [dict(g) for g in opt.param_groups]
    with pytest.raises(err, match=message):
        make(opt)
    assert [dict(g) for g in opt.param_groups] == groups_before  # nothing written on refusal


def test_custom_scheduler_by_subclass_and_factory():
    class Halving(LRScheduler):
        def get_lr(self):
            return [base / 2 ** self.last_epoch for base in self.base_lrs]

    opt = _opt(0.8)
    sched = Halving(opt)
    sched.step()
    sched.step()
    assert sched.get_last_lr() == [0.2]

    def initialize(self, optimizer, factor):
        self.factor = factor
        self.super_initialize(optimizer)

    def get_lr(self):
        return [base * self.factor ** self.last_epoch for base in self.base_lrs]

    lr_geometric = lr_scheduler("lr_geometric", initialize=initialize, get_lr=get_lr)
    opt = _opt(1.0)
    sched = lr_geometric(opt, factor=0.5)
    for _ in range(3):
        sched.step()
    assert sched.get_last_lr() == [0.125] and opt.param_groups[0]["lr"] == 0.125
    assert "_init_classes" not in sched.state_dict()
    with pytest.raises(RuntimeError, match="must call self.super_initialize"):
        lr_scheduler("bad", initialize=lambda self, o: None, get_lr=get_lr)(opt)
    with pytest.raises(NotImplementedError):
        LRScheduler(_opt())


def test_whole_number_floats_count_as_integers():
    # R passes step_size = 2 as a double
    sched = lr_step(_opt(), step_size=2.0)
    assert sched.step_size == 2 and type(sched.step_size) is int
    sched = lr_one_cycle(_opt(momentum=0.9), max_lr=0.1, epochs=2.0, steps_per_epoch=3.0)
    assert sched.total_steps == 6
    sched = lr_reduce_on_plateau(_opt(), patience=3.0, cooldown=1.0)
    assert (sched.patience, sched.cooldown) == (3, 1)
    with pytest.raises(TypeError, match="step_size must be an integer, got 2.5"):
        lr_step(_opt(), step_size=2.5)


def test_cosine_annealing_reaches_eta_min():
    opt = _opt(1.0)
    sched = lr_cosine_annealing(opt, T_max=10, eta_min=0.1)
    for _ in range(10):
        sched.step()
    assert math.isclose(sched.get_last_lr()[0], 0.1, rel_tol=1e-12)


def test_exports():
    for name in ["LRScheduler", "lr_scheduler", "lr_step", "lr_multiplicative", "lr_lambda",
                 "lr_one_cycle", "lr_cosine_annealing", "lr_reduce_on_plateau"]:
        assert name in r.__all__ and hasattr(r, name)


# BEGIN RECORDED (scripts/record_optim_expected.py; PyTorch 2.13.0+cpu, float64)
EXPECTED = {
    'step': [
        [0.1, 0.0],
        [0.1, 0.0],
        [0.1, 0.0],
        [0.010000000000000002, 0.0],
        [0.010000000000000002, 0.0],
        [0.010000000000000002, 0.0],
        [0.0010000000000000002, 0.0],
        [0.0010000000000000002, 0.0],
        [0.0010000000000000002, 0.0],
        [0.00010000000000000003, 0.0],
        [0.00010000000000000003, 0.0],
    ],
    'step_gamma': [
        [1.0, 0.3, 0.0, 0.0],
        [1.0, 0.3, 0.0, 0.0],
        [0.5, 0.15, 0.0, 0.0],
        [0.5, 0.15, 0.0, 0.0],
        [0.25, 0.075, 0.0, 0.0],
        [0.25, 0.075, 0.0, 0.0],
        [0.125, 0.0375, 0.0, 0.0],
        [0.125, 0.0375, 0.0, 0.0],
        [0.0625, 0.01875, 0.0, 0.0],
        [0.0625, 0.01875, 0.0, 0.0],
    ],
    'multiplicative': [
        [0.1, 0.0],
        [0.09000000000000001, 0.0],
        [0.08100000000000002, 0.0],
        [0.07290000000000002, 0.0],
        [0.06561000000000002, 0.0],
        [0.05904900000000002, 0.0],
        [0.05314410000000002, 0.0],
        [0.04782969000000002, 0.0],
        [0.043046721000000024, 0.0],
    ],
    'multiplicative_list': [
        [0.1, 0.2, 0.0, 0.0],
        [0.09000000000000001, 0.1, 0.0, 0.0],
        [0.08100000000000002, 0.11000000000000001, 0.0, 0.0],
        [0.07290000000000002, 0.05500000000000001, 0.0, 0.0],
        [0.06561000000000002, 0.06050000000000001, 0.0, 0.0],
        [0.05904900000000002, 0.030250000000000006, 0.0, 0.0],
        [0.05314410000000002, 0.033275000000000006, 0.0, 0.0],
        [0.04782969000000002, 0.016637500000000003, 0.0, 0.0],
        [0.043046721000000024, 0.018301250000000005, 0.0, 0.0],
    ],
    'lambda': [
        [0.1, 0.0],
        [0.095, 0.0],
        [0.09025, 0.0],
        [0.0857375, 0.0],
        [0.081450625, 0.0],
        [0.07737809374999999, 0.0],
        [0.07350918906249998, 0.0],
        [0.06983372960937498, 0.0],
        [0.06634204312890622, 0.0],
    ],
    'lambda_list': [
        [0.01, 0.02, 0.9, 0.9],
        [0.0095, 0.01, 0.9, 0.9],
        [0.009025, 0.006666666666666666, 0.9, 0.9],
        [0.00857375, 0.005, 0.9, 0.9],
        [0.0081450625, 0.004, 0.9, 0.9],
        [0.007737809374999998, 0.003333333333333333, 0.9, 0.9],
        [0.007350918906249998, 0.002857142857142857, 0.9, 0.9],
        [0.006983372960937498, 0.0025, 0.9, 0.9],
        [0.006634204312890623, 0.0022222222222222222, 0.9, 0.9],
    ],
    'cosine': [
        [0.1, 0.0],
        [0.09045084971874738, 0.0],
        [0.06545084971874737, 0.0],
        [0.03454915028125263, 0.0],
        [0.009549150281252633, 0.0],
        [0.0, 0.0],
        [0.009549150281252628, 0.0],
        [0.03454915028125265, 0.0],
        [0.06545084971874741, 0.0],
        [0.09045084971874744, 0.0],
        [0.10000000000000006, 0.0],
        [0.09045084971874746, 0.0],
        [0.06545084971874743, 0.0],
        [0.03454915028125267, 0.0],
        [0.009549150281252644, 0.0],
        [0.0, 0.0],
        [0.009549150281252628, 0.0],
    ],
    'cosine_eta_min': [
        [0.1, 0.05, 0.0, 0.0],
        [0.08681980515339464, 0.044142135623730955, 0.0, 0.0],
        [0.05500000000000001, 0.03, 0.0, 0.0],
        [0.023180194846605363, 0.01585786437626905, 0.0, 0.0],
        [0.01, 0.01, 0.0, 0.0],
        [0.023180194846605363, 0.01585786437626905, 0.0, 0.0],
        [0.05500000000000002, 0.030000000000000006, 0.0, 0.0],
        [0.08681980515339469, 0.04414213562373097, 0.0, 0.0],
        [0.10000000000000006, 0.050000000000000024, 0.0, 0.0],
        [0.0868198051533947, 0.044142135623730976, 0.0, 0.0],
        [0.05500000000000005, 0.03000000000000002, 0.0, 0.0],
        [0.023180194846605412, 0.01585786437626907, 0.0, 0.0],
        [0.01, 0.01, 0.0, 0.0],
        [0.023180194846605363, 0.01585786437626905, 0.0, 0.0],
    ],
    'one_cycle': [
        [0.0040000000000000036, 0.95],
        [0.052000000000000005, 0.8999999999999999],
        [0.1, 0.85],
        [0.09504846320134738, 0.854951556604879],
        [0.0811745653949763, 0.8688255099070633],
        [0.06112620219362893, 0.8888739533021842],
        [0.03887419780637107, 0.9111260466978157],
        [0.0188258346050237, 0.9311744900929366],
        [0.004951936798652629, 0.945048443395121],
        [4e-07, 0.95],
        [0.004951936798652624, 0.945048443395121],
    ],
    'one_cycle_epochs_linear': [
        [0.1, 0.95],
        [0.55, 0.8999999999999999],
        [1.0, 0.85],
        [0.889, 0.861111111111111],
        [0.778, 0.8722222222222222],
        [0.667, 0.8833333333333333],
        [0.556, 0.8944444444444444],
        [0.44499999999999995, 0.9055555555555556],
        [0.3340000000000001, 0.9166666666666666],
        [0.22299999999999998, 0.9277777777777777],
        [0.1120000000000001, 0.9388888888888889],
        [0.0010000000000000009, 0.95],
        [-0.1100000000000001, 0.961111111111111],
    ],
    'one_cycle_adam_three_phase': [
        [0.0003999999999999993, 0.0007999999999999986, 0.9, 0.9],
        [0.0034978965421958302, 0.0069957930843916605, 0.8677302443521268, 0.8677302443521268],
        [0.008792851591221286, 0.017585703182442573, 0.812574462591445, 0.812574462591445],
        [0.009450188923135407, 0.018900377846270813, 0.8057271987173396, 0.8057271987173396],
        [0.0046214239347744475, 0.009242847869548895, 0.8560268340127662, 0.8560268340127662],
        [0.0005394792763549498, 0.0010789585527098996, 0.8985470908713026, 0.8985470908713026],
        [0.00038151693242579796, 0.0007630338648515959, 0.9, 0.9],
        [0.0003122461893311692, 0.0006244923786623384, 0.9, 0.9],
        [0.00021084669893891179, 0.00042169339787782357, 0.9, 0.9],
        [0.00010634768002885594, 0.00021269536005771189, 0.9, 0.9],
        [2.8665701910005542e-05, 5.7331403820011085e-05, 0.9, 0.9],
        [4e-08, 8e-08, 0.9, 0.9],
        [2.8665701910005478e-05, 5.7331403820010956e-05, 0.9, 0.9],
    ],
    'one_cycle_no_momentum': [
        [0.020000000000000018, 0.0],
        [0.14, 0.0],
        [0.37999999999999995, 0.0],
        [0.5, 0.0],
        [0.42677698818985565, 0.0],
        [0.250001, 0.0],
        [0.07322501181014432, 0.0],
        [2e-06, 0.0],
        [0.07322501181014426, 0.0],
    ],
    'plateau': [
        [0.1, 0.0],
        [0.1, 0.0],
        [0.1, 0.0],
        [0.1, 0.0],
        [0.1, 0.0],
        [0.010000000000000002, 0.0],
        [0.010000000000000002, 0.0],
        [0.010000000000000002, 0.0],
        [0.010000000000000002, 0.0],
        [0.010000000000000002, 0.0],
        [0.0010000000000000002, 0.0],
        [0.0010000000000000002, 0.0],
        [0.0010000000000000002, 0.0],
        [0.00010000000000000003, 0.0],
        [0.00010000000000000003, 0.0],
        [0.00010000000000000003, 0.0],
        [1.0000000000000004e-05, 0.0],
        [1.0000000000000004e-05, 0.0],
        [1.0000000000000004e-05, 0.0],
        [1.0000000000000004e-06, 0.0],
        [1.0000000000000004e-06, 0.0],
    ],
    'plateau_max_abs': [
        [0.1, 0.0],
        [0.1, 0.0],
        [0.1, 0.0],
        [0.05, 0.0],
        [0.05, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
        [0.0125, 0.0],
        [0.0125, 0.0],
        [0.00625, 0.0],
        [0.00625, 0.0],
        [0.003125, 0.0],
        [0.003125, 0.0],
        [0.0015625, 0.0],
        [0.0015625, 0.0],
        [0.00078125, 0.0],
        [0.00078125, 0.0],
        [0.000390625, 0.0],
        [0.000390625, 0.0],
        [0.0001953125, 0.0],
        [0.0001953125, 0.0],
    ],
    'plateau_cooldown_min_lr': [
        [0.1, 0.1, 0.0, 0.0],
        [0.1, 0.1, 0.0, 0.0],
        [0.1, 0.1, 0.0, 0.0],
        [0.05, 0.05, 0.0, 0.0],
        [0.05, 0.05, 0.0, 0.0],
        [0.05, 0.05, 0.0, 0.0],
        [0.025, 0.025, 0.0, 0.0],
        [0.025, 0.025, 0.0, 0.0],
        [0.025, 0.025, 0.0, 0.0],
        [0.02, 0.0125, 0.0, 0.0],
        [0.02, 0.0125, 0.0, 0.0],
        [0.02, 0.0125, 0.0, 0.0],
        [0.02, 0.00625, 0.0, 0.0],
        [0.02, 0.00625, 0.0, 0.0],
        [0.02, 0.00625, 0.0, 0.0],
        [0.02, 0.003125, 0.0, 0.0],
        [0.02, 0.003125, 0.0, 0.0],
        [0.02, 0.003125, 0.0, 0.0],
        [0.02, 0.0015625, 0.0, 0.0],
        [0.02, 0.0015625, 0.0, 0.0],
        [0.02, 0.0015625, 0.0, 0.0],
    ],
    'plateau_eps': [
        [0.1, 0.0],
        [0.1, 0.0],
        [0.1, 0.0],
        [0.05, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
        [0.025, 0.0],
    ],
}
# END RECORDED
