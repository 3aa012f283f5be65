"""A signal whose exception Python swallows still stops the command (H-… Ctrl-C / SIGTERM).

Python prints "Exception ignored in …" and drops an exception raised inside a weakref callback or a
`__del__` — for instance the module-lock callback of an import in progress. A SIGINT or SIGTERM that
lands there must still unwind the command, or `memory drain` waits on its LLM call for minutes
(seen in CI: a SIGINT during a lazy import left the drain running past its 30 s).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import signal, sys, time
    from autopatch_j.app import signals

    class Dropped:
        def __del__(self):
            signal.raise_signal({signum})
            for _ in range(1000):  # the handler runs here, inside __del__, and its exception is dropped
                pass

    try:
        with signals.exit_signals():
            Dropped()
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                time.sleep(0.01)
            print("not interrupted")
    except {caught}:
        print("interrupted", signals.received())
    """
)


@pytest.mark.parametrize(
    ("signum", "caught"),
    [(signal.SIGINT, "KeyboardInterrupt"), (signal.SIGTERM, "signals.Terminated")],
)
def test_a_signal_raised_where_python_drops_exceptions_still_unwinds(signum: int, caught: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(signum=int(signum), caught=caught)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.stdout.split() == ["interrupted", str(int(signum))], (done.stdout, done.stderr)
    assert "Exception ignored" not in done.stderr
