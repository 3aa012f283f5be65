"""A project, a fake HOME holding Claude Code and Codex sessions laid out as on disk, and its Memory."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.runtime import FakeClock
from tests.transcripts.builders import install_fixture

CLAUDE_SESSIONS = (
    "11111111-1111-4111-8111-111111111111",
    "22222222-2222-4222-8222-222222222222",
    "33333333-3333-4333-8333-333333333333",
)
CODEX_NEW = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
CODEX_OLD = "5b4a3f2e-1d0c-4b9a-8f7e-6d5c4b3a2f10"
CODEX_BAD = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"


@dataclass(frozen=True)
class AgentHome:
    home: Path
    project: Path

    @property
    def codex_home(self) -> Path:
        return self.home / ".codex"

    @property
    def claude_dir(self) -> Path:
        return self.home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(self.project))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "my_proj.v2"
    root.mkdir()
    return root.resolve()


def lay_out(home: AgentHome) -> AgentHome:
    """Every fixture placed where each agent keeps it, plus sessions of another project."""
    project = home.project
    for session in CLAUDE_SESSIONS:
        install_fixture(f"claude-code/{session}.jsonl", home.claude_dir / f"{session}.jsonl", project)
    install_fixture("claude-code/agent-a1b2c3.jsonl", home.claude_dir / "agent-a1b2c3.jsonl", project)
    install_fixture(
        "claude-code/agent-a1b2c3.jsonl",
        home.claude_dir / CLAUDE_SESSIONS[2] / "subagents" / "agent-a1b2c3.jsonl",
        project,
    )
    # The slug is lossy: `my-proj-v2` has the same slug but another cwd, so its session is not ours.
    other = project.parent / "my-proj-v2"
    install_fixture(f"claude-code/{CLAUDE_SESSIONS[0]}.jsonl", home.claude_dir / "other-session.jsonl", other)
    sessions = home.codex_home / "sessions"
    dated = sessions / "2025/09/14" / f"rollout-2025-09-14T10-00-00-{CODEX_NEW}.jsonl"
    install_fixture(f"codex/new-{CODEX_NEW}.jsonl", dated, project)
    flat = sessions / f"rollout-2025-05-01T09-00-00-{CODEX_OLD}.jsonl"  # the older flat layout
    install_fixture(f"codex/old-{CODEX_OLD}.jsonl", flat, project)
    install_fixture(
        f"codex/malformed-{CODEX_BAD}.jsonl",
        sessions / "2025/09/15" / f"rollout-2025-09-15T08-00-00-{CODEX_BAD}.jsonl",
        project,
    )
    install_fixture(
        f"codex/new-{CODEX_NEW}.jsonl",
        sessions / "2025/09/16" / "rollout-2025-09-16T08-00-00-other.jsonl",
        other,
    )
    return home


@pytest.fixture
def agent_home(tmp_path: Path, project: Path) -> AgentHome:
    return lay_out(AgentHome(home=tmp_path / "home", project=project))


@pytest.fixture
def manager(project: Path) -> MemoryManager:
    m = MemoryManager(root=project, clock=FakeClock(), owner="import-test")
    assert m.open().ok
    return m
