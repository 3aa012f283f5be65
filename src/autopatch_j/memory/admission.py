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
from autopatch_j.memory.records import ORDINARY_INTENTS, Intent, TurnTicket

TURN_LEASE_SECONDS = 120.0
HEARTBEAT_SECONDS = 30.0
MAX_ERROR_CHARS = 20_000

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
_EXPIRED_OPEN_TURNS = "SELECT id, thread_id FROM turns WHERE status = 'open' AND lease_expires_at < ? ORDER BY id"
_INTERRUPT_TURN = (
    "UPDATE turns SET status = 'interrupted', owner = NULL, lease_expires_at = NULL, updated_at = ? "
    "WHERE id = ? AND status = 'open'"
)
_OWNER_OPEN_TURNS = "SELECT id, thread_id FROM turns WHERE status = 'open' AND owner = ? ORDER BY id"
_TURN_THREAD = "SELECT thread_id FROM turns WHERE id = ?"


class TurnOutcome(enum.Enum):
    """What happened to a finish request."""

    RECORDED = "recorded"
    #: The turn is no longer this owner's open turn: cleared, or recovered as interrupted elsewhere.
    LEASE_LOST = "lease_lost"


def begin_turn_in_tx(conn: sqlite3.Connection, *, user_text: str, intent: Intent, owner: str, now: float) -> TurnTicket:
    if intent not in ORDINARY_INTENTS:
        raise InvalidInputError(f"Intent {intent.value} never uses Memory and is not admitted (M-1).")
    if not user_text.strip():
        raise InvalidInputError("The message is empty.")
    op = require_operational(conn)
    seq = conn.execute(_NEXT_SEQ, (op.active_thread_id,)).fetchone()[0]
    cursor = conn.execute(
        _INSERT_TURN,
        (op.active_thread_id, seq, intent.value, user_text, owner, now + TURN_LEASE_SECONDS, now, now),
    )
    turn_id = cursor.lastrowid
    assert turn_id is not None
    return TurnTicket(turn_id=turn_id, thread_id=op.active_thread_id, seq=seq, owner=owner)


def complete_turn_in_tx(
    conn: sqlite3.Connection, *, ticket: TurnTicket, assistant_text: str, now: float
) -> TurnOutcome:
    changed = conn.execute(_COMPLETE_TURN, (assistant_text, now, ticket.turn_id, ticket.owner)).rowcount
    if changed != 1:
        return TurnOutcome.LEASE_LOST
    enqueue_extraction_in_tx(conn, thread_id=ticket.thread_id, turn_id=ticket.turn_id, now=now)
    return TurnOutcome.RECORDED


def fail_turn_in_tx(conn: sqlite3.Connection, *, ticket: TurnTicket, error: str, now: float) -> TurnOutcome:
    changed = conn.execute(_FAIL_TURN, (error[:MAX_ERROR_CHARS], now, ticket.turn_id, ticket.owner)).rowcount
    if changed != 1:
        return TurnOutcome.LEASE_LOST
    enqueue_extraction_in_tx(conn, thread_id=ticket.thread_id, turn_id=ticket.turn_id, now=now)
    return TurnOutcome.RECORDED


def heartbeat_in_tx(conn: sqlite3.Connection, *, owner: str, now: float) -> int:
    """Extend the lease of this owner's open turns; returns how many were renewed."""
    return conn.execute(_HEARTBEAT, (now + TURN_LEASE_SECONDS, now, owner)).rowcount


def recover_expired_turns_in_tx(conn: sqlite3.Connection, *, now: float) -> list[int]:
    """Open turns whose owner lease expired become `interrupted`, each with its extraction job."""
    require_operational(conn)
    recovered: list[int] = []
    for row in conn.execute(_EXPIRED_OPEN_TURNS, (now,)).fetchall():
        if conn.execute(_INTERRUPT_TURN, (now, row["id"])).rowcount == 1:
            enqueue_extraction_in_tx(conn, thread_id=row["thread_id"], turn_id=row["id"], now=now)
            recovered.append(row["id"])
    return recovered


def interrupt_owner_turns_in_tx(conn: sqlite3.Connection, *, owner: str, now: float) -> list[int]:
    """A process shutting down gives up its open turns at once (as lease expiry would later): `interrupted`."""
    interrupted: list[int] = []
    for row in conn.execute(_OWNER_OPEN_TURNS, (owner,)).fetchall():
        if conn.execute(_INTERRUPT_TURN, (now, row["id"])).rowcount == 1:
            enqueue_extraction_in_tx(conn, thread_id=row["thread_id"], turn_id=row["id"], now=now)
            interrupted.append(row["id"])
    return interrupted
