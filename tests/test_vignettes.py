"""The vignettes (vignettes/*.md) run in both languages, and their checks hold.

Each vignette's Python chunks run in one Python process and its R chunks in one Rscript session
(through the installed R shim), exactly as `make docs` runs them. A failing `assert` /
`stopifnot()`, an unexpected error, a missing plot, or R and Python printing different tensors
for a chunk pair marked `same-output` fails the test. The R half is skipped, with the reason,
only when Rscript or the installed shim is missing.
"""
import importlib.util
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load_build_docs():
    # one module object for test_vignettes and test_docs, so a vignette runs once per session
    if "build_docs" not in sys.modules:
        spec = importlib.util.spec_from_file_location("build_docs",
                                                      ROOT / "scripts" / "build_docs.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["build_docs"] = module
        spec.loader.exec_module(module)
    return sys.modules["build_docs"]


bd = _load_build_docs()
VIGNETTES = bd.vignette_paths()
R_STATUS = []


def r_or_skip():
    if not R_STATUS:
        R_STATUS.append(bd.r_status())
    ok, reason = R_STATUS[0]
    if not ok and "does not load" in reason:
        pytest.fail(f"the R shim is installed but broken: {reason}")
    if not ok:
        pytest.skip(f"R half not run: {reason}")


@pytest.fixture(scope="module")
def img_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("img")


def test_there_are_vignettes():
    names = {p.stem for p in VIGNETTES}
    assert {"using-autograd", "extending-autograd", "autograd-exercises",
            "checking-gradients"} <= names


@pytest.mark.parametrize("path", VIGNETTES, ids=lambda p: p.stem)
def test_python_half(path, img_dir):
    bd.run_vignette(bd.parse(path), img_dir, ("python",))


@pytest.mark.parametrize("path", VIGNETTES, ids=lambda p: p.stem)
def test_r_half_and_same_output(path, img_dir):
    r_or_skip()
    bd.run_vignette(bd.parse(path), img_dir, bd.LANGS)


@pytest.mark.parametrize("path", VIGNETTES, ids=lambda p: p.stem)
def test_every_chunk_is_paired_and_plots_are_real(path):
    vig = bd.parse(path)   # parse() refuses unpaired chunks
    pairs = [it[1] for it in vig.items if it[0] == "pair"]
    assert pairs, "a vignette without code"
    for pair in pairs:
        assert pair["r"].label == pair["python"].label


@pytest.mark.parametrize("path", VIGNETTES, ids=lambda p: p.stem)
def test_r_package_vignette_is_up_to_date(path):
    vig = bd.parse(path)
    rmd = bd.RMD_DIR / f"{vig.name}.Rmd"
    assert rmd.exists() and rmd.read_text(encoding="utf-8") == bd.render_rmd(vig), (
        f"{rmd.relative_to(ROOT)} is stale: run `make docs` (or scripts/build_docs.py)")


# ------------------------------------------------------------------ the pipeline catches mistakes
def _vignette(tmp_path, body):
    path = tmp_path / "broken.md"
    path.write_text("---\ntitle: Broken\n---\n\n" + textwrap.dedent(body))
    return bd.parse(path)


def test_wrong_gradient_fails_the_python_half(tmp_path):
    vig = _vignette(tmp_path, """\
        ```{r grad}
        x <- 1
        ```
        ```{python grad}
        from rtorchpy import *
        x = torch_tensor([2.0], requires_grad=True)
        (x ** 2).backward()
        assert x.grad.item() == 5, "wrong gradient"
        ```
        """)
    with pytest.raises(bd.VignetteError, match="AssertionError: wrong gradient"):
        bd.run_vignette(vig, tmp_path, ("python",))


def test_chunk_marked_error_must_fail_and_plots_must_be_declared(tmp_path):
    vig = _vignette(tmp_path, """\
        ```{r a, error}
        1
        ```
        ```{python a, error}
        1 + 1
        ```

        ```{r b}
        1
        ```
        ```{python b}
        import matplotlib.pyplot as plt
        plt.plot([1, 2])
        ```
        """)
    with pytest.raises(bd.VignetteError) as e:
        bd.run_vignette(vig, tmp_path, ("python",))
    assert "marked `error` but ran without an error" in str(e.value)
    assert "drew a plot but is not marked `fig`" in str(e.value)


def test_unpaired_chunk_is_refused(tmp_path):
    with pytest.raises(bd.VignetteError, match="every chunk comes in a pair"):
        _vignette(tmp_path, """\
            ```{python alone}
            1
            ```
            """)


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript is not installed")
def test_r_errors_and_differing_tensors_are_caught(tmp_path):
    # plain R (no shim needed): the R session, stopifnot() and the same-output comparison
    vig = _vignette(tmp_path, """\
        ```{r check}
        stopifnot(1 + 1 == 3)
        ```
        ```{python check}
        assert 1 + 1 == 2
        ```

        ```{r same, same-output}
        cat("torch_tensor\\n 1\\n[ CPUFloatType{1} ]\\n")
        ```
        ```{python same, same-output}
        print("torch_tensor\\n 2\\n[ CPUFloatType{1} ]")
        ```
        """)
    with pytest.raises(bd.VignetteError) as e:
        bd.run_vignette(vig, tmp_path, bd.LANGS)
    assert "Error: 1 + 1 == 3 is not TRUE" in str(e.value)
    assert "R and Python print different tensors" in str(e.value)
