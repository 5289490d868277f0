"""A second reading of a region of an OCR'd page: the second recogniser (``second_opinion``)
reads the pixels inside a box given in the page's points, and a character's column is looked at
for a mark its reading may have left out.

Tesseract reads every word of a page once. A value whose spelling nothing else on the page
confirms (a seller's name printed once) can be read again from the same pixels by the other
engine, whose misreads are its own (PP-OCR drops accents and, at a tight crop, a first or last
letter; Tesseract reads a "q" for an "a" on a blurred photo): the two reading it alike, letter
for letter, is evidence of its spelling that no second place on the page gives
(:mod:`.spelling`). A page keeps the picture it was read from for that, until the document is
read; only the region asked for is read again.

The second recogniser cannot tell a dropped accent (it reads "Batiment" for "Bâtiment" as
Tesseract may), so whether a letter read plain carries an accent is asked of the pixels
(:meth:`PagePicture.marked`): the ink of the name's place, from a little above its line to a
little below, falls into pieces; a piece on its own above the lower case letters' tops or
below the baseline is a mark (an accent, a detached cedilla or ogonek, the dot of an "i"; any
of them keeps the letter under it in doubt), a speck of the paper's grain is not.
"""
from __future__ import annotations

import numpy as np
from PIL import Image

from .engine import PageResult
from .lines import POINTS_PER_INCH
from .second_opinion import Recogniser, crop

INK = 128  # grey levels below this are ink (the picture is levelled in its lighting)
# The band looked at, in heights of the line's box (descender bottom to ascender top): from
# this far above its top (an accent over a capital reaches above the ascenders) to this far
# below its bottom.
MARK_ABOVE, MARK_BELOW = 0.35, 0.1
# A piece of ink on its own is a mark when it ends above the lower case letters' tops (the
# line's box puts them about a third of its height down), or starts below the baseline (about
# four fifths down), and is not a speck of the paper's grain.
OVER_LETTERS, UNDER_LETTERS = 0.4, 0.82
MIN_MARK_INK = 0.004  # of the line's height squared: the dot of an "i" is about 0.013


class PagePicture:
    """The picture a page's words were read from, and how the page's points (origin bottom
    left) land on its pixels (origin top left)."""

    def __init__(self, picture: Image.Image, dpi: float, levelled: float,
                 recogniser: Recogniser):
        self._picture = picture
        self._scale = dpi / POINTS_PER_INCH
        self._levelled = levelled
        self._recogniser = recogniser

    def read(self, bbox: list[float]) -> tuple[str, float]:
        """What the second recogniser reads inside ``bbox`` ([x0, y0, x1, y1] in points), and
        how sure it is (0..1)."""
        box = self._pixels(bbox)
        if box[2] <= box[0] or box[3] <= box[1]:
            return "", 0.0
        return self._recogniser.read([crop(self._level(), box)])[0]

    def marks(self, bbox: list[float]) -> list[tuple[float, float]]:
        """The horizontal extents (points) of the marks over or under the text inside ``bbox``
        (points; a line's height), apart from the letters' own strokes (see the module's doc)."""
        from scipy import ndimage

        left, top, right, bottom = self._pixels(bbox)
        height = bottom - top
        if right <= left or height <= 0:
            return []
        picture = self._level()
        above = min(top, round(MARK_ABOVE * height))
        band = np.asarray(picture.crop((left, top - above, right, min(
            picture.size[1], bottom + round(MARK_BELOW * height))))) < INK
        labels, _ = ndimage.label(band, structure=np.ones((3, 3)))
        out = []
        for k, found in enumerate(ndimage.find_objects(labels), start=1):
            if found is None:
                continue
            rows, columns = found
            ink = int((labels[found] == k).sum())
            if ink < MIN_MARK_INK * height * height or rows.start == 0:
                continue  # a speck, or a stroke of the line above reaching into the band
            over = rows.stop - above <= OVER_LETTERS * height
            under = rows.start - above >= UNDER_LETTERS * height
            if over or under:
                out.append(((left + columns.start) / self._scale,
                            (left + columns.stop) / self._scale))
        return out

    def _pixels(self, bbox: list[float]) -> tuple[int, int, int, int]:
        height = self._picture.size[1]
        x0, y0, x1, y1 = bbox
        return (round(x0 * self._scale), round(height - y1 * self._scale),
                round(x1 * self._scale), round(height - y0 * self._scale))

    def _level(self) -> Image.Image:
        if self._levelled:  # the boxes were levelled, not the picture: level it as they were
            self._picture = self._picture.rotate(self._levelled,
                                                 resample=Image.Resampling.BILINEAR,
                                                 fillcolor=255)
            self._levelled = 0.0
        return self._picture


def reader(result: PageResult, dpi: float, recogniser: Recogniser | None) -> PagePicture | None:
    """How to read a region of the page ``result`` describes again (None without the second
    recogniser, or without the picture)."""
    if recogniser is None or result.picture is None:
        return None
    return PagePicture(result.picture, dpi, result.levelled, recogniser)
