"""The language registry: which language a token is in, and each language's filler words as data.

A filler is a question or function word that says nothing about what a memory holds ("what", "do we",
"怎么", "是什么", "我们用的" once segmented, and written Cantonese's 几多, 点样, 咗); fillers are never
terms. Each language lists its question words (how a question asks) apart from its other fillers, and
a written variety of it (Cantonese of Chinese) the same two lists, each word with the word of the
language it stands for (几耐 → 多久); a variety's words are the language's. A
Chinese question word is also a word of its own in a query (`question_words`: the query's CJK runs
are cut at them before the segmenter sees them). The lists live in `fillers.json`, described by
`filler_schema.FillerData` (unknown fields are refused). A language is chosen per token by its
script: CJK tokens are Chinese, the rest English (the two languages Memory reads).
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import TYPE_CHECKING

from autopatch_j.memory.text import Token, fold, has_cjk

if TYPE_CHECKING:
    from autopatch_j.memory.text.filler_schema import FillerData


def registry() -> FillerData:
    """`fillers.json` validated by its schema (`filler_schema.FillerData`; pydantic, loaded here only)."""
    from autopatch_j.memory.text.filler_schema import FillerData

    raw = resources.files("autopatch_j.memory.text").joinpath("fillers.json").read_text(encoding="utf-8")
    return FillerData.model_validate_json(raw)


@functools.cache
def fillers() -> frozenset[str]:
    """Every language's fillers and question words (folded); scripts do not overlap, so one set serves
    both."""
    return frozenset(word for language in _raw().values() for key in _LISTS for word in language[key])


@functools.cache
def question_words() -> tuple[str, ...]:
    """The Chinese question words of two or more characters (folded), the longest first: where a
    query's CJK run is cut before segmenting (`tokens(..., question_words=)`, segment.words)."""
    found = {word for language in _raw().values() for word in language["question_words"] if len(word) >= 2}
    return tuple(sorted((word for word in found if has_cjk(word)), key=lambda word: (-len(word), word)))


_LISTS = ("question_words", "fillers")


@functools.cache
def _raw() -> dict[str, dict[str, list[str]]]:
    """`fillers.json`'s lists, each language's with the words of its varieties, folded. Read with `json`
    on the search path (building the pydantic model costs ≈ 0.1 s); `registry()` validates the same
    file (tests/memory/test_terms.py)."""
    import json

    raw = json.loads(resources.files("autopatch_j.memory.text").joinpath("fillers.json").read_text(encoding="utf-8"))
    return {
        name: {
            key: [
                fold(word)
                for word in (
                    *language[key],
                    *(w for variety in language.get("varieties", {}).values() for w in variety[key]),
                )
            ]
            for key in _LISTS
        }
        for name, language in raw["languages"].items()
    }


def language_of(token: Token) -> str:
    """`zh` for a CJK token, `en` otherwise."""
    return "zh" if token.kind == "cjk" else "en"


def is_filler(token: Token) -> bool:
    return token.kind != "identifier" and token.text in fillers()
