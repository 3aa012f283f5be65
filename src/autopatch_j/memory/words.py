"""Stems and the thesaurus (`equivalents.json`) shared by search and extraction.

`stem`: the English Snowball stem of a word (PyStemmer, imported on first use only, so commands that
never index or search — `memory status` — never load it). The thesaurus: synonym groups across zh/en
(`缓存` ↔ `cache`, `重构` ↔ `refactor`), phrases of two or three Latin words (`rate limiting` = 限流),
and one-directional `broader` entries from named tools to their concept (`pytest` → 测试/test).
Search expands a query with it (memory/index.py: `equivalents`, `phrase_members`, `narrower`,
`cjk_members`); extraction uses `thesaurus_keys` and `broader_concepts`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources

from autopatch_j.memory.terms import normalize
from autopatch_j.memory.text import TOKEN

_MAX_PHRASE_WORDS = 3  # a thesaurus member of Latin words has at most this many ("rate limiting")


@functools.cache
def _stemmer() -> object:
    import Stemmer  # PyStemmer: Snowball in C; imported only by indexing and search

    return Stemmer.Stemmer("english")


@functools.lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """The English Snowball stem of a lowercase word ("services" → "servic"); other scripts unchanged."""
    if not word.isascii() or not word.isalpha() or len(word) < 3:
        return word
    return str(_stemmer().stemWord(word))  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class _Equivalents:
    latin: dict[str, tuple[int, ...]]  # stem of a Latin member → the entries it triggers
    phrases: dict[tuple[str, ...], tuple[int, ...]]  # stems of a Latin phrase of 2–3 words → its entries
    cjk: dict[str, tuple[int, ...]]  # CJK member → the entries it triggers
    cjk_lengths: tuple[int, ...]  # the lengths of the CJK members, longest first
    groups: tuple[tuple[str, ...], ...]  # what each entry adds: a group's members, or a broader concept
    not_triggers: frozenset[str]  # words whose stem collides with a member's but mean something else
    first_broader: int  # entries from this index on are `broader` entries


@functools.cache
def _equivalents() -> _Equivalents:
    """The thesaurus (`equivalents.json`): a synonym group is triggered by any of its members and adds
    them all; a `broader` entry is triggered by its narrower members only and adds the broader ones;
    a word listed in `not_triggers` ("except", whose stem is that of "exception") triggers nothing. A
    member is one CJK run, one Latin word, or a phrase of two or three Latin words ("root cause")."""
    raw = json.loads(resources.files("autopatch_j.memory").joinpath("equivalents.json").read_text(encoding="utf-8"))
    entries = [(group, group) for group in raw["groups"]]
    entries += [(entry["narrower"], entry["broader"]) for entry in raw.get("broader", ())]
    groups = tuple(tuple(normalize(member) for member in adds) for _, adds in entries)
    latin: dict[str, list[int]] = {}
    phrases: dict[tuple[str, ...], list[int]] = {}
    cjk: dict[str, list[int]] = {}
    for n, (triggers, adds) in enumerate(entries):
        for member in (normalize(member) for member in (*triggers, *adds)):
            if not _is_member(member):
                raise ValueError(f"equivalents.json: {member!r} is neither one CJK run nor one to three Latin words")
        for member in (normalize(member) for member in triggers):
            if " " in member:
                phrases.setdefault(tuple(stem(word) for word in member.split()), []).append(n)
                continue
            table = cjk if TOKEN.fullmatch(member).group("cjk") else latin  # type: ignore[union-attr]
            table.setdefault(member if table is cjk else stem(member), []).append(n)
    return _Equivalents(
        latin={k: tuple(dict.fromkeys(v)) for k, v in latin.items()},
        phrases={k: tuple(dict.fromkeys(v)) for k, v in phrases.items()},
        cjk={k: tuple(dict.fromkeys(v)) for k, v in cjk.items()},
        cjk_lengths=tuple(sorted({len(k) for k in cjk}, reverse=True)),
        groups=groups,
        not_triggers=frozenset(normalize(word) for word in raw.get("not_triggers", ())),
        first_broader=len(raw["groups"]),
    )


def _is_member(member: str) -> bool:
    # TOKEN is compiled already; compiling another CJK class would cost the first search ~30 ms.
    words = member.split(" ")
    if len(words) == 1:
        token = TOKEN.fullmatch(member)
        return bool(token and (token.group("cjk") or member[0].isascii()))
    return len(words) <= _MAX_PHRASE_WORDS and all(w.isascii() and w.isalnum() for w in words)


def equivalents(words: Iterable[str], cjk_runs: Iterable[str], *, broader: bool = True) -> list[str]:
    """The thesaurus keys of the given words (by stem; consecutive words also as phrases) and of the
    CJK members inside the runs; without `broader`, the synonym groups' only (a query naming a tool
    asks for that tool, not for everything of its kind)."""
    table = _equivalents()
    found: list[int] = []
    stems: list[str] = []
    for word in words:
        stems.append(stem(word))
        if word not in table.not_triggers:
            found.extend(table.latin.get(stems[-1], ()))
    if table.phrases:
        for size in range(2, _MAX_PHRASE_WORDS + 1):
            for start in range(len(stems) - size + 1):
                found.extend(table.phrases.get(tuple(stems[start : start + size]), ()))
    for run in cjk_runs:
        for size in table.cjk_lengths:
            for start in range(len(run) - size + 1):
                found.extend(table.cjk.get(run[start : start + size], ()))
    kept = (n for n in dict.fromkeys(found) if broader or n < table.first_broader)
    return [member for n in kept for member in table.groups[n]]


@functools.cache
def _narrower_table() -> dict[str, tuple[str, ...]]:
    """Each broader concept (Latin by stem, CJK as it is) → the named tools, formats and styles under it."""
    raw = json.loads(resources.files("autopatch_j.memory").joinpath("equivalents.json").read_text(encoding="utf-8"))
    table: dict[str, list[str]] = {}
    for entry in raw.get("broader", ()):
        for member in entry["broader"]:
            key = normalize(member)
            key = key if TOKEN.fullmatch(key) and TOKEN.fullmatch(key).group("cjk") else stem(key)  # type: ignore[union-attr]
            table.setdefault(key, []).extend(entry["narrower"])
    return {k: tuple(dict.fromkeys(v)) for k, v in table.items()}


def phrase_members(first: str, second: str) -> list[str]:
    """The synonym group members of a phrase of two Latin words, when it is one ("pull request")."""
    table = _equivalents()
    found = table.phrases.get((stem(first), stem(second)), ())
    return [m for n in found if n < table.first_broader for m in table.groups[n]]


@functools.cache
def cjk_members() -> frozenset[str]:
    """Every CJK member of the thesaurus: its synonym groups' and its broader concepts'."""
    raw = json.loads(resources.files("autopatch_j.memory").joinpath("equivalents.json").read_text(encoding="utf-8"))
    members = [m for group in raw["groups"] for m in group]
    members += [m for entry in raw.get("broader", ()) for m in (*entry["narrower"], *entry["broader"])]
    return frozenset(normalize(m) for m in members if not m.isascii())


def narrower(words: Iterable[str], cjk_runs: Iterable[str]) -> list[str]:
    """The named tools, formats and styles under the broader concepts the words (by stem) and CJK
    words name: what a query for a concept also asks for (`test` → pytest, jest …)."""
    table = _narrower_table()
    found = [m for word in words for m in table.get(stem(word), ())]
    found += [m for run in cjk_runs for m in table.get(run, ())]
    return list(dict.fromkeys(found))


def thesaurus_keys(text: str, *, retired: set[str]) -> list[str]:
    """The thesaurus members `text` is found by, leaving out what its `retired` words (Latin stems,
    CJK words) trigger: Latin words by stem, CJK members inside the runs with the retired words cut
    out."""
    latin: list[str] = []
    runs: list[str] = []
    for match in TOKEN.finditer(normalize(text)):
        token = match.group()
        if match.group("cjk") is None:
            if len(token) >= 2 and stem(token) not in retired:
                latin.append(token)
        else:
            for word in retired:
                token = token.replace(word, " ")
            runs.extend(token.split())
    return equivalents(latin, runs)


def broader_concepts(words: Iterable[str]) -> list[str]:
    """The broader concepts of the Latin words (by stem) the thesaurus knows ("redux" → 状态管理,
    state): what a rule naming them is about, whichever tool it names."""
    table = _equivalents()
    found = [
        n
        for word in words
        if word not in table.not_triggers
        for n in table.latin.get(stem(word), ())
        if n >= table.first_broader
    ]
    return [member for n in dict.fromkeys(found) for member in table.groups[n]]
