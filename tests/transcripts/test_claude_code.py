"""Claude Code transcripts → turns: what is imported, what never is, the rewind rule, resuming."""

from __future__ import annotations

from pathlib import Path

import pytest

from autopatch_j.transcripts import claude_code
from autopatch_j.transcripts.jsonl import LineStats, iter_lines
from tests.transcripts.builders import FIXTURES, claude_lines


def _parse(path: Path, offset: int = 0) -> tuple[claude_code.Parsed, LineStats]:
    stats = LineStats()
    return claude_code.parse(iter_lines(path, offset=offset, stats=stats), start=offset, stats=stats), stats


def _pairs(parsed: claude_code.Parsed) -> list[tuple[str, str]]:
    return [(t.turn.user_text, t.turn.assistant_text) for t in parsed.turns]


def test_string_content_tool_rounds_and_injected_blocks() -> None:
    parsed, stats = _parse(FIXTURES / "claude-code/11111111-1111-4111-8111-111111111111.jsonl")
    assert _pairs(parsed) == [
        ("From now on, always answer with the conclusion first.", "Understood: conclusion first from now on."),
        (
            "Why does the build use Java 17?",  # the <system-reminder> is gone
            "The build uses Java 17 because pom.xml sets maven.compiler.release to 17.",  # text after the tool round
        ),
    ]
    assert [t.turn.key for t in parsed.turns] == ["uuid:u1-p1", "uuid:u1-p2"]
    everything = " ".join(u + a for u, a in _pairs(parsed))
    for never in ("Caveat", "/model", "Set model to sonnet", "TodoWrite", "maven.compiler.release>", "Let me check"):
        assert never not in everything
    assert not stats.unparsable
    assert parsed.skipped == {"meta": 1, "not_a_prompt": 2, "summary": 1, "thinking": 1, "tool_output": 2}


def test_block_content_split_messages_compaction_and_interruption() -> None:
    parsed, _ = _parse(FIXTURES / "claude-code/22222222-2222-4222-8222-222222222222.jsonl")
    assert _pairs(parsed) == [
        ("项目统一使用 Python 3.10+，请记住。", "好的，项目统一使用 Python 3.10+。"),  # thinking is never imported
        ("Refactor the parser.", ""),  # interrupted: no text after the last tool round
        ("Let's use tabs for indentation in Makefiles only.", "Agreed: tabs in Makefiles only."),
    ]
    assert all("continued from a previous conversation" not in t.turn.user_text for t in parsed.turns)


def test_rewind_keeps_only_the_branch_the_user_kept_and_skips_sidechains() -> None:
    parsed, _ = _parse(FIXTURES / "claude-code/33333333-3333-4333-8333-333333333333.jsonl")
    assert [u for u, _ in _pairs(parsed)] == [
        "Name the new module importer.py.",
        "Keep the cursor in the database, in the same transaction as the turns.",
    ]  # "Use a global variable…" was abandoned by the rewind; the sidechain search is a subagent's


def test_a_subagent_file_yields_nothing() -> None:
    parsed, _ = _parse(FIXTURES / "claude-code/agent-a1b2c3.jsonl")
    assert parsed.turns == ()


def test_unfinished_last_turn_waits_and_partial_line_is_left(tmp_path: Path) -> None:
    lines = claude_lines(0, 2, session="abcdefgh-1", cwd="/p")
    path = tmp_path / "s.jsonl"
    # Turn 1 is cut after its tool_use; a partial record follows.
    path.write_text("".join(lines[:6]) + lines[6][:25])
    parsed, stats = _parse(path)
    assert [t.turn.key for t in parsed.turns] == ["uuid:abcdefgh-0-p"]
    assert stats.partial_line and stats.end == len("".join(lines[:6]).encode())
    assert parsed.resume_offset == len("".join(lines[:4]).encode())  # where turn 1's prompt starts
    path.write_text("".join(lines))
    resumed, _ = _parse(path, parsed.resume_offset)
    assert [t.turn.key for t in resumed.turns] == ["uuid:abcdefgh-1-p"]
    assert resumed.resume_offset == path.stat().st_size


def test_a_rewind_after_the_cursor_imports_the_new_branch_only(tmp_path: Path) -> None:
    lines = claude_lines(0, 2, session="abcdefgh-1", cwd="/p")
    path = tmp_path / "s.jsonl"
    path.write_text("".join(lines))
    first, _ = _parse(path)
    # The user rewinds to after turn 0 and types something else: a sibling of turn 1's prompt.
    fork = claude_lines(5, 1, session="abcdefgh-1", cwd="/p")
    fork[0] = fork[0].replace('"parentUuid": "abcdefgh-4-a2"', '"parentUuid": "abcdefgh-0-a2"')
    with path.open("a") as handle:
        handle.write("".join(fork))
    again, _ = _parse(path, first.resume_offset)
    assert [t.turn.key for t in again.turns] == ["uuid:abcdefgh-5-p"]


def test_a_local_command_ends_the_turn_before_it(tmp_path: Path) -> None:
    lines = claude_lines(0, 2, session="commands", cwd="/p")
    command = (
        '{"type": "user", "uuid": "cmd", "parentUuid": "commands-0-a2", "isSidechain": false, "cwd": "/p", '
        '"message": {"role": "user", "content": "<command-name>/review</command-name><command-args></command-args>"}}\n'
        '{"type": "assistant", "uuid": "cmd-a", "parentUuid": "cmd", "isSidechain": false, "cwd": "/p", '
        '"message": {"role": "assistant", "content": [{"type": "text", "text": "Review output."}]}}\n'
    )
    lines[4] = lines[4].replace('"parentUuid": "commands-0-a2"', '"parentUuid": "cmd-a"')
    path = tmp_path / "s.jsonl"
    path.write_text("".join(lines[:4]) + command + "".join(lines[4:]))
    parsed, _ = _parse(path)
    assert _pairs(parsed) == [
        ("Decision 0: from now on use option 0.", "Option 0 it is."),  # not "Review output."
        ("Decision 1: from now on use option 1.", "Option 1 it is."),
    ]


@pytest.mark.parametrize("path", sorted((FIXTURES / "claude-code").glob("*.jsonl")), ids=lambda p: p.name)
def test_every_record_read_is_in_a_turn_skipped_with_a_reason_or_waiting(path: Path) -> None:
    parsed, stats = _parse(path)
    in_turns = sum(t.lines for t in parsed.turns)
    assert in_turns + sum(parsed.skipped.values()) + parsed.waiting + len(stats.unparsable) == stats.read
    assert set(parsed.skipped) <= set(claude_code.SKIP_REASONS)
