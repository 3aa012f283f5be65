"""WAL growth under overlapping readers stays under the stated bound; a pinned reader must exceed it.

Stated bound (docs/quality.md): with the CLI's access pattern — writers committing turns while a
reader runs short read transactions separated by work — the WAL file stays ≤ 16 MiB (autocheckpoint
at 1,000 pages ≈ 4 MiB, plus frames written while a checkpoint waits for a reader).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autopatch_j.memory.quality import faults
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


def test_a_pinned_reader_breaks_the_bound(tmp_path: Path, fault_seed: int) -> None:
    """Negative control: one read transaction held for the whole run starves every checkpoint."""
    report = faults.wal_growth(
        tmp_path / "proj", writers=2, readers=1, commits_per_writer=300, seed=fault_seed, pinned_reader=True
    )
    print(f"[faults] WAL control: {report.as_dict()}")
    assert report.wal_max_bytes > WAL_BOUND_BYTES, report.as_dict()
