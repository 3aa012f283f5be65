"""WAL growth under overlapping readers stays under the stated bound; a pinned reader must exceed it.

Stated bound (docs/quality.md): writers committing turns while readers run short read
transactions — separated by work, or back to back — keep the WAL file ≤ 16 MiB (autocheckpoint at
1,000 pages ≈ 4 MiB; past 8 MiB a writer forces a RESTART checkpoint after its commit). Only a
reader that never ends its transaction can starve every checkpoint (the negative control).
"""

from __future__ import annotations

from pathlib import Path

import pytest

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
