"""Durable Memory jobs (M-21, M-40, M-47 … M-52): creation, claims, leases, fencing, retry, recovery.

Every function here runs inside the caller's short `BEGIN IMMEDIATE` transaction (`…_in_tx`).
A claim leases jobs to one owner for `LEASE_SECONDS` under the current generation and a fresh
batch id; the model is called outside any transaction; the result is committed only through
`fence_in_tx`, whose guarded `UPDATE … WHERE batch_id AND owner AND generation AND status='leased'`
(and the generation still being meta's) either changes every job of the batch or reports
`LeaseLost` — the caller then rolls back, so nothing partial is ever written.

Eligible ("due") jobs: `pending` or `retry_wait` whose `next_attempt_at` has come, and `leased`
jobs whose lease expired. `failed` is terminal: such a job is never due again until
`retry_failed_in_tx` (`memory drain --retry-failed`) puts it back to `pending`. A claim can be split
into smaller claims (`split_claim_in_tx`), each under a fresh batch id, so a batch the provider
rejects as too large is retried in parts. The snapshot allow-list and the thread condition of the exit drain are
applied in the same `WHERE`, before `ORDER BY`/`LIMIT` (M-52).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from autopatch_j.memory.guard import require_operational
from autopatch_j.memory.owners import provably_gone
from autopatch_j.memory.records import Job, JobKind, JobStatus
from autopatch_j.runtime import MAX_ERROR_CHARS, Backoff

LEASE_SECONDS = 120.0
BATCH_SIZE = 4
TRIGGER_PENDING = 2
TRIGGER_AGE_SECONDS = 30.0

_ENQUEUE_EXTRACTION = (
    "INSERT INTO memory_jobs (kind, thread_id, turn_id, status, generation, next_attempt_at, created_at, updated_at) "
    "SELECT 'extraction', ?, ?, 'pending', generation, ?, ?, ? FROM memory_meta WHERE id = 1 "
    "ON CONFLICT (turn_id) DO NOTHING"
)
_ENQUEUE_CONSOLIDATION = (
    "INSERT INTO memory_jobs (kind, thread_id, parent_job_id, status, generation, next_attempt_at, "
    "created_at, updated_at) VALUES ('consolidation', :thread, :parent, 'pending', :gen, :now, :now, :now) "
    "RETURNING id"
)

# The shared WHERE fragments (no values: every value is a named parameter).
_DUE = (
    "((j.status IN ('pending', 'retry_wait') AND j.next_attempt_at <= :now) "
    "OR (j.status = 'leased' AND j.lease_expires_at <= :now))"
)
_SCOPE = (
    "(:allow IS NULL OR j.id IN (SELECT value FROM json_each(:allow))) AND (:thread IS NULL OR j.thread_id = :thread)"
)
_THREAD_FREE = (
    "NOT EXISTS (SELECT 1 FROM memory_jobs l WHERE l.kind = 'extraction' AND l.thread_id = j.thread_id "
    "AND l.status = 'leased' AND l.lease_expires_at > :now)"
)
_EXTRACTION_TRIGGER = (
    "SELECT count(*) AS due, min(j.created_at) AS oldest, "
    "coalesce(max(j.attempts > 0 OR j.status <> 'pending' OR j.created_at >= :since), 0) AS urgent "
    f"FROM memory_jobs j WHERE j.kind = 'extraction' AND {_DUE} AND {_SCOPE}"
)
_PICK_EXTRACTION_THREAD = (
    f"SELECT j.thread_id FROM memory_jobs j WHERE j.kind = 'extraction' AND {_DUE} AND {_SCOPE} "
    f"AND {_THREAD_FREE} ORDER BY j.created_at, j.id LIMIT 1"
)
_CLAIM_EXTRACTION_BATCH = (
    "UPDATE memory_jobs SET status = 'leased', owner = :owner, lease_expires_at = :expires, "
    "generation = :gen, batch_id = :batch, updated_at = :now WHERE id IN ("
    f"SELECT j.id FROM memory_jobs j JOIN turns t ON t.id = j.turn_id WHERE j.kind = 'extraction' "
    f"AND j.thread_id = :picked AND {_DUE} AND {_SCOPE} ORDER BY t.seq, j.id LIMIT :limit) RETURNING *"
)
_CLAIM_CONSOLIDATION = (
    "UPDATE memory_jobs SET status = 'leased', owner = :owner, lease_expires_at = :expires, "
    "generation = :gen, batch_id = :batch, updated_at = :now WHERE id = ("
    f"SELECT j.id FROM memory_jobs j WHERE j.kind = 'consolidation' AND {_DUE} AND {_SCOPE} "
    "AND NOT EXISTS (SELECT 1 FROM memory_jobs l WHERE l.kind = 'consolidation' AND l.status = 'leased' "
    "AND l.id <> j.id) ORDER BY j.id LIMIT 1) RETURNING *"
)
_SNAPSHOT = f"SELECT j.id FROM memory_jobs j WHERE {_DUE} AND {_SCOPE} ORDER BY j.id"
_FENCED = (
    "AND batch_id = :batch AND owner = :owner AND generation = :gen AND status = 'leased' "
    "AND generation = (SELECT generation FROM memory_meta WHERE id = 1)"
)
_HEARTBEAT = f"UPDATE memory_jobs SET lease_expires_at = :expires WHERE 1 = 1 {_FENCED}"
_FINISH = (
    f"UPDATE memory_jobs SET status = :status, owner = NULL, lease_expires_at = NULL, updated_at = :now "
    f"WHERE 1 = 1 {_FENCED}"
)
_FAIL = (
    "UPDATE memory_jobs SET status = 'retry_wait', owner = NULL, lease_expires_at = NULL, "
    "attempts = attempts + 1, last_error = :error, next_attempt_at = :next, updated_at = :now "
    f"WHERE id = :id {_FENCED}"
)
_FAIL_TERMINAL = (
    "UPDATE memory_jobs SET status = 'failed', owner = NULL, lease_expires_at = NULL, "
    "attempts = attempts + 1, last_error = :error, updated_at = :now "
    f"WHERE id = :id {_FENCED}"
)
_RECORD_ERROR = (
    "UPDATE memory_jobs SET attempts = attempts + 1, last_error = :error, updated_at = :now "
    "WHERE id IN (SELECT value FROM json_each(:ids)) AND status = 'failed'"
)
_REBATCH = f"UPDATE memory_jobs SET batch_id = :new WHERE id IN (SELECT value FROM json_each(:ids)) {_FENCED}"
_RETRY_FAILED = (
    "UPDATE memory_jobs SET status = 'pending', attempts = 0, next_attempt_at = :now, updated_at = :now "
    "WHERE status = 'failed' AND (:thread IS NULL OR thread_id = :thread) RETURNING id"
)
_RECLAIM_EXPIRED = (
    "UPDATE memory_jobs SET status = 'pending', owner = NULL, lease_expires_at = NULL, next_attempt_at = :now, "
    "updated_at = :now WHERE status = 'leased' AND lease_expires_at <= :now RETURNING id"
)
_RELEASE_OWNER = (
    "UPDATE memory_jobs SET status = 'pending', owner = NULL, lease_expires_at = NULL, next_attempt_at = :now, "
    "updated_at = :now WHERE status = 'leased' AND owner = :owner RETURNING id"
)
_LIVE_HOLDERS = "SELECT DISTINCT owner FROM memory_jobs WHERE status = 'leased' AND lease_expires_at > :now"
_WAKE_DUE = (
    "UPDATE memory_jobs SET status = 'pending', updated_at = :now "
    "WHERE status = 'retry_wait' AND next_attempt_at <= :now RETURNING id"
)
# M-49: the newest unresolved job with an error; NULLs when there is none.
_RECOMPUTE_LAST_ERROR = (
    "UPDATE memory_meta SET (last_error, last_error_job_id) = ("
    "SELECT last_error, id FROM memory_jobs WHERE status IN ('pending', 'leased', 'retry_wait') "
    "AND last_error IS NOT NULL ORDER BY updated_at DESC, id DESC LIMIT 1), updated_at = :now WHERE id = 1"
)
_MARK_SUCCEEDED = "UPDATE memory_meta SET last_succeeded_at = :now WHERE id = 1"


@dataclass(frozen=True, slots=True)
class Claim:
    """Jobs leased together to one owner under one generation (an extraction batch, or one consolidation)."""

    kind: JobKind
    batch_id: str
    owner: str
    generation: int
    thread_id: int
    jobs: tuple[Job, ...]

    @property
    def job_ids(self) -> tuple[int, ...]:
        return tuple(job.id for job in self.jobs)

    def _fence(self, **extra: object) -> dict[str, object]:
        return {"batch": self.batch_id, "owner": self.owner, "gen": self.generation, **extra}


@dataclass(frozen=True, slots=True)
class LeaseLost:
    """The claim no longer holds: the lease was taken over, or `clear` started a new generation."""

    job_ids: tuple[int, ...]
    reason: str = "the job lease was lost (taken over after expiry, or Memory was cleared)"


@dataclass(frozen=True, slots=True)
class Renewed:
    job_ids: tuple[int, ...]
    expires_at: float


@dataclass(frozen=True, slots=True)
class Scope:
    """Which due jobs a claim may take: an allow-list of ids (exit drain), one thread, or all."""

    allow: frozenset[int] | None = None
    thread_id: int | None = None

    def params(self) -> dict[str, object]:
        allow = None if self.allow is None else json.dumps(sorted(self.allow))
        return {"allow": allow, "thread": self.thread_id}


@dataclass(frozen=True, slots=True)
class Recovery:
    reclaimed: tuple[int, ...]
    woken: tuple[int, ...]
    taken_over: tuple[int, ...] = ()  # leases of holders that are provably gone, reclaimed before expiry
    gone_owners: tuple[str, ...] = ()

    def after(self, earlier: Recovery | None) -> Recovery:
        """This recovery together with an `earlier` one of the same process (the start-up recovery)."""
        if earlier is None:
            return self
        return Recovery(
            reclaimed=tuple(sorted({*earlier.reclaimed, *self.reclaimed})),
            woken=tuple(sorted({*earlier.woken, *self.woken})),
            taken_over=tuple(sorted({*earlier.taken_over, *self.taken_over})),
            gone_owners=tuple(sorted({*earlier.gone_owners, *self.gone_owners})),
        )


def new_batch_id() -> str:
    """A fresh random batch id (128 bits, hex; `os.urandom` rather than `uuid`, which a start does not load)."""
    return os.urandom(16).hex()


def _ids_json(ids: Iterable[int]) -> str:
    return json.dumps(sorted(ids))


def enqueue_extraction_in_tx(conn: sqlite3.Connection, *, thread_id: int, turn_id: int, now: float) -> None:
    """Create the turn's extraction job idempotently, in the caller's transaction (M-21)."""
    conn.execute(_ENQUEUE_EXTRACTION, (thread_id, turn_id, now, now, now))


def enqueue_consolidation_in_tx(
    conn: sqlite3.Connection, *, thread_id: int, parent_job_id: int, generation: int, now: float
) -> int:
    row = conn.execute(
        _ENQUEUE_CONSOLIDATION, {"thread": thread_id, "parent": parent_job_id, "gen": generation, "now": now}
    ).fetchone()
    job_id: int = row[0]
    return job_id


def extraction_triggered_in_tx(
    conn: sqlite3.Connection, *, now: float, scope: Scope = Scope(), since: float | None = None
) -> bool:
    """M-40: ≥ 2 due turns, or the oldest waited ≥ 30 s, or a retry/recovery is due, or a turn arrived
    after `since` (work that came in while a batch ran is drained right after it)."""
    params = {"now": now, "since": float("inf") if since is None else since, **scope.params()}
    row = conn.execute(_EXTRACTION_TRIGGER, params).fetchone()
    if row["due"] == 0:
        return False
    return bool(row["due"] >= TRIGGER_PENDING or row["oldest"] <= now - TRIGGER_AGE_SECONDS or row["urgent"])


def claim_extraction_in_tx(
    conn: sqlite3.Connection,
    *,
    owner: str,
    now: float,
    scope: Scope = Scope(),
    force: bool = False,
    since: float | None = None,
    limit: int = BATCH_SIZE,
    lease_seconds: float = LEASE_SECONDS,
) -> Claim | None:
    """Lease ≤ `limit` due extraction jobs of one thread in turn-sequence order, or None."""
    op = require_operational(conn)
    if not force and not extraction_triggered_in_tx(conn, now=now, scope=scope, since=since):
        return None
    params: dict[str, object] = {"now": now, **scope.params()}
    picked = conn.execute(_PICK_EXTRACTION_THREAD, params).fetchone()
    if picked is None:
        return None
    batch = new_batch_id()
    params |= {
        "owner": owner,
        "expires": now + lease_seconds,
        "gen": op.generation,
        "batch": batch,
        "picked": picked[0],
        "limit": limit,
    }
    jobs = tuple(Job.from_row(row) for row in conn.execute(_CLAIM_EXTRACTION_BATCH, params).fetchall())
    if not jobs:
        return None
    recompute_last_error_in_tx(conn, now=now)  # claimed jobs were touched: keep M-49's order exact
    return Claim(JobKind.EXTRACTION, batch, owner, op.generation, picked[0], jobs)


def claim_consolidation_in_tx(
    conn: sqlite3.Connection,
    *,
    owner: str,
    now: float,
    scope: Scope = Scope(),
    lease_seconds: float = LEASE_SECONDS,
) -> Claim | None:
    """Lease the oldest due consolidation job, unless another one is leased (they are serialized)."""
    op = require_operational(conn)
    batch = new_batch_id()
    params = {
        "now": now,
        "owner": owner,
        "expires": now + lease_seconds,
        "gen": op.generation,
        "batch": batch,
        **scope.params(),
    }
    row = conn.execute(_CLAIM_CONSOLIDATION, params).fetchone()
    if row is None:
        return None
    job = Job.from_row(row)
    recompute_last_error_in_tx(conn, now=now)
    return Claim(JobKind.CONSOLIDATION, batch, owner, op.generation, job.thread_id, (job,))


def snapshot_due_in_tx(conn: sqlite3.Connection, *, now: float, thread_id: int | None = None) -> frozenset[int]:
    """The ids of every job due now (the exit drain's allow-list)."""
    require_operational(conn)
    rows = conn.execute(_SNAPSHOT, {"now": now, **Scope(thread_id=thread_id).params()}).fetchall()
    return frozenset(row[0] for row in rows)


def heartbeat_in_tx(
    conn: sqlite3.Connection, *, claim: Claim, now: float, lease_seconds: float = LEASE_SECONDS
) -> Renewed | LeaseLost:
    require_operational(conn)
    expires = now + lease_seconds
    changed = conn.execute(_HEARTBEAT, claim._fence(expires=expires)).rowcount
    if changed != len(claim.jobs):
        return LeaseLost(claim.job_ids)
    return Renewed(claim.job_ids, expires)


def fence_in_tx(conn: sqlite3.Connection, *, claim: Claim, status: JobStatus, now: float) -> LeaseLost | None:
    """Finish every job of the claim with `status`, or return `LeaseLost` (the caller must roll back)."""
    require_operational(conn)
    changed = conn.execute(_FINISH, claim._fence(status=status.value, now=now)).rowcount
    if changed != len(claim.jobs):
        return LeaseLost(claim.job_ids)
    if status is not JobStatus.FAILED:
        conn.execute(_MARK_SUCCEEDED, {"now": now})
    recompute_last_error_in_tx(conn, now=now)
    return None


def fail_in_tx(
    conn: sqlite3.Connection,
    *,
    claim: Claim,
    error: str,
    now: float,
    backoff: Backoff = Backoff(),
    terminal: bool = False,
) -> LeaseLost | None:
    """Every job of the claim → `retry_wait` (or, `terminal`, `failed`) with attempts + 1, the RAW
    error and the backoff time."""
    require_operational(conn)
    error = error[:MAX_ERROR_CHARS]
    changed = 0
    for job in claim.jobs:
        if terminal:
            changed += conn.execute(_FAIL_TERMINAL, claim._fence(id=job.id, error=error, now=now)).rowcount
            continue
        next_at = backoff.next_attempt_at(now=now, failed_attempts=job.attempts + 1)
        changed += conn.execute(_FAIL, claim._fence(id=job.id, error=error, next=next_at, now=now)).rowcount
    if changed != len(claim.jobs):
        return LeaseLost(claim.job_ids)
    recompute_last_error_in_tx(conn, now=now)
    return None


def record_terminal_error_in_tx(conn: sqlite3.Connection, *, job_ids: Sequence[int], error: str, now: float) -> None:
    """After a `failed` fence in the same transaction: count the attempt and keep the RAW error."""
    conn.execute(_RECORD_ERROR, {"ids": _ids_json(job_ids), "error": error[:MAX_ERROR_CHARS], "now": now})


def split_claim_in_tx(
    conn: sqlite3.Connection, *, claim: Claim, parts: Sequence[Sequence[Job]]
) -> tuple[Claim, ...] | LeaseLost:
    """The claim as smaller claims (same owner, lease and generation), each under a fresh batch id."""
    require_operational(conn)
    claims: list[Claim] = []
    for part in parts:
        batch = new_batch_id()
        ids = [job.id for job in part]
        changed = conn.execute(_REBATCH, claim._fence(new=batch, ids=_ids_json(ids))).rowcount
        if changed != len(ids):
            return LeaseLost(claim.job_ids)
        claims.append(Claim(claim.kind, batch, claim.owner, claim.generation, claim.thread_id, tuple(part)))
    return tuple(claims)


def retry_failed_in_tx(conn: sqlite3.Connection, *, now: float, thread_id: int | None = None) -> tuple[int, ...]:
    """`memory drain --retry-failed`: every `failed` job back to `pending` with a fresh attempt count."""
    require_operational(conn)
    ids = tuple(sorted(row[0] for row in conn.execute(_RETRY_FAILED, {"now": now, "thread": thread_id})))
    if ids:
        recompute_last_error_in_tx(conn, now=now)
    return ids


def recover_jobs_in_tx(conn: sqlite3.Connection, *, now: float) -> Recovery:
    """M-51: reclaim expired job leases, and the leases of holders that are provably gone (a process of
    this host killed or crashed, owners.py) at once; wake retries whose time has come (all → `pending`)."""
    require_operational(conn)
    gone = tuple(sorted(row[0] for row in conn.execute(_LIVE_HOLDERS, {"now": now}) if provably_gone(row[0])))
    taken: list[int] = []
    for owner in gone:  # a killed holder's lease is taken over now, not when it expires (owners.py)
        taken.extend(row[0] for row in conn.execute(_RELEASE_OWNER, {"owner": owner, "now": now}).fetchall())
    reclaimed = tuple(row[0] for row in conn.execute(_RECLAIM_EXPIRED, {"now": now}).fetchall())
    woken = tuple(row[0] for row in conn.execute(_WAKE_DUE, {"now": now}).fetchall())
    if reclaimed or woken or taken:
        recompute_last_error_in_tx(conn, now=now)
    return Recovery(
        reclaimed=tuple(sorted(reclaimed)),
        woken=tuple(sorted(woken)),
        taken_over=tuple(sorted(taken)),
        gone_owners=gone if taken else (),
    )


def release_owner_leases_in_tx(conn: sqlite3.Connection, *, owner: str, now: float) -> tuple[int, ...]:
    """Give back every job lease `owner` holds (a process shutting down): each job is due again at once.

    A step of this owner still running afterwards cannot commit: its fence needs `owner` and the batch.
    """
    released = tuple(sorted(row[0] for row in conn.execute(_RELEASE_OWNER, {"owner": owner, "now": now}).fetchall()))
    if released:
        recompute_last_error_in_tx(conn, now=now)
    return released


def recompute_last_error_in_tx(conn: sqlite3.Connection, *, now: float) -> None:
    """M-49, one statement: meta's last error is that of the newest unresolved job with an error."""
    conn.execute(_RECOMPUTE_LAST_ERROR, {"now": now})
