"""`autopatch-j ask` and `autopatch-j patch show|accept|discard` (H-12), run in-process through the real
entry point and its error boundary."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from autopatch_j.app import providers
from autopatch_j.app.context import AppContext
from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.provider import LLMProvider, Purpose
from tests.cli.conftest import CliRunner
from tests.support.fixtures import openai_server  # noqa: F401
from tests.support.openai_server import FAKE_API_KEY, FAKE_MODEL, FakeOpenAIServer

AUDIT = json.dumps(
    {
        "summary": "One problem.",
        "findings": [{"path": "app.py", "line": 2, "severity": "high", "title": "eval", "detail": "Avoid eval."}],
        "patch": {"path": "app.py", "search": "eval(x)", "replace": "int(x)", "explanation": "Parse an int."},
    }
)


@pytest.fixture
def canned(monkeypatch: pytest.MonkeyPatch) -> Iterator[CannedProvider]:
    provider = CannedProvider()

    def factory(_app: AppContext) -> LLMProvider:
        return provider

    monkeypatch.setattr(providers, "provider_factory", factory)
    yield provider


@pytest.fixture
def app_py(project: Path) -> Path:
    path = project / "app.py"
    path.write_text("def f(x):\n    return eval(x)\n", encoding="utf-8")
    return path


def test_ask_without_an_llm_exits_non_zero_with_one_sentence(cli: CliRunner) -> None:
    result = cli("ask", "hello")
    assert result.code == 5
    assert result.out == ""
    assert result.err.count("\n") == 1 and "Traceback" not in result.err
    assert "AUTOPATCH_LLM_API_KEY" in result.err and "AUTOPATCH_LLM_BASE_URL" in result.err
    assert cli("memory", "status", "--json").json()["counts"]["turns"] == 0


def test_ask_streams_the_answer_to_stdout_and_stores_the_turn(cli: CliRunner, canned: CannedProvider) -> None:
    canned.enqueue(Purpose.MAIN, "Hello! How can I help?")
    result = cli("ask", "hello")
    assert (result.code, result.out) == (0, "Hello! How can I help?\n")
    assert cli("memory", "status", "--json").json()["counts"]["turns"] == 1


def test_ask_json_is_stable(cli: CliRunner, canned: CannedProvider) -> None:
    canned.enqueue(Purpose.MAIN, "Fine.")
    payload = cli("ask", "how are you", "--intent", "general_chat", "--json").json()
    assert payload == {
        "intent": "general_chat",
        "route": {"source": "explicit", "fallback_reason": None},
        "answer": "Fine.",
        "turn_id": 1,
        "thread_id": 1,
        "pending_patch": None,
    }


def test_a_classifier_fallback_is_concise_unless_debug(cli: CliRunner, canned: CannedProvider) -> None:
    canned.enqueue(Purpose.CLASSIFIER, "not json [bold]", "not json [/]")
    canned.enqueue(Purpose.MAIN, "ok", "ok")
    normal = cli("ask", "something ambiguous", "--json").json()
    assert normal["route"] == {"source": "fallback", "fallback_reason": "classifier failed"}
    debug = cli("ask", "something ambiguous", env={"AUTOPATCH_DEBUG": "true"})
    assert debug.out == "ok\n"
    assert "route: general_chat (fallback) — classifier failed: LLMResponseError" in debug.err


def test_an_audit_proposes_a_patch_that_patch_accept_applies(
    cli: CliRunner, canned: CannedProvider, app_py: Path
) -> None:
    canned.enqueue(Purpose.MAIN, AUDIT)
    audit = cli("ask", "audit app.py", "--json").json()
    assert audit["intent"] == "code_audit" and audit["turn_id"] is None
    assert audit["pending_patch"]["path"] == "app.py"
    shown = cli("patch", "show", "--json").json()
    assert shown["pending_patch"]["state"] == "applies" and shown["pending_patch"]["replace"] == "int(x)"
    accepted = cli("patch", "accept", "--json").json()
    assert accepted["applied"]["path"] == "app.py"
    assert app_py.read_text(encoding="utf-8") == "def f(x):\n    return int(x)\n"
    assert cli("patch", "show", "--json").json() == {"pending_patch": None}
    assert cli("memory", "status", "--json").json()["counts"]["turns"] == 0


def test_patch_discard_drops_the_patch_and_keeps_the_file(cli: CliRunner, canned: CannedProvider, app_py: Path) -> None:
    canned.enqueue(Purpose.MAIN, AUDIT)
    cli("ask", "audit app.py")
    text = cli("patch", "show")
    assert "Pending patch for app.py (applies)" in text.out and "+int(x)" in text.out
    assert cli("patch", "discard").out == "Discarded the pending patch for app.py.\n"
    assert app_py.read_text(encoding="utf-8") == "def f(x):\n    return eval(x)\n"


def test_patch_actions_without_a_patch_fail_with_one_sentence(cli: CliRunner) -> None:
    for action in ("accept", "discard"):
        result = cli("patch", action)
        assert result.code == 1
        assert result.err.startswith("error: There is no pending patch") and "Traceback" not in result.err


def test_an_unknown_intent_is_a_usage_error(cli: CliRunner) -> None:
    assert cli("ask", "hi", "--intent", "delete_all").code == 2


def test_ask_uses_the_configured_openai_compatible_endpoint(
    cli: CliRunner,
    openai_server: FakeOpenAIServer,  # noqa: F811 - the shared fixture imported above
) -> None:
    openai_server.reply_stream(["Hi ", "there."])
    env = {
        "AUTOPATCH_LLM_API_KEY": FAKE_API_KEY,
        "AUTOPATCH_LLM_BASE_URL": openai_server.base_url,
        "AUTOPATCH_LLM_MODEL": FAKE_MODEL,
    }
    result = cli("ask", "hello", "--no-drain", env=env)  # only the main request reaches the server
    assert (result.code, result.out) == (0, "Hi there.\n")
    (request,) = openai_server.requests
    assert request.body["model"] == FAKE_MODEL and request.body["stream"] is True
    assert request.headers["authorization"] == f"Bearer {FAKE_API_KEY}"


def test_ask_runs_the_bounded_exit_drain_so_memory_list_shows_the_result(
    cli: CliRunner, canned: CannedProvider
) -> None:
    """Issue 9.11: `ask` then `memory list` shows what the exchange taught, like the REPL's exit drain."""
    canned.enqueue(Purpose.MAIN, "好的，以后先给结论。")
    rules = {"AUTOPATCH_MEMORY_EXTRACTOR": "rules"}
    result = cli("ask", "以后回答先给结论，再写细节。", "--intent", "general_chat", env=rules)
    assert result.code == 0, result.err
    listed = cli("memory", "list", "--json").json()
    assert [item["kind"] for item in listed] == ["user_preference"]
    assert cli("memory", "status", "--json").json()["jobs"] == {"done": 2}


def test_ask_no_drain_leaves_the_jobs_pending(cli: CliRunner, canned: CannedProvider) -> None:
    canned.enqueue(Purpose.MAIN, "好的。")
    rules = {"AUTOPATCH_MEMORY_EXTRACTOR": "rules"}
    result = cli("ask", "以后回答先给结论，再写细节。", "--intent", "general_chat", "--no-drain", env=rules)
    assert result.code == 0, result.err
    assert cli("memory", "list", "--json").json() == []
    assert cli("memory", "status", "--json").json()["jobs"] == {"pending": 1}


def test_ask_sends_the_output_cap_and_says_when_the_answer_hit_it(
    cli: CliRunner,
    openai_server: FakeOpenAIServer,  # noqa: F811 - the shared fixture imported above
) -> None:
    """Issue 17 item 3: `max_tokens` from AUTOPATCH_LLM_MAX_OUTPUT_TOKENS; a `length` stop is reported."""
    openai_server.reply_stream(["A long ", "answer that"], finish_reason="length")
    env = {
        "AUTOPATCH_LLM_BASE_URL": openai_server.base_url,
        "AUTOPATCH_LLM_MODEL": FAKE_MODEL,
        "AUTOPATCH_LLM_MAX_OUTPUT_TOKENS": "64",
    }
    result = cli("ask", "hello", "--no-drain", env=env)  # only the main request reaches the server
    assert result.code == 0 and result.out == "A long answer that\n"
    assert "stopped at the output cap (AUTOPATCH_LLM_MAX_OUTPUT_TOKENS)" in result.err
    assert openai_server.last_request().body["max_tokens"] == 64


def test_ask_past_its_deadline_fails_with_a_clear_message_and_keeps_the_turn(
    cli: CliRunner,
    openai_server: FakeOpenAIServer,  # noqa: F811 - the shared fixture imported above
) -> None:
    openai_server.reply_stream([f"word{i} " for i in range(40)], chunk_delay_s=0.2)
    env = {
        "AUTOPATCH_LLM_BASE_URL": openai_server.base_url,
        "AUTOPATCH_LLM_MODEL": FAKE_MODEL,
        "AUTOPATCH_LLM_DEADLINE_SECONDS": "1",
    }
    result = cli("ask", "tell me everything", "--intent", "general_chat", env=env)
    assert result.code != 0
    assert "deadline" in result.err and "AUTOPATCH_LLM_DEADLINE_SECONDS" in result.err
    assert "Traceback" not in result.err
    status = cli("memory", "status", "--json").json()
    assert status["counts"]["turns"] == 1
