"""`R CMD check --as-cran --no-manual` on the R package's source tarball: no ERROR, no WARNING,
and only the NOTEs this offline machine cannot avoid (listed below with their reasons). Also:
the C sources' Windows branches compile (syntax) where there is no Windows compiler.

The check runs without the tests (`--no-tests`): every testthat file is already its own pytest
case (tests/test_r_shim.py). Its examples and vignettes do run.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Job, background

ROOT = Path(__file__).resolve().parents[1]
SHIM = ROOT / "r-shim"

# NOTEs a release build on CRAN would not show, keyed by the check's name, with a pattern the
# whole NOTE text must match (so a new problem under the same check still fails):
ALLOWED_NOTES = {
    # a development version number (x.y.z.9000) is flagged; release versions are x.y.z
    "CRAN incoming feasibility": r"(?s)\AMaintainer: [^\n]*\n\s*Version contains large "
                                 r"components \([0-9.]+\)\s*\Z",
    # coro (Suggests) is not packaged by Debian and CRAN is unreachable here
    "package dependencies": r"(?s)\APackage suggested but not available for checking: "
                            r"‘coro’\s*\Z",
    # the check asks a time server, unreachable here
    "for future file timestamps": r"(?s)\Aunable to verify current time\s*\Z",
}
# Not allowed: "installed package size" (CRAN's NOTE above 5 MB installed). The installed package
# was 5.1 MB (issue 28) until the Python code went in as one archive (inst/python/rtorchpy.tar.xz,
# 0.34 MB where ~190 files took 1.9 MB): now ~3.6 MB. When the NOTE comes back, the message below
# says where to look.
SIZE_ADVICE = """\
The installed package is over CRAN's 5 MB. See which sub-directory grew (the NOTE lists those of
1 MB or more; `du -k` on the check's rtorchpy.Rcheck/rtorchpy for the rest) and make it smaller
rather than allowing the NOTE: python/ must hold only rtorchpy.tar.xz
(r-shim/tools/bundle_python.py; no unpacked copy, no __pycache__); doc/ holds the vignettes' HTML
(figures: smaller fig.width, fig.height or dpi); help/ grows with each Rd page (generated pages:
r-shim/tools/generate.py); R/ with the code. docs/internals/index.md, "The R package's installed
size", has the numbers."""


def _r_env(workdir):
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    env["RETICULATE_PYTHON"] = sys.executable
    env["R_LIBS"] = str(ROOT / ".rlib")
    # offline: no CRAN index, no time server. CRAN's package list is replaced by a local file
    # naming the one suggested package Debian lacks (what the check looks up for it).
    web = workdir / "cran" / "web" / "packages"
    web.mkdir(parents=True)
    subprocess.run(["Rscript", "-e", "saveRDS(data.frame(Package = 'coro', Version = '1.0.4', "
                    "Maintainer = 'coro maintainer <m@example.org>'), commandArgs(TRUE)[1])",
                    str(web / "packages.rds")], env=env, check=True, capture_output=True)
    env["R_CRAN_WEB"] = (workdir / "cran").as_uri()
    env["_R_CHECK_CRAN_INCOMING_REMOTE_"] = "false"
    env["_R_CHECK_FORCE_SUGGESTS_"] = "false"
    # the first example starts Python (~2 s, more on a loaded machine): time is not checked
    # against CRAN's 5 s here, where other tests share the CPU
    env["_R_CHECK_EXAMPLE_TIMING_THRESHOLD_"] = "60"
    return env


def run_check(workdir):
    """Build the tarball in `workdir` and check it: (00check.log's text, or the failure)."""
    env = _r_env(workdir)
    build = subprocess.run(["R", "CMD", "build", str(SHIM)], cwd=workdir, env=env,
                           capture_output=True, text=True, timeout=900)
    if build.returncode != 0:
        return "R CMD build failed:\n" + build.stdout + build.stderr
    tarball = next(workdir.glob("rtorchpy_*.tar.gz"))
    check = subprocess.run(["R", "CMD", "check", "--as-cran", "--no-manual", "--no-tests",
                            tarball.name], cwd=workdir, env=env, capture_output=True,
                           text=True, timeout=1500)
    log_path = workdir / "rtorchpy.Rcheck" / "00check.log"
    return log_path.read_text() if log_path.exists() else check.stdout + check.stderr


def check_available():
    """Why the check cannot run here, or None."""
    if shutil.which("R") is None or not (ROOT / ".rlib" / "rtorchpy").exists():
        return "R or the installed R package is missing (make r)"
    if not (SHIM / "inst" / "python" / "rtorchpy.tar.xz").exists():
        return "the bundled Python package is missing (make r)"
    return None


def _sections(log):
    """(check name, status, text) for every check in 00check.log that is not OK."""
    out = []
    parts = re.split(r"^\* checking ", log, flags=re.M)[1:]
    for part in parts:
        head, _, body = part.partition("\n")
        m = re.match(r"(.*?) \.\.\.(?:.*?)\b(NOTE|WARNING|ERROR)\s*$", head)
        if m:
            out.append((m.group(1).strip(), m.group(2), body.strip()))
    return out


def background_jobs(items):
    """conftest.py runs the check in the background while the rest of the suite runs."""
    mine = [i for i in items if i.name == "test_r_cmd_check_as_cran"]
    if not mine or check_available() is not None:
        return []
    return [Job("r_check", run_check, 450, mine)]  # (cost: seconds, orders the jobs)


@pytest.mark.slow
def test_r_cmd_check_as_cran(request, tmp_path):
    why = check_available()
    if why:
        pytest.skip(why)
    job = background(request, "r_check")
    log = job.result() if job is not None else run_check(tmp_path)
    problems = []
    for name, status, text in _sections(log):
        allowed = ALLOWED_NOTES.get(name)
        if status == "NOTE" and allowed and re.match(allowed, text):
            continue
        advice = f"\n{SIZE_ADVICE}" if name == "installed package size" else ""
        problems.append(f"{status} in 'checking {name}':\n{text}{advice}")
    assert not problems, "\n\n".join(problems) + "\n\n" + log[-3000:]
    assert re.search(r"^Status: (OK|\d+ NOTEs?)\s*$", log, re.M), log[-3000:]


def test_windows_branches_compile():
    """On Windows the C crossing is off (no dlopen: every call goes through reticulate, the
    path RTORCHPY_DIRECT=0 selects and tests/test_rbridge_safety.py runs); its branches must
    still compile there. Checked for syntax with R's headers and _WIN32 defined."""
    gcc = shutil.which("gcc")
    rhome = subprocess.run(["R", "RHOME"], capture_output=True, text=True) if shutil.which("R") \
        else None
    if gcc is None or rhome is None or rhome.returncode != 0:
        pytest.skip("gcc or R is missing")
    inc = subprocess.run(["R", "CMD", "config", "--cppflags"], capture_output=True, text=True,
                         env={k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"})
    flags = inc.stdout.split()
    for src in sorted((SHIM / "src").glob("*.c")):
        res = subprocess.run([gcc, "-fsyntax-only", "-Wall", "-D_WIN32", "-D__declspec(x)=",
                              *flags, str(src)], capture_output=True, text=True)
        assert res.returncode == 0 and "warning" not in res.stderr, f"{src.name}:\n{res.stderr}"
    assert (SHIM / "src" / "Makevars.win").exists()
    assert "-ldl" not in (SHIM / "src" / "Makevars.win").read_text()
