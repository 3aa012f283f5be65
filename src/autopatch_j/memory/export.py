"""`/memory export` (M-32): a one-off RAW JSON snapshot that never overwrites and leaves no litter.

The final name is reserved exclusively (O_CREAT|O_EXCL, with a numeric suffix on collision), the
snapshot is written to a unique temp file in the same directory, fsynced, and published over the
reservation with an atomic rename. On any failure both the temp file and the reservation are removed.
It also works on a degraded store: what can be read is exported, and every table that cannot be read
is named under `unreadable`. When no table at all can be read, nothing is written and the export
fails (`StorageError`): an empty export of a non-empty file is never reported as a success.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autopatch_j.memory.db import Database, translate_errors
from autopatch_j.memory.errors import StorageError
from autopatch_j.runtime import Clock

EXPORT_FORMAT = "autopatch-j.memory.export/1"
RAW_NOTICE = (
    "This snapshot contains RAW, unredacted user turns and final answers; Memory performs no "
    "sensitive-data detection or redaction. Treat it like the conversation itself."
)
# Table name -> ORDER BY clause; every audit relation is exported (M-32).
_TABLES: tuple[tuple[str, str], ...] = (
    ("memory_meta", "id"),
    ("threads", "id"),
    ("turns", "id"),
    ("memory_jobs", "id"),
    ("memory_candidates", "id"),
    ("candidate_sources", "candidate_id, ordinal"),
    ("memory_items", "id"),
    ("memory_item_candidates", "item_id, candidate_id"),
    ("import_sessions", "id"),
    ("imported_turns", "session_row, external_id"),
)
_MAX_NAME_ATTEMPTS = 1000


@dataclass(frozen=True, slots=True)
class ExportResult:
    path: Path
    unreadable: tuple[str, ...]  # tables that could not be read (empty for a healthy store)


def export_snapshot(*, db: Database, exports_dir: Path, clock: Clock) -> ExportResult:
    """Write a new snapshot file; `StorageError` (and no file) when nothing at all could be read."""
    data = _collect(db, clock)
    if not data["tables"]:
        reason = next(iter(data["unreadable"].values()), "unknown error")
        raise StorageError(
            f"Nothing could be read from {db.path} ({reason}); no export was written. "
            "`autopatch-j memory clear --confirm` keeps a copy of the damaged file and starts over."
        )
    stamp = dt.datetime.fromtimestamp(clock.now(), tz=dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    with translate_errors("create the exports directory"):
        exports_dir.mkdir(parents=True, exist_ok=True)
    final = _reserve(exports_dir, f"memory-export-{stamp}")
    try:
        _publish(final, json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            final.unlink()
        raise
    return ExportResult(path=final, unreadable=tuple(sorted(data["unreadable"])))


def _collect(db: Database, clock: Clock) -> dict[str, Any]:
    tables: dict[str, list[dict[str, Any]]] = {}
    unreadable: dict[str, str] = {}
    user_version: int | None = None
    try:
        conn = db.connect()
    except sqlite3.Error as exc:
        unreadable["database"] = str(exc)
    else:
        try:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("BEGIN")
            try:
                user_version = conn.execute("PRAGMA user_version").fetchone()[0]
            except sqlite3.Error as exc:
                unreadable["database"] = str(exc)
            for table, order in _TABLES:
                if "database" in unreadable:
                    unreadable[table] = unreadable["database"]
                    continue
                _read_table(conn, table, order, tables, unreadable)
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            conn.close()
    if "database" in unreadable:
        for table, _ in _TABLES:
            unreadable.setdefault(table, unreadable["database"])
        del unreadable["database"]
    meta = tables.get("memory_meta") or [{}]
    return {
        "format": EXPORT_FORMAT,
        "exported_at": clock.now(),
        "notice": RAW_NOTICE,
        "schema_version": user_version,
        "last_error": meta[0].get("last_error"),
        "tables": tables,
        "unreadable": unreadable,
    }


def _read_table(
    conn: sqlite3.Connection,
    table: str,
    order: str,
    tables: dict[str, list[dict[str, Any]]],
    unreadable: dict[str, str],
) -> None:
    try:
        rows = conn.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()  # names are constants
    except sqlite3.Error as exc:
        unreadable[table] = str(exc)
        return
    tables[table] = [dict(zip(row.keys(), tuple(row), strict=True)) for row in rows]


def _reserve(directory: Path, stem: str) -> Path:
    for attempt in range(_MAX_NAME_ATTEMPTS):
        name = f"{stem}.json" if attempt == 0 else f"{stem}-{attempt}.json"
        path = directory / name
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            continue
        except OSError as exc:
            raise StorageError(f"Could not create an export file in {directory}: {exc.strerror}.") from exc
        os.close(fd)
        return path
    raise StorageError(f"Could not find a free export file name in {directory}.")


def _publish(final: Path, text: str) -> None:
    fd, temp_name = tempfile.mkstemp(prefix=f".{final.stem}.", suffix=".tmp", dir=final.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, final)
    except OSError as exc:
        raise StorageError(f"Could not write the export {final}: {exc.strerror or exc}.") from exc
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
