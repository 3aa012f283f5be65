"""Stage 1 commit (M-41 … M-43): the fenced write of one validated extraction batch.

In one transaction: the batch's jobs are finished through the fence (or `LeaseLost` is returned and
the caller rolls back), the thread's rolling compaction is replaced, and — only when candidates
exist — the candidates with their exact quotes and one serialized consolidation job are created.
No candidates → the jobs end `succeeded_no_output`; their turns are never processed again.
The offline fallback of a terminally failed batch commits the same way with `final_status`
`failed`: its candidates are kept, the jobs stay visibly failed.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from autopatch_j.memory.batches import ExtractionRequest
from autopatch_j.memory.jobs import Claim, LeaseLost, enqueue_consolidation_in_tx, fence_in_tx
from autopatch_j.memory.records import JobStatus
from autopatch_j.memory.validation import ValidatedExtraction

_UPDATE_COMPACTION = (
    "UPDATE threads SET compaction = ?, compacted_through_seq = max(compacted_through_seq, ?) WHERE id = ?"
)
_INSERT_CANDIDATE = (
    "INSERT INTO memory_candidates (thread_id, extraction_job_id, consolidation_job_id, kind, content, subject, "
    "non_factual, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?) RETURNING id"
)
_INSERT_SOURCE = "INSERT INTO candidate_sources (candidate_id, ordinal, turn_id, role, quote) VALUES (?, ?, ?, ?, ?)"


@dataclass(frozen=True, slots=True)
class ExtractionCommitted:
    status: JobStatus
    candidate_ids: tuple[int, ...]
    consolidation_job_id: int | None
    filtered: int


def commit_extraction_in_tx(
    conn: sqlite3.Connection,
    *,
    claim: Claim,
    request: ExtractionRequest,
    result: ValidatedExtraction,
    now: float,
    final_status: JobStatus | None = None,
) -> ExtractionCommitted | LeaseLost:
    status = JobStatus.SUCCEEDED if result.candidates else JobStatus.SUCCEEDED_NO_OUTPUT
    status = final_status or status
    lost = fence_in_tx(conn, claim=claim, status=status, now=now)
    if lost is not None:
        return lost
    through = max((turn.seq for turn in request.turns), default=0)
    conn.execute(_UPDATE_COMPACTION, (result.compaction, through, request.thread_id))
    if not result.candidates:
        return ExtractionCommitted(status, (), None, len(result.filtered))
    child = enqueue_consolidation_in_tx(
        conn, thread_id=request.thread_id, parent_job_id=claim.jobs[0].id, generation=claim.generation, now=now
    )
    ids: list[int] = []
    for draft in result.candidates:
        row = conn.execute(
            _INSERT_CANDIDATE,
            (
                request.thread_id,
                draft.extraction_job_id,
                child,
                draft.kind.value,
                draft.content,
                draft.subject,
                int(draft.non_factual),
                now,
            ),
        ).fetchone()
        ids.append(row[0])
        conn.executemany(
            _INSERT_SOURCE,
            [(row[0], n, src.turn_id, src.role.value, src.quote) for n, src in enumerate(draft.sources)],
        )
    return ExtractionCommitted(status, tuple(ids), child, len(result.filtered))
