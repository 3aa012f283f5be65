"""Fixtures for agent tests: a small project, its Memory, a canned provider and the host."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from autopatch_j.agent.host import AgentHost
from autopatch_j.llm.canned import CannedProvider
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.runtime import FakeClock
from autopatch_j.workspace.store import ReviewWorkspace
from tests.support.fixtures import openai_server  # noqa: F401

APP_PY = "import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n"
AUDIT_WITH_PATCH = json.dumps(
    {
        "summary": "Command injection risk.",
        "findings": [
            {"path": "src/app.py", "line": 5, "severity": "high", "title": "shell=True", "detail": "Use a list."}
        ],
        "patch": {
            "path": "src/app.py",
            "search": "subprocess.call(cmd, shell=True)",
            "replace": "subprocess.call(cmd)",
            "explanation": "Do not run through a shell.",
        },
    }
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(APP_PY, encoding="utf-8")
    (root / "README.md").write_text("# demo\nA demo project.\n", encoding="utf-8")
    return root


@pytest.fixture
def manager(project: Path) -> MemoryManager:
    m = MemoryManager(root=project, clock=FakeClock(), owner="test-owner")
    assert m.open().ok
    return m


@pytest.fixture
def workspace(manager: MemoryManager) -> ReviewWorkspace:
    return ReviewWorkspace(directory=manager.paths.workspace)


@pytest.fixture
def canned() -> CannedProvider:
    return CannedProvider()


@pytest.fixture
def host(manager: MemoryManager, canned: CannedProvider, project: Path, workspace: ReviewWorkspace) -> AgentHost:
    return AgentHost(manager=manager, provider=canned, root=project, workspace=workspace)


def turn_rows(manager: MemoryManager) -> list[dict[str, Any]]:
    with manager.db.read("test: turns") as conn:
        rows = conn.execute("SELECT id, thread_id, status, user_text, assistant_text, error FROM turns ORDER BY id")
        return [dict(r) for r in rows.fetchall()]
