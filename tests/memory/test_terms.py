"""Normalization (M-62, M-64) and the search index of an item (memory/index.py): terms, weights, statistics."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autopatch_j.memory.errors import StorageError
from autopatch_j.memory.index import MAX_ITEM_TERMS, MAX_TERM_CHARS, WEIGHT_OFFSET, item_weights, query_terms
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from autopatch_j.memory.terms import normalize
from tests.memory.item_factory import add_item, set_status


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  Hello,   World!! ", "hello world"),
        ("ＰＹＴＨＯＮ　３．１０", "python 3 10"),
        ("Straße", "strasse"),
        ("回答，先给结论。", "回答先给结论"),
        ("使用 Python 3.10", "使用python 3 10"),
        ("snake_case-name", "snake case name"),
        ("，。！", ""),
        ("", ""),
    ],
)
def test_normalize(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


@given(st.text(max_size=80))
def test_normalize_is_idempotent(text: str) -> None:
    assert normalize(normalize(text)) == normalize(text)


def test_item_terms_are_stems_identifiers_and_chinese_words_with_title_weighted_up() -> None:
    weights = item_weights(title="Deploy config", content="Services read src/app.yaml; 以后部署配置放在国际化方案里。")
    assert {"deploy", "config", "servic", "src/app.yaml", "部署", "配置", "国际", "国际化", "方案"} <= set(weights)
    assert "the" not in weights and "以后" not in weights  # fillers are never terms
    assert weights["deploy"] > weights["servic"]  # in the title: counted three times


def test_item_terms_are_bounded() -> None:
    weights = item_weights(title="t", content=" ".join(f"word{n}x" for n in range(400)) + " " + "y" * 300)
    assert len(weights) <= MAX_ITEM_TERMS
    assert all(len(term) <= MAX_TERM_CHARS for term in weights)


@given(st.text(max_size=200))
def test_item_weights_are_positive_integers_for_any_text(text: str) -> None:
    weights = item_weights(title=text[:50] or "x", content=text or "x")
    assert all(isinstance(w, int) and w > 0 for w in weights.values())


def test_query_terms_leave_fillers_out_and_keep_identifiers_whole() -> None:
    assert [t.key for t in query_terms("what package manager are we on")] == ["packag", "manag"]
    assert [t.key for t in query_terms("我们用的测试框架是什么")] == ["测试", "框架"]
    assert [t.key for t in query_terms("is pip-tools allowed")] == ["pip-tools"]


def test_query_terms_are_dictionary_words_not_the_segmenters_guesses() -> None:
    # The segmenter's HMM glues 时 + 要 into a word no memory holds; a query asks for dictionary words.
    keys = [t.key for t in query_terms("给代码时要给完整的还是片段")]
    assert "时要" not in keys and {"完整", "片段"} <= set(keys)
    assert [t.key for t in query_terms("什麼時候部署")] == [t.key for t in query_terms("什么时候部署")]


def test_indexing_stores_postings_the_term_list_and_statistics(manager: MemoryManager) -> None:
    made = add_item(manager, kind=MemoryKind.USER_PREFERENCE, title="Answer", content="以后先给结论", keywords=["ab"])
    with manager.db.read("terms") as conn:
        numbers = dict(conn.execute("SELECT id, term FROM memory_term_stats").fetchall())
        postings = {
            numbers[term_id]: weight
            for term_id, weight in conn.execute(
                "SELECT term_id, weight FROM memory_postings WHERE item_id = ?", (made.id,)
            )
        }
        (terms,) = conn.execute("SELECT terms FROM memory_search_docs WHERE item_id = ?", (made.id,)).fetchone()
        stats = dict(conn.execute("SELECT term, items FROM memory_term_stats").fetchall())
    assert set(postings) == {"answer", "ab", "先给", "结论"}
    expected = item_weights(title="Answer", content="以后先给结论", keywords=["ab"])
    assert {term: weight + WEIGHT_OFFSET for term, weight in postings.items()} == expected
    assert all(-99 <= weight <= 127 for weight in postings.values())  # one byte each on disk
    assert terms == len(postings)  # how many postings it holds, not their terms
    assert stats[""] == 1 and all(stats[term] == 1 for term in postings)


def test_a_posting_must_name_a_numbered_term(manager: MemoryManager) -> None:
    made = add_item(manager, kind=MemoryKind.USER_PREFERENCE, title="quokka")
    with pytest.raises(StorageError, match="unknown term id"), manager.db.write("test: a posting of no term") as conn:
        conn.execute("INSERT INTO memory_postings (term_id, item_id, weight) VALUES (9999, ?, 1)", (made.id,))


def test_retiring_an_item_drops_its_postings_and_counts(manager: MemoryManager) -> None:
    made = add_item(manager, kind=MemoryKind.USER_PREFERENCE, title="quokka")
    set_status(manager, made.memory_id, "forgotten")
    with manager.db.read("terms") as conn:
        assert conn.execute("SELECT count(*) FROM memory_postings").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM memory_search_docs").fetchone()[0] == 0
        assert conn.execute("SELECT max(items) FROM memory_term_stats").fetchone()[0] == 0


def test_forgetting_drops_every_posting_even_when_the_tokenizer_changed_since(manager: MemoryManager) -> None:
    made = add_item(manager, kind=MemoryKind.USER_PREFERENCE, title="quokka pnpm", content="以后先给结论")
    other = add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="quokka ruff")
    with manager.db.write("test: the row no longer gives the keys it was indexed by") as conn:
        conn.execute("UPDATE memory_items SET title = 'wombat', content = 'wombat' WHERE id = ?", (made.id,))
    manager.forget(made.memory_id)
    with manager.db.read("terms") as conn:
        left = conn.execute("SELECT DISTINCT item_id FROM memory_postings").fetchall()
        stats = dict(conn.execute("SELECT term, items FROM memory_term_stats WHERE items > 0").fetchall())
        docs = conn.execute("SELECT item_id, terms FROM memory_search_docs").fetchall()
    assert [tuple(row) for row in left] == [(other.id,)]
    assert stats == {"": 1, "quokka": 1, "ruff": 1}
    assert [tuple(row) for row in docs] == [(other.id, 2)]
    assert [hit.title for hit in manager.search(thread_id=1, query="quokka")] == ["quokka ruff"]


def test_the_filler_words_are_data_with_a_strict_schema() -> None:
    from pydantic import ValidationError

    from autopatch_j.memory.text.filler_schema import FillerData
    from autopatch_j.memory.text.languages import fillers, registry

    data = registry()
    assert set(data.languages) == {"en", "zh"}
    assert {"what", "which", "怎么", "什么", "我们"} <= fillers()
    raw = data.model_dump()
    raw["languages"]["en"]["stopwords"] = ["x"]
    with pytest.raises(ValidationError):
        FillerData.model_validate(raw)


def test_each_language_lists_its_question_words_apart_and_they_are_fillers() -> None:
    from autopatch_j.memory.text.languages import fillers, question_words, registry

    data = registry()
    assert {"what", "which", "how"} <= set(data.languages["en"].question_words)
    assert {"怎么", "多久"} <= set(data.languages["zh"].question_words)
    cantonese = data.languages["zh"].varieties["yue"]  # a variety of Chinese: its words are Chinese words
    assert cantonese.question_words["几耐"] == "多久" and cantonese.fillers["入面"] == "里面"
    assert {"几多", "点样", "几耐", "喺边"} <= set(question_words())
    assert {"几多", "点样", "咗", "嘅", "入面", "what"} <= fillers()
    assert question_words()[0] == max(question_words(), key=len)  # the longest first
    assert all(len(word) >= 2 for word in question_words())


def test_a_query_is_cut_at_its_question_words_unless_the_dictionary_words_cross_them() -> None:
    assert [t.key for t in query_terms("镜像 tag 要点样命名")] == ["镜像", "tag", "命名"]  # 要 + 点样
    assert [t.key for t in query_terms("redis 有几多个节点")] == ["redi", "节点"]  # 几多 + 个
    assert [t.key for t in query_terms("重点解决哪些问题")] == ["重点", "解决", "问题"]  # 点解 is not asked
    assert [t.key for t in query_terms("runbook 先写什么")] == ["runbook"]  # no guessed word beside 什么
    assert [t.key for t in query_terms("catalog 入面 bundle 用喺边")] == ["catalog", "bundl"]  # inside, where


def test_a_variety_maps_each_word_to_the_word_it_stands_for_and_has_no_word_in_both_lists() -> None:
    from pydantic import ValidationError

    from autopatch_j.memory.text.filler_schema import FillerData
    from autopatch_j.memory.text.languages import registry

    raw = registry().model_dump()
    unglossed = copy.deepcopy(raw)
    unglossed["languages"]["zh"]["varieties"]["yue"]["fillers"]["咗"] = " "
    both = copy.deepcopy(raw)
    both["languages"]["zh"]["varieties"]["yue"]["fillers"]["几耐"] = "多久"
    unknown = copy.deepcopy(raw)
    unknown["languages"]["zh"]["varieties"]["yue"]["stopwords"] = {"x": "y"}
    for broken in (unglossed, both, unknown):
        with pytest.raises(ValidationError):
            FillerData.model_validate(broken)
