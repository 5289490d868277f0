# make serve  — run the service on the embedded default (SQLite + ./var/objects)
# make test   — the whole suite, against real PostgreSQL and SeaweedFS started on loopback
# make venv   — .venv with the package (editable) and its test dependencies
# make lock   — infra/requirements.lock, the image's pinned and hashed dependencies
# make train  — rebuild the field ranker's model file from ../shared/corpus and generated invoices

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.ledgerline-installed

# `make test PYTEST_ARGS=tests/unit`; `make test PYTEST_XDIST=` runs in one process.
PYTEST_XDIST ?= -n auto
PYTEST_ARGS ?=
SERVE_ARGS ?=
BENCH ?= bench/run.py
BENCH_ARGS ?=
TRAIN_ARGS ?=

.PHONY: venv system-deps test serve bench train lint lock clean

venv: $(STAMP)

# Reinstalls only when the dependencies change; the editable install picks up code changes.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[binary,test,fuzz,infra]'
	touch $@

system-deps:
	scripts/install-system-deps

test: system-deps venv
	$(PY) -m pytest -q $(PYTEST_XDIST) $(PYTEST_ARGS)

serve: venv
	$(VENV)/bin/ledgerline db upgrade && exec $(VENV)/bin/ledgerline serve $(SERVE_ARGS)

bench: venv
	@test -f $(BENCH) || { echo "no benchmark at $(BENCH)" >&2; exit 1; }
	@$(PY) -c "import procrastinate" 2>/dev/null || \
	    $(PY) -m pip install --quiet --disable-pip-version-check -e '.[binary,bench]'
	$(PY) $(BENCH) $(BENCH_ARGS)

# Deterministic: the same corpus and code give the same file (see extraction/ranker/train.py).
train: venv
	PYTHONHASHSEED=0 $(PY) -m ledgerline.extraction.ranker.train $(TRAIN_ARGS)

lint: venv
	$(PY) -m ruff --version >/dev/null 2>&1 || $(PY) -m pip install --quiet ruff
	$(PY) -m ruff check service tests

# The image installs exactly this (Dockerfile); regenerate it whenever pyproject.toml changes.
lock: venv
	$(PY) -m uv --version >/dev/null 2>&1 || $(PY) -m pip install --quiet uv
	$(PY) -m uv pip compile pyproject.toml --extra c --generate-hashes --python-version 3.11 \
	    --universal --no-header --quiet -o infra/requirements.lock

clean:
	rm -rf $(VENV) build dist .pytest_cache
