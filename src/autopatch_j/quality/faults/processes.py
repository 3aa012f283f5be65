"""What the fault harnesses share: forked processes (they start in milliseconds) and a percentile."""

from __future__ import annotations

import multiprocessing

FORK = multiprocessing.get_context("fork")


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100) by nearest rank; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]
