"""Issue 11, second round: the offline extractor on the failure classes of the previous round, checked
with our own vocabulary (never the generator's): inflection, progressive and nominal decisions,
standing bare imperatives, a narrower past-report gate, confirmations by structure, the kind of a
confirmed proposal about the assistant's own conduct, clause merging and reversals by stem."""

from __future__ import annotations

import pytest

from autopatch_j.memory.drain import drain
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from tests.memory.pipeline_support import admit, pipeline_for
from tests.memory.test_offline import extracted
from tests.memory.test_validation import turn


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # progressive and inflected decision verbs
        ("We're switching the CI pipelines to Buildkite.", "project_decision"),
        ("The team is migrating every service to Helm charts.", "project_decision"),
        ("We dropped support for Safari 14.", "project_decision"),
        ("我们正在统一改用 Conan 管理 C++ 依赖。", "project_decision"),
        # nominal decisions: a decision label with a colon, "X it is"
        ("Decision: releases are tagged from main only.", "project_decision"),
        ("Team consensus: every endpoint returns RFC 3339 timestamps.", "project_decision"),
        ("团队共识：接口统一返回 ISO 8601 时间。", "project_decision"),
        ("Buildkite it is.", "project_decision"),
        # standing bare imperatives about the agent's output
        ("Keep replies under ten lines.", "user_preference"),
        ("Format every answer as a bulleted list.", "user_preference"),
        ("每次回复都附上参考链接。", "user_preference"),
        # negated forms
        ("We no longer ship 32-bit builds.", "project_decision"),
        ("Windows 7 不再维护了。", "project_decision"),
        # past markers that do not report the past
        ("发布之前先跑一遍冒烟测试，以后都这样。", "user_preference"),
        ("按之前说好的：以后提交信息用英文写。", "user_preference"),
        ("不过以后都用 tab 缩进。", "user_preference"),
    ],
)
def test_structures_beyond_the_listed_phrases(text: str, kind: str) -> None:
    assert extracted(turn(1, text)) == [(kind, text)]


@pytest.mark.parametrize(
    "text",
    [
        "We're running into timeouts with the Redis client.",
        "What it is.",
        "I don't know what it is.",
        "Keep these answers for the README.",
        "Summarize the replies above in one line.",
        "We switched to Buildkite last year and regretted it.",
        "上周我们讨论过要不要换 Gradle。",
        "我们以前用过 Maven。",
        "老的配置格式不支持嵌套。",
        "我们正在用 Maven 构建。",
        "Decision pending on the queue library.",
        "We need a decision on the database.",
    ],
)
def test_lookalikes_stay_out(text: str) -> None:
    assert extracted(turn(1, text)) == []


def test_weighing_options_is_discussion_context() -> None:
    text = "We're weighing Buildkite against Jenkins for the runners — what are the trade-offs?"
    assert extracted(turn(1, text)) == [("discussion_context", text)]


PROPOSAL = "我建议项目统一用 Conan 管理依赖。"


@pytest.mark.parametrize(
    "confirmation",
    ["没问题，就按这个思路改。", "Fine, go ahead with that plan.", "Works for me — go ahead.", "好，就照你的来。"],
)
def test_confirmations_with_follow_through_words(confirmation: str) -> None:
    prior = turn(1, "依赖怎么管？", f"有两种做法。{PROPOSAL}")
    assert extracted(turn(2, confirmation), prior=prior) == [("project_decision", PROPOSAL)]


@pytest.mark.parametrize(
    ("proposal", "reply"),
    [
        ("Want me to always add type hints to the functions I write for you?", "Sure."),
        ("How about I list the changed files at the end of each answer?", "Yes, please."),
        ("要不我以后每次改完都先跑一遍测试再交给你？", "好"),
    ],
)
def test_a_confirmed_proposal_about_the_assistants_own_conduct_is_a_preference(proposal: str, reply: str) -> None:
    prior = turn(1, "Noted.", proposal)
    assert extracted(turn(2, reply), prior=prior) == [("user_preference", proposal)]


def test_clauses_of_one_statement_joined_by_a_semicolon_form_one_candidate() -> None:
    text = "Actually, stop pasting whole modules; from now on show only the changed functions."
    (only,) = extracted(turn(1, text))
    assert only == ("user_preference", text)


def test_a_reversal_supersedes_by_a_shared_stem(manager: MemoryManager) -> None:
    pipeline = pipeline_for(manager)
    admit(manager, [("Always paste the whole module when you change something.", "OK.")])
    drain(pipeline)
    admit(manager, [("Actually, stop pasting whole modules; from now on show only the changed functions.", "OK.")])
    drain(pipeline)
    active = [i.content for i in manager.list_items() if i.kind is MemoryKind.USER_PREFERENCE]
    assert active == ["Actually, stop pasting whole modules; from now on show only the changed functions."]


def test_a_supersede_keeps_the_keywords_of_what_it_replaces(manager: MemoryManager) -> None:
    pipeline = pipeline_for(manager)
    admit(manager, [("前端路由统一用 React Router。", "好。")])
    drain(pipeline)
    admit(manager, [("React Router 太重了，团队决定改用 Wouter，别再引入 React Router 了。", "好。")])
    drain(pipeline)
    (active,) = [i for i in manager.list_items() if i.kind is MemoryKind.PROJECT_DECISION]
    assert "wouter" in active.content.casefold() and "路由" in active.keywords
    hits = manager.search(thread_id=manager.active_thread().id, query="路由")
    assert [h.memory_id for h in hits] == [active.memory_id]
