"""One step of the durable two-stage pipeline: claim → extractor (outside any transaction) → fenced commit.

`Pipeline.step()` claims either the next consolidation job (serialized) or the next extraction batch
(≤ 4 turns of one thread, in sequence order, when the M-40 trigger holds or `force` is set), loads
the stage input in the claim's transaction, calls the extractor with no transaction open while a
heartbeat renews the lease, validates the answer, and commits it through the fence in one short
transaction. Any failure of the extractor or of validation puts the whole claim in `retry_wait`
with the RAW error (≤ 20,000 chars) and the backoff time; a lost lease or a `clear` in between
discards the result, and nothing partial is ever written.
"""

from __future__ import annotations

import enum
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from autopatch_j.llm.diagnostics import ErrorRecord
from autopatch_j.memory import batches, jobs
from autopatch_j.memory.backoff import Backoff
from autopatch_j.memory.clock import Clock
from autopatch_j.memory.consolidation import ConsolidationCommitted, ConsolidationPlan, apply_consolidation_in_tx
from autopatch_j.memory.consolidation import plan_consolidation as _plan
from autopatch_j.memory.db import Database
from autopatch_j.memory.errors import ConsolidationRejected, MemoryEngineError, MemorySchemaError
from autopatch_j.memory.extraction import ExtractionCommitted, commit_extraction_in_tx
from autopatch_j.memory.extractor import Extractor
from autopatch_j.memory.jobs import Claim, LeaseLost, Recovery, Scope
from autopatch_j.memory.lexicon import Lexicon, default_lexicon
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import JobKind
from autopatch_j.memory.validation import validate_extraction

HEARTBEAT_SECONDS = 30.0
T = TypeVar("T")


class Outcome(enum.StrEnum):
    SUCCEEDED = "succeeded"
    SUCCEEDED_NO_OUTPUT = "succeeded_no_output"
    RETRY = "retry"
    LEASE_LOST = "lease_lost"


@dataclass(frozen=True, slots=True)
class StepResult:
    """What one claimed batch or job came to."""

    kind: JobKind
    job_ids: tuple[int, ...]
    outcome: Outcome
    claimed_at: float
    candidates: int = 0
    filtered: int = 0
    operations: dict[str, int] = field(default_factory=dict)
    memory_ids: tuple[int, ...] = ()
    consolidation_job_id: int | None = None
    error: str | None = None  # concise, safe for normal mode
    raw_error: str | None = None  # RAW (M-71), for debug mode only


class _Rollback(Exception):
    def __init__(self, lost: LeaseLost) -> None:
        super().__init__(lost.reason)
        self.lost = lost


class Pipeline:
    def __init__(
        self,
        *,
        db: Database,
        clock: Clock,
        owner: str,
        extractor: Extractor,
        lexicon: Lexicon | None = None,
        backoff: Backoff | None = None,
        lease_seconds: float = jobs.LEASE_SECONDS,
        heartbeat_seconds: float | None = HEARTBEAT_SECONDS,
        batch_size: int = jobs.BATCH_SIZE,
    ) -> None:
        self.db = db
        self.clock = clock
        self.owner = owner
        self.extractor = extractor
        self.lexicon = lexicon or default_lexicon()
        self.backoff = backoff or Backoff()
        self.lease_seconds = lease_seconds
        self.heartbeat_seconds = heartbeat_seconds
        self.batch_size = batch_size

    @classmethod
    def for_manager(
        cls, manager: MemoryManager, *, extractor: Extractor, heartbeat_seconds: float | None = HEARTBEAT_SECONDS
    ) -> Pipeline:
        """The pipeline of an opened, healthy `MemoryManager` (same database, clock and owner)."""
        if not manager.health.ok:
            raise MemorySchemaError(f"Memory is degraded ({manager.health.reason}); background processing is off.")
        return cls(
            db=manager.db,
            clock=manager.clock,
            owner=manager.owner,
            extractor=extractor,
            heartbeat_seconds=heartbeat_seconds,
        )

    # -- recovery and snapshots -------------------------------------------------------------------

    def recover(self) -> Recovery:
        """M-51: reclaim expired job leases and wake due retries (turn recovery lives in admission)."""
        with self.db.write("recover Memory jobs") as conn:
            return jobs.recover_jobs_in_tx(conn, now=self.clock.now())

    def snapshot(self, *, thread_id: int | None = None) -> frozenset[int]:
        with self.db.write("snapshot pending Memory jobs") as conn:
            return jobs.snapshot_due_in_tx(conn, now=self.clock.now(), thread_id=thread_id)

    # -- one step ---------------------------------------------------------------------------------

    def step(self, *, force: bool = False, scope: Scope = Scope(), since: float | None = None) -> StepResult | None:
        """Claim and run one consolidation job or extraction batch; None when nothing is due."""
        now = self.clock.now()
        with self.db.write("claim Memory jobs") as conn:
            claim = jobs.claim_consolidation_in_tx(
                conn, owner=self.owner, now=now, scope=scope, lease_seconds=self.lease_seconds
            )
            consolidation = batches.load_consolidation_request_in_tx(conn, claim=claim) if claim else None
            extraction = None
            if claim is None:
                claim = jobs.claim_extraction_in_tx(
                    conn,
                    owner=self.owner,
                    now=now,
                    scope=scope,
                    force=force,
                    since=since,
                    limit=self.batch_size,
                    lease_seconds=self.lease_seconds,
                )
                extraction = batches.load_extraction_request_in_tx(conn, claim=claim) if claim else None
        if claim is None:
            return None
        if extraction is not None:
            return self._run_extraction(claim, extraction, now)
        assert consolidation is not None
        return self._run_consolidation(claim, consolidation, now)

    def _run_extraction(self, claim: Claim, request: batches.ExtractionRequest, claimed_at: float) -> StepResult:
        try:
            with self._heartbeat(claim):
                output = self.extractor.extract(request)
            validated = validate_extraction(output, request, self.lexicon)
        except Exception as exc:
            return self._fail(claim, exc, claimed_at)

        def commit(conn: sqlite3.Connection) -> ExtractionCommitted | LeaseLost:
            return commit_extraction_in_tx(conn, claim=claim, request=request, result=validated, now=self.clock.now())

        outcome = self._commit(commit, "store the extracted Memory candidates")
        if isinstance(outcome, LeaseLost):
            return self._lost(claim, claimed_at)
        return StepResult(
            kind=JobKind.EXTRACTION,
            job_ids=claim.job_ids,
            outcome=Outcome(outcome.status.value),
            claimed_at=claimed_at,
            candidates=len(outcome.candidate_ids),
            filtered=outcome.filtered,
            consolidation_job_id=outcome.consolidation_job_id,
        )

    def _run_consolidation(self, claim: Claim, request: batches.ConsolidationRequest, claimed_at: float) -> StepResult:
        try:
            if request.candidates:
                with self._heartbeat(claim):
                    output = self.extractor.consolidate(request)
                plan = _plan(output, request)
            else:  # every candidate was forgotten meanwhile: nothing to ask
                plan = ConsolidationPlan(thread_id=request.thread_id, operations=())
        except Exception as exc:
            return self._fail(claim, exc, claimed_at)

        def commit(conn: sqlite3.Connection) -> ConsolidationCommitted | LeaseLost:
            return apply_consolidation_in_tx(conn, claim=claim, plan=plan, now=self.clock.now())

        try:
            outcome = self._commit(commit, "apply the Memory operations")
        except ConsolidationRejected as exc:  # an operation became illegal against the current store
            return self._fail(claim, exc, claimed_at)
        if isinstance(outcome, LeaseLost):
            return self._lost(claim, claimed_at)
        return StepResult(
            kind=JobKind.CONSOLIDATION,
            job_ids=claim.job_ids,
            outcome=Outcome.SUCCEEDED if plan.operations else Outcome.SUCCEEDED_NO_OUTPUT,
            claimed_at=claimed_at,
            operations=outcome.operations,
            memory_ids=outcome.memory_ids,
        )

    # -- commits, failures, heartbeats ------------------------------------------------------------

    def _commit(self, action: Callable[[sqlite3.Connection], T | LeaseLost], what: str) -> T | LeaseLost:
        """Run `action(conn)` in one write transaction; a `LeaseLost` result rolls everything back."""
        try:
            with self.db.write(what) as conn:
                result = action(conn)
                if isinstance(result, LeaseLost):
                    raise _Rollback(result)
                return result
        except _Rollback as rollback:
            return rollback.lost

    def _fail(self, claim: Claim, exc: BaseException, claimed_at: float) -> StepResult:
        record = ErrorRecord.from_exception(exc)
        raw = record.render()

        def record_failure(conn: sqlite3.Connection) -> LeaseLost | None:
            return jobs.fail_in_tx(conn, claim=claim, error=raw, now=self.clock.now(), backoff=self.backoff)

        if isinstance(self._commit(record_failure, "record the Memory job failure"), LeaseLost):
            return self._lost(claim, claimed_at)
        concise = str(exc) if isinstance(exc, MemoryEngineError) else record.concise()
        return StepResult(
            kind=claim.kind,
            job_ids=claim.job_ids,
            outcome=Outcome.RETRY,
            claimed_at=claimed_at,
            error=concise,
            raw_error=raw,
        )

    def _lost(self, claim: Claim, claimed_at: float) -> StepResult:
        return StepResult(
            kind=claim.kind,
            job_ids=claim.job_ids,
            outcome=Outcome.LEASE_LOST,
            claimed_at=claimed_at,
            error=LeaseLost(claim.job_ids).reason,
        )

    def heartbeat(self, claim: Claim) -> jobs.Renewed | LeaseLost:
        with self.db.write("renew Memory job leases") as conn:
            return jobs.heartbeat_in_tx(conn, claim=claim, now=self.clock.now(), lease_seconds=self.lease_seconds)

    @contextmanager
    def _heartbeat(self, claim: Claim) -> Iterator[None]:
        """Renew the claim's lease every `heartbeat_seconds` while the extractor runs."""
        interval = self.heartbeat_seconds
        if interval is None or interval <= 0:
            yield
            return
        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(interval):
                try:
                    if isinstance(self.heartbeat(claim), LeaseLost):
                        return  # the commit will be fenced; nothing more to renew
                except MemoryEngineError:
                    continue  # transient (busy); the next beat retries

        thread = threading.Thread(target=beat, name="memory-job-heartbeat", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join(timeout=5)
