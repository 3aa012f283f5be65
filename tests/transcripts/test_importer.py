"""Importing into Memory: ordinary admission into archived per-session threads, exactly once."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from autopatch_j.memory.imports import Source
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent
from autopatch_j.transcripts.codex import NotifyTurn, parse_notify
from autopatch_j.transcripts.discovery import From, SessionFile, project_sessions
from autopatch_j.transcripts.importer import Importer
from tests.transcripts.builders import claude_lines, codex_lines, install_fixture
from tests.transcripts.conftest import CODEX_NEW, CODEX_OLD, AgentHome


def _notify(session: str, turn_id: str, user: str, answer: str) -> NotifyTurn:
    payload = {
        "type": "agent-turn-complete",
        "thread-id": session,
        "turn-id": turn_id,
        "input-messages": [user],
        "last-assistant-message": answer,
    }
    return parse_notify(json.dumps(payload))


def _rows(manager: MemoryManager, sql: str, *args: object) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(manager.paths.db)
    try:
        return [tuple(r) for r in conn.execute(sql, args)]
    finally:
        conn.close()


def _import_all(manager: MemoryManager, agent_home: AgentHome) -> int:
    importer = Importer(manager=manager)
    sessions = project_sessions(agent_home.project, From.AUTO, home=agent_home.home, codex_home=agent_home.codex_home)
    return sum(importer.import_session(s).turns_admitted for s in sessions)


def test_every_session_gets_its_own_archived_thread_and_turns_get_jobs(
    manager: MemoryManager, agent_home: AgentHome
) -> None:
    active_before = manager.active_thread().id
    assert _import_all(manager, agent_home) == 2 + 3 + 2 + 2 + 2 + 1
    assert manager.active_thread().id == active_before  # one active thread, still the user's own
    threads = _rows(manager, "SELECT t.status FROM import_sessions s JOIN threads t ON t.id = s.thread_id")
    assert len(threads) == 6 and {s for (s,) in threads} == {"archived"}
    turns = _rows(manager, "SELECT status, intent FROM turns")
    assert set(turns) == {("completed", "general_chat")}
    jobs = _rows(manager, "SELECT count(*) FROM memory_jobs WHERE kind = 'extraction' AND status = 'pending'")
    assert jobs == [(len(turns),)]  # extraction is left to the background pipeline


def test_rerunning_adds_nothing(manager: MemoryManager, agent_home: AgentHome) -> None:
    first = _import_all(manager, agent_home)
    before = _rows(manager, "SELECT count(*) FROM turns")
    assert _import_all(manager, agent_home) == 0
    assert _rows(manager, "SELECT count(*) FROM turns") == before == [(first,)]


def test_a_grown_session_continues_where_it_stopped(manager: MemoryManager, tmp_path: Path) -> None:
    path = tmp_path / "rollout-x.jsonl"
    lines = codex_lines(0, 5, session="grow", cwd="/p")
    path.write_text("".join(lines[:11]))  # session_meta + two turns
    session = SessionFile(source=Source.CODEX, path=path, session_id="grow")
    importer = Importer(manager=manager)
    assert importer.import_session(session).turns_admitted == 2
    path.write_text("".join(lines))
    report = importer.import_session(session)
    assert (report.turns_admitted, report.turns_already_known, report.resumed_from) == (3, 0, len("".join(lines[:11])))
    users = [u for (u,) in _rows(manager, "SELECT user_text FROM turns ORDER BY seq")]
    assert users == [f"Decision {i}: keep option {i}." for i in range(5)]


def test_small_batches_move_the_cursor_with_their_turns(manager: MemoryManager, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(claude_lines(0, 7, session="batchxyz", cwd="/p")))
    statements: list[str] = []
    manager.db.set_trace(statements.append)
    Importer(manager=manager, batch_turns=3).import_session(
        SessionFile(source=Source.CLAUDE_CODE, path=path, session_id="batchxyz")
    )
    manager.db.set_trace(None)
    commits = [s for s in statements if s in ("BEGIN IMMEDIATE", "COMMIT")]
    assert commits.count("BEGIN IMMEDIATE") == 3  # 3 + 3 + 1 turns
    cursor_moves = [s for s in statements if s.startswith("UPDATE import_sessions SET byte_offset")]
    assert len(cursor_moves) == 3
    assert _rows(manager, "SELECT byte_offset FROM import_sessions") == [(path.stat().st_size,)]


def test_dry_run_changes_nothing(manager: MemoryManager, agent_home: AgentHome) -> None:
    importer = Importer(manager=manager)
    sessions = project_sessions(agent_home.project, From.AUTO, home=agent_home.home, codex_home=agent_home.codex_home)
    would = sum(importer.import_session(s, dry_run=True).turns_admitted for s in sessions)
    assert would == 12 and _rows(manager, "SELECT count(*) FROM turns") == [(0,)]


def test_codex_hook_then_transcript_with_turn_ids_adds_nothing(manager: MemoryManager, agent_home: AgentHome) -> None:
    importer = Importer(manager=manager)
    notify = _notify(
        CODEX_NEW,
        "turn-1",
        "We decided to keep SQLite as the only local store.",
        "Noted: SQLite stays the only local store.",
    )
    assert notify.turn is not None
    assert importer.admit_turn(source=Source.CODEX, session_id=CODEX_NEW, turn=notify.turn) is True
    assert importer.admit_turn(source=Source.CODEX, session_id=CODEX_NEW, turn=notify.turn) is False  # re-delivered
    path = next((agent_home.codex_home / "sessions").rglob(f"*{CODEX_NEW}.jsonl"))
    report = importer.import_session(SessionFile(source=Source.CODEX, path=path, session_id=CODEX_NEW))
    assert (report.turns_admitted, report.turns_already_known) == (1, 1)  # only turn-2 was new
    assert _rows(manager, "SELECT count(*) FROM turns") == [(2,)]


def test_codex_hook_and_an_older_rollout_are_matched_by_what_the_user_typed(
    manager: MemoryManager, tmp_path: Path, project: Path
) -> None:
    importer = Importer(manager=manager)
    path = install_fixture(f"codex/old-{CODEX_OLD}.jsonl", tmp_path / "rollout-old.jsonl", project)
    session = SessionFile(source=Source.CODEX, path=path, session_id=CODEX_OLD)
    hook = _notify(CODEX_OLD, "7", "Never commit   generated files.", "Understood.")
    assert hook.turn is not None
    assert importer.admit_turn(source=Source.CODEX, session_id=CODEX_OLD, turn=hook.turn) is True
    report = importer.import_session(session)
    assert (report.turns_admitted, report.turns_already_known) == (1, 1)
    # …and the other way round: the transcript first, then the hook for the same turn.
    other = _notify(CODEX_OLD, "8", "What does the importer do?", "x")
    assert other.turn is not None
    assert importer.admit_turn(source=Source.CODEX, session_id=CODEX_OLD, turn=other.turn) is False
    assert _rows(manager, "SELECT count(*) FROM turns") == [(2,)]


def test_a_partial_line_is_imported_once_it_is_complete(manager: MemoryManager, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    lines = claude_lines(0, 2, session="partialx", cwd="/p")
    path.write_text("".join(lines[:7]) + lines[7][:30])
    session = SessionFile(source=Source.CLAUDE_CODE, path=path, session_id="partialx")
    importer = Importer(manager=manager)
    first = importer.import_session(session)
    assert first.turns_admitted == 1 and first.partial_line_left
    path.write_text("".join(lines))
    second = importer.import_session(session)
    assert second.turns_admitted == 1 and not second.partial_line_left


def test_own_turns_keep_going_to_the_active_thread(manager: MemoryManager, agent_home: AgentHome) -> None:
    _import_all(manager, agent_home)
    ticket = manager.begin_turn("hello", Intent.GENERAL_CHAT)
    assert ticket.thread_id == manager.active_thread().id and ticket.seq == 1


def test_clear_deletes_imports_and_cursors_so_a_later_import_starts_over(
    manager: MemoryManager, agent_home: AgentHome
) -> None:
    assert _import_all(manager, agent_home) == 12
    manager.clear(confirm=True)
    assert _rows(manager, "SELECT count(*) FROM import_sessions") == [(0,)]
    assert _rows(manager, "SELECT count(*) FROM turns") == [(0,)]
    assert _import_all(manager, agent_home) == 12


def test_a_rewritten_shorter_file_is_read_again_without_duplicates(manager: MemoryManager, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(claude_lines(0, 3, session="rewrite1", cwd="/p")))
    session = SessionFile(source=Source.CLAUDE_CODE, path=path, session_id="rewrite1")
    importer = Importer(manager=manager)
    assert importer.import_session(session).turns_admitted == 3
    path.write_text("".join(claude_lines(0, 1, session="rewrite1", cwd="/p")))
    report = importer.import_session(session)
    assert report.restarted and (report.turns_admitted, report.turns_already_known) == (0, 1)


def test_a_last_line_without_newline_waits_until_the_file_has_settled(manager: MemoryManager, tmp_path: Path) -> None:
    path = tmp_path / "unterminated.jsonl"
    path.write_text("".join(claude_lines(0, 1, session="u", cwd="/p")).rstrip("\n"))
    session = SessionFile(source=Source.CLAUDE_CODE, path=path, session_id="u")
    written = path.stat().st_mtime
    soon = Importer(manager=manager, settle_seconds=3.0, wall_clock=lambda: written + 2.9).import_session(session)
    assert (soon.turns_admitted, soon.partial_line_left, soon.lines_waiting) == (0, True, 3)
    later = Importer(manager=manager, settle_seconds=3.0, wall_clock=lambda: written + 3.0).import_session(session)
    assert (later.turns_admitted, later.partial_line_left, later.lines_waiting) == (1, False, 0)
