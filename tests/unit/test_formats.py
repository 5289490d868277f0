"""A file's format is told by its first bytes; intake accepts documents and scans, nothing else."""
from __future__ import annotations

import io

import pytest
from PIL import Image

from ledgerline.domain.errors import UnsupportedFormat
from ledgerline.formats import ACCEPTED, Format, detect
from ledgerline.service_layer.spool import spool


def image_bytes(fmt: str, **save) -> bytes:
    out = io.BytesIO()
    Image.new("L", (40, 30), 255).save(out, fmt, **save)
    return out.getvalue()


@pytest.mark.parametrize("data, expected", [
    (b"%PDF-1.7\n%\xe2\xe3", Format.PDF),
    (b"\r\n\r\ngarbage before the header %PDF-1.4\n", Format.PDF),
    (b"\xef\xbb\xbf<?xml version='1.0'?><Invoice/>", Format.XML),
    (b"  \n<Invoice xmlns='urn:oasis'/>", Format.XML),
    ("<?xml version='1.0'?>".encode("utf-16"), Format.XML),
    (b"PK\x03\x04 a zip archive", Format.UNKNOWN),
    (b"<", Format.UNKNOWN),
    (b"GIF89a", Format.UNKNOWN),
    (b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1", Format.HEIF),  # mif1: a HEIF image
    (b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom", Format.UNKNOWN),  # a video
    (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic", Format.HEIF),
])
def test_signatures(data, expected):
    assert detect(data) is expected


@pytest.mark.parametrize("fmt, expected, save", [
    ("JPEG", Format.JPEG, {}),
    ("PNG", Format.PNG, {}),
    ("TIFF", Format.TIFF, {}),
    ("TIFF", Format.TIFF, {"compression": "tiff_lzw"}),
    ("WEBP", Format.WEBP, {}),
])
def test_real_images_are_recognised(fmt, expected, save):
    assert detect(image_bytes(fmt, **save)) is expected


def test_heif_written_by_pillow_heif_is_recognised():
    pillow_heif = pytest.importorskip("pillow_heif")
    pillow_heif.register_heif_opener()
    assert detect(image_bytes("HEIF")) is Format.HEIF


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "TIFF", "WEBP"])
def test_the_upload_spool_accepts_scans_by_content(tmp_path, fmt):
    spooled = spool(io.BytesIO(image_bytes(fmt)), 10**6, str(tmp_path))
    assert spooled.format.is_image and spooled.format in ACCEPTED
    spooled.discard()


def test_anything_else_is_refused_naming_what_is_accepted(tmp_path):
    with pytest.raises(UnsupportedFormat) as refused:
        spool(io.BytesIO(b"GIF89a" + bytes(100)), 10**6, str(tmp_path))
    assert refused.value.status == 415
    for media_type in ("application/pdf", "image/jpeg", "image/png", "image/tiff",
                       "image/webp", "image/heif"):
        assert media_type in refused.value.detail
    assert list(tmp_path.iterdir()) == []
