"""The `ledgerline` command line."""
from __future__ import annotations

import json
import os
import re
import signal
import sys
import threading
from datetime import timedelta

import click

from .config import ConfigError, Settings
from .domain.identity import ACCOUNT_ROLES, Role, valid_account_name


@click.group()
@click.version_option(package_name="ledgerline", prog_name="ledgerline")
def main() -> None:
    """Ledgerline: invoice extraction with an exact per-account cache and idempotent jobs."""


def settings_or_exit() -> Settings:
    """The validated settings, or one line per bad variable and exit status 2."""
    try:
        return Settings.from_env()
    except ConfigError as exc:
        for line in str(exc).splitlines():
            click.echo(f"ledgerline: {line}", err=True)
        sys.exit(2)


def engine_or_exit(settings: Settings, *, migrated: bool = True, long_running: bool = False):
    """An engine on a database with this release's schema, else a clear line and exit 2.

    `long_running` (serve, worker): a database that cannot be reached yet is not fatal; the
    service reports it (503, readiness) and carries on once it is back."""
    from sqlalchemy.exc import OperationalError

    from .adapters.db.engine import make_engine
    from .adapters.db.migrate import schema_state

    engine = make_engine(settings.database_url, timeout=settings.db_timeout_seconds)
    if not migrated:
        return engine
    try:
        state = schema_state(engine)
    except OperationalError as exc:
        if long_running:
            click.echo(f"ledgerline: cannot reach the database at {_shown_url(settings)} yet "
                       f"({type(exc.orig).__name__}); starting anyway", err=True)
            return engine
        _exit(f"cannot reach the database at {_shown_url(settings)}: {exc.orig or exc}")
    if state.missing:
        _exit(f"the database at {_shown_url(settings)} has no Ledgerline schema; "
              "run `ledgerline db upgrade`")
    if not state.usable:
        _exit(f"the database at {_shown_url(settings)} is at revision {state.current}, older "
              f"than this release's {state.head}; run `ledgerline db upgrade`")
    return engine


def _shown_url(settings: Settings) -> str:
    from sqlalchemy.engine import make_url

    return make_url(settings.database_url).render_as_string(hide_password=True)


def _exit(message: str):
    click.echo(f"ledgerline: {message}", err=True)
    sys.exit(2)


@main.group()
def db() -> None:
    """Database schema."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Create or migrate the database (Alembic)."""
    from .adapters.db.migrate import current_revision, head_revision, upgrade

    settings = settings_or_exit()
    engine = engine_or_exit(settings, migrated=False)
    try:
        before = current_revision(engine)
    finally:
        engine.dispose()
    upgrade(settings.database_url)
    head, where = head_revision(), _shown_url(settings)
    if before is None:
        click.echo(f"created the Ledgerline schema in {where} (revision {head})", err=True)
    elif before != head:
        click.echo(f"migrated {where} from revision {before} to {head}", err=True)
    else:
        click.echo(f"{where} is already at the latest revision ({head})", err=True)


@main.group()
def accounts() -> None:
    """Customer accounts."""


@accounts.command("create")
@click.argument("account")
def accounts_create(account: str) -> None:
    """Create a customer account."""
    from .adapters.db.accounts import AccountExists, create_account
    from .adapters.db.engine import transaction
    from .bootstrap import utcnow

    if not valid_account_name(account):
        raise click.BadParameter("use 2-63 characters: a-z, 0-9 and '-', starting with a letter "
                                 "or digit", param_hint="ACCOUNT")
    engine = engine_or_exit(settings_or_exit())
    try:
        with transaction(engine, write=True) as conn:
            create_account(conn, account, utcnow())
    except AccountExists:
        raise click.ClickException(f"account {account!r} already exists") from None
    click.echo(f"created account {account}", err=True)


@accounts.command("delete")
@click.argument("account")
@click.option("--yes", is_flag=True, help="do not ask for confirmation")
def accounts_delete(account: str, yes: bool) -> None:
    """Delete everything of ACCOUNT: invoices, originals (every version), results, keys,
    webhooks. Its keys stop working at once; an interrupted run is finished by running it
    again. The call ledger keeps its costs under a pseudonym."""
    from .bootstrap import bootstrap
    from .service_layer.deletion import delete_account

    if not yes:
        click.confirm(f"Delete account {account} and everything in it?", abort=True, err=True)
    settings = settings_or_exit()
    services = bootstrap(settings, engine=engine_or_exit(settings))
    try:
        done = delete_account(services, account)
    finally:
        services.engine.dispose()
    if done is None:
        raise click.ClickException(f"no account {account!r}")
    click.echo(json.dumps({"deleted": account, **done.as_dict()}))


@accounts.command("set-retention")
@click.argument("account")
@click.option("--days", type=click.IntRange(1, 36_500), help="keep invoices this many days")
@click.option("--forever", is_flag=True, help="keep invoices until they are deleted")
def accounts_set_retention(account: str, days: int | None, forever: bool) -> None:
    """Keep ACCOUNT's invoices N days: `ledgerline purge` deletes older ones, with what
    only they used."""
    from .bootstrap import bootstrap
    from .service_layer.deletion import set_retention

    if (days is None) == (not forever):
        raise click.UsageError("give --days N or --forever")
    settings = settings_or_exit()
    services = bootstrap(settings, engine=engine_or_exit(settings))
    try:
        if not set_retention(services, account, days):
            raise click.ClickException(f"no account {account!r}")
    finally:
        services.engine.dispose()
    click.echo(f"account {account}: invoices kept "
               + (f"{days} days (applied by `ledgerline purge`)" if days else "until deleted"),
               err=True)


@main.group()
def keys() -> None:
    """API keys."""


def _seconds(text: str | None, option: str) -> float | None:
    return None if text is None else parse_horizon(text, option,
                                                   allow_zero=False).total_seconds()


@keys.command("create")
@click.option("--role", type=click.Choice([r.value for r in Role]), required=True)
@click.option("--account", help="the account the key belongs to (not for operators)")
@click.option("--name", help="a label shown to readers of the account, e.g. the supplier's name")
@click.option("--expires-in", "expires_in", help="the key stops working after 90d, 12h, 30m")
def keys_create(role: str, account: str | None, name: str | None,
                expires_in: str | None) -> None:
    """Print a new API key once (last line of stdout); only its hash is stored."""
    from .adapters.db.accounts import UnknownAccount, create_key
    from .adapters.db.engine import transaction
    from .bootstrap import utcnow

    role_ = Role(role)
    if role_ in ACCOUNT_ROLES and not account:
        raise click.UsageError(f"--account is required for the {role} role")
    if role_ is Role.OPERATOR and account:
        raise click.UsageError("operator keys are not bound to an account")
    lifetime = _seconds(expires_in, "--expires-in")
    engine = engine_or_exit(settings_or_exit())
    try:
        with transaction(engine, write=True) as conn:
            key_id, secret = create_key(conn, role_, account, name, utcnow(),
                                        expires_in=lifetime)
    except UnknownAccount:
        raise click.ClickException(f"no account {account!r}; create it first") from None
    click.echo(f"created {role} key {key_id}; it is shown only once:", err=True)
    click.echo(secret)


@keys.command("list")
@click.option("--account", help="only this account's keys")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
def keys_list(account: str | None, fmt: str) -> None:
    """Every key (never a secret): id, role, account, name, state, expiry."""
    from .adapters.db.engine import transaction
    from .adapters.db.keys import list_keys

    engine = engine_or_exit(settings_or_exit())
    with transaction(engine, write=False) as conn:
        found = list_keys(conn, account)
    if fmt == "json":
        click.echo(json.dumps(found))
        return
    columns = ["id", "role", "account", "name", "state", "created_at", "expires_at",
               "replaced_by"]
    table = [[str(k[c] or "") for c in columns] for k in found]
    widths = [max([len(c)] + [len(row[i]) for row in table]) for i, c in enumerate(columns)]
    for row in [columns, ["-" * w for w in widths], *table]:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())


@keys.command("revoke")
@click.argument("key_id")
def keys_revoke(key_id: str) -> None:
    """KEY_ID stops working now, in every API process within a second."""
    from .adapters.db.engine import transaction
    from .adapters.db.keys import revoke

    engine = engine_or_exit(settings_or_exit())
    with transaction(engine, write=True) as conn:
        if not revoke(conn, key_id):
            raise click.ClickException(f"no key {key_id!r}")
    click.echo(f"revoked {key_id}", err=True)


@keys.command("rotate")
@click.argument("key_id")
@click.option("--grace", default="24h", show_default=True,
              help="how long the old key keeps working: 24h, 30m, 7d (0m: not at all)")
@click.option("--expires-in", "expires_in", help="the new key stops working after 90d, 12h")
def keys_rotate(key_id: str, grace: str, expires_in: str | None) -> None:
    """Print a new key for KEY_ID's role, account and name (last line of stdout); the old
    one works for the grace period more."""
    from .adapters.db.engine import transaction
    from .adapters.db.keys import rotate
    from .bootstrap import utcnow

    grace_seconds = parse_horizon(grace, "--grace").total_seconds()
    engine = engine_or_exit(settings_or_exit())
    with transaction(engine, write=True) as conn:
        made = rotate(conn, key_id, grace_seconds, utcnow(),
                      expires_in=_seconds(expires_in, "--expires-in"))
    if made is None:
        raise click.ClickException(f"no key {key_id!r} that still works")
    new_id, secret = made
    click.echo(f"created key {new_id} to replace {key_id} (which works for {grace} more); "
               "it is shown only once:", err=True)
    click.echo(secret)


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 64))
@click.option("--no-embedded-worker", is_flag=True, help="leave extraction to `ledgerline worker`")
def serve(host: str, port: int, workers: int, no_embedded_worker: bool) -> None:
    """Run the HTTP API under gunicorn (with an in-process extraction worker by default)."""
    from .adapters.db.engine import sqlite_path
    from .adapters.db.migrate import upgrade

    settings = settings_or_exit()
    if sqlite_path(settings.database_url):
        upgrade(settings.database_url)  # the embedded default sets itself up
    engine_or_exit(settings, long_running=True).dispose()
    env = dict(os.environ)
    env["LEDGERLINE_EMBEDDED_WORKER"] = "0" if no_embedded_worker else "1"
    # Normalised for gunicorn's configuration, which reads them raw: the access log is on
    # unless LEDGERLINE_ACCESS_LOG turns it off.
    env["LEDGERLINE_ACCESS_LOG"] = "0" if settings.access_log is False else "1"
    env["LEDGERLINE_LOG_LEVEL"] = settings.log_level
    env["LEDGERLINE_DATABASE_URL"] = settings.database_url
    argv = [sys.executable, "-m", "gunicorn", "-c", "python:ledgerline.gunicorn_conf",
            "--bind", f"{host}:{port}", "--workers", str(workers), "ledgerline.wsgi:app"]
    os.execve(sys.executable, argv, env)


@main.command()
@click.option("--concurrency", default=1, show_default=True, type=click.IntRange(1, 64))
@click.option("--grace", type=click.FloatRange(0), default=None,
              help="on SIGTERM, seconds to finish the job in hand before handing it back "
                   "[default: the lease length]")
@click.option("--deliveries", default=1, show_default=True, type=click.IntRange(0, 64),
              help="webhook delivery threads beside the extraction threads (0: none)")
def worker(concurrency: int, grace: float | None, deliveries: int) -> None:
    """Run a standalone extraction worker (and webhook deliveries) until SIGTERM or SIGINT."""
    import logging

    from .adapters.db.notify import Listener
    from .bootstrap import bootstrap, configured_extractor
    from .service_layer.webhooks import DeliveryWorker
    from .service_layer.worker import Shutdown, Worker

    settings = settings_or_exit()
    logging.basicConfig(level=settings.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    services = bootstrap(settings, engine=engine_or_exit(settings, long_running=True))
    # One extractor per worker thread: a lost lease cancels only that thread's extraction.
    extractors = [services.extractor] + [configured_extractor(settings, store=services.store)
                                         for _ in range(concurrency - 1)]
    shutdown = Shutdown(extractors, settings.lease_seconds if grace is None else grace)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, shutdown.request)
    Listener.wake_workers(services.engine, services.work_available, shutdown.stop)
    threads = [threading.Thread(target=Worker(services, extractor=extractor).run,
                                args=(shutdown.stop,), name=f"worker-{i}")
               for i, extractor in enumerate(extractors)]
    # Webhook deliveries run beside the extractions (service_layer/webhooks.py).
    threads += [threading.Thread(target=DeliveryWorker(services).run, args=(shutdown.stop,),
                                 name=f"webhooks-{i}") for i in range(deliveries)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        for t in threads:
            t.join(timeout=0.5)
    shutdown.done()


@main.command()
@click.option("--no-embedded-xml", is_flag=True, help="ignore embedded e-invoice XML")
@click.argument("paths", metavar="FILE|DIR...", nargs=-1, required=True,
                type=click.Path(exists=True))
def extract(no_embedded_xml: bool, paths: tuple[str, ...]) -> None:
    """Extract invoices offline: each FILE, and every accepted file under each DIR (recursive,
    told by content: PDF, scan or photo, e-invoice XML). One JSON line per file: {"file",
    "document"} or {"file", "error"}; exit status 1 when any file failed. On a terminal, a
    progress bar on stderr."""
    from tqdm import tqdm

    from .bootstrap import configured_extractor
    from .formats import accepted_names
    from .service_layer.offline_extract import answer, plan

    work = plan(paths)
    if not work.files:
        click.echo(f"ledgerline extract: no accepted files ({accepted_names()}) found", err=True)
        return
    extractor = configured_extractor(settings_or_exit(),
                                     use_embedded_xml=False if no_embedded_xml else None)
    failed = 0
    # disable=None: no bar unless stderr is a terminal; tqdm.write keeps the lines clear of it
    with tqdm(total=len(work.files), unit="file", disable=None, dynamic_ncols=True) as bar:
        for planned in work.files:
            bar.set_description(os.path.basename(planned.path)[:30])
            line = answer(extractor, planned)
            failed += "error" in line
            tqdm.write(json.dumps(line, ensure_ascii=False), file=sys.stdout)
            sys.stdout.flush()  # a reader downstream sees each file as it is done
            bar.set_postfix_str(f"{failed} failed, {work.skipped} skipped (not an accepted format)")
            bar.update()
    if failed:
        sys.exit(1)


@main.command()
@click.option("--url", required=True, help="the service, e.g. http://127.0.0.1:8000")
@click.option("--key", required=True, envvar="LEDGERLINE_API_KEY",
              help="a customer or supplier key (or LEDGERLINE_API_KEY)")
@click.option("--account", required=True)
@click.option("--recursive", "-r", is_flag=True, help="also the files in subdirectories")
@click.option("--wait", is_flag=True, help="wait for every result, not only for acceptance")
@click.option("--timeout", default=600.0, show_default=True, type=click.FloatRange(1),
              help="with --wait: seconds to wait for all results")
@click.option("--concurrency", default=4, show_default=True, type=click.IntRange(1, 32))
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True, help="how each file's outcome is printed on stdout")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
def upload(url, key, account, recursive, wait, timeout, concurrency, fmt, paths) -> None:
    """Upload invoice files and folders, each file once: running it again after a crash
    uploads nothing twice (the Idempotency-Key is made from each file's content and the
    account). A summary (completed / hit / joined / failed / needs review) goes to stderr;
    exit status 1 when a file failed."""
    from .service_layer import upload_client as uc

    if not valid_account_name(account):
        raise click.BadParameter("not an account name", param_hint="--account")
    files, skipped = uc.collect(list(paths), recursive=recursive)
    for path in skipped:
        click.echo(f"ledgerline: skipped {uc.relative(str(path))}: not a PDF, XML or image",
                   err=True)
    client = uc.Client(url, key, account, concurrency=concurrency)
    if sys.stderr.isatty() and files:
        with click.progressbar(length=len(files), label="uploading", file=sys.stderr) as bar:
            results = uc.run(client, files, concurrency=concurrency, wait=wait,
                             timeout=timeout, progress=bar.update)
    else:
        results = uc.run(client, files, concurrency=concurrency, wait=wait, timeout=timeout)
    _print_uploads(uc, results, fmt)
    totals = uc.summary(results)
    names = [name.replace("_", " ") for name in uc.SUMMARY]
    click.echo("  ".join(names), err=True)
    click.echo("  ".join(str(totals[key]).rjust(len(name))
                         for key, name in zip(uc.SUMMARY, names)), err=True)
    if totals["failed"]:
        sys.exit(1)


def _print_uploads(uc, results, fmt: str) -> None:
    rows = uc.as_rows(results)
    if fmt == "json":
        click.echo(json.dumps({"files": rows, "summary": uc.summary(results)}))
        return
    if fmt == "csv":
        import csv
        import io

        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=[*uc.COLUMNS, "needs_review"])
        writer.writeheader()
        writer.writerows(rows)
        click.echo(out.getvalue(), nl=False)
        return
    table = [[uc.relative(r["path"]), *(str(r[c] or "") for c in uc.COLUMNS[1:-1])]
             for r in rows]
    header = ["file", *uc.COLUMNS[1:-1]]
    widths = [max([len(h)] + [len(row[i]) for row in table]) for i, h in enumerate(header)]
    for row in [header, ["-" * w for w in widths], *table]:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())


@main.command("sample-invoice")
@click.option("--lang", default="en", show_default=True,
              help="en, de, fr, es, it, nl, pl, cs, pt, sv, da, no or fi")
@click.option("--seed", default=1, show_default=True, type=int, help="same seed, same bytes")
@click.option("--scan", "as_scan", is_flag=True, help="an image-only, scanner-degraded PDF")
@click.option("--template", default=None, help="a layout name [default: drawn from the seed]")
def sample_invoice(lang: str, seed: int, as_scan: bool, template: str | None) -> None:
    """Write a realistic sample invoice PDF to stdout; its expected fields as JSON to stderr."""
    from .samples.command import write_sample

    write_sample(lang=lang, seed=seed, as_scan=as_scan, template=template)


@main.group()
def report() -> None:
    """Operator reports."""


@report.command("duplicates")
@click.option("--day", help="one UTC day, YYYY-MM-DD")
@click.option("--from", "first", help="first UTC day of a range (with --to; one row per day)")
@click.option("--to", "last", help="last UTC day of a range, inclusive")
@click.option("--format", "fmt", type=click.Choice(["json", "table"]), default="json",
              show_default=True)
def report_duplicates(day: str | None, first: str | None, last: str | None, fmt: str) -> None:
    """How much model spend repeats work, and what caching saves (or would save)."""
    from .reporting_format import duplicates_table
    from .service_layer.report import duplicate_report

    _print_report(lambda engine, settings, span: duplicate_report(engine, settings, span),
                  duplicates_table, day=day, first=first, last=last, fmt=fmt)


@report.command("agreement")
@click.option("--day", help="one UTC day, YYYY-MM-DD")
@click.option("--from", "first", help="first UTC day of a range (with --to)")
@click.option("--to", "last", help="last UTC day of a range, inclusive")
@click.option("--format", "fmt", type=click.Choice(["json", "table"]), default="json",
              show_default=True)
def report_agreement(day: str | None, first: str | None, last: str | None, fmt: str) -> None:
    """The shadow comparison: per field, how often the candidate provider agreed with the
    serving one, and what the candidate cost."""
    from .reporting_format import agreement_table
    from .service_layer.report import agreement_report

    _print_report(lambda engine, _settings, span: agreement_report(engine, span),
                  agreement_table, day=day, first=first, last=last, fmt=fmt)


def _print_report(compute, table, *, day, first, last, fmt: str) -> None:
    """One day's document, a range's documents, or their table, from `compute(engine,
    settings, span)`; a bad day or range is a usage error."""
    from .domain.errors import BadRequest
    from .service_layer.report import days

    try:
        span = days(day=day, first=first, last=last)
    except BadRequest as exc:
        raise click.UsageError(exc.detail) from None
    settings = settings_or_exit()
    engine = engine_or_exit(settings)
    try:
        reports = compute(engine, settings, span)
    finally:
        engine.dispose()
    if fmt == "table":
        click.echo(table(reports))
    elif day is not None:
        click.echo(json.dumps(reports[0]))
    else:
        click.echo(json.dumps({"from": span.first.isoformat(), "to": span.last.isoformat(),
                               "days": reports}))


_DURATION = re.compile(r"(\d+)([dhm])")
_UNITS = {"d": "days", "h": "hours", "m": "minutes"}


def parse_horizon(text: str, option: str = "--older-than", *,
                  allow_zero: bool = True) -> timedelta:
    """`30d`, `12h`, `90m`."""
    match = _DURATION.fullmatch(text.strip())
    if not match or (not allow_zero and int(match.group(1)) == 0):
        raise click.BadParameter("use a number and a unit: 30d, 12h or 90m", param_hint=option)
    return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})


@main.command()
@click.option("--older-than", "older_than", required=True,
              help="the horizon: 30d, 12h or 90m (at least 1h)")
def purge(older_than: str) -> None:
    """Delete the engine's rows and originals older than the horizon that nothing uses.

    Ledger rows of whole days before the horizon, finished jobs and results nothing refers to,
    and originals no invoice uses. Idempotent and safe to run on several hosts at once:
    schedule it (cron, a Kubernetes CronJob, an ECS scheduled task). Prints what it removed.
    """
    from .bootstrap import bootstrap
    from .service_layer.retention import MIN_HORIZON
    from .service_layer.retention import purge as purge_rows

    horizon = parse_horizon(older_than)
    if horizon < MIN_HORIZON:
        raise click.BadParameter("must be at least 1h: an upload still committing must keep "
                                 "its original", param_hint="--older-than")
    settings = settings_or_exit()
    services = bootstrap(settings, engine=engine_or_exit(settings))
    try:
        done = purge_rows(services, horizon)
    finally:
        services.engine.dispose()
    click.echo(json.dumps({"older_than": older_than, "purged": done.as_dict()}))


if __name__ == "__main__":
    main()
