"""Strict JSON contracts: one object, optional ```json fence, unknown fields and wrong types rejected."""

from __future__ import annotations

from typing import Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from autopatch_j.llm.errors import LLMResponseError
from autopatch_j.llm.json_contract import parse_json_object, strip_fence
from autopatch_j.runtime import MAX_ERROR_CHARS
from autopatch_j.strict_model import StrictModel


class Candidate(StrictModel):
    kind: Literal["preference", "decision"]
    quote: str
    turn: int


class Output(StrictModel):
    candidates: list[Candidate]


GOOD = '{"candidates": [{"kind": "preference", "quote": "用中文回答", "turn": 3}]}'


def test_valid_object_parses():
    out = parse_json_object(GOOD, Output)
    assert out.candidates[0] == Candidate(kind="preference", quote="用中文回答", turn=3)


@pytest.mark.parametrize(
    "text",
    [
        f"```json\n{GOOD}\n```",
        f"```JSON\n{GOOD}\n```",
        f"```\n{GOOD}\n```",
        f"  \n```json\n{GOOD}\n```\n  ",
        f"\n{GOOD}\n",
    ],
)
def test_one_surrounding_fence_or_whitespace_is_tolerated(text):
    assert parse_json_object(text, Output) == parse_json_object(GOOD, Output)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Sure! " + GOOD, "prose before"),
        (GOOD + " hope this helps", "prose after"),
        (f"Here:\n```json\n{GOOD}\n```", "prose around the fence"),
        (f"```json\n{GOOD}\n```\n```json\n{GOOD}\n```", "two fences"),
        (GOOD + GOOD, "two objects"),
        ("[" + GOOD + "]", "an array"),
        ("", "empty"),
        ("null", "null"),
        ('{"candidates": [], "extra": 1}', "unknown top-level field"),
        ('{"candidates": [{"kind": "preference", "quote": "q", "turn": 1, "why": "x"}]}', "unknown nested field"),
        ('{"candidates": [{"kind": "preference", "quote": "q", "turn": "1"}]}', "string for int"),
        ('{"candidates": [{"kind": "opinion", "quote": "q", "turn": 1}]}', "unknown literal"),
        ('{"candidates": [{"kind": "preference", "turn": 1}]}', "missing field"),
        ('{"candidates": {}}', "object for list"),
        ("{'candidates': []}", "python repr"),
    ],
)
def test_anything_else_is_a_response_error_with_the_raw_text(text, why):
    with pytest.raises(LLMResponseError) as caught:
        parse_json_object(text, Output)
    assert caught.value.raw == text, why
    assert "Output" in str(caught.value)


def test_error_message_names_the_failing_fields():
    with pytest.raises(LLMResponseError, match=r"candidates\.0\.turn"):
        parse_json_object('{"candidates": [{"kind": "decision", "quote": "q", "turn": "x"}]}', Output)


def test_raw_text_is_bounded():
    huge = "x" * (MAX_ERROR_CHARS * 3)
    with pytest.raises(LLMResponseError) as caught:
        parse_json_object(huge, Output)
    assert caught.value.raw is not None and len(caught.value.raw) <= MAX_ERROR_CHARS


def test_models_must_forbid_extra_fields():
    class Lax(BaseModel):
        a: int

    with pytest.raises(TypeError, match="extra='forbid'"):
        parse_json_object('{"a": 1}', Lax)


def test_strip_fence_leaves_unfenced_text_alone():
    assert strip_fence('  {"a": 1} ') == '{"a": 1}'
    assert strip_fence("```json\n{}\n```") == "{}"


@given(st.text(max_size=200))
def test_arbitrary_text_either_parses_or_raises_response_error(text):
    try:
        parse_json_object(text, Output)
    except LLMResponseError as exc:
        assert exc.raw == text[:MAX_ERROR_CHARS] or len(text) > MAX_ERROR_CHARS
