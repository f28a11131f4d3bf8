"""Recurrent modules (nn_rnn, nn_lstm, nn_gru) and packed sequences: against PyTorch's
recorded results (tests/fixtures/rnn_torch.json, from tests/record_rnn.py), against PyTorch
live when it is installed (randomized sizes and options), and libtorch's errors."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import rtorchpy as rt
from rnn_cases import CASES, SECOND_ORDER, run, rt_adapter

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "rnn_torch.json").read_text())


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_recorded_pytorch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = run(rt_adapter(), name, second=name in SECOND_ORDER)
    want = FIXTURE[name]
    assert set(got) == set(want)
    f32 = CASES[name][2] == "float32"
    for k, w in want.items():
        if w is None:
            assert got[k] is None, k
            continue
        w = np.asarray(w)
        tol = 2e-5 if f32 else 1e-12
        np.testing.assert_allclose(got[k], w, rtol=tol, atol=tol * (1 + np.abs(w).max()),
                                   err_msg=f"{name}: {k}")


def test_seeded_weights_are_pytorchs_and_named_as_pytorchs():
    rt.torch_manual_seed(17)
    m = rt.nn_lstm(3, 4)
    names = [n for n, _ in m.named_parameters()]
    assert names == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]
    # the first values torch.manual_seed(17); nn.LSTM(3, 4) draws
    got = m.weight_ih_l0._data[0].tolist()
    assert np.allclose(got, FIXTURE_WEIGHTS, atol=1e-7)
    p = rt.nn_lstm(3, 5, 2, proj_size=2, bidirectional=True)
    assert [n for n, _ in p.named_parameters()][:6] == [
        "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_hr_l0",
        "weight_ih_l0_reverse"]
    assert tuple(p.weight_hh_l0.shape) == (20, 2)
    assert tuple(p.weight_ih_l1.shape) == (20, 4)
    assert tuple(p.weight_hr_l0.shape) == (2, 5)


FIXTURE_WEIGHTS = [-0.06575876474380493, 0.03510957956314087, 0.3302087187767029]


def test_one_node_per_layer_and_direction():
    m = rt.nn_lstm(3, 4, num_layers=2)
    out, (h, c) = m(rt.torch_randn(6, 2, 3))
    assert out.grad_fn.name == "MkldnnRnnLayerBackward0"
    nodes, seen, todo = [], set(), [out.grad_fn]
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        nodes.append(n.name)
        todo.extend(f for f, _ in n.next_functions)
    assert nodes.count("MkldnnRnnLayerBackward0") == 2
    g, _ = rt.nn_gru(3, 4)(rt.torch_randn(6, 2, 3, requires_grad=True))
    assert g.grad_fn.name == "RnnLayerBackward0"


def test_gradcheck_whole_module_first_and_second_order():
    for make in (lambda: rt.nn_lstm(2, 3, 2, bidirectional=True, proj_size=2),
                 lambda: rt.nn_gru(2, 3, batch_first=True),
                 lambda: rt.nn_rnn(2, 3, nonlinearity="tanh")):
        m = make().to(dtype=rt.torch_float64())
        x = rt.torch_randn(3, 2, 2, dtype=rt.torch_float64(), requires_grad=True)
        # (the parameters' second-order gradients are compared with PyTorch's in the
        # recorded cases)
        assert rt.autograd_gradcheck(lambda x: m(x)[0], [x])
        assert rt.autograd_gradgradcheck(lambda x: m(x)[0], [x])


def test_packed_round_trip_and_gradient():
    x = rt.torch_randn(4, 3, 2, requires_grad=True)
    p = rt.nn_utils_rnn_pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False)
    assert p.batch_sizes.tolist() == [3, 2, 1, 1]
    assert p.sorted_indices.tolist() == [1, 0, 2]
    assert p.unsorted_indices.tolist() == [1, 0, 2]
    padded, lengths = rt.nn_utils_rnn_pad_packed_sequence(p, padding_value=-1.0)
    assert lengths.tolist() == [2, 4, 1]
    keep = np.arange(4)[:, None] < np.array([2, 4, 1])[None, :]
    assert np.array_equal(padded._data[keep], x._data[keep])
    assert np.all(padded._data[~keep] == -1)
    padded.sum().backward()
    assert np.array_equal(x.grad._data[..., 0], keep.astype(np.float32))
    seqs = [rt.torch_ones(3, 2), rt.torch_ones(1, 2) * 2, rt.torch_ones(2, 2) * 3]
    s = rt.nn_utils_rnn_pad_sequence(seqs, batch_first=True, padding_value=9)
    assert tuple(s.shape) == (3, 3, 2) and s._data[1, 1, 0] == 9
    q = rt.nn_utils_rnn_pack_sequence(seqs, enforce_sorted=False)
    assert q.batch_sizes.tolist() == [3, 2, 1]
    total, _ = rt.nn_utils_rnn_pad_packed_sequence(q, batch_first=True, total_length=5)
    assert tuple(total.shape) == (3, 5, 2)


def test_errors_are_libtorchs():
    m = rt.nn_lstm(3, 4, num_layers=2)
    with pytest.raises(RuntimeError, match=r"input.size\(-1\) must be equal to input_size. "
                                           r"Expected 3, got 5"):
        m(rt.torch_randn(2, 1, 5))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(2, 1, 4\), got "
                                           r"\[1, 1, 4\]"):
        m(rt.torch_randn(2, 1, 3), (rt.torch_zeros(1, 1, 4), rt.torch_zeros(2, 1, 4)))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 1, 4\), got \[1, 2, 4\]"):
        rt.nn_gru(3, 4)(rt.torch_randn(2, 1, 3), rt.torch_zeros(1, 2, 4))
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D"):
        m(rt.torch_randn(2, 1, 3, 1))
    with pytest.raises(RuntimeError, match="input must have the type"):
        m(rt.torch_randn(2, 1, 3, dtype=rt.torch_float64()))
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order when "
                                           "`enforce_sorted` is True"):
        rt.nn_utils_rnn_pack_padded_sequence(rt.torch_randn(4, 3, 2), [2, 4, 1])
    with pytest.raises(RuntimeError, match=r"Expected `len\(lengths\)` to be equal to "
                                           r"batch_size, but got 2 \(batch_size=3\)"):
        rt.nn_utils_rnn_pack_padded_sequence(rt.torch_randn(4, 3, 2), [4, 1])
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        # (nn_gru and nn_rnn take no proj_size; their shared base refuses it)
        rt.nn.rnn._rnn_base.__init__(rt.nn_gru.__new__(rt.nn_gru), "GRU", 2, 3, proj_size=1)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        rt.nn_lstm(2, 3, proj_size=3)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        rt.nn_lstm(2, 3, dropout=0.2)


@pytest.mark.parametrize("seed", range(6))
def test_random_options_against_pytorch(seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    kind = ["lstm", "gru", "rnn"][seed % 3]
    kw = dict(input_size=int(rng.integers(1, 5)), hidden_size=int(rng.integers(2, 6)),
              num_layers=int(rng.integers(1, 4)), bias=bool(rng.integers(2)),
              batch_first=bool(rng.integers(2)), bidirectional=bool(rng.integers(2)))
    if kind == "lstm" and rng.integers(2):
        kw["proj_size"] = int(rng.integers(1, kw["hidden_size"]))
    if kind == "rnn":
        kw["nonlinearity"] = ["tanh", "relu"][int(rng.integers(2))]
    T, B = int(rng.integers(1, 7)), int(rng.integers(1, 4))
    tm = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn": torch.nn.RNN}[kind](**kw).double()
    rm = {"lstm": rt.nn_lstm, "gru": rt.nn_gru, "rnn": rt.nn_rnn}[kind](**kw)
    rm = rm.to(dtype=rt.torch_float64())
    with rt.with_no_grad():
        for n, p in tm.named_parameters():
            getattr(rm, n).copy_(rt.torch_tensor(p.detach().numpy()))
    x = rng.standard_normal((B, T, kw["input_size"]) if kw["batch_first"]
                            else (T, B, kw["input_size"]))
    lengths = sorted(rng.integers(1, T + 1, B).tolist(), reverse=True) if rng.integers(2) \
        else None
    xt, xr = torch.tensor(x, requires_grad=True), rt.torch_tensor(x, requires_grad=True)
    it, ir = xt, xr
    if lengths is not None:
        lengths[0] = T
        it = torch.nn.utils.rnn.pack_padded_sequence(xt, torch.tensor(lengths),
                                                     batch_first=kw["batch_first"])
        ir = rt.nn_utils_rnn_pack_padded_sequence(xr, lengths, batch_first=kw["batch_first"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ot, st = tm(it)
    orr, sr = rm(ir)
    if lengths is not None:
        ot, orr = ot.data, orr.data
    st = st if kind == "lstm" else (st,)
    sr = sr if kind == "lstm" else (sr,)
    np.testing.assert_allclose(orr._data, ot.detach().numpy(), atol=1e-12)
    for a, b in zip(sr, st):
        np.testing.assert_allclose(a._data, b.detach().numpy(), atol=1e-12)
    w = rng.standard_normal(tuple(ot.shape))
    ((ot * torch.tensor(w)).sum() + sum(s.sum() for s in st)).backward()
    ((orr * rt.torch_tensor(w)).sum() + sum(s.sum() for s in sr)).backward()
    np.testing.assert_allclose(xr.grad._data, xt.grad.numpy(), atol=1e-11)
    for n, p in tm.named_parameters():
        np.testing.assert_allclose(getattr(rm, n).grad._data, p.grad.numpy(), atol=1e-11)


@pytest.mark.parametrize("batch", [1, 3])
def test_results_outlive_the_next_call(batch):
    # The LSTM kernels keep scratch buffers between calls: nothing they return may be one of
    # them (with a batch of one, a transposed copy can come back as a view)
    rt.torch_manual_seed(7)
    net = rt.nn_lstm(3, 4)  # (one layer: its output is the kernel's own)
    x = rt.torch_randn(5, batch, 3, requires_grad=True)
    out, (h, c) = net(x)
    out.sum().backward()
    kept = [t._data.copy() for t in (out, h, c, x.grad, net.weight_hh_l0.grad)]
    x2 = rt.torch_randn(5, batch, 3, requires_grad=True)  # (the same shapes: the same buffers)
    out2, _ = net(x2 * 3)
    out2.sum().backward()
    for t, k in zip((out, h, c, x.grad), kept):
        np.testing.assert_array_equal(t._data, k)
    again, (h_again, _) = net(x)
    np.testing.assert_array_equal(again._data, kept[0])
    np.testing.assert_array_equal(h_again._data, kept[1])


def test_interleaved_forwards_keep_their_own_activations():
    # (the kernels reuse memory that nothing references any more: a graph still waiting for
    # its backward must keep its own)
    rt.torch_manual_seed(8)
    net = rt.nn_lstm(3, 4, num_layers=2)
    xs = [rt.torch_randn(5, 2, 3, requires_grad=True) for _ in range(3)]
    want = []
    for x in xs:
        net(x)[0].sum().backward()
        want.append(x.grad._data.copy())
        x.grad = None
    outs = [net(x)[0] for x in xs]
    for out in reversed(outs):
        out.sum().backward(retain_graph=True)
    outs[0].sum().backward()
    for x, w in zip(xs[:1], want[:1]):
        np.testing.assert_allclose(x.grad._data, 2 * w, rtol=1e-6)
    for x, w in zip(xs[1:], want[1:]):
        np.testing.assert_array_equal(x.grad._data, w)
