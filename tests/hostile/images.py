"""Hostile images, written byte by byte in milliseconds: pixel bombs, page bombs, cut files.

Each declares far more than it holds (a billion pixels over a few kilobytes of compressed zeros,
ten thousand pages sharing one strip), so only a reader that trusts the header is hurt by it.
"""
from __future__ import annotations

import io
import struct
import zlib

from PIL import Image


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png_pixel_bomb(side: int = 100_000) -> bytes:
    """A greyscale PNG of side x side pixels (10 gigapixels): every row zero, compressed."""
    row = b"\x00" + bytes(side)  # filter byte + pixels
    c = zlib.compressobj(9)
    rows = 1000  # enough compressed rows to look real; the file is cut off after them
    body = b"".join(c.compress(row) for _ in range(rows)) + c.flush()
    ihdr = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr) + _png_chunk(b"IDAT", body)
            + _png_chunk(b"IEND", b""))


def _tiff(pages: list[tuple[int, int]], strip: bytes = b"\xff" * 64) -> bytes:
    """A little-endian TIFF whose pages (width, height) all point at one strip of `strip`."""
    out = io.BytesIO()
    out.write(b"II*\x00" + struct.pack("<I", 8 + len(strip)))
    out.write(strip)
    entries_per_ifd = 9
    ifd_size = 2 + entries_per_ifd * 12 + 4
    for i, (width, height) in enumerate(pages):
        here = out.tell()
        following = here + ifd_size if i < len(pages) - 1 else 0
        tags = [(256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, 1), (262, 3, 1),
                (273, 4, 8), (277, 3, 1), (278, 4, height), (279, 4, len(strip))]
        out.write(struct.pack("<H", len(tags)))
        for tag, kind, value in tags:
            out.write(struct.pack("<HHI", tag, kind, 1)
                      + (struct.pack("<HH", value, 0) if kind == 3 else struct.pack("<I", value)))
        out.write(struct.pack("<I", following))
    return out.getvalue()


def tiff_ifd_loop() -> bytes:
    """Two pages whose second page names the first as the next one: a reader that follows the
    chain blindly never ends."""
    data = bytearray(_tiff([(8, 8), (8, 8)]))
    first = struct.unpack_from("<I", data, 4)[0]
    second = first + 2 + 9 * 12 + 4
    struct.pack_into("<I", data, second + 2 + 9 * 12, first)
    return bytes(data)


def tiff_pixel_bomb(side: int = 100_000) -> bytes:
    return _tiff([(side, side)])


def tiff_many_pages(pages: int = 10_000) -> bytes:
    """Ten thousand 8x8 pages (about 1.2 MB): a page bomb, not a pixel bomb."""
    return _tiff([(8, 8)] * pages)


def jpeg_pixel_bomb() -> bytes:
    """A small real JPEG whose frame header claims 65,000 x 65,000 pixels."""
    out = io.BytesIO()
    Image.new("L", (16, 16), 255).save(out, "JPEG")
    data = bytearray(out.getvalue())
    sof = data.index(b"\xff\xc0")
    struct.pack_into(">HH", data, sof + 5, 65000, 65000)  # height, width
    return bytes(data)


def truncated(data: bytes, keep: float = 0.5) -> bytes:
    return data[: int(len(data) * keep)]


def thumbnail_png() -> bytes:
    """An invoice-shaped picture too small to hold legible text (about 30 dpi)."""
    out = io.BytesIO()
    Image.new("L", (250, 350), 255).save(out, "PNG")
    return out.getvalue()
