"""What OCR is asked to do, and the limits it works within; all of it enters the cache key."""
from __future__ import annotations

from dataclasses import dataclass

from ..languages import BY_SCRIPT, CODES, LANGUAGES

DEFAULT_DPI = 300
MIN_DPI, MAX_DPI = 100, 600  # the range a configured DPI must lie in
# 100 million pixels: a 48-megapixel phone photo passes, an A4 page at 1200 dpi (140 MP) does not.
DEFAULT_MAX_PIXELS = 100_000_000
MIN_MAX_PIXELS = 1_000_000  # a limit below this refuses ordinary receipts
DEFAULT_MAX_PAGES = 200
# Tesseract's language argument for a page written in Han script or Japanese kana (see
# ``engine.py``): the languages read by script, and English for the Latin words and figures.
CJK_TESSERACT_LANGUAGES = "+".join([*(lang.tesseract for lang in BY_SCRIPT.values()), "eng"])


@dataclass(frozen=True)
class OcrOptions:
    """``languages`` are ISO 639-1 codes, the first one primary; ``dpi`` the resolution pages
    are rendered and images normalised to; ``max_pixels`` the largest page (frame) decoded;
    ``max_pages`` the most frames or OCR'd pages one document may have."""

    languages: tuple[str, ...] = CODES  # every language Ledgerline reads
    dpi: int = DEFAULT_DPI
    max_pixels: int = DEFAULT_MAX_PIXELS
    max_pages: int = DEFAULT_MAX_PAGES

    def __post_init__(self) -> None:
        unknown = [lang for lang in self.languages if lang not in LANGUAGES]
        if unknown or not self.languages:
            raise ValueError(f"OCR languages must be some of {', '.join(CODES)}; "
                             f"got {', '.join(self.languages) or 'none'}")
        if not MIN_DPI <= self.dpi <= MAX_DPI:
            raise ValueError(f"the OCR DPI must lie between {MIN_DPI} and {MAX_DPI}; "
                             f"got {self.dpi}")
        if self.max_pixels < MIN_MAX_PIXELS or self.max_pages < 1:
            raise ValueError(f"the OCR pixel limit must be at least {MIN_MAX_PIXELS} and the "
                             "page limit at least 1")

    @property
    def tesseract_languages(self) -> str:
        """Tesseract's language argument, e.g. ``eng+deu``."""
        return "+".join(LANGUAGES[lang].tesseract for lang in self.languages)

    @classmethod
    def from_settings(cls, settings) -> OcrOptions:
        return cls(languages=cls.parse_languages(settings.ocr_languages), dpi=settings.ocr_dpi,
                   max_pixels=settings.ocr_max_pixels, max_pages=settings.extract_max_pages)

    @classmethod
    def parse_languages(cls, text: str) -> tuple[str, ...]:
        """``en,de`` or ``en+de`` → ("en", "de"); ``all`` → every language OCR knows."""
        text = text.strip().lower()
        if text == "all":
            return CODES
        return tuple(p for p in text.replace("+", ",").replace(" ", ",").split(",") if p)
