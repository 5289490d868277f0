"""What a file is, told by its first bytes, never by its name or a Content-Type header.

Intake decides from this what it accepts; extraction decides which source reads a file; the
file endpoint answers with the media type of what was uploaded. Only signatures are read here:
whether the rest of the file is any good is for the reader of that format to find out.
"""
from __future__ import annotations

import enum
import os

# Enough for every signature below; PDF readers accept the header within the first 1024 bytes.
HEAD_BYTES = 1024


class Format(str, enum.Enum):
    PDF = "pdf"
    JPEG = "jpeg"
    PNG = "png"
    TIFF = "tiff"
    WEBP = "webp"
    HEIF = "heif"
    XML = "xml"
    UNKNOWN = "unknown"

    @property
    def media_type(self) -> str:
        return MEDIA_TYPES[self]

    @property
    def is_image(self) -> bool:
        return self in IMAGE_FORMATS

    @property
    def suffix(self) -> str:
        """A file-name suffix for temporary copies (tools that look at names see the truth)."""
        return SUFFIXES[self]


MEDIA_TYPES = {
    Format.PDF: "application/pdf",
    Format.JPEG: "image/jpeg",
    Format.PNG: "image/png",
    Format.TIFF: "image/tiff",
    Format.WEBP: "image/webp",
    Format.HEIF: "image/heif",
    Format.XML: "application/xml",
    Format.UNKNOWN: "application/octet-stream",
}
SUFFIXES = {Format.PDF: ".pdf", Format.JPEG: ".jpg", Format.PNG: ".png", Format.TIFF: ".tif",
            Format.WEBP: ".webp", Format.HEIF: ".heic", Format.XML: ".xml",
            Format.UNKNOWN: ".bin"}
IMAGE_FORMATS = frozenset({Format.JPEG, Format.PNG, Format.TIFF, Format.WEBP, Format.HEIF})
# What an upload may be. Everything else is refused at the door with these names.
ACCEPTED = frozenset({Format.PDF, Format.XML}) | IMAGE_FORMATS

# ISO base media files (HEIF) name their kind in the `ftyp` box: these brands are HEIF images
# (HEVC-coded, or the generic image brands); AVIF and video brands are not.
HEIF_BRANDS = frozenset({b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"hevm", b"hevs",
                         b"mif1", b"msf1"})
_XML_STARTS = (b"<?xml", b"<")
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


def detect(head: bytes) -> Format:
    """The format of a file whose first bytes (at least HEAD_BYTES, where it has them) are `head`."""
    if head.startswith(b"\xff\xd8\xff"):
        return Format.JPEG
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return Format.PNG
    if head[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):  # classic and BigTIFF
        return Format.TIFF
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return Format.WEBP
    if head[4:8] == b"ftyp" and _heif_brand(head):
        return Format.HEIF
    if b"%PDF-" in head[:HEAD_BYTES]:
        return Format.PDF
    if _looks_like_xml(head):
        return Format.XML
    return Format.UNKNOWN


def detect_file(path: str | os.PathLike) -> Format:
    with open(path, "rb") as f:
        return detect(f.read(HEAD_BYTES))


def accepted_names() -> str:
    """The accepted media types, for the error that refuses everything else."""
    return ", ".join(sorted(f.media_type for f in ACCEPTED))


def _heif_brand(head: bytes) -> bool:
    size = int.from_bytes(head[:4], "big")
    brands = [head[8:12]]  # the major brand, then the compatible brands up to the box's end
    brands += [head[i:i + 4] for i in range(16, min(size, len(head)) - 3, 4)]
    return any(b in HEIF_BRANDS for b in brands)


def _looks_like_xml(head: bytes) -> bool:
    for bom in _BOMS:
        if head.startswith(bom):
            if bom != b"\xef\xbb\xbf":  # UTF-16: look at the text itself
                try:
                    text = head[len(bom):len(bom) + 64].decode("utf-16-le" if bom == b"\xff\xfe"
                                                              else "utf-16-be", "ignore")
                except UnicodeDecodeError:
                    return False
                return text.lstrip().startswith("<")
            head = head[len(bom):]
            break
    stripped = head.lstrip(b" \t\r\n")
    return stripped.startswith(_XML_STARTS) and len(stripped) > 1 and (
        stripped[1:2].isalpha() or stripped[1:2] in (b"?", b"!", b"_"))
