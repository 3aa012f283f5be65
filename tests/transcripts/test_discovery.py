"""Which sessions belong to the project, and telling the formats apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from autopatch_j.memory.imports import Source
from autopatch_j.transcripts.discovery import From, claude_slug, detect, expand, project_sessions
from autopatch_j.transcripts.errors import TranscriptFormatError
from tests.transcripts.builders import install_fixture
from tests.transcripts.conftest import CLAUDE_SESSIONS, CODEX_BAD, CODEX_NEW, CODEX_OLD, AgentHome


def test_slug_replaces_every_non_alphanumeric_character_by_one_dash() -> None:
    assert claude_slug(Path("/home/a_b/my.proj")) == "-home-a-b-my-proj"
    assert claude_slug(Path("/x/été")) == "-x--t-"  # each non-ASCII character is one dash


def test_project_sessions_are_confirmed_by_cwd_and_skip_subagents(agent_home: AgentHome) -> None:
    found = project_sessions(agent_home.project, From.AUTO, home=agent_home.home, codex_home=agent_home.codex_home)
    assert sorted((s.source.value, s.session_id) for s in found) == sorted(
        [("claude-code", s) for s in CLAUDE_SESSIONS]
        + [("codex", CODEX_NEW), ("codex", CODEX_OLD), ("codex", CODEX_BAD)]
    )
    assert not any("agent-" in s.path.name or "subagents" in s.path.parts for s in found)
    only_codex = project_sessions(
        agent_home.project, From.CODEX, home=agent_home.home, codex_home=agent_home.codex_home
    )
    assert {s.source for s in only_codex} == {Source.CODEX}


def test_sessions_outside_the_slug_folder_are_found_by_cwd(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    odd = home / ".claude/projects/-truncated-1a2b3c/44444444-4444-4444-8444-444444444444.jsonl"
    install_fixture(f"claude-code/{CLAUDE_SESSIONS[0]}.jsonl", odd, project)
    found = project_sessions(project, From.CLAUDE_CODE, home=home, codex_home=home / ".codex")
    assert [s.path for s in found] == [odd]


def test_no_agent_folders_means_no_sessions(tmp_path: Path, project: Path) -> None:
    assert project_sessions(project, From.AUTO, home=tmp_path, codex_home=tmp_path / ".codex") == []


def test_detect_and_expand_folders(agent_home: AgentHome) -> None:
    assert detect(agent_home.claude_dir / f"{CLAUDE_SESSIONS[0]}.jsonl") is Source.CLAUDE_CODE
    files, skipped = expand([agent_home.codex_home / "sessions"], From.AUTO)
    assert {s.source for s in files} == {Source.CODEX} and len(files) == 4 and skipped == []
    claude, subagents = expand([agent_home.claude_dir], From.AUTO)
    assert len(claude) == 4 and not any(s.path.name.startswith("agent-") for s in claude)
    assert {f.reason for f in subagents} == {"subagent"} and len(subagents) == 2


def test_unknown_file_and_missing_path_are_clear_errors(tmp_path: Path) -> None:
    odd = tmp_path / "notes.jsonl"
    odd.write_text('{"hello": "world"}\n')
    with pytest.raises(TranscriptFormatError, match="not a Claude Code or Codex session"):
        expand([odd], From.AUTO)
    with pytest.raises(TranscriptFormatError, match="does not exist"):
        expand([tmp_path / "missing.jsonl"], From.AUTO)
