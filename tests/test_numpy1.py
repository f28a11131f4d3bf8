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

from conftest import Job, background

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv-np1" / "bin" / "python"
ONCE = ["test_r_shim.py", "test_r_package.py", "test_r_generated.py", "test_rbridge_safety.py",
        "test_docs.py", "test_vignettes.py", "test_benchmarks.py", "test_fuzz.py",
        "test_numpy1.py", "test_r_bad_input.py", "test_r_api.py", "test_r_check.py",
        "test_r_examples.py", "test_typing.py", "test_lint.py"]


def suite_available():
    """Why the NumPy 1 run cannot happen here, or None."""
    return None if PYTHON.exists() else "no .venv-np1 (make test creates it)"


def run_suite(workdir=None):
    """Run the Python tests under NumPy 1: (NumPy's version, return code, the output's tail)."""
    version = subprocess.run([str(PYTHON), "-c", "import numpy; print(numpy.__version__)"],
                             capture_output=True, text=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_LIBRARY_PATH", "PYTEST_ADDOPTS")}  # (a --basetemp would be shared)
    env["PYTHONPATH"] = str(ROOT)
    # -rfE: the summary names failures and errors only (the skips are the main run's business)
    args = [str(PYTHON), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "-rfE",
            "tests"]
    args += [f"--ignore=tests/{name}" for name in ONCE]
    if workdir is not None:
        args += [f"--basetemp={workdir}"]
    res = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    tail = "\n".join(res.stdout.splitlines()[-40:]) + "\n" + res.stderr[-2000:]
    return version.stdout.strip(), res.returncode, tail


def background_jobs(items):
    """conftest.py runs the suite in the background while the rest of the suite runs."""
    mine = [i for i in items if i.name == "test_python_suite_passes_with_numpy_1"]
    if not mine or suite_available() is not None:
        return []
    # (cost: seconds on the 2-core machine under make test's load; orders the jobs)
    return [Job("numpy1", lambda d: run_suite(d / "pt"), 330, mine)]


@pytest.mark.slow
def test_python_suite_passes_with_numpy_1(request):
    why = suite_available()
    if why:
        pytest.skip(why)
    job = background(request, "numpy1")
    version, code, tail = job.result() if job is not None else run_suite()
    assert version.startswith("1."), version
    assert code == 0, f"NumPy {version}:\n{tail}"
