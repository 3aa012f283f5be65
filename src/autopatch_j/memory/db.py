"""Short SQLite connections with the Memory pragmas, and the two transaction shapes (M-19).

Every public storage method opens one connection, runs one short transaction and closes it.
Writers start with `BEGIN IMMEDIATE` so a read-then-write never deadlocks into SQLITE_BUSY;
readers use a deferred `BEGIN` for a consistent snapshot. Driver errors are translated here.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from autopatch_j.memory.errors import StorageBusyError, StorageError

DEFAULT_BUSY_TIMEOUT_MS = 10_000
# Past this size a writer, after its commit, asks for a RESTART checkpoint, waiting at most
# CHECKPOINT_WAIT_MS for readers of older snapshots: readers that overlap back to back would
# otherwise keep SQLite's automatic (passive) checkpoints from ever resetting the WAL.
WAL_RESTART_BYTES = 8 * 1024 * 1024
CHECKPOINT_WAIT_MS = 100
# After a checkpoint that could not finish (a long reader), wait for this much more growth before
# trying again, so a pinned reader costs a few waits rather than one per commit.
CHECKPOINT_RETRY_GROWTH_BYTES = 4 * 1024 * 1024

_PRAGMAS = (
    "PRAGMA foreign_keys = ON",
    "PRAGMA synchronous = NORMAL",
    # After a checkpoint resets the WAL, truncate a file that grew past 4 MiB (bench/fault_report.py).
    "PRAGMA journal_size_limit = 4194304",
)


def _has_code(text: str) -> bool:
    return any(line.strip() and not line.strip().startswith("--") for line in text.splitlines())


def iter_statements(script: str) -> Iterator[str]:
    """Split a SQL script into complete statements using SQLite's own completeness check."""
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if _has_code(buffer):
                yield buffer.strip()
            buffer = ""
    if _has_code(buffer):
        raise StorageError("The schema script ends with an incomplete statement.")


def _is_busy(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in str(exc).lower()


@contextmanager
def translate_errors(action: str) -> Iterator[None]:
    """Turn driver errors into `StorageError` subclasses with one clear sentence."""
    try:
        yield
    except sqlite3.Error as exc:
        if _is_busy(exc):
            raise StorageBusyError(
                f"Could not {action}: the Memory database stayed locked by another process; try again."
            ) from exc
        raise StorageError(f"Could not {action}: {exc}.") from exc
    except OSError as exc:
        raise StorageError(f"Could not {action}: {exc.strerror or exc}.") from exc


class Database:
    """A Memory database file; hands out short connections and transactions."""

    def __init__(
        self,
        *,
        path: Path,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
        trace: Callable[[str], None] | None = None,
    ) -> None:
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self._trace = trace
        self._keeper: sqlite3.Connection | None = None
        self._checkpoint_at_bytes = WAL_RESTART_BYTES

    def keep_open(self) -> None:
        """Hold one idle connection for the process's lifetime.

        In WAL mode the last connection to close checkpoints and deletes the WAL, and the next one
        recreates it; with short connections that would happen on every transaction. An idle
        keeper (no transaction, so it blocks nobody) avoids it — measured by bench/admission_bench.py.
        """
        if self._keeper is None:
            with translate_errors("open the Memory database"):
                self._keeper = self.connect()

    def close(self) -> None:
        if self._keeper is not None:
            self._keeper.close()
            self._keeper = None

    def set_trace(self, trace: Callable[[str], None] | None) -> None:
        """Record every statement sent on connections opened from now on (tests assert them)."""
        self._trace = trace

    def orphaned_wal_bytes(self) -> int:
        """Bytes of a non-empty `-wal` beside a 0-byte main file, else 0.

        SQLite opening a 0-byte database deletes the WAL beside it, and that WAL may be the only copy
        of the data (a main file truncated or replaced). Such a pair is never opened (issue 9.4).
        """
        try:
            if self.path.stat().st_size != 0:
                return 0
            return os.stat(f"{self.path}-wal").st_size
        except OSError:
            return 0

    def connect(self, *, create: bool = False) -> sqlite3.Connection:
        """Open a connection; without `create`, a missing file is an error rather than a new file."""
        if wal_bytes := self.orphaned_wal_bytes():
            # Raised as a driver error so every reader (status, export, clear) treats it as unreadable.
            raise sqlite3.DatabaseError(
                f"{self.path.name} is empty but {self.path.name}-wal beside it holds {wal_bytes} bytes that may be "
                "its data; it is left untouched"
            )
        mode = "rwc" if create else "rw"
        conn = sqlite3.connect(
            f"file:{self.path}?mode={mode}",
            uri=True,
            isolation_level=None,
            timeout=self.busy_timeout_ms / 1000,
            check_same_thread=False,
        )
        conn.row_factory = sqlite3.Row
        if self._trace is not None:
            conn.set_trace_callback(self._trace)
        conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
        for pragma in _PRAGMAS:
            conn.execute(pragma)
        return conn

    @contextmanager
    def write(self, action: str) -> Iterator[sqlite3.Connection]:
        """One short `BEGIN IMMEDIATE` transaction on a fresh connection."""
        with translate_errors(action):
            conn = self.connect()
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
                self._bound_wal(conn)
            finally:
                conn.close()

    def _bound_wal(self, conn: sqlite3.Connection) -> None:
        """Reset an oversized WAL after a commit; never fails the write that triggered it."""
        try:
            size = os.stat(f"{self.path}-wal").st_size
        except OSError:
            return
        if size <= self._checkpoint_at_bytes:
            return
        conn.execute(f"PRAGMA busy_timeout = {CHECKPOINT_WAIT_MS}")
        try:
            busy = conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()[0]
        except sqlite3.Error:
            busy = 1
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
        if busy:
            self._checkpoint_at_bytes = size + CHECKPOINT_RETRY_GROWTH_BYTES
        else:
            self._checkpoint_at_bytes = WAL_RESTART_BYTES

    @contextmanager
    def read(self, action: str) -> Iterator[sqlite3.Connection]:
        """One short deferred read transaction (a consistent snapshot) on a fresh connection."""
        with translate_errors(action):
            conn = self.connect()
            try:
                conn.execute("BEGIN")
                try:
                    yield conn
                finally:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
            finally:
                conn.close()
