"""`autopatch-j eval`: the corpus through the real pipeline, offline and canned, with every invariant holding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from autopatch_j.quality.corpus import MIN_CASES, CorpusFolder
from tests.quality.eval_runs import SEED, eval_app, run_eval
from tests.quality.test_corpus import RETIRED_PREFIXES

#: `long_query` cases of the dev part that the ranked search answers (see the test that lists them).
KNOWN_LONG_QUERY_HITS = [
    "en-long-01", "t-en-long-01", "t-mix-long-01", "h2-en-long-03", "h3-zh-long-02", "h3-en-long-01",
    "h3-en-long-03", "h3-mix-long-01", "h4-zh-long-03", "h4-en-long-01", "h5-en-long-01", "h5-en-long-03",
    "h6-zh-long-01",
    "h6-zh-long-03", "h6-en-long-01", "h6-en-long-03", "h7-en-long-03", "h7-mix-long-01", "h8-en-long-01",
    "h9-zh-long-03", "h9-en-long-01", "h9-en-long-03", "h10-zh-long-01", "h10-zh-long-02",
    "h10-en-long-01", "h10-en-long-02", "h10-en-long-03", "h10-mix-long-01", "h10b-zh-long-01", "h10b-zh-long-03",
    "h11-zh-long-01", "h11-zh-long-03", "h11-en-long-01", "h11-en-long-03", "h12-zh-long-01", "h12-en-long-01",
    "h12-en-long-03", "h13-en-long-01", "h14-en-long-01", "h15-zh-long-01", "h15-en-long-01", "h16-en-long-01",
    "h16-en-long-03", "h18-zh-long-03", "h18-en-long-01", "h18-en-long-03",
    "h19-en-long-01", "h20-zh-long-01", "h20-zh-long-03", "h20-en-long-01",
]  # fmt: skip


# The two whole-part runs are session fixtures: every test that reads one shares its xdist group, so
# each run is made once, on one worker, while the other worker runs the rest (docs/testing.md).
OFFLINE = pytest.mark.xdist_group("eval-offline")
CANNED = pytest.mark.xdist_group("eval-canned")


def _app() -> typer.Typer:
    return eval_app()


def _eval(tmp_path_factory: pytest.TempPathFactory, *args: str) -> tuple[int, str]:
    return run_eval(tmp_path_factory, *args)


def _check(data: dict[str, Any]) -> None:
    assert data["corpus"]["cases"] >= MIN_CASES
    assert data["invariants"] == {
        "illegal_provenance": 0,
        "repair_memory_leakage": 0,
        "cross_repo_leakage": 0,
        "forgotten_rebuilt": 0,
        "provenance_completeness": 1.0,
        "subject_conflicts": 0,
    }, data["details"]
    assert data["invariants_ok"]
    assert data["seed"] == SEED
    # The invariants were measured, not assumed: there was something to measure.
    assert data["details"]["repair_requests_scanned"] >= 3 * len(data["cases"])
    assert data["details"]["forgotten_memories"] >= 6
    assert data["details"]["replay_probes"] >= 6
    assert data["details"]["active_preferences_decisions"] >= 30
    assert set(data["categories"]) >= {"explicit_preference", "cross_thread", "forgetting", "mixed_language"}


@OFFLINE
def test_offline_mode_holds_every_invariant(offline: dict[str, Any]) -> None:
    _check(offline)


@OFFLINE
def test_each_part_is_reported_separately_with_its_own_invariants(offline_parts: dict[str, Any]) -> None:
    """dev always; the held-out test part whenever this build bundles it (issue 11)."""
    expected = ["dev", "test"] if CorpusFolder.of_checkout().has_part("test") else ["dev"]
    assert list(offline_parts["parts"]) == expected
    for name, part in offline_parts["parts"].items():
        assert part["part"] == name and part["invariants_ok"], (name, part["invariants"])
        assert part["totals"]["cases"] == len(part["cases"]) > 0
        assert part["invariants"]["provenance_completeness"] == 1.0
        assert part["details"]["repair_requests_scanned"] >= 3 * len(part["cases"])


@OFFLINE
def test_the_dev_part_reports_the_retired_test_cases_as_dev(offline_parts: dict[str, Any]) -> None:
    """Issue 11: each round's held-out part was measured once, then retired into dev; figures per file."""
    from autopatch_j.quality.corpus import RETIRED

    dev = offline_parts["parts"]["dev"]
    expected = {"corpus.json": {"cases": 120, "passed": dev["files"]["corpus.json"]["passed"]}}
    for name, prefix in zip(RETIRED, RETIRED_PREFIXES, strict=True):
        retired = [c for c in dev["cases"] if c["id"].startswith(prefix)]
        expected[name] = {"cases": len(retired), "passed": sum(c["passed"] for c in retired)}
    assert dev["files"] == expected
    assert [v["cases"] for v in expected.values()] == [120, 96] + [105] * 20
    # Every one of the project's own cases passes offline: en-long-01, a long question of common words
    # ("… the answer to the question about the build …"), no longer finds the offline extractor's
    # "Answer order: conclusion first" since a match crosses scripts by the memory's title, not by the
    # keys it holds (docs/retrieval.md, round 32); canned mode still finds it (KNOWN_LONG_QUERY_HITS).
    # A known false hit: zh-long-01 ("…代码出现了问题应该怎么去排查和定位这个问题的原因") finds 回答顺序：先给结论
    # with the associations fitted on d37–d39; round 32's associations.txt finds nothing (docs/retrieval.md,
    # "Round 33, after the first look: refit on d37–d39").
    corpus_ids = {c["id"] for c in dev["cases"] if not c["id"].startswith(tuple(RETIRED_PREFIXES))}
    assert [c["id"] for c in dev["cases"] if c["id"] in corpus_ids and not c["passed"]] == ["zh-long-01"]
    assert dev["files"]["corpus.json"]["passed"] == 119


def test_a_missing_test_part_is_refused_in_one_sentence(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from autopatch_j.quality import corpus, parts

    monkeypatch.setitem(corpus.PART_FILES, "test", ("corpus_not_written_yet.json",))
    code, out = _eval(tmp_path_factory, "--part", "test")
    assert code == 2
    folder = CorpusFolder.of_checkout().path
    assert out.strip() == f"error: {folder} has no test part (corpus_not_written_yet.json is missing)."
    with pytest.raises(corpus.CorpusError, match="no test part"):
        parts.load_part("test")


def test_an_unknown_part_is_refused(tmp_path_factory: pytest.TempPathFactory) -> None:
    code, out = _eval(tmp_path_factory, "--part", "train")
    assert code == 2
    assert "--part takes dev, test, generated" in out


@CANNED
def test_canned_mode_holds_every_invariant(canned: dict[str, Any]) -> None:
    _check(canned)


@CANNED
def test_canned_mode_rejects_every_adversarial_output(canned: dict[str, Any]) -> None:
    adversarial = canned["details"]["adversarial"]
    injected = sum(adversarial["structural_injected"].values())
    assert injected >= 20
    assert adversarial["structural_rejected"] == injected  # each made its job retry; none was applied
    assert adversarial["semantic_injected"] >= 5
    assert adversarial["replays_of_forgotten_evidence"] >= 6


@CANNED
def test_canned_mode_finds_what_it_was_scripted_to_find(canned: dict[str, Any]) -> None:
    totals = canned["totals"]
    assert totals["recall"] >= 0.9 and totals["query_recall"] >= 0.9
    # Known query hits it should not have, listed so that any change shows:
    # - a scripted reversal quotes only the part of its sentence without the marker ("cut that to one
    #   day"); the validator finds no speech act in it (no listed marker, the speech model and the reader
    #   below their thresholds), refuses it, and the old value ("three") is still found (docs/quality.md);
    # - 50 `long_query` cases, whose expectation was written for all-or-nothing matching: the ranked
    #   search finds the memory through the domain words the long question shares with it ("database" in
    #   "what is the rule for the things in the database that we must do …"), and the learned qualifier
    #   keeps a short memory most of whose words the question names ("remind me what we said about
    #   feature flags" → "Feature flags managed in Unleash"). The realistic nothing-queries decide
    #   (docs/retrieval.md, "Known conflicts with the dev corpus").
    wrong = [case["id"] for case in canned["cases"] if case["query_fp"]]
    long_queries = [case_id for case_id in wrong if "-long-" in case_id]
    assert [case_id for case_id in wrong if case_id not in long_queries] == ["h19-en-rev-03"]
    assert long_queries == KNOWN_LONG_QUERY_HITS, " ".join(long_queries)


NEGATIVE_CATEGORIES = ("code_fact", "assistant_only_claim", "confirmation_without_proposal", "forgetting")


def _negative_misses(data: dict[str, Any]) -> dict[str, list[str]]:
    """The cases of each negative category that formed a preference or decision anyway."""
    return {name: [c["id"] for c in data["cases"] if c["category"] == name and c["fp"]] for name in NEGATIVE_CATEGORIES}


@OFFLINE
def test_negative_categories_form_no_preference_or_decision_offline(offline: dict[str, Any]) -> None:
    # With the sentence reader as Stage 1, "我们的 Dockerfile 默认基于 alpine 镜像构建。" (h20-zh-fact-02,
    # the one miss of the lexicon-first reading) forms no decision: no negative case forms one.
    misses = _negative_misses(offline)
    assert misses == {name: [] for name in NEGATIVE_CATEGORIES}


@CANNED
def test_negative_categories_form_no_preference_or_decision_canned(canned: dict[str, Any]) -> None:
    assert _negative_misses(canned) == {name: [] for name in NEGATIVE_CATEGORIES}


def test_a_corpus_below_the_floor_is_refused(tmp_path_factory: pytest.TempPathFactory) -> None:
    bundled = Path(__file__).parents[2] / "eval" / "corpus" / "corpus.json"
    raw = json.loads(bundled.read_text(encoding="utf-8"))
    raw["cases"] = raw["cases"][:6]
    small = tmp_path_factory.mktemp("corpus") / "small.json"
    small.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(Exception, match="at least 80"):
        _eval(tmp_path_factory, "--json", "--corpus", str(small))


def test_live_mode_needs_its_switch(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTOPATCH_LIVE_EVAL", raising=False)
    code, out = _eval(tmp_path_factory, "--mode", "live")
    assert code == 2
    assert "AUTOPATCH_LIVE_EVAL=1" in out


def test_live_mode_runs_through_the_real_client(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The live path (settings → OpenAIProvider → HTTP) against a loopback OpenAI-compatible server
    that never proposes a memory: every job ends without output, and the invariants still hold.
    A stratified sample wires the path through every category; the offline and canned runs above
    cover the whole dev part."""
    from tests.support.openai_server import FakeOpenAIServer, Reply, completion_body

    def answer(request: Any) -> Reply:
        system = request.body["messages"][0]["content"]
        content = {"operations": []} if system.startswith("You consolidate") else {"compaction": "", "candidates": []}
        return Reply(body=json.dumps(completion_body(json.dumps(content))).encode())

    with FakeOpenAIServer(fallback=answer) as server:
        monkeypatch.setenv("AUTOPATCH_LIVE_EVAL", "1")
        monkeypatch.setenv("AUTOPATCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("AUTOPATCH_LLM_MODEL", "fake-model")
        monkeypatch.setenv("AUTOPATCH_LLM_API_KEY", "sk-test")
        code, out = _eval(
            tmp_path_factory, "--json", "--mode", "live", "--part", "dev", "--seed", str(SEED), "--sample", "60"
        )
        bodies = [request.body for request in server.requests]
    assert code == 0, out[-2000:]
    data = json.loads(out)
    assert data["mode"] == "live" and data["invariants_ok"]
    data = data["parts"]["dev"]
    assert len(data["cases"]) == 60 and len({case["category"] for case in data["cases"]}) == 15
    assert data["totals"]["tp"] == 0 and data["details"]["pipeline_steps"]["succeeded_no_output"] >= 60
    assert bodies and all(body["model"] == "fake-model" and body.get("temperature") == 0 for body in bodies)
    assert not any(body.get("stream") for body in bodies)


def test_a_live_sample_shows_progress_and_writes_partial_results(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 17 item 6: `--sample N` (stratified), a progress line per case, partial JSON lines as it goes."""
    from tests.support.openai_server import FakeOpenAIServer, Reply, completion_body

    def answer(request: Any) -> Reply:
        system = request.body["messages"][0]["content"]
        content = {"operations": []} if system.startswith("You consolidate") else {"compaction": "", "candidates": []}
        return Reply(body=json.dumps(completion_body(json.dumps(content))).encode())

    partial = tmp_path_factory.mktemp("out") / "partial.jsonl"
    with FakeOpenAIServer() as server:
        for _ in range(500):
            server.enqueue(answer)
        monkeypatch.setenv("AUTOPATCH_LIVE_EVAL", "1")
        monkeypatch.setenv("AUTOPATCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("AUTOPATCH_LLM_MODEL", "fake-model")
        code, out = _eval(
            tmp_path_factory, "--mode", "live", "--part", "dev", "--sample", "8", "--partial", str(partial)
        )
    assert code == 0, out[-2000:]
    assert "eval dev: 8 cases (a stratified sample of 2316)" in out  # corpus.json + the twenty-one retired test parts
    assert "[1/8]" in out and "[8/8]" in out
    lines = [json.loads(line) for line in partial.read_text(encoding="utf-8").splitlines()]
    assert [line["done"] for line in lines[:-1]] == list(range(1, 9))
    assert len({line["case"]["category"] for line in lines[:-1]}) == 8  # one case from each of 8 categories
    assert lines[-1]["final"] is True and lines[-1]["invariants_ok"] is True


def test_eval_help_names_the_live_switch_and_the_slow_model_options() -> None:
    result = CliRunner().invoke(_app(), ["eval", "--help"], terminal_width=200)
    assert result.exit_code == 0
    for needle in ("AUTOPATCH_LIVE_EVAL=1", "--sample", "--partial"):
        assert needle in result.output


def test_an_invariant_break_exits_non_zero(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from autopatch_j.quality import evaluate as evaluate_module

    def broken(corpus: Any, **options: Any) -> evaluate_module.EvalReport:
        invariants = {
            "illegal_provenance": 1,
            "repair_memory_leakage": 0,
            "cross_repo_leakage": 0,
            "forgotten_rebuilt": 0,
            "provenance_completeness": 0.98,
        }
        return evaluate_module.EvalReport(
            mode="offline", seed=SEED, corpus_version=corpus.version, cases=[], invariants=invariants,
            details={}, elapsed_s=0.0,
        )  # fmt: skip

    monkeypatch.setattr(evaluate_module, "evaluate", broken)
    code, out = _eval(tmp_path_factory, "--json")
    assert code == 1
    assert json.loads(out)["invariants_ok"] is False
