"""The body of `ledgerline sample-invoice`: the PDF to standard output, the truth as JSON to
standard error."""

from __future__ import annotations

import json
import sys

import click

from . import LANGUAGE_CODES, TEMPLATE_NAMES, generate, scan

DEFAULT_SCAN_DPI = 200


def scan_info(result) -> dict:
    return {"dpi": result.dpi, "pages": len(result.images),
            "degradations": [vars(d) for d in result.degradations]}


def write_sample(*, lang: str, seed: int, as_scan: bool, template: str | None) -> None:
    if lang not in LANGUAGE_CODES:
        raise click.BadParameter(f"{lang!r} is not one of {', '.join(LANGUAGE_CODES)}",
                                 param_hint="--lang")
    if template is not None and template not in TEMPLATE_NAMES:
        raise click.BadParameter(f"{template!r} is not one of {', '.join(TEMPLATE_NAMES)}",
                                 param_hint="--template")
    out = click.get_binary_stream("stdout")
    if out.isatty():
        raise click.UsageError("standard output is a terminal; redirect it to a file, e.g. "
                               "ledgerline sample-invoice > invoice.pdf")
    pdf, truth = generate(seed, lang=lang, template=template)
    if as_scan:
        result = scan(pdf, seed, dpi=DEFAULT_SCAN_DPI)
        pdf, truth = result.pdf, {**truth, "_scan": scan_info(result)}
    out.write(pdf)
    out.flush()
    sys.stderr.write(json.dumps(truth, ensure_ascii=False) + "\n")
