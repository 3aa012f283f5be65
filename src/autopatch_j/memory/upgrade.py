"""Explicit upgrade of an existing Memory store to the current schema version (v2 … v6 → v7).

v3 (a) added the import tables of docs/import.md and (b) admitted the terminal job status `failed`
(docs/pipeline.md) in `memory_jobs`' CHECK constraint. v4 (c) adds `memory_items.subject` (what a
memory is about; '' until extraction fills it) and (d) replaces the retrieval terms (`memory_terms`,
its grams and gram counts) with the search index of docs/retrieval.md (`memory_postings`,
`memory_search_docs`, `memory_term_stats` and their triggers), rebuilt from the active revisions —
terms are derived data. v5 (e) adds the index's stamp (`memory_index_state` and the triggers that
replace it on every change of the index), with a first stamp. v6 (f) stores the same index compactly
(terms by number: `memory_term_stats` numbers them, postings and term lists hold the numbers, a
posting's weight fits one byte): the three index tables and their triggers are dropped and created as
schema.sql has them. v7 (g) adds `memory_index_keys`, the key version the index was built by
(memory/rekey.py). Every upgrade ends with one rebuild of the index from the active revisions, which
records this code's key version. No RAW turn, candidate or item row changes (the new column aside).

The upgrade runs at bootstrap, in one `BEGIN IMMEDIATE` transaction, and only when the store's
catalog is exactly the catalog of its version, derived from the frozen `schema_v2.sql` /
`schema_v3.sql` … `schema_v6.sql`: anything else is left untouched and reported as degraded, like any
other drift. A v2 store takes the v3 step, then the v4, v5, v6 and v7 steps; a v3 store the v4 … v7
steps; and so on down to a v6 store, which takes the v7 step alone. (a), (d), (e), (f) and (g) execute
schema statements as written ((d) the frozen v4 ones and (e) the frozen v5 ones, so those steps are
exactly what v4 and v5 shipped, the index being rebuilt once, at the end; (a), (f) and (g) schema.sql's
own). (b) and (c) store schema.sql's own
`CREATE TABLE` text in place of the old one, through SQLite's documented `writable_schema` procedure
(bump `schema_version`, then verify): safe because (b) only *widens* a CHECK constraint, which every
stored row satisfies, and (c) follows `ALTER TABLE … ADD COLUMN`, which put the same column last, so
only the text's layout differs, never what is on disk. So the upgraded catalog is the v7 manifest.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from autopatch_j.memory.catalog import SCHEMA_VERSION, CatalogEntry, catalog_of, read_catalog, schema_statements
from autopatch_j.memory.db import iter_statements
from autopatch_j.memory.rekey import rebuild_in_tx

#: Tables added by v3; their indexes go with them.
V3_TABLES = frozenset({"import_sessions", "imported_turns"})
#: Tables added by v4 (the search index); their triggers go with them.
V4_TABLES = frozenset({"memory_postings", "memory_search_docs", "memory_term_stats"})
#: The search index tables v6 drops and creates again in their compact form, in an order triggers allow.
V6_REBUILT = ("memory_search_docs", "memory_postings", "memory_term_stats")
#: The table v7 adds: the key version the index was built by.
V7_TABLES = frozenset({"memory_index_keys"})
#: Tables v4 drops (the retrieval terms it replaces), in an order foreign keys allow.
V4_DROPPED = ("memory_term_grams", "memory_gram_stats", "memory_terms")
#: Tables whose v3 definition only widens a CHECK constraint (see the module docstring).
WIDENED_TABLES = frozenset({"memory_jobs"})
#: Tables v4 gives a column, added last by ALTER TABLE.
V4_COLUMNS = {"memory_items": "subject TEXT NOT NULL DEFAULT ''"}
_FIRST_STAMP = "INSERT INTO memory_index_state (id, stamp) VALUES (1, random())"
UPGRADABLE_FROM = frozenset({2, 3, 4, 5, 6})

_CREATES = re.compile(
    r"CREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX|TRIGGER)\s+(\w+)(?:\s+(?:AFTER|BEFORE)\s+\w+)?(?:\s+ON\s+(\w+))?",
    re.IGNORECASE,
)
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
def frozen_statements(version: int) -> tuple[str, ...]:
    """The statements of a released schema (schema_v2.sql, schema_v3.sql; frozen)."""
    script = Path(__file__).with_name(f"schema_v{version}.sql").read_text(encoding="utf-8")
    return tuple(iter_statements(script))


def v2_statements() -> tuple[str, ...]:
    return frozen_statements(2)


@functools.cache
def frozen_manifest(version: int) -> frozenset[CatalogEntry]:
    """The catalog a store of a released version has, from its frozen schema."""
    return catalog_of(frozen_statements(version))


def v2_manifest() -> frozenset[CatalogEntry]:
    return frozen_manifest(2)


def v3_manifest() -> frozenset[CatalogEntry]:
    return frozen_manifest(3)


def upgrade_statements(tables: frozenset[str] = V3_TABLES, *, version: int | None = None) -> tuple[str, ...]:
    """The CREATE statements of `tables` (v3's by default) and their indexes and triggers, from schema.sql
    (or from the frozen schema of `version`)."""
    statements = schema_statements() if version is None else frozen_statements(version)
    return tuple(s for s in statements if _created(s) in tables)


def v5_statements() -> tuple[str, ...]:
    """The frozen v5 CREATE statements of the objects v5 added: the stamp's table, then its triggers."""
    v4_names = {entry.name for entry in frozen_manifest(4)}
    return tuple(
        s for s in frozen_statements(5) if (m := _CREATES.search(s)) is not None and m.group(1) not in v4_names
    )


def v6_statements() -> tuple[str, ...]:
    """schema.sql's CREATE statements of the compact search index: its tables and their triggers."""
    return upgrade_statements(frozenset(V6_REBUILT))


def v7_statements() -> tuple[str, ...]:
    """schema.sql's CREATE statement of the key version's table."""
    return upgrade_statements(V7_TABLES)


def table_sql(names: frozenset[str] | set[str]) -> dict[str, str]:
    """schema.sql's own CREATE TABLE text for each named table."""
    tables = ((_CREATE_TABLE.search(s), s) for s in schema_statements())
    # SQLite stores a CREATE statement's text from its CREATE keyword on, without the closing semicolon
    return {
        m.group(1): s[m.start() :].rstrip().removesuffix(";").rstrip()
        for m, s in tables
        if m is not None and m.group(1) in names
    }


def widened_table_sql() -> dict[str, str]:
    """schema.sql's own CREATE TABLE text for each widened table."""
    return table_sql(WIDENED_TABLES)


def upgrade_in_place(conn: sqlite3.Connection) -> UpgradeResult:
    """Upgrade a v2 … v6 store to v7 in one transaction, or change nothing and say why."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:  # another process upgraded it first
            conn.execute("ROLLBACK")
            return UpgradeResult(from_version=version, to_version=version)
        if version not in UPGRADABLE_FROM:
            conn.execute("ROLLBACK")
            return UpgradeResult(version, version, f"schema version {version} cannot be upgraded")
        if read_catalog(conn) != frozen_manifest(version):
            conn.execute("ROLLBACK")
            return UpgradeResult(
                version, version, f"schema version {version} does not match the v{version} catalog exactly"
            )
        if version in (2, 3):
            _to_v4(conn, version)
        if version in (2, 3, 4):
            for statement in v5_statements():
                conn.execute(statement)
            conn.execute(_FIRST_STAMP)
        if version in (2, 3, 4, 5):
            _to_v6(conn)
        for statement in v7_statements():
            conn.execute(statement)
        rebuild_in_tx(conn)  # the index is derived data: rebuilt once, with the key version that built it
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
        return UpgradeResult(from_version=version, to_version=SCHEMA_VERSION)
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.execute("PRAGMA writable_schema = OFF")


def _to_v4(conn: sqlite3.Connection, version: int) -> None:
    """The v3 step (for a v2 store) and the v4 step, inside the caller's transaction."""
    rewrite: set[str] = set(V4_COLUMNS)
    if version == 2:
        for statement in upgrade_statements(V3_TABLES):
            conn.execute(statement)
        rewrite |= WIDENED_TABLES
    for table, column in V4_COLUMNS.items():
        conn.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
    for table in V4_DROPPED:
        conn.execute(f"DROP TABLE {table}")
    for statement in upgrade_statements(V4_TABLES, version=4):
        conn.execute(statement)
    _rewrite_tables(conn, rewrite)  # the v4 index stays empty: the upgrade rebuilds it at its end


def _to_v6(conn: sqlite3.Connection) -> None:
    """The v6 step inside the caller's transaction: the index tables in their compact form (empty: the
    upgrade rebuilds the index at its end)."""
    for table in V6_REBUILT:
        conn.execute(f"DROP TABLE {table}")
    for statement in v6_statements():
        conn.execute(statement)


def _rewrite_tables(conn: sqlite3.Connection, names: set[str]) -> None:
    cookie = conn.execute("PRAGMA schema_version").fetchone()[0]
    conn.execute("PRAGMA writable_schema = ON")
    for name, sql in sorted(table_sql(names).items()):
        if conn.execute(_REWRITE_TABLE_SQL, (sql, name)).rowcount != 1:
            raise sqlite3.DatabaseError(f"table {name} was not found while upgrading")
    conn.execute(f"PRAGMA schema_version = {cookie + 1}")  # other connections reload the schema
    conn.execute("PRAGMA writable_schema = OFF")
