"""Issue 11, nineteenth round: a tag question after a description asks, a requirement pointed back to
"from now on" ratifies, "这是最终结论", "X 重新定了：", the one time "你讲那段…的时候", a regret, "可能出现的" as an
attribute, "要，定下来", a threshold "定在 70%" and its correction, "final 了：", "所有新的 … 代码必须开 …",
browsers by name — our own words, with lookalikes."""

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
    ("text", "kinds"),
    [
        # a requirement pointed back to, with a standing tail, ratifies the sentence before it
        (
            "Every migration ships with a rollback script. That's a hard requirement for this repo going forward.",
            [DECISION],
        ),
        ("发版前所有服务必须先过一遍冒烟测试，这是最终结论。", [DECISION]),
        # a topic that "has been decided again" is the project's, whatever the standing marker
        ("缓存方案重新定了：以后都放在 Redis 里。", [DECISION]),
        # 可能 before an attribute ("可能出现的…") hedges nothing
        ("以后讲缓存的时候，先说可能出现的一致性问题。", [PREF]),
        # a threshold set at a value
        ("接口超时定在 30 秒，超过就直接报错。", [DECISION]),
        # "final 了：" settles; "所有新的 … 必须 …" is a norm whatever its verb
        ("昨天 review 会 final 了：所有对外的 API 响应都带上 request id。", [DECISION]),
        ("所有新写的 backend 服务必须开 structured logging。", [DECISION]),
        # "…, and that's final.", "that's our policy now" settle the sentence they end
        ("The frontend is switching to Vite, and that's final.", [DECISION]),
        ("Stale branches get archived after a month, that's our policy now.", [DECISION]),
        # a review's conclusion labels a decision; a group's assent ending a sentence settles it
        ("复盘会的结论：线上配置改动一律走审批流程。", [DECISION]),
        ("本地跑单测的 Redis，大家定好了用 Docker 临时拉起。", [DECISION]),
        ("这个服务的日志就交给 structlog 处理，字段用 snake_case，大家都同意了。", [DECISION]),
        ("Cache keys get a service prefix, that's settled for the whole backend.", [DECISION]),
        # "whether"/"是否" as the object of a verb of telling asks nothing
        ("Whenever you show me a migration, say whether it locks the table.", [PREF]),
        ("以后给我写 SQL 的时候，说明是否会走索引。", [PREF]),
        # a tag question after a request still asks for a standing rule
        ("Keep the answers short from now on, okay?", [PREF]),
    ],
)
def test_more_settled_rules(text: str, kinds: list[str]) -> None:
    assert [k for k, _ in extracted(turn(1, text))] == kinds


@pytest.mark.parametrize(
    "text",
    [
        # a description of what the code does, with a tag question, asks
        "By default this queue client retries a failed job twice, right?",
        "Out of the box this ORM lazy-loads every relation, yeah?",
        # one past occasion of the assistant's explanation, not a standing "when you …"
        "你改那段迁移脚本的时候我没太看懂。",
        # a temporary scope before ";" covers the clause after it
        "For this profiling session, leave timers wherever you like; we'll take them out before merging.",
        "For the rest of this pairing session, show me every SQL query you run.",
        "Only while we're profiling the importer, log each batch size.",
        "I'm not sure whether we should split the repo.",
        "大家都同意了吗？",
        "临时先用 SQLite 跑一下。",
        "CI 每次都要跑二十分钟，挺烦的。",
        # regrets
        "I shouldn't have dropped the old rule.",
        "I should have kept that one.",
        "我当初真不该删掉那条的。",
        # speculation stays speculation
        "以后可能会换成 Redis。",
        # nothing settled: a threshold someone might set
        "门槛定在多少合适？",
    ],
)
def test_their_lookalikes_form_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


def test_a_standing_when_you_is_still_a_preference() -> None:
    assert [k for k, _ in extracted(turn(1, "你改迁移脚本的时候，先备份一下原文件。"))] == [PREF]


def test_yes_then_settle_it_confirms_the_proposal(manager: MemoryManager) -> None:
    admit(
        manager,
        [
            ("接口日志里会打出用户的邮箱。", "可以在写日志前统一把邮箱打码，只留域名。要不要定成团队规范？"),
            ("要，定下来吧。", "好，日志里的邮箱统一打码。"),
        ],
    )
    drain(pipeline_for(manager))
    ((kind, content),) = active(manager)
    assert kind == DECISION and "打码" in content


def test_correcting_a_threshold_supersedes_it_and_keeps_its_topic(manager: MemoryManager) -> None:
    run_each(manager, "接口超时定在 30 秒，超过就直接报错。", "更正一下刚才的数字：超时是 45 秒，不是 30 秒。")
    ((kind, content),) = active(manager)
    assert kind == DECISION and "45" in content
    assert search(manager, "超时") and search(manager, "报错")


def test_a_regret_before_the_restated_rule_adds_nothing(manager: MemoryManager) -> None:
    run_each(
        manager,
        "I shouldn't have dropped that one. Whenever you review my SQL, point out missing indexes.",
    )
    assert [kind for kind, _ in active(manager)] == [PREF]


def test_browsers_named_by_name_are_found_by_the_word(manager: MemoryManager) -> None:
    run_each(manager, "前端从下个版本起只支持最新的 Firefox 和 Chrome。")
    assert search(manager, "浏览器") and search(manager, "browser")


def test_on_second_thought_in_chinese_revises_a_preference(manager: MemoryManager) -> None:
    run_each(manager, "以后回答都附上英文原文。", "想了一下还是不用了，太长，以后只给中文。")
    ((kind, content),) = active(manager)
    assert kind == PREF and "只给中文" in content


def test_a_retiring_correction_and_the_rule_after_it_are_one_statement(manager: MemoryManager) -> None:
    run_each(
        manager,
        "以后解释 SQL 的时候都配一张示意图。",
        "想了想还是不要示意图了，太花时间。以后只用文字说明执行计划就行。",
    )
    ((kind, content),) = active(manager)
    assert kind == PREF and "文字" in content and "示意图" not in content
    assert search(manager, "执行计划")


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("All cloud infrastructure is managed with Pulumi from now on.", "基础设施"),
        ("以后 connection pool 的上限统一设成 20。", "连接池"),
    ],
)
def test_more_concepts_meet_both_languages(manager: MemoryManager, text: str, query: str) -> None:
    run_each(manager, text)
    assert search(manager, query)
