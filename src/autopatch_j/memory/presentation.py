"""How a memory reads: its content without the list marker and the discourse markers that opened the
user's sentence ("oh and", "by the way", "btw", "plus", "对了", "顺便说一下", "而且" — data in
`presentation.json`, unknown keys refused), and the language its title is written in: the one the
user wrote in.

The quotes (sources) keep the exact words; only the content and the title change.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.sentences import CJK_RUN, fold
from autopatch_j.memory.shapes import item_marker

DATA_FILE = "presentation.json"
_KEYS = {"note", "leading_fillers"}
_LANGUAGES = {"en", "zh"}
_SEPARATOR = r"[\s,，、:：;；.。!！—-]*"


@dataclass(frozen=True, slots=True)
class Presentation:
    leading: re.Pattern[str]

    def content(self, text: str) -> str:
        """`text` without the list marker and the fillers that open it ("oh and btw, always use uv" →
        "always use uv", "- plus tflint in CI" → "tflint in CI"); the text itself when nothing would be
        left."""
        rest = text.strip()
        rest = rest[item_marker(rest) :] or rest
        while True:
            match = self.leading.match(rest)
            if match is None or match.end() == 0 or match.end() >= len(rest):
                break
            rest = rest[match.end() :]
        return rest or text

    @classmethod
    def from_data(cls, data: dict[str, object]) -> Presentation:
        if set(data) != _KEYS:
            raise MemoryEngineError(f"{DATA_FILE} must hold exactly {sorted(_KEYS)}.")
        fillers = data["leading_fillers"]
        if not isinstance(fillers, dict) or set(fillers) - _LANGUAGES:
            raise MemoryEngineError(f"{DATA_FILE}: leading_fillers takes only the languages {sorted(_LANGUAGES)}.")
        words = sorted({fold(w) for ws in fillers.values() for w in ws}, key=len, reverse=True)
        # a Latin filler ends at a word boundary; a Chinese one anywhere
        alternatives = [re.escape(w) + ("" if CJK_RUN.search(w) else r"\b") for w in words]
        return cls(re.compile(rf"(?:{'|'.join(alternatives)}){_SEPARATOR}", re.IGNORECASE))


def written_in_chinese(quotes: Iterable[str]) -> bool:
    """The user wrote in Chinese: their quotes hold more CJK characters than Latin letters."""
    text = " ".join(quotes)
    cjk = sum(len(run) for run in CJK_RUN.findall(text))
    latin = len(re.findall(r"[A-Za-z]", text))
    return cjk * 2 >= latin and cjk > 0


@lru_cache(maxsize=1)
def default_presentation() -> Presentation:
    """The shipped fillers (loaded on first use, then cached)."""
    text = resources.files("autopatch_j.memory").joinpath(DATA_FILE).read_text(encoding="utf-8")
    return Presentation.from_data(json.loads(text))
