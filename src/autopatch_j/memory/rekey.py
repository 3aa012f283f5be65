"""The key version of the search index: which derivation of keys built it, and the rebuild when it differs.

The keys an item is indexed by and a question looks up are derived data (memory/index.py), and a
release may derive them differently; `KEY_VERSION` names the derivation the code holds. It lives here,
not in memory/index.py, because every open compares it and index.py loads the tokenizer, the
segmenter and the stemmer, which `memory status` never needs (tests/cli/test_cold_start.py). A store
records the version its index was built by in `memory_index_keys` (one row): a new store, every
rebuild (`memory reindex`, the schema upgrade) and the rebuild on open write it.

When a store is opened, `rekey_if_stale` reads that row (one bounded read: nothing else when the
versions agree). When it names another version, or there is none, the index is rebuilt once, in one
`BEGIN IMMEDIATE` transaction that reads the row again first: of two processes opening the store at
once, the second waits for the first's commit, finds the row current and rebuilds nothing. A store
this process cannot write (a read-only file, a lock held past the busy timeout) is not an error: the
old index keeps answering and the next open tries again (`Rekey.outcome == "deferred"`).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Literal

from autopatch_j.memory.db import Database
from autopatch_j.memory.errors import StorageError

#: The version of the derivation of search keys and stored weights: `index.item_weights`,
#: `index.query_terms` and the tokenizer, stems, fillers and tables under them. Bump it with every
#: change of the keys they give, and re-record tests/memory/data/key_fingerprint.json
#: (tests/memory/test_key_version.py fails until both are done, and names the command).
KEY_VERSION = 3

_RECORDED = "SELECT version FROM memory_index_keys WHERE id = 1"
_RECORD = (
    "INSERT INTO memory_index_keys (id, version) VALUES (1, ?) "
    "ON CONFLICT (id) DO UPDATE SET version = excluded.version"
)

RekeyOutcome = Literal["current", "rebuilt", "deferred"]


@dataclass(frozen=True, slots=True)
class Rekey:
    """What opening a store did about its index: nothing (`current`), a rebuild of `items` active
    memories (`rebuilt`), or nothing yet because the store could not be written (`deferred`, with the
    reason). `built_by` is the version the index had before (None: no row)."""

    outcome: RekeyOutcome
    built_by: int | None
    items: int = 0
    reason: str = ""


def recorded_version_in_tx(conn: sqlite3.Connection) -> int | None:
    """The key version the store's index was built by, or None when the store records none."""
    row = conn.execute(_RECORDED).fetchone()
    return None if row is None else int(row[0])


def record_version_in_tx(conn: sqlite3.Connection) -> None:
    """Record that the index was built by this code's key version (the caller built it)."""
    conn.execute(_RECORD, (KEY_VERSION,))


def rebuild_in_tx(conn: sqlite3.Connection) -> int:
    """Rebuild the search index from the active revisions and record the key version that built it;
    returns the items indexed."""
    from autopatch_j.memory.index import reindex_in_tx  # the tokenizer loads only for a rebuild

    indexed = reindex_in_tx(conn)
    record_version_in_tx(conn)
    return indexed


def rekey_if_stale(db: Database) -> Rekey:
    """Rebuild the index of a healthy store once when its recorded key version is not this code's.

    Never raises a storage error: a store that cannot be written now is reported `deferred` and
    searched through its old index until an open can rebuild it.
    """
    built_by: int | None = None
    try:
        with db.read("read the search index's key version") as conn:
            built_by = recorded_version_in_tx(conn)
        if built_by == KEY_VERSION:
            return Rekey("current", built_by)
        with db.write("rebuild the search index for this release's keys") as conn:
            built_by = recorded_version_in_tx(conn)
            if built_by == KEY_VERSION:  # another process rebuilt it while this one waited for the lock
                return Rekey("current", built_by)
            return Rekey("rebuilt", built_by, items=rebuild_in_tx(conn))
    except StorageError as exc:
        return Rekey("deferred", built_by, reason=str(exc))
