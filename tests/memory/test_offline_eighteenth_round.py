"""Issue 11, eighteenth round: "from now on" is no "now" of a description, a standing marker before a
thing that runs somewhere is the project's, "Make that the rule for …" ratifies, "team 里都 OK", "我收回",
遵守, "X 之前" as a postposition, a restatement after a forget, an offer pointed back to by "Shall I do
that from now on?" — our own words, with lookalikes."""

from __future__ import annotations

import pytest

from autopatch_j.memory.drain import drain
from autopatch_j.memory.manager import MemoryManager
from tests.memory.pipeline_support import admit, pipeline_for
from tests.memory.test_offline import extracted
from tests.memory.test_offline_fifth_round import DECISION, PREF, active, run_each
from tests.memory.test_search import search
from tests.memory.test_validation import turn


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("All secrets go through Vault from now on, no more .env files in chat.", DECISION),
        ("Going forward, nightly jobs run on the new cluster.", DECISION),
        ("Going forward, run the linter before you show me a diff.", PREF),
        ("Every request is logged with a trace id. Make that the rule for every service.", DECISION),
        ("日志字段的命名就定成 snake_case 了，团队里都同意。", DECISION),
        ("接口返回要带 request id，新服务必须遵守。", DECISION),
        ("以后 merge 之前提醒我先看一眼 changelog。", PREF),
    ],
)
def test_more_rules_and_their_owners(text: str, kind: str) -> None:
    assert [k for k, _ in extracted(turn(1, text))] == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "Right now all traffic goes through the old gateway.",
        "我们上次 merge 之前没跑测试。",
        "Make that the rule? Not sure yet.",
    ],
)
def test_their_lookalikes_form_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


def test_taking_a_preference_back_by_name_supersedes_it(manager: MemoryManager) -> None:
    run_each(manager, "以后给我的脚本都加上详细日志。", "详细日志那个我收回，太吵了，脚本里只打错误日志就行。")
    ((kind, content),) = active(manager)
    assert kind == PREF and "错误日志" in content


def test_wanting_a_forgotten_rule_back_after_naming_the_forget(manager: MemoryManager) -> None:
    run_each(manager, "刚才 forget 掉那条，我还是想要：写正则时请逐段加注释。")
    assert [kind for kind, _ in active(manager)] == [PREF]


def test_an_offer_pointed_back_to_by_a_bare_question_is_confirmed(manager: MemoryManager) -> None:
    admit(
        manager,
        [
            (
                "What does this context manager do?",
                "It opens the file. I can add a short usage example after each explanation. "
                "Want me to do that from now on?",
            ),
            ("Yes please.", "Will do."),
        ],
    )
    drain(pipeline_for(manager))
    assert [kind for kind, _ in active(manager)] == [PREF]


def test_reversing_a_named_call_is_quoted_not_stated(manager: MemoryManager) -> None:
    run_each(
        manager,
        "Going forward, feature flags live in Unleash.",
        "We're reversing the Unleash call: it has no audit log, so feature flags will live in Flagsmith instead.",
    )
    ((kind, content),) = active(manager)
    assert kind == DECISION and "Unleash" not in content and "Flagsmith" in content
    assert search(manager, "unleash") == [] and search(manager, "flags")


def test_swapping_in_a_named_tool_is_explicit(manager: MemoryManager) -> None:
    run_each(manager, "我们决定队列用 Beanstalkd。", "评估完了，queue 换 NATS，Beanstalkd 不要了。")
    ((kind, content),) = active(manager)
    assert kind == DECISION and "NATS" in content and search(manager, "beanstalkd") == []


def test_wanting_to_swap_is_no_decision() -> None:
    assert extracted(turn(1, "我有点想换 Redis，但还没想好。")) == []
