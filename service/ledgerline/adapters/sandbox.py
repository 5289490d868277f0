"""Run each extraction in a fresh child process with CPU, wall-time and memory limits.

PDF parsers are large, pure-Python state machines fed by strangers; one crafted file can spin a
CPU, inflate gigabytes or recurse until the process dies. So the worker never parses a PDF in its
own process: every document gets a child forked from a small, pre-loaded fork server (a fork is
milliseconds; a fresh interpreter importing pdfminer is a tenth of a second or more), with
RLIMIT_AS (the memory limit on top of what the server preloaded) and RLIMIT_CPU set before it
opens the file and a wall-clock deadline, counted from the child's start, that the parent
enforces by killing it. A structural pre-flight (pages, encryption, decompressed stream sizes;
for images pages and pixels) runs in the child before full parsing, and the extraction reads
the PDF it parsed; what it refuses comes back as `Refused`. Whatever else happens in the child
comes back as an ExtractionError with a stable code; the worker process carries on.

The next document's child is forked while the current one works, and while a core stands idle
it rehearses one extraction of a built-in sample before its document is known
(``sandbox_warmup.rehearse``): a child's first extraction costs 30-40 ms more than a warm
process's (copy-on-write faults on the pages it shares with the server), which the document then
does not wait for. It is still a fresh process per document: the rehearsal reads only the
sample, before the limits are set.

OCR runs here too, in-process: the fork server loads Tesseract and its language data once, as it
compiles the official EN 16931 rules once (see ``sandbox_warmup``); every child inherits them,
and the same limits apply. `warm()` waits for that preloading, so that a worker pays it before
its first claim rather than inside a job's lease. The time limit is enforced three times over:
an alarm in the child a moment before the deadline (a clean answer, ``ocr_timeout`` when it ends
a document during OCR, else ``pdf_timeout``), RLIMIT_CPU, and the parent's kill at the deadline.
"""
from __future__ import annotations

import contextlib
import functools
import logging
import math
import multiprocessing
import multiprocessing.connection
import os
import pickle
import resource
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..domain.providers import Provider
from ..extraction.errors import ExtractionError
from ..extraction.ocr.options import DEFAULT_MAX_PIXELS
from ..formats import Format, detect_file
from ..ports.extractor import CallContext, Cancelled, CannotStart, Health, Reader, Refused

if TYPE_CHECKING:
    from .preflight import PreflightLimits

log = logging.getLogger(__name__)

MB = 1024 * 1024
POLL_SECONDS = 0.1  # how often a waiting parent looks at an external cancel event
# The child's own alarm rings this long before the parent's deadline, so that it can answer.
ALARM_MARGIN_SECONDS = 0.5
# Modules every child needs, imported once in the fork server instead of once per document.
PRELOAD = ["ledgerline.adapters.sandbox_server", "__main__", "ledgerline.adapters.sandbox",
           "ledgerline.adapters.sandbox_warmup"]
# A server that warms nothing up: each child imports what its document needs. For a process
# that extracts a file or two (`ledgerline extract`), where seconds of warm-up (the official
# rules, Tesseract's models for every language) would cost more than they save.
PRELOAD_COLD = ["ledgerline.adapters.sandbox_server", "__main__", "ledgerline.adapters.sandbox"]


@dataclass(frozen=True)
class SandboxLimits:
    timeout_seconds: float = 60.0
    memory_mb: int = 1024
    max_pages: int = 500
    max_decompressed_mb: int = 200
    cpu_seconds: float | None = None  # None: the same as the wall-clock timeout
    max_pixels: int = DEFAULT_MAX_PIXELS  # of one image page, checked before decoding

    @classmethod
    def from_settings(cls, settings) -> SandboxLimits:
        return cls(timeout_seconds=settings.extract_timeout_seconds,
                   memory_mb=settings.extract_memory_mb,
                   max_pages=settings.extract_max_pages,
                   max_decompressed_mb=settings.extract_max_decompressed_mb,
                   max_pixels=settings.ocr_max_pixels)

    @property
    def alarm_seconds(self) -> float:
        return max(self.timeout_seconds - ALARM_MARGIN_SECONDS, self.timeout_seconds * 0.9)

    @property
    def preflight(self) -> PreflightLimits:
        from .preflight import PreflightLimits  # pdfminer: the fork server's, not its parent's

        return PreflightLimits(max_pages=self.max_pages,
                               max_decompressed_bytes=self.max_decompressed_mb * MB,
                               max_pixels=self.max_pixels)

    @property
    def cpu_limit(self) -> int:
        """RLIMIT_CPU counts whole seconds."""
        return max(1, math.ceil(self.cpu_seconds or self.timeout_seconds))


STARTING = Health("starting", "starting", reasons=(("sandbox", "the fork server is warming up"),))
PROBE_SECONDS = 10.0  # a child of a warm server answers in milliseconds


@dataclass
class _Child:
    """A child of the fork server: its document goes in through `work`, its answer comes back
    through `answer`."""
    proc: multiprocessing.Process
    work: multiprocessing.connection.Connection
    answer: multiprocessing.connection.Connection


class SandboxedExtractor:
    """The extractor port (ports/extractor.py) for the local rules, running `inner.extract` in
    a resource-limited child per document.

    `inner` must be picklable, or a PdfExtractor (rebuilt in the child from its options).
    `cancel()` (or setting `cancel_event`) kills every child in flight from any thread and makes
    `extract` raise Cancelled until `resume()`.
    """

    provider = Provider.RULES
    needs_original = True  # the child reads the file

    def __init__(self, inner: Reader, limits: SandboxLimits | None = None, *,
                 cancel_event: threading.Event | None = None, warm_up: bool = True):
        self.inner = inner
        self.versions = inner.versions
        self.limits = limits or SandboxLimits()
        self.cancel_event = cancel_event or threading.Event()
        self._recipe = _recipe(inner)
        pickle.dumps(self._recipe)  # an inner that cannot reach the child fails here, not per job
        self._context = _forkserver_context(PRELOAD if warm_up else PRELOAD_COLD)
        self._lock = threading.Lock()
        self._running: set[multiprocessing.Process] = set()
        self._ending: list[multiprocessing.Process] = []  # killed, not yet reaped
        self._spare: _Child | None = None  # forked, waiting for the next document
        self.health: Health | None = None  # None until warm() runs (no worker here)

    def cancel(self) -> None:
        self.cancel_event.set()
        with self._lock:
            running = list(self._running)
            spare, self._spare = self._spare, None
        for proc in running:
            _kill(proc)
        if spare is not None:
            self._discard(spare)

    def resume(self) -> None:
        self.cancel_event.clear()

    def warm(self, stop: threading.Event | None = None) -> None:
        """Start the fork server now and wait until it has preloaded the extraction code, the
        compiled schematron and Tesseract's models (seconds), so that no document claimed later
        waits for it, and a shutdown never finds a child stuck in its start. A worker's `stop`
        ends the wait: a shutdown has no job to warm up for. The first document's child is
        forked too."""
        self.health = STARTING
        proc = self._context.Process(target=_noop, name="ledgerline-warm", daemon=True)
        try:
            _start(proc, self.cancel_event, *([stop] if stop is not None else []))
        except Cancelled:  # shutting down before the server answered: nothing to warm for
            return
        except BaseException as exc:
            self.health = Health("unavailable", "unavailable", reasons=(
                ("sandbox", f"the fork server did not start: {type(exc).__name__}: {exc}"),))
            raise
        proc.join()
        proc.close()
        self.health = self._probe()
        self._prepare_spare()

    def _probe(self) -> Health:
        """Ask a child of the warm server what the warm-up loaded (sandbox_warmup.STATE)."""
        reader, writer = self._context.Pipe(duplex=False)
        proc = self._context.Process(target=_report_warm_state, args=(writer,), daemon=True,
                                     name="ledgerline-probe")
        try:
            _start(proc, self.cancel_event)
            writer.close()
            state = reader.recv() if reader.poll(PROBE_SECONDS) else None
        except (OSError, EOFError, Cancelled) as exc:
            return Health("unavailable", "unavailable", reasons=(
                ("sandbox", f"no child of the fork server answered: {exc!r}"),))
        finally:
            reader.close()
            with contextlib.suppress(OSError):
                writer.close()
            _kill(proc)
            proc.join(1.0)
        if state is None:
            return Health("unavailable", "unavailable",
                          reasons=(("sandbox", "no child of the fork server answered"),))
        ocr, detail = state.get("ocr", ("unavailable", "OCR was not loaded by the warm-up"))
        if ocr == "ok":
            return Health("ok", "ok", languages=tuple(detail.split("+")))
        if ocr == "on_demand":
            return Health("ok", "on_demand")
        return Health("ok", "unavailable", reasons=(("ocr", detail),))

    def extract(self, path: str, content_hash: str, context: CallContext | None = None) -> dict:
        """`context`: unused; a local reading bills nothing beyond its flat price."""
        if self.cancel_event.is_set():
            raise Cancelled(before_start=True)
        child = self._spare_or_fork()
        child.proc.name = f"ledgerline-extract-{_family(path)}"
        with self._lock:
            self._running.add(child.proc)
        try:
            try:
                child.work.send((self._recipe, os.fspath(path), content_hash, self.limits))
            except OSError:
                pass  # it died waiting: _await reports how
            finally:
                child.work.close()
            started = time.monotonic()  # the child's own limits count from here too
            # The next document's child is forked, and rehearses, while this one works (a fork
            # of the preloaded server takes 15-25 ms, a rehearsal 50: no document waits).
            self._prepare_spare()
            # A cancel() during the start set the event before it looked for children: the
            # first check in _await sees it, and the `finally` kills the child.
            return self._await(child.proc, child.answer, started)
        finally:
            with self._lock:
                self._running.discard(child.proc)
            self._discard(child)

    def _spare_or_fork(self) -> _Child:
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is not None:
            if spare.proc.is_alive():
                return spare
            self._discard(spare)
        return self._fork()

    def _fork(self, *, rehearse: bool = False) -> _Child:
        """A child of the fork server, started and waiting for its document (`rehearse`: after
        one extraction of the warm-up's sample)."""
        work_reader, work = self._context.Pipe(duplex=False)
        answer, answer_writer = self._context.Pipe(duplex=False)
        proc = self._context.Process(target=_spare_main, name="ledgerline-extract", daemon=True,
                                     args=(work_reader, answer_writer, rehearse))
        try:
            # Not under the lock: a start that waits for the fork server's preloading (a cold
            # server) must not hold up cancel().
            _start(proc, self.cancel_event)
        except BaseException as exc:
            work.close()
            answer.close()
            if isinstance(exc, OSError):  # out of processes or file descriptors: later
                raise CannotStart(f"cannot start the extraction process: {exc}") from exc
            raise
        finally:
            work_reader.close()
            answer_writer.close()
        return _Child(proc, work, answer)

    def _prepare_spare(self) -> None:
        # Under gevent (`ledgerline serve`) a start reads the fork server's answer on the event
        # loop: fine while the server runs (milliseconds), but a start that finds it gone (a
        # SIGTERM to the process group ends it) starts another and waits for its preloading,
        # which held a shutdown for gunicorn's whole graceful timeout. Only a document's own
        # start may do that (_start); a spare is forked only while the server is up.
        if _gevent_hub() is not None and not _fork_server_running():
            return
        with self._lock:
            if self._spare is not None or self.cancel_event.is_set():
                return
        try:
            child = self._fork(rehearse=_a_core_is_idle())
        except (ExtractionError, Cancelled):
            return  # the next document forks its own
        with self._lock:
            if self._spare is None and not self.cancel_event.is_set():
                self._spare, child = child, None
        if child is not None:
            self._discard(child)

    def _discard(self, child: _Child) -> None:
        """Kill the child; reap it at the next discard: the kernel takes a dozen milliseconds
        and more to tear down an address space the size of the fork server's preloaded one, and
        no answer need wait for that."""
        _kill(child.proc)
        child.work.close()
        child.answer.close()
        with self._lock:
            earlier, self._ending = self._ending, [child.proc]
        for proc in earlier:
            proc.join()
            proc.close()

    def _await(self, proc, reader, started: float) -> dict:
        deadline = started + self.limits.timeout_seconds
        while True:
            if self.cancel_event.is_set():
                raise Cancelled()
            left = deadline - time.monotonic()
            if left <= 0:
                raise ExtractionError(_codes(proc.name).timeout, "extraction took longer than "
                                      f"{self.limits.timeout_seconds:g} s")
            ready = multiprocessing.connection.wait([reader, proc.sentinel],
                                                    timeout=min(left, POLL_SECONDS))
            if reader in ready:
                try:
                    message = reader.recv()
                except (EOFError, OSError):
                    proc.join(1.0)  # it died while writing: report how it died
                    break
                return _unpack(message)
            if proc.sentinel in ready:
                if reader.poll():  # the result and the exit raced; the result wins
                    continue
                break
        if self.cancel_event.is_set():
            raise Cancelled()
        proc.join(1.0)
        raise _death(proc.exitcode, time.monotonic() - started, self.limits, _codes(proc.name))


def _unpack(message) -> dict:
    kind, payload = message
    if kind == "ok":
        return payload
    if kind == "error":
        code, text, transient = payload
        raise ExtractionError(code, text, transient=transient)
    if kind == "refused":
        code, text = payload
        raise Refused(code, text)
    log.error("extraction raised inside the sandbox:\n%s", payload)
    raise ExtractionError("extraction_error", payload.strip().splitlines()[-1][:500])


@dataclass(frozen=True)
class _Codes:
    """The error codes of one kind of document: a PDF's parser, or an image's OCR."""
    timeout: str
    too_large: str
    crashed: str
    reader: str


PDF_CODES = _Codes("pdf_timeout", "pdf_too_large", "pdf_crashed", "the PDF parser")
IMAGE_CODES = _Codes("ocr_timeout", "image_too_large", "ocr_crashed", "OCR")


def _noop() -> None:
    pass


def _report_warm_state(conn) -> None:
    """What the server's warm-up recorded; a server that warms nothing up loads on demand."""
    warmup = sys.modules.get("ledgerline.adapters.sandbox_warmup")
    conn.send(dict(warmup.STATE) if warmup else {"ocr": ("on_demand", "")})
    conn.close()


def _start(proc: multiprocessing.Process, *cancel_events: threading.Event) -> None:
    """`proc.start()`, which waits for the fork server's answer with a blocking read: for as
    long as a cold server preloads, seconds. Under gevent (`ledgerline serve`) that first start
    waits in a native thread, so that the event loop keeps serving meanwhile; once the server
    has answered, a start takes milliseconds and runs on the loop itself. Only one start ever
    goes through the threadpool: the fork server and the resource tracker guard their starts
    with `threading.Lock`s that gevent has replaced by its own, and a gevent lock shared between
    native threads can miss its wake-up (a hang seen with concurrent starts there).

    Any of `cancel_events` ends the wait for that first answer: a SIGTERM to the process group kills
    the preloading server, and under gevent the read in the native thread then never ends (it
    outlives the server), which held every shutdown for gunicorn's whole graceful timeout."""
    hub = _gevent_hub()
    if hub is None or _server_answered.is_set():
        proc.start()
    else:
        answered = hub.threadpool.spawn(_first_start, proc)
        while not answered.ready():
            if any(event.is_set() for event in cancel_events):
                raise Cancelled(before_start=True)
            answered.wait(POLL_SECONDS)
        answered.get()
    _server_answered.set()


def _first_start(proc: multiprocessing.Process) -> None:
    with _native_start_lock():
        proc.start()



# Set once a start has come back from the fork server (it may restart later: then one start
# waits on the loop, which is no hang).
_server_answered = threading.Event()


@functools.cache
def _native_start_lock():
    from gevent import monkey

    return monkey.get_original("threading", "Lock")()


def _gevent_hub():
    """The event loop of this thread when gevent has patched the process, else None."""
    gevent = sys.modules.get("gevent")
    if gevent is None:
        return None
    from gevent import monkey

    return gevent.get_hub() if monkey.is_module_patched("threading") else None


# A spare rehearses when at least this much of a core stood idle, on average, since the last look.
IDLE_CORES_TO_REHEARSE = 0.5
_last_look: tuple[int, int] | None = None  # the kernel's (idle, all) CPU ticks, at the last look
_look_lock = threading.Lock()


def _a_core_is_idle() -> bool:
    """Whether a spare may rehearse: it runs beside the document in hand, and with every core
    busy it would take CPU from that document, and under a backlog each job would pay for one.

    Told by the CPU time that stood idle since the last look, a document ago: the 1-minute load
    average, which decided before, goes on counting a busy minute (the fork server's own
    warm-up, whatever ran before) for a minute after it ended, and documents that came one at a
    time on an idle machine meanwhile got unrehearsed children. Where the kernel does not tell
    (no /proc/stat), or on the first look, that load average decides."""
    global _last_look
    now = _cpu_ticks()
    with _look_lock:
        last, _last_look = _last_look, now
    if now is None or last is None or now[1] <= last[1]:
        cores = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                 else os.cpu_count())
        return os.getloadavg()[0] < (cores or 1)
    idle_share = (now[0] - last[0]) / (now[1] - last[1])
    return idle_share * (os.cpu_count() or 1) >= IDLE_CORES_TO_REHEARSE


def _cpu_ticks() -> tuple[int, int] | None:
    """The machine's idle and total CPU time since boot, in clock ticks (None: not told)."""
    try:
        with open("/proc/stat", "rb") as f:
            fields = f.readline().split()
        # user nice system idle iowait irq softirq steal (guest time is counted in user)
        ticks = [int(v) for v in fields[1:9]]
    except (OSError, ValueError):
        return None
    return ticks[3] + ticks[4], sum(ticks)


def _fork_server_running() -> bool:
    """Whether this process's fork server is up, looked at without reaping it."""
    from multiprocessing import forkserver

    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)  # no public way to ask
    if pid is None or not hasattr(os, "waitid"):  # no way to look without reaping: assume not
        return False
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
    except ChildProcessError:  # reaped already: gone
        return False


def _family(path) -> str:
    try:
        return "image" if detect_file(path).is_image else "pdf"
    except OSError:
        return "pdf"


def _codes(process_name: str) -> _Codes:
    return IMAGE_CODES if process_name.endswith("-image") else PDF_CODES


def _death(exitcode: int | None, elapsed: float, limits: SandboxLimits,
           codes: _Codes = PDF_CODES) -> ExtractionError:
    if exitcode is not None and exitcode < 0:
        sig = -exitcode
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and elapsed >= limits.cpu_limit):
            return ExtractionError(codes.timeout,
                                   f"extraction used more than {limits.cpu_limit} s of CPU")
        if sig == signal.SIGKILL:  # not by us and not the CPU limit: the kernel's OOM killer
            return ExtractionError(codes.too_large, "extraction ran out of memory")
        name = signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)
        return ExtractionError(codes.crashed, f"{codes.reader} died with {name}")
    return ExtractionError(codes.crashed, f"{codes.reader} exited with status {exitcode}")


def _kill(proc: multiprocessing.Process) -> None:
    try:
        if proc.exitcode is None:
            proc.kill()
    except (ValueError, OSError):  # already closed or reaped
        pass


# -- building the inner extractor in the child -------------------------------------------------

def _recipe(inner):
    """Something picklable that rebuilds `inner` in the child."""
    from .extractor import PdfExtractor

    if type(inner) is PdfExtractor:  # holds a module reference; rebuild it from its options
        options = {"use_embedded_xml": inner.use_embedded_xml}
        if getattr(inner, "ocr", None) is not None:
            options["ocr"] = inner.ocr
        return (PdfExtractor, options)
    return (None, inner)


def _build(recipe):
    factory, arg = recipe
    return arg if factory is None else factory(**arg)


_context_lock = threading.Lock()


def _forkserver_context(preload: list[str]):
    """The fork-server context, with `preload` imported in the server."""
    ctx = multiprocessing.get_context("forkserver")
    with _context_lock:
        ctx.set_forkserver_preload(preload)  # takes effect when the server (re)starts
    return ctx


# -- the child ---------------------------------------------------------------------------------

class _CpuLimit(BaseException):
    """Raised by SIGXCPU; a BaseException so that no `except Exception` in a parser eats it."""


class _WallClock(BaseException):
    """Raised by the child's alarm just before the parent's deadline."""


def _on_sigxcpu(signum, frame):
    raise _CpuLimit()


def _on_alarm(signum, frame):
    raise _WallClock()


def _inherited_address_space() -> int:
    """Bytes of address space the child starts with: what the fork server preloaded (code,
    the schematron engine's reservation, Tesseract's models), shared with every other child and
    not this document's to spend."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _limit_self(limits: SandboxLimits) -> None:
    memory = _inherited_address_space() + limits.memory_mb * MB
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    # Soft limit: SIGXCPU, which we turn into a clean answer; hard: SIGKILL if that fails.
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_limit, limits.cpu_limit + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(signal.SIGXCPU, _on_sigxcpu)
    # Tesseract checks for pending Python signals while it recognises, so the alarm also ends
    # a page in the middle.
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limits.alarm_seconds)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the parent, which kills us


def _preflight(path: str, kind: Format, limits: SandboxLimits, opened: contextlib.ExitStack):
    """The structural checks of the file's format, before any extraction; for a PDF, the
    document they parsed (open until `opened` closes), which the extraction then reads."""
    from .preflight import check_image, checked_pdf

    if kind.is_image:
        check_image(path, limits.preflight)
    elif kind is not Format.XML:  # XML has its own hardened reader; anything else is no PDF
        document, _ = opened.enter_context(checked_pdf(path, limits.preflight))
        return document
    return None


def _read(recipe, path: str, content_hash: str, pdf_document) -> dict:
    """The inner reader's document; the local rules read the PDF the pre-flight parsed (one
    parse of the file, not two)."""
    from .extractor import PdfExtractor

    reader = _build(recipe)
    if pdf_document is not None and isinstance(reader, PdfExtractor):
        return reader.extract(path, content_hash, pdf_document=pdf_document)
    return reader.extract(path, content_hash)


def _timeout_code(codes: _Codes) -> str:
    from ..extraction import ocr

    return IMAGE_CODES.timeout if ocr.in_progress() else codes.timeout


def _spare_main(work, answer, rehearse: bool) -> None:
    """Wait for a document, then extract it; the parent gone (end of file) ends the wait."""
    warmup = sys.modules.get("ledgerline.adapters.sandbox_warmup")
    if rehearse and warmup is not None:  # a server that warmed nothing up has nothing to rehearse
        warmup.rehearse()
    try:
        job = work.recv()
    except (EOFError, OSError):
        return
    finally:
        work.close()
    _child_main(answer, *job)


def _child_main(conn, recipe, path: str, content_hash: str, limits: SandboxLimits) -> None:
    codes = PDF_CODES
    try:
        _limit_self(limits)
        kind = detect_file(path)
        codes = IMAGE_CODES if kind.is_image else PDF_CODES
        with contextlib.ExitStack() as opened:
            try:
                pdf_document = _preflight(path, kind, limits, opened)
            except ExtractionError as exc:  # refused before any extraction: reported apart
                message = ("refused", (exc.code, exc.message))
            else:
                message = ("ok", _read(recipe, path, content_hash, pdf_document))
    except ExtractionError as exc:
        message = ("error", (exc.code, exc.message, exc.transient))
    except _WallClock:
        text = f"extraction took longer than {limits.timeout_seconds:g} s"
        message = ("error", (_timeout_code(codes), text, False))
    except _CpuLimit:
        text = f"extraction used more than {limits.cpu_limit} s of CPU"
        message = ("error", (_timeout_code(codes), text, False))
    except MemoryError:
        text = f"extraction needed more than {limits.memory_mb} MB of memory"
        message = ("error", (codes.too_large, text, False))
    except RecursionError:
        message = ("error", ("pdf_malformed", "the PDF nests too deeply", False))
    except Exception:  # noqa: BLE001 - a parser bug: the parent logs it and fails the job
        import traceback

        message = ("crash", traceback.format_exc())
    signal.setitimer(signal.ITIMER_REAL, 0)
    try:
        conn.send(message)
    except MemoryError:
        conn.send(("error", (codes.too_large, "the result did not fit in memory", False)))
    finally:
        conn.close()
