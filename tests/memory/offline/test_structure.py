"""Structure before words: prose and pasted material by shape, and what the extractors make of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autopatch_j.memory.blocks import RELAY_WORDS_FILE, load_relay_words
from autopatch_j.memory.contracts import CandidateOut, ExtractionOutput, SourceOut
from autopatch_j.memory.documents import DOCUMENT_WORDS_FILE, document_intro, load_document_words
from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.sentences import split_sentences
from autopatch_j.memory.structure import parse
from autopatch_j.memory.validation import validate_extraction
from tests.memory.offline.conftest import cases, run_session
from tests.memory.test_validation import request, turn
from tests.support.linear_time import assert_linear

PARSE = cases("structure")
SESSIONS = cases("structure_sessions")
SENTENCES = cases("sentences")


def _label_of(text: str, quote: str, answer: str | None = None) -> set[str]:
    structure = parse(text, answer)
    at = text.index(quote)
    end = at + len(quote)
    # a report's prose lead (the sentences before the one introducing the paste) is prose; a gloss
    # opening a prose line is material
    return {
        "pasted" if at < ln.start + ln.gloss else "prose" if end <= ln.material_start else ln.label
        for ln in structure.lines
        if ln.start < end and at < ln.end
    }


@pytest.mark.parametrize("case", PARSE, ids=[c["name"] for c in PARSE])
def test_lines_are_labelled_by_shape(case: dict[str, Any]) -> None:
    text, answer = case["text"], case.get("answer")  # with an answer ("" for none): a user's turn
    for quote in case["pasted"]:
        assert _label_of(text, quote, answer) == {"pasted"}, quote
    for quote in case["report"]:
        assert _label_of(text, quote, answer) == {"report"}, quote
    for quote in case["prose"]:
        assert _label_of(text, quote, answer) == {"prose"}, quote


@pytest.mark.parametrize("case", SESSIONS, ids=[c["name"] for c in SESSIONS])
def test_pasted_material_never_yields_a_memory(manager: MemoryManager, case: dict[str, Any]) -> None:
    stored = run_session(manager, case["turns"])
    assert sorted(m["kind"] for m in stored) == sorted(case["kinds"]), stored
    for memory in stored:
        for needle in case["never_quoted"]:
            assert all(needle not in quote for quote in memory["quotes"]), (needle, memory)


def test_a_model_candidate_quoting_pasted_material_is_refused() -> None:
    text = "tests fail:\n```\nFAILED tests/test_api.py::test_login - AssertionError\n```\nfrom now on use pytest-xdist"
    req = request(turn(1, text))
    pasted = CandidateOut(
        kind="project_decision",
        content="tests/test_api.py::test_login fails",
        subject="tests",
        sources=[SourceOut(turn_id=1, role="user", quote="FAILED tests/test_api.py::test_login - AssertionError")],
    )
    report = CandidateOut(
        kind="project_decision",
        content="tests fail",
        subject="tests",
        sources=[SourceOut(turn_id=1, role="user", quote="tests fail:")],
    )
    rule = CandidateOut(
        kind="project_decision",
        content="Use pytest-xdist from now on",
        subject="pytest-xdist",
        sources=[SourceOut(turn_id=1, role="user", quote="from now on use pytest-xdist")],
    )
    result = validate_extraction(
        ExtractionOutput(compaction="", candidates=[pasted, report, rule]), req, default_lexicon()
    )
    assert [c.content for c in result.candidates] == ["Use pytest-xdist from now on"]
    assert all("pasted material" in f.reason for f in result.filtered) and len(result.filtered) == 2


@pytest.mark.parametrize("case", SENTENCES, ids=[c["name"] for c in SENTENCES])
def test_a_sentence_does_not_end_inside_a_quotation(case: dict[str, Any]) -> None:
    assert split_sentences(case["text"]) == case["sentences"]


# -- properties ---------------------------------------------------------------------------------------

_word = st.text(st.sampled_from(list("abcdefghijklmnopqrstuvwxyz以后都用中文回答我们项目")), min_size=1, max_size=9)
_prose_line = st.builds(
    lambda words, commas, end: ", ".join(" ".join(words[i::commas]) for i in range(commas)) + end,
    st.lists(_word, min_size=1, max_size=10),
    st.integers(1, 2),
    st.sampled_from(["", ".", "。", "!", "?", "，好吗"]),
).filter(lambda s: s.strip(", ") != "")
_any_line = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r`"), max_size=80)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(_prose_line, _any_line), max_size=12))
def test_lines_are_exact_slices_and_prose_sentences_are_raw_substrings(lines: list[str]) -> None:
    text = "\n".join(lines)
    structure = parse(text)
    assert [ln.text for ln in structure.lines] == text.split("\n")
    for ln in structure.lines:
        assert text[ln.start : ln.end] == ln.text
    for sentence in split_sentences(structure.prose()):
        assert sentence in text


@settings(max_examples=150, deadline=None)
@given(st.lists(_prose_line, min_size=1, max_size=4), st.lists(_any_line, min_size=1, max_size=8))
def test_whatever_is_inside_a_fence_is_pasted(before: list[str], code: list[str]) -> None:
    text = "\n".join([*before[:-1], before[-1] + ":", "```", *code, "```"])
    structure = parse(text)
    fenced = structure.lines[len(before) :]
    assert all(ln.label == "pasted" for ln in fenced)
    assert structure.lines[len(before) - 1].label != "prose"  # it introduces the paste, or is part of it
    for ln in fenced:
        if ln.text.strip():
            assert structure.covers(ln.text) or ln.text in text[: structure.lines[len(before)].start]


@settings(max_examples=150, deadline=None)
@given(st.lists(_prose_line, min_size=1, max_size=6))
def test_plain_prose_is_left_alone(lines: list[str]) -> None:
    text = "\n".join(lines)
    structure = parse(text)
    assert not structure.has_material
    assert structure.prose() == text


def test_a_long_turn_of_many_introduced_paragraphs_parses_in_linear_time() -> None:
    """Every paragraph under a colon line is weighed for its script against the rest of the turn
    (timed without `parse`'s cache, which would answer the repeated runs)."""
    assert_linear(
        parse.__wrapped__, lambda n: "".join(f"section {i}:\n\n第{i}行说明\n第{i}行补充\n\n" for i in range(n)), 800
    )


def test_long_paragraphs_and_intros_of_other_peoples_words_parse_in_linear_time() -> None:
    """A long signed message, many greeting paragraphs and many source intros: each line is weighed once."""
    assert_linear(
        parse.__wrapped__,
        lambda n: (
            "intro\n\n"
            + "".join(f"Hi team,\nline {i} of the notice\n\ntheir docs say:\n{i}. we retry\n\n" for i in range(n))
            + "".join(f"body line {i}\n" for i in range(n))
            + "Thanks,\nDana\n"
        ),
        400,
    )


def test_the_relay_words_file_refuses_an_unknown_field_or_language(tmp_path: Path) -> None:
    data = json.loads(RELAY_WORDS_FILE.read_text(encoding="utf-8"))
    for broken in ({**data, "farewells": {"en": ["bye"]}}, {**data, "greetings": {"fr": ["bonjour"]}}):
        path = tmp_path / "relay_words.json"
        path.write_text(json.dumps(broken), encoding="utf-8")
        with pytest.raises(ValueError):
            load_relay_words(path)
    assert load_relay_words().greeting.match("【某某科技】您好，")


def test_the_document_words_file_refuses_an_unknown_field_or_language(tmp_path: Path) -> None:
    data = json.loads(DOCUMENT_WORDS_FILE.read_text(encoding="utf-8"))
    for broken in ({**data, "letters": {"en": ["letter"]}}, {**data, "messages": {"fr": ["message"]}}):
        path = tmp_path / "document_words.json"
        path.write_text(json.dumps(broken), encoding="utf-8")
        with pytest.raises(ValueError):
            load_document_words(path)
    assert load_document_words().message.search("会议纪要")


@pytest.mark.parametrize(
    ("line", "introduces"),
    [
        ("以下是今天上午的会议纪要，请帮我整理成待办：", True),
        ("From the client:", True),
        ("下面是行内《接口安全规范》的要点，请先读一下：", True),
        ("表命名规范：", False),
        ("house rules for this repo from now on:", False),
        ("my notes from the meeting, the minutes I wrote:", False),
    ],
)
def test_a_document_intro_names_someone_elses_text_outside_the_first_person(line: str, introduces: bool) -> None:
    assert document_intro(line) is introduces
