"""The documentation site builds with `mkdocs build --strict`, and what it shows is real.

The site is built in a temporary directory (a copy of the hand-written docs/ plus everything
scripts/build_docs.py generates), so the checkout is not touched. Then: every vignette page has
R/Python tabs, every image it references exists, the plots are there, the generated tables list
what the code holds, and the code on the hand-written pages runs and prints what the page shows.
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Job, background

from test_vignettes import ROOT, bd

MKDOCS = Path(sys.executable).with_name("mkdocs")
GENERATED = {"vignettes", "reference/ops.md", "reference/r.md", "reference/r",
             "internals/derivatives.md", "internals/modules.md", "assets/mathjax"}
HAND_WRITTEN = ["index.md", "get-started/python.md", "get-started/r.md"]


def build_site(tmp):
    """Build the site in ``tmp`` (a fresh directory): its ``site`` directory."""
    if not MKDOCS.exists():
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")

    def generated(folder, names):
        rel = Path(folder).relative_to(ROOT / "docs")
        return [n for n in names if (rel / n).as_posix() in GENERATED]

    shutil.copytree(ROOT / "docs", tmp / "docs", ignore=generated)
    shutil.copy(ROOT / "mkdocs.yml", tmp / "mkdocs.yml")
    # the build also writes the R package's vignettes (r-shim/vignettes/*.Rmd): into the
    # temporary directory here, or test_vignettes' check that the committed ones are up to date
    # would only ever see what this fixture had just written
    rmd_dir, bd.RMD_DIR = bd.RMD_DIR, tmp / "rmd"
    try:
        problems = bd.build(tmp / "docs")
    finally:
        bd.RMD_DIR = rmd_dir
    assert not problems, "\n".join(problems)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    p = subprocess.run([str(MKDOCS), "build", "--strict", "-f", str(tmp / "mkdocs.yml"),
                        "-d", str(tmp / "site")], capture_output=True, text=True, env=env,
                       cwd=tmp, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    return tmp / "site"


def background_jobs(items):
    """conftest.py builds the site in the background while the rest of the suite runs. The
    build runs the vignettes (memoised in this process: test_vignettes reuses the runs) and
    points bd.RMD_DIR elsewhere meanwhile, so test_vignettes waits for it."""
    mine = [i for i in items if "site" in getattr(i, "fixturenames", ())]
    if not mine:
        return []
    return [Job("site", build_site, 130, mine, waiters=["test_vignettes"])]  # (cost: seconds)


@pytest.fixture(scope="module")
def site(request, tmp_path_factory):
    job = background(request, "site")
    return job.result() if job is not None else build_site(tmp_path_factory.mktemp("site"))


def _r_vignettes():
    return {p.name: p.read_bytes() for p in sorted(bd.RMD_DIR.glob("*.Rmd"))}


R_VIGNETTES_BEFORE = _r_vignettes()  # at collection, before any fixture has run


def test_site_build_leaves_the_checkout_alone(site):
    assert (site.parent / "rmd").is_dir()
    assert _r_vignettes() == R_VIGNETTES_BEFORE, "the site build rewrote r-shim/vignettes/"


def _page(site, page):
    """A page's HTML file: `page/index.html` (mkdocs' directory URLs), or `page.html` where a
    site is built with `use_directory_urls: false`."""
    flat = site / f"{page}.html"
    return flat if flat.is_file() else site / page / "index.html"


def _html(site, page):
    return _page(site, page).read_text(encoding="utf-8")


@pytest.mark.parametrize("path", bd.vignette_paths(), ids=lambda p: p.stem)
def test_vignette_pages_have_linked_tabs_and_existing_images(site, path):
    html = _html(site, f"vignettes/{path.stem}")
    assert 'class="tabbed-set' in html
    assert re.search(r'<label[^>]*>R</label>', html) and re.search(
        r'<label[^>]*>Python</label>', html)
    page_dir = _page(site, f"vignettes/{path.stem}").parent
    for src in re.findall(r'<img[^>]+src="([^"]+)"', html):
        assert (page_dir / src).resolve().is_file(), f"{path.stem}: missing image {src}"


def test_plots_appear_as_images(site):
    html = _html(site, "vignettes/autograd-exercises")
    images = re.findall(r'<img[^>]+src="([^"]+\.png)"', html)
    assert any(s.endswith("-py.png") for s in images), images
    if bd.r_status()[0]:
        assert any(s.endswith("-r.png") for s in images), images
    for src in images:
        png = (_page(site, "vignettes/autograd-exercises").parent / src).resolve()
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_the_site_needs_no_network(site):
    """Formulas, fonts and search come from the site itself: no page loads a script, style or
    font from another host, and MathJax with its TeX fonts is part of the site."""
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        external = re.findall(r'<(?:script|link)[^>]+(?:src|href)="(https?://[^"]+)"', html)
        assert not external, f"{page.relative_to(site)} loads {external}"
    mathjax = site / "assets" / "mathjax"
    assert (mathjax / "MathJax.js").is_file() and \
        (mathjax / "config" / "TeX-AMS_CHTML.js").is_file()
    assert any((mathjax / "fonts" / "HTML-CSS" / "TeX" / "woff").rglob("*.woff"))
    assert "arithmatex" in _html(site, "vignettes/gaussian-likelihood")


def test_missing_mathjax_is_named(tmp_path):
    assert "libjs-mathjax" in bd.copy_mathjax(tmp_path, source=tmp_path / "nowhere")[0]


def test_tabs_are_linked_site_wide():
    config = (ROOT / "mkdocs.yml").read_text()
    assert "content.tabs.link" in config


def test_generated_tables_come_from_the_code(site):
    from rtorchpy import OPS
    from rtorchpy import derivatives as _derivatives
    html = _html(site, "internals/derivatives")
    for name, _ in _derivatives.ROWS:
        assert f"<code>{name}</code>" in html
    ops = _html(site, "reference/ops")
    assert "<code>torch_exp()</code>" in ops and len(OPS) > 50
    api = _html(site, "reference/python")
    for name in ("autograd_function", "autograd_gradcheck", "autograd_jacobian", "torch_tensor"):
        assert re.search(rf'id="rtorchpy\.[\w.]*{name}"', api), name


def test_r_reference_is_rendered_or_says_why(site):
    html = _html(site, "reference/r")
    man = bd.r_help_files(ROOT / "r-shim" / "man")
    if not man:
        assert "Not available in this build" in html
        return
    # one page per family (roxygen's @family), each showing its functions' help pages
    shown = ""
    for f in man:
        family = bd.r_family(f.read_text(encoding="utf-8"))
        page = _html(site, f"reference/r/{bd.r_family_slug(family)}")
        assert f.stem in html and f'id="{bd._anchor(f.stem)}"' in page, f.name
        shown += page
    assert "rtorchpy_available()" in shown  # the examples are shown too


def test_every_r_family_page_is_in_the_site_navigation():
    config = (ROOT / "mkdocs.yml").read_text()
    families = {bd.r_family(f.read_text(encoding="utf-8"))
                for f in (ROOT / "r-shim" / "man").glob("*.Rd")}
    assert bd.R_OTHER not in families, "every R help page has a @family"
    for fam in families:
        assert f"reference/r/{bd.r_family_slug(fam)}.md" in config, fam


@pytest.mark.parametrize("page", HAND_WRITTEN)
def test_code_on_hand_written_pages_runs_and_prints_what_is_shown(page):
    langs = bd.LANGS if bd.r_status()[0] else ("python",)
    problems = bd.check_page(ROOT / "docs" / page, langs)
    assert not problems, "\n".join(problems)


def test_install_instructions_on_pages_are_not_run(tmp_path):
    # the site build runs a page's code blocks; one that installs something would install into
    # the build's own R library (or make a virtualenv from PyPI) every time the docs are built
    page = tmp_path / "page.md"
    page.write_text("```r\ninstall.packages(\"build/x.tar.gz\", repos = NULL)\n```\n\n"
                    "```r\ninstall_rtorchpy()\n```\n\n```python\n# pip install numpy\n```\n\n"
                    "```r\nx <- 1\n```\n", encoding="utf-8")
    snippets = bd.page_snippets(page)
    assert [c.code for c, _ in snippets["r"]] == ["x <- 1"]
    assert snippets["python"] == []
