"""Record PyTorch 2.13's bfloat16 results for the cases of ``_bf16_cases.py`` into
``fixtures/bf16_torch.json`` (run by hand: ``.venv/bin/python tests/record_bf16.py`` with
PyTorch installed), so that ``test_bf16.py`` checks them without PyTorch."""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import torch  # noqa: E402

from _bf16_cases import CASES, GRAD_CASES  # noqa: E402

_DT = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32,
       "float64": torch.float64, "int64": torch.int64, "bool": torch.bool}


class TorchNS:
    """The case namespace on PyTorch."""
    t = staticmethod(lambda v, name: torch.tensor(v, dtype=_DT[name]))
    dt = staticmethod(lambda name: _DT[name])
    ones = staticmethod(lambda size: torch.ones(size, dtype=torch.bfloat16))
    full = staticmethod(lambda size, v: torch.full(size, v, dtype=torch.bfloat16))
    arange = staticmethod(lambda a, b, s: torch.arange(a, b, s, dtype=torch.bfloat16))
    linspace = staticmethod(lambda a, b, n: torch.linspace(a, b, n, dtype=torch.bfloat16))


def record(res):
    outs = res if isinstance(res, tuple) else (res,)
    return [{"dtype": str(o.dtype).replace("torch.", ""),
             "values": o.detach().to(torch.float64 if o.is_floating_point() else o.dtype).tolist()}
            for o in outs]


def main():
    out = {"torch": torch.__version__, "cases": {}}
    for name, f in {**CASES, **GRAD_CASES}.items():
        out["cases"][name] = record(f(TorchNS))
    path = os.path.join(os.path.dirname(__file__), "fixtures", "bf16_torch.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=0)
        fh.write("\n")


if __name__ == "__main__":
    main()
