"""A Hypothesis state machine over the job queue: enqueue / claim / heartbeat / commit / fail / clear /
advance-clock / crash / recover, against a real SQLite file and a fake clock.

Invariants after every step: the database holds exactly the jobs the model holds, in the same states
(no job lost); a commit, failure or heartbeat applies iff the claim still holds under the current
generation — otherwise it is `LeaseLost` and changes nothing (no write from an old generation or a lost
lease); retries follow the backoff table; at most one consolidation is leased; meta's last error is the
newest unresolved job error (M-49). The run is derandomized: the same examples run every time.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from autopatch_j.memory import jobs as q
from autopatch_j.memory.jobs import Claim, LeaseLost, Renewed
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent, JobKind, JobStatus
from autopatch_j.runtime import Backoff, FakeClock
from tests.memory.pipeline_support import full_only, meta
from tests.memory.pipeline_support import jobs as db_jobs

OWNERS = ("w1", "w2")
# The machine checks queue logic, not durability: a RAM-backed directory keeps it fast where one exists.
_RAM = Path("/dev/shm")
SCRATCH = str(_RAM) if _RAM.is_dir() and os.access(_RAM, os.W_OK) else None
UNRESOLVED = (JobStatus.PENDING, JobStatus.LEASED, JobStatus.RETRY_WAIT)


@dataclass(frozen=True)
class MJob:
    kind: JobKind
    thread_id: int
    status: JobStatus = JobStatus.PENDING
    attempts: int = 0
    next_at: float = 0.0
    lease_until: float | None = None
    batch: str | None = None


class QueueMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="queue-machine-", dir=SCRATCH))
        self.clock = FakeClock()
        self.manager = MemoryManager(root=self.tmp, clock=self.clock, owner="admission")
        self.model: dict[int, MJob] = {}
        self.generation = 1
        self.claims: list[Claim] = []

    @initialize()
    def open(self) -> None:
        assert self.manager.open().ok

    def teardown(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- helpers -------------------------------------------------------------------------------

    def now(self) -> float:
        return self.clock.now()

    def due(self, job: MJob) -> bool:
        if job.status in (JobStatus.PENDING, JobStatus.RETRY_WAIT):
            return job.next_at <= self.now()
        return job.status is JobStatus.LEASED and job.lease_until is not None and job.lease_until <= self.now()

    def holds(self, claim: Claim) -> bool:
        return claim.generation == self.generation and all(
            self.model.get(j) is not None
            and self.model[j].status is JobStatus.LEASED
            and self.model[j].batch == claim.batch_id
            for j in claim.job_ids
        )

    def snapshot(self) -> list[tuple[object, ...]]:
        return [(j.id, j.status, j.owner, j.attempts, j.lease_expires_at, j.last_error) for j in db_jobs(self.manager)]

    def take(self, claim: Claim | None) -> None:
        if claim is None:
            return
        assert claim.generation == self.generation
        assert len(claim.jobs) <= q.BATCH_SIZE and len({j.thread_id for j in claim.jobs}) == 1
        for job in claim.jobs:
            assert self.due(self.model[job.id]), f"claimed a job that was not due: {self.model[job.id]}"
            self.model[job.id] = replace(
                self.model[job.id], status=JobStatus.LEASED, lease_until=self.now() + q.LEASE_SECONDS,
                batch=claim.batch_id,
            )  # fmt: skip
        self.claims.append(claim)

    # -- rules ---------------------------------------------------------------------------------

    @rule()
    def enqueue(self) -> None:
        ticket = self.manager.begin_turn("turn", Intent.GENERAL_CHAT)
        self.manager.complete_turn(ticket, "answer")
        (job,) = [j for j in db_jobs(self.manager) if j.turn_id == ticket.turn_id]
        self.model[job.id] = MJob(kind=JobKind.EXTRACTION, thread_id=ticket.thread_id, next_at=self.now())

    @precondition(lambda self: any(j.kind is JobKind.EXTRACTION for j in self.model.values()))
    @rule(data=st.data())
    def spawn_consolidation(self, data: st.DataObject) -> None:
        parent = data.draw(st.sampled_from(sorted(i for i, j in self.model.items() if j.kind is JobKind.EXTRACTION)))
        with self.manager.db.write("spawn") as conn:
            job_id = q.enqueue_consolidation_in_tx(
                conn, thread_id=self.model[parent].thread_id, parent_job_id=parent, generation=self.generation,
                now=self.now(),
            )  # fmt: skip
        self.model[job_id] = MJob(
            kind=JobKind.CONSOLIDATION, thread_id=self.model[parent].thread_id, next_at=self.now()
        )

    @rule(owner=st.sampled_from(OWNERS))
    def claim_extraction(self, owner: str) -> None:
        with self.manager.db.write("claim") as conn:
            claim = q.claim_extraction_in_tx(conn, owner=owner, now=self.now(), force=True)
        live = {j.thread_id for j in self.model.values() if j.kind is JobKind.EXTRACTION
                and j.status is JobStatus.LEASED and not self.due(j)}  # fmt: skip
        claimable = [j for j in self.model.values() if j.kind is JobKind.EXTRACTION and self.due(j)
                     and j.thread_id not in live]  # fmt: skip
        assert (claim is not None) == bool(claimable), "a due, claimable job was not claimed (lost?)"
        self.take(claim)

    @rule(owner=st.sampled_from(OWNERS))
    def claim_consolidation(self, owner: str) -> None:
        with self.manager.db.write("claim") as conn:
            claim = q.claim_consolidation_in_tx(conn, owner=owner, now=self.now())
        self.take(claim)

    @precondition(lambda self: self.claims)
    @rule(data=st.data())
    def commit(self, data: st.DataObject) -> None:
        claim = data.draw(st.sampled_from(self.claims))
        expected, before = self.holds(claim), self.snapshot()
        with self.manager.db.write("commit") as conn:
            result = q.fence_in_tx(conn, claim=claim, status=JobStatus.SUCCEEDED, now=self.now())
        if expected:
            assert result is None
            for j in claim.job_ids:
                self.model[j] = replace(self.model[j], status=JobStatus.SUCCEEDED, lease_until=None, batch=None)
        else:
            assert isinstance(result, LeaseLost)
            assert self.snapshot() == before, "a stale commit changed the queue"
        self.claims.remove(claim)

    @precondition(lambda self: self.claims)
    @rule(data=st.data())
    def fail(self, data: st.DataObject) -> None:
        claim = data.draw(st.sampled_from(self.claims))
        expected, before = self.holds(claim), self.snapshot()
        with self.manager.db.write("fail") as conn:
            result = q.fail_in_tx(conn, claim=claim, error=f"error at {self.now()}", now=self.now())
        if expected:
            assert result is None
            for j in claim.job_ids:
                attempts = self.model[j].attempts + 1
                self.model[j] = replace(
                    self.model[j], status=JobStatus.RETRY_WAIT, attempts=attempts, lease_until=None, batch=None,
                    next_at=self.now() + Backoff().delay(attempts),
                )  # fmt: skip
        else:
            assert isinstance(result, LeaseLost)
            assert self.snapshot() == before
        self.claims.remove(claim)

    @precondition(lambda self: self.claims)
    @rule(data=st.data())
    def heartbeat(self, data: st.DataObject) -> None:
        claim = data.draw(st.sampled_from(self.claims))
        expected = self.holds(claim)
        with self.manager.db.write("beat") as conn:
            result = q.heartbeat_in_tx(conn, claim=claim, now=self.now())
        assert isinstance(result, Renewed) == expected
        if expected:
            for j in claim.job_ids:
                self.model[j] = replace(self.model[j], lease_until=self.now() + q.LEASE_SECONDS)

    @rule()
    def clear(self) -> None:
        result = self.manager.clear(confirm=True)
        self.generation += 1
        assert result.generation == self.generation
        self.model.clear()

    @rule(seconds=st.sampled_from([1.0, 5.0, 30.0, 121.0, 600.0, 3600.0]))
    def advance_clock(self, seconds: float) -> None:
        self.clock.advance(seconds)

    @precondition(lambda self: self.claims)
    @rule(owner=st.sampled_from(OWNERS))
    def crash(self, owner: str) -> None:
        """The owner's process dies: its claims are never finished; their leases just expire."""
        self.claims = [c for c in self.claims if c.owner != owner]

    @rule()
    def recover(self) -> None:
        with self.manager.db.write("recover") as conn:
            recovery = q.recover_jobs_in_tx(conn, now=self.now())
        expired = sorted(i for i, j in self.model.items() if j.status is JobStatus.LEASED and self.due(j))
        due_retries = sorted(i for i, j in self.model.items() if j.status is JobStatus.RETRY_WAIT and self.due(j))
        assert recovery == q.Recovery(reclaimed=tuple(expired), woken=tuple(due_retries))
        for i in expired:
            self.model[i] = replace(self.model[i], status=JobStatus.PENDING, lease_until=None, batch=None,
                                    next_at=self.now())  # fmt: skip
        for i in due_retries:
            self.model[i] = replace(self.model[i], status=JobStatus.PENDING)

    # -- invariants ----------------------------------------------------------------------------

    @invariant()
    def database_matches_the_model(self) -> None:
        rows = db_jobs(self.manager)
        assert {j.id for j in rows} == set(self.model), "a job was lost or invented"
        for job in rows:
            m = self.model[job.id]
            assert (job.status, job.attempts, job.batch_id if job.status is JobStatus.LEASED else None) == (
                m.status, m.attempts, m.batch,
            )  # fmt: skip
            if job.status is JobStatus.RETRY_WAIT:
                assert job.next_attempt_at == m.next_at
            if job.status is JobStatus.LEASED:
                assert job.lease_expires_at == m.lease_until and job.generation == self.generation

    @invariant()
    def consolidations_are_serialized(self) -> None:
        leased = [j for j in db_jobs(self.manager) if j.kind is JobKind.CONSOLIDATION and j.status is JobStatus.LEASED]
        assert len(leased) <= 1

    @invariant()
    def last_error_is_the_newest_unresolved_error(self) -> None:
        unresolved = [j for j in db_jobs(self.manager) if j.status in UNRESOLVED and j.last_error is not None]
        newest = max(unresolved, key=lambda j: (j.updated_at, j.id), default=None)
        row = meta(self.manager)
        assert (row["last_error_job_id"], row["last_error"]) == (
            (newest.id, newest.last_error) if newest else (None, None)
        )


QueueMachine.TestCase.settings = settings(
    max_examples=20, stateful_step_count=30, deadline=None, derandomize=True, print_blob=True
)
TestQueueMachine = QueueMachine.TestCase


class LongQueueMachine(QueueMachine):
    pass


LongQueueMachine.TestCase.settings = settings(
    max_examples=300, stateful_step_count=50, deadline=None, derandomize=True, print_blob=True
)
TestLongQueueMachine = full_only(pytest.mark.slow(LongQueueMachine.TestCase))
