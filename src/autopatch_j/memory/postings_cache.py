"""A process's copy of the postings and item rows it has read, trusted exactly while the stamp is unchanged.

The stamp (`memory_index_state.stamp`, schema.sql) is a random number that triggers replace in every
transaction that changes a posting, a term statistic or an item row, so one stamp names one committed
content of what a search reads, in any process and any store: a copy read under a stamp is that
content, and a search that reads another stamp never sees it. A rolled-back or crashed writer leaves
the old stamp and the old content together; a replaced or restored file brings its own stamp.

Postings are read per term, when a second search under the same stamp asks for it, and only for
terms whose postings together stay within `LOAD_ROWS` per search (known from the search's first
statement), so a process that searches once ranks in SQL as before and a large store's common
terms stay with the SQL ranking. A store of at most `WHOLE_ITEMS` indexed items is read whole instead
(every posting, then every posted item's row), and one of at most `BUSY_ITEMS` once the process has
ranked `BUSY_SEARCHES` searches under the same stamp. The process holds at most `MAX_ROWS` postings,
merged term postings and item rows and `MAX_COPIES` stamps; the least recently searched are dropped
first; a stamp keeps at most `MAX_PARTS` terms' parts, queries' hits and rankings.

`rank_in_python` is the ranking statement of search.py computed over the copy: the same candidates
(the `cap` newest items of each driving key), the same scores summed in term order, the same floor and
term-count rules, then scope and order on the qualifying items' rows (read once, in one statement), and
the qualifier's decision taken best first until `limit` answer.
A hit's metadata as match kinds compare it (`hit_metadata`) is derived on its first hit under a
stamp and kept beside its row, with the values search.py builds of it (`Hit.values`); a store of at
most `WHOLE_ITEMS` read whole derives every active item's metadata and its values with their keys
(`matching.keysets_of`, kept under `KEYSETS`) when it reads the rows, and keeps a one-term query's
candidates in ranking order (term_order.py). What search.py derives from a query term and the
statistics alone (its weight, the keys some item holds) is kept per term under the stamp too
(`kept_parts`, `remember_parts`: a query reuses the parts of its terms kept under the store's stamp
and weighs the others), and so are a query's hits, per query text, thread and limit, and its
ranking, per terms, thread and limit.
"""

from __future__ import annotations

import bisect
import functools
import json
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from autopatch_j.memory.matching import keysets_of
from autopatch_j.memory.records import MemoryKind
from autopatch_j.memory.scoring import best_postings, best_products, qualifying
from autopatch_j.memory.term_order import Holder, candidates_of, first_answers, ordered_holders
from autopatch_j.memory.terms import normalize, prefix_end
from autopatch_j.memory.text import has_cjk

#: Postings one search may read into the copy; a search needing more is ranked in SQL.
LOAD_ROWS = 4096
#: Postings and item rows the process keeps over all stamps.
MAX_ROWS = 400_000
#: Stamps (states of stores) the process keeps a copy for; the least recently searched go first.
MAX_COPIES = 8
#: Query terms' parts and queries' hits a copy keeps (`remember_parts`); a copy holding this many starts
#: them again.
MAX_PARTS = 4096
#: Completions of a last word that may be cut short (search.py's statistics statement reads as many).
MAX_COMPLETIONS = 8
#: A store of at most this many indexed items is read whole (every posting, every indexed item's row)
#: by the search that would read postings into its copy, when it holds at most `WHOLE_ROWS` postings.
WHOLE_ITEMS = 2_000
WHOLE_ROWS = 262_144
#: A store of at most this many indexed items is read whole too once the process has searched its stamp
#: `BUSY_SEARCHES` times (a long-lived reader of a store that is not being written); each term's
#: products are then computed for a search's candidates, not kept for every holder as in a small store.
BUSY_ITEMS = 20_000
BUSY_SEARCHES = 32

#: Per asked key (its position in `:keys`), its postings as one text `item,weight,item,weight…`: one
#: string per key instead of a row per posting (the rows were most of a read's time).
_LOAD_SQL = """
SELECT j.key, (SELECT group_concat(p.item_id || ',' || (p.weight + 100)) FROM memory_postings p WHERE p.term_id = t.id)
FROM json_each(:keys) j CROSS JOIN memory_term_stats t ON t.term = j.value
"""

#: The store's postings count (term NULL), then each held term's statistic and postings (as `_LOAD_SQL`).
_ALL_SQL = """
SELECT NULL, sum(items), NULL FROM memory_term_stats WHERE term <> ''
UNION ALL
SELECT t.term, t.items, (SELECT group_concat(p.item_id || ',' || (p.weight + 100)) FROM memory_postings p
    WHERE p.term_id = t.id)
FROM memory_term_stats t
WHERE t.items > 0 AND t.term <> '' AND (SELECT sum(items) FROM memory_term_stats WHERE term <> '') <= :limit
"""

_ALL_ROWS_SQL = """
SELECT i.id, i.status, i.kind, i.thread_id, i.updated_at,
    (SELECT d.terms FROM memory_search_docs d WHERE d.item_id = i.id), i.memory_id, i.title,
    substr(i.content, 1, :synopsis_chars) AS synopsis, i.aliases, i.keywords, i.subject
FROM memory_items i WHERE i.id IN (SELECT item_id FROM memory_postings)
"""

_ROWS_SQL = """
SELECT i.id, i.status, i.kind, i.thread_id, i.updated_at,
    (SELECT d.terms FROM memory_search_docs d WHERE d.item_id = i.id), i.memory_id, i.title,
    substr(i.content, 1, :synopsis_chars) AS synopsis, i.aliases, i.keywords, i.subject
FROM json_each(:ids) j CROSS JOIN memory_items i ON i.id = j.value
"""

HitRow = tuple[int, str, str, str, str, str, str]
"""memory_id, kind, title, synopsis (cut one character past the limit), aliases, keywords, subject."""
Metadata = tuple[str, ...]
"""A hit's title, aliases, keywords and subject, normalized (`terms.normalize`), the empty ones left out."""
#: An item as a search needs it: in every scope (an active preference or decision), the thread whose
#: scope holds it (an active discussion), its `updated_at`, its hit row, its indexed keys and whether
#: its title holds a CJK character (read once, with the row).
_ItemRow = tuple[bool, int | None, float, HitRow, int, bool]
#: Whether a candidate answers the query, from its summed term weights, the query terms it holds and
#: its indexed keys (memory/qualifier.py via search.py).
Answers = Callable[[float, int, int, bool], bool]

#: Where an item's hit values keep its metadata values with their keys (`matching.keysets_of`).
KEYSETS = "\x00keysets"
_NOT_KEPT = object()  # `known_parts`: a key no part is kept under
_NONE: Mapping[int, int] = {}
_NO_VALUES: Mapping[int, float] = {}
_DISCUSSION = MemoryKind.DISCUSSION_CONTEXT.value
_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


@dataclass(slots=True)
class _Copy:
    """The postings of some terms and the rows of some items as they are under one stamp: per term,
    its items newest first and each item's weight; per item, its scope, order and hit row (None: no
    such row)."""

    newest: dict[str, tuple[int, ...]] = field(default_factory=dict)
    weights: dict[str, dict[int, int]] = field(default_factory=dict)
    items: dict[int, _ItemRow | None] = field(default_factory=dict)
    metadata: dict[int, Metadata] = field(default_factory=dict)
    #: Per term's keys (a term and its alternatives), each holder's best posting weight.
    merged: dict[tuple[str, ...], dict[int, int]] = field(default_factory=dict)
    #: In a copy holding the store whole, per term's keys with the weight each carries, each holder's
    #: best `weight × posting weight`.
    values: dict[tuple[tuple[str, float], ...], dict[int, float]] = field(default_factory=dict)
    asked: set[str] = field(default_factory=set)
    #: The term statistics read under the stamp (0 for a term no row holds), and per prefix its
    #: completions as the statistics statement returned them.
    counts: dict[str, int] = field(default_factory=dict)
    completions: dict[str, dict[str, int]] = field(default_factory=dict)
    rows: int = 0
    #: Every posting of the store is here (a term absent from `weights` is held by no item); then the
    #: rows of every item some posting names are read on the first ranking, and `whole_rows` is set.
    whole: bool = False
    whole_rows: bool = False
    #: Whether reading the store whole was tried under this stamp (it is tried once).
    whole_tried: bool = False
    products: bool = False  # a whole copy of at most `WHOLE_ITEMS` items
    searches: int = 0  # searches that ranked under this stamp (`postings_in_tx`)
    #: A whole copy's terms that some item holds, in order, with their statistics (`memory_term_stats`).
    terms: list[str] = field(default_factory=list)
    term_items: dict[str, int] = field(default_factory=dict)
    #: What the search derived per query term from the statistics under this stamp (`remember_parts`).
    parts: dict[Hashable, object] = field(default_factory=dict)
    #: Per item, the values the search built of its hit row (`Hit.values`).
    hit_values: dict[int, dict[object, object]] = field(default_factory=dict)
    #: In a copy holding a small store whole, per one-term query's keys with their weights and its
    #: candidates' bound, those candidates in ranking order (term_order.py).
    ordered: dict[tuple[tuple[tuple[str, float], ...], int], list[Holder]] = field(default_factory=dict)


_copies: OrderedDict[int, _Copy] = OrderedDict()
_lock = threading.Lock()


def clear() -> None:
    """Forget every copy (tests; the next search reads what it needs again)."""
    with _lock:
        _copies.clear()


def cached_rows() -> int:
    """Postings and item rows the process holds now, over all stamps."""
    with _lock:
        return sum(copy.rows for copy in _copies.values())


def cached_parts() -> int:
    """Query terms' parts the process holds now, over all stamps."""
    with _lock:
        return sum(len(copy.parts) for copy in _copies.values())


def _copy_of(stamp: int) -> _Copy:
    """The copy of `stamp`, made the most recently used (the caller holds the lock)."""
    copy = _copies.get(stamp)
    if copy is None:
        copy = _copies[stamp] = _Copy()
    _copies.move_to_end(stamp)
    while len(_copies) > MAX_COPIES:
        _copies.popitem(last=False)
    return copy


def remember_stats(
    conn: sqlite3.Connection,
    *,
    stamp: int | None,
    counts: Mapping[str, int],
    prefix: str,
    completions: Mapping[str, int],
) -> None:
    """Keep the term statistics a search read under `stamp` (in a transaction: one snapshot)."""
    if stamp is None or not conn.in_transaction:
        return
    with _lock:
        copy = _copy_of(stamp)
        copy.counts.update(counts)
        copy.completions.setdefault(prefix, dict(completions))


def known_stats(keys: Iterable[str], prefix: str) -> tuple[int, dict[str, int], Mapping[str, int]] | None:
    """The statistics of `keys` and the completions of `prefix` (not to be changed) from the most
    recently searched copy, with its stamp, when it holds them all or holds the store whole (the
    caller checks the stamp is still the store's)."""
    with _lock:
        if not _copies:
            return None
        stamp, copy = next(reversed(_copies.items()))
        if copy.whole and "" in copy.counts:
            return _whole_stats(stamp, copy, keys, prefix)
        completions = copy.completions.get(prefix)
        if completions is None:
            return None
        counts = copy.counts
        try:
            return stamp, {key: counts[key] for key in keys}, completions
        except KeyError:  # a key no search under this stamp asked for
            return None


def known_parts(keys: Sequence[Hashable]) -> tuple[int, list[object]] | None:
    """The parts kept under the most recently searched stamp for every one of `keys`, with that stamp
    (the caller checks it is still the store's), or None when one of them was not kept."""
    with _lock:
        if not _copies:
            return None
        stamp, copy = next(reversed(_copies.items()))
        get = copy.parts.get
        found = [get(key, _NOT_KEPT) for key in keys]
        return None if any(part is _NOT_KEPT for part in found) else (stamp, found)


def kept_parts(keys: Sequence[Hashable]) -> tuple[int, list[object | None]] | None:
    """Per one of `keys`, the part kept under the most recently searched stamp (None: not kept), with
    that stamp (the caller checks it is still the store's), or None when no stamp was searched."""
    with _lock:
        if not _copies:
            return None
        stamp, copy = next(reversed(_copies.items()))
        get = copy.parts.get
        return stamp, [get(key) for key in keys]


def remember_parts(conn: sqlite3.Connection, *, stamp: int | None, parts: Iterable[tuple[Hashable, object]]) -> None:
    """Keep what a search derived per term from the statistics it read under `stamp` (in a
    transaction: one snapshot), at most `MAX_PARTS` per stamp."""
    if stamp is None or not conn.in_transaction:
        return
    with _lock:
        kept = _copy_of(stamp).parts
        for key, part in parts:
            if len(kept) >= MAX_PARTS:
                kept.clear()
            kept.setdefault(key, part)


def _whole_stats(
    stamp: int, copy: _Copy, keys: Iterable[str], prefix: str
) -> tuple[int, dict[str, int], Mapping[str, int]]:
    """`known_stats` from a copy holding every posting: a term no posting names is held by no item;
    the completions are the statistics statement's: its `MAX_COMPLETIONS` most held terms after the
    prefix, terms held alike in term order (the statement's `ORDER BY items DESC, term`)."""
    held = copy.term_items
    stats = {key: held.get(key, 0) for key in keys}
    stats[""] = copy.counts[""]
    completions = copy.completions.get(prefix)
    if completions is None:
        start = bisect.bisect_right(copy.terms, prefix)
        end = bisect.bisect_left(copy.terms, prefix_end(prefix), start)
        # a stable sort of terms in order: most held first, terms held alike in term order
        found = sorted(((held[term], term) for term in copy.terms[start:end]), key=lambda found: -found[0])
        completions = copy.completions[prefix] = {term: items for items, term in found[:MAX_COMPLETIONS]}
    return stamp, stats, completions


def postings_in_tx(
    conn: sqlite3.Connection,
    *,
    stamp: int | None,
    alternatives: Sequence[Sequence[tuple[str, float]]],
    counts: Callable[[], Mapping[str, int]],
) -> _Copy | None:
    """The postings of the keys of `alternatives` under `stamp`, from the copy or read now (one
    statement), or None when the caller must rank in SQL: no stamp yet, no transaction (the stamp and
    the postings must come from one snapshot), a key no earlier search under this stamp asked for (so
    a process that searches once never reads postings), or more than `LOAD_ROWS` postings to read
    (`counts()`: how many items hold each key, and `""` how many are indexed). A store of at most
    `WHOLE_ITEMS` indexed items is read whole instead by the search that would read postings, one of at
    most `BUSY_ITEMS` by a search once `BUSY_SEARCHES` searches ranked under the stamp."""
    if stamp is None or not conn.in_transaction:
        return None
    with _lock:
        copy = _copy_of(stamp)
        copy.searches += 1
        if copy.whole:
            return copy
        weights = copy.weights
        missing = [key for key in dict.fromkeys(key for alts in alternatives for key, _ in alts) if key not in weights]
        if not missing:
            return copy
        unasked = [key for key in missing if key not in copy.asked]
        copy.asked.update(missing)
        held = counts()
        indexed = held.get("", 0)
        busy = copy.searches >= BUSY_SEARCHES and indexed <= BUSY_ITEMS
        small = indexed <= WHOLE_ITEMS and not unasked
        whole = not copy.whole_tried and indexed > 0 and (small or busy)
        copy.whole_tried |= whole
    if whole:  # a small store, or a busy reader's: every posting now, so later searches read none
        return _read_whole(conn, copy, held[""])
    rows = sum(held.get(key, 0) for key in missing)
    if unasked or rows > LOAD_ROWS:  # read a term's postings when a second search asks for it
        return None
    read: dict[str, dict[int, int]] = {key: {} for key in missing}
    if rows:
        for n, postings in conn.execute(_LOAD_SQL, {"keys": _json(missing)}):
            if postings:
                numbers = map(int, postings.split(","))
                read[missing[n]] = dict(zip(numbers, numbers, strict=True))  # item, weight, item, weight …
    with _lock:
        for key, postings in read.items():
            if key not in copy.weights:
                copy.weights[key] = postings
                copy.newest[key] = tuple(sorted(postings, reverse=True))
                copy.rows += len(postings)
        _trim()
    return copy


def _read_whole(conn: sqlite3.Connection, copy: _Copy, indexed: int) -> _Copy | None:
    """Every posting of a small store into `copy` with its terms' statistics (one statement), or None
    (rank in SQL) when it holds more than `WHOLE_ROWS`."""
    read: dict[str, dict[int, int]] = {}
    term_items: dict[str, int] = {}
    total = WHOLE_ROWS + 1
    for term, items, postings in conn.execute(_ALL_SQL, {"limit": WHOLE_ROWS}):
        if term is None:
            total = items or 0
        elif postings:
            numbers = map(int, postings.split(","))
            read[term] = dict(zip(numbers, numbers, strict=True))  # item, weight, item, weight …
            term_items[term] = items
    if total > WHOLE_ROWS:
        return None
    with _lock:
        for key, postings in read.items():
            if key not in copy.weights:
                copy.weights[key] = postings
                copy.newest[key] = tuple(sorted(postings, reverse=True))
                copy.rows += len(postings)
        copy.term_items = term_items  # every term read is held by some item (`items > 0`)
        copy.terms = sorted(copy.term_items)
        copy.whole = True
        copy.products = indexed <= WHOLE_ITEMS
        _trim()
    return copy


def _trim() -> None:
    """Drop the least recently searched stamps' copies until the process holds at most `MAX_ROWS`
    postings and item rows; a single copy past it starts again empty (the caller holds the lock)."""
    total = sum(copy.rows for copy in _copies.values())
    while total > MAX_ROWS and len(_copies) > 1:
        _, dropped = _copies.popitem(last=False)
        total -= dropped.rows
    if total > MAX_ROWS:  # one store's copy alone: start it again
        _copies.clear()


def hit_metadata(row: HitRow) -> Metadata:
    """The metadata of a hit row as match kinds compare it (aliases and keywords are stored JSON)."""
    _, _, title, _, aliases, keywords, subject = row
    return _metadata(title, aliases, keywords, subject)


@functools.lru_cache(maxsize=8192)
def _metadata(title: str, aliases: str, keywords: str, subject: str) -> Metadata:
    """`hit_metadata` of these values (a pure function of them, so kept whatever the stamp)."""
    values = (title, *json.loads(aliases), *json.loads(keywords), subject)
    return tuple(_normalized(value) for value in values if value)


#: A metadata value normalized, kept per value (keywords and subjects recur across items).
_normalized = functools.lru_cache(maxsize=16384)(normalize)


def _prepare(copy: _Copy, found: Mapping[int, _ItemRow | None]) -> None:
    """Each active item's metadata as match kinds compare it, kept beside its row, and its values with
    their keys (`matching.keysets_of`: what a match label reads, kept in the item's hit values under
    `KEYSETS`), so that a small store's first hit of an item derives none of them."""
    prepared = {
        item_id: hit_metadata(item[3])
        for item_id, item in found.items()
        if item is not None and (item[0] or item[1] is not None)  # in some search's scope
    }
    keysets = {item_id: keysets_of(metadata) for item_id, metadata in prepared.items()}
    with _lock:
        for item_id, metadata in prepared.items():
            copy.metadata.setdefault(item_id, metadata)
            copy.hit_values.setdefault(item_id, {}).setdefault(KEYSETS, keysets[item_id])


def _values(copy: _Copy, alternatives: tuple[tuple[str, float], ...]) -> Mapping[int, float]:
    """Per item holding a key of the term, its best `weight × posting weight` over those keys (keys of
    one weight: the weight × their best posting weight, which is the same product); kept in the copy,
    as it depends on the term's keys and weights alone."""
    values = copy.values.get(alternatives)
    if values is not None:
        return values
    if not alternatives:  # a term no item holds
        return _NO_VALUES
    w = alternatives[0][1]
    if len(alternatives) == 1:
        held_by: Mapping[int, int] = copy.weights.get(alternatives[0][0], _NONE)
        values = {item_id: w * weight for item_id, weight in held_by.items()}
    elif all(other == w for _, other in alternatives):
        best = best_postings(copy.weights, tuple(key for key, _ in alternatives))
        values = {item_id: w * weight for item_id, weight in best.items()}
    else:  # a last word's completions: each its own weight
        values = best_products(copy.weights, None, alternatives)
    with _lock:
        if copy.values.setdefault(alternatives, values) is values:
            copy.rows += len(values)
    return values


def _best(copy: _Copy, candidates: set[int], alternatives: Sequence[tuple[str, float]]) -> dict[int, float]:
    """Per candidate holding a key of the term, its best `weight × posting weight` over those keys
    (keys of one weight: the weight × their best posting weight, which is the same product)."""
    if not alternatives:  # a term no item holds
        return {}
    w = alternatives[0][1]
    if len(alternatives) == 1:
        held_by = copy.weights.get(alternatives[0][0], _NONE)
    elif not copy.whole and all(other == w for _, other in alternatives):
        held_by = _merged(copy, tuple(key for key, _ in alternatives))
    else:  # a last word's completions (each its own weight), or a large store's keys for these candidates
        return best_products(copy.weights, candidates, alternatives)
    return {item_id: w * held_by[item_id] for item_id in candidates & held_by.keys()}


def _merged(copy: _Copy, keys: tuple[str, ...]) -> Mapping[int, int]:
    """Per item holding one of `keys` (a term and its alternatives), its best posting weight; kept in
    the copy, as it depends on the term's keys alone."""
    merged = copy.merged.get(keys)
    if merged is None:
        merged = best_postings(copy.weights, keys)
        with _lock:
            if copy.merged.setdefault(keys, merged) is merged:
                copy.rows += len(merged)
    return merged


def rank_in_python(
    conn: sqlite3.Connection,
    copy: _Copy,
    *,
    alternatives: Sequence[Sequence[tuple[str, float]]],
    weights: Sequence[float],
    driver_keys: Sequence[str],
    cap: int,
    min_share: float,
    min_terms: int,
    answers: Answers,
    query_cjk: bool,
    thread_id: int,
    limit: int,
    synopsis_chars: int,
) -> list[tuple[HitRow, Metadata, dict[object, object]]]:
    """The hit rows of the ranking statement with their metadata and the values the caller keeps
    per hit item under the stamp (a dict it may fill), ranked over `copy`: scope and order as the
    statement checks them, on item rows from the copy (those not in it yet read in one statement)."""
    if copy.products and copy.whole_rows and len(alternatives) == 1:  # one term: its holders kept in order
        qualifies = min_terms <= 1 and weights[0] >= min_share  # (its weight is every holder's share)
        holders = _ordered(copy, tuple(alternatives[0]), driver_keys, cap) if qualifies else []
        answering = first_answers(
            holders, share=weights[0], answers=answers, query_cjk=query_cjk, thread_id=thread_id, limit=limit
        )
        return _entries(copy, answering)
    candidates = candidates_of(copy.newest, driver_keys, cap)
    # Per candidate, the best score of each term it holds, summed in term order (as the statement does).
    if copy.products:  # a small store: each term's products are kept, as its postings are
        values = [_values(copy, tuple(alts)) for alts in alternatives]
    else:
        values = [_best(copy, candidates, alts) for alts in alternatives]
    scored = qualifying(candidates, values, weights, min_terms=min_terms, min_share=min_share)
    if not scored:
        return []
    # A store read whole has every posted item's row once the first ranking read them.
    missing = () if copy.whole_rows else [item_id for item_id in scored if item_id not in copy.items]
    if missing:  # read under the caller's snapshot, which is the stamp's
        found: dict[int, _ItemRow | None] = dict.fromkeys(missing)
        every = copy.whole and not copy.whole_rows  # a store read whole: every posted item's row, once
        copy.whole_rows |= every
        sql, params = (
            (_ALL_ROWS_SQL, {"synopsis_chars": synopsis_chars})
            if every
            else (_ROWS_SQL, {"ids": _json(missing), "synopsis_chars": synopsis_chars})
        )
        for item_id, status, kind, thread, updated_at, keys, memory_id, *row in conn.execute(sql, params):
            active = status == "active"
            # (in every scope, the thread whose scope holds it, its order, its hit row, its keys, its title's script)
            found[item_id] = (
                active and kind != _DISCUSSION,
                thread if active and kind == _DISCUSSION else None,
                updated_at,
                (memory_id, kind, *row),
                keys or 0,
                has_cjk(row[0]),  # the title: the ranking statement's GLOB, read once per row
            )
        with _lock:
            for item_id, item in found.items():
                copy.items.setdefault(item_id, item)
            copy.rows += len(found)
            _trim()
        if every and copy.products:  # a small store's hits: their metadata ready before their first hit
            _prepare(copy, found)
    items = copy.items
    ranked: list[tuple[float, float, int, int, float, int, int]] = []
    for item_id, (total, share, held) in scored.items():  # scope: active, a discussion only of the bound thread
        known = items[item_id]
        if known is not None and (known[0] or known[1] == thread_id):
            ranked.append((total, known[2], known[3][0], item_id, share, held, known[4]))
    ranked.sort(reverse=True)  # score, updated_at, memory_id (unique among active rows): all DESC
    found_ids: list[int] = []
    for _, _, _, item_id, share, held, keys in ranked:  # best first, until `limit` answer the query
        # the match crosses scripts when the query's and the item's title's differ (as the statement's GLOB)
        if not answers(share, held, keys, items[item_id][5] != query_cjk):  # type: ignore[index]
            continue
        found_ids.append(item_id)
        if len(found_ids) == limit:
            break
    return _entries(copy, found_ids)


def _ordered(
    copy: _Copy, alternatives: tuple[tuple[str, float], ...], driver_keys: Sequence[str], cap: int
) -> list[Holder]:
    """A one-term query's candidates in ranking order (term_order.py), kept in the copy per keys and bound."""
    holders = copy.ordered.get((alternatives, cap))
    if holders is None:
        candidates = candidates_of(copy.newest, driver_keys, cap)
        values = copy.values.get(alternatives)  # else the products of the candidates only
        holders = ordered_holders(
            values=values if values is not None else _best(copy, candidates, alternatives),
            candidates=candidates,
            items=copy.items,
        )
        with _lock:
            if copy.ordered.setdefault((alternatives, cap), holders) is holders:
                copy.rows += len(holders)
    return holders


def _entries(copy: _Copy, item_ids: Iterable[int]) -> list[tuple[HitRow, Metadata, dict[object, object]]]:
    """Each hit item's row, its metadata as match kinds compare it and the values the caller keeps per
    hit item under the stamp (kept in the copy on its first hit)."""
    hits: list[tuple[HitRow, Metadata, dict[object, object]]] = []
    for item_id in item_ids:
        row = copy.items[item_id][3]  # type: ignore[index]
        metadata = copy.metadata.get(item_id)
        if metadata is None:
            metadata = copy.metadata.setdefault(item_id, hit_metadata(row))
        kept = copy.hit_values.get(item_id)
        if kept is None:
            kept = copy.hit_values.setdefault(item_id, {})
        hits.append((row, metadata, kept))
    return hits
