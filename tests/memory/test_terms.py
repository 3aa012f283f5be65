"""Retrieval terms (M-62, M-64): normalization, metadata and content terms, grams and their stats."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from autopatch_j.memory.terms import (
    CJK_SUFFIX_CHARS,
    GRAM,
    MAX_CONTENT_TERMS,
    MAX_TERM_CHARS,
    content_terms,
    grams,
    metadata_terms,
    normalize,
)
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


def test_grams_start_at_every_position_shorter_at_the_end() -> None:
    assert grams("abcd") == ["abc", "bcd", "cd", "d"]
    assert grams("aaaa") == ["aaa", "aa", "a"]
    assert grams("") == []


@given(st.text(alphabet="ab结论 ", min_size=1, max_size=30), st.data())
def test_every_short_substring_is_a_prefix_of_some_gram(term: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(term) - 1))
    length = data.draw(st.integers(1, GRAM))
    sub = term[start : start + length]
    assert any(g.startswith(sub) for g in grams(term))


def test_metadata_terms_are_whole_normalized_unique_values() -> None:
    terms = metadata_terms("回答先给结论", ["Answer First", "answer first!", ""], ["结论", "x" * 300])
    assert terms == ["回答先给结论", "answer first", "结论", "x" * MAX_TERM_CHARS]


def test_content_terms_are_words_and_cjk_suffixes_in_text_order() -> None:
    assert content_terms("Use ruff 做 lint 和格式化") == ["use", "ruff", "lint", "和格式化", "格式化", "式化"]


def test_cjk_suffixes_are_cut() -> None:
    run = "一二三四五六七八九十甲乙丙丁戊己庚辛"
    terms = content_terms(run)
    assert terms[0] == run[:CJK_SUFFIX_CHARS]
    assert all(len(t) <= CJK_SUFFIX_CHARS for t in terms)
    assert len(terms) == len(run) - 1


def test_content_terms_are_bounded() -> None:
    terms = content_terms(" ".join(f"word{n}" for n in range(1000)) + "中文" * 500)
    assert len(terms) == MAX_CONTENT_TERMS
    assert all(1 <= len(t) <= MAX_TERM_CHARS for t in terms)


@given(st.text(max_size=400))
def test_content_terms_always_within_bounds(text: str) -> None:
    terms = content_terms(text)
    assert len(terms) <= MAX_CONTENT_TERMS
    assert len(set(terms)) == len(terms)
    assert all(1 <= len(t) <= MAX_TERM_CHARS and t == normalize(t) for t in terms)


def test_indexing_stores_meta_grams_and_content_terms(manager: MemoryManager) -> None:
    made = add_item(manager, kind=MemoryKind.USER_PREFERENCE, title="Answer", content="以后先给结论", keywords=["ab"])
    with manager.db.read("terms") as conn:
        rows = conn.execute(
            "SELECT source, term FROM memory_terms WHERE item_id = ? ORDER BY id", (made.id,)
        ).fetchall()
        gram_rows = conn.execute(
            "SELECT g.gram FROM memory_term_grams g JOIN memory_terms t ON t.id = g.term_id "
            "WHERE t.item_id = ? ORDER BY g.gram",
            (made.id,),
        ).fetchall()
        stats = dict(conn.execute("SELECT gram, terms FROM memory_gram_stats").fetchall())
    assert [tuple(r) for r in rows] == [
        ("meta", "answer"),
        ("meta", "ab"),
        # word keys of the metadata (no grams), marked with "#": the zh/en equivalents of "answer" first,
        # then the words and their stems
        *(
            ("meta", f"#{key}")
            for key in ["回答", "答复", "回复", "响应", "answer", "reply", "repli", "response", "respons", "ab"]
        ),
        # content: the equivalents of 结论, then every suffix and bigram of the CJK run in text order
        *(
            ("content", key)
            for key in [
                "结论",
                "conclusion",
                "conclus",
                "以后先给结论",
                "以后",
                "后先给结论",
                "后先",
                "先给结论",
                "先给",
            ]
        ),
        ("content", "给结论"),
        ("content", "给结"),
    ]
    assert sorted(g[0] for g in gram_rows) == sorted([*grams("answer"), *grams("ab")])
    assert stats["ans"] == 1 and stats["b"] == 1


def test_retiring_an_item_drops_its_terms_and_gram_counts(manager: MemoryManager) -> None:
    made = add_item(manager, kind=MemoryKind.USER_PREFERENCE, title="quokka")
    set_status(manager, made.memory_id, "forgotten")
    with manager.db.read("terms") as conn:
        assert conn.execute("SELECT count(*) FROM memory_terms").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM memory_term_grams").fetchone()[0] == 0
        assert conn.execute("SELECT max(terms) FROM memory_gram_stats").fetchone()[0] == 0
