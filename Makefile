# Every target installs what it needs and is a no-op when it is already there.
# Stamps in .stamps/ record what was installed against which input files.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMPS := .stamps
# R packages go into a project-local library so the system library stays untouched.
export R_LIBS := $(CURDIR)/.rlib
export RETICULATE_PYTHON := $(CURDIR)/$(VENV)/bin/python
# mkdocs-material prints an end-of-life banner for mkdocs 2 on every build
export NO_MKDOCS_2_WARNING := 1
# the shim's sources (not what R CMD INSTALL leaves in r-shim/src: make's built-in %.o: %.c rule
# would try to rebuild those itself, without R's headers)
R_SHIM_FILES := $(shell find r-shim -type f 2>/dev/null | grep -v -e '\.Rcheck' -e '\.tar\.gz$$' \
	-e '\.o$$' -e '\.so$$' -e '\.dll$$' -e '^r-shim/inst/python/')
# the Python package the R package carries (packed into r-shim/inst/python/rtorchpy.tar.xz by
# tools/bundle_python.py)
PY_SOURCES := $(shell find rtorchpy -name '*.py' 2>/dev/null)

.PHONY: demo test test-fast lint typecheck bench docs venv r r-bundle r-tarball clean

demo: $(STAMPS)/venv $(STAMPS)/r-shim
	$(PY) examples/demo.py
	env -u LD_LIBRARY_PATH Rscript examples/demo.R

test: $(STAMPS)/venv-docs $(STAMPS)/r-shim $(STAMPS)/venv-np1
	$(PY) -m pytest -q

# A representative subset for the edit-test loop: the engine, views, printing, modules,
# optimizers, data loading, distributions, the bridge's Python side and three testthat files
# (under a minute on an idle 2-core machine). `make test` runs everything.
FAST_TESTS := tests/test_engine.py tests/test_function.py tests/test_views.py \
	tests/test_format.py tests/test_tensor_face.py tests/test_nn_module.py tests/test_optim.py \
	tests/test_data.py tests/test_distributions.py tests/test_r_shim.py
FAST_R_FILES := not testthat_file or test-autograd.R or test-tensor.R or test-conditions.R
test-fast: $(STAMPS)/venv $(STAMPS)/r-shim
	$(PY) -m pytest -q -m "not slow" -k "$(FAST_R_FILES)" $(FAST_TESTS)

# ruff with the rules of pyproject.toml's [tool.ruff.lint] (ruff comes with the test extra)
lint: $(STAMPS)/venv
	$(PY) -m ruff check rtorchpy tests scripts benchmarks r-shim/tools

# mypy with pyproject.toml's [tool.mypy] (mypy comes with the test extra; tests/test_typing.py
# runs it in make test)
typecheck: $(STAMPS)/venv
	$(PY) -m mypy

bench: $(STAMPS)/venv-bench $(STAMPS)/r-shim
	$(PY) benchmarks/run.py

docs: $(STAMPS)/venv-docs $(STAMPS)/r-shim
	$(PY) scripts/build_docs.py
	$(VENV)/bin/mkdocs build --strict

venv: $(STAMPS)/venv
r: $(STAMPS)/r-shim

# Pack rtorchpy/ into r-shim/inst/python/rtorchpy.tar.xz (a build product, gitignored; R CMD
# INSTALL and R CMD build take it from there).
r-bundle:
	$(PYTHON) r-shim/tools/bundle_python.py

# The R package's source tarball (carries the Python package): build/rtorchpy_<version>.tar.gz
# (its vignettes are built with .venv's Python, hence the venv)
r-tarball: r-bundle $(STAMPS)/r-deps $(STAMPS)/venv
	@mkdir -p build
	cd build && env -u LD_LIBRARY_PATH R CMD build ../r-shim

# The venv: the package in editable mode plus the test extra.
$(STAMPS)/venv: pyproject.toml
	@mkdir -p $(STAMPS)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test]'
	@touch $@

$(STAMPS)/venv-docs: $(STAMPS)/venv
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test,docs]'
	@touch $@

# NumPy 1.x beside the main venv's NumPy 2: tests/test_numpy1.py runs the Python suite with it
# (the package must work with both; rtorchpy itself is found through PYTHONPATH there)
$(STAMPS)/venv-np1: pyproject.toml
	@mkdir -p $(STAMPS)
	test -x .venv-np1/bin/python || $(PYTHON) -m venv .venv-np1
	.venv-np1/bin/python -m pip install -q --disable-pip-version-check 'numpy>=1.26,<2' 'pytest>=7' 'hypothesis>=6' 'mpmath>=1.3'
	@touch $@

$(STAMPS)/venv-bench: $(STAMPS)/venv
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test,bench]'
	@touch $@

# R and the R packages from Debian (CRAN is not reachable), then the shim into .rlib.
$(STAMPS)/r-deps: scripts/install-r-deps.sh
	@mkdir -p $(STAMPS)
	bash scripts/install-r-deps.sh
	@touch $@

$(STAMPS)/r-shim: $(STAMPS)/r-deps $(R_SHIM_FILES) $(PY_SOURCES)
	@mkdir -p $(R_LIBS)
	$(PYTHON) r-shim/tools/bundle_python.py
	env -u LD_LIBRARY_PATH R CMD INSTALL --no-multiarch --library=$(R_LIBS) r-shim > $(STAMPS)/r-install.log 2>&1 \
		|| { cat $(STAMPS)/r-install.log; exit 1; }
	@touch $@

clean:
	rm -rf $(STAMPS) .rlib build dist site *.egg-info r-shim/inst/python .venv-np1
