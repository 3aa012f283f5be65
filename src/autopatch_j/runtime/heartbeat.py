"""`Heartbeat`: renew a lease on a schedule in a daemon thread while the work it guards runs.

One mechanism for the open-turn leases of a Memory process, a Memory job's claim and a cloud task's
claim. `renew()` returns whether the lease is still held: `False` ends the heartbeat (`lost`). An
exception of a `transient` type (a busy database) is handed to `on_error` and retried at the next
beat, since the lease may still be ours. `halt_when` is polled every `wake` seconds (default: the
interval) and ends the heartbeat early (`halted`) — the cloud worker's "stop" signal.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class Heartbeat:
    """Call `renew` every `interval` seconds from `start()` (or `with`) until `stop()`, a lost lease or
    `halt_when()`. `on_lost` and `on_halt` run in the heartbeat's thread when it ends that way."""

    def __init__(
        self,
        renew: Callable[[], bool],
        *,
        interval: float,
        name: str,
        transient: tuple[type[Exception], ...] = (),
        on_error: Callable[[Exception], None] | None = None,
        on_lost: Callable[[], None] | None = None,
        halt_when: Callable[[], bool] | None = None,
        on_halt: Callable[[], None] | None = None,
        wake: float | None = None,
        join_timeout: float | None = 5.0,
    ) -> None:
        if interval <= 0:
            raise ValueError("a heartbeat interval is a positive number of seconds")
        self.interval = interval
        self.wake = interval if wake is None else min(wake, interval)
        self.lost = False
        self.halted = False
        self._renew = renew
        self._transient = transient
        self._on_error = on_error
        self._on_lost = on_lost
        self._halt_when = halt_when
        self._on_halt = on_halt
        self._join_timeout = join_timeout
        self._done = threading.Event()
        self._name = name
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start beating (a no-op when already started)."""
        if self._thread is not None:
            return
        self._done.clear()
        self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop beating and wait for the thread (at most `join_timeout` seconds)."""
        self._done.set()
        if self._thread is not None:
            self._thread.join(timeout=self._join_timeout)
            self._thread = None

    def __enter__(self) -> Heartbeat:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        next_beat = time.monotonic() + self.interval
        while not self._done.wait(self.wake):
            if self._halt_when is not None and self._halt_when():
                self.halted = True
                if self._on_halt is not None:
                    self._on_halt()
                return
            if self.wake < self.interval and time.monotonic() < next_beat:
                continue
            next_beat = time.monotonic() + self.interval
            try:
                held = self._renew()
            except self._transient as exc:
                if self._on_error is not None:
                    self._on_error(exc)
                continue
            if not held:
                self.lost = True
                if self._on_lost is not None:
                    self._on_lost()
                return
