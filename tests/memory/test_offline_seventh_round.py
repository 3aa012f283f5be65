"""Issue 11, seventh round: assent and reversal idioms, collective future commitments, decisions
reported with a past time, polite requests — our own words, with lookalikes that form nothing."""

from __future__ import annotations

import pytest

from autopatch_j.memory.manager import MemoryManager
from tests.memory.test_offline import extracted
from tests.memory.test_offline_fifth_round import DECISION, PREF, active, run_each
from tests.memory.test_validation import turn


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("We're going to standardize error codes across services.", DECISION),
        ("The plan is that every service exposes /healthz.", DECISION),
        ("All new endpoints require auth — non-negotiable.", DECISION),
        ("From today, PRs need two approvals.", DECISION),
        ("Let's rebuild the search index nightly.", DECISION),
        ("Also, every ID in our URLs is a UUID from now on.", DECISION),
        ("The team decided yesterday: background jobs run on Dramatiq.", DECISION),
        ("Could you keep explanations short from now on?", PREF),
        ("Would you mind answering in English from now on?", PREF),
        ("能不能以后别用英文回答？", PREF),
        ("以后帮我看 SQL 的时候，顺便指出哪些 join 可能很慢。", PREF),
    ],
)
def test_seventh_round_structures(text: str, kind: str) -> None:
    assert extracted(turn(1, text)) == [(kind, text)]


@pytest.mark.parametrize(
    "text",
    [
        "We're going to lunch.",
        "We're going to the office.",
        "We're going to look into it later.",
        "Temporarily pin it; we'll unpin it afterwards.",
        "Could you run the tests?",
        "Could we maybe use Redis from now on?",
        "All tests require a running database.",
        "By default the cache here expires entries every 10 minutes.",
        "We tried Dramatiq yesterday and it was slow.",
        "Maybe someday the platform group standardizes on Bazel.",  # a hedge outside any request
    ],
)
def test_one_offs_hedges_and_states_form_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


@pytest.mark.parametrize(
    ("proposal", "reply"),
    [
        ("我建议错误统一返回 code 和 message 两个字段。", "没意见，按这个定下来吧。"),
        ("要不要以后讲算法时我先举一个小例子？", "要的要的，往后都这么讲。"),
        ("I suggest strict semantic versioning for the SDK.", "Yeah, make it the policy."),
        ("We could retry a failed test once in CI.", "Agreed, let's run with it."),
    ],
)
def test_assent_idioms_confirm(proposal: str, reply: str) -> None:
    prior = turn(1, "?", proposal)
    assert [kind for kind, _ in extracted(turn(2, reply), prior=prior)] in ([DECISION], [PREF])


@pytest.mark.parametrize(
    ("first", "correction"),
    [
        ("Let's deploy staging nightly at 2am.", "New plan: staging gets deployed on every merge instead of nightly."),
        ("We'll host the docs on GitHub Pages.", "Change of plan: the docs move to Read the Docs."),
    ],
)
def test_a_new_plan_supersedes_the_old_one(manager: MemoryManager, first: str, correction: str) -> None:
    run_each(manager, first, correction)
    assert active(manager) == [(DECISION, correction)]
