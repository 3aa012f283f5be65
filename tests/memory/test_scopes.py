"""The scopes a question and a memory name (`memory/text/scopes.py`): a memory naming only another
environment or platform than the question is no answer; one naming the question's, a covering one or
none is."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from autopatch_j.memory.text import fold
from autopatch_j.memory.text.scopes import answers_elsewhere, mismatch, query_scopes, question_scope
from autopatch_j.memory.text.variants import query_members


@pytest.mark.parametrize(
    ("question", "memory", "other"),
    [
        ("UAT 的网关超时多少", "Prod gateway timeout 30s", True),
        ("what does prod use for the gateway timeout", "生产环境网关超时 30 秒", False),
        ("what does prod use for the gateway timeout", "线上环境网关超时 30 秒。", False),
        ("staging gateway timeout", "Gateway timeout is 30s in prod.", True),
        # a broader group covers the question's
        ("do uat jobs page anyone", "Non-prod alerts go to email only", False),
        ("非生产环境的告警发到哪", "UAT alerts go to email", False),
        # a word inside an identifier names a thing, not the scope
        ("namespace name for prod", "Namespaces are <team>-<env>, e.g. claims-uat", False),
        ("uat config file", "Config lives in application-prod.yml", False),
        # the memory names both, or none
        ("android build flavour", "iOS and Android share one flavour list", False),
        ("鸿蒙版本的埋点方案", "埋点统一走神策", False),
        ("鸿蒙版本的埋点方案", "iOS 埋点走神策", True),
        # a memory limiting something to one scope speaks to every other
        ("is the devtools middleware on in production builds", "devtools 中间件只在开发环境开启", False),
        ("do uat alerts page anyone", "PagerDuty only for prod", False),
        ("uat deploy window", "Deploys to prod happen on Tuesdays", True),
        ("uat deploy window", "Weekend freeze, prod only.", False),
        ("uat deploy window", "Freeze commonly for prod", True),  # "commonly" is no "only"
        # the question names no scope
        ("gateway timeout", "Prod gateway timeout 30s", False),
    ],
)
def test_a_memory_answers_unless_it_names_only_another_scope(question: str, memory: str, other: bool) -> None:
    assert mismatch(query_scopes(question), memory) is other


def test_a_question_naming_no_scope_asks_nothing() -> None:
    assert query_scopes("what is the gateway timeout") == ()
    assert query_scopes("productive sitting in a prodigy") == ()  # whole words only


def test_the_table_is_folded_and_each_word_names_one_group() -> None:
    data = json.loads(resources.files("autopatch_j.memory.text").joinpath("scopes.json").read_text("utf-8"))
    assert set(data) == {"classes", "restrictors", "variants"} and set(data["restrictors"]) == {"before", "after"}
    assert set(data["variants"]) == {"ordinal_heads"} and all(h == fold(h) for h in data["variants"]["ordinal_heads"])
    seen: set[str] = set()
    for spec in data["classes"].values():
        assert set(spec) == {"groups", "covers"}
        for group, inner in spec["covers"].items():
            assert {group, *inner} <= set(spec["groups"])
        for words in spec["groups"].values():
            for word in words:
                assert word == fold(word) and word not in seen
                seen.add(word)


@pytest.mark.parametrize(
    ("question", "memory", "other"),
    [
        # a head word and a one-letter label, a short word glued to a digit, a number before an ordinal head
        ("rev C 的看门狗超时", "rev B IWDG 超时 2s", True),
        ("rev C 的看门狗超时", "Rev C and rev B share the IWDG timeout", False),
        ("what timeout does board-D use", "Board C watchdog 2 s", True),
        ("v3 的鉴权方式", "v2 接口统一用 API key", True),
        ("三期的部署方式", "二期用 K8s 部署", True),
        ("第二期的部署方式", "2 期用 K8s 部署", False),  # one member, two spellings
        ("P2 事故多久响应", "P1 incidents page within 15 minutes", True),
        ("B 版的外壳颜色", "A 版外壳用黑色", True),
        # the memory names no member of the family, or limits something to one
        ("rev C 的看门狗超时", "IWDG 超时 2s", False),
        ("is secure boot on for rev B", "Secure boot only on rev C", False),
        ("v3 的鉴权方式", "仅 v2 接口用 API key", False),
        # identifiers kept whole: a path, a flag, a reference, a joined name
        ("新接口要加 /v3 前缀吗", "All endpoints live under /v2", False),
        ("release 用 -O3 吗", "release builds use -O2", False),
        ("can I use actions/checkout@v5", "pin actions/checkout@v4", False),
        ("claims-v3 namespace quota", "claims-v2 namespace quota is 8 cores", False),
        # a value after a word is what a memory states, not a member; languages and sentence words are no labels
        ("should we move to node 20", "All lambdas run node 18", False),
        ("python 3.12 allowed?", "Python 3.11 for every service", False),
        ("are C++ exceptions allowed", "C code returns error codes", False),
        ("do the R scripts call set.seed", "the C library is vendored", False),
        ("should I use a mock here", "use a fake, not i mock", False),
    ],
)
def test_a_memory_of_another_member_of_a_family_does_not_answer(question: str, memory: str, other: bool) -> None:
    asked = question_scope(question)
    assert (asked is not None and answers_elsewhere(asked, memory)) is other


def test_a_family_is_read_by_shape() -> None:
    assert query_members("rev C 的看门狗超时 和 v2 接口、三期") == {
        "rev": frozenset({"c"}),
        "v": frozenset({"2"}),
        "期": frozenset({"3"}),
    }
    assert question_scope("what timeout does node 18 use in api/v2 with C++") is None
