"""Which Tesseract reads a page, with which language data and settings: where its data is, its
version, and the fingerprint of all that, which enters the preprocessing version of the cache
key. Every API process computes it, so this module loads no more of Tesseract than its version.
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
from pathlib import Path

import blake3

from ..errors import ExtractionError
from .options import CJK_TESSERACT_LANGUAGES, OcrOptions

# Bump when preprocessing changes what OCR reads (scaling, OSD, deskew, line building).
# .2: pages scaled by the size of their glyphs; .3: light text on dark bands inverted, table
# rules end cells, the page's lighting flattened and light print darkened; .4: OSD only where the
# first reading is not plainly upright, the skew taken from the recognised lines; .5: a page
# keeps its picture, and an OCR'd seller name's place is read again by the second recogniser
OCR_PIPELINE_VERSION = "ocr-2026.12.5"
# Bump when the page's preparation before recognition changes what OCR reads (outline, bands,
# lighting, grain): the cache key changes at once; the OCR calibration, fitted under
# OCR_PIPELINE_VERSION, stays applied until `make calibrate-ocr` refits it (and may then fold
# this into the pipeline's version). .1: a page a few pixels inside the picture is squared, an
# inverted band takes the paper's brightness around it, and a page whose reading left much of
# its text unread is read again without its paper's grain (the better reading kept). .2: a page
# written in Han or kana is read with the Japanese and Chinese data (engine.py), its words
# joined without spaces (lines.py); every other page reads as before. .3: a page cut from its
# desk (a phone photo) is read again without its grain wherever its first reading left any of
# its text unread, not only more than a tenth (reading.py), and a page turned in the frame that
# touches every edge of the picture with its corners is cut from its desk (outline.py); scans
# read as before. .4: a zero between two capital letters of an identifier is read as the
# letter O (checksums.py).
PAGE_PREPARATION_VERSION = "prep-2026.12.5.4"
DIGEST_CHUNK = 1024 * 1024
CALIBRATION_FILE = Path(__file__).with_name("calibration.json")  # read by calibration.py
TESSDATA_DIRS = ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
                 "/usr/share/tessdata", "/usr/local/share/tessdata",
                 "/opt/homebrew/share/tessdata")


def tessdata_dir() -> str:
    """Where the language data is: TESSDATA_PREFIX, else the usual system places."""
    configured = os.environ.get("TESSDATA_PREFIX")
    candidates = ([configured, os.path.join(configured, "tessdata")] if configured else [])
    candidates += list(TESSDATA_DIRS)
    for d in candidates:
        if d and os.path.isfile(os.path.join(d, "eng.traineddata")):
            return d
    raise ExtractionError("ocr_unavailable", "no Tesseract language data found (install "
                          "tesseract-ocr, or set TESSDATA_PREFIX)", transient=True)


def installed_languages(directory: str | None = None) -> set[str]:
    directory = directory or tessdata_dir()
    return {os.path.basename(p)[: -len(".traineddata")]
            for p in glob.glob(os.path.join(directory, "*.traineddata"))}


def tesseract_version() -> str:
    import tesserocr

    return tesserocr.tesseract_version().split()[1]


def fingerprint(options: OcrOptions) -> dict:
    """Everything about OCR that changes what it reads: engine, version, data, settings."""
    import tesserocr

    languages = options.tesseract_languages
    return {
        "engine": "tesseract",
        "version": tesseract_version(),
        "binding": f"tesserocr {tesserocr.__version__}",
        "languages": languages,
        "data": _data_digests(tuple(languages.split("+")) + ("osd",)),
        # a page written in Han or kana is read with these too (engine.py); "missing" data: not
        "script_languages": CJK_TESSERACT_LANGUAGES,
        "script_data": _data_digests(tuple(CJK_TESSERACT_LANGUAGES.split("+"))),
        "dpi": options.dpi,
        "max_pixels": options.max_pixels,
        "pipeline": OCR_PIPELINE_VERSION,
        "preparation": PAGE_PREPARATION_VERSION,
        "second_opinion": second_opinion_identity(),
        # the calibration of OCR'd values' confidence (calibration.py): another map, another key
        "calibration": _file_digest(CALIBRATION_FILE) if CALIBRATION_FILE.is_file() else "none",
    }


def second_opinion_identity() -> dict:
    """The second recogniser: its wheel's and runtime's versions, its model's digest, the
    vote's settings ("missing" where the wheel is not installed: then no word is re-read)."""
    from importlib.metadata import PackageNotFoundError, version

    from . import second_opinion

    path = second_opinion.model_path()
    if path is None:
        return {"model": "missing"}
    try:
        versions = {"wheel": version("rapidocr-onnxruntime"),
                    "onnxruntime": version("onnxruntime")}
    except PackageNotFoundError:
        versions = {}
    return {**versions, "model": _file_digest(path), **second_opinion.settings()}


def _file_digest(path: str) -> str:
    got = _digests.get(path)
    if got is None:
        digest = blake3.blake3()
        with open(path, "rb") as data:  # read, not mapped (see _data_digests)
            for chunk in iter(lambda: data.read(DIGEST_CHUNK), b""):
                digest.update(chunk)
        got = _digests[path] = digest.hexdigest()[:16]
    return got


def preprocessing_tag(options: OcrOptions) -> str:
    """A short, readable tag for the preprocessing version: engine, version and a digest."""
    blob = json.dumps(fingerprint(options), sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(blob.encode()).hexdigest()[:12]
    return f"tesseract-{tesseract_version()}-{options.dpi}dpi-{digest}"


def preprocessing_version(text_layer: str, options: OcrOptions | None) -> str:
    """The text layer's preprocessing version with OCR's tag: ``pdfminer-…+tesseract-…``."""
    return f"{text_layer}+{preprocessing_tag(options or OcrOptions())}"


_digests: dict = {}  # language tuple -> digests, model path -> digest


def _data_digests(languages: tuple[str, ...]) -> dict:
    """A digest of each language file: new data from the distribution is a new preprocessing."""
    got = _digests.get(languages)
    if got is None:
        try:
            directory = tessdata_dir()
        except Exception:  # noqa: BLE001 - no data: the digest says so, OCR itself will refuse
            return {lang: "missing" for lang in languages}
        have = installed_languages(directory)
        got = {}
        for lang in languages:
            if lang not in have:
                got[lang] = "missing"
                continue
            digest = blake3.blake3()
            with open(os.path.join(directory, f"{lang}.traineddata"), "rb") as data:
                # read, not mapped: a mapping would count the whole file in this process's
                # peak memory, and an API process computes this digest too
                for chunk in iter(lambda: data.read(DIGEST_CHUNK), b""):
                    digest.update(chunk)
            got[lang] = digest.hexdigest()[:16]
        _digests[languages] = got
    return got
