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
export PYTHONHASHSEED := 0
# Progress bars are for people; builds and tests run without them.
export TQDM_DISABLE := 1

.PHONY: help setup vendor book book-build student-book test lint unit notebooks browser chromium student results benchmarks clean release publish-site

help:
	@echo "make book   - set up .venv and build the course website into _build/html"
	@echo "make test   - set up .venv and run every test"
	@echo "make student-book - build the student edition (no solutions) into _build/student-html"
	@echo "make student, make results, make benchmarks, make clean: see README.md"

$(STAMP): pyproject.toml scripts/install_torch.sh
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	PYTHON=$(BIN)/python scripts/install_torch.sh
	$(BIN)/python -m pip install -q -e ".[book,test]"
	touch $(STAMP)

setup: $(STAMP) vendor

# The site's JavaScript (MathJax 3, RequireJS, Jupyter widgets; axe-core for the browser tests),
# pinned in package-lock.json, installed with `npm ci` and copied into _vendored/ (git-ignored).
vendor:
	$(PYTHON) scripts/vendor_assets.py

# Clean, strict build: no cached execution is reused, warnings are errors, notebooks run in smoke.
# "Run it yourself" cells write their smoke sweeps under _build/, so a clean build starts afresh.
book: $(STAMP)
	rm -rf _build
	$(MAKE) --no-print-directory book-build

book-build: vendor
	RNNLAB_PROFILE=smoke RNNLAB_RUNS_DIR=$(CURDIR)/_build/runs \
	  $(BIN)/jupyter-book build . --all -W -n --keep-going
	@echo "Built: _build/html/index.html"

# The student edition: student/ is generated (student copies of the notebooks, a _config.yml whose
# Colab buttons open student/chapters/*.ipynb), then built like the instructor book. The copies in
# student/chapters/ are committed (the Colab buttons open them on GitHub); tests/test_student.py
# fails when they differ from what `make student` makes of chapters/.
student-book: $(STAMP) vendor
	$(BIN)/python scripts/student_book.py
	rm -rf _build/student-book _build/student-html
	RNNLAB_PROFILE=smoke RNNLAB_ROOT=$(CURDIR) RNNLAB_RUNS_DIR=$(CURDIR)/_build/student-runs \
	  $(BIN)/jupyter-book build student --all -W -n --keep-going --path-output _build/student-book
	cp -a _build/student-book/_build/html _build/student-html
	@echo "Built: _build/student-html/index.html"

lint: $(STAMP)
	$(BIN)/ruff check lib tests benchmarks scripts
	$(BIN)/ruff format --check lib tests benchmarks scripts
	$(BIN)/nbstripout --keep-id --verify $$(git ls-files 'chapters/*.ipynb' 'chapters/**/*.ipynb')

# Two test processes with one torch thread each: with torch's default threads they oversubscribe
# 2 cores (measured 2026-12-04 on 2 cores: unit 538 s -> 486 s, notebooks 104 s serial -> 63 s
# with one process per notebook, --dist loadscope keeping each notebook's cells in order).
unit: $(STAMP)
	OMP_NUM_THREADS=1 RNNLAB_PROFILE=smoke $(BIN)/python -m pytest -n 2 -q tests --ignore=tests/browser

# The browser tests drive Debian's Chromium (/usr/bin/chromium). Installed here when missing: as
# root with apt-get; otherwise one line says what to install, and make stops.
CHROMIUM ?= /usr/bin/chromium
APT_GET ?= apt-get
USER_ID ?= $(shell id -u)
chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$(USER_ID)" = 0 ]; then \
	    echo "make: installing Debian's chromium (apt-get) for the browser tests"; \
	    $(APT_GET) update -qq && DEBIAN_FRONTEND=noninteractive $(APT_GET) install -y -qq chromium; \
	  else \
	    echo "make: the browser tests need Debian's Chromium at $(CHROMIUM): run 'sudo apt-get install chromium' (or make test as root)" >&2; \
	    exit 1; \
	  fi; \
	fi

# Real headless Chromium over the built site (run `make book` first); a missing browser fails here.
browser: $(STAMP) vendor chromium
	RNNLAB_REQUIRE_BROWSER=1 $(BIN)/python -m pytest -q -p no:cacheprovider tests/browser

notebooks: $(STAMP)
	OMP_NUM_THREADS=1 RNNLAB_PROFILE=smoke RNNLAB_RUNS_DIR=$(CURDIR)/_build/nbval-runs \
	  $(BIN)/python -m pytest -n 2 --dist loadscope -q --nbval-lax --nbval-current-env \
	  -p no:randomly chapters

# The two editions build side by side (separate output folders, kernels and run folders);
# --output-sync keeps each one's log together. One torch thread per kernel: two kernels with two
# threads each on 2 cores oversubscribe them (measured 2026-12-04 on 2 cores: 502 s for both
# editions with the default threads, 104 s with OMP_NUM_THREADS=1).
test: $(STAMP)
	$(MAKE) --no-print-directory chromium
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory unit
	$(MAKE) --no-print-directory notebooks
	rm -rf _build
	OMP_NUM_THREADS=1 $(MAKE) --no-print-directory -j2 --output-sync=target book-build student-book
	$(MAKE) --no-print-directory browser

student: $(STAMP)
	$(BIN)/python -m rnnlab.course.student chapters student/chapters

# A release: pin every Colab bootstrap to the tag v$(VERSION), commit, and create that tag
# (scripts/release.py). Then: git push origin main v$(VERSION)
release: $(STAMP)
	@test -n "$(VERSION)" || { echo "usage: make release VERSION=MAJOR.MINOR.PATCH" >&2; exit 2; }
	$(BIN)/python scripts/release.py $(VERSION)

results: $(STAMP)
	$(BIN)/python -m rnnlab reproduce --profile $${RNNLAB_PROFILE:-cpu}

benchmarks: $(STAMP)
	$(BIN)/python benchmarks/bench_train.py

clean:
	rm -rf _build .pytest_cache .hypothesis $(filter-out student/chapters,$(wildcard student/*))
