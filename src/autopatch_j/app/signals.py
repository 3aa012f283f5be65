"""SIGINT and SIGTERM for one CLI process: remember which arrived, and unwind like Ctrl-C.

`exit_signals()` wraps a whole command (installed only in the main thread, restored afterwards).
SIGINT keeps Python's behaviour (KeyboardInterrupt, which the REPL may still handle as "cancel");
SIGTERM raises `Terminated`, which nothing handles as a cancel, so the process unwinds, releases its
Memory job leases (`AppContext.close`) and exits with 143. `Terminated` is a `SystemExit`, so it also
unwinds out of an asyncio callback (the REPL's prompt_toolkit loop) instead of reaching the loop's
exception handler, and an uncaught one still exits with 143. Python drops an exception raised inside a
`__del__` or a weakref callback (an import's module-lock callback, say) and reports it to
`sys.unraisablehook`; inside `exit_signals()` that hook delivers the signal again to the main thread,
so a signal landing there still stops the command. `received()` tells the cleanup which one came;
`drop_terminated_records(package)` keeps a library that logs the exceptions of its tasks from printing
a traceback for `Terminated`.
"""

from __future__ import annotations

import _thread
import logging
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sys import UnraisableHookArgs

EXIT_SIGINT = 130
EXIT_SIGTERM = 143

_received: list[int] = []
_REDELIVER_AFTER_S = 0.01


class Terminated(SystemExit):
    """SIGTERM: the process was asked to stop (exit status 143 when nothing catches it)."""

    def __init__(self) -> None:
        super().__init__(EXIT_SIGTERM)


class _NotTerminated(logging.Filter):
    """Drops a record whose exception is `Terminated`: a library task the signal interrupts logs it
    with a traceback, while the process stops as asked."""

    def filter(self, record: logging.LogRecord) -> bool:
        kind = record.exc_info[0] if record.exc_info else None
        return not (isinstance(kind, type) and issubclass(kind, Terminated))


def drop_terminated_records(package: str) -> None:
    """Filter the logger of `package` and of each of its modules created so far (a logger's filters
    see only its own records, not those its children propagate); once per logger."""
    names = [package, *(n for n in list(logging.Logger.manager.loggerDict) if n.startswith(f"{package}."))]
    for name in names:
        logger = logging.getLogger(name)
        if not any(isinstance(f, _NotTerminated) for f in logger.filters):
            logger.addFilter(_NotTerminated())


def received() -> int | None:
    """The last SIGINT/SIGTERM this process received inside `exit_signals()`, or None."""
    return _received[-1] if _received else None


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    raise KeyboardInterrupt


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    raise Terminated


def _redeliver_dropped(previous: Callable[[UnraisableHookArgs], object]) -> Callable[[UnraisableHookArgs], None]:
    """An unraisable hook: our own signal exception, dropped where Python cannot raise, is delivered
    again a moment later from another thread, so the handler runs at the main thread's next check after
    this hook and the callback return (where it can raise); anything else goes on to `previous`."""

    def hook(unraisable: UnraisableHookArgs) -> None:
        kind = unraisable.exc_type
        if _received and issubclass(kind, KeyboardInterrupt | Terminated):
            again = threading.Timer(_REDELIVER_AFTER_S, _thread.interrupt_main, args=(signal.Signals(_received[-1]),))
            again.daemon = True
            again.start()
            return
        previous(unraisable)

    return hook


@contextmanager
def exit_signals() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    previous_hook = sys.unraisablehook
    signal.signal(signal.SIGINT, _on_sigint)
    signal.signal(signal.SIGTERM, _on_sigterm)
    sys.unraisablehook = _redeliver_dropped(previous_hook)
    try:
        yield
    finally:
        sys.unraisablehook = previous_hook
        for sig, handler in previous.items():
            signal.signal(sig, handler)
