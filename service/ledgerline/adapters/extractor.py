"""The extractor port: versions that enter the cache key, and one call per document."""
from __future__ import annotations

from typing import Protocol

from ..domain.cache import ExtractorVersions


class Extractor(Protocol):
    versions: ExtractorVersions

    def extract(self, path: str, content_hash: str) -> dict:
        """The invoice-v1 document; raises extraction.ExtractionError for bad input."""


class PdfExtractor:
    """pdfminer.six text layer plus exact embedded e-invoice XML."""

    def __init__(self, use_embedded_xml: bool = True):
        from .. import extraction

        self._extraction = extraction
        self.use_embedded_xml = use_embedded_xml
        self.versions = ExtractorVersions(
            schema=extraction.SCHEMA_VERSION,
            preprocessing=extraction.PREPROCESSING_VERSION,
            model=extraction.MODEL_VERSION,
            model_config_digest=extraction.model_config_digest(use_embedded_xml=use_embedded_xml),
        )

    def extract(self, path: str, content_hash: str) -> dict:
        from .. import __version__

        document = self._extraction.extract_pdf(path, content_hash=content_hash,
                                                use_embedded_xml=self.use_embedded_xml)
        # Which release made it, for whoever reads a stored or cached document later; the
        # cache key does not include it (the model and preprocessing versions decide reuse).
        document["versions"]["service"] = __version__
        return document
