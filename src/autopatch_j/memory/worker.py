"""The background worker (M-40, M-50): a daemon thread that keeps running pipeline steps.

It claims work whenever the M-40 trigger holds; after a step it polls again at once, and a turn
that arrived while that step ran triggers on its own, so in-flight work never makes new work wait
for an unrelated trigger. Expired leases are reclaimed every `recover_every_s`. Any exception of a
step — a busy database, a transient SQLite error, a degraded store — is counted and reported to
`on_error`, and the loop resumes at the next poll: the worker never dies of it. `on_idle` runs
once each time the queue runs dry after the worker did some work (the end of a drain); an
exception it raises is dropped (neither counted nor reported: a callback that wants its failures
seen reports them itself) and the worker goes on.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable

from autopatch_j.memory.pipeline import Pipeline, StepResult

POLL_SECONDS = 1.0
RECOVER_EVERY_SECONDS = 30.0


class Worker:
    def __init__(
        self,
        *,
        pipeline: Pipeline,
        poll_s: float = POLL_SECONDS,
        recover_every_s: float = RECOVER_EVERY_SECONDS,
        on_step: Callable[[StepResult], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        on_idle: Callable[[], None] | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.poll_s = poll_s
        self.recover_every_s = recover_every_s
        self._on_step = on_step
        self._on_error = on_error
        self._on_idle = on_idle
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._since: float | None = None
        self._last_recovery = float("-inf")
        self.steps = 0
        self.errors = 0

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        if self.running:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="memory-worker", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 70.0) -> None:
        """Ask the loop to end after the current step and wait for it (a step is bounded by the LLM timeout)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=timeout)
            self._thread = None

    def notify(self) -> None:
        """New work was admitted: poll now instead of at the next interval."""
        self._wake.set()

    def run_once(self) -> StepResult | None:
        """One iteration of the loop (recovery when due, then one step); exceptions are contained."""
        try:
            if time.monotonic() - self._last_recovery >= self.recover_every_s:
                self._last_recovery = time.monotonic()
                self.pipeline.recover()
            result = self.pipeline.step(since=self._since)
        except Exception as exc:
            self.errors += 1
            if self._on_error is not None:
                with contextlib.suppress(Exception):  # a failing reporter must not kill the worker either
                    self._on_error(exc)
            return None
        self._since = result.claimed_at if result is not None else None
        if result is not None:
            self.steps += 1
            if self._on_step is not None:
                self._on_step(result)
        return result

    def _loop(self) -> None:
        worked = False
        while not self._stop.is_set():
            if self.run_once() is not None:
                worked = True
                continue
            if worked and self._on_idle is not None and not self._stop.is_set():
                with contextlib.suppress(Exception):  # never the worker's end
                    self._on_idle()
            worked = False
            self._wake.wait(self.poll_s)
            self._wake.clear()
