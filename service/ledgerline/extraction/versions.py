"""The versions and configuration of the extraction that enter a result's cache key.

Every API process needs them for every cache lookup, and only a worker's sandbox extracts; so
they are computed here from constants, package metadata and file digests, without importing
pdfminer, the ranker's model or Saxon (an API process that imported the extraction to learn its
versions carried some 30 MiB of libraries it never ran). Bump PREPROCESSING_VERSION when text
preprocessing changes (pdfminer parameters, line building, normalisation) and MODEL_VERSION when
extraction logic changes. The OCR engine, its version, language data and DPI enter the
preprocessing version through ``preprocessing_version``.
"""
from __future__ import annotations

import hashlib
import json
from importlib import metadata
from pathlib import Path

import stdnum

from .checks import ENGINE_LIMITS, RULESET_VERSION
from .document import SCHEMA_VERSION
from .sources.pdf_layout import LAYOUT_PARAMS, MAX_PAGES
from .languages import VOCABULARY_ORDER

# The learned ranker's file (see ranker/model.py): another model, another cache key.
RANKER_MODEL = Path(__file__).parent / "ranker" / "model.json.gz"
RANKER_FORMAT = "ledgerline-ranker-2"  # 2: calibrators on evidence, acceptance thresholds


def file_digest(path: Path) -> str:
    """SHA-256 of a file, or "missing"."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return "missing"


PREPROCESSING_VERSION = "pdfminer-lines-2026.12.3"  # form fields, Unicode hyphens
# .5: the finders' candidates changed (an item table's dates no issue date, a title's date no
# number, a trade line completing a name, letterheads read from the left of their row)
MODEL_VERSION = "ranker-2026.12.5"
MODEL_CONFIG: dict = {
    # the learned ranker's file: another model, another cache key
    "ranker": {"format": RANKER_FORMAT, "sha256": file_digest(RANKER_MODEL)},
    "embedded_xml": True,
    "xml_syntaxes": ["CII", "CII-ZUGFeRD1", "UBL", "KSeF"],
    "official_rules": RULESET_VERSION,  # the EN 16931 / XRechnung schematron run on the XML
    # what the rules' engine could not read is refused before it; numbers are xs:decimal only;
    # rules that could not run ask for review
    "xml_limits": {**ENGINE_LIMITS, "numbers": "xs:decimal", "rules_not_run": "review"},
    "python_stdnum": stdnum.__version__,  # VAT number checksums
    "text_layer_cross_check": True,
    "languages": list(VOCABULARY_ORDER),
    # line-item tables read by header geometry, arithmetic and net amounts of gross lines;
    # else lines printed as blocks of labelled values; an amount the totals row disowns read
    # again where the source can (3); the totals block's charges and totals behind a box's
    # border no items (4)
    "line_items": "header-geometry-4",
    # the totals chosen jointly: the figure a document-level allowance leaves under a subtotal
    # is the invoice's total, a discount for paying early is no allowance (1)
    "totals": "after-allowances-1",
    "layout": dict(LAYOUT_PARAMS),
    "max_pages": MAX_PAGES,
    "pdfminer": metadata.version("pdfminer.six"),
}


def model_config_digest(*, use_embedded_xml: bool = True) -> str:
    """Stable hex digest of MODEL_CONFIG (sorted-keys JSON, SHA-256).

    ``use_embedded_xml=False`` gives the digest of the configuration that ignores embedded XML,
    for callers whose cache key must tell the two modes apart; the default is MODEL_CONFIG as is.
    """
    config = dict(MODEL_CONFIG)
    if not use_embedded_xml:
        config["embedded_xml"] = False
    blob = json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def preprocessing_version(ocr=None) -> str:
    """The preprocessing part of the cache key: the text layer's and the OCR engine's."""
    from . import ocr as ocr_package

    return ocr_package.preprocessing_version(PREPROCESSING_VERSION, ocr)


def versions() -> dict:
    return {
        "schema": SCHEMA_VERSION,
        "preprocessing": PREPROCESSING_VERSION,
        "model": MODEL_VERSION,
    }
