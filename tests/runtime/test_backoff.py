"""Backoff follows the M-48 table: 5 s → 30 s → 2 min → 10 min → 1 h, capped."""

from __future__ import annotations

import pytest

from autopatch_j.runtime import Backoff


@pytest.mark.parametrize(
    ("failures", "seconds"),
    [(1, 5), (2, 30), (3, 120), (4, 600), (5, 3600), (6, 3600), (50, 3600)],
)
def test_delay_by_failed_attempts(failures: int, seconds: float) -> None:
    assert Backoff().delay(failures) == seconds


def test_next_attempt_is_now_plus_delay() -> None:
    assert Backoff().next_attempt_at(now=1000.0, failed_attempts=3) == 1120.0


def test_attempts_start_at_one() -> None:
    with pytest.raises(ValueError):
        Backoff().delay(0)


def test_steps_must_be_positive() -> None:
    with pytest.raises(ValueError):
        Backoff(steps=(5.0, 0.0))
    with pytest.raises(ValueError):
        Backoff(steps=())


@pytest.mark.parametrize(("failures", "seconds"), [(1, 0.25), (2, 0.5), (3, 1.0), (6, 8.0), (7, 10.0), (500, 10.0)])
def test_a_doubling_backoff_doubles_up_to_its_cap(failures: int, seconds: float) -> None:
    """The cloud worker's storage retries: 0.25 s, then twice the previous wait, never past 10 s."""
    assert Backoff.doubling(0.25, cap=10.0).delay(failures) == seconds


def test_a_first_wait_above_the_cap_is_the_cap() -> None:
    assert Backoff.doubling(30.0, cap=10.0).delay(1) == 10.0
    with pytest.raises(ValueError):
        Backoff(factor=0.5)
