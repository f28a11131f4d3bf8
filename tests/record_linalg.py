"""Record PyTorch's results for the cases of tests/linalg_cases.py into
tests/fixtures/linalg_torch.json, which tests/test_linalg.py checks rtorchpy against on machines
without PyTorch (CI). Run it again after changing a case:

    .venv/bin/python tests/record_linalg.py       # needs torch (pip install torch==2.13.0)

For each case: the outputs' values, dtypes and grad_fn names; the gradient of
``sum_i <output_i, v_i>`` for fixed cotangents ``v_i`` (first order); and the gradient of
``sum_j <grad_j, w_j>`` (second order, through create_graph).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from linalg_cases import CASES, NO_GRADIENT, cotangents, torch_namespace  # noqa: E402

OUT = HERE / "fixtures" / "linalg_torch.json"


def _array(t):
    if t is None:
        return None
    if t._is_zerotensor():
        return np.zeros(tuple(t.shape)).tolist()
    return t.detach().numpy().tolist()


def run(name, torch):
    TH = torch_namespace()
    fn, arrays = CASES[name]
    xs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    outs = fn(TH, *xs)
    rec = {"outputs": [_array(o) for o in outs],
           "dtypes": [str(o.dtype).replace("torch.", "") for o in outs],
           "shapes": [list(o.shape) for o in outs],
           "grad_fn": [type(o.grad_fn).__name__ if o.grad_fn is not None else None
                       for o in outs]}
    if name in NO_GRADIENT:
        return rec
    vs = cotangents(outs)
    pairs = [(o, v) for o, v in zip(outs, vs) if v is not None and o.requires_grad]
    loss = sum((o * torch.tensor(v)).sum() for o, v in pairs)
    grads = torch.autograd.grad(loss, xs, create_graph=True, allow_unused=True)
    rec["grads"] = [_array(g) for g in grads]
    ws = np.random.default_rng(2000)
    terms = [(g * torch.tensor(ws.uniform(-1, 1, tuple(x.shape)))).sum()
             for g, x in zip(grads, xs) if g is not None]
    terms = [t for t in terms if t.requires_grad]
    if terms:
        grads2 = torch.autograd.grad(sum(terms), xs, allow_unused=True)
        rec["grads2"] = [_array(g) for g in grads2]
    return rec


def main():
    import torch
    records = {"torch": torch.__version__, "cases": {name: run(name, torch) for name in CASES}}
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(records, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({len(CASES)} cases, torch {torch.__version__})")


if __name__ == "__main__":
    main()
