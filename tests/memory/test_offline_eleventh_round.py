"""Issue 11, eleventh round: assent judged clause by clause, revocations by a verb and an anaphor,
revision labels, moves "to" somewhere, corrections by any misreading verb, and what a correction
keeps — our own words, with lookalikes that form nothing."""

from __future__ import annotations

import pytest

from autopatch_j.memory.manager import MemoryManager
from tests.memory.test_offline import extracted
from tests.memory.test_offline_fifth_round import DECISION, PREF, active, run_each
from tests.memory.test_validation import turn

# -- assent, clause by clause -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("proposal", "reply"),
    [
        ("We could cache the parsed config once per process. Want me to make that the rule?", "Fair enough. Do it."),
        ("How about we tag releases from main only?", "Reasonable, adopt it."),
        (
            "I suggest we keep every secret in the vault, never in env files. Okay with that?",
            "No objection — lock it in.",
        ),
        ("建议日志统一打到 stdout，由容器去收集，你看行吗？", "不错不错，用它。"),
        ("要不要把外部接口的超时统一成 3 秒？", "嗯，这样稳妥多了，用这个。"),
        ("可以考虑把错误码统一成五位数字，要不要就这么定？", "没啥毛病，照这个来。"),
    ],
)
def test_assent_beside_a_short_evaluation_confirms(proposal: str, reply: str) -> None:
    prior = turn(1, "?", proposal)
    assert [kind for kind, _ in extracted(turn(2, reply), prior=prior)] == [DECISION]


@pytest.mark.parametrize(
    "reply",
    [
        "Yeah, too risky for now.",
        "嗯，这样太复杂了。",
        "Fair enough, though I'd rather ask the team.",
        "不错的想法，回头再说。",
        "可以，先帮我看下这个报错是怎么回事。",
        "没毛病？你确定吗？",
        "Interesting. What would the other option look like?",
        "OK, new topic: explain this decorator to me.",
    ],
)
def test_evaluations_that_doubt_defer_or_move_on_confirm_nothing(reply: str) -> None:
    prior = turn(1, "?", "We could cache the parsed config once per process. Want me to make that the rule?")
    assert extracted(turn(2, reply), prior=prior) == []


# -- reversals ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "reversal"),
    [
        (
            "We decided the API docs are published from the wiki.",
            "Heads-up: the API docs are moving over to the static site generator.",
        ),
        ("We agreed that nightly builds start at 2am.", "Update: nightly builds moved to 4am."),
        ("团队定了：接口文档用 Swagger 维护。", "不好意思，撤销一下之前的决定，接口文档改用 Apifox 维护。"),
        ("Let's keep the session store in Redis.", "Drop that idea: the session store goes in Postgres from now on."),
        ("We decided to lint with flake8.", "Revision from the leads: we lint with ruff."),
    ],
)
def test_revisions_labelled_or_revoked_by_anaphora_supersede(manager: MemoryManager, first: str, reversal: str) -> None:
    run_each(manager, first, reversal)
    assert [kind for kind, _ in active(manager)] == [DECISION]
    assert [content for _, content in active(manager)] != [first]


@pytest.mark.parametrize(
    "text",
    [
        "Update: the build is green again.",
        "Drop that, I was thinking out loud.",
        "撤销一下刚才那个命令的输出。",
        "The parser moved to a new file last week.",
    ],
)
def test_reports_and_bare_revocations_state_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


def test_a_misreading_corrects_the_number_just_stated(manager: MemoryManager) -> None:
    run_each(manager, "项目的重试上限定为 5 次。", "我听错了，应该是 3 次。")
    contents = [content for _, content in active(manager)]
    assert len(contents) == 1 and "3 次" in contents[0]


def test_a_correction_giving_only_a_new_number_keeps_the_name_of_its_topic(manager: MemoryManager) -> None:
    run_each(manager, "项目的 token 有效期定成 12 小时。", "哎打错了，应该是 1 小时，不是 12。")
    thread = manager.active_thread().id
    hits = manager.search(thread_id=thread, query="token")
    assert [hit.kind for hit in hits] == [DECISION]
    assert manager.search(thread_id=thread, query="有效期")


def test_a_correction_naming_a_new_tool_retires_the_old_one(manager: MemoryManager) -> None:
    run_each(manager, "We decided to run the docs site on Netlify.", "Update: the docs site moved to Vercel.")
    thread = manager.active_thread().id
    assert manager.search(thread_id=thread, query="vercel")
    assert not manager.search(thread_id=thread, query="netlify")


def test_a_revoked_preference_is_replaced_by_the_new_one(manager: MemoryManager) -> None:
    run_each(
        manager, "Always give me the command before the explanation.", "Scrap that: from now on explanation first."
    )
    assert [kind for kind, _ in active(manager)] == [PREF]


def test_a_proposal_asked_about_by_anaphora_is_the_sentence_before_the_question() -> None:
    prior = turn(1, "?", "My recommendation: one changelog file per package. Should we make that the rule?")
    assert extracted(turn(2, "Yes."), prior=prior) == [(DECISION, "My recommendation: one changelog file per package.")]


def test_a_chinese_switch_sharing_its_topic_supersedes(manager: MemoryManager) -> None:
    run_each(manager, "以后给我的脚本示例一律用 Bash 写。", "想了想，脚本示例今后改用 Python。")
    assert [kind for kind, _ in active(manager)] == [PREF]


def test_a_revoked_decision_with_after_all_is_no_question(manager: MemoryManager) -> None:
    run_each(manager, "日志库我们决定用 logrus。", "抱歉，撤回一下刚才的决定，日志库还是 go with zap。")
    assert active(manager) == [(DECISION, "抱歉，撤回一下刚才的决定，日志库还是 go with zap。")]


def test_after_all_in_a_correction_beside_a_latin_name_is_no_question(manager: MemoryManager) -> None:
    run_each(manager, "CI 这块我们决定用 Jenkins。", "sorry rollback 一下刚才的决定，CI 还是 go with Drone。")
    assert [kind for kind, _ in active(manager)] == [DECISION]
    assert "Drone" in active(manager)[0][1]


def test_a_revision_after_an_interjection_replaces_the_preference(manager: MemoryManager) -> None:
    run_each(manager, "回答里的代码以后都用 tab 缩进。", "nah 改一下，代码还是用空格缩进吧。")
    assert active(manager) == [(PREF, "nah 改一下，代码还是用空格缩进吧。")]
