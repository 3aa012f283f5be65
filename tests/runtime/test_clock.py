"""One fake clock for every test: seconds for Memory, aware datetimes for the cloud, moved together."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from autopatch_j.runtime import FakeClock, SystemClock, utc_now


def test_the_fake_clock_moves_only_when_told() -> None:
    clock = FakeClock()
    assert clock.now() == 1_800_000_000.0 and clock() == datetime.fromtimestamp(1_800_000_000.0, UTC)
    assert clock.now() == clock.now()
    assert clock.advance(5.5) == datetime.fromtimestamp(1_800_000_005.5, UTC)
    assert clock.now() == 1_800_000_005.5
    clock.set(100.0)
    assert clock.now() == 100.0 and clock() == datetime(1970, 1, 1, 0, 1, 40, tzinfo=UTC)


def test_a_datetime_start_keeps_exact_microseconds() -> None:
    start = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)
    clock = FakeClock(start)
    for _ in range(10_000):
        clock.advance(0.1)
    assert clock() == start + timedelta(seconds=1_000)  # a float sum alone would drift
    assert clock.now() == pytest.approx(start.timestamp() + 1_000)
    with pytest.raises(ValueError, match="aware"):
        FakeClock(datetime(2026, 1, 15))


def test_the_fake_clock_is_safe_to_share_between_threads() -> None:
    clock = FakeClock(0.0)
    threads = [threading.Thread(target=lambda: [clock.advance(1.0) for _ in range(1_000)]) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert clock.now() == 4_000.0


def test_the_system_clock_agrees_with_itself() -> None:
    clock = SystemClock()
    seconds, at = clock.now(), clock()
    assert at.tzinfo is UTC and abs(at.timestamp() - seconds) < 5
    assert abs((utc_now() - at).total_seconds()) < 5
