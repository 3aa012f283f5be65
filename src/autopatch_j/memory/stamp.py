"""The verification stamp: when the whole-file checks (`quick_check`, `foreign_key_check`) may be skipped.

Those two checks read every page of the store, so their cost grows with it. Every start still runs
the cheap part of the bootstrap invariant (version, exact catalog, meta singleton, one active thread);
the whole-file part runs only when the file may hold bytes no check has seen. The stamp —
`memory.db.verified` beside the database — records the file state that was last found sound: the
main file's device, inode, size, mtime and ctime, and the `-wal`'s size and mtime (a missing or empty
`-wal` counts as "no log"; its ctime moves whenever SQLite, running as root, opens it). A start whose
observed state equals a `sound` stamp skips the whole-file checks; any other state (a stamp missing,
unreadable, `failed`, or a file changed by anything else) runs them, and their verdict becomes the
new stamp.

Our own committed write transactions carry the stamp forward (`Stamper`): while a writer holds
SQLite's write lock it checks that the file is still in the stamped state and notes the connection's
`PRAGMA data_version`; after its commit (and checkpoint) it observes the file again and stamps that
state only if `data_version` is unchanged — no other connection, ours or foreign, committed in
between. A write by anything else therefore breaks the chain, and so does raw byte damage (it moves
mtime/ctime; ctime cannot be set back). A `failed` stamp is never carried forward: a command never
writes to a store whose last whole-file check failed (bootstrap re-checks first). Losing the chain
only costs one whole-file check at the next start.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import zlib
from dataclasses import dataclass
from pathlib import Path

SOUND = "sound"
FAILED = "failed"
_MAGIC = "autopatch-j-verified/1"
_RECORD_BYTES = 512

FileState = tuple[int, ...]
_MAIN_FIELDS = 5  # device, inode, size, mtime, ctime of the main file; then the log's size and mtime


def stamp_path(db_path: Path) -> Path:
    return Path(f"{db_path}.verified")


def observe(db_path: Path) -> FileState | None:
    """The main file's and the log's identity and change times; None when the main file is missing."""
    try:
        main = os.stat(db_path)
    except OSError:
        return None
    state: tuple[int, ...] = (main.st_dev, main.st_ino, main.st_size, main.st_mtime_ns, main.st_ctime_ns)
    try:
        wal = os.stat(f"{db_path}-wal")
    except OSError:
        return state
    if wal.st_size == 0:
        return state
    # Not the log's ctime: SQLite, running as root, chowns the log on every open (a reader's too).
    return (*state, wal.st_size, wal.st_mtime_ns)


def has_log(state: FileState) -> bool:
    """Whether the observed state includes a non-empty `-wal`."""
    return len(state) > _MAIN_FIELDS


@dataclass(frozen=True, slots=True)
class Stamp:
    verdict: str
    state: FileState
    reason: str = ""


def _record(stamp: Stamp) -> bytes:
    """The stamp as one fixed-size record: a header line with a CRC of the rest, then the reason."""
    body = f"{stamp.verdict} {' '.join(str(v) for v in stamp.state)}\n{stamp.reason}".encode()[: _RECORD_BYTES - 40]
    text = f"{_MAGIC} {zlib.crc32(body):08x} ".encode() + body + b"\n"
    return text.ljust(_RECORD_BYTES, b" ")


def read_stamp(db_path: Path) -> Stamp | None:
    """The recorded stamp, or None when there is none or it cannot be read (both mean: check)."""
    try:
        fd = os.open(f"{db_path}.verified", os.O_RDONLY)  # os-level: this runs in every write transaction
        try:
            data = os.read(fd, _RECORD_BYTES)
        finally:
            os.close(fd)
    except OSError:
        return None
    head, _, rest = data.partition(b" ")
    crc, _, body = rest.partition(b" ")
    body = body.rstrip(b" ")[:-1]  # the padding, then the record's final newline
    try:
        if head != _MAGIC.encode() or int(crc, 16) != zlib.crc32(body):
            return None  # not ours, or torn by a writer or a crash: no stamp
        first, _, reason = body.decode().partition("\n")
        verdict, *numbers = first.split(" ")
        if verdict not in (SOUND, FAILED):
            return None
        return Stamp(verdict=verdict, state=tuple(map(int, numbers)), reason=reason)
    except ValueError:
        return None


def write_stamp(db_path: Path, stamp: Stamp) -> None:
    """Overwrite the stamp in place, as one fixed-size record (never renamed over or truncated: on ext4
    either one forces the data out to disk, a millisecond per commit). A reader that meets a record
    half written, or a crash mid-write, finds the CRC wrong: no stamp, so the next start checks the
    whole file. A stamp that cannot be written is only a check more next time."""
    with contextlib.suppress(OSError):
        fd = os.open(f"{db_path}.verified", os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            os.pwrite(fd, _record(stamp), 0)
        finally:
            os.close(fd)


def mark_failed(db_path: Path, reason: str) -> None:
    """Record that the store failed (a statement met a damaged page): the next start checks the whole file."""
    write_stamp(db_path, Stamp(verdict=FAILED, state=observe(db_path) or (), reason=reason))


def trusted(db_path: Path, state: FileState | None) -> bool:
    """True when the whole-file checks may be skipped: a `sound` stamp of exactly this state."""
    if state is None:
        return False
    stamp = read_stamp(db_path)
    return stamp is not None and stamp.verdict == SOUND and stamp.state == state


def data_version(conn: sqlite3.Connection) -> int:
    value: int = conn.execute("PRAGMA data_version").fetchone()[0]
    return value


class Stamper:
    """Carries a `sound` stamp across this process's own committed write transactions."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path

    def begin(self, conn: sqlite3.Connection) -> tuple[int, FileState] | None:
        """Inside `BEGIN IMMEDIATE` (the write lock is held: nobody else can commit): the connection's
        data version and the file state, if the file is still in the stamped state; else None."""
        state = observe(self.db_path)
        if not trusted(self.db_path, state):
            return None
        assert state is not None
        return data_version(conn), state

    def committed(self, conn: sqlite3.Connection, token: tuple[int, FileState] | None) -> None:
        """After the commit and its checkpoint: stamp the new state if nobody else committed meanwhile
        (a transaction that changed nothing leaves the file, and so the stamp, as it was)."""
        if token is None:
            return
        version, before = token
        state = observe(self.db_path)
        if state is not None and state != before and data_version(conn) == version:
            write_stamp(self.db_path, Stamp(verdict=SOUND, state=state))
