# syntax=docker/dockerfile:1
#
# Ledgerline container image.
#
# One image runs every role; only the command differs:
#
#   API (default command, gunicorn):
#     docker run -p 8000:8000 --env-file ledgerline.env IMAGE
#   extraction worker (run as many as you like, on as many hosts as you like):
#     docker run --init --env-file ledgerline.env IMAGE ledgerline worker --concurrency 4
#   database migration (one-shot, before starting a new version):
#     docker run --rm --env-file ledgerline.env IMAGE ledgerline db upgrade
#
# Configuration is environment only (LEDGERLINE_DATABASE_URL, LEDGERLINE_STORAGE_URL,
# AWS_ENDPOINT_URL_S3, ...); see infra/README.md. Without any, the image falls back to SQLite and
# local files under /app/var, which is only useful for a quick look.
#
# The HEALTHCHECK below probes the API's /healthz on port 8000. For worker containers, disable it
# (`--no-healthcheck`, or `healthcheck: {disable: true}` in compose): a worker serves no HTTP.

ARG PYTHON_VERSION=3.11

########################################################################################
# builder: build the ledgerline wheel and install it with its dependencies into /opt/venv
########################################################################################
FROM python:${PYTHON_VERSION}-slim AS builder

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1

WORKDIR /src

# Build tools live only in this stage. Every dependency ships manylinux wheels today; the
# compilers are here so that a dependency without a wheel for this platform still builds.
# Tesseract's language data for OCR (the tesserocr wheel brings the engine itself) is fetched
# here too and copied into the runtime stage: every language Ledgerline reads, and OSD.
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential \
       tesseract-ocr-eng tesseract-ocr-osd tesseract-ocr-deu tesseract-ocr-fra tesseract-ocr-spa \
       tesseract-ocr-ita tesseract-ocr-nld tesseract-ocr-pol tesseract-ocr-ces tesseract-ocr-por \
       tesseract-ocr-swe tesseract-ocr-dan tesseract-ocr-nor tesseract-ocr-fin \
    && rm -rf /var/lib/apt/lists/*

# `build` goes into the builder's own interpreter; /opt/venv receives only the application.
RUN pip install build \
    && python -m venv /opt/venv

# README* and LICENSE* are optional globs: pyproject.toml may reference them.
COPY pyproject.toml README* LICENSE* ./
COPY service ./service

RUN python -m build --wheel --outdir /wheels . \
    && /opt/venv/bin/pip install /wheels/ledgerline-*.whl \
    && /opt/venv/bin/pip uninstall -y pip setuptools

########################################################################################
# runtime: slim Python, the venv from the builder, no compilers, non-root user
########################################################################################
FROM python:${PYTHON_VERSION}-slim AS runtime

LABEL org.opencontainers.image.title="ledgerline" \
      org.opencontainers.image.description="Invoice extraction microservice (API and workers)" \
      org.opencontainers.image.licenses="Apache-2.0"

# The gunicorn configuration module binds to LEDGERLINE_BIND (default 0.0.0.0:8000) and starts
# LEDGERLINE_API_WORKERS processes; the default command runs the API only (no embedded worker).
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1

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
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status == 200 else 1)"]

# Not an ENTRYPOINT, so that `docker run IMAGE ledgerline worker` (or `ledgerline db upgrade`)
# replaces it. gunicorn and `ledgerline worker` both handle SIGTERM themselves (graceful stop).
CMD ["gunicorn", "-c", "python:ledgerline.gunicorn_conf", "ledgerline.wsgi:app"]
