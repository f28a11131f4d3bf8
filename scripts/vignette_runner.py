#!/usr/bin/env python
"""Run the vignettes: parse ``vignettes/<name>.md``, execute its R and Python chunks, check them.

A vignette is written once, with R and Python side by side::

    ```{r label, same-output}          <- an R chunk ...
    x <- torch_ones(2, 2)
    ```
    ```{python label, same-output}     <- ... and the Python chunk right after it: a pair
    x = torch_ones(2, 2)
    ```

All R chunks of a vignette run in one Rscript session (through `evaluate`, with the installed
R package from ``.rlib``) and all Python chunks in one Python process (statement by statement,
like a REPL: the value of each expression statement is printed, as R prints visible values).

Chunk options (on either chunk of a pair they apply to both, except `error`):
  label          first bare word: names the chunk (and its images)
  same-output    the tensors printed by R and Python must be identical
  error          this chunk must fail; its error message is shown
  fig            the chunk draws exactly one plot (ggplot2 / matplotlib), saved as a PNG
  fig-alt="..."  the plot's alt text; fig-width / fig-height in inches
  hide           run, but do not show (setup code)
Any other failure fails the vignette. Prose for one language only: a ``::: r`` or ``::: python``
block closed by ``:::``; ``::: site`` for text that belongs on the website only.

scripts/build_docs.py turns the results into the site's pages and the R package's .Rmd files.
"""
from __future__ import annotations

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
            cmd = [sys.executable, str(Path(__file__).resolve()), "--python-worker",
                   str(req_path), str(out)]
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


@functools.cache
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
    for (path, digest, done), (results, _, made_in) in list(_CACHE.items()):
        # a run in more languages covers this one (the site build's run, then a test asking
        # for the Python half alone): its sessions are not run again
        if key not in _CACHE and (path, digest) == key[:2] and set(langs) <= set(done):
            part = {lang: results[lang] for lang in langs}
            _CACHE[key] = (part, check(vig, part), made_in)
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


if __name__ == "__main__" and len(sys.argv) == 4 and sys.argv[1] == "--python-worker":
    _python_worker(sys.argv[2], sys.argv[3])
