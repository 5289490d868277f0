"""Scale of history: a claim and a cache hit on an empty database and on one with two million
past jobs and invoices (bench/history_load.py), on the same PostgreSQL, in the same run.

Both databases start from the migrated template; the full one is loaded, then both get the
same hit targets, through the service: in TARGETS accounts (of the history, in the full
database) a customer key and one file uploaded, claimed and published with a result naming
a seller that account's history knows. Then, call by call, the empty and the full database
take turns (which goes first alternates), so that load on the machine falls on both alike:

- idle claim: the job store's claim as a worker makes it (`claim_and_start` in a write
  transaction of one statement) with no work waiting;
- claim: the same claim taking a job (an upload of a new file just before, not timed; the
  result published after it, not timed, so that the queue is empty again);
- cache hit: an upload of a target's file under its account's key through the service's WSGI
  app in process (Flask's test client: no sockets): authentication, the upload's
  authorisation, spooling and hashing of the body (2 KiB), the hit recorded and answered in
  one statement, the JSON answer.

Both databases are vacuumed every VACUUM_EVERY calls (not timed). Medians and 95th
percentiles of each, and the ratio of the medians (full over empty; goal <= 1.2x).
"""
from __future__ import annotations

import statistics
import time
from pathlib import Path

from sqlalchemy import create_engine, select
from sqlalchemy.pool import NullPool

from bench.history_load import SELLERS, load
from ledgerline.adapters.db.accounts import create_account, create_key
from ledgerline.adapters.db.engine import transaction
from ledgerline.adapters.db.tables import accounts
from ledgerline.bootstrap import bootstrap, utcnow
from ledgerline.config import Settings
from ledgerline.domain.identity import Role
from ledgerline.domain.ids import new_id
from ledgerline.http.app import create_app
from ledgerline.ports.jobs import CallOpening, ClaimedJob

HISTORY, QUICK_HISTORY = 2_000_000, 200_000
TARGETS = 50
LEASE = 30.0
BODY_BYTES = 2048


def body(tag: str) -> bytes:
    """A distinct small body that passes the PDF content check."""
    head = f"%PDF-1.4\n% {tag}\n".encode()
    return head + b"0" * (BODY_BYTES - len(head))


def document(content_hash: str, seller: str | None, number: str) -> dict:
    """What the stand-in extraction publishes."""
    def field(value):
        return {"value": value, "confidence": 0.95, "raw": value, "page": 1, "bbox": None}
    return {"schema_version": "invoice-v2", "source": "text_layer",
            "versions": {"schema": "invoice-v2", "preprocessing": "bench", "model": "bench"},
            "document": {"content_hash": content_hash, "pages": 1},
            "fields": {"invoice_number": field(number), "issue_date": field("2026-11-30"),
                       "seller_name": field(seller), "gross_total": field("4321.00"),
                       "currency": field("EUR")},
            "line_items": [], "validations": [], "review": {"required": False, "reasons": []}}


class Side:
    """One database, with the service over it."""

    def __init__(self, name: str, url: str, work: Path):
        from bench.stub_worker import StandInModel

        self.name = name
        settings = Settings(database_url=url, storage_url=f"file://{work}/history-{name}",
                            rate_limit_per_minute=0, access_log=False)
        self.services = bootstrap(settings, extractor=StandInModel(0))
        self.versions = self.services.extractor.versions.label
        self.client = create_app(self.services).test_client()
        self.keys: dict[str, str] = {}  # account -> a customer key's secret
        self.uploads = 0

    def claim(self) -> tuple[ClaimedJob | None, CallOpening]:
        """Worker._claim: one statement, which also opens the attempt's ledger row."""
        opening = CallOpening(call_id=new_id("call"), operation="extract_invoice", cost=0.004)
        with self.services.db.transaction(write=True, single_statement=True) as tx:
            job = tx.claims.claim_and_start("bench-history", LEASE, self.versions, opening)
        assert job is None or isinstance(job, ClaimedJob), job
        return job, opening

    def publish(self, job: ClaimedJob, opening: CallOpening, seller: str | None) -> None:
        """As the worker publishes: the result, the cache entry and the call's end."""
        with self.services.db.transaction(write=True, single_statement=True) as tx:
            assert tx.claims.publish_and_finish(
                job, opening.of(job), document(job.content_hash, seller, f"B-{job.claim.job_id}"),
                result_id=new_id("res"), record_in_cache=True)

    def upload(self, account: str, data: bytes):
        self.uploads += 1
        return self.client.post(f"/v1/accounts/{account}/invoices", data=data,
                                headers={"Authorization": f"Bearer {self.keys[account]}",
                                         "Content-Type": "application/pdf"})

    def new_work(self, account: str) -> None:
        answer = self.upload(account, body(f"{self.name} work {self.uploads}"))
        assert answer.headers.get("Ledgerline-Cache") == "miss", answer.get_data(as_text=True)

    def hit(self, account: str) -> None:
        answer = self.upload(account, body(f"target {account}"))
        assert answer.headers.get("Ledgerline-Cache") == "hit", answer.get_data(as_text=True)

    def close(self) -> None:
        self.services.engine.dispose()


def target_accounts() -> list[str]:
    return [f"hist-{i}" for i in range(TARGETS)]


def add_targets(side: Side) -> None:
    """In each target account (created where the history has not): a customer key, and one
    file uploaded, claimed and published with a seller of that account's history."""
    with transaction(side.services.engine, write=True) as conn:
        for account in target_accounts():
            if conn.execute(select(accounts.c.name)
                            .where(accounts.c.name == account)).first() is None:
                create_account(conn, account, utcnow())
            side.keys[account] = create_key(conn, Role.CUSTOMER, account, "bench", utcnow())[1]
    for i, account in enumerate(target_accounts()):
        answer = side.upload(account, body(f"target {account}"))
        assert answer.headers.get("Ledgerline-Cache") == "miss", answer.get_data(as_text=True)
        job, opening = side.claim()
        assert job is not None
        side.publish(job, opening, f"Seller {i % SELLERS} GmbH")


def ms(seconds: list[float]) -> dict:
    ordered = sorted(seconds)
    return {"median_ms": statistics.median(ordered) * 1000,
            "p95_ms": ordered[int(0.95 * (len(ordered) - 1))] * 1000, "calls": len(ordered)}


VACUUM_EVERY = 100  # calls


def measure(sides: list[Side], calls: int, vacuum) -> dict:
    """Each call made on both databases in turn, the first of the pair alternating. Every
    VACUUM_EVERY calls, `vacuum(side)` (not timed) clears what the finished calls left: on
    the small tables of the empty database, dead queue entries would otherwise pile up
    between autovacuum's visits and make its claims the dearer ones."""
    times = {side.name: {"idle_claim": [], "claim": [], "hit": []} for side in sides}
    accounts = target_accounts()
    for i in range(-20, calls):  # -20..-1: warm the pools, the key caches and the plans
        if i % VACUUM_EVERY == 0:
            for side in sides:
                vacuum(side)
        account = accounts[i % len(accounts)]
        for side in (sides if i % 2 == 0 else sides[::-1]):
            mine = times[side.name]
            started = time.perf_counter()
            idle, _ = side.claim()
            took_idle = time.perf_counter() - started
            assert idle is None, f"{side.name}: an idle claim found work"
            side.new_work(account)
            started = time.perf_counter()
            job, opening = side.claim()
            took_claim = time.perf_counter() - started
            assert job is not None, f"{side.name}: the claim found no work"
            side.publish(job, opening, None)
            started = time.perf_counter()
            side.hit(account)
            took_hit = time.perf_counter() - started
            if i >= 0:
                mine["idle_claim"].append(took_idle)
                mine["claim"].append(took_claim)
                mine["hit"].append(took_hit)
    return {name: {kind: ms(values) for kind, values in kinds.items()}
            for name, kinds in times.items()}


def bench_history(pg, s3, work: Path, quick: bool) -> dict:
    from bench import production as p
    from bench.stub_worker import StandInModel

    rows, calls = (QUICK_HISTORY, 200) if quick else (HISTORY, 1000)
    urls = {name: pg.create_database(f"history_{name}", template=p.TEMPLATE)
            for name in ("empty", "full")}
    engine = create_engine(urls["full"], poolclass=NullPool)
    started = time.perf_counter()
    with engine.connect() as conn:
        load_steps = load(conn, rows, StandInModel(0).versions.label)
    engine.dispose()
    load_seconds = time.perf_counter() - started
    sides = [Side(name, url, work) for name, url in urls.items()]
    try:
        for side in sides:
            add_targets(side)
        for name in urls:
            pg.execute("VACUUM ANALYZE", database=f"history_{name}")
        sizes = {name: pg.execute(f"SELECT pg_database_size('history_{name}')")[0][0]
                 for name in urls}
        counted = {name: dict(pg.execute(
            "SELECT 'jobs', count(*) FROM jobs UNION ALL SELECT 'invoices', count(*) "
            "FROM invoices", database=f"history_{name}")) for name in urls}
        got = measure(sides, calls, lambda side: pg.execute(
            "VACUUM ANALYZE jobs, invoices, model_calls, results, cache_entries",
            database=f"history_{side.name}"))
    finally:
        for side in sides:
            side.close()
    out: dict = {"history_rows": rows, "load_seconds": load_seconds,
                 "load_steps_seconds": load_steps, "calls": calls,
                 "targets": TARGETS, "database_mib": {n: s / 2**20 for n, s in sizes.items()},
                 "rows_before_timing": counted, **got}
    for kind in ("idle_claim", "claim", "hit"):
        out[f"{kind}_ratio"] = got["full"][kind]["median_ms"] / got["empty"][kind]["median_ms"]
    return out


LABELS = {"idle_claim": "idle claim (no work waiting)",
          "claim": "claim that takes a job (+ its ledger row)",
          "hit": "cache-hit upload in process (auth, hash, hit statement, answer)"}


def rows(h: dict) -> list[tuple]:
    full = h["rows_before_timing"]["full"]
    out = [(f"history: {full['jobs']:,} jobs / {full['invoices']:,} invoices "
            f"({h['database_mib']['full']:.0f} MiB) vs empty, loaded in {h['load_seconds']:.0f} s",
            "full", "empty", "")]
    for kind, label in LABELS.items():
        f, e = h["full"][kind], h["empty"][kind]
        goal = " (goal <= 1.2x)" if kind != "idle_claim" else ""
        out.append((f"history: {label}, median / p95 of {f['calls']}",
                    f"{f['median_ms']:.2f} / {f['p95_ms']:.2f} ms",
                    f"{e['median_ms']:.2f} / {e['p95_ms']:.2f} ms",
                    f"{h[f'{kind}_ratio']:.2f}x{goal}"))
    return out
