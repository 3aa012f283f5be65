"""One step of the durable two-stage pipeline: claim → extractor (outside any transaction) → fenced commit.

`Pipeline.step()` claims either the next consolidation job (serialized) or the next extraction batch
(≤ 4 turns of one thread, in sequence order, when the M-40 trigger holds or `force` is set), loads
the stage input in the claim's transaction, calls the extractor with no transaction open while a
heartbeat renews the lease, validates the answer, and commits it through the fence in one short
transaction. A failure of the extractor or of validation is judged by `failures.decide`:
usually the whole claim goes to `retry_wait` with the RAW error (≤ 20,000 chars) and the backoff
time; a batch the provider rejects as too large, or whose answer breaks the contract identically
twice, is split in halves that run at once; a job that cannot succeed (too large alone, the same contract violation
twice, or `max_attempts` used up) ends `failed` — terminal — and its input still goes through the
offline rules extractor (same validators, same fenced commit), so an explicit preference is not lost
because the model could not answer. A lost lease or a `clear` in between discards the result, and
nothing partial is ever written.
"""

from __future__ import annotations

import dataclasses
import enum
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from autopatch_j.llm.diagnostics import ErrorRecord
from autopatch_j.memory import batches, jobs
from autopatch_j.memory.consolidation import ConsolidationCommitted, ConsolidationPlan, apply_consolidation_in_tx
from autopatch_j.memory.consolidation import plan_consolidation as _plan
from autopatch_j.memory.db import Database
from autopatch_j.memory.errors import ConsolidationRejected, MemoryEngineError, MemorySchemaError
from autopatch_j.memory.extraction import ExtractionCommitted, commit_extraction_in_tx
from autopatch_j.memory.extractor import Extractor
from autopatch_j.memory.failures import MAX_ATTEMPTS, Verdict, classify, decide
from autopatch_j.memory.jobs import Claim, LeaseLost, Recovery, Scope
from autopatch_j.memory.lexicon import Lexicon, default_lexicon
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.records import JobKind, JobStatus
from autopatch_j.memory.validation import validate_extraction
from autopatch_j.runtime import Backoff, Clock, Heartbeat

HEARTBEAT_SECONDS = 30.0
T = TypeVar("T")


class Outcome(enum.StrEnum):
    SUCCEEDED = "succeeded"
    SUCCEEDED_NO_OUTPUT = "succeeded_no_output"
    RETRY = "retry"
    LEASE_LOST = "lease_lost"
    FAILED = "failed"  # terminal; the offline rules extractor ran instead when `fallback` is set


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
    fallback: bool = False  # a `failed` job whose input the offline rules extractor processed
    parts: tuple[StepResult, ...] = ()  # a split batch: the result of each part

    def leaves(self) -> tuple[StepResult, ...]:
        """The results that were committed one by one (the parts of a split batch, else itself)."""
        return tuple(leaf for part in self.parts for leaf in part.leaves()) if self.parts else (self,)


_SEVERITY = {
    Outcome.SUCCEEDED_NO_OUTPUT: 0,
    Outcome.SUCCEEDED: 1,
    Outcome.RETRY: 2,
    Outcome.FAILED: 3,
    Outcome.LEASE_LOST: 4,
}


def _concise(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, MemoryEngineError) else ErrorRecord.from_exception(exc).concise()


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
        max_attempts: int = MAX_ATTEMPTS,
        fallback: Extractor | None = None,
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
        self.max_attempts = max_attempts
        self.fallback = fallback or RulesExtractor(lexicon=self.lexicon)

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

    def retry_failed(self) -> tuple[int, ...]:
        """Every `failed` job back to `pending` with a fresh attempt count (`memory drain --retry-failed`)."""
        with self.db.write("retry failed Memory jobs") as conn:
            return jobs.retry_failed_in_tx(conn, now=self.clock.now())

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
            return self._extraction_failed(claim, request, exc, claimed_at)

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
            return self._consolidation_failed(claim, request, exc, claimed_at)

        def commit(conn: sqlite3.Connection) -> ConsolidationCommitted | LeaseLost:
            return apply_consolidation_in_tx(conn, claim=claim, plan=plan, now=self.clock.now())

        try:
            outcome = self._commit(commit, "apply the Memory operations")
        except ConsolidationRejected as exc:  # an operation became illegal against the current store
            return self._consolidation_failed(claim, request, exc, claimed_at)
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

    # -- failures: retry, split, or give up with the offline fallback ------------------

    def _verdict(self, claim: Claim, exc: BaseException) -> Verdict:
        raw = ErrorRecord.from_exception(exc).render()
        return decide(classify(exc), claim.jobs, raw, max_attempts=self.max_attempts)

    def _extraction_failed(
        self, claim: Claim, request: batches.ExtractionRequest, exc: BaseException, claimed_at: float
    ) -> StepResult:
        verdict = self._verdict(claim, exc)
        if verdict is Verdict.SPLIT:
            return self._split(claim, claimed_at)
        if verdict is Verdict.RETRY:
            return self._fail(claim, exc, claimed_at)
        try:
            offline = validate_extraction(self.fallback.extract(request), request, self.lexicon)
        except Exception:
            return self._fail(claim, exc, claimed_at, terminal=True)
        raw = ErrorRecord.from_exception(exc).render()

        def commit(conn: sqlite3.Connection) -> ExtractionCommitted | LeaseLost:
            now = self.clock.now()
            done = commit_extraction_in_tx(
                conn, claim=claim, request=request, result=offline, now=now, final_status=JobStatus.FAILED
            )
            if not isinstance(done, LeaseLost):
                jobs.record_terminal_error_in_tx(conn, job_ids=claim.job_ids, error=raw, now=now)
            return done

        outcome = self._commit(commit, "store the offline fallback of a failed Memory job")
        if isinstance(outcome, LeaseLost):
            return self._lost(claim, claimed_at)
        return self._failed(claim, exc, claimed_at, candidates=len(outcome.candidate_ids), child=outcome)

    def _consolidation_failed(
        self, claim: Claim, request: batches.ConsolidationRequest, exc: BaseException, claimed_at: float
    ) -> StepResult:
        if self._verdict(claim, exc) is Verdict.RETRY:
            return self._fail(claim, exc, claimed_at)
        raw = ErrorRecord.from_exception(exc).render()
        try:
            plan = _plan(self.fallback.consolidate(request), request)

            def commit(conn: sqlite3.Connection) -> ConsolidationCommitted | LeaseLost:
                now = self.clock.now()
                done = apply_consolidation_in_tx(conn, claim=claim, plan=plan, now=now, final_status=JobStatus.FAILED)
                if not isinstance(done, LeaseLost):
                    jobs.record_terminal_error_in_tx(conn, job_ids=claim.job_ids, error=raw, now=now)
                return done

            outcome = self._commit(commit, "apply the offline fallback of a failed Memory job")
        except Exception:
            return self._fail(claim, exc, claimed_at, terminal=True)
        if isinstance(outcome, LeaseLost):
            return self._lost(claim, claimed_at)
        return dataclasses.replace(
            self._failed(claim, exc, claimed_at), operations=outcome.operations, memory_ids=outcome.memory_ids
        )

    def _failed(
        self,
        claim: Claim,
        exc: BaseException,
        claimed_at: float,
        *,
        candidates: int = 0,
        child: ExtractionCommitted | None = None,
    ) -> StepResult:
        return StepResult(
            kind=claim.kind,
            job_ids=claim.job_ids,
            outcome=Outcome.FAILED,
            claimed_at=claimed_at,
            candidates=candidates,
            filtered=child.filtered if child else 0,
            consolidation_job_id=child.consolidation_job_id if child else None,
            error=_concise(exc),
            raw_error=ErrorRecord.from_exception(exc).render(),
            fallback=True,
        )

    def _split(self, claim: Claim, claimed_at: float) -> StepResult:
        """Run the halves of a batch one after the other, each under its own batch id and fence."""
        half = len(claim.jobs) // 2

        def split(conn: sqlite3.Connection) -> tuple[Claim, ...] | LeaseLost:
            return jobs.split_claim_in_tx(conn, claim=claim, parts=(claim.jobs[:half], claim.jobs[half:]))

        parts = self._commit(split, "split a Memory batch")
        if isinstance(parts, LeaseLost):
            return self._lost(claim, claimed_at)
        results: list[StepResult] = []
        for part in parts:
            if isinstance(self.heartbeat(part), LeaseLost):  # the lease must still hold before each half
                results.append(self._lost(part, claimed_at))
                continue
            with self.db.write("load a Memory batch part") as conn:
                request = batches.load_extraction_request_in_tx(conn, claim=part)
            results.append(self._run_extraction(part, request, claimed_at))
        worst = max(results, key=lambda r: _SEVERITY[r.outcome])
        return StepResult(
            kind=claim.kind,
            job_ids=claim.job_ids,
            outcome=worst.outcome,
            claimed_at=claimed_at,
            candidates=sum(r.candidates for r in results),
            filtered=sum(r.filtered for r in results),
            error=worst.error,
            raw_error=worst.raw_error,
            fallback=any(r.fallback for r in results),
            parts=tuple(results),
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

    def _fail(self, claim: Claim, exc: BaseException, claimed_at: float, *, terminal: bool = False) -> StepResult:
        raw = ErrorRecord.from_exception(exc).render()

        def record_failure(conn: sqlite3.Connection) -> LeaseLost | None:
            now = self.clock.now()
            return jobs.fail_in_tx(conn, claim=claim, error=raw, now=now, backoff=self.backoff, terminal=terminal)

        if isinstance(self._commit(record_failure, "record the Memory job failure"), LeaseLost):
            return self._lost(claim, claimed_at)
        return StepResult(
            kind=claim.kind,
            job_ids=claim.job_ids,
            outcome=Outcome.FAILED if terminal else Outcome.RETRY,
            claimed_at=claimed_at,
            error=_concise(exc),
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
        """Renew the claim's lease every `heartbeat_seconds` while the extractor runs; a lost lease
        ends the renewals (the commit will be fenced), a busy database is retried at the next beat."""
        interval = self.heartbeat_seconds
        if interval is None or interval <= 0:
            yield
            return

        def renew() -> bool:
            return not isinstance(self.heartbeat(claim), LeaseLost)

        with Heartbeat(renew, interval=interval, name="memory-job-heartbeat", transient=(MemoryEngineError,)):
            yield
