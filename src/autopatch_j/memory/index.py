"""The search index of active revisions (M-62, docs/retrieval.md): the terms of an item and of a query.

A **term** is what a text is found by, from the one tokenizer of `memory/text`: an identifier, path or
version whole (`pip-tools`, `src/app.py`, `3.10`), a Latin word by its English stem (`deployed` →
`deploy`; an acronym's plural as the acronym, `PRs` → `pr`), a Chinese word as the segmenter splits
it (search mode on the item side, so `国际化方案` holds 国际, 国际化 and 方案), and the thesaurus
members its words trigger (`equivalents.json`: `缓存` ↔ `cache`, `pytest` → 测试/test) — so a memory
is found in either language. A query's words are also
held by the short names they spell (`text/short_names.py`: "motor controller" → `mc`). Filler words
(`text/fillers.json`) are never terms.

An item's terms come from its title and subject (each occurrence counts 3), aliases and keywords (2)
and content (1); its posting for a term stores the BM25 term-frequency part of that count, scaled to an
integer (`weight`, stored less `WEIGHT_OFFSET` so it fits one byte), so a search only multiplies it by
the term's rarity (search.py). Terms are stored by number (`memory_term_stats.id`, schema v6); an item's
postings are dropped by the keys its row gives (`drop_item_terms_in_tx`).
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from autopatch_j.memory.text import Token, TokenKind, associations, fold, has_cjk, necessity, tokens
from autopatch_j.memory.text.bilingual import chinese_of, english_of, forms_of
from autopatch_j.memory.text.languages import is_filler, question_words
from autopatch_j.memory.text.segment import dictionary_words
from autopatch_j.memory.text.segment import words as cjk_segment_words
from autopatch_j.memory.text.short_names import acronym_plurals, gloss_short_names, short_names
from autopatch_j.memory.words import cjk_members, equivalents, narrower, phrase_members, stem

MAX_TERM_CHARS = 64
MAX_ITEM_TERMS = 256
MAX_QUERY_TERMS = 8
#: A query asks for the learned associations of its words (text/associations.txt) from this many terms.
MIN_ASSOCIATED_TERMS = 2
#: Field weights: an occurrence in the title or subject counts this many occurrences of the content.
TITLE_WEIGHT = 3
SUBJECT_WEIGHT = 3
META_WEIGHT = 2
#: BM25 parameters; the average item length (in weighted term occurrences) is a constant, so a stored
#: weight never changes when other items arrive.
K1 = 1.2
B = 0.75
AVERAGE_LENGTH = 48.0
WEIGHT_SCALE = 100


@dataclass(frozen=True, slots=True)
class QueryTerm:
    """One informative term of a query: its index key, the word it was typed as (for its general
    frequency), and the other keys that count as holding it (the thesaurus members its word, or a
    phrase it is part of, triggers)."""

    key: str
    word: str
    kind: str
    alternatives: tuple[str, ...] = ()
    parts: tuple[str, ...] = ()  # a Chinese compound's shorter words, asked for when no item holds it whole


def token_key(token: Token) -> str | None:
    """The index key of a token, or None for a filler or a lone Latin letter."""
    return _key(token.text, token.kind)


@functools.lru_cache(maxsize=65536)
def _key(text: str, kind: TokenKind) -> str | None:
    if is_filler(Token(text, kind)):
        return None
    if kind == "word":
        if len(text) < 2 and not text.isdigit():
            return None
        return stem(text)[:MAX_TERM_CHARS]
    return text[:MAX_TERM_CHARS]


def _equivalent_keys(found: list[Token]) -> list[str]:
    latin = [t.text for t in found if t.kind == "word" and len(t.text) >= 2]
    runs = [t.text for t in found if t.kind == "cjk"]
    return _member_keys(latin, runs)


def _member_keys(latin: list[str], runs: list[str], *, broader: bool = True) -> list[str]:
    """The index keys of the thesaurus members the words and CJK runs trigger (an item's side, with
    broader concepts and a Chinese member's shorter words; a query's side, with neither)."""
    return list(_cached_member_keys(tuple(latin), tuple(runs), broader))


@functools.lru_cache(maxsize=4096)
def _cached_member_keys(latin: tuple[str, ...], runs: tuple[str, ...], broader: bool) -> tuple[str, ...]:
    cjk_words = cjk_segment_words if broader else dictionary_words
    return tuple(_keys_of(equivalents(latin, runs, broader=broader), cjk_words))


def _keys_of(members: Iterable[str], cjk_words: Callable[[str], tuple[str, ...]]) -> list[str]:
    keys: list[str] = []
    for member in members:
        if member[0].isascii():
            keys += [stem(word) for word in member.split(" ") if len(word) >= 2]
        else:
            keys += [word for word in cjk_words(member) if not is_filler(Token(word, "cjk"))]
    return list(dict.fromkeys(keys))


def text_keys(text: str, *, thesaurus: bool = False, acronyms: bool = False) -> list[str]:
    """Every key occurrence of a text, in order (Traditional characters read as Simplified: the fold);
    with `thesaurus`, then the keys of the thesaurus members its words trigger (once each); with
    `acronyms` (the index's side), an acronym's plural as the acronym (`PRs` → pr)."""
    folded = fold(text)
    found = list(tokens(folded, folded=True))
    if acronyms:
        found = _singular_acronyms(found, acronym_plurals(text))
    keys = [key for key in map(token_key, found) if key]
    return keys + list(dict.fromkeys(_equivalent_keys(found))) if thesaurus else keys


def item_weights(
    *, title: str, content: str, aliases: Iterable[str] = (), keywords: Iterable[str] = (), subject: str = ""
) -> dict[str, int]:
    """Each term of an item with its stored weight (the scaled BM25 term-frequency part), at most 256
    terms, the most weighted first."""
    counts: Counter[str] = Counter()
    fields = [(title, TITLE_WEIGHT), (subject, SUBJECT_WEIGHT), (content, 1)]
    fields += [(value, META_WEIGHT) for value in (*aliases, *keywords)]
    for text, weight in fields:
        for key in text_keys(text, acronyms=True):
            counts[key] += weight
    length = sum(counts.values())
    norm = K1 * (1 - B + B * length / AVERAGE_LENGTH)
    weights = {key: max(1, round(WEIGHT_SCALE * tf * (K1 + 1) / (tf + norm))) for key, tf in counts.items()}
    ranked = sorted(weights.items(), key=lambda kv: -kv[1])[:MAX_ITEM_TERMS]
    return dict(ranked)


def query_terms(query: str) -> list[QueryTerm]:
    """The distinct informative terms of a query (≤ 8), fillers left out; Chinese split by the
    segmenter's ordinary mode (its words, not their parts). The analysis of a query is kept for the
    next time it is asked (it depends only on the data files)."""
    return list(_query_terms(query))


@functools.lru_cache(maxsize=2048)
def _query_terms(query: str) -> tuple[QueryTerm, ...]:
    folded = fold(query)
    found: dict[str, tuple[Token, list[str]]] = {}
    latin: list[str] = []  # consecutive Latin words, for the thesaurus' phrases ("pull request")
    found_tokens = list(tokens(folded, folded=True, search_mode=False, question_words=question_words()))
    found_tokens = _singular_acronyms(found_tokens, acronym_plurals(query))
    if has_cjk(folded):  # only Chinese words are joined
        found_tokens = _join_glossed(_join_members(found_tokens))
    alone_ok = len(found_tokens) == 1
    for token in found_tokens:
        if token.part:  # an identifier is asked for whole
            continue
        if token.kind == "word" and len(token.text) >= 2:
            latin.append(token.text)
        if token.kind == "cjk" and len(token.text) == 1 and not alone_ok:  # mostly a particle: 上, 里, 多
            continue
        key = token_key(token)
        if key and key not in found:
            alone = list(_query_alternatives(token.text, token.kind))
            found[key] = (token, alone if token.kind != "identifier" else [])
    for first, second in itertools.pairwise(latin):
        phrase = _phrase_keys(first, second)
        if not phrase:
            continue
        for word in (first, second):
            entry = found.get(_key(word, "word") or "")
            if entry:
                entry[1].extend(sorted(phrase))
    shorts: dict[str, tuple[str, ...]] = {}  # "motor controller" is also held by `mc` (mc-fw)
    for run in _informative_runs(found_tokens):
        for word, names in zip(run, short_names(run), strict=True):
            if names:
                shorts[_key(word, "word") or ""] = names
    # Learned associations serve questions: a one-word lookup asks for that word (and its equivalents).
    learned = len(found) >= MIN_ASSOCIATED_TERMS
    terms = [_query_term(key, token.text, token.kind, tuple(alts), learned) for key, (token, alts) in found.items()]
    terms = [_with_short_names(term, shorts[term.key]) if term.key in shorts else term for term in terms]
    return tuple(terms[:MAX_QUERY_TERMS])


def _with_short_names(term: QueryTerm, names: tuple[str, ...]) -> QueryTerm:
    """`term` also held by the short names its place in the query spells (they depend on its
    neighbours, so they are added to the term of the word, which is kept per word)."""
    alternatives = term.alternatives
    extra = [name for name in names if name not in alternatives and name != term.key]
    return QueryTerm(term.key, term.word, term.kind, (*alternatives, *extra), term.parts) if extra else term


def _singular_acronyms(found: list[Token], plurals: frozenset[str]) -> list[Token]:
    """`found` with each word written as an acronym's plural (`plurals`) as the acronym."""
    if not plurals:
        return found
    return [Token(t.text[:-1], t.kind, t.part) if t.kind == "word" and t.text in plurals else t for t in found]


def _informative_runs(found: Sequence[Token]) -> list[list[str]]:
    """The runs of consecutive informative Latin words of a query (an identifier, a filler, a number
    or a Chinese word ends a run)."""
    runs: list[list[str]] = [[]]
    for token in found:
        if token.part:
            continue
        if token.kind == "word" and not token.text.isdigit() and token_key(token):
            runs[-1].append(token.text)
        elif runs[-1]:
            runs.append([])
    return [run for run in runs if run]


@functools.lru_cache(maxsize=8192)
def _query_term(key: str, word: str, kind: TokenKind, alternatives: tuple[str, ...], learned: bool) -> QueryTerm:
    """The term of a query word (one instance per word, its alternatives and whether the query asks
    for learned associations, whatever query it is in)."""
    associated = associations.associated(key) if learned else ()
    return QueryTerm(
        key=key,
        word=word,
        kind=kind,
        alternatives=tuple(k for k in dict.fromkeys((*alternatives, *associated)) if k != key),
        parts=_compound_parts(Token(word, kind)),
    )


_generation = 0


def analysis_generation() -> int:
    """A number that changes whenever the analysis of a query text may change (`use_associations`):
    what a caller keeps per query text it keeps under this number."""
    return _generation


def use_associations(table: Mapping[str, Sequence[str]] | None) -> None:
    """Evaluation only: ask for the learned associations of `table` instead of the packaged ones
    (None: the packaged ones again; `{}`: none), forgetting the query analyses made with the old."""
    global _generation
    associations.install(table)
    _query_terms.cache_clear()
    _query_term.cache_clear()
    _generation += 1


def use_necessity(table: Mapping[str, float] | None) -> None:
    """Evaluation only: weigh query keys by the necessity `table` instead of the packaged one (None:
    the packaged one again; `{}`: every key whole). Stores searched before keep the parts they weighed
    under their stamp, so install it before the first search of a store."""
    global _generation
    necessity.install(table)
    _generation += 1


@functools.lru_cache(maxsize=4096)
def _query_alternatives(text: str, kind: str) -> tuple[str, ...]:
    """What counts as holding a query word: its synonyms (a Chinese member as it is), the named tools
    under it or under a synonym (`test` → pytest, 包管理器 → npm, pnpm …), and its words in the other
    language from the bilingual table (`log` → 日志, 超时 → timeout; a Chinese word the table does not
    hold, those of its shorter words: 采样率 → sampl; and the short name a compound gloss's halves
    spell: 固件 → firmware → fw)."""
    latin, runs = ([text], []) if kind == "word" else ([], [text])
    members = equivalents(latin, runs, broader=False)
    words = [w for m in members if m.isascii() for w in m.split(" ")] + latin
    cjk = [m for m in members if not m.isascii()] + runs
    keys = [stem(w) for w in words if len(w) >= 2] + [m for m in cjk if not is_filler(Token(m, "cjk"))]
    keys += [stem(m) if m.isascii() else m for m in narrower(words, cjk)]
    if kind == "word":
        keys += _chinese(stem(text))
    else:
        glosses = _glosses(text)
        keys += [*glosses, *gloss_short_names(glosses, stem)]
    return tuple(dict.fromkeys(keys))


def _chinese(key: str) -> tuple[str, ...]:
    """The Chinese words an English stem glosses, then those its word's other forms gloss (drove →
    drive → 驾驶 …)."""
    return tuple(dict.fromkeys((*chinese_of(key), *(word for form in forms_of(key) for word in chinese_of(form)))))


def _glosses(word: str) -> tuple[str, ...]:
    """The English stems of a Chinese word's glosses, then the stems of their irregular forms (保留 →
    keep, kept); a word the bilingual table does not hold (采样率) has those of its shorter words (采样 →
    sampl)."""
    own = english_of(word)
    if not own:
        own = tuple(dict.fromkeys(gloss for part in _compound_parts(Token(word, "cjk")) for gloss in english_of(part)))
    return tuple(dict.fromkeys((*own, *(form for gloss in own for form in forms_of(gloss)))))


@functools.lru_cache(maxsize=4096)
def _phrase_keys(first: str, second: str) -> tuple[str, ...]:
    """The synonyms of two consecutive words that are a thesaurus phrase ("pull request" → pr, 合并请求)."""
    members = phrase_members(first, second)
    return tuple(
        dict.fromkeys(stem(w) if m.isascii() else m for m in members for w in (m.split(" ") if m.isascii() else [m]))
    )


def _join_members(found: list[Token]) -> list[Token]:
    """Consecutive Chinese words that together are one thesaurus member become that one word
    (包 + 管理 → 包管理, 对象 + 存储 → 对象存储): the thesaurus is the query's dictionary too."""
    joinable = [token.kind == "cjk" for token in found]
    if joinable.count(True) < 2:  # nothing to join
        return found
    return _joined(found, joinable, cjk_members().__contains__, _longest_member())


@functools.cache
def _longest_member() -> int:
    """The characters of the thesaurus' longest CJK member: no longer window is one."""
    return max(map(len, cjk_members()), default=0)


def _join_glossed(found: list[Token]) -> list[Token]:
    """Lone Chinese characters in a row that together are a word of the bilingual table become that
    word (挂 + 起 → 挂起, 人 + 名 → 人名): where the dictionary's cut leaves lone characters, which a
    query drops, the table still knows the word they spell, the longest first."""
    joinable = [token.kind == "cjk" and len(token.text) == 1 for token in found]
    if joinable.count(True) < 2:
        return found
    return _joined(found, joinable, lambda w: bool(english_of(w)), _WINDOW)


#: The most tokens `_joined` joins into one word.
_WINDOW = 4


def _joined(found: list[Token], joinable: list[bool], is_word: Callable[[str], bool], longest: int) -> list[Token]:
    """`found` with each run of up to `_WINDOW` tokens marked `joinable` whose texts spell a word
    (`is_word`; none is longer than `longest` characters) as that one Chinese word, the longest
    window first."""
    texts = [token.text for token in found]
    out: list[Token] = []
    n = 0
    end = len(found)
    while n < end:
        run = 0  # joinable tokens from here on, at most `_WINDOW` (the longest window tried)
        while run < _WINDOW and n + run < end and joinable[n + run]:
            run += 1
        for size in range(run, 1, -1):  # the longest window first
            joined = "".join(texts[n : n + size])
            if len(joined) <= longest and is_word(joined):
                out.append(Token(joined, "cjk"))
                n += size
                break
        else:
            out.append(found[n])
            n += 1
    return out


def compound_parts(word: str) -> tuple[str, ...]:
    """The shorter words of a Chinese word of three or more characters that a query also asks for
    (search mode's words inside it, fillers left out: 模拟器 → 模拟)."""
    return _compound_parts(Token(word, "cjk"))


def _compound_parts(token: Token) -> tuple[str, ...]:
    """The shorter words of a Chinese word of three or more characters (search mode), fillers left out."""
    if token.kind != "cjk" or len(token.text) < 3:
        return ()
    found = dict.fromkeys((*cjk_segment_words(token.text), *dictionary_words(token.text)))
    parts = (w for w in found if w != token.text and len(w) >= 2)
    return tuple(w for w in parts if not is_filler(Token(w, "cjk")))


#: A stored weight is the scaled BM25 part less this, so that it fits SQLite's one-byte integer.
WEIGHT_OFFSET = 100

_ADD_TERMS = (
    "INSERT INTO memory_term_stats (term, items) SELECT value, 0 FROM json_each(?) WHERE true "
    "ON CONFLICT (term) DO NOTHING"
)
_TERM_IDS = "SELECT j.value, s.id FROM json_each(?) j CROSS JOIN memory_term_stats s ON s.term = j.value"
_INSERT_POSTING = "INSERT INTO memory_postings (term_id, item_id, weight) VALUES (?, ?, ?)"
_INSERT_DOC = "INSERT INTO memory_search_docs (item_id, terms) VALUES (?, ?)"
_DROP_POSTING = (
    "DELETE FROM memory_postings WHERE term_id = (SELECT id FROM memory_term_stats WHERE term = ?) AND item_id = ?"
)
_DROP_DOC = "DELETE FROM memory_search_docs WHERE item_id = ?"
_ITEM_TEXT = "SELECT title, aliases, keywords, content, subject FROM memory_items WHERE id = ?"
_ACTIVE_ITEMS = (
    "SELECT id, title, aliases, keywords, content, subject FROM memory_items WHERE status = 'active' ORDER BY id"
)


def index_item_in_tx(
    conn: sqlite3.Connection,
    *,
    item_id: int,
    title: str,
    aliases: Iterable[str],
    keywords: Iterable[str],
    content: str,
    subject: str = "",
) -> None:
    """Index one active revision: its terms (numbered in `memory_term_stats`, added when new), its
    postings, and how many it holds (`memory_search_docs`)."""
    weights = item_weights(title=title, content=content, aliases=aliases, keywords=keywords, subject=subject)
    conn.execute(_INSERT_DOC, (item_id, len(weights)))
    if not weights:
        return
    keys = json.dumps(list(weights), ensure_ascii=False, separators=(",", ":"))
    conn.execute(_ADD_TERMS, (keys,))
    ids = dict(conn.execute(_TERM_IDS, (keys,)).fetchall())
    conn.executemany(
        _INSERT_POSTING, ((ids[term], item_id, weight - WEIGHT_OFFSET) for term, weight in weights.items())
    )


def drop_item_terms_in_tx(conn: sqlite3.Connection, *, item_id: int) -> None:
    """Remove a revision from search (it was revised, superseded or forgotten): its postings by the keys
    its row gives today, then its row of `memory_search_docs`, whose trigger deletes any posting left
    (a tokenizer changed since it was indexed) by probing every term. Nothing for an unindexed item."""
    row = conn.execute(_ITEM_TEXT, (item_id,)).fetchone()
    if row is not None:
        title, aliases, keywords, content, subject = row
        weights = item_weights(
            title=title, content=content, aliases=json.loads(aliases), keywords=json.loads(keywords), subject=subject
        )
        conn.executemany(_DROP_POSTING, ((term, item_id) for term in weights))
    conn.execute(_DROP_DOC, (item_id,))


def reindex_in_tx(conn: sqlite3.Connection) -> int:
    """Rebuild the search index from the active revisions (it is derived data); returns the items indexed.

    Used by the schema upgrade and by `autopatch-j memory reindex` (after a change of the tokenizer,
    the fillers or the thesaurus). RAW turns, candidates, items and the schema stay as they are.
    """
    # Postings first: their trigger counts each item's row down to 0, so the rows' delete trigger does
    # not probe every term for every item (quadratic in the index).
    conn.execute("DELETE FROM memory_postings")
    conn.execute("DELETE FROM memory_search_docs")
    conn.execute("DELETE FROM memory_term_stats")
    rows = conn.execute(_ACTIVE_ITEMS).fetchall()
    for item_id, title, aliases, keywords, content, subject in rows:
        index_item_in_tx(
            conn,
            item_id=item_id,
            title=title,
            aliases=json.loads(aliases),
            keywords=json.loads(keywords),
            content=content,
            subject=subject,
        )
    return len(rows)


def idf(items: float, holding: float) -> float:
    """BM25's inverse document frequency of a term held by `holding` of `items`."""
    return math.log(1 + (items - holding + 0.5) / (holding + 0.5))
