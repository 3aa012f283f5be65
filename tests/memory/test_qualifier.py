"""The search qualifier's rule file (memory/qualifier.py): the shipped one loads, a wrong one is refused;
whether a match crosses scripts is one answer in the ranking statement and in Python."""

from __future__ import annotations

import json
import sqlite3
from importlib import resources

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.qualifier import FEATURES, crosses, parse, qualifier
from autopatch_j.memory.text import CJK_GLOB


def _shipped() -> dict[str, object]:
    text = resources.files("autopatch_j.memory").joinpath("search_qualifier.json").read_text("utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def test_the_shipped_rule_names_every_feature_and_a_floor_below_the_old_share() -> None:
    rule = qualifier()
    assert len(rule.weights) == len(FEATURES)
    assert 0 < rule.floor < 0.55 and rule.min_terms == 2
    assert _shipped()["trained_on"]["parts"] == ["dev", "test", "measured"]  # type: ignore[index]


def test_more_of_the_query_held_never_makes_a_candidate_less_of_an_answer() -> None:
    rule = qualifier()
    decisions = [rule.answers(share=share / 10, held=2, terms=4, keys=8) for share in range(3, 11)]
    assert decisions == sorted(decisions)  # False … then True
    assert decisions[-1] and not decisions[0]


@pytest.mark.parametrize(
    "change",
    [
        {"features": [*FEATURES[:-1], "length"]},
        {"weights": {name: 0 for name in FEATURES[:-1]}},
        {"bias": "high"},
        {"floor": None},
    ],
    ids=["unknown feature", "missing weight", "bias not a number", "floor missing"],
)
def test_a_rule_file_that_does_not_fit_is_refused_with_a_sentence(change: dict[str, object]) -> None:
    data = {**_shipped(), **change}
    with pytest.raises(MemoryEngineError, match=r"search_qualifier\.json"):
        parse(data)


@given(
    total=st.floats(min_value=0.01, max_value=60.0),
    part=st.floats(min_value=0.0, max_value=1.0),
    held=st.integers(min_value=0, max_value=9),
    terms=st.integers(min_value=1, max_value=8),
    keys=st.integers(min_value=0, max_value=300),
    across=st.booleans(),
)
def test_the_answerer_of_a_query_decides_as_the_rule_does(
    total: float, part: float, held: int, terms: int, keys: int, across: bool
) -> None:
    rule = qualifier()
    share = total * part
    assert rule.answerer(total=total, terms=terms)(share, held, keys, across) == rule.answers(
        share=share / total, held=held, terms=terms, keys=keys, across=across
    )


#: Characters at the edges of each range of the CJK class, and around them.
_EDGES = [
    chr(c + d)
    for c in (0x3040, 0x30FF, 0x3400, 0x4DBF, 0x4E00, 0x9FFF, 0xF900, 0xFAFF, 0xAC00, 0xD7AF)
    for d in (-1, 0, 1)
]


@given(
    title=st.text(alphabet=st.sampled_from([*_EDGES, "a", " ", "ｱ", "Ｒ", "𠀀", "é"]), max_size=6),
    query_cjk=st.booleans(),
)
def test_a_match_crosses_scripts_when_the_titles_script_differs_in_sql_as_in_python(
    title: str, query_cjk: bool
) -> None:
    """The ranking statement reads the title with `CJK_GLOB`; the process's copy with `crosses`: one answer."""
    conn = sqlite3.connect(":memory:")
    in_sql = conn.execute("SELECT (? GLOB ?) <> ?", (title, CJK_GLOB, int(query_cjk))).fetchone()[0]
    assert bool(in_sql) == crosses(query_cjk=query_cjk, title=title)


def test_an_english_question_crosses_into_a_memory_written_in_chinese_whatever_words_it_holds() -> None:
    assert crosses(query_cjk=False, title="Redis key 统一加服务名前缀")
    assert not crosses(query_cjk=True, title="Redis key 统一加服务名前缀")
    assert crosses(query_cjk=True, title="Redis keys carry the service name")
    assert not crosses(query_cjk=False, title="Redis keys carry the service name")
