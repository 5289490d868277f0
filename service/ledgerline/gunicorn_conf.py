"""Gunicorn settings for the API, in one file: `gunicorn -c python:ledgerline.gunicorn_conf`.

Serving model: gevent (http/gevent_worker.py says why and what bounds each client). The
timeout is above the longest allowed wait (60 s). With LEDGERLINE_EMBEDDED_WORKER=1 every API
process also runs an extraction worker (the embedded default's one-command setup).

Each gunicorn instance gets a private runtime directory: its control socket (gunicornc), the
Prometheus multi-process files of its processes (unless PROMETHEUS_MULTIPROC_DIR names one)
and `instance.json`, the addresses it listens on, which the image's HEALTHCHECK probes. Two
instances on one host share none of it, and the directory is removed when the instance exits.
"""
import glob
import json
import math
import os
import shutil
import tempfile

from ledgerline.cli import settings_or_exit

# Every LEDGERLINE_ variable is validated here too, for plain gunicorn: one line per bad
# variable and exit status 2, as the CLI does.
SETTINGS = settings_or_exit()
RUNTIME_PREFIX = "ledgerline-gunicorn-"  # http/healthcheck.py looks for it
RUNTIME_DIR = tempfile.mkdtemp(prefix=RUNTIME_PREFIX)
INSTANCE_FILE = os.path.join(RUNTIME_DIR, "instance.json")
# Metrics from every process: prometheus-client's multi-process mode needs a shared directory
# chosen before the workers fork and import it.
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = os.path.join(RUNTIME_DIR, "metrics")
METRICS_DIR = os.environ["PROMETHEUS_MULTIPROC_DIR"]

bind = SETTINGS.bind
workers = SETTINGS.api_workers
worker_class = "ledgerline.http.gevent_worker.BoundedGeventWorker"
worker_connections = SETTINGS.api_connections
timeout = 90
graceful_timeout = 30
# The worker class bounds header reads by this (gunicorn applies it only with keep-alive on).
keepalive = max(1, math.ceil(SETTINGS.header_timeout_seconds))
max_requests = 5000
max_requests_jitter = 500
# Forwarded headers are believed only through LEDGERLINE_TRUSTED_PROXY_HOPS (http/app.py),
# never because of the peer's address.
forwarded_allow_ips = ""
control_socket = os.path.join(RUNTIME_DIR, "gunicorn.ctl")
# gunicorn's own access log stays off: the application writes one line per request, with
# its route, key id and request id (http/request_log.py; LEDGERLINE_ACCESS_LOG=0 turns it
# off). gunicorn's error log goes out as the service's lines (logs.py); should anyone turn
# the access log on, it never logs API keys (access_log.py).
accesslog = None
logger_class = "ledgerline.logs.GunicornLogger"
errorlog = "-"
loglevel = SETTINGS.log_level


def clear_metrics() -> None:
    """Empty the metrics directory (one named by PROMETHEUS_MULTIPROC_DIR stays, empty)."""
    os.makedirs(METRICS_DIR, exist_ok=True)
    for name in os.listdir(METRICS_DIR):
        if name.endswith(".db"):
            os.unlink(os.path.join(METRICS_DIR, name))


def remove_stale_instances() -> None:
    """Runtime directories of instances that were killed before they could remove their own."""
    from ledgerline.http.healthcheck import instances

    alive = {instance["dir"] for instance in instances()}
    pattern = os.path.join(tempfile.gettempdir(), RUNTIME_PREFIX + "*", "instance.json")
    for record in glob.glob(pattern):
        directory = os.path.dirname(record)
        if directory not in alive and directory != RUNTIME_DIR:
            shutil.rmtree(directory, ignore_errors=True)


def on_starting(server):
    remove_stale_instances()
    # Files of processes from an earlier run would be summed with this one's.
    clear_metrics()
    # The addresses as configured (LEDGERLINE_BIND, --bind, `ledgerline serve --host/--port`),
    # for the container HEALTHCHECK (http/healthcheck.py); written before binding, so a
    # container whose API has not come up yet reports that rather than "nothing to check".
    with open(INSTANCE_FILE + ".tmp", "w") as f:
        json.dump({"pid": os.getpid(), "listen": list(server.cfg.bind)}, f)
    os.replace(INSTANCE_FILE + ".tmp", INSTANCE_FILE)


def on_exit(server):
    clear_metrics()
    shutil.rmtree(RUNTIME_DIR, ignore_errors=True)


def post_worker_init(worker):
    if os.environ.get("LEDGERLINE_EMBEDDED_WORKER") != "1":
        return
    from multiprocessing import forkserver

    from ledgerline.workers import run_workers

    # The sandbox's fork server preloads pdfminer for a fraction of a second; start it now,
    # beside the event loop, so the first job does not wait for it on the loop.
    forkserver.ensure_running()
    services = worker.wsgi.extensions["ledgerline"]
    # On shutdown the embedded worker may finish its job for half of gunicorn's graceful
    # timeout; then its extraction is cancelled and the job handed back (lease released)
    # before gunicorn's own deadline kills the process. Webhook deliveries run beside it:
    # the embedded default needs no other process.
    worker._ledgerline_worker = run_workers(services, grace=worker.cfg.graceful_timeout / 2,
                                            embedded=True)


def worker_exit(server, worker):
    embedded = getattr(worker, "_ledgerline_worker", None)
    if embedded is not None:
        embedded.stop(timeout=graceful_timeout)


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
