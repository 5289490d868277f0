"""How large the text of a page image is, and the page enlarged where it is too small to read.

Tesseract reads body text well from about the size it has on a 200 dpi scan (its
documentation: accuracy falls quickly once the x-height drops under 10 pixels), and the size is
what matters, not the resolution a file declares: a screenshot of an invoice or a phone's crop
of a till receipt carries 10 pt text at 7 pixels whatever it says about dots per inch. So the
size of a page's glyphs is measured (the median height of the ink's connected components that
are shaped like characters, on a binarised copy) and a page whose glyphs are smaller than at
``REFERENCE_DPI`` is enlarged to that size before recognition.

The same measure gives an image that declares no usable resolution its scale: a small picture
with legible text is a small document (a receipt), not an A4 page at 40 dpi.
"""
from __future__ import annotations

import numpy as np
from PIL import Image

# Body text of generated invoices scanned at 200 dpi: median glyph height 14-16 pixels (13
# languages, 8 layouts; 11 at 150 dpi, 22 at 300 dpi), bench/RESULTS.md.
REFERENCE_DPI = 200
REFERENCE_GLYPH_PX = 15.0
MEASURE_DPI = 150  # glyphs are measured on a copy no finer than this: as right, and cheaper
MIN_GLYPH_PX = 5  # smaller components are dither, speckle and punctuation
MIN_GLYPHS = 20  # fewer character-shaped components than this: no text to measure
ENLARGE_BELOW = 0.85  # glyphs smaller than this share of the reference size are enlarged
MAX_ENLARGE = 3.0  # beyond it an enlargement invents strokes rather than showing them


def glyph_height(image: Image.Image) -> float | None:
    """Median height in pixels of the character-shaped ink components of a greyscale page
    image; None when there are too few to say."""
    from scipy import ndimage

    pixels = np.asarray(image.convert("L") if image.mode != "L" else image)
    if pixels.size == 0:
        return None
    ink = pixels < otsu_threshold(pixels)
    labels, count = ndimage.label(ink)
    if count < MIN_GLYPHS:
        return None
    max_height = max(MIN_GLYPH_PX + 1, pixels.shape[0] // 10)
    areas = np.bincount(labels.ravel())[1:]
    boxes = np.array([(box[0].start, box[0].stop, box[1].start, box[1].stop)
                      for box in ndimage.find_objects(labels)]).reshape(-1, 4)
    h = boxes[:, 1] - boxes[:, 0]
    w = boxes[:, 3] - boxes[:, 2]
    # a glyph: not a rule (too wide), not a stroke of a table (too narrow and tall), not a
    # blob (filled), not a ring of a frame (hollow)
    # (over every component at once: a page has hundreds to thousands)
    aspect, fill = w / h, areas / (w * h)
    glyph = ((h >= MIN_GLYPH_PX) & (h <= max_height) & (aspect >= 0.15) & (aspect <= 1.6)
             & (fill >= 0.12) & (fill <= 0.9))
    heights = h[glyph]
    if len(heights) < MIN_GLYPHS:
        return None
    return float(np.median(heights))


def text_dpi(image: Image.Image, dpi: float | None = None) -> float | None:
    """The resolution at which the page's glyphs would be the size body text has on a scan of
    that resolution; None when the page shows no measurable text. ``dpi``, where known, lets
    a large page be measured on a reduced copy."""
    scale = 1.0
    if dpi and dpi > MEASURE_DPI * 1.15:
        scale = MEASURE_DPI / dpi
        size = (max(1, round(image.size[0] * scale)), max(1, round(image.size[1] * scale)))
        image = image.resize(size, Image.Resampling.BILINEAR)
    height = glyph_height(image)
    if height is None:
        return None
    return REFERENCE_DPI * (height / scale) / REFERENCE_GLYPH_PX


def enlarge_small_text(image: Image.Image, dpi: float, max_pixels: int
                       ) -> tuple[Image.Image, float]:
    """The page with its text brought up to the reference size where it is smaller (within
    ``MAX_ENLARGE`` and the pixel limit), and the resolution the result has."""
    measured = text_dpi(image, dpi)
    if measured is None or measured >= REFERENCE_DPI * ENLARGE_BELOW:
        return image, dpi
    factor = min(MAX_ENLARGE, REFERENCE_DPI / measured,
                 (max_pixels / (image.size[0] * image.size[1])) ** 0.5)
    if factor <= 1.0 / ENLARGE_BELOW:
        return image, dpi
    size = (round(image.size[0] * factor), round(image.size[1] * factor))
    return image.resize(size, Image.Resampling.BICUBIC), dpi * factor


def otsu_threshold(pixels: np.ndarray) -> int:
    """The grey level that best splits the histogram in two (Otsu's method)."""
    histogram = np.bincount(pixels.ravel(), minlength=256).astype(np.float64)
    share = histogram / histogram.sum()
    below = np.cumsum(share)
    mean_below = np.cumsum(share * np.arange(256))
    mean = mean_below[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (mean * below - mean_below) ** 2 / (below * (1.0 - below))
    between = np.nan_to_num(between)
    return int(np.argmax(between))
