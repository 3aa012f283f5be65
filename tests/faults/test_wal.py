"""WAL growth under overlapping readers stays under the stated bound; a pinned reader must exceed it.

Stated bound (docs/quality.md): writers committing turns while readers run short read
transactions — separated by work, or back to back — keep the WAL file ≤ 16 MiB (autocheckpoint at
1,000 pages ≈ 4 MiB; past 8 MiB a writer forces a RESTART checkpoint after its commit). Only a
reader that never ends its transaction can starve every checkpoint (the negative control).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

import pytest

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent
from autopatch_j.quality import faults
from tests.faults.conftest import full_only

WAL_BOUND_BYTES = 16 * 1024 * 1024


def _bounded(tmp_path: Path, seed: int, commits: int) -> faults.WalReport:
    report = faults.wal_growth(
        tmp_path / "proj", writers=2, readers=1, commits_per_writer=commits, seed=seed, reader_gap_ms=5
    )
    print(f"[faults] WAL: {report.as_dict()}")
    assert report.reads > 0, report.as_dict()
    assert report.wal_max_bytes <= WAL_BOUND_BYTES, report.as_dict()
    return report


def test_wal_stays_under_the_bound(tmp_path: Path, fault_seed: int) -> None:
    _bounded(tmp_path, fault_seed, commits=300)


@pytest.mark.slow
@full_only
def test_wal_stays_under_the_bound_on_a_long_run(tmp_path: Path, fault_seed: int) -> None:
    _bounded(tmp_path, fault_seed, commits=1_500)


def test_back_to_back_readers_stay_under_the_bound(tmp_path: Path, fault_seed: int) -> None:
    """Four readers overlapping with no gap starve SQLite's passive autocheckpoint; the writer's
    RESTART checkpoint past 8 MiB (memory/db.py) still resets the WAL."""
    report = faults.wal_growth(
        tmp_path / "proj", writers=2, readers=4, commits_per_writer=300, seed=fault_seed, reader_gap_ms=0
    )
    print(f"[faults] WAL back to back: {report.as_dict()}")
    assert report.reads > 0, report.as_dict()
    assert report.wal_max_bytes <= WAL_BOUND_BYTES, report.as_dict()


def test_a_pinned_reader_breaks_the_bound(tmp_path: Path, fault_seed: int) -> None:
    """Negative control: one read transaction held for the whole run starves every checkpoint."""
    report = faults.wal_growth(
        tmp_path / "proj", writers=2, readers=1, commits_per_writer=300, seed=fault_seed, pinned_reader=True
    )
    print(f"[faults] WAL control: {report.as_dict()}")
    assert report.wal_max_bytes > WAL_BOUND_BYTES, report.as_dict()


def _wal_bytes(manager: MemoryManager) -> int:
    return os.stat(f"{manager.paths.db}-wal").st_size


def test_past_the_hard_limit_a_writer_waits_for_a_short_reader_and_resets_the_wal(tmp_path: Path) -> None:
    """CI seed 1601853263 reached 18.7 MiB: while one writer's RESTART checkpoint waited, the other kept
    committing (its own checkpoint refused at once: "another connection is checkpointing"). Past 12 MiB
    a writer now stops running ahead: after its commit it keeps retrying the checkpoint — so its caller
    waits — until the WAL resets or 1.5 s pass. Here a reader ends 0.4 s after a second process's
    writer crosses the limit; that writer's next commit must find the WAL reset and shrink the file."""
    filler = MemoryManager(root=tmp_path, owner="filler")
    assert filler.open().ok
    big = "y" * 90_000
    ticket = filler.begin_turn("first turn", Intent.GENERAL_CHAT)
    filler.complete_turn(ticket, "ok")
    reader = sqlite3.connect(filler.paths.db, check_same_thread=False)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM turns").fetchone()  # a snapshot that needs the WAL's frames
    while _wal_bytes(filler) <= 12 * 1024 * 1024:
        ticket = filler.begin_turn(f"filler {big}", Intent.GENERAL_CHAT)
        filler.complete_turn(ticket, big)
    release = threading.Timer(0.4, reader.rollback)
    release.start()
    writer = MemoryManager(root=tmp_path, owner="second-process")
    try:
        assert writer.open().ok  # opening writes too (recovery), and may be the commit that waits
        for n in range(2):  # the first commit checkpoints; the second restarts the log and truncates it
            ticket = writer.begin_turn(f"after {n}", Intent.GENERAL_CHAT)
            writer.complete_turn(ticket, "ok")
    finally:
        release.join()
        reader.close()
    assert _wal_bytes(writer) <= 8 * 1024 * 1024, _wal_bytes(writer)
