"""Why due work is not running now: a summary of the waiting Memory jobs, and releasing this owner's leases.

`memory drain` prints the summary after its round, so "Ran 0 job(s)" with jobs still waiting always
says why: leased by another process until T (and the jobs of the same thread or the serialized
consolidation that wait behind such a lease), or `retry_wait` until T. On SIGINT/SIGTERM the CLI
releases the leases its own owner holds (back to `pending`, attempt count unchanged), so the next
process does not wait for them to expire.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

_HOLDS_LEASES = (
    "SELECT EXISTS (SELECT 1 FROM memory_jobs WHERE status = 'leased' AND owner = :owner) "
    "OR EXISTS (SELECT 1 FROM turns WHERE status = 'open' AND owner = :owner)"
)
_LIVE_LEASES = (
    "SELECT owner, count(*) AS n, max(lease_expires_at) AS until FROM memory_jobs "
    "WHERE status = 'leased' AND lease_expires_at > :now GROUP BY owner ORDER BY until, owner"
)
_DUE = (
    "((j.status IN ('pending', 'retry_wait') AND j.next_attempt_at <= :now) "
    "OR (j.status = 'leased' AND j.lease_expires_at <= :now))"
)
# A due extraction waits while another extraction of its thread is leased; consolidations run one at a time.
_BLOCKED = (
    "EXISTS (SELECT 1 FROM memory_jobs l WHERE l.status = 'leased' AND l.lease_expires_at > :now "
    "AND l.kind = j.kind AND (j.kind = 'consolidation' OR l.thread_id = j.thread_id))"
)
_DUE_COUNTS = f"SELECT count(*) AS due, coalesce(sum({_BLOCKED}), 0) AS blocked FROM memory_jobs j WHERE {_DUE}"
_RETRY_LATER = (
    "SELECT count(*) AS n, min(next_attempt_at) AS first FROM memory_jobs "
    "WHERE status = 'retry_wait' AND next_attempt_at > :now"
)


@dataclass(frozen=True, slots=True)
class LeaseHold:
    """Jobs leased by one owner (another process, or a crashed one) whose lease runs until `until`."""

    owner: str
    jobs: int
    until: float


@dataclass(frozen=True, slots=True)
class WaitingJobs:
    runnable: int  # due now and free to claim
    blocked: int  # due, but behind a live lease of the same thread (or of the one consolidation)
    leases: tuple[LeaseHold, ...]
    retrying: int  # retry_wait, not due yet
    next_retry_at: float | None

    @property
    def leased(self) -> int:
        return sum(hold.jobs for hold in self.leases)

    @property
    def total(self) -> int:
        return self.runnable + self.blocked + self.leased + self.retrying


def waiting_jobs_in_tx(conn: sqlite3.Connection, *, now: float) -> WaitingJobs:
    leases = tuple(
        LeaseHold(owner=row["owner"] or "?", jobs=row["n"], until=row["until"])
        for row in conn.execute(_LIVE_LEASES, {"now": now})
    )
    due = conn.execute(_DUE_COUNTS, {"now": now}).fetchone()
    retry = conn.execute(_RETRY_LATER, {"now": now}).fetchone()
    return WaitingJobs(
        runnable=due["due"] - due["blocked"],
        blocked=due["blocked"],
        leases=leases,
        retrying=retry["n"],
        next_retry_at=retry["first"],
    )


def holds_leases_in_tx(conn: sqlite3.Connection, *, owner: str) -> bool:
    return bool(conn.execute(_HOLDS_LEASES, {"owner": owner}).fetchone()[0])
