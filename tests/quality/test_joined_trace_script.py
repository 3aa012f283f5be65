"""`scripts/realistic_joined_trace.py` says which decision put two gold memories in one memory."""

from __future__ import annotations

from pathlib import Path

from tests.support.scripts import run_over_session

SENTENCE = "以后接口超时统一设成 3 秒 然后日志里不许打用户的手机号"


def _memory(key: str, quote: str) -> dict[str, object]:
    return {
        "key": key,
        "kind": "project_decision",
        "subject": key,
        "title": key,
        "content": quote,
        "sources": [{"turn": 0, "role": "user", "quote": quote}],
        "state": "active",
        "superseded_by": None,
    }


SESSION = {
    "id": "c5-001",
    "language": "zh",
    "note": "two rules dictated in one sentence",
    "turns": [{"user": SENTENCE, "assistant": "好的。"}],
    "memories": [_memory("m1", "接口超时统一设成 3 秒"), _memory("m2", "日志里不许打用户的手机号")],
    "not_memories": [],
    "queries": [],
}


def test_two_rules_of_one_unpunctuated_sentence_are_traced_to_the_sentence(tmp_path: Path) -> None:
    run = run_over_session("scripts/realistic_joined_trace.py", SESSION, "c5", tmp_path)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "== c5-001 m" in out and " [project_decision] gold quotes: " in out
    assert "(one sentence): [(0, 'user', '" + SENTENCE + "')]" in out
    assert out.rstrip().endswith("one sentence 1, joining model 0, other 0"), out
