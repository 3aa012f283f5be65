"""Ingesting a JSONL conversation: validated whole before any admission, then the live admission path."""

from __future__ import annotations

from pathlib import Path

import pytest

from autopatch_j.memory.errors import IngestFormatError
from autopatch_j.memory.ingest import ingest, parse_conversation, read_conversation
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent, JobStatus, TurnStatus
from tests.memory.pipeline_support import jobs, rows


def test_valid_lines_parse_with_default_intent() -> None:
    text = '{"user": "u1", "assistant": "a1"}\n\n{"user": "u2", "assistant": "a2", "intent": "code_explain"}\n'
    parsed = parse_conversation(text)
    assert [(e.line, e.user, e.intent) for e in parsed] == [
        (1, "u1", Intent.GENERAL_CHAT),
        (3, "u2", Intent.CODE_EXPLAIN),
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 2 is not valid JSON"),
        ('["user", "assistant"]', "line 2 must be a JSON object"),
        ('{"user": "", "assistant": "a"}', 'line 2 needs a non-empty string "user"'),
        ('{"user": "u"}', 'line 2 needs a string "assistant"'),
        ('{"user": "u", "assistant": 3}', 'line 2 needs a string "assistant"'),
        ('{"user": "u", "assistant": "a", "intent": "code_audit"}', "line 2 has intent 'code_audit'"),
        ('{"user": "u", "assistant": "a", "mood": "happy"}', "line 2 has unknown field(s) mood"),
    ],
)
def test_a_malformed_line_is_named_by_number(line: str, message: str) -> None:
    text = '{"user": "ok", "assistant": "fine"}\n' + line + "\n"
    with pytest.raises(IngestFormatError) as info:
        parse_conversation(text, source="talk.jsonl")
    assert str(info.value).startswith("talk.jsonl, ") and message in str(info.value)
    assert "\n" not in str(info.value)


def test_empty_file_is_an_error() -> None:
    with pytest.raises(IngestFormatError, match="no exchanges"):
        parse_conversation("\n\n")


def test_unreadable_or_non_utf8_file(tmp_path: Path) -> None:
    with pytest.raises(IngestFormatError, match="Cannot read"):
        read_conversation(tmp_path / "missing.jsonl")
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(IngestFormatError, match="not UTF-8"):
        read_conversation(binary)


def test_ingest_admits_completed_turns_with_extraction_jobs(manager: MemoryManager, tmp_path: Path) -> None:
    path = tmp_path / "talk.jsonl"
    path.write_text('{"user": "以后先给结论。", "assistant": "好的。"}\n{"user": "hi", "assistant": "hello"}\n')
    report = ingest(manager, read_conversation(path))
    assert len(report.turn_ids) == 2 and report.thread_id == manager.active_thread().id
    turns = rows(manager, "SELECT status, user_text, assistant_text FROM turns ORDER BY seq")
    assert [tuple(t) for t in turns] == [
        (TurnStatus.COMPLETED.value, "以后先给结论。", "好的。"),
        (TurnStatus.COMPLETED.value, "hi", "hello"),
    ]
    assert [(j.turn_id, j.status) for j in jobs(manager)] == [(t, JobStatus.PENDING) for t in report.turn_ids]


def test_nothing_is_admitted_when_a_later_line_is_bad(manager: MemoryManager, tmp_path: Path) -> None:
    path = tmp_path / "talk.jsonl"
    path.write_text('{"user": "fine", "assistant": "ok"}\n{"user": "broken"\n')
    with pytest.raises(IngestFormatError, match="line 2"):
        ingest(manager, read_conversation(path))
    assert rows(manager, "SELECT count(*) FROM turns")[0][0] == 0


def test_a_failure_midway_rolls_back_the_whole_file(manager: MemoryManager) -> None:
    """Issue 9.7: one transaction for the whole file: exchange 2 is refused, exchange 1 is not kept either."""
    from autopatch_j.memory.errors import InvalidInputError
    from autopatch_j.memory.ingest import Exchange

    exchanges = [
        Exchange(line=1, user="以后先给结论。", assistant="好的。", intent=Intent.GENERAL_CHAT),
        Exchange(line=2, user="   ", assistant="b", intent=Intent.GENERAL_CHAT),  # refused by admission
    ]
    with pytest.raises(InvalidInputError):
        ingest(manager, exchanges)
    assert rows(manager, "SELECT count(*) FROM turns")[0][0] == 0
    assert jobs(manager) == []


def test_live_admission_refuses_text_sqlite_cannot_store(manager: MemoryManager) -> None:
    """A lone surrogate is one clear InvalidInputError, never a UnicodeEncodeError from the driver."""
    from autopatch_j.memory.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="not valid Unicode"):
        manager.begin_turn("hi \ud800", Intent.GENERAL_CHAT)
    assert rows(manager, "SELECT count(*) FROM turns")[0][0] == 0
