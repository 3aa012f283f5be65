"""Words of an indexed text and of a query (issue 18; issue 11 item 2): search by words, not by one substring.

Index side (`keys`): Latin words and their English stems (Snowball, via PyStemmer), identifiers kept
whole (`snake_case`, `src/app.py`, `3.10`, `pip-tools`), every suffix of each CJK run cut to 16
characters (so a prefix lookup is a substring lookup) and every CJK bigram (exact lookups), and the
thesaurus keys of the words found (`equivalents.json`: synonym groups across zh/en such as `缓存` ↔
`cache`, `重构` ↔ `refactor`, and broader concepts of named tools such as `pytest` → `测试`/`test`).

Query side (`query_terms`): identifiers whole; Latin words, minus a few function words, by stem;
CJK runs (split at spaces) of two characters as they are, longer runs as their overlapping bigrams,
so `简短回答` also finds `回答简短`. A query of several terms matches each term's key exactly; a
query of one term matches its ranges `[lo, hi)` (the word as a prefix, its stem exactly).

The stemmer is imported on first use only, so commands that never index or search (`memory status`)
never load it.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib import resources

from autopatch_j.memory.terms import CJK_SUFFIX_CHARS, MAX_TERM_CHARS, normalize, prefix_end
from autopatch_j.memory.text import IDENTIFIER, TOKEN, fold

MAX_QUERY_TERMS = 8
_MAX_PHRASE_WORDS = 3  # a thesaurus member of Latin words has at most this many ("rate limiting")
#: A query of this many distinct terms or more is a sentence, not a lookup (`required_terms`).
SENTENCE_TERMS = 5
#: A query with this many function words between its words reads as a sentence (`reads_as_sentence`).
SENTENCE_FUNCTION_WORDS = 2

_TOKEN = TOKEN
_IDENTIFIER = IDENTIFIER
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
# A Chinese count: a numeral and a measure word ("两个空格" is not "四个空格", though they share 个空 and 空格).
_COUNT = re.compile("[一二两三四五六七八九十百千万][个只条次项位台份种遍行层秒天周年]")
_EXACT_END = "\x01"  # no stored key contains a control character, so [k, k + "\x01") holds k alone


@dataclass(frozen=True, slots=True)
class QueryTerm:
    """One term of a query: `key` is matched exactly when the query has several terms; a query of one
    term is matched by `ranges` (`[lo, hi)` over keys: the word as a prefix, and its stem exactly)."""

    text: str
    key: str
    ranges: tuple[tuple[str, str], ...]
    value: bool = False  # a count ("两个", "三次"): a query naming one matches only what names it too


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
            table = cjk if _TOKEN.fullmatch(member).group("cjk") else latin  # type: ignore[union-attr]
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
    # _TOKEN is compiled already; compiling another CJK class would cost the first search ~30 ms.
    words = member.split(" ")
    if len(words) == 1:
        token = _TOKEN.fullmatch(member)
        return bool(token and (token.group("cjk") or member[0].isascii()))
    return len(words) <= _MAX_PHRASE_WORDS and all(w.isascii() and w.isalnum() for w in words)


def equivalents(words: Iterable[str], cjk_runs: Iterable[str]) -> list[str]:
    """The thesaurus keys of the given words (by stem; consecutive words also as phrases) and of the
    CJK members inside the runs."""
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
    return [member for n in dict.fromkeys(found) for member in table.groups[n]]


def thesaurus_keys(text: str, *, retired: set[str]) -> list[str]:
    """The thesaurus members `text` is found by, leaving out what its `retired` words (Latin stems,
    CJK words) trigger: Latin words by stem, CJK members inside the runs with the retired words cut
    out."""
    latin: list[str] = []
    runs: list[str] = []
    for match in _TOKEN.finditer(normalize(text)):
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


def _word_keys(word: str) -> Iterator[str]:
    yield word
    stemmed = stem(word)
    if stemmed != word:
        yield stemmed


def _cjk_keys(run: str) -> Iterator[str]:
    """Every suffix (cut to 16 characters: a prefix lookup on it is a substring lookup) and every bigram."""
    for start in range(len(run) - 1):
        yield run[start : start + CJK_SUFFIX_CHARS]
        yield run[start : start + 2]


def keys(text: str) -> list[str]:
    """Every key of a text: identifiers, the equivalents' keys, then words, stems and CJK keys in text order."""
    found = [match.group() for match in _IDENTIFIER.finditer(fold(text))]
    tokens = [(match.group(), match.group("cjk") is not None) for match in _TOKEN.finditer(normalize(text))]
    words = [token for token, cjk in tokens if not cjk and len(token) >= 2]
    for member in equivalents(words, (token for token, cjk in tokens if cjk)):
        if member[0].isascii():
            found.extend(key for word in member.split(" ") for key in _word_keys(word))
        else:
            found.extend((member, *_cjk_keys(member)))
    for token, cjk in tokens:
        if cjk:
            found.extend(_cjk_keys(token))
        elif len(token) >= 2:
            found.extend(_word_keys(token))
    return list(dict.fromkeys(key[:MAX_TERM_CHARS] for key in found))


def _prefix(key: str) -> tuple[str, str]:
    return (key, prefix_end(key))


def query_terms(query: str) -> tuple[list[QueryTerm], int]:
    """The distinct terms of a query (at most 8) and how many it had in all.

    Identifiers whole; Latin words minus function words, by stem; CJK runs of two characters as they
    are, longer runs as their overlapping bigrams. A lone CJK character counts only when it is the
    whole query (a one-character word in a longer query is mostly a particle: 的, 用, 和).
    """
    folded = fold(query)
    found: dict[str, QueryTerm] = {}
    for match in _IDENTIFIER.finditer(folded):
        found.setdefault(match.group(), QueryTerm(match.group(), match.group(), (_prefix(match.group()),)))
    singles: list[str] = []
    # Spaces split CJK runs here ("版本 镜像" is two words), unlike `normalize`, which joins them.
    for match in _TOKEN.finditer(_IDENTIFIER.sub(" ", folded)):
        token = match.group()[:MAX_TERM_CHARS]
        if match.group("cjk") is None:
            if token not in _STOPWORDS and token not in found:
                stemmed = stem(token)
                exact = ((stemmed, stemmed + _EXACT_END),) if stemmed != token else ()
                found[token] = QueryTerm(token, stemmed, (_prefix(token), *exact))
        elif len(token) == 1:
            singles.append(token)
        else:
            for bigram in [token] if len(token) == 2 else [token[i : i + 2] for i in range(len(token) - 1)]:
                found.setdefault(bigram, QueryTerm(bigram, bigram, (_prefix(bigram),), bool(_COUNT.fullmatch(bigram))))
    if not found and len(singles) == 1:
        found[singles[0]] = QueryTerm(singles[0], singles[0], (_prefix(singles[0]),))
    terms = list(found.values())
    return terms[:MAX_QUERY_TERMS], len(terms)


def reads_as_sentence(query: str) -> bool:
    """Function words between its words ("show me the before and the after by default"): a question
    or a request, not a list of keywords."""
    words = (m.group() for m in _TOKEN.finditer(fold(query)) if m.group("cjk") is None)
    return sum(word in _STOPWORDS for word in words) >= SENTENCE_FUNCTION_WORDS


def required_terms(total: int, *, sentence: bool = False) -> int:
    """How many of a query's `total` distinct terms an item must match. A lookup of a few words
    ("postgresql backend helm", "简短回答") needs half of them — a synonym or an inflection may miss; a
    list of five or more ("data layer queries string concatenation pooling") needs three quarters; a
    query that reads as a sentence asks about everything it names and needs all of them, so a question
    never hits merely because a memory shares some of its words (M-64)."""
    if sentence:
        return total
    return -(-total // 2) if total < SENTENCE_TERMS else -(-3 * total // 4)
