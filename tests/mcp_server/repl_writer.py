"""A REPL-equivalent writer process: `python -m tests.mcp_server.repl_writer ROOT COUNT PREFIX [AFTER]`.

It wires Memory exactly as `autopatch-j` with no subcommand does (`AppContext`, then the REPL's
`connect_memory_runtime`: the background worker while it runs, the exit drain at the end) and admits
COUNT ordinary turns the way the agent host does around its LLM call (`begin_turn`, then
`complete_turn`), notifying the worker after each. It prints `ready` once wired; with AFTER it then
waits (≤ 60 s) until a turn whose text starts with AFTER is stored, so that it races that other
writer. An exception exits non-zero.
"""

from __future__ import annotations

import sqlite3
import sys
import time
from pathlib import Path

from autopatch_j.app.context import AppContext
from autopatch_j.cli.repl_entry import connect_memory_runtime
from autopatch_j.memory.records import Intent


def wait_for(db: Path, prefix: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        conn = sqlite3.connect(db, timeout=30)
        try:
            if conn.execute("SELECT 1 FROM turns WHERE user_text LIKE ?", (f"{prefix}%",)).fetchone():
                return
        finally:
            conn.close()
        time.sleep(0.01)
    raise SystemExit(f"no turn starting with {prefix!r} appeared")


def main(root: str, count: int, prefix: str, after: str | None) -> int:
    app = AppContext.from_environment(root=Path(root))
    manager = app.manager()
    runtime, warning = connect_memory_runtime(app, None)
    assert warning is None, warning
    runtime.start()
    print("ready", flush=True)
    if after:
        wait_for(manager.paths.db, after)
    try:
        for n in range(count):
            ticket = manager.begin_turn(f"{prefix} {n}: from now on, answer first.", Intent.GENERAL_CHAT)
            manager.complete_turn(ticket, f"ok {n}")
            runtime.notify()
    finally:
        warnings = runtime.drain()
        app.close()
    print(f"admitted {count}; exit drain warnings: {warnings}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None))
