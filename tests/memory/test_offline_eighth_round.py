"""Issue 11, eighth round: ratifications after the fact, assent that commits or approves, corrections
by anaphora, complaints beside an instruction, values a correction retires — our own words, with
lookalikes that form nothing."""

from __future__ import annotations

import pytest

from autopatch_j.memory.manager import MemoryManager
from tests.memory.test_offline import extracted
from tests.memory.test_offline_fifth_round import DECISION, PREF, active, run_each, search
from tests.memory.test_validation import turn

# -- a group ratifying the sentence before it --------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "ratification"),
    [
        ("Our API errors follow RFC 7807.", "That's the team standard."),
        ("Service logs are shipped to Loki.", "Team decision."),
        ("Use black for formatting.", "Everyone agreed."),
        ("每个服务都暴露 /healthz 健康检查。", "全组都同意了。"),
        ("数据库连接池上限 50。", "这是我们组的共识。"),
    ],
)
def test_a_ratification_makes_the_sentence_before_it_a_decision(before: str, ratification: str) -> None:
    assert extracted(turn(1, f"{before}{'' if before.endswith('。') else ' '}{ratification}")) == [
        (DECISION, f"{before} {ratification}")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Team decision.",  # nothing before it to ratify
        "组里都同意了。",
        "Is this the team standard? Everyone agreed?",
        "Maybe we move logs to Loki. Team decision.",  # what it would ratify is a musing
        "The team standard is unclear to me.",
        "我觉得可以用 Redis 做缓存。大家都同意了吗？",
    ],
)
def test_a_ratification_with_nothing_stated_before_it_forms_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


def test_a_switch_continuing_a_statement_in_its_turn_is_part_of_it(manager: MemoryManager) -> None:
    text = "We decided to run all end-to-end tests in Playwright. No more Selenium grid for tests."
    run_each(manager, text)
    assert active(manager) == [(DECISION, text)]


# -- labels and markers of a standing rule -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("The leads' call: hotfix branches are cut from the release tag.", DECISION),
        ("Code review policy for this project: one approval is enough for docs changes.", DECISION),
        ("Rule of thumb for you: link the docs page whenever you name an API.", PREF),
        ("Saying this once so it sticks: reply in Chinese even when I write English.", PREF),
        ("Make it a habit to show the failing test before the fix.", PREF),
        ("Effective immediately, the minimum supported Postgres is 15.", DECISION),
        ("As of next sprint, feature flags are read from Unleash.", DECISION),
        ("New migrations must be reversible.", DECISION),
        ("Deploy with Helm across the whole monorepo.", DECISION),
        ("请一直在回答末尾附上参考链接。", PREF),
        ("给我写 SQL 的时候，把每个 join 的理由写在注释里。", PREF),
        ("以后 Go 代码给我加上 context 超时，go vet 能过的那种。", PREF),
        ("每次改完代码都顺手把测试跑一遍。", PREF),
        ("后端的单测框架就定 pytest 了。", DECISION),
        ("经过讨论，我们选了 NATS 做消息总线。", DECISION),
        ("合并请求至少两个人 review 过才能合。", DECISION),
        ("所有金额字段存 decimal。", DECISION),
    ],
)
def test_eighth_round_structures(text: str, kind: str) -> None:
    assert extracted(turn(1, text)) == [(kind, text)]


@pytest.mark.parametrize(
    "text",
    [
        "Just this once, skip the type hints.",
        "I'm seriously considering dropping the GraphQL gateway.",
        "We're half thinking about moving to Bun.",
        "We need to figure out the caching story for the API.",
        "得再商量一下缓存怎么做。",
        "There's a flaky test in this repo.",
        "所有服务都用 Java 写的。",  # a state of the code
        "接口的超时设置不统一。",
        "你每次都把整个文件贴出来。",  # a complaint about the assistant's habit
        "You keep pasting the whole file.",
        "我经常看不懂你的正则。",
        "你上次说的时候我没听懂。",
        "We tested Redis last week.",
    ],
)
def test_musings_agendas_states_and_complaints_form_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


def test_a_complaint_beside_an_instruction_leaves_only_the_instruction() -> None:
    assert extracted(turn(1, "你每次回答都先重复一遍我的问题，没必要。以后直接回答。")) == [(PREF, "以后直接回答。")]


def test_an_instruction_after_a_report_of_trouble_stays_an_instruction() -> None:
    text = "你解释正则的时候我没看懂，以后多举两个例子。"
    assert extracted(turn(1, text)) == [(PREF, text)]


# -- assent that commits to or approves the proposal ---------------------------------------------------


@pytest.mark.parametrize(
    ("proposal", "reply"),
    [
        ("I suggest we pin every dependency with a lockfile. Shall we?", "Yes, nail that down."),
        ("We could rotate the API keys every 90 days. Does that work for you?", "Sounds sensible, go ahead with it."),
        ("How about I always end with the commands I ran?", "That would help. Yes."),
        ("建议所有外部调用统一加 circuit breaker，你觉得呢？", "行，就按这个 breaker 方案来。"),
    ],
)
def test_assent_that_commits_or_approves_confirms(proposal: str, reply: str) -> None:
    prior = turn(1, "?", proposal)
    assert [kind for kind, _ in extracted(turn(2, reply), prior=prior)] in ([DECISION], [PREF])


@pytest.mark.parametrize(
    "reply",
    [
        "Yes, but not yet.",
        "Sounds sensible, but let me check with the team first.",
        "That would help? Not sure.",
        "Nail that down later.",
    ],
)
def test_assent_that_defers_or_doubts_confirms_nothing(reply: str) -> None:
    prior = turn(1, "?", "I suggest we pin every dependency with a lockfile. Shall we?")
    assert extracted(turn(2, reply), prior=prior) == []


def test_a_confirmed_proposal_about_the_assistants_examples_is_a_preference() -> None:
    prior = turn(1, "你给的例子太长了。", "要不要以后代码片段都控制在 20 行以内？")
    assert [kind for kind, _ in extracted(turn(2, "嗯，就这么做。"), prior=prior)] == [PREF]


# -- corrections ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "correction", "kind"),
    [
        (
            "Release notes for this project: we publish them every two weeks.",
            "We're reversing that: release notes go out with every tag.",
            DECISION,
        ),
        ("以后提交信息用中文写。", "我想了想还是改回来吧，提交信息写英文。", PREF),
        (
            "Keep the indentation at tabs across the whole repo.",
            "Never mind what I said about tabs — spaces it is.",
            DECISION,
        ),
    ],
)
def test_a_correction_by_anaphora_supersedes_what_it_corrects(
    manager: MemoryManager, first: str, correction: str, kind: str
) -> None:
    run_each(manager, first, correction)
    assert active(manager) == [(kind, correction)]


def test_a_correction_naming_both_values_stands_on_its_own() -> None:
    text = "之前说用 Consul，现在改成 etcd。"
    assert extracted(turn(1, text)) == [(DECISION, text)]


def test_a_correction_spanning_its_turn_quotes_its_reason(manager: MemoryManager) -> None:
    run_each(
        manager,
        "By default, explain Kotlin coroutines to me from scratch.",
        "Actually, I know Kotlin well by now. Skip the basics instead.",
    )
    assert active(manager) == [(PREF, "Actually, I know Kotlin well by now. Skip the basics instead.")]
    assert search(manager, "kotlin")


def test_a_correction_retires_the_chinese_value_its_verb_took(manager: MemoryManager) -> None:
    run_each(manager, "以后提交信息用中文写。", "我想了想还是改回来吧，提交信息写英文。")
    assert search(manager, "提交信息") and search(manager, "英文")
    assert search(manager, "中文") == []


def test_a_correction_keeps_the_thesaurus_topic_of_what_it_replaces(manager: MemoryManager) -> None:
    """The retired tool named the topic; the topic stays findable by its concepts (单测 → 单元测试),
    not by the tool."""
    run_each(manager, "前端单测框架就定 Mocha 了。", "我再想了想，还是换成 Vitest，Mocha 的配置全删了。")
    assert search(manager, "单元测试") and search(manager, "vitest")
