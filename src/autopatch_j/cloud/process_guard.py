"""Run one command so that it cannot outlive the worker.

Started by the command executor as `python process_guard.py FD COMMAND…` (as a script: it imports
only the standard library). The guard starts COMMAND in a process group of its own and kills that
whole group (the command and everything it spawned) as soon as one of these happens:

- the read end FD of the worker's pipe reaches end-of-file: the worker closed its write end to cancel
  the run (timeout, lost lease, shutdown) or the worker died, even by SIGKILL, since the kernel
  closes a dead process's descriptors;
- the guard gets SIGTERM or SIGHUP;
- COMMAND exits (leftover background children of the agent are reaped with it).

The guard then exits with COMMAND's status (128 + signal when it was killed by a signal).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from types import FrameType


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print("usage: process_guard.py FD COMMAND [ARGS…]", file=sys.stderr)
        return 2
    watch_fd = int(argv[1])
    try:
        child = subprocess.Popen(argv[2:], process_group=0, close_fds=True)
    except OSError as exc:
        print(f"command could not start: {exc.strerror or exc}", file=sys.stderr)
        return 127

    def on_signal(signo: int, _frame: FrameType | None) -> None:
        _kill_group(child.pid)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    def watch() -> None:
        try:
            while os.read(watch_fd, 4096):
                pass
        except OSError:
            pass
        _kill_group(child.pid)

    threading.Thread(target=watch, daemon=True).start()
    code = child.wait()
    _kill_group(child.pid)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
