"""The automatic publish after the exit drains: `autopatch-j ask` (a subprocess talking to the shared
fake OpenAI server) and the REPL (its pipe-input harness with the real exit drain). With the `publish`
setting on, a decision said in the exchange reaches AGENTS.md when the command returns; a refusal is
one line, never a traceback, and the drained memory stands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from autopatch_j.llm.canned import CannedProvider
from tests.cli.test_repl import Session, chat, host_for, session  # noqa: F401 - the REPL harness
from tests.support.fixtures import openai_server  # noqa: F401
from tests.support.openai_server import FAKE_API_KEY, FAKE_MODEL, FakeOpenAIServer

DECISION = "项目统一使用 Python 3.10+。"
DAMAGED = b"# Notes\n<!-- autopatch-j:begin decisions -->\n- a\n<!-- autopatch-j:begin decisions -->\n"
LLM_VARS = ("AUTOPATCH_LLM_API_KEY", "AUTOPATCH_LLM_BASE_URL", "AUTOPATCH_LLM_MODEL", "AUTOPATCH_DEBUG")


def run(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in LLM_VARS and k != "AUTOPATCH_PUBLISH"}
    environ["AUTOPATCH_MEMORY_EXTRACTOR"] = "rules"
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "autopatch_j", "-C", str(project), *args],
        capture_output=True,
        text=True,
        env=environ,
        timeout=120,
        check=False,
    )


def memories(project: Path) -> list[dict[str, Any]]:
    listed = run(project, "memory", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    result: list[dict[str, Any]] = json.loads(listed.stdout)
    return result


def configured(tmp_path: Path, setting: str = 'publish = ["agents"]\n') -> Path:
    project = tmp_path / "project"
    (project / ".autopatch-j").mkdir(parents=True)
    (project / ".autopatch-j" / "config.toml").write_text(setting, encoding="utf-8")
    return project


def ask(project: Path, server: FakeOpenAIServer, *extra: str) -> subprocess.CompletedProcess[str]:
    server.reply_stream(["好的，", "统一使用 Python 3.10+。"])
    env = {
        "AUTOPATCH_LLM_API_KEY": FAKE_API_KEY,
        "AUTOPATCH_LLM_BASE_URL": server.base_url,
        "AUTOPATCH_LLM_MODEL": FAKE_MODEL,
    }
    return run(project, "ask", DECISION, "--intent", "general_chat", *extra, env=env)


def test_ask_with_publish_on_writes_the_decision_to_agents_md(
    tmp_path: Path,
    openai_server: FakeOpenAIServer,  # noqa: F811 - the shared fixture imported above
) -> None:
    project = configured(tmp_path)
    result = ask(project, openai_server)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "好的，统一使用 Python 3.10+。\n"  # stdout stays the answer
    (decision,) = [m for m in memories(project) if m["kind"] == "project_decision"]
    agents = (project / "AGENTS.md").read_text(encoding="utf-8")
    assert f"[#{decision['id']}]" in agents and "<!-- autopatch-j:begin decisions -->" in agents
    assert not (project / "CLAUDE.md").exists()


def test_ask_without_the_setting_or_with_no_drain_publishes_nothing(
    tmp_path: Path,
    openai_server: FakeOpenAIServer,  # noqa: F811 - the shared fixture imported above
) -> None:
    project = configured(tmp_path, "")
    assert ask(project, openai_server).returncode == 0
    assert not (project / "AGENTS.md").exists()
    (project / ".autopatch-j" / "config.toml").write_text('publish = ["agents"]\n', encoding="utf-8")
    assert ask(project, openai_server, "--no-drain").returncode == 0
    assert not (project / "AGENTS.md").exists()


def test_ask_reports_a_refused_publish_in_one_line_and_keeps_the_drained_memory(
    tmp_path: Path,
    openai_server: FakeOpenAIServer,  # noqa: F811 - the shared fixture imported above
) -> None:
    project = configured(tmp_path)
    (project / "AGENTS.md").write_bytes(DAMAGED)
    result = ask(project, openai_server)
    assert result.returncode == 1 and result.stdout == "好的，统一使用 Python 3.10+。\n"
    assert "Traceback" not in result.stderr
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert "damaged autopatch-j block" in line
    assert (project / "AGENTS.md").read_bytes() == DAMAGED
    assert [m["kind"] for m in memories(project)] == ["project_decision"]


def test_ask_with_a_bad_publish_value_exits_5_before_asking(
    tmp_path: Path,
    openai_server: FakeOpenAIServer,  # noqa: F811 - the shared fixture imported above
) -> None:
    project = configured(tmp_path, 'publish = ["cursor"]\n')
    result = ask(project, openai_server)
    assert result.returncode == 5 and result.stderr.startswith("error: ") and "Traceback" not in result.stderr
    assert openai_server.requests == []


# -- the REPL's exit drain (the pipe-input harness of test_repl.py, the real runtime) ------------------


def repl_exit(session: Session, setting: str) -> None:  # noqa: F811 - the harness fixture's type
    from autopatch_j.cli.repl_entry import connect_memory_runtime

    config = session.app.root / ".autopatch-j" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text(setting, encoding="utf-8")
    runtime, note = connect_memory_runtime(session.app, None, background=False)  # offline extractor
    assert note is None
    provider = chat(CannedProvider(), "收到。")
    session.run(DECISION + "\n\x04", host=host_for(session, provider), runtime=runtime)


def test_repl_exit_drain_publishes_the_decision(session: Session) -> None:  # noqa: F811
    repl_exit(session, 'publish = ["agents", "claude"]\n')
    assert "warning:" not in session.out
    (item,) = session.app.manager().list_items()
    for name in ("AGENTS.md", "CLAUDE.md"):
        assert f"[#{item.id}]" in (session.app.root / name).read_text(encoding="utf-8"), name


def test_repl_exit_drain_reports_a_refused_publish_as_one_warning(session: Session) -> None:  # noqa: F811
    (session.app.root / "AGENTS.md").write_bytes(DAMAGED)
    repl_exit(session, 'publish = ["agents"]\n')
    warnings = [line for line in session.out.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1 and "damaged autopatch-j block" in warnings[0], session.out
    assert "Traceback" not in session.out and "Bye." in session.out
    assert (session.app.root / "AGENTS.md").read_bytes() == DAMAGED
    assert len(session.app.manager().list_items()) == 1


def test_repl_with_a_bad_publish_value_says_so_at_start(session: Session) -> None:  # noqa: F811
    from autopatch_j.cli.repl_entry import PipelineRuntime, connect_memory_runtime

    config = session.app.root / ".autopatch-j" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text('publish = "yes"\n', encoding="utf-8")
    runtime, note = connect_memory_runtime(session.app, None, background=False)
    assert isinstance(runtime, PipelineRuntime)
    assert note is not None and note.startswith("Automatic publish is off: ")
