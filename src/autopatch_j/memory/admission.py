"""Ordinary-turn admission (M-20 … M-24): RAW text first, then the answer or the failure.

`begin_turn` stores the user's RAW text before any LLM call and binds the request to the thread
that was active at that moment. The open turn carries an owner lease renewed by a heartbeat; a
later CLI recovers only turns whose lease expired. Every terminal status change creates the
turn's extraction job in the same transaction.
"""

from __future__ import annotations

import enum
import sqlite3

from autopatch_j.memory.errors import InvalidInputError
from autopatch_j.memory.guard import require_operational
from autopatch_j.memory.jobs import enqueue_extraction_in_tx
from autopatch_j.memory.owners import provably_gone
from autopatch_j.memory.records import ORDINARY_INTENTS, Intent, TurnTicket
from autopatch_j.runtime import MAX_ERROR_CHARS

# The largest message Memory admits. It bounds what one turn can cost every later stage
# (admission, the offline extractor — about 12 ms per 1,000 characters, bench/large_turn_bench.py —,
# compaction, consolidation), and no useful prompt is larger. Checked before anything is stored.
MAX_TURN_CHARS = 100_000
TURN_LEASE_SECONDS = 120.0
HEARTBEAT_SECONDS = 30.0

_NEXT_SEQ = "SELECT coalesce(max(seq), 0) + 1 FROM turns WHERE thread_id = ?"
_INSERT_TURN = (
    "INSERT INTO turns (thread_id, seq, intent, status, user_text, owner, lease_expires_at, created_at, updated_at) "
    "VALUES (?, ?, ?, 'open', ?, ?, ?, ?, ?)"
)
_COMPLETE_TURN = (
    "UPDATE turns SET status = 'completed', assistant_text = ?, owner = NULL, lease_expires_at = NULL, "
    "updated_at = ? WHERE id = ? AND status = 'open' AND owner = ?"
)
_FAIL_TURN = (
    "UPDATE turns SET status = 'failed', error = ?, owner = NULL, lease_expires_at = NULL, "
    "updated_at = ? WHERE id = ? AND status = 'open' AND owner = ?"
)
_HEARTBEAT = "UPDATE turns SET lease_expires_at = ?, updated_at = ? WHERE status = 'open' AND owner = ?"
# The open turns are found through their partial index: left to itself, the planner scans the whole
# table in id order for `ORDER BY id`, and this runs at every start.
_EXPIRED_OPEN_TURNS = (
    "SELECT id, thread_id FROM turns INDEXED BY turns_open_lease WHERE status = 'open' AND lease_expires_at < ? "
    "ORDER BY id"
)
_INTERRUPT_TURN = (
    "UPDATE turns SET status = 'interrupted', owner = NULL, lease_expires_at = NULL, updated_at = ? "
    "WHERE id = ? AND status = 'open'"
)
_OPEN_TURN_OWNERS = "SELECT DISTINCT owner FROM turns INDEXED BY turns_open_lease WHERE status = 'open'"
_OWNER_OPEN_TURNS = (
    "SELECT id, thread_id FROM turns INDEXED BY turns_open_lease WHERE status = 'open' AND owner = ? ORDER BY id"
)
_TURN_THREAD = "SELECT thread_id FROM turns WHERE id = ?"


class TurnOutcome(enum.Enum):
    """What happened to a finish request."""

    RECORDED = "recorded"
    #: The turn is no longer this owner's open turn: cleared, or recovered as interrupted elsewhere.
    LEASE_LOST = "lease_lost"


def require_storable(text: str, what: str) -> None:
    """SQLite stores UTF-8: text with a lone surrogate cannot be stored and is refused in one sentence."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"The {what} is not valid Unicode (a lone surrogate at character {exc.start}); it cannot be stored."
        ) from None


def require_admissible(text: str, what: str) -> None:
    """Storable, and at most `MAX_TURN_CHARS` characters (one sentence naming the limit otherwise)."""
    if len(text) > MAX_TURN_CHARS:
        raise InvalidInputError(
            f"The {what} has {len(text):,} characters; Memory admits at most {MAX_TURN_CHARS:,} characters per "
            "turn; send a shorter message, or point to a file in the project instead of pasting it."
        )
    require_storable(text, what)


def begin_turn_in_tx(
    conn: sqlite3.Connection, *, user_text: str, intent: Intent, owner: str, now: float, thread_id: int | None = None
) -> TurnTicket:
    """Store the RAW user text as an open turn of the active thread (or of `thread_id`: an import's own thread)."""
    if intent not in ORDINARY_INTENTS:
        raise InvalidInputError(f"Intent {intent.value} never uses Memory and is not admitted (M-1).")
    if not user_text.strip():
        raise InvalidInputError("The message is empty.")
    require_admissible(user_text, "message")
    op = require_operational(conn)
    thread = op.active_thread_id if thread_id is None else thread_id
    seq = conn.execute(_NEXT_SEQ, (thread,)).fetchone()[0]
    cursor = conn.execute(
        _INSERT_TURN,
        (thread, seq, intent.value, user_text, owner, now + TURN_LEASE_SECONDS, now, now),
    )
    turn_id = cursor.lastrowid
    assert turn_id is not None
    return TurnTicket(turn_id=turn_id, thread_id=thread, seq=seq, owner=owner)


def complete_turn_in_tx(
    conn: sqlite3.Connection, *, ticket: TurnTicket, assistant_text: str, now: float
) -> TurnOutcome:
    require_operational(conn)  # a vanished meta row fails loudly instead of silently creating no job
    require_storable(assistant_text, "answer")
    changed = conn.execute(_COMPLETE_TURN, (assistant_text, now, ticket.turn_id, ticket.owner)).rowcount
    if changed != 1:
        return TurnOutcome.LEASE_LOST
    enqueue_extraction_in_tx(conn, thread_id=ticket.thread_id, turn_id=ticket.turn_id, now=now)
    return TurnOutcome.RECORDED


def fail_turn_in_tx(conn: sqlite3.Connection, *, ticket: TurnTicket, error: str, now: float) -> TurnOutcome:
    require_operational(conn)
    error = error.encode("utf-8", "replace").decode("utf-8")  # an error text is diagnostic: never refuse it
    changed = conn.execute(_FAIL_TURN, (error[:MAX_ERROR_CHARS], now, ticket.turn_id, ticket.owner)).rowcount
    if changed != 1:
        return TurnOutcome.LEASE_LOST
    enqueue_extraction_in_tx(conn, thread_id=ticket.thread_id, turn_id=ticket.turn_id, now=now)
    return TurnOutcome.RECORDED


def heartbeat_in_tx(conn: sqlite3.Connection, *, owner: str, now: float) -> int:
    """Extend the lease of this owner's open turns; returns how many were renewed."""
    return conn.execute(_HEARTBEAT, (now + TURN_LEASE_SECONDS, now, owner)).rowcount


def recover_expired_turns_in_tx(conn: sqlite3.Connection, *, now: float) -> list[int]:
    """Open turns whose owner lease expired, or whose owner is provably gone (owners.py: a process of this
    host that no longer runs), become `interrupted`, each with its extraction job."""
    require_operational(conn)
    recovered: list[int] = []
    for (owner,) in conn.execute(_OPEN_TURN_OWNERS).fetchall():
        if provably_gone(owner):
            recovered.extend(interrupt_owner_turns_in_tx(conn, owner=owner, now=now))
    for row in conn.execute(_EXPIRED_OPEN_TURNS, (now,)).fetchall():
        if conn.execute(_INTERRUPT_TURN, (now, row["id"])).rowcount == 1:
            enqueue_extraction_in_tx(conn, thread_id=row["thread_id"], turn_id=row["id"], now=now)
            recovered.append(row["id"])
    return sorted(recovered)


def interrupt_owner_turns_in_tx(conn: sqlite3.Connection, *, owner: str, now: float) -> list[int]:
    """A process shutting down gives up its open turns at once (as lease expiry would later): `interrupted`."""
    interrupted: list[int] = []
    for row in conn.execute(_OWNER_OPEN_TURNS, (owner,)).fetchall():
        if conn.execute(_INTERRUPT_TURN, (now, row["id"])).rowcount == 1:
            enqueue_extraction_in_tx(conn, thread_id=row["thread_id"], turn_id=row["id"], now=now)
            interrupted.append(row["id"])
    return interrupted
