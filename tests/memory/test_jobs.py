"""The durable job queue: trigger, batch claims, serialization, fencing, heartbeat, retry, recovery, M-49."""

from __future__ import annotations

import pytest

from autopatch_j.memory import jobs as q
from autopatch_j.memory.errors import MemorySchemaError
from autopatch_j.memory.jobs import Claim, LeaseLost, Renewed, Scope
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import JobKind, JobStatus
from autopatch_j.runtime import FakeClock
from tests.memory.pipeline_support import admit, job, jobs, meta, rows


def claim_extraction(manager: MemoryManager, owner: str = "w1", **kw: object) -> Claim | None:
    with manager.db.write("claim") as conn:
        return q.claim_extraction_in_tx(conn, owner=owner, now=manager.clock.now(), **kw)  # type: ignore[arg-type]


def add_consolidation(manager: MemoryManager, parent: int) -> int:
    with manager.db.write("enqueue") as conn:
        return q.enqueue_consolidation_in_tx(
            conn, thread_id=job(manager, parent).thread_id, parent_job_id=parent, generation=1, now=manager.clock.now()
        )


def claim_consolidation(manager: MemoryManager, owner: str = "w1", scope: Scope = Scope()) -> Claim | None:
    with manager.db.write("claim") as conn:
        return q.claim_consolidation_in_tx(conn, owner=owner, now=manager.clock.now(), scope=scope)


def fail(manager: MemoryManager, claim: Claim, error: str) -> LeaseLost | None:
    with manager.db.write("fail") as conn:
        return q.fail_in_tx(conn, claim=claim, error=error, now=manager.clock.now())


def finish(manager: MemoryManager, claim: Claim) -> LeaseLost | None:
    with manager.db.write("finish") as conn:
        return q.fence_in_tx(conn, claim=claim, status=JobStatus.SUCCEEDED, now=manager.clock.now())


# -- trigger (M-40) ------------------------------------------------------------------------------


def test_one_fresh_turn_does_not_trigger(manager: MemoryManager) -> None:
    admit(manager, [("hello", "hi")])
    assert claim_extraction(manager) is None


def test_two_pending_turns_trigger(manager: MemoryManager) -> None:
    admit(manager, [("a", "b"), ("c", "d")])
    claim = claim_extraction(manager)
    assert claim is not None and len(claim.jobs) == 2


def test_oldest_pending_30_seconds_triggers(manager: MemoryManager, clock: FakeClock) -> None:
    admit(manager, [("a", "b")])
    clock.advance(29.9)
    assert claim_extraction(manager) is None
    clock.advance(0.1)
    assert claim_extraction(manager) is not None


def test_force_ignores_the_trigger(manager: MemoryManager) -> None:
    admit(manager, [("a", "b")])
    assert claim_extraction(manager, force=True) is not None


def test_a_turn_arriving_during_a_batch_triggers_right_after_it(manager: MemoryManager, clock: FakeClock) -> None:
    admit(manager, [("a", "b")])
    batch_claimed_at = clock.now()
    clock.advance(1)
    admit(manager, [("c", "d")])
    # Two due jobs would trigger anyway: take the first away to isolate the `since` rule.
    first = claim_extraction(manager, force=True, limit=1)
    assert first is not None and finish(manager, first) is None
    assert claim_extraction(manager) is None
    assert claim_extraction(manager, since=batch_claimed_at) is not None


# -- batches -------------------------------------------------------------------------------------


def test_batch_takes_at_most_four_turns_of_one_thread_in_sequence(manager: MemoryManager) -> None:
    turn_ids = admit(manager, [(f"u{i}", f"a{i}") for i in range(6)])
    claim = claim_extraction(manager)
    assert claim is not None
    assert [j.turn_id for j in claim.jobs] == turn_ids[:4]
    assert {j.status for j in claim.jobs} == {JobStatus.LEASED}
    assert {j.batch_id for j in jobs(manager) if j.status is JobStatus.LEASED} == {claim.batch_id}


def test_a_thread_with_a_live_batch_is_not_claimed_twice(manager: MemoryManager) -> None:
    admit(manager, [(f"u{i}", f"a{i}") for i in range(6)])
    assert claim_extraction(manager, owner="w1") is not None
    assert claim_extraction(manager, owner="w2") is None


def test_batch_stays_inside_one_thread(manager: MemoryManager) -> None:
    old = admit(manager, [("old 1", "a")])
    manager.start_new_thread()
    admit(manager, [("new 1", "a"), ("new 2", "a")])
    claim = claim_extraction(manager)
    assert claim is not None and [j.turn_id for j in claim.jobs] == old


def test_claim_is_one_immediate_transaction(manager: MemoryManager) -> None:
    admit(manager, [("a", "b"), ("c", "d")])
    sent: list[str] = []
    manager.db.set_trace(sent.append)
    claim_extraction(manager)
    manager.db.set_trace(None)
    statements = [s for s in sent if not s.startswith("PRAGMA")]
    assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
    assert statements.count("BEGIN IMMEDIATE") == 1


def test_degraded_store_refuses_claims(manager: MemoryManager) -> None:
    admit(manager, [("a", "b"), ("c", "d")])
    with manager.db.write("break") as conn:
        conn.execute("UPDATE threads SET status = 'archived', archived_at = 1")
    with pytest.raises(MemorySchemaError):
        claim_extraction(manager)


# -- consolidation serialization -------------------------------------------------------------------


def test_consolidation_jobs_are_serialized(manager: MemoryManager) -> None:
    admit(manager, [("a", "b")])
    first, second = add_consolidation(manager, 1), add_consolidation(manager, 1)
    claim = claim_consolidation(manager, owner="w1")
    assert claim is not None and claim.job_ids == (first,)
    assert claim_consolidation(manager, owner="w2") is None
    assert finish(manager, claim) is None
    again = claim_consolidation(manager, owner="w2")
    assert again is not None and again.job_ids == (second,)


def test_allow_list_applies_before_order_and_limit(manager: MemoryManager) -> None:
    admit(manager, [("a", "b")])
    unrelated, wanted = add_consolidation(manager, 1), add_consolidation(manager, 1)
    claim = claim_consolidation(manager, scope=Scope(allow=frozenset({wanted})))
    assert claim is not None and claim.job_ids == (wanted,)
    assert job(manager, unrelated).status is JobStatus.PENDING


# -- fencing and heartbeat (M-47) ------------------------------------------------------------------


def test_commit_after_clear_is_lease_lost_and_writes_nothing(manager: MemoryManager) -> None:
    admit(manager, [("a", "b"), ("c", "d")])
    claim = claim_extraction(manager)
    assert claim is not None
    manager.clear(confirm=True)
    result = finish(manager, claim)
    assert isinstance(result, LeaseLost) and result.job_ids == claim.job_ids
    assert jobs(manager) == []


def test_commit_after_takeover_is_lease_lost(manager: MemoryManager, clock: FakeClock) -> None:
    admit(manager, [("a", "b"), ("c", "d")])
    stale = claim_extraction(manager, owner="slow")
    assert stale is not None
    clock.advance(q.LEASE_SECONDS + 1)
    fresh = claim_extraction(manager, owner="fast")
    assert fresh is not None and fresh.job_ids == stale.job_ids
    assert isinstance(finish(manager, stale), LeaseLost)
    assert {j.owner for j in jobs(manager)} == {"fast"}
    assert finish(manager, fresh) is None


def test_heartbeat_extends_the_lease_until_lost(manager: MemoryManager, clock: FakeClock) -> None:
    admit(manager, [("a", "b"), ("c", "d")])
    claim = claim_extraction(manager)
    assert claim is not None
    clock.advance(100)
    with manager.db.write("beat") as conn:
        renewed = q.heartbeat_in_tx(conn, claim=claim, now=clock.now())
    assert isinstance(renewed, Renewed) and renewed.expires_at == clock.now() + q.LEASE_SECONDS
    clock.advance(100)  # 200 s after the claim, but only 100 s after the beat: still ours
    assert claim_extraction(manager, owner="other", force=True) is None
    manager.clear(confirm=True)
    with manager.db.write("beat") as conn:
        assert isinstance(q.heartbeat_in_tx(conn, claim=claim, now=clock.now()), LeaseLost)


# -- failures, backoff, last error (M-48, M-49) ------------------------------------------------------


def test_failure_records_attempt_error_and_backoff(manager: MemoryManager, clock: FakeClock) -> None:
    admit(manager, [("a", "b"), ("c", "d")])
    expected = [5, 30, 120, 600, 3600, 3600]
    for attempt, delay in enumerate(expected, start=1):
        claim = claim_extraction(manager, force=True)
        assert claim is not None, attempt
        assert fail(manager, claim, f"boom {attempt}") is None
        for j in jobs(manager):
            assert (j.status, j.attempts, j.last_error) == (JobStatus.RETRY_WAIT, attempt, f"boom {attempt}")
            assert j.next_attempt_at == clock.now() + delay
        assert claim_extraction(manager, force=True) is None  # force never skips the retry time
        clock.advance(delay)


def test_error_text_is_bounded(manager: MemoryManager) -> None:
    admit(manager, [("a", "b"), ("c", "d")])
    claim = claim_extraction(manager)
    assert claim is not None
    fail(manager, claim, "x" * 50_000)
    assert {len(j.last_error or "") for j in jobs(manager)} == {20_000}


def test_unrelated_success_never_clears_the_last_error(manager: MemoryManager, clock: FakeClock) -> None:
    admit(manager, [("a", "b")])
    manager.start_new_thread()
    admit(manager, [("c", "d")])
    failing = claim_extraction(manager, force=True, scope=Scope(allow=frozenset({1})))
    assert failing is not None
    fail(manager, failing, "provider exploded")
    assert (meta(manager)["last_error"], meta(manager)["last_error_job_id"]) == ("provider exploded", 1)
    ok = claim_extraction(manager, force=True)
    assert ok is not None and ok.job_ids == (2,)
    assert finish(manager, ok) is None
    assert meta(manager)["last_error"] == "provider exploded"
    assert meta(manager)["last_succeeded_at"] == clock.now()
    clock.advance(5)
    retried = claim_extraction(manager, force=True)
    assert retried is not None and retried.job_ids == (1,)
    assert finish(manager, retried) is None
    assert meta(manager)["last_error"] is None and meta(manager)["last_error_job_id"] is None


def test_last_error_ties_on_updated_at_break_by_id_desc(manager: MemoryManager) -> None:
    admit(manager, [("a", "b")])
    manager.start_new_thread()
    admit(manager, [("c", "d")])
    for job_id in (2, 1):  # fail the newer id first; both at the same instant
        claim = claim_extraction(manager, force=True, scope=Scope(allow=frozenset({job_id})))
        assert claim is not None
        fail(manager, claim, f"error of {job_id}")
    assert meta(manager)["last_error_job_id"] == 2
    assert meta(manager)["last_error"] == "error of 2"


def test_newest_unresolved_error_wins(manager: MemoryManager, clock: FakeClock) -> None:
    admit(manager, [("a", "b")])
    manager.start_new_thread()
    admit(manager, [("c", "d")])
    for job_id in (2, 1):
        claim = claim_extraction(manager, force=True, scope=Scope(allow=frozenset({job_id})))
        assert claim is not None
        fail(manager, claim, f"error of {job_id}")
        clock.advance(1)
    assert meta(manager)["last_error_job_id"] == 1


# -- recovery (M-51) -----------------------------------------------------------------------------------


def test_recovery_reclaims_expired_leases_and_wakes_due_retries(manager: MemoryManager, clock: FakeClock) -> None:
    admit(manager, [("a", "b")])
    manager.start_new_thread()
    admit(manager, [("c", "d")])
    crashed = claim_extraction(manager, owner="crashed", force=True, scope=Scope(allow=frozenset({1})))
    failed = claim_extraction(manager, owner="w", force=True, scope=Scope(allow=frozenset({2})))
    assert crashed is not None and failed is not None
    fail(manager, failed, "transient")
    with manager.db.write("recover") as conn:
        assert q.recover_jobs_in_tx(conn, now=clock.now()) == q.Recovery(reclaimed=(), woken=())
    clock.advance(q.LEASE_SECONDS)
    with manager.db.write("recover") as conn:
        recovery = q.recover_jobs_in_tx(conn, now=clock.now())
    assert recovery == q.Recovery(reclaimed=(1,), woken=(2,))
    states = {j.id: (j.status, j.owner, j.attempts) for j in jobs(manager)}
    assert states == {1: (JobStatus.PENDING, None, 0), 2: (JobStatus.PENDING, None, 1)}
    assert meta(manager)["last_error"] == "transient"  # still unresolved


def test_snapshot_lists_due_jobs_only(manager: MemoryManager, clock: FakeClock) -> None:
    admit(manager, [("a", "b"), ("c", "d")])
    claim = claim_extraction(manager, force=True, limit=1)
    assert claim is not None
    fail(manager, claim, "later")
    with manager.db.write("snapshot") as conn:
        assert q.snapshot_due_in_tx(conn, now=clock.now()) == frozenset({2})
    clock.advance(5)
    with manager.db.write("snapshot") as conn:
        assert q.snapshot_due_in_tx(conn, now=clock.now()) == frozenset({1, 2})


def test_extraction_job_kind_and_generation(manager: MemoryManager) -> None:
    admit(manager, [("a", "b")])
    (only,) = jobs(manager)
    assert only.kind is JobKind.EXTRACTION and only.generation == 1
    assert rows(manager, "SELECT generation FROM memory_meta")[0][0] == 1
