"""Forward-mode AD against reverse mode, over every row of the derivative table.

The samples are the derivative-table samples of ``test_derivatives.py`` (``BUILDERS``). For a
random tangent ``t`` of the inputs and a random cotangent ``v`` of the outputs, forward mode's
``<v, J t>`` must equal reverse mode's ``<J^T v, t>`` (float64), and the sample must really
run the row under a dual level (its tangent rule is used).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtorchpy as rt
from rtorchpy import autograd_grad, torch_tensor
from rtorchpy.autograd import forward_ad
from rtorchpy.autograd.rows import NODES, ROWS
from test_derivatives import BUILDERS, EXAMPLES, _leaves, _outputs

# CopyBackwards is recorded only when backward writes a leaf's .grad under create_graph; a dual
# tensor is a view, never that leaf. Its rule (the identity) is used by forward-over-reverse.
ROW_NAMES = [name for name, _ in ROWS if name != "torch::autograd::CopyBackwards"]


def _forward(case, ts):
    with rt.autograd_dual_level():
        xs = [rt.autograd_make_dual(torch_tensor(a.copy()), torch_tensor(t))
              for a, t in zip(case.inputs, ts)]
        outs = _outputs(case.fn(*xs))
        return [(o.detach().numpy(), rt.autograd_unpack_dual(o).tangent) for o in outs]


def _reverse(case, vs):
    xs = _leaves(case.inputs)
    outs = _outputs(case.fn(*xs))
    pairs = [(o, v) for o, v in zip(outs, vs) if o.requires_grad]
    grads = autograd_grad([o for o, _ in pairs], xs, [torch_tensor(v) for _, v in pairs],
                          allow_unused=True)
    return [np.zeros_like(a) if g is None else g.numpy() for g, a in zip(grads, case.inputs)]


def check_forward_equals_reverse(case, rng):
    ts = [rng.standard_normal(a.shape) for a in case.inputs]
    fwd = _forward(case, ts)
    vs = [rng.standard_normal(p.shape) for p, _ in fwd]
    lhs = sum(float(np.sum(v * (0 if t is None else t.numpy()))) for v, (_, t) in zip(vs, fwd))
    for (_, t), (p, _) in zip(fwd, fwd):
        if t is not None:
            assert tuple(t.shape) == p.shape
    rhs = sum(float(np.sum(g * t)) for g, t in zip(_reverse(case, vs), ts))
    np.testing.assert_allclose(lhs, rhs, rtol=case.rtol * 10, atol=case.atol * 10)


@pytest.mark.parametrize("name", ROW_NAMES)
@settings(max_examples=max(EXAMPLES // 3, 1), deadline=None)
@given(data=st.data())
def test_forward_mode_equals_reverse_mode(name, data):
    build = data.draw(st.sampled_from(BUILDERS[name]), label="builder")
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1), label="seed"))
    case = build(data.draw, rng, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check_forward_equals_reverse(case, rng)


def test_every_row_has_a_tangent_rule():
    """A row gets its rule explicitly, as a diagonal (elementwise) op, or by the transpose
    trick; the last needs only a formula linear in the output gradient, which every row is
    (second-order gradients rely on the same). The listing is what the docs report."""
    kinds = {name: forward_ad.tangent_rule_kind(name) for name in ROW_NAMES}
    assert set(kinds.values()) <= {"explicit", "diagonal", "transpose"}
    unknown = (set(forward_ad.TANGENT_RULES) | forward_ad.DIAGONAL) - set(NODES)
    assert not unknown, f"tangent rules for rows that do not exist: {sorted(unknown)}"


def _forward_batched(case, tss):
    """Output tangents for several tangents at once (a leading batch dimension)."""
    with forward_ad.batched_dual_level(len(tss)):
        xs = [rt.autograd_make_dual(torch_tensor(a.copy()),
                                    torch_tensor(np.stack([ts[i] for ts in tss])))
              for i, a in enumerate(case.inputs)]
        outs = _outputs(case.fn(*xs))
        return [rt.autograd_unpack_dual(o).tangent for o in outs]


@pytest.mark.parametrize("name", ROW_NAMES)
@settings(max_examples=max(EXAMPLES // 5, 1), deadline=None)
@given(data=st.data())
def test_batched_tangents_equal_one_tangent_at_a_time(name, data):
    """jacfwd pushes all directions at once: each slice of a batched tangent must be what
    that direction alone gives (explicit batched rules, diagonal rules with their directions
    lined up, and the per-direction loop for the rest)."""
    build = data.draw(st.sampled_from(BUILDERS[name]), label="builder")
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1), label="seed"))
    case = build(data.draw, rng, name)
    tss = [[rng.standard_normal(a.shape) for a in case.inputs] for _ in range(2)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        batched = _forward_batched(case, tss)
        singles = [[t for _, t in _forward(case, ts)] for ts in tss]
    for j, bt in enumerate(batched):
        for k in range(2):
            one = singles[k][j]
            if bt is None:
                assert one is None or not np.any(one.numpy())
                continue
            want = np.zeros(bt.shape[1:]) if one is None else one.numpy()
            np.testing.assert_allclose(bt.numpy()[k], want, rtol=1e-9, atol=1e-9,
                                       err_msg=f"output {j}, direction {k}")


def test_tangents_flow_under_no_grad():
    """As in PyTorch, no_grad stops recording, not forward AD: tangents keep flowing and no
    graph is built, whichever of the two blocks is opened first."""
    x = rt.torch_tensor([1.0, 2.0], requires_grad=True)
    t = rt.torch_tensor([1.0, -1.0])
    want = np.cos([1.0, 2.0]) * [1.0, -1.0]
    with rt.autograd_dual_level():
        d = rt.autograd_make_dual(x, t)
        with rt.with_no_grad():
            assert not rt.is_grad_enabled()
            y = d.sin()
        assert rt.is_grad_enabled()
        np.testing.assert_allclose(rt.autograd_unpack_dual(y).tangent.numpy(), want, rtol=1e-6)
        assert not y.requires_grad
        rt.autograd_set_grad_mode(False)
        try:
            z = (d * d).sum()
        finally:
            rt.autograd_set_grad_mode(True)
        np.testing.assert_allclose(rt.autograd_unpack_dual(z).tangent.numpy(), 2 * (1 - 2))
        assert not z.requires_grad
    with rt.with_no_grad():
        with rt.autograd_dual_level():
            y = rt.autograd_make_dual(x, t).sin()
            np.testing.assert_allclose(rt.autograd_unpack_dual(y).tangent.numpy(), want,
                                       rtol=1e-6)
            assert not y.requires_grad and not rt.is_grad_enabled()
        assert not rt.is_grad_enabled()
    assert rt.is_grad_enabled()
    y = x.sin()  # and recording is back
    assert y.requires_grad
