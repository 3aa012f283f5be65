"""Issue 11, fifth round: corrections and restatements, scope extensions, echo confirmations, the kind
rule by what a statement is about, and sentence-length queries.

Our own checks, in our own words (never the generator's vocabulary, never the held-out part): each
structure with lookalikes that must form nothing, and the pipeline for reversals across batches.
"""

from __future__ import annotations

import pytest

from autopatch_j.memory.drain import drain
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from tests.memory.pipeline_support import admit, pipeline_for
from tests.memory.test_offline import extracted
from tests.memory.test_search import search
from tests.memory.test_validation import turn

PREF, DECISION = "user_preference", "project_decision"


def active(manager: MemoryManager) -> list[tuple[str, str]]:
    return sorted((item.kind.value, item.content) for item in manager.list_items())


def run_each(manager: MemoryManager, *users: str) -> None:
    """One turn at a time, each drained before the next (the background worker's rhythm)."""
    pipeline = pipeline_for(manager)
    for user in users:
        admit(manager, [(user, "OK.")])
        drain(pipeline)


# -- corrections and restatements -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "correction", "kind"),
    [
        # the correction names the old value: shared word, kind inherited
        ("我们决定请求重试次数统一设成 5 次。", "说错了，是 3 次，不是 5 次。", DECISION),
        ("Releases are cut every Friday, that's the rule.", "Correction: releases are cut every Thursday.", DECISION),
        ("以后回答用英文。", "我改主意了，还是中文吧。", PREF),
        ("Always put the summary at the top.", "On second thought, put the summary at the end.", PREF),
        ("From now on, use 4 spaces.", "Actually, use 2 spaces instead.", PREF),
        ("代码里的注释一律用中文。", "改一下：注释用英文。", DECISION),
    ],
)
def test_a_correction_in_the_next_turn_supersedes_what_it_corrects(
    manager: MemoryManager, first: str, correction: str, kind: str
) -> None:
    run_each(manager, first, correction)
    ((got_kind, content),) = active(manager)
    assert got_kind == kind and correction in content


def test_a_correction_naming_nothing_of_what_it_corrects_quotes_it_too(manager: MemoryManager) -> None:
    """ "更正一下：是 3 秒。" shares no word with "以后接口超时统一 30 秒。": the new memory quotes both (its
    provenance shows what it corrects) and replaces the old one; since the twelfth round of issue 11 its
    content states only the correction, so the retired "30" is no longer findable, while the topic is,
    by the keywords the replacement keeps."""
    run_each(manager, "以后接口超时统一 30 秒。", "更正一下：是 3 秒。")
    ((kind, content),) = active(manager)
    assert (kind, content) == (DECISION, "更正一下：是 3 秒。")
    assert search(manager, "30") == [] and search(manager, "超时")
    (item,) = manager.list_items()
    shown = manager.show_item(item.memory_id)
    assert shown is not None
    assert [s.quote for s in shown.sources] == ["以后接口超时统一 30 秒。", "更正一下：是 3 秒。"]


def test_a_correction_keeps_the_topic_but_not_the_retired_value_findable(manager: MemoryManager) -> None:
    run_each(manager, "We're going with MySQL for billing.", "Scratch that. We switched billing to PostgreSQL.")
    assert search(manager, "postgresql") and search(manager, "billing")
    assert search(manager, "mysql") == []


@pytest.mark.parametrize(
    "text",
    [
        "Scratch that, I was wrong about the stack trace.",
        "Correction: I meant the other file.",
        "算了，不管了。",
        "算了，先不讨论这个了。",
        "Scratch that idea.",
        "That's the rule I read in the old wiki.",
        "这个结论以这个文档为准吗？",
    ],
)
def test_a_correction_or_affirmation_with_nothing_to_correct_forms_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


def test_a_correction_after_an_unrelated_past_report_forms_nothing() -> None:
    prior = turn(1, "以后回答用中文。")
    assert extracted(turn(2, "更正一下，刚才那个报错是我本地环境的问题。"), prior=prior) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("All timestamps in the database are stored as UTC — that's the rule.", DECISION),
        ("Our team uses trunk-based development, that's final.", DECISION),
        ("依赖全部锁版本，这是规矩。", DECISION),
        ("Let me restate the rule: every migration needs a rollback script.", DECISION),
        ("接口文档改成 Redoc，这个也定了。", DECISION),
    ],
)
def test_an_affirmation_of_a_rule_is_explicit(text: str, kind: str) -> None:
    assert extracted(turn(1, text)) == [(kind, text)]


def test_a_restatement_after_a_forget_takes_the_kind_of_what_it_restates(manager: MemoryManager) -> None:
    run_each(manager, "We format everything with Black, line length 100, that's the rule.")
    (item,) = manager.list_items()
    manager.forget(item.memory_id)
    restated = "Let me restate that: the formatter for this repo is Black, line length 100."
    run_each(manager, restated)
    assert active(manager) == [(DECISION, restated)]


# -- scope extensions --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Please stop adding disclaimers to every reply. That goes for code reviews as well.",
        "以后回答不要用表情。这条也适用于提交信息。",
        "Keep replies under ten lines. That applies to every answer.",
    ],
)
def test_a_sentence_extending_a_statement_joins_it(text: str) -> None:
    assert extracted(turn(1, text)) == [(PREF, text.replace("。这", "。 这"))]


def test_an_extension_with_nothing_before_it_forms_nothing() -> None:
    assert extracted(turn(1, "That applies to the old version only.")) == []


# -- echo confirmations ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("proposal", "reply"),
    [
        ("I suggest we move the retry logic into one decorator.", "Yes, move it."),
        ("How about we cache sessions in Redis?", "OK, go with Redis then."),
        ("We could cap every page at 50 rows.", "Sure, cap it at 50."),
        ("How about we pin all dependencies with uv lock?", "Sounds good, pin them."),
        ("建议把重试逻辑抽到一个装饰器里，你看行吗？", "行，抽到装饰器里。"),
        ("我建议日志统一用 structlog，可以吗？", "可以，就用 structlog。"),
        # the assent after the echo, "X it is", and the answer to a "A 不 A" question
        ("I suggest we standardize on pnpm.", "pnpm, yes."),
        ("建议统一用 UTC 存时间。", "UTC 没问题。"),
        ("How about we use ruff for linting?", "ruff it is."),
        ("要不要把 CI 迁到 GitHub Actions？", "要。"),
    ],
)
def test_an_assent_repeating_the_proposals_words_confirms_it(proposal: str, reply: str) -> None:
    prior = turn(1, "?", proposal)
    assert extracted(turn(2, reply), prior=prior) == [(DECISION, proposal)]


@pytest.mark.parametrize(
    ("proposal", "reply"),
    [
        ("I suggest we add a retry decorator.", "Yes, but not now."),
        ("I suggest we add a retry decorator.", "OK, thanks for explaining the decorator."),
        ("The decorator pattern wraps a function.", "Yes, the decorator wraps it."),  # no proposal
        ("建议统一用 pnpm，要不要这样定？", "好，我先看看 pnpm 的文档。"),
        ("I could add type hints everywhere. Want me to do that?", "Sure, but only in new files."),
        ("I suggest we cap page size at 100.", "Sure, 200 is fine."),
        ("I suggest we cap page size at 100.", "Yes, cap it — what about 200 though?"),
        ("要不要把 CI 迁到 GitHub Actions？", "不要。"),
        ("要不要把 CI 迁到 GitHub Actions？", "要不然先别。"),
        ("I suggest we standardize on pnpm.", "Maybe, it is an option."),
        ("这个函数行不行？", "行。"),  # a question, no proposal
    ],
)
def test_an_assent_that_adds_qualifies_or_asks_confirms_nothing(proposal: str, reply: str) -> None:
    prior = turn(1, "?", proposal)
    assert extracted(turn(2, reply), prior=prior) == []


# -- the kind rule ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a rule stated of a thing, addressed to no one: the project's
        ("单元测试覆盖率的门槛定成 85%。", DECISION),
        ("HTTP 客户端就用 httpx，别再引入 requests。", DECISION),
        ("新接口一律返回 RFC 7807 格式的错误。", DECISION),
        ("代码里的 log message 一律用英文写。", DECISION),
        # the assistant's conduct toward the user, even on a project artefact
        ("Going forward, don't recommend new libraries unless the standard library can't do it.", PREF),
        ("以后别推荐第三方库了。", PREF),
        ("Always mention which Node version a snippet needs.", PREF),
        # standing or bare imperatives to the assistant
        ("Never use wildcard imports.", PREF),
        ("以后变量名别用缩写。", PREF),
        ("No more bullet lists, please write prose.", PREF),
        ("讲代码的时候别太啰嗦。", PREF),
        ("Always include type hints in code examples.", PREF),
        # nothing addressed, nothing named: still how the assistant should work
        ("后续都不用写开场白了。", PREF),
        ("之后都在每段代码前面注明出处。", PREF),
        # a rule naming a concrete thing (a number, a tool, a day) and addressing no one
        ("门禁阈值定成 85%。", DECISION),
        ("Scratch that — no more Monday releases.", DECISION),
    ],
)
def test_the_kind_follows_what_the_statement_is_about(text: str, kind: str) -> None:
    assert extracted(turn(1, text)) == [(kind, text)]


@pytest.mark.parametrize(
    "text",
    [
        "Dockerfile 里的基础镜像现在默认是 debian。",
        "Nothing's decided on the queue yet, we're toying with Kafka.",
        "I'm toying with the idea of dropping macOS support, but nothing is decided.",
        "changelog 每次都手写好麻烦。",
        "可能的话以后都用 pnpm。",  # "if possible" is a hedge
        "Please apply the correction to the README.",
    ],
)
def test_present_states_musings_and_complaints_form_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


def test_weighing_inside_a_standing_instruction_is_an_instruction() -> None:
    text = "以后跟我讨论架构的时候，先列 trade-offs，再给你的建议。"
    assert extracted(turn(1, text)) == [(PREF, text)]


def test_possible_as_an_adjective_is_no_hedge() -> None:
    text = "以后解释代码时，请顺便标出可能的边界情况。"
    assert extracted(turn(1, text)) == [(PREF, text)]


def test_a_team_agreeing_in_code_switched_words_is_a_decision() -> None:
    text = "我们 team 已经 agree 了，所有 PR 至少要一个 approve 才能 merge。"
    assert extracted(turn(1, text)) == [(DECISION, text)]


def test_kinds_are_stable_for_a_preference_restated_after_its_forget(manager: MemoryManager) -> None:
    run_each(manager, "以后回答都用中文。")
    (item,) = manager.list_items()
    assert item.kind is MemoryKind.USER_PREFERENCE
    manager.forget(item.memory_id)
    run_each(manager, "我重新说一下：以后回答都用中文。")
    assert active(manager) == [(PREF, "我重新说一下：以后回答都用中文。")]


@pytest.mark.parametrize(
    ("proposal", "reply", "kind"),
    [
        ("要不要以后回答都先给结论？", "要。", PREF),  # how the assistant answers
        ("How about I explain the diff before showing code?", "Sure.", PREF),
        ("We could return error responses as JSON.", "OK.", DECISION),  # an API's responses
        ("我建议提交信息统一成 Conventional Commits 格式，可以吗？", "同意。", DECISION),
    ],
)
def test_a_confirmed_proposal_about_the_answers_is_a_preference(proposal: str, reply: str, kind: str) -> None:
    prior = turn(1, "?", proposal)
    assert extracted(turn(2, reply), prior=prior) == [(kind, proposal)]


@pytest.mark.parametrize(
    "text",
    ["今天这个 PR 先不跑 lint 了。", "说不定以后会换 Go。", "这个项目一直用的是 MySQL。"],
)
def test_today_maybe_and_what_has_always_been_used_form_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("We landed on Celery for background jobs.", DECISION),
        ("The team signed off on moving CI to GitHub Actions.", DECISION),
        ("前端框架我们选 Vue 3。", DECISION),
        ("不要在回答里贴整段日志。", PREF),
        ("从今天起提交信息用英文。", PREF),
    ],
)
def test_more_ways_to_decide_and_to_forbid(text: str, kind: str) -> None:
    assert extracted(turn(1, text)) == [(kind, text)]
