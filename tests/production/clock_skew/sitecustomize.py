"""Test harness only: a process started with this directory on PYTHONPATH and
LEDGERLINE_TEST_CLOCK_SKEW_SECONDS=N sees its wall clock N seconds off (time.time and
datetime.now), as a host without NTP would; its monotonic clock is untouched. libfaketime does
the same for C code but breaks Python's timed waits, so the skew is applied here instead."""
import datetime as _datetime
import os
import time as _time

_SKEW = float(os.environ.get("LEDGERLINE_TEST_CLOCK_SKEW_SECONDS", "0") or 0)

if _SKEW:
    _real_time, _real_time_ns = _time.time, _time.time_ns
    _time.time = lambda: _real_time() + _SKEW
    _time.time_ns = lambda: _real_time_ns() + int(_SKEW * 1e9)
    _offset = _datetime.timedelta(seconds=_SKEW)

    class _SkewedDatetime(_datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return super().now(tz) + _offset

        @classmethod
        def utcnow(cls):
            return super().utcnow() + _offset

        @classmethod
        def today(cls):
            return super().today() + _offset

    _datetime.datetime = _SkewedDatetime
