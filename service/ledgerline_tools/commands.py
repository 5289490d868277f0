"""The commands the tooling adds to `ledgerline`: `ledgerline upload` and `ledgerline
sample-invoice`. pyproject.toml names them as entry points of the ``ledgerline.commands`` group,
which the CLI's top-level group loads when one is run or listed; like the CLI's own commands,
each imports what it uses only when it runs, so `ledgerline --help` stays cheap."""
from __future__ import annotations

import json
import sys

import click

from ledgerline.domain.identity import valid_account_name


@click.command()
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
    from . import upload_client as uc

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
    print_uploads(uc, results, fmt)
    totals = uc.summary(results)
    names = [name.replace("_", " ") for name in uc.SUMMARY]
    click.echo("  ".join(names), err=True)
    click.echo("  ".join(str(totals[key]).rjust(len(name))
                         for key, name in zip(uc.SUMMARY, names)), err=True)
    if totals["failed"]:
        sys.exit(1)


def print_uploads(uc, results, fmt: str) -> None:
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
        # true/false, as every CSV of the service writes booleans (not Python's True/False)
        writer.writerows({key: ("true" if value else "false") if isinstance(value, bool)
                          else value for key, value in row.items()} for row in rows)
        click.echo(out.getvalue(), nl=False)
        return
    table = [[uc.relative(r["path"]), *(str(r[c] or "") for c in uc.COLUMNS[1:-1])]
             for r in rows]
    header = ["file", *uc.COLUMNS[1:-1]]
    widths = [max([len(h)] + [len(row[i]) for row in table]) for i, h in enumerate(header)]
    for row in [header, ["-" * w for w in widths], *table]:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())


@click.command("sample-invoice")
@click.option("--lang", default="en", show_default=True,
              help="en, de, fr, es, it, nl, pl, cs, pt, sv, da, no or fi")
@click.option("--seed", default=1, show_default=True, type=int, help="same seed, same bytes")
@click.option("--scan", "as_scan", is_flag=True, help="an image-only, scanner-degraded PDF")
@click.option("--template", default=None, help="a layout name [default: drawn from the seed]")
def sample_invoice(lang: str, seed: int, as_scan: bool, template: str | None) -> None:
    """Write a realistic sample invoice PDF to stdout; its expected fields as JSON to stderr."""
    from .extra import why_not

    refusal = why_not("`ledgerline sample-invoice`")
    if refusal:
        raise click.ClickException(refusal)
    from .samples.command import write_sample

    write_sample(lang=lang, seed=seed, as_scan=as_scan, template=template)
