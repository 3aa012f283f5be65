"""The language registry: which language a token is in, and each language's filler words as data.

A filler is a question or function word that says nothing about what a memory holds ("what", "do we",
"怎么", "是什么", "我们用的" once segmented); a query's fillers carry no weight. The lists live in
`fillers.json`, described by `filler_schema.FillerData` (unknown fields are refused). A language is chosen per
token by its script: CJK tokens are Chinese, the rest English (the two languages Memory reads).
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import TYPE_CHECKING

from autopatch_j.memory.text import Token

if TYPE_CHECKING:
    from autopatch_j.memory.text.filler_schema import FillerData


def registry() -> FillerData:
    """`fillers.json` validated by its schema (`filler_schema.FillerData`; pydantic, loaded here only)."""
    from autopatch_j.memory.text.filler_schema import FillerData

    raw = resources.files("autopatch_j.memory.text").joinpath("fillers.json").read_text(encoding="utf-8")
    return FillerData.model_validate_json(raw)


@functools.cache
def fillers() -> frozenset[str]:
    """Every language's fillers (folded); scripts do not overlap, so one set serves both. Read with
    `json` on the search path (building the pydantic model costs ≈ 0.1 s); `registry()` validates the
    same file (tests/memory/test_terms.py)."""
    import json

    from autopatch_j.memory.text import fold

    raw = json.loads(resources.files("autopatch_j.memory.text").joinpath("fillers.json").read_text(encoding="utf-8"))
    return frozenset(fold(word) for language in raw["languages"].values() for word in language["fillers"])


def language_of(token: Token) -> str:
    """`zh` for a CJK token, `en` otherwise."""
    return "zh" if token.kind == "cjk" else "en"


def is_filler(token: Token) -> bool:
    return token.kind != "identifier" and token.text in fillers()
