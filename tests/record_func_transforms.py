"""Record PyTorch 2.13's ``torch.func`` values for the suite of ``_func_suite.py`` into
``fixtures/func_transforms_torch.json`` (run by hand:
``.venv/bin/python tests/record_func_transforms.py`` with PyTorch installed), so that
``test_func_transforms.py`` checks them without PyTorch."""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import torch  # noqa: E402
from torch.func import hessian, jacfwd, jacrev, jvp, vmap  # noqa: E402

from _func_suite import BATCH, POINT, TANGENT, torch_suite  # noqa: E402


def main():
    out = {"torch": torch.__version__}
    x = torch.tensor(POINT, dtype=torch.float64)
    xs = torch.tensor(BATCH, dtype=torch.float64)
    t = torch.tensor(TANGENT, dtype=torch.float64)
    for name, f in torch_suite().items():
        entry = {
            "value": f(x).tolist(),
            "jacobian": jacrev(f)(x).tolist(),
            "jvp": jvp(f, (x,), (t,))[1].tolist(),
            "second": jacfwd(jacrev(f))(x).tolist(),
            "vmap_jacobian": vmap(jacrev(f))(xs).tolist(),
        }
        if f(x).dim() == 0:
            entry["hessian"] = hessian(f)(x).tolist()
        out[name] = entry
    path = os.path.join(os.path.dirname(__file__), "fixtures", "func_transforms_torch.json")
    with open(path, "w") as fh:
        json.dump(out, fh)


if __name__ == "__main__":
    main()
