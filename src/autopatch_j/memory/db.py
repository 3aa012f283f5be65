"""SQLite connections with the Memory pragmas, and the two transaction shapes (M-19).

Every public storage method runs one short transaction. Writers start with `BEGIN IMMEDIATE` so a
read-then-write never deadlocks into SQLITE_BUSY; readers use a deferred `BEGIN` for a consistent
snapshot. Driver errors are translated here.

Connections are short in the sense M-19 needs: none holds a transaction (or a lock) between calls.
An opened store (`keep_open`) hands the idle connection of the previous write to the next write
instead of closing it and opening another: a fresh connection costs a connect, five pragmas and a
parse of the whole schema — most of what admission cost (bench/admission_bench.py). An
idle connection is reused only in the process that opened it, only while the file at the path is
still the one it opened (same device and inode, not emptied), and never after a driver error in its
transaction; otherwise a fresh one is opened. Reads always open a fresh connection (see `read`).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from autopatch_j.memory.errors import StorageBusyError, StorageCorruptError, StorageError, StorageReadOnlyError
from autopatch_j.memory.stamp import Stamper, has_log, mark_failed

DEFAULT_BUSY_TIMEOUT_MS = 10_000
# Past this size a writer, after its commit, asks for a RESTART checkpoint, waiting at most
# CHECKPOINT_WAIT_MS for readers of older snapshots: readers that overlap back to back would
# otherwise keep SQLite's automatic (passive) checkpoints from ever resetting the WAL.
WAL_RESTART_BYTES = 8 * 1024 * 1024
CHECKPOINT_WAIT_MS = 100
# After a checkpoint that could not finish (a long reader), wait for this much more growth — or half
# the WAL's size, if more — before trying again, so a pinned reader costs a few waits rather than one
# per commit.
CHECKPOINT_RETRY_GROWTH_BYTES = 4 * 1024 * 1024
# Past this size a writer stops running ahead of the checkpoint: after its commit it keeps retrying
# (its caller waits) until the WAL resets or CHECKPOINT_HARD_WAIT_S pass. Without it, one writer kept
# committing while the other's RESTART checkpoint waited, and the WAL passed its 16 MiB bound.
WAL_HARD_BYTES = 12 * 1024 * 1024
CHECKPOINT_HARD_WAIT_S = 1.5
CHECKPOINT_RETRY_PAUSE_S = 0.005
# Idle connections kept for reuse: one per thread that runs transactions at the same time (the
# foreground and the heartbeat, a worker); more are closed when their transaction ends.
MAX_IDLE_CONNECTIONS = 4
# Connections a forked child inherited: never used and never closed there (closing could release
# the parent's locks or remove its WAL), only kept referenced so the garbage collector leaves them.
_INHERITED: list[sqlite3.Connection] = []

FileId = tuple[int, int]  # (device, inode)

_PRAGMAS = (
    "PRAGMA foreign_keys = ON",
    "PRAGMA synchronous = NORMAL",
    # After a checkpoint resets the WAL, truncate a file that grew past 4 MiB (bench/fault_report.py).
    "PRAGMA journal_size_limit = 4194304",
    # Sorters, DISTINCT, materialized CTEs and IN lists of a statement live in memory: with the default
    # (a file), the first one of each transaction creates and deletes a temporary file — on a fresh
    # read connection that was half of a `memory search` (bench/search_bench.py, docs/retrieval.md).
    # Every temporary structure of Memory's statements is bounded by the store's size.
    "PRAGMA temp_store = MEMORY",
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


def is_corrupt(exc: sqlite3.Error) -> bool:
    """SQLite's report of a damaged page (or a file that is no database) on a page a statement touched."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB) or "malformed" in str(exc).lower()


def is_read_only(exc: sqlite3.Error) -> bool:
    """SQLite's refusal to write a database this process may only read (any SQLITE_READONLY code)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF == sqlite3.SQLITE_READONLY


def is_busy(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in str(exc).lower()


@contextmanager
def translate_errors(action: str) -> Iterator[None]:
    """Turn driver errors into `StorageError` subclasses with one clear sentence."""
    try:
        yield
    except sqlite3.Error as exc:
        if is_busy(exc):
            raise StorageBusyError(
                f"Could not {action}: the Memory database stayed locked by another process; try again."
            ) from exc
        if is_corrupt(exc):
            raise StorageCorruptError(f"Could not {action}: {exc}; nothing was written.") from exc
        if is_read_only(exc):
            raise StorageReadOnlyError(f"Could not {action}: {exc}; nothing was written.") from exc
        raise StorageError(f"Could not {action}: {exc}.") from exc
    except OSError as exc:
        raise StorageError(f"Could not {action}: {exc.strerror or exc}.") from exc


class Database:
    """A Memory database file; hands out short transactions."""

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
        self._checkpoint_at_bytes = WAL_RESTART_BYTES
        self._lock = threading.Lock()
        self._reuse = False
        self._idle: list[tuple[sqlite3.Connection, FileId]] = []  # each with the file it was opened on
        self._retired: list[sqlite3.Connection] = []  # opened on a file no longer at the path
        self._pid = os.getpid()
        # Set by bootstrap on a healthy store: carries the verification stamp over this process's commits.
        self.stamper: Stamper | None = None
        self.whole_file_checked = False  # whether the last bootstrap ran the whole-file checks
        self.corruption: str | None = None  # set when a statement of this process met a damaged page

    def keep_open(self) -> None:
        """Hold one idle connection for the process's lifetime and reuse idle connections from now on.

        In WAL mode the last connection to close checkpoints and deletes the WAL, and the next one
        recreates it; the idle connection (no transaction, so it blocks nobody) avoids that, and handing
        it to the next transaction saves opening one — measured by bench/admission_bench.py.
        """
        with self._lock:
            self._reuse = True
            if self._idle:
                return
        with translate_errors("open the Memory database"):
            self._release(*self._open_pooled())

    def close(self) -> None:
        """Close the idle connections and stop reusing them (until the next `keep_open`)."""
        with self._lock:
            current = [conn for conn, _ in self._idle]
            idle = current + self._retired
            self._idle, self._retired, self._reuse = [], [], False
            inherited = self._pid != os.getpid()
        if inherited:
            _INHERITED.extend(idle)
            return
        if current and self.stamper is not None:
            self._checkpoint_stamped(current[0], self.stamper)
        for conn in idle:
            conn.close()

    def _checkpoint_stamped(self, conn: sqlite3.Connection, stamper: Stamper) -> None:
        """Before the last close: checkpoint the log into the main file ourselves and carry the stamp
        over it. Left to the close, that checkpoint would move the main file's times past the stamp
        and cost the next start a whole-file check."""
        try:
            token = stamper.begin(conn)
            if token is None or not has_log(token[1]):
                return  # an untrusted file, or no log to fold in (the close then leaves the main file alone)
            # Busy or not (a reader may keep the log from being reset), whatever the checkpoint copied into
            # the main file is ours and changes no content: stamp the file as it now is.
            self._checkpoint(conn, "TRUNCATE")
            stamper.committed(conn, token)
        except sqlite3.Error:
            return  # the stamp stays behind the file: one whole-file check more at the next start

    def set_trace(self, trace: Callable[[str], None] | None) -> None:
        """Record every statement sent from now on (tests assert them)."""
        self._trace = trace

    def orphaned_wal_bytes(self) -> int:
        """Bytes of a non-empty `-wal` beside a 0-byte main file, else 0.

        SQLite opening a 0-byte database deletes the WAL beside it, and that WAL may be the only copy
        of the data (a main file truncated or replaced). Such a pair is never opened.
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

    # -- reuse -------------------------------------------------------------------------------

    def _file_identity(self) -> FileId | None:
        """(device, inode) of a non-empty file at the path, else None (missing, or emptied)."""
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino) if st.st_size else None

    def _open_pooled(self) -> tuple[sqlite3.Connection, FileId | None]:
        """A fresh connection and the file it opened (None when the file changed while it opened)."""
        before = self._file_identity()
        conn = self.connect()
        return conn, (before if before == self._file_identity() else None)

    def _acquire(self) -> tuple[sqlite3.Connection, FileId | None]:
        """An idle connection to the file still at the path, or a fresh one."""
        if not self._reuse:
            return self.connect(), None
        here = self._file_identity()
        with self._lock:
            if self._pid != os.getpid():  # a forked child: the parent's connections are not ours
                _INHERITED.extend([conn for conn, _ in self._idle] + self._retired)
                self._idle, self._retired, self._pid = [], [], os.getpid()
            if self._idle and here is not None and self._idle[-1][1] == here:
                conn, opened_on = self._idle.pop()
                conn.set_trace_callback(self._trace)
                return conn, opened_on
            stale, self._idle = self._idle, []
            # The file was replaced or emptied: never write through the old inode again, and do not close
            # those connections yet either — closing the last one checkpoints and deletes the `-wal` at the
            # path, which may now belong to the new file (or hold the only copy of the data). They are
            # closed with the store, as the single kept connection always was.
            self._retired.extend(conn for conn, _ in stale)
        return self._open_pooled()

    def _release(self, conn: sqlite3.Connection, opened_on: FileId | None) -> None:
        """Keep the connection for the next transaction (reuse on, file known, no transaction open), else close it."""
        with self._lock:
            reusable = self._reuse and self._pid == os.getpid() and len(self._idle) < MAX_IDLE_CONNECTIONS
            if reusable and opened_on is not None and not conn.in_transaction:
                self._idle.append((conn, opened_on))
                return
        conn.close()

    # -- transactions ----------------------------------------------------------------------

    @contextmanager
    def _watch(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            self._note_corruption(exc)
            raise

    def _note_corruption(self, exc: BaseException) -> None:
        """A damaged page met by a statement: the store counts as failed from now on, in this process
        (the manager turns degraded) and for every later start (the stamp says failed)."""
        if isinstance(exc, sqlite3.Error) and is_corrupt(exc):
            self.corruption = f"a statement met a damaged page ({exc})"
            self.stamper = None
            mark_failed(self.path, self.corruption)

    @contextmanager
    def write(self, action: str) -> Iterator[sqlite3.Connection]:
        """One short `BEGIN IMMEDIATE` transaction."""
        with translate_errors(action), self._watch():
            conn, opened_on = self._acquire()
            reusable = False  # only a connection whose transaction ended cleanly serves the next one
            try:
                conn.execute("BEGIN IMMEDIATE")
                stamper = self.stamper
                token = stamper.begin(conn) if stamper is not None else None
                try:
                    yield conn
                except BaseException as exc:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    reusable = not isinstance(exc, sqlite3.Error)  # a refusal of ours, rolled back
                    raise
                conn.execute("COMMIT")
                self._bound_wal(conn)
                if stamper is not None:
                    stamper.committed(conn, token)
                reusable = True
            finally:
                self._release(conn, opened_on if reusable else None)

    def _bound_wal(self, conn: sqlite3.Connection) -> None:
        """Reset an oversized WAL after a commit; never fails the write that triggered it."""
        try:
            size = os.stat(f"{self.path}-wal").st_size
        except OSError:
            return
        if size <= self._checkpoint_at_bytes:
            return
        deadline = time.monotonic() + (CHECKPOINT_HARD_WAIT_S if size > WAL_HARD_BYTES else 0.0)
        busy, frames = self._restart_checkpoint(conn)
        while busy and time.monotonic() < deadline:
            time.sleep(CHECKPOINT_RETRY_PAUSE_S)
            busy, frames = self._restart_checkpoint(conn)
        if not busy:
            self._checkpoint_at_bytes = WAL_RESTART_BYTES
        elif frames != -1:
            # Waiting for growth never skips the hard limit: below it, the next try comes at the latest
            # there (with its wait), so readers overlapping back to back cannot carry the WAL past it.
            later = size + max(CHECKPOINT_RETRY_GROWTH_BYTES, size // 2)
            self._checkpoint_at_bytes = later if size > WAL_HARD_BYTES else min(later, WAL_HARD_BYTES)
        # frames == -1: another connection was checkpointing at that moment (SQLite refused at once, without
        # waiting); that is not a long reader, so the next commit tries again rather than waiting for growth.

    def _restart_checkpoint(self, conn: sqlite3.Connection) -> tuple[int, int]:
        """One `wal_checkpoint(RESTART)` waiting at most CHECKPOINT_WAIT_MS: (busy, frames in the log)."""
        return self._checkpoint(conn, "RESTART")

    def _checkpoint(self, conn: sqlite3.Connection, mode: str) -> tuple[int, int]:
        conn.execute(f"PRAGMA busy_timeout = {CHECKPOINT_WAIT_MS}")
        try:
            busy, frames, _ = conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
        except sqlite3.Error:
            busy, frames = 1, 0
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
        return busy, frames

    @contextmanager
    def read(self, action: str) -> Iterator[sqlite3.Connection]:
        """One short deferred read transaction (a consistent snapshot) on a fresh connection.

        Reads do not reuse connections: readers that reuse theirs run back to back with no gap, and
        the writers' RESTART checkpoint then rarely finds a moment to reset the WAL (tests/faults/
        test_wal.py: 17–23 MB against its 16 MiB bound; ≤ 13 MB with fresh reader connections).
        """
        with translate_errors(action), self._watch():
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
