"""Images are weighed before they are decoded, and come out upright at the resolution OCR
reads best at; pages to render are bounded by the pixel limit."""
from __future__ import annotations

import pytest
from PIL import Image

from ledgerline.extraction.errors import ExtractionError
from ledgerline.extraction.ocr.images import check_frames, frames
from ledgerline.extraction.ocr.options import OcrOptions
from ledgerline.extraction.ocr.render import render_dpi
from ledgerline.extraction.ocr.text_size import text_dpi
from tests import scans
from tests.hostile import images as hostile

OPTIONS = OcrOptions(dpi=300)


def write(tmp_path, data: bytes, name: str = "scan") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def decoded(tmp_path, data: bytes, options: OcrOptions = OPTIONS):
    return list(frames(write(tmp_path, data), options))


def code_of(call) -> str:
    with pytest.raises(ExtractionError) as failure:
        call()
    return failure.value.code


@pytest.fixture(scope="module")
def page():
    return scans.render(dpi=200)


def test_a_scan_at_200_dpi_is_read_as_it_is(tmp_path, page):
    (frame,) = decoded(tmp_path, scans.encode(page, "PNG", dpi=200))
    assert round(frame.dpi) == 200 and frame.image.mode == "L"
    assert frame.image.size == page.size


def test_a_coarse_scan_is_enlarged_to_200_dpi(tmp_path):
    coarse = scans.render(dpi=100)
    (frame,) = decoded(tmp_path, scans.encode(coarse, "PNG", dpi=100))
    assert frame.dpi == 200
    width, height = frame.image.size  # PNG stores pixels per metre: 100 dpi is 99.9998
    assert abs(width - coarse.size[0] * 2) <= 1 and abs(height - coarse.size[1] * 2) <= 1


def test_a_600_dpi_scan_is_brought_down_to_300(tmp_path):
    big = scans.render(dpi=600)
    (frame,) = decoded(tmp_path, scans.encode(big, "PNG", dpi=600))
    assert frame.dpi == 300 and abs(frame.image.size[0] - big.size[0] / 2) <= 1


def test_a_photo_says_72_dpi_but_is_read_at_the_scale_of_its_glyphs(tmp_path, page):
    # 1653 pixels at 72 dpi would be 23 inches wide: no invoice is; its text gives the scale
    (frame,) = decoded(tmp_path, scans.encode(page.convert("RGB"), "JPEG", dpi=72))
    assert frame.dpi == pytest.approx(text_dpi(page), rel=0.05) and frame.image.size == page.size


def test_a_photo_without_measurable_text_is_taken_as_an_a4_page(tmp_path):
    blank = Image.new("RGB", (1653, 2339), "white")
    (frame,) = decoded(tmp_path, scans.encode(blank, "JPEG", dpi=72))
    assert abs(frame.dpi - 2339 / 11.69) < 1 and frame.image.size == blank.size


def test_exif_orientation_is_applied(tmp_path, page):
    sideways = page.transpose(Image.Transpose.ROTATE_90)
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90° clockwise to view"
    (frame,) = decoded(tmp_path, scans.encode(sideways.convert("RGB"), "JPEG", dpi=200,
                                              exif=exif.tobytes()))
    assert frame.image.size[0] < frame.image.size[1]  # portrait again


def test_every_page_of_a_tiff_in_order(tmp_path, page):
    small = page.reduce(2)
    got = decoded(tmp_path, scans.multipage_tiff([small, small, small], dpi=100))
    assert [f.number for f in got] == [1, 2, 3]


@pytest.mark.parametrize("make, code", [
    (hostile.png_pixel_bomb, "image_too_large"),
    (hostile.tiff_pixel_bomb, "image_too_large"),
    (hostile.jpeg_pixel_bomb, "image_too_large"),
    (hostile.tiff_many_pages, "image_too_many_pages"),
    (hostile.thumbnail_png, "image_resolution_too_low"),
    (lambda: b"\x89PNG\r\n\x1a\n" + bytes(40), "image_malformed"),
])
def test_hostile_headers_are_refused_before_decoding(tmp_path, make, code):
    path = write(tmp_path, make())
    assert code_of(lambda: check_frames(path, OPTIONS) and list(frames(path, OPTIONS))) == code


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "TIFF", "WEBP", "HEIF"])
def test_a_cut_file_is_malformed_not_half_a_page(tmp_path, page, fmt):
    data = hostile.truncated(scans.encode(page, fmt))
    assert code_of(lambda: decoded(tmp_path, data)) == "image_malformed"


def test_a_looping_page_chain_ends(tmp_path):
    assert check_frames(write(tmp_path, hostile.tiff_ifd_loop()), OPTIONS) == 2


def test_the_page_limit_is_the_configured_one(tmp_path):
    path = write(tmp_path, hostile.tiff_many_pages(30))
    assert check_frames(path, OcrOptions(max_pages=30)) == 30
    assert code_of(lambda: check_frames(path, OcrOptions(max_pages=29))) == "image_too_many_pages"


def test_a_page_larger_than_the_pixel_limit_at_the_dpi_is_rendered_coarser():
    assert render_dpi(595, 842, OPTIONS) == 300
    poster = render_dpi(3000, 4000, OPTIONS)  # 42 x 56 inches
    assert 150 < poster < 300 and (3000 / 72 * poster) * (4000 / 72 * poster) <= 100_000_001
    assert code_of(lambda: render_dpi(14400, 14400, OPTIONS)) == "image_too_large"


def test_options_refuse_what_ocr_cannot_do():
    for bad in ({"languages": ("xx",)}, {"languages": ()}, {"dpi": 50}, {"dpi": 1200}):
        with pytest.raises(ValueError):
            OcrOptions(**bad)
    assert OcrOptions.parse_languages("en+de, fr") == ("en", "de", "fr")
    assert len(OcrOptions.parse_languages("all")) == 13
    assert OcrOptions(languages=("de", "en")).tesseract_languages == "deu+eng"


def test_a_bomb_never_reaches_the_decoder(tmp_path, monkeypatch):
    def no_decoding(self, *args, **kwargs):
        raise AssertionError("pixels were decoded")

    monkeypatch.setattr(Image.Image, "load", no_decoding)
    path = write(tmp_path, hostile.png_pixel_bomb())
    assert code_of(lambda: check_frames(path, OPTIONS)) == "image_too_large"
