"""Record PyTorch 2.13's ``torch.func`` values for ``test_vmap_forward.py`` into
``fixtures/vmap_forward_torch.json`` (run by hand: ``.venv/bin/python
tests/record_vmap_forward.py`` with PyTorch installed): ``vmap`` of ``jacfwd``, ``jvp`` and
``hessian`` over the function suite, and the dtype of each promotion case with its values."""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import torch  # noqa: E402
from torch.func import hessian, jacfwd, jvp, vmap  # noqa: E402

from _func_suite import BATCH, torch_suite  # noqa: E402
from _vmap_forward_suite import BATCH_TANGENTS, promotion_cases  # noqa: E402


def torch_ns():
    class NS:
        float32, float64, int64, int32, float16 = (torch.float32, torch.float64, torch.int64,
                                                   torch.int32, torch.float16)
        ones = staticmethod(torch.ones)
        tensor = staticmethod(torch.tensor)
        maximum = staticmethod(torch.maximum)
        where = staticmethod(torch.where)
        clamp = staticmethod(torch.clamp)
        addcmul = staticmethod(torch.addcmul)
    return NS


def main():
    out = {"torch": torch.__version__, "suite": {}, "promotion": {}}
    xs = torch.tensor(BATCH, dtype=torch.float64)
    ts = torch.tensor(BATCH_TANGENTS, dtype=torch.float64)
    for name, f in torch_suite().items():
        entry = {}
        for key, g, args in (("vmap_jacfwd", jacfwd(f), (xs,)),
                             ("vmap_jvp", lambda x, t, f=f: jvp(f, (x,), (t,))[1], (xs, ts)),
                             ("vmap_hessian", hessian(f), (xs,))):
            batched = vmap(g)(*args)
            looped = torch.stack([g(*(a[i] for a in args)) for i in range(xs.shape[0])])
            if torch.allclose(batched, looped, rtol=1e-9, atol=1e-9):
                entry[key] = batched.tolist()
            else:
                # PyTorch 2.13's batched forward rules of linalg.solve and linalg.det give
                # wrong values under vmap (far from its own per-example loop and from
                # vmap(jacrev)): the loop is the reference then
                entry[key] = looped.tolist()
                entry.setdefault("torch_vmap_differs_from_its_loop", []).append(key)
        out["suite"][name] = entry
    for name, (x, f) in promotion_cases(torch_ns()).items():
        r = vmap(f)(x)
        out["promotion"][name] = {"dtype": str(r.dtype).replace("torch.", ""),
                                  "value": r.double().tolist()}
    path = os.path.join(os.path.dirname(__file__), "fixtures", "vmap_forward_torch.json")
    with open(path, "w") as fh:
        json.dump(out, fh)
        fh.write("\n")


if __name__ == "__main__":
    main()
