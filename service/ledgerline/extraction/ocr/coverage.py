"""How much of a page's text a reading left unread: the character-shaped ink outside every word.

Tesseract's layout analysis sometimes drops a whole block of a page: a photographed item table
whose rules it took for rows of blank words, a band of lines it judged a picture. Nothing in the
reading says so (the words it did read are as sure as ever), but the page does: its ink is
there, character by character, with no word over it. The ink is taken on a copy of about
``MEASURE_DPI`` (``INK`` and darker on the prepared page, whose paper is white); a component the
size of a character or of a few run together is text, one taller (a frame, a table's grid, a
logo) or flatter (a rule) is not.
"""
from __future__ import annotations

import numpy as np
from PIL import Image

from .engine import Word

MEASURE_DPI = 100
INK = 128
MIN_HEIGHT_INCHES, MAX_HEIGHT_INCHES = 0.035, 0.25  # 6 pt to 36 pt text
MAX_WIDTH_HEIGHTS = 8.0  # letters run together by blur or bold type, a short word
MIN_FILL = 0.1  # of its box: a component thinner than this is a frame's corner, not a glyph
MARGIN_HEIGHTS = 0.3  # a word's box is widened by this share of its height all round
MIN_GLYPHS = 40  # fewer character-shaped components: too little text to judge


def unread_share(picture: Image.Image, words: list[Word], dpi: float) -> float:
    """The share of the page's character-shaped components that lie outside every word read
    with a letter or a digit (0 where the page shows too little text to say)."""
    from scipy import ndimage

    factor = max(1, round(dpi / MEASURE_DPI))
    small = picture.reduce(factor) if factor > 1 else picture
    ink = np.asarray(small.convert("L") if small.mode != "L" else small) < INK
    labels, count = ndimage.label(ink)
    if count < MIN_GLYPHS:
        return 0.0
    covered = np.zeros(ink.shape, dtype=bool)
    for word in words:
        if not any(ch.isalnum() for ch in word.text):
            continue
        left, top, right, bottom = word.box
        pad = MARGIN_HEIGHTS * (bottom - top)
        covered[max(0, int((top - pad) / factor)):int((bottom + pad) / factor) + 1,
                max(0, int((left - pad) / factor)):int((right + pad) / factor) + 1] = True
    scale = dpi / factor
    low, high = MIN_HEIGHT_INCHES * scale, MAX_HEIGHT_INCHES * scale
    tops, lefts, bottoms, rights, areas = _boxes(labels, count)
    height, width = bottoms - tops, rights - lefts
    # a character at least ``low`` tall has at least that many pixels: specks are passed over
    glyph = ((areas >= low) & (height >= low) & (height <= high)
             & (width <= MAX_WIDTH_HEIGHTS * height) & (areas >= MIN_FILL * height * width))
    glyphs = int(glyph.sum())
    if glyphs < MIN_GLYPHS:
        return 0.0
    unread = ~covered[(tops[glyph] + bottoms[glyph]) // 2, (lefts[glyph] + rights[glyph]) // 2]
    return int(unread.sum()) / glyphs


def _boxes(labels: np.ndarray, count: int) -> tuple[np.ndarray, ...]:
    """Each component's box (top, left, bottom and right, the last two exclusive, as
    `ndimage.find_objects` gives them) and its pixel count, computed over all components at
    once: a page has thousands, and a Python loop over them cost more than the reading's
    other checks together."""
    flat = labels.ravel()
    where = np.flatnonzero(flat)
    order = np.argsort(flat[where], kind="stable")
    where = where[order]
    starts = np.searchsorted(flat[where], np.arange(1, count + 1))
    rows, cols = np.divmod(where, labels.shape[1])
    areas = np.diff(np.append(starts, where.size))
    return (np.minimum.reduceat(rows, starts), np.minimum.reduceat(cols, starts),
            np.maximum.reduceat(rows, starts) + 1, np.maximum.reduceat(cols, starts) + 1, areas)
