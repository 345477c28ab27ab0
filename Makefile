# Developer entry points.  `make lab` opens the notebooks, `make test` runs every test.
# Set-up is shared and idempotent: the virtualenv is made once, and the package is
# re-installed (editable) only when pyproject.toml changes.

# The project's Python is 3.12 or newer (brainstate and flax, which tests/ecosystem runs,
# need it): the first of these that runs and is new enough makes .venv (3.12 first, the
# version we test); PYTHON=... overrides.
PY_CANDIDATES := python3.12 $(wildcard $(HOME)/.pyenv/versions/3.12*/bin/python3.12) \
                 python3 python3.13 $(wildcard $(HOME)/.pyenv/versions/3.13*/bin/python3.13)
PYTHON      ?= $(or $(shell for p in $(PY_CANDIDATES); do \
                 $$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null \
                 && { echo $$p; break; }; done),python3)
VENV        := .venv
PY          := $(VENV)/bin/python
STAMP       := $(VENV)/.installed
LAB_STAMP   := $(VENV)/.installed-lab
JAX_VENV    := .jax-venv
JAX_PY      := $(JAX_VENV)/bin/python
PYTEST_ARGS ?= -ra -n 2 --dist loadfile
CONFORMANCE := ../shared/conformance/run.py

# The course's solution notebooks are executed and their outputs compared by nbval; the
# student notebooks in notebooks/ (made from them by `make course`) have the answers cut
# out, and tests/test_course.py runs those.
NOTEBOOKS   := $(shell find notebooks/solutions -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' 2>/dev/null)
NBVAL_ARGS  := $(if $(NOTEBOOKS),--nbval --nbval-current-env --nbval-sanitize-with notebooks/nbval-sanitize.cfg notebooks/solutions)

.PHONY: lab test setup bench conformance dot chromium front clean ecosystem record \
        record-ecosystem differential course

lab: $(LAB_STAMP) dot
	$(VENV)/bin/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) notebooks/

test: setup
	$(PY) -m pytest $(PYTEST_ARGS) tests $(NBVAL_ARGS)

setup: $(STAMP) dot chromium

# The course's student notebooks: notebooks/solutions/*.ipynb with each exercise's
# answer (between nbgrader's BEGIN/END SOLUTION markers) replaced by a placeholder.
course: $(STAMP)
	$(PY) tools/course.py

# The graph explorer's front end: extension/src -> glassjax/notebook/static (the tests
# check that the built files are current).
front: $(PY)
	$(PY) extension/build.py

bench: setup $(JAX_VENV)/.installed
	$(PY) benchmarks/run.py
	$(PY) benchmarks/explorer_bench.py
	$(PY) benchmarks/memory_bench.py
	$(PY) benchmarks/report.py
	$(PY) benchmarks/notebook_bench.py --kernel-memory

# Scores JAX compatibility on the shared differential suite; e.g. ARGS="--filter jaxpr_print".
conformance: setup
	@if [ -f $(CONFORMANCE) ]; then \
	  $(PY) $(CONFORMANCE) check --python $(abspath $(PY)) --impl glassjax $(ARGS); \
	else \
	  echo "No conformance suite at $(CONFORMANCE); nothing to do."; \
	fi

# The real JAX 0.10.2 with the same pinned libraries, in a venv of its own, never seen by
# the engine: what recorded expectations are made with (`make record`) and what the
# benchmarks compare with. flatbuffers lets jax.export serialize (the export tutorial).
$(JAX_VENV)/.installed: pyproject.toml
	@[ -x $(JAX_PY) ] || $(PYTHON) -m venv $(JAX_VENV)
	$(JAX_PY) -m pip install --quiet --progress-bar off jax==0.10.2 jaxlib==0.10.2 \
	  flatbuffers pytest pytest-xdist $$($(PYTHON) tools/ecosystem/extra.py)
	touch $@

# Records every expectation of tests/ anew under JAX 0.10.2: the corpora (tests/record.py
# writes each one's PROVENANCE.json) and the libraries' outcomes; CORPORA="tutorials ..."
# records only those corpora. Long (the docstrings and the differential corpus most).
CORPORA     ?=
record: $(JAX_VENV)/.installed $(STAMP) $(if $(CORPORA),,record-ecosystem)
	$(JAX_PY) tests/record.py --glassjax-python $(abspath $(PY)) $(CORPORA)

# Every shipped test file of optax, chex and brainstate under glassjax, compared test by
# test with the outcomes recorded under JAX (README has the scores).
ecosystem: setup
	$(PY) tools/ecosystem/suites.py check --full -n 2

# Records the libraries' test outcomes under JAX 0.10.2 (selection and full suites).
record-ecosystem: $(JAX_VENV)/.installed
	$(JAX_PY) tools/ecosystem/suites.py record -n 2
	$(JAX_PY) tools/ecosystem/suites.py record --full -n 2

# The whole recorded differential corpus (`make test` runs every 4th case of it).
differential: setup
	GLASSJAX_DIFFERENTIAL_EVERY=1 $(PY) -m pytest $(PYTEST_ARGS) tests/test_differential.py
	$(JAX_PY) tools/ecosystem/suites.py record --full -n 2

$(PY):
	$(PYTHON) -m venv $(VENV)

# One pip command for everything, so that jaxlib's pin holds against the libraries'
# wishes; then the real `jax` the libraries' metadata pulled in is removed again. A .venv
# made by a Python older than 3.12 is made anew first.
$(STAMP): pyproject.toml | $(PY)
	@if ! $(PY) -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then \
	  echo "$(VENV) was made by an older Python: making it anew with $(PYTHON)"; \
	  rm -rf $(VENV) && $(PYTHON) -m venv $(VENV); fi
	$(PY) -m pip install --quiet --progress-bar off -e '.[notebook,course,dev,browser,ecosystem]'
	$(PY) -m pip uninstall --quiet --yes jax
	touch $@

$(LAB_STAMP): $(STAMP)
	$(PY) -m pip install --quiet --progress-bar off -e '.[notebook,course,dev,lab]'
	$(PY) -m glassjax.kernel install --sys-prefix
	$(PY) -m glassjax.kernel install --sys-prefix --as-jax
	touch $@

# Graphviz's `dot` program renders jaxpr graphs; the `graphviz` Python package only calls it.
dot:
	@if command -v dot >/dev/null 2>&1; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "Graphviz's 'dot' is missing: installing the graphviz package with apt-get"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends graphviz >/dev/null; \
	else \
	  echo "WARNING: Graphviz's 'dot' program is missing, so jaxpr graphs cannot be rendered."; \
	  echo "         Install Graphviz (Debian/Ubuntu: 'sudo apt-get install graphviz'," ; \
	  echo "         macOS: 'brew install graphviz'), then run make again."; \
	fi

# The browser tests drive Debian's Chromium (handed to Playwright as its executable).
chromium:
	@if command -v chromium >/dev/null 2>&1; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "Chromium is missing: installing the chromium package with apt-get"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium >/dev/null; \
	else \
	  echo "WARNING: Chromium is missing, so the browser tests are skipped."; \
	  echo "         Install it (Debian/Ubuntu: 'sudo apt-get install chromium'), then run make again."; \
	fi

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .hypothesis
