"""A take-back naming its rule by the rule's words: the shape read, and the rule it names."""

from __future__ import annotations

import pytest

from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.takebacks import joined_with_another, named_rule, named_words

LEXICON = default_lexicon()


@pytest.mark.parametrize(
    ("sentence", "named"),
    [
        ("diff 那个不要了 git apply 老对不上行号", ["diff"]),
        ("UI Toolkit 那个先不搞了 新界面还是 UGUI", ["ui", "toolkit"]),
        ("冻结结束了 main 只合 hotfix 那条取消 正常合吧", ["冻结结束了", "main", "只合", "hotfix"]),
        ("老陈刚说 UI Toolkit 这个先撤了", ["老陈刚说", "ui", "toolkit"]),
        ("barrel file 那条规则撤回 先不动", ["barrel", "file"]),  # the noun for a rule after the pointer
        ("算了 sccache 先不搞了 S3 桶批不下来", ["算了", "sccache"]),  # no pointer: a negated predicate
    ],
)
def test_a_take_back_names_the_words_before_its_pointer(sentence: str, named: list[str]) -> None:
    assert named_words(LEXICON, sentence) == named


@pytest.mark.parametrize(
    "sentence",
    [
        "这个不要了",  # names nothing: what was just said decides
        "这个函数那个参数不要了吧",  # the predicate names a thing of its own: a one-off request
        "我觉得那个挺好",  # no cancelling predicate
        "以后日志统一用 zap",
        "顺手把旧的 /api/webhooks/legacy 删掉",  # an action done once, no pointer
        "if it still drops, revert to the legacy launch file",  # no Chinese predicate
    ],
)
def test_other_shapes_are_no_named_take_back(sentence: str) -> None:
    assert named_words(LEXICON, sentence) == []


def test_only_the_pointed_shape_is_read_when_asked() -> None:
    assert named_words(LEXICON, "算了 sccache 先不搞了", pointed=True) == []
    assert named_words(LEXICON, "diff 那个不要了", pointed=True) == ["diff"]


def test_the_rule_holding_the_words_nearest_the_pointer_is_named() -> None:
    rules = ["以后日志统一用 zap", "main 冻结期间只合 hotfix 不合新功能", "以后分支名统一用 feature/xxx 格式"]
    sentence = "冻结结束了 main 只合 hotfix 那条取消 正常合吧"
    assert named_rule(LEXICON, sentence, rules, str) == rules[1]


def test_a_take_back_naming_words_no_rule_holds_names_nothing() -> None:
    assert named_rule(LEXICON, "protobuf 那个不要了 太重", ["以后日志统一用 zap"], str) is None


def test_a_rule_stored_joined_with_another_is_not_retired_whole() -> None:
    joined = "规范：Mapper XML 一律放在 mapper 目录下面，禁止在 Mapper 接口上写注解 SQL。"
    assert joined_with_another(LEXICON, "之前说的禁止注解 SQL 那条作废。", [joined])


def test_a_reason_beside_the_rule_states_no_other_rule() -> None:
    rule = "以后改代码都给我 unified diff 格式，我直接 git apply"
    assert not joined_with_another(LEXICON, "diff 那个不要了 git apply 老对不上行号", [rule])


def test_a_clause_cut_inside_a_name_is_no_other_rule() -> None:
    rule = "以后每个回答末尾给我一行 TL;DR。"
    assert not joined_with_another(LEXICON, "TL;DR 那个不用了，看着有点啰嗦。", [rule])
