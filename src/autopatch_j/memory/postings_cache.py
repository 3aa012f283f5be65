"""A process's copy of the postings and item rows it has read, trusted exactly while the stamp is unchanged.

The stamp (`memory_index_state.stamp`, schema.sql) is a random number that triggers replace in every
transaction that changes a posting, a term statistic or an item row, so one stamp names one committed
content of what a search reads, in any process and any store: a copy read under a stamp is that
content, and a search that reads another stamp never sees it. A rolled-back or crashed writer leaves
the old stamp and the old content together; a replaced or restored file brings its own stamp.

Postings are read per term, when a second search under the same stamp asks for it, and only for
terms whose postings together stay within `LOAD_ROWS` per search (known from the search's first
statement), so a process that searches once ranks in SQL as before and a large store's common
terms stay with the SQL ranking. The process holds at most `MAX_ROWS` postings and item rows and
`MAX_COPIES` stamps; the least recently searched are dropped first.

`rank_in_python` is the ranking statement of search.py computed over the copy: the same candidates
(the `cap` newest items of each driving key), the same scores summed in term order, the same share and
term-count rules, then scope and order on the qualifying items' rows (read once, in one statement).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from autopatch_j.memory.records import MemoryKind

#: Postings one search may read into the copy; a search needing more is ranked in SQL.
LOAD_ROWS = 4096
#: Postings and item rows the process keeps over all stamps.
MAX_ROWS = 400_000
#: Stamps (states of stores) the process keeps a copy for; the least recently searched go first.
MAX_COPIES = 8

_LOAD_SQL = """
SELECT p.term, p.item_id, p.weight FROM json_each(:keys) j CROSS JOIN memory_postings p ON p.term = j.value
"""

_ROWS_SQL = """
SELECT i.id, i.status, i.kind, i.thread_id, i.updated_at, i.memory_id, i.title,
    substr(i.content, 1, :synopsis_chars) AS synopsis, i.aliases, i.keywords, i.subject
FROM json_each(:ids) j CROSS JOIN memory_items i ON i.id = j.value
"""

HitRow = tuple[int, str, str, str, str, str, str]
"""memory_id, kind, title, synopsis (cut one character past the limit), aliases, keywords, subject."""
#: An item as a search needs it: in every scope (an active preference or decision), the thread whose
#: scope holds it (an active discussion), its `updated_at` and its hit row.
_ItemRow = tuple[bool, int | None, float, HitRow]

_LOWEST = float("-inf")
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
    asked: set[str] = field(default_factory=set)
    #: The term statistics read under the stamp (0 for a term no row holds), and per prefix its
    #: completions as the statistics statement returned them.
    counts: dict[str, int] = field(default_factory=dict)
    completions: dict[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    rows: int = 0


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


def _copy_of(stamp: int) -> _Copy:
    """The copy of `stamp`, made the most recently used (the caller holds the lock)."""
    copy = _copies.setdefault(stamp, _Copy())
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
        copy.completions.setdefault(prefix, tuple(completions.items()))


def known_stats(keys: Sequence[str], prefix: str) -> tuple[int, dict[str, int], dict[str, int]] | None:
    """The statistics of `keys` and the completions of `prefix` from the most recently searched copy,
    with its stamp, when it holds them all (the caller checks the stamp is still the store's)."""
    with _lock:
        if not _copies:
            return None
        stamp, copy = next(reversed(_copies.items()))
        counts = copy.counts
        completions = copy.completions.get(prefix)
        if completions is None or not all(key in counts for key in keys):
            return None
        return stamp, {key: counts[key] for key in keys}, dict(completions)


def postings_in_tx(
    conn: sqlite3.Connection, *, stamp: int | None, keys: Sequence[str], counts: Mapping[str, int]
) -> _Copy | None:
    """The postings of `keys` under `stamp`, from the copy or read now (one statement), or None when
    the caller must rank in SQL: no stamp yet, no transaction (the stamp and the postings must come
    from one snapshot), a key no earlier search under this stamp asked for (so a process that
    searches once never reads postings), or more than `LOAD_ROWS` postings to read."""
    if stamp is None or not conn.in_transaction:
        return None
    with _lock:
        copy = _copy_of(stamp)
        missing = [key for key in keys if key not in copy.weights]
        if not missing:
            return copy
        unasked = [key for key in missing if key not in copy.asked]
        copy.asked.update(missing)
    rows = sum(counts.get(key, 0) for key in missing)
    if unasked or rows > LOAD_ROWS:  # read a term's postings when a second search asks for it
        return None
    read: dict[str, dict[int, int]] = {key: {} for key in missing}
    if rows:
        for term, item_id, weight in conn.execute(_LOAD_SQL, {"keys": _json(missing)}):
            read[term][item_id] = weight
    with _lock:
        for key, postings in read.items():
            if key not in copy.weights:
                copy.weights[key] = postings
                copy.newest[key] = tuple(sorted(postings, reverse=True))
                copy.rows += len(postings)
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


def _kbn_sum(values: list[float]) -> float:
    """SQLite's `sum()` of reals from 3.43 on: Kahan-Babuska-Neumaier summation."""
    total = err = 0.0
    for value in values:
        t = total + value
        err += (total - t) + value if abs(total) > abs(value) else (value - t) + total
        total = t
    return total + err


#: Whether SQLite's `sum()` compensates (from 3.43 on), so scores equal the statement's bit for bit.
_COMPENSATED = sqlite3.sqlite_version_info >= (3, 43, 0)


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
    thread_id: int,
    limit: int,
    synopsis_chars: int,
) -> list[HitRow]:
    """The hit rows of the ranking statement, ranked over `copy`: scope and order as the statement
    checks them, on item rows from the copy (those not in it yet read in one statement)."""
    candidates: set[int] = set()
    for key in driver_keys:
        candidates.update(copy.newest[key][:cap])
    postings = copy.weights
    # Per candidate, the best score of each term it holds, summed in term order (as the statement does).
    score: dict[int, float] = {}
    share: dict[int, float] = {}
    held: dict[int, int] = {}
    parts: dict[int, list[tuple[float, float]]] = {}  # the terms' (score, share), when sums are compensated
    for n, alts in enumerate(alternatives):
        best: dict[int, float] = {}
        for key, w in alts:
            held_by = postings[key]
            for item_id in candidates & held_by.keys():
                value = w * held_by[item_id]
                if value > best.get(item_id, _LOWEST):
                    best[item_id] = value
        weight = weights[n]
        for item_id, value in best.items():
            if _COMPENSATED:
                parts.setdefault(item_id, []).append((value, weight))
            elif item_id in held:
                score[item_id] += value
                share[item_id] += weight
                held[item_id] += 1
            else:  # 0.0 + x is x: the statement's sum starts from zero
                score[item_id], share[item_id], held[item_id] = value, weight, 1
    for item_id, terms in parts.items():
        score[item_id] = _kbn_sum([value for value, _ in terms])
        share[item_id] = _kbn_sum([weight for _, weight in terms])
        held[item_id] = len(terms)
    scored = [
        (total, item_id)
        for item_id, total in score.items()
        if held[item_id] >= min_terms and share[item_id] >= min_share
    ]
    if not scored:
        return []
    missing = [item_id for _, item_id in scored if item_id not in copy.items]
    if missing:  # read under the caller's snapshot, which is the stamp's
        found: dict[int, _ItemRow | None] = dict.fromkeys(missing)
        params = {"ids": _json(missing), "synopsis_chars": synopsis_chars}
        for item_id, status, kind, thread, updated_at, memory_id, *row in conn.execute(_ROWS_SQL, params):
            active = status == "active"
            # (in every scope, the thread whose scope holds it, its order, its hit row)
            found[item_id] = (
                active and kind != _DISCUSSION,
                thread if active and kind == _DISCUSSION else None,
                updated_at,
                (memory_id, kind, *row),
            )
        with _lock:
            for item_id, item in found.items():
                copy.items.setdefault(item_id, item)
            copy.rows += len(found)
            _trim()
    ranked: list[tuple[float, float, int, HitRow]] = []
    for total, item_id in scored:  # scope: active, and a discussion only of the bound thread
        known = copy.items[item_id]
        if known is not None and (known[0] or known[1] == thread_id):
            ranked.append((total, known[2], known[3][0], known[3]))
    ranked.sort(reverse=True)  # score, updated_at, memory_id (unique among active rows): all DESC
    return [row for *_, row in ranked[:limit]]
