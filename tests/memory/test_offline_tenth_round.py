"""Issue 11, tenth round: standing markers at the end, personal ratifications, withdrawn decisions and
new directions, "already settled", recall and tag questions — our own words, with lookalikes that
form nothing."""

from __future__ import annotations

import pytest

from autopatch_j.memory.manager import MemoryManager
from tests.memory.test_offline import extracted
from tests.memory.test_offline_fifth_round import DECISION, PREF, active, run_each
from tests.memory.test_validation import turn


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Number every step in a how-to answer, always.", PREF),
        ("回答里的命令都加上注释，一直这样。", PREF),
        ("缓存库定 diskcache 了。", DECISION),
        ("我们的 CI 镜像用 Debian slim，已经定了。", DECISION),
        ("We decided that every public function gets a docstring with a tested example.", DECISION),
        ("The release bot runs from main; the team picked it last sprint and that's final.", DECISION),
        ("Show me a rough diagram when a flow has many steps. Do that for me going forward, yeah?", PREF),
        ("定一下：重试次数统一 3 次。", DECISION),
        ("另外有件早就定下的事：代码格式化交给 ruff。", DECISION),
        ("ok so prod deploys go through the pipeline from now, nobody ssh-deploys by hand anymore", DECISION),
    ],
)
def test_tenth_round_structures(text: str, kind: str) -> None:
    assert [k for k, _ in extracted(turn(1, text))] == [kind]


@pytest.mark.parametrize(
    ("before", "ratification"),
    [
        ("keep replies short and skip the pleasantries.", "That's how I like it, always."),
        ("讲原理时先给一个类比。", "这是我的习惯。"),
    ],
)
def test_a_personal_ratification_makes_the_sentence_before_it_a_preference(before: str, ratification: str) -> None:
    text = f"{before}{'' if before.endswith('。') else ' '}{ratification}"
    assert extracted(turn(1, text)) == [(PREF, f"{before} {ratification}")]


@pytest.mark.parametrize(
    "text",
    [
        "That's how I like it, always.",  # nothing before it to ratify
        "Part of me wants to drop Windows builds, part of me says wait.",
        "What did we conclude about Redis vs Memcached?",
        "tsconfig has noImplicitAny on in this repo, I checked earlier.",
        "我老是看不懂这种嵌套的推导式。",
        "Is that really the way to go, yeah?",
    ],
)
def test_bare_ratifications_musings_recalls_and_reports_form_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


@pytest.mark.parametrize(
    ("first", "correction"),
    [
        ("前端路由我们定了用 React Router。", "又变卦了，React Router 不用了，改用 TanStack Router。"),
        (
            "We're going with Jaeger for tracing.",
            "New direction from the platform team: tracing goes to Tempo, not Jaeger.",
        ),
        (
            "Always inline the whole config when you show me a change.",
            "Nope, that was a bad idea: show only the changed keys from here on.",
        ),
        ("我们的包管理用 Poetry。", "Poetry 那个决定撤回了，team 最后 pick 了 uv。"),
    ],
)
def test_withdrawn_decisions_and_new_directions_supersede(manager: MemoryManager, first: str, correction: str) -> None:
    run_each(manager, first, correction)
    ((_, content),) = active(manager)
    assert content and content in correction  # a clause only retiring the old name is dropped


def test_a_retracted_rule_with_a_past_reference_is_reversed(manager: MemoryManager) -> None:
    run_each(manager, "你写给我的脚本，注释一律英文。", "刚才那条作废，脚本注释用中文写。")
    assert active(manager) == [(PREF, "刚才那条作废，脚本注释用中文写。")]


def test_wanting_a_forgotten_rule_back_restates_it(manager: MemoryManager) -> None:
    run_each(manager, "Okay I want that naming rule back: no single-letter variables in code you write for me.")
    assert [kind for kind, _ in active(manager)] == [PREF]
