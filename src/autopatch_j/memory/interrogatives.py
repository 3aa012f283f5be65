"""The interrogative form: a clause that asks, with or without a question mark.

A user often types a question without its mark ("are we actually exposed on 816", "LFS 按文件数收费还是
按大小"); read as a statement, it would be stored as a decision nobody made. The form is read from the
clause's structure, with closed word classes as data (`interrogatives.json`):

- English **subject–auxiliary inversion**: a clause opens (after at most two opening words such as
  "and", "ok", "so") with an auxiliary directly followed by a subject that can follow it — "are we",
  "is that", "did they", "should it", "has he". An auxiliary of "do" takes only a personal pronoun
  ("do that for every module" is an instruction), and a modal takes no "you" ("can you keep it short
  from now on" is a request, read elsewhere).
- Chinese **alternative question** "A 还是 B" whose halves are built alike: the character right after
  还是 is one the run of text right before it (back to a space) already holds ("缩略图按宽度切还是按高度
  切", "用redis还是用memcached"), or that run opens with 是 ("是走HTTP还是gRPC"). A repeated word of the closed
  class `zh_alternative_blank` ("这个还是这样处理") and a clause ending in 吧 settle rather than ask;
  "以后日志还是按天切" (nothing repeated) says what stays.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.sentences import CJK, clauses, fold

DATA_FILE = "interrogatives.json"

_WORDS = re.compile(r"[a-z]+(?:'[a-z]+)?")
_OPENERS_AT_MOST = 2
_ALTERNATIVE = "还是"
_SETTLING_END = re.compile(r"吧[\s。.!！~～]*$")
_CJK_CHAR = re.compile(f"[{CJK}]")


@dataclass(frozen=True, slots=True)
class Interrogatives:
    """`subjects_after[auxiliary]`: the subjects that make "auxiliary subject" an inverted question."""

    subjects_after: dict[str, frozenset[str]]
    openers: frozenset[str]
    zh_blank: frozenset[str]

    def asks(self, text: str) -> bool:
        """Some clause of `text` has the interrogative form (module docstring)."""
        folded = fold(text)
        return any(self._clause_asks(folded[a:b]) for a, b in clauses(folded))

    def _clause_asks(self, clause: str) -> bool:
        return self._inverted(clause) or self._alternative(clause)

    def _inverted(self, clause: str) -> bool:
        words = _WORDS.findall(clause[:80])
        for at in range(min(_OPENERS_AT_MOST, len(words)) + 1):
            if at and words[at - 1] not in self.openers:
                return False
            if at + 1 < len(words) and words[at + 1] in self.subjects_after.get(words[at], frozenset()):
                return True
        return False

    def _alternative(self, clause: str) -> bool:
        at = clause.find(_ALTERNATIVE)
        if at <= 0 or _SETTLING_END.search(clause):
            return False
        half = clause[:at].split()  # the first half: the run of text right before 还是
        before = _CJK_CHAR.findall(half[-1]) if half else []
        after = _CJK_CHAR.search(clause[at + len(_ALTERNATIVE) :].lstrip()[:1])
        if not before:
            return False
        if before[0] == "是":
            return True
        return after is not None and after.group() in before and after.group() not in self.zh_blank


@lru_cache(maxsize=1)
def default_interrogatives() -> Interrogatives:
    """The shipped closed classes (`interrogatives.json`)."""
    data = json.loads(resources.files("autopatch_j.memory").joinpath(DATA_FILE).read_text(encoding="utf-8"))
    known = {"note", "auxiliaries", "subjects", "openers", "zh_alternative_blank"}
    unknown = set(data) - known
    if unknown:
        raise MemoryEngineError(f"{DATA_FILE} holds unknown keys: {', '.join(sorted(unknown))}.")
    subjects_after: dict[str, frozenset[str]] = {}
    for group, auxiliaries in data["auxiliaries"].items():
        for auxiliary in auxiliaries:
            subjects_after[auxiliary] = frozenset(data["subjects"][group])
    return Interrogatives(
        subjects_after=subjects_after,
        openers=frozenset(data["openers"]),
        zh_blank=frozenset(data["zh_alternative_blank"]),
    )
