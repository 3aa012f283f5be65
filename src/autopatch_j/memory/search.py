"""`memory_search` and `memory_read` (M-60 … M-65): ranked search over the index of memory/index.py.

Ranked in SQL, a search sends at most two `SELECT`/`WITH` statements (the caller passes the admission-bound thread id,
M-22; no per-item query):

1. the statistics of the query's terms (`memory_term_stats`: how many items hold each, and how many
   items are indexed), the completions of a last word that may be cut short (`postg` →
   `postgresql`), and the store's search stamp (`memory_index_state`);
2. the ranked hits: candidates from the postings of the query's **driving** terms only, each scored
   by BM25 over every informative query term (the stored term-frequency part × the term's weight),
   past the floor when the terms it holds carry at least the qualifier's `floor` of the query's
   weight and it holds `min_terms` of them (one for a one-term query), kept when the learned
   qualifier (qualifier.py, computed in the statement) says it answers, scoped, ordered and joined
   to the item rows.

A term's weight is its BM25 rarity (idf) in the store blended with its general frequency (`text/frequencies.txt`) as
`PRIOR_ITEMS` virtual items, so a small store already knows that "project" says less than "pnpm"; it is multiplied by
the key's learned necessity (`text/necessity.txt`: "long" in "how long …" is a way of asking, not what a memory says).
The drivers are the heaviest terms such that the others together stay below the floor: an item that qualifies holds at
least one driver (pigeonhole), and a driver's key contributes at most its `DRIVER_CANDIDATES` newest items (fewer when
a long query has many driving keys: `CANDIDATES` in all, at least `MIN_DRIVER_CANDIDATES` each), so the work is
bounded whatever the store's size. A process that searches a store again ranks over its copy of what earlier searches
read under the same stamp instead (postings_cache.py: the same hits; at most three statements, one when the copy holds
everything), and a query it searched before under the stamp gets the hits it got then (one statement, the stamp);
another text with the same terms gets that ranking, labelled as its own text (one statement, the stamp). Scope (M-63):
active revisions only; repo preferences and decisions, and discussions of the bound thread only. A winner naming only
another environment, platform or variant than the query (text/scopes.py: UAT against prod, rev B against rev C) is
dropped after either ranking, not replaced. Order: score, then `updated_at DESC, memory_id DESC`, a hit whose title
(alias, keyword or subject) is the whole query first; nothing qualifies → `[]`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, cast

from autopatch_j.memory.index import QueryTerm, analysis_generation, idf, query_terms
from autopatch_j.memory.matching import MatchType, match_of, probes_of
from autopatch_j.memory.postings_cache import (
    KEYSETS,
    MAX_COMPLETIONS,
    HitRow,
    Metadata,
    hit_metadata,
    kept_parts,
    known_stats,
    postings_in_tx,
    rank_in_python,
    remember_parts,
    remember_stats,
)
from autopatch_j.memory.qualifier import Qualifier, qualifier
from autopatch_j.memory.records import MemoryKind, Source
from autopatch_j.memory.terms import MAX_QUERY_CHARS, normalize, prefix_end
from autopatch_j.memory.text import CJK_GLOB, frequencies, has_cjk, necessity
from autopatch_j.memory.text.scopes import answers_elsewhere, question_scope

DEFAULT_LIMIT = 5
MAX_LIMIT = 5
SYNOPSIS_CHARS = 160
MAX_EXCERPTS = 3
MAX_EXCERPT_CHARS = 800
ELLIPSIS = "…"
#: General frequencies count as this many virtual items beside the store's own.
PRIOR_ITEMS = 2000
#: A general word's chance of being in one item: its frequency per word × this many words.
ITEM_WORDS = 40
#: Newest items a key of a driving term contributes as candidates: `CANDIDATES` shared among the
#: keys, from `MIN_DRIVER_CANDIDATES` to `DRIVER_CANDIDATES` each.
CANDIDATES = 64
DRIVER_CANDIDATES = 32
MIN_DRIVER_CANDIDATES = 8
#: A last word of at least this many characters may be cut short (its completions are asked for).
MIN_PREFIX_CHARS = 3

_STATS_SQL = """
SELECT NULL AS term, stamp AS items FROM memory_index_state
UNION ALL
SELECT j.value AS term, s.items FROM json_each(:keys) j CROSS JOIN memory_term_stats s ON s.term = j.value
UNION ALL
SELECT * FROM (
    SELECT s.term, s.items FROM memory_term_stats s
    WHERE s.term > :prefix AND s.term < :prefix_end AND s.items > 0
    ORDER BY s.items DESC, s.term LIMIT :completions
)
"""

_STAMP_SQL = "SELECT stamp FROM memory_index_state"

_SEARCH_SQL = """
WITH q(n, term_id, w, share) AS MATERIALIZED (
    SELECT j.value ->> 0, t.id, j.value ->> 2, j.value ->> 3
    FROM json_each(:terms) j CROSS JOIN memory_term_stats t ON t.term = j.value ->> 1
),
cand(item_id) AS MATERIALIZED (
    SELECT DISTINCT p.item_id
    FROM json_each(:drivers) d CROSS JOIN memory_term_stats t ON t.term = d.value
    CROSS JOIN memory_postings p ON p.term_id = t.id AND p.item_id >= coalesce((
        SELECT p2.item_id FROM memory_postings p2 WHERE p2.term_id = t.id
        ORDER BY p2.item_id DESC LIMIT 1 OFFSET :cap - 1
    ), 0)
),
m(item_id, n, score, share) AS (
    SELECT c.item_id, q.n, max(q.w * (p.weight + 100)), max(q.share)
    FROM cand c CROSS JOIN q CROSS JOIN memory_postings p ON p.term_id = q.term_id AND p.item_id = c.item_id
    GROUP BY c.item_id, q.n
),
hits(item_id, score, share, held) AS (
    SELECT item_id, sum(score), sum(share), count(*) FROM m GROUP BY item_id
    HAVING sum(share) >= :min_share AND count(*) >= :min_terms
),
scoped(item_id, score, updated_at, memory_id, share, held, keys, coverage, across) AS (
    SELECT h.item_id, h.score, i.updated_at, i.memory_id, h.share / :total, min(h.held, :max_held),
        coalesce(d.terms, 0), CASE WHEN d.terms > 0 THEN CAST(h.held AS REAL) / d.terms ELSE 0.0 END,
        (i.title GLOB :cjk_glob) <> :query_cjk
    FROM hits h CROSS JOIN memory_items i ON i.id = h.item_id LEFT JOIN memory_search_docs d ON d.item_id = h.item_id
    WHERE i.status = 'active' AND (i.kind <> 'discussion_context' OR i.thread_id = :thread_id)
),
ranked(item_id, score, updated_at, memory_id) AS MATERIALIZED (
    SELECT item_id, score, updated_at, memory_id FROM scoped
    WHERE :bias + :w_share * share + :w_coverage * coverage + :w_held * held + :w_terms * :term_count
        + :w_share_coverage * (share * coverage) + :w_keys * (min(keys, :max_keys) / CAST(:max_keys AS REAL))
        + :w_across * across >= :threshold
    ORDER BY score DESC, updated_at DESC, memory_id DESC
    LIMIT :limit
)
SELECT i.memory_id, i.kind, i.title, substr(i.content, 1, :synopsis_chars) AS synopsis, i.aliases, i.keywords,
    i.subject
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


def general_share(word: str) -> float:
    """The chance that an item holds `word`, from its general frequency (0 for a word not listed)."""
    zipf = frequencies.zipf(word)
    return 0.0 if zipf is None else min(1.0, ITEM_WORDS * 10 ** (zipf / 10 - 9))


@functools.lru_cache(maxsize=65536)
def term_weight(items: int, holding: int, word: str) -> float:
    """A term's weight: BM25 idf over the store's items and `PRIOR_ITEMS` virtual ones that hold it
    as often as general text does."""
    return idf(items + PRIOR_ITEMS, holding + PRIOR_ITEMS * general_share(word))


def drivers(weights: Sequence[float], min_share: float) -> list[int]:
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


@dataclass(frozen=True, slots=True)
class QueryPlan:
    """A query weighed against a store: its terms, each with the keys that count as holding it (with
    the weight each carries), the terms' weights, the share an item must reach and the driving terms
    (none: no item can reach the share, as no item holds a key of the heaviest terms)."""

    terms: Sequence[QueryTerm]
    alternatives: Sequence[Sequence[tuple[str, float]]]
    weights: Sequence[float]
    min_share: float
    driving: Sequence[int]
    #: The index's stamp the statistics were read under (None: the index never changed).
    stamp: int | None = None
    #: How many items hold each key of `alternatives`, and `""` how many items are indexed.
    counts: Mapping[str, int] = dataclasses.field(default_factory=dict)
    #: Statements sent to weigh it: 1, or 2 when the statistics kept from an earlier search were
    #: of another stamp (so the search ranks in SQL and stays within three).
    sent: int = 1


@dataclass(frozen=True, slots=True)
class QueryAnalysis:
    """What a search derives from a query text alone (the data files, never the store): the text
    normalized, its terms (None when the normalized text is empty or too long to search), the keys
    whose statistics it asks for, the prefix whose completions it asks for, and per term what its
    part of a plan is kept under (the term's fields, and whether it is the last); labels read the rest."""

    normalized: str
    terms: tuple[QueryTerm, ...] | None
    asked: tuple[str, ...] = ()
    prefix: str = "\uffff"
    part_keys: tuple[tuple[object, ...], ...] = ()
    #: The keys that count as a query term in match labels (their probes are read for hits, `_ranked`).
    keys: frozenset[str] = frozenset()
    #: Whether a term's key holds a CJK character (a match crosses scripts against a title without one).
    cjk: bool = False
    #: The query as asked: what `_labelled` reads the scopes and variants it names from, for hits.
    text: str = ""


@dataclass(frozen=True, slots=True)
class TermPart:
    """A query term weighed against the statistics of one stamp: the term (a compound no item holds
    whole also held by its held words), its keys some item holds with the weight each carries, its
    weight, how many items hold each of those keys, how many items are indexed, and whether the term
    gained its compound's words."""

    term: QueryTerm
    alternatives: tuple[tuple[str, float], ...]
    weight: float
    counts: tuple[tuple[str, int], ...]
    items: int
    split: bool


def analyse(query: str) -> QueryAnalysis:
    """The analysis of `query`, kept per query text under `index.analysis_generation()`."""
    return _analysis(query, analysis_generation(), True)


@functools.lru_cache(maxsize=2048)
def _analysis(query: str, generation: int, bounded: bool) -> QueryAnalysis:
    q = normalize(query)
    if bounded and (not q or len(q) > MAX_QUERY_CHARS):
        return QueryAnalysis(normalized=q, terms=None)
    terms = tuple(query_terms(query))
    if not terms:
        return QueryAnalysis(normalized=q, terms=terms)
    # The alternatives too: only those some item holds go into the ranking statement.
    asked = dict.fromkeys(("", *[term.key for term in terms]))
    keys = {term.key for term in terms}
    for term in terms:
        asked.update(dict.fromkeys((*term.parts, *term.alternatives)))
        keys.update(term.alternatives)
    last = terms[-1]
    return QueryAnalysis(
        normalized=q,
        terms=terms,
        asked=tuple(asked),
        prefix=last.key if last.kind == "word" and len(last.word) >= MIN_PREFIX_CHARS else "\uffff",
        part_keys=tuple(
            (t.key, t.word, t.kind, t.alternatives, t.parts, n == len(terms) - 1) for n, t in enumerate(terms)
        ),
        keys=frozenset(keys),
        cjk=any(has_cjk(term.key) for term in terms),
        text=query,
    )


def plan_in_tx(conn: sqlite3.Connection, *, query: str, cached: bool = True) -> QueryPlan | None:
    """The weighed terms of `query` from one statement (the store's statistics of its keys, or the
    stamp alone when the process kept them under it; `cached=False` always reads them), or None when
    it has no informative term or the store no indexed item."""
    weighed = _weigh(conn, _analysis(query, analysis_generation(), False), cached=cached)
    if weighed is None:
        return None
    parts, stamp, sent = weighed
    weights, alternatives, min_share, _, driving = _shape(parts, qualifier())
    return QueryPlan(
        terms=[part.term for part in parts],
        alternatives=alternatives,
        weights=weights,
        min_share=min_share,
        driving=driving,
        stamp=stamp,
        counts=_counts(parts),
        sent=sent,
    )


#: A query's term parts, the stamp they were weighed under and the statements sent to weigh them.
Weighed = tuple[Sequence[TermPart], int | None, int]
Kept = tuple[int, list[object | None]] | None | Literal[False]


def _weigh(
    conn: sqlite3.Connection, analysis: QueryAnalysis, *, cached: bool, stale: bool = False, kept: Kept = False
) -> Weighed | None:
    """The parts of the analysed query's terms, the stamp they were weighed under and the statements
    sent (1, or 2 when the kept statistics were of another stamp), or None when it has no informative
    term or the store no indexed item. The parts are kept per term under the stamp (`cached`), and a
    term whose part is kept under the store's stamp is not weighed again.
    `stale`: the caller sent one statement and found the last copy's stamp is not the store's.
    `kept`: `kept_parts(analysis.part_keys)` when the caller looked it up beside its own keys (False: not)."""
    if not analysis.terms:
        return None
    stamp: int | None = None
    parts: Sequence[TermPart] | None = None
    stats: dict[str, int] = {}
    read: Mapping[str, int] = {}  # the completions of the last word's prefix
    sent = int(stale)
    reused: Sequence[object | None] = ()  # the terms' parts kept under `stamp`, None where not kept
    if cached and not stale and conn.in_transaction:  # what the last copy kept, if its stamp is still the store's
        kept = kept_parts(analysis.part_keys) if kept is False else kept
        every = kept is not None and all(part is not None for part in kept[1])
        known = None if every else known_stats(analysis.asked, analysis.prefix)
        if every or known is not None:
            sent += 1
            row = conn.execute(_STAMP_SQL).fetchone()
            if every and kept is not None and row is not None and row[0] == kept[0]:
                stamp, parts = kept[0], kept[1]  # type: ignore[assignment]
            elif known is not None and row is not None and row[0] == known[0]:
                stamp, stats, read = known
                reused = kept[1] if kept is not None and kept[0] == stamp else ()
    if stamp is None:
        sent += 1
        stats, read = _read_stats(conn, analysis)
        stamp = stats.pop(_STAMP_KEY, None)
        if cached:
            remember_stats(
                conn,
                stamp=stamp,
                counts={key: stats.get(key, 0) for key in analysis.asked},
                prefix=analysis.prefix,
                completions=read,
            )
    if parts is None:
        if stats.get("", 0) <= 0:
            return None
        last = len(analysis.terms) - 1
        parts = [
            cast(TermPart, reused[n]) if reused and reused[n] is not None else term_part(t, n == last, stats, read)
            for n, t in enumerate(analysis.terms)
        ]
        if cached:
            remember_parts(conn, stamp=stamp, parts=zip(analysis.part_keys, parts, strict=True))
    return parts, stamp, sent


def _shape(
    parts: Sequence[TermPart], rule: Qualifier
) -> tuple[list[float], list[tuple[tuple[str, float], ...]], float, int, list[int]]:
    """What `plan_in_tx` and `search_in_tx` both rank by: the terms' weights and the keys of each some
    item holds, the floor's share of the weight, the terms a candidate must hold, and the driving
    terms some item holds — none when fewer terms than that have keys some item holds (no item can
    hold that many)."""
    weights = [part.weight for part in parts]
    alternatives = [part.alternatives for part in parts]
    min_share = rule.floor * sum(weights)
    min_terms = min(rule.min_terms, len(parts))
    if sum(map(bool, alternatives)) < min_terms:
        return weights, alternatives, min_share, min_terms, []
    return weights, alternatives, min_share, min_terms, [n for n in drivers(weights, min_share) if alternatives[n]]


def _counts(parts: Sequence[TermPart]) -> dict[str, int]:
    """How many items hold each key of the parts, and `""` how many items are indexed."""
    counts = {key: count for part in parts for key, count in part.counts}
    counts[""] = parts[0].items
    return counts


_STAMP_KEY = "\x00stamp"


def _read_stats(conn: sqlite3.Connection, analysis: QueryAnalysis) -> tuple[dict[str, int], dict[str, int]]:
    """The statistics statement: the asked keys some row holds (the stamp under `_STAMP_KEY`), and the
    completions of the prefix."""
    stats: dict[str, int] = {}
    read: dict[str, int] = {}
    asked = analysis.asked
    params = {
        "keys": _json(list(asked)),
        "prefix": analysis.prefix,
        "prefix_end": prefix_end(analysis.prefix),
        "completions": MAX_COMPLETIONS,
    }
    for term, count in conn.execute(_STATS_SQL, params).fetchall():
        if term is None:
            stats[_STAMP_KEY] = count
        elif term in asked and term not in stats:
            stats[term] = count
        else:
            read[term] = count
    return stats, read


def term_part(term: QueryTerm, last: bool, stats: Mapping[str, int], completions: Mapping[str, int]) -> TermPart:
    """`term` weighed against the statistics of its keys (`""`: the indexed items) and, when it is the
    query's last, the completions of its prefix."""
    items = stats.get("", 0)
    held = () if stats.get(term.key, 0) > 0 else tuple(part for part in term.parts if stats.get(part, 0) > 0)
    if held:  # a Chinese compound no item holds whole is also held by the shorter words inside it
        term = dataclasses.replace(term, alternatives=tuple(dict.fromkeys((*term.alternatives, *held))))
    count = stats.get(term.key, 0)
    kept = necessity.factor(term.key)  # a way of asking weighs less than what a memory says
    if count > 0:
        found = [(term.key, kept * term_weight(items, count, term.word))]
    elif last and completions:  # a last word cut short: its completions
        found = [(key, kept * term_weight(items, n, term.word)) for key, n in completions.items() if n > 0]
    else:
        found = []
    weight = max(w for _, w in found) if found else kept * term_weight(items, 0, term.word)
    # thesaurus members count as the term itself, at its weight
    alternatives = (*found, *((key, weight) for key in term.alternatives if stats.get(key, 0) > 0))
    counts = tuple((key, stats[key] if key in stats else completions[key]) for key, _ in alternatives)
    return TermPart(term=term, alternatives=alternatives, weight=weight, counts=counts, items=items, split=bool(held))


def search_in_tx(
    conn: sqlite3.Connection, *, thread_id: int, query: str, limit: int = DEFAULT_LIMIT, cached: bool = True
) -> list[SearchHit]:
    """At most `limit` (≤ 5) ranked hits for `query` in scope of `thread_id`, in ≤ 3 statements.

    Ranked over the process's copy of the postings (postings_cache.py) when the index's stamp allows
    and the postings to read are few, else by the ranking statement; `cached=False` always ranks in
    SQL. Both give the same hits in the same order. Kept under the stamp they were ranked under (in a
    transaction) and used while the store's stamp is that one (one statement, the stamp): the hits
    of a query text (up to 1,024 characters), thread and limit, and the ranking of its terms, thread
    and limit — another text with the same terms is only labelled (its match kinds are its own)."""
    limit = min(limit, MAX_LIMIT)
    generation = analysis_generation()
    analysis = _analysis(query, generation, True)
    if analysis.terms is None or limit <= 0:
        return []
    key = ("\x00hits", query, thread_id, limit, generation)  # kept beside the terms' parts
    ranking = ("\x00ranked", analysis.part_keys, thread_id, limit, generation)
    keep = cached and len(query) <= 4 * MAX_QUERY_CHARS  # a text that long is not kept whole
    # One look at the last copy for the text's hits, its terms' ranking and its terms' parts:
    kept = kept_parts((key, ranking, *analysis.part_keys)) if cached and conn.in_transaction else None
    stale = False  # the copy's stamp was read and is not the store's
    if keep and kept and (kept[1][0] is not None or kept[1][1] is not None):  # the same text, or its terms, ranked
        row = conn.execute(_STAMP_SQL).fetchone()
        if row is not None and row[0] == kept[0]:  # under the store's stamp
            if kept[1][0] is not None:
                return list(cast(tuple[SearchHit, ...], kept[1][0]))
            hits = _labelled(analysis, cast(Ranking, kept[1][1]))
            remember_parts(conn, stamp=kept[0], parts=((key, tuple(hits)),))
            return hits
        stale = True
    weighed = _weigh(conn, analysis, cached=cached, stale=stale, kept=kept and (kept[0], kept[1][2:]))
    if weighed is None:
        return []
    found = _ranked(conn, analysis, weighed, thread_id=thread_id, limit=limit, cached=cached)
    hits = _labelled(analysis, found)
    if keep:
        remember_parts(conn, stamp=weighed[1], parts=((key, tuple(hits)), (ranking, found)))
    return hits


#: A query's ranked hit rows (with metadata and the values kept per hit item, or None); the keys and probes labels use.
Ranking = tuple[tuple[tuple[HitRow, Metadata, dict[object, object] | None], ...], frozenset[str], tuple[str, ...]]


def _ranked(
    conn: sqlite3.Connection, analysis: QueryAnalysis, weighed: Weighed, *, thread_id: int, limit: int, cached: bool
) -> Ranking:
    """The ranked hit rows of a weighed query, over the process's copy or by the ranking statement."""
    parts, stamp, sent = weighed
    rule = qualifier()
    weights, alternatives, min_share, min_terms, driving = _shape(parts, rule)
    total = sum(weights)
    if not driving:
        return (), analysis.keys, ()
    query_cjk = analysis.cjk  # the parts' terms have the analysis' keys
    driver_keys = list(dict.fromkeys(key for n in driving for key, _ in alternatives[n]))
    cap = min(DRIVER_CANDIDATES, max(MIN_DRIVER_CANDIDATES, CANDIDATES // len(driver_keys)))
    copy = (
        postings_in_tx(conn, stamp=stamp, alternatives=alternatives, counts=functools.partial(_counts, parts))
        if cached and sent == 1
        else None
    )
    found: list[tuple[HitRow, Metadata, dict[object, object] | None]]
    if copy is not None:
        found = rank_in_python(  # type: ignore[assignment]
            conn,
            copy,
            alternatives=alternatives,
            weights=weights,
            driver_keys=driver_keys,
            cap=cap,
            min_share=min_share - 1e-9,
            min_terms=min_terms,
            answers=rule.answerer(total=total, terms=len(parts)),
            query_cjk=query_cjk,
            thread_id=thread_id,
            limit=limit,
            synopsis_chars=SYNOPSIS_CHARS + 1,
        )
    else:
        rows_out = [[n, key, w, weights[n]] for n, alts in enumerate(alternatives) for key, w in alts]
        params = {
            "terms": _json(rows_out),
            "drivers": _json(driver_keys),
            "cap": cap,
            "min_share": min_share - 1e-9,
            "min_terms": min_terms,
            "thread_id": thread_id,
            "limit": limit,
            "synopsis_chars": SYNOPSIS_CHARS + 1,
            "total": total,
            "term_count": len(parts),
            "query_cjk": int(query_cjk),
            "cjk_glob": CJK_GLOB,
            **rule.sql_params(),
        }
        found = [(row, hit_metadata(row), None) for row in conn.execute(_SEARCH_SQL, params).fetchall()]
    keys = analysis.keys
    if found and any(part.split for part in parts):  # a compound no item holds whole: also its words
        keys = frozenset(key for part in parts for key in (part.term.key, *part.term.alternatives))
    return tuple(found), keys, probes_of(keys) if found else ()  # probes only for hits to label


def _labelled(analysis: QueryAnalysis, ranking: Ranking) -> list[SearchHit]:
    """The hits of a ranking, each with how it matched the analysed text; the whole query as a title
    first (a stable sort). A winner naming only another environment, platform or variant than the text asks about is
    dropped here, not replaced: a kept ranking may serve another text with the same terms."""
    found, keys, probes = ranking
    if found and (asked := question_scope(analysis.text)):  # a hit naming only another scope or variant
        found = tuple(hit for hit in found if not answers_elsewhere(asked, scope_text(hit[0], hit[1])))
    if not found:
        return []
    q, line = analysis.normalized, "\n" + analysis.normalized
    hits = [
        _hit(
            row,
            match_of(q, keys, probes, metadata, lines=_lines(metadata, values), line=line, keysets=_keysets(values)),
            values,
        )
        for row, metadata, values in found
    ]
    return sorted(hits, key=_not_exact)


def scope_text(row: HitRow, metadata: Metadata) -> str:
    """What a hit's scopes are read from: its title, synopsis, subject and metadata values as written."""
    return "\n".join((row[2], row[3], row[6] or "", *metadata))


def _not_exact(hit: SearchHit) -> bool:
    return hit.match != "exact"


def _lines(metadata: Metadata, values: dict[object, object] | None) -> str:
    """The metadata as one text, each value after a line break (kept in `values` when given)."""
    lines = None if values is None else values.get(_LINES)
    if lines is None:
        lines = "\n" + "\n".join(metadata)
        lines = lines if values is None else values.setdefault(_LINES, lines)
    return lines  # type: ignore[return-value]


_LINES = "\n"


def _keysets(values: dict[object, object] | None) -> Sequence[tuple[str, frozenset[str]]] | None:
    """A hit item's metadata values with their keys (`matching.keysets_of`) when the copy derived them
    (a small store read whole derives them with its rows), else None: the label then reads the
    values' keys as it goes, so a larger store derives nothing more on an item's first hit."""
    return None if values is None else cast("Sequence[tuple[str, frozenset[str]]] | None", values.get(KEYSETS))


def _hit(row: HitRow, match: MatchType, values: dict[object, object] | None) -> SearchHit:
    """The hit of a row with its match kind; kept in `values` (the copy's per item) when given."""
    if values is not None:
        hit = values.get(match)
        if hit is None:
            hit = values.setdefault(match, _hit(row, match, None))
        return hit  # type: ignore[return-value]
    return SearchHit(
        memory_id=row[0], kind=_KINDS[row[1]], title=row[2], synopsis=clip(row[3], SYNOPSIS_CHARS), match=match
    )


_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
