"""Every `@examples` block of the R help pages runs without an error.

The examples are taken from the Rd sources (r-shim/man/*.Rd, checked fresh by
test_r_generated.py) with tools::Rd2ex and run in one Rscript against the package installed in
<repo>/.rlib (``make r``), their values printed as R CMD check prints them. Each page's example
runs in its own environment; an error is reported with the page's name.
"""
from __future__ import annotations

import re

from test_r_shim import ROOT, _r, _rscript

MAN = ROOT / "r-shim" / "man"

_RUN_EXAMPLES = r"""
suppressMessages(library(rtorchpy))
if (!rtorchpy_available()) stop("rtorchpy's Python cannot start: no example would run")
n <- 0
for (f in sort(list.files('r-shim/man', pattern = '[.]Rd$', full.names = TRUE))) {
  ex <- tempfile(fileext = '.R')
  tools::Rd2ex(f, ex, commentDontrun = TRUE, commentDonttest = FALSE)
  if (!file.exists(ex)) next
  n <- n + 1
  env <- new.env(parent = globalenv())
  msg <- tryCatch({
    invisible(capture.output(source(ex, local = env, print.eval = TRUE)))
    NULL
  }, error = function(e) conditionMessage(e))
  if (!is.null(msg)) cat('EXAMPLE-FAILED', basename(f), ':', gsub('\n', ' ', msg), '\n')
  unlink(ex)
}
cat('EXAMPLES-RUN', n, '\n')
"""


def test_every_r_help_page_example_runs():
    rscript = _rscript()
    res = _r(rscript, _RUN_EXAMPLES, timeout=300)
    out = res.stdout + "\n" + res.stderr
    assert res.returncode == 0, f"the examples could not be run:\n{out}"
    failed = [line for line in res.stdout.splitlines() if line.startswith("EXAMPLE-FAILED")]
    assert not failed, "examples that fail:\n" + "\n".join(failed)
    ran = int(re.search(r"EXAMPLES-RUN (\d+)", res.stdout).group(1))
    with_examples = [p for p in MAN.glob("*.Rd") if "\\examples{" in p.read_text()]
    assert ran == len(with_examples) and ran > 300, (ran, len(with_examples))


def test_every_generated_function_has_an_example_and_a_family():
    """generate.py gives each function a page with a family and an example (a family template
    or lines of its own in r-shim/tools/examples.py)."""
    import subprocess
    import sys
    res = subprocess.run([sys.executable, str(ROOT / "r-shim" / "tools" / "generate.py"),
                          "--check", "--missing"], cwd=ROOT, capture_output=True, text=True)
    assert not res.stdout.strip(), "functions without an example:\n" + res.stdout
    src = (ROOT / "r-shim" / "R" / "gen-ops.R").read_text()
    exported = set(re.findall(r"#' @export\n(\w+) <- function", src))
    # (the dtype functions share the page `torch_dtype`)
    exported -= set(re.findall(r"#' @rdname torch_dtype\n#' @export\n(\w+) <- function", src))
    pages = {p.stem for p in MAN.glob("*.Rd")}
    assert len(exported) > 300 and not exported - pages
    for name in exported:
        rd = (MAN / f"{name}.Rd").read_text()
        assert "\\concept{" in rd and "\\examples{" in rd, name


def test_every_exported_r_object_is_documented():
    rscript = _rscript()
    res = _r(rscript, "u <- tools::undoc(package = 'rtorchpy'); print(u); "
                      "quit(status = length(unlist(u)) > 0)")
    assert res.returncode == 0, "exported but not documented:\n" + res.stdout + res.stderr


def test_every_tensor_method_is_on_the_tensor_methods_page():
    page = (MAN / "tensor_methods.Rd").read_text()
    tensor_r = (ROOT / "r-shim" / "R" / "tensor.R").read_text()
    table = tensor_r[tensor_r.index(".TENSOR_METHODS <- list("):]
    hand_written = re.findall(r"^  (\w+) = function", table, re.M)
    ops = re.findall(r'^  `(\w+)` = "', (ROOT / "r-shim" / "R" / "gen-ops.R").read_text(), re.M)
    assert len(hand_written) > 20 and len(ops) > 300
    missing = [m for m in hand_written + ops if f"x${m}(" not in page]
    assert not missing, missing
