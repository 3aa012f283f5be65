"""Explicit upgrade of an existing Memory store to the current schema version (v2 → v3).

v3 (a) adds the import tables of docs/import.md and (b) admits the terminal job status `failed`
(docs/pipeline.md) in `memory_jobs`' CHECK constraint. No row changes, so every RAW turn is kept.

The upgrade runs at bootstrap, in one `BEGIN IMMEDIATE` transaction, and only when the store's
catalog is exactly the v2 catalog, derived from `schema_v2.sql` (the released v2 schema, frozen):
anything else is left untouched and reported as degraded, like any other drift. (a) executes the
added statements of schema.sql itself. (b) stores schema.sql's own `CREATE TABLE memory_jobs` text in
place of the old one, through SQLite's documented `writable_schema` procedure (bump `schema_version`,
then verify): that is safe only because the change *widens* a CHECK constraint, which every stored
row already satisfies and which changes nothing on disk. So the upgraded catalog is the v3 manifest.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from autopatch_j.memory.catalog import SCHEMA_VERSION, CatalogEntry, catalog_of, read_catalog, schema_statements
from autopatch_j.memory.db import iter_statements

#: Tables added by v3; their indexes go with them.
V3_TABLES = frozenset({"import_sessions", "imported_turns"})
#: Tables whose v3 definition only widens a CHECK constraint (see the module docstring).
WIDENED_TABLES = frozenset({"memory_jobs"})
UPGRADABLE_FROM = 2

_CREATES = re.compile(r"CREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX)\s+(\w+)(?:\s+ON\s+(\w+))?", re.IGNORECASE)
_CREATE_TABLE = re.compile(r"CREATE\s+TABLE\s+(\w+)", re.IGNORECASE)
_REWRITE_TABLE_SQL = "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?"


@dataclass(frozen=True, slots=True)
class UpgradeResult:
    from_version: int
    to_version: int
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None


def _created(statement: str) -> str | None:
    """The table a CREATE TABLE/INDEX statement belongs to."""
    match = _CREATES.search(statement)
    return None if match is None else (match.group(2) or match.group(1))


@functools.cache
def v2_statements() -> tuple[str, ...]:
    script = Path(__file__).with_name("schema_v2.sql").read_text(encoding="utf-8")
    return tuple(iter_statements(script))


@functools.cache
def v2_manifest() -> frozenset[CatalogEntry]:
    """The catalog a v2 store has, from the released v2 schema."""
    return catalog_of(v2_statements())


def upgrade_statements() -> tuple[str, ...]:
    """The CREATE statements v3 adds, taken from schema.sql."""
    return tuple(s for s in schema_statements() if _created(s) in V3_TABLES)


def widened_table_sql() -> dict[str, str]:
    """schema.sql's own CREATE TABLE text for each widened table."""
    tables = ((_CREATE_TABLE.search(s), s) for s in schema_statements())
    # SQLite stores a CREATE statement's text from its CREATE keyword on, without the closing semicolon
    return {
        m.group(1): s[m.start() :].rstrip().removesuffix(";").rstrip()
        for m, s in tables
        if m is not None and m.group(1) in WIDENED_TABLES
    }


def upgrade_in_place(conn: sqlite3.Connection) -> UpgradeResult:
    """Upgrade a v2 store to v3 in one transaction, or change nothing and say why."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:  # another process upgraded it first
            conn.execute("ROLLBACK")
            return UpgradeResult(from_version=version, to_version=version)
        if version != UPGRADABLE_FROM:
            conn.execute("ROLLBACK")
            return UpgradeResult(version, version, f"schema version {version} cannot be upgraded")
        if read_catalog(conn) != v2_manifest():
            conn.execute("ROLLBACK")
            return UpgradeResult(version, version, f"schema version {version} does not match the v2 catalog exactly")
        for statement in upgrade_statements():
            conn.execute(statement)
        _widen_checks(conn)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
        return UpgradeResult(from_version=version, to_version=SCHEMA_VERSION)
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.execute("PRAGMA writable_schema = OFF")


def _widen_checks(conn: sqlite3.Connection) -> None:
    cookie = conn.execute("PRAGMA schema_version").fetchone()[0]
    conn.execute("PRAGMA writable_schema = ON")
    for name, sql in widened_table_sql().items():
        if conn.execute(_REWRITE_TABLE_SQL, (sql, name)).rowcount != 1:
            raise sqlite3.DatabaseError(f"table {name} was not found while upgrading")
    conn.execute(f"PRAGMA schema_version = {cookie + 1}")  # other connections reload the schema
    conn.execute("PRAGMA writable_schema = OFF")
