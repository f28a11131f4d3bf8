"""The sources pass ``make lint``: ruff with the rules of pyproject.toml's [tool.ruff.lint].

Skipped when ruff is not installed (it comes with the test extra).
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is not installed")
def test_ruff_finds_nothing():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "rtorchpy", "tests", "scripts", "benchmarks",
         "r-shim/tools"],
        cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
