"""Engines and transactions: one code path for SQLite (embedded default) and PostgreSQL (psycopg 3).

SQLite runs in WAL mode with a busy timeout; writers start with `BEGIN IMMEDIATE` so there is a
single writer at a time. PostgreSQL runs at READ COMMITTED; queue claims use
`FOR UPDATE SKIP LOCKED`, which SQLAlchemy renders only on dialects that have it.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import ArgumentError, OperationalError, SQLAlchemyError

from autopatch_j.cloud.errors import ConfigError, StorageError

_SQLITE_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=30000",
)


def normalize_url(url: str) -> str:
    """Accept `postgresql://` and `postgres://` as PostgreSQL through psycopg 3."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def make_engine(url: str, *, pool_size: int = 10) -> Engine:
    """Build an engine; SQLite files get their parent directory, pragmas and immediate writers."""
    url = normalize_url(url)
    try:
        parsed = sa.engine.make_url(url)
    except ArgumentError as exc:
        raise ConfigError(f"the database URL {url!r} is not valid.") from exc
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(parsed, connect_args={"check_same_thread": False, "timeout": 30}, pool_size=pool_size)
        _install_sqlite_hooks(engine)
        return engine
    if backend == "postgresql":
        if parsed.get_driver_name() != "psycopg":
            raise ConfigError("PostgreSQL URLs must use psycopg 3: postgresql+psycopg://user@host/db.")
        return sa.create_engine(parsed, pool_size=pool_size, max_overflow=20, pool_pre_ping=True)
    raise ConfigError(f"the database backend {backend!r} is not supported; use sqlite or postgresql.")


def _install_sqlite_hooks(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves
        cursor = dbapi_conn.cursor()
        for pragma in _SQLITE_PRAGMAS:
            cursor.execute(pragma)
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # straight to the driver: a statement through SQLAlchemy's execution path costs as much as a query
        immediate = conn.get_execution_options().get("immediate", False)
        conn.connection.driver_connection.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")  # type: ignore[union-attr]


def is_postgres(bind: Engine | Connection) -> bool:
    return bind.dialect.name == "postgresql"


_WRITER_LOCKS: weakref.WeakKeyDictionary[Engine, threading.Lock] = weakref.WeakKeyDictionary()
_LOCKS_GUARD = threading.Lock()


def _writer_lock(engine: Engine) -> threading.Lock | None:
    """SQLite admits one writer: threads of one process queue on a lock instead of busy-polling."""
    if engine.dialect.name != "sqlite":
        return None
    with _LOCKS_GUARD:
        lock = _WRITER_LOCKS.get(engine)
        if lock is None:
            lock = _WRITER_LOCKS[engine] = threading.Lock()
        return lock


@contextmanager
def write_tx(engine: Engine) -> Iterator[Connection]:
    """One short writing transaction (SQLite: `BEGIN IMMEDIATE`); driver errors become StorageError."""
    lock = _writer_lock(engine)
    try:
        with lock or nullcontext(), engine.connect().execution_options(immediate=True) as conn, conn.begin():
            yield conn
    except OperationalError as exc:
        raise StorageError(f"the cloud database refused a write: {exc.orig}") from exc


@contextmanager
def read_tx(engine: Engine) -> Iterator[Connection]:
    """One short reading transaction."""
    try:
        with engine.connect() as conn, conn.begin():
            yield conn
    except OperationalError as exc:
        raise StorageError(f"the cloud database refused a read: {exc.orig}") from exc


def insert_ignore(
    conn: Connection, table: sa.Table, values: Mapping[str, Any], *, conflict: Sequence[str]
) -> int | None:
    """`INSERT … ON CONFLICT (…) DO NOTHING RETURNING id`: the new id, or None when it already existed."""
    stmt = dialect_insert(conn, table).values(**values).on_conflict_do_nothing(index_elements=list(conflict))
    row = conn.execute(stmt.returning(table.c.id)).first()
    return None if row is None else int(row[0])


def upsert(
    conn: Connection,
    table: sa.Table,
    values: Mapping[str, Any],
    *,
    key: Sequence[str],
    update: Sequence[str] | None = None,
) -> None:
    """`INSERT … ON CONFLICT (key) DO UPDATE SET …` on both backends (all non-key columns by default)."""
    stmt = dialect_insert(conn, table).values(**values)
    columns = update if update is not None else [name for name in values if name not in key]
    updates = {name: stmt.excluded[name] for name in columns}
    conn.execute(stmt.on_conflict_do_update(index_elements=list(key), set_=updates))


def dialect_insert(conn: Connection, table: sa.Table) -> Any:
    if is_postgres(conn):
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table)


class PreparedRead:
    """A SELECT compiled once for one dialect and run on the driver's own cursor (hot reads only).

    SQLAlchemy's execution path (statement cache lookup, execution context, result metadata, row
    objects) costs several times what SQLite spends running a small indexed query; this keeps the
    statement in SQLAlchemy Core, compiles it once, and applies the columns' own result processors,
    chosen as SQLAlchemy chooses them (from the driver's type codes, on the first run), so
    `UtcDateTime` and friends read back exactly as through `Connection.execute`.
    """

    __slots__ = ("_dialect", "_processors", "_types", "keys", "positional", "sql")

    def __init__(self, statement: sa.Select[Any], dialect: sa.Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        if compiled._bind_processors:  # a bind needing conversion would reach the driver unconverted
            raise ConfigError("a prepared read takes only binds its driver accepts as they are.")
        columns = list(statement.selected_columns)
        self.sql = str(compiled)
        self.positional = tuple(compiled.positiontup or ()) if compiled.positional else None
        self.keys = tuple(str(column.key) for column in columns)
        self._types = tuple(column.type.dialect_impl(dialect) for column in columns)
        self._dialect = dialect
        self._processors: tuple[Callable[[Any], Any] | None, ...] | None = None

    def first(self, dbapi_conn: Any, params: Mapping[str, Any]) -> dict[str, Any] | None:
        """The first row as a dict of processed values, or None; driver errors propagate."""
        args: Any = params if self.positional is None else [params[name] for name in self.positional]
        cursor = dbapi_conn.cursor()
        try:
            cursor.execute(self.sql, args)
            raw = cursor.fetchone()
            processors = self._processors
            if processors is None:  # the driver's type codes are known once a statement ran
                codes = [entry[1] for entry in cursor.description]
                types = zip(self._types, codes, strict=True)
                processors = tuple(impl.result_processor(self._dialect, code) for impl, code in types)
                self._processors = processors
        finally:
            cursor.close()
        if raw is None:
            return None
        return {
            key: value if process is None else process(value)
            for key, process, value in zip(self.keys, processors, raw, strict=True)
        }


def check_connection(engine: Engine) -> None:
    """Fail with one sentence when the database cannot be reached."""
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except SQLAlchemyError as exc:
        raise StorageError(f"cannot reach the cloud database: {exc.__class__.__name__}.") from exc
