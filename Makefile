# Stacked RNNs: depth vs width -- the two commands a fresh clone needs:
#   make book   set up .venv, build the website into _build/html (smoke profile, strict)
#   make test   set up .venv, run every test (lint, unit, notebooks, strict book build, browser)
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export PIP_DISABLE_PIP_VERSION_CHECK := 1
export MPLBACKEND := Agg
export PYTHONHASHSEED := 0

.PHONY: help setup book book-build test lint unit notebooks browser student results benchmarks clean

help:
	@echo "make book   - set up .venv and build the course website into _build/html"
	@echo "make test   - set up .venv and run every test"
	@echo "make student, make results, make benchmarks, make clean: see README.md"

$(STAMP): pyproject.toml scripts/install_torch.sh
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	PYTHON=$(BIN)/python scripts/install_torch.sh
	$(BIN)/python -m pip install -q -e ".[book,test]"
	touch $(STAMP)

setup: $(STAMP)

# Clean, strict build: no cached execution is reused, warnings are errors, notebooks run in smoke.
book: $(STAMP)
	rm -rf _build
	$(MAKE) --no-print-directory book-build

book-build:
	RNNLAB_PROFILE=smoke $(BIN)/jupyter-book build . --all -W -n --keep-going
	@echo "Built: _build/html/index.html"

lint: $(STAMP)
	$(BIN)/ruff check lib tests benchmarks scripts
	$(BIN)/ruff format --check lib tests benchmarks scripts
	$(BIN)/nbstripout --keep-id --verify $$(git ls-files 'chapters/*.ipynb' 'chapters/**/*.ipynb')

unit: $(STAMP)
	RNNLAB_PROFILE=smoke $(BIN)/python -m pytest -n 2 -q tests

notebooks: $(STAMP)
	RNNLAB_PROFILE=smoke $(BIN)/python -m pytest -q --nbval-lax --nbval-current-env -p no:randomly chapters

test: $(STAMP)
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory unit
	$(MAKE) --no-print-directory notebooks
	rm -rf _build
	$(MAKE) --no-print-directory book-build

student: $(STAMP)
	$(BIN)/python -m rnnlab.student chapters student

results: $(STAMP)
	$(BIN)/python -m rnnlab reproduce --profile $${RNNLAB_PROFILE:-cpu}

benchmarks: $(STAMP)
	$(BIN)/python benchmarks/bench_train.py

clean:
	rm -rf _build student .pytest_cache .hypothesis
