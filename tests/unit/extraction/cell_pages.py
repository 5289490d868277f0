"""Invented pages for the extraction's unit tests: text cells placed by hand."""
from ledgerline.extraction.geometry import DocText
from ledgerline.extraction.model import Line, Page

CHAR_WIDTH, HEIGHT = 5.0, 9.0


def page_of(*cells) -> DocText:
    """A page of (x, y, text) cells, one line each, characters CHAR_WIDTH wide."""
    lines = []
    for x, y, text in cells:
        chars = [(x + k * CHAR_WIDTH, x + (k + 1) * CHAR_WIDTH) for k in range(len(text))]
        lines.append(Line(1, x, y, x + len(text) * CHAR_WIDTH, y + HEIGHT, text, chars))
    return DocText([Page(1, 595, 842, lines)])
