"""The runtime every long-running part shares: time, retry waits, lease heartbeats, limits, errors.

`Clock` (the system clock and one `FakeClock` for every test), `Backoff` (the wait before the next
attempt), `Heartbeat` (a daemon thread that calls `renew` on a schedule while work runs), the limits
that several packages bound text by, and `StorageError`, the base of each package's storage error.
Used by the local Memory pipeline and the cloud worker alike; it imports nothing else of ours.
"""

from __future__ import annotations

from autopatch_j.runtime.backoff import Backoff
from autopatch_j.runtime.clock import Clock, FakeClock, SystemClock, UtcClock, utc_now
from autopatch_j.runtime.errors import StorageError
from autopatch_j.runtime.heartbeat import Heartbeat
from autopatch_j.runtime.limits import MAX_ERROR_CHARS

__all__ = [
    "MAX_ERROR_CHARS",
    "Backoff",
    "Clock",
    "FakeClock",
    "Heartbeat",
    "StorageError",
    "SystemClock",
    "UtcClock",
    "utc_now",
]
