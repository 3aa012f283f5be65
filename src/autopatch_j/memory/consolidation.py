"""Stage 2 (M-44 … M-46): validate every operation, then apply all of them in one transaction, or none.

Only `create`, `revise`, `supersede`, `retire` and `reject` exist. `plan_consolidation` checks the output
against the request (every candidate id belongs to the job and appears in exactly one operation,
targets are among the related active items — of the same kind, except that a preference or decision
may supersede a memory of another kind — one operation per target,
title/aliases/keywords/content within bounds); `apply_consolidation_in_tx` re-checks the same ids
against the database inside the fenced transaction (a candidate forgotten or an item superseded
while the model was thinking makes the whole batch illegal) and appends revisions:

* create    → a new memory (revision 1), its candidates linked and `applied`;
* revise    → the active revision becomes `revised`; a new revision keeps the memory id and all
              earlier provenance plus the new candidates;
* supersede → a new memory; the old one becomes `superseded` with `superseded_by` — only ever as an
              explicit operation, never by timestamp;
* retire    → the old memory becomes `superseded` with no `superseded_by` (the user dropped it and
              said nothing in its place); the retiring candidates are linked to it as its last
              evidence and become `applied`;
* reject    → the candidates become `rejected`.
Forgotten and superseded items can never be revised or superseded. Active revisions are indexed for
retrieval; revisions that stop being active leave the index.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import dataclass

from autopatch_j.memory.batches import ConsolidationRequest
from autopatch_j.memory.contracts import ConsolidationOutput, OperationOut
from autopatch_j.memory.errors import ConsolidationRejected
from autopatch_j.memory.index import drop_item_terms_in_tx, index_item_in_tx
from autopatch_j.memory.jobs import Claim, LeaseLost, fence_in_tx
from autopatch_j.memory.records import Item, ItemStatus, JobStatus, MemoryKind
from autopatch_j.memory.text import fold

MAX_TITLE_CHARS = 200
MAX_CONTENT_CHARS = 2_000
MAX_TERM_CHARS = 160
MAX_TERMS = 16

_CANDIDATE_STATES = (
    "SELECT id, status FROM memory_candidates WHERE consolidation_job_id = ? AND id IN (SELECT value FROM json_each(?))"
)
_ACTIVE_TARGETS = "SELECT * FROM memory_items WHERE status = 'active' AND memory_id IN (SELECT value FROM json_each(?))"
_ACTIVE_COPY = (
    "SELECT 1 FROM memory_items WHERE status = 'active' AND kind = ? AND content = ? AND thread_id IS ? LIMIT 1"
)
_INSERT_ITEM = (
    "INSERT INTO memory_items (memory_id, revision, kind, thread_id, title, content, aliases, keywords, "
    "non_factual, status, operation, job_id, created_at, updated_at, subject) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?) RETURNING id"
)
_CANDIDATE_SUBJECTS = "SELECT subject FROM memory_candidates WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id"
_ITEM_SUBJECT = "SELECT subject FROM memory_items WHERE id = ?"
_SET_OWN_MEMORY_ID = "UPDATE memory_items SET memory_id = id WHERE id = ?"
_RETIRE = "UPDATE memory_items SET status = ?, superseded_by = ?, updated_at = ? WHERE id = ? AND status = 'active'"
_LINK = "INSERT INTO memory_item_candidates (item_id, candidate_id) VALUES (?, ?) ON CONFLICT DO NOTHING"
_COPY_LINKS = (
    "INSERT INTO memory_item_candidates (item_id, candidate_id) SELECT ?, candidate_id "
    "FROM memory_item_candidates WHERE item_id = ? ON CONFLICT DO NOTHING"
)
_SET_CANDIDATES = "UPDATE memory_candidates SET status = ? WHERE id IN (SELECT value FROM json_each(?))"
_UNCREATED_MEMORY_ID = -1


@dataclass(frozen=True, slots=True)
class PlannedOp:
    op: str
    candidate_ids: tuple[int, ...]
    kind: MemoryKind
    target_memory_id: int | None = None
    title: str = ""
    aliases: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    content: str = ""
    subject: str = ""


@dataclass(frozen=True, slots=True)
class ConsolidationPlan:
    thread_id: int
    operations: tuple[PlannedOp, ...]


@dataclass(frozen=True, slots=True)
class ConsolidationCommitted:
    operations: dict[str, int]
    memory_ids: tuple[int, ...]


def plan_consolidation(
    output: ConsolidationOutput, request: ConsolidationRequest, *, retire: bool = True
) -> ConsolidationPlan:
    """Validate the output against the request; any illegal operation raises `ConsolidationRejected`
    (`retire` False: a store that keeps no retirements refuses that operation too)."""
    if not retire and any(op.op == "retire" for op in output.operations):
        raise ConsolidationRejected("this store does not retire memories; use supersede or reject")
    kinds = {candidate.id: candidate.kind for candidate in request.candidates}
    targets = {related.item.memory_id: related.item for related in request.related}
    used = Counter(cid for op in output.operations for cid in op.candidate_ids)
    if duplicated := sorted(cid for cid, n in used.items() if n > 1):
        raise ConsolidationRejected(f"candidates {duplicated} appear in more than one operation")
    if unknown := sorted(set(used) - set(kinds)):
        raise ConsolidationRejected(f"candidates {unknown} are not pending candidates of this job")
    if missing := sorted(set(kinds) - set(used)):
        raise ConsolidationRejected(f"candidates {missing} are not covered by any operation")
    target_use = Counter(op.target_memory_id for op in output.operations if op.target_memory_id is not None)
    if twice := sorted(memory_id for memory_id, n in target_use.items() if n > 1):
        raise ConsolidationRejected(f"memories {twice} are the target of more than one operation")
    planned = tuple(_plan_one(number, op, kinds, targets) for number, op in enumerate(output.operations))
    return ConsolidationPlan(thread_id=request.thread_id, operations=planned)


def _plan_one(number: int, op: OperationOut, kinds: dict[int, MemoryKind], targets: dict[int, Item]) -> PlannedOp:
    where = f"operation {number} ({op.op})"
    if not op.candidate_ids:
        raise ConsolidationRejected(f"{where}: names no candidate")
    op_kinds = {kinds[cid] for cid in op.candidate_ids}
    if len(op_kinds) != 1:
        raise ConsolidationRejected(f"{where}: mixes candidates of different kinds")
    kind = op_kinds.pop()
    if op.op == "reject":
        return PlannedOp(op="reject", candidate_ids=tuple(op.candidate_ids), kind=kind)
    if op.op == "retire":
        if op.target_memory_id is None or op.target_memory_id not in targets:
            raise ConsolidationRejected(f"{where}: target memory {op.target_memory_id} is not a related active item")
        return PlannedOp(
            op="retire", candidate_ids=tuple(op.candidate_ids), kind=kind, target_memory_id=op.target_memory_id
        )
    if op.op == "create":
        if op.target_memory_id is not None:
            raise ConsolidationRejected(f"{where}: create takes no target memory")
    else:
        target = targets.get(op.target_memory_id) if op.target_memory_id is not None else None
        if target is None:
            raise ConsolidationRejected(f"{where}: target memory {op.target_memory_id} is not a related active item")
        # A revision keeps its kind; a preference or decision may supersede a memory of another kind
        # on its subject (the comparison it settles, the same rule read as the other kind).
        if target.kind is not kind and (op.op == "revise" or kind is MemoryKind.DISCUSSION_CONTEXT):
            raise ConsolidationRejected(f"{where}: target memory {target.memory_id} is a {target.kind.value}")
    title, content = op.title.strip(), op.content.strip()
    if not 1 <= len(title) <= MAX_TITLE_CHARS:
        raise ConsolidationRejected(f"{where}: title must have 1..{MAX_TITLE_CHARS} chars")
    if not 1 <= len(content) <= MAX_CONTENT_CHARS:
        raise ConsolidationRejected(f"{where}: content must have 1..{MAX_CONTENT_CHARS} chars")
    aliases = _terms(where, "aliases", op.aliases)
    keywords = _terms(where, "keywords", op.keywords)
    return PlannedOp(
        op=op.op,
        candidate_ids=tuple(op.candidate_ids),
        kind=kind,
        target_memory_id=op.target_memory_id,
        title=title,
        aliases=aliases,
        keywords=keywords,
        content=content,
        subject=subject_key(op.subject),
    )


def _terms(where: str, name: str, values: list[str]) -> tuple[str, ...]:
    cleaned = tuple(dict.fromkeys(value.strip() for value in values))
    if not 1 <= len(cleaned) <= MAX_TERMS or any(not 1 <= len(v) <= MAX_TERM_CHARS for v in cleaned):
        raise ConsolidationRejected(f"{where}: {name} needs 1..{MAX_TERMS} entries of 1..{MAX_TERM_CHARS} chars")
    return cleaned


def apply_consolidation_in_tx(
    conn: sqlite3.Connection,
    *,
    claim: Claim,
    plan: ConsolidationPlan,
    now: float,
    final_status: JobStatus | None = None,
) -> ConsolidationCommitted | LeaseLost:
    """Fence, re-check ids and statuses against the database, then apply every operation
    (`final_status` `failed`: the offline fallback of a terminally failed job)."""
    status = final_status or (JobStatus.SUCCEEDED if plan.operations else JobStatus.SUCCEEDED_NO_OUTPUT)
    lost = fence_in_tx(conn, claim=claim, status=status, now=now)
    if lost is not None:
        return lost
    job_id = claim.jobs[0].id
    candidate_ids = [cid for op in plan.operations for cid in op.candidate_ids]
    states = dict(conn.execute(_CANDIDATE_STATES, (job_id, json.dumps(candidate_ids))).fetchall())
    if stale := sorted(cid for cid in candidate_ids if states.get(cid) != "pending"):
        raise ConsolidationRejected(f"candidates {stale} are no longer pending (forgotten or already applied)")
    wanted = [op.target_memory_id for op in plan.operations if op.target_memory_id is not None]
    active = {
        item.memory_id: item
        for item in (Item.from_row(r) for r in conn.execute(_ACTIVE_TARGETS, (json.dumps(wanted),)))
    }
    if inactive := sorted(set(wanted) - set(active)):
        raise ConsolidationRejected(f"memories {inactive} are no longer active (forgotten, revised or superseded)")
    counts: Counter[str] = Counter()
    touched: list[int] = []
    for op in plan.operations:
        # A create repeating an active memory word for word (a duplicate delivery of its extraction
        # job, or the user saying it again) is applied as a reject: no second copy.
        thread = plan.thread_id if op.kind is MemoryKind.DISCUSSION_CONTEXT else None
        duplicate = op.op == "create" and conn.execute(_ACTIVE_COPY, (op.kind.value, op.content, thread)).fetchone()
        counts["reject" if duplicate else op.op] += 1
        if op.op == "reject" or duplicate:
            conn.execute(_SET_CANDIDATES, ("rejected", json.dumps(list(op.candidate_ids))))
            continue
        if op.op == "retire":
            retired = active[op.target_memory_id]  # type: ignore[index]
            drop_item_terms_in_tx(conn, item_id=retired.id)
            conn.execute(_RETIRE, (ItemStatus.SUPERSEDED.value, None, now, retired.id))
            conn.executemany(_LINK, [(retired.id, cid) for cid in op.candidate_ids])  # what retired it
            conn.execute(_SET_CANDIDATES, ("applied", json.dumps(list(op.candidate_ids))))
            touched.append(retired.memory_id)
            continue
        target = active.get(op.target_memory_id) if op.target_memory_id is not None else None
        touched.append(_apply_item(conn, op=op, target=target, thread_id=plan.thread_id, job_id=job_id, now=now))
        conn.execute(_SET_CANDIDATES, ("applied", json.dumps(list(op.candidate_ids))))
    return ConsolidationCommitted(operations=dict(counts), memory_ids=tuple(touched))


def subject_key(raw: str) -> str:
    """A candidate's subject as stored: folded, `_`/`-` and runs of space as one space, ≤ 200 chars
    ("python_version" and "Python version" are one subject)."""
    return " ".join(fold(raw).replace("_", " ").replace("-", " ").split())[:200]


def _subject(conn: sqlite3.Connection, *, op: PlannedOp, target: Item | None) -> str:
    """What the new revision or memory is about: the operation's own subject, else its candidates'
    first subject; a revision or a supersede without one keeps the subject of the memory it replaces
    (it is about the same thing)."""
    if op.subject:
        return op.subject
    for (raw,) in conn.execute(_CANDIDATE_SUBJECTS, (json.dumps(list(op.candidate_ids)),)):
        key = subject_key(raw or "")
        if key and key != "discussion":  # the offline extractor's placeholder for a comparison
            return key
    if target is not None:
        row = conn.execute(_ITEM_SUBJECT, (target.id,)).fetchone()
        return str(row[0]) if row else ""
    return ""


def _apply_item(
    conn: sqlite3.Connection, *, op: PlannedOp, target: Item | None, thread_id: int, job_id: int, now: float
) -> int:
    """Append the revision or memory of one operation; returns its memory id."""
    revising = op.op == "revise" and target is not None
    memory_id = target.memory_id if revising and target else _UNCREATED_MEMORY_ID
    revision = target.revision + 1 if revising and target else 1
    if op.kind is MemoryKind.DISCUSSION_CONTEXT:
        item_thread: int | None = target.thread_id if revising and target else thread_id
    else:
        item_thread = None
    subject = _subject(conn, op=op, target=target)
    if target is not None:
        drop_item_terms_in_tx(conn, item_id=target.id)
    if revising and target is not None:  # before the insert: one active revision per memory id
        conn.execute(_RETIRE, (ItemStatus.REVISED.value, None, now, target.id))
    item_id: int = conn.execute(
        _INSERT_ITEM,
        (
            memory_id,
            revision,
            op.kind.value,
            item_thread,
            op.title,
            op.content,
            json.dumps(list(op.aliases), ensure_ascii=False),
            json.dumps(list(op.keywords), ensure_ascii=False),
            int(op.kind is MemoryKind.DISCUSSION_CONTEXT),
            op.op,
            job_id,
            now,
            now,
            subject,
        ),
    ).fetchone()[0]
    if memory_id == _UNCREATED_MEMORY_ID:
        conn.execute(_SET_OWN_MEMORY_ID, (item_id,))
        memory_id = item_id
    if target is not None and not revising:
        conn.execute(_RETIRE, (ItemStatus.SUPERSEDED.value, memory_id, now, target.id))
    if revising and target is not None:
        conn.execute(_COPY_LINKS, (item_id, target.id))
    conn.executemany(_LINK, [(item_id, cid) for cid in op.candidate_ids])
    index_item_in_tx(
        conn,
        item_id=item_id,
        title=op.title,
        aliases=op.aliases,
        keywords=op.keywords,
        content=op.content,
        subject=subject,
    )
    return memory_id
