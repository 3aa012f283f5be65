"""Nothing at start-up grows with the store: a start on a store that carries a sound verification stamp
(bootstrap, the start-up recoveries) and `memory status` run the same SQLite work on a store ten times
the size. Counted in SQLite virtual-machine steps (a progress handler on every connection), not time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from autopatch_j.memory.db import Database
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent
from autopatch_j.memory.stamp import observe, trusted


def _store(root: Path, turns: int) -> None:
    m = MemoryManager(root=root, owner="seed")
    assert m.open().ok
    m.admit_completed_turns([(f"question {i} " + "x" * 100, "answer " * 20, Intent.GENERAL_CHAT) for i in range(turns)])
    with m.db.write("finish the jobs, as a drained store has them") as conn:
        conn.execute("UPDATE memory_jobs SET status = 'succeeded' WHERE id % 2 = 0")
        conn.execute("UPDATE memory_jobs SET status = 'succeeded_no_output' WHERE id % 2 = 1 AND id > 5")
    m.close()
    assert trusted(m.paths.db, observe(m.paths.db))


@contextmanager
def _counting(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    steps = [0]
    connect = Database.connect

    def counted(self: Database, *, create: bool = False) -> sqlite3.Connection:
        conn = connect(self, create=create)

        def tick() -> int:
            steps[0] += 1
            return 0

        conn.set_progress_handler(tick, 1)
        return conn

    with monkeypatch.context() as patch:
        patch.setattr(Database, "connect", counted)
        yield steps


def _start_and_status(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, int]]:
    with _counting(monkeypatch) as steps:
        m = MemoryManager(root=root)
        assert m.open().ok
        report = m.status()
        m.close()
    return steps[0], report.jobs


def test_start_and_status_do_the_same_work_on_a_store_ten_times_the_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small, large = tmp_path / "small", tmp_path / "large"
    small.mkdir()
    large.mkdir()
    _store(small, 200)
    _store(large, 2_000)
    small_steps, small_jobs = _start_and_status(small, monkeypatch)
    large_steps, large_jobs = _start_and_status(large, monkeypatch)
    assert small_jobs == {"done": 197, "pending": 3}
    assert large_jobs == {"done": 1_997, "pending": 3}
    assert large_steps <= small_steps * 1.1, (small_steps, large_steps)


def test_status_counts_open_jobs_by_state_and_the_finished_ones_as_done(tmp_path: Path) -> None:
    _store(tmp_path, 20)
    m = MemoryManager(root=tmp_path)
    assert m.open().ok
    with m.db.write("put jobs in every open state") as conn:
        conn.execute("UPDATE memory_jobs SET status = 'retry_wait', attempts = 1, next_attempt_at = 9e12 WHERE id = 1")
        conn.execute("UPDATE memory_jobs SET status = 'failed', attempts = 3 WHERE id = 2")
        conn.execute(
            "UPDATE memory_jobs SET status = 'leased', owner = 'elsewhere', lease_expires_at = 9e12 WHERE id = 3"
        )
    report = m.status()
    m.close()
    assert report.jobs == {"done": 16, "failed": 1, "leased": 1, "pending": 1, "retry_wait": 1}
    assert report.counts == {"turns": 20, "active_items": 0, "candidates": 0}
