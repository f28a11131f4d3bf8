"""Run the R package's testthat suite (r-shim/tests/testthat) through Rscript.

The R package must already be installed into <repo>/.rlib (``make r`` does that); this test
installs nothing. Without Rscript the test is skipped; with Rscript but without the installed
package it fails. R uses this interpreter (``sys.executable``) through reticulate.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Job

ROOT = Path(__file__).resolve().parents[1]
SHIM = ROOT / "r-shim"
RLIB = ROOT / ".rlib"
GOLDEN = SHIM / "tests" / "testthat" / "fixtures" / "r-torch-print-golden.txt"


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


def run_testthat(rscript, run, setup=""):
    """Run ``run`` (an R call of testthat's ``test_dir`` or ``test_file``) after the R code
    ``setup``; returns (fields, output), fields holding the counts (tests, failed, errors,
    skipped, passed) as strings and whether the direct C bridge ran (direct)."""
    code = (
        f"{setup}res <- {run}; "
        "df <- as.data.frame(res); "
        "cat('\\nRTORCHPY-RESULT tests=', nrow(df), ' failed=', sum(df$failed), "
        "' errors=', sum(df$error), ' skipped=', sum(df$skipped), "
        "' passed=', sum(df$passed), ' direct=', rtorchpy:::.rt$direct, '\\n', sep = '')"
    )
    res = _r(rscript, code)
    output = res.stdout + "\n" + res.stderr
    summary = [line for line in res.stdout.splitlines() if line.startswith("RTORCHPY-RESULT")]
    assert res.returncode == 0 and summary, f"testthat did not run:\n{output}"
    return dict(f.split("=") for f in summary[-1].split()[1:]), output


TESTTHAT = SHIM / "tests" / "testthat"
R_TEST_FILES = sorted(p.name for p in TESTTHAT.glob("test-*.R"))

# One Rscript runs a list of testthat files (R and the Python package load once, not once a
# file); each file is then reported as its own pytest case, so one failure hides nothing and
# `pytest tests/test_r_shim.py -k nn-conv` runs just that file. `make test` splits the files
# between two Rscripts that conftest.py runs in the background (beside the Python tests).
_PER_FILE_R = r"""
%(setup)sres <- as.data.frame(testthat::test_dir('r-shim/tests/testthat', package = 'rtorchpy',
  load_package = 'installed', reporter = 'summary', stop_on_failure = FALSE,
  filter = '%(filter)s'))
for (f in unique(res$file)) {
  rows <- res[res$file == f, ]
  cat(sprintf(paste('RTORCHPY-FILE %%s tests=%%d failed=%%d errors=%%d skipped=%%d',
                    'passed=%%d real=%%.1f\n'), f, nrow(rows), sum(rows$failed),
              sum(rows$error), sum(rows$skipped), sum(rows$passed), sum(rows$real)))
}
cat('RTORCHPY-DIRECT', rtorchpy:::.rt$direct, '\n')
"""


def run_testthat_files(files, setup=""):
    """Run the testthat files ``files`` (names) in one Rscript after the R code ``setup``:
    ({file: counts or None when testthat did not report it}, whether the C bridge ran, the
    output)."""
    stems = [name[len("test-"):-len(".R")] for name in files]
    assert all(re.fullmatch(r"[\w-]+", stem) for stem in stems), stems  # (no regex characters)
    code = _PER_FILE_R % {"filter": f"^({'|'.join(stems)})$", "setup": setup}
    res = _r(shutil.which("Rscript"), code, timeout=1800)
    output = res.stdout + "\n" + res.stderr
    counts, direct = {}, None
    for line in res.stdout.splitlines():
        if line.startswith("RTORCHPY-FILE "):
            _, name, *fields = line.split()
            counts[name] = dict(f.split("=") for f in fields)
        elif line.startswith("RTORCHPY-DIRECT "):
            direct = line.split()[1]
    if not counts and "there is no package called" in output:
        output += f"\nthe R package rtorchpy is not installed in {RLIB} (run `make r`)"
    return {name: counts.get(name) for name in files}, direct, output


# The whole testthat run takes about this long on the 2-core machine under make test's load;
# the files are split into two Rscripts of about equal size (a file's size stands in for its
# time) and each Rscript's share of this is its cost for ordering the background jobs.
R_SECONDS = 180


def _shards(files, n=2):
    size = {f: (TESTTHAT / f).stat().st_size for f in set(files) | set(R_TEST_FILES)}
    shards, total = [[] for _ in range(n)], [0] * n
    for name in sorted(files, key=lambda f: -size[f]):
        i = total.index(min(total))
        shards[i].append(name)
        total[i] += size[name]
    everything = sum(size[f] for f in R_TEST_FILES) or 1
    return [(sorted(s), R_SECONDS * t / everything) for s, t in zip(shards, total) if s]


def _selected_files(items):
    return sorted({item.callspec.params["r_file"] for item in items
                   if getattr(item, "callspec", None) is not None
                   and "r_file" in item.callspec.params})


def background_jobs(items):
    """conftest.py runs the selected testthat files in the background, in two Rscripts."""
    if shutil.which("Rscript") is None:
        return []
    jobs = []
    for k, (files, seconds) in enumerate(_shards(_selected_files(items))):
        mine = [i for i in items if getattr(i, "callspec", None) is not None
                and i.callspec.params.get("r_file") in files]
        jobs.append(Job(f"testthat-{k + 1}", lambda d, files=files: run_testthat_files(files),
                        seconds, mine))
    return jobs


@pytest.fixture(scope="session")
def testthat_results(request):
    """Run the testthat files this session selected; return {file: (counts, output)}."""
    _rscript()
    jobs = [j for name, j in getattr(request.config, "_rtorchpy_jobs", {}).items()
            if name.startswith("testthat-")]
    runs = [j.result() for j in jobs] if jobs else \
        [run_testthat_files(_selected_files(request.session.items))]
    return {name: (counts, output) for counts_of, _, output in runs
            for name, counts in counts_of.items()}


def _failure_report(name, output):
    """The part of testthat's summary output that concerns one file (its failures name it)."""
    lines = output.splitlines()
    keep = [i for i, line in enumerate(lines) if name in line]
    if not keep:
        return output[-6000:]
    return "\n".join(lines[max(0, keep[0] - 2):keep[-1] + 25])


@pytest.mark.parametrize("r_file", R_TEST_FILES)
def test_testthat_file(r_file, testthat_results):
    counts, output = testthat_results[r_file]
    assert counts is not None, f"testthat did not report {r_file} (R stopped?):\n{output[-6000:]}"
    assert counts["failed"] == "0" and counts["errors"] == "0", (
        f"testthat failures in {r_file}:\n{_failure_report(r_file, output)}")
    assert int(counts["passed"]) + int(counts["skipped"]) > 0, f"{r_file} ran no expectation"


def test_generated_r_ops_are_current():
    """r-shim/R/gen-ops.R is generated from the op registry: it must match the registry."""
    res = subprocess.run([sys.executable, str(SHIM / "tools" / "generate.py"), "--check"],
                         cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


# ------------------------------------------------------------------ the Python side of the bridge
# (no R needed: rtorchpy/_r's R conventions, checked directly)

def test_error_messages_become_1_based():
    from rtorchpy._r.errors import translate_error as t
    assert t("Dimension out of range (expected to be in range of [-2, 1], but got 2)") == \
        "Dimension out of range (expected to be in range of [-2, 2], but got 3)"
    assert t("Dimension out of range (expected to be in range of [-2, 1], but got -3)") == \
        "Dimension out of range (expected to be in range of [-2, 2], but got -3)"
    assert t("Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 "
             "for tensor number 1 in the list.") == (
        "Sizes of tensors must match except in dimension 1. Expected size 3 but got size 4 "
        "for tensor number 2 in the list.")
    assert t("select(): index 4 out of range for tensor of size [3, 2] at dimension 0") == \
        "select(): index 5 out of range for tensor of size [3, 2] at dimension 1"
    assert t("Target 3 is out of bounds.") == "Target 4 is out of bounds."
    assert t("Target -1 is out of bounds.") == "Target 0 is out of bounds."
    assert t("index 2 is out of bounds for dimension 0 with size 0") == \
        "index 3 is out of bounds for dimension 1 with size 0"
    assert t("Found an invalid max index: 4") == "Found an invalid max index: 5"
    assert t("dimension 1 does not have size 3") == "dimension 2 does not have size 3"
    assert t("inputs dimension 0 must have length 2") == "inputs dimension 1 must have length 2"
    assert t("contracted dimensions need to match, but first has size 3 in dim 1 and second has "
             "size 2 in dim 0") == ("contracted dimensions need to match, but first has size 3 "
                                    "in dim 2 and second has size 2 in dim 1")
    assert t("grad can be implicitly created only for scalar outputs") == \
        "grad can be implicitly created only for scalar outputs"


def test_python_exceptions_become_r_torch_condition_classes():
    from rtorchpy._r.errors import RIndexError, RNAError, _err, condition_class, error_reply
    from rtorchpy._r.protocol import ERROR_CLASS
    assert condition_class(ValueError("x")) == "value_error"
    assert condition_class(RNAError("x")) == "value_error"
    assert condition_class(TypeError("x")) == "type_error"
    assert condition_class(IndexError("x")) == "index_error"
    assert condition_class(NotImplementedError("x")) == "not_implemented_error"
    assert condition_class(RuntimeError("x")) == "runtime_error"
    assert condition_class(ZeroDivisionError("x")) == "runtime_error"
    assert _err(RIndexError("Indexing starts at 1")) == error_reply("Indexing starts at 1",
                                                                     "index_error")
    assert _err(KeyError("no such key"))[ERROR_CLASS] == "index_error"


def test_r_dims_and_positions():
    from rtorchpy._r.errors import RIndexError
    from rtorchpy._r.handles import r_dim
    assert r_dim(1.0) == 0 and r_dim(2) == 1 and r_dim(-1) == -1 and r_dim(None) is None
    assert r_dim([1.0, 2.0]) == [0, 1]
    with pytest.raises(RIndexError, match="Indexing starts at 1 but found a 0."):
        r_dim(0)


def test_r_arrays_round_trip_column_major():
    import numpy as np
    from rtorchpy._r.handles import MAGIC, _OBJECTS, _array_from_r
    from rtorchpy._r.values import to_r
    r_matrix = np.arange(1.0, 7.0)            # R's matrix(1:6, nrow = 2), column-major
    t = _array_from_r(bytearray(r_matrix.tobytes()), "double", [2, 3])
    assert t.shape == (2, 3) and t.dtype.word == "Float"
    assert t.tolist() == [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]   # m[i, j] == t[i, j]
    ints = _array_from_r(bytearray(np.array([1, 2], "<i4").tobytes()), "integer", 2)
    assert ints.dtype.word == "Long"
    bools = _array_from_r(bytearray(np.array([1, 0], "<i4").tobytes()), "logical", 2)
    assert bools.dtype.word == "Bool"
    key = max(_OBJECTS) + 1000
    _OBJECTS[key] = t
    tag, (data, kind, shape) = to_r(complex(key, MAGIC))
    assert tag == "v" and kind == "double" and shape == [2, 3]
    assert np.frombuffer(bytes(data), "<f8").tolist() == r_matrix.tolist()
    del _OBJECTS[key]


def test_r_arange_includes_the_end():
    from rtorchpy._r.handles import _get
    from rtorchpy._r.tensor import arange
    assert _get(arange(0.0, 99.0, 1.0)).shape == (100,)
    assert _get(arange(0.0, 2.0, 0.5)).shape == (5,)
    assert _get(arange(0.0, 2.5, 0.51)).shape == (5,)
    assert _get(arange(2.5, 1.0, -0.5)).shape == (4,)
    ints = _get(arange(0, 5, 1, all_integer=True))
    assert ints.tolist() == [0, 1, 2, 3, 4, 5] and ints.dtype.word == "Long"
