"""The engine: backward, autograd_grad, hooks, retain/create graph, grad mode, errors."""
import gc
import sys
import threading
import time
import weakref

import numpy as np
import pytest

from rtorchpy import (autograd_backward, autograd_grad, is_grad_enabled, set_grad_enabled,
                     torch_ones, torch_ones_like, torch_randn, torch_tensor, torch_zeros,
                     with_detect_anomaly, with_enable_grad, with_no_grad, autograd_set_grad_mode)


def leaf(values):
    return torch_tensor(values, requires_grad=True)


def test_backward_accumulates_into_leaves():
    x = leaf([1.0, 2.0])
    (x * 3).sum().backward()
    (x * 3).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_backward_returns_none_and_grad_fn_names():
    x = leaf([1.0])
    y = x + 2
    assert y.grad_fn.name == "AddBackward1"
    assert y.backward() is None
    assert x.grad_fn is None and x.is_leaf and not y.is_leaf


def test_next_functions_chain_matches_libtorch():
    x1 = torch_ones(2, 2, requires_grad=True)
    x2 = leaf([1.1])
    y = x1 * (x2 + 2)
    out = (y.pow(2) * 3).mean()
    names = []
    node = out.grad_fn
    while node.next_functions:
        names.append(node.name)
        node = node.next_functions[0][0]
    assert names == ["MeanBackward0", "MulBackward1", "PowBackward0", "MulBackward0"]
    assert node.name == "torch::autograd::AccumulateGrad"
    mul = out.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
    assert mul.next_functions[1][0].name == "AddBackward1"
    out.backward()
    np.testing.assert_allclose(x1.grad.numpy(), np.full((2, 2), 14.415), rtol=1e-5)
    np.testing.assert_allclose(x2.grad.numpy(), [18.6], rtol=1e-5)


def test_constant_inputs_have_null_edges():
    x = leaf([1.0])
    y = x * torch_tensor([2.0])
    assert y.grad_fn.next_functions[1] == (None, 0)


def test_implicit_gradient_only_for_one_element():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError,
                       match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    leaf([3.0]).mul(2).backward()  # shape {1} qualifies


def test_wrong_gradient_shape_is_rejected_as_pytorch_does():
    # PyTorch's Python backward()/grad() refuse any gradient not of the output's shape
    x = leaf([1.0, 2.0])
    y = x * 2
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of "
                                           r"torch.Size\(\[3, 2\]\) and output\[0\] has a shape "
                                           r"of torch.Size\(\[2\]\)"):
        y.backward(torch_ones(3, 2))
    w = leaf([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="Mismatch in shape"):  # (issue 29: was summed)
        autograd_grad(w.exp().mean(), w, torch_ones_like(w))


def test_engine_shapes_sum_a_broadcast_gradient_and_refuse_others():
    # libtorch's C++ backward()/grad(), which R torch calls: the engine sums a gradient that
    # broadcasts from the output's shape, refuses any other
    x = leaf([1.0, 2.0])
    y = x * 2
    with pytest.raises(RuntimeError, match=r"invalid gradient at index 0 - got \[3\] but expected "
                                           r"shape compatible with \[2\]"):
        autograd_backward([y], [torch_ones(3)], retain_graph=True, engine_shapes=True)
    autograd_backward([y], [torch_ones(3, 2)], retain_graph=True, engine_shapes=True)
    assert x.grad.tolist() == [6.0, 6.0]
    w = leaf([1.0, 2.0, 3.0])
    g = autograd_grad(w.exp().mean(), w, torch_ones_like(w), check_grad_shapes=False)[0]
    np.testing.assert_allclose(g.numpy(), np.exp([1.0, 2.0, 3.0]), rtol=1e-6)


def test_backward_without_grad_errors():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does "
                                           "not have a grad_fn"):
        torch_ones(2).sum().backward()


def test_second_backward_through_freed_graph_errors():
    x = leaf([2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="graph a second time"):
        y.backward()
    z = (x * 2).sum()  # a node that saves nothing may run again
    z.backward()
    z.backward()


def test_retain_graph_allows_a_second_pass():
    x = leaf([2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.item() == 8.0


def test_create_graph_gives_higher_derivatives():
    x = leaf(2.0)
    (g,) = autograd_grad(x ** 3, x, create_graph=True)
    (g2,) = autograd_grad(g, x, create_graph=True)
    (g3,) = autograd_grad(g2, x)
    assert (g.item(), g2.item(), g3.item()) == (12.0, 12.0, 6.0)


def test_create_graph_leaf_grad_is_differentiable():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (x * x + x * y + y * y).sum().backward(create_graph=True)
    assert x.grad.grad_fn.name == "torch::autograd::CopyBackwards"
    assert x.grad.tolist() == [5.0, 8.0]  # 2x + y
    (hv,) = autograd_grad(2 * x.grad + y.grad, x, grad_outputs=torch_ones(2))
    assert hv.tolist() == [5.0, 5.0]
    assert x.grad.tolist() == [5.0, 8.0]


def test_autograd_grad_leaves_grad_untouched_and_lists_in_input_order():
    x, y = leaf([1.0]), leaf([2.0])
    gy, gx = autograd_grad((x * y).sum(), [y, x])
    assert (gx.item(), gy.item()) == (2.0, 1.0)
    assert x.grad is None and y.grad is None


def test_autograd_grad_unused_input():
    x, y = leaf([1.0]), leaf([2.0])
    with pytest.raises(RuntimeError, match="The differentiated Tensor at index 1 appears to not "
                                           "have been used in the graph"):
        autograd_grad((x * 2).sum(), [x, y])
    assert autograd_grad((x * 2).sum(), [x, y], allow_unused=True)[1] is None


def test_autograd_grad_non_leaf_inputs_and_pruning():
    x = leaf([1.0, 2.0, 3.0, 4.0])
    calls = []
    x.register_hook(lambda g: calls.append(g))
    a, b = (x * 1).chunk(2)
    ga, gb = autograd_grad((a + 2 * b).sum(), [a, b])
    assert ga.tolist() == [1.0, 1.0] and gb.tolist() == [2.0, 2.0]
    assert calls == [] and x.grad is None


def test_autograd_grad_unchecked_grad_outputs_follow_libtorch():
    w = leaf(np.ones((2, 3), dtype=np.float32))
    m = w.exp().mean()
    # libtorch's engine sums the [2, 3] ones down to the scalar output's shape: 6 * e / 6
    # (recorded from PyTorch 2.13's engine, Variable._execution_engine.run_backward)
    (g,) = autograd_grad(m, w, torch_ones(2, 3), check_grad_shapes=False)
    np.testing.assert_allclose(g.numpy(), np.e * np.ones((2, 3)), rtol=1e-6)
    (g,) = autograd_grad(w.exp().mean(), w, torch_ones(4), check_grad_shapes=False)
    np.testing.assert_allclose(g.numpy(), 4 * np.e / 6 * np.ones((2, 3)), rtol=1e-6)


def test_autograd_backward_lists_and_none_entries():
    x, y = leaf([1.0]), leaf([1.0])
    autograd_backward([2 * x, 3 * y], [None, torch_ones(1)])
    assert (x.grad.item(), y.grad.item()) == (2.0, 3.0)


def test_backward_inputs_limits_accumulation():
    a, b = leaf([1.0]), leaf([1.0])
    (a * b).sum().backward(inputs=[a])
    assert a.grad.item() == 1.0 and b.grad is None


def test_hooks_run_from_output_to_leaf_and_can_replace():
    x = leaf([1.0])
    y = 2 * x
    order = []
    y.register_hook(lambda g: order.append("y"))
    x.register_hook(lambda g: order.append("x"))
    handle = x.register_hook(lambda g: g * 2)
    y.backward(retain_graph=True)
    assert order == ["y", "x"] and x.grad.item() == 4.0
    handle.remove()
    handle.remove()  # idempotent
    y.backward()
    assert x.grad.item() == 6.0


def test_hook_on_non_leaf_receives_its_gradient():
    x = leaf([1.0, 2.0, 3.0])
    first = x.unbind()[0]
    seen = []
    first.register_hook(lambda g: seen.append(g.item()))
    (first * 1).backward()
    assert seen == [1.0] and x.grad.tolist() == [1.0, 0.0, 0.0]


def test_hooks_can_run_backward_on_other_graphs():
    order = []
    x = leaf([1.0])
    y = x * 2
    a = leaf([1.0])

    def hook(g):
        order.append("a")
        y.backward()

    x.register_hook(lambda g: order.append("x"))
    a.register_hook(hook)
    (a * 2).backward()
    assert order == ["a", "x"]


def test_error_in_hook_propagates_and_restores_grad_mode():
    x = leaf([1.0])

    def bad(g):
        raise ValueError("hook failed")

    x.register_hook(bad)
    with pytest.raises(ValueError, match="hook failed"):
        (x * 2).backward()
    assert is_grad_enabled()


def test_retain_grad_on_non_leaf():
    x = leaf([1.0, 2.0])
    y = x * 3
    assert y.retain_grad() is None
    y.sum().backward()
    assert y.grad.tolist() == [1.0, 1.0]


def test_grad_mode_contexts_nest_restore_and_decorate():
    x = leaf([1.0])
    with with_no_grad():
        assert (x * 2).grad_fn is None
        with with_enable_grad():
            assert (x * 2).grad_fn is not None
        assert not is_grad_enabled()
    assert is_grad_enabled()
    with pytest.raises(KeyError):
        with with_no_grad():
            raise KeyError
    assert is_grad_enabled()

    @with_no_grad()
    def f():
        return is_grad_enabled()

    assert f() is False and is_grad_enabled()
    with set_grad_enabled(False):
        assert not is_grad_enabled()
    autograd_set_grad_mode(False)
    assert not is_grad_enabled()
    autograd_set_grad_mode(True)


def test_grad_mode_is_per_thread():
    seen = {}
    with with_no_grad():
        t = threading.Thread(target=lambda: seen.setdefault("thread", is_grad_enabled()))
        t.start()
        t.join()
        assert not is_grad_enabled()
    assert seen["thread"] is True


def test_in_place_on_leaf_requiring_grad():
    w = leaf([1.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an "
                                           "in-place operation."):
        w.sub_(1)
    assert w.tolist() == [1.0] and w._version[0] == 0
    with with_no_grad():
        w.sub_(torch_tensor([0.5]))
    assert w.tolist() == [0.5] and w.requires_grad


def test_modified_saved_tensor_is_detected_with_libtorch_text():
    x, y = leaf([1.0]), leaf([2.0])
    z = x ** y
    with with_no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[CPUFloatType "
                                           r"\[1\]\] is at version 1; expected version 0 instead. "
                                           r"Hint: enable anomaly detection"):
        z.backward()
    z = x ** y
    with with_no_grad():
        y.add_(1)
    with pytest.warns(UserWarning, match="should be enabled only for debugging"):
        with with_detect_anomaly():
            with pytest.raises(RuntimeError, match="one of the variables needed.*Good luck!"):
                z.backward()


def test_anomaly_mode_names_the_forward_op_that_made_nan():
    x = leaf([0.0])
    with pytest.warns(UserWarning), np.errstate(all="ignore"):  # the NaN is the point here
        with with_detect_anomaly():
            y = (x.sqrt() * 0).sum()
            with pytest.raises(RuntimeError, match="returned nan values") as info:
                y.backward()
    notes = "".join(getattr(info.value, "__notes__", [])) + str(info.value)
    assert "SqrtBackward0" in notes and "test_engine.py" in notes


def test_requires_grad_rules():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        torch_tensor([1, 2], requires_grad=True)
    x = leaf([1.0])
    y = x * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf"):
        y.requires_grad = False
    x.requires_grad = False
    assert not x.requires_grad
    assert x.requires_grad_() is x and x.requires_grad


def test_detach_shares_storage_and_drops_history():
    x = leaf([1.0, 2.0])
    d = (x * 2).detach()
    assert d.grad_fn is None and not d.requires_grad and d.is_leaf
    e = x.detach()
    with with_no_grad():
        x.add_(1)
    assert e.tolist() == [2.0, 3.0]


def test_deep_graph_has_no_recursion_limit_and_scales_linearly():
    def run(n):
        x = leaf([1.0])
        y = x
        start = time.perf_counter()
        for _ in range(n):
            y = y * 1.0
        y.backward()
        assert x.grad.item() == 1.0
        return (time.perf_counter() - start) / n

    assert sys.getrecursionlimit() < 10 ** 5
    small = min(run(10 ** 4) for _ in range(2))
    big = run(10 ** 5)
    # generous bound: this only guards against quadratic behaviour, timing belongs to benchmarks
    assert big < 5 * small


@pytest.mark.slow
def test_million_deep_chain_completes():
    x = leaf([1.0])
    y = x
    for _ in range(10 ** 6):
        y = y + 0.0
    y.backward()
    assert x.grad.item() == 1.0


def test_intermediates_are_freed_after_backward():
    x = torch_randn(3, requires_grad=True)
    y = x.exp()
    ref = weakref.ref(y)
    node_ref = weakref.ref(y.grad_fn)
    z = (y * 2).sum()
    del y
    z.backward()
    del z
    gc.collect()
    assert ref() is None and node_ref() is None


def test_forward_makes_no_reference_cycles():
    gc.collect()
    gc.disable()
    try:
        x = torch_randn(3, requires_grad=True)
        y = (x.exp() * 2).sum()
        ref = weakref.ref(y.grad_fn)
        del y
        assert ref() is None  # freed by reference counting alone
    finally:
        gc.enable()


def test_zero_grad_via_in_place_zero():
    x = leaf([1.0])
    (x * 2).backward()
    x.grad.zero_()
    assert x.grad.tolist() == [0.0]


def test_assigning_grad():
    x = leaf([2.0])
    (x * 6).backward()
    x.grad = x.grad / 2
    assert x.grad.item() == 3.0
    x.grad = None
    assert x.grad is None
    with pytest.raises(RuntimeError, match="different size"):
        x.grad = torch_zeros(3)


def test_square_by_self_product_first_and_second_order():
    x = leaf([1.5, -2.0])
    (g,) = autograd_grad((x * x).sum(), x, create_graph=True)
    assert g.tolist() == [3.0, -4.0]
    (h,) = autograd_grad(g.sum(), x)
    assert h.tolist() == [2.0, 2.0]


def test_no_grad_in_place_update_writes_storage_and_bumps_version():
    w = leaf([1.0, 2.0])
    view = w.detach()
    g = torch_tensor([10.0, 20.0])
    with with_no_grad():
        assert w.sub_(g, alpha=0.1) is w
        w.mul_(2.0)
    assert w.tolist() == [0.0, 0.0] and view.tolist() == [0.0, 0.0]
    assert w._version[0] == 2 and w.requires_grad and w.is_leaf


def test_in_place_update_takes_alpha_by_position_as_by_keyword():
    # (the R package passes alpha = 1 by position; it must take the same no-graph fast path)
    for alpha in (1, 0.5, -2):
        for name in ("add_", "sub_"):
            a, b = leaf([1.0, 2.0]), leaf([1.0, 2.0])
            g = torch_tensor([10.0, 20.0])
            with with_no_grad():
                assert getattr(a, name)(g, alpha) is a
                getattr(b, name)(g, alpha=alpha)
            assert a.tolist() == b.tolist() and a._version[0] == b._version[0] == 1
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.sub_(torch_tensor([1.0, 1.0]), 1)  # outside no-grad: still refused, data intact
    assert x.tolist() == [1.0, 2.0]


def test_owned_gradient_buffers_are_not_shared_between_leaves():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (x + y).sum().backward()
    x.grad.add_(torch_ones(2))  # must not leak into y.grad
    assert y.grad.tolist() == [1.0, 1.0]
    z = leaf([1.0, 1.0])
    (z * 2 + z * 3 + z).sum().backward()  # three gradients summed into one buffer
    assert z.grad.tolist() == [6.0, 6.0]


# ---- regressions found in review -------------------------------------------------------------

def test_product_with_a_detached_copy_is_not_a_square():
    x = leaf([3.0])
    (x * x.detach()).sum().backward()
    assert x.grad.tolist() == [3.0]
    d = x.detach().requires_grad_()
    x.grad = None
    (x * d).sum().backward()
    assert x.grad.tolist() == [3.0] and d.grad.tolist() == [3.0]


def test_views_see_in_place_changes_of_their_base_and_rewrite_its_history():
    a = leaf([1.0, 2.0])
    b = a * 1
    v = b[0:1]
    b.mul_(10)
    assert v.grad_fn.name == "AsStridedBackward0"  # from b's new history (libtorch's name)
    v.sum().backward()
    assert a.grad.tolist() == [10.0, 0.0]
    w = leaf([1.0])
    x = torch_zeros(3)
    x[0:2].add_(w)  # x takes history: CopySlices
    assert x.tolist() == [1.0, 1.0, 0.0] and x.grad_fn.name == "CopySlices"
    x.sum().backward()
    assert w.grad.tolist() == [2.0]
    with with_no_grad():
        x[0:2].add_(w)  # no history to record, written through the view
    assert x.tolist() == [2.0, 2.0, 0.0]


def test_retain_grad_then_in_place_counts_the_gradient_once():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    y.mul_(3)
    y.sum().backward()
    assert y.grad.tolist() == [1.0, 1.0] and x.grad.tolist() == [6.0, 6.0]


def test_autograd_grad_with_a_tensor_named_twice():
    x = leaf([1.0, 2.0])
    h = x * 3
    g1, g2, gx = autograd_grad((h * h).sum(), [h, h, x])
    assert g1.tolist() == g2.tolist() == [6.0, 12.0] and gx.tolist() == [18.0, 36.0]


def test_autograd_grad_leaves_a_non_leaf_inputs_own_graph_intact():
    x = leaf([1.0, 2.0])
    h = x.exp()
    autograd_grad((h * 2).sum(), h)
    h.sum().backward()  # h's own node was neither run nor freed
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0]), rtol=1e-6)


def test_leaf_hooks_apply_to_captured_gradients():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g * 10)
    assert autograd_grad((x * 2).sum(), x)[0].tolist() == [20.0, 20.0]
    (x * 2).sum().backward(inputs=[x])
    assert x.grad.tolist() == [20.0, 20.0]  # hooks ran once


def test_retained_grad_under_create_graph_is_not_the_callers_tensor():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    gt = torch_ones(2)
    y.backward(gt, create_graph=True)
    assert y.grad is not gt
    y.grad.zero_()
    assert gt.tolist() == [1.0, 1.0]


def test_engine_adds_into_buffers_it_owns(monkeypatch):
    from rtorchpy.autograd import engine
    in_place = []
    real_add = np.add

    def spy(*args, **kwargs):
        if "out" in kwargs:
            in_place.append(kwargs["out"])
        return real_add(*args, **kwargs)

    monkeypatch.setattr(engine.np, "add", spy)
    z = leaf(np.ones(4, dtype=np.float32))
    (z * 2 + z * 3 + z * 4 + z).sum().backward()
    monkeypatch.undo()
    assert z.grad.tolist() == [10.0] * 4
    assert in_place, "a buffer summed three times should have been added into in place"
    assert any(z.grad._data is a for a in in_place)  # the leaf kept the owned sum, no copy
