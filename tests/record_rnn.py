"""Record PyTorch's results for the cases of tests/rnn_cases.py into
tests/fixtures/rnn_torch.json, which tests/test_rnn.py checks rtorchpy against without PyTorch.
Run it again after changing a case:

    .venv/bin/python tests/record_rnn.py       # needs torch (pip install torch==2.13.0)
"""
from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from rnn_cases import CASES, SECOND_ORDER, run, torch_adapter  # noqa: E402

OUT = HERE / "fixtures" / "rnn_torch.json"


def main():
    lib = torch_adapter()
    lib.torch.set_num_threads(1)
    data = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in CASES:
            res = run(lib, name, second=name in SECOND_ORDER)
            data[name] = {k: (None if v is None else v.tolist()) for k, v in res.items()}
    OUT.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({len(data)} cases)")


if __name__ == "__main__":
    main()
