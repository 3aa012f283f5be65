"""`/memory clear --confirm` (M-31): fence old workers, delete every Memory row, start one empty thread.

Works on every degraded store. Before a damaged file is rewritten or replaced, its bytes (main file
and `-wal`) are copied to `.autopatch-j/damaged/<UTC time>/`: RAW turns may still be salvageable
(`sqlite3 … .recover`). When the catalog still matches v2 the clear is one IMMEDIATE transaction in
place. If that fails (catalog drift, or data pages SQLite reports as malformed), every schema object
is dropped and v2 recreated in one transaction, still in the same file. Only a file SQLite cannot
rewrite (garbage, truncation, corrupt pages) is rebuilt beside the old one and atomically swapped
in. Either way the new generation is `max(meta generation, max job generation, 0) + 1`, so a batch
claimed before the clear can never commit, and a valid old `created_at` is kept.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import shutil
import sqlite3
import uuid
from dataclasses import dataclass
from pathlib import Path

from autopatch_j.memory.catalog import SCHEMA_VERSION, USER_OBJECTS, catalog_drift, read_catalog, schema_statements
from autopatch_j.memory.db import Database, translate_errors
from autopatch_j.memory.errors import StorageBusyError, StorageError
from autopatch_j.memory.rekey import record_version_in_tx
from autopatch_j.runtime import Clock

_MAX_GENERATION = (
    "SELECT max(coalesce((SELECT max(generation) FROM memory_meta), 0), "
    "coalesce((SELECT max(generation) FROM memory_jobs), 0), 0)"
)
_OLD_CREATED_AT = "SELECT created_at FROM memory_meta WHERE id = 1 AND typeof(created_at) IN ('real', 'integer')"
_DELETE_ALL = (
    "DELETE FROM imported_turns",
    "DELETE FROM import_sessions",
    "DELETE FROM memory_index_keys",
    "DELETE FROM memory_postings",
    "DELETE FROM memory_term_stats",
    "DELETE FROM memory_search_docs",
    "DELETE FROM memory_item_candidates",
    "DELETE FROM memory_items",
    "DELETE FROM candidate_sources",
    "DELETE FROM memory_candidates",
    "DELETE FROM memory_jobs",
    "DELETE FROM turns",
    "DELETE FROM threads",
    "DELETE FROM memory_meta",
)
# Triggers and views first, then indexes, then tables: nothing is dropped from under a dependant.
_SCHEMA_OBJECTS = (
    f"SELECT type, name FROM sqlite_master WHERE {USER_OBJECTS} "
    "ORDER BY CASE type WHEN 'trigger' THEN 0 WHEN 'view' THEN 1 WHEN 'index' THEN 2 ELSE 3 END, name"
)
_INSERT_META = "INSERT INTO memory_meta (id, generation, created_at, updated_at) VALUES (1, ?, ?, ?)"
_INSERT_THREAD = "INSERT INTO threads (status, created_at) VALUES ('active', ?) RETURNING id"


@dataclass(frozen=True, slots=True)
class ClearResult:
    generation: int
    thread_id: int
    rebuilt: bool
    damaged_copy: Path | None = None  # where the damaged file's bytes were kept, if it was damaged


def clear_memory(*, db: Database, clock: Clock, damaged: bool, damaged_dir: Path) -> ClearResult:
    """Clear Memory; `damaged` (the store was degraded) keeps a copy of the file before anything is written."""
    copy = keep_damaged(db, damaged_dir, clock) if damaged and db.path.exists() else None
    if db.path.exists() and _catalog_is_v2(db):
        try:
            with db.write("clear Memory") as conn:
                generation, created_at = _salvage(conn, clock)
                for statement in _DELETE_ALL:
                    conn.execute(statement)
                thread_id = _seed(conn, generation=generation, created_at=created_at, now=clock.now())
            return ClearResult(generation=generation, thread_id=thread_id, rebuilt=False, damaged_copy=copy)
        except StorageBusyError:
            raise
        except StorageError:  # e.g. "database disk image is malformed": the file is damaged after all
            pass
    if db.path.exists():
        copy = copy or keep_damaged(db, damaged_dir, clock)
        rebuilt = _rebuild_in_place(db, clock)
        if rebuilt is not None:
            return ClearResult(rebuilt.generation, rebuilt.thread_id, rebuilt=True, damaged_copy=copy)
    result = _rebuild(db, clock)
    return ClearResult(result.generation, result.thread_id, rebuilt=True, damaged_copy=copy)


def keep_damaged(db: Database, damaged_dir: Path, clock: Clock) -> Path:
    """Copy the database file and its `-wal` to a new `damaged_dir/<UTC time>/`; nothing else is touched."""
    stamp = dt.datetime.fromtimestamp(clock.now(), tz=dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    with translate_errors("keep a copy of the damaged Memory file (nothing was changed)"):
        damaged_dir.mkdir(parents=True, exist_ok=True)
        for attempt in range(1000):
            target = damaged_dir / (stamp if attempt == 0 else f"{stamp}-{attempt}")
            try:
                target.mkdir(mode=0o700)
            except FileExistsError:
                continue
            for suffix in ("", "-wal"):
                source = db.path.with_name(db.path.name + suffix)
                if source.exists():
                    shutil.copyfile(source, target / source.name)
            return target
    raise StorageError(f"Could not find a free directory name in {damaged_dir}; nothing was changed.")


def _rebuild_in_place(db: Database, clock: Clock) -> ClearResult | None:
    """Drop every schema object and recreate v2 in one transaction, keeping the file (and its inode).

    Keeping the inode matters: another process may still hold a connection to this file, and a
    file swapped under it could later lose its WAL to that connection's close. Returns None when
    the file is too damaged for SQLite to rewrite; the caller then replaces it.
    """
    try:
        conn = db.connect()
    except sqlite3.Error:
        return None
    try:
        generation, created_at = _salvage(conn, clock)
        conn.execute("PRAGMA foreign_keys = OFF")  # tables are dropped wholesale, in any order
        conn.execute("BEGIN IMMEDIATE")
        objects = conn.execute(_SCHEMA_OBJECTS).fetchall()
        for kind, name in objects:
            conn.execute(f'DROP {kind.upper()} IF EXISTS "{name.replace(chr(34), chr(34) * 2)}"')
        for statement in schema_statements():
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        thread_id = _seed(conn, generation=generation, created_at=created_at, now=clock.now())
        if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            conn.execute("ROLLBACK")
            return None
        conn.execute("COMMIT")
        return ClearResult(generation=generation, thread_id=thread_id, rebuilt=True)
    except sqlite3.Error:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        return None
    finally:
        conn.close()


def _catalog_is_v2(db: Database) -> bool:
    try:
        conn = db.connect()
    except sqlite3.Error:
        return False
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        return bool(version == SCHEMA_VERSION and catalog_drift(read_catalog(conn)) is None)
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def _salvage(conn: sqlite3.Connection, clock: Clock) -> tuple[int, float]:
    """The next generation and the created_at to keep, read from whatever is still readable."""
    generation = 0
    with contextlib.suppress(sqlite3.Error):
        generation = int(conn.execute(_MAX_GENERATION).fetchone()[0] or 0)
    if generation == 0:
        with contextlib.suppress(sqlite3.Error):
            generation = int(conn.execute("SELECT coalesce(max(generation), 0) FROM memory_meta").fetchone()[0])
        with contextlib.suppress(sqlite3.Error):
            jobs = int(conn.execute("SELECT coalesce(max(generation), 0) FROM memory_jobs").fetchone()[0])
            generation = max(generation, jobs)
    created_at: float | None = None
    with contextlib.suppress(sqlite3.Error):
        row = conn.execute(_OLD_CREATED_AT).fetchone()
        created_at = float(row[0]) if row else None
    return max(generation, 0) + 1, created_at if created_at is not None else clock.now()


def _seed(conn: sqlite3.Connection, *, generation: int, created_at: float, now: float) -> int:
    conn.execute(_INSERT_META, (generation, created_at, now))
    record_version_in_tx(conn)  # the empty index is as this code's keys build it
    thread_id: int = conn.execute(_INSERT_THREAD, (now,)).fetchone()[0]
    return thread_id


def _rebuild(db: Database, clock: Clock) -> ClearResult:
    generation, created_at = 1, clock.now()
    if db.path.exists():
        with contextlib.suppress(sqlite3.Error):
            old = db.connect()
            try:
                generation, created_at = _salvage(old, clock)
            finally:
                old.close()
    temp = db.path.with_name(f".{db.path.name}.rebuild-{uuid.uuid4().hex}")
    try:
        fresh = Database(path=temp, busy_timeout_ms=db.busy_timeout_ms)
        with translate_errors("rebuild the Memory database"):
            conn = fresh.connect(create=True)
            try:
                conn.execute("BEGIN IMMEDIATE")
                for statement in schema_statements():
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                thread_id = _seed(conn, generation=generation, created_at=created_at, now=clock.now())
                conn.execute("COMMIT")
            finally:
                conn.close()
        with translate_errors("replace the degraded Memory database"):
            for suffix in ("-wal", "-shm", "-journal"):
                stale = db.path.with_name(db.path.name + suffix)
                with contextlib.suppress(FileNotFoundError):
                    stale.unlink()
            os.replace(temp, db.path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
    return ClearResult(generation=generation, thread_id=thread_id, rebuilt=True)
