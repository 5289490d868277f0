"""Gunicorn settings for the API, in one file: `gunicorn -c python:ledgerline.gunicorn_conf`.

Threads let a process hold `Prefer: wait` requests without blocking others; the timeout
is above the longest allowed wait (60 s). With LEDGERLINE_EMBEDDED_WORKER=1 every API
process also runs an extraction worker thread (the embedded default's one-command setup).
"""
import os
import tempfile
import threading

# Metrics from every process: prometheus-client's multi-process mode needs a shared directory
# chosen before the workers fork and import it.
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="ledgerline-metrics-"))

bind = os.environ.get("LEDGERLINE_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("LEDGERLINE_API_WORKERS", "2"))
worker_class = "gthread"
threads = int(os.environ.get("LEDGERLINE_API_THREADS", "8"))
timeout = 90
graceful_timeout = 30
keepalive = 5
max_requests = 5000
max_requests_jitter = 500
accesslog = "-" if os.environ.get("LEDGERLINE_ACCESS_LOG") == "1" else None
logger_class = "ledgerline.access_log.RedactingLogger"  # never logs API keys
errorlog = "-"
loglevel = os.environ.get("LEDGERLINE_LOG_LEVEL", "info")

def post_worker_init(worker):
    if os.environ.get("LEDGERLINE_EMBEDDED_WORKER") != "1":
        return
    from ledgerline.service_layer.worker import Shutdown, Worker

    services = worker.wsgi.extensions["ledgerline"]
    # On shutdown the embedded worker may finish its job for half of gunicorn's graceful
    # timeout; then its extraction is cancelled and the job handed back (lease released)
    # before gunicorn's own deadline kills the process.
    shutdown = Shutdown(services.extractor, grace=worker.cfg.graceful_timeout / 2)
    thread = threading.Thread(target=Worker(services).run, args=(shutdown.stop,),
                              name="embedded-worker", daemon=True)
    thread.start()
    worker._ledgerline_worker = (thread, shutdown)


def worker_exit(server, worker):
    embedded = getattr(worker, "_ledgerline_worker", None)
    if embedded is not None:
        thread, shutdown = embedded
        shutdown.request()
        thread.join(timeout=graceful_timeout)
        shutdown.done()


def child_exit(server, worker):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
