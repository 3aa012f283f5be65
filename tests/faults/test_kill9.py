"""kill -9 at random moments while a child admits turns and commits jobs; every restart is checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from autopatch_j.quality import faults
from autopatch_j.quality.faults import kill9
from tests.faults.conftest import full_only, trials

SHORT_TRIALS = 200
FULL_TRIALS = 1_000


def _assert_clean(report: faults.KillLoopReport) -> None:
    figures = report.as_dict()
    print(f"[faults] kill -9: {figures}")
    assert report.acknowledged_lost == 0, figures
    assert report.quick_check_failures == 0, figures
    assert report.integrity_check_failures == 0, figures
    assert report.foreign_key_failures == 0, figures
    assert report.open_turns_after_recovery == 0, figures
    assert report.turns_without_job == 0, figures
    assert report.jobs_unfinished_after_drain == 0, figures
    assert report.duplicate_items == 0, figures
    assert report.reopen_failures == 0, figures
    # The harness really crashed the child mid-work, with commits acknowledged before the kill.
    assert report.killed_mid_run >= report.trials * 0.9, figures
    assert report.acknowledged_turns >= report.trials // 4, figures  # ≈ 1.3 per trial measured; slack for load
    assert report.acknowledged_jobs > 0, figures


def test_kill9_short(tmp_path: Path, fault_seed: int) -> None:
    report = faults.kill_loop(
        tmp_path / "proj",
        trials=trials(SHORT_TRIALS),
        seed=fault_seed,
        max_run_ms=200,
        runner=faults.offline_job_runner,
        jobs_every=1,
        final_drain=faults.drain_everything,
    )
    _assert_clean(report)


@pytest.mark.slow
@full_only
def test_kill9_full(tmp_path: Path, fault_seed: int) -> None:
    report = faults.kill_loop(
        tmp_path / "proj",
        trials=trials(FULL_TRIALS),
        seed=fault_seed,
        max_run_ms=300,
        runner=faults.offline_job_runner,
        jobs_every=1,
        integrity_every=25,
        final_drain=faults.drain_everything,
    )
    _assert_clean(report)


def test_the_checker_sees_a_lost_acknowledgement(tmp_path: Path) -> None:
    """Negative control: an acknowledged turn deleted behind the harness's back is reported as lost."""
    root = tmp_path / "proj"
    report = faults.kill_loop(root, trials=3, seed=1, max_run_ms=150)
    assert report.acknowledged_lost == 0 and report.acknowledged_turns > 0
    from autopatch_j.memory.manager import MemoryManager

    manager = MemoryManager(root=root, owner="vandal")
    assert manager.open().ok
    with manager.db.write("test: lose a turn") as conn:
        turn_id = conn.execute("SELECT max(id) FROM turns WHERE status = 'completed'").fetchone()[0]
        conn.execute("DELETE FROM memory_jobs WHERE turn_id = ?", (turn_id,))
        conn.execute("DELETE FROM turns WHERE id = ?", (turn_id,))
    acked = {turn_id: 0}
    kill9._check_after_crash(root, report, acked, set(), deep=True, at=10.0)
    assert report.acknowledged_lost == 1
