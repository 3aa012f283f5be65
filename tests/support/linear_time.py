"""A check that a function's time grows linearly with its input, with bounds generous enough for a
shared machine: the input four times as long may take at most ten times as long (plus 0.5 s).

Time is this process's CPU time, so other processes loading the machine do not stretch it."""

from __future__ import annotations

import time
from collections.abc import Callable


def assert_linear(run: Callable[[str], object], make_text: Callable[[int], str], small: int) -> None:
    """`run` on `make_text(n)`, an input of size n: `small` and four times `small` are timed by CPU (best of 2)."""

    def seconds(n: int) -> float:
        text = make_text(n)
        start = time.process_time()
        run(text)
        return time.process_time() - start

    seconds(small // 10)  # warm up
    short = min(seconds(small) for _ in range(2))
    long = min(seconds(4 * small) for _ in range(2))
    assert long < 4 * short * 2.5 + 0.5
