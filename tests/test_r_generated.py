"""The R package's generated files are current: NAMESPACE and man/*.Rd are what roxygen2 makes of
the R sources (r-shim/R/gen-ops.R itself is checked against the op registry in test_r_shim.py).

Regenerate after changing an op, an R wrapper or its documentation:

    .venv/bin/python r-shim/tools/generate.py
    cd r-shim
    Rscript -e 'roxygen2::roxygenise(".", roclets = c("namespace", "rd"), load_code = "source")'
"""
from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import Job, background

ROOT = Path(__file__).resolve().parents[1]
SHIM = ROOT / "r-shim"


def _tracked_shim_files():
    out = subprocess.run(["git", "ls-files", "r-shim"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    return [f for f in out.stdout.split() if not f.startswith("r-shim/inst/python/")]


def _roxygen_missing():
    """Why roxygen cannot run here, or None."""
    rscript = shutil.which("Rscript")
    if rscript is None:
        return "Rscript is not installed"
    check = subprocess.run([rscript, "-e",
                            "quit(status = !requireNamespace('roxygen2', quietly = TRUE))"],
                           env=_env(), capture_output=True)
    if check.returncode != 0:
        return "roxygen2 is not installed (scripts/install-r-deps.sh installs it)"
    return None


def _env():
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    env["R_LIBS"] = str(ROOT / ".rlib")
    return env


def roxygen_stale(tmp_path):
    """Run roxygen on a copy of the tracked R package in ``tmp_path``: the generated files that
    differ from the checkout's."""
    why = _roxygen_missing()
    if why:
        pytest.skip(why)
    for f in _tracked_shim_files():
        dest = tmp_path / f
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, dest)
    copy = tmp_path / "r-shim"
    shutil.rmtree(copy / "man", ignore_errors=True)
    (copy / "NAMESPACE").unlink(missing_ok=True)
    res = subprocess.run(
        [shutil.which("Rscript"), "-e", "roxygen2::roxygenise('.', roclets = c('namespace', "
                                        "'rd'), load_code = 'source')"],
        cwd=copy, env=_env(), capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr
    stale = []
    if not filecmp.cmp(copy / "NAMESPACE", SHIM / "NAMESPACE", shallow=False):
        stale.append("NAMESPACE")
    made = {p.name for p in (copy / "man").glob("*.Rd")}
    kept = {p.name for p in (SHIM / "man").glob("*.Rd")}
    stale += [f"man/{n} (missing)" for n in sorted(made - kept)]
    stale += [f"man/{n} (no longer made)" for n in sorted(kept - made)]
    stale += [f"man/{n}" for n in sorted(made & kept)
              if not filecmp.cmp(copy / "man" / n, SHIM / "man" / n, shallow=False)]
    return stale


def background_jobs(items):
    """conftest.py runs roxygen in the background while the rest of the suite runs."""
    mine = [i for i in items if i.name == "test_namespace_and_man_pages_are_what_roxygen_makes"]
    if not mine or shutil.which("Rscript") is None:
        return []
    return [Job("roxygen", roxygen_stale, 50, mine)]  # (cost: seconds, orders the jobs)


def test_namespace_and_man_pages_are_what_roxygen_makes(request, tmp_path):
    job = background(request, "roxygen")
    stale = job.result() if job is not None else roxygen_stale(tmp_path)
    assert not stale, ("generated R files are stale (see this file's docstring to regenerate): "
                       + ", ".join(stale))
