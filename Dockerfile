# syntax=docker/dockerfile:1
#
# Ledgerline container image.
#
# One image runs every role; only the command differs:
#
#   API (default command, gunicorn):
#     docker run -p 8000:8000 --env-file ledgerline.env IMAGE
#   extraction worker (run as many as you like, on as many hosts as you like):
#     docker run --env-file ledgerline.env IMAGE ledgerline worker --concurrency 2
#   database migration (one-shot, before starting a new version):
#     docker run --rm --env-file ledgerline.env IMAGE ledgerline db upgrade
#
# Configuration is environment only (LEDGERLINE_DATABASE_URL, LEDGERLINE_STORAGE_URL,
# AWS_ENDPOINT_URL_S3, ...); see infra/README.md. Without any, the image falls back to SQLite and
# local files under /app/var (LEDGERLINE_DATA_DIR), which is only useful for a quick look.
#
# tini is PID 1 (the ENTRYPOINT): it forwards signals and reaps the sandbox's children, so no
# `--init` is needed. The HEALTHCHECK probes /healthz where this container's gunicorn listens
# (LEDGERLINE_BIND, --bind or `ledgerline serve --host/--port`) and passes in containers that
# run no API (workers, migrations): see service/ledgerline/http/healthcheck.py.
#
# Dependencies come from infra/requirements.lock, pinned with hashes (`make lock` regenerates
# it from pyproject.toml), so two builds of one commit install the same packages.

ARG PYTHON_VERSION=3.11

########################################################################################
# builder: compile psycopg's C implementation against the system libpq, build the wheel,
#          fetch Tesseract's language data
########################################################################################
FROM python:${PYTHON_VERSION}-slim AS builder

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1

WORKDIR /src

# Build tools and libpq's headers live only in this stage (psycopg[c] compiles against them).
# Tesseract's language data for OCR (the tesserocr wheel brings the engine itself) is fetched
# here too and copied into the runtime stage: every language Ledgerline reads, and OSD
# (Japanese and Chinese read only on pages written in their script).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential libpq-dev \
       tesseract-ocr-eng tesseract-ocr-osd tesseract-ocr-deu tesseract-ocr-fra tesseract-ocr-spa \
       tesseract-ocr-ita tesseract-ocr-nld tesseract-ocr-pol tesseract-ocr-ces tesseract-ocr-por \
       tesseract-ocr-swe tesseract-ocr-dan tesseract-ocr-nor tesseract-ocr-fin \
       tesseract-ocr-jpn tesseract-ocr-chi-sim \
    && rm -rf /var/lib/apt/lists/*

# `build` goes into the builder's own interpreter; /opt/venv receives only the application.
RUN pip install build==1.6.1 \
    && python -m venv /opt/venv

# The locked dependencies first: this layer is reused until the lock changes.
COPY infra/requirements.lock /tmp/requirements.lock
RUN /opt/venv/bin/pip install --require-hashes --no-deps -r /tmp/requirements.lock

# README* and LICENSE* are optional globs: pyproject.toml may reference them. The package's
# schemas/ is a link to the repository's schemas/, which the wheel then carries.
COPY pyproject.toml README* LICENSE* ./
COPY schemas ./schemas
COPY service ./service

# The wheel carries the tooling (ledgerline_tools) too; its `tools` extra is not in the lock, so
# here `ledgerline sample-invoice` answers with what to install instead of a sample.
RUN python -m build --wheel --outdir /wheels . \
    && /opt/venv/bin/pip install --no-deps /wheels/ledgerline-*.whl \
    && /opt/venv/bin/pip check \
    && /opt/venv/bin/pip uninstall -y pip setuptools

########################################################################################
# runtime: slim Python, the venv and Tesseract's data from the builder, libpq and tini,
#          non-root user
########################################################################################
FROM python:${PYTHON_VERSION}-slim AS runtime

LABEL org.opencontainers.image.title="ledgerline" \
      org.opencontainers.image.description="Invoice extraction microservice (API and workers)" \
      org.opencontainers.image.licenses="Apache-2.0"

# The gunicorn configuration module binds to LEDGERLINE_BIND (default 0.0.0.0:8000) and starts
# LEDGERLINE_API_WORKERS processes; the default command runs the API only (no embedded worker).
ENV PATH=/opt/venv/bin:$PATH \
    LEDGERLINE_DATA_DIR=/app/var \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1

# Runtime libraries only: libpq for psycopg's C implementation, tini as PID 1, libgomp for
# LightGBM (the field ranker), whose wheel links it but does not ship it.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libpq5 tini libgomp1 \
    && rm -rf /var/lib/apt/lists/*

RUN groupadd --system --gid 10001 ledgerline \
    && useradd --system --uid 10001 --gid ledgerline --home-dir /app --shell /usr/sbin/nologin ledgerline \
    && mkdir -p /app/var \
    && chown -R ledgerline:ledgerline /app

COPY --from=builder /opt/venv /opt/venv
COPY --from=builder /usr/share/tesseract-ocr /usr/share/tesseract-ocr

WORKDIR /app
USER 10001:10001

EXPOSE 8000

HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-m", "ledgerline.http.healthcheck"]

# tini runs whatever command is given: `docker run IMAGE ledgerline worker` replaces only the CMD.
# gunicorn and `ledgerline worker` both handle SIGTERM themselves (graceful stop).
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["gunicorn", "-c", "python:ledgerline.gunicorn_conf", "ledgerline.wsgi:app"]
