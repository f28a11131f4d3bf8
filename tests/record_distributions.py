"""Records PyTorch 2.13's log_prob (and its gradients with respect to every parameter and the
value), entropy, cdf, mean and variance for tests/_distr_cases.py into
tests/fixtures/distributions_torch.json. Run with PyTorch installed:
``.venv/bin/python tests/record_distributions.py``."""
from __future__ import annotations

import json
from pathlib import Path

import torch

from _distr_cases import CASES, HAS_CDF, HAS_ENTROPY


def main():
    out = {}
    for key, (_, cls, params, value) in CASES.items():
        tp = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
              for k, v in params.items()}
        d = getattr(torch.distributions, cls)(**tp)
        v = torch.tensor(value, dtype=torch.float64, requires_grad="categorical" not in key)
        lp = d.log_prob(v)
        inputs = list(tp.values()) + ([v] if v.requires_grad else [])
        grads = torch.autograd.grad(lp.sum(), inputs, allow_unused=True)
        rec = {"log_prob": lp.tolist(),
               "grads": [None if g is None else g.tolist() for g in grads],
               "mean": d.mean.tolist(), "variance": d.variance.tolist()}
        if key in HAS_ENTROPY:
            rec["entropy"] = d.entropy().tolist()
        if key in HAS_CDF:
            rec["cdf"] = d.cdf(v).tolist()
        out[key] = rec
    path = Path(__file__).parent / "fixtures" / "distributions_torch.json"
    path.write_text(json.dumps(out, allow_nan=True))


if __name__ == "__main__":
    main()
