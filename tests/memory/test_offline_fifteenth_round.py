"""Issue 11, fifteenth round: a rule made firm by a sentence of its own ("Mandatory for this repo."),
"that's the rule now", a label of firmness before the rule, a rule brought back, an answer to "要不要"
with thanks, "还是别 … 了" as a revision, a correction restating only its value quoting what it
corrects; descriptions with a consequence, "统一的" as an adjective and questions about a difference
form nothing — our own words, with lookalikes."""

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
    "text",
    [
        "Every public function needs a docstring. Mandatory for this repo.",
        "Feature flags live in LaunchDarkly. Non-negotiable for the team.",
    ],
)
def test_a_sentence_that_only_makes_the_rule_before_it_firm_joins_it(text: str) -> None:
    ((kind, content),) = extracted(turn(1, text))
    assert kind == DECISION and content == text


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Staging deploys happen every Thursday, that's the rule now.", DECISION),
        ("One more, and this is firm: logs are written as JSON lines.", DECISION),
        ("Alright, bringing that back: numbered steps in every how-to you write for me.", PREF),
    ],
)
def test_firmness_and_bringing_a_rule_back_are_explicit(text: str, kind: str) -> None:
    assert [k for k, _ in extracted(turn(1, text))] == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "我们的打包机默认装的是 node 18，所以有些新语法用不了。",
        "The runner uses ARM images by default, so some wheels have to be built from source.",
        "所有的 handler 都实现了 Handler 接口，里面有统一的日志格式。",
        "What's the difference between a mutex and a semaphore?",
        "Is that firm, or can we still change it?",
    ],
)
def test_descriptions_with_a_consequence_and_knowledge_questions_form_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


def test_a_consequence_after_a_standing_rule_keeps_the_rule() -> None:
    assert [k for k, _ in extracted(turn(1, "以后默认用 UTC 存时间，所以前端要自己转时区。"))] == [DECISION]


def test_an_answer_to_a_yes_no_offer_with_thanks_confirms_it(manager: MemoryManager) -> None:
    admit(
        manager,
        [
            ("正则我总是看不懂。", "以后我每次写正则都逐段加注释，要不要？"),
            ("要，谢谢啦", "好的。"),
        ],
    )
    drain(pipeline_for(manager))
    assert [kind for kind, _ in active(manager)] == [PREF]


def test_rather_not_after_all_revises_the_preference(manager: MemoryManager) -> None:
    run_each(manager, "以后回答里附上参考链接。", "想了想，还是别附参考链接了，以后只说结论就行。")
    assert active(manager) == [(PREF, "想了想，还是别附参考链接了，以后只说结论就行。")]


def test_a_correction_restating_only_its_value_quotes_what_it_corrects(manager: MemoryManager) -> None:
    run_each(manager, "日志默认保留 7 天，这个定了。", "啊不对，我记错了，保留 30 天。")
    ((kind, content),) = active(manager)
    assert (kind, content) == (DECISION, "啊不对，我记错了，保留 30 天。")
    (item,) = manager.list_items()
    shown = manager.show_item(item.memory_id)
    assert shown is not None
    assert [s.quote for s in shown.sources] == ["日志默认保留 7 天，这个定了。", "啊不对，我记错了，保留 30 天。"]
    assert search(manager, "7") == [] and search(manager, "保留")


def test_a_correction_by_a_weekday_after_wait_supersedes(manager: MemoryManager) -> None:
    run_each(manager, "Our standup is every Tuesday, that's the rule now.", "Wait, I misspoke: Thursdays.")
    ((kind, content),) = active(manager)
    assert kind == DECISION and "Thursdays" in content


@pytest.mark.parametrize(
    ("first", "reversal", "stated", "retired", "kept"),
    [
        (
            "前端打包就用 webpack。",
            "改主意了，打包换成 Vite，webpack 那套不要了。",
            "改主意了，打包换成 Vite",
            "webpack",
            "vite",
        ),
        (
            "We're going with Mocha for the API tests.",
            "Scrap the Mocha thing — API tests run on Jest now.",
            "API tests run on Jest now.",
            "mocha",
            "jest",
        ),
    ],
)
def test_a_replacement_states_the_new_rule_without_the_clause_retiring_the_old(
    manager: MemoryManager, first: str, reversal: str, stated: str, retired: str, kept: str
) -> None:
    """The quote keeps the whole sentence; the content (what search finds) drops the clause that only
    retires what the memory replaces."""
    run_each(manager, first, reversal)
    assert active(manager) == [(DECISION, stated)]
    (item,) = manager.list_items()
    shown = manager.show_item(item.memory_id)
    assert shown is not None and [s.quote for s in shown.sources] == [reversal]
    assert search(manager, retired) == [] and search(manager, kept)


def test_a_prohibition_retiring_nothing_in_memory_keeps_its_words(manager: MemoryManager) -> None:
    run_each(manager, "以后回答用中文。", "No more force pushes to main, we rebase instead.")
    assert "No more force pushes to main, we rebase instead." in [content for _, content in active(manager)]
