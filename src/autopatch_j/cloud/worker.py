"""The worker (C-8, C-20, C-30 … C-32): claim with a lease, inject, execute, record, sweep.

One loop iteration runs claimed tasks until the queue is empty (or `tasks_per_loop` is reached),
then calls `process_auto_memories()`. `run_loop(once=True)` stops after the first iteration that
found the queue empty: the `--once` mode of the CLI.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.engine import Engine

from autopatch_j.cloud import audit, injection
from autopatch_j.cloud.auto_memory import SweepReport, process_auto_memories
from autopatch_j.cloud.clock import Clock, utc_now
from autopatch_j.cloud.db import read_tx, upsert, write_tx
from autopatch_j.cloud.errors import QuotaLookupError
from autopatch_j.cloud.executors import ExecutionRequest, ExecutionResult, Executor
from autopatch_j.cloud.model_memory import ModelMemory
from autopatch_j.cloud.queue import Claim, FinishOutcome, claim_next, finish
from autopatch_j.cloud.quotas import DbQuotas, QuotaLookup
from autopatch_j.cloud.records import TaskStatus
from autopatch_j.cloud.redaction import redact
from autopatch_j.cloud.tables import task_external_context

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RunResult:
    task_id: int
    status: TaskStatus
    outcome: FinishOutcome
    injected: bool


def default_worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Worker:
    def __init__(
        self,
        *,
        engine: Engine,
        executor: Executor,
        clock: Clock = utc_now,
        worker_id: str | None = None,
        lease_seconds: float = 300.0,
        quotas: QuotaLookup | None = None,
        memory_reader: injection.MemoryReader = injection.newest_memories,
        tasks_per_loop: int = 50,
        signature: Callable[[], str] | None = None,
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
        self.code_changed = False
        self.memory_model = memory_model  # C-40: model-written memories, None = deterministic only

    def run_one(self) -> RunResult | None:
        """Claim one task and run it to a recorded outcome; None when the queue is empty."""
        claim = claim_next(self.engine, worker_id=self.worker_id, now=self.clock(), lease_seconds=self.lease_seconds)
        if claim is None:
            return None
        refusal = self._quota_refusal(claim)
        if refusal is not None:
            return self._record(claim, ExecutionResult(ok=False, text=refusal), injected=False)
        inj = self._inject(claim)
        request = ExecutionRequest(
            task_id=claim.task.id,
            project_id=claim.task.project_id,
            round=claim.task.round,
            prompt=inj.prompt,
            goal=inj.goal,
        )
        try:
            result = self.executor.execute(request)
        except Exception as exc:  # an executor bug must not leave the task running forever
            log.exception("executor %s crashed on task %s", self.executor.name, claim.task.id)
            result = ExecutionResult(ok=False, text=f"executor crashed: {exc.__class__.__name__}")
        return self._record(claim, result, injected=inj.injected)

    def _quota_refusal(self, claim: Claim) -> str | None:
        try:
            with read_tx(self.engine) as conn:
                status = self.quotas.status(conn, user_id=claim.task.user_id, now=self.clock())
        except QuotaLookupError:
            return "quota_check_failed: the monthly quota could not be read, so the task was not run"
        if status.exhausted:
            return f"quota_exhausted: spent ${status.spent_usd:.2f} of the ${status.limit_usd:.2f} monthly limit"
        return None

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

    def _record(self, claim: Claim, result: ExecutionResult, *, injected: bool) -> RunResult:
        now = self.clock()
        status = TaskStatus.COMPLETED if result.ok else TaskStatus.FAILED
        with write_tx(self.engine) as conn:
            outcome = finish(
                conn,
                claim=claim,
                status=status,
                result_text=redact(result.text),
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

    def sweep(self) -> SweepReport:
        return process_auto_memories(self.engine, clock=self.clock, quotas=self.quotas, model=self.memory_model)

    def run_loop(
        self,
        *,
        once: bool = False,
        stop: threading.Event | None = None,
        poll_seconds: float = 1.0,
        on_loop: Callable[[int, SweepReport], None] | None = None,
    ) -> int:
        """Run until `stop` is set (or, with `once`, until the queue is empty, or until the worker code
        changed on disk); returns the number of tasks run."""
        stop = stop or threading.Event()
        total = 0
        while not stop.is_set() and not self._code_changed():
            ran = 0
            while ran < self.tasks_per_loop and not stop.is_set():
                if self.run_one() is None:
                    break
                ran += 1
                if self._code_changed():
                    break
            total += ran
            if self.code_changed:
                break
            report = self.sweep()
            if on_loop is not None:
                on_loop(ran, report)
            if once and ran < self.tasks_per_loop:
                break
            if ran == 0:
                stop.wait(poll_seconds)
        return total
