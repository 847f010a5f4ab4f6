# The course's two commands:  make book   and   make test
# Both create .venv if it is missing and install requirements.txt into it.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
VENDOR := book/_assets/vendor/.stamp

# One BLAS thread per process: the tests run two workers on two cores, and numpy's small solves are
# many times slower when OpenBLAS threads compete for the cores (measured in chapter 6's simulations).
export OPENBLAS_NUM_THREADS ?= 1
export OMP_NUM_THREADS ?= 1

.PHONY: help install vendor book test test-extended test-fast lint nbval browser exercises bench clean

help:
	@echo "make book   - build the HTML book (every notebook executed), print the path of index.html"
	@echo "make test   - lint, unit tests + doctests, notebook tests (nbval), exercises, built-book browser check"
	@echo "make exercises - regenerate exercises/ from solutions/"
	@echo "make bench  - run the benchmarks in bench/"

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.txt
	$(BIN)/python -m pip install -q --no-deps -e .
	touch $(STAMP)

install: $(STAMP)

# MathJax, require.js and the ipywidgets HTML manager, from the npm registry, so pages work offline.
$(VENDOR): tools/vendor_js.sh
	bash tools/vendor_js.sh book/_assets/vendor

vendor: $(VENDOR)

book: install vendor
	rm -rf book/_build
	$(BIN)/jupyter-book build book --warningiserror --nitpick --keep-going
	@echo
	@echo "Book built: $(CURDIR)/book/_build/html/index.html"

lint: install
	$(BIN)/ruff check .

exercises: install
	$(BIN)/python -m mbdlib.exercises generate solutions exercises

test: install vendor
	$(BIN)/ruff check .
	$(BIN)/python -m mbdlib.exercises generate solutions exercises --check
	bash tools/ensure_chromium.sh
	$(BIN)/python -m pytest -n 2 tests mbdlib
	# nbval: every chapter and solution notebook re-executed, outputs compared (one notebook per worker)
	$(BIN)/python -m pytest -p no:cacheprovider -n 2 --dist loadscope --nbval \
		--nbval-sanitize-with tests/nbval_sanitize.cfg book/chapters solutions
	$(BIN)/python -m pytest -p no:cacheprovider --nbval-lax book/intro

# the optional robot models (~400 MB: example-robot-data) and the tests that load them
test-extended: install
	$(BIN)/python -m pip install -q -e ".[robots]"
	MBDLIB_EXTENDED=1 $(BIN)/python -m pytest tests/extended

test-fast: install
	$(BIN)/python -m pytest -n 2 -m "not book and not slow" tests mbdlib

bench: install
	$(BIN)/python -m pip install -q -e ".[bench]"
	$(BIN)/python bench/run_all.py

clean:
	rm -rf book/_build artifacts .pytest_cache .hypothesis
