"""Unicode TrueType fonts from PyPI packages (no system fonts needed), registered once.

Four families with full Latin Extended-A (Polish, Czech, Nordic letters), so every language
renders and pdfminer extracts every character (reportlab embeds subsets with a ToUnicode map).
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

from reportlab.lib.fonts import addMapping
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

# family -> (package, regular, bold, italic)
FAMILIES = {
    "SourceSans": ("font_source_sans_pro", "SourceSansPro-Regular.ttf", "SourceSansPro-Bold.ttf",
                   "SourceSansPro-It.ttf"),
    "SourceSerif": ("font_source_serif_pro", "SourceSerifPro-Regular.ttf",
                    "SourceSerifPro-Bold.ttf", "SourceSerifPro-It.ttf"),
    "Caladea": ("font_caladea", "Caladea-Regular.ttf", "Caladea-Bold.ttf", "Caladea-Italic.ttf"),
    "Manrope": ("font_manrope", "Manrope-Regular.ttf", "Manrope-Bold.ttf", "Manrope-Light.ttf"),
}
FAMILY_NAMES = tuple(FAMILIES)


def _font_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"font package {package!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "files"


@functools.cache
def register(family: str) -> tuple[str, str, str]:
    """Register ``family`` with reportlab; returns (regular, bold, italic) font names."""
    package, *files = FAMILIES[family]
    folder = _font_dir(package)
    names = (family, f"{family}-Bold", f"{family}-Italic")
    for name, file in zip(names, files):
        pdfmetrics.registerFont(TTFont(name, str(folder / file)))
    regular, bold, italic = names
    addMapping(family, 0, 0, regular)
    addMapping(family, 1, 0, bold)
    addMapping(family, 0, 1, italic)
    addMapping(family, 1, 1, bold)
    return names
