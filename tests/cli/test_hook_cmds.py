"""`autopatch-j hook …` as the agents run it: a real process, stdin or one argument, always exit 0."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.agent_process import run_cli as _run
from tests.cli.agent_process import stored_turns as _turns
from tests.cli.conftest import CliRunner
from tests.transcripts.builders import codex_lines
from tests.transcripts.conftest import CLAUDE_SESSIONS, AgentHome, lay_out


@pytest.fixture
def agents(tmp_path: Path, project: Path) -> AgentHome:
    (project / ".git").mkdir(exist_ok=True)
    return lay_out(AgentHome(home=tmp_path / "home", project=project.resolve()))


def _jobs(project: Path) -> list[str]:
    conn = sqlite3.connect(project / ".autopatch-j" / "memory.db")
    try:
        return [r[0] for r in conn.execute("SELECT status FROM memory_jobs")]
    finally:
        conn.close()


def test_claude_code_hook_imports_that_session_and_leaves_extraction_pending(agents: AgentHome, tmp_path: Path) -> None:
    transcript = agents.claude_dir / f"{CLAUDE_SESSIONS[2]}.jsonl"
    payload = {
        "session_id": CLAUDE_SESSIONS[2],
        "transcript_path": str(transcript),
        "cwd": str(agents.project),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = _run(["hook", "claude-code"], cwd=elsewhere, home=agents.home, stdin=json.dumps(payload))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert _turns(agents.project) == [
        "Name the new module importer.py.",
        "Keep the cursor in the database, in the same transaction as the turns.",
    ]
    assert set(_jobs(agents.project)) == {"pending"}  # the hook never drains
    again = _run(["hook", "claude-code"], cwd=elsewhere, home=agents.home, stdin=json.dumps(payload))
    assert again.returncode == 0 and len(_turns(agents.project)) == 2


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("not json", "not valid JSON"),
        ('{"transcript_path": "/nowhere/x.jsonl"}', "is not a session file"),
        ("[]", "must be a JSON object"),
    ],
)
def test_claude_code_hook_never_fails_the_agent(agents: AgentHome, stdin: str, message: str) -> None:
    done = _run(["hook", "claude-code"], cwd=agents.project, home=agents.home, stdin=stdin)
    assert done.returncode == 0 and message in done.stderr and "Traceback" not in done.stderr
    log = (agents.home / ".state" / "autopatch-j" / "log" / "hooks.log").read_text()  # no project named
    assert message in log and not (agents.project / ".autopatch-j").exists()


def test_codex_notify_admits_the_turn_and_the_rollout_import_does_not_duplicate_it(agents: AgentHome) -> None:
    session = "0199ffff-0000-7000-8000-000000000001"
    rollout = agents.codex_home / "sessions/2025/10/01" / f"rollout-2025-10-01T09-00-00-{session}.jsonl"
    rollout.parent.mkdir(parents=True)
    rollout.write_text("".join(codex_lines(0, 2, session=session, cwd=str(agents.project))))
    notify = {
        "type": "agent-turn-complete",
        "thread-id": session,
        "turn-id": "turn-1",
        "cwd": str(agents.project),
        "input-messages": ["Decision 1: keep option 1."],
        "last-assistant-message": "Option 1 kept.",
    }
    for _ in range(2):  # delivered twice: admitted once
        done = _run(["hook", "codex", json.dumps(notify)], cwd=agents.home, home=agents.home)
        assert (done.returncode, done.stderr) == (0, "")
    assert _turns(agents.project) == ["Decision 1: keep option 1."]
    imported = _run(["memory", "import", rollout.as_posix(), "--json"], cwd=agents.project, home=agents.home)
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout)["totals"]["turns_admitted"] == 1  # turn-0 only
    assert sorted(_turns(agents.project)) == ["Decision 0: keep option 0.", "Decision 1: keep option 1."]


def test_codex_hook_ignores_other_notifications_and_survives_garbage(agents: AgentHome) -> None:
    other = _run(["hook", "codex", '{"type": "approval-requested"}'], cwd=agents.project, home=agents.home)
    assert (other.returncode, other.stderr) == (0, "")
    bad = _run(["hook", "codex", "{oops"], cwd=agents.project, home=agents.home)
    assert bad.returncode == 0 and "not valid JSON" in bad.stderr


# -- hook install -----------------------------------------------------------------------------------


def test_install_claude_code_merges_backs_up_and_is_idempotent(cli: CliRunner, project: Path, tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home"), "XDG_STATE_HOME": str(tmp_path / "state")}
    backups = tmp_path / "state" / "autopatch-j" / "backups"
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = {
        "model": "opus",
        "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "say hi"}]}]},
    }
    settings.write_text(json.dumps(original, indent=4))

    dry = cli("hook", "install", "claude-code", "--dry-run", env=env)
    assert dry.code == 0 and "+" in dry.out and "hook claude-code" in dry.out and "dry run" in dry.out
    assert json.loads(settings.read_text()) == original

    done = cli("hook", "install", "claude-code", env=env)
    assert done.code == 0, done.err
    data = json.loads(settings.read_text())
    assert data["model"] == "opus"
    assert data["hooks"]["Stop"][0]["hooks"][0]["command"] == "say hi"  # kept
    for event in ("Stop", "SessionEnd", "PreCompact"):
        commands = [h["command"] for g in data["hooks"][event] for h in g["hooks"]]
        assert sum(c.endswith("hook claude-code") for c in commands) == 1
    kept = list(backups.glob("*settings.json.bak-*"))
    assert len(kept) == 1 and json.loads(kept[0].read_text()) == original

    text = settings.read_text()
    twice = cli("hook", "install", "claude-code", env=env)
    assert twice.code == 0 and "already installed" in twice.out
    assert settings.read_text() == text and len(list(backups.iterdir())) == 1


def test_install_claude_code_user_scope_creates_the_file(cli: CliRunner, tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = cli("hook", "install", "claude-code", "--user", env={"HOME": str(home)})
    assert done.code == 0, done.err
    assert "Stop" in json.loads((home / ".claude" / "settings.json").read_text())["hooks"]


def test_install_refuses_a_broken_settings_file(cli: CliRunner, project: Path, tmp_path: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{not json")
    result = cli("hook", "install", "claude-code", env={"HOME": str(tmp_path)})
    assert result.code == 1 and "is not valid JSON" in result.err and settings.read_text() == "{not json"


def test_install_codex_adds_notify_keeping_comments(cli: CliRunner, tmp_path: Path) -> None:
    codex_home = tmp_path / "codex"
    codex_home.mkdir()
    config = codex_home / "config.toml"
    config.write_text('# my settings\nmodel = "gpt-5"  # fast\n\n[mcp_servers.docs]\ncommand = "docs-server"\n')
    env = {"HOME": str(tmp_path), "CODEX_HOME": str(codex_home), "XDG_STATE_HOME": str(tmp_path / "state")}
    dry = cli("hook", "install", "codex", "--dry-run", env=env)
    assert dry.code == 0 and "+notify = [" in dry.out
    done = cli("hook", "install", "codex", env=env)
    assert done.code == 0, done.err
    text = config.read_text()
    assert "# my settings" in text and 'model = "gpt-5"  # fast' in text and "[mcp_servers.docs]" in text
    assert text.index("notify = [") < text.index("[mcp_servers.docs]")  # a top-level key, not inside the table
    assert '"hook", "codex"]' in text and len(list((tmp_path / "state" / "autopatch-j" / "backups").iterdir())) == 1
    again = cli("hook", "install", "codex", env=env)
    assert again.code == 0 and "already installed" in again.out and config.read_text() == text


def test_install_codex_refuses_to_clobber_another_notify(cli: CliRunner, tmp_path: Path) -> None:
    codex_home = tmp_path / "codex"
    codex_home.mkdir()
    config = codex_home / "config.toml"
    config.write_text('notify = ["notify-send", "Codex"]\n')
    result = cli("hook", "install", "codex", env={"HOME": str(tmp_path), "CODEX_HOME": str(codex_home)})
    assert result.code == 1 and "already sets notify" in result.err and "hook codex" in result.err
    assert config.read_text() == 'notify = ["notify-send", "Codex"]\n'
    scoped = cli("hook", "install", "codex", "--project", env={"HOME": str(tmp_path), "CODEX_HOME": str(codex_home)})
    assert scoped.code == 1 and "use --user" in scoped.err


def test_the_hooks_start_without_typer_or_rich(agents: AgentHome) -> None:
    code = (
        "import sys\n"
        "from autopatch_j.cli.launch import main\n"
        "main(['hook', 'codex', '{\"type\": \"approval-requested\"}'])\n"
        "print(sorted(m for m in ('typer', 'rich', 'click', 'openai') if m in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.strip() == "[]"


def test_the_typer_commands_run_the_same_hooks(cli: CliRunner, agents: AgentHome, project: Path) -> None:
    notify = {
        "type": "agent-turn-complete",
        "thread-id": "t-typer",
        "turn-id": "1",
        "input-messages": ["Prefer explicit imports."],
        "last-assistant-message": "OK.",
    }
    result = cli("hook", "codex", json.dumps(notify))  # no cwd: the -C project is the root
    assert (result.code, result.err) == (0, "")
    assert _turns(project) == ["Prefer explicit imports."]
    broken = cli("hook", "codex", "{nope")
    assert broken.code == 0 and "not valid JSON" in broken.err
