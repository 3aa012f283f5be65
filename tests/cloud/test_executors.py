"""Executors: scripted is deterministic, command runs a real subprocess, llm speaks to a real server."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from autopatch_j.cloud.errors import ConfigError
from autopatch_j.cloud.executors import (
    SCRIPTED_REPORT,
    CommandExecutor,
    ExecutionRequest,
    LlmExecutor,
    ScriptedExecutor,
    make_executor,
)
from autopatch_j.cloud.settings import CloudSettings
from autopatch_j.llm.diagnostics import DiagnosticsLog
from autopatch_j.llm.provider import Purpose
from tests.cloud.fake_openai import FakeOpenAI, serve_fake_openai

REQUEST = ExecutionRequest(task_id=7, project_id=1, round=1, prompt="the prompt", goal=None)


def test_instruction_prefers_goal_on_the_first_round_only() -> None:
    assert ExecutionRequest(task_id=1, project_id=1, round=1, prompt="p", goal="g").instruction == "g"
    assert ExecutionRequest(task_id=1, project_id=1, round=2, prompt="p", goal="g").instruction == "p"
    assert REQUEST.instruction == "the prompt"


def test_scripted_result_begins_with_the_exact_instruction() -> None:
    result = ScriptedExecutor(cost_usd=0.25).execute(REQUEST)
    assert result.ok and result.cost_usd == 0.25
    assert result.text == "the prompt" + SCRIPTED_REPORT
    assert len(SCRIPTED_REPORT) >= 200  # passes the default length gate on its own


@pytest.fixture
def agent_script(tmp_path: Path) -> Path:
    script = tmp_path / "agent.py"
    script.write_text(
        "import os, sys, time\n"
        "arg = sys.argv[-1]\n"
        "if arg == 'fail':\n    print('bad things', file=sys.stderr); sys.exit(3)\n"
        "if arg == 'sleep':\n    time.sleep(30)\n"
        "open('seen.txt', 'w').write(arg)\n"
        "print('agent ran in', os.path.basename(os.getcwd()), 'with', arg)\n"
    )
    return script


def test_command_runs_in_a_per_task_work_dir(tmp_path: Path, agent_script: Path) -> None:
    executor = CommandExecutor(argv=(sys.executable, str(agent_script)), work_dir=tmp_path / "work", timeout_seconds=20)
    result = executor.execute(REQUEST)
    assert result.ok and result.text.strip() == "agent ran in task-7 with the prompt"
    assert (tmp_path / "work" / "task-7" / "seen.txt").read_text() == "the prompt"


def test_command_failure_and_timeout_are_failed_results(tmp_path: Path, agent_script: Path) -> None:
    executor = CommandExecutor(argv=(sys.executable, str(agent_script)), work_dir=tmp_path, timeout_seconds=1)
    failed = executor.execute(ExecutionRequest(task_id=1, project_id=1, round=1, prompt="fail", goal=None))
    assert not failed.ok and "status 3" in failed.text and "bad things" in failed.text
    slow = executor.execute(ExecutionRequest(task_id=1, project_id=1, round=1, prompt="sleep", goal=None))
    assert not slow.ok and "timed out" in slow.text
    missing = CommandExecutor(argv=(str(tmp_path / "nope"),), work_dir=tmp_path, timeout_seconds=1)
    assert not missing.execute(REQUEST).ok


def _llm(base_url: str) -> LlmExecutor:
    return LlmExecutor(
        base_url=base_url,
        api_key="sk-test",
        model="m",
        timeout_seconds=5,
        input_usd_per_token=0.001,
        output_usd_per_token=0.002,
    )


def test_llm_makes_one_chat_call_and_prices_usage() -> None:
    with serve_fake_openai(FakeOpenAI(reply="patched", prompt_tokens=100, completion_tokens=50)) as fake:
        result = _llm(fake.base_url).execute(REQUEST)
    assert result.ok and result.text == "patched"
    assert result.cost_usd == pytest.approx(100 * 0.001 + 50 * 0.002)
    [request] = fake.requests
    assert request["model"] == "m" and request["messages"] == [{"role": "user", "content": "the prompt"}]
    assert fake.headers[0]["authorization"] == "Bearer sk-test"


def test_llm_server_error_is_a_failed_result() -> None:
    with serve_fake_openai(FakeOpenAI(status=500)) as fake:
        result = _llm(fake.base_url).execute(REQUEST)
    assert not result.ok and "llm call failed" in result.text and len(fake.requests) == 1


def test_llm_goes_through_the_llm_layer_and_its_diagnostics() -> None:
    """Issue 16: one client, one diagnostics path — the call is the `llm` layer's `task` purpose."""
    log = DiagnosticsLog()
    with serve_fake_openai(FakeOpenAI(reply="done")) as fake:
        ok = dataclasses.replace(_llm(fake.base_url), diagnostics=log).execute(REQUEST)
    with serve_fake_openai(FakeOpenAI(status=500)) as fake:
        failed = dataclasses.replace(_llm(fake.base_url), diagnostics=log).execute(REQUEST)
    assert ok.ok and not failed.ok
    first, second = log.for_purpose(Purpose.TASK)
    assert first.ok and first.model == "m" and first.strategy.timeout_s == 5 and not first.strategy.stream
    assert not second.ok and second.error is not None and second.error.status == 500
    # the stored result names the error's kind and status, never the provider's own text ("boom")
    assert failed.text == "llm call failed: LLMProviderError (HTTP 500)"
    assert fake.requests[0].get("stream") is None and "max_tokens" not in fake.requests[0]


def test_llm_stops_waiting_when_the_run_is_cancelled() -> None:
    request = ExecutionRequest(task_id=7, project_id=1, round=1, prompt="the prompt", goal=None)
    request.cancel.set()
    with serve_fake_openai(FakeOpenAI(reply="too late")) as fake:
        result = _llm(fake.base_url).execute(request)
    assert not result.ok and result.text.startswith("llm call stopped")


def test_make_executor_builds_each_kind_from_settings(tmp_path: Path) -> None:
    settings = CloudSettings(db="sqlite:///x", work_dir=tmp_path, command="codex exec --full-auto")
    assert make_executor("scripted", settings=settings).name == "scripted"
    command = make_executor("command", settings=settings)
    assert isinstance(command, CommandExecutor) and command.argv == ("codex", "exec", "--full-auto")
    assert make_executor("llm", settings=settings).name == "llm"
    with pytest.raises(ConfigError):
        make_executor("nope", settings=settings)
    with pytest.raises(ConfigError):
        make_executor("command", settings=CloudSettings(db="sqlite:///x", command="  "))


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ('{"type": "item.completed", "item": {"type": "mcp_tool_call", "server": "gh"}}', {"mcp"}),
        ('{"type": "item.started", "item": {"item_type": "web_search"}}', {"web_search"}),
        ('{"msg": {"type": "mcp_tool_call_begin"}}\n{"type": "web_search_end"}', {"mcp", "web_search"}),
        ('{"type": "agent_message", "text": "I did not search the web_search"}', set()),
        ("plain text mentioning mcp_tool_call", set()),
        ("{not json", set()),
        ("[1, 2]", set()),
    ],
)
def test_external_context_is_read_from_json_events(output: str, expected: set[str]) -> None:
    from autopatch_j.cloud.executors import detect_external_context

    assert detect_external_context(output) == expected


def test_command_executor_reports_external_context(tmp_path: Path) -> None:
    script = tmp_path / "agent.py"
    script.write_text(
        "import json\nprint(json.dumps({'type': 'item.completed', 'item': {'type': 'mcp_tool_call'}}))\nprint('done')\n"
    )
    result = CommandExecutor(argv=(sys.executable, str(script)), work_dir=tmp_path, timeout_seconds=20).execute(REQUEST)
    assert result.ok and result.external_context == {"mcp"}
