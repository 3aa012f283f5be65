"""Many writers on one Memory file: busy errors reaching a caller and commit latency.

N processes admit turns on one file through `MemoryManager` (BEGIN IMMEDIATE + busy_timeout). The
negative control runs the same admission SQL in a deferred `BEGIN` (read, then write) with a small
busy timeout: it must show busy errors, proving the harness can see them.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from autopatch_j.memory.errors import StorageBusyError
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent
from autopatch_j.quality.faults.processes import FORK, percentile


@dataclass
class WritersReport:
    mode: str  # "immediate" (MemoryManager) or "deferred-control"
    seed: int
    processes: int
    commits_per_process: int
    commits: int = 0
    busy_errors: int = 0
    other_errors: int = 0
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    max_ms: float = 0.0
    wall_s: float = 0.0
    turns_in_db: int = 0
    duplicate_seqs: int = 0
    active_threads: int = 0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["errors"] = self.errors[:10]
        return data


_DEFERRED_NEXT_SEQ = "SELECT coalesce(max(seq), 0) + 1 FROM turns WHERE thread_id = ?"
_DEFERRED_INSERT = (
    "INSERT INTO turns (thread_id, seq, intent, status, user_text, assistant_text, created_at, updated_at) "
    "VALUES (?, ?, 'general_chat', 'completed', ?, 'ok', ?, ?)"
)


def _writer_child(
    root: Path, index: int, commits: int, seed: int, barrier: Any, out: Path, mode: str, busy_ms: int, think_ms: float
) -> None:
    rng = random.Random(seed * 1000 + index)
    latencies: list[float] = []
    busy = other = 0
    errors: list[str] = []
    manager = MemoryManager(root=root, owner=f"writer-{index}", busy_timeout_ms=busy_ms)
    if not manager.open().ok:
        os._exit(3)
    thread_id = manager.active_thread().id
    barrier.wait()
    for k in range(commits):
        text = f"writer {index} message {k}: from now on keep it short"
        started = time.perf_counter()
        try:
            if mode == "immediate":
                ticket = manager.begin_turn(text, Intent.GENERAL_CHAT)
                latencies.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                manager.complete_turn(ticket, "ok")
            else:
                _deferred_read_then_write(manager, thread_id, text, think_ms)
            latencies.append((time.perf_counter() - started) * 1000)
        except StorageBusyError as exc:
            busy += 1
            errors.append(str(exc))
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                busy += 1
            else:
                other += 1
            errors.append(str(exc))
        except Exception as exc:
            other += 1
            errors.append(f"{type(exc).__name__}: {exc}")
        if think_ms and mode == "immediate":
            time.sleep(rng.uniform(0, think_ms) / 1000)
    out.write_text(json.dumps({"latencies": latencies, "busy": busy, "other": other, "errors": errors[:5]}))


def _deferred_read_then_write(manager: MemoryManager, thread_id: int, text: str, think_ms: float) -> None:
    """The anti-pattern: a deferred transaction that reads, then upgrades to write."""
    conn = manager.db.connect()
    try:
        conn.execute("BEGIN")
        seq = conn.execute(_DEFERRED_NEXT_SEQ, (thread_id,)).fetchone()[0]
        if think_ms:
            time.sleep(think_ms / 1000)
        now = time.time()
        conn.execute(_DEFERRED_INSERT, (thread_id, seq, text, now, now))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.close()


def concurrent_writers(
    root: Path,
    *,
    processes: int,
    commits_per_process: int,
    seed: int,
    mode: str = "immediate",
    busy_timeout_ms: int | None = None,
    think_ms: float = 1.0,
) -> WritersReport:
    """Run `processes` writers on one Memory file at once; count busy errors, measure commit latency."""
    if mode not in ("immediate", "deferred-control"):
        raise ValueError(mode)
    busy_ms = busy_timeout_ms if busy_timeout_ms is not None else (10_000 if mode == "immediate" else 20)
    root.mkdir(parents=True, exist_ok=True)
    setup = MemoryManager(root=root, owner="writers-setup")
    if not setup.open().ok:
        raise RuntimeError(f"the scratch Memory did not open: {setup.health.reason}")
    report = WritersReport(mode=mode, seed=seed, processes=processes, commits_per_process=commits_per_process)
    barrier = FORK.Barrier(processes + 1)
    outs = [root / f"writer-{i}.json" for i in range(processes)]
    children = [
        FORK.Process(
            target=_writer_child,
            args=(root, i, commits_per_process, seed, barrier, outs[i], mode, busy_ms, think_ms),
            daemon=True,
        )
        for i in range(processes)
    ]
    for child in children:
        child.start()
    barrier.wait()
    started = time.perf_counter()
    for child in children:
        child.join()
    report.wall_s = time.perf_counter() - started
    latencies: list[float] = []
    for i, out in enumerate(outs):
        if not out.exists():
            report.other_errors += 1
            report.errors.append(f"writer {i} exited with {children[i].exitcode} and no result")
            continue
        data = json.loads(out.read_text())
        latencies.extend(data["latencies"])
        report.busy_errors += data["busy"]
        report.other_errors += data["other"]
        report.errors.extend(data["errors"])
        out.unlink()
    report.commits = len(latencies)
    report.p50_ms = percentile(latencies, 50)
    report.p99_ms = percentile(latencies, 99)
    report.max_ms = max(latencies, default=0.0)
    with setup.db.read("count turns") as conn:
        report.turns_in_db = conn.execute("SELECT count(*) FROM turns").fetchone()[0]
        report.duplicate_seqs = conn.execute(
            "SELECT count(*) FROM (SELECT thread_id, seq FROM turns GROUP BY thread_id, seq HAVING count(*) > 1)"
        ).fetchone()[0]
        report.active_threads = conn.execute("SELECT count(*) FROM threads WHERE status = 'active'").fetchone()[0]
    return report
