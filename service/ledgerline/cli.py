"""The `ledgerline` command line.

Starting it is cheap: this module imports click and the standard library only, and each
command imports what it uses (the settings, SQLAlchemy, the extraction code) when it runs, so
`ledgerline --help`, or a script that runs `ledgerline extract` once per file, never pays for
modules it does not use.

Every error is one line on stderr and a non-zero exit status, click's usage errors and a bug's
exception included (LEDGERLINE_LOG_LEVEL=debug adds the traceback).
"""
from __future__ import annotations

import functools
import json
import os
import re
import sys
from datetime import timedelta

import click

from .domain.identity import ACCOUNT_ROLES, Role, valid_account_name

MAX_PORT = 65535
# `ledgerline extract` warms the sandbox up (seconds: the official rules, Tesseract's models)
# only for this many files or more; fewer, and each child loads what its document needs.
WARM_UP_FROM_FILES = 8


class OneLineErrors(click.Group):
    """click's group, with each error as one line (`ledgerline serve: --port: …`)."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            code = super().main(args, prog_name or "ledgerline", complete_var, False, **extra)
        except click.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx else "ledgerline"
            _exit(f"{_one_line(exc.format_message())} (see `{where} --help`)",
                  code=exc.exit_code, prefix=where)
        except click.ClickException as exc:
            _exit(_one_line(exc.format_message()), code=exc.exit_code)
        except (click.Abort, EOFError):  # a question left unanswered
            _exit("Aborted", code=1)
        except KeyboardInterrupt:
            _exit("interrupted", code=130)
        except Exception as exc:  # noqa: BLE001 - a bug: one line, the traceback only when asked for
            if os.environ.get("LEDGERLINE_LOG_LEVEL", "").strip().lower() == "debug":
                import traceback

                traceback.print_exc()
            _exit(f"unexpected {type(exc).__name__}: {_one_line(str(exc))}", code=1)
        sys.exit(code if isinstance(code, int) else 0)


def _one_line(text: str) -> str:
    return " ".join(text.split())


# The group of entry points by which the tooling (ledgerline_tools: `upload`, `sample-invoice`)
# adds commands: this package never imports it, and a command is loaded only when it is run or
# listed.
TOOL_COMMANDS = "ledgerline.commands"


class MainGroup(OneLineErrors):
    """The top-level group: its own commands and those of the TOOL_COMMANDS entry points."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_tool_commands()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in _tool_commands():
            command = _tool_commands()[cmd_name].load()
        return command


@functools.cache
def _tool_commands() -> dict:
    from importlib.metadata import entry_points

    return {point.name: point for point in entry_points(group=TOOL_COMMANDS)}


@click.group(cls=MainGroup)
@click.version_option(package_name="ledgerline", prog_name="ledgerline")
def main() -> None:
    """Ledgerline: invoice extraction with an exact per-account cache and idempotent jobs."""


def settings_or_exit():
    """The validated settings, or one line per bad variable and exit status 2."""
    from .config import ConfigError, Settings

    try:
        return Settings.from_env()
    except ConfigError as exc:
        for line in str(exc).splitlines():
            click.echo(f"ledgerline: {line}", err=True)
        sys.exit(2)


def engine_or_exit(settings, *, migrated: bool = True, long_running: bool = False):
    """An engine on a database with this release's schema, else a clear line and exit 2.

    A SQLite file that does not exist is not created (only `db upgrade` and `serve` create
    one): the line names the absolute path looked at. `long_running` (serve, worker): a
    database that cannot be reached yet is not fatal; the service reports it (503,
    readiness) and carries on once it is back."""
    from sqlalchemy.exc import OperationalError

    from .adapters.db.engine import make_engine, sqlite_path
    from .adapters.db.migrate import schema_state

    path = sqlite_path(settings.database_url)
    if migrated and path is not None and not os.path.exists(path):
        _exit(f"no database at {path}; run `ledgerline db upgrade` (or set "
              "LEDGERLINE_DATABASE_URL or LEDGERLINE_DATA_DIR)")
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
        _exit(f"cannot reach the database at {_shown_url(settings)}: "
              f"{_one_line(str(exc.orig or exc))}")
    if state.missing:
        _exit(f"the database at {_shown_url(settings)} has no Ledgerline schema; "
              "run `ledgerline db upgrade`")
    if not state.usable:
        _exit(f"the database at {_shown_url(settings)} is at revision {state.current}, older "
              f"than this release's {state.head}; run `ledgerline db upgrade`")
    return engine


def _shown_url(settings) -> str:
    """The database as a reader looks for it: a SQLite file's absolute path, else the URL
    without its password."""
    from sqlalchemy.engine import make_url

    from .adapters.db.engine import sqlite_path

    return sqlite_path(settings.database_url) or make_url(
        settings.database_url).render_as_string(hide_password=True)


def _exit(message: str, *, code: int = 2, prefix: str = "ledgerline"):
    click.echo(f"{prefix}: {message}", err=True)
    sys.exit(code)


@main.command("config")
@click.option("--format", "fmt", type=click.Choice(["env", "json"]), default="env",
              show_default=True)
def config_command(fmt: str) -> None:
    """Print the settings in force, every variable with its value (secrets as `set`): the
    data directory first."""
    from .config import env_name

    settings = settings_or_exit()
    shown = {}
    for field in type(settings).model_fields:
        value = getattr(settings, field)
        if field in ("openai_api_key", "metrics_token") and value is not None:
            value = "set"
        shown[env_name(field)] = "" if value is None else str(getattr(value, "value", value))
    if fmt == "json":
        click.echo(json.dumps(shown))
        return
    import shlex

    for name, value in shown.items():
        click.echo(f"{name}={shlex.quote(value)}")


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


@accounts.command("list")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
def accounts_list(fmt: str) -> None:
    """Every account: created, retention, state, working keys and invoices."""
    from .adapters.db.engine import transaction
    from .adapters.db.keys import list_accounts

    engine = engine_or_exit(settings_or_exit())
    with transaction(engine, write=False) as conn:
        found = list_accounts(conn)
    _print_rows(found, ["name", "created_at", "retention_days", "state", "keys", "invoices"],
                fmt)


def _print_rows(rows: list[dict], columns: list[str], fmt: str) -> None:
    """`rows` as one JSON array, or as a table of `columns` with a header."""
    if fmt == "json":
        click.echo(json.dumps(rows))
        return
    table = [["" if r[c] is None else str(r[c]) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in table]) for i, c in enumerate(columns)]
    for row in [columns, ["-" * w for w in widths], *table]:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())


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
        services.db.close()
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
        services.db.close()
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
    """Every key (never a secret): id, role, account, name, state, prefix, created, last used
    (to the minute), expiry, the key that replaced it."""
    from .adapters.db.engine import transaction
    from .adapters.db.keys import list_keys

    engine = engine_or_exit(settings_or_exit())
    with transaction(engine, write=False) as conn:
        found = list_keys(conn, account)
    _print_rows(found, ["id", "role", "account", "name", "state", "prefix", "created_at",
                        "last_used_at", "expires_at", "replaced_by"], fmt)


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
@click.option("--expires-in", "expires_in",
              help="the new key stops working after 90d, 12h (default: when the old one would)")
def keys_rotate(key_id: str, grace: str, expires_in: str | None) -> None:
    """Print a new key for KEY_ID's role, account, name and expiry (last line of stdout),
    speaking for the same caller (its uploads, its Idempotency-Keys); the old one works for the
    grace period more. A revoked or expired key is not rotated."""
    from .adapters.db.accounts import UnknownAccount
    from .adapters.db.engine import transaction
    from .adapters.db.keys import CannotRotate, rotate
    from .bootstrap import utcnow

    grace_seconds = parse_horizon(grace, "--grace").total_seconds()
    engine = engine_or_exit(settings_or_exit())
    try:
        with transaction(engine, write=True) as conn:
            new_id, secret = rotate(conn, key_id, grace_seconds, utcnow(),
                                    expires_in=_seconds(expires_in, "--expires-in"))
    except CannotRotate as exc:
        raise click.ClickException(str(exc)) from None
    except UnknownAccount:
        raise click.ClickException(f"key {key_id}'s account is being deleted") from None
    click.echo(f"created key {new_id} to replace {key_id} (which works for {grace} more); "
               "it is shown only once:", err=True)
    click.echo(secret)


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, MAX_PORT))
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 64))
@click.option("--no-embedded-worker", is_flag=True, help="leave extraction to `ledgerline worker`")
def serve(host: str, port: int, workers: int, no_embedded_worker: bool) -> None:
    """Run the HTTP API under gunicorn (with an in-process extraction worker by default)."""
    from .adapters.db.engine import sqlite_path
    from .adapters.db.migrate import upgrade

    settings = settings_or_exit()
    _check_listen(host, port)
    if sqlite_path(settings.database_url):
        upgrade(settings.database_url)  # the embedded default sets itself up
    engine_or_exit(settings, long_running=True).dispose()
    click.echo(f"ledgerline: data directory {settings.data_dir} (database "
               f"{_shown_url(settings)}, originals {settings.storage_url}); serving on "
               f"http://{host}:{port}", err=True)
    env = dict(os.environ)
    env["LEDGERLINE_EMBEDDED_WORKER"] = "0" if no_embedded_worker else "1"
    env["LEDGERLINE_LOG_LEVEL"] = settings.log_level
    # Resolved once, here: every process of the service uses exactly these.
    env["LEDGERLINE_DATA_DIR"] = settings.data_dir
    env["LEDGERLINE_DATABASE_URL"] = settings.database_url
    env["LEDGERLINE_STORAGE_URL"] = settings.storage_url
    argv = [sys.executable, "-m", "gunicorn", "-c", "python:ledgerline.gunicorn_conf",
            "--bind", f"{host}:{port}", "--workers", str(workers), "ledgerline.wsgi:app"]
    os.execve(sys.executable, argv, env)


def _check_listen(host: str, port: int) -> None:
    """Bind once before gunicorn does, so that a taken port or an unknown host is one line
    rather than gunicorn's retries."""
    import socket

    try:
        family, kind, proto, _name, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn does
            probe.bind(address)
    except OSError as exc:
        _exit(f"cannot listen on {host}:{port}: {exc.strerror or exc}")


@main.command()
@click.option("--concurrency", default=1, show_default=True, type=click.IntRange(1, 64))
@click.option("--grace", type=click.FloatRange(0), default=None,
              help="on SIGTERM, seconds to finish the job in hand before handing it back "
                   "[default: the lease length]")
@click.option("--deliveries", default=1, show_default=True, type=click.IntRange(0, 64),
              help="webhook delivery threads beside the extraction threads (0: none)")
def worker(concurrency: int, grace: float | None, deliveries: int) -> None:
    """Run a standalone extraction worker (and webhook deliveries) until SIGTERM or SIGINT."""
    from . import logs
    from .bootstrap import bootstrap
    from .workers import run_workers

    settings = settings_or_exit()
    logs.configure_from(settings)
    services = bootstrap(settings, engine=engine_or_exit(settings, long_running=True))
    run_workers(services, concurrency=concurrency, deliveries=deliveries, grace=grace).wait()


@main.command()
@click.option("--no-embedded-xml", is_flag=True, help="ignore embedded e-invoice XML")
@click.argument("paths", metavar="FILE|DIR...", nargs=-1, required=True,
                type=click.Path(exists=True))
def extract(no_embedded_xml: bool, paths: tuple[str, ...]) -> None:
    """Extract invoices offline: each FILE, and every accepted file under each DIR (recursive,
    told by content: PDF, scan or photo, e-invoice XML). One JSON line per file: {"file",
    "document"} or {"file", "error"}; exit status 1 when any file failed. On a terminal, a
    progress bar on stderr."""
    from .bootstrap import configured_extractor
    from .formats import accepted_names
    from .service_layer.offline_extract import answer, plan

    work = plan(paths)
    if not work.files:
        click.echo(f"ledgerline extract: no accepted files ({accepted_names()}) found", err=True)
        return
    # A few PDFs: the sandbox's children load only what each needs, and the first page is
    # read within a second; many files, or images (read by OCR for certain), and the fork
    # server's warm-up (Tesseract's models among it) pays for itself.
    extractor = configured_extractor(settings_or_exit(),
                                     use_embedded_xml=False if no_embedded_xml else None,
                                     warm_up=len(work.files) >= WARM_UP_FROM_FILES
                                     or any(_is_image(f.path) for f in work.files
                                            if f.error is None))  # never open a FIFO
    from tqdm import tqdm

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


def _is_image(path: str) -> bool:
    from .formats import detect_file

    try:
        return detect_file(path).is_image
    except (OSError, ValueError):  # answered with its own error, never extracted
        return False


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
        services.db.close()
    click.echo(json.dumps({"older_than": older_than, "purged": done.as_dict()}))


if __name__ == "__main__":
    main()
