"""Extractors that misbehave on purpose, to prove the sandbox contains each kind of failure.

They run in the sandbox's child process, so they live in an importable module (the child
unpickles them by reference).
"""
from __future__ import annotations

import os
import signal
import time

from ledgerline.domain.cache import ExtractorVersions
from ledgerline.extraction.errors import ExtractionError

VERSIONS = ExtractorVersions(schema="invoice-v2", preprocessing="hostile-p1", model="hostile-m1",
                             model_config_digest="hostile-c1")


class _Base:
    versions = VERSIONS


class SpinsForever(_Base):
    """Burns CPU in pure Python: the CPU limit's SIGXCPU reaches it."""

    def extract(self, path, content_hash):
        n = 0
        while True:
            n += 1


class SpinsIgnoringSignals(_Base):
    """Burns CPU with SIGXCPU ignored, as a C loop would: only the hard limit stops it."""

    def extract(self, path, content_hash):
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        n = 0
        while True:
            n += 1


class Sleeps(_Base):
    """Blocks without using CPU: only the parent's wall-clock deadline stops it."""

    def __init__(self, seconds: float = 3600):
        self.seconds = seconds

    def extract(self, path, content_hash):
        time.sleep(self.seconds)
        return {"slept": self.seconds}


class WaitsForPeers(_Base):
    """Signs in under `directory`, then waits (at most `patience` seconds) until `peers`
    extractions have signed in: it meets them all only if they run at the same time."""

    def __init__(self, directory: str, peers: int, patience: float):
        self.directory, self.peers, self.patience = directory, peers, patience

    def extract(self, path, content_hash):
        open(os.path.join(self.directory, str(os.getpid())), "w").close()
        deadline = time.monotonic() + self.patience
        while len(os.listdir(self.directory)) < self.peers and time.monotonic() < deadline:
            time.sleep(0.01)
        return {"pid": os.getpid(), "met": len(os.listdir(self.directory))}


class HoardsMemory(_Base):
    def extract(self, path, content_hash):
        hoard = []
        while True:
            hoard.append(bytearray(16 * 1024 * 1024))


class Segfaults(_Base):
    def extract(self, path, content_hash):
        os.kill(os.getpid(), signal.SIGSEGV)
        time.sleep(10)


class ExitsQuietly(_Base):
    def extract(self, path, content_hash):
        os._exit(3)


class RaisesBug(_Base):
    def extract(self, path, content_hash):
        raise KeyError("a bug in the parser")


class Refuses(_Base):
    def extract(self, path, content_hash):
        raise ExtractionError("no_text_layer", "nothing to read", transient=False)


class ReportsPid(_Base):
    def extract(self, path, content_hash):
        return {"pid": os.getpid(), "content_hash": content_hash}


class ReportsRehearsal(_Base):
    """What the child did before its document: a spare rehearses the warm-up's sample."""

    def extract(self, path, content_hash):
        import sys

        warmup = sys.modules.get("ledgerline.adapters.sandbox_warmup")
        return {"pid": os.getpid(), "rehearsal": warmup and warmup.STATE.get("rehearsal")}


class ParsesTextLayer(_Base):
    """The real pdfminer pass with a minimal document, where the full extractor is unavailable."""

    def extract(self, path, content_hash):
        from ledgerline.extraction import parse_pdf

        parsed = parse_pdf(path)
        if parsed.text_chars < 20:
            raise ExtractionError("no_text_layer", "the PDF has no usable text layer")
        return {"schema_version": "invoice-v2", "source": "text_layer",
                "document": {"content_hash": content_hash, "pages": len(parsed.pages)},
                "attachments": [a.name for a in parsed.attachments]}
