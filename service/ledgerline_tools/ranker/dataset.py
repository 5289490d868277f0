"""Training and evaluation documents: the shared corpus and the sample generator, read once.

A :class:`Document` is a parsed invoice (its pages in the positioned-text model) with its truth,
the source it comes from (the corpus manifest's ``source_repo``, or the generator) and whether
the committed model may learn from it. The licence policy lives here and nowhere else: rows whose
licence is ``none stated`` are for development and evaluation only, never for training.

Truth values compare as the accuracy benchmark compares them: amounts as numbers, dates as ISO
strings, everything else with white space removed and case folded, an invoice number without a
number sign printed before it (:func:`norm`).
"""

from __future__ import annotations

import csv
import json
import os
import re
import tempfile
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from ledgerline.extraction.document import AMOUNT_FIELDS, DATE_FIELDS
from ledgerline.extraction.errors import ExtractionError
from ledgerline.extraction.model import Page
from ledgerline.extraction.sources.pdf_text import parse_pdf

# The source and group name generated documents go by in training and in benchmark results;
# kept from before the generator moved into ledgerline_tools, so that both stay comparable.
GENERATED_SOURCE = "ledgerline.samples"
OUTSIDE_PREFIX = "outside/"
UNLICENSED = "none stated"  # the manifest's licence column starts with this: evaluation only
# "Invoice No: # 4711" and "Invoice No: 4711" print the same number: the sign says "number", as
# "No." does, and the finders never read it as part of the identifier. A truth that keeps it
# (one source writes "#4711" for one invoice and "4711" for its twin) compares without it.
NUMBER_SIGN = re.compile(r"^\s*[#№]\s*")


@dataclass
class Document:
    key: str  # "row<N>" (manifest row) or "gen<seed>"
    source: str  # manifest source_repo, or GENERATED_SOURCE
    part: str  # "corpus", "outside" or "generated"
    trainable: bool  # the committed model may learn from it
    truth: dict
    pages: list[Page]
    group: str = ""  # what a cross-validation keeps together (the source, or the layout)


def norm_amount(value) -> Decimal | None:
    """The comparable form of an amount (a total or a line's): its value, whatever its digits."""
    if value is None:
        return None
    try:
        return Decimal(str(value)).normalize()
    except InvalidOperation:
        return None


def norm(field: str, value):
    """The comparable form of a field value (None for no value)."""
    if value is None:
        return None
    if field in AMOUNT_FIELDS:
        return norm_amount(value)
    if field in DATE_FIELDS:
        return str(value)[:10]
    if field == "invoice_number":
        value = NUMBER_SIGN.sub("", str(value))
    return "".join(str(value).split()).casefold()


def in_schema(truth: dict) -> dict:
    """The truth in invoice-v2's terms: ``document_type`` "invoice" or "credit_note" (the
    e-invoice rows give the XML's type code, whose credit notes may write their totals as
    positive numbers), and a credit note's totals, amount due and line net amounts negative.
    A correction or an invoice whose totals are negative reduces what is owed: a credit note."""
    from ledgerline.extraction.document_type import CREDIT_NOTE, INVOICE, of_xml, signed_amounts

    kind = truth.get("document_type")
    if kind not in (INVOICE, CREDIT_NOTE):
        kind = of_xml(None if kind is None else str(kind), False, {
            f: None if truth.get(f) is None else Decimal(str(truth[f])) for f in AMOUNT_FIELDS
        }).value
    out = {**truth, "document_type": kind}
    if kind != CREDIT_NOTE:
        return out
    for f in AMOUNT_FIELDS:
        if out.get(f) is not None:
            out[f] = signed_amounts(Decimal(str(out[f])))
    out["line_items"] = [
        {**li, "net_amount": None if li.get("net_amount") is None
         else signed_amounts(Decimal(str(li["net_amount"])))}
        for li in truth.get("line_items") or []
    ]
    return out


def manifest_rows(corpus: Path) -> list[dict]:
    manifest = corpus / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    with open(manifest, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def is_trainable(row: dict) -> bool:
    return not row["license"].strip().lower().startswith(UNLICENSED)


def corpus_part(row: dict) -> str:
    return "outside" if row["id"].startswith(OUTSIDE_PREFIX) else "corpus"


def corpus_documents(corpus: Path, *, scorable_only: bool = True) -> list[Document]:
    """Every text-layer row of the corpus (scorable ones by default), parsed."""
    docs = []
    for n, row in enumerate(manifest_rows(corpus)):
        if row["has_text_layer"] != "yes" or (scorable_only and row["scorable"] != "yes"):
            continue
        truth = in_schema(json.loads((corpus / row["truth"]).read_text(encoding="utf-8")))
        try:
            pages = parse_pdf(corpus / row["pdf"]).pages
        except ExtractionError:
            continue
        docs.append(
            Document(
                f"row{n}", row["source_repo"], corpus_part(row), is_trainable(row), truth, pages,
                group=row["source_repo"],
            )
        )
    return docs


def generated_documents(count: int, seed: int) -> list[Document]:
    """``count`` sample invoices, languages and layouts dealt round-robin (as the generated
    benchmark deals them), from seeds the benchmark does not use."""
    from ..samples import LANGUAGE_CODES, TEMPLATE_NAMES, generate
    from ..samples.corpus import document_seed, plan

    docs = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "invoice.pdf"
        for i, lang, template in plan(count, LANGUAGE_CODES, TEMPLATE_NAMES):
            doc_seed = document_seed(seed, i)
            pdf, truth = generate(doc_seed, lang=lang, template=template)
            path.write_bytes(pdf)
            pages = parse_pdf(path).pages
            docs.append(
                Document(
                    f"gen{doc_seed}", GENERATED_SOURCE, "generated", True, truth, pages,
                    group=f"{GENERATED_SOURCE}:{template}",
                )
            )
    return docs


def default_corpus() -> Path:
    """``../shared/corpus`` beside the repository (LEDGERLINE_CORPUS overrides it)."""
    env = os.environ.get("LEDGERLINE_CORPUS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[4] / ".." / "shared" / "corpus"
