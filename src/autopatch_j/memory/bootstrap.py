"""Open a project's Memory: create it, or verify it against the v2 contract (M-13 … M-16, M-18).

A database that fails verification is left exactly as it was found (schema, data, journal mode:
nothing is written) and reported as degraded. WAL is switched on only after verification succeeds.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable

from autopatch_j.memory.catalog import SCHEMA_VERSION, USER_OBJECTS, catalog_drift, read_catalog, schema_statements
from autopatch_j.memory.db import Database, is_busy, translate_errors
from autopatch_j.memory.errors import ProjectRootError, StorageError
from autopatch_j.memory.records import Health
from autopatch_j.memory.rekey import record_version_in_tx
from autopatch_j.memory.stamp import FAILED, SOUND, Stamp, Stamper, observe, trusted, write_stamp
from autopatch_j.memory.upgrade import UPGRADABLE_FROM, upgrade_in_place
from autopatch_j.runtime import Clock
from autopatch_j.state_dir import ProjectPaths

_COUNT_OBJECTS = f"SELECT count(*) FROM sqlite_master WHERE {USER_OBJECTS}"
_INSERT_META = "INSERT INTO memory_meta (id, generation, created_at, updated_at) VALUES (1, ?, ?, ?)"
_INSERT_ACTIVE_THREAD = "INSERT INTO threads (status, created_at) VALUES ('active', ?)"
_META_ROWS = "SELECT count(*) FROM memory_meta"
_META_SINGLETON = "SELECT count(*) FROM memory_meta WHERE id = 1"
_ACTIVE_THREADS = "SELECT count(*) FROM threads WHERE status = 'active'"
_WAL_RETRY_S = 0.02  # between attempts to switch a new file to WAL while other processes read it


def bootstrap(*, db: Database, paths: ProjectPaths, clock: Clock, whole_file: bool = False) -> Health:
    """Create Memory on first use or verify an existing database; never repairs (M-14).

    The whole-file checks run when the verification stamp does not vouch for the file as found (see
    `memory/stamp.py`), or always with `whole_file`. A healthy store gets `db.stamper`, so this
    process's own commits carry the stamp forward.
    """
    db.stamper = None
    db.whole_file_checked = False
    db.corruption = None
    try:
        paths.state_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ProjectRootError(
            f"Cannot create {paths.state_dir}: {exc.strerror or exc}; run autopatch-j from a writable project."
        ) from exc
    if not db.path.exists():
        _delete_legacy_json(paths)
        return _create_or_verify(db, clock)
    return _open_existing(db, clock, whole_file)


def _delete_legacy_json(paths: ProjectPaths) -> None:
    """M-18: the pre-v2 JSON file is removed unread at first init; failure is visible."""
    legacy = paths.legacy_json
    if legacy.exists() or legacy.is_symlink():
        try:
            legacy.unlink()
        except OSError as exc:
            raise StorageError(f"Could not delete the legacy {legacy}: {exc.strerror or exc}.") from exc


def _create_or_verify(db: Database, clock: Clock) -> Health:
    with translate_errors("create the Memory database"):
        conn = db.connect(create=True)
        try:
            _initialize_if_blank(conn, clock)
        finally:
            conn.close()
    return _verify_and_enable_wal(db)


def _initialize_if_blank(conn: sqlite3.Connection, clock: Clock) -> bool:
    """Create schema, meta and the one active thread, inside one IMMEDIATE transaction.

    Returns False (and writes nothing) when another process initialized the file first.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        objects = conn.execute(_COUNT_OBJECTS).fetchone()[0]
        if version != 0 or objects != 0:
            conn.execute("ROLLBACK")
            return False
        for statement in schema_statements():
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        now = clock.now()
        conn.execute(_INSERT_META, (1, now, now))
        conn.execute(_INSERT_ACTIVE_THREAD, (now,))
        record_version_in_tx(conn)  # the empty index is as this code's keys build it
        conn.execute("COMMIT")
        return True
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _open_existing(db: Database, clock: Clock, whole_file: bool) -> Health:
    try:
        conn = db.connect()
    except sqlite3.Error as exc:
        return Health.degraded(_describe(exc))
    try:
        try:
            # One read transaction, so both reads see one state: read apart, a second process may
            # commit its initialization between them (version 0, then its objects: "foreign").
            conn.execute("BEGIN")
            try:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                objects = conn.execute(_COUNT_OBJECTS).fetchone()[0] if version == 0 else 0
            finally:
                conn.execute("ROLLBACK")
        except sqlite3.Error as exc:
            return Health.degraded(_describe(exc))
        if version == 0:
            if objects:
                return Health.degraded(
                    "user_version is 0 but the file already holds schema objects that Memory did not create"
                )
            with translate_errors("initialize the Memory database"):
                _initialize_if_blank(conn, clock)
        elif version in UPGRADABLE_FROM:
            with translate_errors("upgrade the Memory database"):
                upgraded = upgrade_in_place(conn)
            if not upgraded.ok:
                return Health.degraded(f"{upgraded.problem}; the supported version is {SCHEMA_VERSION}")
        elif version != SCHEMA_VERSION:
            return Health.degraded(f"schema version {version} is not the supported version {SCHEMA_VERSION}")
    finally:
        conn.close()
    return _verify_and_enable_wal(db, whole_file)


def _describe(exc: sqlite3.Error) -> str:
    text = str(exc)
    if "locked" in text.lower():
        return "the Memory database is locked by another process"
    if "not a database" in text.lower() or "malformed" in text.lower():
        return f"the Memory file is not a valid SQLite database ({text})"
    return f"the Memory database could not be read ({text})"


def verify(conn: sqlite3.Connection, *, whole_file: bool = True) -> Health:
    """Check the bootstrap invariant in one read transaction; writes nothing.

    Without `whole_file` the two checks that read every page (`quick_check`, `foreign_key_check`) are
    left out; every other check reads a bounded number of pages (the schema, meta, the active-thread index).
    """
    try:
        conn.execute("BEGIN")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                return Health.degraded(f"schema version {version} is not the supported version {SCHEMA_VERSION}")
            drift = catalog_drift(read_catalog(conn))
            if drift:
                return Health.degraded(drift)
            if whole_file:
                health = whole_file_health(conn)
                if not health.ok:
                    return health
            if conn.execute(_META_ROWS).fetchone()[0] != 1 or conn.execute(_META_SINGLETON).fetchone()[0] != 1:
                return Health.degraded("memory_meta must hold exactly one row with id 1")
            active = conn.execute(_ACTIVE_THREADS).fetchone()[0]
            if active != 1:
                return Health.degraded(f"expected exactly one active thread, found {active}")
            return Health.healthy()
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
    except sqlite3.Error as exc:
        return Health.degraded(_describe(exc))


def whole_file_health(conn: sqlite3.Connection) -> Health:
    """`quick_check` and `foreign_key_check`: the checks that read every page of the file."""
    problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
    if problems != ["ok"]:
        return Health.degraded(f"quick_check failed: {problems[0]}")
    if conn.execute("PRAGMA foreign_key_check").fetchone() is not None:
        return Health.degraded("foreign_key_check found rows that reference missing rows")
    return Health.healthy()


def check_whole_file(db: Database, *, stop: Callable[[], bool] | None = None) -> Health | None:
    """The whole-file checks alone, on a fresh connection in one read transaction (a long-lived process
    runs them in the background); the verdict, for the file state observed first, becomes the stamp.

    `stop` is polled while the checks run (every thousand SQLite steps): once it says so they are
    abandoned — a process on its way out — and there is no verdict (None), so no stamp either.
    """
    state = observe(db.path)
    try:
        conn = db.connect()
    except sqlite3.Error as exc:
        return Health.degraded(_describe(exc))
    if stop is not None:
        conn.set_progress_handler(lambda: 1 if stop() else 0, 1000)
    try:
        conn.execute("BEGIN")
        try:
            health = whole_file_health(conn)
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
    except sqlite3.Error as exc:
        if "interrupt" in str(exc).lower():
            return None
        health = Health.degraded(_describe(exc))
    finally:
        conn.close()
    if health.ok and observe(db.path) != state:
        return health  # written meanwhile (by a commit that stamped its own state): keep that stamp
    if state is not None and (health.ok or not _transient(health)):
        write_stamp(db.path, Stamp(verdict=SOUND if health.ok else FAILED, state=state, reason=health.reason or ""))
    return health


def _transient(health: Health) -> bool:
    return "locked" in (health.reason or "")


def _enable_wal(conn: sqlite3.Connection, *, deadline: float) -> bool:
    """Switch the file to WAL (once; later opens find it so). The switch needs the file to itself and
    SQLite does not wait for that through the busy timeout, so while other processes still read it in
    rollback mode (several CLIs opening one new project at once) it is retried until `deadline`."""
    while True:
        try:
            mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() == "wal":
                return False
            conn.execute("PRAGMA journal_mode = WAL")
            return True
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(_WAL_RETRY_S)


def _verify_and_enable_wal(db: Database, whole_file: bool = True) -> Health:
    state = observe(db.path)  # before any read: the stamp names the state the checks saw, or an older one
    whole_file = whole_file or not trusted(db.path, state)
    db.whole_file_checked = whole_file
    try:
        conn = db.connect()
    except sqlite3.Error as exc:
        return Health.degraded(_describe(exc))
    try:
        health = verify(conn, whole_file=whole_file)
        switched = False
        if health.ok:
            with translate_errors("enable WAL on the Memory database"):
                switched = _enable_wal(conn, deadline=time.monotonic() + db.busy_timeout_ms / 1000)
    finally:
        conn.close()
    if switched:
        # A new (or just cleared, so nearly empty) file: the switch and the close moved its times; verify it
        # once more as it now is, so the stamp vouches for the file our commits will start from.
        return _verify_and_enable_wal(db, whole_file=True)
    if whole_file and state is not None and not _transient(health):
        verdict = SOUND if health.ok else FAILED
        write_stamp(db.path, Stamp(verdict=verdict, state=state, reason=health.reason or ""))
    if health.ok:
        db.stamper = Stamper(db.path)
    return health
