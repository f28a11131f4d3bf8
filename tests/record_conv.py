"""Record PyTorch 2.13's answers for the cases of ``_conv_cases.py`` into
``tests/fixtures/conv_recorded.json`` (run by hand: ``.venv/bin/python tests/record_conv.py``)."""
from __future__ import annotations

import json
import pathlib

import numpy as np
import torch
import torch.nn.functional as F

from _conv_cases import (adaptive_case, affine_grid_case, conv_case, fold_case,
                         grid_sample_case, inputs, interp_case, pad_case, pool_case)

N_CASES = 12  # per kind of case: enough variety, a fixture of a few hundred kB


def torch_answer(fn, args, arrays, rng):
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = getattr(F, fn)(*ts, **args)
    gy = torch.tensor(rng.standard_normal(tuple(out.shape)), requires_grad=True)
    grads = torch.autograd.grad(out, ts, gy, create_graph=True)
    ws = [torch.tensor(rng.standard_normal(tuple(t.shape))) for t in ts]
    total = sum((g * w).sum() for g, w in zip(grads, ws) if g.requires_grad)
    second = (torch.autograd.grad(total, [gy] + ts, allow_unused=True)
              if torch.is_tensor(total) and total.requires_grad else [None] * (len(ts) + 1))
    return {"name": out.grad_fn.name(), "out": out.detach().numpy().round(10).tolist(),
            "grads": [g.detach().numpy().round(10).tolist() for g in grads],
            "second": [None if s is None else s.numpy().round(10).tolist() for s in second]}


def main():
    cases = []
    for make in (conv_case, pad_case, pool_case, adaptive_case, fold_case, interp_case,
                 grid_sample_case, affine_grid_case):
        for seed in range(N_CASES):
            fn, args, shapes = make(seed)
            arrays, rng = inputs(seed, shapes)
            try:
                answer = torch_answer(fn, args, arrays, rng)
            except RuntimeError as e:
                answer = {"error": str(e).split("\n")[0]}
            cases.append({"maker": make.__name__, "seed": seed, **answer})
    path = pathlib.Path(__file__).parent / "fixtures" / "conv_recorded.json"
    path.write_text(json.dumps(cases, separators=(",", ":")))
    print(f"wrote {len(cases)} cases to {path}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
