"""Issue 11, sixteenth round: a sentence ends after a closing quote, not inside it; an assistant's
follow-up question that points back is quoted with its proposal; a revision that names what it drops
retires only that; a past event as the reason of a rule ("after last week's outage …"), "再过 … 检查",
"new plan for X:", code "you write for me" as a standing scope, "that's my preference going forward",
a trailing "就行" after 一直这样, "while we're …ing" as temporary — our own words, with lookalikes."""

from __future__ import annotations

import pytest

from autopatch_j.memory.drain import drain
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.sentences import split_sentences
from tests.memory.pipeline_support import admit, pipeline_for
from tests.memory.test_offline import extracted
from tests.memory.test_offline_fifth_round import DECISION, PREF, active, run_each
from tests.memory.test_search import search
from tests.memory.test_validation import turn


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        (
            "Please stop asking 'Shall I continue?' at the end. Just keep going.",
            ["Please stop asking 'Shall I continue?' at the end.", "Just keep going."],
        ),
        ("别再问我“要不要继续？”了。直接往下做。", ["别再问我“要不要继续？”了。", "直接往下做。"]),
        ('He asked "why?" and left.', ['He asked "why?" and left.']),
        ("Is it 'ok'? Yes.", ["Is it 'ok'?", "Yes."]),
    ],
)
def test_a_sentence_does_not_end_inside_a_quotation(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences


def test_a_standing_rule_quoting_a_question_is_one_preference() -> None:
    text = "From now on, never end a reply with 'Anything else?' — I'll ask if I need more."
    assert [k for k, _ in extracted(turn(1, text))] == [PREF]


def test_a_follow_up_question_pointing_back_is_quoted_with_its_proposal(manager: MemoryManager) -> None:
    proposal = "We could pin every base image by digest. Want to make that the rule for our Helm charts?"
    admit(manager, [("Our builds keep pulling new images.", proposal), ("Yes, do that.", "Done.")])
    drain(pipeline_for(manager))
    ((kind, content),) = active(manager)
    assert kind == DECISION and content == proposal
    assert search(manager, "helm") and search(manager, "digest")


def test_a_revision_naming_what_it_drops_keeps_the_topic_findable(manager: MemoryManager) -> None:
    run_each(
        manager, "消息队列定为 RabbitMQ，大家都同意。", "RabbitMQ 运维太重，我们 switch 到 NATS，RabbitMQ 以后不用了。"
    )
    assert search(manager, "消息队列") and search(manager, "nats")
    assert search(manager, "rabbitmq") == []


def test_a_revision_retiring_two_names_keeps_the_category_name(manager: MemoryManager) -> None:
    run_each(manager, "Our ORM is Hibernate, decided.", "Hibernate is out — the ORM is jOOQ now, no more Hibernate.")
    assert search(manager, "orm") and search(manager, "jooq")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("After last month's outage we're requiring health checks on every deployment.", DECISION),
        ("先定一下：项目的前端代码统一用 prettier 格式化，再过 eslint 检查。", DECISION),
        ("Keep functions under 40 lines in any code you write for me.", PREF),
        ("以后只用 pnpm，一直这样就行。", DECISION),
        ("Let me redo that one: uppercase SQL keywords in queries you write for me.", PREF),
    ],
)
def test_rules_with_a_past_reason_a_second_step_or_a_habitual_scope(text: str, kind: str) -> None:
    assert [k for k, _ in extracted(turn(1, text))] == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "Last month we required health checks on every deployment.",
        "这个包以前过过一次安全审计。",
        "Just while we're profiling this endpoint, log every SQL query you run.",
        "只在排查这个 bug 期间，每次都把完整日志贴出来。",
    ],
)
def test_past_reports_and_rules_for_the_time_being_form_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


def test_a_ratifying_sentence_of_ones_own_after_a_clause(manager: MemoryManager) -> None:
    run_each(
        manager,
        "Please default to tables when you compare libraries for me.",
        "Actually, tables are hard to read on my phone. Switch to bullet lists for library comparisons, please; "
        "that's my preference going forward.",
    )
    ((kind, content),) = active(manager)
    assert kind == PREF and "bullet lists" in content


def test_a_new_plan_for_a_topic_supersedes(manager: MemoryManager) -> None:
    run_each(
        manager,
        "Let's run the dependency audit every Friday.",
        "New plan for the audit: it runs on Mondays from next sprint, so fixes land early in the week.",
    )
    ((kind, content),) = active(manager)
    assert kind == DECISION and "Mondays" in content
    assert search(manager, "friday") == [] and search(manager, "audit")


def test_a_clause_naming_no_owner_after_a_semicolon_continues_the_decision() -> None:
    text = "We're requiring signed commits on main from today on; unsigned ones won't get merged anymore."
    ((kind, content),) = extracted(turn(1, text))
    assert kind == DECISION and content == text


def test_a_clause_for_the_user_after_a_semicolon_is_its_own_preference() -> None:
    text = "We're requiring signed commits on main from now on; and please always answer me in English."
    assert [k for k, _ in extracted(turn(1, text))] == [DECISION, PREF]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("提交信息里麻烦都写上 issue 编号，方便我回溯。一直这样就好。", PREF),
        ("Team call: every migration ships with a rollback script.", DECISION),
        ("And for me personally: skip the emoji in your replies.", PREF),
        ("Please don't suggest sudo pip installs; a virtualenv is the way to go for me.", PREF),
        ("Build artifacts live in S3 only. Nothing gets committed to the repo, ever.", DECISION),
        ("We're committing to 2-space indentation across the frontend.", DECISION),
    ],
)
def test_more_ways_to_state_a_rule(text: str, kind: str) -> None:
    assert [k for k, _ in extracted(turn(1, text))] == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "Just while we're chasing this flaky test, rerun the suite three times on every push.",
        "Is Vault the way to go here?",
        "The files live in S3 right now.",
        "We committed the lockfile by mistake, ever since the migration.",
    ],
)
def test_their_lookalikes_form_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


def test_just_now_then_should_be_corrects_a_value(manager: MemoryManager) -> None:
    run_each(manager, "接口超时我们统一定成 30 秒。", "刚才那个数字说快了，应该是 10 秒，30 太久。")
    ((kind, content),) = active(manager)
    assert kind == DECISION and "10 秒" in content
    assert search(manager, "超时")


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("以后订单金额一律用整数分存。", "amount"),
        ("我们决定菜单图标统一用 SVG。", "icon"),
        ("Refund amounts are stored in cents from now on.", "金额"),
    ],
)
def test_money_and_icons_are_found_across_languages(manager: MemoryManager, text: str, query: str) -> None:
    run_each(manager, text)
    assert search(manager, query)
