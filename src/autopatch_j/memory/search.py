"""`memory_search` and `memory_read` (M-60 … M-65): ranked search over the index of memory/index.py.

A search sends at most two `SELECT`/`WITH` statements (the caller passes the admission-bound thread
id, M-22; no per-item query):

1. the statistics of the query's terms (`memory_term_stats`: how many items hold each, and how many
   items are indexed), and the completions of a last word that may be cut short (`postg` →
   `postgresql`);
2. the ranked hits: candidates from the postings of the query's **driving** terms only, each scored
   by BM25 over every informative query term (the stored term-frequency part × the term's weight),
   kept only when the terms it holds carry at least `MIN_SHARE` of the query's weight, scoped,
   ordered and joined to the item rows.

A term's weight is its BM25 rarity (idf) in the store blended with its general frequency
(`text/frequencies.txt`) as `PRIOR_ITEMS` virtual items, so a small store already knows that
"project" says less than "pnpm". The drivers are the heaviest terms such that the others together
stay below the minimum share: an item that qualifies holds at least one driver (pigeonhole), and a
driver contributes at most its `DRIVER_CANDIDATES` newest items, so the work is bounded whatever the
store's size. Scope (M-63): active revisions only; repo preferences and decisions, and discussions of
the bound thread only. Order: score, then `updated_at DESC, memory_id DESC`; nothing qualifies → `[]`.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from dataclasses import dataclass
from importlib import resources
from typing import Literal

from autopatch_j.memory.index import QueryTerm, idf, query_terms
from autopatch_j.memory.records import MemoryKind, Source, SourceRole
from autopatch_j.memory.terms import MAX_QUERY_CHARS, normalize, prefix_end

MatchType = Literal["exact", "prefix", "substring", "words", "content"]

DEFAULT_LIMIT = 5
MAX_LIMIT = 5
SYNOPSIS_CHARS = 160
MAX_EXCERPTS = 3
MAX_EXCERPT_CHARS = 800
ELLIPSIS = "…"
#: The share of a query's weight the terms an item holds must carry (nothing-queries stay empty).
MIN_SHARE = 0.5
#: General frequencies count as this many virtual items beside the store's own.
PRIOR_ITEMS = 2000
#: A general word's chance of being in one item: its frequency per word × this many words.
ITEM_WORDS = 40
#: Newest items a driving term contributes as candidates.
DRIVER_CANDIDATES = 512
#: Completions of a last word that may be cut short.
MAX_COMPLETIONS = 8
MIN_PREFIX_CHARS = 3

_STATS_SQL = """
SELECT j.value AS term, s.items FROM json_each(:keys) j CROSS JOIN memory_term_stats s ON s.term = j.value
UNION ALL
SELECT * FROM (
    SELECT s.term, s.items FROM memory_term_stats s
    WHERE s.term > :prefix AND s.term < :prefix_end AND s.items > 0
    ORDER BY s.items DESC LIMIT :completions
)
"""

_SEARCH_SQL = """
WITH q(n, key, w, share) AS MATERIALIZED (
    SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(:terms)
),
cand(item_id) AS MATERIALIZED (
    SELECT DISTINCT p.item_id
    FROM json_each(:drivers) d
    CROSS JOIN memory_postings p ON p.term = d.value AND p.item_id >= coalesce((
        SELECT p2.item_id FROM memory_postings p2 WHERE p2.term = d.value
        ORDER BY p2.item_id DESC LIMIT 1 OFFSET :cap - 1
    ), 0)
),
m(item_id, n, score, share) AS (
    SELECT c.item_id, q.n, max(q.w * p.weight), max(q.share)
    FROM cand c CROSS JOIN q CROSS JOIN memory_postings p ON p.term = q.key AND p.item_id = c.item_id
    GROUP BY c.item_id, q.n
),
hits(item_id, score) AS (SELECT item_id, sum(score) FROM m GROUP BY item_id HAVING sum(share) >= :min_share),
ranked(item_id, score, updated_at, memory_id) AS MATERIALIZED (
    SELECT h.item_id, h.score, i.updated_at, i.memory_id
    FROM hits h CROSS JOIN memory_items i ON i.id = h.item_id
    WHERE i.status = 'active' AND (i.kind <> 'discussion_context' OR i.thread_id = :thread_id)
    ORDER BY h.score DESC, i.updated_at DESC, i.memory_id DESC
    LIMIT :limit
)
SELECT i.memory_id, i.kind, i.title, substr(i.content, 1, :synopsis_chars) AS synopsis
FROM ranked r CROSS JOIN memory_items i ON i.id = r.item_id
ORDER BY r.score DESC, r.updated_at DESC, r.memory_id DESC
"""


@dataclass(frozen=True, slots=True)
class SearchHit:
    memory_id: int
    kind: MemoryKind
    title: str
    synopsis: str
    match: MatchType


@dataclass(frozen=True, slots=True)
class ReadResult:
    """Bounded detail of one memory: never more than 3 excerpts of ≤ 800 characters (M-61)."""

    memory_id: int
    kind: MemoryKind
    title: str
    content: str
    non_factual: bool
    excerpts: tuple[Source, ...]


_KINDS = {kind.value: kind for kind in MemoryKind}


def clip(text: str, limit: int) -> str:
    """At most `limit` characters; a cut text ends with an ellipsis inside the limit."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)].rstrip() + ELLIPSIS if limit > 0 else ""


@functools.cache
def general_frequencies() -> dict[str, int]:
    """Zipf × 10 of the most frequent English and Chinese words (scripts/build_word_frequencies.py)."""
    text = resources.files("autopatch_j.memory.text").joinpath("frequencies.txt").read_text(encoding="utf-8")
    return {word: int(zipf) for word, _, zipf in (line.partition("\t") for line in text.splitlines() if line)}


def general_share(word: str) -> float:
    """The chance that an item holds `word`, from its general frequency (0 for a word not listed)."""
    zipf = general_frequencies().get(word)
    return 0.0 if zipf is None else min(1.0, ITEM_WORDS * 10 ** (zipf / 10 - 9))


def term_weight(items: int, holding: int, word: str) -> float:
    """A term's weight: BM25 idf over the store's items and `PRIOR_ITEMS` virtual ones that hold it
    as often as general text does."""
    return idf(items + PRIOR_ITEMS, holding + PRIOR_ITEMS * general_share(word))


def drivers(weights: list[float], min_share: float) -> list[int]:
    """The heaviest terms (by position) such that the others together weigh less than `min_share`."""
    order = sorted(range(len(weights)), key=lambda n: -weights[n])
    chosen: list[int] = []
    rest = sum(weights)
    for n in order:
        if rest < min_share - 1e-9:
            break
        chosen.append(n)
        rest -= weights[n]
    return chosen


def search_in_tx(
    conn: sqlite3.Connection, *, thread_id: int, query: str, limit: int = DEFAULT_LIMIT
) -> list[SearchHit]:
    """At most `limit` (≤ 5) ranked hits for `query` in scope of `thread_id`, in ≤ 2 statements."""
    q = normalize(query)
    limit = min(limit, MAX_LIMIT)
    if not q or len(q) > MAX_QUERY_CHARS or limit <= 0:
        return []
    terms = query_terms(query)
    if not terms:
        return []
    last = terms[-1]
    prefix = last.key if last.kind == "word" and len(last.word) >= MIN_PREFIX_CHARS else "\uffff"
    stats: dict[str, int] = {}
    completions: dict[str, int] = {}
    params: dict[str, object] = {
        "keys": json.dumps(["", *(t.key for t in terms)], ensure_ascii=False),
        "prefix": prefix,
        "prefix_end": prefix_end(prefix),
        "completions": MAX_COMPLETIONS,
    }
    rows = conn.execute(_STATS_SQL, params).fetchall()
    for term, count in rows[: len(rows)]:
        if term in stats or term == "" or any(term == t.key for t in terms):
            stats[term] = count
        else:
            completions[term] = count
    items = stats.get("", 0)
    if items <= 0:
        return []
    alternatives: list[list[tuple[str, float]]] = []
    for n, term in enumerate(terms):
        found = [(term.key, stats.get(term.key, 0))]
        if n == len(terms) - 1 and found[0][1] <= 0 and completions:
            found = list(completions.items())
        alternatives.append([(key, term_weight(items, count, term.word)) for key, count in found if count > 0])
    pairs = zip(alternatives, terms, strict=True)
    weights = [max((w for _, w in alts), default=_absent_weight(items, term)) for alts, term in pairs]
    total = sum(weights)
    min_share = MIN_SHARE * total
    driving = [n for n in drivers(weights, min_share) if alternatives[n]]
    if not driving:
        return []
    rows_out = [[n, key, w, weights[n]] for n, alts in enumerate(alternatives) for key, w in alts]
    params = {
        "terms": json.dumps(rows_out, ensure_ascii=False),
        "drivers": json.dumps([key for n in driving for key, _ in alternatives[n]], ensure_ascii=False),
        "cap": DRIVER_CANDIDATES,
        "min_share": min_share - 1e-9,
        "thread_id": thread_id,
        "limit": limit,
        "synopsis_chars": SYNOPSIS_CHARS + 1,
    }
    return [
        SearchHit(
            memory_id=memory_id,
            kind=_KINDS[kind],
            title=title,
            synopsis=clip(synopsis, SYNOPSIS_CHARS),
            match="exact" if normalize(title) == q else "words",
        )
        for memory_id, kind, title, synopsis in conn.execute(_SEARCH_SQL, params)
    ]


def _absent_weight(items: int, term: QueryTerm) -> float:
    """The weight of a query term no item holds: it still counts toward the query's total."""
    return term_weight(items, 0, term.word)


_READ_ITEM_SQL = """
SELECT id, memory_id, kind, title, content, non_factual
FROM memory_items
WHERE memory_id = :memory_id AND status = 'active'
  AND (kind <> 'discussion_context' OR thread_id = :thread_id)
"""

# Newest evidence first; a quote repeated by several candidates is shown once.
_READ_EXCERPTS_SQL = """
SELECT s.turn_id, s.role, substr(s.quote, 1, :chars) AS quote
FROM memory_item_candidates ic JOIN candidate_sources s ON s.candidate_id = ic.candidate_id
WHERE ic.item_id = :item_id
GROUP BY s.turn_id, s.role, s.quote
ORDER BY max(s.candidate_id) DESC, min(s.ordinal), s.turn_id
LIMIT :limit
"""


def read_in_tx(conn: sqlite3.Connection, *, thread_id: int, memory_id: int) -> ReadResult | None:
    """The active revision of `memory_id` in scope of `thread_id` with ≤ 3 excerpts; else None."""
    row = conn.execute(_READ_ITEM_SQL, {"memory_id": memory_id, "thread_id": thread_id}).fetchone()
    if row is None:
        return None
    item_id, memory_id, kind, title, content, non_factual = row
    excerpts = tuple(
        Source(turn_id=turn_id, role=SourceRole(role), quote=clip(quote, MAX_EXCERPT_CHARS))
        for turn_id, role, quote in conn.execute(
            _READ_EXCERPTS_SQL, {"item_id": item_id, "chars": MAX_EXCERPT_CHARS + 1, "limit": MAX_EXCERPTS}
        )
    )
    return ReadResult(
        memory_id=memory_id,
        kind=MemoryKind(kind),
        title=title,
        content=content,
        non_factual=bool(non_factual),
        excerpts=excerpts,
    )
