"""Time as a port: the system clock, and one fake clock for leases, backoff and scheduling tests.

The system and fake clocks answer in two forms: `now()` is seconds since the epoch (`Clock`, what
the local Memory engine takes: it stores floats), and calling one gives an aware UTC `datetime`
(`UtcClock`, what the cloud takes: it stores timestamps — a plain function such as `utc_now` will
do too).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Protocol

#: A clock in its datetime form: anything that returns an aware UTC datetime when called.
UtcClock = Callable[[], datetime]

#: Where a `FakeClock` starts unless told otherwise (2027-01-15 08:00 UTC).
FAKE_START = 1_800_000_000.0


def utc_now() -> datetime:
    """The real clock in its datetime form: an aware UTC datetime."""
    return datetime.now(UTC)


class Clock(Protocol):
    """A clock in its seconds form (what the local Memory engine takes)."""

    def now(self) -> float:
        """Seconds since the epoch."""
        ...


class SystemClock:
    """The real clock."""

    def now(self) -> float:
        return time.time()

    def __call__(self) -> datetime:
        return utc_now()


class FakeClock:
    """A clock that moves only when told to; thread-safe so concurrent workers can share it.

    `start` is seconds since the epoch or an aware datetime. Both forms are kept and moved together,
    so each adds up exactly as it would alone (floats for Memory, microseconds for the cloud)."""

    def __init__(self, start: float | datetime = FAKE_START) -> None:
        self._lock = threading.Lock()
        self._seconds, self._at = _both(start)

    def now(self) -> float:
        with self._lock:
            return self._seconds

    def __call__(self) -> datetime:
        with self._lock:
            return self._at

    def advance(self, seconds: float) -> datetime:
        """Move forward by `seconds`; returns the new time as a datetime."""
        with self._lock:
            self._seconds += seconds
            self._at += timedelta(seconds=seconds)
            return self._at

    def set(self, value: float | datetime) -> None:
        with self._lock:
            self._seconds, self._at = _both(value)


def _both(value: float | datetime) -> tuple[float, datetime]:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("a FakeClock needs an aware datetime")
        return value.timestamp(), value
    return float(value), datetime.fromtimestamp(value, UTC)
