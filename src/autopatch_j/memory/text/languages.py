"""The language registry: which language a token is in, and each language's filler words as data.

A filler is a question or function word that says nothing about what a memory holds ("what", "do we",
"怎么", "是什么", "我们用的" once segmented); a query's fillers carry no weight. The lists live in
`fillers.json`, validated by `FillerData` (unknown fields are refused). A language is chosen per
token by its script: CJK tokens are Chinese, the rest English (the two languages Memory reads).
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from autopatch_j.memory.text import Token


class LanguageData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    script: Literal["latin", "cjk"]
    fillers: list[str] = Field(min_length=1)


class FillerData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    languages: dict[Literal["en", "zh"], LanguageData]


@functools.cache
def registry() -> FillerData:
    raw = resources.files("autopatch_j.memory.text").joinpath("fillers.json").read_text(encoding="utf-8")
    return FillerData.model_validate_json(raw)


@functools.cache
def fillers() -> frozenset[str]:
    """Every language's fillers (folded); scripts do not overlap, so one set serves both."""
    from autopatch_j.memory.text import fold

    return frozenset(fold(word) for language in registry().languages.values() for word in language.fillers)


def language_of(token: Token) -> str:
    """`zh` for a CJK token, `en` otherwise."""
    return "zh" if token.kind == "cjk" else "en"


def is_filler(token: Token) -> bool:
    return token.kind != "identifier" and token.text in fillers()
