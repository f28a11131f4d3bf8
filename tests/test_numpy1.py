"""The Python suite under NumPy 1.x (the main venv has NumPy 2): rtorchpy must work with both.

``make test`` creates ``.venv-np1`` (NumPy 1.26, pytest, hypothesis, mpmath; rtorchpy from this
checkout through PYTHONPATH) and this test runs the Python tests there in a subprocess: every
test file but the R, docs, benchmark and random-program ones (those run once, here).
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv-np1" / "bin" / "python"
ONCE = ["test_r_shim.py", "test_r_package.py", "test_r_generated.py", "test_rbridge_safety.py",
        "test_docs.py", "test_vignettes.py", "test_benchmarks.py", "test_fuzz.py",
        "test_numpy1.py", "test_r_bad_input.py", "test_r_api.py"]


@pytest.mark.slow
def test_python_suite_passes_with_numpy_1():
    if not PYTHON.exists():
        pytest.skip("no .venv-np1 (make test creates it)")
    version = subprocess.run([str(PYTHON), "-c", "import numpy; print(numpy.__version__)"],
                             capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("1."), version
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    env["PYTHONPATH"] = str(ROOT)
    # -rfE: the summary names failures and errors only (the skips are the main run's business)
    args = [str(PYTHON), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "-rfE",
            "tests"]
    args += [f"--ignore=tests/{name}" for name in ONCE]
    res = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    tail = "\n".join(res.stdout.splitlines()[-40:])
    assert res.returncode == 0, f"NumPy {version.stdout.strip()}:\n{tail}\n{res.stderr[-2000:]}"
