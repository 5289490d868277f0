# make serve  — run the service on the embedded default (SQLite + objects in the data directory)
# make test   — the whole suite, against real PostgreSQL and SeaweedFS started on loopback
# make runtime — .venv with the package (editable), what it needs at run time and the tooling's extra
# make venv   — the same, with the test dependencies
# make lock   — infra/requirements.lock, the image's pinned and hashed dependencies
# make train  — rebuild the field ranker's model file from ../shared/corpus and generated invoices
# make calibrate-ocr — refit the confidence and acceptance thresholds of OCR'd values (after `make train` or an OCR change)

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.ledgerline-installed
RUNTIME_STAMP := $(VENV)/.ledgerline-runtime
PIP_INSTALL := $(PY) -m pip install --quiet --disable-pip-version-check

# `make test PYTEST_ARGS=tests/unit`; `make test PYTEST_XDIST=` runs in one process.
# worksteal: the long tests run first (tests/conftest.py), and `--dist load` would hand them all,
# as one block, to the first process; with worksteal an idle process takes over the other's queue.
PYTEST_XDIST ?= -n auto --dist worksteal
PYTEST_ARGS ?=
SERVE_ARGS ?=
BENCH ?= bench/run.py
BENCH_ARGS ?=
TRAIN_ARGS ?=
CALIBRATE_ARGS ?=

.PHONY: runtime venv system-deps serve-deps test serve bench train calibrate-ocr lint lock clean

runtime: $(RUNTIME_STAMP)
venv: $(STAMP)

# Each reinstalls only when the dependencies change; the editable install picks up code
# changes. The runtime venv has the tools extra too (sample invoices, training: the README's
# commands), which the image leaves out; the test venv adds the test, fuzz and infra extras.
$(RUNTIME_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) -e '.[binary,tools]'
	touch $@

$(STAMP): $(RUNTIME_STAMP)
	$(PIP_INSTALL) -e '.[binary,tools,test,fuzz,infra]'
	touch $@

# What the service needs from the operating system (Tesseract's language data, OpenMP), and
# what the suite needs besides (PostgreSQL, Chromium, libfaketime, a compiler for psycopg's C
# implementation in the lock).
serve-deps:
	scripts/install-system-deps serve

system-deps:
	scripts/install-system-deps test

test: system-deps venv
	$(PY) -m pytest -q $(PYTEST_XDIST) $(PYTEST_ARGS)

serve: serve-deps runtime
	$(VENV)/bin/ledgerline db upgrade && exec $(VENV)/bin/ledgerline serve $(SERVE_ARGS)

bench: venv
	@test -f $(BENCH) || { echo "no benchmark at $(BENCH)" >&2; exit 1; }
	@$(PY) -c "import procrastinate" 2>/dev/null || \
	    $(PY) -m pip install --quiet --disable-pip-version-check -e '.[binary,tools,bench]'
	$(PY) $(BENCH) $(BENCH_ARGS)

# Deterministic: the same corpus and code give the same file (see ledgerline_tools/ranker/train.py).
train: venv
	PYTHONHASHSEED=0 $(PY) -m ledgerline_tools.ranker.train $(TRAIN_ARGS)

# Scans and photos of generated invoices read by OCR (see ledgerline_tools/calibrate_ocr.py); its
# calibration names the ranker model it was fitted with, so run it after `make train`.
calibrate-ocr: venv
	PYTHONHASHSEED=0 $(PY) -m ledgerline_tools.calibrate_ocr $(CALIBRATE_ARGS)

# The same gates as tests/test_gates.py (which `make test` runs): ruff, mypy, import layers.
lint: venv
	$(PY) -m pytest -q tests/test_gates.py

# The image installs exactly this (Dockerfile); regenerate it whenever pyproject.toml changes.
lock: venv
	$(PY) -m uv --version >/dev/null 2>&1 || $(PY) -m pip install --quiet uv
	$(PY) -m uv pip compile pyproject.toml --extra c --generate-hashes --python-version 3.11 \
	    --universal --no-header --quiet -o infra/requirements.lock

clean:
	rm -rf $(VENV) build dist .pytest_cache
