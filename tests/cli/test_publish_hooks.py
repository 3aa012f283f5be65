"""The agent hooks honour the `publish` setting: with it on they drain (bounded) and republish after the
import; without it they import only and write no file. Real processes, as the agents start them."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.agent_process import run_cli

SESSION = "0199ffff-0000-7000-8000-00000000abcd"
DECISION = "项目统一使用 Python 3.10+。"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    for name in ("AUTOPATCH_LLM_API_KEY", "AUTOPATCH_LLM_BASE_URL", "AUTOPATCH_LLM_MODEL", "AUTOPATCH_PUBLISH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AUTOPATCH_MEMORY_EXTRACTOR", "rules")
    return root.resolve()


def claude_transcript(folder: Path, cwd: Path) -> Path:
    common = {"isSidechain": False, "userType": "external", "cwd": str(cwd), "sessionId": SESSION, "version": "2.0.75"}
    records = [
        {**common, "type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": DECISION}},
        {
            **common,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "text", "text": "收到，以 3.10+ 为准。"}],
            },
        },
    ]
    path = folder / f"{SESSION}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def job_states(project: Path) -> set[str]:
    conn = sqlite3.connect(project / ".autopatch-j" / "memory.db")
    try:
        return {r[0] for r in conn.execute("SELECT status FROM memory_jobs")}
    finally:
        conn.close()


def claude_hook(project: Path, home: Path, transcript: Path) -> None:
    event = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(project), "hook_event_name": "Stop"}
    done = run_cli(["hook", "claude-code"], cwd=project, home=home, stdin=json.dumps(event))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_claude_code_hook_without_the_setting_imports_only(project: Path, home: Path, tmp_path: Path) -> None:
    (project / "AGENTS.md").write_bytes(b"# mine\n")
    claude_hook(project, home, claude_transcript(tmp_path, project))
    assert job_states(project) == {"pending"}
    assert (project / "AGENTS.md").read_bytes() == b"# mine\n" and not (project / "CLAUDE.md").exists()


def test_without_the_setting_the_hook_loads_nothing_more(project: Path, home: Path, tmp_path: Path) -> None:
    """The agent waits on the hook: with publishing off it must not load pydantic, the pipeline or publish."""
    event = {"session_id": SESSION, "transcript_path": str(claude_transcript(tmp_path, project)), "cwd": str(project)}
    script = (
        "import json, sys\n"
        "from autopatch_j.cli.launch import main\n"
        "main(['hook', 'claude-code'])\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=project,
        input=json.dumps(event),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    modules = set(json.loads(done.stdout.strip().splitlines()[-1]))
    heavy = ("pydantic", "pydantic_settings", "autopatch_j.app.publish.service", "autopatch_j.memory.drain")
    assert [name for name in heavy if name in modules] == []
    assert job_states(project) == {"pending"}


def test_claude_code_hook_with_the_setting_drains_and_publishes(project: Path, home: Path, tmp_path: Path) -> None:
    (project / ".autopatch-j").mkdir()
    (project / ".autopatch-j" / "config.toml").write_text('publish = ["agents", "claude"]\n', encoding="utf-8")
    (project / "AGENTS.md").write_bytes(b"# mine\r\n")
    claude_hook(project, home, claude_transcript(tmp_path, project))
    assert "pending" not in job_states(project)
    for name in ("AGENTS.md", "CLAUDE.md"):
        assert DECISION in (project / name).read_text(encoding="utf-8"), name
    assert (project / "AGENTS.md").read_bytes().startswith(b"# mine\r\n\r\n<!-- autopatch-j:begin decisions -->\r\n")


def test_codex_hook_with_the_setting_drains_and_publishes(project: Path, home: Path) -> None:
    (project / ".autopatch-j").mkdir()
    (project / ".autopatch-j" / "config.toml").write_text('publish = ["agents"]\n', encoding="utf-8")
    notify = {
        "type": "agent-turn-complete",
        "thread-id": SESSION,
        "turn-id": "turn-1",
        "cwd": str(project),
        "input-messages": [DECISION],
        "last-assistant-message": "收到。",
    }
    done = run_cli(["hook", "codex", json.dumps(notify, ensure_ascii=False)], cwd=home, home=home)
    assert (done.returncode, done.stderr) == (0, "")
    assert DECISION in (project / "AGENTS.md").read_text(encoding="utf-8")
    assert not (project / "CLAUDE.md").exists()


def test_a_bad_setting_is_logged_by_the_hook_which_still_exits_0(project: Path, home: Path, tmp_path: Path) -> None:
    (project / ".autopatch-j").mkdir()
    (project / ".autopatch-j" / "config.toml").write_text('publish = ["cursor"]\n', encoding="utf-8")
    event = {"session_id": SESSION, "transcript_path": str(claude_transcript(tmp_path, project)), "cwd": str(project)}
    done = run_cli(["hook", "claude-code"], cwd=project, home=home, stdin=json.dumps(event))
    assert done.returncode == 0 and "'cursor' is not a file it can publish to" in done.stderr
    assert done.stderr.count("\n") == 1 and not (project / "AGENTS.md").exists()
    assert "cursor" in (project / ".autopatch-j" / "hooks.log").read_text(encoding="utf-8")
    assert os.path.exists(project / ".autopatch-j" / "memory.db")
