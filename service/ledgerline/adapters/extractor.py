"""The extractor port: versions that enter the cache key, and one call per document."""
from __future__ import annotations

from typing import Protocol

from ..domain.cache import ExtractorVersions


class Extractor(Protocol):
    versions: ExtractorVersions

    def extract(self, path: str, content_hash: str) -> dict:
        """The invoice-v1 document; raises extraction.ExtractionError for bad input."""


class PdfExtractor:
    """pdfminer.six text layer plus exact embedded e-invoice XML; Tesseract OCR for images and
    for PDF pages without a text layer (``ocr``: an extraction.ocr.OcrOptions)."""

    def __init__(self, use_embedded_xml: bool = True, ocr=None):
        from .. import extraction
        from ..extraction.ocr import OcrOptions

        self._extraction = extraction
        self.use_embedded_xml = use_embedded_xml
        self.ocr = ocr or OcrOptions()
        self.versions = ExtractorVersions(
            schema=extraction.SCHEMA_VERSION,
            preprocessing=extraction.preprocessing_version(self.ocr),
            model=extraction.MODEL_VERSION,
            model_config_digest=extraction.model_config_digest(use_embedded_xml=use_embedded_xml),
        )

    def extract(self, path: str, content_hash: str) -> dict:
        return self._extraction.extract_pdf(path, content_hash=content_hash,
                                            use_embedded_xml=self.use_embedded_xml, ocr=self.ocr)
