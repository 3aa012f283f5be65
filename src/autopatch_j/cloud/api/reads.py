"""Read transactions for the API's `async` endpoints, run where they cost least without stalling it.

SQLite: on the event loop, on a connection of the loop's own. An embedded read in WAL mode is a
local call that never waits for the writer, and it costs less than the thread hop that would carry
it (two context switches and the GIL handed back and forth); keeping the connection saves the pool
checkout and return of every request. Each read is still its own `BEGIN … COMMIT`, so it sees
everything committed before it. A loop that finds the connection busy (another event loop of the
same process, as in tests) reads on a pooled connection instead of waiting.

Any other database (PostgreSQL): on the thread pool, in one pooled transaction, so the event loop
never waits on the network.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import OperationalError
from starlette.concurrency import run_in_threadpool

from autopatch_j.cloud.db import read_tx
from autopatch_j.cloud.errors import StorageError

T = TypeVar("T")


class Reads:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._on_loop = engine.dialect.name == "sqlite"
        self._lock = threading.Lock()
        self._conn: Connection | None = None

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

    def _own(self, work: Callable[[Connection], T]) -> T:
        if self._conn is None or self._conn.closed or self._conn.invalidated:
            self._conn = self.engine.connect()
        try:
            with self._conn.begin():
                return work(self._conn)
        except OperationalError as exc:
            self._drop()  # the next read starts on a fresh connection
            raise StorageError(f"the cloud database refused a read: {exc.orig}") from exc

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
