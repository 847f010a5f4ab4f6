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

# "Another machine" for the notebook tests: OpenBLAS's SSE3 kernels instead of the AVX2/AVX-512 ones, and
# numpy without its AVX2 (x86-64-v3) loops. Stored outputs are made with the defaults; nbval re-runs them
# like this, so an output that depends on round-off is caught before a reader's machine differs.
ifeq ($(shell uname -m),x86_64)
OTHER_MACHINE ?= OPENBLAS_CORETYPE=Prescott NPY_DISABLE_CPU_FEATURES=X86_V3
endif

.PHONY: help install vendor book lab test test-extended test-nbgrader test-fast lint nbval browser exercises bench clean

help:
	@echo "make book   - build the HTML book (every notebook executed), print the path of index.html"
	@echo "make test   - lint, unit tests + doctests, notebook tests (nbval), exercises, built-book browser check"
	@echo "make lab    - open the chapters in JupyterLab (live widgets)"
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
	# every notebook executed (in parallel), then jupyter-book build book --warningiserror --nitpick --keep-going
	$(BIN)/python tools/build_book.py
	@echo
	@echo "Book built: $(CURDIR)/book/_build/html/index.html"

# The live notebooks: JupyterLab (pinned in requirements.txt) on the course's environment, opening chapter 1.
# Every chapter and exercise notebook is in the file browser on the left.
LAB_ARGS ?=
LAB_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)   # JupyterLab refuses root without it
lab: install
	$(BIN)/jupyter lab --ServerApp.root_dir=$(CURDIR) $(LAB_ROOT) $(LAB_ARGS) book/chapters/ch01_kinematics.ipynb

lint: install
	$(BIN)/ruff check .

exercises: install
	$(BIN)/python -m mbdlib.exercises generate solutions exercises

test: install vendor
	$(BIN)/ruff check .
	$(BIN)/python -m mbdlib.exercises generate solutions exercises --check
	bash tools/ensure_chromium.sh
	bash tools/ensure_bubblewrap.sh
	$(BIN)/python -m pytest -n 2 tests mbdlib
	# nbval: every chapter and solution notebook re-executed, outputs compared (one notebook per worker),
	# with other floating-point kernels than the ones that stored the outputs ($(OTHER_MACHINE)): a printed
	# number that depends on the last bits of the arithmetic fails here, as it would on another machine
	$(OTHER_MACHINE) $(BIN)/python -m pytest -p no:cacheprovider -n 2 --dist loadscope --nbval \
		--nbval-sanitize-with tests/nbval_sanitize.cfg book/chapters book/appendix solutions
	$(BIN)/python -m pytest -p no:cacheprovider --nbval-lax book/intro book/how_to_use.ipynb

# the optional robot models (~400 MB: example-robot-data) and the tests that load them; the bicycle
# against sympy's KanesMethod.linearize (symbolic Jacobians: 5-10 min); A02 in relative coordinates over 20 s (3 min)
test-extended: install
	$(BIN)/python -m pip install -q -e ".[robots]"
	MBDLIB_EXTENDED=1 $(BIN)/python -m pytest -n 2 tests/extended/test_robot_data.py \
		tests/extended/test_bicycle_sympy.py tests/extended/test_a02_long.py

# nbgrader's own generate_assignment / autograde / export on the notebooks `release --nbgrader` writes.
# nbgrader is heavy, so it gets its own environment, .venv-nbgrader (the course's requirements + nbgrader).
NBG := .venv-nbgrader
test-nbgrader:
	test -x $(NBG)/bin/python || $(PYTHON) -m venv $(NBG)
	$(NBG)/bin/python -m pip install -q -r requirements.txt "nbgrader==0.9.6"
	$(NBG)/bin/python -m pip install -q --no-deps -e .
	MBDLIB_EXTENDED=1 $(NBG)/bin/python -m pytest -p no:cacheprovider tests/extended/test_nbgrader.py

test-fast: install
	$(BIN)/python -m pytest -n 2 -m "not book and not slow" tests mbdlib

bench: install
	bash tools/ensure_bubblewrap.sh
	$(BIN)/python -m pip install -q -e ".[bench]"
	$(BIN)/python bench/run_all.py

clean:
	rm -rf book/_build artifacts .pytest_cache .hypothesis
