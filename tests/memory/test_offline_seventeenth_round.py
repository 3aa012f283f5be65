"""Issue 11, seventeenth round: "that's been agreed with …" after a rule, "we're …ing X instead of Y",
"最后还是走 X" as a settled choice, "以后别 … 了" retiring what an earlier preference asked for, a
clause after ";" of a temporary sentence is temporary too, a confirmed offer to list the files an
edit touched is a preference — our own words, with lookalikes."""

from __future__ import annotations

import pytest

from autopatch_j.memory.drain import drain
from autopatch_j.memory.manager import MemoryManager
from tests.memory.pipeline_support import admit, pipeline_for
from tests.memory.test_offline import extracted
from tests.memory.test_offline_fifth_round import DECISION, PREF, active, run_each
from tests.memory.test_search import search
from tests.memory.test_validation import turn


def test_a_rule_agreed_with_another_team_is_a_decision_quoting_both() -> None:
    text = "Every public endpoint is going to require an API key; that's been agreed with security."
    ((kind, content),) = extracted(turn(1, text))
    assert kind == DECISION and content == text


def test_a_switch_in_the_progressive_with_instead_of_supersedes(manager: MemoryManager) -> None:
    run_each(
        manager,
        "Let's run the nightly build at 2am.",
        "Ops asked for it, so we're running the nightly build at 4am instead of 2am.",
    )
    ((kind, content),) = active(manager)
    assert kind == DECISION and "4am" in content


def test_a_final_choice_after_all_is_no_comparison(manager: MemoryManager) -> None:
    run_each(manager, "缓存就用 Memcached，大家都熟。", "压测结果不理想，缓存最后还是走 Redis。")
    ((kind, content),) = active(manager)
    assert kind == DECISION and "Redis" in content
    assert search(manager, "memcached") == []


def test_a_question_between_two_options_is_still_a_comparison() -> None:
    assert [k for k, _ in extracted(turn(1, "缓存用 Redis 还是 Memcached，我在纠结。"))] == ["discussion_context"]


def test_stop_doing_what_an_earlier_preference_asked_supersedes_it(manager: MemoryManager) -> None:
    run_each(manager, "以后解释概念的时候多举点生活里的例子。", "例子太多了反而啰嗦，以后别举例子了，直接讲定义就行。")
    ((kind, content),) = active(manager)
    assert kind == PREF and "直接讲定义" in content


def test_dont_forget_is_no_retirement() -> None:
    assert [k for k, _ in extracted(turn(1, "以后提交前别忘了跑一遍 lint。"))] == [PREF]


@pytest.mark.parametrize(
    "text",
    [
        "For this refactor only, skip the type hints; we'll add them back afterwards.",
        "这次排查先别管性能；我们之后再统一优化。",
        "这轮压测先把连接池调到 200，测完就改回 50。",
    ],
)
def test_a_clause_after_a_temporary_one_is_temporary_too(text: str) -> None:
    assert extracted(turn(1, text)) == []


def test_a_confirmed_offer_to_list_the_touched_files_is_a_preference(manager: MemoryManager) -> None:
    admit(
        manager,
        [
            ("你的修改总结太长了。", "要不要以后改完只列出改了哪些文件，每个文件一句话？"),
            ("要，就这样。", "好的。"),
        ],
    )
    drain(pipeline_for(manager))
    assert [kind for kind, _ in active(manager)] == [PREF]


def test_what_follows_instead_of_is_retired_and_the_topic_stays(manager: MemoryManager) -> None:
    run_each(
        manager,
        "Let's cut releases every Friday.",
        "Product wants them earlier, so we're cutting releases every Tuesday instead of every Friday.",
    )
    assert search(manager, "releases") and search(manager, "tuesday")
    assert search(manager, "friday") == []
    ((_, content),) = active(manager)
    assert content == "Product wants them earlier, so we're cutting releases every Tuesday"  # the quote has the rest


def test_a_name_only_in_the_reason_left_out_is_retired(manager: MemoryManager) -> None:
    run_each(manager, "以后讲架构的时候配 plantuml 图。", "plantuml 在我这边打不开，以后别配图了，用文字列要点就行。")
    ((kind, content),) = active(manager)
    assert kind == PREF and "plantuml" not in content
    assert search(manager, "plantuml") == [] and search(manager, "架构")


def test_what_runs_somewhere_by_default_is_a_code_fact() -> None:
    assert extracted(turn(1, "测试环境里默认装的是 Python 3.10，我本地是 3.12。")) == []


def test_changing_back_to_a_library_is_explicit(manager: MemoryManager) -> None:
    run_each(manager, "日志就用 loguru 吧。", "loguru 不好配，改回标准库 logging，loguru 不用了。")
    ((kind, content),) = active(manager)
    assert kind == DECISION and "logging" in content and search(manager, "loguru") == []
