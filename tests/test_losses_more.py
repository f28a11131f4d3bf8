"""Margin and embedding losses (nnf_hinge_embedding_loss, nnf_soft_margin_loss,
nnf_multilabel_soft_margin_loss, nnf_cosine_embedding_loss, nnf_margin_ranking_loss,
nnf_triplet_margin_loss, nnf_multi_margin_loss) and their modules, with nn_kl_div_loss:
values recorded from PyTorch 2.13, gradients to second order, live comparisons."""
from __future__ import annotations

import numpy as np
import pytest

import rtorchpy as rt

RNG = np.random.default_rng(7)
A = RNG.standard_normal((4, 5))
B = RNG.standard_normal((4, 5))
C = RNG.standard_normal((4, 5))
PM = np.array([1.0, -1.0, -1.0, 1.0])
PM2 = np.sign(RNG.standard_normal((4, 5)))
Y01 = (RNG.random((4, 5)) > 0.5).astype(float)
CLS = np.array([0, 3, 4, 1])
W = RNG.random(5)


def cases(lib, t, F):
    """name -> a function of (a, b, c) tensors giving the loss, in either library."""
    return {
        "hinge": lambda a, b, c: F.hinge_embedding_loss(a, t(PM2), margin=0.7),
        "soft_margin": lambda a, b, c: F.soft_margin_loss(a, t(PM2)),
        "multilabel_soft_margin": lambda a, b, c: F.multilabel_soft_margin_loss(
            a, t(Y01), weight=t(W)),
        "cosine_embedding": lambda a, b, c: F.cosine_embedding_loss(a, b, t(PM), margin=0.1),
        "margin_ranking": lambda a, b, c: F.margin_ranking_loss(a, b, t(PM2), margin=0.2),
        "triplet": lambda a, b, c: F.triplet_margin_loss(a, b, c, margin=1.5),
        "triplet_swap_p1": lambda a, b, c: F.triplet_margin_loss(a, b, c, p=1, swap=True),
        "multi_margin": lambda a, b, c: F.multi_margin_loss(a, t(CLS, long=True)),
        "multi_margin_p2_w": lambda a, b, c: F.multi_margin_loss(a, t(CLS, long=True), p=2,
                                                                 margin=0.5, weight=t(W)),
    }


class _RtF:
    """rtorchpy's functions under PyTorch's short names."""

    def __getattr__(self, name):
        return getattr(rt, "nnf_" + name)


def _rt_t(x, long=False):
    return rt.torch_tensor(np.asarray(x, dtype=np.int64 if long else np.float64))


RECORDED = {"hinge": 0.8357935862003562, "soft_margin": 0.5645812182304559,
            "multilabel_soft_margin": 0.41216514963857265,
            "cosine_embedding": 0.4816722056312055, "margin_ranking": 0.28993828552996215,
            "triplet": 1.5661213188947687, "triplet_swap_p1": 2.623367881595309,
            "multi_margin": 0.9496977803894419, "multi_margin_p2_w": 0.5385705946628457}


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_recorded_values_and_second_order(name):
    fn = cases(rt, _rt_t, _RtF())[name]
    a, b, c = (rt.torch_tensor(v, requires_grad=True) for v in (A, B, C))
    assert abs(fn(a, b, c).item() - RECORDED[name]) < 1e-12
    assert rt.autograd_gradcheck(lambda a, b, c: fn(a, b, c), [a, b, c])
    assert rt.autograd_gradgradcheck(lambda a, b, c: fn(a, b, c), [a, b, c])


def test_modules_and_reductions():
    a, b = rt.torch_tensor(A), rt.torch_tensor(B)
    none = rt.nn_margin_ranking_loss(0.2, reduction="none")(a, b, _rt_t(PM2))
    assert tuple(none.shape) == (4, 5)
    assert abs(none.mean().item() - RECORDED["margin_ranking"]) < 1e-12
    assert abs(rt.nn_multi_margin_loss()(a, _rt_t(CLS, long=True)).item() -
               RECORDED["multi_margin"]) < 1e-12
    assert rt.nn_triplet_margin_loss(margin=1.5)(a, b, rt.torch_tensor(C)).item() == \
        pytest.approx(RECORDED["triplet"], abs=1e-12)
    p = rt.nnf_log_softmax(a, 1)
    q = rt.nnf_softmax(b, 1)
    assert rt.nn_kl_div_loss(reduction="batchmean")(p, q).item() == pytest.approx(
        rt.nnf_kl_div(p, q, reduction="batchmean").item())
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        rt.nnf_soft_margin_loss(a, a, reduction="avg")
    with pytest.raises(IndexError, match="target out of range"):
        rt.nnf_multi_margin_loss(a, _rt_t([0, 1, 2, 5], long=True))


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_against_pytorch(name):
    torch = pytest.importorskip("torch")

    def tt(x, long=False):
        return torch.tensor(np.asarray(x), dtype=torch.int64 if long else torch.float64)
    ft = cases(torch, tt, torch.nn.functional)[name]
    fr = cases(rt, _rt_t, _RtF())[name]
    ta = [torch.tensor(v, requires_grad=True) for v in (A, B, C)]
    ra = [rt.torch_tensor(v, requires_grad=True) for v in (A, B, C)]
    lt, lr = ft(*ta), fr(*ra)
    assert lr.item() == pytest.approx(lt.item(), abs=1e-13)
    lt.backward()
    lr.backward()
    for x, y in zip(ta, ra):
        gx = np.zeros(A.shape) if x.grad is None else x.grad.numpy()
        gy = np.zeros(A.shape) if y.grad is None else y.grad._data
        np.testing.assert_allclose(gy, gx, atol=1e-13)
