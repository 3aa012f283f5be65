"""Backoff follows the M-48 table: 5 s → 30 s → 2 min → 10 min → 1 h, capped."""

from __future__ import annotations

import pytest

from autopatch_j.memory.backoff import Backoff


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
