"""The page's lighting taken out, and light print darkened, before Tesseract binarises it.

Tesseract splits ink from paper with one threshold for the page (Otsu's). Two things defeat
that: uneven light (a phone photo is darker on one side, a scan of a folded page has a shadow
along the fold), where the paper of the dark side falls below the threshold of the light one; and
light print (grey labels over their values, faded thermal receipts) beside black text, which
falls on the paper's side. So each pixel is divided by the paper's brightness around it (the
brightest level within a quarter of an inch, on a coarse copy, smoothed), which makes the paper
white everywhere and keeps ink as dark as it is against its own paper; then grey levels are
squared, which takes a light grey stroke (0.6 of the paper's brightness) to 0.36, well into the
ink, and leaves paper noise near white. What is much darker than the page's paper and reaches
the picture's edge (the desk around a photographed page) is made paper, with the rim where the
page meets it: it holds no text, and stretched to white its noise would.

Measured on scans and photos of generated invoices read through the engine (words read as the
text layer has them, eight pages): 835 against 790 with Tesseract's threshold alone, and 712
with Leptonica's Sauvola binarisation built into Tesseract, which lost the thin strokes of
blurred 150 dpi scans (bench/RESULTS.md).
"""
from __future__ import annotations

import numpy as np
from PIL import Image

BACKGROUND_DPI = 25  # the paper's brightness is estimated on a copy this coarse
WINDOW_INCHES = 0.25  # wider than any stroke, narrower than a shadow's edge
PAPER_PERCENTILE = 95  # the page's paper: this brightest share of the estimate
NOT_PAPER = 0.45  # an estimate under this share of the page's paper is the desk
GAMMA = 2.0
NOISE_SIGMAS = 5.0  # paper brighter than its median less this many of its noise's spreads is paper
NOISE_FLOOR = 0.45  # ... and anything brighter than this, on a page whose grain is that coarse
NOISE_SAMPLE = 4  # the paper's noise is measured on every this many pixels of each row and column


def flatten(image: Image.Image, dpi: float) -> Image.Image:
    """The greyscale page divided by its local paper brightness, squared, the desk made paper."""
    from scipy import ndimage

    scale = min(1.0, BACKGROUND_DPI / dpi)
    size = (max(1, round(image.size[0] * scale)), max(1, round(image.size[1] * scale)))
    coarse = np.asarray(image.resize(size, Image.Resampling.BOX), dtype=np.float32)
    window = max(3, round(WINDOW_INCHES * dpi * scale) | 1)
    paper = ndimage.uniform_filter(ndimage.maximum_filter(coarse, size=window), size=window)
    level = float(np.percentile(paper, PAPER_PERCENTILE))
    if level <= 0:
        return image  # a black page: nothing to flatten
    background = np.array(Image.fromarray(paper).resize(image.size, Image.Resampling.BILINEAR),
                          dtype=np.float32)
    out = np.asarray(image, dtype=np.float32)
    # in place throughout: a page is millions of pixels, and every temporary costs as much as
    # the arithmetic
    np.divide(out, np.maximum(background, 1.0, out=background), out=out)
    np.clip(out, 0.0, 1.0, out=out)
    np.power(out, GAMMA, out=out)
    desk = _desk(coarse, level, window)
    if desk is not None:
        out[np.asarray(Image.fromarray(desk).resize(image.size, Image.Resampling.NEAREST))] = 1.0
    np.multiply(out, 255.0, out=out)
    return Image.fromarray(np.rint(out, out=out).astype(np.uint8))


def without_grain(image: Image.Image) -> Image.Image:
    """The flattened page (``flatten``'s result) with what is no darker than the paper's own
    grain made white. Dividing by the paper's brightness and squaring stretch a photo's sensor
    noise with the paper: a dim corner's grain comes out a fifth of the way to black, and
    Tesseract's one threshold for the page, set between that grain and the ink, can keep
    specks enough to take whole tables for pictures (a phone photo's item table read as
    nothing, its rules as rows of blank words). The paper is most of the page, so the median
    is paper and the spread of the darker half of it (to the lower quartile, ink a small
    share) measures its grain. On generated scans that spread is 0.03-0.07 of white and the
    cut lies at 0.6-0.85; on phone photos 0.06-0.19, and the cut falls to ``NOISE_FLOOR``,
    about where Tesseract's own threshold would split ink from clean paper. Which of the two
    reads better is the page's own matter (Tesseract's layout analysis turns on small
    changes of the threshold): ``reading`` reads this one where the first reading left much
    of the page's text unread, and keeps the better."""
    pixels = np.asarray(image, dtype=np.float32) / 255.0
    median, quartile = np.percentile(pixels[::NOISE_SAMPLE, ::NOISE_SAMPLE], [50, 25])
    spread = (median - quartile) / 0.674  # a normal distribution's quartile, in deviations
    cut = max(NOISE_FLOOR, median - NOISE_SIGMAS * spread)
    out = np.asarray(image).copy()
    out[pixels > cut] = 255
    return Image.fromarray(out)


def _desk(coarse: np.ndarray, level: float, window: int) -> np.ndarray | None:
    """Where the desk around a photographed page is, on the coarse copy: the areas far darker
    than the paper that reach the picture's edge, widened by the background's window (whose
    estimate at the page's edge is the paper's, which would draw the desk as a black rim)."""
    from scipy import ndimage

    labels, count = ndimage.label(coarse < NOT_PAPER * level)
    if not count:
        return None
    edge = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
    edge = edge[edge > 0]
    if not len(edge):
        return None
    desk = np.isin(labels, edge)
    return ndimage.binary_dilation(desk, structure=np.ones((window, window), dtype=bool))
