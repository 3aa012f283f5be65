"""The search thesaurus (issue 11, third round): common software-engineering concepts across zh/en,
applied to the query (equivalents.json via index.query_terms), found through the real search."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from autopatch_j.memory.index import text_keys
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from tests.memory.item_factory import add_item
from tests.memory.test_search import search

PREF = MemoryKind.USER_PREFERENCE
DECISION = MemoryKind.PROJECT_DECISION


def titles(manager: MemoryManager, query: str) -> list[str]:
    return [hit.title for hit in search(manager, query)]


@pytest.fixture
def concepts(manager: MemoryManager) -> MemoryManager:
    add_item(manager, kind=PREF, title="risk first", content="When you suggest a refactor, state the risk first.")
    add_item(manager, kind=PREF, title="复杂度", content="以后 explain code 的时候标出 time complexity。")
    add_item(manager, kind=DECISION, title="异常", content="禁止裸 except，统一抛出项目自定义的 AppError 子类。")
    add_item(manager, kind=PREF, title="只贴改动", content="给我看代码改动的时候只贴改了的那几行。")
    add_item(manager, kind=DECISION, title="噪音", content="第三方库的 log level 统一调到 WARNING。")
    add_item(manager, kind=DECISION, title="类名", content="前端类名统一按 BEM 来写。")
    add_item(manager, kind=PREF, title="no recap", content="Please don't summarize what you changed at the end.")
    return manager


@pytest.mark.parametrize(
    ("query", "title"),
    [
        ("重构", "risk first"),  # refactor ↔ 重构
        ("complexity", "复杂度"),
        ("复杂度", "复杂度"),
        ("错误处理", "异常"),  # 抛出 (throw) belongs to error handling
        ("exception handling", "异常"),
        ("diff", "只贴改动"),  # 改动 ↔ diff / patch
        ("patch", "只贴改动"),
        ("日志级别", "噪音"),  # log ↔ 日志, level ↔ 级别
        ("logging", "噪音"),
        ("summary", "no recap"),  # summarize and summary have different stems; one concept
        ("总结", "no recap"),
    ],
)
def test_a_concept_is_found_by_its_other_language_or_its_synonym(
    concepts: MemoryManager, query: str, title: str
) -> None:
    assert titles(concepts, query) == [title]


def test_a_named_tool_is_found_by_its_broader_concept_never_the_reverse(concepts: MemoryManager) -> None:
    assert titles(concepts, "css") == ["类名"]  # BEM is a CSS naming convention
    assert titles(concepts, "naming") == ["类名"]
    add_item(concepts, kind=DECISION, title="样式文件", content="所有 CSS 放在 styles 目录。")
    assert titles(concepts, "bem") == ["类名"]  # a CSS memory is not a BEM memory
    assert sorted(titles(concepts, "css")) == ["样式文件", "类名"]


def test_a_named_object_store_is_found_as_object_storage(manager: MemoryManager) -> None:
    """Issue 11, fifth round: OSS / S3 / MinIO / GCS are object stores (对象存储, storage)."""
    add_item(manager, kind=DECISION, title="图片存放", content="项目决定图片统一存 OSS，不再放本地磁盘。")
    assert titles(manager, "对象存储") == ["图片存放"]
    assert titles(manager, "storage") == ["图片存放"]
    add_item(manager, kind=DECISION, title="存储层", content="All uploads go through the storage layer.")
    assert titles(manager, "oss") == ["图片存放"]  # storage is not an object store


def test_ambiguous_function_words_are_not_members() -> None:
    """'except' (a preposition as often as a keyword) and 'state' (a verb) would file unrelated memories
    under error handling and state management; the thesaurus lists concept words only."""
    found = set(text_keys("Never touch files except the ones I name; state the risk first.", thesaurus=True))
    assert not found & {"异常", "错误处理", "exception", "状态管理", "状态"}


def test_each_stem_collision_listed_really_collides_with_a_member() -> None:
    """`not_triggers` holds only words that a member's stem would otherwise catch (keeps the list honest)."""
    from autopatch_j.memory.words import stem

    data = json.loads(resources.files("autopatch_j.memory").joinpath("equivalents.json").read_text(encoding="utf-8"))
    members = [m for g in data["groups"] for m in g] + [m for e in data["broader"] for m in e["narrower"]]
    stems = {stem(m) for m in members if m.isascii()}
    assert data["not_triggers"] and all(stem(word) in stems for word in data["not_triggers"])
    found = set(text_keys("It contains the local product set", thesaurus=True))
    assert not found & {"容器", "本地化", "生产环境", "配置"}


def test_every_member_is_one_word_or_one_cjk_run_and_the_resource_is_large() -> None:
    data = json.loads(resources.files("autopatch_j.memory").joinpath("equivalents.json").read_text(encoding="utf-8"))
    assert len(data["groups"]) >= 150 and len(data["broader"]) >= 20
    for entry in data["broader"]:
        assert entry["narrower"] and entry["broader"]
    assert {"测试", "test"} <= set(text_keys("pytest", thesaurus=True))  # loads without error
