"""The `ledgerline` command line."""
from __future__ import annotations

import json
import os
import signal
import sys
import threading

import click

from .config import Settings
from .domain.identity import ACCOUNT_ROLES, Role, valid_account_name


@click.group()
@click.version_option(package_name="ledgerline", prog_name="ledgerline")
def main() -> None:
    """Ledgerline: invoice extraction with an exact per-account cache and idempotent jobs."""


@main.group()
def db() -> None:
    """Database schema."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Create or migrate the database (Alembic)."""
    from .adapters.db.migrate import upgrade

    settings = Settings.from_env()
    upgrade(settings.database_url)
    click.echo("database is at the latest revision", err=True)


@main.group()
def accounts() -> None:
    """Customer accounts."""


@accounts.command("create")
@click.argument("account")
def accounts_create(account: str) -> None:
    """Create a customer account."""
    from .adapters.db.accounts import AccountExists, create_account
    from .adapters.db.engine import make_engine, transaction
    from .bootstrap import utcnow

    if not valid_account_name(account):
        raise click.BadParameter("use 2-63 characters: a-z, 0-9 and '-', starting with a letter "
                                 "or digit", param_hint="ACCOUNT")
    engine = make_engine(Settings.from_env().database_url)
    try:
        with transaction(engine, write=True) as conn:
            create_account(conn, account, utcnow())
    except AccountExists:
        raise click.ClickException(f"account {account!r} already exists") from None
    click.echo(f"created account {account}", err=True)


@main.group()
def keys() -> None:
    """API keys."""


@keys.command("create")
@click.option("--role", type=click.Choice([r.value for r in Role]), required=True)
@click.option("--account", help="the account the key belongs to (not for operators)")
@click.option("--name", help="a label shown to readers of the account, e.g. the supplier's name")
def keys_create(role: str, account: str | None, name: str | None) -> None:
    """Print a new API key once (last line of stdout); only its hash is stored."""
    from .adapters.db.accounts import UnknownAccount, create_key
    from .adapters.db.engine import make_engine, transaction
    from .bootstrap import utcnow

    role_ = Role(role)
    if role_ in ACCOUNT_ROLES and not account:
        raise click.UsageError(f"--account is required for the {role} role")
    if role_ is Role.OPERATOR and account:
        raise click.UsageError("operator keys are not bound to an account")
    engine = make_engine(Settings.from_env().database_url)
    try:
        with transaction(engine, write=True) as conn:
            key_id, secret = create_key(conn, role_, account, name, utcnow())
    except UnknownAccount:
        raise click.ClickException(f"no account {account!r}; create it first") from None
    click.echo(f"created {role} key {key_id}; it is shown only once:", err=True)
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

    settings = Settings.from_env()
    if sqlite_path(settings.database_url):
        upgrade(settings.database_url)  # the embedded default sets itself up
    env = dict(os.environ)
    env["LEDGERLINE_EMBEDDED_WORKER"] = "0" if no_embedded_worker else "1"
    argv = [sys.executable, "-m", "gunicorn", "-c", "python:ledgerline.gunicorn_conf",
            "--bind", f"{host}:{port}", "--workers", str(workers), "ledgerline.wsgi:app"]
    os.execve(sys.executable, argv, env)


@main.command()
@click.option("--concurrency", default=1, show_default=True, type=click.IntRange(1, 64))
@click.option("--grace", type=click.FloatRange(0), default=None,
              help="on SIGTERM, seconds to finish the job in hand before handing it back "
                   "[default: the lease length]")
def worker(concurrency: int, grace: float | None) -> None:
    """Run a standalone extraction worker until SIGTERM or SIGINT."""
    import logging

    from .adapters.db.notify import NewJobListener
    from .bootstrap import bootstrap
    from .service_layer.worker import Shutdown, Worker

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    services = bootstrap()
    shutdown = Shutdown(services.extractor,
                        services.settings.lease_seconds if grace is None else grace)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, shutdown.request)
    NewJobListener.start_for(services.engine, services.work_available, shutdown.stop)
    threads = [threading.Thread(target=Worker(services).run, args=(shutdown.stop,),
                                name=f"worker-{i}") for i in range(concurrency)]
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
    told by content). One JSON line per file: {"file", "document"} or {"file", "error"}; exit
    status 1 when any file failed. On a terminal, a progress bar on stderr."""
    from tqdm import tqdm

    from .bootstrap import configured_extractor
    from .service_layer.offline_extract import answer, plan

    work = plan(paths)
    if not work.files:
        click.echo("ledgerline extract: no accepted files (PDF or image) found", err=True)
        return
    extractor = configured_extractor(Settings.from_env(), use_embedded_xml=not no_embedded_xml)
    failed = 0
    # disable=None: no bar unless stderr is a terminal; tqdm.write keeps the lines clear of it
    with tqdm(total=len(work.files), unit="file", disable=None, dynamic_ncols=True) as bar:
        for planned in work.files:
            bar.set_description(os.path.basename(planned.path)[:30])
            line = answer(extractor, planned)
            failed += "error" in line
            tqdm.write(json.dumps(line, ensure_ascii=False), file=sys.stdout)
            sys.stdout.flush()  # a reader downstream sees each file as it is done
            bar.set_postfix_str(f"{failed} failed, {work.skipped} skipped (no PDF or image)")
            bar.update()
    if failed:
        sys.exit(1)


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
    from .adapters.db.engine import make_engine
    from .domain.errors import BadRequest
    from .reporting_format import duplicates_table
    from .service_layer.report import days, duplicate_report

    try:
        span = days(day=day, first=first, last=last)
    except BadRequest as exc:
        raise click.UsageError(exc.detail) from None
    settings = Settings.from_env()
    engine = make_engine(settings.database_url)
    try:
        reports = duplicate_report(engine, settings, span)
    finally:
        engine.dispose()
    if fmt == "table":
        click.echo(duplicates_table(reports))
    elif day is not None:
        click.echo(json.dumps(reports[0]))
    else:
        click.echo(json.dumps({"from": span.first.isoformat(), "to": span.last.isoformat(),
                               "days": reports}))


if __name__ == "__main__":
    main()
