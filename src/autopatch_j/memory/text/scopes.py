"""Scopes a question and a memory name: which environment or platform each is about.

`scopes.json` lists, per class of scope (an environment: prod, UAT, staging …; a platform: iOS,
Android, HarmonyOS …), its groups and the words that name each group in either language, and which
groups a broader one covers (non-prod covers UAT, staging, test and dev). A memory whose text names
some group of a class answers a question naming another group of that class only when one of them
covers the other or it also names the question's: "UAT 的 WAF 用什么模式" is not answered by *Prod
Front Door WAF in Prevention mode*, but is by *Non-prod alerts …* or a memory naming no environment.

A memory that limits something to a scope ("only in dev", 只在开发环境, "prod only"; `restrictors` in
the table) also says where it does not hold, so it answers a question about any group of that class
("is the devtools middleware enabled in production builds" → *devtools 中间件只在开发环境开启*).

Members of a family of variants (`rev B` / `rev C`, `v2` / `v3`, 二期 / 三期: variants.py) are read the
same way. `question_scope(query)` is what a question names of both, `answers_elsewhere(asked, text)` what
search.py asks of each hit after ranking; they read the texts only (no index key), so a store's index
does not change with this table.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

from autopatch_j.memory.text import fold, has_cjk
from autopatch_j.memory.text.variants import query_members, variant_mismatch

#: A Latin scope word counts outside identifiers only: `claims-uat` or `application-prod.yml` name a
#: thing, not the environment a memory is about (a sentence's full stop after the word is no join).
_OUTSIDE_BEFORE = r"(?<![0-9a-z_])(?<![0-9a-z][-./])"
_OUTSIDE_AFTER = r"(?![0-9a-z_]|[-./][0-9a-z])"


@dataclass(frozen=True, slots=True)
class ScopeClass:
    """One class of scope: a pattern finding its groups' words (Latin ones as whole words outside
    identifiers, Chinese ones anywhere; longest first, so `non-prod` is not also `prod` and 非生产 not
    also 生产), each word's group, and per group the groups it covers."""

    pattern: re.Pattern[str]
    group_of: dict[str, str]
    covers: dict[str, frozenset[str]]

    def named(self, folded: str) -> frozenset[str]:
        """The groups a folded text names."""
        return frozenset(self.group_of[m.group(0)] for m in self.pattern.finditer(folded))

    def held(self, folded: str, limits: Restrictors) -> frozenset[str] | None:
        """The groups a memory's folded text names, or None when it limits something to one of them
        ("only in dev", 只在开发环境, "prod only"): a memory saying where something holds also says
        where it does not, so it speaks to every group of the class."""
        groups = []
        for m in self.pattern.finditer(folded):
            if limits.limit(folded, m.start(), m.end()):
                return None
            groups.append(self.group_of[m.group(0)])
        return frozenset(groups)

    def related(self, a: str, b: str) -> bool:
        """Whether two groups are one, or one covers the other."""
        return a == b or b in self.covers.get(a, ()) or a in self.covers.get(b, ())


@dataclass(frozen=True, slots=True)
class Restrictors:
    """The words that limit a scope named next to them: `before` it ("only in", 只在) or `after` it
    ("only"), Latin ones as whole words."""

    before: tuple[str, ...]
    after: tuple[str, ...]

    def limit(self, folded: str, start: int, end: int) -> bool:
        """Whether the scope word at `folded[start:end]` is limited by a word next to it."""
        head = folded[:start].rstrip()
        tail = folded[end:].lstrip()
        return any(_ends_with_word(head, word) for word in self.before) or any(
            tail.startswith(word) and not tail[len(word) : len(word) + 1].isalnum() for word in self.after
        )


def _ends_with_word(text: str, word: str) -> bool:
    """Whether `text` ends with `word`, a Latin word not being the end of a longer one (commonly ≠ only)."""
    if not text.endswith(word):
        return False
    before = text[len(text) - len(word) - 1 : len(text) - len(word)]
    return has_cjk(word) or not (before.isascii() and before.isalnum())


def scope_classes() -> tuple[ScopeClass, ...]:
    """The classes of `scopes.json` (read on the first question that is checked)."""
    return _table()[0]


def restrictors() -> Restrictors:
    """The words of `scopes.json` that limit a scope named next to them."""
    return _table()[1]


@functools.cache
def _table() -> tuple[tuple[ScopeClass, ...], Restrictors]:
    """`scopes.json` read and compiled once per process."""
    data = json.loads(resources.files(__package__).joinpath("scopes.json").read_text(encoding="utf-8"))
    limits = data["restrictors"]
    return (
        tuple(parse_class(spec) for spec in data["classes"].values()),
        Restrictors(before=tuple(limits["before"]), after=tuple(limits["after"])),
    )


def parse_class(spec: dict[str, dict[str, list[str]]]) -> ScopeClass:
    """One class from its JSON form (`groups`: group → words, written folded; `covers`: group → groups)."""
    group_of = {word: group for group, words in spec["groups"].items() for word in words}
    words = sorted(group_of, key=lambda w: (-len(w), w))
    latin = "|".join(re.escape(word) for word in words if not has_cjk(word))
    cjk = "|".join(re.escape(word) for word in words if has_cjk(word))
    pattern = re.compile("|".join(p for p in (latin and f"{_OUTSIDE_BEFORE}(?:{latin}){_OUTSIDE_AFTER}", cjk) if p))
    covers = {group: frozenset(inner) for group, inner in spec["covers"].items()}
    return ScopeClass(pattern=pattern, group_of=group_of, covers=covers)


@dataclass(frozen=True, slots=True)
class Asked:
    """What a question names that a memory may name otherwise: per class of scope the groups
    (`query_scopes`), per family of variants the members (`variants.query_members`)."""

    scopes: tuple[frozenset[str], ...]
    members: Mapping[str, frozenset[str]]


def question_scope(query: str) -> Asked | None:
    """The scopes and variants a question names, or None when it names neither."""
    scopes, members = query_scopes(query), query_members(query)
    return Asked(scopes=scopes, members=members) if scopes or members else None


def answers_elsewhere(asked: Asked, text: str) -> bool:
    """Whether a memory's text is about another scope or another member of a family than the question
    (`mismatch` or `variants.variant_mismatch`): such a winner is no answer."""
    return mismatch(asked.scopes, text) or variant_mismatch(asked.members, text, restrictors())


def query_scopes(query: str) -> tuple[frozenset[str], ...]:
    """Per class, the groups a question names (empty tuple when it names none of any class)."""
    folded = fold(query)
    named = tuple(cls.named(folded) for cls in scope_classes())
    return named if any(named) else ()


def mismatch(asked: tuple[frozenset[str], ...], text: str) -> bool:
    """Whether a memory's text names, in some class the question names, only groups unrelated to the
    question's (`asked`: `query_scopes` of the question)."""
    if not asked:
        return False
    folded = fold(text)
    limits = restrictors()
    for cls, wanted in zip(scope_classes(), asked, strict=True):
        if not wanted:
            continue
        held = cls.held(folded, limits)
        if held and not any(cls.related(a, b) for a in wanted for b in held):
            return True
    return False
