"""The wait before the next attempt, by how many attempts have failed so far.

Two shapes, one type: a table of steps (Memory's jobs, M-48: 5 s → 30 s → 2 min → 10 min → 1 h,
then 1 h for every later failure) and a doubling wait with a cap (`Backoff.doubling`, the cloud
worker's storage retries).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_STEPS: tuple[float, ...] = (5.0, 30.0, 120.0, 600.0, 3600.0)


@dataclass(frozen=True, slots=True)
class Backoff:
    """`steps[n-1]` after the n-th failure, capped at the last step; past the table, `factor` times
    the previous wait (1.0 keeps the last step), never more than `cap`."""

    steps: tuple[float, ...] = DEFAULT_STEPS
    factor: float = 1.0
    cap: float | None = None

    def __post_init__(self) -> None:
        if not self.steps or any(step <= 0 for step in self.steps):
            raise ValueError("backoff steps must be a non-empty sequence of positive seconds")
        if self.factor < 1.0:
            raise ValueError("a backoff factor is at least 1")

    @classmethod
    def doubling(cls, first: float, *, cap: float) -> Backoff:
        """`first`, then twice the previous wait, never more than `cap`."""
        return cls(steps=(first,), factor=2.0, cap=cap)

    def delay(self, failed_attempts: int) -> float:
        """Seconds to wait after the `failed_attempts`-th failure (1-based)."""
        if failed_attempts < 1:
            raise ValueError("failed_attempts counts failures and starts at 1")
        last = len(self.steps)
        if failed_attempts <= last:
            wait = self.steps[failed_attempts - 1]
        elif self.factor == 1.0:
            wait = self.steps[-1]
        else:
            # one multiplication per failure past the table, stopping at the cap (`doubling` always has one)
            wait = self.steps[-1]
            for _ in range(failed_attempts - last):
                wait *= self.factor
                if self.cap is not None and wait >= self.cap:
                    break
        return wait if self.cap is None else min(wait, self.cap)

    def next_attempt_at(self, *, now: float, failed_attempts: int) -> float:
        return now + self.delay(failed_attempts)
