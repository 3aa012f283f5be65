"""The worker (C-8, C-20, C-30 … C-32): claim with a lease, inject, execute, record, sweep.

One loop iteration runs claimed tasks until the queue is empty (or `tasks_per_loop` is reached),
then calls `process_auto_memories()`. `run_loop(once=True)` stops after the first iteration that
found the queue empty: the `--once` mode of the CLI.

While an executor runs, a heartbeat thread renews the task's lease every third of the lease; when
the lease is lost (another worker reclaimed the task) or the worker is stopping, it cancels the run.
A storage error in the loop (database restarted, connection dropped) is logged and retried with a
backoff instead of ending the worker. Once a task is claimed, a storage error before its run (the
quota check) or after it (recording the result) is retried until the database is back, so a
database restart neither fails a claimed task nor leaves it to a lease expiry.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from autopatch_j.cloud import audit, injection
from autopatch_j.cloud.auto_memory import SweepReport, process_auto_memories
from autopatch_j.cloud.db import read_tx, upsert, write_tx
from autopatch_j.cloud.errors import QuotaLookupError, StorageError
from autopatch_j.cloud.executors import ExecutionRequest, ExecutionResult, Executor
from autopatch_j.cloud.model_memory import ModelMemory
from autopatch_j.cloud.queue import (
    DEFAULT_MAX_ATTEMPTS,
    Claim,
    FinishOutcome,
    claim_next,
    extend_lease,
    finish,
    refuse_round,
    release,
)
from autopatch_j.cloud.quotas import DbQuotas, QuotaLookup, QuotaStatus
from autopatch_j.cloud.records import TaskStatus
from autopatch_j.cloud.redaction import redact
from autopatch_j.cloud.tables import task_external_context, task_private_injections
from autopatch_j.runtime import Backoff, Heartbeat, UtcClock, utc_now

log = logging.getLogger(__name__)

MAX_BACKOFF_SECONDS = 10.0
_STORAGE_ERRORS = (StorageError, SQLAlchemyError)
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class RunResult:
    task_id: int
    status: TaskStatus
    outcome: FinishOutcome
    injected: bool
    released: bool = False  # the worker stopped mid-run and gave the task back to the queue


def default_worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Worker:
    def __init__(
        self,
        *,
        engine: Engine,
        executor: Executor,
        clock: UtcClock = utc_now,
        worker_id: str | None = None,
        lease_seconds: float = 300.0,
        quotas: QuotaLookup | None = None,
        memory_reader: injection.MemoryReader = injection.newest_memories,
        tasks_per_loop: int = 50,
        signature: Callable[[], str] | None = None,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        sweep_batch: int = 200,
        sweep_pass_seconds: float = 30.0,
        memory_model: ModelMemory | None = None,
    ) -> None:
        self.engine = engine
        self.executor = executor
        self.clock = clock
        self.worker_id = worker_id or default_worker_id()
        self.lease_seconds = lease_seconds
        self.quotas = quotas or DbQuotas()
        self.memory_reader = memory_reader
        self.tasks_per_loop = tasks_per_loop
        self.signature = signature
        self.started_signature = signature() if signature is not None else None
        self.max_attempts = max_attempts
        self.sweep_batch = sweep_batch
        self.sweep_pass_seconds = sweep_pass_seconds
        self._sweep_after = 0  # the watermark: the next sweep batch reads task ids above it
        self._next_pass_at = 0.0  # monotonic time before which an idle worker starts no new pass
        self.code_changed = False
        self.memory_model = memory_model  # C-40: model-written memories, None = deterministic only

    def run_one(self, stop: threading.Event | None = None) -> RunResult | None:
        """Claim one task and run it to a recorded outcome; None when the queue is empty."""
        stop = stop or threading.Event()
        claim = claim_next(
            self.engine,
            worker_id=self.worker_id,
            now=self.clock(),
            lease_seconds=self.lease_seconds,
            max_attempts=self.max_attempts,
        )
        if claim is None:
            return None
        refusal, waited = self._quota_refusal(claim, stop)
        if waited and not self._lease_kept(claim, stop):
            log.warning("task %s was reclaimed while the database was unreachable; not running it", claim.task.id)
            return RunResult(
                task_id=claim.task.id, status=TaskStatus.RUNNING, outcome=FinishOutcome.LEASE_LOST, injected=False
            )
        if refusal is not None and claim.payer_id != claim.task.user_id:
            return self._refuse_round(claim, refusal)
        if refusal is not None:
            return self._record(claim, ExecutionResult(ok=False, text=refusal), stop=stop)
        inj = self._inject(claim)
        request = ExecutionRequest(
            task_id=claim.task.id,
            project_id=claim.task.project_id,
            round=claim.task.round,
            prompt=inj.prompt,
            goal=inj.goal,
        )
        with LeaseHeartbeat(self, claim, cancel=request.cancel, stop=stop) as heartbeat:
            try:
                result = self.executor.execute(request)
            except Exception as exc:  # an executor bug must not leave the task running forever
                log.exception("executor %s crashed on task %s", self.executor.name, claim.task.id)
                result = ExecutionResult(ok=False, text=f"executor crashed: {exc.__class__.__name__}")
        if heartbeat.stopping and not result.ok:
            outcome = release(self.engine, claim=claim, now=self.clock())
            log.info("worker stopping: task %s given back to the queue (%s)", claim.task.id, outcome.value)
            return RunResult(
                task_id=claim.task.id, status=TaskStatus.QUEUED, outcome=outcome, injected=inj.injected, released=True
            )
        return self._record(claim, result, inj=inj, stop=stop)

    def _quota_refusal(self, claim: Claim, stop: threading.Event) -> tuple[str | None, bool]:
        """Why the round's payer cannot pay, in words only: the figures are the payer's own
        (`GET /users/me/quota`), and this text is stored where the whole project reads it. Also
        whether the lookup had to wait for the database.

        A lookup that fails fails closed (`quota_check_failed`). One that could not reach the database
        (a restart, a dropped connection: a storage error, `QuotaUnreachable` included) says nothing
        about the quota: it is retried until the database answers, so an outage neither fails the
        claimed task for good nor lets it run unchecked."""

        def lookup() -> QuotaStatus:
            with read_tx(self.engine) as conn:
                return self.quotas.status(conn, user_id=claim.payer_id, now=self.clock())

        try:
            status, failures = self._retrying(lookup, stop=stop, what=f"check the quota for task {claim.task.id}")
        except QuotaLookupError as exc:
            if isinstance(exc, StorageError):  # the worker is stopping: not a verdict on the quota
                raise
            return "quota_check_failed: the payer's monthly quota could not be read, so the round was not run", False
        if status.exhausted:
            return "quota_exhausted: the payer's monthly quota is exhausted, so the round was not run", failures > 0
        return None, failures > 0

    def _lease_kept(self, claim: Claim, stop: threading.Event) -> bool:
        """After waiting for the database: renew the claim's lease (it may have expired meanwhile) and
        say whether the task is still ours; another worker may have reclaimed it since."""
        outcome, _ = self._retrying(
            lambda: extend_lease(self.engine, claim=claim, now=self.clock(), lease_seconds=self.lease_seconds),
            stop=stop,
            what=f"renew the lease of task {claim.task.id}",
        )
        return outcome is not FinishOutcome.LEASE_LOST

    def _retrying(self, action: Callable[[], _T], *, stop: threading.Event | None, what: str) -> tuple[_T, int]:
        """`action()` and the number of storage errors it took: each is logged and `action` retried
        after a backoff (0.25 s, doubling up to `MAX_BACKOFF_SECONDS`); once `stop` is set the error
        is raised instead."""
        backoff = Backoff.doubling(0.25, cap=MAX_BACKOFF_SECONDS)
        failed = 0
        while True:
            try:
                return action(), failed
            except _STORAGE_ERRORS as exc:
                if stop is not None and stop.is_set():
                    raise
                failed += 1
                wait = backoff.delay(failed)
                log.warning("could not %s, retrying in %.1f s: %s", what, wait, exc)
                (stop or threading.Event()).wait(wait)

    def _refuse_round(self, claim: Claim, refusal: str) -> RunResult:
        """A later round paid by another user is refused without touching the owner's task: the
        round records the refusal and the task returns to its last completed round."""
        with write_tx(self.engine) as conn:
            outcome = refuse_round(conn, claim=claim, reason=refusal, now=self.clock())
        return RunResult(task_id=claim.task.id, status=TaskStatus.COMPLETED, outcome=outcome, injected=False)

    def _inject(self, claim: Claim) -> injection.Injection:
        """Build the in-memory prompt/goal; any failure is logged and the task runs without memories."""
        task = claim.task
        try:
            with read_tx(self.engine) as conn:
                inj = injection.plan(conn, claim=claim, reader=self.memory_reader)
        except Exception as exc:
            log.warning("memory injection failed for task %s; running without memories: %s", task.id, exc)
            self._audit("worker_memory_injection_failed", claim, error=exc.__class__.__name__)
            return injection.Injection(prompt=claim.round_prompt, goal=task.goal)
        if inj.injected:
            self._audit("worker_memory_injected", claim, memory_ids=list(inj.memory_ids))
        return inj

    def _audit(self, kind: str, claim: Claim, **detail: object) -> None:
        try:
            with write_tx(self.engine) as conn:
                audit.record(
                    conn,
                    kind=kind,
                    at=self.clock(),
                    user_id=claim.task.user_id,
                    project_id=claim.task.project_id,
                    task_id=claim.task.id,
                    **detail,
                )
        except Exception:  # auditing a fail-open path must not fail the task
            log.warning("could not record audit event %s for task %s", kind, claim.task.id)

    def _record(
        self,
        claim: Claim,
        result: ExecutionResult,
        *,
        inj: injection.Injection | None = None,
        stop: threading.Event | None = None,
    ) -> RunResult:
        """Store the outcome; a storage error is retried with a backoff (the result is not thrown away).

        Pure work first, before any write transaction opens: the injected memories are
        withheld from what is stored, then the text is redacted."""
        result_text = redact(result.text if inj is None else injection.withhold(result.text, inj))
        injected = inj is not None and inj.injected
        private_ids = () if inj is None else inj.private_ids
        recorded, _ = self._retrying(
            lambda: self._record_once(claim, result, result_text, injected=injected, private_ids=private_ids),
            stop=stop,
            what=f"record task {claim.task.id}",
        )
        return recorded

    def _record_once(
        self,
        claim: Claim,
        result: ExecutionResult,
        result_text: str,
        *,
        injected: bool,
        private_ids: tuple[int, ...] = (),
    ) -> RunResult:
        now = self.clock()
        status = TaskStatus.COMPLETED if result.ok else TaskStatus.FAILED
        with write_tx(self.engine) as conn:
            outcome = finish(
                conn,
                claim=claim,
                status=status,
                result_text=result_text,
                cost_usd=result.cost_usd,
                now=now,
            )
            if outcome is FinishOutcome.RECORDED:
                for kind in sorted(result.external_context):
                    upsert(
                        conn,
                        task_external_context,
                        {"task_id": claim.task.id, "kind": kind, "round": claim.task.round, "created_at": now},
                        key=["task_id", "kind"],
                    )
                for memory_id in private_ids:  # the result received private memories: mark it
                    row = {"task_id": claim.task.id, "memory_id": memory_id, "round": claim.task.round}
                    upsert(conn, task_private_injections, {**row, "created_at": now}, key=["task_id", "memory_id"])
            audit.record(
                conn,
                kind="task_finished" if outcome is FinishOutcome.RECORDED else "task_lease_lost",
                at=now,
                user_id=claim.task.user_id,
                project_id=claim.task.project_id,
                task_id=claim.task.id,
                status=status.value,
                cost_usd=result.cost_usd,
                executor=self.executor.name,
            )
        return RunResult(task_id=claim.task.id, status=status, outcome=outcome, injected=injected)

    def _code_changed(self) -> bool:
        """C-44: True (and remembered) once the deployed worker code differs from what we started with."""
        if self.signature is None or self.code_changed:
            return self.code_changed
        if self.signature() != self.started_signature:
            log.warning("worker code changed on disk; finishing and exiting so the supervisor restarts us")
            self.code_changed = True
        return self.code_changed

    def sweep(self, *, new_work: bool = True) -> SweepReport:
        """One bounded batch of the auto-memory sweep (C-20), continuing a pass over the task ids.

        A pass reads at most `sweep_batch` candidates per call, above a watermark, of users (or tasks)
        with generation on. When a pass is complete the watermark goes back to 0; an idle worker
        (`new_work` false) then starts the next pass only after `sweep_pass_seconds`, so 1-second
        idle polls do not rescan the table.
        """
        if self._sweep_after == 0 and not new_work and time.monotonic() < self._next_pass_at:
            return SweepReport()
        report = process_auto_memories(
            self.engine,
            clock=self.clock,
            quotas=self.quotas,
            only_generating=True,
            after_task_id=self._sweep_after,
            limit=self.sweep_batch,
            model=self.memory_model,
        )
        if report.complete or report.last_task_id is None:
            self._sweep_after = 0
            self._next_pass_at = time.monotonic() + self.sweep_pass_seconds
        else:
            self._sweep_after = report.last_task_id
        return report

    def run_loop(
        self,
        *,
        once: bool = False,
        stop: threading.Event | None = None,
        poll_seconds: float = 1.0,
        on_loop: Callable[[int, SweepReport], None] | None = None,
    ) -> int:
        """Run until `stop` is set (or, with `once`, until the queue is empty, or until the worker code
        changed on disk); returns the number of tasks run. Storage errors back off and retry."""
        stop = stop or threading.Event()
        total = 0
        backoff = Backoff.doubling(poll_seconds, cap=MAX_BACKOFF_SECONDS)
        failed = 0  # storage errors in a row
        while not stop.is_set() and not self._code_changed():
            ran = 0
            try:
                while ran < self.tasks_per_loop and not stop.is_set():
                    done = self.run_one(stop)
                    if done is None:
                        break
                    if not done.released:
                        ran += 1
                    if self._code_changed():
                        break
                report = self.sweep(new_work=ran > 0)
            except _STORAGE_ERRORS as exc:
                total += ran
                failed += 1
                wait = backoff.delay(failed)
                log.warning("storage error in the worker loop; retrying in %.1f s: %s", wait, exc)
                stop.wait(wait)
                continue
            failed = 0
            total += ran
            if self.code_changed:
                break
            if on_loop is not None:
                on_loop(ran, report)
            if once and ran < self.tasks_per_loop:
                break
            if ran == 0:
                stop.wait(poll_seconds)
        return total


class LeaseHeartbeat:
    """Renew a claim's lease every third of the lease while the executor runs (a `Heartbeat`).

    It sets `cancel` when the lease is lost (`lost`) or when `stop` is set (`stopping`, noticed within
    0.1 s); a storage error while renewing is logged and retried at the next beat (the lease may
    still be ours).
    """

    def __init__(self, worker: Worker, claim: Claim, *, cancel: threading.Event, stop: threading.Event) -> None:
        self.worker = worker
        self.claim = claim
        self.cancel = cancel
        self._beat = Heartbeat(
            self._renew,
            interval=worker.lease_seconds / 3,
            name=f"lease-{claim.task.id}",
            transient=_STORAGE_ERRORS,
            on_error=self._renew_failed,
            on_lost=self._lost,
            halt_when=stop.is_set,
            on_halt=cancel.set,
            wake=0.1,
            join_timeout=None,
        )

    @property
    def lost(self) -> bool:
        return self._beat.lost

    @property
    def stopping(self) -> bool:
        return self._beat.halted

    def __enter__(self) -> LeaseHeartbeat:
        self._beat.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._beat.stop()

    def _renew(self) -> bool:
        outcome = extend_lease(
            self.worker.engine, claim=self.claim, now=self.worker.clock(), lease_seconds=self.worker.lease_seconds
        )
        return outcome is not FinishOutcome.LEASE_LOST

    def _renew_failed(self, exc: Exception) -> None:
        log.warning("could not renew the lease of task %s: %s", self.claim.task.id, exc)

    def _lost(self) -> None:
        log.warning("lost the lease of task %s; stopping its executor", self.claim.task.id)
        self.cancel.set()
