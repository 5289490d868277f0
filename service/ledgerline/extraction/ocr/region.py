"""A second reading of a region of an OCR'd page: the second recogniser (``second_opinion``)
reads the pixels inside a box given in the page's points, and a character's column is looked at
for the ink of a mark its reading may have left out.

Tesseract reads every word of a page once. A value whose spelling nothing else on the page
confirms (a seller's name printed once) can be read again from the same pixels by the other
engine, whose misreads are its own (PP-OCR drops accents and, at a tight crop, a first or last
letter; Tesseract reads a "q" for an "a" on a blurred photo): the two reading it alike, letter
for letter, is evidence of its spelling that no second place on the page gives
(:mod:`.spelling`). The first and the last page of a document keep the picture they were read
from for that, until the document is read; only the region asked for is read again.

The second recogniser cannot tell a dropped accent (it reads "Batiment" for "Bâtiment" as
Tesseract may), so whether a letter read plain carries an accent is asked of the pixels
(:meth:`PagePicture.ink`): how high and how low the ink of each pixel column of the name's
place reaches, from a little above its line to a little below. An accent, attached to its
letter or not, raises the letter above its like (an "a" above the other short letters), a
cedilla or an ogonek takes it below the baseline (:mod:`.spelling` compares them). Specks of
the paper's grain and the strokes of the line above reaching into the band do not count.
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
MIN_INK = 0.004  # of the line's height squared: less is a speck (the dot of an "i" is 0.013)


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

    def ink(self, bbox: list[float]) -> list[tuple[float, float, float]]:
        """Each pixel column inside ``bbox`` (points; a line's height) that has ink, from a
        little above the line to a little below: (x, the ink's top, its bottom), in points.
        Specks of the paper's grain, and strokes of the line above reaching into the band, are
        left out (see the module's doc)."""
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
        for k, found in enumerate(ndimage.find_objects(labels), start=1):
            if found is None:
                continue
            piece = labels[found] == k
            if found[0].start == 0 or piece.sum() < MIN_INK * height * height:
                band[found] &= ~piece
        out = []
        page_top = self._picture.size[1] + above - top  # band row 0 in page rows from bottom
        for column in np.flatnonzero(band.any(axis=0)):
            rows = np.flatnonzero(band[:, column])
            out.append(((left + column + 0.5) / self._scale, (page_top - rows[0]) / self._scale,
                        (page_top - rows[-1] - 1) / self._scale))
        return out

    def close(self) -> None:
        self._picture.close()

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
