"""`autopatch-j memory ingest FILE` and `autopatch-j memory drain [--json]` through the real CLI entry point."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from autopatch_j.app import providers
from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.provider import Purpose
from autopatch_j.memory.manager import MemoryManager
from tests.cli.conftest import CliRunner

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "conversation.jsonl"
LLM_ENV = {
    "AUTOPATCH_LLM_API_KEY": "test-key",
    "AUTOPATCH_LLM_BASE_URL": "http://127.0.0.1:9/v1",
    "AUTOPATCH_LLM_MODEL": "canned",
}


@pytest.fixture(autouse=True)
def no_extractor_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTOPATCH_MEMORY_EXTRACTOR", raising=False)


def test_ingest_then_drain_offline_builds_memories_with_provenance(cli: CliRunner, project: Path) -> None:
    ingested = cli("memory", "ingest", str(EXAMPLE), "--json")
    assert ingested.code == 0, ingested.err
    assert ingested.json()["turns"] == 12
    drained = cli("memory", "drain", "--json")
    assert drained.code == 0, drained.err
    report = drained.json()
    assert report["extractor"] == "rules"
    assert report["operations"] == {"create": 6, "supersede": 1}
    assert report["errors"] == [] and report["warnings"] == [] and report["left"] == []
    listed = cli("memory", "list", "--json").json()
    assert len(listed) == 6
    uv = next(item for item in listed if "uv" in item["content"])
    shown = cli("memory", "show", str(uv["id"]), "--json").json()
    assert sorted(s["role"] for s in shown["sources"]) == ["assistant", "user"]
    again = cli("memory", "drain", "--json").json()
    assert again["jobs_run"] == 0


def test_text_output(cli: CliRunner) -> None:
    cli("memory", "ingest", str(EXAMPLE))
    out = cli("memory", "drain")
    assert out.code == 0
    assert "Ran 15 job(s) with the rules extractor" in out.out and "supersede 1" in out.out


def test_malformed_line_admits_nothing(cli: CliRunner, project: Path, tmp_path: Path) -> None:
    bad = tmp_path / "talk.jsonl"
    bad.write_text('{"user": "以后先给结论。", "assistant": "好的。"}\n{"user": "oops"}\n', encoding="utf-8")
    result = cli("memory", "ingest", str(bad))
    assert result.code != 0
    assert "line 2" in result.err and result.err.count("\n") == 1
    status = cli("memory", "status", "--json").json()
    assert status["counts"]["turns"] == 0


def test_drain_with_a_failing_llm_reports_errors_and_exits_nonzero(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    canned = CannedProvider(default=lambda request: "Sure! Here are the memories: [bold]none[/]")
    monkeypatch.setattr(providers, "provider_factory", lambda app: canned)
    cli("memory", "ingest", str(EXAMPLE))
    result = cli("memory", "drain", "--json", env=LLM_ENV)
    assert result.code == 1
    report = result.json()
    assert report["extractor"] == "llm" and report["jobs_run"] == 12 and len(report["retrying"]) == 12
    assert report["errors"] == ["the LLM call failed (LLMResponseError)"] * 3  # one per batch of 4
    assert len(report["warnings"]) == 3
    assert [r.purpose for r in canned.requests] == [Purpose.EXTRACTION] * 3
    status = cli("memory", "status", "--json").json()
    assert status["jobs"]["retry_wait"] == 12 and status["last_error"]


def test_debug_mode_shows_the_raw_error(cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    canned = CannedProvider(default=lambda request: "Sure! [bold]none[/]")
    monkeypatch.setattr(providers, "provider_factory", lambda app: canned)
    cli("memory", "ingest", str(EXAMPLE))
    result = cli("memory", "drain", "--json", env={**LLM_ENV, "AUTOPATCH_DEBUG": "true"})
    raw = result.json()["errors"][0]
    assert "LLMResponseError" in raw and "Sure! [bold]none[/]" in raw
    assert "以后回答先给结论" not in raw  # never the request's messages (M-71)


def test_rules_forced_even_with_an_llm(cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(providers, "provider_factory", lambda app: CannedProvider())
    cli("memory", "ingest", str(EXAMPLE))
    result = cli("memory", "drain", "--json", env={**LLM_ENV, "AUTOPATCH_MEMORY_EXTRACTOR": "rules"})
    assert result.code == 0 and result.json()["extractor"] == "rules"


def test_llm_forced_without_an_llm_is_a_config_error(cli: CliRunner) -> None:
    result = cli("memory", "drain", env={"AUTOPATCH_MEMORY_EXTRACTOR": "llm"})
    assert result.code == 5
    assert "AUTOPATCH_MEMORY_EXTRACTOR=llm" in result.err


def test_expired_job_leases_are_recovered_at_start_and_drained(cli: CliRunner, project: Path) -> None:
    cli("memory", "ingest", str(EXAMPLE))
    manager = MemoryManager(root=project)
    manager.open()
    with manager.db.write("crash") as conn:
        conn.execute("UPDATE memory_jobs SET status = 'leased', owner = 'dead', lease_expires_at = 1 WHERE id <= 2")
    report = cli("memory", "drain", "--json").json()  # the CLI start reclaims them (M-51)
    assert report["jobs_run"] == 15
    with manager.db.read("check") as conn:
        statuses = [row[0] for row in conn.execute("SELECT status FROM memory_jobs WHERE id <= 2")]
    assert statuses and all(status.startswith("succeeded") for status in statuses)


def test_commands_have_help(cli: CliRunner) -> None:
    for command in ("ingest", "drain"):
        result = cli("memory", command, "--help")
        assert result.code == 0 and "--json" in result.out


def test_lone_surrogate_on_a_later_line_admits_nothing_and_leaves_no_open_turn(
    cli: CliRunner, project: Path, tmp_path: Path
) -> None:
    """Issue 9.7: encodability is validated up front; no traceback, no line 1, no leased open turn."""
    bad = tmp_path / "talk.jsonl"
    bad.write_text('{"user": "以后先给结论。", "assistant": "好的。"}\n{"user": "\\ud800", "assistant": "b"}\n')
    result = cli("memory", "ingest", str(bad))
    assert result.code == 1
    assert "line 2" in result.err and result.err.count("\n") == 1
    status = cli("memory", "status", "--json").json()
    assert status["counts"]["turns"] == 0 and status["jobs"] == {}


def _lease_one_batch_elsewhere(project: Path, owner: str = "otherhost:4242:deadbeef") -> None:
    import time

    from autopatch_j.memory.jobs import claim_extraction_in_tx

    m = MemoryManager(root=project, owner=owner)
    assert m.open().ok
    with m.db.write("test: a process that crashed holding a batch") as conn:
        assert claim_extraction_in_tx(conn, owner=owner, now=time.time(), force=True) is not None
    m.close()


def test_drain_text_says_what_is_left_and_why(cli: CliRunner, project: Path) -> None:
    """Issue 9.10: "Ran 0 job(s)" with jobs pending always comes with the reason and the time."""
    cli("memory", "ingest", str(EXAMPLE))
    _lease_one_batch_elsewhere(project)
    out = cli("memory", "drain")
    assert "Ran 0 job(s)" in out.out
    assert "leased by another process (otherhost:4242:deadbeef) until" in out.out
    assert "12 job(s) waiting" in out.out and "wait behind" in out.out


def test_drain_text_names_retry_wait_until(cli: CliRunner, project: Path) -> None:
    cli("memory", "ingest", str(EXAMPLE))
    m = MemoryManager(root=project)
    m.open()
    with m.db.write("test: back off") as conn:
        conn.execute("UPDATE memory_jobs SET status = 'retry_wait', attempts = 1, next_attempt_at = 4102444800")
    m.close()
    out = cli("memory", "drain")
    assert "Ran 0 job(s)" in out.out
    assert "12 in retry_wait until 2100-01-01" in out.out


def test_drain_that_leaves_nothing_says_nothing_more(cli: CliRunner) -> None:
    cli("memory", "ingest", str(EXAMPLE))
    out = cli("memory", "drain")
    assert "waiting" not in out.out


def test_a_20_mb_turn_is_refused_at_ingest_in_one_sentence(cli: CliRunner, tmp_path: Path) -> None:
    """Issue 9.9: the size limit is checked before anything is admitted; the error names it."""
    import json

    big = tmp_path / "big.jsonl"
    big.write_text(json.dumps({"user": "以后先给结论。" + "x" * 20_000_000, "assistant": "好"}) + "\n")
    result = cli("memory", "ingest", str(big))
    assert result.code == 1
    assert "line 1" in result.err and "100,000" in result.err and result.err.count("\n") == 1
    assert cli("memory", "status", "--json").json()["counts"]["turns"] == 0


def test_a_provider_that_rejects_every_batch_as_too_large_ends_in_failed_not_a_loop(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 17: split, then terminal `failed`; the offline rules still build the memories; retry on demand."""
    from autopatch_j.llm.errors import LLMProviderError

    def too_large(request: object) -> str:
        raise LLMProviderError("prompt is too long for the context", status=400, code="context_length_exceeded")

    monkeypatch.setattr(providers, "provider_factory", lambda app: CannedProvider(default=too_large))
    cli("memory", "ingest", str(EXAMPLE))
    result = cli("memory", "drain", "--json", env=LLM_ENV)
    assert result.code == 1
    report = result.json()
    # 12 extraction jobs, then the consolidation children of the offline candidates fail the same way
    assert len(report["failed"]) == 12 + report["consolidations"] and report["retrying"] == []
    assert report["operations"] == {"create": 6, "supersede": 1}  # the offline fallback kept every memory
    assert any("--retry-failed" in warning for warning in report["warnings"])
    again = cli("memory", "drain", "--json", env=LLM_ENV).json()
    assert again["jobs_run"] == 0  # terminal: nothing is retried behind the user's back
    status = cli("memory", "status", "--json").json()
    assert status["jobs"]["failed"] == len(report["failed"]) and len(status["failed_jobs"]) == 10
    assert status["failed_jobs"][0]["error"] == "LLMProviderError"
    assert "--retry-failed" in status["failed_hint"]
    text = cli("memory", "status").out
    assert "failed: job" in text and "memory drain --retry-failed" in text

    canned = CannedProvider(default=lambda request: '{"compaction": "c", "candidates": []}')
    monkeypatch.setattr(providers, "provider_factory", lambda app: canned)
    retried = cli("memory", "drain", "--retry-failed", "--json", env=LLM_ENV)
    assert retried.code == 0, retried.err
    assert retried.json()["revived"] == report["failed"] and retried.json()["failed"] == []
    assert "failed" not in cli("memory", "status", "--json").json()["jobs"]


def test_the_offline_fallback_keeps_two_answer_preferences_whatever_the_revision_model_reads(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28: with the provider failing, the offline rules build the bundled example; a rule on the
    answers' language never retires the rule on their order, even with a revision model that reads every
    pair it is asked about as a revision (threshold 0)."""
    from autopatch_j.llm.errors import LLMProviderError
    from autopatch_j.memory import supersede
    from autopatch_j.memory.revisions import default_revision_model

    def unavailable(request: object) -> str:
        raise LLMProviderError("prompt is too long for the context", status=400, code="context_length_exceeded")

    eager = replace(default_revision_model(), threshold=0.0)
    monkeypatch.setattr(supersede, "default_revision_model", lambda: eager)
    monkeypatch.setattr(providers, "provider_factory", lambda app: CannedProvider(default=unavailable))
    cli("memory", "ingest", str(EXAMPLE))
    cli("memory", "drain", "--json", env=LLM_ENV)
    active = [item["content"] for item in cli("memory", "list", "--json").json()]
    assert any("先给结论" in content for content in active), active
    assert any("answer in English" in content for content in active), active


def _drained(cli: CliRunner, tmp_path: Path, lines: list[dict[str, str]]) -> list[dict[str, str]]:
    """`memory ingest` a conversation of `lines`, `memory drain`, and what `memory list --json` shows."""
    talk = tmp_path / "talk.jsonl"
    talk.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    assert cli("memory", "ingest", str(talk)).code == 0
    assert cli("memory", "drain").code == 0
    listed: list[dict[str, str]] = cli("memory", "list", "--json").json()
    return listed


def test_a_correction_replaces_what_it_corrects_offline(cli: CliRunner, tmp_path: Path) -> None:
    """Issue 11, fifth round: "更正一下：是 3 秒。" after "以后接口超时统一 30 秒。" leaves one memory quoting
    both, found by the topic it never repeats (since the twelfth round its content is the correction
    alone, so the retired 30 is not found); "Scratch that." retires MySQL by name."""
    listed = _drained(
        cli,
        tmp_path,
        [
            {"user": "以后接口超时统一 30 秒。", "assistant": "好的。"},
            {"user": "更正一下：是 3 秒。", "assistant": "收到，3 秒。"},
            {"user": "We're going with MySQL for the billing service.", "assistant": "OK."},
            {"user": "Scratch that. We switched billing to PostgreSQL.", "assistant": "Noted."},
        ],
    )
    assert sorted(item["content"] for item in listed) == [
        "We switched billing to PostgreSQL.",
        "更正一下：是 3 秒。",
    ]
    assert [hit["title"] for hit in cli("memory", "search", "超时", "--json").json()]
    assert cli("memory", "search", "30", "--json").json() == []
    assert cli("memory", "search", "mysql", "--json").json() == []


def test_a_ratification_and_a_chinese_correction_offline(cli: CliRunner, tmp_path: Path) -> None:
    """Issue 11, eighth round: "… That's the team standard." makes the sentence before it one decision
    quoting both; a musing in the progressive forms nothing; "我想了想还是改回来吧，…" supersedes the
    rule it reverses and retires the value its verb took (中文), keeping the topic (提交信息)."""
    listed = _drained(
        cli,
        tmp_path,
        [
            {"user": "Our API errors follow RFC 7807. That's the team standard.", "assistant": "Noted."},
            {"user": "I'm seriously considering dropping the GraphQL gateway.", "assistant": "Worth measuring first."},
            {"user": "以后提交信息用中文写。", "assistant": "好的。"},
            {"user": "我想了想还是改回来吧，提交信息写英文。", "assistant": "好，之后用英文。"},
        ],
    )
    assert sorted((item["kind"], item["content"]) for item in listed) == [
        ("project_decision", "Our API errors follow RFC 7807. That's the team standard."),
        ("user_preference", "我想了想还是改回来吧，提交信息写英文。"),
    ]
    assert [hit["title"] for hit in cli("memory", "search", "rfc", "--json").json()]
    assert [hit["title"] for hit in cli("memory", "search", "提交信息", "--json").json()]
    assert cli("memory", "search", "中文", "--json").json() == []
    assert cli("memory", "search", "graphql", "--json").json() == []


def test_a_switch_naming_both_sides_and_an_enforced_rule_offline(cli: CliRunner, tmp_path: Path) -> None:
    """Issue 11, ninth round: "支付服务从 Celery 迁到 Dramatiq。" is a decision; a rule followed by its
    enforcement ("Reviewers, block the PR otherwise.") is one decision quoting both; a yes/no musing
    that asks for pros and cons weighs no alternatives and forms nothing."""
    listed = _drained(
        cli,
        tmp_path,
        [
            {"user": "支付服务从 Celery 迁到 Dramatiq。", "assistant": "好的。"},
            {
                "user": "Every schema change comes with a migration test. Reviewers, block the PR otherwise.",
                "assistant": "OK.",
            },
            {"user": "要不要上 Kubernetes，我拿不准，帮我分析下利弊。", "assistant": "好处是……"},
        ],
    )
    assert sorted((item["kind"], item["content"]) for item in listed) == [
        ("project_decision", "Every schema change comes with a migration test. Reviewers, block the PR otherwise."),
        ("project_decision", "支付服务从 Celery 迁到 Dramatiq。"),
    ]
    assert [hit["title"] for hit in cli("memory", "search", "dramatiq", "--json").json()]
    assert cli("memory", "search", "kubernetes", "--json").json() == []


def test_a_personal_ratification_and_a_withdrawn_decision_offline(cli: CliRunner, tmp_path: Path) -> None:
    """Issue 11, tenth round: "… That's how I like it, always." makes the sentence before it one
    preference quoting both; "Poetry 那个决定撤回了，team 最后 pick 了 uv。" supersedes the Poetry rule
    and states only its new choice."""
    listed = _drained(
        cli,
        tmp_path,
        [
            {"user": "keep replies short and skip the pleasantries. That's how I like it, always.", "assistant": "OK."},
            {"user": "我们的包管理用 Poetry。", "assistant": "好的。"},
            {"user": "Poetry 那个决定撤回了，team 最后 pick 了 uv。", "assistant": "好，改用 uv。"},
        ],
    )
    assert sorted((item["kind"], item["content"]) for item in listed) == [
        ("project_decision", "team 最后 pick 了 uv。"),  # the withdrawal is quoted, not stated
        ("user_preference", "keep replies short and skip the pleasantries. That's how I like it, always."),
    ]
    assert [hit["title"] for hit in cli("memory", "search", "pleasantries", "--json").json()]


def test_a_rule_said_without_any_marker_becomes_a_decision_a_temporary_one_does_not(
    cli: CliRunner, project: Path, tmp_path: Path
) -> None:
    """Issue 11: the learned speech model reads a rule that no listed marker announces; the hard
    gates still stop the temporary lookalike."""
    conversation = tmp_path / "conv.jsonl"
    turns = [
        {
            "user": "All request logs are written as JSON lines to stdout; nothing goes to local files.",
            "assistant": "OK.",
        },
        {"user": "For today's demo only, write the request logs to a local file.", "assistant": "Sure."},
    ]
    conversation.write_text("".join(json.dumps(t) + "\n" for t in turns), encoding="utf-8")
    assert cli("memory", "ingest", str(conversation)).code == 0
    assert cli("memory", "drain", "--json").json()["operations"] == {"create": 1}
    [item] = cli("memory", "list", "--json").json()
    assert item["kind"] == "project_decision"
    assert item["content"].startswith("All request logs are written as JSON lines to stdout;")
    shown = cli("memory", "show", str(item["id"]), "--json").json()
    assert " ".join(s["quote"] for s in shown["sources"]) == turns[0]["user"]  # a quote per clause
    assert {s["role"] for s in shown["sources"]} == {"user"}
    assert [hit["id"] for hit in cli("memory", "search", "log", "--json").json()] == [item["id"]]


_RULES_BESIDE_A_PASTE = (
    "All database access goes through the repository layer, no raw SQL in handlers.",
    "Also keep your answers short, I read them on my phone.",
)


def test_a_pasted_traceback_is_never_a_memory_and_the_rule_beside_it_is(
    cli: CliRunner, project: Path, tmp_path: Path
) -> None:
    quotes = _quotes_after_a_paste(cli, tmp_path)
    assert any(_RULES_BESIDE_A_PASTE[0] in quote for quote in quotes), quotes
    assert not any(word in quote for quote in quotes for word in ("Traceback", "ValueError", "trace below")), quotes


def test_an_unmarked_preference_beside_a_paste_is_kept_too(cli: CliRunner, project: Path, tmp_path: Path) -> None:
    quotes = _quotes_after_a_paste(cli, tmp_path)
    assert any(_RULES_BESIDE_A_PASTE[1] in quote for quote in quotes), quotes


def _quotes_after_a_paste(cli: CliRunner, tmp_path: Path) -> list[str]:
    """Ingest and drain a turn holding a pasted traceback (whose exception line says "from now on")
    and two rules; the quotes of every stored memory."""
    rules = _RULES_BESIDE_A_PASTE
    pasted = (
        "tests blew up again after the bump, trace below:\n\n"
        'Traceback (most recent call last):\n  File "app/db.py", line 42, in connect\n'
        "    pool = create_pool(dsn)\nValueError: from now on the dsn must carry a port\n\n"
    )
    talk = tmp_path / "session.jsonl"
    lines = [
        {"user": "can you look at the failing job?", "assistant": "Sure, send me the log."},
        {"user": pasted + " ".join(rules), "assistant": "Got it — the DSN is missing the port."},
    ]
    talk.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert cli("memory", "ingest", str(talk)).code == 0
    assert cli("memory", "drain", "--json").code == 0
    return [
        source["quote"]
        for item in cli("memory", "list", "--json").json()
        for source in cli("memory", "show", str(item["id"]), "--json").json()["sources"]
    ]
