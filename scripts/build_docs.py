#!/usr/bin/env python
"""Build the generated parts of the documentation site, then `mkdocs build --strict` renders it.

Vignettes: each ``vignettes/<name>.md`` is written once, with R and Python side by side::

    ```{r label, same-output}          <- an R chunk ...
    x <- torch_ones(2, 2)
    ```
    ```{python label, same-output}     <- ... and the Python chunk right after it: a pair
    x = torch_ones(2, 2)
    ```

All R chunks of a vignette run in one Rscript session (through `evaluate`) and all Python
chunks in one Python process (statement by statement, like a REPL: each expression statement's
value is printed). The page ``docs/vignettes/<name>.md`` shows every pair as content tabs
"R" / "Python" with the code and its real output (``#>`` lines), and plots as PNGs in
``docs/vignettes/img/``. ``r-shim/vignettes/<name>.Rmd`` gets the R chunks only.

Chunk options (on either chunk of a pair they apply to both, except `error`):
  label          first bare word: names the chunk (and its images)
  same-output    the tensors printed by R and Python must be identical
  error          this chunk must fail; its error message is shown
  fig            the chunk draws exactly one plot (ggplot2 / matplotlib), embedded as a PNG
  fig-alt="..."  the plot's alt text
  hide           run, but do not show (setup code)
Any other failure fails the build. Language-only prose: a ``::: r`` or ``::: python`` block
closed by ``:::`` (a note on the site; only R notes go into the .Rmd); an ``::: r`` block
followed by a ``::: python`` one becomes tabs as well. ``::: site`` text is for the site only.

Also generated: the derivative table (``rtorchpy._derivatives.ROWS``), the op table
(``rtorchpy.OPS``) and the R reference (``r-shim/man/*.Rd``).

Usage: build_docs.py [--docs DIR] [--only NAME ...] [--no-r] [--check]
  --check   only run and check the vignettes (no files written)
Environment: RTORCHPY_DOCS_REQUIRE_R=1 makes a missing R shim an error instead of a note.
"""
from __future__ import annotations

import argparse
import difflib
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VIGNETTES = ROOT / "vignettes"
RMD_DIR = ROOT / "r-shim" / "vignettes"
FLAGS = {"same-output", "error", "fig", "hide"}
KEYS = {"fig-alt", "fig-width", "fig-height"}
LANGS = ("r", "python")
TAB = {"r": "R", "python": "Python"}
FENCE = {"r": "r", "python": "python"}


class VignetteError(Exception):
    """A vignette that does not build: a chunk failed, or R and Python disagree."""


# ------------------------------------------------------------------------------ parsing
@dataclass
class Chunk:
    lang: str
    code: str
    line: int
    label: str = ""
    opts: dict = field(default_factory=dict)

    def has(self, flag):
        return flag in self.opts


@dataclass
class Vignette:
    name: str
    path: Path
    title: str
    description: str
    items: list          # ("text", str) | ("prose", {lang: str}) | ("pair", {lang: Chunk})

    def chunks(self, lang):
        return [it[1][lang] for it in self.items if it[0] == "pair"]


_HEADER = re.compile(r"^```\{(r|python)\b\s*,?\s*(.*)\}\s*$")
_OPT = re.compile(r'\s*([A-Za-z][\w.-]*)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^,\s]+))?\s*(?:,|$)')


def _options(text, where):
    opts, label, pos = {}, "", 0
    while pos < len(text.strip()):
        m = _OPT.match(text, pos)
        if not m or m.end() == pos:
            raise VignetteError(f"{where}: cannot read chunk options {text!r}")
        key, value = m.group(1), m.group(2)
        pos = m.end()
        if value is None and key not in FLAGS and not label and not opts:
            label = key
        elif value is None and key in FLAGS:
            opts[key] = True
        elif value is not None and key in KEYS:
            opts[key] = json.loads(value) if value.startswith('"') else value
        else:
            raise VignetteError(f"{where}: unknown chunk option {key!r} (known: "
                                f"{', '.join(sorted(FLAGS | KEYS))})")
    return label, opts


def parse(path):
    """Read a vignette source into prose and R/Python chunk pairs."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    meta = {}
    m = re.match(r"---\n(.*?)\n---\n", text, re.S)
    if m:
        for line in m.group(1).splitlines():
            k, _, v = line.partition(":")
            meta[k.strip()] = v.strip().strip('"')
        text = text[m.end():]
    lines = text.splitlines()
    offset = 1 + (m.group(0).count("\n") if m else 0)
    pieces, buf, i = [], [], 0     # pieces: ("text", str) ("chunk", Chunk) ("div", lang, str)
    while i < len(lines):
        line, where = lines[i], f"{path.name}:{i + offset}"
        h = _HEADER.match(line)
        div = re.match(r"^:::\s*(r|python|site)\s*$", line)
        if h or div:
            pieces.append(("text", "\n".join(buf)))
            buf = []
            j = i + 1
            end = "```" if h else ":::"
            while j < len(lines) and lines[j].strip() != end:
                j += 1
            if j == len(lines):
                raise VignetteError(f"{where}: unclosed {'chunk' if h else 'block'}")
            body = "\n".join(lines[i + 1:j])
            if h:
                label, opts = _options(h.group(2), where)
                pieces.append(("chunk", Chunk(h.group(1), body, i + offset, label, opts)))
            else:
                pieces.append(("div", div.group(1), body))
            i = j + 1
            continue
        buf.append(line)
        i += 1
    pieces.append(("text", "\n".join(buf)))
    items, k, n = [], 0, 0
    while k < len(pieces):
        p = pieces[k]
        gap = pieces[k + 1] if k + 1 < len(pieces) else None
        nxt = pieces[k + 2] if (gap and gap[0] == "text" and not gap[1].strip()
                                and k + 2 < len(pieces)) else None
        if p[0] == "text":
            if p[1].strip():
                items.append(("text", p[1]))
            k += 1
        elif p[0] == "chunk":
            if not (p[1].lang == "r" and nxt and nxt[0] == "chunk" and nxt[1].lang == "python"):
                raise VignetteError(f"{path.name}:{p[1].line}: every chunk comes in a pair: an "
                                    "```{r} chunk immediately followed by a ```{python} chunk")
            r, py = p[1], nxt[1]
            n += 1
            label = r.label or py.label or f"chunk-{n}"
            shared = {k: v for k, v in {**r.opts, **py.opts}.items() if k != "error"}
            for c in (r, py):     # `error` belongs to its own chunk, the rest to the pair
                c.label, c.opts = label, {**shared, **({"error": True} if c.has("error") else {})}
            items.append(("pair", {"r": r, "python": py}))
            k += 3
        else:
            prose = {p[1]: p[2]}
            if p[1] == "r" and nxt and nxt[0] == "div" and nxt[1] == "python":
                prose["python"] = nxt[2]
                k += 2
            items.append(("prose", prose))
            k += 1
    labels = [it[1]["r"].label for it in items if it[0] == "pair"]
    dup = {x for x in labels if labels.count(x) > 1}
    if dup:
        raise VignetteError(f"{path.name}: duplicate chunk labels {sorted(dup)}")
    return Vignette(path.stem, path, meta.get("title", path.stem), meta.get("description", ""),
                    items)


# ------------------------------------------------------------------------------ running
@dataclass
class Result:
    """What one chunk did: segments ("code"|"out"|"err"|"fig", text), and whether it failed."""
    segments: list
    error: str = ""
    detail: str = ""
    figures: int = 0


def _clean_env():
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env["RETICULATE_PYTHON"] = str(ROOT / ".venv" / "bin" / "python")
    env["R_LIBS"] = str(ROOT / ".rlib")
    env["MPLBACKEND"] = "Agg"
    return env


def run_chunks(lang, chunks, name, source, img_dir):
    """Run ``chunks`` (all in language ``lang``) in order in one fresh R or Python session.

    Plots go to ``img_dir/<name>-<label>-<r|py>.png``. Returns one :class:`Result` per chunk;
    raises VignetteError only if the session itself dies."""
    Path(img_dir).mkdir(parents=True, exist_ok=True)
    short = "r" if lang == "r" else "py"
    req = {"cwd": str(ROOT), "file": str(source), "chunks": [
        {"code": c.code, "label": c.label, "line": c.line, "fig": c.has("fig"),
         "fig_path": str(Path(img_dir) / f"{name}-{c.label}-{short}.png"),
         "fig_width": float(c.opts.get("fig-width", 7)),
         "fig_height": float(c.opts.get("fig-height", 4.5))} for c in chunks]}
    with tempfile.TemporaryDirectory() as tmp:
        req_path, out = Path(tmp, "req.json"), Path(tmp, "out.json")
        req_path.write_text(json.dumps(req))
        if lang == "python":
            cmd = [sys.executable, __file__, "--python-worker", str(req_path), str(out)]
        else:
            Path(tmp, "worker.R").write_text(R_WORKER)
            cmd = ["Rscript", str(Path(tmp, "worker.R")), str(req_path), str(out)]
        p = subprocess.run(cmd, env=_clean_env(), cwd=ROOT, capture_output=True, text=True,
                           timeout=600)
        if p.returncode != 0 or not out.exists():
            raise VignetteError(f"{name}: the {TAB[lang]} session crashed\n{p.stdout}\n"
                                f"{p.stderr}")
        raw = json.loads(out.read_text())
    return [Result([(t, "".join(x) if isinstance(x, list) else x) for t, x in r["segments"]],
                   r.get("error") or "", r.get("detail") or "", int(r.get("figures") or 0))
            for r in raw]


def _python_worker(req_path, out_path):
    import ast
    import contextlib
    import io
    import traceback
    import warnings
    req = json.loads(Path(req_path).read_text())
    os.chdir(req["cwd"])
    ns = {"__name__": "__main__"}
    results = []
    for chunk in req["chunks"]:
        segs, error, detail = [], "", ""
        code = chunk["code"]
        lines = code.splitlines()
        try:
            body = ast.parse(code).body
        except SyntaxError as e:
            body, error, detail = [], f"SyntaxError: {e}", traceback.format_exc()
        start = 0
        for k, stmt in enumerate(body):
            end = len(lines) if k == len(body) - 1 else stmt.end_lineno
            segs.append(("code", "\n".join(lines[start:end])))
            start = end
            buf = io.StringIO()
            plt = sys.modules.get("matplotlib.pyplot")
            if plt is not None:
                plt.show = lambda *a, **k: None
            with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf), \
                    warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    ast.increment_lineno(stmt, chunk["line"])  # tracebacks point into the .md
                    if isinstance(stmt, ast.Expr):
                        value = eval(compile(ast.Expression(stmt.value), req["file"], "eval"),
                                     ns)
                        if value is not None:
                            print(repr(value))
                    else:
                        exec(compile(ast.Module([stmt], type_ignores=[]), req["file"], "exec"),
                             ns)
                except Exception as e:  # noqa: BLE001 - shown, or reported as a failure
                    error = f"{type(e).__name__}: {e}".rstrip(": ")
                    detail = "".join(traceback.format_exception(type(e), e,
                                                                e.__traceback__.tb_next))
            text = buf.getvalue()
            text += "".join(f"{w.category.__name__}: {w.message}\n" for w in caught)
            if text:
                segs.append(("out", text))
            if error:
                segs.append(("err", error))
                break
        figures = 0
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is not None:
            for k, num in enumerate(plt.get_fignums()):
                fig = plt.figure(num)
                if chunk["fig"]:
                    fig.set_size_inches(chunk["fig_width"], chunk["fig_height"])
                    path = chunk["fig_path"] if k == 0 else chunk["fig_path"][:-4] + f"-{k + 1}.png"
                    fig.savefig(path, dpi=96, bbox_inches="tight")
                    segs.append(("fig", Path(path).name))
                figures += 1
            plt.close("all")
        results.append({"segments": segs, "error": error, "detail": detail, "figures": figures})
    Path(out_path).write_text(json.dumps(results))


R_WORKER = r"""
# The worker's own variables live in this function, so that chunks (run in the global
# environment, like a script) cannot overwrite them.
run_worker <- function(args) {
  # no "The following object is masked" notes when a chunk attaches a package
  options(warn = 1, width = 80, encoding = "UTF-8", conflicts.policy = list(warn = FALSE))
  req <- jsonlite::read_json(args[[1]], simplifyVector = FALSE)
  setwd(req$cwd)
  results <- list()
  for (ch in req$chunks) {
    segs <- list(); err <- ""; figs <- 0L
    add <- function(type, text) segs[[length(segs) + 1L]] <<- list(type, text)
    if (isTRUE(ch$fig)) {
      grDevices::png(ch$fig_path, width = ch$fig_width, height = ch$fig_height, units = "in",
                     res = 96)
      grDevices::dev.control(displaylist = "enable")   # so that evaluate() sees the plot
    }
    ev <- evaluate::evaluate(ch$code, envir = globalenv(), new_device = !isTRUE(ch$fig),
                             stop_on_error = 1L)
    for (item in ev) {
      if (inherits(item, "source")) add("code", sub("\n$", "", item$src))
      else if (is.character(item)) add("out", item)
      else if (inherits(item, "recordedplot")) figs <- figs + 1L
      else if (inherits(item, "error")) {
        err <- paste0("Error: ", conditionMessage(item))
        add("err", err)
      }
      else if (inherits(item, "warning")) add("out", paste0("Warning: ", conditionMessage(item),
                                                             "\n"))
      else if (inherits(item, "message")) add("out", conditionMessage(item))
    }
    if (isTRUE(ch$fig)) {
      grDevices::dev.off()
      if (file.exists(ch$fig_path) && figs > 0L) add("fig", basename(ch$fig_path))
    }
    results[[length(results) + 1L]] <- list(segments = segs, error = err, figures = figs)
  }
  jsonlite::write_json(results, args[[2]], auto_unbox = TRUE, null = "null")
}
run_worker(commandArgs(trailingOnly = TRUE))
"""


@functools.lru_cache(maxsize=None)
def r_status():
    """(True, "") when Rscript and the installed shim work, else (False, reason)."""
    if not shutil.which("Rscript"):
        return False, "Rscript is not installed"
    if not (ROOT / ".rlib" / "rtorchpy" / "DESCRIPTION").exists():
        return False, "the R shim is not installed in .rlib (run `make r`)"
    p = subprocess.run(["Rscript", "-e", "suppressMessages(library(rtorchpy)); "
                        "invisible(print(torch_ones(2, 2)))"],
                       env=_clean_env(), cwd=ROOT, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        return False, "the R shim does not load: " + (p.stderr.strip().splitlines() or ["?"])[-1]
    return True, ""


# ------------------------------------------------------------------------------ checking
_TENSOR = re.compile(r"^torch_tensor\n.*?^\[ (?:CPU\w+Type\{[^}]*\}|Tensor \(undefined\)) \].*?$",
                     re.S | re.M)


# A custom autograd function's node is `torch::autograd::LanternNode` in R (as in R torch) and
# `<Name>Backward` in Python: a documented difference, so it does not count as a mismatch.
_CUSTOM_NODE = re.compile(
    r"\[ grad_fn = <(?:torch::autograd::LanternNode|[A-Za-z0-9]*Backward)> \]")


def printed_tensors(result):
    """The tensors a chunk printed, as text blocks (``torch_tensor`` ... footer line)."""
    text = "".join(t for kind, t in result.segments if kind == "out")
    return [_CUSTOM_NODE.sub("[ grad_fn = <custom function> ]", b) for b in _TENSOR.findall(text)]


def check(vig, results):
    """Problems with the results of running ``vig``: {lang: [Result]} -> [message]."""
    problems = []
    for lang, res in results.items():
        for chunk, r in zip(vig.chunks(lang), res):
            where = f"{vig.path.name}:{chunk.line} ({TAB[lang]} chunk {chunk.label!r})"
            if chunk.has("error") and not r.error:
                problems.append(f"{where}: marked `error` but ran without an error")
            elif r.error and not chunk.has("error"):
                problems.append(f"{where}: {r.error}\n{r.detail}".rstrip())
            if chunk.has("fig") and r.figures != 1:
                problems.append(f"{where}: marked `fig` but drew {r.figures} plots (expected 1)")
            if not chunk.has("fig") and r.figures:
                problems.append(f"{where}: drew a plot but is not marked `fig`")
    if set(results) == set(LANGS):
        for c, r_res, py_res in zip(vig.chunks("r"), results["r"], results["python"]):
            if not c.has("same-output"):
                continue
            a, b = printed_tensors(r_res), printed_tensors(py_res)
            if not a:
                problems.append(f"{vig.path.name}:{c.line} (chunk {c.label!r}): marked "
                                "`same-output` but printed no tensor")
            elif a != b:
                diff = "\n".join(difflib.unified_diff("\n\n".join(a).splitlines(),
                                                      "\n\n".join(b).splitlines(), "R", "Python",
                                                      lineterm=""))
                problems.append(f"{vig.path.name}:{c.line} (chunk {c.label!r}): R and Python "
                                f"print different tensors\n{diff}")
    return problems


_CACHE = {}


def run_vignette(vig, img_dir, langs=LANGS):
    """Run ``vig`` in ``langs`` and check it; raise VignetteError listing every problem.

    Memoised per source text (the tests and the site build share one run); a repeated call for
    another ``img_dir`` copies the plots there."""
    key = (str(vig.path), hashlib.sha1(vig.path.read_bytes()).hexdigest(), tuple(langs))
    if key not in _CACHE:
        results = {lang: run_chunks(lang, vig.chunks(lang), vig.name, vig.path, img_dir)
                   for lang in langs}
        _CACHE[key] = (results, check(vig, results), Path(img_dir))
    results, problems, made_in = _CACHE[key]
    if problems:
        raise VignetteError(f"vignette {vig.name} failed:\n- " + "\n- ".join(problems))
    if Path(img_dir) != made_in:
        Path(img_dir).mkdir(parents=True, exist_ok=True)
        for res in results.values():
            for kind, text in (s for r in res for s in r.segments):
                if kind == "fig":
                    shutil.copy(made_in / text, Path(img_dir) / text)
    return results


# ------------------------------------------------------------------------------ hand-written pages
_FENCED = re.compile(r"^( *)```(r|python)\n(.*?)^\1```$", re.S | re.M)


def page_snippets(path):
    """The R and Python code blocks of a hand-written page as chunks, with the ``#>`` lines each
    block shows as its output. Blocks mentioning ``path/to`` (install instructions) are left
    out."""
    text = Path(path).read_text(encoding="utf-8")
    out = {"r": [], "python": []}
    for m in _FENCED.finditer(text):
        indent, lang = len(m.group(1)), m.group(2)
        body = "\n".join(x[indent:] for x in m.group(3).rstrip("\n").split("\n"))
        if "path/to" in body:
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
    """The derivative table, generated from ``rtorchpy._derivatives.ROWS``."""
    import inspect

    from rtorchpy import _derivatives
    out = ["<!-- Generated from rtorchpy._derivatives.ROWS by scripts/build_docs.py. -->", "",
           "# Derivative table", "",
           "Every backward node of the engine is one row of `rtorchpy/_derivatives.py`. This page "
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


MODULES = ["_tensor", "_ops", "_derivatives", "autograd.graph", "autograd.engine",
           "autograd.grad_mode", "autograd.function", "autograd.gradcheck", "_format",
           "_rbridge"]


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
    for name in MODULES:
        try:
            module = importlib.import_module("rtorchpy." + name)
        except ImportError:
            continue
        path = "rtorchpy/" + name.replace(".", "/") + ".py"
        out += [f"## `{path}`", "", _rst_to_md(inspect.getdoc(module) or "(no description)"), ""]
    return "\n".join(out)


def ops_page():
    """The op registry (``rtorchpy.OPS``): each op's forms and first docstring line."""
    import inspect

    import rtorchpy
    seen, rows = set(), []
    for key, info in sorted(rtorchpy.OPS.items()):
        if key.startswith("_") or id(info) in seen:
            continue
        seen.add(id(info))
        forms = []
        if info.namespace:
            forms.append(f"`torch_{info.name}()`")
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


def r_reference_page(man=ROOT / "r-shim" / "man"):
    man = Path(man)
    head = ["<!-- Generated from r-shim/man/*.Rd by scripts/build_docs.py. -->", "",
            "# R reference", ""]
    files = sorted(man.glob("*.Rd")) if man.is_dir() else []
    if not files or not shutil.which("Rscript"):
        why = ("the R package has no `man/*.Rd` pages yet" if not files
               else "Rscript is not installed")
        return "\n".join(head + [
            '!!! warning "Not available in this build"', "",
            f"    The R reference is rendered from the R package's roxygen documentation "
            f"(`r-shim/man/*.Rd`), but {why}. The R names are those of the "
            "[Python API](python.md), with `$` for methods and 1-based dims.", ""])
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp, "rd.R")
        script.write_text(R_REFERENCE)
        p = subprocess.run(["Rscript", str(script), str(man), tmp], env=_clean_env(),
                           capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            raise VignetteError(f"rendering r-shim/man failed:\n{p.stderr}")
        out = head + ["Rendered from the roxygen documentation of the R package `rtorchpy` "
                      "(`r-shim/man`).", ""]
        out += [f"- [`{f.stem}`](#{_anchor(f.stem)})" for f in files] + [""]
        for f in files:
            title, html = _rd_html(Path(tmp, f.stem + ".html").read_text(encoding="utf-8"))
            out += [f"## `{f.stem}`" + (f": {title}" if title else "")
                    + f" {{#{_anchor(f.stem)}}}", "",
                    '<div class="rd" markdown="0">', html, "</div>", ""]
        return "\n".join(out)


def _anchor(name):
    return "rd-" + re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()


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
        try:
            _write(docs / "reference" / "r.md", r_reference_page())
        except VignetteError as e:
            problems.append(str(e))
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", default=str(ROOT / "docs"), help="the docs directory to write into")
    ap.add_argument("--only", nargs="*", default=(), help="vignette names (default: all)")
    ap.add_argument("--no-r", action="store_true", help="run the Python half only")
    ap.add_argument("--check", action="store_true", help="run and check, write nothing")
    ap.add_argument("--python-worker", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.python_worker:
        return _python_worker(*a.python_worker)
    problems = build(a.docs, a.only, False if a.no_r else None, write=not a.check)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
