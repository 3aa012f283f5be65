"""Issue 11, twelfth round: agreement verbs of completion (商量好了), instructions whose object is a
weighing, degree adverbs that compare nothing, two rules in one turn, semicolons inside a word,
present-tense descriptions of the code, what a past time beside a decision word means, and
reversals by value swap, dash labels and withdrawals — our own words, with lookalikes that form
nothing."""

from __future__ import annotations

import pytest

from autopatch_j.memory.manager import MemoryManager
from tests.memory.test_offline import extracted
from tests.memory.test_offline_fifth_round import DECISION, PREF, active, run_each
from tests.memory.test_validation import turn


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("跟测试组沟通好了，所有接口的分页参数统一叫 page 和 size。", DECISION),
        ("和运维说好了，镜像一律打 git sha 做 tag。", DECISION),
        ("Always lay out the pros and cons before you pick a database for me.", PREF),
        ("Always explain the trade-offs before suggesting a framework.", PREF),
        ("我这人比较在意性能，给我写的 SQL 别用 select *，一直这样。", PREF),
        ("Schema migrations go through Flyway — that's the team's call, made on Monday.", DECISION),
        ("服务的日志里一律不许出现用户的明文密码。", DECISION),
        ("Go back to plain prose please, and keep it that way.", PREF),
    ],
)
def test_twelfth_round_structures(text: str, kind: str) -> None:
    assert [k for k, _ in extracted(turn(1, text))] == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "By default the job queue in this service is Redis with 4 workers.",
        "By default the CLI in tools/run.py logs to stderr.",
        "这个仓库所有的 handler 目前统一返回 JSON。",
        "我们的 nginx.conf 默认超时是 60 秒。",
        "现在要比较的是两个打包工具：esbuild 和 rollup，esbuild 快，rollup 插件多。",
    ],
)
def test_descriptions_of_the_code_state_no_rule(text: str) -> None:
    assert [k for k, _ in extracted(turn(1, text))] in ([], ["discussion_context"])


def test_a_comparison_introduced_by_now_is_a_discussion() -> None:
    text = "现在要比较的是两个打包工具：esbuild 和 rollup，esbuild 快，rollup 插件多。"
    assert [k for k, _ in extracted(turn(1, text))] == ["discussion_context"]


def test_two_rules_after_a_semicolon_are_two_memories(manager: MemoryManager) -> None:
    run_each(manager, "两点，以后都这样：讲算法先给复杂度；给我的脚本一律别用 eval。")
    assert len(active(manager)) == 2


def test_a_rule_continued_after_a_semicolon_stays_one() -> None:
    text = "Stop pasting whole modules; from now on just paste the function you changed."
    assert [k for k, _ in extracted(turn(1, text))] == [PREF]


def test_a_semicolon_inside_a_word_does_not_split_the_proposal() -> None:
    prior = turn(1, "?", "How about I open every review with a one-line TL;DR from now on?")
    assert extracted(turn(2, "yes pls"), prior=prior) == [
        (PREF, "How about I open every review with a one-line TL;DR from now on?")
    ]


@pytest.mark.parametrize(
    ("first", "reversal"),
    [
        ("队列这块就定 RabbitMQ 了。", "下午评审又改了，队列换成 NATS。"),
        ("以后回答都附上英文原文吧。", "想了下还是不用了，英文原文太长，以后只给中文。"),
        (
            "Merge freeze begins the Friday before each release, that's agreed.",
            "Update — we've moved the merge freeze to Thursday.",
        ),
        ("部署这块就定 Jenkins 了。", "部署换成 Argo，多集群要用。"),
    ],
)
def test_value_swaps_withdrawals_and_dash_labels_supersede(manager: MemoryManager, first: str, reversal: str) -> None:
    run_each(manager, first, reversal)
    assert len(active(manager)) == 1
    assert active(manager)[0][1] != first


def test_a_switch_of_one_topic_leaves_another_topic_alone(manager: MemoryManager) -> None:
    run_each(manager, "缓存这块就定 Redis 了。", "消息队列换成 Kafka。")
    assert len(active(manager)) == 2


def test_code_examples_for_the_user_are_a_preference_even_under_a_project_subject() -> None:
    assert [k for k, _ in extracted(turn(1, "以后 code example 都用 Python 3.12 的写法。"))] == [PREF]


def test_a_correction_naming_nothing_old_quotes_the_old_statement_but_states_only_the_new(
    manager: MemoryManager,
) -> None:
    run_each(manager, "项目的消息总线定为 NATS。", "改用 Pulsar，之前说的作废。")
    assert active(manager) == [(DECISION, "改用 Pulsar，之前说的作废。")]
    thread = manager.active_thread().id
    assert not manager.search(thread_id=thread, query="nats")
    assert manager.search(thread_id=thread, query="消息总线")
    (item,) = manager.list_items()
    assert "项目的消息总线定为 NATS。" in {source.quote for source in manager.show_item(item.id).sources}


def test_a_two_letter_name_in_chinese_retires_the_old_one(manager: MemoryManager) -> None:
    run_each(manager, "给我的示例脚本统一用 Python 写。", "想了想，示例脚本今后改用 Go。")
    thread = manager.active_thread().id
    assert not manager.search(thread_id=thread, query="python")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("给我写的脚本里别用全局变量，一直都这样哈。", PREF),
        ("跟前端几个人商量好了，接口的金额字段统一用分为单位。", DECISION),
        ("咱们仓库从下个版本起，changelog 都按 Keep a Changelog 的格式写。", DECISION),
        ("我们的 request id 以后一律用 UUIDv7。", DECISION),
        ("Helm is how we deploy everything from now on.", DECISION),
        ("Heads up — it's settled: every job writes its metrics to Prometheus.", DECISION),
    ],
)
def test_particles_agreements_and_the_group_as_subject(text: str, kind: str) -> None:
    assert [k for k, _ in extracted(turn(1, text))] == [kind]


def test_everyone_following_it_ratifies_the_sentence_before() -> None:
    text = "ok so tags look like v<major>.<minor>, always. everyone on the team follows that from now"
    assert extracted(turn(1, text)) == [
        (DECISION, "ok so tags look like v<major>.<minor>, always. everyone on the team follows that from now")
    ]
