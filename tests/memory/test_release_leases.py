"""`MemoryManager.release_leases()`: a process on its way out gives back only its own leases, at once."""

from __future__ import annotations

from pathlib import Path

from autopatch_j.memory import jobs as jobs_sql
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent, JobStatus, TurnStatus
from autopatch_j.runtime import FakeClock
from tests.memory.pipeline_support import admit, jobs, rows


def test_release_gives_back_own_job_leases_and_open_turns_only(
    manager: MemoryManager, tmp_path: Path, clock: FakeClock
) -> None:
    admit(manager, [("以后回答先给结论。", "好的"), ("项目统一使用 Python 3.10+。", "收到")])
    other = MemoryManager(root=tmp_path, clock=clock, owner="other-owner")
    assert other.open().ok
    with manager.db.write("claim") as conn:
        mine = jobs_sql.claim_extraction_in_tx(conn, owner=manager.owner, now=clock.now(), force=True, limit=1)
    manager.start_new_thread()  # one extraction lease per thread: the other process works on another
    admit(manager, [("以后先写测试。", "好")])
    with other.db.write("claim") as conn:
        theirs = jobs_sql.claim_extraction_in_tx(conn, owner=other.owner, now=clock.now(), force=True, limit=1)
    assert mine is not None and theirs is not None
    open_turn = manager.begin_turn("还没回答完的问题", Intent.GENERAL_CHAT)
    other_turn = other.begin_turn("另一个进程的问题", Intent.GENERAL_CHAT)

    released = manager.release_leases()

    assert released.jobs == mine.job_ids and released.turns == (open_turn.turn_id,)
    by_id = {job.id: job for job in jobs(manager)}
    for job_id in mine.job_ids:  # due again at once, for any process
        assert by_id[job_id].status is JobStatus.PENDING and by_id[job_id].owner is None
        assert by_id[job_id].next_attempt_at == clock.now()
    for job_id in theirs.job_ids:  # another process's lease is untouched
        assert by_id[job_id].status is JobStatus.LEASED and by_id[job_id].owner == "other-owner"
    statuses = {r["id"]: r["status"] for r in rows(manager, "SELECT id, status FROM turns")}
    assert statuses[open_turn.turn_id] == TurnStatus.INTERRUPTED
    assert statuses[other_turn.turn_id] == TurnStatus.OPEN
    assert any(job.turn_id == open_turn.turn_id for job in jobs(manager))  # its extraction job exists
    assert manager.release_leases().jobs == ()  # idempotent
    other.close()
