"""`memory_search` and `memory_read` (M-60 … M-65): bounded, one-directional lookups over terms.

A search sends at most three `SELECT`/`WITH` statements, each returning finished hits (no
per-item query, no bootstrap query; the caller passes the admission-bound thread id, M-22):

1. exact + prefix over metadata terms (a B-tree range scan on `(source, term)`);
2. only if fewer than `limit` hits: substring over metadata terms, excluding items already found.
   Queries of ≤ 3 characters are a prefix of some stored gram, so a range scan over
   `memory_term_grams` finds them; longer queries look up only their rarest gram (from
   `memory_gram_stats`) and verify the few candidate terms exactly with `instr` — a query gram
   missing from the stats means no term contains the query;
3. only if still short: words (issue 18), excluding items already found. The query is split into
   terms (words.py); one term is looked up by its key ranges, several by their exact keys, an item
   needing at least half of the terms (three quarters of a query of five terms or more: a sentence,
   not a lookup), with candidates from the rarest terms' newest items only.

Matching is one-directional: the stored term is compared with the query (term = q, term starts
with q, term contains q), so a long query never hits because it contains a short common word.
Scope (M-63): active revisions only; repo preferences and decisions, and discussions of the bound
thread only. Order: match quality (for words: terms matched, then in the metadata), then
`updated_at DESC, memory_id DESC`; zero text hits → `[]`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from autopatch_j.memory.records import MemoryKind, Source, SourceRole
from autopatch_j.memory.terms import GRAM, KEY_MARK, MAX_QUERY_CHARS, grams, normalize, prefix_end
from autopatch_j.memory.words import QueryTerm, query_terms, reads_as_sentence, required_terms

MatchType = Literal["exact", "prefix", "substring", "words", "content"]

DEFAULT_LIMIT = 5
MAX_LIMIT = 5
SYNOPSIS_CHARS = 160
MAX_EXCERPTS = 3
MAX_EXCERPT_CHARS = 800
ELLIPSIS = "…"

# Scope, order and columns shared by the three statements. `h` is the per-item hit set (item_id, rank).
# CROSS JOIN fixes the join order (SQLite never reorders it): lookups drive, items are probed by id.
# Two steps: hits are scoped and ordered on narrow rows (`ranked`), and only the ≤ `limit` winners
# read their title and content — the sorter never carries a synopsis for a hit that loses.
_SCOPE = """i.status = 'active'
      AND (i.kind <> 'discussion_context' OR i.thread_id = :thread_id)
      AND i.memory_id NOT IN (SELECT value FROM json_each(:excluded))"""
_SELECT_HITS = f""",
ranked(item_id, rank, updated_at, memory_id) AS MATERIALIZED (
    SELECT h.item_id, h.rank, i.updated_at, i.memory_id
    FROM hits h CROSS JOIN memory_items i ON i.id = h.item_id
    WHERE {_SCOPE}
    ORDER BY h.rank, i.updated_at DESC, i.memory_id DESC
    LIMIT :limit
)
SELECT i.memory_id, i.kind, i.title, substr(i.content, 1, :synopsis_chars) AS synopsis, r.rank
FROM ranked r CROSS JOIN memory_items i ON i.id = r.item_id
ORDER BY r.rank, r.updated_at DESC, r.memory_id DESC
"""

# (1) exact (rank 0) and prefix (rank 1) over metadata terms: the key `q` itself (its items are unique
# already, and nothing of theirs is grouped), then the rest of its range for the other items, grouped
# once per item. Grouping the whole range with min(term <> q) sorted the exact items' rows too, and a
# keyword shared by hundreds of items was mostly that sort (bench/search_bench.py; DISTINCT instead of
# the GROUP BY was faster at 10k items but 1.3× slower at 100k, docs/retrieval.md).
_EXACT_PREFIX_SQL = (
    """
WITH exact(item_id) AS MATERIALIZED (SELECT t.item_id FROM memory_terms t WHERE t.source = 'meta' AND t.term = :q),
hits(item_id, rank) AS (
    SELECT item_id, 0 FROM exact
    UNION ALL
    SELECT t.item_id, 1
    FROM memory_terms t
    WHERE t.source = 'meta' AND t.term > :q AND t.term < :q_end AND t.item_id NOT IN exact
    GROUP BY t.item_id
)"""
    + _SELECT_HITS
)

# (2a) substring, query of ≤ 3 characters: every occurrence of q starts some stored gram.
_SUBSTRING_SHORT_SQL = (
    """
WITH hits AS (
    SELECT DISTINCT g.item_id, 0 AS rank
    FROM memory_term_grams g
    WHERE g.gram >= :q AND g.gram < :q_end
)"""
    + _SELECT_HITS
)

# (2b) substring, longer query: candidates of the rarest query gram only, verified with instr.
_SUBSTRING_RARE_GRAM_SQL = (
    """
WITH query_grams(gram) AS (SELECT DISTINCT value FROM json_each(:grams)),
known AS (
    SELECT s.gram, s.terms FROM query_grams q CROSS JOIN memory_gram_stats s ON s.gram = q.gram WHERE s.terms > 0
),
rarest AS (
    SELECT gram FROM known
    WHERE (SELECT count(*) FROM known) = (SELECT count(*) FROM query_grams)
    ORDER BY terms, gram
    LIMIT 1
),
hits AS (
    SELECT t.item_id, 0 AS rank
    FROM rarest r
    CROSS JOIN memory_term_grams g ON g.gram = r.gram
    CROSS JOIN memory_terms t ON t.id = g.term_id
    WHERE t.source = 'meta' AND instr(t.term, :q) > 0
    GROUP BY t.item_id
)"""
    + _SELECT_HITS
)

# (3a) words, a query of one term (issue 18): its key ranges [lo, hi) over content rows and the
# `#`-marked metadata keys (words.py) — the word as a prefix, its stem exactly. Rank 0: found in the
# title, aliases or keywords; rank 1: only in the content.
_ONE_WORD_SQL = (
    """
WITH r(src, lo, hi) AS (SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(:ranges)),
hits AS (
    SELECT t.item_id, min(r.src <> 'meta') AS rank
    FROM r CROSS JOIN memory_terms t ON t.source = r.src AND t.term >= r.lo AND t.term < r.hi
    GROUP BY t.item_id
)"""
    + _SELECT_HITS
)

# (3b) words, a query of several terms: each term's key matched exactly over content rows and
# metadata keys. An item must match at least :min_match distinct terms, so it matches one of the
# :drivers rarest terms (rarity: a count capped at :cap). Candidates are the :cap newest items of
# each driver key (a backward range on the (source, term, item_id) index, never the whole list).
# Which candidates hold which key: a key with at most :scan_max rows from the oldest candidate on is
# read as that short range (sequential index steps); a denser key is probed once per candidate on
# the (item_id, source, term) index — either way bounded, and the same matches. Order: distinct
# terms matched, then terms matched in title/aliases/keywords, then recency.
_WORDS_SQL = """
WITH r(n, src, key) AS MATERIALIZED (SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(:keys)),
freq(n, f) AS (
    SELECT r.n, sum((
        SELECT count(*) FROM (SELECT 1 FROM memory_terms t WHERE t.source = r.src AND t.term = r.key LIMIT :cap)
    ))
    FROM r GROUP BY r.n
),
drivers(n) AS (SELECT n FROM freq ORDER BY f, n LIMIT :drivers),
cand(item_id) AS MATERIALIZED (
    SELECT DISTINCT t.item_id
    FROM drivers d
    CROSS JOIN r ON r.n = d.n
    CROSS JOIN memory_terms t ON t.source = r.src AND t.term = r.key AND t.item_id >= coalesce((
        SELECT t2.item_id FROM memory_terms t2 WHERE t2.source = r.src AND t2.term = r.key
        ORDER BY t2.item_id DESC LIMIT 1 OFFSET :cap - 1
    ), 0)
),
oldest(item_id) AS MATERIALIZED (SELECT min(item_id) FROM cand),
keys(n, src, key, dense) AS MATERIALIZED (
    SELECT r.n, r.src, r.key, (
        SELECT count(*) FROM (
            SELECT 1 FROM memory_terms t
            WHERE t.source = r.src AND t.term = r.key AND t.item_id >= (SELECT item_id FROM oldest)
            LIMIT :scan_max + 1
        )
    ) > :scan_max
    FROM r
),
matches(item_id, n, meta) AS (
    SELECT t.item_id, k.n, k.src = 'meta'
    FROM keys k
    CROSS JOIN memory_terms t ON t.source = k.src AND t.term = k.key AND t.item_id >= (SELECT item_id FROM oldest)
    WHERE NOT k.dense AND t.item_id IN cand
    UNION ALL
    SELECT c.item_id, k.n, k.src = 'meta'
    FROM keys k
    CROSS JOIN cand c
    CROSS JOIN memory_terms t ON t.item_id = c.item_id AND t.source = k.src AND t.term = k.key
    WHERE k.dense
),
scored(item_id, matched, in_meta) AS (
    SELECT item_id, count(DISTINCT n), sum(meta) FROM matches GROUP BY item_id
    HAVING count(DISTINCT n) >= :min_match
    AND count(DISTINCT CASE WHEN n IN (SELECT value FROM json_each(:counts)) THEN n END) = json_array_length(:counts)
),
hits(item_id, rank) AS (SELECT item_id, -(matched * 16 + in_meta) FROM scored)"""
# rank: distinct terms matched, then terms in the metadata (≤ 8 terms, so in_meta < 16); the shared
# select orders by it ascending, and its sign says where the best term was found (below). A match row
# is one (item, term, content or metadata key) at most once, so `sum(meta)` counts the terms found in
# the metadata, and one GROUP BY does (two took 4–6 % longer, bench/search_bench.py).
_WORDS_SQL += _SELECT_HITS
# Candidates per driver key of a words statement: bounds its work whatever the store's size.
WORDS_CANDIDATES = 32
# Rows of a key (from the oldest candidate on) read as a range rather than probed per candidate: an
# index step costs ~1/10 of a probe, so a short range beats ≤ 4 × 32 probes (bench/search_bench.py).
WORDS_SCAN_MAX = 256

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


def _exact_or_prefix(rank: int) -> MatchType:
    return "exact" if rank == 0 else "prefix"


def _substring(rank: int) -> MatchType:
    return "substring"


def _words_or_content(rank: int) -> MatchType:
    """One word: rank 0 when found in the title, aliases or keywords."""
    return "words" if rank == 0 else "content"


def _terms_matched(rank: int) -> MatchType:
    """Several words: rank is −(16 × terms matched + terms matched in the metadata)."""
    return "words" if -rank % 16 else "content"


def clip(text: str, limit: int) -> str:
    """At most `limit` characters; a cut text ends with an ellipsis inside the limit."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)].rstrip() + ELLIPSIS if limit > 0 else ""


def search_in_tx(
    conn: sqlite3.Connection, *, thread_id: int, query: str, limit: int = DEFAULT_LIMIT
) -> list[SearchHit]:
    """At most `limit` (≤ 5) hits for `query` in scope of `thread_id`, in ≤ 3 statements."""
    q = normalize(query)
    limit = min(limit, MAX_LIMIT)
    if not q or len(q) > MAX_QUERY_CHARS or limit <= 0:
        return []
    params: dict[str, object] = {
        "q": q,
        "q_end": prefix_end(q),
        "thread_id": thread_id,
        "synopsis_chars": SYNOPSIS_CHARS + 1,
    }
    hits: list[SearchHit] = []

    def run(sql: str, match: Callable[[int], MatchType]) -> None:
        params["excluded"] = json.dumps([hit.memory_id for hit in hits]) if hits else "[]"
        params["limit"] = limit - len(hits)
        for memory_id, kind, title, synopsis, rank in conn.execute(sql, params):
            hits.append(
                SearchHit(
                    memory_id=memory_id,
                    kind=_KINDS[kind],
                    title=title,
                    synopsis=clip(synopsis, SYNOPSIS_CHARS),
                    match=match(rank),
                )
            )

    run(_EXACT_PREFIX_SQL, _exact_or_prefix)
    if len(hits) < limit:
        if len(q) <= GRAM:
            run(_SUBSTRING_SHORT_SQL, _substring)
        else:
            params["grams"] = json.dumps(query_grams(q))
            run(_SUBSTRING_RARE_GRAM_SQL, _substring)
    if len(hits) < limit:
        terms, total = query_terms(query)
        # half of a few keywords, three quarters of a list, all of a sentence's
        min_match = required_terms(total, sentence=reads_as_sentence(query))
        if len(terms) == 1:
            params["ranges"] = json.dumps(one_term_ranges(terms[0]), ensure_ascii=False)
            run(_ONE_WORD_SQL, _words_or_content)
        elif terms and min_match <= len(terms):
            params.update(
                keys=json.dumps(term_keys(terms), ensure_ascii=False),
                min_match=min_match,
                counts=json.dumps([n for n, t in enumerate(terms) if t.value]),  # every count must match
                drivers=len(terms) - min_match + 1,
                cap=WORDS_CANDIDATES,
                scan_max=WORDS_SCAN_MAX,
            )
            run(_WORDS_SQL, _terms_matched)
    return hits


def one_term_ranges(term: QueryTerm) -> list[tuple[str, str, str]]:
    """(source, lo, hi): each of the term's ranges over content rows and over `#` metadata keys."""
    return [row for lo, hi in term.ranges for row in (("content", lo, hi), ("meta", KEY_MARK + lo, KEY_MARK + hi))]


def term_keys(terms: list[QueryTerm]) -> list[tuple[int, str, str]]:
    """(term number, source, key): each term's key in the content rows and in the `#` metadata keys."""
    return [row for n, t in enumerate(terms) for row in ((n, "content", t.key), (n, "meta", KEY_MARK + t.key))]


def query_grams(q: str) -> list[str]:
    """The full-length grams of a query longer than one gram (every stored term containing q has them all)."""
    return [gram for gram in grams(q) if len(gram) == GRAM]


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
