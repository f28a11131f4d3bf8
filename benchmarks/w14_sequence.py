"""W14 Sequence models: a 2-layer LSTM and a transformer encoder layer, forward + backward,
rtorchpy against PyTorch.

* LSTM: ``nn_lstm(32, 64, num_layers = 2)`` on a (50, 16, 32) float32 sequence (length 50,
  batch 16); a step is the forward and the backward of the output's sum.
* Transformer encoder layer: ``nn_transformer_encoder_layer(d_model = 64, nhead = 4,
  dropout = 0)`` (feed-forward 2048, PyTorch's default) on (32, 16, 64) (sequence 32, batch
  16); forward and backward of the output's sum.

Both engines start from the same weights (rtorchpy's seeded initialization is PyTorch's, so
one seed gives both) and are checked to agree on the output and the input's gradient before
timing; engines are interleaved in one process. Targets: each ≤ 2× PyTorch (median over rounds
of the paired ratio).
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import statistics

import numpy as np


def lstm_case(rt, torch, x):
    rt.torch_manual_seed(1)
    rm = rt.nn_lstm(32, 64, num_layers=2)
    xr = rt.torch_tensor(x, requires_grad=True)

    def r_step():
        out, _ = rm(xr)
        out.sum().backward()
        return xr
    fns = {"rtorchpy": r_step}
    if torch is not None:
        torch.manual_seed(1)
        tm = torch.nn.LSTM(32, 64, num_layers=2)
        xt = torch.tensor(x, requires_grad=True)

        def t_step():
            out, _ = tm(xt)
            out.sum().backward()
            return xt
        fns["torch"] = t_step
    return fns, (xr, rm), (None if torch is None else (xt, tm))


def encoder_case(rt, torch, x):
    rt.torch_manual_seed(2)
    rm = rt.nn_transformer_encoder_layer(64, 4, dropout=0.0)
    xr = rt.torch_tensor(x, requires_grad=True)

    def r_step():
        rm(xr).sum().backward()
        return xr
    fns = {"rtorchpy": r_step}
    if torch is not None:
        torch.manual_seed(2)
        tm = torch.nn.TransformerEncoderLayer(64, 4, dropout=0.0)
        xt = torch.tensor(x, requires_grad=True)

        def t_step():
            tm(xt).sum().backward()
            return xt
        fns["torch"] = t_step
    return fns, (xr, rm), (None if torch is None else (xt, tm))


def paired(res, a, b):
    return statistics.median(x / y for x, y in zip(res[a]["samples"], res[b]["samples"]))


def main():
    p = _common.parser(__doc__.splitlines()[0])
    args = p.parse_args()
    repeat, number = (5, 1) if args.quick else (21, 3)
    torch, note = _common.load_torch()
    notes = [note] if note else []
    import rtorchpy as rt
    rng = np.random.default_rng(0)
    rows, targets = [], []
    cases = [("2-layer LSTM forward+backward (in 32, hidden 64, seq 50, batch 16)", "LSTM",
              lstm_case, rng.standard_normal((50, 16, 32)).astype(np.float32)),
             ("transformer encoder layer forward+backward (d_model 64, 4 heads, seq 32, "
              "batch 16)", "encoder layer", encoder_case,
              rng.standard_normal((32, 16, 64)).astype(np.float32))]
    for case, short, make, x in cases:
        fns, (xr, _), tpair = make(rt, torch, x)
        if tpair is not None:  # correctness: the same output and input gradient
            fns["rtorchpy"]()
            fns["torch"]()
            np.testing.assert_allclose(xr.grad._data, tpair[0].grad.numpy(), rtol=1e-3,
                                       atol=1e-4, err_msg=case)
        res = _common.timeit(fns, repeat=repeat, number=number, warmup=2)
        rows += [_common.row(case, e, r["median"] * 1e3, "ms/step", min=r["min"] * 1e3,
                             max=r["max"] * 1e3, samples=r["n"]) for e, r in res.items()]
        name = f"W14 {short} forward+backward ≤ 2× PyTorch"
        if torch is not None:
            targets.append(_common.target(
                name, paired(res, "rtorchpy", "torch"), 2.0,
                f"paired median; medians {res['rtorchpy']['median'] * 1e3:.2f} vs "
                f"{res['torch']['median'] * 1e3:.2f} ms/step"))
        else:
            targets.append(_common.target(name, None, 2.0, "PyTorch not installed"))
    notes.append("engines interleaved in one process; both start from the same seeded weights "
                 "and agree on the input's gradient before timing")
    _common.emit(args, "W14", rows, targets, notes,
                 description="2-layer LSTM and transformer encoder layer, forward+backward")


if __name__ == "__main__":
    main()
