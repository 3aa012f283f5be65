"""Explicit upgrade of an existing Memory store to the current schema version (v2 → v3).

v3 only adds objects (the import tables of docs/import.md); no existing table, index, trigger or row
changes, so every RAW turn is kept. The upgrade runs at bootstrap, in one `BEGIN IMMEDIATE`
transaction, and only when the store is exactly an intact v2 catalog (the v3 manifest minus the
added objects): anything else is left untouched and reported as degraded, like any other drift.
The added statements are taken from schema.sql itself, so the upgraded catalog is the v3 manifest.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from dataclasses import dataclass

from autopatch_j.memory.catalog import SCHEMA_VERSION, CatalogEntry, manifest, read_catalog, schema_statements

#: Tables added by v3; their indexes go with them.
V3_TABLES = frozenset({"import_sessions", "imported_turns"})
UPGRADABLE_FROM = 2

_CREATES = re.compile(r"CREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX)\s+(\w+)(?:\s+ON\s+(\w+))?", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class UpgradeResult:
    from_version: int
    to_version: int
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None


def _is_v3_statement(statement: str) -> bool:
    match = _CREATES.search(statement)
    if match is None:
        return False
    name, table = match.group(1), match.group(2)
    return (table or name) in V3_TABLES


@functools.cache
def v2_manifest() -> frozenset[CatalogEntry]:
    """The catalog a v2 store has: today's manifest without the objects v3 added."""
    return frozenset(entry for entry in manifest() if entry.table not in V3_TABLES)


def upgrade_statements() -> tuple[str, ...]:
    return tuple(s for s in schema_statements() if _is_v3_statement(s))


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
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
        return UpgradeResult(from_version=version, to_version=SCHEMA_VERSION)
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
