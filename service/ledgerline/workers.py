"""The worker threads of one process, as `ledgerline worker` runs them and as `ledgerline serve`
runs them beside each API process (gunicorn_conf.post_worker_init): extraction workers, each
with an extractor of its own, and webhook deliveries, under one shutdown.

On a shutdown request (SIGTERM, SIGINT, or gunicorn's exit) no worker claims again; a job in
hand is finished if it ends within the grace, else its extraction is cancelled and the job
handed back (service_layer.worker.Shutdown).
"""
from __future__ import annotations

import signal
import threading
from collections.abc import Callable

from .bootstrap import Services, configured_extractor
from .ports.extractor import Extractor
from .service_layer.webhooks import DeliveryWorker
from .service_layer.worker import Shutdown, Worker

JOIN_POLL_SECONDS = 0.5  # a waiting main thread wakes this often, so that signals reach it


class Fleet:
    def __init__(self, threads: list[threading.Thread], shutdown: Shutdown):
        self.threads, self.shutdown = threads, shutdown

    def wait(self, timeout: float | None = None) -> None:
        """Until every thread ended (after a shutdown request), or `timeout` seconds each."""
        if timeout is not None:
            for thread in self.threads:
                thread.join(timeout)
        while timeout is None and any(t.is_alive() for t in self.threads):
            for thread in self.threads:
                thread.join(JOIN_POLL_SECONDS)
        self.shutdown.done()

    def stop(self, timeout: float | None = None) -> None:
        self.shutdown.request()
        self.wait(timeout)


def run_workers(services: Services, *, concurrency: int = 1, deliveries: int = 1,
                grace: float | None = None, embedded: bool = False,
                another_extractor: Callable[[], Extractor] | None = None) -> Fleet:
    """Start `concurrency` extraction workers and `deliveries` webhook delivery threads.

    The first worker uses the services' extractor, each other one another (so that a lost
    lease cancels only its own worker's extraction): by default the configured one.
    `grace`: seconds a shutdown lets the job in hand finish (default: the lease's length).

    A process of its own (`ledgerline worker`): SIGTERM and SIGINT request the shutdown, and
    the workers are woken when another process records work, where the database can tell
    them (PostgreSQL's NOTIFY). `embedded` beside an API process: its gunicorn worker requests
    the shutdown, its own uploads wake the worker (Services.work_available), and the threads
    are daemons, which never keep the process from exiting.
    """
    settings = services.settings
    another = another_extractor or (lambda: configured_extractor(settings, store=services.store))
    extractors = [services.extractor] + [another() for _ in range(concurrency - 1)]
    shutdown = Shutdown(extractors, settings.lease_seconds if grace is None else grace,
                        services.clock)
    if not embedded:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, shutdown.request)
        services.db.listen_for_work(services.work_available, shutdown.stop)
    threads = [_thread(Worker(services, extractor=extractor).run, shutdown,
                       "embedded-worker" if embedded else f"worker-{i}", embedded)
               for i, extractor in enumerate(extractors)]
    threads += [_thread(DeliveryWorker(services).run, shutdown,
                        "embedded-webhooks" if embedded else f"webhooks-{i}", embedded)
                for i in range(deliveries)]
    for thread in threads:
        thread.start()
    return Fleet(threads, shutdown)


def _thread(run: Callable[[threading.Event], None], shutdown: Shutdown, name: str,
            daemon: bool) -> threading.Thread:
    return threading.Thread(target=run, args=(shutdown.stop,), name=name, daemon=daemon)
