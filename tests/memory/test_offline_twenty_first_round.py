"""Issue 11, twenty-first round: gates that fired on a word outside what it gates — a deliberation
that has ended ("We're done debating it:"), a hedge that is prohibited ("别上来就猜"), a choice the
user asks to be told ("注明是 A 还是 B"), a reason after a correction ("7 天太短了") — and questions
that ask without a question mark ("以后会不会…呢", "Remind me which …") — our own words, with
lookalikes."""

from __future__ import annotations

import pytest

from autopatch_j.memory.manager import MemoryManager
from tests.memory.test_offline import extracted
from tests.memory.test_offline_fifth_round import DECISION, PREF, active, run_each
from tests.memory.test_validation import turn


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        # a deliberation that has ended settles; one the choice made the user feel is a reason
        ("We're done debating it: every API response is wrapped in an envelope from now on.", [DECISION]),
        ("We're finished going back and forth on this, the repo uses conventional commits from now on.", [DECISION]),
        ("别再纠结了，以后接口统一返回 envelope。", [DECISION]),
        ("列三个方案看得我更纠结，以后只给我一个就行。", [PREF]),
        # a prohibited hedge is what the rule forbids
        ("以后排查问题的时候先看日志，别上来就猜。", [PREF]),
        ("From now on, don't guess at the cause; ask me for the logs first.", [PREF]),
        # the choice the user asks to be told is no question of theirs
        ("以后给我的 SQL 都请注明是 MySQL 还是 Postgres 的语法。", [PREF]),
        # "凡是 … 都" quantifies over every case: a standing rule
        ("凡是你改过的函数，都请在回答里列出来。", [PREF]),
    ],
)
def test_gates_that_fired_on_the_wrong_words(text: str, kinds: list[str]) -> None:
    assert [k for k, _ in extracted(turn(1, text))] == kinds


@pytest.mark.parametrize(
    "text",
    [
        "We're still debating whether to wrap API responses in an envelope.",
        "我还在纠结以后要不要统一返回 envelope。",
        "我猜以后会换成 Redis。",
        "I guess we'll move to Redis at some point.",
        "这个接口以后用 REST 还是 gRPC？",
        # asking without a question mark
        "Kotlin 看着不错，以后会不会换过去呢，再观望一下。",
        "以后是不是都得用 TypeScript 呢，我也说不好。",
        "Remind me which logger we settled on.",
        "Remind me what we decided about the release branches.",
        "凡是能跑的脚本我都试过了。",
        # a one-off request scheduled for later
        "When you get a chance, rename the helpers in utils.py so they all start with a verb.",
        "有空的时候把 README 里的安装步骤都统一成 pip 的写法。",
    ],
)
def test_their_lookalikes_state_no_preference_or_decision(text: str) -> None:
    assert [k for k, _ in extracted(turn(1, text)) if k != "discussion_context"] == []


def test_a_correction_with_a_reason_after_it_corrects() -> None:
    found = extracted(turn(1, "日志统一保留 7 天，这个我们定了。"), turn(2, "等一下，我记错了，是 30 天，7 天太短了。"))
    assert [k for k, _ in found] == [DECISION, DECISION]
    assert "30 天" in found[1][1]


def test_a_code_switched_update_label_revises_what_it_names(manager: MemoryManager) -> None:
    run_each(manager, "发版统一放在周二下午，team 定的。", "update 一下，发版改到周四上午。")
    ((kind, content),) = active(manager)
    assert kind == DECISION and "周四" in content


def test_a_correction_with_a_reason_after_it_supersedes(manager: MemoryManager) -> None:
    run_each(manager, "日志统一保留 7 天，这个我们定了。", "等一下，我记错了，是 30 天，7 天太短了。")
    ((kind, content),) = active(manager)
    assert kind == DECISION and "30" in content


@pytest.mark.parametrize(
    "text",
    [
        "你每次解释都绕一大圈，我看着很累。",
        "你每次都贴整个文件，读得我头疼。",
    ],
)
def test_a_habit_of_the_assistant_the_user_finds_tiring_is_a_complaint(text: str) -> None:
    assert extracted(turn(1, text)) == []


def test_the_rule_after_a_complaint_is_still_one() -> None:
    found = extracted(turn(1, "你每次解释都绕一大圈，我看着很累。以后直接说结论就行。"))
    assert [(k, c) for k, c in found] == [(PREF, "以后直接说结论就行。")]
