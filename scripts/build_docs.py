#!/usr/bin/env python
"""Build the generated parts of the documentation site; `mkdocs build --strict` then renders it.

* Every vignette (``vignettes/<name>.md``, format and chunk options: see vignette_runner.py) is
  run in R and in Python and checked. ``docs/vignettes/<name>.md`` shows each chunk pair as
  linked content tabs "R" / "Python" with the code and its real output (``#>`` lines), and plots
  as PNGs in ``docs/vignettes/img/``. ``r-shim/vignettes/<name>.Rmd`` gets the R chunks only.
* Generated from the code: the derivative table (``rtorchpy.derivatives.ROWS``), the op table
  (``rtorchpy.OPS``), the module notes (module docstrings) and the R reference
  (``r-shim/man/*.Rd``).
* The code blocks of hand-written pages can be checked against the ``#>`` output they show
  (:func:`check_page`, used by tests/test_docs.py).

Usage: build_docs.py [--docs DIR] [--only NAME ...] [--no-r] [--check]
  --check   only run and check the vignettes (no files written)
Environment: RTORCHPY_DOCS_REQUIRE_R=1 makes a missing R shim an error instead of a note.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vignette_runner import (LANGS, RMD_DIR, ROOT, TAB, VIGNETTES, Chunk,  # noqa: E402,F401
                             Result, Vignette, VignetteError, check, parse, printed_tensors,
                             r_status, run_chunks, run_vignette, _clean_env)

FENCE = {"r": "r", "python": "python"}


# ------------------------------------------------------------------------------ hand-written pages
_FENCED = re.compile(r"^( *)```(r|python)\n(.*?)^\1```$", re.S | re.M)


_INSTALLS = re.compile(r"install\.packages\(|install_rtorchpy\(|pip install|R CMD INSTALL")


def page_snippets(path):
    """The R and Python code blocks of a hand-written page as chunks, with the ``#>`` lines each
    block shows as its output. Install instructions are left out: blocks mentioning
    ``path/to`` or installing anything (running them would install into the build's library,
    or create a virtualenv from PyPI)."""
    text = Path(path).read_text(encoding="utf-8")
    out = {"r": [], "python": []}
    for m in _FENCED.finditer(text):
        indent, lang = len(m.group(1)), m.group(2)
        body = "\n".join(x[indent:] for x in m.group(3).rstrip("\n").split("\n"))
        if "path/to" in body or _INSTALLS.search(body):
            continue
        code = "\n".join(x for x in body.split("\n") if not x.startswith("#>"))
        shown = [x for x in body.split("\n") if x.startswith("#>")]
        line = text.count("\n", 0, m.start()) + 1
        out[lang].append((Chunk(lang, code, line, f"block-{line}"), shown))
    return out


def check_page(path, langs=LANGS):
    """Run the code blocks of a hand-written page (each language in one session); return
    problems: errors, and blocks whose ``#>`` lines differ from what the code prints."""
    problems = []
    for lang in langs:
        snippets = page_snippets(path)[lang]
        if not snippets:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            results = run_chunks(lang, [c for c, _ in snippets], Path(path).stem, path, tmp)
        for (chunk, shown), res in zip(snippets, results):
            where = f"{Path(path).name}:{chunk.line} ({TAB[lang]} block)"
            got = [x for x in _block(lang, res.segments).split("\n") if x.startswith("#>")]
            if res.error:
                problems.append(f"{where}: {res.error}\n{res.detail}".rstrip())
            elif shown and got != shown:
                diff = "\n".join(difflib.unified_diff(shown, got, "page", "actual", lineterm=""))
                problems.append(f"{where}: the page shows other output than the code prints\n"
                                f"{diff}")
    return problems


# ------------------------------------------------------------------------------ rendering
def _indent(text, n=4):
    return "\n".join((" " * n + line) if line.strip() else "" for line in text.splitlines())


def _block(lang, segments):
    """Code and ``#>`` output of one chunk as Markdown (code blocks and images)."""
    parts, code = [], []

    def flush():
        if code:
            parts.append(f"```{FENCE[lang]}\n" + "\n".join(code).strip("\n") + "\n```")
            code.clear()
    for kind, text in segments:
        if kind == "code":
            code.append(text)
        elif kind in ("out", "err"):
            code.extend("#> " + line if line else "#>" for line in text.rstrip("\n").split("\n"))
        elif kind == "fig":
            flush()
            parts.append(f"![{{alt}}](img/{text})")
    flush()
    return "\n\n".join(parts)


def render_page(vig, results, note=""):
    """The site page of ``vig``: prose, and each chunk pair as linked R / Python tabs."""
    out = [f"<!-- Generated from vignettes/{vig.path.name} by scripts/build_docs.py. "
           "Edit that file, not this one. -->", "", f"# {vig.title}", ""]
    if note:
        out += ['!!! warning "R output not shown"', "", _indent(note), ""]
    idx = {lang: 0 for lang in LANGS}
    for kind, item in vig.items:
        if kind == "text":
            out += [item.strip("\n"), ""]
        elif kind == "prose":
            if "site" in item:
                out += [item["site"].strip("\n"), ""]
            elif len(item) == 1:
                (lang, text), = item.items()
                out += [f'!!! note "{TAB[lang]}"', "", _indent(text.strip("\n")), ""]
            else:
                for lang in LANGS:
                    out += [f'=== "{TAB[lang]}"', "", _indent(item[lang].strip("\n")), ""]
        else:
            if item["r"].has("hide"):
                idx = {lang: idx[lang] + 1 for lang in LANGS}
                continue
            for lang in LANGS:
                chunk = item[lang]
                res = results.get(lang)
                segs = res[idx[lang]].segments if res else [("code", chunk.code)]
                alt = chunk.opts.get("fig-alt", f"{vig.title}: {chunk.label}")
                body = _block(lang, segs).replace("{alt}", alt)
                out += [f'=== "{TAB[lang]}"', "", _indent(body), ""]
                idx[lang] += 1
    return "\n".join(out).rstrip("\n") + "\n"


def _rmd_text(text):
    """Site Markdown -> plain R Markdown: admonitions become block quotes, and links to other
    vignettes point to their HTML versions in the installed package."""
    text = re.sub(r"\]\(([\w-]+)\.md(#[\w-]+)?\)", r"](\1.html\2)", text)
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        m = re.match(r'^!!! \w+(?: "(.*)")?\s*$', lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        i += 1
        body = []
        while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
            body.append(lines[i][4:])
            i += 1
        while body and not body[-1].strip():
            body.pop()
        title = [f"**{m.group(1)}**", ">"] if m.group(1) else []
        out += ["> " + x if x.strip() else ">" for x in title + body]
        out.append("")
    return "\n".join(out)


def render_rmd(vig):
    """The R-only R Markdown vignette for the R package."""
    chunk_opts = []
    out = ["---", f'title: "{vig.title}"', "output: rmarkdown::html_vignette", "vignette: >",
           f"  %\\VignetteIndexEntry{{{vig.title}}}", "  %\\VignetteEngine{knitr::rmarkdown}",
           "  %\\VignetteEncoding{UTF-8}", "---", "",
           f"<!-- Generated from vignettes/{vig.path.name} by scripts/build_docs.py; edit that "
           "file, not this one. -->", "",
           "```{r, include = FALSE}",
           "knitr::opts_chunk$set(collapse = TRUE, comment = \"#>\",",
           "                      eval = rtorchpy::rtorchpy_available())",
           "options(conflicts.policy = list(warn = FALSE))",
           "```", ""]
    for kind, item in vig.items:
        if kind == "text":
            out += [_rmd_text(item.strip("\n")), ""]
        elif kind == "prose":
            if "r" in item:
                out += [_rmd_text(item["r"].strip("\n")), ""]
        else:
            c = item["r"]
            chunk_opts = [c.label]
            if c.has("error"):
                chunk_opts.append("error = TRUE")
            if c.has("hide"):
                chunk_opts.append("include = FALSE")
            if c.has("fig"):
                chunk_opts += [f"fig.width = {c.opts.get('fig-width', 7)}",
                               f"fig.height = {c.opts.get('fig-height', 4.5)}"]
                if "fig-alt" in c.opts:
                    chunk_opts.append("fig.alt = " + json.dumps(c.opts["fig-alt"]))
            out += ["```{r " + ", ".join(chunk_opts) + "}", c.code.strip("\n"), "```", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _write(path, text):
    """Write only when the content changes (so `make` does not see churn)."""
    path = Path(path)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def vignette_paths(only=()):
    paths = sorted(VIGNETTES.glob("*.md"))
    return [p for p in paths if not only or p.stem in only]


def vignette_index(vigs):
    out = ["<!-- Generated by scripts/build_docs.py. -->", "", "# Vignettes", "",
           "Each vignette is written once with R and Python side by side. Both halves are run "
           "when the site is built, and the output you see under each tab is what that code "
           "printed. The tabs are linked: choose R or Python once and every page follows.", ""]
    for v in vigs:
        out.append(f"- [{v.title}]({v.name}.md)" + (f": {v.description}" if v.description else ""))
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------ reference pages
def derivatives_page():
    """The derivative table, generated from ``rtorchpy.derivatives.ROWS``."""
    import inspect

    from rtorchpy import derivatives as _derivatives
    out = ["<!-- Generated from rtorchpy.derivatives.ROWS by scripts/build_docs.py. -->", "",
           "# Derivative table", "",
           "Every backward node of the engine is one row of the derivative table "
           "(`rtorchpy/derivatives/`, and one row of autograd itself). This page "
           "is generated from that table (`ROWS`) when the site is built, so it always shows the "
           "formulas the code runs. `g` is the gradient flowing into the node; each formula "
           "gives the gradient for one input. Broadcasting is undone by the engine, not here.",
           "", f"{len(_derivatives.ROWS)} rows.", "", "| Node (`grad_fn`) | Gradient formulas |",
           "|---|---|"]
    for name, formula in _derivatives.ROWS:
        doc = " ".join((inspect.getdoc(formula) or "").split()).replace("|", "\\|")
        parts = re.split(r";\s+(?=[\w, ]+:)", doc) if doc else []
        out.append(f"| `{name}` | {'<br>'.join(f'`{x}`' for x in parts)} |")
    return "\n".join(out) + "\n"


# the package's folders bottom up (the layers of docs/internals/index.md); every module of each
# is listed, so a new module cannot be left out of the page
LAYER_ORDER = ["numerics", "dtypes", "tensor", "autograd", "derivatives", "ops", "nn", "optim",
               "serialization", "_r"]


def _modules():
    """Every module of the package (packages first within their folder), in layer order."""
    import pkgutil

    import rtorchpy
    names = [m.name[len("rtorchpy."):]
             for m in pkgutil.walk_packages(rtorchpy.__path__, "rtorchpy.")]

    def key(name):
        top = name.split(".")[0]
        rank = LAYER_ORDER.index(top) if top in LAYER_ORDER else len(LAYER_ORDER)
        return (rank, name.count(".") > 0, name)
    return sorted(names, key=key)


def _rst_to_md(text):
    """Docstring text -> Markdown: ``code`` and :role:`name` become `code`; lists get the blank
    line Markdown needs before them."""
    text = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", text.replace("``", "`"))
    out = []
    for line in text.split("\n"):
        if re.match(r"\s*(\*|-|\d+\.) ", line) and out and out[-1].strip() and not re.match(
                r"\s*(\*|-|\d+\.) |\s{2,}\S", out[-1]):
            out.append("")
        out.append(line)
    return "\n".join(out)


def modules_page():
    """The module docstrings of the engine's parts, straight from the code."""
    import importlib
    import inspect
    out = ["<!-- Generated from the module docstrings by scripts/build_docs.py. -->", "",
           "# Module notes", "",
           "Each module of `rtorchpy/` starts with a note on what it does and why it is built "
           "that way. They are collected here from the code when the site is built.", ""]
    for name in _modules():
        module = importlib.import_module("rtorchpy." + name)
        path = "rtorchpy/" + name.replace(".", "/") + (
            "/__init__.py" if hasattr(module, "__path__") else ".py")
        out += [f"## `{path}`", "", _rst_to_md(inspect.getdoc(module) or "(no description)"), ""]
    return "\n".join(out)


def ops_page():
    """The op registry (``rtorchpy.OPS``): each op's forms and first docstring line."""
    import inspect

    import rtorchpy
    from rtorchpy.ops.registry import namespace_name
    seen, rows = set(), []
    for key, info in sorted(rtorchpy.OPS.items()):
        if key.startswith("_") or id(info) in seen:
            continue
        seen.add(id(info))
        forms = []
        if info.namespace:
            forms.append(f"`{namespace_name(info.name)}()`")
        if info.method:
            forms.append(f"`x.{info.name}()`")
        forms += [f"`x.{a}()`" for a in info.aliases]
        doc = (inspect.getdoc(info.fn) or "").split("\n\n")[0]
        doc = " ".join(doc.split()).replace("|", "\\|")
        dims = ", ".join(f"`{d}`" for d in info.dim_args + info.index_args)
        rows.append(f"| {' '.join(forms)} | {dims} | {doc} |")
    return "\n".join([
        "<!-- Generated from rtorchpy.OPS by scripts/build_docs.py. -->", "", "# Ops", "",
        "Every op is registered once and exists as a function `torch_<name>(x, ...)` and/or a "
        "method `x.<name>(...)`. The second column lists the arguments that hold dimensions or "
        "indices: 0-based in Python, 1-based in R (the R shim converts them).", "",
        f"{len(rows)} ops.", "", "| Forms | Dim / index arguments | Description |", "|---|---|---|",
        *rows]) + "\n"


R_REFERENCE = r"""
args <- commandArgs(trailingOnly = TRUE)
for (f in sort(list.files(args[[1]], pattern = "[.]Rd$", full.names = TRUE))) {
  out <- file.path(args[[2]], sub("[.]Rd$", ".html", basename(f)))
  suppressWarnings(tools::Rd2HTML(f, out = out, no_links = TRUE, package = "rtorchpy"))
}
"""


def _rd_html(html):
    """The body of one Rd2HTML page: (title, HTML with links removed and headings demoted)."""
    body = re.search(r'<div class="container">(.*)</div>\s*</body>', html, re.DOTALL)
    body = body.group(1) if body else html
    body = re.sub(r"<table[^>]*><tr><td>[^<]*</td><td[^>]*>R Documentation</td></tr></table>",
                  "", body)
    title = re.search(r"<h2[^>]*>(.*?)</h2>", body, re.DOTALL)
    body = re.sub(r"<h2[^>]*>.*?</h2>", "", body, count=1, flags=re.DOTALL)
    body = re.sub(r"<a\b[^>]*>(.*?)</a>", r"\1", body, flags=re.DOTALL)
    body = re.sub(r"<(/?)h3>", r"<\1h4>", body)
    return (re.sub(r"<[^>]+>", "", title.group(1)).strip() if title else ""), body.strip()


_CONCEPT = re.compile(r"^\\concept\{(.*?)\}", re.M)
R_OTHER = "other functions"


def r_family(rd_text):
    """The family of an Rd page (roxygen's `@family` writes it as `\\concept{}`)."""
    m = _CONCEPT.search(rd_text)
    return m.group(1) if m else R_OTHER


def r_family_slug(family):
    return re.sub(r"[^a-z0-9]+", "-", family.lower()).strip("-")


def r_help_files(man):
    """The R help pages the site shows: all but the family_* pages, which list a family for R's
    help (here each family has a page of its own)."""
    man = Path(man)
    return sorted(f for f in man.glob("*.Rd") if not f.stem.startswith("family_")) \
        if man.is_dir() else []


def r_reference_pages(man=ROOT / "r-shim" / "man"):
    """The R reference: ``reference/r.md`` (the families) and one page per family,
    ``reference/r/<family>.md``, each showing its functions' help pages. Returns
    {path relative to docs/: text}."""
    man = Path(man)
    head = ["<!-- Generated from r-shim/man/*.Rd by scripts/build_docs.py. -->", "",
            "# R reference", ""]
    files = r_help_files(man)
    if not files or not shutil.which("Rscript"):
        why = ("the R package has no `man/*.Rd` pages yet" if not files
               else "Rscript is not installed")
        return {"reference/r.md": "\n".join(head + [
            '!!! warning "Not available in this build"', "",
            f"    The R reference is rendered from the R package's roxygen documentation "
            f"(`r-shim/man/*.Rd`), but {why}. The R names are those of the "
            "[Python API](python.md), with `$` for methods and 1-based dims.", ""])}
    groups = {}
    for f in files:
        groups.setdefault(r_family(f.read_text(encoding="utf-8")), []).append(f)
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp, "rd.R")
        script.write_text(R_REFERENCE)
        p = subprocess.run(["Rscript", str(script), str(man), tmp], env=_clean_env(),
                           capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            raise VignetteError(f"rendering r-shim/man failed:\n{p.stderr}")
        index = head + ["The help pages of the R package `rtorchpy` (`?torch_abs` in R), "
                        "rendered from its roxygen documentation (`r-shim/man`), one page per "
                        "family. Dims and indices are 1-based, as in R torch.", "",
                        "| Family | Functions |", "|---|---|"]
        pages = {}
        for fam in sorted(groups, key=lambda g: (g == R_OTHER, g)):
            slug = r_family_slug(fam)
            index.append(f"| [{fam[:1].upper() + fam[1:]}](r/{slug}.md) | "
                         + ", ".join(f"[`{f.stem}`](r/{slug}.md#{_anchor(f.stem)})"
                                     for f in groups[fam]) + " |")
            out = ["<!-- Generated from r-shim/man/*.Rd by scripts/build_docs.py. -->", "",
                   f"# R reference: {fam}", ""]
            out += [f"- [`{f.stem}`](#{_anchor(f.stem)})" for f in groups[fam]] + [""]
            for f in groups[fam]:
                title, html = _rd_html(Path(tmp, f.stem + ".html").read_text(encoding="utf-8"))
                # the page itself lists the family: not again under each function
                html = re.sub(r"<p>Other [^:<]*:.*?</p>\s*", "", html, flags=re.DOTALL)
                html = re.sub(r"<h4>See Also</h4>\s*(?=<h4>|$)", "", html)
                out += [f"## `{f.stem}`" + (f": {title}" if title else "")
                        + f" {{#{_anchor(f.stem)}}}", "",
                        '<div class="rd" markdown="0">', html, "</div>", ""]
            pages[f"reference/r/{slug}.md"] = "\n".join(out)
        pages["reference/r.md"] = "\n".join(index + [""])
        return pages


def _anchor(name):
    return "rd-" + re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()


# ------------------------------------------------------------------------------ MathJax
# The site renders formulas with a MathJax served from the site itself, so it works offline
# (behind a firewall, from a USB stick). Debian's libjs-mathjax (MathJax 2) provides the files;
# only what TeX input and CommonHTML output load is copied (~1.5 MB of the package's 54 MB).
MATHJAX_SOURCE = Path(os.environ.get("RTORCHPY_MATHJAX", "/usr/share/javascript/mathjax"))
MATHJAX_PARTS = ("MathJax.js", "config/TeX-AMS_CHTML.js", "jax/input/TeX",
                 "jax/output/CommonHTML", "jax/element", "extensions",
                 "fonts/HTML-CSS/TeX/woff")


def copy_mathjax(docs, source=None):
    """Copy MathJax's parts into ``docs/assets/mathjax``; returns problems (a missing install)."""
    source = Path(source or MATHJAX_SOURCE)
    if not (source / "MathJax.js").is_file():
        return [f"MathJax is not installed at {source} (apt-get install libjs-mathjax, or set "
                "RTORCHPY_MATHJAX to a MathJax 2 directory): the site's formulas need it"]
    dest = Path(docs) / "assets" / "mathjax"
    if dest.exists():
        shutil.rmtree(dest)
    for part in MATHJAX_PARTS:
        src, out = source / part, dest / part
        out.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, out)
        else:
            shutil.copy(src, out)
    return []


# ------------------------------------------------------------------------------ main
def build(docs, only=(), with_r=None, write=True):
    """Run every vignette and write the generated pages into ``docs``. Returns problems."""
    docs = Path(docs)
    img = docs / "vignettes" / "img"
    if with_r is None:
        with_r, reason = r_status()
    else:
        reason = "" if with_r else "R was switched off for this build (--no-r)"
    if not with_r and os.environ.get("RTORCHPY_DOCS_REQUIRE_R") == "1":
        return [f"R is required (RTORCHPY_DOCS_REQUIRE_R=1) but {reason}"]
    if not with_r:
        print(f"build_docs: R half skipped: {reason}", file=sys.stderr)
    langs = LANGS if with_r else ("python",)
    note = "" if with_r else (f"This page was built without R ({reason}), so the R tabs show "
                              "code only. The Python output is real.")
    problems, vigs = [], []
    if write and img.exists() and not only:
        shutil.rmtree(img)
    for path in vignette_paths(only):
        try:
            vig = parse(path)
            vigs.append(vig)
            results = run_vignette(vig, img, langs)
        except VignetteError as e:
            problems.append(str(e))
            continue
        if write:
            _write(docs / "vignettes" / f"{vig.name}.md", render_page(vig, results, note))
            _write(RMD_DIR / f"{vig.name}.Rmd", render_rmd(vig))
        print(f"build_docs: {vig.name}: ran {' and '.join(TAB[x] for x in langs)}",
              file=sys.stderr)
    if write and not only:
        _write(docs / "vignettes" / "index.md", vignette_index(vigs))
        _write(docs / "internals" / "derivatives.md", derivatives_page())
        _write(docs / "internals" / "modules.md", modules_page())
        _write(docs / "reference" / "ops.md", ops_page())
        problems += copy_mathjax(docs)
        try:
            pages = r_reference_pages()
            for old in (docs / "reference" / "r").glob("*.md"):  # families no longer made
                if f"reference/r/{old.name}" not in pages:
                    old.unlink()
            for rel, text in pages.items():
                (docs / rel).parent.mkdir(parents=True, exist_ok=True)
                _write(docs / rel, text)
        except VignetteError as e:
            problems.append(str(e))
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", default=str(ROOT / "docs"), help="the docs directory to write into")
    ap.add_argument("--only", nargs="*", default=(), help="vignette names (default: all)")
    ap.add_argument("--no-r", action="store_true", help="run the Python half only")
    ap.add_argument("--check", action="store_true", help="run and check, write nothing")
    a = ap.parse_args(argv)
    problems = build(a.docs, a.only, False if a.no_r else None, write=not a.check)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
