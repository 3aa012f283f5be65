"""Issue 11, thirteenth round: a trailing "every time, please" and "don't do that anymore" continue the
sentence before, a fault negated is assent by itself, deferrals by 再议, overruling and "the new
cadence", reports of what a file says, corrections that share only the retired value, and the
words of a retired Chinese value — our own words, with lookalikes that form nothing."""

from __future__ import annotations

import pytest

from autopatch_j.memory.manager import MemoryManager
from tests.memory.test_offline import extracted
from tests.memory.test_offline_fifth_round import DECISION, PREF, active, run_each
from tests.memory.test_validation import turn


@pytest.mark.parametrize(
    "text",
    [
        "When you show me a stack trace, point at the first frame that is ours. Every time, please.",
        "i really dislike answers that open with a compliment. dont do that anymore",
        "你每次都在回答末尾加一段总结，别这样了。",
    ],
)
def test_a_trailing_marker_or_anaphoric_prohibition_continues_the_sentence_before(text: str) -> None:
    assert [k for k, _ in extracted(turn(1, text))] == [PREF]


@pytest.mark.parametrize("reply", ["没毛病，定了。", "No objection.", "没啥问题。"])
def test_a_fault_negated_confirms_by_itself(reply: str) -> None:
    prior = turn(1, "?", "可以考虑所有 PR 一律 rebase 之后再合并，你同意的话就这么定？")
    assert [k for k, _ in extracted(turn(2, reply), prior=prior)] == [DECISION]


@pytest.mark.parametrize(
    "text",
    [
        "这个回头再议，先帮我看下为什么报错。",
        "那条规矩改天再聊，先把这个 bug 修了。",
        "我们的 CI 默认跑在 debian 镜像上，这是 workflow 文件里写的。",
        "Our lint job runs on every push, that's what the pipeline file says.",
    ],
)
def test_deferrals_and_reports_of_a_file_form_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


def test_being_overruled_supersedes_with_the_new_cadence(manager: MemoryManager) -> None:
    run_each(
        manager,
        "We decided the standup is every morning.",
        "The leads overruled us: the standup is twice a week now, so that's the new cadence.",
    )
    assert [kind for kind, _ in active(manager)] == [DECISION]
    assert "twice a week" in active(manager)[0][1]


def test_a_correction_sharing_only_the_retired_number_quotes_the_statement_it_corrects(
    manager: MemoryManager,
) -> None:
    run_each(manager, "我们的重试上限定成每次 300 次。", "打错了，是 30 次，不是 300。")
    (item,) = manager.list_items()
    assert {s.quote for s in manager.show_item(item.memory_id).sources} >= {"我们的重试上限定成每次 300 次。"}


def test_the_words_of_a_retired_chinese_value_are_retired(manager: MemoryManager) -> None:
    run_each(manager, "以后给我的 shell 脚本都写成长参数形式。", "反悔了，shell 脚本还是短参数吧，以后都短参数。")
    thread = manager.active_thread().id
    assert [kind for kind, _ in active(manager)] == [PREF]
    assert manager.search(thread_id=thread, query="短参数")
    assert not manager.search(thread_id=thread, query="长参")


def test_a_chinese_value_swapped_for_its_counterpart_is_retired(manager: MemoryManager) -> None:
    """大写 → 小写 share their head 写: the replacement keeps the topic (关键字), not the old value."""
    run_each(manager, "以后给我的 SQL 都写成大写关键字。", "嗯…反悔了，SQL 关键字还是小写吧，以后都小写。")
    thread = manager.active_thread().id
    assert manager.search(thread_id=thread, query="关键字")
    assert not manager.search(thread_id=thread, query="大写")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("以后回答里贴的命令都给我注明是 bash 还是 zsh。", PREF),
        ("超时那条我重新定一下：所有外部调用统一 5 秒超时。", DECISION),
        ("The team chose Ruff as the linter, end of discussion.", DECISION),
        ("以后讲数据库设计的时候，顺带说一下索引的代价。", PREF),
    ],
)
def test_named_alternatives_relabels_choices_and_explaining(text: str, kind: str) -> None:
    assert [k for k, _ in extracted(turn(1, text))] == [kind]


def test_a_flat_no_replaces_the_rule_before(manager: MemoryManager) -> None:
    run_each(manager, "以后 explain 算法的时候多给点图示。", "不行，图示太多了反而乱，以后每个算法一张图就够。")
    assert [kind for kind, _ in active(manager)] == [PREF]
