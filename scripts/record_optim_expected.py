"""Record PyTorch's optimizer trajectories and schedules into the tests as literal numbers.

    .venv/bin/python scripts/record_optim_expected.py

Runs every case of ``tests/test_optim.py`` (``CASES``) and ``tests/test_lr_scheduler.py``
(``SCHEDULES``) with PyTorch and rewrites the block between ``# BEGIN RECORDED`` and
``# END RECORDED`` in each file, so the tests compare against PyTorch without it installed.
"""
from __future__ import annotations

import importlib.util
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
sys.path.insert(0, str(TESTS))


def _load(name):
    spec = importlib.util.spec_from_file_location(name, TESTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rewrite(path, header, body):
    text = path.read_text()
    start = text.index("# BEGIN RECORDED")
    end = text.index("# END RECORDED")
    path.write_text(text[:start] + header + "\n" + body + text[end:])


def _format(expected):
    lines = ["EXPECTED = {"]
    for name, rows in expected.items():
        lines.append(f"    {name!r}: [")
        for row in rows:
            if isinstance(row, (list, tuple)):
                numbers = [repr(float(v)) for v in row]
                chunks = [", ".join(numbers[i:i + 4]) for i in range(0, len(numbers), 4)]
                lines.append("        [" + ",\n         ".join(chunks) + "],")
            else:
                lines.append(f"        {float(row)!r},")
        lines.append("    ],")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    header = f"# BEGIN RECORDED (scripts/record_optim_expected.py; PyTorch {torch.__version__}, " \
             "float64)"
    optim_tests = _load("test_optim")
    from _optim_problems import run
    expected = {name: run("torch", opt, kwargs, problem, steps, groups)
                for name, opt, kwargs, problem, steps, groups in optim_tests.CASES}
    _rewrite(TESTS / "test_optim.py", header, _format(expected))
    sched_tests = _load("test_lr_scheduler")
    expected = {case[0]: sched_tests.torch_schedule(case) for case in sched_tests.SCHEDULES}
    _rewrite(TESTS / "test_lr_scheduler.py", header, _format(expected))


if __name__ == "__main__":
    main()
