"""Admission of ordinary turns (M-20 … M-24) and the statements it sends (M-19)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from autopatch_j.memory.admission import TURN_LEASE_SECONDS, TurnOutcome
from autopatch_j.memory.errors import InvalidInputError
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent
from autopatch_j.runtime import FakeClock


def _rows(m: MemoryManager, sql: str, *params: object) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(m.paths.db)
    try:
        return [tuple(r) for r in conn.execute(sql, params)]
    finally:
        conn.close()


def test_begin_turn_stores_raw_user_text_before_any_answer(manager: MemoryManager) -> None:
    text = "  以后先给结论，然后再解释。\n  (keep   spacing) "
    ticket = manager.begin_turn(text, Intent.GENERAL_CHAT)
    assert _rows(manager, "SELECT user_text, status, assistant_text FROM turns WHERE id = ?", ticket.turn_id) == [
        (text, "open", None)
    ]
    assert ticket.thread_id == manager.active_thread().id and ticket.seq == 1


def test_complete_turn_stores_the_final_text_and_its_extraction_job_in_one_transaction(
    manager: MemoryManager,
) -> None:
    ticket = manager.begin_turn("question", Intent.CODE_EXPLAIN)
    statements: list[str] = []
    manager.db.set_trace(statements.append)
    assert manager.complete_turn(ticket, "final answer **as seen**") is TurnOutcome.RECORDED
    manager.db.set_trace(None)
    body = [s for s in statements if not s.startswith("PRAGMA")]
    assert body[0] == "BEGIN IMMEDIATE" and body[-1] == "COMMIT"
    assert any(s.startswith("UPDATE turns SET status = 'completed'") for s in body)
    assert any(s.startswith("INSERT INTO memory_jobs") for s in body)
    assert _rows(manager, "SELECT status, assistant_text FROM turns") == [("completed", "final answer **as seen**")]
    assert _rows(manager, "SELECT kind, status, turn_id FROM memory_jobs") == [
        ("extraction", "pending", ticket.turn_id)
    ]


def test_every_write_starts_with_begin_immediate(manager: MemoryManager) -> None:
    statements: list[str] = []
    manager.db.set_trace(statements.append)
    ticket = manager.begin_turn("a", Intent.GENERAL_CHAT)
    manager.fail_turn(ticket, "boom")
    manager.heartbeat()
    manager.start_new_thread()
    manager.db.set_trace(None)
    begins = [s for s in statements if s.startswith("BEGIN")]
    assert begins and all(s == "BEGIN IMMEDIATE" for s in begins)
    assert statements.count("COMMIT") == len(begins)


def test_failed_turn_keeps_user_text_and_gets_an_extraction_job(manager: MemoryManager) -> None:
    ticket = manager.begin_turn("please explain", Intent.GENERAL_CHAT)
    assert manager.fail_turn(ticket, "provider exploded") is TurnOutcome.RECORDED
    assert _rows(manager, "SELECT status, user_text, error FROM turns") == [
        ("failed", "please explain", "provider exploded")
    ]
    assert _rows(manager, "SELECT count(*) FROM memory_jobs")[0][0] == 1


def test_repair_intents_are_never_admitted(manager: MemoryManager) -> None:
    for intent in (Intent.CODE_AUDIT, Intent.PATCH_EXPLAIN, Intent.PATCH_REVISE):
        with pytest.raises(InvalidInputError):
            manager.begin_turn("audit src/", intent)
    assert _rows(manager, "SELECT count(*) FROM turns")[0][0] == 0


def test_empty_message_is_refused_and_nothing_written(manager: MemoryManager) -> None:
    with pytest.raises(InvalidInputError):
        manager.begin_turn("   \n", Intent.GENERAL_CHAT)
    assert _rows(manager, "SELECT count(*) FROM turns")[0][0] == 0


def test_sequences_increase_per_thread(manager: MemoryManager) -> None:
    seqs = []
    for i in range(3):
        ticket = manager.begin_turn(f"t{i}", Intent.GENERAL_CHAT)
        manager.complete_turn(ticket, "ok")
        seqs.append(ticket.seq)
    manager.start_new_thread()
    assert seqs == [1, 2, 3]
    assert manager.begin_turn("next", Intent.GENERAL_CHAT).seq == 1


def test_request_stays_bound_to_its_thread_across_a_concurrent_new(manager: MemoryManager) -> None:
    ticket = manager.begin_turn("we are comparing option A and option B", Intent.GENERAL_CHAT)
    archived, new = manager.start_new_thread()  # another control flow runs /new mid-request
    assert archived.id == ticket.thread_id and new.id != ticket.thread_id
    assert manager.complete_turn(ticket, "A is simpler") is TurnOutcome.RECORDED
    assert _rows(manager, "SELECT thread_id FROM turns WHERE id = ?", ticket.turn_id) == [(ticket.thread_id,)]
    assert _rows(manager, "SELECT thread_id FROM memory_jobs") == [(ticket.thread_id,)]


def test_only_expired_open_turns_are_recovered_as_interrupted(tmp_path: Path, clock: FakeClock) -> None:
    first = MemoryManager(root=tmp_path, clock=clock, owner="cli-1")
    first.open()
    stale = first.begin_turn("crashed request", Intent.GENERAL_CHAT)
    clock.advance(60)
    live = first.begin_turn("live request", Intent.GENERAL_CHAT)
    clock.advance(TURN_LEASE_SECONDS - 30)  # stale expired; live still inside its lease

    second = MemoryManager(root=tmp_path, clock=clock, owner="cli-2")
    assert second.open().ok
    assert _rows(second, "SELECT id, status FROM turns ORDER BY id") == [
        (stale.turn_id, "interrupted"),
        (live.turn_id, "open"),
    ]
    assert _rows(second, "SELECT turn_id FROM memory_jobs") == [(stale.turn_id,)]
    assert first.complete_turn(stale, "too late") is TurnOutcome.LEASE_LOST
    assert first.complete_turn(live, "done") is TurnOutcome.RECORDED


def test_heartbeat_keeps_a_long_request_alive(tmp_path: Path, clock: FakeClock) -> None:
    first = MemoryManager(root=tmp_path, clock=clock, owner="cli-1")
    first.open()
    ticket = first.begin_turn("long request", Intent.GENERAL_CHAT)
    for _ in range(10):
        clock.advance(TURN_LEASE_SECONDS / 2)
        assert first.heartbeat() == 1
    second = MemoryManager(root=tmp_path, clock=clock, owner="cli-2")
    second.open()
    assert _rows(second, "SELECT status FROM turns") == [("open",)]
    assert first.complete_turn(ticket, "finally") is TurnOutcome.RECORDED


def test_completing_after_clear_reports_lease_lost_and_writes_nothing(manager: MemoryManager) -> None:
    ticket = manager.begin_turn("before clear", Intent.GENERAL_CHAT)
    manager.clear(confirm=True)
    assert manager.complete_turn(ticket, "late answer") is TurnOutcome.LEASE_LOST
    assert _rows(manager, "SELECT count(*) FROM turns")[0][0] == 0
    assert _rows(manager, "SELECT count(*) FROM memory_jobs")[0][0] == 0


def test_ids_are_not_reused_after_clear(manager: MemoryManager) -> None:
    ticket = manager.begin_turn("one", Intent.GENERAL_CHAT)
    old_thread = ticket.thread_id
    manager.clear(confirm=True)
    again = manager.begin_turn("two", Intent.GENERAL_CHAT)
    assert again.turn_id > ticket.turn_id and again.thread_id > old_thread


def test_complete_turn_fails_loudly_when_the_meta_row_vanished(manager: MemoryManager) -> None:
    """Issue 9.13: the operational guard runs on every finishing write; no silent missing job."""
    import sqlite3

    from autopatch_j.memory.errors import MemorySchemaError

    ticket = manager.begin_turn("hello", Intent.GENERAL_CHAT)
    conn = sqlite3.connect(manager.paths.db)
    with conn:
        conn.execute("DELETE FROM memory_meta")
    conn.close()
    with pytest.raises(MemorySchemaError, match="memory_meta"):
        manager.complete_turn(ticket, "answer")
    with pytest.raises(MemorySchemaError, match="memory_meta"):
        manager.fail_turn(ticket, "boom")
    conn = sqlite3.connect(manager.paths.db)
    assert conn.execute("SELECT status FROM turns WHERE id = ?", (ticket.turn_id,)).fetchone()[0] == "open"
    conn.close()


def test_a_message_over_the_size_limit_is_refused_before_anything_is_stored(manager: MemoryManager) -> None:
    """Issue 9.9: one clear sentence, nothing admitted; a message at the limit is admitted."""
    from autopatch_j.memory.admission import MAX_TURN_CHARS

    with pytest.raises(InvalidInputError, match="at most 100,000 characters"):
        manager.begin_turn("x" * (MAX_TURN_CHARS + 1), Intent.GENERAL_CHAT)
    conn = sqlite3.connect(manager.paths.db)
    assert conn.execute("SELECT count(*) FROM turns").fetchone()[0] == 0
    conn.close()
    manager.begin_turn("x" * MAX_TURN_CHARS, Intent.GENERAL_CHAT)


def test_memory_read_of_an_id_sqlite_cannot_hold_is_simply_not_found(manager: MemoryManager) -> None:
    """Issue 9.8, the agent's `memory_read` path: no OverflowError from the driver."""
    thread_id = manager.active_thread().id
    assert manager.read_memory(thread_id=thread_id, memory_id=2**63) is None
    assert manager.read_memory(thread_id=thread_id, memory_id=-(2**63) - 1) is None
