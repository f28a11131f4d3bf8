#!/usr/bin/env bash
# Install R and the R packages rtorchpy needs from Debian's packages (CRAN is not reachable
# from CI). Does nothing when they are already there.
set -euo pipefail
# r-base-dev brings the compiler the shim's C files need; qpdf is what `R CMD check --as-cran`
# uses to check PDF sizes (tests/test_r_check.py).
PKGS=(r-base-core r-base-dev r-cran-reticulate r-cran-testthat r-cran-r6 r-cran-withr r-cran-rlang
      r-cran-knitr r-cran-rmarkdown r-cran-ggplot2 r-cran-roxygen2 pandoc libjs-mathjax qpdf)
have_all() {
  command -v Rscript >/dev/null 2>&1 && command -v pandoc >/dev/null 2>&1 &&
    command -v gcc >/dev/null 2>&1 && command -v make >/dev/null 2>&1 &&
    command -v qpdf >/dev/null 2>&1 &&
    [ -f /usr/share/javascript/mathjax/MathJax.js ] &&
    Rscript -e 'for (p in c("reticulate","testthat","R6","withr","rlang","knitr","rmarkdown","ggplot2","roxygen2")) if (!requireNamespace(p, quietly = TRUE)) quit(status = 1)' >/dev/null 2>&1
}
if have_all; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "R or R packages are missing; run as root (or: sudo apt-get install ${PKGS[*]})" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${PKGS[@]}" >/dev/null
have_all
