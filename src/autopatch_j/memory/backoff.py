"""Retry backoff (M-48): 5 s → 30 s → 2 min → 10 min → 1 h, then 1 h for every later failure."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_STEPS: tuple[float, ...] = (5.0, 30.0, 120.0, 600.0, 3600.0)


@dataclass(frozen=True, slots=True)
class Backoff:
    """The wait before the next attempt, by how many attempts have failed so far."""

    steps: tuple[float, ...] = DEFAULT_STEPS

    def __post_init__(self) -> None:
        if not self.steps or any(step <= 0 for step in self.steps):
            raise ValueError("backoff steps must be a non-empty sequence of positive seconds")

    def delay(self, failed_attempts: int) -> float:
        """Seconds to wait after the `failed_attempts`-th failure (1-based); capped at the last step."""
        if failed_attempts < 1:
            raise ValueError("failed_attempts counts failures and starts at 1")
        return self.steps[min(failed_attempts, len(self.steps)) - 1]

    def next_attempt_at(self, *, now: float, failed_attempts: int) -> float:
        return now + self.delay(failed_attempts)
