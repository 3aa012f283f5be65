"""One side of `search_bench.py --baseline-src`: another checkout's search, in a process of its own.

Run with `PYTHONPATH=<checkout>/src`, so every module of the search (the process's copy in
`postings_cache.py`, the analysis, the tables) is that checkout's and nothing is shared with the
bench's own process. It reads one JSON request per line on stdin and answers one JSON line on stdout:

- `["connect", path]`: a long-lived reader on the store (`Database.connect()`, its pragmas) → `null`;
- `["warm", query, thread_id]`: `search_in_tx` on that reader outside a transaction, as the bench warms
  the page cache with its own (no copy is kept outside a transaction) → `null`;
- `["search", query, thread_id]`: `search_in_tx` on that reader inside `BEGIN` … `ROLLBACK`, as the
  bench runs its own → `[ms, statements, hits]` (statements: the `SELECT`/`WITH` ones it sent);
- `["manager", path, query, thread_id]`: `Database.read` + `search_in_tx` per call, as
  `MemoryManager.search` runs it → `[ms, cpu_ms, hits]`;
- `["close"]`: the reader closed → `null`.

A hit is `[memory_id, kind, title, synopsis, match]`. Only this module's own imports and the two
APIs every checkout has (`memory.db.Database`, `memory.search.search_in_tx`) are used.
"""

from __future__ import annotations

import io
import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from autopatch_j.memory.db import Database
from autopatch_j.memory.search import search_in_tx


def _rows(hits: list[Any]) -> list[list[object]]:
    return [[h.memory_id, str(h.kind), h.title, h.synopsis, h.match] for h in hits]


def serve(requests: Any, answers: Any) -> None:
    """Answer each request line of `requests` on `answers` until it ends."""
    conn: sqlite3.Connection | None = None
    databases: dict[str, Database] = {}  # one per store, as a MemoryManager keeps its own
    sent: list[str] = []
    for line in requests:
        op, *args = json.loads(line)
        answer: object = None
        if op == "connect":
            conn = Database(path=Path(args[0])).connect()
        elif op == "warm":
            assert conn is not None
            search_in_tx(conn, thread_id=args[1], query=args[0])
        elif op == "search":
            assert conn is not None
            query, thread_id = args
            conn.execute("BEGIN")
            sent.clear()
            conn.set_trace_callback(sent.append)
            t0 = time.perf_counter()
            hits = search_in_tx(conn, thread_id=thread_id, query=query)
            ms = (time.perf_counter() - t0) * 1000
            conn.set_trace_callback(None)
            conn.execute("ROLLBACK")
            statements = sum(1 for s in sent if s.lstrip().upper().startswith(("SELECT", "WITH")))
            answer = [ms, statements, _rows(hits)]
        elif op == "manager":
            path, query, thread_id = args
            c0, t0 = time.thread_time(), time.perf_counter()
            database = databases.setdefault(path, Database(path=Path(path)))
            with database.read("search Memory") as read_conn:
                hits = search_in_tx(read_conn, thread_id=thread_id, query=query)
            answer = [(time.perf_counter() - t0) * 1000, (time.thread_time() - c0) * 1000, _rows(hits)]
        elif op == "close":
            if conn is not None:
                conn.close()
            conn = None
        else:
            raise SystemExit(f"search_side: unknown request {op!r}")
        answers.write(json.dumps(answer, ensure_ascii=False) + "\n")
        answers.flush()


if __name__ == "__main__":
    serve(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8"), io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8"))
