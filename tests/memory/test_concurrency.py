"""Several CLIs on one project (M-23, M-32): concurrent admission and concurrent exports."""

from __future__ import annotations

import json
import multiprocessing as mp
import sqlite3
import traceback
from pathlib import Path

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent
from autopatch_j.runtime import FakeClock

PROCESSES = 8
TURNS_PER_PROCESS = 200


def _admit(root: str, worker: int, results: mp.Queue) -> None:  # type: ignore[type-arg]
    errors: list[str] = []
    done = 0
    try:
        m = MemoryManager(root=Path(root), owner=f"worker-{worker}")
        health = m.open()
        if not health.ok:
            errors.append(f"degraded: {health.reason}")
        else:
            for i in range(TURNS_PER_PROCESS):
                try:
                    ticket = m.begin_turn(f"worker {worker} turn {i}", Intent.GENERAL_CHAT)
                    m.complete_turn(ticket, f"answer {worker}/{i}")
                    done += 1
                except Exception as exc:
                    errors.append(f"{type(exc).__name__}: {exc}")
    except Exception:
        errors.append(traceback.format_exc())
    results.put((worker, done, errors))


def test_eight_processes_admitting_turns_keep_every_turn(tmp_path: Path) -> None:
    ctx = mp.get_context("fork")
    results: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
    procs = [ctx.Process(target=_admit, args=(str(tmp_path), w, results)) for w in range(PROCESSES)]
    for p in procs:
        p.start()
    outcomes = [results.get(timeout=240) for _ in procs]
    for p in procs:
        p.join(timeout=30)
    errors = [e for _, _, errs in outcomes for e in errs]
    assert errors == [], errors[:3]
    assert sum(done for _, done, _ in outcomes) == PROCESSES * TURNS_PER_PROCESS

    conn = sqlite3.connect(tmp_path / ".autopatch-j" / "memory.db")
    try:
        assert conn.execute("SELECT count(*) FROM turns WHERE status = 'completed'").fetchone()[0] == 1600
        seqs = [r[0] for r in conn.execute("SELECT seq FROM turns ORDER BY seq")]
        assert seqs == list(range(1, 1601))
        assert conn.execute("SELECT count(*) FROM threads WHERE status = 'active'").fetchone()[0] == 1
        assert conn.execute("SELECT count(*) FROM memory_jobs").fetchone()[0] == 1600
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def _export(root: str, start: float, results: mp.Queue) -> None:  # type: ignore[type-arg]
    try:
        m = MemoryManager(root=Path(root), clock=FakeClock(start))
        m.open()
        results.put(("ok", str(m.export().path)))
    except Exception:
        results.put(("error", traceback.format_exc()))


def test_concurrent_exports_with_a_frozen_clock_give_distinct_complete_files(manager: MemoryManager) -> None:
    ticket = manager.begin_turn("keep me in the export", Intent.GENERAL_CHAT)
    manager.complete_turn(ticket, "exported answer")
    ctx = mp.get_context("fork")
    results: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
    frozen = 1_800_000_000.0
    procs = [ctx.Process(target=_export, args=(str(manager.paths.root), frozen, results)) for _ in range(8)]
    for p in procs:
        p.start()
    outcomes = [results.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=10)
    assert all(status == "ok" for status, _ in outcomes), outcomes
    paths = {Path(path) for _, path in outcomes}
    assert len(paths) == 8
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["tables"]["turns"][0]["user_text"] == "keep me in the export"
        assert data["tables"]["turns"][0]["assistant_text"] == "exported answer"
    leftovers = sorted(p.name for p in manager.paths.exports.iterdir() if p not in paths)
    assert leftovers == []
