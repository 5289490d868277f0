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
    areas = np.bincount(labels.ravel())
    boxes = ndimage.find_objects(labels)
    glyphs = unread = 0
    # a character at least ``low`` tall has at least that many pixels: specks are passed over
    for index in np.nonzero(areas[1:] >= low)[0] + 1:
        box = boxes[index - 1]
        if box is None:
            continue
        h, w = box[0].stop - box[0].start, box[1].stop - box[1].start
        if not (low <= h <= high and w <= MAX_WIDTH_HEIGHTS * h
                and areas[index] >= MIN_FILL * h * w):
            continue
        glyphs += 1
        if not covered[(box[0].start + box[0].stop) // 2, (box[1].start + box[1].stop) // 2]:
            unread += 1
    return unread / glyphs if glyphs >= MIN_GLYPHS else 0.0
