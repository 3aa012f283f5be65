"""Issue 11, ninth round: switches naming both sides, enforcement that ratifies a rule, universal
conventions, typos and regrets as corrections, file contents as code facts, yes/no musings that
weigh nothing — our own words, with lookalikes that form nothing."""

from __future__ import annotations

import pytest

from autopatch_j.memory.manager import MemoryManager
from tests.memory.test_offline import extracted
from tests.memory.test_offline_fifth_round import DECISION, PREF, active, run_each
from tests.memory.test_validation import turn


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("支付服务从 Celery 迁到 Dramatiq。", DECISION),
        ("经过投票，前端构建改用 Vite。", DECISION),
        ("All outbound calls go through the retry wrapper.", DECISION),
        ("Every schema change ships with a rollback note.", DECISION),
        ("Our workers must emit structured logs.", DECISION),
        ("Max line length is 100 for the whole repo.", DECISION),
        ("帮我 debug 的时候，先复现再改。", PREF),
        ("别老在回答里加表情了。", PREF),
        ("以后我问 SQL 问题，先让我贴执行计划，别瞎猜。", PREF),
    ],
)
def test_ninth_round_structures(text: str, kind: str) -> None:
    assert extracted(turn(1, text)) == [(kind, text)]


@pytest.mark.parametrize(
    "text",
    [
        "经过评估，这个方案不可行。",
        "All requests currently go through nginx.",
        "The build is broken for the whole repo.",
        "config.yaml 里默认超时是 30 秒。",
        "The Dockerfile builds from node:20-alpine and copies the dist folder.",
        "要不要上 Kubernetes，我拿不准，帮我分析下利弊。",
        "纠结要不要加一层缓存，回头再说。",
        "Stick with that for now.",
    ],
)
def test_conclusions_states_file_contents_and_yes_no_musings_form_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


@pytest.mark.parametrize(
    ("rule", "enforcement"),
    [
        ("Every schema change comes with a migration test.", "Reviewers, block the PR otherwise."),
        ("每个接口都配一条契约测试。", "否则直接打回。"),
    ],
)
def test_enforcement_after_a_rule_ratifies_it(rule: str, enforcement: str) -> None:
    joined = f"{rule}{'' if rule.endswith('。') else ' '}{enforcement}"
    assert extracted(turn(1, joined)) == [(DECISION, f"{rule} {enforcement}")]


def test_a_comparison_goes_on_past_its_semicolon() -> None:
    text = "我在权衡日志方案：ELK 功能全但重；Loki 轻但查询弱。"
    assert extracted(turn(1, text)) == [("discussion_context", "我在权衡日志方案：ELK 功能全但重； Loki 轻但查询弱。")]


def test_a_comparison_naming_its_alternatives_is_still_a_discussion() -> None:
    text = "Kafka 还是 Pulsar，帮我分析下利弊。"
    assert [kind for kind, _ in extracted(turn(1, text))] == ["discussion_context"]


@pytest.mark.parametrize(
    ("proposal", "reply"),
    [
        ("以后我写 shell 时逐行加注释，你觉得怎么样？", "好呀，正合我意。"),
        (
            "I'd recommend a short glossary at the end of long answers. Should I make that the default?",
            "Great, stick with that.",
        ),
    ],
)
def test_enthusiastic_assent_and_sticking_with_it_confirm(proposal: str, reply: str) -> None:
    prior = turn(1, "?", proposal)
    assert [kind for kind, _ in extracted(turn(2, reply), prior=prior)] in ([DECISION], [PREF])


@pytest.mark.parametrize(
    ("first", "correction", "kind"),
    [
        ("缓存过期时间定成 5 分钟。", "我反悔了，缓存过期时间还是 10 分钟。", DECISION),
        (
            "Reversing isn't needed yet. We'll ship from release branches.",
            "Reversing the shipping call: we ship from main.",
            DECISION,
        ),
        ("API timeouts are 10 seconds, that's the rule.", "API timeouts are now 20 seconds.", DECISION),
    ],
)
def test_regrets_reversed_calls_and_new_values_supersede(
    manager: MemoryManager, first: str, correction: str, kind: str
) -> None:
    run_each(manager, first, correction)
    assert [k for k, content in active(manager) if correction in content] == [kind]
    assert len(active(manager)) == 1


def test_a_typo_correction_supersedes_what_it_corrects(manager: MemoryManager) -> None:
    run_each(manager, "worker 数统一 16 个。", "哦写错了，是 8 个。")
    # Since the twelfth round the content states only the correction; its sources quote both.
    assert active(manager) == [(DECISION, "哦写错了，是 8 个。")]


@pytest.mark.parametrize(
    "restatement",
    ["刚才那条还是要的：以后提交前先跑 make check。", "Let me say it again: every PR needs a linked issue."],
)
def test_a_restatement_after_a_past_reference_is_a_statement(restatement: str) -> None:
    assert [kind for kind, _ in extracted(turn(1, restatement))] in ([DECISION], [PREF])
