"""Words of an indexed text and of a query (issue 18; issue 11 item 2): search by words, not by one substring.

Index side (`keys`): Latin words and their English stems (Snowball, via PyStemmer), identifiers kept
whole (`snake_case`, `src/app.py`, `3.10`, `pip-tools`), every suffix of each CJK run cut to 16
characters (so a prefix lookup is a substring lookup), and the zh/en equivalents of the words found
(`equivalents.json`: `缓存` ↔ `cache`, `简短` ↔ `brief`, …).

Query side (`query_terms`): identifiers whole; Latin words, minus a few function words, each matched by
its stem exactly or by the word as a prefix; CJK runs of one or two characters as they are, longer
runs as their overlapping bigrams, so `简短回答` also finds `回答简短`. A query term is a set of key
ranges `[lo, hi)`; an item matches the term when one of its keys falls in one of the ranges.

The stemmer is imported on first use only, so commands that never index or search (`memory status`)
never load it.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib import resources

from autopatch_j.memory.terms import CJK_SUFFIX_CHARS, MAX_TERM_CHARS, normalize, prefix_end

MAX_QUERY_TERMS = 8

_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(f"(?P<cjk>[{_CJK}]+)|(?P<word>[^\\W_{_CJK}]+)", re.UNICODE)
# Identifiers, paths and versions: ASCII letters/digits joined by `_ . / -` (after NFKC + casefold).
_IDENTIFIER = re.compile(r"[0-9a-z]+(?:[._/\-]+[0-9a-z]+)+")
# Function words that say nothing about a memory; a query never needs to match them.
_STOPWORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "please",
        "should",
        "so",
        "that",
        "the",
        "this",
        "these",
        "those",
        "to",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    }
)
_EXACT_END = "\x01"  # no stored key contains a control character, so [k, k + "\x01") holds k alone


@dataclass(frozen=True, slots=True)
class QueryTerm:
    """One word of a query and the key ranges `[lo, hi)` that count as a match for it."""

    text: str
    ranges: tuple[tuple[str, str], ...]


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


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
    latin: dict[str, tuple[int, ...]]  # stem of a Latin member → its groups
    cjk: tuple[tuple[str, tuple[int, ...]], ...]  # CJK member → its groups, longest first
    groups: tuple[tuple[str, ...], ...]


@functools.cache
def _equivalents() -> _Equivalents:
    raw = json.loads(resources.files("autopatch_j.memory").joinpath("equivalents.json").read_text(encoding="utf-8"))
    groups = tuple(tuple(normalize(member) for member in group) for group in raw["groups"])
    latin: dict[str, list[int]] = {}
    cjk: dict[str, list[int]] = {}
    for n, group in enumerate(groups):
        for member in group:
            if _TOKEN.fullmatch(member) and member[0].isascii():
                latin.setdefault(stem(member), []).append(n)
            elif re.fullmatch(f"[{_CJK}]+", member):
                cjk.setdefault(member, []).append(n)
            else:
                raise ValueError(f"equivalents.json: {member!r} is neither one Latin word nor one CJK run")
    return _Equivalents(
        latin={k: tuple(v) for k, v in latin.items()},
        cjk=tuple(sorted(((k, tuple(v)) for k, v in cjk.items()), key=lambda kv: -len(kv[0]))),
        groups=groups,
    )


def equivalents(words: Iterable[str], cjk_runs: Iterable[str]) -> list[str]:
    """The zh/en equivalents of the given words (by stem) and of the CJK words inside the runs."""
    table = _equivalents()
    found: list[int] = []
    for word in words:
        found.extend(table.latin.get(stem(word), ()))
    runs = list(cjk_runs)
    for member, groups in table.cjk:
        if any(member in run for run in runs):
            found.extend(groups)
    return [member for n in dict.fromkeys(found) for member in table.groups[n]]


def _word_keys(word: str) -> Iterator[str]:
    yield word
    stemmed = stem(word)
    if stemmed != word:
        yield stemmed


def _cjk_suffixes(run: str) -> Iterator[str]:
    for start in range(len(run) - 1):
        yield run[start : start + CJK_SUFFIX_CHARS]


def keys(text: str) -> list[str]:
    """Every key of a text: identifiers, words and stems, CJK suffixes, then the equivalents' keys."""
    return _keys(text, plain=True)


def extra_keys(text: str) -> list[str]:
    """The keys that plain content terms lack: identifiers, stems that differ, equivalents."""
    return _keys(text, plain=False)


def _keys(text: str, *, plain: bool) -> list[str]:
    out = [match.group() for match in _IDENTIFIER.finditer(fold(text))]
    words: list[str] = []
    runs: list[str] = []
    for match in _TOKEN.finditer(normalize(text)):
        token = match.group()
        if match.group("cjk") is not None:
            runs.append(token)
            out.extend(_cjk_suffixes(token) if plain else ())
        elif len(token) >= 2:
            words.append(token)
            out.extend(_word_keys(token) if plain else (stem(token),))
    for member in equivalents(words, runs):
        out.extend(_word_keys(member) if member[0].isascii() else (member, *_cjk_suffixes(member)))
    return list(dict.fromkeys(key[:MAX_TERM_CHARS] for key in out if key))


def _prefix(key: str) -> tuple[str, str]:
    return (key, prefix_end(key))


def query_terms(query: str) -> tuple[list[QueryTerm], int]:
    """The distinct terms of a query (at most 8) and how many terms it had in all.

    A Latin word matches by its stem exactly, or as a prefix of a key (typing `postg` finds
    `postgresql`); one or two letters match only exactly unless it is the whole query.
    """
    folded = fold(query)
    texts: list[str] = [match.group() for match in _IDENTIFIER.finditer(folded)]
    kinds: dict[str, str] = dict.fromkeys(texts, "identifier")
    for match in _TOKEN.finditer(normalize(_IDENTIFIER.sub(" ", folded))):
        run = match.group("cjk")
        if run is None:
            if match.group() not in _STOPWORDS:
                texts.append(match.group())
                kinds.setdefault(match.group(), "word")
            continue
        parts = [run] if len(run) <= 2 else [run[i : i + 2] for i in range(len(run) - 1)]
        texts.extend(parts)
        kinds.update({part: "cjk" for part in parts if part not in kinds})
    distinct = list(dict.fromkeys(text[:MAX_TERM_CHARS] for text in texts))
    whole = len(distinct) == 1
    terms = []
    for text in distinct[:MAX_QUERY_TERMS]:
        if kinds.get(text) != "word":
            terms.append(QueryTerm(text, (_prefix(text),)))
            continue
        stemmed = stem(text)
        ranges = [_prefix(text) if len(text) >= 3 or whole else (text, text + _EXACT_END)]
        if stemmed != text:
            ranges.append((stemmed, stemmed + _EXACT_END))
        terms.append(QueryTerm(text, tuple(ranges)))
    return terms, len(distinct)
