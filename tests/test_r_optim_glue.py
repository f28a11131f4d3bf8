"""The optimizers' R bridge (rtorchpy/_r/optim.py) from Python: what R sends (handles, named
lists as dicts, vectors as lists) and what it gets back (tagged trees, 1-based indices), that
a refused change leaves the optimizer as it was, and that errors come back as error replies.
The R side is tested by r-shim/tests/testthat/test-optim.R."""
import numpy as np

import rtorchpy as rt
from rtorchpy._r import optim as glue
from rtorchpy._r.errors import error_reply
from rtorchpy._r.handles import _get, _put
from rtorchpy._r.protocol import ERROR_MESSAGE


def _params():
    w = rt.torch_tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = rt.torch_tensor([0.5], requires_grad=True)
    return w, b


def _opt(name, params, **kwargs):
    r = glue.optim_new(name, params, kwargs)
    assert r[0] == "O", r
    return r[1], _get(r[1])


def test_new_from_handles_and_groups():
    w, b = _params()
    h, opt = _opt("optim_adam", [_put(w), _put(b)], lr=0.1, betas=[0.8, 0.9])
    assert all(p is q for p, q in zip(opt.param_groups[0]["params"], [w, b]))
    assert opt.param_groups[0]["betas"] == (0.8, 0.9)
    h2, opt2 = _opt("optim_sgd", [{"params": [_put(w)], "lr": 0.5},
                                  {"params": _put(b), "momentum": 0.9}], lr=0.1)
    assert [g["lr"] for g in opt2.param_groups] == [0.5, 0.1]
    assert opt2.param_groups[1]["momentum"] == 0.9


def test_errors_come_back_as_messages():
    w, _ = _params()
    assert glue.optim_new("optim_adam", [_put(w)], {"lr": -1.0}) == \
        error_reply("Invalid learning rate: -1.0", "value_error")
    assert ERROR_MESSAGE in glue.optim_new("optim_adam", [], {})
    assert "non-leaf" in glue.optim_new("optim_sgd", [_put(w * 2)], {"lr": 0.1})[ERROR_MESSAGE]
    assert "unknown optimizer option 'foo'" in glue.optim_new(
        "optim_adam", [{"params": [_put(w)], "foo": 1.0}], {})[ERROR_MESSAGE]
    assert ERROR_MESSAGE in glue.optim_new("Optimizer", [_put(w)], {})


def test_groups_tree_and_refused_write_changes_nothing():
    w, b = _params()
    h, opt = _opt("optim_adam", [_put(w), _put(b)], lr=0.1)
    tree = glue.optim_groups(h)
    assert tree[0] == "v"
    names, values = tree[1][0]
    assert names[0] == "params" and values[0][0] == "__list__"
    assert values[names.index("betas")] == [0.9, 0.999]  # a tuple: an R vector
    group = dict(zip(names, values))
    group["params"] = values[0][1]
    bad = dict(group, lr=-3.0)
    assert ERROR_MESSAGE in glue.optim_set_groups(h, [bad])
    assert opt.param_groups[0]["lr"] == 0.1
    unknown = dict(group, foo=1.0)
    assert "unknown optimizer option" in glue.optim_set_groups(h, [unknown])[ERROR_MESSAGE]
    assert "foo" not in opt.param_groups[0]
    ok = dict(group, lr=0.01, betas=[0.5, 0.6], initial_lr=0.1)
    assert glue.optim_set_groups(h, [ok]) == ["v", None]
    assert opt.param_groups[0]["lr"] == 0.01
    assert opt.param_groups[0]["betas"] == (0.5, 0.6)
    assert opt.param_groups[0]["initial_lr"] == 0.1


def test_state_dict_is_one_based_and_round_trips():
    w, b = _params()
    h, opt = _opt("optim_adam", [_put(w), _put(b)], lr=0.1)
    w.grad = rt.torch_ones(3)
    b.grad = rt.torch_ones(1)
    opt.step()
    r = glue.optim_state_dict(h)
    (keys, states), groups = r[1]
    assert keys == ["1", "2"]
    assert states[0][0] == "__dict__" and "exp_avg" in states[0][1]
    gnames, gvalues = groups[0]
    assert gvalues[gnames.index("params")] == ["__list__", [1, 2]]
    # what R sends back: named lists as dicts, tensors as handles, counts as doubles
    state = {k: dict(zip(s[1], s[2])) for k, s in zip(keys, states)}
    for s in state.values():
        s["step"] = float(s["step"])
    group = {n: v for n, v in zip(gnames, gvalues)}
    group["params"] = [1.0, 2.0]
    group["betas"] = list(group["betas"])
    w2, b2 = _params()
    h2, opt2 = _opt("optim_adam", [_put(w2), _put(b2)], lr=0.7)
    assert glue.optim_load_state_dict(h2, state, [group]) == ["v", None]
    assert opt2.param_groups[0]["lr"] == 0.1
    assert opt2.state[w2]["step"] == 1 and isinstance(opt2.state[w2]["step"], int)
    np.testing.assert_array_equal(opt2.state[w2]["exp_avg"]._data, opt.state[w]["exp_avg"]._data)
    # refused: an index no group has; the optimizer keeps its own
    bad = {"7": state["1"]}
    assert "refers to parameter 6" in glue.optim_load_state_dict(h2, bad, [group])[ERROR_MESSAGE]
    assert opt2.param_groups[0]["lr"] == 0.1


def test_step_with_an_r_like_closure_and_its_errors():
    w, _ = _params()
    h, opt = _opt("optim_lbfgs", [_put(w)], max_iter=3.0)
    calls = []

    def r_closure():  # what R's .closure_callback returns: the loss's handle
        calls.append(1)
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return _put(loss)

    r = glue.optim_step(h, r_closure)
    assert isinstance(r, complex) and len(calls) > 1
    failing = glue.optim_step(h, lambda: ["__rerror__", "boom"])
    assert failing == error_reply("boom", "runtime_error", in_r=True)
    assert "needs a closure" in glue.optim_step(h, None)[ERROR_MESSAGE]
