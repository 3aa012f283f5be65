"""Issue 11, fourteenth round: a revision opening the turn carries over a reason to the switch after
it, interjections before a marker, value changes ("let's lower … to 80%"), a name dropped for another
in Chinese, descriptions of a build file's defaults — our own words, with lookalikes that form
nothing."""

from __future__ import annotations

import pytest

from autopatch_j.memory.manager import MemoryManager
from tests.memory.test_offline import extracted
from tests.memory.test_offline_fifth_round import DECISION, PREF, active, run_each
from tests.memory.test_validation import turn


@pytest.mark.parametrize(
    ("first", "reversal"),
    [
        (
            "We'll deploy the site on Netlify.",
            "Change of heart — Netlify's build minutes run out. The site goes on Cloudflare Pages instead.",
        ),
        ("我们 http 客户端就用 requests 吧。", "nah 改主意了，还是用 httpx，异步好写。"),
        ("项目的格式化就用 black 吧。", "刚开完会，black 不用了，改成 ruff format。"),
        (
            "Let's require 2 approvals before anything merges.",
            "Hmm, 2 is slowing everyone down. Let's lower the approval count to 1.",
        ),
    ],
)
def test_revisions_with_a_reason_between_or_an_interjection_supersede(
    manager: MemoryManager, first: str, reversal: str
) -> None:
    run_each(manager, first, reversal)
    assert [kind for kind, _ in active(manager)] == [DECISION]
    assert active(manager)[0][1] != first


@pytest.mark.parametrize(
    "text",
    [
        "现在 Makefile 的默认 target 就是 test，跑起来会先装依赖。",
        "Scratch that, I was wrong about the stack trace. Let me look at the logs first.",
        "Hmm, the build is slow. Let's look at the cache later.",
    ],
)
def test_descriptions_and_bare_revocations_form_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


def test_lowering_a_value_is_a_decision_by_itself() -> None:
    assert [k for k, _ in extracted(turn(1, "Let's raise the lint line length to 100."))] == [DECISION]


def test_a_preference_after_an_interjected_revocation_is_kept(manager: MemoryManager) -> None:
    run_each(manager, "以后给我的解释都用比喻。", "嗯 算了，以后直接讲原理就行。")
    assert [kind for kind, _ in active(manager)] == [PREF]


def test_moving_on_to_another_topic_is_no_value_change() -> None:
    assert extracted(turn(1, "Let's move on to the importer.")) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("这个仓库的分支名统一用 feature/ 开头，谁都别例外。", DECISION),
        ("FYI we've locked in Postgres 16 for every service — nobody runs 14 anymore.", DECISION),
        ("跟测试 confirm 过了，冒烟用例改成每晚跑一次。", DECISION),
        ("缩进重新定一下，以后统一 2 个空格。", DECISION),
    ],
)
def test_settled_by_other_verbs_and_the_repo_as_subject(text: str, kind: str) -> None:
    assert [k for k, _ in extracted(turn(1, text))] == [kind]


def test_fyi_about_the_code_is_still_information() -> None:
    assert extracted(turn(1, "FYI the config loader reads env vars first.")) == []
