"""Sampling ops torch_normal, torch_poisson, torch_bernoulli, torch_multinomial: reproducible
under torch_manual_seed, shapes and dtypes as libtorch's, rough moments of the distributions,
libtorch's gradient nodes (zero gradients) and its errors for bad input."""
from __future__ import annotations

import numpy as np
import pytest

import rtorchpy as rt

F64 = rt.torch_float64()


def _twice(fn):
    rt.torch_manual_seed(42)
    a = fn()
    rt.torch_manual_seed(42)
    b = fn()
    return a, b


@pytest.mark.parametrize("fn", [
    lambda: rt.torch_normal(0.0, 1.0, size=(3, 4)),
    lambda: rt.torch_normal(rt.torch_zeros(5), 2.0),
    lambda: rt.torch_poisson(rt.torch_full((6,), 3.0)),
    lambda: rt.torch_bernoulli(rt.torch_full((6,), 0.5)),
    lambda: rt.torch_rand(3).bernoulli(p=0.5),
    lambda: rt.torch_multinomial(rt.torch_ones(2, 5), 3),
    lambda: rt.torch_multinomial(rt.torch_ones(5), 8, replacement=True),
], ids=["normal", "normal_tensor", "poisson", "bernoulli", "bernoulli_p", "multinomial",
        "multinomial_replacement"])
def test_manual_seed_makes_draws_reproducible(fn):
    a, b = _twice(fn)
    assert np.array_equal(a._data, b._data)
    rt.torch_manual_seed(43)
    if a.numel() > 4:
        assert not np.array_equal(fn()._data, a._data) or a._data.std() == 0


def test_shapes_and_dtypes():
    assert rt.torch_normal(0.0, 1.0, size=(2, 3)).dtype == rt.torch_float32()
    assert rt.torch_normal(0.0, 1.0, (2, 3), dtype=F64).dtype == F64
    n = rt.torch_normal(0.0, 1.0, size=(2,), requires_grad=True)
    assert n.requires_grad and n.grad_fn is None
    m = rt.torch_zeros(3, 1, dtype=F64)
    assert tuple(rt.torch_normal(m, rt.torch_ones(4)).shape) == (3, 4)
    assert rt.torch_normal(m, 1.0).dtype == F64
    assert rt.torch_normal(1.0, rt.torch_ones(2)).dtype == rt.torch_float32()
    assert rt.torch_normal(rt.torch_zeros(2), rt.torch_ones(2, dtype=F64)).dtype == \
        rt.torch_float32()  # the mean's dtype, as libtorch
    assert rt.torch_poisson(rt.torch_ones(2, 2, dtype=F64)).dtype == F64
    b = rt.torch_bernoulli(rt.torch_full((2, 3), 0.5))
    assert b.dtype == rt.torch_float32() and tuple(b.shape) == (2, 3)
    assert rt.torch_tensor([1, 0]).bernoulli(0.3).dtype == rt.torch_int64()
    s = rt.torch_multinomial(rt.torch_ones(4, 6), 2)
    assert s.dtype == rt.torch_int64() and tuple(s.shape) == (4, 2)
    assert tuple(rt.torch_ones(6).multinomial(9, True).shape) == (9,)


def test_moments():
    rt.torch_manual_seed(1)
    n = rt.torch_normal(3.0, 2.0, size=(20000,), dtype=F64)._data
    assert abs(n.mean() - 3) < 0.06 and abs(n.std() - 2) < 0.06
    mean = rt.torch_tensor([-5.0, 5.0], dtype=F64).reshape(2, 1).expand(2, 10000)
    both = rt.torch_normal(mean, rt.torch_tensor([[0.5], [3.0]], dtype=F64))._data
    assert np.allclose(both.mean(1), [-5, 5], atol=0.1)
    assert np.allclose(both.std(1), [0.5, 3.0], rtol=0.05)
    p = rt.torch_poisson(rt.torch_full((20000,), 4.0, dtype=F64))._data
    assert abs(p.mean() - 4) < 0.1 and abs(p.var() - 4) < 0.2 and (p == np.round(p)).all()
    b = rt.torch_bernoulli(rt.torch_full((20000,), 0.3, dtype=F64))._data
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.02
    assert abs(rt.torch_zeros(20000).bernoulli(0.8)._data.mean() - 0.8) < 0.02
    w = rt.torch_tensor([1.0, 0.0, 3.0])
    s = rt.torch_multinomial(w, 20000, replacement=True)._data
    assert np.bincount(s, minlength=3)[1] == 0
    assert abs(np.mean(s == 2) - 0.75) < 0.02


def test_multinomial_without_replacement():
    rt.torch_manual_seed(3)
    rows = rt.torch_multinomial(rt.torch_rand(50, 7) + 0.01, 7)._data
    assert all(sorted(r) == list(range(7)) for r in rows.tolist())
    # weight-0 categories come only after every other one
    s = rt.torch_multinomial(rt.torch_tensor([0.5, 0.0, 0.5]), 3)._data.tolist()
    assert s[2] == 1 and sorted(s[:2]) == [0, 2]
    # heavier categories come first more often
    firsts = [rt.torch_multinomial(rt.torch_tensor([1.0, 9.0]), 1).item() for _ in range(400)]
    assert np.mean(firsts) > 0.8


def test_gradient_nodes_are_libtorchs_and_give_zero():
    m = rt.torch_tensor([0.0, 1.0], requires_grad=True)
    s = rt.torch_tensor([1.0, 2.0], requires_grad=True)
    for out, name in [(rt.torch_normal(m, 1.0), "NormalBackward1"),
                      (rt.torch_normal(0.0, s), "NormalBackward2"),
                      (rt.torch_normal(m, s), "NormalBackward3")]:
        assert out.grad_fn.name == name
        out.sum().backward()
    assert m.grad._data.tolist() == [0.0, 0.0] and s.grad._data.tolist() == [0.0, 0.0]
    r = rt.torch_tensor([1.0, 2.0], requires_grad=True)
    out = rt.torch_poisson(r)
    assert out.grad_fn.name == "PoissonBackward0"
    out.sum().backward()
    assert r.grad._data.tolist() == [0.0, 0.0]
    p = rt.torch_tensor([0.3, 0.6], requires_grad=True)
    out = rt.torch_bernoulli(p)
    assert out.grad_fn.name == "BernoulliBackward0"
    out.sum().backward()
    assert p.grad._data.tolist() == [0.0, 0.0]
    out = rt.torch_bernoulli(p, p=0.5)
    assert out.grad_fn.name == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::bernoulli is not implemented"):
        out.sum().backward()
    assert rt.torch_multinomial(p, 1).grad_fn is None
    with rt.with_no_grad():
        assert rt.torch_normal(m, 1.0).grad_fn is None


def test_gradient_nodes_match_pytorch():
    torch = pytest.importorskip("torch")
    m = torch.tensor([0.0, 1.0], requires_grad=True)
    s = torch.tensor([1.0, 2.0], requires_grad=True)
    assert torch.normal(m, 1.0).grad_fn.name() == "NormalBackward1"
    assert torch.normal(0.0, s).grad_fn.name() == "NormalBackward2"
    assert torch.normal(m, s).grad_fn.name() == "NormalBackward3"
    assert torch.poisson(s).grad_fn.name() == "PoissonBackward0"
    assert torch.bernoulli(m).grad_fn.name() == "BernoulliBackward0"
    assert torch.bernoulli(m, p=0.5).grad_fn.name() == "torch::autograd::NotImplemented"


@pytest.mark.parametrize("call,error,match", [
    (lambda: rt.torch_normal(0.0, -1.0, size=(2,)), RuntimeError,
     "normal expects std >= 0.0, but found std -1"),
    (lambda: rt.torch_normal(rt.torch_zeros(2), -1.0), RuntimeError,
     "normal expects std >= 0.0, but found std -1"),
    (lambda: rt.torch_normal(0.0, rt.torch_tensor([-1.0])), RuntimeError,
     "normal expects all elements of std >= 0.0"),
    (lambda: rt.torch_normal(0.0, 1.0), TypeError, "size="),
    (lambda: rt.torch_normal(rt.torch_tensor([1, 2]), 1.0), NotImplementedError,
     "\"normal_kernel_cpu\" not implemented for 'Long'"),
    (lambda: rt.torch_normal(rt.torch_ones(2), rt.torch_ones(3)), RuntimeError,
     "must match the size"),
    (lambda: rt.torch_poisson(rt.torch_tensor([-1.0])), RuntimeError,
     "invalid Poisson rate, expected rate to be non-negative"),
    (lambda: rt.torch_poisson(rt.torch_tensor([1, 2])), NotImplementedError,
     "\"poisson_cpu\" not implemented for 'Long'"),
    (lambda: rt.torch_bernoulli(rt.torch_tensor([1.5])), RuntimeError,
     "Expected p_in >= 0 && p_in <= 1"),
    (lambda: rt.torch_bernoulli(rt.torch_tensor([np.nan])), RuntimeError,
     "Expected p_in >= 0 && p_in <= 1"),
    (lambda: rt.torch_bernoulli(rt.torch_tensor([0.5]), p=1.5), RuntimeError,
     "bernoulli_ expects p to be in \\[0, 1\\], but got p=1.5"),
    (lambda: rt.torch_bernoulli(rt.torch_tensor([1, 0])), NotImplementedError,
     "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'"),
    (lambda: rt.torch_multinomial(rt.torch_tensor([0.3, 0.5]), 3), RuntimeError,
     "cannot sample n_sample > prob_dist.size\\(-1\\) samples without replacement"),
    (lambda: rt.torch_multinomial(rt.torch_tensor([-0.3, 0.5]), 1), RuntimeError,
     "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda: rt.torch_multinomial(rt.torch_tensor([0.3, np.inf]), 1), RuntimeError,
     "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda: rt.torch_multinomial(rt.torch_tensor([0.0, 0.0]), 1), RuntimeError,
     "invalid multinomial distribution \\(sum of probabilities <= 0\\)"),
    (lambda: rt.torch_multinomial(rt.torch_ones(1, 1, 1), 1), RuntimeError,
     "prob_dist must be 1 or 2 dim"),
    (lambda: rt.torch_multinomial(rt.torch_tensor([1, 2]), 1), RuntimeError,
     "multinomial only supports floating-point dtypes for input, got: Long"),
    (lambda: rt.torch_multinomial(rt.torch_ones(2), 0), RuntimeError,
     "cannot sample n_sample <= 0 samples"),
    (lambda: rt.torch_multinomial(rt.torch_ones(2), 2.5), TypeError,
     "argument 'num_samples' must be int"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_errors_match_pytorch_text():
    torch = pytest.importorskip("torch")
    for ours, theirs in [
            (lambda: rt.torch_poisson(rt.torch_tensor([-1.0])),
             lambda: torch.poisson(torch.tensor([-1.0]))),
            (lambda: rt.torch_multinomial(rt.torch_tensor([0.0, 0.0]), 1),
             lambda: torch.multinomial(torch.tensor([0.0, 0.0]), 1)),
            (lambda: rt.torch_bernoulli(rt.torch_tensor([1.5])),
             lambda: torch.bernoulli(torch.tensor([1.5]))),
            (lambda: rt.torch_normal(0.0, rt.torch_tensor([-1.0])),
             lambda: torch.normal(0.0, torch.tensor([-1.0])))]:
        with pytest.raises(RuntimeError) as a:
            ours()
        with pytest.raises(RuntimeError) as b:
            theirs()
        assert str(a.value) == str(b.value)
