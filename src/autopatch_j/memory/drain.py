"""Draining due jobs now (M-52): at exit, for `/new`'s old thread, and for `autopatch-j memory drain`.

A drain snapshots the ids of the jobs due at its start (optionally of one thread) and tries each
at most once; a consolidation child created by a successful snapshot extraction joins the
allow-list and may run in the same round. The allow-list and the thread condition are applied by
the claim SQL itself, before its `ORDER BY`/`LIMIT`, so concurrent unrelated jobs neither block
nor join the drain. The trigger (2 turns / 30 s) is ignored; retry times are not. A failure or a
timeout leaves the job in `retry_wait` (or, once it cannot succeed, `failed` with the offline rules
fallback applied), adds a warning to the report, and the caller carries on.
`retry_failed` (`memory drain --retry-failed`) first puts every `failed` job back to `pending`.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.jobs import Scope
from autopatch_j.memory.pipeline import Outcome, Pipeline, StepResult
from autopatch_j.memory.records import JobKind

EXIT_BUDGET_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class DrainReport:
    snapshot: frozenset[int]
    steps: tuple[StepResult, ...]
    warnings: tuple[str, ...]
    left: frozenset[int]  # snapshot jobs not tried (out of time, or storage trouble)
    revived: tuple[int, ...] = ()  # `failed` jobs put back to `pending` first (--retry-failed)

    def _ids(self, outcome: Outcome) -> list[int]:
        leaves = (leaf for step in self.steps for leaf in step.leaves())
        return sorted(j for leaf in leaves if leaf.outcome is outcome for j in leaf.job_ids)

    @property
    def jobs_run(self) -> int:
        return sum(len(step.job_ids) for step in self.steps)

    @property
    def candidates(self) -> int:
        return sum(step.candidates for step in self.steps)

    @property
    def operations(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for step in self.steps:
            total.update(step.operations)
        return dict(total)

    @property
    def errors(self) -> tuple[str, ...]:
        return tuple(step.error for step in self.steps if step.error)

    def to_dict(self) -> dict[str, object]:
        """The stable `--json` shape of `autopatch-j memory drain`."""
        return {
            "jobs_run": self.jobs_run,
            "extraction_batches": sum(1 for s in self.steps if s.kind is JobKind.EXTRACTION),
            "consolidations": sum(1 for s in self.steps if s.kind is JobKind.CONSOLIDATION),
            "candidates": self.candidates,
            "filtered": sum(step.filtered for step in self.steps),
            "operations": self.operations,
            "memory_ids": sorted({m for step in self.steps for m in step.memory_ids}),
            "retrying": self._ids(Outcome.RETRY),
            "lease_lost": self._ids(Outcome.LEASE_LOST),
            "failed": self._ids(Outcome.FAILED),
            "revived": sorted(self.revived),
            "left": sorted(self.left),
            "errors": list(self.errors),
            "warnings": list(self.warnings),
        }


def drain(
    pipeline: Pipeline,
    *,
    thread_id: int | None = None,
    budget_s: float | None = EXIT_BUDGET_SECONDS,
    monotonic: Callable[[], float] = time.monotonic,
) -> DrainReport:
    """Give every job due now one chance (plus the consolidation children they create)."""
    steps: list[StepResult] = []
    warnings: list[str] = []
    try:
        snapshot = pipeline.snapshot(thread_id=thread_id)
    except MemoryEngineError as exc:
        warnings.append(f"Memory: background jobs could not run now ({exc}); they are kept for later.")
        return DrainReport(snapshot=frozenset(), steps=(), warnings=tuple(warnings), left=frozenset())
    allowed = set(snapshot)
    tried: set[int] = set()
    deadline = None if budget_s is None else monotonic() + budget_s
    while allowed - tried:
        if deadline is not None and monotonic() >= deadline:
            warnings.append(f"Memory: {len(allowed - tried)} job(s) left for the next start (out of time).")
            break
        try:
            step = pipeline.step(force=True, scope=Scope(allow=frozenset(allowed - tried), thread_id=thread_id))
        except MemoryEngineError as exc:
            warnings.append(f"Memory: background jobs could not run now ({exc}); they are kept for later.")
            break
        if step is None:
            break
        steps.append(step)
        tried.update(step.job_ids)
        for leaf in step.leaves():
            warnings.extend(_warning(leaf))
            if leaf.consolidation_job_id is not None:
                allowed.add(leaf.consolidation_job_id)
    return DrainReport(
        snapshot=snapshot,
        steps=tuple(steps),
        warnings=tuple(warnings),
        left=frozenset(snapshot - tried),
    )


def _warning(step: StepResult) -> list[str]:
    ids = list(step.job_ids)
    if step.outcome is Outcome.RETRY:
        return [f"Memory: job(s) {ids} failed and will be retried: {step.error}"]
    if step.outcome is Outcome.LEASE_LOST:
        return [f"Memory: job(s) {ids} were taken over or cleared; result discarded."]
    if step.outcome is Outcome.FAILED:
        fallback = "; the offline rules extractor processed them instead" if step.fallback else ""
        return [
            f"Memory: job(s) {ids} failed for good ({step.error}){fallback}. "
            "`autopatch-j memory drain --retry-failed` tries them again."
        ]
    return []


def retry_failed(pipeline: Pipeline, *, budget_s: float | None = None) -> DrainReport:
    """`memory drain --retry-failed`: revive every `failed` job, then drain as usual."""
    revived = pipeline.retry_failed()
    return dataclasses.replace(drain(pipeline, budget_s=budget_s), revived=revived)


def drain_at_exit(pipeline: Pipeline, *, budget_s: float = EXIT_BUDGET_SECONDS) -> DrainReport:
    """M-52: the exit round; the caller prints the warnings and exits regardless."""
    return drain(pipeline, budget_s=budget_s)


def drain_thread(pipeline: Pipeline, *, thread_id: int, budget_s: float = EXIT_BUDGET_SECONDS) -> DrainReport:
    """`/new`: one processing chance for the old thread's pending jobs, before it is archived."""
    return drain(pipeline, thread_id=thread_id, budget_s=budget_s)
