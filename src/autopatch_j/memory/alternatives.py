"""Tools that stand in for one another, by concept (`alternatives.json`).

A concept ("logging library (go)", "test runner (javascript)", "ci system" …) lists its members: the
tools, services or conventions one project picks one of. Two readings of a text use it:

- `named(text)`: concept → the members `text` names. A member is found on NFKC-casefolded text
  where it is not part of a longer name: not after a letter, digit, `_`, `.`, `/` or `@`, not
  before a letter, digit or `_`, nor before `.`, `-` or `/` followed by one; where two members
  start at one place the longer is taken ("react-query" is not "react").
- `replaced_concept(new, old)`: the concept in which `new` names a member that `old` does not
  while `old` names one — "还是换成 zerolog 吧" replaces "日志统一用 zap" (logging library (go)),
  "use vitest instead of jest" replaces "tests run on jest"; "" when there is none.
- `siblings(text)`: the other members of every concept `text` names, so that a batch's lookup of
  related memories finds the rule a new one replaces without sharing a word with it.

The table is data with a schema (`extra="forbid"`, members lowercase and unique within a concept);
a concept with fewer than two members is an error.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

from pydantic import BaseModel, ConfigDict, field_validator

from autopatch_j.memory.sentences import fold

TABLE_FILE = "alternatives.json"
FORMAT = 1
# A placeholder of a pattern or template ("<cadence>", "<service-name>"): it stands for a value.
_PLACEHOLDER = re.compile(r"<[\w.-]{1,40}>")
_BEFORE = r"(?<![a-z0-9_./@])"
_AFTER = r"(?![a-z0-9_]|[.\-/][a-z0-9])"
_Trie = dict[str, "_Trie"]


class AlternativesTable(BaseModel):
    """The file's schema: a version, a comment and the concepts with their members."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int
    comment: str
    concepts: dict[str, tuple[str, ...]]

    @field_validator("version")
    @classmethod
    def _known_version(cls, value: int) -> int:
        if value != FORMAT:
            raise ValueError(f"alternatives.json version {value} is not {FORMAT}")
        return value

    @field_validator("concepts")
    @classmethod
    def _members(cls, value: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        for concept, members in value.items():
            if len(set(members)) != len(members) or len(members) < 2:
                raise ValueError(f"concept {concept!r}: at least two members, each once")
            for member in members:
                if member != fold(member).strip() or not member:
                    raise ValueError(f"concept {concept!r}: member {member!r} is not folded lowercase text")
        return value


class Alternatives:
    """One table, compiled into one alternation over every member."""

    def __init__(self, table: AlternativesTable) -> None:
        self.concepts = table.concepts
        self._of: dict[str, tuple[str, ...]] = {}
        for concept, members in table.concepts.items():
            for member in members:
                self._of[member] = (*self._of.get(member, ()), concept)
        self._regex = re.compile(_BEFORE + "(" + _trie(sorted(self._of)) + ")" + _AFTER)

    def named(self, text: str) -> dict[str, frozenset[str]]:
        """Concept → the members `text` names; a word in a placeholder (`<cadence>` in a naming pattern
        such as `<domain>_<what>_<cadence>.py`) names nothing."""
        found: dict[str, set[str]] = {}
        for match in self._regex.finditer(_PLACEHOLDER.sub(" ", fold(text))):
            for concept in self._of[match.group(1)]:
                found.setdefault(concept, set()).add(match.group(1))
        return {concept: frozenset(members) for concept, members in found.items()}

    def replaced_concept(self, new: str, old: str) -> str:
        """The first concept (by name) in which `new` names a member `old` does not while `old`
        names one of it; "" when there is none."""
        new_named, old_named = self.named(new), self.named(old)
        return next(
            (c for c in sorted(new_named) if c in old_named and new_named[c] - old_named[c]),
            "",
        )

    def siblings(self, text: str) -> list[str]:
        """The other members of each concept `text` names, in the table's order."""
        named = self.named(text)
        return [m for c, members in named.items() for m in self.concepts[c] if m not in members]


def _trie(words: list[str]) -> str:
    """One regex source matching any of `words`, as a character trie (a branch per next character,
    the longer word tried before the word ending here): one pass over a text, not one per word."""
    tree: _Trie = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def source(node: _Trie) -> str:
        branches = [re.escape(char) + source(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return source(tree)


@lru_cache(maxsize=1)
def default_alternatives() -> Alternatives:
    """The table shipped with the package (read on first use, then cached)."""
    raw = resources.files("autopatch_j.memory").joinpath(TABLE_FILE).read_text(encoding="utf-8")
    return Alternatives(AlternativesTable.model_validate(json.loads(raw)))
