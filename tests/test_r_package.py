"""The R package as an R user gets it: a source tarball, installed offline into an empty library.

The tarball carries the Python package (``r-shim/inst/python/rtorchpy.tar.xz``, packed by
``r-shim/tools/bundle_python.py``; the R package unpacks it into its user cache directory on first
use), so a Python with only NumPy is enough. This test builds the
tarball from a temporary copy of ``r-shim/`` (the worktree is left alone), installs it into an
empty library with an empty HOME and every network access pointed at a closed port, and runs a
backward pass with ``RETICULATE_PYTHON`` set to a fresh virtualenv that has NumPy and nothing
else. It also checks that ``make r`` left a current copy in the dev library (``.rlib``).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Job, background

ROOT = Path(__file__).resolve().parents[1]
SHIM = ROOT / "r-shim"
BUNDLE = SHIM / "tools" / "bundle_python.py"
RLIB = ROOT / ".rlib"
DEAD_PROXY = "http://127.0.0.1:9"  # the discard port: any download attempt fails at once


def _tool(name):
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (install R: scripts/install-r-deps.sh)")
    return path


def _offline_env(home: Path, lib: Path, python: Path | None = None) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_LIBRARY_PATH", "R_LIBS", "R_LIBS_USER", "RETICULATE_PYTHON",
                        "PYTHONPATH", "VIRTUAL_ENV", "WORKON_HOME", "R_USER_CACHE_DIR",
                        "XDG_CACHE_HOME")}
    env.update(HOME=str(home), R_LIBS=str(lib), R_LIBS_USER=str(lib),
               http_proxy=DEAD_PROXY, https_proxy=DEAD_PROXY, HTTP_PROXY=DEAD_PROXY,
               HTTPS_PROXY=DEAD_PROXY, no_proxy="", PIP_NO_INDEX="1")
    if python is not None:
        env["RETICULATE_PYTHON"] = str(python)
    return env


def _numpy_only_venv(where: Path, with_numpy: bool = True) -> Path:
    """A virtualenv without pip whose only package is this interpreter's NumPy (linked in)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    site = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True).stdout.strip())
    if with_numpy:
        import numpy
        src = Path(numpy.__file__).parent
        shelf = where / "numpy-only"
        shelf.mkdir()
        (shelf / "numpy").symlink_to(src)
        if (src.parent / "numpy.libs").is_dir():
            (shelf / "numpy.libs").symlink_to(src.parent / "numpy.libs")
        (site / "numpy_only.pth").write_text(str(shelf) + "\n")
    probe = subprocess.run([str(python), "-c", "import rtorchpy"], capture_output=True,
                           cwd=where)
    assert probe.returncode != 0, "the test virtualenv must not see an installed rtorchpy"
    probe = subprocess.run([str(python), "-c", "import numpy"], capture_output=True, cwd=where)
    assert (probe.returncode == 0) == with_numpy
    return python


def install_tarball(tmp):
    """(library, home, tmp) after R CMD build + R CMD INSTALL of the tarball, offline, in the
    fresh directory ``tmp``."""
    r = _tool("R")
    src = tmp / "src" / "r-shim"
    shutil.copytree(SHIM, src, ignore=shutil.ignore_patterns(
        "*.o", "*.so", "*.dll", "*.tar.gz", "*.Rcheck", "__pycache__", "python"))
    subprocess.run([sys.executable, str(BUNDLE), "--dest", str(src / "inst" / "python")],
                   check=True, capture_output=True)
    home, lib, out = tmp / "home", tmp / "lib", tmp / "out"
    for d in (home, lib, out):
        d.mkdir()
    env = _offline_env(home, lib)
    # vignettes are built by `make r-tarball`; here they would only cost time
    res = subprocess.run([r, "CMD", "build", "--no-build-vignettes", "--no-manual", str(src)],
                         cwd=out, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    tarball = next(out.glob("rtorchpy_*.tar.gz"))
    res = subprocess.run([r, "CMD", "INSTALL", "--no-multiarch", f"--library={lib}",
                          str(tarball)], env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    # the Python code is installed as one archive (CRAN's 5 MB: tests/test_r_check.py)
    assert [p.name for p in (lib / "rtorchpy" / "python").iterdir()] == ["rtorchpy.tar.xz"]
    return lib, home, tmp


def background_jobs(items):
    """conftest.py builds and installs the tarball in the background beside the other tests."""
    mine = [i for i in items if "installed_tarball" in getattr(i, "fixturenames", ())]
    return [Job("tarball", install_tarball, 35, mine)] if mine else []  # (cost: seconds)


@pytest.fixture(scope="module")
def installed_tarball(request, tmp_path_factory):
    job = background(request, "tarball")
    return job.result() if job is not None else install_tarball(tmp_path_factory.mktemp("rpkg"))


def _rscript(code, env, cwd):
    # run away from the checkout, whose rtorchpy/ a Python started there would import
    return subprocess.run([_tool("Rscript"), "--vanilla", "-e", code], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_tarball_runs_offline_with_a_numpy_only_python(installed_tarball):
    lib, home, tmp = installed_tarball
    python = _numpy_only_venv(tmp / "venv")
    code = (
        "library(rtorchpy); "
        "x <- torch_tensor(c(1, 2, 3), requires_grad = TRUE); "
        "y <- (x * x)$sum(); y$backward(); "
        "cat('GRAD', as_array(x$grad), '\\n'); "
        "cfg <- rtorchpy_config(); "
        "cat('BUNDLED', cfg$rtorchpy_bundled, '\\n'); cat('PYTHON', cfg$python, '\\n')")
    res = _rscript(code, _offline_env(home, lib, python), tmp)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert "GRAD 2 4 6" in out
    assert "BUNDLED TRUE" in out
    assert f"PYTHON {python}" in out
    # unpacked into the user cache directory (HOME is the test's own), one directory per build
    cache = home / ".cache" / "R" / "rtorchpy"
    copies = [p.name for p in cache.iterdir()]
    assert len(copies) == 1 and copies[0].startswith("0."), copies
    assert (cache / copies[0] / "rtorchpy" / "__init__.py").is_file()


def test_tarball_without_numpy_names_numpy_and_the_fix(installed_tarball):
    lib, home, tmp = installed_tarball
    python = _numpy_only_venv(tmp / "bare", with_numpy=False)
    res = _rscript("library(rtorchpy); torch_ones(2)", _offline_env(home, lib, python), tmp)
    out = res.stdout + res.stderr
    assert res.returncode != 0
    assert f"Python {python} has no NumPy" in out
    assert "rtorchpy::install_rtorchpy()" in out
    assert "Traceback" not in out


def test_dev_library_carries_a_current_copy():
    """`make r` bundles rtorchpy/ into the installed package: the copy must match the source."""
    installed = RLIB / "rtorchpy" / "python"
    if not (RLIB / "rtorchpy").is_dir():
        pytest.skip("the R package is not installed in .rlib (make r)")
    res = subprocess.run([sys.executable, str(BUNDLE), "--check", str(installed)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def _bundle_module():
    import importlib.util
    spec = importlib.util.spec_from_file_location("bundle_python", BUNDLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bundle_script_packs_checks_and_repacks(tmp_path):
    bundle = _bundle_module()
    dest = tmp_path / "python"
    (dest / "rtorchpy").mkdir(parents=True)  # an unpacked copy an older script left: removed
    assert subprocess.run([sys.executable, str(BUNDLE), "--dest", str(dest)]).returncode == 0
    assert [p.name for p in dest.iterdir()] == ["rtorchpy.tar.xz"]
    archive = dest / "rtorchpy.tar.xz"
    files = bundle.unpack(archive)
    engine = ROOT / "rtorchpy" / "autograd" / "engine.py"
    assert files["autograd/engine.py"] == engine.read_bytes()
    assert not any("__pycache__" in name or not name.endswith(".py") for name in files)
    check = [sys.executable, str(BUNDLE), "--check", str(dest)]
    assert subprocess.run(check).returncode == 0
    # reproducible: packing the same files gives the same bytes (so make sees no change)
    assert bundle.pack(files) == archive.read_bytes()
    files["stale_extra.py"] = b""
    files["tensor.py"] = b"# edited\n"
    archive.write_bytes(bundle.pack(files))
    res = subprocess.run(check, capture_output=True, text=True)
    assert res.returncode == 1
    assert "stale: tensor.py" in res.stderr and "extra: stale_extra.py" in res.stderr
    assert subprocess.run([sys.executable, str(BUNDLE), "--dest", str(dest)]).returncode == 0
    assert subprocess.run(check).returncode == 0
    assert "stale_extra.py" not in bundle.unpack(archive)


def test_another_rtorchpy_imported_first_is_an_error(tmp_path):
    """The dev venv has rtorchpy installed (editable, from the checkout): when Python imported
    that one before the R package started, loading stops and says so instead of mixing them."""
    if not (RLIB / "rtorchpy").is_dir():
        pytest.skip("the R package is not installed in .rlib (make r)")
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    # (the checkout on PYTHONPATH: reticulate adds a venv's site-packages to sys.path without
    # running its .pth files, so with some Pythons, Debian's among them, the editable install
    # alone is not importable from R)
    env.update(R_LIBS=str(RLIB), RETICULATE_PYTHON=sys.executable, PYTHONPATH=str(ROOT))
    code = ("invisible(reticulate::import('rtorchpy')); library(rtorchpy); "
            "cat(tryCatch({torch_ones(2); 'LOADED'}, error = conditionMessage))")
    res = subprocess.run([_tool("Rscript"), "--vanilla", "-e", code], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    out = res.stdout + res.stderr
    assert "LOADED" not in out
    assert "already imported another rtorchpy" in out
    assert "restart R" in out
