"""bfloat16 (issue 33): the cases of ``_bf16_cases.py`` against PyTorch 2.13's values (recorded
in ``fixtures/bf16_torch.json`` by ``record_bf16.py``), plus the dtype's own behaviour: the tag,
printing, finfo, save/load, in-place writes and the clear error for what is not supported."""
from __future__ import annotations

import io
import json
import os
import pickle

import numpy as np
import pytest

import rtorchpy as rt
from _bf16_cases import CASES, GRAD_CASES

with open(os.path.join(os.path.dirname(__file__), "fixtures", "bf16_torch.json")) as fh:
    RECORDED = json.load(fh)["cases"]

BF16 = rt.torch_bfloat16()
_DT = {"bfloat16": BF16, "float16": rt.torch_float16(), "float32": rt.torch_float32(),
       "float64": rt.torch_float64(), "int64": rt.torch_int64(), "bool": rt.torch_bool()}
_NAME = {repr(v): k for k, v in _DT.items()}


class OursNS:
    """The case namespace on rtorchpy."""
    t = staticmethod(lambda v, name: rt.torch_tensor(v, dtype=_DT[name]))
    dt = staticmethod(lambda name: _DT[name])
    ones = staticmethod(lambda size: rt.torch_ones(size=size, dtype=BF16))
    full = staticmethod(lambda size, v: rt.torch_full(size, v, dtype=BF16))
    arange = staticmethod(lambda a, b, s: rt.torch_arange(a, b, s, dtype=BF16))
    linspace = staticmethod(lambda a, b, n: rt.torch_linspace(a, b, n, dtype=BF16))


def _on_grid(a):
    return not (np.ascontiguousarray(a, dtype=np.float32).view(np.uint32) & 0xFFFF).any()


@pytest.mark.parametrize("name", sorted({**CASES, **GRAD_CASES}))
def test_matches_pytorch(name):
    res = {**CASES, **GRAD_CASES}[name](OursNS)
    outs = res if isinstance(res, tuple) else (res,)
    expected = RECORDED[name]
    assert len(outs) == len(expected)
    for o, e in zip(outs, expected):
        assert _NAME[repr(o.dtype)] == e["dtype"], name
        got = o.detach().numpy()
        if e["dtype"] == "bfloat16":
            assert got.dtype == np.float32 and _on_grid(got)
        want = np.asarray(e["values"], dtype=np.float64)
        np.testing.assert_array_equal(got.astype(np.float64), want, err_msg=name)


def test_dtype_object():
    assert repr(BF16) == "torch_BFloat16"
    assert BF16 != rt.torch_float32() and BF16 == rt.as_dtype("bfloat16")
    assert BF16.is_floating_point
    x = rt.torch_tensor([1.0, 2.0], dtype=BF16)
    assert x.is_floating_point and x.dtype == BF16 and x.dtype != rt.torch_float32()
    assert x.numpy().dtype == np.float32


def test_finfo():
    f = rt.torch_finfo(BF16)
    assert (f.bits, f.eps, f.tiny) == (16, 0.0078125, 2.0 ** -126)
    assert f.max == pytest.approx(3.3895e38, rel=1e-4) and f.min == -f.max


def test_printing():
    x = rt.torch_tensor([1.5, 2.123], dtype=BF16)
    assert x.format() == "torch_tensor\n 1.5000\n 2.1250\n[ CPUBFloat16Type{2} ]"


def test_save_load_round_trip():
    x = rt.torch_tensor([[1.5, 2.123], [0.1, -3.0]], dtype=BF16)
    buf = io.BytesIO()
    rt.torch_save(x, buf)
    buf.seek(0)
    y = rt.torch_load(buf)
    assert y.dtype == BF16 and np.array_equal(y.numpy(), x.numpy())
    assert pickle.loads(pickle.dumps(BF16)) is BF16


def test_in_place_writes_stay_on_grid():
    x = rt.torch_zeros(size=(4,), dtype=BF16)
    x[1] = 2.123
    x.add_(rt.torch_tensor([0.1, 0.1, 0.1, 0.1]))
    assert x.dtype == BF16 and _on_grid(x.numpy())
    assert x.numpy()[1] == np.float32(2.21875)  # (2.125 + 0.1 in float32, then rounded)
    y = rt.torch_zeros(size=(2,))
    y.add_(rt.torch_tensor([2.123, 1.0], dtype=BF16))  # float32 self stays float32
    assert y.dtype == rt.torch_float32() and y.numpy()[0] == np.float32(2.125)


def test_views_and_shapes_keep_the_tag():
    x = rt.torch_tensor([[1.5, 2.123], [0.1, -3.0]], dtype=BF16)
    for r in (x[0], x.t(), x.reshape(4), rt.torch_cat([x, x]), x.unsqueeze(0), x.clone()):
        assert r.dtype == BF16


def test_explicit_dtype_wins():
    x = rt.torch_tensor([1.5, 2.123], dtype=BF16)
    assert x.float().dtype == rt.torch_float32()
    assert x.sum(dtype=rt.torch_float32()).dtype == rt.torch_float32()
    assert rt.torch_tensor([1.0, 2.0]).type_as(x).dtype == BF16


def test_unsupported_is_a_clear_error():
    x = rt.torch_tensor([1.5, 2.123, 0.5, 1.0], dtype=BF16)
    with pytest.raises(RuntimeError, match="bfloat16"):
        rt.torch_fft_fft(x)


def test_float32_code_is_untouched():
    x = rt.torch_tensor([2.123])
    assert (x * 3).dtype == rt.torch_float32()
    assert (x * 3).numpy()[0] == np.float32(2.123) * np.float32(3)


def test_result_type_and_default_dtype():
    x = rt.torch_tensor([1.0, 2.0], dtype=BF16)
    assert rt.torch_result_type(x, 1.5) == BF16
    assert rt.torch_result_type(x, rt.torch_tensor([1, 2])) == BF16
    assert rt.torch_result_type(x, rt.torch_tensor([1.0, 2.0])) == rt.torch_float32()
    with pytest.raises(TypeError, match="bfloat16"):
        rt.torch_set_default_dtype(BF16)
    assert rt.torch_get_default_dtype() == rt.torch_float32()


def test_module_to_bfloat16_and_back():
    m = rt.nn_linear(3, 2)
    m.to(dtype=BF16)
    assert m.weight.dtype == BF16 and _on_grid(m.weight.detach().numpy())
    y = m(rt.torch_randn(4, 3).bfloat16())
    assert y.dtype == BF16
    y.sum().backward()
    assert m.weight.grad.dtype == BF16 and m.bias.grad.dtype == BF16
    m.to(dtype=rt.torch_float32())
    assert m.weight.dtype == rt.torch_float32() and m.weight.grad.dtype == rt.torch_float32()


def test_optimizer_steps_keep_bfloat16_parameters_on_the_grid():
    for make in (lambda ps: rt.optim_sgd(ps, lr=0.1, momentum=0.9),
                 lambda ps: rt.optim_adam(ps, lr=0.01)):
        w = rt.torch_tensor([0.3, -1.7, 2.2], dtype=BF16, requires_grad=True)
        opt = make([w])
        for _ in range(3):
            opt.zero_grad()
            (w * w).sum().backward()
            opt.step()
        assert w.dtype == BF16 and _on_grid(w.detach().numpy())


def test_detach_and_data_keep_the_tag():
    x = rt.torch_tensor([1.5, 2.5], dtype=BF16, requires_grad=True)
    assert x.detach().dtype == BF16 and x.data.dtype == BF16
    y = rt.torch_zeros(size=(2,))
    y.data = x.detach()
    assert y.dtype == BF16
    assert rt.Tensor([2.123], dtype=BF16).dtype == BF16


def test_fixture_is_pytorch_s_values():
    """With PyTorch installed, the recorded values are what it computes now."""
    pytest.importorskip("torch")
    from record_bf16 import TorchNS, record
    for name, f in {**CASES, **GRAD_CASES}.items():
        assert json.loads(json.dumps(record(f(TorchNS)))) == RECORDED[name], name


def test_rounding_edges():
    x = rt.torch_tensor([float("nan"), float("inf"), 3.4e38, -1e-45, 1.00390625, 1.01171875],
                        dtype=BF16).numpy()
    assert np.isnan(x[0]) and x[1] == np.inf and x[2] == np.inf  # (past the largest bfloat16)
    assert x[3] == 0 and np.signbit(x[3])
    assert x[4] == 1.0 and x[5] == 1.015625  # ties to even
