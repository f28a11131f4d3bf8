"""Run the R package's testthat suite (r-shim/tests/testthat) through Rscript.

The R package must already be installed into <repo>/.rlib (``make r`` does that); this test
installs nothing. Without Rscript the test is skipped; with Rscript but without the installed
package it fails. R uses this interpreter (``sys.executable``) through reticulate.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHIM = ROOT / "r-shim"
RLIB = ROOT / ".rlib"
GOLDEN = Path("/work/shared/spec/r-torch-print-golden.txt")


def _r_env():
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    env["RETICULATE_PYTHON"] = sys.executable
    env["R_LIBS"] = str(RLIB)
    env["RTORCHPY_REQUIRE_PYTHON"] = "1"  # a broken Python setup fails instead of skipping
    if GOLDEN.exists():
        env["RTORCHPY_GOLDEN"] = str(GOLDEN)
    return env


def _rscript():
    rscript = shutil.which("Rscript")
    if rscript is None:
        pytest.skip("Rscript is not installed, so the R package cannot be tested "
                    "(install R: scripts/install-r-deps.sh)")
    return rscript


def _r(rscript, code, timeout=600):
    return subprocess.run([rscript, "--vanilla", "-e", code], cwd=ROOT, env=_r_env(),
                          capture_output=True, text=True, timeout=timeout)


def test_r_shim_is_installed():
    rscript = _rscript()
    res = _r(rscript, "library(rtorchpy); cat(as.character(packageVersion('rtorchpy')))")
    assert res.returncode == 0, (
        f"the R package rtorchpy is not installed in {RLIB} (run `make r`):\n"
        f"{res.stdout}\n{res.stderr}")


def test_testthat_suite():
    rscript = _rscript()
    installed = _r(rscript, "library(rtorchpy)")
    assert installed.returncode == 0, (
        f"the R package rtorchpy is not installed in {RLIB} (run `make r`):\n"
        f"{installed.stderr}")
    code = (
        "res <- testthat::test_dir('r-shim/tests/testthat', package = 'rtorchpy', "
        "load_package = 'installed', reporter = 'summary', stop_on_failure = FALSE); "
        "df <- as.data.frame(res); "
        "cat('\\nRTORCHPY-RESULT tests=', nrow(df), ' failed=', sum(df$failed), "
        "' errors=', sum(df$error), ' skipped=', sum(df$skipped), "
        "' passed=', sum(df$passed), '\\n', sep = '')"
    )
    res = _r(rscript, code)
    output = res.stdout + "\n" + res.stderr
    summary = [line for line in res.stdout.splitlines() if line.startswith("RTORCHPY-RESULT")]
    assert res.returncode == 0 and summary, f"testthat did not run:\n{output}"
    fields = dict(f.split("=") for f in summary[-1].split()[1:])
    print(output)
    assert fields["failed"] == "0" and fields["errors"] == "0", f"testthat failures:\n{output}"
    assert int(fields["passed"]) > 0, f"no expectation passed:\n{output}"


def test_generated_r_ops_are_current():
    """r-shim/R/gen-ops.R is generated from the op registry: it must match the registry."""
    res = subprocess.run([sys.executable, str(SHIM / "tools" / "generate.py"), "--check"],
                         cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
