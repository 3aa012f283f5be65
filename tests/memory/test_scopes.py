"""The scopes a question and a memory name (`memory/text/scopes.py`): a memory naming only another
environment or platform than the question is no answer; one naming the question's, a covering one or
none is."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from autopatch_j.memory.text import fold
from autopatch_j.memory.text.scopes import mismatch, query_scopes


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
    assert set(data) == {"classes", "restrictors"} and set(data["restrictors"]) == {"before", "after"}
    seen: set[str] = set()
    for spec in data["classes"].values():
        assert set(spec) == {"groups", "covers"}
        for group, inner in spec["covers"].items():
            assert {group, *inner} <= set(spec["groups"])
        for words in spec["groups"].values():
            for word in words:
                assert word == fold(word) and word not in seen
                seen.add(word)
