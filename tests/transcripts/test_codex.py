"""Codex rollouts and notify payloads → turns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autopatch_j.transcripts import codex
from autopatch_j.transcripts.errors import HookInputError
from autopatch_j.transcripts.jsonl import LineStats, iter_lines
from tests.transcripts.builders import FIXTURES, codex_lines
from tests.transcripts.conftest import CODEX_BAD, CODEX_NEW, CODEX_OLD


def _parse(path: Path, offset: int = 0) -> tuple[codex.Parsed, LineStats]:
    stats = LineStats()
    return codex.parse(iter_lines(path, offset=offset, stats=stats), start=offset, stats=stats), stats


def test_newer_rollout_uses_user_message_events_and_turn_ids() -> None:
    parsed, stats = _parse(FIXTURES / f"codex/new-{CODEX_NEW}.jsonl")
    assert [(t.turn.key, t.turn.user_text, t.turn.assistant_text) for t in parsed.turns] == [
        (
            "turn:turn-1",
            "We decided to keep SQLite as the only local store.",
            "Noted: SQLite stays the only local store.",
        ),
        ("turn:turn-2", "Please answer in English from now on.", "Sure, English from now on."),
    ]
    text = json.dumps([(t.turn.user_text, t.turn.assistant_text) for t in parsed.turns])
    for never in ("environment_context", "user_instructions", "AGENTS.md", "Run ruff", "Summary:", "Noting decision"):
        assert never not in text
    assert not stats.unparsable and "unknown_shape" not in parsed.skipped


def test_older_flat_rollout_without_events_strips_injected_blocks() -> None:
    parsed, _ = _parse(FIXTURES / f"codex/old-{CODEX_OLD}.jsonl")
    assert [(t.turn.user_text, t.turn.assistant_text) for t in parsed.turns] == [
        ("Never commit generated files.", "Understood; generated files stay out of commits."),
        ("What does the importer do?", "It turns sessions into Memory turns."),
    ]
    assert all(t.turn.key.startswith("line:") and t.turn.matches == "turn:" for t in parsed.turns)


def test_malformed_file_counts_bad_lines_and_leaves_the_partial_one() -> None:
    path = FIXTURES / f"codex/malformed-{CODEX_BAD}.jsonl"
    parsed, stats = _parse(path)
    assert [t.turn.user_text for t in parsed.turns] == ["Keep the hook under 200 ms."]
    assert len(stats.unparsable) == 3 and parsed.skipped["unknown_shape"] == 2
    assert stats.partial_line and parsed.resume_offset == stats.end < path.stat().st_size


def test_turn_in_progress_waits_for_task_complete(tmp_path: Path) -> None:
    lines = codex_lines(0, 2, session="s", cwd="/p")
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(lines[:-1]))  # turn 1 has no task_complete yet
    parsed, _ = _parse(path)
    assert [t.turn.key for t in parsed.turns] == ["turn:turn-0", "turn:turn-1"]  # its answer message finished it
    path.write_text("".join(lines[:-2]))  # now without the answer either
    parsed, _ = _parse(path)
    assert [t.turn.key for t in parsed.turns] == ["turn:turn-0"]
    resumed_at = parsed.resume_offset
    assert resumed_at == len("".join(lines[:6]).encode())  # turn 1's turn_context is read again
    path.write_text("".join(lines))
    again, _ = _parse(path, resumed_at)
    assert [t.turn.key for t in again.turns] == ["turn:turn-1"]


def test_notify_payload_becomes_one_turn() -> None:
    payload = {
        "type": "agent-turn-complete",
        "thread-id": "t-1",
        "turn-id": "12",
        "cwd": "/p",
        "input-messages": ["Use uv for packaging."],
        "last-assistant-message": "OK, uv it is.",
    }
    notify = codex.parse_notify(json.dumps(payload))
    assert notify.session_id == "t-1" and notify.turn is not None
    assert (notify.turn.key, notify.turn.user_text, notify.turn.assistant_text) == (
        "turn:12",
        "Use uv for packaging.",
        "OK, uv it is.",
    )
    assert codex.parse_notify(json.dumps({"type": "other", "thread-id": "t"})).turn is None


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("{nope", "not valid JSON"),
        ("[1]", "must be a JSON object"),
        ('{"type": "agent-turn-complete", "thread-id": "t"}', '"thread-id" and "turn-id"'),
        ('{"type": "agent-turn-complete", "thread-id": "t", "turn-id": "1", "input-messages": "x"}', "list of strings"),
    ],
)
def test_bad_notify_payload_is_one_sentence(argument: str, message: str) -> None:
    with pytest.raises(HookInputError, match=message):
        codex.parse_notify(argument)


@pytest.mark.parametrize("path", sorted((FIXTURES / "codex").glob("*.jsonl")), ids=lambda p: p.name)
def test_every_record_read_is_in_a_turn_skipped_with_a_reason_or_waiting(path: Path) -> None:
    parsed, stats = _parse(path)
    in_turns = sum(t.lines for t in parsed.turns)
    assert in_turns + sum(parsed.skipped.values()) + parsed.waiting + len(stats.unparsable) == stats.read
