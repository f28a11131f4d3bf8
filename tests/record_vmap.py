"""Record PyTorch 2.13's ``torch.func.vmap`` values for the cases of ``_vmap_suite.py`` into
``fixtures/vmap_torch.json`` (run by hand: ``.venv/bin/python tests/record_vmap.py`` with
PyTorch installed), so that ``test_vmap_rules.py`` checks them without PyTorch."""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import torch  # noqa: E402
from torch.func import grad, jacrev, vmap  # noqa: E402

from _vmap_suite import CASES, inputs, mlp_inputs, mlp_loss, torch_ns  # noqa: E402


def as_lists(res):
    """Every output as a nested list, in a list (one entry for a single output)."""
    outs = res if isinstance(res, (tuple, list)) else (res,)
    return [o.detach().tolist() for o in outs]


def main():
    T = torch_ns()
    out = {"torch": torch.__version__, "cases": {}}
    for name, (f, _, in_dims) in CASES.items():
        xs = [torch.tensor(a) for a in inputs(name)]
        out["cases"][name] = as_lists(vmap(lambda *a, f=f: f(T, *a), in_dims=in_dims)(*xs))
    ps = [torch.tensor(a) for a in mlp_inputs()]

    def loss(*a):
        return mlp_loss(T, *a)
    dims = (None, None, None, 0, 0)
    out["vmap_grad"] = as_lists(vmap(grad(loss, argnums=(0, 1, 2)), in_dims=dims)(*ps))
    out["vmap_jacrev"] = as_lists(vmap(jacrev(lambda x: (x.sin() * x.sum()).tanh()))(ps[3]))
    out["nested"] = as_lists(vmap(vmap(lambda a, b: (a * b).sum() + a.exp(), in_dims=(0, None)),
                                  in_dims=(0, None))(ps[0], ps[2]))
    path = os.path.join(os.path.dirname(__file__), "fixtures", "vmap_torch.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=0)
        fh.write("\n")


if __name__ == "__main__":
    main()
