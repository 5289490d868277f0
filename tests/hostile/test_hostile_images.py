"""Hostile images end as a clean ExtractionError with their own code inside the sandbox, within
the time limit, without the worker's process ever decoding them."""
from __future__ import annotations

import dataclasses
import resource

import pytest

from ledgerline.adapters.extractor import PdfExtractor
from ledgerline.adapters.sandbox import SandboxedExtractor
from ledgerline.extraction.errors import ExtractionError
from tests import scans
from tests.hostile import images as hostile
from tests.hostile.test_hostile_extraction import LIMITS, SLACK, outcome

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sandbox():
    sandbox = SandboxedExtractor(PdfExtractor(), LIMITS)
    sandbox.warm()
    return sandbox


def write(tmp_path, name: str, data: bytes) -> str:
    path = tmp_path / name  # no suffix: nothing may depend on the name
    path.write_bytes(data)
    return str(path)


HOSTILE = {
    "png_pixel_bomb": (hostile.png_pixel_bomb, "image_too_large"),
    "tiff_pixel_bomb": (hostile.tiff_pixel_bomb, "image_too_large"),
    "jpeg_pixel_bomb": (hostile.jpeg_pixel_bomb, "image_too_large"),
    "tiff_10000_pages": (hostile.tiff_many_pages, "image_too_many_pages"),
    "tiff_page_chain_loops": (hostile.tiff_ifd_loop, "image_resolution_too_low"),
    "thumbnail": (hostile.thumbnail_png, "image_resolution_too_low"),
    "truncated_png": (lambda: hostile.truncated(scans.encode(scans.render(dpi=150), "PNG")),
                      "image_malformed"),
    "truncated_jpeg": (lambda: hostile.truncated(scans.encode(scans.render(dpi=150), "JPEG")),
                       "image_malformed"),
    "truncated_heif": (lambda: hostile.truncated(scans.encode(scans.render(dpi=150), "HEIF")),
                       "image_malformed"),
    "header_only_png": (lambda: b"\x89PNG\r\n\x1a\n", "image_malformed"),
    "blank_page": (lambda: scans.encode(scans.render(dpi=150).point(lambda _: 255), "PNG"),
                   "no_text_layer"),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_each_hostile_image_gets_its_code_within_the_time_limit(sandbox, tmp_path, case):
    make, expected = HOSTILE[case]
    code, elapsed = outcome(sandbox, write(tmp_path, case, make()))
    assert code == expected
    assert elapsed < LIMITS.timeout_seconds + SLACK


def test_the_parent_never_decodes_a_bomb(sandbox, tmp_path):
    paths = [write(tmp_path, f.__name__, f()) for f in (hostile.png_pixel_bomb,
                                                         hostile.tiff_pixel_bomb)]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for path in paths:
        assert outcome(sandbox, path)[0] == "image_too_large"
    assert (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024 < 32


def test_the_pixel_limit_is_a_setting(tmp_path):
    path = write(tmp_path, "scan", scans.encode(scans.render(dpi=150), "PNG", dpi=150))
    tight = SandboxedExtractor(PdfExtractor(), dataclasses.replace(LIMITS, max_pixels=1_000_000))
    assert outcome(tight, path)[0] == "image_too_large"


def test_a_page_that_outlasts_the_time_limit_is_ocr_timeout(tmp_path):
    many = scans.multipage_tiff([scans.render(dpi=200)] * 8)
    sandbox = SandboxedExtractor(PdfExtractor(), dataclasses.replace(LIMITS, timeout_seconds=1))
    with pytest.raises(ExtractionError) as failure:
        sandbox.extract(write(tmp_path, "long", many), "blake3:" + "0" * 64)
    assert failure.value.code == "ocr_timeout"


def test_a_scan_comes_back_as_a_document(sandbox, tmp_path):
    path = write(tmp_path, "scan", scans.encode(scans.render(dpi=200), "PNG"))
    document = sandbox.extract(path, "blake3:" + "0" * 64)
    assert document["source"] == "ocr"
    assert document["fields"]["invoice_number"]["value"] == scans.EXPECTED["invoice_number"]
