"""Light text on a dark band, turned dark on light before recognition.

Invoices print their item table's header, and often the totals row, in white on a coloured band.
Tesseract's layout analysis takes a filled band for a picture and reads nothing in it, so those
headers, and with them the columns of the line items, are lost. A band is found on a coarse copy
of the page: a connected dark area, filled, at least a line of text high and an inch wide, within
the page (what touches the picture's edge is the desk around a photographed page, or the page's
own dark border); inside its box the grey levels are inverted, which makes its text dark on light
like the rest of the page, and its colour is made the brightness of the paper around it (a band
as thin as the paper's window in ``illumination`` would otherwise come out mid-grey, and go to
ink). Not pure white: on a photo's dim paper a white band would be the brightest thing near it,
and ``illumination``, dividing by the brightest level around each pixel, would draw the paper
beside it grey, a shadow around the band in which the item row below a header was not read.
"""
from __future__ import annotations

import numpy as np
from PIL import Image

COARSE_DPI = 50  # bands are found on a copy this fine: a band survives it, text does not
DARK = 150  # grey levels below this, on the coarse copy, are a band's colour
MIN_HEIGHT_INCHES, MIN_WIDTH_INCHES = 0.08, 0.8  # a line of small text high, an inch wide
MIN_FILL = 0.7  # the share of its box the dark area covers: a band, not a frame or a word
MAX_AREA = 0.5  # of the page: a larger dark area is the background, not a band on it
OPENING = 3  # coarse pixels: strokes thinner than this are text or rules, not a band
SURROUND_INCHES = 0.1  # the paper around a band is measured in a margin this wide


def dark_bands(image: Image.Image, dpi: float) -> list[tuple[int, int, int, int]]:
    """Boxes (left, top, right, bottom; pixels of ``image``, mode "L") of the dark bands."""
    from scipy import ndimage

    scale = min(1.0, COARSE_DPI / dpi)
    size = (max(1, round(image.size[0] * scale)), max(1, round(image.size[1] * scale)))
    coarse = np.asarray(image.resize(size, Image.Resampling.BOX) if scale < 1 else image)
    # an opening takes off what is thinner than a band (text and rules touching it)
    dark = ndimage.binary_opening(coarse < DARK, structure=np.ones((OPENING, OPENING)))
    labels, count = ndimage.label(dark)
    if not count:
        return []
    areas = np.bincount(labels.ravel())
    height, width = coarse.shape
    coarse_dpi = dpi * scale
    out = []
    for index, box in enumerate(ndimage.find_objects(labels), start=1):
        if box is None:
            continue
        top, bottom, left, right = box[0].start, box[0].stop, box[1].start, box[1].stop
        rows, cols = bottom - top, right - left
        if (rows < MIN_HEIGHT_INCHES * coarse_dpi or cols < MIN_WIDTH_INCHES * coarse_dpi
                or areas[index] < MIN_FILL * rows * cols
                or rows * cols > MAX_AREA * height * width
                or top == 0 or left == 0 or bottom == height or right == width):
            continue
        out.append((round(left / scale), round(top / scale), min(image.size[0], round(right / scale)),
                    min(image.size[1], round(bottom / scale))))
    return out


def dark_on_light(image: Image.Image, dpi: float) -> Image.Image:
    """The page with every dark band's grey levels inverted (``image`` itself when it has
    none)."""
    bands = dark_bands(image, dpi)
    if not bands:
        return image
    pixels = np.array(image)
    margin = max(1, round(SURROUND_INCHES * dpi))
    for left, top, right, bottom in bands:
        around = pixels[max(0, top - margin):bottom + margin, max(0, left - margin):right + margin]
        white = _paper(around, pixels[top:bottom, left:right])
        band = 255.0 - pixels[top:bottom, left:right].astype(np.float32)
        # the band's own colour, inverted, made the paper's: the text on it is a minority of
        # its pixels, so their median is the band's
        colour = max(float(np.median(band)), 1.0)
        pixels[top:bottom, left:right] = np.clip(band * (white / colour), 0, 255).astype(np.uint8)
    return Image.fromarray(pixels)


def _paper(around: np.ndarray, band: np.ndarray) -> float:
    """The paper's grey level in the margin around a band (``around`` holds the band too): the
    median of the margin's pixels, mostly paper; white where there is no margin."""
    count = around.size - band.size
    if count <= 0:
        return 255.0
    total = np.bincount(around.ravel(), minlength=256) - np.bincount(band.ravel(), minlength=256)
    return float(np.searchsorted(np.cumsum(total), count / 2))
