import hashlib
import io
import os

import blake3
import pytest

from ledgerline.domain.errors import (BodyIncomplete, EmptyBody, SpoolUnavailable, TooLarge,
                                     UnsupportedFormat)
from ledgerline.service_layer.spool import IN_MEMORY_BYTES, spool

PDF = b"%PDF-1.7\n" + os.urandom(700_000)


def test_spool_hashes_while_streaming(tmp_path):
    spooled = spool(io.BytesIO(PDF), max_bytes=10**7, directory=str(tmp_path))
    assert spooled.size == len(PDF)
    assert spooled.content_hash == "blake3:" + blake3.blake3(PDF).hexdigest()
    assert spooled.held is None  # larger than is held in memory: streamed to its file
    with open(spooled.source(), "rb") as f:
        assert f.read() == PDF
    spooled.discard()
    assert list(tmp_path.iterdir()) == []


class Trickling(io.BytesIO):
    """A body that arrives a few bytes at a time, as from a slow client."""

    def read(self, n=-1):
        return super().read(min(n, 1000) if n > 0 else 1000)


@pytest.mark.parametrize("size", [2000, IN_MEMORY_BYTES, IN_MEMORY_BYTES + 1,
                                  2 * IN_MEMORY_BYTES + 5])
def test_a_small_upload_writes_no_file_at_all(tmp_path, size):
    body = PDF[:size]
    spooled = spool(Trickling(body), max_bytes=10**7, directory=str(tmp_path))
    assert spooled.size == size and spooled.sha256() == hashlib.sha256(body).digest()
    assert spooled.content_hash == "blake3:" + blake3.blake3(body).hexdigest()
    held = size <= IN_MEMORY_BYTES
    assert (spooled.held == body) if held else spooled.held is None
    assert len(list(tmp_path.iterdir())) == (0 if held else 1)
    if held:  # a miss hands the store the bytes themselves
        assert spooled.source() == body and list(tmp_path.iterdir()) == []
    else:
        with open(spooled.source(), "rb") as f:  # or the file they streamed to
            assert f.read() == body
    spooled.discard()
    assert list(tmp_path.iterdir()) == []


class CountingStream(io.BytesIO):
    read_bytes = 0

    def read(self, n=-1):
        chunk = super().read(n)
        self.read_bytes += len(chunk)
        return chunk


def test_size_cap_is_enforced_mid_read_and_leaves_nothing(tmp_path):
    stream = CountingStream(PDF * 20)
    with pytest.raises(TooLarge):
        spool(stream, max_bytes=1_000_000, directory=str(tmp_path))
    assert stream.read_bytes < 2_000_000  # stopped soon after the cap, not at the end
    assert list(tmp_path.iterdir()) == []


def test_non_pdf_bytes_are_refused_by_content(tmp_path):
    with pytest.raises(UnsupportedFormat):
        spool(io.BytesIO(b"PK\x03\x04 a zip file named invoice.pdf"), 10**6, str(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_pdf_header_after_leading_junk_is_accepted(tmp_path):
    spooled = spool(io.BytesIO(b"\r\n" * 100 + PDF[:2000]), 10**6, str(tmp_path))
    assert spooled.size == 2200


def test_a_large_body_of_the_wrong_format_leaves_no_file(tmp_path):
    with pytest.raises(UnsupportedFormat):
        spool(io.BytesIO(b"PK\x03\x04" + os.urandom(2 * IN_MEMORY_BYTES)), 10**7, str(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_empty_body_is_refused(tmp_path):
    with pytest.raises(EmptyBody):
        spool(io.BytesIO(b""), 10**6, str(tmp_path))


@pytest.mark.parametrize("received", [0, 2000, IN_MEMORY_BYTES + 10, len(PDF) - 1])
def test_a_body_shorter_than_its_content_length_is_refused_and_leaves_nothing(tmp_path,
                                                                               received):
    # A server hands the application a connection's early end as the end of the body.
    with pytest.raises(BodyIncomplete, match=f"after {received} of the {len(PDF)} bytes"):
        spool(io.BytesIO(PDF[:received]), 10**7, str(tmp_path), expected_size=len(PDF))
    assert list(tmp_path.iterdir()) == []


def test_a_whole_body_with_its_content_length_is_taken(tmp_path):
    spooled = spool(io.BytesIO(PDF), 10**7, str(tmp_path), expected_size=len(PDF))
    assert spooled.size == len(PDF)
    spooled.discard()


def test_a_spool_that_cannot_be_written_is_the_servers_trouble(tmp_path):
    gone = tmp_path / "removed"  # a spool directory that is not there (or a full disk)
    with pytest.raises(SpoolUnavailable) as raised:
        spool(io.BytesIO(PDF[:2 * IN_MEMORY_BYTES]), 10**7, str(gone))
    assert raised.value.status == 503 and raised.value.headers["Retry-After"]
    assert "No such file or directory" in raised.value.detail


def test_a_stream_that_breaks_is_not_taken_for_a_full_spool(tmp_path):
    class Broken(io.BytesIO):
        def read(self, n=-1):
            raise ConnectionResetError("the client went away")

    with pytest.raises(ConnectionResetError):  # the HTTP edge answers this one (400)
        spool(Broken(), 10**7, str(tmp_path))
