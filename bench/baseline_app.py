"""The floor for a cache-hit upload: a WSGI app that only stores the file.

It streams the body to a temporary file while hashing it (BLAKE3, with the service's own
spooling code and size cap), computes the SHA-256 the object store verifies, and writes the
bytes to the same object store under the same content address, through
`ledgerline.adapters.storage`. No authentication, no database, no job. It runs under gunicorn
with the service's own gunicorn configuration, so the two differ only in the work they do:

    PYTHONPATH=bench python -m gunicorn -c python:ledgerline.gunicorn_conf baseline_app:app

This is a benchmark fixture, never one of the service's routes.
"""
from __future__ import annotations

from flask import Flask, jsonify, request

from ledgerline.adapters.storage import open_store
from ledgerline.config import Settings
from ledgerline.ports.storage import original_key
from ledgerline.service_layer.spool import spool

settings = Settings.from_env()
store = open_store(settings.storage_url)
app = Flask("ledgerline-baseline")


@app.post("/v1/accounts/<account>/store")
def store_file(account: str):
    spooled = spool(request.stream, settings.max_upload_bytes, settings.spool_dir)
    try:
        key = original_key(account, spooled.content_hash)
        store.put_file(key, spooled.source(), spooled.sha256())
    finally:
        spooled.discard()
    return jsonify({"content_hash": spooled.content_hash, "key": key}), 201
