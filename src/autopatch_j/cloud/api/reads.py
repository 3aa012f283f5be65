"""Read transactions for the API's `async` endpoints, run where they cost least without stalling it.

`reads(work)` runs `work(conn)` in one read transaction. SQLite: on the event loop, on a connection
of the loop's own. An embedded read in WAL mode is a
local call that never waits for the writer, and it costs less than the thread hop that would carry
it (two context switches and the GIL handed back and forth); keeping the connection saves the pool
checkout and return of every request. Each read is still its own `BEGIN … COMMIT`, so it sees
everything committed before it. A loop that finds the connection busy (another event loop of the
same process, as in tests) reads on a pooled connection instead of waiting.

Any other database (PostgreSQL): on the shared thread pool, in one pooled transaction, so the event
loop never waits on the network.

`first(statement, params)` is the hot path (`GET /tasks/{id}`): one SELECT, compiled once per
statement (`db.PreparedRead`) and run on the driver's cursor without SQLAlchemy's execution path.
One statement needs no `BEGIN … COMMIT` to see a consistent state: it runs as its own transaction
on a connection in autocommit. SQLite: on the loop's connection, as above. PostgreSQL: on a few
threads of the Reads' own (`READ_THREADS`), each holding one connection taken from the pool once
and detached from it, so a request costs no pool checkout, no pre-ping and no reconnect churn (the
shared thread pool has more threads than the pool has connections; the extra ones were opened and
closed per request). A held connection that broke (a database restart) is replaced and the read
retried once: a read is safe to repeat.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.pool import PoolProxiedConnection
from starlette.concurrency import run_in_threadpool

from autopatch_j.cloud.db import PreparedRead, read_tx
from autopatch_j.cloud.errors import StorageError

T = TypeVar("T")
READ_THREADS = 4  # PostgreSQL hot-read threads (and held connections) per process


class Reads:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._on_loop = engine.dialect.name == "sqlite"
        self._lock = threading.Lock()
        self._conn: Connection | None = None
        self._prepared: dict[sa.Select[Any], PreparedRead] = {}
        self._driver_error: type[Exception] = engine.dialect.loaded_dbapi.OperationalError
        self._threads = None if self._on_loop else _ReadThreads(engine, self._driver_error)

    async def first(self, statement: sa.Select[Any], params: Mapping[str, Any]) -> dict[str, Any] | None:
        """The first row of one SELECT (processed values by column key), or None."""
        prepared = self._prepared.get(statement)
        if prepared is None:
            prepared = self._prepared[statement] = PreparedRead(statement, self.engine.dialect)
        if self._threads is not None:
            return await self._threads.first(prepared, params)
        if not self._lock.acquire(blocking=False):
            return self._first_pooled(prepared, params)
        try:
            conn = self._connection()
            try:
                return prepared.first(conn.connection.driver_connection, params)
            except self._driver_error as exc:
                self._drop()
                raise _refused(exc) from exc
        finally:
            self._lock.release()

    def _first_pooled(self, prepared: PreparedRead, params: Mapping[str, Any]) -> dict[str, Any] | None:
        raw = self.engine.raw_connection()
        try:
            return prepared.first(raw.driver_connection, params)
        except self._driver_error as exc:
            raw.invalidate()
            raise _refused(exc) from exc
        finally:
            raw.close()

    async def __call__(self, work: Callable[[Connection], T]) -> T:
        """`work(conn)` in one read transaction; what it raises propagates (the transaction rolls back)."""
        if not self._on_loop:
            return await run_in_threadpool(self._pooled, work)
        if not self._lock.acquire(blocking=False):
            return self._pooled(work)
        try:
            return self._own(work)
        finally:
            self._lock.release()

    def _pooled(self, work: Callable[[Connection], T]) -> T:
        with read_tx(self.engine) as conn:
            return work(conn)

    def _connection(self) -> Connection:
        if self._conn is None or self._conn.closed or self._conn.invalidated:
            self._conn = self.engine.connect()
        return self._conn

    def _own(self, work: Callable[[Connection], T]) -> T:
        conn = self._connection()
        try:
            with conn.begin():
                return work(conn)
        except OperationalError as exc:
            self._drop()  # the next read starts on a fresh connection
            raise _refused(exc.orig) from exc

    def close(self) -> None:
        with self._lock:
            self._drop()
        if self._threads is not None:
            self._threads.close()

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()


class _ReadThreads:
    """PostgreSQL's hot reads: `READ_THREADS` threads, each with one connection held in autocommit."""

    def __init__(self, engine: Engine, driver_error: type[Exception]) -> None:
        self._engine = engine
        self._driver_error = driver_error
        self._executor = ThreadPoolExecutor(max_workers=READ_THREADS, thread_name_prefix="autopatch-reads")
        self._local = threading.local()
        self._held: set[PoolProxiedConnection] = set()
        self._guard = threading.Lock()

    async def first(self, prepared: PreparedRead, params: Mapping[str, Any]) -> dict[str, Any] | None:
        return await asyncio.get_running_loop().run_in_executor(self._executor, self._first, prepared, params)

    def _first(self, prepared: PreparedRead, params: Mapping[str, Any]) -> dict[str, Any] | None:
        try:
            return self._attempt(prepared, params)
        except self._driver_error:
            pass  # the held connection broke (it is discarded): one more try on a fresh one
        try:
            return self._attempt(prepared, params)
        except self._driver_error as exc:
            raise _refused(exc) from exc

    def _attempt(self, prepared: PreparedRead, params: Mapping[str, Any]) -> dict[str, Any] | None:
        conn = self._connection()
        try:
            return prepared.first(conn.dbapi_connection, params)  # detached: no driver_connection
        except self._driver_error:
            self._discard(conn)
            raise

    def _connection(self) -> PoolProxiedConnection:
        conn: PoolProxiedConnection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        try:
            conn = self._engine.raw_connection()  # the pool's checkout (and pre-ping), once per thread
            conn.detach()  # ours from now on: it takes no place in the pool and never returns to it
            assert conn.dbapi_connection is not None  # a fresh checkout is connected
            self._engine.dialect.set_isolation_level(conn.dbapi_connection, "AUTOCOMMIT")
        except DBAPIError as exc:
            raise StorageError(f"cannot reach the cloud database: {exc.orig}") from exc
        with self._guard:
            self._held.add(conn)
        self._local.conn = conn
        return conn

    def _discard(self, conn: PoolProxiedConnection) -> None:
        self._local.conn = None
        with self._guard:
            self._held.discard(conn)
        conn.invalidate()

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        with self._guard:
            held, self._held = self._held, set()
        for conn in held:
            conn.close()


def _refused(cause: BaseException | None) -> StorageError:
    return StorageError(f"the cloud database refused a read: {cause}")
