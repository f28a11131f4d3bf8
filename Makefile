# Every target installs what it needs and is a no-op when it is already there.
# Stamps in .stamps/ record what was installed against which input file.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMPS := .stamps

.PHONY: demo test test-python bench docs clean venv

demo: $(STAMPS)/venv
	$(PY) examples/demo.py

test: $(STAMPS)/venv
	$(PY) -m pytest -q

bench: $(STAMPS)/venv-bench
	$(PY) benchmarks/run.py

venv: $(STAMPS)/venv

# The venv: the package in editable mode plus the test extra.
$(STAMPS)/venv: pyproject.toml
	@mkdir -p $(STAMPS)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	@touch $@

$(STAMPS)/venv-bench: $(STAMPS)/venv
	$(PY) -m pip install -q -e '.[test,bench]'
	@touch $@

clean:
	rm -rf $(STAMPS) build dist site *.egg-info
