"""The sandbox's fork server ignores SIGTERM.

This module comes first in the fork server's preload list (sandbox.PRELOAD); imported anywhere
else it does nothing. systemd's stop and `kill -- -PGID` send SIGTERM to every process of the
group. With the default action the server died in the middle of a start, and that start then
waited for the child's pid for ever (the pipe's write end was in flight to the dead server):
`serve`'s shutdown sat out gunicorn's whole graceful timeout. The server needs no signal to
end: it exits when its parent does (the pipe from the parent closes), as the resource tracker
does, which ignores SIGTERM too; SIGINT the server ignores already. The children it forks get
the default action back, which multiprocessing's own `terminate()` relies on.
"""
from __future__ import annotations

import os
import signal
import sys
from types import FrameType


def _imported_by_the_fork_server() -> bool:
    from multiprocessing import forkserver

    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code is forkserver.main.__code__:
            return True
        frame = frame.f_back
    return False


def _default_sigterm() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


if _imported_by_the_fork_server():
    # Blocked as well as ignored: a SIGTERM that reaches a child before its first instructions
    # give the default action back then waits for them instead of being lost (a blocked signal
    # is queued even while ignored), and multiprocessing's terminate() cannot miss the child.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    os.register_at_fork(after_in_child=_default_sigterm)
