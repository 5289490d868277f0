"""Decoding scans and photos within limits: pages counted and pixels weighed before decoding.

A hostile image is cheapest to refuse from its header: a PNG or TIFF can declare a billion pixels
over a few kilobytes of compressed zeros, a TIFF can chain ten thousand pages. So every frame's
declared size is checked before any pixel is decoded, frames are counted only up to the page
limit, and a decoding error (a truncated or corrupt file) is an ``image_malformed`` answer, not a
crash. Each frame comes back upright (EXIF orientation applied), in greyscale, at the resolution
OCR reads well at (its own, between 200 dpi and the configured DPI), with that resolution. An
image's own resolution is the one its file declares where that gives a document's width, else
the one its glyphs show (``text_size``).
"""
from __future__ import annotations

import contextlib
import math
import struct
import warnings
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from PIL import Image, ImageFile

from ..errors import ExtractionError
from .options import OcrOptions
from .text_size import text_dpi

# A declared resolution is believed only when it gives the frame a document's width:
# phone cameras write 72 dpi into every photo, whatever they photographed.
PLAUSIBLE_WIDTH_INCHES = (2.0, 17.0)
# A photo of unknown scale whose glyphs cannot be measured is taken to show a page as long as A4
# (the longest common page).
ASSUMED_LONG_SIDE_INCHES = 11.69
MIN_READABLE_DPI = 70  # below it, body text is a few pixels tall: nothing to read
NO_UPSCALE_ABOVE = 0.9  # within 10 % of the target resolution, resampling gains nothing
# Tesseract reads 200 dpi as well as 300 (bench/RESULTS.md) at less than half the pixels:
# images between the two are read as they are, coarser ones enlarged to it.
NATIVE_DPI_FLOOR = 200
DECODE_ERRORS = (OSError, SyntaxError, ValueError, EOFError, struct.error, zlib.error,
                 IndexError, KeyError, TypeError, MemoryError)


@dataclass
class Frame:
    image: Image.Image  # mode "L", upright
    dpi: float  # pixels per inch of `image`
    number: int  # 1-based page number


def frames(path: str, options: OcrOptions) -> Iterator[Frame]:
    """The pages of an image file, one decoded at a time, each checked before decoding."""
    _register_heif()
    with _header_only(), _decoding(), Image.open(path) as img:
        count = _count_frames(img, options.max_pages)
        for index in range(count):
            if index:
                img.seek(index)
            yield _decode(img, index + 1, options)


def check_frames(path: str, options: OcrOptions) -> int:
    """The number of pages, each page's declared size checked; no pixel is decoded."""
    _register_heif()
    with _header_only(), _decoding(), Image.open(path) as img:
        count = _count_frames(img, options.max_pages)
        for index in range(count):
            img.seek(index)
            check_pixels(*img.size, options, f"page {index + 1}" if count > 1 else "the image")
        return count


def check_pixels(width: int, height: int, options: OcrOptions, what: str = "the image") -> None:
    if width <= 0 or height <= 0:
        raise ExtractionError("image_malformed", f"{what} has no pixels")
    if width * height > options.max_pixels:
        raise ExtractionError("image_too_large", f"{what} has {width}x{height} pixels; the limit "
                              f"is {options.max_pixels:,} pixels a page")


def _count_frames(img: Image.Image, max_pages: int) -> int:
    """Step through the frames up to one past the limit; a chain that long is refused."""
    if not getattr(img, "is_animated", False) and getattr(img, "n_frames", 1) == 1:
        return 1
    count = 1
    while True:
        try:
            img.seek(count)
        except EOFError:
            break
        count += 1
        if count > max_pages:
            raise ExtractionError("image_too_many_pages",
                                  f"more than {max_pages} pages, the limit")
    img.seek(0)
    return count


def _decode(img: Image.Image, number: int, options: OcrOptions) -> Frame:
    what = f"page {number}" if getattr(img, "n_frames", 1) > 1 else "the image"
    check_pixels(*img.size, options, what)
    declared = declared_dpi(img)
    dpi = declared or max(img.size) / ASSUMED_LONG_SIDE_INCHES
    orientation = _orientation(img)
    full_width = img.size[0]
    target = _target_dpi(img.size, dpi, options)
    if img.format == "JPEG" and target / dpi < 0.5:  # decode at 1/2, 1/4 or 1/8 size: less work
        img.draft("L", (math.ceil(img.size[0] * target / dpi),
                        math.ceil(img.size[1] * target / dpi)))
    image = img.convert("L") if img.mode != "L" else img.copy()
    current = dpi * image.size[0] / full_width
    if declared is None:
        # No resolution on record: the glyphs' size gives the scale. A small picture of a till
        # receipt is a small document, not an A4 page at 40 dpi; a page with no measurable
        # text keeps the A4 assumption.
        measured = text_dpi(image, current)
        if measured is not None:
            current = measured
            dpi = measured * full_width / image.size[0]
            target = _target_dpi(img.size, dpi, options)
    if dpi < MIN_READABLE_DPI:
        raise ExtractionError("image_resolution_too_low",
                              f"{what} has about {dpi:.0f} dpi; at least {MIN_READABLE_DPI} dpi "
                              "is needed to read it")
    if orientation in _TRANSPOSE:
        image = image.transpose(_TRANSPOSE[orientation])
    factor = target / current
    if not NO_UPSCALE_ABOVE <= factor <= 1 / NO_UPSCALE_ABOVE:
        size = (max(1, round(image.size[0] * factor)), max(1, round(image.size[1] * factor)))
        image = image.resize(size, Image.Resampling.LANCZOS if factor < 1
                             else Image.Resampling.BICUBIC)
        current = target
    return Frame(image=image, dpi=current, number=number)


_T = Image.Transpose
_TRANSPOSE = {2: _T.FLIP_LEFT_RIGHT, 3: _T.ROTATE_180, 4: _T.FLIP_TOP_BOTTOM, 5: _T.TRANSPOSE,
              6: _T.ROTATE_270, 7: _T.TRANSVERSE, 8: _T.ROTATE_90}


def _orientation(img: Image.Image) -> int:
    """The EXIF orientation tag (1 = upright); phones store photos sideways and say so here."""
    try:
        return int(img.getexif().get(0x0112, 1))
    except (TypeError, ValueError, AttributeError):
        return 1


def _target_dpi(size: tuple[int, int], dpi: float, options: OcrOptions) -> float:
    """The image's own resolution, reduced to the configured DPI and enlarged to
    ``NATIVE_DPI_FLOOR``, lowered where the page would not fit the pixel limit."""
    square_inches = size[0] / dpi * size[1] / dpi
    wanted = min(options.dpi, max(dpi, min(NATIVE_DPI_FLOOR, options.dpi)))
    return min(wanted, math.sqrt(options.max_pixels / square_inches))


def declared_dpi(img: Image.Image) -> float | None:
    """The file's own resolution, where it describes a page of a document's width."""
    info = img.info.get("dpi")
    try:
        x = float(info[0]) if info else 0.0
    except (TypeError, ValueError, IndexError):
        return None
    if not x or not math.isfinite(x):
        return None
    width = _upright_width(img) / x
    lo, hi = PLAUSIBLE_WIDTH_INCHES
    return x if lo <= width <= hi else None


def _upright_width(img: Image.Image) -> int:
    """Width of the frame once EXIF orientation is applied (a quarter turn swaps the sides)."""
    return img.size[1] if _orientation(img) in (5, 6, 7, 8) else img.size[0]


@contextlib.contextmanager
def _header_only():
    """Pillow's own bomb check warns or fails at a fixed size; ours is the configured one."""
    saved = Image.MAX_IMAGE_PIXELS
    Image.MAX_IMAGE_PIXELS = None
    try:
        yield
    finally:
        Image.MAX_IMAGE_PIXELS = saved


@contextlib.contextmanager
def _decoding():
    """Every way a damaged file breaks a decoder becomes one answer."""
    assert not ImageFile.LOAD_TRUNCATED_IMAGES  # noqa: S101 - a cut file must fail, not decode half a page
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # EXIF and metadata quirks are not our business
            yield
    except ExtractionError:
        raise
    except MemoryError:
        raise ExtractionError("image_too_large", "decoding the image ran out of memory") from None
    except DECODE_ERRORS as exc:
        raise ExtractionError("image_malformed", f"cannot decode the image: "
                              f"{_reason(exc)}") from exc


def _reason(exc: Exception) -> str:
    text = str(exc).strip()
    return text[:200] if text else type(exc).__name__


_heif_registered = False


def _register_heif() -> None:
    global _heif_registered
    if not _heif_registered:
        import pillow_heif

        pillow_heif.register_heif_opener()
        _heif_registered = True
