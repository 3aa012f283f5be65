"""Many processes on one Memory file: no SQLITE_BUSY reaches a caller; the deferred control must show it."""

from __future__ import annotations

from pathlib import Path

import pytest

from autopatch_j.quality import faults
from tests.faults.conftest import full_only


def _run(tmp_path: Path, seed: int, processes: int, commits: int) -> faults.WritersReport:
    report = faults.concurrent_writers(tmp_path / "proj", processes=processes, commits_per_process=commits, seed=seed)
    figures = report.as_dict()
    print(f"[faults] {processes} writers: p50 {report.p50_ms:.2f} ms, p99 {report.p99_ms:.2f} ms; {figures}")
    assert report.busy_errors == 0, figures
    assert report.other_errors == 0, figures
    assert report.turns_in_db == processes * commits, figures  # every committed turn kept (M-23)
    assert report.duplicate_seqs == 0, figures
    assert report.active_threads == 1, figures
    return report


def test_eight_writers_never_see_busy(tmp_path: Path, fault_seed: int) -> None:
    _run(tmp_path, fault_seed, processes=8, commits=40)


@pytest.mark.slow
@full_only
def test_sixteen_writers_never_see_busy(tmp_path: Path, fault_seed: int) -> None:
    _run(tmp_path, fault_seed, processes=16, commits=200)


def test_deferred_read_then_write_control_shows_busy(tmp_path: Path, fault_seed: int) -> None:
    """Negative control: the same admission SQL in a deferred transaction (read, then write) with a
    small busy timeout gets SQLITE_BUSY under the same harness — proof the harness can see it."""
    report = faults.concurrent_writers(
        tmp_path / "proj", processes=8, commits_per_process=40, seed=fault_seed, mode="deferred-control"
    )
    print(f"[faults] deferred control: {report.as_dict()}")
    assert report.busy_errors > 0, report.as_dict()
