"""A photographed page cut from its desk and its perspective taken out, from the page's outline.

A phone held over a page sees it as a quadrilateral on a darker desk: the far edge shorter than
the near one, rows that fan out. Tesseract takes out a skew, not a keystone, so the rows of a
table at the top and at the bottom lean differently and cells split and merge. The page is found
on a coarse copy (the largest bright area, by Otsu's threshold, that the desk around it sets
apart), its four corners are the outline's extreme points along the two diagonals, and the page
is warped onto the rectangle of its longer sides; a page turned in the frame may touch all four
edges of the picture with its corners and is still whole. A scan, whose page fills the picture,
or a photo whose page is not a plain quadrilateral (cropped, folded, a side along the picture's
edge where a light desk joins it), and a page whose bright area is one part of it (a white
block on a tinted invoice: what lies around it is paper, not desk) are left as they are.
"""
from __future__ import annotations

import math

import numpy as np
from PIL import Image

from .text_size import otsu_threshold

COARSE_DPI = 40  # the outline is found on a copy this fine
MIN_PAGE_SHARE = 0.2  # of the picture: a smaller bright area is a receipt's detail, not the page
FILLS_PICTURE = 0.97  # a bright area this large, or touching every edge, is a scan's page
MIN_QUAD_FILL = 0.92  # the bright area covers this share of its corners' quadrilateral
MIN_CORRECTION_PX = 4  # coarse pixels a corner must be off the picture's own corner to bother
MIN_DESK_SHARE = 0.8  # of what lies around the page, the share that is darker than paper
# A page turned in the frame may reach every edge of the picture with its corners alone; one
# that reaches every edge along more than this share of it runs off the picture (a crop).
CORNER_TOUCH = 0.25


def page_corners(image: Image.Image, dpi: float) -> list[tuple[float, float]] | None:
    """The page's corners (top left, top right, bottom right, bottom left) in the pixels of
    ``image`` (mode "L"), or None where the picture shows no photographed page."""
    from scipy import ndimage

    scale = min(1.0, COARSE_DPI / dpi)
    size = (max(1, round(image.size[0] * scale)), max(1, round(image.size[1] * scale)))
    coarse = np.asarray(image.resize(size, Image.Resampling.BOX) if scale < 1 else image)
    bright = coarse > otsu_threshold(coarse)
    bright = ndimage.binary_opening(bright, structure=np.ones((3, 3), dtype=bool))
    bright = ndimage.binary_fill_holes(bright)
    labels, count = ndimage.label(bright)
    if not count:
        return None
    areas = np.bincount(labels.ravel())
    areas[0] = 0
    page = labels == int(np.argmax(areas))
    height, width = page.shape
    area = int(page.sum())
    if area < MIN_PAGE_SHARE * height * width or area > FILLS_PICTURE * height * width:
        return None
    if min(page[0].mean(), page[-1].mean(), page[:, 0].mean(), page[:, -1].mean()) \
            > CORNER_TOUCH:
        return None  # the page runs off every edge: a scan, or a crop of the page
    outside = coarse[~page]
    if outside.size and (outside <= otsu_threshold(coarse)).mean() < MIN_DESK_SHARE:
        return None  # what lies around the bright area is mostly paper too: no desk, no photo
    ys, xs = np.nonzero(page)
    corners = [(xs[k], ys[k]) for k in (np.argmin(xs + ys), np.argmax(xs - ys),
                                        np.argmax(xs + ys), np.argmin(xs - ys))]
    if _quad_area(corners) <= 0 or area < MIN_QUAD_FILL * _quad_area(corners):
        return None
    touches = (page[:, 0].any(), page[0].any(), page[:, -1].any(), page[-1].any())
    if any(_along_edge(a, b, width, height, touches)
           for a, b in zip(corners, corners[1:] + corners[:1], strict=True)):
        return None  # a side on the picture's edge: the page runs off it, or a light desk joins it
    picture = [(0, 0), (width - 1, 0), (width - 1, height - 1), (0, height - 1)]
    if all(math.dist(c, p) < MIN_CORRECTION_PX for c, p in zip(corners, picture, strict=True)):
        return None
    # the coarse pixel's centre, in the picture's pixels
    return [((x + 0.5) / scale, (y + 0.5) / scale) for x, y in corners]


def flattened_page(image: Image.Image, dpi: float) -> Image.Image:
    """The photographed page warped onto its rectangle (``image`` itself where there is none)."""
    corners = page_corners(image, dpi)
    if corners is None:
        return image
    tl, tr, br, bl = corners
    width = round(max(math.dist(tl, tr), math.dist(bl, br)))
    height = round(max(math.dist(tl, bl), math.dist(tr, br)))
    target = [(0, 0), (width, 0), (width, height), (0, height)]
    return image.transform((width, height), Image.Transform.PERSPECTIVE,
                           _coefficients(target, corners), Image.Resampling.BICUBIC,
                           fillcolor=255)


def _coefficients(target, source) -> list[float]:
    """PIL's eight perspective coefficients: the map from the output's (target) points to the
    input's (source) points."""
    rows, values = [], []
    for (x, y), (u, v) in zip(target, source, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        values += [u, v]
    return list(np.linalg.solve(np.array(rows, dtype=float), np.array(values, dtype=float)))


def _along_edge(a, b, width: int, height: int, touches: tuple[bool, bool, bool, bool]) -> bool:
    """Do both ends of a side lie on the same edge of the picture, one the page reaches
    (``touches``: left, top, right, bottom)? A page a few pixels short of the picture's edge all
    along, a strip of desk between them, is a page photographed whole: its side is its outline."""
    near = MIN_CORRECTION_PX
    left, top, right, bottom = touches
    return ((left and a[0] <= near and b[0] <= near) or (top and a[1] <= near and b[1] <= near)
            or (right and a[0] >= width - 1 - near and b[0] >= width - 1 - near)
            or (bottom and a[1] >= height - 1 - near and b[1] >= height - 1 - near))


def _quad_area(corners) -> float:
    """The shoelace area of the quadrilateral (positive for corners in clockwise image order)."""
    total = 0.0
    for (x1, y1), (x2, y2) in zip(corners, corners[1:] + corners[:1], strict=True):
        total += x1 * y2 - x2 * y1
    return total / 2
